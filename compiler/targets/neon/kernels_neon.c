/* kernels_neon.c - AArch64 NEON (dotprod) matmul microkernels.
 *
 * Activations are quantized to Q8_0 with kiln_q8_rows (kernels_q8.c), so the
 * numerics are those of the scalar kernels; only float sums may be reordered.
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

/* Decode: one activation row, two blocks per step into two float sums. */
static inline __attribute__((always_inline)) void
kiln_neon_q4_0_tile1(const uint8_t *tile, int nb, const kiln_q8_block *a,
                     const float *bias, float *y, int n) {
  const int8_t *wq = (const int8_t *)tile;
  const uint16_t *ws = (const uint16_t *)(tile + (int64_t)nb * 64);
  const int8x16_t m4 = vdupq_n_s8((int8_t)0xf0);
  float32x4_t f0 = vdupq_n_f32(0), f1 = f0;
  int b = 0;
#define KILN_NEON_Q4_STEP(F, B)                                                \
  {                                                                            \
    const int8_t *q = wq + (int64_t)(B) * 64;                                  \
    const int8x16_t w0 = vld1q_s8(q), w1 = vld1q_s8(q + 16),                   \
                    w2 = vld1q_s8(q + 32), w3 = vld1q_s8(q + 48);              \
    int32x4_t s = kiln_neon_q4_0_blk(                                          \
        vshlq_n_s8(w0, 4), vshlq_n_s8(w1, 4), vshlq_n_s8(w2, 4),               \
        vshlq_n_s8(w3, 4), vandq_s8(w0, m4), vandq_s8(w1, m4),                 \
        vandq_s8(w2, m4), vandq_s8(w3, m4), a[B].qs);                          \
    const float32x4_t dw =                                                     \
        vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(ws + 4 * (B))));            \
    F = vfmaq_f32(F, vcvtq_n_f32_s32(s, 4),                                    \
                  vmulq_n_f32(dw, kiln_neon_h2f(a[B].d)));                     \
  }
  for (; b + 1 < nb; b += 2) {
    KILN_NEON_Q4_STEP(f0, b)
    KILN_NEON_Q4_STEP(f1, b + 1)
  }
  if (b < nb)
    KILN_NEON_Q4_STEP(f0, b)
#undef KILN_NEON_Q4_STEP
  kiln_neon_store4(vaddq_f32(f0, f1), bias, y, n);
}

static void kiln_matmul_q4_0_q8_0_4x4_neon_dotprod(
    const float *x, int rows, int K, const uint8_t *w, int N, const float *bias,
    float *y, void *scratch) {
  const kiln_q8_block *a = kiln_q8_rows(x, rows, K, scratch);
  const int nb = K / 32;
  const int64_t tile_bytes = (int64_t)nb * 72;
  for (int r0 = 0; r0 < rows; r0 += 4) {
    const int nr = rows - r0 < 4 ? rows - r0 : 4;
    const kiln_q8_block *ar = a + (int64_t)r0 * nb;
    float *yr = y + (int64_t)r0 * N;
    for (int j = 0; j < N; j += 4) {
      const uint8_t *t = w + (int64_t)(j / 4) * tile_bytes;
      const float *bj = bias ? bias + j : 0;
      const int n = N - j < 4 ? N - j : 4;
      switch (nr) {
      case 1: kiln_neon_q4_0_tile1(t, nb, ar, bj, yr + j, n); break;
      case 2: kiln_neon_q4_0_tile(t, nb, ar, 2, bj, yr + j, N, n); break;
      case 3: kiln_neon_q4_0_tile(t, nb, ar, 3, bj, yr + j, N, n); break;
      default: kiln_neon_q4_0_tile(t, nb, ar, 4, bj, yr + j, N, n); break;
      }
    }
  }
}

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

