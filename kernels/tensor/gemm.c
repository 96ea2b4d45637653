/* gemm.c - matrix products: the shared f32 GEMM, MatMul and Gemm.
 *
 * kiln_sgemm keeps an MR x NR tile of C in registers while it runs over a
 * block of k: each step broadcasts MR elements of A and multiplies them into
 * one contiguous NR-float row of B. The tile fills the register file: a
 * multiply-add has a latency of about 4 cycles and two issue per cycle, so at
 * least 8 independent accumulators are needed to keep the FMA units busy.
 *   AVX-512: 8 x 32 (16 zmm accumulators, 2 loads of B, 1 broadcast);
 *   AVX2:    6 x 16 (12 ymm accumulators);
 *   Hexagon: 4 x 4 scalar (v67 HVX has no float vectors): 16 accumulators
 *            of the 32 general registers; 4 x 16 spilled to the stack;
 *   others:  4 x 16, written as plain loops that clang unrolls and
 *            vectorizes (NEON/SVE/RVV: 16 accumulators of 4 lanes).
 * The plain tile walks A and B by pointer increments: index products are
 * 64-bit multiplies on 32-bit Hexagon (docs/kernels.md, "Graph kernels").
 * Blocking k by KC and m by MC keeps the B panel (KC x NR, the pack buffer)
 * in L1 and the A block in L2, and blocking n the C block a row block
 * accumulates into in L2. Row tails (m % MR) take tiles of constant smaller
 * heights; a column tail narrower than a vector runs the full tile on
 * zero-padded copies (sgemm_rows_tail). Other element types take a plain
 * i-k-j loop (contiguous inner loop over j). */
#include "kiln_gemm.h"
#include "kiln_tensor.h"

#if defined(__AVX512F__)
#define MR 8
#define NR 32
#define KILN_SGEMM_VL 16
#elif defined(__AVX2__) && defined(__FMA__)
#define MR 6
#define NR 16
#define KILN_SGEMM_VL 8
#elif defined(__hexagon__)
#define MR 4
#define NR 4
#else
#define MR 4
#define NR 16
#endif
#define KC (KILN_SGEMM_PACK_FLOATS / NR)
#define MC 256
#define C_BLOCK_FLOATS (32 * 1024) /* 128 KiB */
_Static_assert(KC * NR == KILN_SGEMM_PACK_FLOATS, "pack buffer size");

/* C tile (mr x nr, mr <= MR, nr <= NR) over kc steps of k. Inlined with
 * constant mr/nr on the hot path, so the tile lives in registers. */
static inline __attribute__((always_inline)) void
sgemm_tile(int mr, int nr, int64_t kc, float alpha, const float *A,
           int64_t sam, int64_t sak, const float *B, int64_t ldb, float *C,
           int64_t ldc, int accumulate, const float *bias) {
  float acc[MR][NR];
  for (int r = 0; r < mr; ++r)
    for (int j = 0; j < nr; ++j)
      acc[r][j] = 0.0f;
  const float *a = A, *b = B;
  for (int64_t k = 0; k < kc; ++k, a += sak, b += ldb)
    for (int r = 0; r < mr; ++r) {
      const float ar = a[r * sam];
      for (int j = 0; j < nr; ++j)
        acc[r][j] += ar * b[j];
    }
  for (int r = 0; r < mr; ++r) {
    float *c = C + r * ldc;
    if (accumulate)
      for (int j = 0; j < nr; ++j)
        c[j] += alpha * acc[r][j];
    else if (bias)
      for (int j = 0; j < nr; ++j)
        c[j] = bias[r] + alpha * acc[r][j];
    else
      for (int j = 0; j < nr; ++j)
        c[j] = alpha * acc[r][j];
  }
}

#ifdef KILN_SGEMM_VL
/* An mr x (nv * VL) tile in vector registers (GNU vector types, so one source
 * serves AVX2 and AVX-512), inlined with constant mr and nv. Loads and
 * stores are unaligned (memcpy); each element's sum is the plain loop's, in
 * the same order. The vector parameter is not for the arithmetic: a function
 * with a 512-bit vector in its signature is compiled with 512-bit registers
 * (clang's min-legal-vector-width), where -march=x86-64-v4 otherwise prefers
 * 256-bit ones and would split the tile into twice the registers. */
