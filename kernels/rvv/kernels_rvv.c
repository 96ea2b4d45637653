/* kernels_rvv.c - RVV 1.0 matmul microkernels, vector-length agnostic.
 *
 * Weights are repacked at compile time (RvvTarget.cpp) into tiles of
 * KILN_RVV_TILE output rows with the rows as vector lanes: for each tile and
 * each 32-element block, byte position i of the block holds that position for
 * all 128 rows contiguously, followed by the rows' float scales. The last
 * tile is not padded: it holds its tw = N % 128 rows with lane stride tw. A strip of vl
 * rows (vl = vsetvl(e8m2), 16..64 at VLEN 128..512) loads one vector per
 * position and multiplies it by the activation byte as a scalar
 * (vwmacc*.vx), so there is no horizontal reduction anywhere.
 *
 *  q4_0: 16 bytes x tw rows (low nibble = element i, high = element i+16,
 *        unsigned 0..15), then tw f32 d.        (20 bytes per row-block)
 *  q4_k: same nibbles, then tw f32 d*sc and tw f32 dmin*m.       (24)
 *  q8_0: 32 int8 x tw rows, then tw f32 d.                        (36)
 *  q6_k: 32 int8 (q-32) x tw rows, then tw f32 d*sc for elements 0..15 and
 *        tw f32 d*sc for 16..31.                                  (40)
 *  q5_0, iq4_nl, iq4_xs: 32 int8 (q5_0: q-16; IQ4: the level) x tw rows,
 *        then tw f32 scales (d; iq4_xs d*(sc-32)).                (36)
 *  q5_1, q5_k: 32 int8 (0..31) x tw rows, then tw f32 scales (d, d*sc) and
 *        tw f32 min terms (-m, dmin*m; subtracted times the activation
 *        block's sum).                                            (40)
 *  q3_k: as q6_k, of the 3-bit values -4..3.                      (40)
 *  q2_k: 32 int8 (0..3) x tw rows, then tw f32 d*sc and tw f32 dmin*m for
 *        each half (elements 0..15, 16..31): s0, s1, m0, m1.      (48)
 * The 8-bit layouts of the five-bit, IQ4, q3_k and q2_k types take more
 * bytes than their files (22-24, 17-18, 13.75 and 10.5 per block).
 *
 * Unsigned nibbles times signed activations: sum (q-8)*a = sum q*a - 8*sum a,
 * the correction per activation block computed once per activation row.
 * Activations are the exact Q8_0 blocks of kiln_q8_rows.
 */
#include "kiln_kernels.h"

#include <riscv_vector.h>

#define KILN_RVV_TILE 128
#define KILN_RVV_CHUNK 64 /* activation blocks whose d/sums sit on the stack */

/* Scale and mul * sum of activation blocks a[0..n); alo (if not null) the
 * sums of their first halves. */
static void kiln_rvv_act(const kiln_q8_block *a, int n, float *ad, int32_t *asum,
                         int32_t *alo, int mul) {
  for (int b = 0; b < n; ++b) {
    ad[b] = kiln_g_f16(a[b].d);
    int32_t lo = 0, hi = 0;
    for (int l = 0; l < 16; ++l) {
      lo += a[b].qs[l];
      hi += a[b].qs[l + 16];
    }
    asum[b] = mul * (lo + hi);
    if (alo)
      alo[b] = lo;
  }
}

/* Starting accumulator of a strip: bias (first chunk) or the partial sums. */
static inline vfloat32m8_t kiln_rvv_acc0(int first, const float *bias,
                                         const float *y, size_t vl) {
  if (!first)
    return __riscv_vle32_v_f32m8(y, vl);
  if (bias)
    return __riscv_vle32_v_f32m8(bias, vl);
  return __riscv_vfmv_v_f_f32m8(0.0f, vl);
}

static inline vfloat32m4_t kiln_rvv_acc0_m4(int first, const float *bias,
                                            const float *y, size_t vl) {
  if (!first)
    return __riscv_vle32_v_f32m4(y, vl);
  if (bias)
    return __riscv_vle32_v_f32m4(bias, vl);
  return __riscv_vfmv_v_f_f32m4(0.0f, vl);
}

/* --- 4-bit weights (q4_0, q4_k) ------------------------------------------ */
/* The nibbles (0..15) are valid int8, so signed widening products serve;
 * 16 products of 15 * 128 fit int16. */
