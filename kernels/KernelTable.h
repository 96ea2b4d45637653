//===- KernelTable.h - the ISA kernels of kernels.def, for the compiler ---===//
//
// Plain C++ (no MLIR): kernel selection, the targets' packing and the
// microkernel tests all look kernels up here.
//
#ifndef KILN_KERNELS_KERNELTABLE_H
#define KILN_KERNELS_KERNELTABLE_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::kernels {
struct CpuLevel {
  const char *isa, *cpu, *features;
  bool has(const std::string &feature) const;
  /// Whether this level has every feature of `other`.
  bool covers(const CpuLevel &other) const;
};
struct MatMulKernel {
  const char *isa, *feature, *weight, *name;
  int64_t mr, nr; // register tile: activation rows x weight rows
  const char *packer, *quantizer;
};
struct AttentionKernel {
  const char *isa, *feature, *name;
  int64_t maxHeadDim;
};

const std::vector<CpuLevel> &cpuLevels();
const std::vector<MatMulKernel> &matmulKernels();
const std::vector<AttentionKernel> &attentionKernels();

/// The instruction sets, in the table's order ("generic, x86, ...").
std::string isaList();
/// Checks the CPU options of `isa` and resolves them as kilnc does: `cpu`
/// "" is the ISA's default level, "host" (x86) the best level this machine
/// runs, and a CPU name ("armv8.6-a", "cortex-a78+i8mm"; "znver4";
/// CpuNames.h) the best level it has; `sveBits` 0 (length
/// agnostic) or a power of two 128..2048, SVE only.
/// Null with `error` ("--cpu=X is not valid for --target=Y (valid: ...)").
const CpuLevel *resolveCpu(const std::string &isa, const std::string &cpu,
                           int64_t sveBits, std::string &error);
/// The best x86 level this machine runs, which `--cpu=host` resolves to.
/// KILN_HOST_CPU=LEVEL caps it at that level, so that a machine can stand in
/// for an older one. Null with `error` when the CPU has no level or
/// KILN_HOST_CPU names none.
const CpuLevel *hostCpu(std::string &error);
/// The level `cpu` of `isa` as recorded in the IR (already resolved), or null.
const CpuLevel *findCpu(const std::string &isa, const std::string &cpu);

/// The ISA's matmul kernel for `weight` blocks at `level`, or null.
const MatMulKernel *matmulKernel(const CpuLevel &level, const std::string &weight);
/// The row named `name`, or null.
const MatMulKernel *matmulKernelNamed(const std::string &name);
/// The ISA's attention kernel for heads of `headDim`, or null (generic).
const AttentionKernel *attentionKernel(const CpuLevel &level, int64_t headDim);

/// Weight types whose matmuls quantize activations to Q8_0 on ISA targets
/// (kernels_q8.c has a portable kernel for each).
bool hasQ8Activations(const std::string &weight);
/// The activation blocks kernel `k` reads: "q8_k" (ggml's Q8_K, from
/// kiln_q8k_rows) or "q8_0" (every other quantizing kernel).
const char *activationOf(const MatMulKernel &k);
/// Whether kernel `k` also has the entry kiln_NAME_ld(x, rows, K, w, N, bias,
/// y, ldy, scratch), which writes output row r at y + r * ldy (the x86
/// drivers of the quantizing kernels define it).
bool hasRowStrideEntry(const MatMulKernel &k);
/// Scratch bytes one row of K activations takes as `activation` blocks.
int64_t activationRowBytes(const std::string &activation, int64_t K);
/// Scratch bytes one row of K activations takes once kernel `k`'s quantizer
/// has run: the activation blocks, and whatever the quantizer keeps beside
/// them.
int64_t scratchRowBytes(const MatMulKernel &k, int64_t K);
/// Weight types the portable f32 kernels of kernels_generic.c read.
bool hasPortableKernel(const std::string &weight);

/// Graph (tensor) kernels that split their work into shares (kiln_tp_NAME,
/// KILN_TENSOR_PARTS in tensor/kiln_tensor_kernels.def).
bool tensorKernelHasParts(const std::string &kernel);
/// Where the epilogue (kiln_tensor.h) of a conv, halide_conv, conv_transpose,
/// conv_nchwc, gemm, matmul or halide_sgemm call begins in its n integer
/// parameters p: the index of its operation count E (after {nsp, N, C, M,
/// group, chunk[, direct]} and six per-axis lists; conv_nchwc's and gemm's
/// fixed 17 and 9; matmul's {dtype, M, N, K, R} and three lists of R), with
/// exactly E operations after it; -1 for any other kernel or layout.
int64_t tensorEpilogueAt(const std::string &kernel, const int64_t *p,
                         size_t n);
/// The multiply-adds of one call of a product kernel (conv, halide_conv,
/// conv_transpose, conv_nchwc, matmul, halide_sgemm, gemm), from its n integer parameters p (their
/// layouts as in tensorEpilogueAt), in a double (a count that cannot wrap):
/// true with `macs`, or with macs = -1 when p is too short for the kernel's
/// layout; false for any other kernel.
bool tensorMultiplyAdds(const std::string &kernel, const int64_t *p, size_t n,
                        double &macs);
/// The GEMM a call is as it stands, M x N x K with A, B and C dense: per
/// batch index of a matmul or halide_sgemm ({dtype, M, N, K, ...}), per
/// image and group of a direct conv or halide_conv (M/group x prod(out) x
/// C/group: a 1x1 kernel, stride 1, no padding). False for any other call,
/// a conv that builds columns, or parameters too short or out of range.
bool tensorGemmShape(const std::string &kernel, const int64_t *p, size_t n,
                     int64_t &M, int64_t &N, int64_t &K);
/// How many of `parts` shares of one call of tensor kernel `kernel` (its n
/// integer parameters p) have work: kiln_tp_NAME splits one dimension, which
/// can have fewer units than shares -- a ConvTranspose's output channels per
/// group, a Softmax's or global pool's outer index, a convolution's output
/// rows, depthwise channels or (when positions are few) output channels.
/// Between 1 and parts; parts for every other kernel.
int64_t tensorShares(const std::string &kernel, const int64_t *p, size_t n,
                     int64_t parts);
} // namespace kiln::kernels

#endif