static inline __attribute__((always_inline)) void
kiln_neon_q8_0_tile1(const uint8_t *tile, int nb, const kiln_q8_block *a,
                     const float *bias, float *y, int n) {
  const int8_t *wq = (const int8_t *)tile;
  const uint16_t *ws = (const uint16_t *)(tile + (int64_t)nb * 128);
  float32x4_t f0 = vdupq_n_f32(0), f1 = f0;
  int b = 0;
#define KILN_NEON_Q8_STEP(F, B)                                                \
  {                                                                            \
    int32x4_t s = kiln_neon_q8_0_blk(wq + (int64_t)(B) * 128, a[B].qs);        \
    const float32x4_t dw =                                                     \
        vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(ws + 4 * (B))));            \
    F = vfmaq_f32(F, vcvtq_f32_s32(s), vmulq_n_f32(dw, kiln_neon_h2f(a[B].d)));\
  }
  for (; b + 1 < nb; b += 2) {
    KILN_NEON_Q8_STEP(f0, b)
    KILN_NEON_Q8_STEP(f1, b + 1)
  }
  if (b < nb)
    KILN_NEON_Q8_STEP(f0, b)
#undef KILN_NEON_Q8_STEP
  kiln_neon_store4(vaddq_f32(f0, f1), bias, y, n);
}

static void kiln_matmul_q8_0_q8_0_4x4_neon_dotprod(
    const float *x, int rows, int K, const uint8_t *w, int N, const float *bias,
    float *y, void *scratch) {
  const kiln_q8_block *a = kiln_q8_rows(x, rows, K, scratch);
  const int nb = K / 32;
  const int64_t tile_bytes = (int64_t)nb * 136;
  for (int r0 = 0; r0 < rows; r0 += 4) {
    const int nr = rows - r0 < 4 ? rows - r0 : 4;
    const kiln_q8_block *ar = a + (int64_t)r0 * nb;
    float *yr = y + (int64_t)r0 * N;
    for (int j = 0; j < N; j += 4) {
      const uint8_t *t = w + (int64_t)(j / 4) * tile_bytes;
      const float *bj = bias ? bias + j : 0;
      const int n = N - j < 4 ? N - j : 4;
      switch (nr) {
      case 1: kiln_neon_q8_0_tile1(t, nb, ar, bj, yr + j, n); break;
      case 2: kiln_neon_q8_0_tile(t, nb, ar, 2, bj, yr + j, N, n); break;
      case 3: kiln_neon_q8_0_tile(t, nb, ar, 3, bj, yr + j, N, n); break;
      default: kiln_neon_q8_0_tile(t, nb, ar, 4, bj, yr + j, N, n); break;
      }
    }
  }
}

/* K-quants, "1x1": GGML layout as is (no repacking). Each weight sub-block is
 * decoded once into int8 vectors and dotted with the activation blocks of up
 * to 32 rows; the float arithmetic per sub-block is the scalar kernel's. */
static inline int32_t kiln_neon_dot32(int8x16_t w0, int8x16_t w1,
                                      const int8_t *aq) {
  int32x4_t s = vdotq_s32(vdupq_n_s32(0), w0, vld1q_s8(aq));
  s = vdotq_s32(s, w1, vld1q_s8(aq + 16));
  return vaddvq_s32(s);
}

static void kiln_matmul_q4_k_q8_0_1x1_neon_dotprod(
    const float *x, int rows, int K, const uint8_t *w, int N, const float *bias,
    float *y, void *scratch) {
  const kiln_q8_block *a = kiln_q8_rows(x, rows, K, scratch);
  const int nb = K / 32, ns = K / 256;
  const int8x16_t ones = vdupq_n_s8(1);
  const uint8x16_t m4 = vdupq_n_u8(0xf);
  for (int r0 = 0; r0 < rows; r0 += 32) {
    const int nr = rows - r0 < 32 ? rows - r0 : 32;
    const kiln_q8_block *ar = a + (int64_t)r0 * nb;
    for (int j = 0; j < N; ++j) {
      float sum[32];
      for (int r = 0; r < nr; ++r)
        sum[r] = 0.0f;
      const uint8_t *ws = w + (int64_t)j * ns * 144;
      for (int s = 0; s < ns; ++s, ws += 144) {
        const float d = kiln_g_f16(kiln_g_u16(ws)),
                    dmin = kiln_g_f16(kiln_g_u16(ws + 2));
        for (int p = 0; p < 4; ++p) {
          const uint8x16_t q0 = vld1q_u8(ws + 16 + p * 32),
                           q1 = vld1q_u8(ws + 32 + p * 32);
          for (int h = 0; h < 2; ++h) {
            const int jj = p * 2 + h;
            int sc, m;
            kiln_g_scale_min_k4(jj, ws + 4, &sc, &m);
            const int8x16_t w0 = vreinterpretq_s8_u8(h ? vshrq_n_u8(q0, 4) : vandq_u8(q0, m4)),
                            w1 = vreinterpretq_s8_u8(h ? vshrq_n_u8(q1, 4) : vandq_u8(q1, m4));
            for (int r = 0; r < nr; ++r) {
              const kiln_q8_block *ab = ar + (int64_t)r * nb + s * 8 + jj;
              const int32_t isum = kiln_neon_dot32(w0, w1, ab->qs);
              const int32_t asum = kiln_neon_dot32(ones, ones, ab->qs);
              const float da = kiln_neon_h2f(ab->d);
              sum[r] += da * (d * (float)sc * (float)isum - dmin * (float)m * (float)asum);
            }
          }
        }
      }
      for (int r = 0; r < nr; ++r)
        y[(int64_t)(r0 + r) * N + j] = sum[r] + (bias ? bias[j] : 0.0f);
    }
  }
}

