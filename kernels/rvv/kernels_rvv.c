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
 *  q4_k, q5_k, q6_k: the files' bytes (18, 22 and 26.25), per super-block
 *        rather than per block: see "K-quants in their files' bytes" below.
 *  q8_0: 32 int8 x tw rows, then tw f32 d.                        (36)
 *  iq4_nl: as q4_0, the file's nibbles (indices of the IQ4 levels, looked
 *        up with vrgather).                                       (20)
 *  iq4_xs: the file's bytes per super-block, see iq4_xs below.   (17)
 *  q5_0: 32 int8 (q-16) x tw rows, then tw f32 d.                 (36)
 *  q5_1: 32 int8 (0..31) x tw rows, then tw f32 scales d and tw f32 min
 *        terms -m (subtracted times the activation block's sum).  (40)
 *  q5_k: the file's bytes, as q4_k plus the fifth bits (see q5_k below).
 *  q2_k, q3_k: the files' bytes (10.5, 13.75), see below.
 * The 8-bit layouts of q5_0 and q5_1 take more bytes than their files (22
 * and 24 per block).
 *
 * Unsigned nibbles times signed activations: sum (q-8)*a = sum q*a - 8*sum a,
 * the correction per activation block computed once per activation row.
 * Activations are the exact Q8_0 blocks of kiln_q8_rows, and for the
 * K-quants and iq4_xs ggml's Q8_K blocks of kiln_q8k_rows (as llama.cpp's
 * kernels for those types).
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

/* The IQ4 types' exact block sum: 16 nibble positions (as q4_0's: element i
 * low, i + 16 high) looked up as levels in the 16-entry table lut
 * (vrgather), a position's two products in int16 (2 * 127 * 128), widened
 * into int32. */
static inline __attribute__((always_inline)) vint32m8_t
kiln_rvv_iq4_block(const uint8_t *wb, size_t tw, const int8_t *q, vint8m2_t lut,
                   size_t vl) {
  vint32m8_t sum = __riscv_vmv_v_x_i32m8(0, vl);
#pragma clang loop unroll(full)
  for (int i = 0; i < 16; ++i) {
    const vuint8m2_t v = __riscv_vle8_v_u8m2(wb + i * tw, vl);
    const vint8m2_t lo = __riscv_vrgather_vv_i8m2(lut, __riscv_vand_vx_u8m2(v, 15, vl), vl);
    const vint8m2_t hi = __riscv_vrgather_vv_i8m2(lut, __riscv_vsrl_vx_u8m2(v, 4, vl), vl);
    vint16m4_t p = __riscv_vwmul_vx_i16m4(lo, q[i], vl);
    p = __riscv_vwmacc_vx_i16m4(p, q[i + 16], hi, vl);
    sum = __riscv_vwadd_wv_i32m8(sum, p, vl);
  }
  return sum;
}

/* q4_0, and iq4_nl (IQ4) in q4_0's layout: its file's nibbles, indices of
 * the levels. */