typedef float kiln_sgemm_v
    __attribute__((vector_size(4 * KILN_SGEMM_VL), aligned(4)));
#define NV (NR / KILN_SGEMM_VL)
static inline __attribute__((always_inline)) void
sgemm_tile_v(kiln_sgemm_v zero, int mr, int nv, int64_t kc, float alpha,
             const float *A, int64_t sam, int64_t sak, const float *B,
             int64_t ldb, float *C, int64_t ldc, int accumulate,
             const float *bias) {
  kiln_sgemm_v acc[MR][NV];
  for (int r = 0; r < mr; ++r)
    for (int v = 0; v < nv; ++v)
      acc[r][v] = zero;
  for (int64_t k = 0; k < kc; ++k) {
    kiln_sgemm_v b[NV];
    for (int v = 0; v < nv; ++v)
      __builtin_memcpy(&b[v], B + k * ldb + v * KILN_SGEMM_VL, sizeof b[v]);
    for (int r = 0; r < mr; ++r) {
      const float a = A[r * sam + k * sak];
      for (int v = 0; v < nv; ++v)
        acc[r][v] += a * b[v];
    }
  }
  for (int r = 0; r < mr; ++r)
    for (int v = 0; v < nv; ++v) {
      float *c = C + r * ldc + v * KILN_SGEMM_VL;
      kiln_sgemm_v out = alpha * acc[r][v];
      if (accumulate) {
        kiln_sgemm_v old;
        __builtin_memcpy(&old, c, sizeof old);
        out = old + out;
      } else if (bias) {
        out = bias[r] + out; /* the bias splatted, as a preset C would be */
      }
      __builtin_memcpy(c, &out, sizeof out);
    }
}
#define KILN_SGEMM_TILE(mr, nv)                                               \
  sgemm_tile_v((kiln_sgemm_v){0}, mr, nv, kc, alpha, A + i * sam, sam, sak,  \
               B, ldb, C + i * ldc, ldc, accumulate, bias ? bias + i : NULL)
#else
#define KILN_SGEMM_TILE(mr, nv)                                               \
  sgemm_tile(mr, NR, kc, alpha, A + i * sam, sam, sak, B, ldb, C + i * ldc,   \
             ldc, accumulate, bias ? bias + i : NULL)
#endif

/* Column tiles of nv vectors (NR columns, or one vector's width on the
 * vector path) for each row-tile height, every size a constant. */
static inline __attribute__((always_inline)) void
sgemm_rows_nv(int nv, int64_t mb, int64_t kc, float alpha, const float *A,
              int64_t sam, int64_t sak, const float *B, int64_t ldb, float *C,
              int64_t ldc, int accumulate, const float *bias) {
  (void)nv;
  int64_t i = 0;
  for (; i + MR <= mb; i += MR)
    KILN_SGEMM_TILE(MR, nv);
  switch (mb - i) {
#if MR > 7
  case 7: KILN_SGEMM_TILE(7, nv); break;
  case 6: KILN_SGEMM_TILE(6, nv); break;
#endif
#if MR > 5
  case 5: KILN_SGEMM_TILE(5, nv); break;
  case 4: KILN_SGEMM_TILE(4, nv); break;
#endif
  case 3: KILN_SGEMM_TILE(3, nv); break;
  case 2: KILN_SGEMM_TILE(2, nv); break;
  case 1: KILN_SGEMM_TILE(1, nv); break;
  default: break;
  }
}
static void sgemm_rows(int64_t mb, int64_t kc, float alpha, const float *A,
                       int64_t sam, int64_t sak, const float *B, int64_t ldb,
                       float *C, int64_t ldc, int accumulate,
                       const float *bias) {
#ifdef KILN_SGEMM_VL
  sgemm_rows_nv(NV, mb, kc, alpha, A, sam, sak, B, ldb, C, ldc, accumulate,
                bias);
#else
  sgemm_rows_nv(1, mb, kc, alpha, A, sam, sak, B, ldb, C, ldc, accumulate,
                bias);
#endif
}
#ifdef KILN_SGEMM_VL
/* One vector's width of columns, for a column tail of at least that. */
static void sgemm_rows_one(int64_t mb, int64_t kc, float alpha, const float *A,
                           int64_t sam, int64_t sak, const float *B,
                           int64_t ldb, float *C, int64_t ldc, int accumulate,
                           const float *bias) {
  sgemm_rows_nv(1, mb, kc, alpha, A, sam, sak, B, ldb, C, ldc, accumulate,
                bias);
}
#endif

