/* kernels_q8.c - portable matmuls with activations quantized on the fly.
 *
 * ISA targets multiply quantized weights by activations quantized to 8 bits
 * per 32-element block (ggml's Q8_0: an fp16 scale d = amax/127 and
 * q = round(x/d)), so the inner products are integer and results track
 * llama.cpp. These scalar kernels define those numerics: every ISA
 * microkernel is tested against them, and a target uses them for the weight
 * types it has no microkernel for. The reference evaluator mirrors the
 * quantization (kiln.activation = "q8_0" in the IR).
 */
#include "kiln_kernels.h"

/* Round half away from zero, as roundf does, without libm: t = v +- 0.5,
 * then t truncated. The truncation is |t| rounded to nearest by adding
 * 1.5 * 2^23 (|t| < 2^22 here: |v| <= 127), less one where that rounded up,
 * read from the sum's low mantissa bits: clang vectorizes this loop for RVV,
 * where a truncating conversion is VFCVT.RTZ, which qemu-user 7.2 (Debian 12)
 * aborts on when it starts a translation block. */
static int kiln_q_round(float v) {
  const float t = v >= 0.0f ? v + 0.5f : v - 0.5f, a = t < 0.0f ? -t : t;
  const float magic = 12582912.0f;
  union { float f; int32_t i; } r = {a + magic};
  const int n = r.i - 0x4B400000 - (r.f - magic > a);
  return t < 0.0f ? -n : n;
}

/* One row of K floats -> K/32 blocks. */
#if !defined(__AVX2__) && !defined(__ARM_NEON)
KILN_KERNEL void kiln_quantize_row_q8_0(const float *x, int K, kiln_q8_block *y) {
  for (int b = 0; b < K / 32; ++b) {
    const float *xb = x + b * 32;
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j) {
      float a = xb[j] < 0 ? -xb[j] : xb[j];
      amax = a > amax ? a : amax;
    }
    const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
    y[b].d = kiln_g_to_f16(d);
    for (int j = 0; j < 32; ++j)
      y[b].qs[j] = (int8_t)kiln_q_round(xb[j] * id);
  }
}
#else
/* The same operations on 8 lanes at a time (clang vectors; AVX2 and up,
 * NEON and SVE as pairs of 128-bit registers):
 * |x| by clearing the sign, the block's max by a tree (max is exact in any
 * order), then per element the same product, the same +-0.5 and the same
 * truncation as kiln_q_round, so every block is bit-identical to the scalar
 * loop above (MicrokernelTest compares the microkernels, which quantize
 * here, with the scalar kernels; QuantTest checks this row directly). Decode
 * quantizes every matmul's input: the scalar loop was 3% of a decode step. */
typedef float kiln_q_vf __attribute__((vector_size(32)));
typedef int32_t kiln_q_vi __attribute__((vector_size(32)));
typedef int8_t kiln_q_vb __attribute__((vector_size(8)));
static inline kiln_q_vf kiln_q_sel(kiln_q_vi m, kiln_q_vf a, kiln_q_vf b) {
  return (kiln_q_vf)(((kiln_q_vi)a & m) | ((kiln_q_vi)b & ~m));
}
KILN_KERNEL void kiln_quantize_row_q8_0(const float *x, int K, kiln_q8_block *y) {
  for (int b = 0; b < K / 32; ++b) {
    kiln_q_vf v[4], m = {0};
    for (int c = 0; c < 4; ++c) {
      __builtin_memcpy(&v[c], x + b * 32 + 8 * c, sizeof v[c]);
      const kiln_q_vf a = (kiln_q_vf)((kiln_q_vi)v[c] & 0x7fffffff);
      m = kiln_q_sel(a > m, a, m);
    }
    m = kiln_q_sel(m > __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3), m,
                   __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3));
    m = kiln_q_sel(m > __builtin_shufflevector(m, m, 2, 3, 0, 1, 6, 7, 4, 5), m,
                   __builtin_shufflevector(m, m, 2, 3, 0, 1, 6, 7, 4, 5));
    const float amax = m[0] > m[1] ? m[0] : m[1];
    const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
