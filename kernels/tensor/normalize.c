/* normalize.c - Softmax, LogSoftmax, Hardmax and LayerNormalization.
 *
 * Softmax-like kernels see the input as [outer, n, inner] and normalize over
 * n. With inner == 1 (the usual last-axis case) each row is contiguous; with
 * inner > 1 the kernel keeps a row of `inner` running maxima and sums in
 * scratch and sweeps contiguous rows, so both cases vectorize. Contiguous
 * f32 rows take an exp of their own (sm_expf), so that their exp loop
 * vectorizes as well. */
#include "kiln_tensor.h"

#include <math.h>

/* Contiguous f32 rows of Softmax and LogSoftmax run on 8-float vectors (GNU
 * vector types: one source for every ISA, split to its register width), with
 * an exp of their own: a libm call per element cost more than the rest of a
 * row. e^x within 2 ulp of expf: x = n ln2 + r, |r| <= ln2/2, e^r by a
 * degree-6 polynomial, 2^n from exponent bits in two factors so that n down
 * to -150 stays representable; 0 below -104 (and for -inf); NaN stays NaN.
 * The maximum and the sum keep 8 lanes, combined in a fixed order at the
 * end; any NaN in a row makes its sum, so every output of the row, NaN. */
#define SM_LANES 8
/* These vectors pass only between static inline functions, so that a
 * baseline x86-64 build passes them unlike an AVX one concerns no interface. */
#pragma clang diagnostic ignored "-Wpsabi"
typedef float sm_v __attribute__((vector_size(4 * SM_LANES), aligned(4)));
typedef int32_t sm_vi __attribute__((vector_size(4 * SM_LANES), aligned(4)));
static inline sm_v sm_sel(sm_vi mask, sm_v a, sm_v b) {
  return (sm_v)(((sm_vi)a & mask) | ((sm_vi)b & ~mask));
}
static inline sm_v sm_exp(sm_v x) {
  const sm_v zero = {0}, lo = zero - 104.0f, hi = zero + 88.7f;
  const sm_v magic = zero + 12582912.0f; /* 1.5 * 2^23: adding it rounds */
  const sm_vi small = x < lo;
  x = sm_sel(small, lo, x);
  x = sm_sel(x > hi, hi, x);
  sm_v t = x * 1.44269504f;
  t = t + magic;
  const sm_vi n = (sm_vi)t - (sm_vi)magic, n1 = n >> 1, n2 = n - n1;
  t = t - magic;
  sm_v r = x - t * 0.693145752f;
  r = r - t * 1.42860677e-6f;
  const sm_v p = 1.0f + r * (1.0f + r * (0.5f + r * (0.166666672f +
                 r * (0.0416666567f + r * (0.00833336077f +
                 r * 0.00138889043f)))));
  const sm_v e = p * (sm_v)((n1 + 127) << 23) * (sm_v)((n2 + 127) << 23);
  return (sm_v)((sm_vi)e & ~small);
}
/* x[0, k) as a vector (k <= SM_LANES), `fill` in the other lanes: a whole
 * vector in one load, the row's tail lane by lane. */
static inline sm_v sm_load(const float *x, int64_t k, float fill) {
  sm_v v;
  if (k == SM_LANES) {
    memcpy(&v, x, sizeof v);
    return v;
  }
  for (int l = 0; l < SM_LANES; ++l)
    v[l] = l < k ? x[l] : fill;
  return v;
}
static void softmax_rows_f32(int op, int64_t outer, int64_t n, const float *x,
                             float *y) {
  for (int64_t o = 0; n > 0 && o < outer; ++o) {
    const float *xr = x + o * n;
    float *yr = y + o * n;
    sm_v mv = sm_load(xr, 1, xr[0]);
    for (int64_t j = 0; j < n; j += SM_LANES) {
      const sm_v v = sm_load(xr + j, n - j < SM_LANES ? n - j : SM_LANES, xr[0]);
      mv = sm_sel(v > mv, v, mv);
    }
    float m = mv[0];
    for (int l = 1; l < SM_LANES; ++l)
      m = mv[l] > m ? mv[l] : m;
    sm_v sv = {0};
    for (int64_t j = 0; j < n; j += SM_LANES) {
      const int64_t k = n - j < SM_LANES ? n - j : SM_LANES;
      sm_v e = sm_exp(sm_load(xr + j, k, 0.0f) - m);
      if (k < SM_LANES) {
        for (int l = (int)k; l < SM_LANES; ++l)
          e[l] = 0.0f;
        for (int l = 0; op == KILN_SM_SOFTMAX && l < k; ++l)
          yr[j + l] = e[l];
      } else if (op == KILN_SM_SOFTMAX) {
        memcpy(yr + j, &e, sizeof e);
      }
      sv += e;
    }
    float sum = 0.0f;
    for (int l = 0; l < SM_LANES; ++l)
      sum += sv[l];
    if (op == KILN_SM_SOFTMAX) {
      for (int64_t j = 0; j < n; ++j)
        yr[j] /= sum;
    } else {
      const float shift = m + logf(sum);
      for (int64_t j = 0; j < n; ++j)
        yr[j] = xr[j] - shift;
    }
  }
}

