/* kernels_sve.c - AArch64 SVE matmul microkernels, vector-length agnostic.
 *
 * Activations are quantized to Q8_0 with kiln_q8_rows, or for the K-quants
 * to Q8_K with kiln_q8k_rows (kernels_q8.c), so the numerics are those of
 * the scalar kernels; only float sums may be reordered.
 *
 * Weights arrive repacked by SveTarget::packWeight in 16-row tiles (N padded
 * to a multiple of 16 with zero rows), a layout that does not depend on the
 * vector length. A tile of nb = K/32 blocks holds nb quant blocks, then nb x 16
 * fp16 scales (row order). A quant block is a sequence of 64-byte "slices";
 * slice v holds, for row groups g = 0..3, 16 bytes: bytes 4v..4v+3 of rows
 * 4g, 4g+1, 4g+2, 4g+3 (each 128-bit segment is a NEON-style 4x4 tile):
 *
 *   q8_0 "16x4": 8 slices (512 bytes/block).
 *   q4_0 "16x4": 4 slices of GGML nibble bytes xor 0x88 (256 bytes/block); the
 *                low nibble shifted left by 4 and the high nibble masked with
 *                0xf0 are (q - 8) * 16 as int8.
 *   iq4_nl "16x4": 4 slices of GGML nibble bytes, the indices of the IQ4
 *                levels (256 bytes/block).
 *
 * A vector of P = min(VL, 64) bytes covers P/4 rows of a slice: the kernel
 * walks a tile in 64/P passes. svld1rq_s8 replicates 16 activation bytes into
 * every segment and svdot_lane_s32 picks the 4 bytes matching slice v.
 */
#include "kiln_kernels.h"

#include <arm_sve.h>

static inline float kiln_sve_h2f(uint16_t h) {
  __fp16 f;
  __builtin_memcpy(&f, &h, 2);
  return (float)f;
}

/* The IQ4 levels of the low (*l) and high (*h) nibbles of w: TBL on the 16
 * levels lut (svld1rq of kiln_g_iq4nl; indices 0..15 read its first 16
 * bytes at every vector length). */
static inline __attribute__((always_inline)) void
kiln_sve_levels(svint8_t lut, svuint8_t w, svint8_t *l, svint8_t *h) {
  const svbool_t all = svptrue_b8();
  *l = svtbl_s8(lut, svand_n_u8_x(all, w, 0xf));
  *h = svtbl_s8(lut, svlsr_n_u8_x(all, w, 4));
}

/* The integer dots S0, S1 of the two 16-element halves of an activation
 * block AQ with 8 int8 slice vectors: V0..V3 against its first half, V4..V7
 * against its second (two sdot chains). */
#define KILN_SVE_HALF_DOTS(S0, S1, AQ, V0, V1, V2, V3, V4, V5, V6, V7)         \
  svint32_t S0, S1;                                                            \
  {                                                                            \
    const svint8_t a0 = svld1rq_s8(all, (AQ)), a1 = svld1rq_s8(all, (AQ) + 16);\
    S0 = svdot_lane_s32(zero, V0, a0, 0);                                      \
    S1 = svdot_lane_s32(zero, V4, a1, 0);                                      \
    S0 = svdot_lane_s32(S0, V1, a0, 1);                                        \
    S1 = svdot_lane_s32(S1, V5, a1, 1);                                        \
    S0 = svdot_lane_s32(S0, V2, a0, 2);                                        \
    S1 = svdot_lane_s32(S1, V6, a1, 2);                                        \
    S0 = svdot_lane_s32(S0, V3, a0, 3);                                        \
    S1 = svdot_lane_s32(S1, V7, a1, 3);                                        \
  }

/* Integer dot of a q4_0 (x16) or iq4_nl 16x4 block's pass (4 slice
 * vectors, already split into low/high vectors) with one activation block. */
#define KILN_SVE_Q4_DOT(S, AQ)                                                 \
  svint32_t S;                                                                 \
  {                                                                            \
    KILN_SVE_HALF_DOTS(s0, s1, (AQ), l0, l1, l2, l3, h0, h1, h2, h3)           \
    S = svadd_s32_x(all, s0, s1);                                              \
    if (!iq4)                                                                  \
      S = svasr_n_s32_x(all, S, 4);                                            \
  }

#define KILN_SVE_Q8_DOT(S, AQ)                                                 \
  svint32_t S;                                                                 \
  {                                                                            \
    KILN_SVE_HALF_DOTS(s0, s1, (AQ), w0, w1, w2, w3, w4, w5, w6, w7)           \
    S = svadd_s32_x(all, s0, s1);                                              \
  }

