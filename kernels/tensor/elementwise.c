/* elementwise.c - broadcasting unary, binary and ternary tensor kernels.
 *
 * Broadcasting is resolved at compile time: the converter passes the output
 * shape and, per input, strides in elements with 0 on broadcast dimensions,
 * after merging dimensions that are contiguous in every operand. The
 * innermost dimension runs as a plain loop with constant strides. */
#include "kiln_tensor.h"

#include <math.h>

void kiln_t_copy(const int64_t *p, const float *f, const void *const *in,
                 void *const *out, void *scratch) {
  (void)f; (void)scratch;
  if (out[0] != in[0])
    memmove(out[0], in[0], (size_t)p[0]);
}

/* The one BatchNormalization computation of a channel: kiln_t_batchnorm
 * (nn.c) and the KILN_EP_BATCHNORM epilogue below call it. */
void kiln_batchnorm_channel_f32(const void *const *params, float eps,
                                int64_t c, const float *xs, float *ys,
                                int64_t S) {
  const float *sc = (const float *)params[0], *bi = (const float *)params[1],
              *mu = (const float *)params[2], *va = (const float *)params[3];
  KILN_BATCHNORM_CHANNEL(float);
}

/* --- binary ------------------------------------------------------------- */

static double fmod_py(double x, double y) { /* sign of the divisor (Mod) */
  double r = fmod(x, y);
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}

/* One output element from a and b of type T into TO. Integer division and
 * modulo by zero give 0 rather than trap.
 *
 * Floats: the loop over u = a[i * sa], v = b[i * sb] is written out for the
 * strides that dominate (both contiguous, or one operand a broadcast scalar:
 * a per-channel scale or bias) with the strides constant, so the compiler
 * vectorizes it; the general strided loop is the fallback. Each element is
 * computed by the same expression either way. */
/* The output is either a buffer of its own or, in place, exactly an operand
 * (the memory planner's reuse; an epilogue's running value): element i is
 * read before it is written and no other element is touched, so a loop over
 * contiguous elements has no dependence the vectorizer must check for. It
 * cannot prove that, and its runtime overlap check fails on exact aliasing,
 * which would leave every in-place loop scalar. KILN_SAFE_LOOP says so, on
 * loops of plain arithmetic (a loop that calls libm would not vectorize and
 * would draw a warning). */
#define KILN_SAFE_LOOP _Pragma("clang loop vectorize(assume_safety)")
/* Where the cost model declines a KILN_SAFE_LOOP (a target without the vector
 * operation), the scalar loop is as right; clang would warn that the request
 * failed. */
#pragma clang diagnostic ignored "-Wpass-failed"
#define KILN_BIN_LOOP_AS(T, y, expr, LOOP)                                    \
  do {                                                                        \
    if (sa == 1 && sb == 1) {                                                 \
      LOOP for (int64_t i = 0; i < n; ++i) { T u = a[i], v = b[i]; y[i] = (expr); } \
    } else if (sa == 1 && sb == 0) {                                          \
      const T v = b[0];                                                       \
      LOOP for (int64_t i = 0; i < n; ++i) { T u = a[i]; y[i] = (expr); }     \
    } else if (sa == 0 && sb == 1) {                                          \
      const T u = a[0];                                                       \
      LOOP for (int64_t i = 0; i < n; ++i) { T v = b[i]; y[i] = (expr); }     \
    } else {                                                                  \
      for (int64_t i = 0; i < n; ++i) {                                       \
        T u = a[i * sa], v = b[i * sb];                                       \
        y[i] = (expr);                                                        \
      }                                                                       \
    }                                                                         \
  } while (0)
