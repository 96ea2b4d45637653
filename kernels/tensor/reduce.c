/* reduce.c - reductions over axes (Reduce*) and ArgMax/ArgMin.
 *
 * The converter merges adjacent dimensions that are both reduced or both
 * kept, so the kernel sees at most KILN_MAX_RANK alternating dimensions. It
 * walks the input in memory order: the innermost dimension is a contiguous
 * loop that either folds into one accumulator (innermost reduced) or updates
 * a contiguous row of accumulators (innermost kept); both vectorize.
 * Accumulators live in scratch as double (float types) or 64-bit integers
 * (integer types), so sums of many floats keep their precision and integer
 * min/max/sum stay exact. */
#include "kiln_tensor.h"

#include <math.h>
#include <stdint.h>

/* One pass over the input combining each element v (of type ACC) into its
 * accumulator s; m is the element's accumulator in `mx` (LogSumExp's max).
 * LOOP goes before the element loops: KILN_T_SCALAR_CONVERSIONS where
 * COMBINE converts a float to an integer accumulator. */
#define RED_PASS(A, COMBINE, LOOP)                                             \
  do {                                                                         \
    int64_t idx[KILN_MAX_RANK] = {0};                                          \
    int64_t row = 0;                                                           \
    do {                                                                       \
      const elem_t *xr = x + row * n;                                               \
      const int64_t off = kiln_nd_offset(idx, ostr, rank);                     \
      acc_t *a = (A) + off;                                                      \
      const acc_t *mm = mx + off;                                                \
      if (so == 0) {                                                           \
        acc_t s = a[0];                                                          \
        const acc_t m = mm[0];                                                   \
        (void)m;                                                               \
        LOOP                                                                   \
        for (int64_t i = 0; i < n; ++i) {                                      \
          acc_t v = (acc_t)xr[i];                                                  \
          COMBINE(s, v, m);                                                    \
        }                                                                      \
        a[0] = s;                                                              \
      } else {                                                                 \
        LOOP                                                                   \
        for (int64_t i = 0; i < n; ++i) {                                      \
          acc_t v = (acc_t)xr[i];                                                  \
          COMBINE(a[i], v, mm[i]);                                             \
        }                                                                      \
      }                                                                        \
      ++row;                                                                   \
    } while (rank > 1 && kiln_nd_next(idx, shape, rank - 1) >= 0);             \
  } while (0)

/* Integer sums and products wrap in their 64-bit accumulators
 * (KILN_WRAP_OP): C leaves signed overflow undefined. */
#define C_ADD(s, v, m) s = KILN_WRAP_OP(acc_t, s, +, v)
#define C_MUL(s, v, m) s = KILN_WRAP_OP(acc_t, s, *, v)
#define C_MAX(s, v, m) s = v > s ? v : s
#define C_MIN(s, v, m) s = v < s ? v : s
#define C_ABS(s, v, m) \
  s = KILN_WRAP_OP(acc_t, s, +, v < 0 ? KILN_WRAP_OP(acc_t, 0, -, v) : v)
#define C_SQ(s, v, m) s = KILN_WRAP_OP(acc_t, s, +, KILN_WRAP_OP(acc_t, v, *, v))
#define C_EXP(s, v, m) s += (acc_t)exp((double)v - (double)m)

#define KILN_REDUCE(T, ACC, LO, HI)                                            \
  static void reduce_##T(int op, int rank, const int64_t *shape,               \
                         const int64_t *ostr, int64_t onum, int64_t inum,      \
                         const T *x, T *y, ACC *acc, ACC *mx) {                \
    typedef T elem_t;                                                          \
    typedef ACC acc_t;                                                         \
    const int64_t n = shape[rank - 1], so = ostr[rank - 1];                    \
    ACC init = op == KILN_RED_PROD ? (ACC)1                                         \
               : op == KILN_RED_MAX ? (ACC)(LO)                                     \
               : op == KILN_RED_MIN ? (ACC)(HI)                                     \
                               : (ACC)0;                                       \
    for (int64_t i = 0; i < onum; ++i)                                         \
      acc[i] = init;                                                           \
    if (inum > 0) {                                                            \
      switch (op) {                                                            \
      case KILN_RED_SUM: case KILN_RED_MEAN: case KILN_RED_LOGSUM: RED_PASS(acc, C_ADD, ); break; \
      case KILN_RED_MAX: RED_PASS(acc, C_MAX, ); break;                        \
      case KILN_RED_MIN: RED_PASS(acc, C_MIN, ); break;                        \
      case KILN_RED_PROD: RED_PASS(acc, C_MUL, ); break;                       \
      case KILN_RED_L1: RED_PASS(acc, C_ABS, ); break;                         \
      case KILN_RED_L2: case KILN_RED_SUMSQ: RED_PASS(acc, C_SQ, ); break;     \
      case KILN_RED_LOGSUMEXP:                                                      \
        for (int64_t i = 0; i < onum; ++i)                                     \
          mx[i] = (ACC)(LO);                                                   \
        RED_PASS(mx, C_MAX, );                                                 \
        RED_PASS(acc, C_EXP, KILN_T_SCALAR_CONVERSIONS);                       \
        break;                                                                 \
      }                                                                        \
    }                                                                          \
    const ACC count = (ACC)(onum ? inum / onum : 1);                           \
    for (int64_t i = 0; i < onum; ++i) {                                       \
      ACC a = acc[i];                                                          \
      switch (op) {                                                            \
      case KILN_RED_MEAN: y[i] = (T)(count ? a / count : a); break;                 \
      case KILN_RED_L2: y[i] = (T)sqrt((double)a); break;                           \
      case KILN_RED_LOGSUM: y[i] = (T)log((double)a); break;                        \
      case KILN_RED_LOGSUMEXP: y[i] = (T)(log((double)a) + (double)mx[i]); break;   \
      default: y[i] = (T)a; break;                                             \
      }                                                                        \
    }                                                                          \
  }
