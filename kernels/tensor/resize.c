/* resize.c - Resize, one axis at a time.
 *
 * Resize is separable: the converter computes, for every output index of an
 * axis, the input indices ("taps": 1 for nearest, 2 for linear, 4 for cubic)
 * and their weights at compile time -- coordinate transformation, rounding,
 * edge clamping, exclude_outside and tf_crop_and_resize's extrapolation are
 * all resolved there -- and emits one kiln_t_resize_axis call per resized
 * axis. The kernel sees the tensor as [outer, len, inner] and combines whole
 * contiguous rows of `inner` elements, so the inner loop vectorizes. */
#include "kiln_tensor.h"


#define KILN_RESIZE_AXIS(T)                                                    \
  static void resize_##T(int64_t r0, int64_t r1, int64_t in_len,               \
                         int64_t out_len, int64_t inner, int64_t taps,         \
                         const int64_t *idx, const float *w, T ext,            \
                         const T *x, T *y) {                                   \
    int64_t o = r0 / out_len, j = r0 % out_len; /* output row r = (o, j) */ \
    for (int64_t r = r0; r < r1; ++r, ++j) {                                   \
      if (j == out_len) {                                                      \
        j = 0;                                                                 \
        ++o;                                                                   \
      }                                                                        \
      const T *xb = x + o * in_len * inner;                                    \
      const int64_t *ix = idx + j * taps;                                      \
      const float *wj = w + j * taps;                                          \
      T *yr = y + r * inner;                                                   \
      if (ix[0] < 0) {                                                         \
        for (int64_t k = 0; k < inner; ++k)                                    \
          yr[k] = ext;                                                         \
        continue;                                                              \
      }                                                                        \
      const T *x0 = xb + ix[0] * inner;                                        \
      const T w0 = (T)wj[0];                                                   \
      for (int64_t k = 0; k < inner; ++k)                                      \
        yr[k] = w0 * x0[k];                                                    \
      for (int64_t t = 1; t < taps; ++t) {                                     \
        const T *xt = xb + ix[t] * inner;                                      \
        const T wt = (T)wj[t];                                                 \
        for (int64_t k = 0; k < inner; ++k)                                    \
          yr[k] += wt * xt[k];                                                 \
      }                                                                        \
    }                                                                          \
  }
KILN_RESIZE_AXIS(float)
KILN_RESIZE_AXIS(double)

/* p = {dtype, outer, in_len, out_len, inner, taps, idx[out_len * taps]};
 * f = {extrapolation_value, weights[out_len * taps]}. idx[j * taps] < 0
 * marks an output index outside the crop box (tf_crop_and_resize): it gets
 * extrapolation_value. With taps == 1 (nearest) the row is copied bytewise,
 * so any element type works; otherwise dtype is float or double.
 * Shares (kiln_tp_resize_axis): output rows of `inner` elements. */
void kiln_tp_resize_axis(const int64_t *p, const float *f,
                         const void *const *in, void *const *out,
                         void *scratch, int part, int parts) {
  (void)scratch;
  const int64_t dtype = p[0], outer = p[1], in_len = p[2], out_len = p[3],
                inner = p[4], taps = p[5];
  const int64_t *idx = p + 6;
  int64_t r0, r1;
  kiln_part_range(outer * out_len, part, parts, 1, &r0, &r1);
  if (taps == 1) {
    const size_t e = kiln_dtype_size(dtype), row = e * (size_t)inner;
    const char *x = (const char *)in[0];
    char *y = (char *)out[0];
    int64_t o = r0 / out_len, j = r0 % out_len;
    if (inner == 1 && e == 4) { /* the last axis of a float tensor */
      const uint32_t *xs = (const uint32_t *)in[0];
      uint32_t *ys = (uint32_t *)out[0], fill;
      memcpy(&fill, f, 4);
      /* A row (or the share's part of one) at a time: the inner loop has
       * no wrap-around test and vectorizes as a gather. */
      for (int64_t r = r0; r < r1; j = 0, ++o) {
        const int64_t jn = out_len < j + (r1 - r) ? out_len : j + (r1 - r);
        const uint32_t *xr = xs + o * in_len;
        uint32_t *yr = ys + (r - j);
        for (int64_t q = j; q < jn; ++q)
          yr[q] = idx[q] >= 0 ? xr[idx[q]] : fill;
        r += jn - j;
      }
      return;
    }
    for (int64_t r = r0; r < r1; ++r, ++j) {
      if (j == out_len) {
        j = 0;
        ++o;
      }
      char *d = y + r * row;
      if (idx[j] >= 0) {
        memcpy(d, x + (o * in_len + idx[j]) * row, row);
        continue;
      }
      for (int64_t k = 0; k < inner; ++k) /* extrapolation (float types) */
        if (dtype == KILN_F64)
          ((double *)d)[k] = f[0];
        else
          ((float *)d)[k] = f[0];
    }
    return;
  }
  if (dtype == KILN_F32)
    resize_float(r0, r1, in_len, out_len, inner, taps, idx, f + 1, f[0],
                 (const float *)in[0], (float *)out[0]);
  else
    resize_double(r0, r1, in_len, out_len, inner, taps, idx, f + 1, f[0],
                  (const double *)in[0], (double *)out[0]);
}

void kiln_t_resize_axis(const int64_t *p, const float *f, const void *const *in,
                        void *const *out, void *scratch) {
  kiln_tp_resize_axis(p, f, in, out, scratch, 0, 1);
}
