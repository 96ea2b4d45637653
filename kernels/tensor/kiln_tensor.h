/* kiln_tensor.h - kernels for ONNX graphs (tensor ops of any rank and type).
 *
 * Every kernel has the same signature, so that the compiler can call the very
 * same code on the host to fold constant subgraphs, and generated code calls
 * it with parameters baked in as static arrays:
 *
 *   void kiln_t_NAME(const int64_t *p, const float *f,
 *                    const void *const *in, void *const *out, void *scratch);
 *
 *   p        integer parameters: shapes, strides, axes, type codes; their
 *            layout is documented at each kernel and produced by its
 *            converter in compiler/frontend/onnx/ops/
 *   f        float parameters (epsilon, alpha, ...), may be NULL
 *   in, out  tensors, row-major and dense; an omitted optional input is NULL
 *   scratch  the kernel's planned scratch (bytes requested by the converter)
 *
 * Element types use ONNX's TensorProto.DataType numbers. Kernels never
 * allocate and never fail: the converter has validated everything they rely
 * on at compile time.
 */
#ifndef KILN_TENSOR_H
#define KILN_TENSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h> /* freestanding targets: runtime/src/freestanding/ */

#ifdef __cplusplus
extern "C" {
#endif

enum kiln_dtype {
  KILN_F32 = 1, KILN_U8 = 2, KILN_I8 = 3, KILN_U16 = 4, KILN_I16 = 5,
  KILN_I32 = 6, KILN_I64 = 7, KILN_BOOL = 9, KILN_F16 = 10, KILN_F64 = 11,
  KILN_U32 = 12, KILN_U64 = 13
};

/* Most ranks ONNX graphs use; converters reject more (after merging dims). */
#define KILN_MAX_RANK 8

/* Before a loop that converts floats to integers: on RVV, not vectorized.
 * Vectorized, the conversion is a VFCVT.RTZ, and qemu-user 7.2 (Debian 12),
 * which runs the RVV tests, aborts on one that starts a translation block
 * (RvvTarget.cpp). KernelUnitsTest fails on any left in the RVV objects. */
#if defined(__riscv_vector)
#define KILN_T_SCALAR_CONVERSIONS _Pragma("clang loop vectorize(disable)")
#else
#define KILN_T_SCALAR_CONVERSIONS
#endif

typedef void (*kiln_tensor_kernel)(const int64_t *p, const float *f,
                                   const void *const *in, void *const *out,
                                   void *scratch);

/* Work split over threads. A kernel listed with KILN_TENSOR_PARTS in
 * kiln_tensor_kernels.def also has
 *
 *   void kiln_tp_NAME(p, f, in, out, scratch, int part, int parts);
 *
 * which computes share `part` (0 .. parts - 1) of the outputs. The shares
 * are disjoint and together cover every output; each share reads only the
 * inputs and its own scratch (of the size kiln_t_NAME needs), and computes
 * each element by kiln_t_NAME's arithmetic in kiln_t_NAME's order -- which is
 * share 0 of 1 -- so the result has the same bits for any number of shares,
 * run in any order or at once. */
typedef void (*kiln_tensor_part_kernel)(const int64_t *p, const float *f,
                                        const void *const *in,
                                        void *const *out, void *scratch,
                                        int part, int parts);

#define KILN_TENSOR_KERNEL(name)                                             \
  void kiln_t_##name(const int64_t *p, const float *f,                        \
                     const void *const *in, void *const *out, void *scratch);
#define KILN_TENSOR_PARTS(name)                                              \
  void kiln_tp_##name(const int64_t *p, const float *f,                       \
                      const void *const *in, void *const *out, void *scratch, \
                      int part, int parts);
#include "kiln_tensor_kernels.def"
#undef KILN_TENSOR_PARTS
#undef KILN_TENSOR_KERNEL

/* Share `part` of `parts` of n units: [*lo, *hi), even sizes, the ends
 * multiples of `align` (but n itself), so a share's vectors stay whole. */
static inline void kiln_part_range(int64_t n, int part, int parts,
                                   int64_t align, int64_t *lo, int64_t *hi) {
  int64_t a = n * part / parts, b = n * (part + 1) / parts;
  *lo = a - a % align;
  *hi = part + 1 == parts ? n : b - b % align;
}

/* Operation codes of kiln_t_binary and kiln_t_unary (BinaryOp and UnaryOp
 * in compiler/frontend/onnx/ops/Elementwise.cpp). */