#define KILN_RVV_NIB0()                                                        \
  vuint8m2_t v0 = __riscv_vle8_v_u8m2(wb, vl);                                 \
  vint16m4_t slo = __riscv_vwmul_vx_i16m4(                                     \
      __riscv_vreinterpret_v_u8m2_i8m2(__riscv_vand_vx_u8m2(v0, 15, vl)),      \
      q[0], vl);                                                               \
  vint16m4_t shi = __riscv_vwmul_vx_i16m4(                                     \
      __riscv_vreinterpret_v_u8m2_i8m2(__riscv_vsrl_vx_u8m2(v0, 4, vl)),       \
      q[16], vl)
#define KILN_RVV_NIB(i)                                                        \
  do {                                                                         \
    vuint8m2_t v = __riscv_vle8_v_u8m2(wb + (i) * tw, vl);          \
    slo = __riscv_vwmacc_vx_i16m4(                                             \
        slo, q[i],                                                             \
        __riscv_vreinterpret_v_u8m2_i8m2(__riscv_vand_vx_u8m2(v, 15, vl)), vl); \
    shi = __riscv_vwmacc_vx_i16m4(                                             \
        shi, q[(i) + 16],                                                      \
        __riscv_vreinterpret_v_u8m2_i8m2(__riscv_vsrl_vx_u8m2(v, 4, vl)), vl); \
  } while (0)

static inline __attribute__((always_inline)) void
kiln_rvv_q4(const float *x, int rows, int K, const uint8_t *w, int N,
            const float *bias, float *y, void *scratch, const int kq) {
  const kiln_q8_block *a = kiln_q8_rows(x, rows, K, scratch);
  const int nb = K / 32, ntile = (N + KILN_RVV_TILE - 1) / KILN_RVV_TILE;
  const size_t bpb = 16 + (kq ? 8 : 4); /* bytes per row and block */
  float ad[KILN_RVV_CHUNK];
  int32_t asum[KILN_RVV_CHUNK];
  for (int r = 0; r < rows; ++r) {
    const kiln_q8_block *ar = a + (int64_t)r * nb;
    float *yr = y + (int64_t)r * N;
    for (int c0 = 0; c0 < nb; c0 += KILN_RVV_CHUNK) {
      const int nc = nb - c0 < KILN_RVV_CHUNK ? nb - c0 : KILN_RVV_CHUNK;
      kiln_rvv_act(ar + c0, nc, ad, asum, 0, kq ? 1 : -8);
      for (int t = 0; t < ntile; ++t) {
        const int n0 = t * KILN_RVV_TILE;
        const int nv = N - n0 < KILN_RVV_TILE ? N - n0 : KILN_RVV_TILE;
        /* the last tile holds only its nv rows: lane stride nv */
        const size_t tw = (size_t)nv, tb = tw * bpb;
        const uint8_t *wt = w + (size_t)t * KILN_RVV_TILE * nb * bpb + c0 * tb;
        for (int s = 0; s < nv;) {
          const size_t vl = __riscv_vsetvl_e8m2(nv - s);
          vfloat32m8_t acc = kiln_rvv_acc0(c0 == 0, bias ? bias + n0 + s : 0,
                                           yr + n0 + s, vl);
          for (int b = 0; b < nc; ++b) {
            const uint8_t *wb = wt + b * tb + s;
            const int8_t *q = ar[c0 + b].qs;
            KILN_RVV_NIB0(); KILN_RVV_NIB(1); KILN_RVV_NIB(2); KILN_RVV_NIB(3);
            KILN_RVV_NIB(4); KILN_RVV_NIB(5); KILN_RVV_NIB(6); KILN_RVV_NIB(7);
            KILN_RVV_NIB(8); KILN_RVV_NIB(9); KILN_RVV_NIB(10); KILN_RVV_NIB(11);
            KILN_RVV_NIB(12); KILN_RVV_NIB(13); KILN_RVV_NIB(14); KILN_RVV_NIB(15);
            vint32m8_t isum = __riscv_vwadd_vv_i32m8(slo, shi, vl);
            const float *sc = (const float *)(wb - s + 16 * tw) + s;
            if (!kq) {
              /* exact integer sum of (q-8)*a, then * (d * da) as the scalar kernel */
              isum = __riscv_vadd_vx_i32m8(isum, asum[b], vl); /* -8 * sum */
              vfloat32m8_t f = __riscv_vfcvt_f_x_v_f32m8(isum, vl);
              vfloat32m8_t d = __riscv_vfmul_vf_f32m8(
                  __riscv_vle32_v_f32m8(sc, vl), ad[b], vl);
              acc = __riscv_vfmacc_vv_f32m8(acc, f, d, vl);
            } else {
              /* da * (d*sc * isum - dmin*m * asum) */
              vfloat32m8_t f = __riscv_vfcvt_f_x_v_f32m8(isum, vl);
              vfloat32m8_t d = __riscv_vfmul_vf_f32m8(
                  __riscv_vle32_v_f32m8(sc, vl), ad[b], vl);
              acc = __riscv_vfmacc_vv_f32m8(acc, f, d, vl);
              acc = __riscv_vfnmsac_vf_f32m8(
                  acc, ad[b] * (float)asum[b],
                  __riscv_vle32_v_f32m8(sc + tw, vl), vl);
            }
          }
          __riscv_vse32_v_f32m8(yr + n0 + s, acc, vl);
          s += (int)vl;
        }
      }
    }
  }
}