/* Adds the block's scaled integer dot to accumulator F (activation row R). */
#define KILN_SVE_ACC(R, F, DOT)                                                \
  if ((R) < nr) {                                                              \
    const kiln_q8_block *ab = a + (int64_t)(R) * nb + b;                       \
    DOT(s, ab->qs)                                                             \
    F = svmla_f32_x(p32, F, svcvt_f32_s32_x(p32, s),                           \
                    svmul_n_f32_x(p32, dw, kiln_sve_h2f(ab->d)));              \
  }

#define KILN_SVE_STORE(R, F)                                                   \
  if ((R) < nr) {                                                              \
    svfloat32_t v = F;                                                         \
    if (bias)                                                                  \
      v = svadd_f32_x(pout, v, svld1_f32(pout, bias + j0));                    \
    svst1_f32(pout, y + (int64_t)(R) * N + j0, v);                             \
  }

/* The 8 int8 slices w0..w7 of a block at P (one byte per weight). */
#define KILN_SVE_SLICES8(P)                                                    \
  const svint8_t w0 = svld1_s8(pb, (P)), w1 = svld1_s8(pb, (P) + 64),          \
                 w2 = svld1_s8(pb, (P) + 128), w3 = svld1_s8(pb, (P) + 192),   \
                 w4 = svld1_s8(pb, (P) + 256), w5 = svld1_s8(pb, (P) + 320),   \
                 w6 = svld1_s8(pb, (P) + 384), w7 = svld1_s8(pb, (P) + 448);

/* A pass's four accumulators f0..f3 to activation rows 0..nr-1. */
#define KILN_SVE_STORE_ROWS                                                    \
  KILN_SVE_STORE(0, f0)                                                        \
  KILN_SVE_STORE(1, f1)                                                        \
  KILN_SVE_STORE(2, f2)                                                        \
  KILN_SVE_STORE(3, f3)

/* One pass (P/4 rows starting at tile row ro) of a 16-row tile against nr
 * activation rows (1..4, constant after inlining). Q4_0 (iq4 0): the
 * nibbles as (q - 8) x 16; IQ4_NL (1): the nibbles' levels, by TBL. */
static inline __attribute__((always_inline)) void
kiln_sve_nibble_pass(const uint8_t *tile, int nb, int off, const kiln_q8_block *a,
                     int nr, int iq4, svbool_t pb, svbool_t p32, svbool_t pout,
                     const float *bias, float *y, int N, int j0) {
  const svbool_t all = svptrue_b8();
  const svint32_t zero = svdup_n_s32(0);
  const svint8_t lut = svld1rq_s8(all, kiln_g_iq4nl);
  const int8_t *wq = (const int8_t *)tile + off;
  const uint16_t *ws = (const uint16_t *)(tile + (int64_t)nb * 256) + off / 4;
  svfloat32_t f0 = svdup_n_f32(0), f1 = f0, f2 = f0, f3 = f0;
  for (int b = 0; b < nb; ++b, wq += 256) {
    const svint8_t w0 = svld1_s8(pb, wq), w1 = svld1_s8(pb, wq + 64),
                   w2 = svld1_s8(pb, wq + 128), w3 = svld1_s8(pb, wq + 192);
    svint8_t l0, l1, l2, l3, h0, h1, h2, h3;
    if (iq4) {
      kiln_sve_levels(lut, svreinterpret_u8_s8(w0), &l0, &h0);
      kiln_sve_levels(lut, svreinterpret_u8_s8(w1), &l1, &h1);
      kiln_sve_levels(lut, svreinterpret_u8_s8(w2), &l2, &h2);
      kiln_sve_levels(lut, svreinterpret_u8_s8(w3), &l3, &h3);
    } else {
      l0 = svlsl_n_s8_x(all, w0, 4), l1 = svlsl_n_s8_x(all, w1, 4);
      l2 = svlsl_n_s8_x(all, w2, 4), l3 = svlsl_n_s8_x(all, w3, 4);
      h0 = svand_n_s8_x(all, w0, (int8_t)0xf0), h1 = svand_n_s8_x(all, w1, (int8_t)0xf0);
      h2 = svand_n_s8_x(all, w2, (int8_t)0xf0), h3 = svand_n_s8_x(all, w3, (int8_t)0xf0);
    }
    const svfloat32_t dw = svcvt_f32_f16_x(
        p32, svreinterpret_f16_u32(svld1uh_u32(p32, ws + 16 * b)));
    KILN_SVE_ACC(0, f0, KILN_SVE_Q4_DOT)
    KILN_SVE_ACC(1, f1, KILN_SVE_Q4_DOT)
    KILN_SVE_ACC(2, f2, KILN_SVE_Q4_DOT)
    KILN_SVE_ACC(3, f3, KILN_SVE_Q4_DOT)
  }
  KILN_SVE_STORE_ROWS
}
#define kiln_sve_q4_0_pass(tile, nb, off, a, nr, ...)                          \
  kiln_sve_nibble_pass(tile, nb, off, a, nr, 0, __VA_ARGS__)
