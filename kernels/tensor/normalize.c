/* normalize.c - Softmax, LogSoftmax, Hardmax and LayerNormalization.
 *
 * Softmax-like kernels see the input as [outer, n, inner] and normalize over
 * n. With inner == 1 (the usual last-axis case) each row is contiguous; with
 * inner > 1 the kernel keeps a row of `inner` running maxima and sums in
 * scratch and sweeps contiguous rows, so both cases vectorize. */
#include "kiln_tensor.h"

#include <math.h>

/* Operation codes of kiln_t_softmax (ops/Reduce.cpp). */
enum { SM_SOFTMAX, SM_LOGSOFTMAX, SM_HARDMAX };

#define KILN_SOFTMAX(T, S)                                                     \
  static void softmax_##T(int op, int64_t outer, int64_t n, int64_t inner,     \
                          const T *x, T *y, T *scratch) {                      \
    if (op == SM_HARDMAX) {                                                    \
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
        if (op == SM_SOFTMAX) {                                                \
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
          if (op == SM_SOFTMAX)                                                \
            yb[j * inner + k] = e;                                             \
          s[k] += e;                                                           \
        }                                                                      \
      if (op == SM_SOFTMAX) {                                                  \
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
  if (p[1] == KILN_F32)
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
