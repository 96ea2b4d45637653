//===- HvxTarget.cpp - Hexagon v67 with 128-byte HVX, freestanding --------===//
//
// No C library exists for Hexagon here: the library is built freestanding and
// the runtime brings the memcpy/memset the compiler may call.
//
#include "compiler/targets/IsaTarget.h"
#include "compiler/support/QuantBlocks.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace kiln;

namespace {
class HvxTarget : public IsaTarget {
public:
  std::string name() const override { return "hvx"; }
  std::vector<std::string> cflags() const override {
    return {"--target=hexagon", "-mv67", "-mhvx", "-mhvx-length=128b",
            "-std=c11", "-O2", "-ffreestanding", "-ffunction-sections",
            "-fdata-sections", "-fno-math-errno"};
  }
  std::vector<std::string>
  linkCommand(const std::vector<std::string> &inputs,
              const std::string &output) const override {
    std::vector<std::string> argv = {KILN_DEFAULT_CC, "--target=hexagon", "-mv67",
                                     "-nostdlib", "-static", "-fuse-ld=lld"};
    argv.insert(argv.end(), inputs.begin(), inputs.end());
    argv.insert(argv.end(), {"-o", output});
    return argv;
  }
  std::vector<std::string> runPrefix(int64_t) const override {
    return {"qemu-hexagon"};
  }
  bool hosted() const override { return false; }
  uint64_t maxObjectBytes() const override { return INT32_MAX; } // ILP32
  ToolchainPackages packages() const override {
    return {"", {{"clang-16", "clang-16"}, {"ld.lld", "lld-16"},
                 {"qemu-hexagon", "qemu-user"}}};
  }

