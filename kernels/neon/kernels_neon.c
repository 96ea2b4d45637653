/* kernels_neon.c - AArch64 NEON (dotprod) matmul microkernels.
 *
 * Activations are quantized to Q8_0 with kiln_q8_rows (kernels_q8.c), or to
 * Q8_K with kiln_q8k_rows for the Q4_K, Q5_K and Q6_K kernels, so the
 * numerics are those of the scalar kernels of the same activations; only
 * float sums may be reordered.
 *
 * Weights arrive repacked by NeonTarget::packWeight in 4-row tiles (N padded
 * to a multiple of 4 with zero rows). For a tile of rows j..j+3 and K/32 = nb
 * blocks the tile holds nb quant blocks followed by nb scale quads:
 *
 *   q8_0 "4x4": block b = 8 vectors of 16 bytes; vector v (0..7) holds
 *               bytes 4v..4v+3 of rows j, j+1, j+2, j+3 (128 bytes/block).
 *   q4_0 "4x4": block b = 4 vectors of 16 bytes; vector v (0..3) holds GGML
 *               nibble bytes 4v..4v+3 of rows j..j+3, each xor 0x88, so the
 *               low nibble shifted left by 4 is (q - 8) * 16 as int8 and the
 *               high nibble masked with 0xf0 likewise (64 bytes/block).
 *   then nb x 4 fp16 scales (rows j..j+3 of block b).
 *
 * vdotq_laneq_s32(acc, w, a, l) then adds, in lane i (row j+i), the product
 * of the row's 4 weights with activation bytes 4l..4l+3.
 */
#include "kiln_kernels.h"

#include <arm_neon.h>

static inline float kiln_neon_h2f(uint16_t h) {
  __fp16 f;
  __builtin_memcpy(&f, &h, 2);
  return (float)f;
}

/* Integer dot of one q4_0 tile block (4 rows) with one activation block,
 * scaled by 16 (the nibbles sit in the high half of each byte). Two chains
 * keep the sdot latency off the critical path. */
static inline __attribute__((always_inline)) int32x4_t
kiln_neon_q4_0_blk(int8x16_t l0, int8x16_t l1, int8x16_t l2, int8x16_t l3,
                   int8x16_t h0, int8x16_t h1, int8x16_t h2, int8x16_t h3,
                   const int8_t *aq) {
  const int8x16_t a0 = vld1q_s8(aq), a1 = vld1q_s8(aq + 16);
  int32x4_t s0 = vdotq_laneq_s32(vdupq_n_s32(0), l0, a0, 0);
  int32x4_t s1 = vdotq_laneq_s32(vdupq_n_s32(0), h0, a1, 0);
  s0 = vdotq_laneq_s32(s0, l1, a0, 1);
  s1 = vdotq_laneq_s32(s1, h1, a1, 1);
  s0 = vdotq_laneq_s32(s0, l2, a0, 2);
  s1 = vdotq_laneq_s32(s1, h2, a1, 2);
  s0 = vdotq_laneq_s32(s0, l3, a0, 3);
  s1 = vdotq_laneq_s32(s1, h3, a1, 3);
  return vaddq_s32(s0, s1);
}

static inline __attribute__((always_inline)) int32x4_t
kiln_neon_q8_0_blk(const int8_t *wq, const int8_t *aq) {
  const int8x16_t a0 = vld1q_s8(aq), a1 = vld1q_s8(aq + 16);
  int32x4_t s0 = vdotq_laneq_s32(vdupq_n_s32(0), vld1q_s8(wq), a0, 0);
  int32x4_t s1 = vdotq_laneq_s32(vdupq_n_s32(0), vld1q_s8(wq + 64), a1, 0);
  s0 = vdotq_laneq_s32(s0, vld1q_s8(wq + 16), a0, 1);
  s1 = vdotq_laneq_s32(s1, vld1q_s8(wq + 80), a1, 1);
  s0 = vdotq_laneq_s32(s0, vld1q_s8(wq + 32), a0, 2);
  s1 = vdotq_laneq_s32(s1, vld1q_s8(wq + 96), a1, 2);
  s0 = vdotq_laneq_s32(s0, vld1q_s8(wq + 48), a0, 3);
  s1 = vdotq_laneq_s32(s1, vld1q_s8(wq + 112), a1, 3);
  return vaddq_s32(s0, s1);
}

/* Stores 4 outputs (+ bias) of one activation row, only the first n < 4. */
static inline void kiln_neon_store4(float32x4_t v, const float *bias, float *y,
                                    int n) {
  if (n >= 4) {
    if (bias)
      v = vaddq_f32(v, vld1q_f32(bias));
    vst1q_f32(y, v);
    return;
  }
  float t[4];
  vst1q_f32(t, v);
  for (int i = 0; i < n; ++i)
    y[i] = t[i] + (bias ? bias[i] : 0.0f);
}

/* One 4-row weight tile against nr (1..4, a constant after inlining)
 * activation rows. */
static inline __attribute__((always_inline)) void
kiln_neon_q4_0_tile(const uint8_t *tile, int nb, const kiln_q8_block *a,
                    int nr, const float *bias, float *y, int N, int n) {
  const int8_t *wq = (const int8_t *)tile;
  const uint16_t *ws = (const uint16_t *)(tile + (int64_t)nb * 64);
  const int8x16_t m4 = vdupq_n_s8((int8_t)0xf0);
  float32x4_t f0 = vdupq_n_f32(0), f1 = f0, f2 = f0, f3 = f0;
  for (int b = 0; b < nb; ++b, wq += 64) {
    const int8x16_t w0 = vld1q_s8(wq), w1 = vld1q_s8(wq + 16),
                    w2 = vld1q_s8(wq + 32), w3 = vld1q_s8(wq + 48);
    const int8x16_t l0 = vshlq_n_s8(w0, 4), l1 = vshlq_n_s8(w1, 4),
                    l2 = vshlq_n_s8(w2, 4), l3 = vshlq_n_s8(w3, 4);
    const int8x16_t h0 = vandq_s8(w0, m4), h1 = vandq_s8(w1, m4),
                    h2 = vandq_s8(w2, m4), h3 = vandq_s8(w3, m4);
    const float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(ws + 4 * b)));
#define KILN_NEON_Q4_ROW(R, F)                                                 \
  {                                                                            \
    const kiln_q8_block *ab = a + (int64_t)(R) * nb + b;                       \
    int32x4_t s = kiln_neon_q4_0_blk(l0, l1, l2, l3, h0, h1, h2, h3, ab->qs);  \
    F = vfmaq_f32(F, vcvtq_n_f32_s32(s, 4),                                    \
                  vmulq_n_f32(dw, kiln_neon_h2f(ab->d)));                      \
  }
    KILN_NEON_Q4_ROW(0, f0)
    if (nr > 1) KILN_NEON_Q4_ROW(1, f1)
    if (nr > 2) KILN_NEON_Q4_ROW(2, f2)
    if (nr > 3) KILN_NEON_Q4_ROW(3, f3)
#undef KILN_NEON_Q4_ROW
  }
  kiln_neon_store4(f0, bias, y, n);
  if (nr > 1) kiln_neon_store4(f1, bias, y + N, n);
  if (nr > 2) kiln_neon_store4(f2, bias, y + 2 * (int64_t)N, n);
  if (nr > 3) kiln_neon_store4(f3, bias, y + 3 * (int64_t)N, n);
}

/* The blocks of a one-row tile, four a step (their activation scales da in
 * one vector, multiplied by lane) into the sums f0 and f1, then the rest.
 * STEP(F, SCALE) adds one block times the weight scales dw it loads times
 * SCALE into F and advances. */
#define KILN_NEON_TILE1_WALK(STEP)                                             \
  int b = 0;                                                                   \
  for (; b + 3 < nb; b += 4, da += 4) {                                        \
    const float32x4_t d4 = vld1q_f32(da);                                      \
    STEP(f0, vmulq_laneq_f32(dw, d4, 0))                                       \
    STEP(f1, vmulq_laneq_f32(dw, d4, 1))                                       \
    STEP(f0, vmulq_laneq_f32(dw, d4, 2))                                       \
    STEP(f1, vmulq_laneq_f32(dw, d4, 3))                                       \
  }                                                                            \
  for (; b < nb; ++b, ++da)                                                    \
    STEP(f0, vmulq_n_f32(dw, *da))

/* The matmul over 4-row tiles of TILE_BYTES_PER_BLOCK * nb bytes: one
 * activation row through kiln_neon_T_tile1 with its block scales converted
 * once, 2 to 4 through kiln_neon_T_tile. */
#define KILN_NEON_Q8_0_DRIVER(T, TILE_BYTES_PER_BLOCK)                         \
  KILN_KERNEL void kiln_matmul_##T##_q8_0_4x4_neon_dotprod(                    \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    const kiln_q8_block *a = kiln_q8_rows(x, rows, K, scratch);                \
    const int nb = K / 32;                                                     \
    const int64_t tile_bytes = (int64_t)nb * (TILE_BYTES_PER_BLOCK);           \
    for (int r0 = 0; r0 < rows; r0 += 4) {                                     \
      const int nr = rows - r0 < 4 ? rows - r0 : 4;                            \
      const kiln_q8_block *ar = a + (int64_t)r0 * nb;                          \
      float *yr = y + (int64_t)r0 * N;                                         \
      float da[nb];                                                            \
      if (nr == 1)                                                             \
        for (int b = 0; b < nb; ++b)                                           \
          da[b] = kiln_neon_h2f(ar[b].d);                                      \
      for (int j = 0; j < N; j += 4) {                                         \
        const uint8_t *t = w + (int64_t)(j / 4) * tile_bytes;                  \
        const float *bj = bias ? bias + j : 0;                                 \
        const int n = N - j < 4 ? N - j : 4;                                   \
        switch (nr) {                                                          \
        case 1: kiln_neon_##T##_tile1(t, nb, ar, da, bj, yr + j, n); break;    \
        case 2: kiln_neon_##T##_tile(t, nb, ar, 2, bj, yr + j, N, n); break;   \
        case 3: kiln_neon_##T##_tile(t, nb, ar, 3, bj, yr + j, N, n); break;   \
        default: kiln_neon_##T##_tile(t, nb, ar, 4, bj, yr + j, N, n); break;  \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

/* Decode: one activation row whose block scales da were converted once per
 * call, four blocks per step into two float sums. Each block is one chain of
 * eight sdot from zero (no chain merge); the pointers advance. */
static inline __attribute__((always_inline)) void
kiln_neon_q4_0_tile1(const uint8_t *tile, int nb, const kiln_q8_block *a,
                     const float *da, const float *bias, float *y, int n) {
  const int8_t *wq = (const int8_t *)tile;
  const uint16_t *ws = (const uint16_t *)(tile + (int64_t)nb * 64);
  const int8x16_t m4 = vdupq_n_s8((int8_t)0xf0);
  float32x4_t f0 = vdupq_n_f32(0), f1 = f0;
#define KILN_NEON_Q4_STEP(F, SCALE)                                            \
  {                                                                            \
    const int8x16_t w0 = vld1q_s8(wq), w1 = vld1q_s8(wq + 16),                 \
                    w2 = vld1q_s8(wq + 32), w3 = vld1q_s8(wq + 48);            \
    const int8x16_t a0 = vld1q_s8(a->qs), a1 = vld1q_s8(a->qs + 16);           \
    int32x4_t s = vdotq_laneq_s32(vdupq_n_s32(0), vshlq_n_s8(w0, 4), a0, 0);   \
    s = vdotq_laneq_s32(s, vshlq_n_s8(w1, 4), a0, 1);                          \
    s = vdotq_laneq_s32(s, vshlq_n_s8(w2, 4), a0, 2);                          \
    s = vdotq_laneq_s32(s, vshlq_n_s8(w3, 4), a0, 3);                          \
    s = vdotq_laneq_s32(s, vandq_s8(w0, m4), a1, 0);                           \
    s = vdotq_laneq_s32(s, vandq_s8(w1, m4), a1, 1);                           \
    s = vdotq_laneq_s32(s, vandq_s8(w2, m4), a1, 2);                           \
    s = vdotq_laneq_s32(s, vandq_s8(w3, m4), a1, 3);                           \
    const float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(ws)));   \
    F = vfmaq_f32(F, vcvtq_n_f32_s32(s, 4), SCALE);                            \
    wq += 64, ws += 4, ++a;                                                    \
  }
  KILN_NEON_TILE1_WALK(KILN_NEON_Q4_STEP)
#undef KILN_NEON_Q4_STEP
  kiln_neon_store4(vaddq_f32(f0, f1), bias, y, n);
}

KILN_NEON_Q8_0_DRIVER(q4_0, 72)

static inline __attribute__((always_inline)) void
kiln_neon_q8_0_tile(const uint8_t *tile, int nb, const kiln_q8_block *a,
                    int nr, const float *bias, float *y, int N, int n) {
  const int8_t *wq = (const int8_t *)tile;
  const uint16_t *ws = (const uint16_t *)(tile + (int64_t)nb * 128);
  float32x4_t f0 = vdupq_n_f32(0), f1 = f0, f2 = f0, f3 = f0;
  for (int b = 0; b < nb; ++b, wq += 128) {
    const float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(ws + 4 * b)));
#define KILN_NEON_Q8_ROW(R, F)                                                 \
  {                                                                            \
    const kiln_q8_block *ab = a + (int64_t)(R) * nb + b;                       \
    int32x4_t s = kiln_neon_q8_0_blk(wq, ab->qs);                              \
    F = vfmaq_f32(F, vcvtq_f32_s32(s), vmulq_n_f32(dw, kiln_neon_h2f(ab->d))); \
  }
    KILN_NEON_Q8_ROW(0, f0)
    if (nr > 1) KILN_NEON_Q8_ROW(1, f1)
    if (nr > 2) KILN_NEON_Q8_ROW(2, f2)
    if (nr > 3) KILN_NEON_Q8_ROW(3, f3)
#undef KILN_NEON_Q8_ROW
  }
  kiln_neon_store4(f0, bias, y, n);
  if (nr > 1) kiln_neon_store4(f1, bias, y + N, n);
  if (nr > 2) kiln_neon_store4(f2, bias, y + 2 * (int64_t)N, n);
  if (nr > 3) kiln_neon_store4(f3, bias, y + 3 * (int64_t)N, n);
}

