//===- X86Target.cpp - x86-64 with AVX2+FMA, or AVX-512 VNNI --------------===//
#include "compiler/support/QuantBlocks.h"
#include "compiler/targets/IsaTarget.h"

#include <cstring>

using namespace mlir;
using namespace kiln;

namespace {
// Packed layouts read by kernels_x86.c. Weight rows are taken in groups of NR
// (8 for AVX2, 16 for AVX-512), N padded up with zero rows. Within a group,
// quants are interleaved in 4-byte words: word (c, i) holds four consecutive
// quants of row i, so a 32/64-byte load holds one word of every row and a
// u8 x s8 dot product against a broadcast activation word leaves one row's
// partial sum in each 32-bit lane (no horizontal reductions, no shuffles).
// Each group is [metadata of all blocks, padded to 64 bytes][quants], so
// every quant load is aligned.
//
//  q8_0: meta = nb x NR fp16 d; per block 8 words per row: word c =
//        q[4c..4c+3] (xor 0x80 for the VNNI kernel: u8 = q + 128).
//  q4_0: meta = nb x NR fp16 d; per block 4 words per row: word c = GGML
//        bytes q[4c..4c+3] (low nibbles: elements 4c.., high: 16+4c..).
//  q4_k: meta per super-block = NR fp16 d, NR fp16 dmin, 8 x NR u8 scale,
//        8 x NR u8 min; quants per 32-element sub-block as q4_0 (unsigned).
//  q6_k: meta per super-block = NR fp16 d, 16 x NR int8 scale; per 32-element
//        block: 4 words per row of low nibbles (as q4_0), then 2 words per row
//        of high bit pairs: word h byte t bits 2c'..2c'+1 = bits 4..5 of
//        element 16h + 4c' + t.
// The five-bit types store per 32-element block 4 nibble words per row (as
// q4_0) and one word per row of fifth bits: byte t bit c' = bit 4 of element
// 4c' + t, bit 4 + c' = bit 4 of element 16 + 4c' + t.
//  q5_0: meta = nb x NR fp16 d.
//  q5_1: meta = nb x (NR fp16 d, NR fp16 m).
//  q5_k: meta per super-block as q4_k.
// The IQ4 types store 4 nibble words per row of level indices (as q4_0).
// The two-bit planes of q2_k and q3_k: per 32-element block 2 words per row,
// word h byte t bits 2c..2c+1 = the 2 low bits of element 16h + 4c + t; q3_k
// adds a word of third bits (byte t bit c: element 4c+t, bit 4+c: 16+4c+t).
//  q2_k: meta per super-block = NR fp16 d, NR fp16 dmin, 16 x NR u8 scale,
//        16 x NR u8 min (its 16-element sub-blocks), each super-block's
//        metadata followed by its quants.
//  q3_k: meta per super-block = NR fp16 d, 16 x NR int8 scale (sc - 32).
//  iq4_nl: meta = nb x NR fp16 d.
//  iq4_xs: meta per super-block = NR fp16 d, 8 x NR int8 scale (ls - 32).
constexpr int64_t pad64(int64_t v) { return (v + 63) & ~int64_t(63); }

bool packX86(llvm::StringRef type, int NR, bool xor80, int64_t N, int64_t K,
             const uint8_t *ggml, size_t bytes, std::vector<uint8_t> &out,
             std::string &error) {
  int64_t bs, bb, meta, quant; // per GGML block: elements, bytes; per group
  if (type == "q8_0") {
    bs = 32, bb = 34, meta = 2 * NR, quant = 32 * NR;
  } else if (type == "q4_0") {
    bs = 32, bb = 18, meta = 2 * NR, quant = 16 * NR;
  } else if (type == "q4_k") {
    bs = 256, bb = 144, meta = 20 * NR, quant = 128 * NR;
  } else if (type == "q6_k") {
    bs = 256, bb = 210, meta = 18 * NR, quant = 192 * NR;
  } else if (type == "q5_0") {
    bs = 32, bb = 22, meta = 2 * NR, quant = 20 * NR;
  } else if (type == "q5_1") {
    bs = 32, bb = 24, meta = 4 * NR, quant = 20 * NR;
  } else if (type == "q5_k") {
    bs = 256, bb = 176, meta = 20 * NR, quant = 160 * NR;
  } else if (type == "iq4_nl") {
    bs = 32, bb = 18, meta = 2 * NR, quant = 16 * NR;
  } else if (type == "iq4_xs") {
    bs = 256, bb = 136, meta = 10 * NR, quant = 128 * NR;
  } else if (type == "q2_k") {
    bs = 256, bb = 84, meta = 36 * NR, quant = 64 * NR;
  } else if (type == "q3_k") {
    bs = 256, bb = 110, meta = 18 * NR, quant = 96 * NR;
  } else {
    error = "x86: no packed layout for " + type.str();
    return false;
  }
  const int64_t nb = K / bs;
  if (K % bs || (size_t)(N * nb * bb) != bytes) {
    error = "x86: unexpected " + type.str() + " weight size for packing";
    return false;
  }
  // q2_k, whose metadata is a third of its bytes, keeps each super-block's
  // metadata before its quants (records of U = 1 GGML block), so a group is
  // one stream: 15% faster decode than metadata first (measured); the
  // others keep the group's metadata first.
  const int64_t U = type == "q2_k" ? 1 : 0;
  const int64_t rec = U * (meta + quant);
  const int64_t metaBytes = U ? 0 : pad64(nb * meta);
  const int64_t groupBytes = U ? (nb + U - 1) / U * rec : metaBytes + nb * quant;
  const int64_t groups = (N + NR - 1) / NR;
  out.assign((size_t)(groups * groupBytes), 0);
  // Writes 4-byte word `word` of row i into a block's quant area.
  auto wordAt = [&](uint8_t *q, int64_t word, int64_t i) {
    return q + (word * NR + i) * 4;
  };
  // Row i's nibble words of block values u, and (fifth) its high-bit word.
  auto putBlock = [&](uint8_t *q, int64_t i, const uint8_t u[32], bool fifth) {
    for (int c = 0; c < 4; ++c)
      for (int t = 0; t < 4; ++t)
        wordAt(q, c, i)[t] =
            (uint8_t)((u[4 * c + t] & 0xf) | (u[16 + 4 * c + t] & 0xf) << 4);
    if (!fifth)
      return;
    for (int t = 0; t < 4; ++t) {
      uint8_t v = 0;
      for (int c = 0; c < 4; ++c)
        v |= (uint8_t)(((u[4 * c + t] >> 4) & 1) << c |
                       ((u[16 + 4 * c + t] >> 4) & 1) << (4 + c));
      wordAt(q, 4, i)[t] = v;
    }
  };
  for (int64_t g = 0; g < groups; ++g) {
    uint8_t *grp = out.data() + g * groupBytes;
    for (int64_t i = 0; i < NR && g * NR + i < N; ++i) {
      const uint8_t *row = ggml + (g * NR + i) * nb * bb;
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *src = row + b * bb;
        uint8_t *m = U ? grp + (b / U) * rec + (b % U) * meta : grp + b * meta;
        uint8_t *q = U ? grp + (b / U) * rec + U * meta + (b % U) * quant
                       : grp + metaBytes + b * quant;
        if (type == "q8_0" || type == "q4_0") {
          std::memcpy(m + 2 * i, src, 2);
          const int words = type == "q8_0" ? 8 : 4;
          for (int c = 0; c < words; ++c)
            for (int t = 0; t < 4; ++t)
              wordAt(q, c, i)[t] = src[2 + 4 * c + t] ^ (xor80 ? 0x80 : 0);
        } else if (type == "q4_k") {
          std::memcpy(m + 2 * i, src, 2);          // d
          std::memcpy(m + 2 * NR + 2 * i, src + 2, 2); // dmin
          for (int j = 0; j < 8; ++j) {
            int sc, mn;
            qblocks::scaleMinK4(j, src + 4, sc, mn);
            m[4 * NR + j * NR + i] = (uint8_t)sc;
            m[12 * NR + j * NR + i] = (uint8_t)mn;
            const uint8_t *qs = src + 16 + (j / 2) * 32;
            const int shift = (j % 2) * 4;
            uint8_t *qj = q + j * 16 * NR;
            for (int c = 0; c < 4; ++c)
              for (int t = 0; t < 4; ++t) {
                int lo = (qs[4 * c + t] >> shift) & 0xf;
                int hi = (qs[16 + 4 * c + t] >> shift) & 0xf;
                wordAt(qj, c, i)[t] = (uint8_t)(lo | hi << 4);
              }
          }
        } else if (type == "q5_0" || type == "q5_1" || type == "iq4_nl") {
          std::memcpy(m + 2 * i, src, 2); // d
          if (type == "q5_1")
            std::memcpy(m + 2 * NR + 2 * i, src + 2, 2); // m
          uint8_t u[32];
          qblocks::smallValues(type, src, 0, u);
          putBlock(q, i, u, type != "iq4_nl");
        } else if (type == "q5_k" || type == "iq4_xs") {
          std::memcpy(m + 2 * i, src, 2); // d
          if (type == "q5_k")
            std::memcpy(m + 2 * NR + 2 * i, src + 2, 2); // dmin
          for (int j = 0; j < 8; ++j) {
            if (type == "q5_k") {
              int sc, mn;
              qblocks::scaleMinK4(j, src + 4, sc, mn);
              m[4 * NR + j * NR + i] = (uint8_t)sc;
              m[12 * NR + j * NR + i] = (uint8_t)mn;
            } else {
              m[2 * NR + j * NR + i] = (uint8_t)(int8_t)qblocks::iq4xsScale(src, j);
            }
            uint8_t u[32];
            qblocks::smallValues(type, src, j, u);
            putBlock(q + j * (quant / 8), i, u, type == "q5_k");
          }
        } else if (type == "q2_k" || type == "q3_k") {
          const bool three = type == "q3_k";
          std::memcpy(m + 2 * i, src + (three ? 108 : 80), 2); // d
          if (!three)
            std::memcpy(m + 2 * NR + 2 * i, src + 82, 2); // dmin
          for (int s16 = 0; s16 < 16; ++s16) {
            if (three) {
              m[2 * NR + s16 * NR + i] = (uint8_t)(int8_t)qblocks::q3kScale(src, s16);
            } else {
              m[4 * NR + s16 * NR + i] = src[s16] & 0xf;
              m[20 * NR + s16 * NR + i] = src[s16] >> 4;
            }
          }
          for (int blk = 0; blk < 8; ++blk) {
            uint8_t low[32], high[32];
            qblocks::twoBitBlock(three, src, blk, low, high);
            uint8_t *qb = q + blk * (quant / 8);
            for (int h = 0; h < 2; ++h)
              for (int t = 0; t < 4; ++t) {
                uint8_t v = 0;
                for (int c = 0; c < 4; ++c)
                  v |= (uint8_t)(low[16 * h + 4 * c + t] << (2 * c));
                wordAt(qb, h, i)[t] = v;
              }
            if (three)
              for (int t = 0; t < 4; ++t) {
                uint8_t v = 0;
                for (int c = 0; c < 4; ++c)
                  v |= (uint8_t)(high[4 * c + t] << c | high[16 + 4 * c + t] << (4 + c));
                wordAt(qb, 2, i)[t] = v;
              }
          }
        } else { // q6_k
          const uint8_t *sc = src + 192;
          std::memcpy(m + 2 * i, src + 208, 2);
          for (int s = 0; s < 16; ++s)
            m[2 * NR + s * NR + i] = sc[s];
          for (int blk = 0; blk < 8; ++blk) {
            uint8_t u[32];
            qblocks::sixBitBlock(src, blk, u);
            uint8_t *qb = q + blk * 24 * NR;
            for (int c = 0; c < 4; ++c)
              for (int t = 0; t < 4; ++t)
                wordAt(qb, c, i)[t] =
                    (uint8_t)((u[4 * c + t] & 0xf) | (u[16 + 4 * c + t] & 0xf) << 4);
            for (int h = 0; h < 2; ++h)
              for (int t = 0; t < 4; ++t) {
                uint8_t v = 0;
                for (int c = 0; c < 4; ++c)
                  v |= (uint8_t)((u[16 * h + 4 * c + t] >> 4) << (2 * c));
                wordAt(qb, 4 + h, i)[t] = v;
              }
          }
        }
      }
    }
  }
  return true;
}

