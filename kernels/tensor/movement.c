/* movement.c - kernels that move elements without computing on them
 * (Transpose, Slice, Expand, Tile, DepthToSpace, Concat, Split, Gather*,
 * Scatter*, Trilu, OneHot, Range, ConstantOfShape, CumSum).
 *
 * Most of them only move bytes: they take the element size in bytes rather
 * than a type code, so one kernel serves every type. Index inputs (Gather,
 * Scatter, OneHot) may be computed at run time; they are int32 or int64
 * (OneHot: any numeric type), negative values count from the end, and values
 * still out of range are clamped (Gather*, Scatter*) or ignored (OneHot) so
 * that the kernels never read or write out of bounds. Converters reject
 * out-of-range constant indices at compile time. */
#include "kiln_tensor.h"


/* strided_copy merges dimensions first; this allows Tile's doubled rank. */
#define KILN_MOVE_MAX_RANK 16

/* n elements of `es` bytes from x (stride s elements) to contiguous y. */
static void copy_row(uint8_t *y, const uint8_t *x, int64_t n, int64_t s,
                     size_t es) {
  if (s == 1) {
    memcpy(y, x, (size_t)n * es);
    return;
  }
  switch (es) {
#define ROW(T)                                                                 \
  {                                                                            \
    T *yt = (T *)y;                                                            \
    const T *xt = (const T *)x;                                                \
    for (int64_t i = 0; i < n; ++i)                                            \
      yt[i] = xt[i * s];                                                       \
    return;                                                                    \
  }
  case 1: ROW(uint8_t)
  case 2: ROW(uint16_t)
  case 4: ROW(uint32_t)
  case 8: ROW(uint64_t)
#undef ROW
  default:
    for (int64_t i = 0; i < n; ++i)
      memcpy(y + (size_t)i * es, x + (ptrdiff_t)(i * s) * (ptrdiff_t)es, es);
  }
}

static int64_t load_index(const void *p, int64_t dtype, int64_t i) {
  return dtype == KILN_I32 ? (int64_t)((const int32_t *)p)[i]
                           : ((const int64_t *)p)[i];
}

/* A negative index counts from the end; the result is clamped into [0, n). */
static int64_t fix_index(int64_t k, int64_t n) {
  if (k < 0)
    k += n;
  return k < 0 ? 0 : k >= n ? n - 1 : k;
}

/* strided_copy: out = a strided view of in[0], written densely.
 * p = {esize, offset, rank, shape[rank], strides[rank]}
 *   offset, strides in elements of in[0]; strides may be 0 (broadcast) or
 *   negative (reversed Slice). The innermost output dimension is the inner
 *   loop (contiguous writes). Serves Transpose, Slice, Expand, Tile,
 *   DepthToSpace and SpaceToDepth. */
void kiln_t_strided_copy(const int64_t *p, const float *f,
                         const void *const *in, void *const *out,
                         void *scratch) {
  (void)f; (void)scratch;
  size_t es = (size_t)p[0];
  int rank = (int)p[2];
  const int64_t *shape = p + 3, *st = p + 3 + rank;
  const uint8_t *x = (const uint8_t *)in[0] + (ptrdiff_t)p[1] * (ptrdiff_t)es;
  uint8_t *y = (uint8_t *)out[0];
  if (rank == 0) {
    memcpy(y, x, es);
    return;
  }
  for (int d = 0; d < rank; ++d)
    if (shape[d] == 0)
      return;
  int64_t n = shape[rank - 1], s = st[rank - 1];
  int64_t idx[KILN_MOVE_MAX_RANK] = {0};
  int64_t src = 0;
  for (;;) {
    copy_row(y, x + (ptrdiff_t)src * (ptrdiff_t)es, n, s, es);
    y += (size_t)n * es;
    if (kiln_nd_next(idx, shape, rank - 1) < 0)
      break;
    src = kiln_nd_offset(idx, st, rank - 1);
  }
}