  // Microkernels of kernels_hvx.c: 32 output rows per tile, one per word lane.
  // The one layout of the ISA's kernels (kernels.def).
  bool pack(const kernels::MatMulKernel &k, int64_t N, int64_t K,
            const uint8_t *ggml, size_t bytes, std::vector<uint8_t> &out,
            std::string &error) const override {
    const llvm::StringRef type = k.weight;
    std::vector<qblocks::Block> blocks;
    if (!qblocks::decode(type, N, K, ggml, bytes, blocks, error))
      return false;
    constexpr int64_t T = 32;
    if (type == "q4_k" || type == "q5_k")
      return packKMin(N, K, ggml, blocks, type == "q5_k", out);
    if (type == "q6_k")
      return packQ6K(N, K, ggml, blocks, out);
    if (type == "q2_k" || type == "q3_k")
      return packTwoBit(N, K, ggml, blocks, type == "q3_k", out);
    if (type == "iq4_xs")
      return packIq4Xs(N, K, ggml, blocks, out);
    // q4_0 and iq4_nl: the file's nibbles (iq4_nl's index its levels).
    const bool iq4nl = type == "iq4_nl", nibbles = type == "q4_0" || iq4nl;
    const int64_t scales = type == "q5_1" ? 2 : 1;
    // Unsigned weight bytes: q4 nibbles as they are, the signed values
    // (q8_0, q5_0 - 16) + 128, q5_1's 0..31 as they are (qblocks::decode's
    // values).
    int offset = 128;
    if (nibbles || type == "q5_1")
      offset = 0;
    const int64_t groups = nibbles ? 4 : 8;
    const int64_t bpb = groups * 4 + 4 * scales; // bytes per row-block
    const int64_t nb = K / 32;
    // q4_0, q8_0, q5_0 and iq4_nl (whose scales are f16 d) scale their sums
    // in fixed point (kernels_hvx.c): row
    // j's block scale d = m * S_j / 2^(15 + k), S_j a power of two above the
    // row's largest |d|, in the high half of the lane's word, and the left
    // shift sh - k the sum takes first in the low half (k up to sh, the
    // kernel's shift; m then holds d's 11-bit mantissa exactly while d is
    // within 2^(sh + 4) of the largest); the rows' S after the tiles.
    // A block whose d is infinite or NaN (a damaged file) keeps m = 0 and
    // d's f16 bits (an infinity or a NaN) in the low half, and its row's S
    // is -1: the kernel sums such blocks in float, so that they reach the
    // row's output as in the scalar kernels.
    const bool fixed =
        type == "q4_0" || type == "q8_0" || type == "q5_0" || type == "iq4_nl";
    const int sh = type == "q4_0" ? 15 : 11; // KILN_HVX_SHIFT
    // Tiles of T rows; the last one holds only its tw rows (vectors 4 * tw
    // bytes apart), and 128 bytes of padding keep its full-vector loads in
    // the weight.
    out.assign((size_t)(N * nb * bpb + (fixed ? 4 * N : 0) + 128), 0);
    for (int64_t j = 0; j < N; ++j) {
      const int64_t t = j / T, lane = j % T, tw = std::min(T, N - t * T);
      float rowScale = 0; // a power of two above every finite |d| of the row
      bool nonFinite = false;
      for (int64_t b = 0; fixed && b < nb; ++b) {
        const float d = std::fabs(blocks[j * nb + b].s0);
        nonFinite |= !std::isfinite(d);
        if (std::isfinite(d) && d > 0 && !(d < rowScale))
          rowScale = std::ldexp(1.0f, std::ilogb(d) + 1);
      }
      if (fixed)
        qblocks::putFloat(out.data() + N * nb * bpb + 4 * j,
                          nonFinite ? -1.0f : rowScale);
      for (int64_t b = 0; b < nb; ++b) {
        const qblocks::Block &bl = blocks[j * nb + b];
        uint8_t *base = out.data() + t * T * nb * bpb + b * tw * bpb;
        for (int64_t g = 0; g < groups; ++g)
          for (int64_t e = 0; e < 4; ++e) {
            const int64_t i = 4 * g + e;
            base[g * tw * 4 + lane * 4 + e] =
                iq4nl     ? ggml[(j * nb + b) * 18 + 2 + i]
                : nibbles ? (uint8_t)(bl.q[i] | (bl.q[i + 16] << 4))
                          : (uint8_t)(bl.q[i] + offset);
          }
        uint8_t *sp = base + groups * tw * 4 + lane * 4;
        if (fixed && !std::isfinite(bl.s0)) { // d's f16 bits: an infinity or NaN
          const uint16_t h = (uint16_t)((std::signbit(bl.s0) ? 0x8000 : 0) | 0x7c00 |
                                        (std::isnan(bl.s0) ? 0x200 : 0));
          sp[0] = (uint8_t)h;
          sp[1] = (uint8_t)(h >> 8);
          continue;
        }
        if (fixed) {
          // |d| < 2^-k S, so |m| < 2^15 (at most 32752: 11 bits below 2^15).
          int k = 0;
          if (bl.s0 != 0)
            k = std::min(sh, std::ilogb(rowScale) - 1 - std::ilogb(bl.s0));
          const int32_t m =
              rowScale > 0
                  ? (int32_t)std::lround(std::ldexp(bl.s0 / rowScale, 15 + k))
                  : 0;
          const uint32_t word =
              (uint32_t)(uint16_t)(int16_t)m << 16 | (uint32_t)(sh - k);
          for (int e = 0; e < 4; ++e)
            sp[e] = (uint8_t)(word >> (8 * e));
          continue;
        }
        const float f[4] = {bl.s0, bl.s1, bl.m0, bl.m1};
        for (int64_t i = 0; i < scales; ++i)
          qblocks::putFloat(sp + i * tw * 4, f[i]);
      }
    }
    return true;
  }

private:
  // The walk the super-block layouts share: out sized for N rows of K / 256
  // super-blocks of SB bytes a row, in tiles of 32 rows (the last holding
  // its tw, lane stride tw) and 128 bytes of padding; fn(src, base, lane,
  // tw, bl) per row and super-block, src the file's FB bytes of it, base
  // the tile's super-block, bl its 8 decoded blocks.
  template <typename Fn>
  static bool packSuperBlocks(int64_t N, int64_t K, int64_t SB, int64_t FB,
                              const uint8_t *ggml,
                              const std::vector<qblocks::Block> &blocks,
                              std::vector<uint8_t> &out, Fn fn) {
    constexpr int64_t T = 32;
    const int64_t nsb = K / 256;
    out.assign((size_t)(N * nsb * SB + 128), 0);
    for (int64_t j = 0; j < N; ++j) {
      const int64_t t = j / T, lane = j % T, tw = std::min(T, N - t * T);
      for (int64_t s = 0; s < nsb; ++s)
        fn(ggml + (j * nsb + s) * FB, out.data() + t * T * nsb * SB + s * tw * SB,
           lane, tw, &blocks[(size_t)(j * nsb + s) * 8]);
    }
    return true;
  }

