//===- NeonTarget.cpp - AArch64 NEON with dot product (optionally i8mm) ---===//
#include "compiler/support/QuantBlocks.h"
#include "compiler/targets/IsaTarget.h"

#include <cstring>

using namespace mlir;
using namespace kiln;

namespace {
/// Repacks GGML q8_0 / q4_0 rows into the 4-row tiles of kernels_neon.c: per
/// tile, nb blocks of 4 rows' quants interleaved in 4-byte groups, then nb x 4
/// fp16 scales (the dotprod and the i8mm kernels alike). Rows past N are zero
/// (scale 0; q4_0 nibbles 8 -> 0x88 ^ 0x88).
bool packTiles4(bool q4, int64_t N, int64_t K, const uint8_t *ggml,
                size_t bytes, std::vector<uint8_t> &out, std::string &error) {
  const int64_t nb = K / 32, bb = q4 ? 18 : 34, qb = q4 ? 16 : 32;
  if (K % 32 || (size_t)(N * nb * bb) != bytes) {
    error = "neon: unexpected weight size for packing";
    return false;
  }
  const int64_t tiles = (N + 3) / 4, tileBytes = nb * (4 * qb + 8);
  out.assign((size_t)(tiles * tileBytes), 0);
  for (int64_t t = 0; t < tiles; ++t) {
    uint8_t *tile = out.data() + t * tileBytes;
    uint8_t *scales = tile + nb * 4 * qb;
    for (int64_t i = 0; i < 4; ++i) {
      const int64_t row = t * 4 + i;
      for (int64_t b = 0; b < nb; ++b) {
        uint8_t *q = tile + b * 4 * qb;
        if (row >= N) { // padding: zero weights
          if (q4)
            for (int64_t v = 0; v < qb / 4; ++v)
              std::memset(q + v * 16 + i * 4, 0x00, 4);
          continue;
        }
        const uint8_t *src = ggml + (row * nb + b) * bb;
        std::memcpy(scales + (b * 4 + i) * 2, src, 2);
        for (int64_t v = 0; v < qb / 4; ++v)
          for (int64_t c = 0; c < 4; ++c) {
            uint8_t byte = src[2 + v * 4 + c];
            q[v * 16 + i * 4 + c] = q4 ? (uint8_t)(byte ^ 0x88) : byte;
          }
      }
    }
  }
  return true;
}

/// Repacks Q4_K, the five-bit and the IQ4 types into the 4-row tiles of kernels_neon.c
/// ("neon_blocks"). Per 32-element block: 4 vectors of nibbles, vector v byte
/// 4i+t of row i holding element 4v+t (low nibble) and 16+4v+t (high); for
/// q5_0 and q5_1 a vector of fifth bits, byte 4i+t bit v = element 4v+t,
/// bit 4+v = element 16+4v+t (q5_k: five vectors of 5-bit values, below).
/// q5_0 / iq4_nl blocks are followed by 4 fp16 d,
/// q5_1 by 4 d and 4 m; q4_k / q5_k / iq4_xs super-blocks start with their
/// metadata (q4_k, q5_k: 4 d, 4 dmin, 8x4 u8 scales, 8x4 u8 mins; iq4_xs: 4
/// d, 8x4 int8 scales - 32), then their 8 blocks; q4_k and iq4_xs store
/// the differences of scales four blocks apart (sc_j - sc_j+4 for j < 4),
/// which kiln_neon_kmin_tile multiplies by running sums. Rows past N are zero.
/// Q2_K, Q3_K and Q6_K, the K-quants with 16-element sub-block scales, in
/// the 4-row tiles of kernels_neon.c (layout described there).
bool packK16(llvm::StringRef type, int64_t N, int64_t K, const uint8_t *ggml,
             size_t bytes, std::vector<uint8_t> &out, std::string &error) {
  const bool two = type == "q2_k", six = type == "q6_k";
  const int64_t bb = two ? 84 : six ? 210 : 110, meta = two ? 144 : 72,
                qb = two ? 32 : six ? 96 : 48, rec = meta + 8 * qb, ns = K / 256;
  if (K % 256 || (size_t)(N * ns * bb) != bytes) {
    error = "neon: unexpected " + type.str() + " weight size for packing";
    return false;
  }
  const int64_t tiles = (N + 3) / 4, tileBytes = ns * rec;
  out.assign((size_t)(tiles * tileBytes), 0);
  for (int64_t row = 0; row < N; ++row) {
    uint8_t *tile = out.data() + (row / 4) * tileBytes;
    const int64_t i = row % 4;
    for (int64_t s = 0; s < ns; ++s) {
      const uint8_t *src = ggml + (row * ns + s) * bb;
      // q6_k's metadata follows its blocks, so that every quant vector sits
      // at a multiple of 16 bytes from the super-block (scaled load offsets).
      uint8_t *m = tile + s * rec + (six ? 8 * qb : 0);
      std::memcpy(m + 2 * i, src + (two ? 80 : six ? 208 : 108), 2); // d
      if (two)
        std::memcpy(m + 8 + 2 * i, src + 82, 2); // dmin
      for (int s16 = 0; s16 < 16; ++s16) {
        if (two) {
          m[16 + 4 * s16 + i] = src[s16] & 0xf;
          m[80 + 4 * s16 + i] = src[s16] >> 4;
        } else {
          m[8 + 4 * s16 + i] =
              six ? src[192 + s16] : (uint8_t)(int8_t)qblocks::q3kScale(src, s16);
        }
      }
      for (int blk = 0; blk < 8; ++blk) {
        uint8_t *q = tile + s * rec + (six ? 0 : meta) + blk * qb;
        if (six) {
          // kiln_neon_u6: vector c's values (q ^ 32, read as 4 (q - 32)) in
          // bits 2..7 of group c / 4's A, B, C, or spread over their bits
          // 0..1 (c % 4 == 3).
          uint8_t u[32];
          qblocks::sixBitBlock(src, blk, u);
          for (int c = 0; c < 8; ++c)
            for (int t = 0; t < 4; ++t) {
              const int x = u[(c < 4 ? 4 * c : 16 + 4 * (c - 4)) + t] ^ 32;
              uint8_t *g = q + 48 * (c / 4) + 4 * i + t;
              if (c % 4 < 3) {
                g[16 * (c % 4)] |= (uint8_t)(x << 2);
              } else {
                g[0] |= (uint8_t)(x & 3);
                g[16] |= (uint8_t)((x >> 2) & 3);
                g[32] |= (uint8_t)(x >> 4);
              }
            }
          continue;
        }
        uint8_t low[32], high[32];
        qblocks::twoBitBlock(!two, src, blk, low, high);
        if (two) {
          for (int l = 0; l < 32; ++l) {
            const int h = l / 16, c = (l % 16) / 4, t = l % 4;
            q[16 * h + 4 * i + t] |= (uint8_t)(low[l] << (2 * c));
          }
          continue;
        }
        // kiln_neon_u3: vector c's values (q ^ 4, read as 32 (q - 4) in bits
        // 5..7) in bits 5..7 of A, B, C (c = 0, 1, 2), bits 2..4 (c = 3, 4,
        // 5), or over bits 0..1 (c = 6: A bits 0..1, B bit 0; c = 7: B bit
        // 1, C bits 0..1).
        for (int c = 0; c < 8; ++c)
          for (int t = 0; t < 4; ++t) {
            const int l = 16 * (c / 4) + 4 * (c % 4) + t;
            const int u = (low[l] | high[l] << 2) ^ 4;
            uint8_t *g = q + 4 * i + t; // A; B at g[16], C at g[32]
            if (c < 3)
              g[16 * c] |= (uint8_t)(u << 5);
            else if (c < 6)
              g[16 * (c - 3)] |= (uint8_t)(u << 2);
            else if (c == 6)
              g[0] |= (uint8_t)(u & 3), g[16] |= (uint8_t)(u >> 2);
            else
              g[16] |= (uint8_t)((u & 1) << 1), g[32] |= (uint8_t)(u >> 1);
          }
      }
    }
  }
  return true;
}

bool packBlocks4(llvm::StringRef type, int64_t N, int64_t K,
                 const uint8_t *ggml, size_t bytes, std::vector<uint8_t> &out,
                 std::string &error) {
  if (type == "q2_k" || type == "q3_k" || type == "q6_k")
    return packK16(type, N, K, ggml, bytes, out, error);
  const bool five = type.startswith("q5"), kmin = type == "q5_k" || type == "q4_k",
             super = kmin || type == "iq4_xs";
  const int64_t bs = super ? 256 : 32;
  const int64_t bb = type == "q5_0" ? 22 : type == "q5_1" ? 24 : type == "iq4_nl" ? 18
                   : type == "q5_k" ? 176 : type == "q4_k" ? 144 : 136;
  const int64_t qb = five ? 80 : 64; // quant bytes of a block of the tile
  const int64_t meta = type == "q5_0" || type == "iq4_nl" ? 8 : type == "q5_1" ? 16
                     : kmin ? 80 : 40;
  const int64_t rec = super ? meta + 8 * qb : qb + meta;
  const int64_t ns = K / bs;
  if (K % bs || (size_t)(N * ns * bb) != bytes) {
    error = "neon: unexpected " + type.str() + " weight size for packing";
    return false;
  }
  const int64_t tiles = (N + 3) / 4, tileBytes = ns * rec;
  out.assign((size_t)(tiles * tileBytes), 0);
  for (int64_t row = 0; row < N; ++row) {
    uint8_t *tile = out.data() + (row / 4) * tileBytes;
    const int64_t i = row % 4;
    for (int64_t s = 0; s < ns; ++s) {
      const uint8_t *src = ggml + (row * ns + s) * bb;
      uint8_t *r = tile + s * rec;
      uint8_t *m = super ? r : r + qb;
      std::memcpy(m + 2 * i, src, 2); // d
      if (type == "q5_1" || kmin)
        std::memcpy(m + 8 + 2 * i, src + 2, 2); // m / dmin
      for (int j = 0; j < (super ? 8 : 1); ++j) {
        if (super) {
          // Block b's scale and min (IQ4_XS has no min).
          auto scaleMin = [&](int b, int &sc, int &mn) {
            mn = 0;
            if (kmin)
              qblocks::scaleMinK4(b, src + 4, sc, mn);
            else
              sc = qblocks::iq4xsScale(src, b);
          };
          int sc, mn, next = 0, unused;
          scaleMin(j, sc, mn);
          // Q4_K and IQ4_XS: the differences of the scales four blocks
          // apart (the last four themselves), which the kernel multiplies
          // by running sums.
          if (j < 4 && !five)
            scaleMin(j + 4, next, unused);
          m[(kmin ? 16 : 8) + 4 * j + i] = (uint8_t)(int8_t)(sc - next);
          if (kmin)
            m[48 + 4 * j + i] = (uint8_t)mn;
        }
        uint8_t u[32];
        qblocks::smallValues(type, src, j, u);
        uint8_t *q = super ? r + meta + j * qb : r;
        if (type == "q5_k") {
          // Five vectors A..E (byte 4i+t each): bits 3..7 hold x = q ^ 16 of
          // elements 4c+t (c = 0..3: A..D) and 16+t (E); bits 0..2 hold the
          // other three values' bits, as kiln_neon_kmin_tile reads them.
          for (int t = 0; t < 4; ++t) {
            unsigned x[8];
            for (int c = 0; c < 8; ++c)
              x[c] = u[c < 4 ? 4 * c + t : 16 + 4 * (c - 4) + t] ^ 16u;
            const unsigned low[5] = {x[5] & 7, x[6] & 7, x[7] & 7,
                                     (x[5] >> 3) | ((x[7] >> 3) & 1) << 2,
                                     (x[6] >> 3) | ((x[7] >> 4) & 1) << 2};
            for (int c = 0; c < 5; ++c)
              q[16 * c + 4 * i + t] = (uint8_t)(x[c] << 3 | low[c]);
          }
          continue;
        }
        for (int v = 0; v < 4; ++v)
          for (int t = 0; t < 4; ++t) {
            q[16 * v + 4 * i + t] =
                (uint8_t)((u[4 * v + t] & 0xf) | (u[16 + 4 * v + t] & 0xf) << 4);
            if (five)
              q[64 + 4 * i + t] |= (uint8_t)(((u[4 * v + t] >> 4) & 1) << v |
                                             ((u[16 + 4 * v + t] >> 4) & 1) << (4 + v));
          }
      }
    }
  }
  return true;
}

class NeonTarget : public IsaTarget {
public:
  explicit NeonTarget(bool i8mm) : i8mm(i8mm) {}
  std::string name() const override { return "neon"; }
  std::vector<std::string> cflags() const override {
    return {"--target=aarch64-linux-gnu", "-std=c11", "-O2",
            "-ffunction-sections", "-fdata-sections", "-fno-math-errno",
            i8mm ? "-march=armv8.2-a+dotprod+i8mm" : "-march=armv8.2-a+dotprod"};
  }
  std::vector<std::string>
  linkCommand(const std::vector<std::string> &inputs,
              const std::string &output) const override {
    return crossGccLink("aarch64-linux-gnu-gcc", inputs, output);
  }
  std::vector<std::string> runPrefix(int64_t) const override {
    return {"qemu-aarch64", "-cpu", "max", "-L", "/usr/aarch64-linux-gnu"};
  }
  ToolchainPackages packages() const override {
    return {"libc6-dev-arm64-cross",
            {{"clang-16", "clang-16"},
             {"aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu"},
             {"qemu-aarch64", "qemu-user"}}};
  }

protected:
  bool pack(const kernels::MatMulKernel &k, int64_t N, int64_t K,
            const uint8_t *ggml, size_t bytes, std::vector<uint8_t> &out,
            std::string &error) const override {
    const bool q4 = llvm::StringRef(k.weight) == "q4_0";
    if (llvm::StringRef(k.packer) == "neon_blocks")
      return packBlocks4(k.weight, N, K, ggml, bytes, out, error);
    return packTiles4(q4, N, K, ggml, bytes, out, error); // neon_tiles
  }
  std::vector<std::string> isaKernelFiles() const override {
    return {"kernels_neon.c", "attention_tiled.c"};
  }

private:
  bool i8mm;
};
} // namespace

std::unique_ptr<Target> kiln::createNeonTarget(const TargetOptions &o) {
  return std::make_unique<NeonTarget>(o.cpu == "i8mm");
}