#if defined(__F16C__) || defined(__aarch64__)
    /* The hardware's conversion rounds to nearest even as kiln_g_to_f16
     * does (AttentionTest checks the two agree on every half). */
    const _Float16 dh = (_Float16)d;
    __builtin_memcpy(&y[b].d, &dh, sizeof dh);
#else
    y[b].d = kiln_g_to_f16(d);
#endif
    for (int c = 0; c < 4; ++c) {
      const kiln_q_vf t = v[c] * id;
      const kiln_q_vf h = kiln_q_sel(t >= 0.0f, (kiln_q_vf){0} + 0.5f,
                                     (kiln_q_vf){0} - 0.5f);
      const kiln_q_vb q =
          __builtin_convertvector(__builtin_convertvector(t + h, kiln_q_vi), kiln_q_vb);
      __builtin_memcpy(y[b].qs + 8 * c, &q, sizeof q);
    }
  }
}
#endif

/* Quantizes `rows` rows of x into scratch; returns the blocks. x == 0 means
 * the scratch already holds them: a matmul split into parts or thread slices
 * quantizes its input once, then runs each piece with x == 0. */
KILN_KERNEL const kiln_q8_block *kiln_q8_rows(const float *x, int rows, int K,
                                              void *scratch) {
  kiln_q8_block *q = (kiln_q8_block *)scratch;
  for (int r = 0; x && r < rows; ++r)
    kiln_quantize_row_q8_0(x + (int64_t)r * K, K, q + (int64_t)r * (K / 32));
  return q;
}

/* Q8_K, per 256 values: max = the value of largest magnitude (the first of
 * several), q = min(127, nearest(-127 / max x value)) with ties to even,
 * the sums of each 16 q, and d = 1 / (-127 / max). The scan for max and the
 * rounding have a scalar and a vector form, bit-identical. */
#if !defined(__AVX2__) && !defined(__ARM_NEON)
static float kiln_q8k_max(const float *x) {
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < 256; ++j) {
    const float a = x[j] < 0 ? -x[j] : x[j];
    if (a > amax) {
      amax = a;
      max = x[j];
    }
  }
  return max;
}

/* ggml's nearest_int: the 1.5 * 2^23 trick, exact for |v| <= 2^22; here
 * |v| <= 127. The product and the add are two statements: one expression
 * could be contracted into a fused multiply-add, which rounds once. */
static void kiln_q8k_round(const float *x, float iscale, int8_t *qs) {
  for (int j = 0; j < 256; ++j) {
    const float p = iscale * x[j];
    const float t = p + 12582912.0f;
    int32_t i;
    __builtin_memcpy(&i, &t, 4);
    const int v = (i & 0x007fffff) - 0x00400000;
    qs[j] = (int8_t)(v < 127 ? v : 127);
  }
}
#else
/* The same scan and rounding on vectors of KILN_QK_LANES lanes: 16 under
 * AVX-512 (one register), 8 elsewhere. Every step is per lane or exact in any
 * order, so the width does not change a bit of the result. */
#if defined(__AVX512F__)
#define KILN_QK_LANES 16
#else
#define KILN_QK_LANES 8
#endif
typedef float kiln_qk_vf __attribute__((vector_size(4 * KILN_QK_LANES)));
typedef int32_t kiln_qk_vi __attribute__((vector_size(4 * KILN_QK_LANES)));
typedef int8_t kiln_qk_vb __attribute__((vector_size(KILN_QK_LANES)));
static inline kiln_qk_vf kiln_qk_sel(kiln_qk_vi m, kiln_qk_vf a, kiln_qk_vf b) {
  return (kiln_qk_vf)(((kiln_qk_vi)a & m) | ((kiln_qk_vi)b & ~m));
}

/* The largest |x| by a tree (exact in any order), then the first vector
 * holding that magnitude and its first lane. */