  // Q4_K and Q5_K (five) in the file's bytes but for their scales (148 and
  // 180 a row and super-block against 144 and 176): per tile of T rows (the
  // last holds its tw) and super-block, the 8 blocks' nibble vectors (as
  // q4_0's: lane j byte e of vector g holds element 4g+e low, 16+4g+e
  // high), for Q5_K each followed by a vector of the fifth bits (lane j
  // byte e bit g: element 4g+e), then 4 vectors of u8 (sc, m) pairs (lane
  // j of vector v: blocks 2v and 2v + 1 of row j), then per row its f16 d
  // and dmin, as they are in the file. The kernel sums sc x block sum and
  // m x the activation block's sum in integers over a super-block, 32 rows
  // a vector (kernels_hvx.c).
  static bool packKMin(int64_t N, int64_t K, const uint8_t *ggml,
                       const std::vector<qblocks::Block> &blocks, bool five,
                       std::vector<uint8_t> &out) {
    const int64_t SB = five ? 180 : 148, BV = five ? 20 : 16;
    return packSuperBlocks(N, K, SB, five ? 176 : 144, ggml, blocks, out,
                           [&](const uint8_t *src, uint8_t *base, int64_t lane,
                               int64_t tw, const qblocks::Block *bls) {
      for (int64_t b = 0; b < 8; ++b) {
        const qblocks::Block &bl = bls[b];
        uint8_t *bb = base + b * BV * tw;
        for (int64_t g = 0; g < 4; ++g)
          for (int64_t e = 0; e < 4; ++e) {
            const int64_t i = 4 * g + e;
            bb[g * tw * 4 + lane * 4 + e] =
                (uint8_t)((bl.q[i] & 15) | (bl.q[i + 16] & 15) << 4);
          }
        for (int64_t g = 0; five && g < 8; ++g)
          for (int64_t e = 0; e < 4; ++e)
            bb[16 * tw + lane * 4 + e] |= (uint8_t)((bl.q[4 * g + e] >> 4) << g);
        int sc, m;
        qblocks::scaleMinK4((int)b, src + 4, sc, m);
        uint8_t *sm = base + 8 * BV * tw + (b / 2) * 4 * tw + 4 * lane + 2 * (b % 2);
        sm[0] = (uint8_t)sc;
        sm[1] = (uint8_t)m;
      }
      std::memcpy(base + (SB - 4) * tw + 4 * lane, src, 4); // f16 d, dmin
    });
  }

  // Q6_K in 212 bytes a row and super-block (the file's 210, its f16 d as
  // f32, which keeps each super-block of a full tile 128-byte aligned): per
  // tile and super-block, 8 blocks of 6 vectors, two triples A, B, C per
  // 16-element half h: lane j byte e of A, B and C holds the 6-bit value
  // (0..63) of element 16h + e, 16h + 4 + e and 16h + 8 + e of row j in its
  // bits 0..5, and in bits 6..7 two bits of element 16h + 12 + e (bits 0-1
  // in A, 2-3 in B, 4-5 in C); then 4 vectors of the 16 int8 scales (lane j
  // of vector v: halves 4v..4v + 3 of row j), then per row d as f32.
  static bool packQ6K(int64_t N, int64_t K, const uint8_t *ggml,
                      const std::vector<qblocks::Block> &blocks,
                      std::vector<uint8_t> &out) {
    return packSuperBlocks(N, K, 212, 210, ggml, blocks, out,
                           [&](const uint8_t *src, uint8_t *base, int64_t lane,
                               int64_t tw, const qblocks::Block *bls) {
      for (int64_t b = 0; b < 8; ++b)
        for (int64_t h = 0; h < 2; ++h)
          for (int64_t e = 0; e < 4; ++e) {
            auto u = [&](int64_t g) { return (uint8_t)(bls[b].q[16 * h + 4 * g + e] + 32); };
            const uint8_t top = u(3);
            for (int64_t c = 0; c < 3; ++c)
              base[(b * 6 + 3 * h + c) * 4 * tw + lane * 4 + e] =
                  (uint8_t)(u(c) | ((top >> (2 * c)) & 3) << 6);
          }
      for (int64_t h = 0; h < 16; ++h)
        base[192 * tw + (h / 4) * 4 * tw + 4 * lane + h % 4] = src[192 + h];
      qblocks::putFloat(base + 208 * tw + 4 * lane, qblocks::f16(src + 208));
    });
  }