/* Decode, as kiln_neon_q4_0_tile1. Each block's sdot chain starts from the
 * bits of 1.5 * 2^23, so that, its sum s being below 2^22 in magnitude
 * (32 * 128 * 127), the lanes are the floats 1.5 * 2^23 + s exactly and one
 * subtraction converts them: that is scvtf's exact result without its load
 * pipe cycle, which bounds this loop on in-order-load cores (Cortex-A57
 * machine model of LLVM's Cortex-A78). The weight vectors are read from two
 * base registers 16 bytes apart (the empty asm hides that they are), so
 * that they stay single 16-byte loads: one load pipe issues a pair (LDP) of
 * them as three micro-ops in two cycles, two loads as two in two, and on
 * cores with two load pipes either streams 32 bytes a cycle. */
static inline __attribute__((always_inline)) void
kiln_neon_q8_0_tile1(const uint8_t *tile, int nb, const kiln_q8_block *a,
                     const float *da, const float *bias, float *y, int n) {
  const int8_t *wq = (const int8_t *)tile;
  const uint16_t *ws = (const uint16_t *)(tile + (int64_t)nb * 128);
  const int32x4_t magic = vdupq_n_s32(0x4B400000);
  const float32x4_t offset = vdupq_n_f32(12582912.0f);
  float32x4_t f0 = vdupq_n_f32(0), f1 = f0;
#define KILN_NEON_Q8_STEP(F, SCALE)                                            \
  {                                                                            \
    const int8x16_t a0 = vld1q_s8(a->qs), a1 = vld1q_s8(a->qs + 16);           \
    const int8_t *wo = wq + 16;                                                \
    __asm__("" : "+r"(wo));                                                    \
    int32x4_t s = vdotq_laneq_s32(magic, vld1q_s8(wq), a0, 0);                 \
    s = vdotq_laneq_s32(s, vld1q_s8(wo), a0, 1);                               \
    s = vdotq_laneq_s32(s, vld1q_s8(wq + 32), a0, 2);                          \
    s = vdotq_laneq_s32(s, vld1q_s8(wo + 32), a0, 3);                          \
    s = vdotq_laneq_s32(s, vld1q_s8(wq + 64), a1, 0);                          \
    s = vdotq_laneq_s32(s, vld1q_s8(wo + 64), a1, 1);                          \
    s = vdotq_laneq_s32(s, vld1q_s8(wq + 96), a1, 2);                          \
    s = vdotq_laneq_s32(s, vld1q_s8(wo + 96), a1, 3);                          \
    const float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(ws)));   \
    F = vfmaq_f32(F, vsubq_f32(vreinterpretq_f32_s32(s), offset), SCALE);     \
    wq += 128, ws += 4, ++a;                                                   \
  }
  KILN_NEON_TILE1_WALK(KILN_NEON_Q8_STEP)
#undef KILN_NEON_Q8_STEP
  kiln_neon_store4(vaddq_f32(f0, f1), bias, y, n);
}

KILN_NEON_Q8_0_DRIVER(q8_0, 136)

/* ---- Five-bit and IQ4 weights, "4x4" (neon_blocks) --------------------- */

/* A block's 32 values as int8 vectors for vdotq_laneq_s32: w[v] elements
 * 4v+t, w[4+v] elements 16+4v+t of the tile's 4 rows (bytes 4i+t).
 * Five-bit: the nibbles at p, the fifth bits at p + 64 moved to bit 4, the
 * type's offset subtracted (values stay within int8). IQ4: the levels. */
static inline __attribute__((always_inline)) void
kiln_neon_u5(const uint8_t *p, uint8_t off, int8x16_t w[8]) {
  const uint8x16_t m4 = vdupq_n_u8(0xf), b4 = vdupq_n_u8(0x10),
                   o = vdupq_n_u8(off);
  const uint8x16_t h = vld1q_u8(p + 64);
  const uint8x16_t hl[4] = {vshlq_n_u8(h, 4), vshlq_n_u8(h, 3),
                            vshlq_n_u8(h, 2), vshlq_n_u8(h, 1)};
  const uint8x16_t hh[4] = {h, vshrq_n_u8(h, 1), vshrq_n_u8(h, 2),
                            vshrq_n_u8(h, 3)};
  for (int v = 0; v < 4; ++v) {
    const uint8x16_t q = vld1q_u8(p + 16 * v);
    w[v] = vreinterpretq_s8_u8(
        vsubq_u8(vorrq_u8(vandq_u8(q, m4), vandq_u8(hl[v], b4)), o));
    w[v + 4] = vreinterpretq_s8_u8(
        vsubq_u8(vorrq_u8(vshrq_n_u8(q, 4), vandq_u8(hh[v], b4)), o));
  }
}
static inline __attribute__((always_inline)) void
kiln_neon_iq4(const uint8_t *p, int8x16_t w[8]) {
  const uint8x16_t m4 = vdupq_n_u8(0xf);
  const int8x16_t lut = vld1q_s8(kiln_g_iq4nl);
  for (int v = 0; v < 4; ++v) {
    const uint8x16_t q = vld1q_u8(p + 16 * v);
    w[v] = vqtbl1q_s8(lut, vandq_u8(q, m4));
    w[v + 4] = vqtbl1q_s8(lut, vshrq_n_u8(q, 4));
  }
}
static inline __attribute__((always_inline)) int32x4_t
kiln_neon_dot8(const int8x16_t w[8], const int8_t *aq) {
  const int8x16_t a0 = vld1q_s8(aq), a1 = vld1q_s8(aq + 16);
  int32x4_t s0 = vdotq_laneq_s32(vdupq_n_s32(0), w[0], a0, 0);
  int32x4_t s1 = vdotq_laneq_s32(vdupq_n_s32(0), w[4], a1, 0);
  s0 = vdotq_laneq_s32(s0, w[1], a0, 1);
  s1 = vdotq_laneq_s32(s1, w[5], a1, 1);
  s0 = vdotq_laneq_s32(s0, w[2], a0, 2);
  s1 = vdotq_laneq_s32(s1, w[6], a1, 2);
  s0 = vdotq_laneq_s32(s0, w[3], a0, 3);
  s1 = vdotq_laneq_s32(s1, w[7], a1, 3);
  return vaddq_s32(s0, s1);
}
static inline int32_t kiln_neon_asum(const int8_t *aq) {
  const int8x16_t ones = vdupq_n_s8(1);
  return vaddvq_s32(vdotq_s32(vdotq_s32(vdupq_n_s32(0), ones, vld1q_s8(aq)),
                              ones, vld1q_s8(aq + 16)));
}
static inline float32x4_t kiln_neon_h4(const uint8_t *p) {
  return vcvt_f32_f16(vreinterpret_f16_u8(vld1_u8(p)));
}

/* The matmul over 4-row tiles of TILE_BYTES (an expression of K and nb)
 * that calls kiln_neon_T_tile for 2 to 4 activation rows at a time and
 * TILE1 for one. Each activation block's scale da and, when HASMIN (a min
 * term times the block's sum), its scale times sum ms are computed once per
 * group of rows, not once per tile, as pairs: dm[2i] = da, dm[2i + 1] = ms. */