static float kiln_q8k_max(const float *x) {
  enum { L = KILN_QK_LANES };
  kiln_qk_vf m = {0};
  for (int c = 0; c < 256 / L; ++c) {
    kiln_qk_vf v;
    __builtin_memcpy(&v, x + L * c, sizeof v);
    const kiln_qk_vf a = (kiln_qk_vf)((kiln_qk_vi)v & 0x7fffffff);
    m = kiln_qk_sel(a > m, a, m);
  }
  float amax = 0.0f;
  for (int j = 0; j < L; ++j)
    amax = m[j] > amax ? m[j] : amax;
  if (amax == 0.0f)
    return 0.0f;
  int first = 0;
  for (; first < 256 - L; first += L) {
    kiln_qk_vf v;
    __builtin_memcpy(&v, x + first, sizeof v);
    const kiln_qk_vi hit = (kiln_qk_vf)((kiln_qk_vi)v & 0x7fffffff) == amax;
    uint64_t w[L / 2], any = 0;
    __builtin_memcpy(w, &hit, sizeof w);
    for (int j = 0; j < L / 2; ++j)
      any |= w[j];
    if (any)
      break;
  }
  while (first < 255 && (x[first] < 0 ? -x[first] : x[first]) != amax)
    ++first;
  return x[first];
}

/* The same product, rounding add and clamp per lane (the product and the add
 * stay two roundings: separate statements are not contracted). */
static void kiln_q8k_round(const float *x, float iscale, int8_t *qs) {
  enum { L = KILN_QK_LANES };
  for (int c = 0; c < 256 / L; ++c) {
    kiln_qk_vf v;
    __builtin_memcpy(&v, x + L * c, sizeof v);
    const kiln_qk_vf p = v * iscale;
    const kiln_qk_vf t = p + 12582912.0f;
    kiln_qk_vi q = ((kiln_qk_vi)t & 0x007fffff) - 0x00400000;
    const kiln_qk_vi hi = q > 127;
    q = (q & ~hi) | (127 & hi);
    const kiln_qk_vb qb = __builtin_convertvector(q, kiln_qk_vb);
    __builtin_memcpy(qs + L * c, &qb, sizeof qb);
  }
}
#endif

/* Prefill quantizes every matmul's input on one thread, before the
 * matmul's slices start. */
KILN_KERNEL void kiln_quantize_row_q8_k(const float *x, int K, kiln_q8k_block *y) {
  for (int b = 0; b < K / 256; ++b, x += 256) {
    kiln_q8k_block *o = &y[b];
    const float max = kiln_q8k_max(x);
    if (max == 0.0f) {
      o->d = 0.0f;
      for (int j = 0; j < 256; ++j)
        o->qs[j] = 0;
      for (int g = 0; g < 16; ++g)
        o->bsums[g] = 0;
      continue;
    }
    const float iscale = -127.0f / max;
    kiln_q8k_round(x, iscale, o->qs);
    for (int g = 0; g < 16; ++g) {
      int sum = 0;
      for (int j = 0; j < 16; ++j)
        sum += o->qs[16 * g + j];
      o->bsums[g] = (int16_t)sum;
    }
    o->d = 1.0f / iscale;
  }
}

KILN_KERNEL const kiln_q8k_block *kiln_q8k_rows(const float *x, int rows, int K,
                                                void *scratch) {
  kiln_q8k_block *q = (kiln_q8k_block *)scratch;
  for (int r = 0; x && r < rows; ++r)
    kiln_quantize_row_q8_k(x + (int64_t)r * K, K, q + (int64_t)r * (K / 256));
  return q;
}

/* Dot of one weight row (GGML blocks) with one quantized activation row. */
static float kiln_dot_q8_0_q8(const uint8_t *w, const kiln_q8_block *a, int K) {
  float sum = 0.0f;
  for (int b = 0; b < K / 32; ++b, w += 34) {
    const int8_t *q = (const int8_t *)(w + 2);
    int32_t isum = 0;
    for (int j = 0; j < 32; ++j)
      isum += (int32_t)q[j] * a[b].qs[j];
    sum += (float)isum * (kiln_g_f16(kiln_g_u16(w)) * kiln_g_f16(a[b].d));
  }
  return sum;
}

