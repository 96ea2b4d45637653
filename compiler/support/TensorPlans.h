//===- TensorPlans.h - how the tensor kernels run a static shape ----------===//
//
// The parameters of kiln_t_conv (kernels/tensor/nn.c) hold, besides the
// convolution's geometry, the algorithm it runs (direct 1x1, im2col columns,
// shifted rows of a padded copy, depthwise) and how its scratch is cut; a
// GEMM's scratch depends on whether it transposes B at run time. These are
// choices of kernel: the ONNX frontend makes them for a call it folds at
// compile time, kiln-select-kernels for a typed op (kiln.conv, kiln.gemm,
// ...) it lowers to its call. MLIR-free, so both can use them.
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

/// kiln_t_conv_transpose's parameters for `g` (W [C, M / G, k...], output
/// position i * stride - padBegin + k * dilation) up to its epilogue count,
/// and the scratch bytes: the GEMM's packing, then columns of (M / G) *
/// prod(k) rows in chunks. False if a size overflows 64 bits.
bool planConvTranspose(const ConvGeometry &g, std::vector<int64_t> &params,
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

/// kiln_t_strided_copy's parameters for the view of `shape` (walked
/// row-major) reading element offset + sum(i_d * strides[d]) of elements of
/// `elementBytes`: {bytes, offset, rank, shape, strides}, dimensions of 1
/// dropped and a dimension merged into its outer neighbour when the two walk
/// the input as one. False if more than 16 dimensions remain (the kernel's
/// KILN_MOVE_MAX_RANK); `rank` is then how many.
bool planStridedCopy(int64_t elementBytes, int64_t offset,
                     const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &strides,
                     std::vector<int64_t> &params, int64_t &rank);

/// Scratch bytes of kiln_t_gemm: float GEMMs pack B panels, and transpose
/// a B of transB (K x N floats) first.
int64_t gemmScratch(int32_t dtype, int64_t K, int64_t N, bool transB);

/// kiln_t_matmul's parameters for numpy's matmul of A (`a`) and B (`b`),
/// which the caller has checked: {dtype, M, N, K, batch rank, batch shape,
/// A's and B's element strides per batch dimension (0 where one
/// broadcasts)}, up to its epilogue count (which the caller appends, with
/// the epilogue's operations). A 1-D A is a row [1, K], a 1-D B a column
/// [K, 1].
std::vector<int64_t> planMatMul(int32_t dtype, std::vector<int64_t> a,
                                std::vector<int64_t> b);
/// Scratch bytes of kiln_t_matmul: float products pack B panels.
int64_t matmulScratchBytes(int32_t dtype);

/// Scratch bytes of kiln_t_softmax over an axis with `inner` elements after
/// it: a row of running maxima and one of sums when inner > 1.
int64_t softmaxScratchBytes(int32_t dtype, int64_t inner);

/// kiln_t_reduce's parameters for reducing `shape` over the axes marked in
/// `reduced` into `outElements` elements: {op, dtype, rank, shape, output
/// strides (0 on reduced dimensions), output elements, input elements},
/// dimensions of 1 dropped and neighbours of the same kind merged; and the
/// scratch bytes (a double accumulator per output, two for LogSumExp).
std::vector<int64_t> planReduce(int64_t op, int32_t dtype,
                                const std::vector<int64_t> &shape,
                                const std::vector<bool> &reduced,
                                int64_t outElements, int64_t &scratch);

} // namespace kiln

#endif