#define kiln_sve_iq4_nl_pass(tile, nb, off, a, nr, ...)                        \
  kiln_sve_nibble_pass(tile, nb, off, a, nr, 1, __VA_ARGS__)

static inline __attribute__((always_inline)) void
kiln_sve_q8_0_pass(const uint8_t *tile, int nb, int off, const kiln_q8_block *a,
                   int nr, svbool_t pb, svbool_t p32, svbool_t pout,
                   const float *bias, float *y, int N, int j0) {
  const svbool_t all = svptrue_b8();
  const svint32_t zero = svdup_n_s32(0);
  const int8_t *wq = (const int8_t *)tile + off;
  const uint16_t *ws = (const uint16_t *)(tile + (int64_t)nb * 512) + off / 4;
  svfloat32_t f0 = svdup_n_f32(0), f1 = f0, f2 = f0, f3 = f0;
  for (int b = 0; b < nb; ++b, wq += 512) {
    KILN_SVE_SLICES8(wq)
    const svfloat32_t dw = svcvt_f32_f16_x(
        p32, svreinterpret_f16_u32(svld1uh_u32(p32, ws + 16 * b)));
    KILN_SVE_ACC(0, f0, KILN_SVE_Q8_DOT)
    KILN_SVE_ACC(1, f1, KILN_SVE_Q8_DOT)
    KILN_SVE_ACC(2, f2, KILN_SVE_Q8_DOT)
    KILN_SVE_ACC(3, f3, KILN_SVE_Q8_DOT)
  }
  KILN_SVE_STORE_ROWS
}

#define KILN_SVE_MATMUL(T, BLOCK_BYTES)                                        \
  KILN_KERNEL void kiln_matmul_##T##_q8_0_16x4_sve(                            \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    const kiln_q8_block *a = kiln_q8_rows(x, rows, K, scratch);                \
    const int nb = K / 32;                                                     \
    const int64_t tile_bytes = (int64_t)nb * ((BLOCK_BYTES) + 32);            \
    const int vb = (int)svcntb(), P = vb < 64 ? vb : 64;                       \
    const svbool_t pb = svwhilelt_b8_s32(0, P);                                \
    const svbool_t p32 = svwhilelt_b32_s32(0, P / 4);                          \
    for (int r0 = 0; r0 < rows; r0 += 4) {                                     \
      const int nr = rows - r0 < 4 ? rows - r0 : 4;                            \
      const kiln_q8_block *ar = a + (int64_t)r0 * nb;                          \
      float *yr = y + (int64_t)r0 * N;                                         \
      for (int t = 0; t * 16 < N; ++t) {                                       \
        const uint8_t *tile = w + (int64_t)t * tile_bytes;                     \
        for (int off = 0; off < 64 && t * 16 + off / 4 < N; off += P) {        \
          const int j0 = t * 16 + off / 4;                                     \
          const svbool_t pout = svand_b_z(p32, p32, svwhilelt_b32_s32(j0, N)); \
          switch (nr) {                                                        \
          case 1: kiln_sve_##T##_pass(tile, nb, off, ar, 1, pb, p32, pout,     \
                                      bias, yr, N, j0); break;                 \
          case 2: kiln_sve_##T##_pass(tile, nb, off, ar, 2, pb, p32, pout,     \
                                      bias, yr, N, j0); break;                 \
          case 3: kiln_sve_##T##_pass(tile, nb, off, ar, 3, pb, p32, pout,     \
                                      bias, yr, N, j0); break;                 \
          default: kiln_sve_##T##_pass(tile, nb, off, ar, 4, pb, p32, pout,    \
                                       bias, yr, N, j0); break;                \
          }                                                                    \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

KILN_SVE_MATMUL(q4_0, 256)
KILN_SVE_MATMUL(q8_0, 512)
KILN_SVE_MATMUL(iq4_nl, 256)

/* K-quants, 16-row tiles with the slice layout above (quant blocks of 32
 * elements, b = 0..nb-1, nb = K/32; super-blocks of 8):
 *
 *   q4_k "16x4": nb quant blocks of 4 slices (256 bytes): byte 4v+c of a row
 *                holds element 4v+c in its low nibble and 16+4v+c in its high
 *                nibble (unsigned 0..15, no xor); then nb x 16 u8 scales sc
 *                and nb x 16 u8 mins m, then per super-block 16 fp16 d and
 *                16 fp16 dmin (row order): 18.5 bytes per row-block, the
 *                file's 18 plus the unpacked 6-bit scales.
 *   q5_k "16x4": as q4_k, with 8 slices (512 bytes) of int8 values 0..31
 *                per quant block: 34.5 bytes per row-block (the file's 22).
 *   iq4_xs "16x4": as q4_k, the nibbles the indices of the IQ4 levels; then
 *                nb x 16 int8 scales ls - 32, then per super-block 16 fp16 d:
 *                17.25 bytes per row-block (the file's 17).
 *   q6_k "16x4": nb quant blocks of 8 slices (512 bytes) of int8 q - 32; then
 *                nb x 2 x 16 int8 sub-block scales (block b, half h, row);
 *                then per super-block 16 fp16 d (row order).
 *   q3_k "16x4": as q6_k, of the 3-bit values -4..3 and the scales sc - 32.
 *   q2_k "16x4": nb quant blocks of 8 slices of the 2-bit values 0..3; then
 *                nb x 2 x 16 scales (0..15) and nb x 2 x 16 mins (0..15);
 *                then per super-block 16 fp16 d, then 16 fp16 dmin.
 * The q5_k, q6_k, q3_k and q2_k tiles take one byte per weight (the files
 * 5.5, 6.6, 3.4 and 2.6 bits): built from nibbles and bit planes, SVE's
 * AND, ORR and shifts by an immediate, which overwrite their operand, cost
 * more cycles than the bytes save (docs/notes/benchmarks-history.md).
 */