enum {
  KILN_BIN_ADD, KILN_BIN_SUB, KILN_BIN_MUL, KILN_BIN_DIV, KILN_BIN_POW,
  KILN_BIN_MAX, KILN_BIN_MIN, KILN_BIN_MOD, KILN_BIN_FMOD, KILN_BIN_EQUAL,
  KILN_BIN_LESS, KILN_BIN_GREATER, KILN_BIN_LESS_EQ, KILN_BIN_GREATER_EQ,
  KILN_BIN_AND, KILN_BIN_OR, KILN_BIN_XOR, KILN_BIN_PRELU
};
enum {
  KILN_UN_RELU, KILN_UN_LEAKY_RELU, KILN_UN_SIGMOID, KILN_UN_HARD_SIGMOID,
  KILN_UN_HARD_SWISH, KILN_UN_TANH, KILN_UN_ERF, KILN_UN_GELU,
  KILN_UN_GELU_TANH, KILN_UN_SQRT, KILN_UN_EXP, KILN_UN_LOG, KILN_UN_ABS,
  KILN_UN_NEG, KILN_UN_RECIPROCAL, KILN_UN_NOT, KILN_UN_FLOOR, KILN_UN_CEIL,
  KILN_UN_SIN, KILN_UN_COS, KILN_UN_SOFTPLUS, KILN_UN_SOFTSIGN, KILN_UN_ELU,
  KILN_UN_SELU, KILN_UN_SIGN, KILN_UN_ROUND, KILN_UN_CELU,
  KILN_UN_THRESHOLDED_RELU, KILN_UN_IDENTITY
};

/* Operation codes of kiln_t_reduce and kiln_t_softmax (ReduceOp and
 * SoftmaxOp kinds in compiler/dialect/KilnDialect.h, in this order). */
enum {
  KILN_RED_SUM, KILN_RED_MEAN, KILN_RED_MAX, KILN_RED_MIN, KILN_RED_PROD,
  KILN_RED_L1, KILN_RED_L2, KILN_RED_SUMSQ, KILN_RED_LOGSUM,
  KILN_RED_LOGSUMEXP
};
enum { KILN_SM_SOFTMAX, KILN_SM_LOGSOFTMAX, KILN_SM_HARDMAX };
/* kiln_t_pad's modes (kiln.pad's, KilnDialect.h, in this order). */
enum { KILN_PAD_CONSTANT, KILN_PAD_REFLECT, KILN_PAD_EDGE };
/* How kiln_t_scatter_elements and kiln_t_scatter_nd combine an update with
 * the element it lands on (ScatterOp kinds in KilnDialect.h, this order). */
enum {
  KILN_SCATTER_NONE, KILN_SCATTER_ADD, KILN_SCATTER_MUL, KILN_SCATTER_MAX,
  KILN_SCATTER_MIN
};

/* The floating-point element expressions of kiln_t_binary (u op v),
 * kiln_t_unary (x, alpha, beta) and kiln_t_clip that generated epilogue
 * loops repeat: one text, so one rounding (a product and a sum inside one
 * expression may contract into a fused multiply-add, in both or neither).
 * A NaN stays NaN through Max, Min and Clip. */
#define KILN_EX_ADD(u, v) ((u) + (v))
#define KILN_EX_SUB(u, v) ((u) - (v))
#define KILN_EX_MUL(u, v) ((u) * (v))
#define KILN_EX_DIV(u, v) ((u) / (v))
#define KILN_EX_MAX(u, v) (((u) != (u) || (u) > (v)) ? (u) : (v))
#define KILN_EX_MIN(u, v) (((u) != (u) || (u) < (v)) ? (u) : (v))
#define KILN_EX_PRELU(u, v) ((u) < 0 ? (u) * (v) : (u))
#define KILN_EX_RELU(x) ((x) > 0 ? (x) : 0)
#define KILN_EX_NEG(x) (-(x))
#define KILN_EX_RECIPROCAL(x) (1 / (x))
#define KILN_EX_LEAKY_RELU(x, alpha) ((x) >= 0 ? (x) : (alpha) * (x))
#define KILN_EX_HARD_SIGMOID_IN(x, alpha, beta) ((alpha) * (x) + (beta))
#define KILN_EX_HARD_SWISH_IN(x) ((x) / 6 + 0.5f)
#define KILN_EX_UNIT(v) ((v) < 0 ? 0 : (v) > 1 ? 1 : (v)) /* clamp to [0, 1] */
#define KILN_EX_CLIP_LO(x, lo) ((x) < (lo) ? (lo) : (x))
#define KILN_EX_CLIP_HI(x, hi) ((x) > (hi) ? (hi) : (x))