static inline __attribute__((always_inline)) void
kiln_rvv_nib(const float *x, int rows, int K, const uint8_t *w, int N,
             const float *bias, float *y, void *scratch, const int iq4) {
  const kiln_q8_block *a = kiln_q8_rows(x, rows, K, scratch);
  /* read whole (16 entries) whatever the strip's vl */
  const vint8m2_t lut = __riscv_vle8_v_i8m2(kiln_g_iq4nl, 16);
  const int nb = K / 32, ntile = (N + KILN_RVV_TILE - 1) / KILN_RVV_TILE;
  const size_t bpb = 20; /* bytes per row and block */
  float ad[KILN_RVV_CHUNK];
  int32_t asum[KILN_RVV_CHUNK];
  for (int r = 0; r < rows; ++r) {
    const kiln_q8_block *ar = a + (int64_t)r * nb;
    float *yr = y + (int64_t)r * N;
    for (int c0 = 0; c0 < nb; c0 += KILN_RVV_CHUNK) {
      const int nc = nb - c0 < KILN_RVV_CHUNK ? nb - c0 : KILN_RVV_CHUNK;
      kiln_rvv_act(ar + c0, nc, ad, asum, 0, -8); /* q4_0's offset sums */
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
            vint32m8_t isum;
            if (iq4) {
              isum = kiln_rvv_iq4_block(wb, tw, q, lut, vl);
            } else {
              KILN_RVV_NIB0(); KILN_RVV_NIB(1); KILN_RVV_NIB(2); KILN_RVV_NIB(3);
              KILN_RVV_NIB(4); KILN_RVV_NIB(5); KILN_RVV_NIB(6); KILN_RVV_NIB(7);
              KILN_RVV_NIB(8); KILN_RVV_NIB(9); KILN_RVV_NIB(10); KILN_RVV_NIB(11);
              KILN_RVV_NIB(12); KILN_RVV_NIB(13); KILN_RVV_NIB(14); KILN_RVV_NIB(15);
              /* exact integer sum of (q-8)*a */
              isum = __riscv_vadd_vx_i32m8(__riscv_vwadd_vv_i32m8(slo, shi, vl),
                                           asum[b], vl); /* -8 * sum */
            }
            /* then * (d * da) as the scalar kernel */
            const float *sc = (const float *)(wb - s + 16 * tw) + s;
            vfloat32m8_t d = __riscv_vfmul_vf_f32m8(
                __riscv_vle32_v_f32m8(sc, vl), ad[b], vl);
            acc = __riscv_vfmacc_vv_f32m8(
                acc, __riscv_vfcvt_f_x_v_f32m8(isum, vl), d, vl);
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
  kiln_rvv_nib(x, rows, K, w, N, bias, y, scratch, 0);
}

KILN_KERNEL void kiln_matmul_iq4_nl_q8_0_128x_rvv(const float *x, int rows, int K,
                                        const uint8_t *w, int N, const float *bias,
                                        float *y, void *scratch) {
  kiln_rvv_nib(x, rows, K, w, N, bias, y, scratch, 1);
}

/* --- K-quants in their files' bytes, on Q8_K activations -------------------
 * The super-block's scales stay in the file's form (q4_k: 12 bytes of packed
 * 6-bit scales and mins, f16 d and dmin; q6_k: 16 int8 scales, f16 d), one
 * byte position of all tw rows after another as the quants. The activations
 * are ggml's Q8_K blocks (kiln_q8k_rows): one float scale per 256 values, so
 * a strip's super-block sums in integers, each block (or 16-element half)
 * times its scale widened from the file's bytes, and the offsets and mins
 * come from Q8_K's 16-element sums. The one float step per super-block
 * reads and writes the strip's outputs in y, which leaves the register file
 * to the integer sums.
 */

/* f16 bits to f32: the magnitude shifted into the f32 exponent and fraction
 * fields and scaled by 2^112 (exact for normal and subnormal halves), the
 * sign or'ed in; infinities and NaN (exponent 31) get f32's top exponent
 * first, so that a file's non-finite scale reaches its rows' outputs as in
 * the scalar kernels. RVV 1.0 without Zvfh has no half-precision
 * conversion. */
static inline vfloat32m8_t kiln_rvv_h2f_m8(const uint8_t *p, size_t vl) {
  const vuint32m8_t h =
      __riscv_vzext_vf2_u32m8(__riscv_vle16_v_u16m4((const uint16_t *)p, vl), vl);
  const vuint32m8_t mag = __riscv_vand_vx_u32m8(h, 0x7fff, vl);
  vuint32m8_t bits = __riscv_vor_vv_u32m8(
      __riscv_vsll_vx_u32m8(__riscv_vand_vx_u32m8(h, 0x8000, vl), 16, vl),
      __riscv_vsll_vx_u32m8(mag, 13, vl), vl);
  const vbool4_t special = __riscv_vmsgeu_vx_u32m8_b4(mag, 0x7c00, vl);
  bits = __riscv_vor_vx_u32m8_mu(special, bits, bits, 0x7f800000u, vl);
  return __riscv_vfmul_vf_f32m8(__riscv_vreinterpret_v_u32m8_f32m8(bits), 0x1p112f, vl);
}

/* The strip's outputs before its first super-block: the bias or zero. */
static inline void kiln_rvv_y0(float *ys, const float *bias, size_t vl) {
  __riscv_vse32_v_f32m8(ys,
                        bias ? __riscv_vle32_v_f32m8(bias, vl)
                             : __riscv_vfmv_v_f_f32m8(0.0f, vl),
                        vl);
}

/* A super-block's float step: ys += isum * (d * da), d the rows' f16 scales
 * at h (da negative subtracts: the mins). */
static inline void kiln_rvv_ystep(float *ys, vint32m8_t isum, const uint8_t *h,
                                  float da, size_t vl) {
  const vfloat32m8_t d = __riscv_vfmul_vf_f32m8(kiln_rvv_h2f_m8(h, vl), da, vl);
  __riscv_vse32_v_f32m8(
      ys,
      __riscv_vfmacc_vv_f32m8(__riscv_vle32_v_f32m8(ys, vl),
                              __riscv_vfcvt_f_x_v_f32m8(isum, vl), d, vl),
      vl);
}

/* The K-quant kernels' walk: per activation row r, 128-row tile and strip
 * of vl = VSETVL(rows left) rows, the strip's outputs start at the bias,
 * then the rest (the super-block step) runs per super-block with ws (its
 * SBB bytes a row), as (the row's Q8_K block), tw (the lane stride), s (the
 * strip's first row), vl and ys (the strip's outputs). */
#define KILN_RVV_KWALK(SBB, VSETVL, ...)                                       \
  do {                                                                         \
    const kiln_q8k_block *a_ = kiln_q8k_rows(x, rows, K, scratch);             \
    const int nsb = K / 256, ntile = (N + KILN_RVV_TILE - 1) / KILN_RVV_TILE;  \
    for (int r = 0; r < rows; ++r) {                                           \
      for (int t = 0; t < ntile; ++t) {                                        \
        const int n0 = t * KILN_RVV_TILE;                                      \
        const int nv = N - n0 < KILN_RVV_TILE ? N - n0 : KILN_RVV_TILE;        \
        /* the last tile holds only its nv rows: lane stride nv */             \
        const size_t tw = (size_t)nv, tsb = (SBB) * tw;                        \
        const uint8_t *wt = w + (size_t)t * KILN_RVV_TILE * nsb * (SBB);       \
        for (int s = 0; s < nv;) {                                             \
          const size_t vl = VSETVL(nv - s);                                    \
          float *ys = y + (int64_t)r * N + n0 + s;                             \
          kiln_rvv_y0(ys, bias ? bias + n0 + s : 0, vl);                       \
          for (int sb = 0; sb < nsb; ++sb) {                                   \
            const uint8_t *ws = wt + sb * tsb;                                 \
            const kiln_q8k_block *as = a_ + (int64_t)r * nsb + sb;             \
            __VA_ARGS__                                                        \
          }                                                                    \
          s += (int)vl;                                                        \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  } while (0)

/* Kernel T: the walk with STEP(ws, as, tw, s, vl, ys, FLAG) a super-block. */
#define KILN_RVV_KQUANT(T, SBB, VSETVL, STEP, FLAG)                            \
  KILN_KERNEL void kiln_matmul_##T##_q8_k_128x_rvv(                            \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    KILN_RVV_KWALK(SBB, VSETVL, STEP(ws, as, tw, (size_t)s, vl, ys, FLAG););   \
  }

/* q4_k: per tile (tw rows) and super-block, 144 * tw bytes, the file's:
 * 8 blocks of 16 nibble positions (as q4_0: element i low, i+16 high), the
 * 12 scale bytes, tw f16 d, tw f16 dmin. */

/* Scale (sc) or min (m) j of the 6-bit pairs at byte positions p[0..11]. */
static inline vuint8m2_t kiln_rvv_q4k_six(const uint8_t *p, size_t tw, int j,
                                          int min, size_t vl) {
#define KILN_RVV_B(i) __riscv_vle8_v_u8m2(p + (i) * tw, vl)
  if (j < 4)
    return __riscv_vand_vx_u8m2(KILN_RVV_B(j + 4 * min), 63, vl);
  const vuint8m2_t lo = min ? __riscv_vsrl_vx_u8m2(KILN_RVV_B(j + 4), 4, vl)
                            : __riscv_vand_vx_u8m2(KILN_RVV_B(j + 4), 15, vl);
  const vuint8m2_t hi = __riscv_vsll_vx_u8m2(
      __riscv_vsrl_vx_u8m2(KILN_RVV_B(j - 4 + 4 * min), 6, vl), 4, vl);
  return __riscv_vor_vv_u8m2(lo, hi, vl);
#undef KILN_RVV_B
}

/* Block b's exact sum of value x activation: the nibbles (q4_k), or (q5_k:
 * the q4_k layout, per super-block 144 * tw bytes, followed by the fifth
 * bits, per block 4 byte positions of tw rows, bit p of position k: element
 * 8k + p; 176 * tw bytes, the file's) the nibbles' and 16 x the fifth
 * bits', a sum of its own (|.| <= 32 * 127) so that each fits int16. */
static inline __attribute__((always_inline)) vint32m8_t
kiln_rvv_kmin_block(const uint8_t *ws, int b, size_t tw, size_t s,
                    const int8_t *q, const int five, size_t vl) {
  const uint8_t *wb = ws + b * 16 * tw + s;
  if (!five) {
    KILN_RVV_NIB0(); KILN_RVV_NIB(1); KILN_RVV_NIB(2); KILN_RVV_NIB(3);
    KILN_RVV_NIB(4); KILN_RVV_NIB(5); KILN_RVV_NIB(6); KILN_RVV_NIB(7);
    KILN_RVV_NIB(8); KILN_RVV_NIB(9); KILN_RVV_NIB(10); KILN_RVV_NIB(11);
    KILN_RVV_NIB(12); KILN_RVV_NIB(13); KILN_RVV_NIB(14); KILN_RVV_NIB(15);
    return __riscv_vwadd_vv_i32m8(slo, shi, vl);
  }
  const uint8_t *hb = ws + 144 * tw + (size_t)b * 4 * tw + s;
  vint16m4_t slo = __riscv_vmv_v_x_i16m4(0, vl), shi = slo, s5 = slo;
  vuint8m2_t fa = __riscv_vle8_v_u8m2(hb, vl), fb = __riscv_vle8_v_u8m2(hb + 2 * tw, vl);
#pragma clang loop unroll(full)
  for (int i = 0; i < 16; ++i) {
    if (i == 8) {
      fa = __riscv_vle8_v_u8m2(hb + tw, vl);
      fb = __riscv_vle8_v_u8m2(hb + 3 * tw, vl);
    }
    const vuint8m2_t v = __riscv_vle8_v_u8m2(wb + i * tw, vl);
    const int p = i % 8;
    slo = __riscv_vwmacc_vx_i16m4(
        slo, q[i], __riscv_vreinterpret_v_u8m2_i8m2(__riscv_vand_vx_u8m2(v, 15, vl)), vl);
    shi = __riscv_vwmacc_vx_i16m4(
        shi, q[i + 16], __riscv_vreinterpret_v_u8m2_i8m2(__riscv_vsrl_vx_u8m2(v, 4, vl)), vl);
    s5 = __riscv_vwmacc_vx_i16m4(
        s5, q[i], __riscv_vreinterpret_v_u8m2_i8m2(__riscv_vand_vx_u8m2(
                      p ? __riscv_vsrl_vx_u8m2(fa, p, vl) : fa, 1, vl)), vl);
    s5 = __riscv_vwmacc_vx_i16m4(
        s5, q[i + 16], __riscv_vreinterpret_v_u8m2_i8m2(__riscv_vand_vx_u8m2(
                           p ? __riscv_vsrl_vx_u8m2(fb, p, vl) : fb, 1, vl)), vl);
  }
  return __riscv_vwmacc_vx_i32m8(__riscv_vwadd_vv_i32m8(slo, shi, vl), 16, s5, vl);
}

/* q4_k and q5_k: per super-block sum (sc_j x block j) and sum (m_j x Q8_K's
 * sum of block j), |.| < 2^26, then d x da and dmin x da. */
static inline __attribute__((always_inline)) void
kiln_rvv_kmin_sb(const uint8_t *ws, const kiln_q8k_block *as, size_t tw, size_t s,
                 size_t vl, float *ys, const int five) {
  const uint8_t *sp = ws + 128 * tw + s;
  vint32m8_t isum = __riscv_vmv_v_x_i32m8(0, vl);
  /* blocks 0-3 and 4-7 apart: their scales' bits differ */
#pragma clang loop unroll(disable)
  for (int b = 0; b < 4; ++b)
    isum = __riscv_vmacc_vv_i32m8(
        isum,
        __riscv_vreinterpret_v_u32m8_i32m8(__riscv_vzext_vf4_u32m8(
            kiln_rvv_q4k_six(sp, tw, b, 0, vl), vl)),
        kiln_rvv_kmin_block(ws, b, tw, s, as->qs + 32 * b, five, vl), vl);
#pragma clang loop unroll(disable)
  for (int b = 4; b < 8; ++b)
    isum = __riscv_vmacc_vv_i32m8(
        isum,
        __riscv_vreinterpret_v_u32m8_i32m8(__riscv_vzext_vf4_u32m8(
            kiln_rvv_q4k_six(sp, tw, b, 0, vl), vl)),
        kiln_rvv_kmin_block(ws, b, tw, s, as->qs + 32 * b, five, vl), vl);
  kiln_rvv_ystep(ys, isum, ws + 140 * tw + 2 * s, as->d, vl);
  vint32m8_t msum = __riscv_vmv_v_x_i32m8(0, vl);
#pragma clang loop unroll(full)
  for (int j = 0; j < 8; ++j)
    msum = __riscv_vwmacc_vx_i32m8(
        msum, (int16_t)(as->bsums[2 * j] + as->bsums[2 * j + 1]),
        __riscv_vreinterpret_v_u16m4_i16m4(__riscv_vzext_vf2_u16m4(
            kiln_rvv_q4k_six(sp, tw, j, 1, vl), vl)),
        vl);
  kiln_rvv_ystep(ys, msum, ws + 142 * tw + 2 * s, -as->d, vl);
}

KILN_RVV_KQUANT(q4_k, 144, __riscv_vsetvl_e8m2, kiln_rvv_kmin_sb, 0)
KILN_RVV_KQUANT(q5_k, 176, __riscv_vsetvl_e8m2, kiln_rvv_kmin_sb, 1)

/* q2_k and q3_k: per tile and super-block 8 blocks of 8 byte positions of
 * two-bit values (position k bits 2c..2c+1: element 4k + c; positions 0..3
 * are the block's first 16-element half), then
 *  q2_k: the 16 scale bytes (low nibble the scale, high the min of
 *        half j), tw f16 d, tw f16 dmin: 84 * tw bytes, the file's.
 *        A value is the two bits; dmin x (sum of m_j x Q8_K's sum of half
 *        j) is subtracted.
 *  q3_k: 8 blocks of 4 byte positions of third bits (bit p of position k:
 *        element 8k + p), the 12 bytes of packed 6-bit scales, tw f16 d:
 *        110 * tw bytes, the file's. A value is low + 4 high - 4: the third
 *        bit moved to bit 2 and or'ed in, the -4 times Q8_K's sum of the
 *        half.
 * Per half the exact sum of value x activation (|.| <= 16 * 7 * 127 + 4 *
 * 2032, int16), times its scale into the super-block's int32 sum. */
static inline __attribute__((always_inline)) void
kiln_rvv_k16_sb(const uint8_t *ws, const kiln_q8k_block *as, size_t tw, size_t s,
                size_t vl, float *ys, const int three) {
  vint32m8_t isum = __riscv_vmv_v_x_i32m8(0, vl);
#pragma clang loop unroll(disable)
  for (int b = 0; b < 8; ++b) {
    const uint8_t *wb = ws + b * 8 * tw + s;
    const uint8_t *hb = ws + (64 + b * 4) * tw + s;
    const int8_t *q = as->qs + 32 * b;
    vint16m4_t h0 = __riscv_vmv_v_x_i16m4(0, vl), h1 = h0;
    if (three) { /* the values' -4 x the halves' activation sums */
      h0 = __riscv_vmv_v_x_i16m4((int16_t)(-4 * as->bsums[2 * b]), vl);
      h1 = __riscv_vmv_v_x_i16m4((int16_t)(-4 * as->bsums[2 * b + 1]), vl);
    }
#pragma clang loop unroll(full)
    for (int k = 0; k < 4; ++k) {
      const vuint8m2_t v0 = __riscv_vle8_v_u8m2(wb + k * tw, vl),
                       v1 = __riscv_vle8_v_u8m2(wb + (k + 4) * tw, vl);
      /* q3_k's third bits of elements 4k..4k+3 and 16+4k..:
       * position k/2 (and 2 + k/2), bits 4 (k % 2) + c */
      vuint8m2_t t0 = v0, t1 = v1;
      if (three) {
        t0 = __riscv_vle8_v_u8m2(hb + (k / 2) * tw, vl);
        t1 = __riscv_vle8_v_u8m2(hb + (2 + k / 2) * tw, vl);
      }
#pragma clang loop unroll(full)
      for (int c = 0; c < 4; ++c) {
        const int p = 4 * (k % 2) + c; /* the third bit's position */
#define KILN_RVV_LOW2(V)                                                       \
  (c == 3 ? __riscv_vsrl_vx_u8m2(V, 6, vl)                                     \
          : __riscv_vand_vx_u8m2(c ? __riscv_vsrl_vx_u8m2(V, 2 * c, vl) : V, 3, vl))
#define KILN_RVV_HIGH4(T)                                                      \
  __riscv_vand_vx_u8m2(p < 2 ? __riscv_vsll_vx_u8m2(T, 2 - p, vl)              \
                       : p > 2 ? __riscv_vsrl_vx_u8m2(T, p - 2, vl) : T,       \
                       4, vl)
        vuint8m2_t e0 = KILN_RVV_LOW2(v0), e1 = KILN_RVV_LOW2(v1);
        if (three) {
          e0 = __riscv_vor_vv_u8m2(e0, KILN_RVV_HIGH4(t0), vl);
          e1 = __riscv_vor_vv_u8m2(e1, KILN_RVV_HIGH4(t1), vl);
        }
#undef KILN_RVV_LOW2
#undef KILN_RVV_HIGH4
        h0 = __riscv_vwmacc_vx_i16m4(h0, q[4 * k + c],
                                     __riscv_vreinterpret_v_u8m2_i8m2(e0), vl);
        h1 = __riscv_vwmacc_vx_i16m4(h1, q[16 + 4 * k + c],
                                     __riscv_vreinterpret_v_u8m2_i8m2(e1), vl);
      }
    }
    /* the scales of halves 2b and 2b + 1, as int16 */
    vint16m4_t sc0, sc1;
    if (three) {
      /* (low nibble | 2 high bits << 4) - 32: the low nibbles of
       * halves 0-7 and the high ones of 8-15 at positions j % 8,
       * the high bits at 8 + j % 4, bits 2 (j / 4) */
      const uint8_t *sp = ws + 96 * tw + s;
#define KILN_RVV_Q3SC(J)                                                       \
  __riscv_vsext_vf2_i16m4(                                                     \
      __riscv_vreinterpret_v_u8m2_i8m2(__riscv_vsub_vx_u8m2(                   \
          __riscv_vor_vv_u8m2(                                                 \
              __riscv_vand_vx_u8m2(                                            \
                  __riscv_vsrl_vx_u8m2(__riscv_vle8_v_u8m2(sp + ((J) % 8) * tw, vl), \
                                       4 * ((J) / 8), vl),                     \
                  15, vl),                                                     \
              __riscv_vsll_vx_u8m2(                                            \
                  __riscv_vand_vx_u8m2(                                        \
                      __riscv_vsrl_vx_u8m2(                                    \
                          __riscv_vle8_v_u8m2(sp + (8 + (J) % 4) * tw, vl),    \
                          2 * ((J) / 4), vl),                                  \
                      3, vl),                                                  \
                  4, vl),                                                      \
              vl),                                                             \
          32, vl)),                                                            \
      vl)
      sc0 = KILN_RVV_Q3SC(2 * b);
      sc1 = KILN_RVV_Q3SC(2 * b + 1);
#undef KILN_RVV_Q3SC
    } else {
#define KILN_RVV_Q2SC(J)                                                       \
  __riscv_vreinterpret_v_u16m4_i16m4(__riscv_vzext_vf2_u16m4(                  \
      __riscv_vand_vx_u8m2(__riscv_vle8_v_u8m2(ws + (64 + (J)) * tw + s, vl), 15, vl), vl))
      sc0 = KILN_RVV_Q2SC(2 * b);
      sc1 = KILN_RVV_Q2SC(2 * b + 1);
#undef KILN_RVV_Q2SC
    }
    isum = __riscv_vwmacc_vv_i32m8(isum, sc0, h0, vl);
    isum = __riscv_vwmacc_vv_i32m8(isum, sc1, h1, vl);
  }
  kiln_rvv_ystep(ys, isum, ws + (three ? 108 : 80) * tw + 2 * s, as->d, vl);
  if (!three) { /* q2_k's mins times Q8_K's sums of the halves */
    vint32m8_t msum = __riscv_vmv_v_x_i32m8(0, vl);
#pragma clang loop unroll(full)
    for (int j = 0; j < 16; ++j)
      msum = __riscv_vwmacc_vx_i32m8(
          msum, as->bsums[j],
          __riscv_vreinterpret_v_u16m4_i16m4(__riscv_vzext_vf2_u16m4(
              __riscv_vsrl_vx_u8m2(__riscv_vle8_v_u8m2(ws + (64 + j) * tw + s, vl),
                                   4, vl),
              vl)),
          vl);
    kiln_rvv_ystep(ys, msum, ws + 82 * tw + 2 * s, -as->d, vl);
  }
}

KILN_RVV_KQUANT(q2_k, 84, __riscv_vsetvl_e8m2, kiln_rvv_k16_sb, 0)
KILN_RVV_KQUANT(q3_k, 110, __riscv_vsetvl_e8m2, kiln_rvv_k16_sb, 1)

/* iq4_xs: per tile (tw rows) and super-block, 136 * tw bytes, the file's:
 * 8 blocks of 16 nibble positions (as q4_0; indices of the IQ4 levels),
 * the 4 scales_l bytes, the 2 bytes of scales_h, tw f16 d. Per super-block
 * sum (sc_j - 32) x block j's sum (|.| < 2^27), then d x da, on Q8_K
 * activations as llama.cpp's IQ4_XS kernels. */
static inline __attribute__((always_inline)) void
kiln_rvv_iq4xs_sb(const uint8_t *ws, const kiln_q8k_block *as, size_t tw,
                  size_t s, size_t vl, float *ys, const int unused) {
  (void)unused;
  const vint8m2_t lut = __riscv_vle8_v_i8m2(kiln_g_iq4nl, 16);
  vint32m8_t isum = __riscv_vmv_v_x_i32m8(0, vl);
#pragma clang loop unroll(disable)
  for (int b = 0; b < 8; ++b) {
    /* sc_j: 4 bits of scales_l byte j / 2, 2 bits of scales_h's */
    const vuint8m2_t l = __riscv_vle8_v_u8m2(ws + (128 + b / 2) * tw + s, vl);
    const vuint8m2_t h = __riscv_vle8_v_u8m2(ws + (132 + b / 4) * tw + s, vl);
    const vuint8m2_t ls = __riscv_vor_vv_u8m2(
        __riscv_vand_vx_u8m2(__riscv_vsrl_vx_u8m2(l, 4 * (b % 2), vl), 15, vl),
        __riscv_vsll_vx_u8m2(
            __riscv_vand_vx_u8m2(__riscv_vsrl_vx_u8m2(h, 2 * (b % 4), vl), 3, vl), 4,
            vl),
        vl);
    const vint32m8_t sc = __riscv_vsub_vx_i32m8(
        __riscv_vreinterpret_v_u32m8_i32m8(__riscv_vzext_vf4_u32m8(ls, vl)), 32, vl);
    isum = __riscv_vmacc_vv_i32m8(
        isum, sc, kiln_rvv_iq4_block(ws + b * 16 * tw + s, tw, as->qs + 32 * b, lut, vl),
        vl);
  }
  kiln_rvv_ystep(ys, isum, ws + 134 * tw + 2 * s, as->d, vl);
}

KILN_RVV_KQUANT(iq4_xs, 136, __riscv_vsetvl_e8m2, kiln_rvv_iq4xs_sb, 0)

/* q6_k: per tile and super-block, 210 * tw bytes, the file's: 8 blocks of 24
 * byte positions, three runs of 8 (A, B, C: position k of each holds the
 * 6-bit values of elements k, k+8 and k+16 in bits 0..5 and two bits of
 * element k+24's in bits 6..7, its bits 0-1, 2-3 and 4-5 in A, B and C), the
 * 16 int8 scales, tw f16 d. Three of every four values are one AND away;
 * the values stay unsigned (0..63), each half's integer sum starts at -32 x
 * Q8_K's sum of the half, and the super-block's sum of scale x half sum
 * (|.| < 2^29) is scaled once. */
static inline __attribute__((always_inline)) void
kiln_rvv_q6k_sb(const uint8_t *ws, const kiln_q8k_block *as, size_t tw, size_t s,
                size_t vl, float *ys, const int unused) {
  (void)unused;
  vint32m4_t isum = __riscv_vmv_v_x_i32m4(0, vl);
#pragma clang loop unroll(disable)
  for (int b = 0; b < 8; ++b) {
    const uint8_t *wb = ws + b * 24 * tw + s;
    const int8_t *q = as->qs + 32 * b;
    vint32m4_t i0 = __riscv_vmv_v_x_i32m4(-32 * as->bsums[2 * b], vl);
    vint32m4_t i1 = __riscv_vmv_v_x_i32m4(-32 * as->bsums[2 * b + 1], vl);
    const uint8_t *pa = wb, *pb = wb + 8 * tw, *pc = wb + 16 * tw;
#pragma clang loop unroll(full)
    for (int k = 0; k < 8; k += 2) {
      /* four products of 63 x 127 fit int16 */
      vint16m2_t p0, p1;
#define KILN_RVV_SIX(K, FIRST)                                                 \
  do {                                                                         \
    const vuint8m1_t A = __riscv_vle8_v_u8m1(pa, vl),                          \
                     B = __riscv_vle8_v_u8m1(pb, vl),                          \
                     C = __riscv_vle8_v_u8m1(pc, vl);                          \
    pa += tw, pb += tw, pc += tw;                                              \
    const vint8m1_t e0 = __riscv_vreinterpret_v_u8m1_i8m1(                     \
        __riscv_vand_vx_u8m1(A, 63, vl));                                      \
    const vint8m1_t e8 = __riscv_vreinterpret_v_u8m1_i8m1(                     \
        __riscv_vand_vx_u8m1(B, 63, vl));                                      \
    const vint8m1_t e16 = __riscv_vreinterpret_v_u8m1_i8m1(                    \
        __riscv_vand_vx_u8m1(C, 63, vl));                                      \
    const vint8m1_t e24 = __riscv_vreinterpret_v_u8m1_i8m1(__riscv_vor_vv_u8m1(\
        __riscv_vor_vv_u8m1(                                                   \
            __riscv_vsrl_vx_u8m1(A, 6, vl),                                    \
            __riscv_vand_vx_u8m1(__riscv_vsrl_vx_u8m1(B, 4, vl), 0x0c, vl),    \
            vl),                                                               \
        __riscv_vand_vx_u8m1(__riscv_vsrl_vx_u8m1(C, 2, vl), 0x30, vl), vl));  \
    if (FIRST) {                                                               \
      p0 = __riscv_vwmul_vx_i16m2(e0, q[K], vl);                               \
      p1 = __riscv_vwmul_vx_i16m2(e16, q[(K) + 16], vl);                       \
    } else {                                                                   \
      p0 = __riscv_vwmacc_vx_i16m2(p0, q[K], e0, vl);                          \
      p1 = __riscv_vwmacc_vx_i16m2(p1, q[(K) + 16], e16, vl);                  \
    }                                                                          \
    p0 = __riscv_vwmacc_vx_i16m2(p0, q[(K) + 8], e8, vl);                      \
    p1 = __riscv_vwmacc_vx_i16m2(p1, q[(K) + 24], e24, vl);                    \
  } while (0)
      KILN_RVV_SIX(k, 1);
      KILN_RVV_SIX(k + 1, 0);
#undef KILN_RVV_SIX
      i0 = __riscv_vwadd_wv_i32m4(i0, p0, vl);
      i1 = __riscv_vwadd_wv_i32m4(i1, p1, vl);
    }
    /* times the halves' int8 scales, positions 2b and 2b + 1 */
    const int8_t *sc = (const int8_t *)ws + (192 + 2 * b) * tw + s;
    isum = __riscv_vmacc_vv_i32m4(
        isum, __riscv_vsext_vf4_i32m4(__riscv_vle8_v_i8m1(sc, vl), vl), i0, vl);
    isum = __riscv_vmacc_vv_i32m4(
        isum, __riscv_vsext_vf4_i32m4(__riscv_vle8_v_i8m1(sc + tw, vl), vl), i1,
        vl);
  }
  /* ys += isum * (d * da), d widened from f16 as kiln_rvv_h2f_m8 */
  const vuint32m4_t h = __riscv_vzext_vf2_u32m4(
      __riscv_vle16_v_u16m2((const uint16_t *)(ws + 208 * tw) + s, vl), vl);
  const vuint32m4_t bits = __riscv_vor_vv_u32m4(
      __riscv_vsll_vx_u32m4(__riscv_vand_vx_u32m4(h, 0x8000, vl), 16, vl),
      __riscv_vsll_vx_u32m4(__riscv_vand_vx_u32m4(h, 0x7fff, vl), 13, vl), vl);
  const vfloat32m4_t d = __riscv_vfmul_vf_f32m4(
      __riscv_vfmul_vf_f32m4(__riscv_vreinterpret_v_u32m4_f32m4(bits),
                             0x1p112f, vl),
      as->d, vl);
  __riscv_vse32_v_f32m4(
      ys,
      __riscv_vfmacc_vv_f32m4(__riscv_vle32_v_f32m4(ys, vl),
                              __riscv_vfcvt_f_x_v_f32m4(isum, vl), d, vl),
      vl);
}

KILN_RVV_KQUANT(q6_k, 210, __riscv_vsetvl_e8m1, kiln_rvv_q6k_sb, 0)

/* --- 8-bit weights (q8_0, q5_0, q5_1) ------------------------------------- */
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

/* k6: 0 one scale per row-block; 2 a scale and a min term. */
static inline __attribute__((always_inline)) void
kiln_rvv_q8(const float *x, int rows, int K, const uint8_t *w, int N,
            const float *bias, float *y, void *scratch, const int k6) {
  const kiln_q8_block *a = kiln_q8_rows(x, rows, K, scratch);
  const int nb = K / 32, ntile = (N + KILN_RVV_TILE - 1) / KILN_RVV_TILE;
  const size_t bpb = 32 + (k6 ? 8 : 4);
  float ad[KILN_RVV_CHUNK];
  int32_t asum[KILN_RVV_CHUNK];
  for (int r = 0; r < rows; ++r) {
    const kiln_q8_block *ar = a + (int64_t)r * nb;
    float *yr = y + (int64_t)r * N;
    for (int c0 = 0; c0 < nb; c0 += KILN_RVV_CHUNK) {
      const int nc = nb - c0 < KILN_RVV_CHUNK ? nb - c0 : KILN_RVV_CHUNK;
      kiln_rvv_act(ar + c0, nc, ad, asum, 0, 1);
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


#define KILN_RVV_Q8_WRAP(T, MODE)                                              \
  KILN_KERNEL void kiln_matmul_##T##_q8_0_128x_rvv(                            \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    kiln_rvv_q8(x, rows, K, w, N, bias, y, scratch, MODE);                     \
  }
KILN_RVV_Q8_WRAP(q5_0, 0)
KILN_RVV_Q8_WRAP(q5_1, 2)
KILN_Q4_1_AS_Q5_1(128x_rvv)

/* ---- float weights, f32 activations ------------------------------------ */

/* y[r][j] = x[r] . W[j] (+ bias[j]) for f32, f16 or bf16 rows of W in the
 * file's layout (row-major). A pass takes up to 4 weight rows against up to
 * 2 activation rows, 8 multiply-add chains of e32m2 vectors; the 4 weight
 * rows stay in cache while the activation rows pass. The chains run
 * tail-undisturbed, so the last, shorter vector of a row leaves the lanes
 * past it as they were, and each row sums its chain once at the end.
 *
 * rv64gv has no f16 conversion (Zvfhmin), so f16 widens in integers: the
 * magnitude moved to an f32's exponent and mantissa fields is the value
 * times 2^-112 (subnormal halves become subnormal floats), one multiply
 * makes it exact, and halves with an all-ones exponent (infinity, NaN)
 * keep it. bf16 is the high half of its f32. */
static inline vfloat32m2_t kiln_rvv_load_f32(const float *p, size_t vl) {
  return __riscv_vle32_v_f32m2(p, vl);
}
static inline vfloat32m2_t kiln_rvv_load_f16(const uint16_t *p, size_t vl) {
  const vuint32m2_t u = __riscv_vzext_vf2_u32m2(__riscv_vle16_v_u16m1(p, vl), vl);
  const vuint32m2_t mag = __riscv_vand_vx_u32m2(u, 0x7fff, vl);
  const vfloat32m2_t f = __riscv_vfmul_vf_f32m2(
      __riscv_vreinterpret_v_u32m2_f32m2(__riscv_vsll_vx_u32m2(mag, 13, vl)),
      0x1p112f, vl);
  vuint32m2_t bits = __riscv_vreinterpret_v_f32m2_u32m2(f);
  const vbool16_t special = __riscv_vmsgeu_vx_u32m2_b16(mag, 0x7c00, vl);
  bits = __riscv_vor_vx_u32m2_mu(special, bits, bits, 0x7f800000u, vl);
  const vuint32m2_t sign =
      __riscv_vsll_vx_u32m2(__riscv_vand_vx_u32m2(u, 0x8000, vl), 16, vl);
  return __riscv_vreinterpret_v_u32m2_f32m2(__riscv_vor_vv_u32m2(bits, sign, vl));
}
static inline vfloat32m2_t kiln_rvv_load_bf16(const uint16_t *p, size_t vl) {
  return __riscv_vreinterpret_v_u32m2_f32m2(__riscv_vsll_vx_u32m2(
      __riscv_vzext_vf2_u32m2(__riscv_vle16_v_u16m1(p, vl), vl), 16, vl));
}

static inline float kiln_rvv_sum(vfloat32m2_t v) {
  const size_t vlmax = __riscv_vsetvlmax_e32m2();
  return __riscv_vfmv_f_s_f32m1_f32(__riscv_vfredusum_vs_f32m2_f32m1(
      v, __riscv_vfmv_s_f_f32m1(0.0f, 1), vlmax));
}

#define KILN_RVV_FMLA_ROW(R, A0, A1, A2, A3)                                   \
  if ((R) < nr) {                                                              \
    const vfloat32m2_t xv = __riscv_vle32_v_f32m2(x + (int64_t)(R) * K + k, vl); \
    A0 = __riscv_vfmacc_vv_f32m2_tu(A0, w0, xv, vl);                           \
    if (nw > 1) A1 = __riscv_vfmacc_vv_f32m2_tu(A1, w1, xv, vl);               \
    if (nw > 2) A2 = __riscv_vfmacc_vv_f32m2_tu(A2, w2, xv, vl);               \
    if (nw > 3) A3 = __riscv_vfmacc_vv_f32m2_tu(A3, w3, xv, vl);               \
  }
#define KILN_RVV_FSTORE(R, C, A)                                               \
  if ((R) < nr && (C) < nw)                                                    \
    y[(int64_t)(R) * N + j + (C)] = kiln_rvv_sum(A) + (bias ? bias[j + (C)] : 0.0f);

#define KILN_RVV_FLOAT_MATMUL(T, ELEM)                                         \
  static inline __attribute__((always_inline)) void kiln_rvv_##T##_pass(       \
      const float *x, int nr, int K, const ELEM *wj, int nw, int N,            \
      const float *bias, float *y, int j) {                                    \
    const size_t vlmax = __riscv_vsetvlmax_e32m2();                            \
    vfloat32m2_t a00 = __riscv_vfmv_v_f_f32m2(0.0f, vlmax), a01 = a00,         \
                 a02 = a00, a03 = a00, a10 = a00, a11 = a00, a12 = a00,        \
                 a13 = a00;                                                    \
    for (int k = 0; k < K;) {                                                  \
      const size_t vl = __riscv_vsetvl_e32m2((size_t)(K - k));                 \
      const vfloat32m2_t w0 = kiln_rvv_load_##T(wj + k, vl),                   \
          w1 = nw > 1 ? kiln_rvv_load_##T(wj + K + k, vl) : w0,                \
          w2 = nw > 2 ? kiln_rvv_load_##T(wj + 2 * (int64_t)K + k, vl) : w0,   \
          w3 = nw > 3 ? kiln_rvv_load_##T(wj + 3 * (int64_t)K + k, vl) : w0;   \
      KILN_RVV_FMLA_ROW(0, a00, a01, a02, a03)                                 \
      KILN_RVV_FMLA_ROW(1, a10, a11, a12, a13)                                 \
      k += (int)vl;                                                            \
    }                                                                          \
    KILN_RVV_FSTORE(0, 0, a00) KILN_RVV_FSTORE(0, 1, a01)                      \
    KILN_RVV_FSTORE(0, 2, a02) KILN_RVV_FSTORE(0, 3, a03)                      \
    KILN_RVV_FSTORE(1, 0, a10) KILN_RVV_FSTORE(1, 1, a11)                      \
    KILN_RVV_FSTORE(1, 2, a12) KILN_RVV_FSTORE(1, 3, a13)                      \
  }                                                                            \
  KILN_FLOAT_2X4_DRIVER(matmul_##T##_f32_2x4_rvv, ELEM, kiln_rvv_##T##_pass)
KILN_RVV_FLOAT_MATMUL(f32, float)
KILN_RVV_FLOAT_MATMUL(f16, uint16_t)
KILN_RVV_FLOAT_MATMUL(bf16, uint16_t)