#define KILN_NEON_TILES_DRIVER(T, TILE_BYTES, HASMIN, TILE1)                   \
  KILN_KERNEL void kiln_matmul_##T##_q8_0_4x4_neon_dotprod(                    \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    const kiln_q8_block *a = kiln_q8_rows(x, rows, K, scratch);                \
    const int nb = K / 32;                                                     \
    const int64_t tile_bytes = TILE_BYTES;                                     \
    for (int r0 = 0; r0 < rows; r0 += 4) {                                     \
      const int nr = rows - r0 < 4 ? rows - r0 : 4;                            \
      const kiln_q8_block *ar = a + (int64_t)r0 * nb;                          \
      float *yr = y + (int64_t)r0 * N;                                         \
      float dm[8 * nb];                                                        \
      for (int i = 0; i < nr * nb; ++i) {                                      \
        dm[2 * i] = kiln_neon_h2f(ar[i].d);                                    \
        dm[2 * i + 1] =                                                        \
            (HASMIN) ? dm[2 * i] * (float)kiln_neon_asum(ar[i].qs) : 0.0f;     \
      }                                                                        \
      for (int j = 0; j < N; j += 4) {                                         \
        const uint8_t *t = w + (int64_t)(j / 4) * tile_bytes;                  \
        const float *bj = bias ? bias + j : 0;                                 \
        const int n = N - j < 4 ? N - j : 4;                                   \
        switch (nr) {                                                          \
        case 1: TILE1(t, nb, ar, dm, bj, yr + j, N, n); break;                 \
        case 2: kiln_neon_##T##_tile(t, nb, ar, dm, 2, bj, yr + j, N, n); break; \
        case 3: kiln_neon_##T##_tile(t, nb, ar, dm, 3, bj, yr + j, N, n); break; \
        default: kiln_neon_##T##_tile(t, nb, ar, dm, 4, bj, yr + j, N, n); break; \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

/* Per type: the block's quants in the tile (QUANTS), its decoding (DECODE),
 * and its per-row scale ds and min term mt (SCALES; mt multiplies the
 * activation block's sum). t is the tile, b the 32-element block. */
#define KILN_NEON_Q5_0_QUANTS(t, b) ((t) + (int64_t)(b) * 88)
#define KILN_NEON_Q5_0_DECODE(p, w) kiln_neon_u5(p, 16, w)
#define KILN_NEON_Q5_0_SCALES(t, b, ds, mt) (ds = kiln_neon_h4((t) + (int64_t)(b) * 88 + 80))
#define KILN_NEON_Q5_1_QUANTS(t, b) ((t) + (int64_t)(b) * 96)
#define KILN_NEON_Q5_1_DECODE(p, w) kiln_neon_u5(p, 0, w)
#define KILN_NEON_Q5_1_SCALES(t, b, ds, mt)                                    \
  (ds = kiln_neon_h4((t) + (int64_t)(b) * 96 + 80),                            \
   mt = kiln_neon_h4((t) + (int64_t)(b) * 96 + 88))
#define KILN_NEON_IQ4_NL_QUANTS(t, b) ((t) + (int64_t)(b) * 72)
#define KILN_NEON_IQ4_NL_DECODE(p, w) kiln_neon_iq4(p, w)
#define KILN_NEON_IQ4_NL_SCALES(t, b, ds, mt) (ds = kiln_neon_h4((t) + (int64_t)(b) * 72 + 64))

/* One 4-row tile against nr (1..4, constant after inlining) activation rows:
 * each block decoded once, the float steps those of the scalar kernels. */
#define KILN_NEON_BLOCK_MATMUL(T, U, TILE_BYTES_PER_BLOCK, HASMIN, TILE1)      \
  static inline __attribute__((always_inline)) void kiln_neon_##T##_tile(      \
      const uint8_t *t, int nb, const kiln_q8_block *a, const float *dm,      \
      int nr, const float *bias, float *y, int N, int n) {                     \
    float32x4_t f[4] = {vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0),        \
                        vdupq_n_f32(0)};                                       \
    for (int b = 0; b < nb; ++b) {                                             \
      int8x16_t w[8];                                                          \
      KILN_NEON_##U##_DECODE(KILN_NEON_##U##_QUANTS(t, b), w);                 \
      float32x4_t ds, mt = vdupq_n_f32(0);                                     \
      KILN_NEON_##U##_SCALES(t, b, ds, mt);                                    \
      for (int r = 0; r < nr; ++r) {                                           \
        const int64_t i = (int64_t)r * nb + b;                                 \
        f[r] = vfmaq_f32(f[r], vcvtq_f32_s32(kiln_neon_dot8(w, a[i].qs)),      \
                         vmulq_n_f32(ds, dm[2 * i]));                          \
        if (HASMIN)                                                            \
          f[r] = vfmaq_n_f32(f[r], mt, dm[2 * i + 1]);                         \
      }                                                                        \
    }                                                                          \
    for (int r = 0; r < nr; ++r)                                               \
      kiln_neon_store4(f[r], bias, y + (int64_t)r * N, n);                     \
  }                                                                            \
  static inline __attribute__((always_inline)) void kiln_neon_##T##_tile_one( \
      const uint8_t *t, int nb, const kiln_q8_block *a, const float *dm,      \
      const float *bias, float *y, int N, int n) {                             \
    kiln_neon_##T##_tile(t, nb, a, dm, 1, bias, y, N, n);                      \
  }                                                                            \
  KILN_NEON_TILES_DRIVER(T, (int64_t)nb * (TILE_BYTES_PER_BLOCK), HASMIN, TILE1)

KILN_NEON_BLOCK_MATMUL(q5_0, Q5_0, 88, 0, kiln_neon_q5_0_tile_one)
KILN_NEON_BLOCK_MATMUL(q5_1, Q5_1, 96, 1, kiln_neon_q5_1_tile_one)
KILN_Q4_1_AS_Q5_1(4x4_neon_dotprod)
KILN_NEON_BLOCK_MATMUL(iq4_nl, IQ4_NL, 72, 0, kiln_neon_iq4_nl_tile_one)

/* ---- Q4_K, Q5_K and IQ4_XS against Q8_K activations, "4x4" (neon_blocks) */
/* The tile's super-block (q4_k 592 bytes, q5_k 720: 4 fp16 d, 4 fp16 dmin,
 * 8x4 u8 scales, 8x4 u8 mins, then 8 blocks: q4_k's 4 vectors of nibbles,
 * vector v byte 4i+t holding element 4v+t of row i in its low nibble and
 * 16+4v+t in its high one; q5_k's 5 vectors of 5-bit values, below)
 * against the activation row's super-block (one float scale, 256 int8, 16
 * sums of 16): as ggml's K-quant x Q8_K dots, each block's exact dot times
 * its scale and each block's activation sum times its min accumulate as
 * integers over the super-block (|sum| < 2^31), and the float steps run
 * once per super-block. One chain of eight sdot per block and row.
 *
 * Q4_K stores the scales' differences D_j = sc_j - sc_j+4 (D_j = sc_j for
 * j >= 4; |D| <= 63 is an int8). One row (decode) sums by parts: four sdot
 * chains, one per block j mod 4, run through the super-block without
 * restarting from zero, and after block j its chain times D_j adds the
 * block's dot times sc_j and takes back what the earlier blocks of the chain
 * added too much (sum_j dot_j sc_j = sum_j X_j D_j, X_j the chain after j;
 * exact modulo 2^32, the sum fits int32). Several rows, whose chains would
 * not fit the registers, add D_j + D_j+4 back to the scales.
 *
 * Q5_K values enter the dot as 8 (q - 16), the int8 (q ^ 16) << 3. A block
 * is five vectors A..E (byte 4i+t): bits 3..7 of A..D hold q ^ 16 of
 * elements 4c+t (c = 0..3), of E element 16+t, one AND each; their bits
 * 0..2 hold the three others' x = q ^ 16 (elements 20+t, 24+t, 28+t): x5 =
 * A[0..2] and D[0..1], x6 = B[0..2] and E[0..1], x7 = C[0..2], D[2] and
 * E[2], which SHL with SLI or SRI move to bits 3..7: 9 shifts and 5 ANDs
 * a block, against 19 shifts and 4 ANDs for nibbles and a plane of fifth
 * bits (shifts issue on one vector pipe of the Neoverse cores). So sum
 * q a = S / 8 + 16 sum a, and the super-block adds 128 x sum(scale x block
 * sum) to its scaled sums S.
 *
 * IQ4_XS (kind 2; 552 bytes: 4 fp16 d, 8x4 int8 scale differences as
 * Q4_K's, then Q4_K's nibble blocks) looks its nibbles up in the 16 signed
 * levels (TBL), so its values enter the dot as they are; it has no min. */
static inline __attribute__((always_inline)) void
kiln_neon_kmin_tile(const uint8_t *t, int nsb, const kiln_q8k_block *a, int nr,
                    int kind, const float *bias, float *y, int N, int n) {
  const int five = kind == 1, iq4 = kind == 2;
  const uint8x16_t m4 = vdupq_n_u8(0xf), m5 = vdupq_n_u8(0xf8);
  const int8x16_t lut = vld1q_s8(kiln_g_iq4nl);
  /* Q4_K and IQ4_XS, one row: four sdot chains through the super-block */
  const int chains = !five && nr == 1;
  float32x4_t f[4] = {vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0),
                      vdupq_n_f32(0)};
  for (int sb = 0; sb < nsb; ++sb, t += five ? 720 : iq4 ? 552 : 592) {
    const uint8x16_t sc01 = vld1q_u8(t + (iq4 ? 8 : 16)), sc23 = vld1q_u8(t + (iq4 ? 24 : 32));
    const uint8x16_t mn01 = iq4 ? vdupq_n_u8(0) : vld1q_u8(t + 48),
                     mn23 = iq4 ? vdupq_n_u8(0) : vld1q_u8(t + 64);
    int32x4_t ai[4], am[4], ab[4], X[4][4];
    int16x8_t bs[4];
    for (int r = 0; r < nr; ++r) {
      const int16_t *b16 = a[(int64_t)r * nsb + sb].bsums;
      bs[r] = vpaddq_s16(vld1q_s16(b16), vld1q_s16(b16 + 8));
      ai[r] = X[r][0] = X[r][1] = X[r][2] = X[r][3] = vdupq_n_s32(0);
      am[r] = vdupq_n_s32(0);
      ab[r] = vdupq_n_s32(0);
    }
    const uint8_t *q = t + (iq4 ? 40 : 80);
#define KILN_NEON_KMIN_STEP(J, S16, M16, SC, MN)                               \
  {                                                                            \
    const uint8x16_t w0 = vld1q_u8(q), w1 = vld1q_u8(q + 16),                  \
                     w2 = vld1q_u8(q + 32), w3 = vld1q_u8(q + 48);             \
    uint8x16_t u[8];                                                           \
    if (five) { /* w0..w3 and E = q + 64 are the vectors A..E */             \
      const uint8x16_t e = vld1q_u8(q + 64);                                   \
      u[0] = vandq_u8(w0, m5), u[1] = vandq_u8(w1, m5);                        \
      u[2] = vandq_u8(w2, m5), u[3] = vandq_u8(w3, m5);                        \
      u[4] = vandq_u8(e, m5);                                                  \
      u[5] = vsliq_n_u8(vshlq_n_u8(w0, 3), w3, 6);                             \
      u[6] = vsliq_n_u8(vshlq_n_u8(w1, 3), e, 6);                              \
      u[7] = vsriq_n_u8(vsriq_n_u8(vshlq_n_u8(e, 5), vshlq_n_u8(w3, 5), 1),    \
                        vshlq_n_u8(w2, 5), 2);                                 \
    } else {                                                                   \
      u[0] = vandq_u8(w0, m4), u[1] = vandq_u8(w1, m4);                        \
      u[2] = vandq_u8(w2, m4), u[3] = vandq_u8(w3, m4);                        \
      u[4] = vshrq_n_u8(w0, 4), u[5] = vshrq_n_u8(w1, 4);                      \
      u[6] = vshrq_n_u8(w2, 4), u[7] = vshrq_n_u8(w3, 4);                      \
      if (iq4)                                                                 \
        for (int c = 0; c < 8; ++c)                                            \
          u[c] = vreinterpretq_u8_s8(vqtbl1q_s8(lut, u[c]));                   \
    }                                                                          \
    const int32x4_t sc = SC;                                                   \
    const int16x4_t sc4 = S16, mn4 = vreinterpret_s16_u16(MN);                 \
    for (int r = 0; r < nr; ++r) {                                             \
      const int8_t *aq = a[(int64_t)r * nsb + sb].qs + 32 * (J);               \
      const int8x16_t a0 = vld1q_s8(aq), a1 = vld1q_s8(aq + 16);               \
      int32x4_t s = vdotq_laneq_s32(chains ? X[r][(J) % 4] : vdupq_n_s32(0),   \
                                    vreinterpretq_s8_u8(u[0]), a0, 0);         \
      s = vdotq_laneq_s32(s, vreinterpretq_s8_u8(u[1]), a0, 1);                \
      s = vdotq_laneq_s32(s, vreinterpretq_s8_u8(u[2]), a0, 2);                \
      s = vdotq_laneq_s32(s, vreinterpretq_s8_u8(u[3]), a0, 3);                \
      s = vdotq_laneq_s32(s, vreinterpretq_s8_u8(u[4]), a1, 0);                \
      s = vdotq_laneq_s32(s, vreinterpretq_s8_u8(u[5]), a1, 1);                \
      s = vdotq_laneq_s32(s, vreinterpretq_s8_u8(u[6]), a1, 2);                \
      s = vdotq_laneq_s32(s, vreinterpretq_s8_u8(u[7]), a1, 3);                \
      ai[r] = vmlaq_s32(ai[r], s, sc);                                         \
      if (chains)                                                              \
        X[r][(J) % 4] = s;                                                     \
      if (!iq4)                                                                \
        am[r] = vmlal_laneq_s16(am[r], mn4, bs[r], J);                         \
      if (five)                                                                \
        ab[r] = vmlal_laneq_s16(ab[r], sc4, bs[r], J);                         \
    }                                                                          \
    q += five ? 80 : 64;                                                       \
  }
#define KILN_NEON_KMIN_PAIR(J, S8, M8)                                         \
  {                                                                            \
    const int16x8_t s16 = S8;                                                  \
    const uint16x8_t m16 = M8;                                                 \
    KILN_NEON_KMIN_STEP(J, vget_low_s16(s16), vget_low_u16(m16),               \
                        vmovl_s16(vget_low_s16(s16)), vget_low_u16(m16))       \
    KILN_NEON_KMIN_STEP(J + 1, vget_high_s16(s16), vget_high_u16(m16),         \
                        vmovl_high_s16(s16), vget_high_u16(m16))               \
  }
    /* Q4_K's and IQ4_XS's scale bytes are differences (above); with several
     * rows their sums give the scales back, one addition. */
    const int8x16_t ss23 = vreinterpretq_s8_u8(sc23),
                    ss01 = five || chains ? vreinterpretq_s8_u8(sc01)
                                          : vaddq_s8(vreinterpretq_s8_u8(sc01), ss23);
    KILN_NEON_KMIN_PAIR(0, vmovl_s8(vget_low_s8(ss01)), vmovl_u8(vget_low_u8(mn01)))
    KILN_NEON_KMIN_PAIR(2, vmovl_high_s8(ss01), vmovl_high_u8(mn01))
    KILN_NEON_KMIN_PAIR(4, vmovl_s8(vget_low_s8(ss23)), vmovl_u8(vget_low_u8(mn23)))
    KILN_NEON_KMIN_PAIR(6, vmovl_high_s8(ss23), vmovl_high_u8(mn23))
#undef KILN_NEON_KMIN_PAIR
#undef KILN_NEON_KMIN_STEP
    const float32x4_t d = kiln_neon_h4(t), dmin = kiln_neon_h4(t + 8);
    for (int r = 0; r < nr; ++r) {
      const float da = a[(int64_t)r * nsb + sb].d;
      const float32x4_t fi =
          five ? vcvtq_n_f32_s32(vaddq_s32(ai[r], vshlq_n_s32(ab[r], 7)), 3)
               : vcvtq_f32_s32(ai[r]);
      f[r] = vfmaq_f32(f[r], fi, vmulq_n_f32(d, da));
      if (!iq4)
        f[r] = vfmsq_f32(f[r], vcvtq_f32_s32(am[r]), vmulq_n_f32(dmin, da));
    }
  }
  for (int r = 0; r < nr; ++r)
    kiln_neon_store4(f[r], bias, y + (int64_t)r * N, n);
}