/* An epilogue: elementwise work a producing kernel (conv, gemm, matmul)
 * applies to its f32 output while it is in cache, in place of the separate
 * binary, unary and clip calls it replaces, with the same expressions
 * (bit-identical results). The kernel calls it on blocks of one output
 * channel (a convolution's) or of one output row (a matrix product's,
 * through kiln_epilogue_rows_f32). Its parameters: E, then E operations of
 * four integers {kind, code, a, b}:
 *   KILN_EP_SAVE     keeps y (for KILN_EP_SAVED)
 *   KILN_EP_SCALAR   y = code(y, in[a][0])            (b = 1: code(in[a][0], y))
 *   KILN_EP_CHANNEL  y = code(y, in[a][channel])      (b as above)
 *   KILN_EP_FULL     y = code(y, in[a][offset + i])   (b as above)
 *   KILN_EP_SAVED    y = code(y, saved)               (b as above)
 *   KILN_EP_UNARY    y = code(y), alpha f[a], beta f[a + 1]
 *   KILN_EP_CLIP     y = clip(y, in[a] or none, in[b] or none) (-1: none)
 *   KILN_EP_BATCHNORM  y = kiln_t_batchnorm's y with scale, B, mean and var
 *                    in[a], ..., in[a + 3] and epsilon f[b]
 *   KILN_EP_COLUMN   y = code(y, in[a][channel + i])  (b as above; a matrix
 *                    product's, whose `channel` is the column of y[0])
 * code is a kiln_t_binary or kiln_t_unary operation code. CHANNEL and
 * BATCHNORM belong to convolutions, COLUMN to matrix products. */
enum {
  KILN_EP_SAVE, KILN_EP_SCALAR, KILN_EP_CHANNEL, KILN_EP_FULL, KILN_EP_SAVED,
  KILN_EP_UNARY, KILN_EP_CLIP, KILN_EP_BATCHNORM, KILN_EP_CALL, KILN_EP_COLUMN
};
/* KILN_EP_CALL {kind, count, a, 0} runs the `count` operations after it as
 * one loop that the model's generated code holds (in[a], a kiln_epilogue_fn
 * called on each block with the block's n, channel and offset); they are
 * skipped here. It computes what they would, element by element, with the
 * expressions below: the same bits, one pass over the block instead of one
 * per operation. */
typedef void (*kiln_epilogue_fn)(const float *f, const void *const *in,
                                 float *y, int64_t n, int64_t channel,
                                 int64_t offset);
/* ys[i] = xs[i] * a + b over one channel's S values, a = sc[c] / sqrt(va[c]
 * + eps), b = bi[c] - mu[c] * a, in type T (those names in scope): the f32
 * function below and kiln_t_batchnorm's f64 path. */
#define KILN_BATCHNORM_CHANNEL(T)                                             \
  do {                                                                        \
    T a = sc[c] / (T)sqrt((double)va[c] + (double)eps);                       \
    T b = bi[c] - mu[c] * a;                                                  \
    if (xs == ys) /* in place (an epilogue): one pointer, so it vectorizes */ \
      for (int64_t i = 0; i < S; ++i)                                         \
        ys[i] = ys[i] * a + b;                                                \
    else                                                                      \
      for (int64_t i = 0; i < S; ++i)                                         \
        ys[i] = xs[i] * a + b;                                                \
  } while (0)

/* BatchNormalization of channel c's S values xs into ys, params = {scale, B,
 * mean, var} (kiln_t_batchnorm's and the epilogue's one computation). */
void kiln_batchnorm_channel_f32(const void *const *params, float eps,
                                int64_t c, const float *xs, float *ys,
                                int64_t S);
/* Applies the epilogue `ep` to y[0..n), n elements of output channel
 * `channel` that start at element `offset` of the output. */
void kiln_epilogue_f32(const int64_t *ep, const float *f,
                       const void *const *in, float *y, int64_t n,
                       int64_t channel, int64_t offset);
/* Applies the epilogue `ep` of a convolution in a blocked channel layout
 * (kernels/tensor/blocked.c) to npos positions of one block of cb channels,
 * y[q * cb + l] being channel ch0 + l, element `offset` of the output for
 * q = l = 0. Per-channel operations touch the first `lanes` lanes only (the
 * block's real channels); the others see every element. */