KILN_REDUCE(float, double, -INFINITY, INFINITY)
KILN_REDUCE(double, double, -INFINITY, INFINITY)
KILN_REDUCE(uint8_t, int64_t, 0, UINT8_MAX)
KILN_REDUCE(int8_t, int64_t, INT8_MIN, INT8_MAX)
KILN_REDUCE(uint16_t, int64_t, 0, UINT16_MAX)
KILN_REDUCE(int16_t, int64_t, INT16_MIN, INT16_MAX)
KILN_REDUCE(int32_t, int64_t, INT32_MIN, INT32_MAX)
KILN_REDUCE(int64_t, int64_t, INT64_MIN, INT64_MAX)
KILN_REDUCE(uint32_t, int64_t, 0, UINT32_MAX)
KILN_REDUCE(uint64_t, uint64_t, 0, UINT64_MAX)

/* p = {op, dtype, rank, shape[rank], out_strides[rank], out_numel, in_numel}.
 * shape is the input's (merged) shape; out_strides are the output's dense
 * element strides on kept dimensions and 0 on reduced ones. Scratch: 8 bytes
 * per output element, twice that for LogSumExp. LogSumExp is float only. */
void kiln_t_reduce(const int64_t *p, const float *f, const void *const *in,
                   void *const *out, void *scratch) {
  (void)f;
  const int op = (int)p[0];
  const int rank = (int)p[2];
  const int64_t *shape = p + 3, *ostr = shape + rank;
  const int64_t onum = ostr[rank], inum = ostr[rank + 1];
  switch (p[1]) {
  case KILN_F32:
    reduce_float(op, rank, shape, ostr, onum, inum, (const float *)in[0],
                 (float *)out[0], (double *)scratch, (double *)scratch + onum);
    break;
  case KILN_F64:
    reduce_double(op, rank, shape, ostr, onum, inum, (const double *)in[0],
                  (double *)out[0], (double *)scratch, (double *)scratch + onum);
    break;
#define I(code, T)                                                             \
  case code:                                                                   \
    reduce_##T(op, rank, shape, ostr, onum, inum, (const T *)in[0],            \
               (T *)out[0], (int64_t *)scratch, (int64_t *)scratch + onum);    \
    break;
    I(KILN_U8, uint8_t) I(KILN_I8, int8_t) I(KILN_U16, uint16_t)
    I(KILN_I16, int16_t) I(KILN_I32, int32_t) I(KILN_I64, int64_t)
    I(KILN_U32, uint32_t)
#undef I
  case KILN_U64:
    reduce_uint64_t(op, rank, shape, ostr, onum, inum, (const uint64_t *)in[0],
                    (uint64_t *)out[0], (uint64_t *)scratch,
                    (uint64_t *)scratch + onum);
    break;
  }
}

/* --- ArgMax / ArgMin ------------------------------------------------------- */

/* p = {dtype, outer, n, inner, is_min, select_last}; out = int64 indices of
 * shape [outer, inner]. Ties keep the first index unless select_last. */
void kiln_t_argminmax(const int64_t *p, const float *f, const void *const *in,
                      void *const *out, void *scratch) {
  (void)f; (void)scratch;
  const int64_t outer = p[1], n = p[2], inner = p[3];
  const int is_min = (int)p[4], last = (int)p[5];
  int64_t *y = (int64_t *)out[0];
  switch (p[0]) {
#define X(code, T)                                                             \
  case code: {                                                                 \
    const T *x = (const T *)in[0];                                             \
    for (int64_t o = 0; o < outer; ++o)                                        \
      for (int64_t k = 0; k < inner; ++k) {                                    \
        const T *c = x + o * n * inner + k;                                    \
        T best = c[0];                                                         \
        int64_t bi = 0;                                                        \
        for (int64_t j = 1; j < n; ++j) {                                      \
          T v = c[j * inner];                                                  \
          int better = is_min ? v < best : v > best;                           \
          if (better || (last && v == best)) {                                 \
            best = v;                                                          \
            bi = j;                                                            \
          }                                                                    \
        }                                                                      \
        y[o * inner + k] = bi;                                                 \
      }                                                                        \
    break;                                                                     \
  }
    KILN_FOR_NUMERIC_TYPES(X)
#undef X
  }
}