/* The matmul over 4-row tiles of SB_BYTES per super-block against Q8_K
 * activations, up to 4 rows at a time through kiln_neon_T_tile. */
#define KILN_NEON_Q8K_DRIVER(T, SB_BYTES)                                      \
  KILN_KERNEL void kiln_matmul_##T##_q8_k_4x4_neon_dotprod(                    \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    const kiln_q8k_block *a = kiln_q8k_rows(x, rows, K, scratch);              \
    const int nsb = K / 256;                                                   \
    const int64_t tile_bytes = (int64_t)nsb * (SB_BYTES);                      \
    for (int r0 = 0; r0 < rows; r0 += 4) {                                     \
      const int nr = rows - r0 < 4 ? rows - r0 : 4;                            \
      const kiln_q8k_block *ar = a + (int64_t)r0 * nsb;                        \
      float *yr = y + (int64_t)r0 * N;                                         \
      for (int j = 0; j < N; j += 4) {                                         \
        const uint8_t *t = w + (int64_t)(j / 4) * tile_bytes;                  \
        const float *bj = bias ? bias + j : 0;                                 \
        const int n = N - j < 4 ? N - j : 4;                                   \
        switch (nr) {                                                          \
        case 1: kiln_neon_##T##_tile(t, nsb, ar, 1, bj, yr + j, N, n); break;  \
        case 2: kiln_neon_##T##_tile(t, nsb, ar, 2, bj, yr + j, N, n); break;  \
        case 3: kiln_neon_##T##_tile(t, nsb, ar, 3, bj, yr + j, N, n); break;  \
        default: kiln_neon_##T##_tile(t, nsb, ar, 4, bj, yr + j, N, n); break; \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

/* kiln_neon_T_tile: a shared tile FN with its type argument ARG. */
#define KILN_NEON_TILE_OF(T, FN, ARG)                                          \
  static inline __attribute__((always_inline)) void kiln_neon_##T##_tile(      \
      const uint8_t *t, int nsb, const kiln_q8k_block *a, int nr,              \
      const float *bias, float *y, int N, int n) {                             \
    FN(t, nsb, a, nr, ARG, bias, y, N, n);                                     \
  }
KILN_NEON_TILE_OF(q4_k, kiln_neon_kmin_tile, 0)
KILN_NEON_TILE_OF(q5_k, kiln_neon_kmin_tile, 1)
KILN_NEON_TILE_OF(iq4_xs, kiln_neon_kmin_tile, 2)
KILN_NEON_Q8K_DRIVER(q4_k, 592)
KILN_NEON_Q8K_DRIVER(q5_k, 720)
KILN_NEON_Q8K_DRIVER(iq4_xs, 552)

/* ---- Q2_K, Q3_K and Q6_K, "4x4" (neon_blocks) ------------------------- */
/* The K-quants whose scales cover 16 elements. Per super-block: metadata
 * (q3_k, q6_k: 4 fp16 d, 16x4 int8 scales (q3_k: minus 32); q2_k: 4 fp16 d,
 * 4 fp16 dmin, 16x4 u8 scales, 16x4 u8 mins) and 8 blocks, q6_k's metadata
 * after its blocks, the others' before. q2_k blocks: 2 vectors of two-bit
 * planes (vector h, byte 4i+t bits 2c..2c+1: element 16h+4c+t of row i).
 * q3_k and q6_k blocks: see kiln_neon_u3 and kiln_neon_u6. The 16-element
 * sub-blocks' scales multiply the two halves' exact integer sums. */
static inline __attribute__((always_inline)) void
kiln_neon_u2(const uint8_t *p, int8x16_t w[8]) {
  const uint8x16_t m2 = vdupq_n_u8(3);
  const uint8x16_t l0 = vld1q_u8(p), l1 = vld1q_u8(p + 16);
  const uint8x16_t lo[4] = {l0, vshrq_n_u8(l0, 2), vshrq_n_u8(l0, 4), vshrq_n_u8(l0, 6)};
  const uint8x16_t hi[4] = {l1, vshrq_n_u8(l1, 2), vshrq_n_u8(l1, 4), vshrq_n_u8(l1, 6)};
  for (int c = 0; c < 4; ++c) {
    w[c] = vreinterpretq_s8_u8(vandq_u8(lo[c], m2));
    w[c + 4] = vreinterpretq_s8_u8(vandq_u8(hi[c], m2));
  }
}
/* Q3_K as 32 * (q - 4), 8 int8 vectors w[c] (as kiln_neon_u6's) from A, B
 * and C (16 bytes each): bits 5..7 of A, B and C are (q ^ 4) of w[0..2],
 * which read as int8 are 32 (q - 4): one AND clears bits 0..4. Bits 2..4
 * hold w[3..5]'s (SHL and AND), and bits 0..1 w[6] (A bits 0..1, B bit 0:
 * SHL and SLI) and w[7] (B bit 1, C bits 0..1: SHL, SLI and AND). 14
 * operations where two-bit planes and a third-bit vector took 45. The
 * caller divides the sums by 32. */
static inline __attribute__((always_inline)) void
kiln_neon_u3(const uint8_t *p, int8x16_t w[8]) {
  const uint8x16_t mk = vdupq_n_u8(0xe0);
  const uint8x16x3_t abc = vld1q_u8_x3(p);
  const uint8x16_t A = abc.val[0], B = abc.val[1], C = abc.val[2];
  w[0] = vreinterpretq_s8_u8(vandq_u8(A, mk));
  w[1] = vreinterpretq_s8_u8(vandq_u8(B, mk));
  w[2] = vreinterpretq_s8_u8(vandq_u8(C, mk));
  w[3] = vreinterpretq_s8_u8(vandq_u8(vshlq_n_u8(A, 3), mk));
  w[4] = vreinterpretq_s8_u8(vandq_u8(vshlq_n_u8(B, 3), mk));
  w[5] = vreinterpretq_s8_u8(vandq_u8(vshlq_n_u8(C, 3), mk));
  w[6] = vreinterpretq_s8_u8(vsliq_n_u8(vshlq_n_u8(A, 5), B, 7));
  w[7] = vreinterpretq_s8_u8(vandq_u8(vsliq_n_u8(vshlq_n_u8(B, 4), C, 6), mk));
}
/* Q6_K as 4 * (q - 32), 8 int8 vectors w[c] (byte 4i+t: element 4c+t of row
 * i for c < 4, 16+4(c-4)+t for c >= 4) from 6 stored vectors, two groups of
 * three (A, B, C at 48g, 48g+16, 48g+32). Bits 2..7 of A, B and C are
 * (q ^ 32) of w[4g], w[4g+1] and w[4g+2], which read as int8 are 4 (q - 32):
 * one AND clears bits 0..1. Those bits hold w[4g+3]'s (q ^ 32) two bits at a
 * time (A bits 0-1, B bits 2-3, C bits 4-5), which SHL and two SLI move into
 * bits 2..7. Six of the 8 vectors cost one operation, and only 6 are shifts.
 * The caller divides the sums by 4. */
static inline __attribute__((always_inline)) void
kiln_neon_u6(const uint8_t *p, int8x16_t w[8]) {
  const uint8x16_t mk = vdupq_n_u8(0xfc);
  for (int g = 0; g < 2; ++g) {
    const uint8x16x3_t abc = vld1q_u8_x3(p + 48 * g);
    const uint8x16_t A = abc.val[0], B = abc.val[1], C = abc.val[2];
    w[4 * g] = vreinterpretq_s8_u8(vandq_u8(A, mk));
    w[4 * g + 1] = vreinterpretq_s8_u8(vandq_u8(B, mk));
    w[4 * g + 2] = vreinterpretq_s8_u8(vandq_u8(C, mk));
    w[4 * g + 3] = vreinterpretq_s8_u8(
        vsliq_n_u8(vsliq_n_u8(vshlq_n_u8(A, 2), B, 4), C, 6));
  }
}

/* Q6_K, Q3_K and Q2_K against Q8_K activations (TYPE 6, 3, 2). A
 * super-block's tile: 8 blocks of QB bytes (96, 48, 32) and its metadata,
 * after the blocks for Q6_K and before them for the others: 4 fp16 d, then
 * for Q6_K and Q3_K 16x4 int8 scales (Q3_K's minus 32), for Q2_K 4 fp16 dmin
 * and 16x4 u8 scales and 16x4 u8 mins; block j's 8 bytes of each are the
 * values of its halves h = 0, 1 for rows 0..3. The dots of each 16-element
 * half times its scale sum as integers over the super-block (Q2_K's mins
 * times Q8_K's sums of 16 likewise), and d (dmin) and the activation scale
 * apply once per super-block.
 *
 * By parts, so that no half starts an sdot chain from zero: per row one
 * chain X runs through the first halves of the 8 blocks and one, Y, through
 * the second halves, and after block j the running sums are multiplied by
 * the differences of consecutive scales, sum_j dot_j sc_j = sum_j X_j
 * (sc_j - sc_j+1) (sc_8 = 0; |difference| <= 255, one SSUBL or USUBL).
 * Intermediate products may wrap; the sum, exact modulo 2^32, fits in int32
 * (|sum| < 2^31). */
static inline __attribute__((always_inline)) void
kiln_neon_k16_tile(const uint8_t *t, int nsb, const kiln_q8k_block *a, int nr,
                   const int type, const float *bias, float *y, int N, int n) {
  const int qb = type == 6 ? 96 : type == 3 ? 48 : 32;
  const int meta = type == 2 ? 144 : 72;
  const int64_t sb_bytes = meta + 8 * qb;
  float32x4_t f[4] = {vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0),
                      vdupq_n_f32(0)};
  for (int sb = 0; sb < nsb; ++sb, t += sb_bytes) {
    const uint8_t *m = type == 6 ? t + 8 * 96 : t;
    int32x4_t ai[4], aj[4], X[4], Y[4];
    for (int r = 0; r < nr; ++r)
      ai[r] = aj[r] = X[r] = Y[r] = vdupq_n_s32(0);
    const int8_t *sc = (const int8_t *)m + (type == 2 ? 16 : 8);
    int8x8_t cur = vld1_s8(sc);
    const uint8_t *q = type == 6 ? t : t + meta;
#pragma clang loop unroll(full)
    for (int j = 0; j < 8; ++j, q += qb, sc += 8) {
      int8x16_t w[8];
      if (type == 6)
        kiln_neon_u6(q, w);
      else if (type == 3)
        kiln_neon_u3(q, w);
      else
        kiln_neon_u2(q, w);
      const int8x8_t next = j < 7 ? vld1_s8(sc + 8) : vdup_n_s8(0);
      const int16x8_t dj =
          type == 2 ? vreinterpretq_s16_u16(vsubl_u8(vreinterpret_u8_s8(cur),
                                                     vreinterpret_u8_s8(next)))
                    : vsubl_s8(cur, next);
      cur = next;
      const int32x4_t d0 = vmovl_s16(vget_low_s16(dj)), d1 = vmovl_high_s16(dj);
      for (int r = 0; r < nr; ++r) {
        const int8_t *aq = a[(int64_t)r * nsb + sb].qs + 32 * j;
        const int8x16_t a0 = vld1q_s8(aq), a1 = vld1q_s8(aq + 16);
        X[r] = vdotq_laneq_s32(X[r], w[0], a0, 0);
        Y[r] = vdotq_laneq_s32(Y[r], w[4], a1, 0);
        X[r] = vdotq_laneq_s32(X[r], w[1], a0, 1);
        Y[r] = vdotq_laneq_s32(Y[r], w[5], a1, 1);
        X[r] = vdotq_laneq_s32(X[r], w[2], a0, 2);
        Y[r] = vdotq_laneq_s32(Y[r], w[6], a1, 2);
        X[r] = vdotq_laneq_s32(X[r], w[3], a0, 3);
        Y[r] = vdotq_laneq_s32(Y[r], w[7], a1, 3);
        ai[r] = vmlaq_s32(ai[r], X[r], d0);
        aj[r] = vmlaq_s32(aj[r], Y[r], d1);
      }
    }
    const float32x4_t d = kiln_neon_h4(m);
    /* Q2_K's mins, widened once for every activation row. */
    int16x8_t mins[8];
    float32x4_t dmin = d;
    if (type == 2) {
      for (int j = 0; j < 8; ++j)
        mins[j] = vreinterpretq_s16_u16(vmovl_u8(vld1_u8(m + 80 + 8 * j)));
      dmin = kiln_neon_h4(m + 8);
    }
    for (int r = 0; r < nr; ++r) {
      const kiln_q8k_block *ab = a + (int64_t)r * nsb + sb;
      const int32x4_t i = vaddq_s32(ai[r], aj[r]);
      f[r] = vfmaq_f32(f[r],
                       type == 6   ? vcvtq_n_f32_s32(i, 2)
                       : type == 3 ? vcvtq_n_f32_s32(i, 5)
                                   : vcvtq_f32_s32(i),
                       vmulq_n_f32(d, ab->d));
      if (type == 2) {
        /* Q2_K's mins: sum_h min_h * (the activation's sum of half h). */
        int32x4_t ms = vdupq_n_s32(0);
#pragma clang loop unroll(full)
        for (int j = 0; j < 8; ++j) {
          ms = vmlal_n_s16(ms, vget_low_s16(mins[j]), ab->bsums[2 * j]);
          ms = vmlal_n_s16(ms, vget_high_s16(mins[j]), ab->bsums[2 * j + 1]);
        }
        f[r] = vfmsq_f32(f[r], vcvtq_f32_s32(ms), vmulq_n_f32(dmin, ab->d));
      }
    }
  }
  for (int r = 0; r < nr; ++r)
    kiln_neon_store4(f[r], bias, y + (int64_t)r * N, n);
}
KILN_NEON_TILE_OF(q6_k, kiln_neon_k16_tile, 6)
KILN_NEON_TILE_OF(q3_k, kiln_neon_k16_tile, 3)
KILN_NEON_TILE_OF(q2_k, kiln_neon_k16_tile, 2)

KILN_NEON_Q8K_DRIVER(q6_k, 72 + 8 * 96)
KILN_NEON_Q8K_DRIVER(q3_k, 72 + 8 * 48)
KILN_NEON_Q8K_DRIVER(q2_k, 144 + 8 * 32)

#if defined(__ARM_FEATURE_MATMUL_INT8)
/* i8mm "4x4" kernels (built only with +i8mm). vmmlaq_s32(acc, a, w) adds the
 * 2x2 products of two 8-byte activation rows (a: row r bytes, row r+1 bytes)
 * with two 8-byte weight rows (w: row j bytes, row j+1 bytes), lanes
 * [r.j, r.j+1, r+1.j, r+1.j+1]. Q4_0 and Q8_0 weights arrive in the dotprod
 * kernels' 4-row tiles (4-byte groups of rows j..j+3 per vector), so one
 * activation row (decode) runs the dotprod tile as it is; for SMMLA, ZIP1 /
 * ZIP2 of two consecutive vectors give the "pair-major" operands, vector
 * (Q, c) holding bytes 8c..8c+7 of rows j+2Q and j+2Q+1 (for q4_0, of the
 * nibble bytes, before the shl / and that decode both halves). The zips
 * serve the tile's four activation pairs; storing the weights pair-major
 * instead made decode run sdot on that layout, with the activation's
 * 8-byte pieces duplicated and a pairwise add per block, more cycles than
 * the zips cost prefill (docs/kernels.md, "Inner loops").
 *
 * Activations are quantized (kiln_quantize_row_q8_0, same numerics) into the
 * scratch pre-interleaved for SMMLA, 40 bytes per row and block
 * (KernelTable's scratchRowBytes): row pair p = rows 2p, 2p+1 (p < rows / 2)
 * has nb blocks of 80 bytes, four 2x8 matrices (bytes 8c..8c+7 of both rows,
 * c = 0..3) then the f32 scales [d_2p, d_2p, d_2p+1, d_2p+1] in the lane
 * order of the sums; an odd last row follows as plain kiln_q8_blocks and is
 * paired with a zero row (outputs dropped) in registers, or alone (nr = 1)
 * runs the dotprod tile. Float accumulators keep the 2x2 lane order and are
 * transposed to rows on store. */
static const uint8_t *kiln_neon_mm_rows(const float *x, int rows, int K,
                                        void *scratch) {
  uint8_t *o = (uint8_t *)scratch;
  const int nb = K / 32;
  if (!x) /* already quantized (see kiln_q8_rows) */
    return (const uint8_t *)scratch;
  for (int p = 0; p < rows / 2; ++p)
    for (int b = 0; b < nb; ++b, o += 80) {
      kiln_q8_block t[2];
      kiln_quantize_row_q8_0(x + (int64_t)(2 * p) * K + b * 32, 32, &t[0]);
      kiln_quantize_row_q8_0(x + (int64_t)(2 * p + 1) * K + b * 32, 32, &t[1]);
      for (int c = 0; c < 4; ++c)
        for (int h = 0; h < 2; ++h)
          __builtin_memcpy(o + c * 16 + h * 8, t[h].qs + c * 8, 8);
      const float d0 = kiln_neon_h2f(t[0].d), d1 = kiln_neon_h2f(t[1].d);
      const float ds[4] = {d0, d0, d1, d1};
      __builtin_memcpy(o + 64, ds, 16);
    }
  if (rows & 1)
    kiln_quantize_row_q8_0(x + (int64_t)(rows - 1) * K, K, (kiln_q8_block *)o);
  return (const uint8_t *)scratch;
}

/* 32 activation bytes at QS of an odd last row as the four 2x8 matrices of
 * a pair whose second row is zero. */
#define KILN_NEON_MM_ODD(QS, C0, C1, C2, C3)                                   \
  {                                                                            \
    const int64x2_t xa0_ = vreinterpretq_s64_s8(vld1q_s8(QS)),                 \
                    xa1_ = vreinterpretq_s64_s8(vld1q_s8((QS) + 16)),          \
                    z_ = vdupq_n_s64(0);                                       \
    C0 = vreinterpretq_s8_s64(vzip1q_s64(xa0_, z_));                           \
    C1 = vreinterpretq_s8_s64(vzip2q_s64(xa0_, z_));                           \
    C2 = vreinterpretq_s8_s64(vzip1q_s64(xa1_, z_));                           \
    C3 = vreinterpretq_s8_s64(vzip2q_s64(xa1_, z_));                           \
  }

/* Activation pair P of a tile as four 2x8 matrices C0..C3 and the scales
 * [da_r, da_r, da_r+1, da_r+1]: interleaved (PB, block b) or the odd row. */
#define KILN_NEON_MM_ACT(PAIRED, PB, ODD, C0, C1, C2, C3, DA)                  \
  int8x16_t C0, C1, C2, C3;                                                    \
  float32x4_t DA;                                                              \
  if (PAIRED) {                                                                \
    const int8_t *q = (const int8_t *)(PB) + (int64_t)b * 80;                  \
    C0 = vld1q_s8(q); C1 = vld1q_s8(q + 16);                                   \
    C2 = vld1q_s8(q + 32); C3 = vld1q_s8(q + 48);                              \
    DA = vld1q_f32((const float *)(q + 64));                                   \
  } else {                                                                     \
    const kiln_q8_block *ob = (ODD) + b;                                       \
    KILN_NEON_MM_ODD(ob->qs, C0, C1, C2, C3)                                   \
    DA = vcombine_f32(vdup_n_f32(kiln_neon_h2f(ob->d)), vdup_n_f32(0.0f));     \
  }

/* Transposes the 2x2-ordered float sums of weight pairs 0 (F0) and 1 (F1)
 * into rows r (lo) and r+1 (hi). */
static inline __attribute__((always_inline)) void
kiln_neon_mm_store(float32x4_t F0, float32x4_t F1, int two, const float *bias,
                   float *y, int N, int n) {
  const float64x2_t d0 = vreinterpretq_f64_f32(F0), d1 = vreinterpretq_f64_f32(F1);
  kiln_neon_store4(vreinterpretq_f32_f64(vzip1q_f64(d0, d1)), bias, y, n);
  if (two)
    kiln_neon_store4(vreinterpretq_f32_f64(vzip2q_f64(d0, d1)), bias, y + N, n);
}

/* One 4-row weight tile against nr (2..8, constant after inlining) rows:
 * pair k (rows 2k, 2k+1) at p0 + k * nb * 80 while nr > 2k + 1; an odd last
 * row is `odd`. */
static inline __attribute__((always_inline)) void
kiln_neon_q4_0_mm_tile(const uint8_t *tile, int nb, const uint8_t *p0,
                       const kiln_q8_block *odd, int nr, const float *bias,
                       float *y, int N, int n) {
  const int8_t *wq = (const int8_t *)tile;
  const uint16_t *ws = (const uint16_t *)(tile + (int64_t)nb * 64);
  const int64_t ps = (int64_t)nb * 80;
  const int8x16_t m4 = vdupq_n_s8((int8_t)0xf0);
  const int32x4_t zero = vdupq_n_s32(0);
  float32x4_t f[4][2];
  for (int k = 0; k < 4; ++k)
    f[k][0] = f[k][1] = vdupq_n_f32(0);
  for (int b = 0; b < nb; ++b, wq += 64) {
    const int32x4_t v0 = vreinterpretq_s32_s8(vld1q_s8(wq)),
                    v1 = vreinterpretq_s32_s8(vld1q_s8(wq + 16)),
                    v2 = vreinterpretq_s32_s8(vld1q_s8(wq + 32)),
                    v3 = vreinterpretq_s32_s8(vld1q_s8(wq + 48));
    /* pair-major: w0, w1 rows 0-1 bytes 0-7, 8-15; w2, w3 rows 2-3 */
    const int8x16_t w0 = vreinterpretq_s8_s32(vzip1q_s32(v0, v1)),
                    w1 = vreinterpretq_s8_s32(vzip1q_s32(v2, v3)),
                    w2 = vreinterpretq_s8_s32(vzip2q_s32(v0, v1)),
                    w3 = vreinterpretq_s8_s32(vzip2q_s32(v2, v3));
    const int8x16_t l0 = vshlq_n_s8(w0, 4), l1 = vshlq_n_s8(w1, 4),
                    l2 = vshlq_n_s8(w2, 4), l3 = vshlq_n_s8(w3, 4);
    const int8x16_t h0 = vandq_s8(w0, m4), h1 = vandq_s8(w1, m4),
                    h2 = vandq_s8(w2, m4), h3 = vandq_s8(w3, m4);
    const float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(ws + 4 * b)));
    const float32x4_t dw0 = vcombine_f32(vget_low_f32(dw), vget_low_f32(dw)),
                      dw1 = vcombine_f32(vget_high_f32(dw), vget_high_f32(dw));
    for (int k = 0; k < 4; ++k) {
      if (nr <= 2 * k)
        break;
      KILN_NEON_MM_ACT(nr > 2 * k + 1, p0 + k * ps, odd, c0, c1, c2, c3, da)
      int32x4_t s0 = vmmlaq_s32(zero, c0, l0), s1 = vmmlaq_s32(zero, c0, l2);
      s0 = vmmlaq_s32(s0, c1, l1); s1 = vmmlaq_s32(s1, c1, l3);
      s0 = vmmlaq_s32(s0, c2, h0); s1 = vmmlaq_s32(s1, c2, h2);
      s0 = vmmlaq_s32(s0, c3, h1); s1 = vmmlaq_s32(s1, c3, h3);
      f[k][0] = vfmaq_f32(f[k][0], vcvtq_n_f32_s32(s0, 4), vmulq_f32(dw0, da));
      f[k][1] = vfmaq_f32(f[k][1], vcvtq_n_f32_s32(s1, 4), vmulq_f32(dw1, da));
    }
  }
  for (int k = 0; k < 4 && nr > 2 * k; ++k)
    kiln_neon_mm_store(f[k][0], f[k][1], nr > 2 * k + 1, bias,
                       y + 2 * k * (int64_t)N, N, n);
}

