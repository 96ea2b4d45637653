/* libm_check.c - runs runtime/src/kiln_libm.c (and the Hexagon arithmetic
 * helpers) over edge cases and dense pseudo-random inputs and prints every
 * result as hex bits, one line each:
 *
 *   NAME X [Y] RESULT        (floats 8 hex digits, doubles and int64 16)
 *
 * libm_ref.c reads that on the host and compares with glibc. Built for
 * Hexagon (freestanding, output by the Linux write syscall) and for the host
 * against kiln_libm.c instead of the system libm (-DKILN_LIBM_TEST), with
 * runtime/src/freestanding on the include path for <math.h>. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "check_io.h"

#if defined(__hexagon__)
#define DIV(a, b) ((a) / (b)) /* __hexagon_divdf3 */
#else
double kiln_libm_div(double, double);
#define DIV(a, b) kiln_libm_div(a, b)
#endif

static void put_hex(uint64_t v, int digits) {
  put_char(' ');
  for (int i = digits - 1; i >= 0; --i)
    put_char("0123456789abcdef"[(v >> (4 * i)) & 15]);
}

static uint64_t bits_d(double d) {
  union { double d; uint64_t u; } v = {d};
  return v.u;
}
static double from_bits_d(uint64_t u) {
  union { uint64_t u; double d; } v = {u};
  return v.d;
}
static uint32_t bits_f(float f) {
  union { float f; uint32_t u; } v = {f};
  return v.u;
}
static float from_bits_f(uint32_t u) {
  union { uint32_t u; float f; } v = {u};
  return v.f;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static double uniform(double lo, double hi) { /* [lo, hi) */
  return lo + (hi - lo) * ((double)(next() >> 11) * 0x1p-53);
}

typedef double (*fn_d)(double);
typedef float (*fn_f)(float);

static void line_d(const char *name, double x, double r) {
  put_str(name);
  put_hex(bits_d(x), 16);
  put_hex(bits_d(r), 16);
  put_char('\n');
}
static void line_f(const char *name, float x, float r) {
  put_str(name);
  put_hex(bits_f(x), 8);
  put_hex(bits_f(r), 8);
  put_char('\n');
}
static void line_d2(const char *name, double x, double y, double r) {
  put_str(name);
  put_hex(bits_d(x), 16);
  put_hex(bits_d(y), 16);
  put_hex(bits_d(r), 16);
  put_char('\n');
}
static void line_f2(const char *name, float x, float y, float r) {
  put_str(name);
  put_hex(bits_f(x), 8);
  put_hex(bits_f(y), 8);
  put_hex(bits_f(r), 8);
  put_char('\n');
}

/* Edge cases, each also negated. */
static const double kEdges[] = {
    0.0, 0x1p-1074, 0x0.fffffffffffffp-1022, 0x1p-1022, 0x1.fffffffffffffp+1023,
    __builtin_inf(), __builtin_nan(""), 1.0, 0.5, 1.5, 2.5, 3.5, 0.49999999999999994,
    0x1p52, 0x1p52 - 0.5, 0x1p53, 0x1p53 + 2, 1e22, 1e300, 1e-300, 1e-310,
    0x1.921fb54442d18p+0, 0x1.921fb54442d18p+1, 0x1.921fb54442d18p-1,
    709.782712893384, 709.7827128933841, 709.79, 710.0, 745.1332191019411,
    745.1332191019412, 745.14, 708.4, 37.5, 38.0, 40.0, 22.0, 23.0, 5.9, 6.0,
    1e-10, 0x1p-26, 0x1p-27, 0x1p-28, 0x1p-30, 0x1p-54, 0x1p-60,
    0.34657359027997264, 0.6931471805599453, 1e5, 1e6, 524288.0, 823550.0,
    6381956970095103.0 * 0x1p797, 1e15, 0x1.fffffffffffffp-1, 0x1.0000000000001p0,
    0.2928932188134524, 0.41421356237309503, 0.9, 1.1, 10.0, 100.0,
    88.72283935546875, 89.0, 103.97, 104.0, 9.0, 3.4e38, 0x1p-126, 0x1p-149,
};
#define NEDGES (sizeof kEdges / sizeof kEdges[0])

struct range {
  double lo, hi;
};
struct fn1 {
  const char *name, *namef;
  fn_d d;
  fn_f f;
  struct range r[2];
};

static const struct fn1 kFns[] = {
    {"exp", "expf", exp, expf, {{-750, 712}, {-2, 2}}},
    {"expm1", "expm1f", expm1, expm1f, {{-40, 712}, {-1, 1}}},
    {"log", "logf", log, logf, {{0, 100}, {0.5, 2}}},
    {"log1p", "log1pf", log1p, log1pf, {{-1, 10}, {-0.5, 0.5}}},
    {"sqrt", "sqrtf", sqrt, sqrtf, {{0, 4}, {0, 1e6}}},
    {"tanh", "tanhf", tanh, tanhf, {{-25, 25}, {-1, 1}}},
    {"erf", "erff", erf, erff, {{-7, 7}, {-1, 1}}},
    {"sin", "sinf", sin, sinf, {{-10, 10}, {-1e6, 1e6}}},
    {"cos", "cosf", cos, cosf, {{-10, 10}, {-1e6, 1e6}}},
    {"fabs", "fabsf", fabs, fabsf, {{-10, 10}, {-1e6, 1e6}}},
    {"floor", "floorf", floor, floorf, {{-10, 10}, {-1e7, 1e7}}},
    {"ceil", "ceilf", ceil, ceilf, {{-10, 10}, {-1e7, 1e7}}},
    {"trunc", "truncf", trunc, truncf, {{-10, 10}, {-1e7, 1e7}}},
    {"round", "roundf", round, roundf, {{-10, 10}, {-1e7, 1e7}}},
    {"nearbyint", "nearbyintf", nearbyint, nearbyintf, {{-10, 10}, {-1e7, 1e7}}},
};
#define NFNS (sizeof kFns / sizeof kFns[0])

enum { kRandomBits = 1000, kPerRange = 1500, kQuarters = 81, kFloatSweep = 8000 };

static void unary(const struct fn1 *f) {
  for (size_t i = 0; i < 2 * NEDGES; ++i) {
    double x = i < NEDGES ? kEdges[i] : -kEdges[i - NEDGES];
    line_d(f->name, x, f->d(x));
    line_f(f->namef, (float)x, f->f((float)x));
  }
  for (int i = 0; i < kQuarters; ++i) { /* -10 .. 10 in quarters: halfway cases */
    double x = -10.0 + 0.25 * i;
    line_d(f->name, x, f->d(x));
    line_f(f->namef, (float)x, f->f((float)x));
  }
  for (int i = 0; i < kRandomBits; ++i) { /* every exponent, NaNs too */
    double x = from_bits_d(next());
    line_d(f->name, x, f->d(x));
  }
  /* Floats: a sweep through all 2^32 encodings with an odd stride. */
  uint32_t u = (uint32_t)next();
  for (int i = 0; i < kFloatSweep; ++i, u += 536881) {
    float x = from_bits_f(u);
    line_f(f->namef, x, f->f(x));
  }
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < kPerRange; ++i) {
      double x = uniform(f->r[k].lo, f->r[k].hi);
      line_d(f->name, x, f->d(x));
      line_f(f->namef, (float)x, f->f((float)x));
    }
}