/* concat: out[0] = the inputs joined along an axis.
 * p = {n, outer, bytes[n]}: the output is `outer` rows, each the
 * concatenation of a bytes[i]-byte chunk of every input i. */
void kiln_t_concat(const int64_t *p, const float *f, const void *const *in,
                   void *const *out, void *scratch) {
  (void)f; (void)scratch;
  int64_t n = p[0], outer = p[1];
  uint8_t *y = (uint8_t *)out[0];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < n; ++i) {
      size_t b = (size_t)p[2 + i];
      memcpy(y, (const uint8_t *)in[i] + (size_t)o * b, b);
      y += b;
    }
}

/* split: the inverse of concat, same p = {n, outer, bytes[n]} with n
 * outputs. */
void kiln_t_split(const int64_t *p, const float *f, const void *const *in,
                  void *const *out, void *scratch) {
  (void)f; (void)scratch;
  int64_t n = p[0], outer = p[1];
  const uint8_t *x = (const uint8_t *)in[0];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < n; ++i) {
      size_t b = (size_t)p[2 + i];
      memcpy((uint8_t *)out[i] + (size_t)o * b, x, b);
      x += b;
    }
}

/* gather: out[o, j, :] = data[o, indices[j], :].
 * p = {esize, index dtype, outer, axis dim, inner (elements), n indices}
 * in = {data, indices} */
void kiln_t_gather(const int64_t *p, const float *f, const void *const *in,
                   void *const *out, void *scratch) {
  (void)f; (void)scratch;
  size_t es = (size_t)p[0];
  int64_t idt = p[1], outer = p[2], dim = p[3], n = p[5];
  size_t row = (size_t)p[4] * es;
  const uint8_t *x = (const uint8_t *)in[0];
  uint8_t *y = (uint8_t *)out[0];
  if (dim == 0)
    return;
  /* single elements (inner = 1): typed loads instead of small memcpys */
  switch (row) {
#define ELEMS(T)                                                               \
  {                                                                            \
    const T *xt = (const T *)x;                                                \
    T *yt = (T *)y;                                                            \
    for (int64_t o = 0; o < outer; ++o)                                        \
      for (int64_t j = 0; j < n; ++j)                                          \
        *yt++ = xt[o * dim + fix_index(load_index(in[1], idt, j), dim)];       \
    return;                                                                    \
  }
  case 1: ELEMS(uint8_t)
  case 2: ELEMS(uint16_t)
  case 4: ELEMS(uint32_t)
  case 8: ELEMS(uint64_t)
#undef ELEMS
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j) {
      int64_t k = fix_index(load_index(in[1], idt, j), dim);
      memcpy(y, x + ((size_t)o * (size_t)dim + (size_t)k) * row, row);
      y += row;
    }
}

/* gather_elements: out[i] = data[i with i[axis] = indices[i]].
 * p = {esize, index dtype, rank, axis, axis dim, shape[rank] (of indices and
 *      out), data strides[rank] (elements)}
 * in = {data, indices} */
void kiln_t_gather_elements(const int64_t *p, const float *f,
                            const void *const *in, void *const *out,
                            void *scratch) {
  (void)f; (void)scratch;
  size_t es = (size_t)p[0];
  int64_t idt = p[1], axis = p[3], dim = p[4];
  int rank = (int)p[2];
  const int64_t *shape = p + 5, *st = p + 5 + rank;
  const uint8_t *x = (const uint8_t *)in[0];
  uint8_t *y = (uint8_t *)out[0];
  int64_t total = 1;
  for (int d = 0; d < rank; ++d)
    total *= shape[d];
  int64_t idx[KILN_MAX_RANK] = {0};
  for (int64_t i = 0; i < total; ++i) {
    int64_t k = fix_index(load_index(in[1], idt, i), dim);
    int64_t src = kiln_nd_offset(idx, st, rank) + (k - idx[axis]) * st[axis];
    memcpy(y + (size_t)i * es, x + (size_t)src * es, es);
    kiln_nd_next(idx, shape, rank);
  }
}

