/* gemm.c - matrix products: the shared f32 GEMM, MatMul and Gemm.
 *
 * kiln_sgemm keeps a 4x16 tile of C in registers while it runs over a block
 * of k: each step broadcasts four elements of A and multiplies them into one
 * contiguous 16-float row of B, which clang unrolls and vectorizes for every
 * ISA (AVX2: 8 accumulators + 2 loads; NEON/SVE/RVV likewise). Blocking k by
 * KC and m by MC keeps the B panel (KC x 16) in L1 and the A block in L2.
 * Tails (m % 4, n % 16) use the same code with run-time tile sizes. Other
 * element types take a plain i-k-j loop (contiguous inner loop over j). */
#include "kiln_gemm.h"
#include "kiln_tensor.h"


#define MR 4
#define NR 16
#define KC 256
#define MC 64
_Static_assert(KC * NR == KILN_SGEMM_PACK_FLOATS, "pack buffer size");

/* C tile (mr x nr, mr <= MR, nr <= NR) over kc steps of k. Inlined with
 * constant mr/nr on the hot path, so the tile lives in registers. */
static inline __attribute__((always_inline)) void
sgemm_tile(int mr, int nr, int64_t kc, float alpha, const float *A,
           int64_t sam, int64_t sak, const float *B, int64_t ldb, float *C,
           int64_t ldc, int accumulate) {
  float acc[MR][NR];
  for (int r = 0; r < mr; ++r)
    for (int j = 0; j < nr; ++j)
      acc[r][j] = 0.0f;
  for (int64_t k = 0; k < kc; ++k) {
    const float *b = B + k * ldb;
    for (int r = 0; r < mr; ++r) {
      float a = A[r * sam + k * sak];
      for (int j = 0; j < nr; ++j)
        acc[r][j] += a * b[j];
    }
  }
  for (int r = 0; r < mr; ++r) {
    float *c = C + r * ldc;
    if (accumulate)
      for (int j = 0; j < nr; ++j)
        c[j] += alpha * acc[r][j];
    else
      for (int j = 0; j < nr; ++j)
        c[j] = alpha * acc[r][j];
  }
}

/* Full-width column tiles (nr = NR) for each row-tile height. */
static void sgemm_rows(int64_t mb, int64_t kc, float alpha, const float *A,
                       int64_t sam, int64_t sak, const float *B, int64_t ldb,
                       float *C, int64_t ldc, int accumulate) {
  int64_t i = 0;
  for (; i + MR <= mb; i += MR)
    sgemm_tile(MR, NR, kc, alpha, A + i * sam, sam, sak, B, ldb, C + i * ldc,
               ldc, accumulate);
  switch (mb - i) {
  case 3: sgemm_tile(3, NR, kc, alpha, A + i * sam, sam, sak, B, ldb, C + i * ldc, ldc, accumulate); break;
  case 2: sgemm_tile(2, NR, kc, alpha, A + i * sam, sam, sak, B, ldb, C + i * ldc, ldc, accumulate); break;
  case 1: sgemm_tile(1, NR, kc, alpha, A + i * sam, sam, sak, B, ldb, C + i * ldc, ldc, accumulate); break;
  default: break;
  }
}

/* The column tail (nr < NR): run-time sizes, not on the hot path. */
static void sgemm_rows_tail(int64_t mb, int nr, int64_t kc, float alpha,
                            const float *A, int64_t sam, int64_t sak,
                            const float *B, int64_t ldb, float *C, int64_t ldc,
                            int accumulate) {
  for (int64_t i = 0; i < mb; i += MR) {
    int mr = mb - i < MR ? (int)(mb - i) : MR;
    sgemm_tile(mr, nr, kc, alpha, A + i * sam, sam, sak, B, ldb, C + i * ldc,
               ldc, accumulate);
  }
}

