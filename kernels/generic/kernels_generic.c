/* kernels_generic.c - portable C11 kernels of the generic target.
 *
 * Each kernel is named after the `kiln.kernel` that kiln-select-kernels writes
 * into the IR. Like every kernel source it is a static function in kilnc's
 * single kernel unit (kiln_kernels.h), which the C compiler specialises for
 * the constant shapes at its call sites. Weights are read in GGML block
 * layout; all math is f32.
 */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "kiln_kernels.h"

/* No libm: the same kernels serve freestanding targets (Hexagon), so the few
 * transcendentals are computed here. RoPE needs none at run time: kilnc
 * precomputes its cos/sin table. */
static float kiln_g_bits_to_float(uint32_t u) {
  union { uint32_t u; float f; } v = {u};
  return v.f;
}

/* e^x to about 1 ulp: x = n ln2 + r, |r| <= ln2/2, e^r by a degree-6 polynomial. */
static float kiln_g_expf(float x) {
  if (x > 88.7f)
    return kiln_g_bits_to_float(0x7f800000u);
  if (x < -103.9f)
    return 0.0f;
  /* n = x / ln2 rounded to the nearest integer: adding 1.5 * 2^23 rounds
   * it, and the sum's low mantissa bits are n. No float-to-int conversion:
   * vectorized for RVV, a truncating one is VFCVT.RTZ, which qemu-user 7.2
   * (Debian 12) aborts on when it starts a translation block. */
  const float magic = 12582912.0f;
  union { float f; int32_t i; } t = {x * 1.44269504f + magic};
  const int n = t.i - 0x4B400000;
  const float fn = t.f - magic;
  float r = x - fn * 0.693145752f - fn * 1.42860677e-6f;
  float p = 1.0f + r * (1.0f + r * (0.5f + r * (0.166666672f +
            r * (0.0416666567f + r * (0.00833336077f + r * 0.00138889043f)))));
  /* 2^n in two steps so that n down to -150 stays representable. */
  int n1 = n / 2, n2 = n - n1;
  return p * kiln_g_bits_to_float((uint32_t)(n1 + 127) << 23) *
         kiln_g_bits_to_float((uint32_t)(n2 + 127) << 23);
}

/* 1/sqrt(x) for x > 0. */
static float kiln_g_rsqrtf(float x) {
#if defined(__hexagon__)
  union { float f; uint32_t u; } v = {x};
  v.u = 0x5f375a86u - (v.u >> 1);
  float y = v.f;
  for (int i = 0; i < 4; ++i)
    y = y * (1.5f - 0.5f * x * y * y);
  return y;
#else
  return 1.0f / __builtin_sqrtf(x);
#endif
}

#define KILN_G_MAX_BLOCK 256



static float kiln_g_bf16(uint16_t h) {
  union { uint32_t u; float f; } v = {(uint32_t)h << 16};
  return v.f;
}