/* The K-quants against Q8_K activations (one scale per 256 values, sums of
 * 16): as ggml's K-quant x Q8_K dots, each block's exact dot times its
 * scale (q6_k, q3_k, q2_k: each half's) and the activation sums times the
 * mins (q4_k, q5_k: a block's; q2_k: each half's) accumulate as integers
 * over the super-block (|sum| < 2^31), and the float step runs once per
 * super-block and row. Q4_K and Q5_K: */
/* A super-block's float step for the four rows: F += I x d x the row's
 * activation scale, minus M x dmin x it when MINS. */
#define KILN_SVE_SUPER_FLOAT(MINS)                                             \
  KILN_SVE_SUPER_ROW(0, f0, i0, m0, MINS)                                      \
  KILN_SVE_SUPER_ROW(1, f1, i1, m1, MINS)                                      \
  KILN_SVE_SUPER_ROW(2, f2, i2, m2, MINS)                                      \
  KILN_SVE_SUPER_ROW(3, f3, i3, m3, MINS)
#define KILN_SVE_SUPER_ROW(R, F, I, M, MINS)                                   \
  if ((R) < nr) {                                                              \
    const float ad = a[(int64_t)(R) * ns + s].d;                               \
    F = svmla_f32_x(p32, F, svcvt_f32_s32_x(p32, I), svmul_n_f32_x(p32, d, ad)); \
    if (MINS)                                                                  \
      F = svmls_f32_x(p32, F, svcvt_f32_s32_x(p32, M), svmul_n_f32_x(p32, dm, ad)); \
  }

/* `kind` 0 is Q4_K, 1 Q5_K, 2 IQ4_XS (Q4_K's nibbles as indices of the 16
 * signed levels, looked up by TBL; int8 scales ls - 32; no mins, so 16
 * scale bytes per block before the d: 17.25 bytes per row-block, the file's
 * 17 plus the unpacked 6-bit scales). */