#define KILN_BIN_LOOP(T, y, expr) KILN_BIN_LOOP_AS(T, y, expr, )
#define KILN_BIN_VLOOP(T, y, expr) KILN_BIN_LOOP_AS(T, y, expr, KILN_SAFE_LOOP)
#define KILN_BIN_FLOAT(T)                                                     \
  static void bin_##T(int op, const T *a, const T *b, void *o, int64_t n,      \
                      int64_t sa, int64_t sb) {                                \
    T *y = (T *)o;                                                             \
    uint8_t *c = (uint8_t *)o;                                                 \
    switch (op) {                                                              \
    case KILN_BIN_ADD: KILN_BIN_VLOOP(T, y, KILN_EX_ADD(u, v)); break;                           \
    case KILN_BIN_SUB: KILN_BIN_VLOOP(T, y, KILN_EX_SUB(u, v)); break;                           \
    case KILN_BIN_MUL: KILN_BIN_VLOOP(T, y, KILN_EX_MUL(u, v)); break;                           \
    case KILN_BIN_DIV: KILN_BIN_VLOOP(T, y, KILN_EX_DIV(u, v)); break;                           \
    case KILN_BIN_MAX: KILN_BIN_VLOOP(T, y, KILN_EX_MAX(u, v)); break;       \
    case KILN_BIN_MIN: KILN_BIN_VLOOP(T, y, KILN_EX_MIN(u, v)); break;       \
    case KILN_BIN_MOD: KILN_BIN_LOOP(T, y, (T)fmod_py(u, v)); break;                \
    case KILN_BIN_FMOD: KILN_BIN_LOOP(T, y, (T)fmod(u, v)); break;                  \
    case KILN_BIN_PRELU: KILN_BIN_VLOOP(T, y, KILN_EX_PRELU(u, v)); break;             \
    case KILN_BIN_EQUAL: KILN_BIN_LOOP(T, c, u == v); break;                        \
    case KILN_BIN_LESS: KILN_BIN_LOOP(T, c, u < v); break;                          \
    case KILN_BIN_GREATER: KILN_BIN_LOOP(T, c, u > v); break;                       \
    case KILN_BIN_LESS_EQ: KILN_BIN_LOOP(T, c, u <= v); break;                      \
    case KILN_BIN_GREATER_EQ: KILN_BIN_LOOP(T, c, u >= v); break;                   \
    }                                                                          \
  }
/* Integer arithmetic wraps (two's complement, as onnxruntime's does:
 * KILN_WRAP_OP), since C leaves signed overflow undefined (the compiler folds
 * constants with these kernels). For the same reason the quotient and
 * remainders of the type's minimum by -1 are -minimum (wrapped) and 0. */
#define KILN_MINUS_ONE(T, v) ((T)-1 < 0 && (v) == (T)-1)
#define KILN_BIN_INT(T)                                                       \
  static void bin_##T(int op, const T *a, const T *b, void *o, int64_t n,      \
                      int64_t sa, int64_t sb) {                                \
    T *y = (T *)o;                                                             \
    uint8_t *c = (uint8_t *)o;                                                 \
    switch (op) {                                                              \
    case KILN_BIN_ADD: for (int64_t i = 0; i < n; ++i) y[i] = KILN_WRAP_OP(T, a[i * sa], +, b[i * sb]); break; \
    case KILN_BIN_SUB: for (int64_t i = 0; i < n; ++i) y[i] = KILN_WRAP_OP(T, a[i * sa], -, b[i * sb]); break; \
    case KILN_BIN_MUL: for (int64_t i = 0; i < n; ++i) y[i] = KILN_WRAP_OP(T, a[i * sa], *, b[i * sb]); break; \
    case KILN_BIN_DIV: for (int64_t i = 0; i < n; ++i) { T v = b[i * sb]; y[i] = !v ? 0 : KILN_MINUS_ONE(T, v) ? KILN_WRAP_OP(T, 0, -, a[i * sa]) : (T)(a[i * sa] / v); } break; \
    case KILN_BIN_MAX: for (int64_t i = 0; i < n; ++i) { T u = a[i * sa], v = b[i * sb]; y[i] = u > v ? u : v; } break; \
    case KILN_BIN_MIN: for (int64_t i = 0; i < n; ++i) { T u = a[i * sa], v = b[i * sb]; y[i] = u < v ? u : v; } break; \
    case KILN_BIN_MOD: for (int64_t i = 0; i < n; ++i) { T u = a[i * sa], v = b[i * sb]; T r = (v && !KILN_MINUS_ONE(T, v)) ? (T)(u % v) : 0; \
                    y[i] = (r != 0 && ((r < 0) != (v < 0))) ? (T)(r + v) : r; } break; \
    case KILN_BIN_FMOD: for (int64_t i = 0; i < n; ++i) { T v = b[i * sb]; y[i] = (v && !KILN_MINUS_ONE(T, v)) ? (T)(a[i * sa] % v) : 0; } break; \
    case KILN_BIN_PRELU: for (int64_t i = 0; i < n; ++i) { T u = a[i * sa]; y[i] = u < 0 ? KILN_WRAP_OP(T, u, *, b[i * sb]) : u; } break; \
    case KILN_BIN_EQUAL: for (int64_t i = 0; i < n; ++i) c[i] = a[i * sa] == b[i * sb]; break; \
    case KILN_BIN_LESS: for (int64_t i = 0; i < n; ++i) c[i] = a[i * sa] < b[i * sb]; break; \
    case KILN_BIN_GREATER: for (int64_t i = 0; i < n; ++i) c[i] = a[i * sa] > b[i * sb]; break; \
    case KILN_BIN_LESS_EQ: for (int64_t i = 0; i < n; ++i) c[i] = a[i * sa] <= b[i * sb]; break; \
    case KILN_BIN_GREATER_EQ: for (int64_t i = 0; i < n; ++i) c[i] = a[i * sa] >= b[i * sb]; break; \
    case KILN_BIN_AND: for (int64_t i = 0; i < n; ++i) c[i] = a[i * sa] && b[i * sb]; break; \
    case KILN_BIN_OR: for (int64_t i = 0; i < n; ++i) c[i] = a[i * sa] || b[i * sb]; break; \
    case KILN_BIN_XOR: for (int64_t i = 0; i < n; ++i) c[i] = (!a[i * sa]) != (!b[i * sb]); break; \
    }                                                                          \
  }