static float kiln_dot_q4_0_q8(const uint8_t *w, const kiln_q8_block *a, int K) {
  float sum = 0.0f;
  for (int b = 0; b < K / 32; ++b, w += 18) {
    const uint8_t *q = w + 2;
    int32_t isum = 0;
    for (int j = 0; j < 16; ++j)
      isum += ((q[j] & 0xf) - 8) * a[b].qs[j] + ((q[j] >> 4) - 8) * a[b].qs[j + 16];
    sum += (float)isum * (kiln_g_f16(kiln_g_u16(w)) * kiln_g_f16(a[b].d));
  }
  return sum;
}

/* Q4_K: each 32-element activation block meets one sub-block (scale, min). */
static float kiln_dot_q4_k_q8(const uint8_t *w, const kiln_q8_block *a, int K) {
  float sum = 0.0f;
  for (int s = 0; s < K / 256; ++s, w += 144, a += 8) {
    const float d = kiln_g_f16(kiln_g_u16(w)), dmin = kiln_g_f16(kiln_g_u16(w + 2));
    const uint8_t *scales = w + 4, *qs = w + 16;
    for (int j = 0; j < 8; ++j) {
      int sc, m;
      kiln_g_scale_min_k4(j, scales, &sc, &m);
      const uint8_t *q = qs + (j / 2) * 32;
      const int shift = (j % 2) * 4;
      int32_t isum = 0, asum = 0;
      for (int l = 0; l < 32; ++l) {
        isum += ((q[l] >> shift) & 0xf) * a[j].qs[l];
        asum += a[j].qs[l];
      }
      const float da = kiln_g_f16(a[j].d);
      sum += da * (d * (float)sc * (float)isum - dmin * (float)m * (float)asum);
    }
  }
  return sum;
}

/* Q6_K: each 32-element activation block meets two 16-element sub-blocks;
 * kiln_q6_k_parts gives block b (0..7) of the super-block at w against 32
 * activation bytes as the exact sums of its two halves. */
static void kiln_q6_k_parts(const uint8_t *w, int b, const int8_t *aq,
                            int32_t part[2]) {
  const int half = b / 4, quad = b % 4;
  const uint8_t *l4 = w + half * 64 + (quad & 1) * 32;
  const uint8_t *h2 = w + 128 + half * 32;
  const int lowShift = (quad >> 1) * 4, highShift = quad * 2;
  part[0] = part[1] = 0;
  for (int l = 0; l < 32; ++l) {
    int q = (int)(((l4[l] >> lowShift) & 0xf) | (((h2[l] >> highShift) & 3) << 4)) - 32;
    part[l / 16] += q * aq[l];
  }
}

static float kiln_dot_q6_k_q8(const uint8_t *w, const kiln_q8_block *a, int K) {
  float sum = 0.0f;
  for (int s = 0; s < K / 256; ++s, w += 210, a += 8) {
    const int8_t *sc = (const int8_t *)(w + 192);
    const float d = kiln_g_f16(kiln_g_u16(w + 208));
    for (int b = 0; b < 8; ++b) {
      int32_t part[2];
      kiln_q6_k_parts(w, b, a[b].qs, part);
      const int si = (b / 4) * 8 + (b % 4) * 2;
      sum += kiln_g_f16(a[b].d) * d *
             (float)(sc[si] * part[0] + sc[si + 1] * part[1]);
    }
  }
  return sum;
}

/* Q5_0 / Q5_1: each 32-element weight block meets one activation block. */
static int kiln_q5_bits(const uint8_t *qh, const uint8_t *qs, int j) {
  const uint32_t h = (uint32_t)qh[0] | (uint32_t)qh[1] << 8 |
                     (uint32_t)qh[2] << 16 | (uint32_t)qh[3] << 24;
  const int lo = j < 16 ? qs[j] & 0xf : qs[j - 16] >> 4;
  return lo | (int)(((h >> j) & 1u) << 4);
}