#define KILN_SOFTMAX(T, S)                                                     \
  static void softmax_##T(int op, int64_t outer, int64_t n, int64_t inner,     \
                          const T *x, T *y, T *scratch) {                      \
    if (op == KILN_SM_HARDMAX) {                                                    \
      for (int64_t o = 0; o < outer; ++o)                                      \
        for (int64_t k = 0; k < inner; ++k) {                                  \
          const T *c = x + o * n * inner + k;                                  \
          T *d = y + o * n * inner + k;                                        \
          int64_t bi = 0;                                                      \
          for (int64_t j = 1; j < n; ++j)                                      \
            if (c[j * inner] > c[bi * inner])                                  \
              bi = j;                                                          \
          for (int64_t j = 0; j < n; ++j)                                      \
            d[j * inner] = j == bi;                                            \
        }                                                                      \
      return;                                                                  \
    }                                                                          \
    if (inner == 1) {                                                          \
      for (int64_t o = 0; o < outer; ++o) {                                    \
        const T *xr = x + o * n;                                               \
        T *yr = y + o * n;                                                     \
        T m = xr[0];                                                           \
        for (int64_t j = 1; j < n; ++j)                                        \
          m = xr[j] > m ? xr[j] : m;                                           \
        T s = 0;                                                               \
        if (op == KILN_SM_SOFTMAX) {                                                \
          for (int64_t j = 0; j < n; ++j) {                                    \
            yr[j] = exp##S(xr[j] - m);                                         \
            s += yr[j];                                                        \
          }                                                                    \
          for (int64_t j = 0; j < n; ++j)                                      \
            yr[j] /= s;                                                        \
        } else {                                                               \
          for (int64_t j = 0; j < n; ++j)                                      \
            s += exp##S(xr[j] - m);                                            \
          const T shift = m + log##S(s);                                       \
          for (int64_t j = 0; j < n; ++j)                                      \
            yr[j] = xr[j] - shift;                                             \
        }                                                                      \
      }                                                                        \
      return;                                                                  \
    }                                                                          \
    T *m = scratch, *s = scratch + inner;                                      \
    for (int64_t o = 0; o < outer; ++o) {                                      \
      const T *xb = x + o * n * inner;                                         \
      T *yb = y + o * n * inner;                                               \
      for (int64_t k = 0; k < inner; ++k) {                                    \
        m[k] = xb[k];                                                          \
        s[k] = 0;                                                              \
      }                                                                        \
      for (int64_t j = 1; j < n; ++j)                                          \
        for (int64_t k = 0; k < inner; ++k)                                    \
          m[k] = xb[j * inner + k] > m[k] ? xb[j * inner + k] : m[k];          \
      for (int64_t j = 0; j < n; ++j)                                          \
        for (int64_t k = 0; k < inner; ++k) {                                  \
          T e = exp##S(xb[j * inner + k] - m[k]);                              \
          if (op == KILN_SM_SOFTMAX)                                                \
            yb[j * inner + k] = e;                                             \
          s[k] += e;                                                           \
        }                                                                      \
      if (op == KILN_SM_SOFTMAX) {                                                  \
        for (int64_t j = 0; j < n; ++j)                                        \
          for (int64_t k = 0; k < inner; ++k)                                  \
            yb[j * inner + k] /= s[k];                                         \
      } else {                                                                 \
        for (int64_t k = 0; k < inner; ++k)                                    \
          s[k] = m[k] + log##S(s[k]);                                          \
        for (int64_t j = 0; j < n; ++j)                                        \
          for (int64_t k = 0; k < inner; ++k)                                  \
            yb[j * inner + k] = xb[j * inner + k] - s[k];                      \
      }                                                                        \
    }                                                                          \
  }