static inline __attribute__((always_inline)) void
kiln_sve_kmin_pass(const uint8_t *tile, int nb, int off, const kiln_q8k_block *a,
                   int nr, int kind, svbool_t pb, svbool_t p32, svbool_t pout,
                   const float *bias, float *y, int N, int j0) {
  const svbool_t all = svptrue_b8();
  const svint32_t zero = svdup_n_s32(0);
  const int five = kind == 1, iq4 = kind == 2;
  const int ns = nb / 8, qb = five ? 512 : 256;
  const svint8_t lut = svld1rq_s8(all, kiln_g_iq4nl);
  const uint8_t *wq = tile + off;
  const uint8_t *SC = tile + (int64_t)nb * qb + off / 4;
  const uint8_t *MN = SC + (int64_t)nb * 16;
  const uint16_t *DH =
      (const uint16_t *)(tile + (int64_t)nb * (qb + (iq4 ? 16 : 32))) + off / 4;
  const uint16_t *DMH = DH + (int64_t)ns * 16;
  svfloat32_t f0 = svdup_n_f32(0), f1 = f0, f2 = f0, f3 = f0;
  for (int s = 0; s < ns; ++s) {
    svint32_t i0 = zero, i1 = zero, i2 = zero, i3 = zero; /* sum sc x dot */
    svint32_t m0 = zero, m1 = zero, m2 = zero, m3 = zero; /* sum m x block sum */
    for (int j = 0; j < 8; ++j, wq += qb) {
      const int b = s * 8 + j;
      svint8_t l0, l1, l2, l3, h0, h1, h2, h3;
      if (five) { /* int8 values 0..31, 8 slices */
        l0 = svld1_s8(pb, (const int8_t *)wq), l1 = svld1_s8(pb, (const int8_t *)wq + 64);
        l2 = svld1_s8(pb, (const int8_t *)wq + 128), l3 = svld1_s8(pb, (const int8_t *)wq + 192);
        h0 = svld1_s8(pb, (const int8_t *)wq + 256), h1 = svld1_s8(pb, (const int8_t *)wq + 320);
        h2 = svld1_s8(pb, (const int8_t *)wq + 384), h3 = svld1_s8(pb, (const int8_t *)wq + 448);
      } else if (iq4) { /* nibbles, 4 slices, as level indices */
        kiln_sve_levels(lut, svld1_u8(pb, wq), &l0, &h0);
        kiln_sve_levels(lut, svld1_u8(pb, wq + 64), &l1, &h1);
        kiln_sve_levels(lut, svld1_u8(pb, wq + 128), &l2, &h2);
        kiln_sve_levels(lut, svld1_u8(pb, wq + 192), &l3, &h3);
      } else { /* nibbles, 4 slices */
        const svuint8_t w0 = svld1_u8(pb, wq), w1 = svld1_u8(pb, wq + 64),
                        w2 = svld1_u8(pb, wq + 128), w3 = svld1_u8(pb, wq + 192);
        l0 = svreinterpret_s8_u8(svand_n_u8_x(all, w0, 0xf));
        l1 = svreinterpret_s8_u8(svand_n_u8_x(all, w1, 0xf));
        l2 = svreinterpret_s8_u8(svand_n_u8_x(all, w2, 0xf));
        l3 = svreinterpret_s8_u8(svand_n_u8_x(all, w3, 0xf));
        h0 = svreinterpret_s8_u8(svlsr_n_u8_x(all, w0, 4));
        h1 = svreinterpret_s8_u8(svlsr_n_u8_x(all, w1, 4));
        h2 = svreinterpret_s8_u8(svlsr_n_u8_x(all, w2, 4));
        h3 = svreinterpret_s8_u8(svlsr_n_u8_x(all, w3, 4));
      }
      const svint32_t sc = iq4 ? svld1sb_s32(p32, (const int8_t *)SC + 16 * b)
                               : svreinterpret_s32_u32(svld1ub_u32(p32, SC + 16 * b)),
                      mn = iq4 ? zero : svreinterpret_s32_u32(svld1ub_u32(p32, MN + 16 * b));
#define KILN_SVE_Q4K_ROW(R, I, M)                                              \
  if ((R) < nr) {                                                              \
    const kiln_q8k_block *ab = a + (int64_t)(R) * ns + s;                      \
    KILN_SVE_HALF_DOTS(s0, s1, ab->qs + 32 * j, l0, l1, l2, l3, h0, h1, h2, h3) \
    I = svmla_s32_x(p32, I, svadd_s32_x(p32, s0, s1), sc);                     \
    if (!iq4)                                                                  \
      M = svmla_n_s32_x(p32, M, mn, ab->bsums[2 * j] + ab->bsums[2 * j + 1]);  \
  }
      KILN_SVE_Q4K_ROW(0, i0, m0)
      KILN_SVE_Q4K_ROW(1, i1, m1)
      KILN_SVE_Q4K_ROW(2, i2, m2)
      KILN_SVE_Q4K_ROW(3, i3, m3)
#undef KILN_SVE_Q4K_ROW
    }
    const svfloat32_t d = svcvt_f32_f16_x(
                          p32, svreinterpret_f16_u32(svld1uh_u32(p32, DH + 16 * s))),
                      dm = iq4 ? d : svcvt_f32_f16_x(
                          p32, svreinterpret_f16_u32(svld1uh_u32(p32, DMH + 16 * s)));
    KILN_SVE_SUPER_FLOAT(!iq4)
  }
  KILN_SVE_STORE_ROWS
}

#define kiln_sve_q4_k_pass(tile, nb, off, a, nr, ...)                          \
  kiln_sve_kmin_pass(tile, nb, off, a, nr, 0, __VA_ARGS__)
#define kiln_sve_q5_k_pass(tile, nb, off, a, nr, ...)                          \
  kiln_sve_kmin_pass(tile, nb, off, a, nr, 1, __VA_ARGS__)
#define kiln_sve_iq4_xs_pass(tile, nb, off, a, nr, ...)                        \
  kiln_sve_kmin_pass(tile, nb, off, a, nr, 2, __VA_ARGS__)

/* Q6_K, Q3_K and Q2_K: int8 values, the two 16-element halves of a block
 * each with its own scale (Q2_K: and its min, times Q8_K's sum of those 16
 * activations). */