KILN_KERNEL void kiln_matmul_q4_0_q8_0_128x_rvv(const float *x, int rows, int K,
                                      const uint8_t *w, int N, const float *bias,
                                      float *y, void *scratch) {
  kiln_rvv_q4(x, rows, K, w, N, bias, y, scratch, 0);
}

KILN_KERNEL void kiln_matmul_q4_k_q8_0_128x_rvv(const float *x, int rows, int K,
                                      const uint8_t *w, int N, const float *bias,
                                      float *y, void *scratch) {
  kiln_rvv_q4(x, rows, K, w, N, bias, y, scratch, 1);
}

/* --- 8-bit weights (q8_0, q6_k) ------------------------------------------ */
/* Two int8 products fit int16 (2 * 127 * 128); pairs are widened into int32. */
#define KILN_RVV_PAIR(acc32, i)                                                \
  do {                                                                         \
    vint16m2_t p = __riscv_vwmul_vx_i16m2(                                     \
        __riscv_vle8_v_i8m1((const int8_t *)wb + (i) * tw, vl),     \
        q[i], vl);                                                             \
    p = __riscv_vwmacc_vx_i16m2(                                               \
        p, q[(i) + 1],                                                         \
        __riscv_vle8_v_i8m1((const int8_t *)wb + ((i) + 1) * tw, vl), \
        vl);                                                                   \
    acc32 = __riscv_vwadd_wv_i32m4(acc32, p, vl);                              \
  } while (0)

/* k6: 0 one scale per row-block; 1 two (q6_k halves); 2 a scale and a min
 * term; 3 two scales and two min terms (q2_k halves). */
