//===- RvvTarget.cpp - RISC-V RV64GCV (RVV 1.0), vector-length agnostic ---===//
#include "compiler/targets/IsaTarget.h"
#include "compiler/support/QuantBlocks.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace kiln;

namespace {
class RvvTarget : public IsaTarget {
public:
  explicit RvvTarget(bool compressed) : compressed(compressed) {}
  std::string name() const override { return "rvv"; }
  std::vector<std::string> cflags() const override {
    return {"--target=riscv64-linux-gnu", "-std=c11", "-O2",
            "-ffunction-sections", "-fdata-sections", "-fno-math-errno",
            compressed ? "-march=rv64gcv" : "-march=rv64gv"};
  }
  // ld.lld fails on R_RISCV_ALIGN relaxations here: link with the cross gcc.
  std::vector<std::string>
  linkCommand(const std::vector<std::string> &inputs,
              const std::string &output) const override {
    return crossGccLink("riscv64-linux-gnu-gcc", inputs, output);
  }
  std::vector<std::string> runPrefix(int64_t vectorBits) const override {
    return {"qemu-riscv64", "-cpu",
            "rv64,v=true,vext_spec=v1.0,vlen=" + std::to_string(vectorBits ? vectorBits : 128),
            "-L", "/usr/riscv64-linux-gnu"};
  }
  // rv64gcv needs VLEN >= 128; qemu-riscv64 runs powers of two to 1024.
  bool checkVectorBits(int64_t vectorBits, std::string &error) const override {
    if (vectorBits == 0 || (vectorBits >= 128 && vectorBits <= 1024 &&
                            (vectorBits & (vectorBits - 1)) == 0))
      return true;
    error = "--vector-bits=" + std::to_string(vectorBits) +
            ": expected 128, 256, 512 or 1024 (the RVV VLEN qemu runs at)";
    return false;
  }
  ToolchainPackages packages() const override {
    return {"libc6-dev-riscv64-cross",
            {{"clang-16", "clang-16"},
             {"riscv64-linux-gnu-gcc", "gcc-riscv64-linux-gnu"},
             {"qemu-riscv64", "qemu-user"}}};
  }
  std::vector<int64_t> testVectorBits() const override { return {128, 256, 512}; }

  // Microkernels of kernels_rvv.c: 128 output rows per tile, rows as lanes.
  // The one layout of the ISA's kernels (kernels.def).
  bool pack(const kernels::MatMulKernel &k, int64_t N, int64_t K,
            const uint8_t *ggml, size_t bytes, std::vector<uint8_t> &out,
            std::string &error) const override {
    const llvm::StringRef type = k.weight;
    if (type == "q4_k" || type == "q5_k" || type == "q6_k")
      return packKQuant(type, N, K, ggml, bytes, out, error);
    if (type == "q2_k" || type == "q3_k")
      return packTwoBit(type == "q3_k", N, K, ggml, bytes, out, error);
    if (type == "iq4_xs")
      return packIq4Xs(N, K, ggml, bytes, out, error);
    std::vector<qblocks::Block> blocks;
    if (!qblocks::decode(type, N, K, ggml, bytes, blocks, error))
      return false;
    constexpr int64_t T = 128;
    // q4_0 and iq4_nl: nibbles (iq4_nl's its file's, indices of its levels)
    const bool iq4nl = type == "iq4_nl", nibbles = type == "q4_0" || iq4nl;
    const int64_t scales = type == "q5_1" ? 2 : 1;
    const int64_t qbytes = nibbles ? 16 : 32;
    const int64_t bpb = qbytes + 4 * scales; // bytes per row-block
    const int64_t nb = K / 32;
    // Tiles of T rows; the last one holds only its tw rows (lane stride tw).
    out.assign((size_t)(N * nb * bpb), 0);
    for (int64_t j = 0; j < N; ++j) {
      const int64_t t = j / T, lane = j % T, tw = std::min(T, N - t * T);
      for (int64_t b = 0; b < nb; ++b) {
        const qblocks::Block &bl = blocks[j * nb + b];
        uint8_t *base = out.data() + t * T * nb * bpb + b * tw * bpb;
        for (int64_t i = 0; i < qbytes; ++i)
          base[i * tw + lane] =
              iq4nl     ? ggml[(j * nb + b) * 18 + 2 + i]
              : nibbles ? (uint8_t)(bl.q[i] | (bl.q[i + 16] << 4))
                        : (uint8_t)bl.q[i];
        const float f[2] = {bl.s0, bl.s1};
        for (int64_t i = 0; i < scales; ++i)
          qblocks::putFloat(base + qbytes * tw + i * tw * 4 + lane * 4, f[i]);
      }
    }
    return true;
  }

protected:
  std::vector<std::string> isaKernelFiles() const override {
    return {"kernels_rvv.c", "attention_tiled.c"};
  }