static float kiln_dot_q5_0_q8(const uint8_t *w, const kiln_q8_block *a, int K) {
  float sum = 0.0f;
  for (int b = 0; b < K / 32; ++b, w += 22) {
    int32_t isum = 0;
    for (int j = 0; j < 32; ++j)
      isum += (kiln_q5_bits(w + 2, w + 6, j) - 16) * a[b].qs[j];
    sum += (float)isum * (kiln_g_f16(kiln_g_u16(w)) * kiln_g_f16(a[b].d));
  }
  return sum;
}

/* Q4_1: x = q*d + m (q in 0..15, nibbles as Q4_0's), as Q5_1 below. */
static float kiln_dot_q4_1_q8(const uint8_t *w, const kiln_q8_block *a, int K) {
  float sum = 0.0f;
  for (int b = 0; b < K / 32; ++b, w += 20) {
    int32_t isum = 0, asum = 0;
    for (int j = 0; j < 16; ++j) {
      isum += (w[4 + j] & 15) * a[b].qs[j] + (w[4 + j] >> 4) * a[b].qs[j + 16];
      asum += a[b].qs[j] + a[b].qs[j + 16];
    }
    const float d = kiln_g_f16(kiln_g_u16(w)), m = kiln_g_f16(kiln_g_u16(w + 2));
    sum += kiln_g_f16(a[b].d) * (d * (float)isum + m * (float)asum);
  }
  return sum;
}

/* Q5_1: x = q*d + m, so the block contributes da*(d*sum(q*a) + m*sum(a)). */
static float kiln_dot_q5_1_q8(const uint8_t *w, const kiln_q8_block *a, int K) {
  float sum = 0.0f;
  for (int b = 0; b < K / 32; ++b, w += 24) {
    int32_t isum = 0, asum = 0;
    for (int j = 0; j < 32; ++j) {
      isum += kiln_q5_bits(w + 4, w + 8, j) * a[b].qs[j];
      asum += a[b].qs[j];
    }
    const float d = kiln_g_f16(kiln_g_u16(w)), m = kiln_g_f16(kiln_g_u16(w + 2));
    sum += kiln_g_f16(a[b].d) * (d * (float)isum + m * (float)asum);
  }
  return sum;
}

/* Q5_K: Q4_K's sub-blocks with a fifth bit from qh. */
static float kiln_dot_q5_k_q8(const uint8_t *w, const kiln_q8_block *a, int K) {
  float sum = 0.0f;
  for (int s = 0; s < K / 256; ++s, w += 176, a += 8) {
    const float d = kiln_g_f16(kiln_g_u16(w)), dmin = kiln_g_f16(kiln_g_u16(w + 2));
    const uint8_t *scales = w + 4, *qh = w + 16, *qs = w + 48;
    for (int j = 0; j < 8; ++j) {
      int sc, m;
      kiln_g_scale_min_k4(j, scales, &sc, &m);
      const uint8_t *q = qs + (j / 2) * 32;
      const int shift = (j % 2) * 4;
      int32_t isum = 0, asum = 0;
      for (int l = 0; l < 32; ++l) {
        const int v = ((q[l] >> shift) & 0xf) | (((qh[l] >> j) & 1) << 4);
        isum += v * a[j].qs[l];
        asum += a[j].qs[l];
      }
      const float da = kiln_g_f16(a[j].d);
      sum += da * (d * (float)sc * (float)isum - dmin * (float)m * (float)asum);
    }
  }
  return sum;
}

/* Q2_K: each 32-element activation block meets two 16-element sub-blocks,
 * each with a 4-bit scale and min. */