static inline __attribute__((always_inline)) void
kiln_sve_k16_pass(const uint8_t *tile, int nb, int off, const kiln_q8k_block *a,
                  int nr, int mins, svbool_t pb, svbool_t p32, svbool_t pout,
                  const float *bias, float *y, int N, int j0) {
  const svbool_t all = svptrue_b8();
  const svint32_t zero = svdup_n_s32(0);
  const int ns = nb / 8;
  const int8_t *wq = (const int8_t *)tile + off;
  const int8_t *sc = (const int8_t *)(tile + (int64_t)nb * 512) + off / 4;
  const int8_t *mn = sc + (int64_t)nb * 32;
  const uint16_t *DH =
      (const uint16_t *)(tile + (int64_t)nb * (mins ? 576 : 544)) + off / 4;
  const uint16_t *DMH = DH + (int64_t)ns * 16;
  svfloat32_t f0 = svdup_n_f32(0), f1 = f0, f2 = f0, f3 = f0;
  for (int s = 0; s < ns; ++s) {
    svint32_t i0 = zero, i1 = zero, i2 = zero, i3 = zero; /* sum sc x half dot */
    svint32_t m0 = zero, m1 = zero, m2 = zero, m3 = zero; /* sum m x half sum */
    for (int j = 0; j < 8; ++j, wq += 512) {
      const int b = s * 8 + j;
      KILN_SVE_SLICES8(wq)
      const svint32_t sc0 = svld1sb_s32(p32, sc + 32 * b),
                      sc1 = svld1sb_s32(p32, sc + 32 * b + 16);
      svint32_t mn0 = zero, mn1 = zero;
      if (mins)
        mn0 = svld1sb_s32(p32, mn + 32 * b), mn1 = svld1sb_s32(p32, mn + 32 * b + 16);
#define KILN_SVE_K16_ROW(R, I, M)                                              \
  if ((R) < nr) {                                                              \
    const kiln_q8k_block *ab = a + (int64_t)(R) * ns + s;                      \
    KILN_SVE_HALF_DOTS(s0, s1, ab->qs + 32 * j, w0, w1, w2, w3, w4, w5, w6, w7) \
    I = svmla_s32_x(p32, svmla_s32_x(p32, I, s0, sc0), s1, sc1);               \
    if (mins)                                                                  \
      M = svmla_n_s32_x(p32, svmla_n_s32_x(p32, M, mn0, ab->bsums[2 * j]), mn1, \
                        ab->bsums[2 * j + 1]);                                 \
  }
      KILN_SVE_K16_ROW(0, i0, m0)
      KILN_SVE_K16_ROW(1, i1, m1)
      KILN_SVE_K16_ROW(2, i2, m2)
      KILN_SVE_K16_ROW(3, i3, m3)
#undef KILN_SVE_K16_ROW
    }
    const svfloat32_t d = svcvt_f32_f16_x(
        p32, svreinterpret_f16_u32(svld1uh_u32(p32, DH + 16 * s)));
    svfloat32_t dm = d;
    if (mins)
      dm = svcvt_f32_f16_x(p32, svreinterpret_f16_u32(svld1uh_u32(p32, DMH + 16 * s)));
    KILN_SVE_SUPER_FLOAT(mins)
  }
  KILN_SVE_STORE_ROWS
}
#define kiln_sve_q6_k_pass(tile, nb, off, a, nr, ...)                          \
  kiln_sve_k16_pass(tile, nb, off, a, nr, 0, __VA_ARGS__)
#define kiln_sve_q3_k_pass kiln_sve_q6_k_pass
#define kiln_sve_q2_k_pass(tile, nb, off, a, nr, ...)                          \
  kiln_sve_k16_pass(tile, nb, off, a, nr, 1, __VA_ARGS__)

/* Tile bytes per 32-element block: 256 + 32 + 8 (q4_k), 512 + 32 + 8 (q5_k),
 * 512 + 32 + 4 (q6_k, q3_k), 512 + 64 + 8 (q2_k). */
#define KILN_SVE_MATMUL_ACT(T, ACT, ACT_T, ROWS, UNIT, BLOCK_BYTES)           \
  KILN_KERNEL void kiln_matmul_##T##_##ACT##_16x4_sve(                         \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    const ACT_T *a = ROWS(x, rows, K, scratch);                                \
    const int nb = K / 32, nu = K / (UNIT);                                    \
    const int64_t tile_bytes = (int64_t)nb * (BLOCK_BYTES);                    \
    const int vb = (int)svcntb(), P = vb < 64 ? vb : 64;                       \
    const svbool_t pb = svwhilelt_b8_s32(0, P);                                \
    const svbool_t p32 = svwhilelt_b32_s32(0, P / 4);                          \
    for (int r0 = 0; r0 < rows; r0 += 4) {                                     \
      const int nr = rows - r0 < 4 ? rows - r0 : 4;                            \
      const ACT_T *ar = a + (int64_t)r0 * nu;                                  \
      float *yr = y + (int64_t)r0 * N;                                         \
      for (int t = 0; t * 16 < N; ++t) {                                       \
        const uint8_t *tile = w + (int64_t)t * tile_bytes;                     \
        for (int off = 0; off < 64 && t * 16 + off / 4 < N; off += P) {        \
          const int j0 = t * 16 + off / 4;                                     \
          const svbool_t pout = svand_b_z(p32, p32, svwhilelt_b32_s32(j0, N)); \
          switch (nr) {                                                        \
          case 1: kiln_sve_##T##_pass(tile, nb, off, ar, 1, pb, p32, pout,     \
                                      bias, yr, N, j0); break;                 \
          case 2: kiln_sve_##T##_pass(tile, nb, off, ar, 2, pb, p32, pout,     \
                                      bias, yr, N, j0); break;                 \
          case 3: kiln_sve_##T##_pass(tile, nb, off, ar, 3, pb, p32, pout,     \
                                      bias, yr, N, j0); break;                 \
          default: kiln_sve_##T##_pass(tile, nb, off, ar, 4, pb, p32, pout,    \
                                       bias, yr, N, j0); break;                \
          }                                                                    \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