static void kiln_matmul_q6_k_q8_0_1x1_neon_dotprod(
    const float *x, int rows, int K, const uint8_t *w, int N, const float *bias,
    float *y, void *scratch) {
  const kiln_q8_block *a = kiln_q8_rows(x, rows, K, scratch);
  const int nb = K / 32, ns = K / 256;
  const uint8x16_t m4 = vdupq_n_u8(0xf), m2 = vdupq_n_u8(0x30);
  const int8x16_t k32 = vdupq_n_s8(32);
  for (int r0 = 0; r0 < rows; r0 += 32) {
    const int nr = rows - r0 < 32 ? rows - r0 : 32;
    const kiln_q8_block *ar = a + (int64_t)r0 * nb;
    for (int j = 0; j < N; ++j) {
      float sum[32];
      for (int r = 0; r < nr; ++r)
        sum[r] = 0.0f;
      const uint8_t *ws = w + (int64_t)j * ns * 210;
      for (int s = 0; s < ns; ++s, ws += 210) {
        const int8_t *sc = (const int8_t *)(ws + 192);
        const float d = kiln_g_f16(kiln_g_u16(ws + 208));
        for (int b = 0; b < 8; ++b) {
          const int half = b / 4, quad = b % 4;
          const uint8_t *l4 = ws + half * 64 + (quad & 1) * 32;
          const uint8_t *h2 = ws + 128 + half * 32;
          const uint8x16_t lo0 = vld1q_u8(l4), lo1 = vld1q_u8(l4 + 16);
          const uint8x16_t hi0 = vld1q_u8(h2), hi1 = vld1q_u8(h2 + 16);
          uint8x16_t v0, v1, u0, u1;
          if (quad >> 1) {
            v0 = vshrq_n_u8(lo0, 4); v1 = vshrq_n_u8(lo1, 4);
          } else {
            v0 = vandq_u8(lo0, m4); v1 = vandq_u8(lo1, m4);
          }
          /* bits (2*quad, 2*quad+1) of the high byte -> bits 4, 5 */
          switch (quad) {
          case 0: u0 = vshlq_n_u8(hi0, 4); u1 = vshlq_n_u8(hi1, 4); break;
          case 1: u0 = vshlq_n_u8(hi0, 2); u1 = vshlq_n_u8(hi1, 2); break;
          case 2: u0 = hi0; u1 = hi1; break;
          default: u0 = vshrq_n_u8(hi0, 2); u1 = vshrq_n_u8(hi1, 2); break;
          }
          const int8x16_t w0 = vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(v0, vandq_u8(u0, m2))), k32),
                          w1 = vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(v1, vandq_u8(u1, m2))), k32);
          const int si = half * 8 + quad * 2;
          for (int r = 0; r < nr; ++r) {
            const kiln_q8_block *ab = ar + (int64_t)r * nb + s * 8 + b;
            const int32_t p0 = vaddvq_s32(vdotq_s32(vdupq_n_s32(0), w0, vld1q_s8(ab->qs)));
            const int32_t p1 = vaddvq_s32(vdotq_s32(vdupq_n_s32(0), w1, vld1q_s8(ab->qs + 16)));
            sum[r] += kiln_g_f16(ab->d) * d * (float)(sc[si] * p0 + sc[si + 1] * p1);
          }
        }
      }
      for (int r = 0; r < nr; ++r)
        y[(int64_t)(r0 + r) * N + j] = sum[r] + (bias ? bias[j] : 0.0f);
    }
  }
}