/* gather_nd: out[b, n, :] = data[b, indices[b, n, 0..k), :].
 * p = {esize, index dtype, batches, n per batch, k, slice (elements),
 *      batch stride (elements of data), dims[k], strides[k] (elements)}
 * in = {data, indices} */
void kiln_t_gather_nd(const int64_t *p, const float *f, const void *const *in,
                      void *const *out, void *scratch) {
  (void)f; (void)scratch;
  size_t es = (size_t)p[0];
  int64_t idt = p[1], batches = p[2], n = p[3], k = p[4];
  size_t slice = (size_t)p[5] * es;
  int64_t bstride = p[6];
  const int64_t *dims = p + 7, *st = p + 7 + k;
  const uint8_t *x = (const uint8_t *)in[0];
  uint8_t *y = (uint8_t *)out[0];
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t j = 0; j < n; ++j) {
      int64_t src = b * bstride;
      for (int64_t t = 0; t < k; ++t)
        src += fix_index(load_index(in[1], idt, (b * n + j) * k + t), dims[t]) *
               st[t];
      memcpy(y, x + (size_t)src * es, slice);
      y += slice;
    }
}

/* --- scatter (typed: reductions compute) --------------------------------- */

/* KILN_SCATTER_* (kiln_tensor.h) say how an update combines. */

#define SCATTER_APPLY(T)                                                       \
  static void scatter_##T(int64_t red, T *y, const T *u, int64_t n) {          \
    switch (red) {                                                             \
    case KILN_SCATTER_NONE: for (int64_t i = 0; i < n; ++i) y[i] = u[i]; break; \
    case KILN_SCATTER_ADD: for (int64_t i = 0; i < n; ++i) y[i] = (T)(y[i] + u[i]); break; \
    case KILN_SCATTER_MUL: for (int64_t i = 0; i < n; ++i) y[i] = (T)(y[i] * u[i]); break; \
    case KILN_SCATTER_MAX: for (int64_t i = 0; i < n; ++i) y[i] = y[i] > u[i] ? y[i] : u[i]; break; \
    case KILN_SCATTER_MIN: for (int64_t i = 0; i < n; ++i) y[i] = y[i] < u[i] ? y[i] : u[i]; break; \
    }                                                                          \
  }
#define X(code, T) SCATTER_APPLY(T)
KILN_FOR_NUMERIC_TYPES(X)
#undef X

/* n elements of type `dtype` from u combined into y. */
static void scatter_apply(int64_t dtype, int64_t red, void *y, const void *u,
                          int64_t n) {
  switch (dtype) {
#define X(code, T) case code: scatter_##T(red, (T *)y, (const T *)u, n); return;
    KILN_FOR_NUMERIC_TYPES(X)
#undef X
  case KILN_BOOL: scatter_uint8_t(red, (uint8_t *)y, (const uint8_t *)u, n); return;
  case KILN_F16: memcpy(y, u, (size_t)n * 2); return; /* reduction none only */
  }
}

/* scatter_elements: out = data; out[i with i[axis] = indices[i]] op= updates[i].
 * p = {dtype, reduction, index dtype, rank, axis, axis dim, data elements,
 *      shape[rank] (of indices and updates), data strides[rank] (elements)}
 * in = {data, indices, updates} */