  // q4_k and q6_k keep their files' bytes: per 128-row tile (the last one
  // its tw rows) and super-block, each byte position of all tw rows side by
  // side: q4_k 8 x 16 nibble positions, the 12 scale bytes, f16 d, f16 dmin
  // (144 per row); q6_k 8 x 24 positions (three runs of 8: values k, k+8,
  // k+16 each with two bits of value k+24), the 16 int8 scales, f16 d (210
  // per row). kernels_rvv.c says how the kernels read them.
  // The K-quants' layouts keep the file's bytes per super-block: for each
  // row j (lane j % 128 of tile j / 128, which holds tw rows) and
  // super-block, fn(src, base, tw, lane) writes the row's part of the tile's
  // super-block of sbBytes * tw bytes at base from the file's at src.
  template <typename Fn>
  static bool eachSuperBlock(llvm::StringRef type, int64_t sbBytes, int64_t N,
                             int64_t K, const uint8_t *ggml, size_t bytes,
                             std::vector<uint8_t> &out, std::string &error,
                             Fn fn) {
    const int64_t ns = K / 256;
    if (K % 256 || (size_t)(N * ns * sbBytes) != bytes) {
      error = "weight of type " + type.str() + " has " + std::to_string(bytes) +
              " bytes, expected [" + std::to_string(N) + ", " +
              std::to_string(K) + "]";
      return false;
    }
    constexpr int64_t T = 128;
    out.assign(bytes, 0);
    for (int64_t j = 0; j < N; ++j) {
      const int64_t t = j / T, lane = j % T, tw = std::min(T, N - t * T);
      for (int64_t s = 0; s < ns; ++s)
        fn(ggml + (j * ns + s) * sbBytes,
           out.data() + t * T * ns * sbBytes + s * tw * sbBytes, tw, lane);
    }
    return true;
  }

  // q2_k and q3_k in the files' bytes: per tile and super-block 8 blocks of
  // 8 byte positions of two-bit values (position k bits 2c..2c+1: element
  // 4k + c); q2_k then the 16 scale bytes, f16 d, f16 dmin (84 per row);
  // q3_k 8 blocks of 4 positions of third bits (bit p of position k:
  // element 8k + p), the 12 packed scale bytes, f16 d (110 per row).
  static bool packTwoBit(bool three, int64_t N, int64_t K, const uint8_t *ggml,
                         size_t bytes, std::vector<uint8_t> &out,
                         std::string &error) {
    return eachSuperBlock(three ? "q3_k" : "q2_k", three ? 110 : 84, N, K, ggml,
                          bytes, out, error,
                          [&](const uint8_t *src, uint8_t *base, int64_t tw,
                              int64_t lane) {
        for (int b = 0; b < 8; ++b) {
          uint8_t low[32], high[32];
          qblocks::twoBitBlock(three, src, b, low, high);
          for (int e = 0; e < 32; ++e) {
            base[(b * 8 + e / 4) * tw + lane] |= (uint8_t)(low[e] << (2 * (e % 4)));
            if (three)
              base[(64 + b * 4 + e / 8) * tw + lane] |= (uint8_t)(high[e] << (e % 8));
          }
        }
        if (three) {
          for (int i = 0; i < 12; ++i)
            base[(96 + i) * tw + lane] = src[96 + i];
          std::memcpy(base + 108 * tw + 2 * lane, src + 108, 2);
        } else {
          for (int i = 0; i < 16; ++i)
            base[(64 + i) * tw + lane] = src[i];
          std::memcpy(base + 80 * tw + 2 * lane, src + 80, 2);
          std::memcpy(base + 82 * tw + 2 * lane, src + 82, 2);
        }
    });
  }