KILN_SOFTMAX(float, f)
KILN_SOFTMAX(double, )

/* p = {op, dtype, outer, n, inner}; scratch: 2 * inner elements.
 * Shares (kiln_tp_softmax): the outer index. */
void kiln_tp_softmax(const int64_t *p, const float *f, const void *const *in,
                     void *const *out, void *scratch, int part, int parts) {
  (void)f;
  const int op = (int)p[0];
  const int64_t at = p[3] * p[4]; /* elements per outer index */
  int64_t o0, o1;
  kiln_part_range(p[2], part, parts, 1, &o0, &o1);
  if (p[1] == KILN_F32 && p[4] == 1 && op != KILN_SM_HARDMAX)
    softmax_rows_f32(op, o1 - o0, p[3], (const float *)in[0] + o0 * at,
                     (float *)out[0] + o0 * at);
  else if (p[1] == KILN_F32)
    softmax_float(op, o1 - o0, p[3], p[4], (const float *)in[0] + o0 * at,
                  (float *)out[0] + o0 * at, (float *)scratch);
  else
    softmax_double(op, o1 - o0, p[3], p[4], (const double *)in[0] + o0 * at,
                   (double *)out[0] + o0 * at, (double *)scratch);
}

void kiln_t_softmax(const int64_t *p, const float *f, const void *const *in,
                    void *const *out, void *scratch) {
  kiln_tp_softmax(p, f, in, out, scratch, 0, 1);
}

/* --- LayerNormalization ------------------------------------------------------ */

#define KILN_LAYERNORM(T)                                                      \
  static void layernorm_##T(int64_t outer, int64_t n, double eps, const T *x,  \
                            const T *scale, const T *bias, T *y, float *mean,  \
                            float *invstd) {                                   \
    for (int64_t o = 0; o < outer; ++o) {                                      \
      const T *xr = x + o * n;                                                 \
      T *yr = y + o * n;                                                       \
      double sum = 0;                                                          \
      for (int64_t i = 0; i < n; ++i)                                          \
        sum += xr[i];                                                          \
      const double mu = sum / (double)n;                                       \
      double var = 0;                                                          \
      for (int64_t i = 0; i < n; ++i) {                                        \
        double d = xr[i] - mu;                                                 \
        var += d * d;                                                          \
      }                                                                        \
      const double r = 1.0 / sqrt(var / (double)n + eps);                      \
      const T tm = (T)mu, tr = (T)r;                                           \
      if (bias)                                                                \
        for (int64_t i = 0; i < n; ++i)                                        \
          yr[i] = (xr[i] - tm) * tr * scale[i] + bias[i];                      \
      else                                                                     \
        for (int64_t i = 0; i < n; ++i)                                        \
          yr[i] = (xr[i] - tm) * tr * scale[i];                                \
      mean[o] = (float)mu;                                                     \
      invstd[o] = (float)r;                                                    \
    }                                                                          \
  }
KILN_LAYERNORM(float)
KILN_LAYERNORM(double)

/* p = {dtype, outer, n}; f = {epsilon}; in = {x, scale, bias or NULL} with
 * scale and bias of n elements (the normalized shape); out = {y, mean,
 * inv_std_dev}, mean and inv_std_dev float of `outer` elements. Statistics
 * are computed in double. */
void kiln_t_layernorm(const int64_t *p, const float *f, const void *const *in,
                      void *const *out, void *scratch) {
  (void)scratch;
  if (p[0] == KILN_F32)
    layernorm_float(p[1], p[2], f[0], (const float *)in[0],
                    (const float *)in[1], (const float *)in[2],
                    (float *)out[0], (float *)out[1], (float *)out[2]);
  else
    layernorm_double(p[1], p[2], f[0], (const double *)in[0],
                     (const double *)in[1], (const double *)in[2],
                     (double *)out[0], (float *)out[1], (float *)out[2]);
}
