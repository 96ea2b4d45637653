//===- TensorPlans.h - how the tensor kernels run a static shape ----------===//
//
// The parameters of kiln_t_conv (kernels/tensor/nn.c) hold, besides the
// convolution's geometry, the algorithm it runs (direct 1x1, im2col columns,
// shifted rows of a padded copy, depthwise) and how its scratch is cut; a
// GEMM's scratch depends on whether it transposes B at run time. These are
// choices of kernel: the ONNX frontend makes them for a call it folds at
// compile time, kiln-select-kernels for a typed op (kiln.conv, kiln.gemm) it
// lowers to its call. MLIR-free, so both can use them.
//
#ifndef KILN_SUPPORT_TENSORPLANS_H
#define KILN_SUPPORT_TENSORPLANS_H

#include <cstdint>
#include <vector>

namespace kiln {

/// A convolution: X [N, C, in...] * W [M, C / G, k...] -> Y [N, M, out...].
struct ConvGeometry {
  int64_t N = 0, C = 0, M = 0, G = 1;
  std::vector<int64_t> in, k, out, stride, dil, padBegin;
};

/// Scratch bytes kiln_sgemm packs B panels into (KILN_SGEMM_PACK_FLOATS).
constexpr int64_t kSgemmPackBytes = 4096 * 4;
/// Bytes an im2col / col2im block may take in the scratch: big enough that
/// the GEMM sees long rows, small enough to stay in L2.
constexpr int64_t kColumnBudget = 1 << 20;

/// Columns per im2col block for rows of `rowBytes` bytes and `cols` columns.
int64_t columnChunk(int64_t rowBytes, int64_t cols);

/// kiln_t_conv's parameters for `g` up to its epilogue count (which the
/// caller appends, with the epilogue's operations), and the scratch bytes
/// the call needs. False if a size overflows 64 bits.
bool planConv(const ConvGeometry &g, std::vector<int64_t> &params,
              int64_t &scratch);

/// Dense row-major element strides of `shape`.
std::vector<int64_t> denseStrides(const std::vector<int64_t> &shape);
/// Element strides of `shape` read as broadcast (numpy, right-aligned) to
/// `outShape`: 0 on broadcast dimensions.
std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &shape,
                                      const std::vector<int64_t> &outShape);

/// kiln_t_binary's parameters for Y (`out`, type `to`) = A (`a`, type `ta`)
/// `code` B (`b`, type `tb`) broadcast: {code, ta, tb, to, rank, shape, A's
/// strides, B's strides}, with the dimensions every operand walks as one
/// merged so the inner loop is as long as possible.
std::vector<int64_t> planBinary(int64_t code, int32_t ta, int32_t tb,
                                int32_t to, const std::vector<int64_t> &a,
                                const std::vector<int64_t> &b,
                                const std::vector<int64_t> &out);

/// Scratch bytes of kiln_t_gemm: float GEMMs pack B panels, and transpose
/// a B of transB (K x N floats) first.
int64_t gemmScratch(int32_t dtype, int64_t K, int64_t N, bool transB);

} // namespace kiln

#endif