void kiln_t_scatter_elements(const int64_t *p, const float *f,
                             const void *const *in, void *const *out,
                             void *scratch) {
  (void)f; (void)scratch;
  int64_t dtype = p[0], red = p[1], idt = p[2], axis = p[4], dim = p[5];
  int rank = (int)p[3];
  size_t es = kiln_dtype_size(dtype);
  const int64_t *shape = p + 7, *st = p + 7 + rank;
  uint8_t *y = (uint8_t *)out[0];
  const uint8_t *u = (const uint8_t *)in[2];
  if (y != in[0])
    memmove(y, in[0], (size_t)p[6] * es);
  int64_t total = 1;
  for (int d = 0; d < rank; ++d)
    total *= shape[d];
  int64_t idx[KILN_MAX_RANK] = {0};
  for (int64_t i = 0; i < total; ++i) {
    int64_t k = fix_index(load_index(in[1], idt, i), dim);
    int64_t dst = kiln_nd_offset(idx, st, rank) + (k - idx[axis]) * st[axis];
    scatter_apply(dtype, red, y + (size_t)dst * es, u + (size_t)i * es, 1);
    kiln_nd_next(idx, shape, rank);
  }
}

/* scatter_nd: out = data; out[indices[j, 0..k), :] op= updates[j, :].
 * p = {dtype, reduction, index dtype, data elements, n, k, slice (elements),
 *      dims[k], strides[k] (elements)}
 * in = {data, indices, updates} */
void kiln_t_scatter_nd(const int64_t *p, const float *f, const void *const *in,
                       void *const *out, void *scratch) {
  (void)f; (void)scratch;
  int64_t dtype = p[0], red = p[1], idt = p[2], n = p[4], k = p[5],
          slice = p[6];
  size_t es = kiln_dtype_size(dtype);
  const int64_t *dims = p + 7, *st = p + 7 + k;
  uint8_t *y = (uint8_t *)out[0];
  const uint8_t *u = (const uint8_t *)in[2];
  if (y != in[0])
    memmove(y, in[0], (size_t)p[3] * es);
  for (int64_t j = 0; j < n; ++j) {
    int64_t dst = 0;
    for (int64_t t = 0; t < k; ++t)
      dst += fix_index(load_index(in[1], idt, j * k + t), dims[t]) * st[t];
    scatter_apply(dtype, red, y + (size_t)dst * es,
                  u + (size_t)(j * slice) * es, slice);
  }
}

/* --- shape-generating and masking kernels ------------------------------- */

/* fill: out[0] = n copies of one element.
 * p = {esize, n, value bits (the element's bytes, little end first)} */
void kiln_t_fill(const int64_t *p, const float *f, const void *const *in,
                 void *const *out, void *scratch) {
  (void)f; (void)in; (void)scratch;
  size_t es = (size_t)p[0];
  int64_t n = p[1];
  uint8_t v[8];
  memcpy(v, &p[2], 8);
  uint8_t *y = (uint8_t *)out[0];
  switch (es) {
#define FILL(T) { T t; memcpy(&t, v, sizeof t); for (int64_t i = 0; i < n; ++i) ((T *)y)[i] = t; return; }
  case 1: FILL(uint8_t)
  case 2: FILL(uint16_t)
  case 4: FILL(uint32_t)
  case 8: FILL(uint64_t)
#undef FILL
  }
}

/* range: out[i] = start + i * delta, computed in the element type (integers
 * wrap: KILN_WRAP_OP).
 * p = {dtype, n}; in = {start, delta} (scalars of the same type) */
void kiln_t_range(const int64_t *p, const float *f, const void *const *in,
                  void *const *out, void *scratch) {
  (void)f; (void)scratch;
  int64_t n = p[1];
  switch (p[0]) {
#define X(code, T)                                                             \
  case code: {                                                                 \
    T s = *(const T *)in[0], d = *(const T *)in[1];                            \
    for (int64_t i = 0; i < n; ++i)                                            \
      ((T *)out[0])[i] = KILN_WRAP_OP(T, s, +, KILN_WRAP_OP(T, (T)i, *, d)); \
    return;                                                                    \
  }
    KILN_FOR_NUMERIC_TYPES(X)
#undef X
  }
}

/* trilu: keeps the lower (upper) triangle of each matrix, zeroes the rest.
 * Element (i, j) is kept when j - i <= k (lower) or j - i >= k (upper).
 * p = {esize, matrices, rows, cols, k, upper} */
