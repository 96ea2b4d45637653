/* kiln_gemm.h - the f32 GEMM that MatMul, Gemm, Conv and ConvTranspose share.
 *
 * Internal to the tensor kernels (gemm.c defines it, nn.c calls it): not a
 * kernel of kiln_tensor_kernels.def. */
#ifndef KILN_GEMM_H
#define KILN_GEMM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* C[i, j] = alpha * sum_k A[i, k] * B[k, j]  (+ C[i, j] when accumulate,
 * else + bias[i] unless bias is NULL, with the bits of presetting C to the
 * bias and accumulating) for i < m, j < n. A is read through strides (element (i, k) at
 * A[i * sam + k * sak]) so a transposed A costs nothing; B is row-major with
 * row stride ldb (its rows contiguous, the vectorized direction); C has row
 * stride ldc. `pack` (KILN_SGEMM_PACK_FLOATS floats of the caller's scratch,
 * or NULL) holds a panel of B copied contiguous. No allocation. */
void kiln_sgemm(int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                int64_t sam, int64_t sak, const float *B, int64_t ldb,
                float *C, int64_t ldc, int accumulate, const float *bias,
                float *pack);

/* kiln_sgemm with row k of B at B + boff[k] (its columns contiguous): rows
 * that are shifted windows of one buffer (a convolution's taps) need not be
 * copied out first. `pack` is required: panels are gathered into it. */
void kiln_sgemm_gather(int64_t m, int64_t n, int64_t k, float alpha,
                       const float *A, int64_t sam, int64_t sak,
                       const float *B, const int64_t *boff, float *C,
                       int64_t ldc, int accumulate, const float *bias,
                       float *pack);

/* Floats of the B panel buffer (KC rows of k x NR columns: 256 x 16, or
 * 128 x 32 under AVX-512). Converters add its bytes to the scratch of every
 * call that reaches kiln_sgemm. */
#define KILN_SGEMM_PACK_FLOATS 4096

#ifdef __cplusplus
}
#endif

#endif