void kiln_sgemm(int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                int64_t sam, int64_t sak, const float *B, int64_t ldb,
                float *C, int64_t ldc, int accumulate, float *pack) {
  if (k == 0) { /* an empty sum: C = 0 (or unchanged) */
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i)
        memset(C + i * ldc, 0, (size_t)n * sizeof(float));
    return;
  }
  for (int64_t k0 = 0; k0 < k; k0 += KC) {
    int64_t kc = k - k0 < KC ? k - k0 : KC;
    int acc = accumulate || k0 > 0;
    const float *Ak = A + k0 * sak, *Bk = B + k0 * ldb;
    for (int64_t i0 = 0; i0 < m; i0 += MC) {
      int64_t mb = m - i0 < MC ? m - i0 : MC;
      int64_t j = 0;
      for (; j + NR <= n; j += NR) {
        const float *panel = Bk + j;
        int64_t ldp = ldb;
        if (pack && mb > MR && ldb != NR) {
          /* Copy the kc x NR panel contiguous: rows of B a power-of-two
           * apart would otherwise share L1 sets and evict each other. */
          for (int64_t kk = 0; kk < kc; ++kk)
            memcpy(pack + kk * NR, Bk + kk * ldb + j, NR * sizeof(float));
          panel = pack;
          ldp = NR;
        }
        sgemm_rows(mb, kc, alpha, Ak + i0 * sam, sam, sak, panel, ldp,
                   C + i0 * ldc + j, ldc, acc);
      }
      if (j < n)
        sgemm_rows_tail(mb, (int)(n - j), kc, alpha, Ak + i0 * sam, sam, sak,
                        Bk + j, ldb, C + i0 * ldc + j, ldc, acc);
    }
  }
}

/* The other element types: C = alpha * A B (+ C), B read through strides. */
#define KILN_GEMM_GENERIC(code, T)                                            \
  static void gemm_##T(int64_t m, int64_t n, int64_t k, T alpha, const T *A,  \
                       int64_t sam, int64_t sak, const T *B, int64_t sbk,     \
                       int64_t sbn, T *C, int64_t ldc, int accumulate) {      \
    for (int64_t i = 0; i < m; ++i) {                                         \
      T *c = C + i * ldc;                                                     \
      if (!accumulate)                                                        \
        for (int64_t j = 0; j < n; ++j)                                       \
          c[j] = 0;                                                           \
      for (int64_t kk = 0; kk < k; ++kk) {                                    \
        T a = (T)(alpha * A[i * sam + kk * sak]);                             \
        const T *b = B + kk * sbk;                                            \
        if (sbn == 1)                                                         \
          for (int64_t j = 0; j < n; ++j)                                     \
            c[j] += a * b[j];                                                 \
        else                                                                  \
          for (int64_t j = 0; j < n; ++j)                                     \
            c[j] += a * b[j * sbn];                                           \
      }                                                                       \
    }                                                                         \
  }
KILN_GEMM_GENERIC(KILN_F64, double)
KILN_GEMM_GENERIC(KILN_I32, int32_t)
KILN_GEMM_GENERIC(KILN_I64, int64_t)
KILN_GEMM_GENERIC(KILN_U32, uint32_t)
KILN_GEMM_GENERIC(KILN_U64, uint64_t)
#undef KILN_GEMM_GENERIC

#define KILN_FOR_GEMM_GENERIC_TYPES(X)                                        \
  X(KILN_F64, double) X(KILN_I32, int32_t) X(KILN_I64, int64_t)               \
  X(KILN_U32, uint32_t) X(KILN_U64, uint64_t)

/* MatMul with numpy semantics (ops/NN.cpp has already turned 1-D operands
 * into matrices and broadcast the batch dimensions).
 *   p = {dtype, M, N, K, R, batch[R], aStride[R], bStride[R]}
 * A is [..., M, K], B is [..., K, N], both dense per matrix; aStride and
 * bStride give each operand's offset per batch index in elements (0 on a
 * broadcast dimension). Y is [batch..., M, N], dense. Scratch (f32):
 * KILN_SGEMM_PACK_FLOATS floats. */