/* Against Q8_0 activations (ACT_T kiln_q8_block, one per 32 values) or Q8_K
 * ones (kiln_q8k_block, one per 256). */
#define KILN_SVE_MATMUL_K(T, BLOCK_BYTES)                                      \
  KILN_SVE_MATMUL_ACT(T, q8_0, kiln_q8_block, kiln_q8_rows, 32, BLOCK_BYTES)
#define KILN_SVE_MATMUL_Q8K(T, BLOCK_BYTES)                                    \
  KILN_SVE_MATMUL_ACT(T, q8_k, kiln_q8k_block, kiln_q8k_rows, 256, BLOCK_BYTES)

KILN_SVE_MATMUL_Q8K(q4_k, 296)
KILN_SVE_MATMUL_Q8K(q5_k, 552)
KILN_SVE_MATMUL_Q8K(iq4_xs, 276)
KILN_SVE_MATMUL_Q8K(q6_k, 548)
KILN_SVE_MATMUL_Q8K(q3_k, 548)
KILN_SVE_MATMUL_Q8K(q2_k, 584)

/* Q5_0 and Q5_1, "16x4" int8 tiles (sve_i8tiles): nb quant blocks of 8
 * slices (512 bytes) of int8 values (q5_0: q - 16; q5_1: 0..31), then nb x
 * 16 fp32 D (the block's scale d) and, for q5_1, nb x 16 fp32 M (-m,
 * subtracted times the activation block's sum), in row order. One byte per
 * weight: more than the files' 5.5-6 bits. */
#define KILN_SVE_I8_PASS(T, HASMIN)                                            \
  static inline __attribute__((always_inline)) void kiln_sve_##T##_pass(       \
      const uint8_t *tile, int nb, int off, const kiln_q8_block *a, int nr,    \
      svbool_t pb, svbool_t p32, svbool_t pout, const float *bias, float *y,   \
      int N, int j0) {                                                         \
    const svbool_t all = svptrue_b8(), p16 = svptrue_pat_b8(SV_VL16);          \
    const svint32_t zero = svdup_n_s32(0);                                     \
    const int8_t *wq = (const int8_t *)tile + off;                             \
    const float *D = (const float *)(tile + (int64_t)nb * 512) + off / 4;      \
    const float *M = D + (int64_t)nb * 16;                                     \
    svfloat32_t f0 = svdup_n_f32(0), f1 = f0, f2 = f0, f3 = f0;                \
    for (int b = 0; b < nb; ++b, wq += 512) {                                  \
      KILN_SVE_SLICES8(wq)                                                     \
      const svfloat32_t dd = svld1_f32(p32, D + 16 * b);                       \
      const svfloat32_t dm = HASMIN ? svld1_f32(p32, M + 16 * b) : dd;         \
      KILN_SVE_I8_ROW(0, f0, HASMIN)                                           \
      KILN_SVE_I8_ROW(1, f1, HASMIN)                                           \
      KILN_SVE_I8_ROW(2, f2, HASMIN)                                           \
      KILN_SVE_I8_ROW(3, f3, HASMIN)                                           \
    }                                                                          \
    KILN_SVE_STORE_ROWS                                                        \
  }
#define KILN_SVE_I8_ROW(R, F, HASMIN)                                          \
  if ((R) < nr) {                                                              \
    const kiln_q8_block *ab = a + (int64_t)(R) * nb + b;                       \
    DOT_I8(s, ab->qs)                                                          \
    svfloat32_t t = svmul_f32_x(p32, dd, svcvt_f32_s32_x(p32, s));             \
    if (HASMIN) {                                                              \
      const int64_t asum = svaddv_s8(p16, svld1_s8(p16, ab->qs)) +             \
                           svaddv_s8(p16, svld1_s8(p16, ab->qs + 16));         \
      t = svmls_n_f32_x(p32, t, dm, (float)asum);                              \
    }                                                                          \
    F = svmla_n_f32_x(p32, F, t, kiln_sve_h2f(ab->d));                         \
  }