/* The column tail (nr < TW columns, TW = VL on the vector path, else NR)
 * runs the full-width tile on copies: B's nr columns zero-padded to TW in
 * `pack`, and C a row tile at a time in a TW-wide block on the stack. Each
 * real column's sum is the full tile's, in the same order; the padding
 * columns are dropped. (A tile with run-time widths would not vectorize, and
 * a 10x10 feature map's 100 columns would spend most of their time in it.) */
#ifdef KILN_SGEMM_VL
#define TW KILN_SGEMM_VL
#else
#define TW NR
#endif
/* The widest column tail sgemm_rows_tail takes (TW, which ends here). */
#ifdef KILN_SGEMM_VL
#define TAIL_W KILN_SGEMM_VL
#else
#define TAIL_W NR
#endif
static void sgemm_rows_tail(int64_t mb, int nr, int64_t kc, float alpha,
                            const float *A, int64_t sam, int64_t sak,
                            const float *B, int64_t ldb, const int64_t *boff,
                            float *C, int64_t ldc, int accumulate,
                            const float *bias, float *pack) {
  for (int64_t kk = 0; kk < kc; ++kk) {
    memcpy(pack + kk * TW, B + (boff ? boff[kk] : kk * ldb),
           (size_t)nr * sizeof(float));
    memset(pack + kk * TW + nr, 0, (size_t)(TW - nr) * sizeof(float));
  }
  float ct[MR * TW];
  for (int64_t i = 0; i < mb; i += MR) {
    const int64_t mr = mb - i < MR ? mb - i : MR;
    for (int64_t r = 0; r < mr; ++r) {
      if (accumulate)
        memcpy(ct + r * TW, C + (i + r) * ldc, (size_t)nr * sizeof(float));
      else if (bias)
        for (int j = 0; j < nr; ++j)
          ct[r * TW + j] = bias[i + r];
      else
        memset(ct + r * TW, 0, (size_t)nr * sizeof(float));
      memset(ct + r * TW + nr, 0, (size_t)(TW - nr) * sizeof(float));
    }
#ifdef KILN_SGEMM_VL
    sgemm_rows_one(mr, kc, alpha, A + i * sam, sam, sak, pack, TW, ct, TW,
                   accumulate || bias, NULL);
#else
    sgemm_rows(mr, kc, alpha, A + i * sam, sam, sak, pack, TW, ct, TW,
               accumulate || bias, NULL);
#endif
    for (int64_t r = 0; r < mr; ++r)
      memcpy(C + (i + r) * ldc, ct + r * TW, (size_t)nr * sizeof(float));
  }
}
#undef TW

/* B's row k at B + k * ldb, or with `boff` at B + boff[k] (then `pack` is
 * required: every panel is gathered into it). */