/* Block dequantizers: one block of GGML data -> f32. */
static void kiln_g_deq_f32(const uint8_t *b, float *y) {
  union { uint32_t u; float f; } v;
  v.u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
        (uint32_t)b[3] << 24;
  y[0] = v.f;
}
static void kiln_g_deq_f16(const uint8_t *b, float *y) {
  y[0] = kiln_g_f16(kiln_g_u16(b));
}
static void kiln_g_deq_bf16(const uint8_t *b, float *y) {
  y[0] = kiln_g_bf16(kiln_g_u16(b));
}
static void kiln_g_deq_q8_0(const uint8_t *b, float *y) {
  float d = kiln_g_f16(kiln_g_u16(b));
  const int8_t *q = (const int8_t *)(b + 2);
  for (int j = 0; j < 32; ++j)
    y[j] = d * (float)q[j];
}
static void kiln_g_deq_q4_0(const uint8_t *b, float *y) {
  float d = kiln_g_f16(kiln_g_u16(b));
  const uint8_t *q = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = d * (float)((q[j] & 0xf) - 8);
    y[j + 16] = d * (float)((q[j] >> 4) - 8);
  }
}
static void kiln_g_deq_q4_1(const uint8_t *b, float *y) {
  float d = kiln_g_f16(kiln_g_u16(b)), m = kiln_g_f16(kiln_g_u16(b + 2));
  const uint8_t *q = b + 4;
  for (int j = 0; j < 16; ++j) {
    y[j] = d * (float)(q[j] & 0xf) + m;
    y[j + 16] = d * (float)(q[j] >> 4) + m;
  }
}
/* Q4_K: 8 sub-blocks of 32 with 6-bit scales and mins packed in 12 bytes. */
static void kiln_g_deq_q4_k(const uint8_t *b, float *y) {
  float d = kiln_g_f16(kiln_g_u16(b)), dmin = kiln_g_f16(kiln_g_u16(b + 2));
  const uint8_t *scales = b + 4, *q = b + 16;
  for (int j = 0, is = 0; j < 256; j += 64, is += 2, q += 32) {
    int sc, m;
    kiln_g_scale_min_k4(is, scales, &sc, &m);
    float d1 = d * (float)sc, m1 = dmin * (float)m;
    kiln_g_scale_min_k4(is + 1, scales, &sc, &m);
    float d2 = d * (float)sc, m2 = dmin * (float)m;
    for (int l = 0; l < 32; ++l) {
      y[j + l] = d1 * (float)(q[l] & 0xf) - m1;
      y[j + 32 + l] = d2 * (float)(q[l] >> 4) - m2;
    }
  }
}
/* Q6_K: 16 sub-blocks of 16 with int8 scales; 4 low bits in ql, 2 high in qh. */
static void kiln_g_deq_q6_k(const uint8_t *b, float *y) {
  const uint8_t *ql = b, *qh = b + 128;
  const int8_t *sc = (const int8_t *)(b + 192);
  float d = kiln_g_f16(kiln_g_u16(b + 208));
  for (int n = 0; n < 256; n += 128, ql += 64, qh += 32, sc += 8) {
    for (int l = 0; l < 32; ++l) {
      int is = l / 16;
      int q1 = (int)((ql[l] & 0xf) | (((qh[l] >> 0) & 3) << 4)) - 32;
      int q2 = (int)((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) - 32;
      int q3 = (int)((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      int q4 = (int)((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[n + l] = d * (float)sc[is + 0] * (float)q1;
      y[n + l + 32] = d * (float)sc[is + 2] * (float)q2;
      y[n + l + 64] = d * (float)sc[is + 4] * (float)q3;
      y[n + l + 96] = d * (float)sc[is + 6] * (float)q4;
    }
  }
}

/* Q5_0 / Q5_1: Q4 nibbles plus a fifth bit per element in a 32-bit word. */
static int kiln_g_q5(const uint8_t *qh, const uint8_t *qs, int j) {
  const uint32_t h = (uint32_t)qh[0] | (uint32_t)qh[1] << 8 |
                     (uint32_t)qh[2] << 16 | (uint32_t)qh[3] << 24;
  const int lo = j < 16 ? qs[j] & 0xf : qs[j - 16] >> 4;
  return lo | (int)(((h >> j) & 1u) << 4);
}
static void kiln_g_deq_q5_0(const uint8_t *b, float *y) {
  float d = kiln_g_f16(kiln_g_u16(b));
  for (int j = 0; j < 32; ++j)
    y[j] = d * (float)(kiln_g_q5(b + 2, b + 6, j) - 16);
}
static void kiln_g_deq_q5_1(const uint8_t *b, float *y) {
  float d = kiln_g_f16(kiln_g_u16(b)), m = kiln_g_f16(kiln_g_u16(b + 2));
  for (int j = 0; j < 32; ++j)
    y[j] = d * (float)kiln_g_q5(b + 4, b + 8, j) + m;
}
/* Q2_K: 16 sub-blocks of 16, 4-bit scale and min per sub-block. */
static void kiln_g_deq_q2_k(const uint8_t *b, float *y) {
  const float d = kiln_g_f16(kiln_g_u16(b + 80)), dmin = kiln_g_f16(kiln_g_u16(b + 82));
  for (int e = 0; e < 256; ++e) {
    const uint8_t s = b[e / 16];
    y[e] = d * (float)(s & 0xf) * (float)kiln_g_2bit(b + 16, e) -
           dmin * (float)(s >> 4);
  }
}
/* Q3_K: 16 sub-blocks of 16 with 6-bit signed scales; third bit in hmask
 * (clear: subtract 4). */
static void kiln_g_deq_q3_k(const uint8_t *b, float *y) {
  const float d = kiln_g_f16(kiln_g_u16(b + 108));
  for (int e = 0; e < 256; ++e) {
    const int high = (b[e % 32] >> (e / 32)) & 1;
    y[e] = d * (float)kiln_g_q3k_scale(b + 96, e / 16) *
           (float)(kiln_g_2bit(b + 32, e) - (high ? 0 : 4));
  }
}
/* Q5_K: Q4_K's sub-blocks with a fifth bit per element in qh. */
static void kiln_g_deq_q5_k(const uint8_t *b, float *y) {
  float d = kiln_g_f16(kiln_g_u16(b)), dmin = kiln_g_f16(kiln_g_u16(b + 2));
  const uint8_t *scales = b + 4, *qh = b + 16, *q = b + 48;
  for (int j = 0, is = 0; j < 256; j += 64, is += 2, q += 32) {
    int sc, m;
    kiln_g_scale_min_k4(is, scales, &sc, &m);
    float d1 = d * (float)sc, m1 = dmin * (float)m;
    kiln_g_scale_min_k4(is + 1, scales, &sc, &m);
    float d2 = d * (float)sc, m2 = dmin * (float)m;
    for (int l = 0; l < 32; ++l) {
      y[j + l] = d1 * (float)((q[l] & 0xf) | (((qh[l] >> is) & 1) << 4)) - m1;
      y[j + 32 + l] = d2 * (float)((q[l] >> 4) | (((qh[l] >> (is + 1)) & 1) << 4)) - m2;
    }
  }
}
/* IQ4_NL / IQ4_XS: nibbles index 16 non-linear levels. */
static void kiln_g_deq_iq4_nl(const uint8_t *b, float *y) {
  float d = kiln_g_f16(kiln_g_u16(b));
  for (int j = 0; j < 16; ++j) {
    y[j] = d * (float)kiln_g_iq4nl[b[2 + j] & 0xf];
    y[j + 16] = d * (float)kiln_g_iq4nl[b[2 + j] >> 4];
  }
}
/* IQ4_XS: 8 sub-blocks of 32 with 6-bit scales (value - 32). */
static void kiln_g_deq_iq4_xs(const uint8_t *b, float *y) {
  float d = kiln_g_f16(kiln_g_u16(b));
  const int sh = kiln_g_u16(b + 2);
  for (int ib = 0; ib < 8; ++ib) {
    const int ls = ((b[4 + ib / 2] >> 4 * (ib % 2)) & 0xf) | (((sh >> 2 * ib) & 3) << 4);
    const float dl = d * (float)(ls - 32);
    const uint8_t *qs = b + 8 + 16 * ib;
    for (int j = 0; j < 16; ++j) {
      y[32 * ib + j] = dl * (float)kiln_g_iq4nl[qs[j] & 0xf];
      y[32 * ib + j + 16] = dl * (float)kiln_g_iq4nl[qs[j] >> 4];
    }
  }
}

/* One kernel pair per weight type: embedding row lookup and matmul.
 * matmul: y[r][j] = sum_k x[r][k] * W[j][k] (+ bias[j]) for r < rows. */
#define KILN_G_WEIGHT_KERNELS(T, BS, BB)                                       \
  static void kiln_embedding_##T##_generic(const uint8_t *table, const int32_t *tok,  \
                                   int rows, int width, float *out) {         \
    const int64_t row_bytes = (int64_t)width / BS * BB;                        \
    for (int r = 0; r < rows; ++r) {                                           \
      const uint8_t *src = table + (int64_t)tok[r] * row_bytes;                \
      for (int b = 0; b < width / BS; ++b)                                     \
        kiln_g_deq_##T(src + (int64_t)b * BB, out + (int64_t)r * width + b * BS); \
    }                                                                          \
  }                                                                            \
  KILN_KERNEL void kiln_matmul_##T##_f32_generic(const float *x, int rows, int K,          \
                                const uint8_t *w, int N, const float *bias,    \
                                float *y) {                                    \
    float tmp[KILN_G_MAX_BLOCK];                                               \
    const int64_t row_bytes = (int64_t)K / BS * BB;                            \
    for (int j = 0; j < N; ++j) {                                              \
      for (int r = 0; r < rows; ++r)                                           \
        y[(int64_t)r * N + j] = 0.0f;                                          \
      const uint8_t *wr = w + (int64_t)j * row_bytes;                          \
      for (int b = 0; b < K / BS; ++b) {                                       \
        kiln_g_deq_##T(wr + (int64_t)b * BB, tmp);                             \
        for (int r = 0; r < rows; ++r) {                                       \
          const float *xr = x + (int64_t)r * K + b * BS;                       \
          float acc = 0.0f;                                                    \
          for (int e = 0; e < BS; ++e)                                         \
            acc += tmp[e] * xr[e];                                             \
          y[(int64_t)r * N + j] += acc;                                        \
        }                                                                      \
      }                                                                        \
      if (bias)                                                                \
        for (int r = 0; r < rows; ++r)                                         \
          y[(int64_t)r * N + j] += bias[j];                                    \
    }                                                                          \
  }

KILN_G_WEIGHT_KERNELS(f32, 1, 4)
KILN_G_WEIGHT_KERNELS(f16, 1, 2)
KILN_G_WEIGHT_KERNELS(bf16, 1, 2)
KILN_G_WEIGHT_KERNELS(q8_0, 32, 34)
KILN_G_WEIGHT_KERNELS(q4_0, 32, 18)
KILN_G_WEIGHT_KERNELS(q4_1, 32, 20)
KILN_G_WEIGHT_KERNELS(q4_k, 256, 144)
KILN_G_WEIGHT_KERNELS(q6_k, 256, 210)
KILN_G_WEIGHT_KERNELS(q5_0, 32, 22)
KILN_G_WEIGHT_KERNELS(q5_1, 32, 24)
KILN_G_WEIGHT_KERNELS(q2_k, 256, 84)
KILN_G_WEIGHT_KERNELS(q3_k, 256, 110)
KILN_G_WEIGHT_KERNELS(q5_k, 256, 176)
KILN_G_WEIGHT_KERNELS(iq4_nl, 32, 18)
KILN_G_WEIGHT_KERNELS(iq4_xs, 256, 136)

/* w == 0: no scale (folded into the weights of the consumers). y may be x.
 * Each row's sum of squares is one chain in element order, as in the plain
 * loop. Eight rows' chains run side by side in the lanes of one vector: an
 * 8 x 8 block of the rows is transposed in registers, so lane k adds row k's
 * squares in order and the adds of eight rows overlap instead of each waiting
 * on the last (the plain loop over a 32-row chunk took longer than the
 * chunk's RoPE and quantization together). Same sums, same order, same bits. */
typedef float kiln_g_v8 __attribute__((vector_size(32)));
static inline void kiln_g_transpose8(kiln_g_v8 *r) {
  kiln_g_v8 t[8], u[8];
  for (int p = 0; p < 4; ++p) {
    t[2 * p] = __builtin_shufflevector(r[2 * p], r[2 * p + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[2 * p + 1] = __builtin_shufflevector(r[2 * p], r[2 * p + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int p = 0; p < 2; ++p)
    for (int h = 0; h < 2; ++h) {
      u[4 * p + 2 * h] = __builtin_shufflevector(t[4 * p + h], t[4 * p + h + 2],
                                                 0, 1, 8, 9, 4, 5, 12, 13);
      u[4 * p + 2 * h + 1] = __builtin_shufflevector(t[4 * p + h], t[4 * p + h + 2],
                                                     2, 3, 10, 11, 6, 7, 14, 15);
    }
  /* u[0..3] hold elements {0,4}, {1,5}, {2,6}, {3,7} of rows 0-3; u[4..7]
   * the same of rows 4-7. */
  for (int j = 0; j < 4; ++j) {
    r[j] = __builtin_shufflevector(u[j], u[j + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    r[j + 4] = __builtin_shufflevector(u[j], u[j + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

static void kiln_rms_norm_f32_generic(const float *x, int rows, int width,
                            const float *w, float eps, float *y) {
  for (int r0 = 0; r0 < rows; r0 += 8) {
    const int nr = rows - r0 < 8 ? rows - r0 : 8;
    float ss[8] = {0};
    int i = 0;
    if (nr == 8) {
      kiln_g_v8 acc = {0};
      for (; i + 8 <= width; i += 8) {
        kiln_g_v8 b[8];
        for (int k = 0; k < 8; ++k)
          __builtin_memcpy(&b[k], x + (int64_t)(r0 + k) * width + i, sizeof b[k]);
        kiln_g_transpose8(b);
        for (int j = 0; j < 8; ++j)
          acc += b[j] * b[j];
      }
      __builtin_memcpy(ss, &acc, sizeof ss);
    }
    for (int k = 0; k < nr; ++k) {
      const float *xr = x + (int64_t)(r0 + k) * width;
      for (int e = i; e < width; ++e)
        ss[k] += xr[e] * xr[e];
    }
    for (int k = 0; k < nr; ++k) {
      const float *xr = x + (int64_t)(r0 + k) * width;
      float *yr = y + (int64_t)(r0 + k) * width;
      const float scale = kiln_g_rsqrtf(ss[k] / (float)width + eps);
      for (int e = 0; e < width; ++e)
        yr[e] = xr[e] * scale * (w ? w[e] : 1.0f);
    }
  }
}

/* neox = 0: rotate pairs (2i, 2i+1); neox = 1: pairs (i, i + head_dim/2).
 * table[(pos * head_dim/2 + i) * 2 + {0, 1}] = {cos, sin}(pos * theta^(-2i/d));
 * row r is at position pos[r] of its sequence. */
static void kiln_g_rope(const float *x, int rows, int width, int head_dim,
                        const uint32_t *pos, const float *table, int neox,
                        float *y) {
  const int half = head_dim / 2;
  for (int r = 0; r < rows; ++r) {
    const float *cs = table + (int64_t)pos[r] * half * 2;
    for (int h = 0; h < width / head_dim; ++h) {
      const float *xh = x + (int64_t)r * width + h * head_dim;
      float *yh = y + (int64_t)r * width + h * head_dim;
      for (int i = 0; i < half; ++i) {
        float c = cs[2 * i], s = cs[2 * i + 1];
        int a = neox ? i : 2 * i, b = neox ? i + half : 2 * i + 1;
        float x0 = xh[a], x1 = xh[b];
        yh[a] = x0 * c - x1 * s;
        yh[b] = x0 * s + x1 * c;
      }
    }
  }
}

static void kiln_rope_adjacent_f32_generic(const float *x, int rows, int width,
                                           int head_dim, const uint32_t *pos,
                                           const float *table, float *y) {
  kiln_g_rope(x, rows, width, head_dim, pos, table, 0, y);
}

static void kiln_rope_neox_f32_generic(const float *x, int rows, int width,
                                       int head_dim, const uint32_t *pos,
                                       const float *table, float *y) {
  kiln_g_rope(x, rows, width, head_dim, pos, table, 1, y);
}

/* Element i of a KV cache row: f32, or binary16 widened (kv_dtype
 * KILN_KV_F16). Called with a constant f16, so each use compiles to one
 * form. */
static inline __attribute__((always_inline)) float
kiln_g_kv(const void *row, int64_t i, const int f16) {
  return f16 ? kiln_g_f16(((const uint16_t *)row)[i]) : ((const float *)row)[i];
}

/* Dot product in eight interleaved partial sums: the form compilers turn into
 * vector FMAs without licence to reassociate (no -ffast-math); the same
 * products in the same order for either cache type. */
static inline __attribute__((always_inline)) float
kiln_g_dot_kv(const float *a, const void *b, int n, const int f16) {
  float acc[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l)
      acc[l] += a[i + l] * kiln_g_kv(b, i + l, f16);
  float tail = 0.0f;
  for (; i < n; ++i)
    tail += a[i] * kiln_g_kv(b, i, f16);
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) +
         ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail;
}

/* Row r belongs to sequence seq[r] at position pos[r]. Every row's K and V are
 * stored first, so a row attends to the rows before it in the same call (a
 * prefill chunk) exactly as to those of earlier calls. Positions are walked a
 * KV block at a time: the rows of one block are contiguous (kv_width elements
 * apart), so the block table is consulted once per block, not per position.
 * The cache holds f32 or, with layout.kv_dtype KILN_KV_F16, binary16: K and
 * V are rounded once when stored and widened when read. The body is compiled
 * once per cache type (f16 is a constant in each). */
static inline __attribute__((always_inline)) void
kiln_g_attention_of(const kiln_ctx *ctx, uint32_t layer, const int32_t *seq,
                    const uint32_t *pos, const float *q, const float *k,
                    const float *v, int rows, int heads, int kv_heads,
                    int head_dim, float scale, float *out, float *scores,
                    const int f16, uint32_t window) {
  const int kvw = kv_heads * head_dim, qw = heads * head_dim;
  const int group = heads / kv_heads;
  const uint32_t block = ctx->layout.kv_block;
  for (int r = 0; r < rows; ++r) {
    void *kd = kiln_kv_at(ctx, seq[r], layer, 0, pos[r]);
    void *vd = kiln_kv_at(ctx, seq[r], layer, 1, pos[r]);
    for (int i = 0; i < kvw; ++i) {
      const float ki = k[(int64_t)r * kvw + i], vi = v[(int64_t)r * kvw + i];
      if (f16) {
        ((uint16_t *)kd)[i] = kiln_g_to_f16(ki);
        ((uint16_t *)vd)[i] = kiln_g_to_f16(vi);
      } else {
        ((float *)kd)[i] = ki;
        ((float *)vd)[i] = vi;
      }
    }
  }
  const int64_t es = f16 ? 2 : 4; /* bytes per cache element */
  for (int r = 0; r < rows; ++r) {
    const uint32_t len = pos[r] + 1;
    /* A sliding window (window > 0) starts at position len - window. */
    const uint32_t first = window && len > window ? len - window : 0;
    for (int h = 0; h < heads; ++h) {
      const float *qh = q + (int64_t)r * qw + h * head_dim;
      const int kh = h / group;
      float mx = kiln_g_bits_to_float(0xff800000u); /* -inf */
      for (uint32_t t0 = first / block * block; t0 < len; t0 += block) {
        const uint32_t nt = len - t0 < block ? len - t0 : block;
        const uint8_t *kb = (const uint8_t *)kiln_kv_at(ctx, seq[r], layer, 0, t0);
        for (uint32_t t = t0 < first ? first - t0 : 0; t < nt; ++t) {
          const int64_t at = (int64_t)t * kvw + kh * head_dim;
          const float s = kiln_g_dot_kv(qh, kb + at * es, head_dim, f16) * scale;
          scores[t0 + t] = s;
          mx = s > mx ? s : mx;
        }
      }
      float sum = 0.0f;
      for (uint32_t t = first; t < len; ++t) {
        scores[t] = kiln_g_expf(scores[t] - mx);
        sum += scores[t];
      }
      const float inv = 1.0f / sum;
      float *oh = out + (int64_t)r * qw + h * head_dim;
      for (int d = 0; d < head_dim; ++d)
        oh[d] = 0.0f;
      for (uint32_t t0 = first / block * block; t0 < len; t0 += block) {
        const uint32_t nt = len - t0 < block ? len - t0 : block;
        const uint8_t *vb = (const uint8_t *)kiln_kv_at(ctx, seq[r], layer, 1, t0);
        for (uint32_t t = t0 < first ? first - t0 : 0; t < nt; ++t) {
          const float p = scores[t0 + t] * inv;
          const uint8_t *vt = vb + ((int64_t)t * kvw + kh * head_dim) * es;
          for (int d = 0; d < head_dim; ++d)
            oh[d] += p * kiln_g_kv(vt, d, f16);
        }
      }
    }
  }
}

KILN_KERNEL void kiln_attention_f32_generic(const kiln_ctx *ctx, uint32_t layer,
                                       const int32_t *seq, const uint32_t *pos,
                                       const float *q, const float *k,
                                       const float *v, int rows, int heads,
                                       int kv_heads, int head_dim, float scale,
                                       float *out, float *scores) {
  if (ctx->layout.kv_dtype == KILN_KV_F16)
    kiln_g_attention_of(ctx, layer, seq, pos, q, k, v, rows, heads, kv_heads,
                        head_dim, scale, out, scores, 1, 0);
  else
    kiln_g_attention_of(ctx, layer, seq, pos, q, k, v, rows, heads, kv_heads,
                        head_dim, scale, out, scores, 0, 0);
}

/* Sliding-window attention: a query at position p sees positions above
 * p - window. */
KILN_KERNEL void kiln_attention_swa_f32_generic(
    const kiln_ctx *ctx, uint32_t layer, const int32_t *seq, const uint32_t *pos,
    const float *q, const float *k, const float *v, int rows, int heads,
    int kv_heads, int head_dim, float scale, uint32_t window, float *out,
    float *scores) {
  kiln_g_attention_of(ctx, layer, seq, pos, q, k, v, rows, heads, kv_heads,
                      head_dim, scale, out, scores,
                      ctx->layout.kv_dtype == KILN_KV_F16, window);
}

static void kiln_silu_mul_f32_generic(const float *g, const float *u, int64_t n,
                            float *y) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = g[i] / (1.0f + kiln_g_expf(-g[i])) * u[i];
}

/* gelu(g) * u with GELU's tanh form; tanh(z) = 1 - 2 / (exp(2z) + 1). */
static void kiln_gelu_mul_f32_generic(const float *g, const float *u, int64_t n,
                                      float *y) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = g[i];
    const float z = 0.7978845608f * (x + 0.044715f * x * x * x);
    const float t = z > 20.0f ? 1.0f
                    : z < -20.0f ? -1.0f
                                 : 1.0f - 2.0f / (kiln_g_expf(2.0f * z) + 1.0f);
    y[i] = 0.5f * x * (1.0f + t) * u[i];
  }
}

static void kiln_add_f32_generic(const float *a, const float *b, int64_t n, float *y) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = a[i] + b[i];
}

/* Matmul epilogues (kiln.matmul epilogue = ...), in place on the output y:
 * the same expressions, operand for operand, as the add and silu_mul kernels
 * they replace, so fusing them changes no bit of the result. */
static void kiln_epilogue_add(float *y, const float *o, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = o[i] + y[i];
}

static void kiln_epilogue_silu_mul(float *y, const float *o, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = y[i] / (1.0f + kiln_g_expf(-y[i])) * o[i];
}

static void kiln_epilogue_mul_silu(float *y, const float *o, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = o[i] / (1.0f + kiln_g_expf(-o[i])) * y[i];
}

/* Gathers the rows out_rows[0..n_out) (the last row of each sequence). */
static void kiln_last_token_f32_generic(const float *x, const int32_t *out_rows,
                                        int n_out, int width, float *y) {
  for (int o = 0; o < n_out; ++o) {
    const float *src = x + (int64_t)out_rows[o] * width;
    for (int i = 0; i < width; ++i)
      y[(int64_t)o * width + i] = src[i];
  }
}