static float kiln_dot_q2_k_q8(const uint8_t *w, const kiln_q8_block *a, int K) {
  float sum = 0.0f;
  for (int s = 0; s < K / 256; ++s, w += 84, a += 8) {
    const float d = kiln_g_f16(kiln_g_u16(w + 80)), dmin = kiln_g_f16(kiln_g_u16(w + 82));
    for (int b = 0; b < 8; ++b) {
      int32_t isum = 0, msum = 0;
      for (int h = 0; h < 2; ++h) {
        const uint8_t sc = w[2 * b + h];
        int32_t part = 0, asum = 0;
        for (int l = 0; l < 16; ++l) {
          const int e = 32 * b + 16 * h + l;
          part += kiln_g_2bit(w + 16, e) * a[b].qs[16 * h + l];
          asum += a[b].qs[16 * h + l];
        }
        isum += (sc & 0xf) * part;
        msum += (sc >> 4) * asum;
      }
      sum += kiln_g_f16(a[b].d) * (d * (float)isum - dmin * (float)msum);
    }
  }
  return sum;
}

/* Q3_K: two 16-element sub-blocks per activation block, signed 6-bit
 * scales, quants -4..3. */
static float kiln_dot_q3_k_q8(const uint8_t *w, const kiln_q8_block *a, int K) {
  float sum = 0.0f;
  for (int s = 0; s < K / 256; ++s, w += 110, a += 8) {
    const float d = kiln_g_f16(kiln_g_u16(w + 108));
    for (int b = 0; b < 8; ++b) {
      int32_t isum = 0;
      for (int h = 0; h < 2; ++h) {
        int32_t part = 0;
        for (int l = 0; l < 16; ++l) {
          const int e = 32 * b + 16 * h + l;
          const int q = kiln_g_2bit(w + 32, e) - (((w[e % 32] >> (e / 32)) & 1) ? 0 : 4);
          part += q * a[b].qs[16 * h + l];
        }
        isum += kiln_g_q3k_scale(w + 96, 2 * b + h) * part;
      }
      sum += kiln_g_f16(a[b].d) * d * (float)isum;
    }
  }
  return sum;
}

static float kiln_dot_iq4_nl_q8(const uint8_t *w, const kiln_q8_block *a, int K) {
  float sum = 0.0f;
  for (int b = 0; b < K / 32; ++b, w += 18) {
    int32_t isum = 0;
    for (int j = 0; j < 16; ++j)
      isum += kiln_g_iq4nl[w[2 + j] & 0xf] * a[b].qs[j] +
              kiln_g_iq4nl[w[2 + j] >> 4] * a[b].qs[j + 16];
    sum += (float)isum * (kiln_g_f16(kiln_g_u16(w)) * kiln_g_f16(a[b].d));
  }
  return sum;
}

static float kiln_dot_iq4_xs_q8(const uint8_t *w, const kiln_q8_block *a, int K) {
  float sum = 0.0f;
  for (int s = 0; s < K / 256; ++s, w += 136, a += 8) {
    const float d = kiln_g_f16(kiln_g_u16(w));
    const int sh = kiln_g_u16(w + 2);
    for (int b = 0; b < 8; ++b) {
      const int ls = ((w[4 + b / 2] >> 4 * (b % 2)) & 0xf) | (((sh >> 2 * b) & 3) << 4);
      const uint8_t *qs = w + 8 + 16 * b;
      int32_t isum = 0;
      for (int j = 0; j < 16; ++j)
        isum += kiln_g_iq4nl[qs[j] & 0xf] * a[b].qs[j] +
                kiln_g_iq4nl[qs[j] >> 4] * a[b].qs[j + 16];
      sum += kiln_g_f16(a[b].d) * (d * (float)(ls - 32)) * (float)isum;
    }
  }
  return sum;
}

/* Q4_K (FIVE = 0) and Q5_K (FIVE = 1) against Q8_K activations: per
 * super-block the integer sum of the eight blocks' sums times their scales,
 * and of their mins times the activation blocks' sums, each scaled once (the
 * AVX2 kernel's steps). */