  // iq4_xs in its file's bytes: per tile and super-block 8 blocks of 16
  // nibble positions (the file's qs), the 4 scales_l bytes, the 2 bytes of
  // scales_h, f16 d (136 per row).
  static bool packIq4Xs(int64_t N, int64_t K, const uint8_t *ggml, size_t bytes,
                        std::vector<uint8_t> &out, std::string &error) {
    return eachSuperBlock("iq4_xs", 136, N, K, ggml, bytes, out, error,
                          [&](const uint8_t *src, uint8_t *base, int64_t tw,
                              int64_t lane) {
        for (int i = 0; i < 128; ++i)
          base[i * tw + lane] = src[8 + i];
        for (int i = 0; i < 4; ++i)
          base[(128 + i) * tw + lane] = src[4 + i];
        base[132 * tw + lane] = src[2];
        base[133 * tw + lane] = src[3];
        std::memcpy(base + 134 * tw + 2 * lane, src, 2); // f16 d
    });
  }

  // q5_k: q4_k's bytes, then per block 4 byte positions of fifth bits (bit
  // p of position k: element 8k + p), 176 per row.
  static bool packKQuant(llvm::StringRef type, int64_t N, int64_t K,
                         const uint8_t *ggml, size_t bytes,
                         std::vector<uint8_t> &out, std::string &error) {
    const bool six = type == "q6_k", five = type == "q5_k";
    return eachSuperBlock(type, six ? 210 : five ? 176 : 144, N, K, ggml, bytes,
                          out, error,
                          [&](const uint8_t *src, uint8_t *base, int64_t tw,
                              int64_t lane) {
        auto at = [&](int64_t position) -> uint8_t & {
          return base[position * tw + lane];
        };
        for (int b = 0; b < 8; ++b) {
          uint8_t u[32];
          if (six)
            qblocks::sixBitBlock(src, b, u);
          else
            qblocks::smallValues(type, src, b, u);
          if (six) {
            for (int k = 0; k < 8; ++k) {
              const int64_t p0 = b * 24 + k;
              at(p0) = (uint8_t)(u[k] | (u[k + 24] & 3) << 6);
              at(p0 + 8) = (uint8_t)(u[k + 8] | ((u[k + 24] >> 2) & 3) << 6);
              at(p0 + 16) = (uint8_t)(u[k + 16] | (u[k + 24] >> 4) << 6);
            }
          } else {
            for (int i = 0; i < 16; ++i)
              at(b * 16 + i) = (uint8_t)((u[i] & 15) | (u[i + 16] & 15) << 4);
            if (five)
              for (int e = 0; e < 32; ++e)
                at(144 + b * 4 + e / 8) |= (uint8_t)((u[e] >> 4) << (e % 8));
          }
        }
        const int64_t meta = six ? 192 : 128, metaBytes = six ? 16 : 12;
        for (int64_t i = 0; i < metaBytes; ++i)
          at(meta + i) = src[six ? 192 + i : 4 + i];
        // f16 scales: d (and q4_k's dmin), two bytes per row each
        uint8_t *h = base + (meta + metaBytes) * tw;
        if (six) {
          std::memcpy(h + 2 * lane, src + 208, 2);
        } else {
          std::memcpy(h + 2 * lane, src, 2);
          std::memcpy(h + 2 * tw + 2 * lane, src + 2, 2);
        }
    });
  }

private:
  // rv64gv: no compressed instructions, so no 4-byte instruction straddles a
  // page; qemu-user 7.2 (Debian 12) aborts translating vector instructions
  // that do ("decode_save_opc: Assertion `ctx->insn_start != NULL'", fixed in
  // QEMU 8.1), so the tests under qemu use it. The same assertion fires on a
  // VFCVT.RTZ that starts a translation block (a page's first instruction, a
  // branch target), so the kernels convert floats to integers without it
  // (kiln_g_expf; the tensor kernels' KILN_T_SCALAR_CONVERSIONS).
  bool compressed;
};
} // namespace

std::unique_ptr<Target> kiln::createRvvTarget(const TargetOptions &o) {
  return std::make_unique<RvvTarget>(o.cpu != "rv64gv");
}
