//===- SveTarget.cpp - AArch64 SVE, vector-length agnostic by default -----===//
#include "compiler/targets/IsaTarget.h"
#include "compiler/support/Quant.h"
#include "compiler/support/QuantBlocks.h"

#include <cstring>

using namespace mlir;
using namespace kiln;

namespace {
/// Repacks GGML q8_0 / q4_0 / iq4_nl rows into the 16-row tiles of
/// kernels_sve.c: per tile, nb quant blocks of 64-byte slices (slice v: for
/// row groups g = 0..3, bytes 4v..4v+3 of rows 4g..4g+3), then nb x 16 fp16
/// scales. Rows past N are zero (scale 0; q4_0 bytes 0x00 = nibbles 8 after
/// the xor with 0x88).
bool packTiles16(llvm::StringRef type, int64_t N, int64_t K, const uint8_t *ggml,
                 size_t bytes, std::vector<uint8_t> &out, std::string &error) {
  const bool q4 = type != "q8_0", x88 = type == "q4_0";
  const int64_t nb = K / 32, bb = q4 ? 18 : 34, qb = q4 ? 16 : 32;
  if (K % 32 || (size_t)(N * nb * bb) != bytes) {
    error = "sve: unexpected weight size for packing";
    return false;
  }
  const int64_t blockBytes = 16 * qb, tiles = (N + 15) / 16,
                tileBytes = nb * (blockBytes + 32);
  out.assign((size_t)(tiles * tileBytes), 0);
  for (int64_t row = 0; row < N; ++row) {
    uint8_t *tile = out.data() + (row / 16) * tileBytes;
    const int64_t r = row % 16, g = r / 4, i = r % 4;
    for (int64_t b = 0; b < nb; ++b) {
      const uint8_t *src = ggml + (row * nb + b) * bb;
      std::memcpy(tile + nb * blockBytes + (b * 16 + r) * 2, src, 2);
      uint8_t *q = tile + b * blockBytes;
      for (int64_t v = 0; v < qb / 4; ++v)
        for (int64_t c = 0; c < 4; ++c) {
          uint8_t byte = src[2 + v * 4 + c];
          q[v * 64 + g * 16 + i * 4 + c] = x88 ? (uint8_t)(byte ^ 0x88) : byte;
        }
    }
  }
  return true;
}

/// Repacks GGML q4_k / q5_k / q6_k / q3_k / q2_k / iq4_xs rows into the 16-row
/// K-quant tiles of kernels_sve.c (layout described there). Rows past N are
/// all zero.
bool packTilesK16(llvm::StringRef type, int64_t N, int64_t K,
                  const uint8_t *ggml, size_t bytes, std::vector<uint8_t> &out,
                  std::string &error) {
  const bool iq = type == "iq4_xs", q4 = type == "q4_k" || iq, q5 = type == "q5_k",
             q2 = type == "q2_k", q3 = type == "q3_k";
  const int64_t ns = K / 256, nb = K / 32,
                sb = iq ? 136 : q4 ? 144 : q5 ? 176 : q2 ? 84 : q3 ? 110 : 210;
  if (K % 256 || (size_t)(N * ns * sb) != bytes) {
    error = "sve: unexpected weight size for packing";
    return false;
  }
  const int64_t qBytes = q4 ? 256 : 512, tiles = (N + 15) / 16,
                tileBytes = nb * (iq ? 276 : q4 ? 296 : q5 ? 552 : q2 ? 584 : 548);
  out.assign((size_t)(tiles * tileBytes), 0);
  for (int64_t row = 0; row < N; ++row) {
    uint8_t *tile = out.data() + (row / 16) * tileBytes;
    const int64_t r = row % 16, g = r / 4, i = r % 4;
    for (int64_t s = 0; s < ns; ++s) {
      const uint8_t *w = ggml + (row * ns + s) * sb;
      for (int64_t j = 0; j < 8; ++j) {
        const int64_t b = s * 8 + j;
        uint8_t *q = tile + b * qBytes;
        int8_t e[32];
        if (q4 || q5) {
          uint8_t u[32];
          qblocks::smallValues(type, w, (int)j, u);
          for (int64_t v = 0; v < (q4 ? 4 : 8); ++v)
            for (int64_t c = 0; c < 4; ++c)
              q[v * 64 + g * 16 + i * 4 + c] =
                  q4 ? (uint8_t)(u[4 * v + c] | (u[16 + 4 * v + c] << 4))
                     : u[4 * v + c];
          if (iq) { // int8 scales ls - 32, then the super-block's f16 d
            tile[nb * qBytes + b * 16 + r] = (uint8_t)(int8_t)qblocks::iq4xsScale(w, (int)j);
            if (j == 0)
              std::memcpy(tile + nb * (qBytes + 16) + (s * 16 + r) * 2, w, 2);
            continue;
          }
          int sc, m;
          qblocks::scaleMinK4((int)j, w + 4, sc, m);
          tile[nb * qBytes + b * 16 + r] = (uint8_t)sc;
          tile[nb * (qBytes + 16) + b * 16 + r] = (uint8_t)m;
          if (j == 0) { // the super-block's f16 d and dmin
            uint8_t *d = tile + nb * (qBytes + 32);
            std::memcpy(d + (s * 16 + r) * 2, w, 2);
            std::memcpy(d + (ns * 16 + s * 16 + r) * 2, w + 2, 2);
          }
        } else if (q2 || q3) {
          uint8_t low[32], high[32];
          qblocks::twoBitBlock(q3, w, (int)j, low, high);
          for (int l = 0; l < 32; ++l)
            e[l] = (int8_t)(q3 ? low[l] - (high[l] ? 0 : 4) : low[l]);
          for (int64_t v = 0; v < 8; ++v)
            for (int64_t c = 0; c < 4; ++c)
              q[v * 64 + g * 16 + i * 4 + c] = (uint8_t)e[4 * v + c];
          uint8_t *meta = tile + nb * 512;
          for (int h = 0; h < 2; ++h) {
            const int s16 = 2 * (int)j + h;
            meta[b * 32 + 16 * h + r] =
                q3 ? (uint8_t)qblocks::q3kScale(w, s16) : (uint8_t)(w[s16] & 0xf);
            if (q2)
              meta[nb * 32 + b * 32 + 16 * h + r] = (uint8_t)(w[s16] >> 4);
          }
          // the super-block's f16 d (and q2_k's dmin)
          const int64_t dAt = nb * (q2 ? 576 : 544);
          if (j == 0) {
            std::memcpy(tile + dAt + (s * 16 + r) * 2, w + (q3 ? 108 : 80), 2);
            if (q2)
              std::memcpy(tile + dAt + (ns * 16 + s * 16 + r) * 2, w + 82, 2);
          }
        } else {
          uint8_t u[32];
          qblocks::sixBitBlock(w, (int)j, u);
          for (int l = 0; l < 32; ++l)
            e[l] = (int8_t)((int)u[l] - 32);
          for (int64_t v = 0; v < 8; ++v)
            for (int64_t c = 0; c < 4; ++c)
              q[v * 64 + g * 16 + i * 4 + c] = (uint8_t)e[4 * v + c];
          tile[nb * 512 + b * 32 + r] = w[192 + 2 * j];
          tile[nb * 512 + b * 32 + 16 + r] = w[193 + 2 * j];
          if (j == 0) // the super-block's f16 d
            std::memcpy(tile + nb * 544 + (s * 16 + r) * 2, w + 208, 2);
        }
      }
    }
  }
  return true;
}

/// Repacks Q5_0 and Q5_1 into the 16-row int8 tiles of
/// kernels_sve.c ("sve_i8tiles", layout described there) from their integer
/// blocks (qblocks::decode). Rows past N are all zero.
bool packTilesI8(llvm::StringRef type, int64_t N, int64_t K,
                 const uint8_t *ggml, size_t bytes, std::vector<uint8_t> &out,
                 std::string &error) {
  std::vector<qblocks::Block> blocks;
  if (!qblocks::decode(type, N, K, ggml, bytes, blocks, error))
    return false;
  const bool hasMin = type == "q5_1";
  const int64_t nb = K / 32, tiles = (N + 15) / 16,
                tileBytes = nb * (512 + (hasMin ? 128 : 64));
  out.assign((size_t)(tiles * tileBytes), 0);
  for (int64_t row = 0; row < N; ++row) {
    uint8_t *tile = out.data() + (row / 16) * tileBytes;
    const int64_t r = row % 16, g = r / 4, i = r % 4;
    for (int64_t b = 0; b < nb; ++b) {
      const qblocks::Block &bl = blocks[row * nb + b];
      uint8_t *q = tile + b * 512;
      for (int64_t v = 0; v < 8; ++v)
        for (int64_t c = 0; c < 4; ++c)
          q[v * 64 + g * 16 + i * 4 + c] = (uint8_t)bl.q[4 * v + c];
      qblocks::putFloat(tile + nb * 512 + (b * 16 + r) * 4, bl.s0);
      if (hasMin)
        qblocks::putFloat(tile + nb * 576 + (b * 16 + r) * 4, bl.s1);
    }
  }
  return true;
}

class SveTarget : public IsaTarget {
public:
  explicit SveTarget(int64_t bits) : bits(bits) {}
  std::string name() const override { return "sve"; }
  std::vector<std::string> cflags() const override {
    std::vector<std::string> f = {"--target=aarch64-linux-gnu", "-std=c11", "-O2",
                                  "-ffunction-sections", "-fdata-sections",
                                  "-fno-math-errno", "-march=armv8.2-a+sve+dotprod"};
    if (bits)
      f.push_back("-msve-vector-bits=" + std::to_string(bits));
    return f;
  }
  std::vector<std::string>
  linkCommand(const std::vector<std::string> &inputs,
              const std::string &output) const override {
    return crossGccLink("aarch64-linux-gnu-gcc", inputs, output);
  }
  std::vector<std::string> runPrefix(int64_t vectorBits) const override {
    int64_t vl = bits ? bits : (vectorBits ? vectorBits : 128);
    return {"qemu-aarch64", "-cpu", "max,sve" + std::to_string(vl) + "=on",
            "-L", "/usr/aarch64-linux-gnu"};
  }
  ToolchainPackages packages() const override {
    return {"libc6-dev-arm64-cross",
            {{"clang-16", "clang-16"},
             {"aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu"},
             {"qemu-aarch64", "qemu-user"}}};
  }
  // qemu-aarch64 emulates any multiple of 128 bits up to 2048 (sveN=on).
  bool checkVectorBits(int64_t vectorBits, std::string &error) const override {
    if (vectorBits == 0 || vectorBits == bits ||
        (!bits && vectorBits % 128 == 0 && vectorBits >= 128 &&
         vectorBits <= 2048))
      return true;
    error = "--vector-bits=" + std::to_string(vectorBits) +
            (bits ? ": the code is compiled for --sve-bits=" +
                        std::to_string(bits) + " and runs at that length"
                  : ": expected a multiple of 128 from 128 to 2048 (the SVE "
                    "vector length qemu runs at)");
    return false;
  }
  std::vector<int64_t> testVectorBits() const override {
    if (bits)
      return {bits};
    return {128, 256, 512};
  }

protected:
  bool pack(const kernels::MatMulKernel &k, int64_t N, int64_t K,
            const uint8_t *ggml, size_t bytes, std::vector<uint8_t> &out,
            std::string &error) const override {
    const llvm::StringRef w = k.weight;
    if (llvm::StringRef(k.packer) == "sve_i8tiles")
      return packTilesI8(w, N, K, ggml, bytes, out, error);
    if (llvm::StringRef(k.packer) == "sve_ktiles")
      return packTilesK16(w, N, K, ggml, bytes, out, error);
    return packTiles16(w, N, K, ggml, bytes, out, error); // sve_tiles
  }
  std::vector<std::string> isaKernelFiles() const override {
    return {"kernels_sve.c", "attention_tiled.c"};
  }

private:
  int64_t bits; // 0: length agnostic
};
} // namespace

std::unique_ptr<Target> kiln::createSveTarget(const TargetOptions &o) {
  return std::make_unique<SveTarget>(o.sveBits);
}