void kiln_epilogue_blocked_f32(const int64_t *ep, const float *f,
                               const void *const *in, float *y,
                               int64_t npos, int64_t cb, int64_t ch0,
                               int64_t lanes, int64_t offset);
/* Applies the epilogue `ep` of a matrix product with N output columns to
 * `rows` rows of n columns from column `col` (row r at y + r * ld), y[0]
 * being element `offset` of the output. Each call of kiln_epilogue_f32 it
 * makes covers one block of one row, so that `channel` is its column. */
void kiln_epilogue_rows_f32(const int64_t *ep, const float *f,
                            const void *const *in, float *y, int64_t rows,
                            int64_t n, int64_t ld, int64_t col,
                            int64_t offset, int64_t N);
/* Applies kiln_t_matmul's epilogue (parameters p, floats f, operands in) to
 * its whole output out[0], for a step that computed the product otherwise
 * (a Halide pipeline). */
void kiln_matmul_epilogue_f32(const int64_t *p, const float *f,
                              const void *const *in, void *const *out);
/* Adds kiln_t_conv's bias and applies its epilogue (parameters p, floats
 * f, operands in) to its whole output out[0], for a step that computed the
 * product otherwise (a Halide pipeline). */
void kiln_conv_epilogue_f32(const int64_t *p, const float *f,
                            const void *const *in, void *const *out);

/* `a op b` (+, - or *) in element type T, wrapping as two's complement
 * where T is a signed 32- or 64-bit integer (or uint16_t, whose product
 * overflows int): C leaves signed overflow undefined, and the compiler
 * folds constants with these kernels. Other types compute as written. */
#define KILN_WRAP_OP(T, a, op, b)                                             \
  _Generic((T)0,                                                               \
      int32_t: (T)((uint32_t)(a) op (uint32_t)(b)),                            \
      int64_t: (T)((uint64_t)(a) op (uint64_t)(b)),                            \
      uint16_t: (T)((uint32_t)(a) op (uint32_t)(b)),                           \
      default: (T)((a) op (b)))

/* X-macros over element types, for kernels that switch on a type code:
 * X(code, C type). */
#define KILN_FOR_FLOAT_TYPES(X) X(KILN_F32, float) X(KILN_F64, double)
#define KILN_FOR_INT_TYPES(X)                                                 \
  X(KILN_U8, uint8_t) X(KILN_I8, int8_t) X(KILN_U16, uint16_t)                \
  X(KILN_I16, int16_t) X(KILN_I32, int32_t) X(KILN_I64, int64_t)              \
  X(KILN_U32, uint32_t) X(KILN_U64, uint64_t)
#define KILN_FOR_NUMERIC_TYPES(X) KILN_FOR_FLOAT_TYPES(X) KILN_FOR_INT_TYPES(X)
#define KILN_FOR_ALL_TYPES(X) KILN_FOR_NUMERIC_TYPES(X) X(KILN_BOOL, uint8_t)

/* Bytes of one element of `dtype` (0 for an unknown code). */
static inline size_t kiln_dtype_size(int64_t dtype) {
  switch (dtype) {
  case KILN_U8: case KILN_I8: case KILN_BOOL: return 1;
  case KILN_U16: case KILN_I16: case KILN_F16: return 2;
  case KILN_F32: case KILN_I32: case KILN_U32: return 4;
  case KILN_F64: case KILN_I64: case KILN_U64: return 8;
  default: return 0;
  }
}

/* Odometer over an N-d index: advances `idx` (rank entries) within `shape`
 * and returns the dimension that moved, or -1 after the last index. Kernels
 * loop over all but the innermost dimension with it, so the inner loop runs
 * with constant strides and vectorizes. */
static inline int kiln_nd_next(int64_t *idx, const int64_t *shape, int rank) {
  for (int d = rank - 1; d >= 0; --d) {
    if (++idx[d] < shape[d])
      return d;
    idx[d] = 0;
  }
  return -1;
}

/* Offset of `idx` under `strides` (elements). */
static inline int64_t kiln_nd_offset(const int64_t *idx, const int64_t *strides,
                                     int rank) {
  int64_t o = 0;
  for (int d = 0; d < rank; ++d)
    o += idx[d] * strides[d];
  return o;
}

#ifdef __cplusplus
}
#endif

#endif