KILN_BIN_FLOAT(float)
KILN_BIN_FLOAT(double)
KILN_BIN_INT(uint8_t)
KILN_BIN_INT(int8_t)
KILN_BIN_INT(uint16_t)
KILN_BIN_INT(int16_t)
KILN_BIN_INT(int32_t)
KILN_BIN_INT(int64_t)
KILN_BIN_INT(uint32_t)
KILN_BIN_INT(uint64_t)

/* Pow, whose exponent may have another type than its base: computed in
 * double and converted to the base's type. */
static double load_as_double(const void *p, int64_t dtype, int64_t i) {
  switch (dtype) {
#define X(code, T) case code: return (double)((const T *)p)[i];
    KILN_FOR_NUMERIC_TYPES(X)
#undef X
  }
  return 0;
}
/* To an integer type, a value out of its range saturates and NaN gives 0:
 * C leaves those conversions undefined (x86 gives the type's minimum, ARM
 * saturates), and the compiler folds constants with this code on the host
 * that the target then runs, so both must get the same defined result. */
static void store_from_double(void *p, int64_t dtype, int64_t i, double v) {
  switch (dtype) {
#define X(code, T) case code: ((T *)p)[i] = (T)v; break;
    KILN_FOR_FLOAT_TYPES(X)
#undef X
#define X(code, T)                                                             \
  case code: {                                                                 \
    const int sgn = (T)-1 < (T)0;                                              \
    const double hi = /* max + 1 */                                            \
        2.0 * (double)((uint64_t)1 << (8 * sizeof(T) - sgn - 1));              \
    const double lo = sgn ? -hi : 0;                                           \
    T r;                                                                       \
    if (v != v)                                                                \
      r = 0;                                                                   \
    else if (v >= hi)                                                          \
      r = sgn ? (T)((((uint64_t)1) << (8 * sizeof(T) - 1)) - 1) : (T)~(T)0;   \
    else if (v <= lo - 1)                                                      \
      r = (T)lo;                                                               \
    else                                                                       \
      r = (T)v;                                                                \
    ((T *)p)[i] = r;                                                           \
    break;                                                                     \
  }
    KILN_FOR_INT_TYPES(X)
#undef X
  }
}

/* Rows [row0, row1) of a float operation of shape [R, S, n] whose rows
 * (n elements) are contiguous in both operands: a blocked channel layout's
 * [blocks, positions, lanes] against [blocks, 1, lanes], whose rows are
 * too short for a call of bin_float each. Inlined with n constant for the
 * block widths, so each row is whole vectors. The same expressions; 0 for
 * an operation it does not take. */
static inline __attribute__((always_inline)) int
bin_short_rows_f32(int op, const float *A, const float *B, float *Y,
                   int64_t S, const int64_t n, const int64_t *sa,
                   const int64_t *sb, int64_t row0, int64_t row1) {
#define KILN_ROWS(expr)                                                        \
  for (int64_t row = row0, r = row0 / S, s = row0 % S; row < row1; ++row) {   \
    const float *a = A + r * sa[0] + s * sa[1], *b = B + r * sb[0] + s * sb[1]; \
    float *y = Y + row * n;                                                    \
    KILN_SAFE_LOOP                                                             \
    for (int64_t i = 0; i < n; ++i) {                                          \
      const float u = a[i], v = b[i];                                          \
      y[i] = expr;                                                             \
    }                                                                          \
    if (++s == S)                                                              \
      s = 0, ++r;                                                              \
  }                                                                            \
  return 1;
  switch (op) {
  case KILN_BIN_ADD: KILN_ROWS(KILN_EX_ADD(u, v))
  case KILN_BIN_SUB: KILN_ROWS(KILN_EX_SUB(u, v))
  case KILN_BIN_MUL: KILN_ROWS(KILN_EX_MUL(u, v))
  case KILN_BIN_DIV: KILN_ROWS(KILN_EX_DIV(u, v))
  case KILN_BIN_MAX: KILN_ROWS(KILN_EX_MAX(u, v))
  case KILN_BIN_MIN: KILN_ROWS(KILN_EX_MIN(u, v))
  case KILN_BIN_PRELU: KILN_ROWS(KILN_EX_PRELU(u, v))
  }
#undef KILN_ROWS
  return 0;
}