static inline float kiln_dot_kmin_q8k(const uint8_t *w, const kiln_q8k_block *a,
                                      int K, const int five) {
  float sum = 0.0f;
  for (int s = 0; s < K / 256; ++s, w += five ? 176 : 144, ++a) {
    const float d = kiln_g_f16(kiln_g_u16(w)), dmin = kiln_g_f16(kiln_g_u16(w + 2));
    const uint8_t *qh = w + 16; /* Q5_K's fifth bits */
    int32_t isum = 0, msum = 0;
    for (int j = 0; j < 8; ++j) {
      int sc, m;
      kiln_g_scale_min_k4(j, w + 4, &sc, &m);
      const uint8_t *q = w + (five ? 48 : 16) + (j / 2) * 32;
      const int shift = (j % 2) * 4;
      int32_t dot = 0;
      for (int l = 0; l < 32; ++l)
        dot += (((q[l] >> shift) & 0xf) | (five ? ((qh[l] >> j) & 1) << 4 : 0)) *
               a->qs[32 * j + l];
      isum += sc * dot;
      msum += m * (a->bsums[2 * j] + a->bsums[2 * j + 1]);
    }
    sum += (float)isum * (d * a->d) - (float)msum * (dmin * a->d);
  }
  return sum;
}
static float kiln_dot_q4_k_q8k(const uint8_t *w, const kiln_q8k_block *a, int K) {
  return kiln_dot_kmin_q8k(w, a, K, 0);
}
static float kiln_dot_q5_k_q8k(const uint8_t *w, const kiln_q8k_block *a, int K) {
  return kiln_dot_kmin_q8k(w, a, K, 1);
}

/* Q6_K against Q8_K activations: the sixteen 16-element sums times their
 * scales in one integer per super-block, scaled once. */
static float kiln_dot_q6_k_q8k(const uint8_t *w, const kiln_q8k_block *a, int K) {
  float sum = 0.0f;
  for (int s = 0; s < K / 256; ++s, w += 210, ++a) {
    const int8_t *sc = (const int8_t *)(w + 192);
    const float d = kiln_g_f16(kiln_g_u16(w + 208));
    int32_t isum = 0;
    for (int b = 0; b < 8; ++b) {
      int32_t part[2];
      kiln_q6_k_parts(w, b, a->qs + 32 * b, part);
      const int si = (b / 4) * 8 + (b % 4) * 2;
      isum += sc[si] * part[0] + sc[si + 1] * part[1];
    }
    sum += (float)isum * (d * a->d);
  }
  return sum;
}

/* Q2_K and Q3_K against Q8_K activations: each 16-element half's exact dot
 * times its scale (Q2_K: its min times Q8_K's sum of those 16) in integers
 * per super-block, as ggml's vec_dot_q2_K_q8_K / q3_K_q8_K. */
static float kiln_dot_q2_k_q8k(const uint8_t *w, const kiln_q8k_block *a, int K) {
  float sum = 0.0f;
  for (int s = 0; s < K / 256; ++s, w += 84, ++a) {
    const float d = kiln_g_f16(kiln_g_u16(w + 80)), dmin = kiln_g_f16(kiln_g_u16(w + 82));
    int32_t isum = 0, msum = 0;
    for (int h16 = 0; h16 < 16; ++h16) {
      int32_t part = 0;
      for (int l = 0; l < 16; ++l)
        part += kiln_g_2bit(w + 16, 16 * h16 + l) * a->qs[16 * h16 + l];
      isum += (w[h16] & 0xf) * part;
      msum += (w[h16] >> 4) * a->bsums[h16];
    }
    sum += (float)isum * (d * a->d) - (float)msum * (dmin * a->d);
  }
  return sum;
}
static float kiln_dot_q3_k_q8k(const uint8_t *w, const kiln_q8k_block *a, int K) {
  float sum = 0.0f;
  for (int s = 0; s < K / 256; ++s, w += 110, ++a) {
    const float d = kiln_g_f16(kiln_g_u16(w + 108));
    int32_t isum = 0;
    for (int h16 = 0; h16 < 16; ++h16) {
      int32_t part = 0;
      for (int l = 0; l < 16; ++l) {
        const int e = 16 * h16 + l;
        const int q = kiln_g_2bit(w + 32, e) - (((w[e % 32] >> (e / 32)) & 1) ? 0 : 4);
        part += q * a->qs[e];
      }
      isum += kiln_g_q3k_scale(w + 96, h16) * part;
    }
    sum += (float)isum * (d * a->d);
  }
  return sum;
}