void kiln_t_matmul(const int64_t *p, const float *f, const void *const *in,
                   void *const *out, void *scratch) {
  (void)f;
  int64_t dtype = p[0], M = p[1], N = p[2], K = p[3];
  int R = (int)p[4];
  const int64_t *batch = p + 5, *as = batch + R, *bs = as + R;
  int64_t idx[KILN_MAX_RANK] = {0};
  size_t esz = kiln_dtype_size(dtype);
  const char *A = (const char *)in[0], *B = (const char *)in[1];
  char *Y = (char *)out[0];
  for (int64_t y = 0;; ++y) {
    const char *a = A + kiln_nd_offset(idx, as, R) * esz;
    const char *b = B + kiln_nd_offset(idx, bs, R) * esz;
    char *c = Y + y * M * N * esz;
    switch (dtype) {
    case KILN_F32:
      kiln_sgemm(M, N, K, 1.0f, (const float *)a, K, 1, (const float *)b, N,
                 (float *)c, N, 0, (float *)scratch);
      break;
#define X(code, T)                                                            \
  case code:                                                                  \
    gemm_##T(M, N, K, (T)1, (const T *)a, K, 1, (const T *)b, N, 1, (T *)c,   \
             N, 0);                                                           \
    break;
      KILN_FOR_GEMM_GENERIC_TYPES(X)
#undef X
    default: break;
    }
    if (R == 0 || kiln_nd_next(idx, batch, R) < 0)
      break;
  }
}

/* Gemm: Y = alpha * A' B' + beta * C, A' = transA ? A^T : A (same for B).
 *   p = {dtype, M, N, K, transA, transB, hasC, cStrideM, cStrideN}
 *   f = {alpha, beta}
 * A is [M, K] or [K, M] (transA), B is [K, N] or [N, K]; C (optional) is
 * read at i * cStrideM + j * cStrideN (its unidirectional broadcast to
 * [M, N]). Scratch (f32): KILN_SGEMM_PACK_FLOATS floats for the GEMM, then
 * with transB K * N floats where B^T is packed so that the GEMM's inner loop
 * stays contiguous. */
void kiln_t_gemm(const int64_t *p, const float *f, const void *const *in,
                 void *const *out, void *scratch) {
  int64_t dtype = p[0], M = p[1], N = p[2], K = p[3];
  int transA = (int)p[4], transB = (int)p[5], hasC = (int)p[6];
  int64_t csm = p[7], csn = p[8];
  float alpha = f[0], beta = f[1];
  int64_t sam = transA ? 1 : K, sak = transA ? M : 1;
  int64_t sbk = transB ? 1 : N, sbn = transB ? K : 1;
  int acc = hasC && in[2] && beta != 0.0f;
  switch (dtype) {
  case KILN_F32: {
    float *Y = (float *)out[0];
    const float *C = (const float *)in[2];
    if (acc)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j)
          Y[i * N + j] = beta * C[i * csm + j * csn];
    const float *B = (const float *)in[1];
    float *pack = (float *)scratch;
    if (transB) {
      float *bt = pack + KILN_SGEMM_PACK_FLOATS;
      for (int64_t j = 0; j < N; ++j)
        for (int64_t kk = 0; kk < K; ++kk)
          bt[kk * N + j] = B[j * K + kk];
      B = bt;
    }
    kiln_sgemm(M, N, K, alpha, (const float *)in[0], sam, sak, B, N, Y, N, acc,
               pack);
    break;
  }
#define X(code, T)                                                            \
  case code: {                                                                \
    T *Y = (T *)out[0];                                                       \
    const T *C = (const T *)in[2];                                            \
    if (acc)                                                                  \
      for (int64_t i = 0; i < M; ++i)                                         \
        for (int64_t j = 0; j < N; ++j)                                       \
          Y[i * N + j] = (T)(beta * C[i * csm + j * csn]);                    \
    gemm_##T(M, N, K, (T)alpha, (const T *)in[0], sam, sak,                   \
             (const T *)in[1], sbk, sbn, Y, N, acc);                          \
    break;                                                                    \
  }
    KILN_FOR_GEMM_GENERIC_TYPES(X)
#undef X
  default: break;
  }
}