static const double kPowX[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, __builtin_inf(),
    -__builtin_inf(), __builtin_nan(""), 1e-300, 1e300, 10.0, -10.0,
    0x1.0000000000001p0, 0x1.fffffffffffffp-1, 0x1p-1074, 0x1.fffffffffffffp+1023,
    0.9, 1.1, 2.718281828459045, -0x1p-1074, 1e-40, 7.0};
static const double kPowY[] = {
    0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, 1.5, __builtin_inf(),
    -__builtin_inf(), __builtin_nan(""), 1e300, -1e300, 0x1p53, 0x1p53 + 2, 0x1p60,
    1023.0, 1024.0, 1074.0, -1074.0, -1075.0, 0.3, 1e-20, 1e10, -1e10, 0x1p-1074,
    7.0, -7.0, 1e5, 11.0, -11.0};

static void binary(void) {
  for (size_t i = 0; i < sizeof kPowX / sizeof kPowX[0]; ++i)
    for (size_t j = 0; j < sizeof kPowY / sizeof kPowY[0]; ++j) {
      double x = kPowX[i], y = kPowY[j];
      line_d2("pow", x, y, pow(x, y));
      line_f2("powf", (float)x, (float)y, powf((float)x, (float)y));
      line_d2("fmod", x, y, fmod(x, y));
      line_f2("fmodf", (float)x, (float)y, fmodf((float)x, (float)y));
      line_d2("div", x, y, DIV(x, y));
    }
  for (int i = 0; i < 4000; ++i) {
    /* x over all exponents, y keeping x^y mostly in range (or just past) */
    double x = from_bits_d(next() & 0x7fffffffffffffffull);
    if (x != x || x == __builtin_inf())
      continue;
    double lx = log(x);
    double y = lx == 0 ? 1.0 : uniform(-760, 760) / (lx < 0 ? -lx : lx);
    line_d2("pow", x, y, pow(x, y));
    float xf = (float)uniform(0, 10);
    float yf = (float)(uniform(-100, 100) / (logf(xf) == 0 ? 1 : logf(xf)));
    line_f2("powf", xf, yf, powf(xf, yf));
  }
  for (int i = 0; i < 3000; ++i) {
    double x = uniform(0, 10), y = uniform(-30, 30);
    line_d2("pow", x, y, pow(x, y));
    line_f2("powf", (float)x, (float)y, powf((float)x, (float)y));
    /* negative base, integer exponent */
    x = -uniform(0.05, 20);
    y = (double)(int)uniform(-250, 250);
    line_d2("pow", x, y, pow(x, y));
    line_f2("powf", (float)x, (float)y, powf((float)x, (float)y));
    /* near 1, large exponents */
    x = 1.0 + uniform(-1e-6, 1e-6);
    y = uniform(-1e8, 1e8);
    line_d2("pow", x, y, pow(x, y));
  }
  for (int i = 0; i < 3000; ++i) {
    double x = from_bits_d(next()), y = from_bits_d(next());
    line_d2("fmod", x, y, fmod(x, y));
    line_d2("div", x, y, DIV(x, y));
    float xf = from_bits_f((uint32_t)next()), yf = from_bits_f((uint32_t)next());
    line_f2("fmodf", xf, yf, fmodf(xf, yf));
    x = uniform(-1e6, 1e6);
    y = uniform(-10, 10);
    line_d2("fmod", x, y, fmod(x, y));
    line_f2("fmodf", (float)x, (float)y, fmodf((float)x, (float)y));
    line_d2("div", x, y, DIV(x, y));
    /* divisions with subnormal results */
    x = uniform(1, 2) * 0x1p-1000;
    y = uniform(1, 2) * 0x1p60;
    line_d2("div", x, y, DIV(x, y));
  }
  /* Exact halfway quotients that round into the subnormals: ties to even. */
  for (uint64_t k = 1; k < 400; k += 2) {
    double x = from_bits_d(k), y = k % 4 == 1 ? 2.0 : 4.0;
    line_d2("div", x, y, DIV(x, y));
    x = from_bits_d(0x0010000000000000ull + k * 977);
    line_d2("div", x, y, DIV(x, y));
    line_d2("div", -x, 0.5 * y, DIV(-x, 0.5 * y));
  }
}