#define DOT_I8 KILN_SVE_Q8_DOT
KILN_SVE_I8_PASS(q5_0, 0)
KILN_SVE_I8_PASS(q5_1, 1)
#undef DOT_I8
KILN_SVE_MATMUL_K(q5_0, 576)
KILN_SVE_MATMUL_K(q5_1, 640)
KILN_Q4_1_AS_Q5_1(16x4_sve)

/* ---- float weights, f32 activations ------------------------------------ */

/* y[r][j] = x[r] . W[j] (+ bias[j]) for f32, f16 or bf16 rows of W in the
 * file's layout (row-major, ELEM elements). A pass takes up to 4 weight rows
 * against up to 2 activation rows: 8 independent multiply-add chains, enough
 * to cover FMLA's latency on one activation row with 4 (decode). The 4
 * weight rows stay in L1 while the activation rows pass. The last
 * vector of a row is predicated, so any K is one loop. A 16-bit element is
 * loaded zero-extended into a 32-bit container: FCVT widens the f16 in its
 * low half, and bf16 is the high half of its f32. */
static inline svfloat32_t kiln_sve_load_f32(svbool_t pg, const float *p) {
  return svld1_f32(pg, p);
}
static inline svfloat32_t kiln_sve_load_f16(svbool_t pg, const uint16_t *p) {
  return svcvt_f32_f16_x(pg, svreinterpret_f16_u32(svld1uh_u32(pg, p)));
}
static inline svfloat32_t kiln_sve_load_bf16(svbool_t pg, const uint16_t *p) {
  return svreinterpret_f32_u32(svlsl_n_u32_x(pg, svld1uh_u32(pg, p), 16));
}

#define KILN_SVE_FMLA_ROW(R, XV, A0, A1, A2, A3)                               \
  if ((R) < nr) {                                                              \
    const svfloat32_t XV = svld1_f32(pg, x + (int64_t)(R) * K + k);            \
    A0 = svmla_f32_m(pg, A0, w0, XV);                                          \
    if (nw > 1) A1 = svmla_f32_m(pg, A1, w1, XV);                              \
    if (nw > 2) A2 = svmla_f32_m(pg, A2, w2, XV);                              \
    if (nw > 3) A3 = svmla_f32_m(pg, A3, w3, XV);                              \
  }
#define KILN_SVE_FSTORE(R, C, A)                                               \
  if ((R) < nr && (C) < nw)                                                    \
    y[(int64_t)(R) * N + j + (C)] =                                            \
        svaddv_f32(all, A) + (bias ? bias[j + (C)] : 0.0f);

#define KILN_SVE_FLOAT_MATMUL(T, ELEM)                                         \
  static inline __attribute__((always_inline)) void kiln_sve_##T##_pass(       \
      const float *x, int nr, int K, const ELEM *wj, int nw, int N,            \
      const float *bias, float *y, int j) {                                    \
    const svbool_t all = svptrue_b32();                                        \
    svfloat32_t a00 = svdup_n_f32(0), a01 = a00, a02 = a00, a03 = a00,         \
                a10 = a00, a11 = a00, a12 = a00, a13 = a00;                    \
    for (int k = 0; k < K; k += (int)svcntw()) {                               \
      const svbool_t pg = svwhilelt_b32(k, K);                                 \
      const svfloat32_t w0 = kiln_sve_load_##T(pg, wj + k),                    \
                        w1 = nw > 1 ? kiln_sve_load_##T(pg, wj + K + k) : w0,  \
                        w2 = nw > 2 ? kiln_sve_load_##T(pg, wj + 2 * (int64_t)K + k) : w0, \
                        w3 = nw > 3 ? kiln_sve_load_##T(pg, wj + 3 * (int64_t)K + k) : w0; \
      KILN_SVE_FMLA_ROW(0, x0, a00, a01, a02, a03)                             \
      KILN_SVE_FMLA_ROW(1, x1, a10, a11, a12, a13)                             \
    }                                                                          \
    KILN_SVE_FSTORE(0, 0, a00) KILN_SVE_FSTORE(0, 1, a01)                      \
    KILN_SVE_FSTORE(0, 2, a02) KILN_SVE_FSTORE(0, 3, a03)                      \
    KILN_SVE_FSTORE(1, 0, a10) KILN_SVE_FSTORE(1, 1, a11)                      \
    KILN_SVE_FSTORE(1, 2, a12) KILN_SVE_FSTORE(1, 3, a13)                      \
  }                                                                            \
  KILN_FLOAT_2X4_DRIVER(matmul_##T##_f32_2x4_sve, ELEM, kiln_sve_##T##_pass)
KILN_SVE_FLOAT_MATMUL(f32, float)
KILN_SVE_FLOAT_MATMUL(f16, uint16_t)
KILN_SVE_FLOAT_MATMUL(bf16, uint16_t)