static void sgemm(int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                  int64_t sam, int64_t sak, const float *B, int64_t ldb,
                  const int64_t *boff, float *C, int64_t ldc, int accumulate,
                  const float *bias, float *pack) {
  if (k == 0) { /* an empty sum: C = bias, 0 (or unchanged) */
    for (int64_t i = 0; !accumulate && i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        C[i * ldc + j] = bias ? bias[i] : 0.0f;
    return;
  }
  /* Row blocks, then column blocks, then k blocks: the block of C that a
   * row block accumulates over every k block (C_BLOCK_FLOATS at most) stays
   * in L2. With k outside, a C of a few hundred rows and columns went back
   * to L3 between k blocks, and each tile started by waiting for rows that
   * are too many streams for the prefetcher; a block of few rows is as wide
   * as that allows, so its rows stream. Each element still sums its k blocks
   * in order. */
  for (int64_t i0 = 0; i0 < m; i0 += MC) {
    const int64_t mb = m - i0 < MC ? m - i0 : MC;
    int64_t nc = C_BLOCK_FLOATS / mb / NR * NR;
    nc = nc < NR ? NR : nc;
    for (int64_t j0 = 0; j0 < n; j0 += nc) {
      const int64_t j1 = n - j0 < nc ? n : j0 + nc;
      for (int64_t k0 = 0; k0 < k; k0 += KC) {
        const int64_t kc = k - k0 < KC ? k - k0 : KC;
        const int acc = accumulate || k0 > 0;
        /* The first k block adds the bias as the GEMM would add the product
         * to a C preset to it: bias[i] + alpha * sum. */
        const float *bi = acc || !bias ? NULL : bias + i0;
        const float *Ak = A + k0 * sak + i0 * sam;
        const float *Bk = boff ? B : B + k0 * ldb;
        const int64_t *bk = boff ? boff + k0 : NULL;
        float *Ci = C + i0 * ldc;
        int64_t j = j0;
        for (; j + NR <= j1; j += NR) {
          const float *panel = Bk + j;
          int64_t ldp = ldb;
          if (bk || (pack && mb > MR && ldb != NR)) {
            /* Copy the kc x NR panel contiguous: rows of B a power-of-two
             * apart would otherwise share L1 sets and evict each other. */
            for (int64_t kk = 0; kk < kc; ++kk)
              memcpy(pack + kk * NR, Bk + (bk ? bk[kk] : kk * ldb) + j,
                     NR * sizeof(float));
            panel = pack;
            ldp = NR;
          }
          sgemm_rows(mb, kc, alpha, Ak, sam, sak, panel, ldp, Ci + j, ldc,
                     acc, bi);
        }
#ifdef KILN_SGEMM_VL
        for (; !bk && j + KILN_SGEMM_VL <= j1; j += KILN_SGEMM_VL)
          sgemm_rows_one(mb, kc, alpha, Ak, sam, sak, Bk + j, ldb, Ci + j, ldc,
                         acc, bi);
#endif
        if (pack)
          for (int nr; j < j1; j += nr) { /* more than once only gathered */
            nr = j1 - j < TAIL_W ? (int)(j1 - j) : TAIL_W;
            sgemm_rows_tail(mb, nr, kc, alpha, Ak, sam, sak, Bk + j, ldb, bk,
                            Ci + j, ldc, acc, bi, pack);
          }
        else
          for (int64_t i = 0; j < j1 && i < mb; i += MR) /* no pack buffer */
            sgemm_tile(mb - i < MR ? (int)(mb - i) : MR, (int)(j1 - j), kc,
                       alpha, Ak + i * sam, sam, sak, Bk + j, ldb,
                       Ci + i * ldc + j, ldc, acc, bi ? bi + i : NULL);
      }
    }
  }
}

void kiln_sgemm(int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                int64_t sam, int64_t sak, const float *B, int64_t ldb,
                float *C, int64_t ldc, int accumulate, const float *bias,
                float *pack) {
  sgemm(m, n, k, alpha, A, sam, sak, B, ldb, NULL, C, ldc, accumulate, bias,
        pack);
}

void kiln_sgemm_gather(int64_t m, int64_t n, int64_t k, float alpha,
                       const float *A, int64_t sam, int64_t sak,
                       const float *B, const int64_t *boff, float *C,
                       int64_t ldc, int accumulate, const float *bias,
                       float *pack) {
  sgemm(m, n, k, alpha, A, sam, sak, B, 0, boff, C, ldc, accumulate, bias,
        pack);
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

/* Share `part` of `parts` of a product's rows x N output: rows [*r0, *r1)
 * of all its columns, or, when there are too few rows for every share to
 * have several register tiles, all rows of columns [*c0, *c1). False when
 * the share is empty. */
static int kiln_product_share(int64_t rows, int64_t N, int part, int parts,
                              int64_t *r0, int64_t *r1, int64_t *c0,
                              int64_t *c1) {
  *r0 = 0, *r1 = rows, *c0 = 0, *c1 = N;
  if (rows >= 4 * MR * (int64_t)parts)
    kiln_part_range(rows, part, parts, 1, r0, r1);
  else
    kiln_part_range(N, part, parts, 16, c0, c1);
  return *r0 < *r1 && *c0 < *c1;
}

/* MatMul with numpy semantics (ops/NN.cpp has already turned 1-D operands
 * into matrices and broadcast the batch dimensions).
 *   p = {dtype, M, N, K, R, batch[R], aStride[R], bStride[R], epilogue...}
 *   in = {A, B, the epilogue's operands...}
 *   f = the epilogue's float parameters
 * A is [..., M, K], B is [..., K, N], both dense per matrix; aStride and
 * bStride give each operand's offset per batch index in elements (0 on a
 * broadcast dimension). Y is [batch..., M, N], dense. The epilogue
 * (kiln_tensor.h; E = 0: none, always for other types than f32) runs on each
 * share's rows as soon as its product is written. Scratch (f32):
 * KILN_SGEMM_PACK_FLOATS floats.
 * Shares (kiln_tp_matmul): rows of Y counted across the batch, or, when
 * there are too few rows for every share to have several register tiles,
 * columns. */
void kiln_tp_matmul(const int64_t *p, const float *f, const void *const *in,
                    void *const *out, void *scratch, int part, int parts) {
  int64_t dtype = p[0], M = p[1], N = p[2], K = p[3];
  int R = (int)p[4];
  const int64_t *batch = p + 5, *as = batch + R, *bs = as + R, *ep = bs + R;
  int64_t idx[KILN_MAX_RANK] = {0}, count = 1;
  for (int d = 0; d < R; ++d)
    count *= batch[d];
  int64_t r0, r1, c0, c1;
  if (!kiln_product_share(count * M, N, part, parts, &r0, &r1, &c0, &c1))
    return;
  size_t esz = kiln_dtype_size(dtype);
  const char *A = (const char *)in[0], *B = (const char *)in[1];
  char *Y = (char *)out[0];
  for (int64_t y = 0;; ++y) {
    /* This share's rows [i0, i1) of matrix y. */
    const int64_t i0 = r0 > y * M ? r0 - y * M : 0;
    const int64_t i1 = r1 < (y + 1) * M ? r1 - y * M : M;
    if (i0 < i1) {
      const char *a =
          A + (kiln_nd_offset(idx, as, R) + i0 * K) * (int64_t)esz;
      const char *b = B + (kiln_nd_offset(idx, bs, R) + c0) * (int64_t)esz;
      char *c = Y + ((y * M + i0) * N + c0) * (int64_t)esz;
      switch (dtype) {
      case KILN_F32:
        kiln_sgemm(i1 - i0, c1 - c0, K, 1.0f, (const float *)a, K, 1,
                   (const float *)b, N, (float *)c, N, 0, NULL,
                   (float *)scratch);
        if (ep[0])
          kiln_epilogue_rows_f32(ep, f, in, (float *)c, i1 - i0, c1 - c0, N,
                                 c0, (y * M + i0) * N + c0, N);
        break;
#define X(code, T)                                                            \
  case code:                                                                  \
    gemm_##T(i1 - i0, c1 - c0, K, (T)1, (const T *)a, K, 1, (const T *)b, N,  \
             1, (T *)c, N, 0);                                                \
    break;
        KILN_FOR_GEMM_GENERIC_TYPES(X)
#undef X
      default: break;
      }
    }
    if (R == 0 || (y + 1) * M >= r1 || kiln_nd_next(idx, batch, R) < 0)
      break;
  }
}

void kiln_t_matmul(const int64_t *p, const float *f, const void *const *in,
                   void *const *out, void *scratch) {
  kiln_tp_matmul(p, f, in, out, scratch, 0, 1);
}

void kiln_matmul_epilogue_f32(const int64_t *p, const float *f,
                              const void *const *in, void *const *out) {
  const int64_t N = p[2], R = p[4], *ep = p + 5 + 3 * R;
  int64_t rows = p[1];
  for (int64_t d = 0; d < R; ++d)
    rows *= p[5 + d];
  if (ep[0])
    kiln_epilogue_rows_f32(ep, f, in, (float *)out[0], rows, N, N, 0, 0, N);
}

/* Gemm: Y = alpha * A' B' + beta * C, A' = transA ? A^T : A (same for B).
 *   p = {dtype, M, N, K, transA, transB, hasC, cStrideM, cStrideN,
 *        epilogue...}
 *   in = {A, B, C or NULL, the epilogue's operands...}
 *   f = {alpha, beta, the epilogue's float parameters...}
 * A is [M, K] or [K, M] (transA), B is [K, N] or [N, K]; C (optional) is
 * read at i * cStrideM + j * cStrideN (its unidirectional broadcast to
 * [M, N]). The epilogue (kiln_tensor.h; E = 0: none, always for other types
 * than f32) runs on each share's block of Y once its product is written.
 * Scratch (f32): KILN_SGEMM_PACK_FLOATS floats for the GEMM, then with
 * transB K * N floats where the share's columns of B^T are packed so that
 * the GEMM's inner loop stays contiguous.
 * Shares (kiln_tp_gemm): rows of Y, or, when there are too few rows for
 * every share to have several register tiles, columns (as kiln_tp_matmul). */
void kiln_tp_gemm(const int64_t *p, const float *f, const void *const *in,
                  void *const *out, void *scratch, int part, int parts) {
  int64_t dtype = p[0], M = p[1], N = p[2], K = p[3];
  int transA = (int)p[4], transB = (int)p[5], hasC = (int)p[6];
  int64_t csm = p[7], csn = p[8];
  const int64_t *ep = p + 9;
  float alpha = f[0], beta = f[1];
  int64_t sam = transA ? 1 : K, sak = transA ? M : 1;
  int64_t sbk = transB ? 1 : N, sbn = transB ? K : 1;
  int acc = hasC && in[2] && beta != 0.0f;
  int64_t r0, r1, c0, c1;
  if (!kiln_product_share(M, N, part, parts, &r0, &r1, &c0, &c1))
    return;
  const int64_t m = r1 - r0, n = c1 - c0;
  switch (dtype) {
  case KILN_F32: {
    float *Y = (float *)out[0] + r0 * N + c0;
    const float *C = (const float *)in[2];
    if (acc)
      for (int64_t i = r0; i < r1; ++i)
        for (int64_t j = c0; j < c1; ++j)
          Y[(i - r0) * N + (j - c0)] = beta * C[i * csm + j * csn];
    const float *B = (const float *)in[1] + c0 * sbn;
    int64_t ldb = N;
    float *pack = (float *)scratch;
    if (transB) {
      float *bt = pack + KILN_SGEMM_PACK_FLOATS;
      for (int64_t j = 0; j < n; ++j)
        for (int64_t kk = 0; kk < K; ++kk)
          bt[kk * n + j] = B[j * K + kk];
      B = bt;
      ldb = n;
    }
    kiln_sgemm(m, n, K, alpha, (const float *)in[0] + r0 * sam, sam, sak, B,
               ldb, Y, N, acc, NULL, pack);
    if (ep[0])
      kiln_epilogue_rows_f32(ep, f, in, Y, m, n, N, c0, r0 * N + c0, N);
    break;
  }
#define X(code, T)                                                            \
  case code: {                                                                \
    T *Y = (T *)out[0] + r0 * N + c0;                                         \
    const T *C = (const T *)in[2];                                            \
    if (acc)                                                                  \
      for (int64_t i = r0; i < r1; ++i) {                                     \
        KILN_T_SCALAR_CONVERSIONS                                             \
        for (int64_t j = c0; j < c1; ++j)                                     \
          Y[(i - r0) * N + (j - c0)] = (T)(beta * C[i * csm + j * csn]);      \
      }                                                                       \
    gemm_##T(m, n, K, (T)alpha, (const T *)in[0] + r0 * sam, sam, sak,        \
             (const T *)in[1] + c0 * sbn, sbk, sbn, Y, N, acc);               \
    break;                                                                    \
  }
    KILN_FOR_GEMM_GENERIC_TYPES(X)
#undef X
  default: break;
  }
}

void kiln_t_gemm(const int64_t *p, const float *f, const void *const *in,
                 void *const *out, void *scratch) {
  kiln_tp_gemm(p, f, in, out, scratch, 0, 1);
}