/* 64-bit integer division (__hexagon_[u]{div,mod}di3 on Hexagon). */
static void integer(void) {
  for (int i = 0; i < 3000; ++i) {
    uint64_t a = next(), b = next();
    int shift = (int)(next() % 64);
    b >>= shift; /* divisors of every size */
    if (b == 0)
      b = 1;
    if (i % 7 == 0)
      a >>= next() % 64;
    put_str("udiv");
    put_hex(a, 16);
    put_hex(b, 16);
    put_hex(a / b, 16);
    put_char('\n');
    put_str("umod");
    put_hex(a, 16);
    put_hex(b, 16);
    put_hex(a % b, 16);
    put_char('\n');
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    if (i & 1)
      sb = -sb;
    if (sa == INT64_MIN && sb == -1)
      continue;
    put_str("sdiv");
    put_hex((uint64_t)sa, 16);
    put_hex((uint64_t)sb, 16);
    put_hex((uint64_t)(sa / sb), 16);
    put_char('\n');
    put_str("smod");
    put_hex((uint64_t)sa, 16);
    put_hex((uint64_t)sb, 16);
    put_hex((uint64_t)(sa % sb), 16);
    put_char('\n');
  }
}

static int run(void) {
  for (size_t i = 0; i < NFNS; ++i)
    unary(&kFns[i]);
  binary();
  integer();
  put_str("end\n");
  flush();
  return 0;
}

CHECK_MAIN(run)