void kiln_t_trilu(const int64_t *p, const float *f, const void *const *in,
                  void *const *out, void *scratch) {
  (void)f; (void)scratch;
  size_t es = (size_t)p[0];
  int64_t mats = p[1], rows = p[2], cols = p[3], k = p[4], upper = p[5];
  const uint8_t *x = (const uint8_t *)in[0];
  uint8_t *y = (uint8_t *)out[0];
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t i = 0; i < rows; ++i) {
      /* columns [lo, hi) are kept */
      int64_t lo = upper ? i + k : 0, hi = upper ? cols : i + k + 1;
      lo = lo < 0 ? 0 : lo > cols ? cols : lo;
      hi = hi < lo ? lo : hi > cols ? cols : hi;
      size_t base = (size_t)((m * rows + i) * cols) * es;
      memset(y + base, 0, (size_t)lo * es);
      memcpy(y + base + (size_t)lo * es, x + base + (size_t)lo * es,
             (size_t)(hi - lo) * es);
      memset(y + base + (size_t)hi * es, 0, (size_t)(cols - hi) * es);
    }
}

/* one_hot: out[o, d, i] = values[indices[o, i] == d] (after negative indices
 * count from depth; out-of-range indices give an all-off row).
 * p = {esize, index dtype, outer, depth, inner}; in = {indices, values} */
void kiln_t_one_hot(const int64_t *p, const float *f, const void *const *in,
                    void *const *out, void *scratch) {
  (void)f; (void)scratch;
  size_t es = (size_t)p[0];
  int64_t idt = p[1], outer = p[2], depth = p[3], inner = p[4];
  const uint8_t *vals = (const uint8_t *)in[1];
  uint8_t *y = (uint8_t *)out[0];
  int64_t total = outer * depth * inner;
  for (int64_t i = 0; i < total; ++i)
    memcpy(y + (size_t)i * es, vals, es);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t k = 0, j = o * inner + i;
      switch (idt) {
#define X(code, T) case code: k = (int64_t)((const T *)in[0])[j]; break;
        KILN_FOR_NUMERIC_TYPES(X)
#undef X
      }
      if (k < 0)
        k += depth;
      if (k >= 0 && k < depth)
        memcpy(y + (size_t)((o * depth + k) * inner + i) * es, vals + es, es);
    }
}

/* cumsum: running sums along an axis.
 * p = {dtype, outer, len, inner, exclusive, reverse} */
void kiln_t_cumsum(const int64_t *p, const float *f, const void *const *in,
                   void *const *out, void *scratch) {
  (void)f; (void)scratch;
  int64_t outer = p[1], len = p[2], inner = p[3], excl = p[4], rev = p[5];
  switch (p[0]) {
#define X(code, T)                                                             \
  case code: {                                                                 \
    const T *x = (const T *)in[0];                                             \
    T *y = (T *)out[0];                                                        \
    for (int64_t o = 0; o < outer; ++o) {                                      \
      for (int64_t t = 0; t < len; ++t) {                                      \
        int64_t r = rev ? len - 1 - t : t, prev = rev ? r + 1 : r - 1;         \
        T *yr = y + (o * len + r) * inner;                                     \
        const T *xr = x + (o * len + r) * inner;                               \
        if (t == 0) {                                                          \
          for (int64_t i = 0; i < inner; ++i)                                  \
            yr[i] = excl ? (T)0 : xr[i];                                       \
          continue;                                                            \
        }                                                                      \
        const T *yp = y + (o * len + prev) * inner;                            \
        const T *xa = excl ? x + (o * len + prev) * inner : xr;                \
        for (int64_t i = 0; i < inner; ++i)                                    \
          yr[i] = KILN_WRAP_OP(T, yp[i], +, xa[i]);                            \
      }                                                                        \
    }                                                                          \
    return;                                                                    \
  }
    KILN_FOR_NUMERIC_TYPES(X)
#undef X
  }
}