static inline __attribute__((always_inline)) void
kiln_rvv_q8(const float *x, int rows, int K, const uint8_t *w, int N,
            const float *bias, float *y, void *scratch, const int k6) {
  const kiln_q8_block *a = kiln_q8_rows(x, rows, K, scratch);
  const int nb = K / 32, ntile = (N + KILN_RVV_TILE - 1) / KILN_RVV_TILE;
  const size_t bpb = 32 + (k6 == 3 ? 16 : k6 ? 8 : 4);
  float ad[KILN_RVV_CHUNK];
  int32_t asum[KILN_RVV_CHUNK], alo[KILN_RVV_CHUNK];
  for (int r = 0; r < rows; ++r) {
    const kiln_q8_block *ar = a + (int64_t)r * nb;
    float *yr = y + (int64_t)r * N;
    for (int c0 = 0; c0 < nb; c0 += KILN_RVV_CHUNK) {
      const int nc = nb - c0 < KILN_RVV_CHUNK ? nb - c0 : KILN_RVV_CHUNK;
      kiln_rvv_act(ar + c0, nc, ad, asum, k6 == 3 ? alo : 0, 1);
      for (int t = 0; t < ntile; ++t) {
        const int n0 = t * KILN_RVV_TILE;
        const int nv = N - n0 < KILN_RVV_TILE ? N - n0 : KILN_RVV_TILE;
        /* the last tile holds only its nv rows: lane stride nv */
        const size_t tw = (size_t)nv, tb = tw * bpb;
        const uint8_t *wt = w + (size_t)t * KILN_RVV_TILE * nb * bpb + c0 * tb;
        for (int s = 0; s < nv;) {
          const size_t vl = __riscv_vsetvl_e8m1(nv - s);
          vfloat32m4_t acc = kiln_rvv_acc0_m4(c0 == 0, bias ? bias + n0 + s : 0,
                                           yr + n0 + s, vl);
          for (int b = 0; b < nc; ++b) {
            const uint8_t *wb = wt + b * tb + s;
            const int8_t *q = ar[c0 + b].qs;
            const float *sc = (const float *)(wt + b * tb + 32 * tw) + s;
            vint32m4_t i0 = __riscv_vmv_v_x_i32m4(0, vl);
            KILN_RVV_PAIR(i0, 0); KILN_RVV_PAIR(i0, 2);
            KILN_RVV_PAIR(i0, 4); KILN_RVV_PAIR(i0, 6);
            KILN_RVV_PAIR(i0, 8); KILN_RVV_PAIR(i0, 10);
            KILN_RVV_PAIR(i0, 12); KILN_RVV_PAIR(i0, 14);
            if (k6 == 0 || k6 == 2) {
              KILN_RVV_PAIR(i0, 16); KILN_RVV_PAIR(i0, 18);
              KILN_RVV_PAIR(i0, 20); KILN_RVV_PAIR(i0, 22);
              KILN_RVV_PAIR(i0, 24); KILN_RVV_PAIR(i0, 26);
              KILN_RVV_PAIR(i0, 28); KILN_RVV_PAIR(i0, 30);
              vfloat32m4_t d = __riscv_vfmul_vf_f32m4(
                  __riscv_vle32_v_f32m4(sc, vl), ad[b], vl);
              acc = __riscv_vfmacc_vv_f32m4(
                  acc, __riscv_vfcvt_f_x_v_f32m4(i0, vl), d, vl);
              if (k6 == 2)
                acc = __riscv_vfnmsac_vf_f32m4(
                    acc, ad[b] * (float)asum[b],
                    __riscv_vle32_v_f32m4(sc + tw, vl), vl);
            } else {
              vint32m4_t i1 = __riscv_vmv_v_x_i32m4(0, vl);
              KILN_RVV_PAIR(i1, 16); KILN_RVV_PAIR(i1, 18);
              KILN_RVV_PAIR(i1, 20); KILN_RVV_PAIR(i1, 22);
              KILN_RVV_PAIR(i1, 24); KILN_RVV_PAIR(i1, 26);
              KILN_RVV_PAIR(i1, 28); KILN_RVV_PAIR(i1, 30);
              vfloat32m4_t d0 = __riscv_vfmul_vf_f32m4(
                  __riscv_vle32_v_f32m4(sc, vl), ad[b], vl);
              vfloat32m4_t d1 = __riscv_vfmul_vf_f32m4(
                  __riscv_vle32_v_f32m4(sc + tw, vl), ad[b], vl);
              acc = __riscv_vfmacc_vv_f32m4(
                  acc, __riscv_vfcvt_f_x_v_f32m4(i0, vl), d0, vl);
              acc = __riscv_vfmacc_vv_f32m4(
                  acc, __riscv_vfcvt_f_x_v_f32m4(i1, vl), d1, vl);
              if (k6 == 3) { /* - da * (m0 * sum(a 0..15) + m1 * sum(16..31)) */
                acc = __riscv_vfnmsac_vf_f32m4(
                    acc, ad[b] * (float)alo[b],
                    __riscv_vle32_v_f32m4(sc + 2 * tw, vl), vl);
                acc = __riscv_vfnmsac_vf_f32m4(
                    acc, ad[b] * (float)(asum[b] - alo[b]),
                    __riscv_vle32_v_f32m4(sc + 3 * tw, vl), vl);
              }
            }
          }
          __riscv_vse32_v_f32m4(yr + n0 + s, acc, vl);
          s += (int)vl;
        }
      }
    }
  }
}

KILN_KERNEL void kiln_matmul_q8_0_q8_0_128x_rvv(const float *x, int rows, int K,
                                      const uint8_t *w, int N, const float *bias,
                                      float *y, void *scratch) {
  kiln_rvv_q8(x, rows, K, w, N, bias, y, scratch, 0);
}

KILN_KERNEL void kiln_matmul_q6_k_q8_0_128x_rvv(const float *x, int rows, int K,
                                      const uint8_t *w, int N, const float *bias,
                                      float *y, void *scratch) {
  kiln_rvv_q8(x, rows, K, w, N, bias, y, scratch, 1);
}

#define KILN_RVV_Q8_WRAP(T, MODE)                                              \
  KILN_KERNEL void kiln_matmul_##T##_q8_0_128x_rvv(                            \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    kiln_rvv_q8(x, rows, K, w, N, bias, y, scratch, MODE);                     \
  }
KILN_RVV_Q8_WRAP(q5_0, 0)
KILN_RVV_Q8_WRAP(iq4_nl, 0)
KILN_RVV_Q8_WRAP(iq4_xs, 0)
KILN_RVV_Q8_WRAP(q5_1, 2)
KILN_RVV_Q8_WRAP(q5_k, 2)
KILN_RVV_Q8_WRAP(q3_k, 1)
KILN_RVV_Q8_WRAP(q2_k, 3)