/* bin_short_rows_f32 for rank 2 ([R, n]) or 3 ([R, S, n]). */
static int bin_short_rows(int op, const void *const *in, void *const *out,
                          int rank, const int64_t *shape, const int64_t *sa,
                          const int64_t *sb, int64_t row0, int64_t row1) {
  const int64_t S = rank == 3 ? shape[1] : 1, n = shape[rank - 1];
  const int64_t a2[2] = {sa[0], rank == 3 ? sa[1] : 0},
                b2[2] = {sb[0], rank == 3 ? sb[1] : 0};
  const float *A = (const float *)in[0], *B = (const float *)in[1];
  float *Y = (float *)out[0];
  switch (n) {
  case 4: return bin_short_rows_f32(op, A, B, Y, S, 4, a2, b2, row0, row1);
  case 8: return bin_short_rows_f32(op, A, B, Y, S, 8, a2, b2, row0, row1);
  case 16: return bin_short_rows_f32(op, A, B, Y, S, 16, a2, b2, row0, row1);
  }
  return 0;
}

/* p = {op, dtype_a, dtype_b, dtype_out, rank, shape[rank], strides_a[rank],
 *      strides_b[rank]}. Comparisons and logic write bool (one byte).
 * Shares (kiln_tp_binary): rows (the innermost dimension), or, when there
 * are fewer rows than shares, a range of each row. */
void kiln_tp_binary(const int64_t *p, const float *f, const void *const *in,
                    void *const *out, void *scratch, int part, int parts) {
  (void)f; (void)scratch;
  const int op = (int)p[0];
  const int64_t ta = p[1], tb = p[2], to = p[3];
  const int rank = (int)p[4];
  const int64_t *shape = p + 5, *sa = shape + rank, *sb = sa + rank;
  const size_t ea = kiln_dtype_size(ta), eb = kiln_dtype_size(tb),
               eo = kiln_dtype_size(to);
  int64_t idx[KILN_MAX_RANK] = {0};
  if (rank == 0) {
    static const int64_t one = 1;
    shape = &one;
  }
  for (int64_t d = 0; d < rank; ++d)
    if (shape[d] == 0)
      return;
  const int r = rank ? rank : 1;
  const int64_t n = shape[r - 1];
  const int64_t ia = rank ? sa[r - 1] : 0, ib = rank ? sb[r - 1] : 0;
  int64_t rows = 1, row0 = 0, row1, i0 = 0, i1 = n;
  for (int d = 0; d < r - 1; ++d)
    rows *= shape[d];
  row1 = rows;
  if (rows >= parts)
    kiln_part_range(rows, part, parts, 1, &row0, &row1);
  else
    kiln_part_range(n, part, parts, 16, &i0, &i1);
  if (row0 >= row1 || i0 >= i1)
    return;
  if ((rank == 2 || rank == 3) && ia == 1 && ib == 1 && i0 == 0 &&
      i1 == n && ta == KILN_F32 && tb == KILN_F32 && to == KILN_F32 &&
      bin_short_rows(op, in, out, rank, shape, sa, sb, row0, row1))
    return;
  for (int64_t rest = row0, d = r - 2; d >= 0; --d) { /* row0's index */
    idx[d] = rest % shape[d];
    rest /= shape[d];
  }
  for (int64_t row = row0; row < row1; ++row) {
    const char *a = (const char *)in[0] +
                    ea * (kiln_nd_offset(idx, sa, rank) + i0 * ia);
    const char *b = (const char *)in[1] +
                    eb * (kiln_nd_offset(idx, sb, rank) + i0 * ib);
    char *o = (char *)out[0] + eo * (row * n + i0);
    const int64_t m = i1 - i0;
    if (op == KILN_BIN_POW) {
      for (int64_t i = 0; i < m; ++i)
        store_from_double(o, to, i,
                          pow(load_as_double(a, ta, i * ia),
                              load_as_double(b, tb, i * ib)));
    } else {
      switch (ta) {
#define X(code, T)                                                             \
  case code: bin_##T(op, (const T *)a, (const T *)b, o, m, ia, ib); break;
        KILN_FOR_NUMERIC_TYPES(X)
#undef X
      case KILN_BOOL:
        bin_uint8_t(op, (const uint8_t *)a, (const uint8_t *)b, o, m, ia, ib);
        break;
      }
    }
    if (rank > 1)
      kiln_nd_next(idx, shape, rank - 1);
  }
}