class X86Target : public IsaTarget {
public:
  explicit X86Target(std::string level) : level(std::move(level)) {}
  std::string name() const override { return "x86"; }
  std::vector<std::string> cflags() const override {
    std::vector<std::string> f = {"--target=x86_64-linux-gnu", "-std=c11", "-O2",
                                  "-ffunction-sections", "-fdata-sections",
                                  "-fno-math-errno"};
    if (level == "avx512vnni")
      f.insert(f.end(), {"-march=x86-64-v4", "-mavx512vnni"});
    else
      f.push_back("-march=x86-64-v3");
    return f;
  }
  bool checkHost(std::string &error) const override {
    const kernels::CpuLevel *host = kernels::hostCpu(error);
    const kernels::CpuLevel *want = kernels::findCpu("x86", level);
    if (!host)
      return false;
    if (!want || host->covers(*want))
      return true;
    error = "this machine cannot run programs for the x86 " + level +
            " level (it runs the " + host->cpu + " level); kilnc still "
            "compiles for it";
    return false;
  }
  std::vector<std::string>
  linkCommand(const std::vector<std::string> &inputs,
              const std::string &output) const override {
    std::vector<std::string> argv = {KILN_DEFAULT_CC};
    argv.insert(argv.end(), inputs.begin(), inputs.end());
    argv.insert(argv.end(), {"-lm", "-o", output});
    return argv;
  }

protected:
  bool pack(const kernels::MatMulKernel &k, int64_t N, int64_t K,
            const uint8_t *ggml, size_t bytes, std::vector<uint8_t> &out,
            std::string &error) const override {
    // x86_words_u8: the VNNI kernels' unsigned q8_0 (q + 128).
    return packX86(k.weight, (int)k.nr, llvm::StringRef(k.packer) == "x86_words_u8",
                   N, K, ggml, bytes, out, error);
  }
  std::vector<std::string> isaKernelFiles() const override {
    return {"kernels_x86.c", "attention_tiled.c"};
  }

private:
  std::string level; // "avx2" or "avx512vnni"
};
} // namespace

std::unique_ptr<Target> kiln::createX86Target(const TargetOptions &o) {
  return std::make_unique<X86Target>(o.cpu);
}