static inline __attribute__((always_inline)) void
kiln_neon_q8_0_mm_tile(const uint8_t *tile, int nb, const uint8_t *p0,
                       const kiln_q8_block *odd, int nr, const float *bias,
                       float *y, int N, int n) {
  const int8_t *wq = (const int8_t *)tile;
  const uint16_t *ws = (const uint16_t *)(tile + (int64_t)nb * 128);
  const int64_t ps = (int64_t)nb * 80;
  const int32x4_t zero = vdupq_n_s32(0);
  float32x4_t f[4][2];
  for (int k = 0; k < 4; ++k)
    f[k][0] = f[k][1] = vdupq_n_f32(0);
  for (int b = 0; b < nb; ++b, wq += 128) {
    /* pair-major: wV rows 0-1 bytes 8V..8V+7, w4+V rows 2-3 */
#define KILN_NEON_ZIP(LO, HI, V)                                               \
  const int32x4_t LO##_ = vreinterpretq_s32_s8(vld1q_s8(wq + 32 * (V))),       \
                  HI##_ = vreinterpretq_s32_s8(vld1q_s8(wq + 32 * (V) + 16));  \
  const int8x16_t LO = vreinterpretq_s8_s32(vzip1q_s32(LO##_, HI##_)),         \
                  HI = vreinterpretq_s8_s32(vzip2q_s32(LO##_, HI##_));
    KILN_NEON_ZIP(w0, w4, 0)
    KILN_NEON_ZIP(w1, w5, 1)
    KILN_NEON_ZIP(w2, w6, 2)
    KILN_NEON_ZIP(w3, w7, 3)
#undef KILN_NEON_ZIP
    const float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(ws + 4 * b)));
    const float32x4_t dw0 = vcombine_f32(vget_low_f32(dw), vget_low_f32(dw)),
                      dw1 = vcombine_f32(vget_high_f32(dw), vget_high_f32(dw));
    for (int k = 0; k < 4; ++k) {
      if (nr <= 2 * k)
        break;
      KILN_NEON_MM_ACT(nr > 2 * k + 1, p0 + k * ps, odd, c0, c1, c2, c3, da)
      int32x4_t s0 = vmmlaq_s32(zero, c0, w0), s1 = vmmlaq_s32(zero, c0, w4);
      s0 = vmmlaq_s32(s0, c1, w1); s1 = vmmlaq_s32(s1, c1, w5);
      s0 = vmmlaq_s32(s0, c2, w2); s1 = vmmlaq_s32(s1, c2, w6);
      s0 = vmmlaq_s32(s0, c3, w3); s1 = vmmlaq_s32(s1, c3, w7);
      f[k][0] = vfmaq_f32(f[k][0], vcvtq_f32_s32(s0), vmulq_f32(dw0, da));
      f[k][1] = vfmaq_f32(f[k][1], vcvtq_f32_s32(s1), vmulq_f32(dw1, da));
    }
  }
  for (int k = 0; k < 4 && nr > 2 * k; ++k)
    kiln_neon_mm_store(f[k][0], f[k][1], nr > 2 * k + 1, bias,
                       y + 2 * k * (int64_t)N, N, n);
}

/* The SMMLA matmuls' driver: eight activation rows (four pairs) per pass
 * over a weight tile, so the tile's decoding spreads over four pairs. UNIT
 * is the weights' block (32) or super-block (256); the quantizer ROWS writes
 * PAIR bytes per row pair and unit, then an odd last row as ODD_T blocks.
 * One row (decode) runs ONE_ROW after ONE_PREP; more run
 * kiln_neon_T_mm_tile(tile, units, pairs, odd, nr, bias, y, N, n). */
#define KILN_NEON_MM_DRIVER(NAME, T, ROWS, ODD_T, UNIT, PAIR, TILE_BYTES,     \
                            ONE_PREP, ONE_ROW)                                 \
  KILN_KERNEL void kiln_matmul_##NAME##_4x4_neon_i8mm(                         \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    const uint8_t *a = ROWS(x, rows, K, scratch);                              \
    const int nu = K / (UNIT);                                                 \
    const int64_t tile_bytes = (int64_t)nu * (TILE_BYTES);                     \
    const ODD_T *odd = (const ODD_T *)(a + (int64_t)(rows / 2) * nu * (PAIR)); \
    for (int r0 = 0; r0 < rows; r0 += 8) {                                     \
      const int nr = rows - r0 < 8 ? rows - r0 : 8;                            \
      const uint8_t *ar = a + (int64_t)(r0 / 2) * nu * (PAIR);                 \
      float *yr = y + (int64_t)r0 * N;                                         \
      ONE_PREP                                                                 \
      for (int j = 0; j < N; j += 4) {                                         \
        const uint8_t *t = w + (int64_t)(j / 4) * tile_bytes;                  \
        const float *bj = bias ? bias + j : 0;                                 \
        const int n = N - j < 4 ? N - j : 4;                                   \
        switch (nr) {                                                          \
        case 1: ONE_ROW; break;                                                \
        case 2: kiln_neon_##T##_mm_tile(t, nu, ar, odd, 2, bj, yr + j, N, n); break; \
        case 3: kiln_neon_##T##_mm_tile(t, nu, ar, odd, 3, bj, yr + j, N, n); break; \
        case 4: kiln_neon_##T##_mm_tile(t, nu, ar, odd, 4, bj, yr + j, N, n); break; \
        case 5: kiln_neon_##T##_mm_tile(t, nu, ar, odd, 5, bj, yr + j, N, n); break; \
        case 6: kiln_neon_##T##_mm_tile(t, nu, ar, odd, 6, bj, yr + j, N, n); break; \
        case 7: kiln_neon_##T##_mm_tile(t, nu, ar, odd, 7, bj, yr + j, N, n); break; \
        default: kiln_neon_##T##_mm_tile(t, nu, ar, odd, 8, bj, yr + j, N, n); break; \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

/* Q4_0 and Q8_0: one row runs the dotprod kernel's tile with its block
 * scales converted once. */
#define KILN_NEON_MM_MATMUL(T, TILE_BYTES)                                     \
  KILN_NEON_MM_DRIVER(T##_q8_0, T, kiln_neon_mm_rows, kiln_q8_block, 32, 80,   \
                      TILE_BYTES, float da[nu];                                \
                      if (nr == 1) for (int b = 0; b < nu; ++b)                \
                          da[b] = kiln_neon_h2f(odd[b].d);,                    \
                      kiln_neon_##T##_tile1(t, nu, odd, da, bj, yr + j, n))

KILN_NEON_MM_MATMUL(q4_0, 72)
KILN_NEON_MM_MATMUL(q8_0, 136)

/* Q4_K against Q8_K under i8mm: the dotprod kernel's tiles ("neon_blocks",
 * described above kiln_neon_kmin_tile), so one activation row (decode) runs
 * that kernel's tile as it is, and row pairs run SMMLA on the same bytes:
 * TRN1 / TRN2 of two decoded vectors (elements 4v..4v+3 and 4v+4..4v+7 of
 * rows 0..3) give rows 0 and 2 and rows 1 and 3 over 8 consecutive
 * elements, the 2x8 operands SMMLA multiplies. So the sums' lanes are
 * [r.0, r.2, r+1.0, r+1.2] (pair A) and [r.1, r.3, r+1.1, r+1.3] (pair B).
 *
 * Activations (kiln_neon_mmk_rows): ggml's Q8_K rows in pairs, 592 bytes per
 * pair and super-block: per block j four 2x8 matrices (bytes 8c..8c+7 of
 * both rows), then per block the int16 sums [s_r, s_r, s_r+1, s_r+1] in the
 * lane order of the SMMLA sums, then the f32 scales [d_r, d_r, d_r+1,
 * d_r+1]; an odd last row follows as a kiln_q8k_block (296 scratch bytes
 * per row and super-block, KernelTable's scratchRowBytes).
 *
 * As the dotprod kernel, each block's sums times its scales and the block
 * sums times the mins accumulate as integers over the super-block, and the
 * float steps run once per super-block. The block sums are taken by parts:
 * one SMMLA chain per activation pair and weight pair runs through the 8
 * blocks and after block j is multiplied by sc_j - sc_j+1 (sc_8 = 0), so no
 * chain starts from zero (a register move each, SMMLA accumulating in
 * place). */
static const uint8_t *kiln_neon_mmk_rows(const float *x, int rows, int K,
                                         void *scratch) {
  uint8_t *o = (uint8_t *)scratch;
  const int nsb = K / 256;
  if (!x) /* already quantized (see kiln_q8_rows) */
    return (const uint8_t *)scratch;
  for (int p = 0; p < rows / 2; ++p)
    for (int sb = 0; sb < nsb; ++sb, o += 592) {
      kiln_q8k_block t[2];
      kiln_quantize_row_q8_k(x + (int64_t)(2 * p) * K + sb * 256, 256, &t[0]);
      kiln_quantize_row_q8_k(x + (int64_t)(2 * p + 1) * K + sb * 256, 256, &t[1]);
      int16_t sums[8][4];
      for (int j = 0; j < 8; ++j) {
        for (int c = 0; c < 4; ++c)
          for (int h = 0; h < 2; ++h)
            __builtin_memcpy(o + 64 * j + 16 * c + 8 * h, t[h].qs + 32 * j + 8 * c, 8);
        for (int h = 0; h < 2; ++h)
          sums[j][2 * h] = sums[j][2 * h + 1] =
              (int16_t)(t[h].bsums[2 * j] + t[h].bsums[2 * j + 1]);
      }
      __builtin_memcpy(o + 512, sums, 64);
      const float ds[4] = {t[0].d, t[0].d, t[1].d, t[1].d};
      __builtin_memcpy(o + 576, ds, 16);
    }
  if (rows & 1)
    kiln_quantize_row_q8_k(x + (int64_t)(rows - 1) * K, K, (kiln_q8k_block *)o);
  return (const uint8_t *)scratch;
}

/* The K-quant SMMLA tiles' float sums of activation pair k, weight pairs A
 * (lanes [r.0, r.2, r+1.0, r+1.2]) and B ([r.1, r.3, r+1.1, r+1.3]), stored
 * as rows r = 2k, 2k+1 of nr. */
static inline __attribute__((always_inline)) void
kiln_neon_mmk_store(float32x4_t f[4][2], int nr, const float *bias, float *y,
                    int N, int n) {
  for (int k = 0; k < 4 && nr > 2 * k; ++k) {
    kiln_neon_store4(vzip1q_f32(f[k][0], f[k][1]), bias, y + 2 * k * (int64_t)N, n);
    if (nr > 2 * k + 1)
      kiln_neon_store4(vzip2q_f32(f[k][0], f[k][1]), bias,
                       y + (2 * k + 1) * (int64_t)N, n);
  }
}

/* One 4-row weight tile against nr (2..8, constant after inlining)
 * activation rows: pair k (rows 2k, 2k+1) at p0 + k * nsb * 592 while
 * nr > 2k + 1; an odd last row is `odd`. */
static inline __attribute__((always_inline)) void
kiln_neon_q4_k_mm_tile(const uint8_t *t, int nsb, const uint8_t *p0,
                       const kiln_q8k_block *odd, int nr, const float *bias,
                       float *y, int N, int n) {
  const int64_t ps = (int64_t)nsb * 592;
  const uint8x16_t m4 = vdupq_n_u8(0xf);
  const int32x4_t zero = vdupq_n_s32(0);
  float32x4_t f[4][2];
  for (int k = 0; k < 4; ++k)
    f[k][0] = f[k][1] = vdupq_n_f32(0);
  for (int sb = 0; sb < nsb; ++sb, t += 592) {
    int32x4_t ai[4][2], x[4][2];
    for (int k = 0; k < 4; ++k)
      ai[k][0] = ai[k][1] = x[k][0] = x[k][1] = zero;
    /* the scales from their stored differences (kiln_neon_kmin_tile), then
     * sc_j - sc_j+1 (sc_8 = 0) for the chains by parts */
    const int8x16_t d47 = vld1q_s8((const int8_t *)t + 32),
                    s03 = vaddq_s8(vld1q_s8((const int8_t *)t + 16), d47);
    const int16x8_t sc01 = vmovl_s8(vget_low_s8(s03)), sc23 = vmovl_high_s8(s03),
                    sc45 = vmovl_s8(vget_low_s8(d47)), sc67 = vmovl_high_s8(d47);
    const int16x8_t dd01 = vsubq_s16(sc01, vextq_s16(sc01, sc23, 4)),
                    dd23 = vsubq_s16(sc23, vextq_s16(sc23, sc45, 4)),
                    dd45 = vsubq_s16(sc45, vextq_s16(sc45, sc67, 4)),
                    dd67 = vsubq_s16(sc67, vextq_s16(sc67, vdupq_n_s16(0), 4));
    const uint8_t *q = t + 80;
#define KILN_NEON_Q4K_MM_BLOCK(J, SC4)                                         \
  {                                                                            \
    const uint8x16_t v0 = vld1q_u8(q), v1 = vld1q_u8(q + 16),                  \
                     v2 = vld1q_u8(q + 32), v3 = vld1q_u8(q + 48);             \
    const int32x4_t u0 = vreinterpretq_s32_u8(vandq_u8(v0, m4)),               \
                    u1 = vreinterpretq_s32_u8(vandq_u8(v1, m4)),               \
                    u2 = vreinterpretq_s32_u8(vandq_u8(v2, m4)),               \
                    u3 = vreinterpretq_s32_u8(vandq_u8(v3, m4)),               \
                    u4 = vreinterpretq_s32_u8(vshrq_n_u8(v0, 4)),              \
                    u5 = vreinterpretq_s32_u8(vshrq_n_u8(v1, 4)),              \
                    u6 = vreinterpretq_s32_u8(vshrq_n_u8(v2, 4)),              \
                    u7 = vreinterpretq_s32_u8(vshrq_n_u8(v3, 4));              \
    /* rows 0 and 2 (A), 1 and 3 (B), elements 8g..8g+7 */                     \
    const int8x16_t a0 = vreinterpretq_s8_s32(vtrn1q_s32(u0, u1)),             \
                    b0 = vreinterpretq_s8_s32(vtrn2q_s32(u0, u1)),             \
                    a1 = vreinterpretq_s8_s32(vtrn1q_s32(u2, u3)),             \
                    b1 = vreinterpretq_s8_s32(vtrn2q_s32(u2, u3)),             \
                    a2 = vreinterpretq_s8_s32(vtrn1q_s32(u4, u5)),             \
                    b2 = vreinterpretq_s8_s32(vtrn2q_s32(u4, u5)),             \
                    a3 = vreinterpretq_s8_s32(vtrn1q_s32(u6, u7)),             \
                    b3 = vreinterpretq_s8_s32(vtrn2q_s32(u6, u7));             \
    const int16x4_t s4 = SC4;                                                  \
    const int32x4_t sa = vmovl_s16(vuzp1_s16(s4, s4)),                         \
                    sbv = vmovl_s16(vuzp2_s16(s4, s4));                        \
    for (int k = 0; k < 4; ++k) {                                              \
      if (nr <= 2 * k)                                                         \
        break;                                                                 \
      int8x16_t c0, c1, c2, c3;                                                \
      if (nr > 2 * k + 1) {                                                    \
        const int8_t *aq =                                                     \
            (const int8_t *)(p0 + k * ps) + (int64_t)sb * 592 + 64 * (J);      \
        c0 = vld1q_s8(aq); c1 = vld1q_s8(aq + 16);                             \
        c2 = vld1q_s8(aq + 32); c3 = vld1q_s8(aq + 48);                        \
      } else {                                                                 \
        KILN_NEON_MM_ODD(odd[sb].qs + 32 * (J), c0, c1, c2, c3)                \
      }                                                                        \
      int32x4_t s0 = vmmlaq_s32(x[k][0], c0, a0),                              \
                s1 = vmmlaq_s32(x[k][1], c0, b0);                              \
      s0 = vmmlaq_s32(s0, c1, a1); s1 = vmmlaq_s32(s1, c1, b1);                \
      s0 = vmmlaq_s32(s0, c2, a2); s1 = vmmlaq_s32(s1, c2, b2);                \
      x[k][0] = s0 = vmmlaq_s32(s0, c3, a3);                                   \
      x[k][1] = s1 = vmmlaq_s32(s1, c3, b3);                                   \
      ai[k][0] = vmlaq_s32(ai[k][0], s0, sa);                                  \
      ai[k][1] = vmlaq_s32(ai[k][1], s1, sbv);                                 \
    }                                                                          \
    q += 64;                                                                   \
  }
    KILN_NEON_Q4K_MM_BLOCK(0, vget_low_s16(dd01))
    KILN_NEON_Q4K_MM_BLOCK(1, vget_high_s16(dd01))
    KILN_NEON_Q4K_MM_BLOCK(2, vget_low_s16(dd23))
    KILN_NEON_Q4K_MM_BLOCK(3, vget_high_s16(dd23))
    KILN_NEON_Q4K_MM_BLOCK(4, vget_low_s16(dd45))
    KILN_NEON_Q4K_MM_BLOCK(5, vget_high_s16(dd45))
    KILN_NEON_Q4K_MM_BLOCK(6, vget_low_s16(dd67))
    KILN_NEON_Q4K_MM_BLOCK(7, vget_high_s16(dd67))
#undef KILN_NEON_Q4K_MM_BLOCK
    /* the mins times the block sums, then the float steps */
    const float32x4_t d4 = kiln_neon_h4(t), dm4 = kiln_neon_h4(t + 8);
    const float32x4_t da0 = vuzp1q_f32(d4, d4), db0 = vuzp2q_f32(d4, d4),
                      dma = vuzp1q_f32(dm4, dm4), dmb = vuzp2q_f32(dm4, dm4);
    const uint16x8_t mn01 = vmovl_u8(vld1_u8(t + 48)), mn23 = vmovl_u8(vld1_u8(t + 56)),
                     mn45 = vmovl_u8(vld1_u8(t + 64)), mn67 = vmovl_u8(vld1_u8(t + 72));
    for (int k = 0; k < 4; ++k) {
      if (nr <= 2 * k)
        break;
      int16x4_t as[8];
      float32x4_t da;
      if (nr > 2 * k + 1) {
        const uint8_t *ab = p0 + k * ps + (int64_t)sb * 592;
        for (int j = 0; j < 8; ++j)
          as[j] = vld1_s16((const int16_t *)(ab + 512 + 8 * j));
        da = vld1q_f32((const float *)(ab + 576));
      } else {
        /* the odd row paired with a zero row: [s_j, s_j, 0, 0] */
        const kiln_q8k_block *ob = odd + sb;
        const int16x8_t bs = vpaddq_s16(vld1q_s16(ob->bsums), vld1q_s16(ob->bsums + 8));
        const int32x4_t p01 = vreinterpretq_s32_s16(vzip1q_s16(bs, bs)),
                        p23 = vreinterpretq_s32_s16(vzip2q_s16(bs, bs));
        const int16x8_t l0 = vreinterpretq_s16_s32(vzip1q_s32(p01, zero)),
                        l1 = vreinterpretq_s16_s32(vzip2q_s32(p01, zero)),
                        l2 = vreinterpretq_s16_s32(vzip1q_s32(p23, zero)),
                        l3 = vreinterpretq_s16_s32(vzip2q_s32(p23, zero));
        as[0] = vget_low_s16(l0), as[1] = vget_high_s16(l0);
        as[2] = vget_low_s16(l1), as[3] = vget_high_s16(l1);
        as[4] = vget_low_s16(l2), as[5] = vget_high_s16(l2);
        as[6] = vget_low_s16(l3), as[7] = vget_high_s16(l3);
        da = vcombine_f32(vdup_n_f32(ob->d), vdup_n_f32(0.0f));
      }
      int32x4_t am0 = zero, am1 = zero;
#define KILN_NEON_Q4K_MM_MIN(J, M4)                                            \
  {                                                                            \
    const uint16x4_t m4_ = M4;                                                 \
    am0 = vmlal_s16(am0, vreinterpret_s16_u16(vuzp1_u16(m4_, m4_)), as[J]);    \
    am1 = vmlal_s16(am1, vreinterpret_s16_u16(vuzp2_u16(m4_, m4_)), as[J]);    \
  }
      KILN_NEON_Q4K_MM_MIN(0, vget_low_u16(mn01))
      KILN_NEON_Q4K_MM_MIN(1, vget_high_u16(mn01))
      KILN_NEON_Q4K_MM_MIN(2, vget_low_u16(mn23))
      KILN_NEON_Q4K_MM_MIN(3, vget_high_u16(mn23))
      KILN_NEON_Q4K_MM_MIN(4, vget_low_u16(mn45))
      KILN_NEON_Q4K_MM_MIN(5, vget_high_u16(mn45))
      KILN_NEON_Q4K_MM_MIN(6, vget_low_u16(mn67))
      KILN_NEON_Q4K_MM_MIN(7, vget_high_u16(mn67))
#undef KILN_NEON_Q4K_MM_MIN
      f[k][0] = vfmaq_f32(f[k][0], vcvtq_f32_s32(ai[k][0]), vmulq_f32(da0, da));
      f[k][0] = vfmsq_f32(f[k][0], vcvtq_f32_s32(am0), vmulq_f32(dma, da));
      f[k][1] = vfmaq_f32(f[k][1], vcvtq_f32_s32(ai[k][1]), vmulq_f32(db0, da));
      f[k][1] = vfmsq_f32(f[k][1], vcvtq_f32_s32(am1), vmulq_f32(dmb, da));
    }
  }
  kiln_neon_mmk_store(f, nr, bias, y, N, n);
}

/* Q6_K against Q8_K under i8mm: the dotprod kernel's tiles (8 blocks of
 * kiln_neon_u6's layout, then 4 fp16 d and the int8 scales of the
 * 16-element halves), row pairs of activations as Q4_K's: TRN1 / TRN2 of
 * decoded vectors 2g and 2g+1 (elements 8g..8g+7 of rows 0..3) give rows 0
 * and 2 (A) and rows 1 and 3 (B), so half h of a block is two SMMLA per
 * activation pair and weight pair (g = 2h, 2h+1).
 *
 * By parts, as the dotprod kernel, but over all 16 halves of the super-block
 * in order: one SMMLA chain per activation pair and weight pair runs through
 * them all, and after half m the running sums times (sc_m - sc_m+1)
 * (sc_16 = 0; one SSUBL with EXT) accumulate as integers. No chain starts
 * from zero, which for four pairs would cost a register move per two SMMLA
 * (docs/kernels.md). The sum, exact modulo 2^32, fits in int32 as the
 * dotprod kernel's; kiln_neon_u6's 4 (q - 32) is divided by 4 in the float
 * step, once per super-block. */
static inline __attribute__((always_inline)) void
kiln_neon_q6_k_mm_tile(const uint8_t *t, int nsb, const uint8_t *p0,
                       const kiln_q8k_block *odd, int nr, const float *bias,
                       float *y, int N, int n) {
  const int64_t ps = (int64_t)nsb * 592;
  const int32x4_t zero = vdupq_n_s32(0);
  float32x4_t f[4][2];
  for (int k = 0; k < 4; ++k)
    f[k][0] = f[k][1] = vdupq_n_f32(0);
  for (int sb = 0; sb < nsb; ++sb, t += 72 + 8 * 96) {
    int32x4_t ai[4][2], x[4][2];
    for (int k = 0; k < 4; ++k)
      ai[k][0] = ai[k][1] = x[k][0] = x[k][1] = zero;
    const int8_t *sc = (const int8_t *)t + 8 * 96 + 8;
    int8x8_t cur = vld1_s8(sc);
#pragma clang loop unroll(full)
    for (int j = 0; j < 8; ++j) {
      int8x16_t w[8], wa[4], wb[4];
      kiln_neon_u6(t + 96 * j, w);
      for (int g = 0; g < 4; ++g) {
        const int32x4_t lo = vreinterpretq_s32_s8(w[2 * g]),
                        hi = vreinterpretq_s32_s8(w[2 * g + 1]);
        wa[g] = vreinterpretq_s8_s32(vtrn1q_s32(lo, hi));
        wb[g] = vreinterpretq_s8_s32(vtrn2q_s32(lo, hi));
      }
      /* sc_m - sc_m+1 for both halves, rows [0, 2, 0, 2] (A), [1, 3, 1, 3] (B) */
      const int8x8_t next = j < 7 ? vld1_s8(sc + 8 * (j + 1)) : vdup_n_s8(0);
      const int16x8_t dj = vsubl_s8(cur, vext_s8(cur, next, 4));
      cur = next;
      const int16x4_t d0 = vget_low_s16(dj), d1 = vget_high_s16(dj);
      const int32x4_t sa0 = vmovl_s16(vuzp1_s16(d0, d0)),
                      sb0 = vmovl_s16(vuzp2_s16(d0, d0)),
                      sa1 = vmovl_s16(vuzp1_s16(d1, d1)),
                      sb1 = vmovl_s16(vuzp2_s16(d1, d1));
      for (int k = 0; k < 4; ++k) {
        if (nr <= 2 * k)
          break;
        int8x16_t c0, c1, c2, c3;
        if (nr > 2 * k + 1) {
          const int8_t *aq = (const int8_t *)(p0 + k * ps) + (int64_t)sb * 592 + 64 * j;
          c0 = vld1q_s8(aq); c1 = vld1q_s8(aq + 16);
          c2 = vld1q_s8(aq + 32); c3 = vld1q_s8(aq + 48);
        } else {
          KILN_NEON_MM_ODD(odd[sb].qs + 32 * j, c0, c1, c2, c3)
        }
        x[k][0] = vmmlaq_s32(vmmlaq_s32(x[k][0], c0, wa[0]), c1, wa[1]);
        x[k][1] = vmmlaq_s32(vmmlaq_s32(x[k][1], c0, wb[0]), c1, wb[1]);
        ai[k][0] = vmlaq_s32(ai[k][0], x[k][0], sa0);
        ai[k][1] = vmlaq_s32(ai[k][1], x[k][1], sb0);
        x[k][0] = vmmlaq_s32(vmmlaq_s32(x[k][0], c2, wa[2]), c3, wa[3]);
        x[k][1] = vmmlaq_s32(vmmlaq_s32(x[k][1], c2, wb[2]), c3, wb[3]);
        ai[k][0] = vmlaq_s32(ai[k][0], x[k][0], sa1);
        ai[k][1] = vmlaq_s32(ai[k][1], x[k][1], sb1);
      }
    }
    const float32x4_t d4 = kiln_neon_h4(t + 8 * 96);
    const float32x4_t dA = vuzp1q_f32(d4, d4), dB = vuzp2q_f32(d4, d4);
    for (int k = 0; k < 4; ++k) {
      if (nr <= 2 * k)
        break;
      const float32x4_t da =
          nr > 2 * k + 1
              ? vld1q_f32((const float *)(p0 + k * ps + (int64_t)sb * 592 + 576))
              : vcombine_f32(vdup_n_f32(odd[sb].d), vdup_n_f32(0.0f));
      f[k][0] = vfmaq_f32(f[k][0], vcvtq_n_f32_s32(ai[k][0], 2), vmulq_f32(dA, da));
      f[k][1] = vfmaq_f32(f[k][1], vcvtq_n_f32_s32(ai[k][1], 2), vmulq_f32(dB, da));
    }
  }
  kiln_neon_mmk_store(f, nr, bias, y, N, n);
}

/* The K-quant SMMLA matmuls: one row runs the dotprod kernel's tile on the
 * odd-row block the quantizer left. */
#define KILN_NEON_MMK_MATMUL(T, SB_BYTES)                                      \
  KILN_NEON_MM_DRIVER(T##_q8_k, T, kiln_neon_mmk_rows, kiln_q8k_block, 256,    \
                      592, SB_BYTES, ,                                         \
                      kiln_neon_##T##_tile(t, nu, odd, 1, bj, yr + j, N, n))
KILN_NEON_MMK_MATMUL(q4_k, 592)
KILN_NEON_MMK_MATMUL(q6_k, 72 + 8 * 96)
#endif /* __ARM_FEATURE_MATMUL_INT8 */

/* ---- float weights, f32 activations ------------------------------------ */

/* y[r][j] = x[r] . W[j] (+ bias[j]) for f32, f16 or bf16 rows of W (ELEM
 * elements), four input rows per pass over a weight row, four lanes loaded
 * and widened at a time. */
#define KILN_NEON_FLOAT_MATMUL(T, ELEM, LOAD4, SCALAR)                         \
  KILN_KERNEL void kiln_matmul_##T##_f32_4x1_neon(const float *x, int rows, int K, \
                                            const uint8_t *w, int N,           \
                                            const float *bias, float *y) {     \
    const ELEM *we = (const ELEM *)w;                                          \
    for (int j = 0; j < N; ++j) {                                              \
      const ELEM *wr = we + (int64_t)j * K;                                    \
      for (int r0 = 0; r0 < rows; r0 += 4) {                                   \
        const int nr = rows - r0 < 4 ? rows - r0 : 4;                          \
        float32x4_t acc[4] = {vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0),  \
                              vdupq_n_f32(0)};                                 \
        int k = 0;                                                             \
        for (; k + 4 <= K; k += 4) {                                           \
          const float32x4_t wv = LOAD4(wr + k);                                \
          for (int i = 0; i < nr; ++i)                                         \
            acc[i] = vfmaq_f32(acc[i], wv,                                     \
                               vld1q_f32(x + (int64_t)(r0 + i) * K + k));      \
        }                                                                      \
        for (int i = 0; i < nr; ++i) {                                         \
          float sum = vaddvq_f32(acc[i]);                                      \
          for (int kk = k; kk < K; ++kk)                                       \
            sum += SCALAR(wr[kk]) * x[(int64_t)(r0 + i) * K + kk];             \
          y[(int64_t)(r0 + i) * N + j] = sum + (bias ? bias[j] : 0.0f);        \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

static inline float32x4_t kiln_neon_load4_f16(const uint16_t *p) {
  return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)));
}
static inline float32x4_t kiln_neon_load4_bf16(const uint16_t *p) {
  return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16));
}
static inline float kiln_neon_f16_scalar(uint16_t h) {
  return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(h))), 0);
}
static inline float kiln_neon_bf16_scalar(uint16_t h) {
  union { uint32_t u; float f; } v = {(uint32_t)h << 16};
  return v.f;
}
static inline float kiln_neon_f32_scalar(float f) { return f; }
KILN_NEON_FLOAT_MATMUL(f32, float, vld1q_f32, kiln_neon_f32_scalar)
KILN_NEON_FLOAT_MATMUL(f16, uint16_t, kiln_neon_load4_f16, kiln_neon_f16_scalar)
KILN_NEON_FLOAT_MATMUL(bf16, uint16_t, kiln_neon_load4_bf16, kiln_neon_bf16_scalar)