void kiln_t_binary(const int64_t *p, const float *f, const void *const *in,
                   void *const *out, void *scratch) {
  kiln_tp_binary(p, f, in, out, scratch, 0, 1);
}

/* --- unary -------------------------------------------------------------- */

static float gelu_tanh(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}

#define KILN_UNARY_FLOAT(T, S)                                                 \
  static void un_##T(int op, const T *x, T *y, int64_t n, T alpha, T beta) {    \
    switch (op) {                                                              \
    case KILN_UN_RELU: KILN_SAFE_LOOP for (int64_t i = 0; i < n; ++i) y[i] = KILN_EX_RELU(x[i]); break; \
    case KILN_UN_LEAKY_RELU: KILN_SAFE_LOOP for (int64_t i = 0; i < n; ++i) y[i] = KILN_EX_LEAKY_RELU(x[i], alpha); break; \
    case KILN_UN_SIGMOID: for (int64_t i = 0; i < n; ++i) y[i] = 1 / (1 + exp##S(-x[i])); break; \
    case KILN_UN_HARD_SIGMOID: KILN_SAFE_LOOP for (int64_t i = 0; i < n; ++i) { T v = KILN_EX_HARD_SIGMOID_IN(x[i], alpha, beta); y[i] = KILN_EX_UNIT(v); } break; \
    case KILN_UN_HARD_SWISH: KILN_SAFE_LOOP for (int64_t i = 0; i < n; ++i) { T v = KILN_EX_HARD_SWISH_IN(x[i]); y[i] = x[i] * KILN_EX_UNIT(v); } break; \
    case KILN_UN_TANH: for (int64_t i = 0; i < n; ++i) y[i] = tanh##S(x[i]); break; \
    case KILN_UN_ERF: for (int64_t i = 0; i < n; ++i) y[i] = erf##S(x[i]); break; \
    case KILN_UN_GELU: for (int64_t i = 0; i < n; ++i) y[i] = (T)0.5 * x[i] * (1 + erf##S(x[i] * (T)0.70710678118654752)); break; \
    case KILN_UN_GELU_TANH: for (int64_t i = 0; i < n; ++i) y[i] = (T)gelu_tanh((float)x[i]); break; \
    case KILN_UN_SQRT: for (int64_t i = 0; i < n; ++i) y[i] = sqrt##S(x[i]); break; \
    case KILN_UN_EXP: for (int64_t i = 0; i < n; ++i) y[i] = exp##S(x[i]); break;  \
    case KILN_UN_LOG: for (int64_t i = 0; i < n; ++i) y[i] = log##S(x[i]); break;  \
    case KILN_UN_ABS: for (int64_t i = 0; i < n; ++i) y[i] = fabs##S(x[i]); break; \
    case KILN_UN_NEG: KILN_SAFE_LOOP for (int64_t i = 0; i < n; ++i) y[i] = KILN_EX_NEG(x[i]); break;         \
    case KILN_UN_RECIPROCAL: KILN_SAFE_LOOP for (int64_t i = 0; i < n; ++i) y[i] = KILN_EX_RECIPROCAL(x[i]); break; \
    case KILN_UN_FLOOR: for (int64_t i = 0; i < n; ++i) y[i] = floor##S(x[i]); break; \
    case KILN_UN_CEIL: for (int64_t i = 0; i < n; ++i) y[i] = ceil##S(x[i]); break; \
    case KILN_UN_SIN: for (int64_t i = 0; i < n; ++i) y[i] = sin##S(x[i]); break;  \
    case KILN_UN_COS: for (int64_t i = 0; i < n; ++i) y[i] = cos##S(x[i]); break;  \
    case KILN_UN_SOFTPLUS: for (int64_t i = 0; i < n; ++i) y[i] = log##S(1 + exp##S(x[i])); break; \
    case KILN_UN_SOFTSIGN: for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1 + fabs##S(x[i])); break; \
    case KILN_UN_ELU: for (int64_t i = 0; i < n; ++i) y[i] = x[i] >= 0 ? x[i] : alpha * (exp##S(x[i]) - 1); break; \
    case KILN_UN_SELU: for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? beta * x[i] : beta * (alpha * exp##S(x[i]) - alpha); break; \
    case KILN_UN_CELU: for (int64_t i = 0; i < n; ++i) { T v = alpha * (exp##S(x[i] / alpha) - 1); y[i] = (x[i] > 0 ? x[i] : 0) + (v < 0 ? v : 0); } break; \
    case KILN_UN_THRESHOLDED_RELU: for (int64_t i = 0; i < n; ++i) y[i] = x[i] > alpha ? x[i] : 0; break; \
    case KILN_UN_SIGN: for (int64_t i = 0; i < n; ++i) y[i] = (T)((x[i] > 0) - (x[i] < 0)); break; \
    case KILN_UN_ROUND: for (int64_t i = 0; i < n; ++i) y[i] = nearbyint##S(x[i]); break; \
    case KILN_UN_IDENTITY: KILN_SAFE_LOOP for (int64_t i = 0; i < n; ++i) y[i] = x[i]; break;     \
    }                                                                          \
  }
/* Neg and Abs wrap at the type's minimum (KILN_WRAP_OP). */
#define KILN_UNARY_INT(T)                                                      \
  static void un_##T(int op, const T *x, T *y, int64_t n, T alpha, T beta) {    \
    (void)alpha; (void)beta;                                                   \
    switch (op) {                                                              \
    case KILN_UN_RELU: KILN_SAFE_LOOP for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] : 0; break; \
    case KILN_UN_ABS: for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0 ? KILN_WRAP_OP(T, 0, -, x[i]) : x[i]; break; \
    case KILN_UN_NEG: KILN_SAFE_LOOP for (int64_t i = 0; i < n; ++i) y[i] = KILN_WRAP_OP(T, 0, -, x[i]); break; \
    case KILN_UN_SIGN: for (int64_t i = 0; i < n; ++i) y[i] = (T)((x[i] > 0) - (x[i] < 0)); break; \
    case KILN_UN_NOT: for (int64_t i = 0; i < n; ++i) y[i] = !x[i]; break;         \
    default: for (int64_t i = 0; i < n; ++i) y[i] = x[i]; break;              \
    }                                                                          \
  }
KILN_UNARY_FLOAT(float, f)
KILN_UNARY_FLOAT(double, )
KILN_UNARY_INT(uint8_t)
KILN_UNARY_INT(int8_t)
KILN_UNARY_INT(uint16_t)
KILN_UNARY_INT(int16_t)
KILN_UNARY_INT(int32_t)
KILN_UNARY_INT(int64_t)
KILN_UNARY_INT(uint32_t)
KILN_UNARY_INT(uint64_t)

/* p = {op, dtype, n}; f = {alpha, beta}. */
void kiln_t_unary(const int64_t *p, const float *f, const void *const *in,
                  void *const *out, void *scratch) {
  (void)scratch;
  const int op = (int)p[0];
  const int64_t n = p[2];
  switch (p[1]) {
#define X(code, T)                                                             \
  case code: un_##T(op, (const T *)in[0], (T *)out[0], n, (T)f[0], (T)f[1]); break;
    KILN_FOR_NUMERIC_TYPES(X)
#undef X
  case KILN_BOOL:
    un_uint8_t(op, (const uint8_t *)in[0], (uint8_t *)out[0], n, 0, 0);
    break;
  }
}

/* --- where, cast, clip -------------------------------------------------- */

/* p = {elem_bytes, rank, shape[rank], strides_cond, strides_x, strides_y}. */
void kiln_t_where(const int64_t *p, const float *f, const void *const *in,
                  void *const *out, void *scratch) {
  (void)f; (void)scratch;
  const size_t e = (size_t)p[0];
  const int rank = (int)p[1];
  const int64_t *shape = p + 2, *sc = shape + rank, *sx = sc + rank,
                *sy = sx + rank;
  int64_t idx[KILN_MAX_RANK] = {0};
  int64_t total = 1;
  for (int d = 0; d < rank; ++d)
    total *= shape[d];
  const uint8_t *c = (const uint8_t *)in[0];
  const char *x = (const char *)in[1], *y = (const char *)in[2];
  char *o = (char *)out[0];
  for (int64_t i = 0; i < total; ++i) {
    int64_t oc = kiln_nd_offset(idx, sc, rank);
    const char *src = c[oc] ? x + e * kiln_nd_offset(idx, sx, rank)
                            : y + e * kiln_nd_offset(idx, sy, rank);
    memcpy(o + e * i, src, e);
    if (rank)
      kiln_nd_next(idx, shape, rank);
  }
}

/* IEEE half <-> float, round to nearest even. */
static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f,
           mant = h & 0x3ff, bits;
  if (exp == 0x1f)
    bits = sign | 0x7f800000u | (mant << 13);
  else if (exp)
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  else if (!mant)
    bits = sign;
  else {
    int e = -1;
    do { ++e; mant <<= 1; } while (!(mant & 0x400));
    bits = sign | ((uint32_t)(112 - e) << 23) | ((mant & 0x3ff) << 13);
  }
  float v;
  memcpy(&v, &bits, 4);
  return v;
}
static uint16_t float_to_half(float v) {
  uint32_t x;
  memcpy(&x, &v, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) /* inf or nan */
    return sign | 0x7c00 | (absx > 0x7f800000u ? 0x200 : 0);
  if (absx >= 0x477ff000u) /* overflows to inf */
    return sign | 0x7c00;
  if (absx < 0x38800000u) { /* subnormal or zero */
    float a;
    memcpy(&a, &absx, 4);
    return sign | (uint16_t)nearbyintf(a * 16777216.0f);
  }
  uint32_t r = absx + 0xfff + ((absx >> 13) & 1) - 0x38000000u;
  return sign | (uint16_t)(r >> 13);
}

/* p = {from, to, n}. Float to integer truncates toward zero (C's
 * conversion, as ONNX's reference does for in-range values); out of the
 * integer type's range it saturates, and NaN gives 0 (store_from_double). */
void kiln_t_cast(const int64_t *p, const float *f, const void *const *in,
                 void *const *out, void *scratch) {
  (void)f; (void)scratch;
  const int64_t from = p[0], to = p[1], n = p[2];
  for (int64_t i = 0; i < n; ++i) {
    double v;
    if (from == KILN_F16)
      v = half_to_float(((const uint16_t *)in[0])[i]);
    else if (from == KILN_BOOL)
      v = ((const uint8_t *)in[0])[i] != 0;
    else if (from == KILN_I64) { /* exact for values beyond 2^53 */
      int64_t w = ((const int64_t *)in[0])[i];
      if (to == KILN_I64 || to == KILN_U64) { ((int64_t *)out[0])[i] = w; continue; }
      v = (double)w;
    } else
      v = load_as_double(in[0], from, i);
    if (to == KILN_F16)
      ((uint16_t *)out[0])[i] = float_to_half((float)v);
    else if (to == KILN_BOOL)
      ((uint8_t *)out[0])[i] = v != 0;
    else
      store_from_double(out[0], to, i, v);
  }
}

/* p = {dtype, n}; in = {x, min or NULL, max or NULL} (scalars). The bounds
 * are read once, before the loop: the output may be any buffer, so reading
 * them inside would keep the loop from vectorizing. A NaN stays NaN. */
void kiln_t_clip(const int64_t *p, const float *f, const void *const *in,
                 void *const *out, void *scratch) {
  (void)f; (void)scratch;
  const int64_t n = p[1];
  switch (p[0]) {
#define X(code, T)                                                             \
  case code: {                                                                 \
    const T *x = (const T *)in[0];                                             \
    T *y = (T *)out[0];                                                        \
    const T lo = in[1] ? *(const T *)in[1] : 0, hi = in[2] ? *(const T *)in[2] : 0; \
    if (in[1] && in[2])                                                        \
      KILN_SAFE_LOOP                                                           \
      for (int64_t i = 0; i < n; ++i) {                                        \
        T v = x[i];                                                            \
        v = KILN_EX_CLIP_LO(v, lo);                                            \
        y[i] = KILN_EX_CLIP_HI(v, hi);                                         \
      }                                                                        \
    else if (in[1])                                                            \
      KILN_SAFE_LOOP                                                           \
      for (int64_t i = 0; i < n; ++i)                                          \
        y[i] = KILN_EX_CLIP_LO(x[i], lo);                                      \
    else if (in[2])                                                            \
      KILN_SAFE_LOOP                                                           \
      for (int64_t i = 0; i < n; ++i)                                          \
        y[i] = KILN_EX_CLIP_HI(x[i], hi);                                      \
    else if (y != x)                                                           \
      KILN_SAFE_LOOP                                                           \
      for (int64_t i = 0; i < n; ++i)                                          \
        y[i] = x[i];                                                           \
    break;                                                                     \
  }
    KILN_FOR_NUMERIC_TYPES(X)
#undef X
  }
}

/* --- epilogues (kiln_tensor.h) ------------------------------------------ */

/* Elements per pass of the operations: a block stays in L1 from the first
 * operation to the last, and the saved copy fits on the stack. */
#define KILN_EP_BLOCK 256
_Static_assert(sizeof(kiln_epilogue_fn) == sizeof(void *),
               "an epilogue function travels as an input pointer");

/* y = op(y, other) or, swapped, op(other, y); other advances by `step` (0: a
 * scalar). The standalone kernel's loop, so the same expression. */
static void ep_binary(int op, float *y, const float *other, int64_t step,
                      int swap, int64_t n) {
  if (swap)
    bin_float(op, other, y, y, n, step, 1);
  else
    bin_float(op, y, other, y, n, 1, step);
}

/* Operation `op` of an epilogue on m elements yb[0..m) of one output
 * channel, element 0 being element `offset` of the output. Returns how many
 * operations after it the call ran too (KILN_EP_CALL). */
static int64_t ep_apply(const int64_t *op, const float *f,
                        const void *const *in, float *yb, int64_t m,
                        int64_t channel, int64_t offset, float *saved) {
  const int code = (int)op[1];
  switch (op[0]) {
  case KILN_EP_SAVE:
    memcpy(saved, yb, (size_t)m * sizeof(float));
    break;
  case KILN_EP_SCALAR:
    ep_binary(code, yb, (const float *)in[op[2]], 0, (int)op[3], m);
    break;
  case KILN_EP_CHANNEL:
    ep_binary(code, yb, (const float *)in[op[2]] + channel, 0, (int)op[3], m);
    break;
  case KILN_EP_FULL:
    ep_binary(code, yb, (const float *)in[op[2]] + offset, 1, (int)op[3], m);
    break;
  case KILN_EP_SAVED:
    ep_binary(code, yb, saved, 1, (int)op[3], m);
    break;
  case KILN_EP_UNARY:
    un_float(code, yb, yb, m, f[op[2]], f[op[2] + 1]);
    break;
  case KILN_EP_CLIP: {
    const int64_t cp[2] = {KILN_F32, m};
    const void *cin[3] = {yb, op[2] < 0 ? NULL : in[op[2]],
                          op[3] < 0 ? NULL : in[op[3]]};
    void *cout[1] = {yb};
    kiln_t_clip(cp, NULL, cin, cout, NULL);
    break;
  }
  case KILN_EP_BATCHNORM:
    kiln_batchnorm_channel_f32(in + op[2], f[op[3]], channel, yb, yb, m);
    break;
  case KILN_EP_COLUMN: /* one row's block: channel is its first column */
    ep_binary(code, yb, (const float *)in[op[2]] + channel, 1, (int)op[3], m);
    break;
  case KILN_EP_CALL: {
    kiln_epilogue_fn fn;
    memcpy(&fn, &in[op[2]], sizeof fn); /* a function stored as data */
    fn(f, in, yb, m, channel, offset);
    return op[1];
  }
  }
  return 0;
}

void kiln_epilogue_f32(const int64_t *ep, const float *f,
                       const void *const *in, float *y, int64_t n,
                       int64_t channel, int64_t offset) {
  const int64_t E = ep[0];
  float saved[KILN_EP_BLOCK];
  for (int64_t b = 0; b < n; b += KILN_EP_BLOCK) {
    const int64_t m = n - b < KILN_EP_BLOCK ? n - b : KILN_EP_BLOCK;
    for (int64_t e = 0; e < E; ++e)
      e += ep_apply(ep + 1 + 4 * e, f, in, y + b, m,
                    channel + (ep[1 + 4 * e] == KILN_EP_COLUMN ? b : 0),
                    offset + b, saved);
  }
}

void kiln_epilogue_blocked_f32(const int64_t *ep, const float *f,
                               const void *const *in, float *y,
                               int64_t npos, int64_t cb, int64_t ch0,
                               int64_t lanes, int64_t offset) {
  const int64_t E = ep[0], step = KILN_EP_BLOCK / cb;
  float saved[KILN_EP_BLOCK];
  for (int64_t b = 0; b < npos; b += step) {
    const int64_t m = npos - b < step ? npos - b : step;
    float *yb = y + b * cb;
    for (int64_t e = 0; e < E; ++e) {
      const int64_t *op = ep + 1 + 4 * e;
      if (op[0] == KILN_EP_CHANNEL) /* lane l is channel ch0 + l */
        for (int64_t q = 0; q < m; ++q)
          ep_binary((int)op[1], yb + q * cb, (const float *)in[op[2]] + ch0, 1,
                    (int)op[3], lanes);
      else if (op[0] == KILN_EP_BATCHNORM)
        for (int64_t q = 0; q < m; ++q)
          for (int64_t l = 0; l < lanes; ++l)
            kiln_batchnorm_channel_f32(in + op[2], f[op[3]], ch0 + l,
                                       yb + q * cb + l, yb + q * cb + l, 1);
      else /* the same operation on every element, or a same-layout operand */
        e += ep_apply(op, f, in, yb, m * cb, ch0, offset + b * cb, saved);
    }
  }
}

void kiln_epilogue_rows_f32(const int64_t *ep, const float *f,
                            const void *const *in, float *y, int64_t rows,
                            int64_t n, int64_t ld, int64_t col,
                            int64_t offset, int64_t N) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t b = 0; b < n; b += KILN_EP_BLOCK)
      kiln_epilogue_f32(ep, f, in, y + r * ld + b,
                        n - b < KILN_EP_BLOCK ? n - b : KILN_EP_BLOCK,
                        col + b, offset + r * N + b);
}