/* IQ4_XS against Q8_K activations (llama.cpp's pairing): per super-block the
 * integer sum of the eight blocks' sums times their scales, scaled once. */
static float kiln_dot_iq4_xs_q8k(const uint8_t *w, const kiln_q8k_block *a, int K) {
  float sum = 0.0f;
  for (int s = 0; s < K / 256; ++s, w += 136, ++a) {
    const int sh = kiln_g_u16(w + 2);
    int32_t isum = 0;
    for (int b = 0; b < 8; ++b) {
      const int ls = ((w[4 + b / 2] >> 4 * (b % 2)) & 0xf) | (((sh >> 2 * b) & 3) << 4);
      const uint8_t *qs = w + 8 + 16 * b;
      int32_t part = 0;
      for (int j = 0; j < 16; ++j)
        part += kiln_g_iq4nl[qs[j] & 0xf] * a->qs[32 * b + j] +
                kiln_g_iq4nl[qs[j] >> 4] * a->qs[32 * b + j + 16];
      isum += (ls - 32) * part;
    }
    sum += (float)isum * (kiln_g_f16(kiln_g_u16(w)) * a->d);
  }
  return sum;
}

/* The matmuls over Q8_K activations. */
#define KILN_Q8K_MATMUL(T, BB)                                                 \
  KILN_KERNEL void kiln_matmul_##T##_q8_k_generic(                             \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    const kiln_q8k_block *a = kiln_q8k_rows(x, rows, K, scratch);              \
    const int64_t row_bytes = (int64_t)K / 256 * (BB);                         \
    for (int j = 0; j < N; ++j)                                                \
      for (int r = 0; r < rows; ++r)                                           \
        y[(int64_t)r * N + j] =                                                \
            kiln_dot_##T##_q8k(w + j * row_bytes, a + (int64_t)r * (K / 256), K) + \
            (bias ? bias[j] : 0.0f);                                           \
  }
KILN_Q8K_MATMUL(q4_k, 144)
KILN_Q8K_MATMUL(q5_k, 176)
KILN_Q8K_MATMUL(q6_k, 210)
KILN_Q8K_MATMUL(q2_k, 84)
KILN_Q8K_MATMUL(q3_k, 110)
KILN_Q8K_MATMUL(iq4_xs, 136)

#define KILN_Q8_MATMUL(T, BS, BB)                                              \
  KILN_KERNEL void kiln_matmul_##T##_q8_0_generic(const float *x, int rows, int K, \
                                             const uint8_t *w, int N,          \
                                             const float *bias, float *y,      \
                                             void *scratch) {                  \
    const kiln_q8_block *a = kiln_q8_rows(x, rows, K, scratch);                \
    const int64_t row_bytes = (int64_t)K / BS * BB;                            \
    for (int j = 0; j < N; ++j)                                                \
      for (int r = 0; r < rows; ++r)                                           \
        y[(int64_t)r * N + j] =                                                \
            kiln_dot_##T##_q8(w + j * row_bytes, a + (int64_t)r * (K / 32), K) + \
            (bias ? bias[j] : 0.0f);                                           \
  }

KILN_Q8_MATMUL(q8_0, 32, 34)
KILN_Q8_MATMUL(q4_0, 32, 18)
KILN_Q8_MATMUL(q4_k, 256, 144)
KILN_Q8_MATMUL(q6_k, 256, 210)
KILN_Q8_MATMUL(q5_0, 32, 22)
KILN_Q8_MATMUL(q5_1, 32, 24)
KILN_Q8_MATMUL(q4_1, 32, 20)
KILN_Q8_MATMUL(q5_k, 256, 176)
KILN_Q8_MATMUL(q2_k, 256, 84)
KILN_Q8_MATMUL(q3_k, 256, 110)
KILN_Q8_MATMUL(iq4_nl, 32, 18)
KILN_Q8_MATMUL(iq4_xs, 256, 136)