  // Q2_K (84 bytes a row and super-block, the file's) and Q3_K (three; 116,
  // the file's 110 with its 6-bit scales unpacked and d as f32, which keeps
  // each super-block of a full tile 128-byte aligned): per tile and
  // super-block, for Q2_K 2 vectors a block, lane j byte e of vector h
  // holding in bits 2c..2c+1 element 16h + 4c + e of row j (0..3); for
  // Q3_K 3 vectors A, B, C a block, lane j byte e holding the values + 4
  // (0..7) of elements e, 4 + e (A), 8 + e, 12 + e (B), 16 + e, 20 + e (C)
  // in bits 0..2 and 3..5, and in bits 6..7 two bits of T = u(24 + e) |
  // u(28 + e) << 3 (bits 0-1 in A, 2-3 in B, 4-5 in C). Then 4 vectors of
  // the 16 sub-block scales (lane j of vector v: sub-blocks 4v..4v + 3 of
  // row j; Q2_K's bytes as in the file, sc | m << 4; Q3_K's as int8 sc -
  // 32), then per row Q2_K's f16 d and dmin as in the file, Q3_K's d as f32.
  static bool packTwoBit(int64_t N, int64_t K, const uint8_t *ggml,
                         const std::vector<qblocks::Block> &blocks, bool three,
                         std::vector<uint8_t> &out) {
    const int64_t BV = three ? 3 : 2;
    return packSuperBlocks(N, K, three ? 116 : 84, three ? 110 : 84, ggml, blocks, out,
                           [&](const uint8_t *src, uint8_t *base, int64_t lane,
                               int64_t tw, const qblocks::Block *bls) {
      for (int64_t b = 0; b < 8; ++b) {
        uint8_t *bb = base + b * BV * 4 * tw + lane * 4;
        for (int64_t e = 0; e < 4; ++e) {
          if (!three) {
            for (int64_t h = 0; h < 2; ++h)
              for (int64_t c = 0; c < 4; ++c)
                bb[h * 4 * tw + e] |= (uint8_t)(bls[b].q[16 * h + 4 * c + e] << (2 * c));
            continue;
          }
          auto u = [&](int64_t g) { return (uint8_t)(bls[b].q[4 * g + e] + 4); };
          const uint8_t top = (uint8_t)(u(6) | u(7) << 3);
          for (int64_t v = 0; v < 3; ++v)
            bb[v * 4 * tw + e] =
                (uint8_t)(u(2 * v) | u(2 * v + 1) << 3 | ((top >> (2 * v)) & 3) << 6);
        }
      }
      uint8_t *sc = base + 8 * BV * 4 * tw;
      for (int64_t h = 0; h < 16; ++h)
        sc[(h / 4) * 4 * tw + 4 * lane + h % 4] =
            three ? (uint8_t)(int8_t)qblocks::q3kScale(src, (int)h) : src[h];
      if (three)
        qblocks::putFloat(sc + 16 * tw + 4 * lane, qblocks::f16(src + 108));
      else
        std::memcpy(sc + 16 * tw + 4 * lane, src + 80, 4); // f16 d, dmin
    });
  }

  // IQ4_XS in 140 bytes a row and super-block (the file's 136, its 6-bit
  // scales unpacked and d as f32, which keeps each super-block of a full
  // tile 128-byte aligned): per tile and super-block, the 8 blocks' nibble
  // vectors as the file's (lane j byte e of vector g: element 4g+e low,
  // 16+4g+e high, indices of the IQ4 levels), then 2 vectors of the int8
  // scales sc - 32 (lane j of vector v: blocks 4v..4v + 3 of row j), then
  // per row d as f32.
  static bool packIq4Xs(int64_t N, int64_t K, const uint8_t *ggml,
                        const std::vector<qblocks::Block> &blocks,
                        std::vector<uint8_t> &out) {
    return packSuperBlocks(N, K, 140, 136, ggml, blocks, out,
                           [&](const uint8_t *src, uint8_t *base, int64_t lane,
                               int64_t tw, const qblocks::Block *) {
      for (int64_t b = 0; b < 8; ++b)
        for (int64_t g = 0; g < 4; ++g)
          for (int64_t e = 0; e < 4; ++e)
            base[(4 * b + g) * 4 * tw + lane * 4 + e] = src[8 + 16 * b + 4 * g + e];
      for (int64_t b = 0; b < 8; ++b)
        base[128 * tw + (b / 4) * 4 * tw + 4 * lane + b % 4] =
            (uint8_t)(int8_t)qblocks::iq4xsScale(src, (int)b);
      qblocks::putFloat(base + 136 * tw + 4 * lane, qblocks::f16(src));
    });
  }

protected:
  std::vector<std::string> isaKernelFiles() const override {
    return {"kernels_hvx.c"};
  }
};
} // namespace

std::unique_ptr<Target> kiln::createHvxTarget(const TargetOptions &) {
  return std::make_unique<HvxTarget>();
}
