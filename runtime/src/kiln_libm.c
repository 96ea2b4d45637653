/* kiln_libm.c - the <math.h> functions the tensor kernels call, for targets
 * without a C library (Hexagon). Only compiled into freestanding targets'
 * archives, beside kiln_freestanding.c; hosted targets use the system libm.
 *
 * Double functions work in double with double-double steps where a plain
 * double would lose accuracy (pow's logarithm, sin/cos argument reduction);
 * float functions evaluate the double function and round once, which keeps
 * them within 1 ulp. Polynomials are truncated Taylor series with enough
 * terms for the reduced range (the bound is stated at each), so every
 * coefficient is an exact rational folded by the compiler. The tables come
 * from scripts/libm-tables.py (pi by Machin's formula, erf by its series, in
 * exact arithmetic). Special values follow C11 Annex F: NaN in gives NaN,
 * signed zeros and infinities come out as specified, results overflow to
 * inf and underflow through the subnormals to zero.
 *
 * Also here: the floating-point helpers clang calls on Hexagon v67, which
 * has no double divide and no float square root instruction
 * (__hexagon_divdf3, __hexagon_sqrtf); the integer ones are in
 * kiln_freestanding.c.
 *
 * Measured accuracy against glibc: test/kernels/libm_check.c. */
#include <stdint.h>

/* The error-free transformations below need every product rounded on its
 * own: no fused multiply-adds behind our back. */
#pragma STDC FP_CONTRACT OFF

#define LM_SIGN 0x8000000000000000ull
#define LM_INF 0x7ff0000000000000ull
#define LM_MANT 0x000fffffffffffffull

static double lm_d(uint64_t u) {
  union { uint64_t u; double d; } v = {u};
  return v.d;
}
static uint64_t lm_u(double d) {
  union { double d; uint64_t u; } v = {d};
  return v.u;
}
static double lm_nan(void) { return lm_d(0x7ff8000000000000ull); }

/* ---- Exact arithmetic on mantissas ------------------------------------- */

/* The double nearest to sign * m * 2^e (ties to even), m > 0 with at least
 * two bits below the 53 kept when it is inexact (the lowest may be a sticky
 * bit). Handles overflow to inf and rounding into the subnormals. */
static double lm_pack(uint64_t sign, int e, uint64_t m) {
  if (m == 0)
    return lm_d(sign);
  int shift = 63 - __builtin_clzll(m) - 52;
  if (e + shift < -1074)
    shift = -1074 - e;
  if (shift <= 0) {
    m <<= -shift;
  } else if (shift >= 64) {
    /* Everything is below the last subnormal: only m > half rounds up. */
    m = shift == 64 && m > (1ull << 63);
  } else {
    uint64_t rest = m & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    m >>= shift;
    if (rest > half || (rest == half && (m & 1)))
      ++m;
  }
  e += shift;
  if (m >> 53) { /* rounding carried into a new bit: the dropped bit is 0 */
    m >>= 1;
    ++e;
  }
  if (m == 0)
    return lm_d(sign);
  if (e > 1023 - 52)
    return lm_d(sign | LM_INF);
  /* m < 2^52 only when e == -1074 (subnormal, exponent field 0); otherwise
   * m's leading bit adds the 1 the biased exponent field needs. */
  return lm_d(sign | (((uint64_t)(e + 1074) << 52) + m));
}

/* |x| = m * 2^e with m in [2^52, 2^53), for finite nonzero x. */
static uint64_t lm_unpack(uint64_t ax, int *e) {
  int field = (int)(ax >> 52);
  uint64_t m = ax & LM_MANT;
  if (field == 0) {
    int s = __builtin_clzll(m) - 11;
    *e = -1074 - s;
    return m << s;
  }
  *e = field - 1075;
  return m | (1ull << 52);
}

/* a / b correctly rounded, by restoring division of the mantissas. */
static double lm_div(double a, double b) {
  uint64_t ua = lm_u(a), ub = lm_u(b), sign = (ua ^ ub) & LM_SIGN;
  uint64_t aa = ua & ~LM_SIGN, ab = ub & ~LM_SIGN;
  if (aa > LM_INF || ab > LM_INF)
    return a + b;
  if (aa == LM_INF)
    return ab == LM_INF ? lm_nan() : lm_d(sign | LM_INF);
  if (ab == LM_INF)
    return lm_d(sign);
  if (ab == 0)
    return aa == 0 ? lm_nan() : lm_d(sign | LM_INF);
  if (aa == 0)
    return lm_d(sign);
  int ea, eb;
  uint64_t ma = lm_unpack(aa, &ea), mb = lm_unpack(ab, &eb);
  uint64_t rem = ma, q = 0; /* q = floor(ma * 2^55 / mb): 55 or 56 bits */
  for (int i = 0; i < 56; ++i) {
    q <<= 1;
    if (rem >= mb) {
      rem -= mb;
      q |= 1;
    }
    rem <<= 1;
  }
  return lm_pack(sign, ea - eb - 56, (q << 1) | (rem != 0));
}

double sqrt(double x) {
  uint64_t u = lm_u(x);
  if ((u & ~LM_SIGN) == 0 || u == LM_INF)
    return x; /* +-0, +inf */
  if ((u & ~LM_SIGN) > LM_INF)
    return x + x;
  if (u & LM_SIGN)
    return lm_nan();
  int e;
  uint64_t m = lm_unpack(u, &e);
  if (e & 1) { /* make the exponent even: m in [2^52, 2^54) */
    m <<= 1;
    --e;
  }
  /* Digit by digit: root = floor(sqrt(m * 2^58)), 56 bits, from the bit
   * pairs of m followed by zeros; rem <= 2 * root keeps it in 58 bits. */
  uint64_t root = 0, rem = 0;
  for (int i = 0; i < 56; ++i) {
    int b = 52 - 2 * i;
    rem = (rem << 2) | (b >= 0 ? (m >> b) & 3 : 0);
    uint64_t t = (root << 2) | 1;
    root <<= 1;
    if (rem >= t) {
      rem -= t;
      root |= 1;
    }
  }
  return lm_pack(0, (e - 58) / 2 - 1, (root << 1) | (rem != 0));
}

/* The square root of a float via the double one is correctly rounded:
 * 53 >= 2 * 24 + 2, so rounding twice cannot matter. */
float sqrtf(float x) { return (float)sqrt((double)x); }

#if defined(__hexagon__)
double __hexagon_divdf3(double a, double b) { return lm_div(a, b); }
float __hexagon_sqrtf(float x) { return sqrtf(x); }
#elif defined(KILN_LIBM_TEST)
/* The division under test on hosts that divide in hardware. */
double kiln_libm_div(double a, double b) { return lm_div(a, b); }
#endif

/* ---- Double-double ----------------------------------------------------- */

typedef struct {
  double hi, lo;
} lm_dd;

static lm_dd lm_fast_two_sum(double a, double b) { /* |a| >= |b| */
  lm_dd r;
  r.hi = a + b;
  r.lo = b - (r.hi - a);
  return r;
}
static lm_dd lm_two_sum(double a, double b) {
  lm_dd r;
  r.hi = a + b;
  double bb = r.hi - a;
  r.lo = (a - (r.hi - bb)) + (b - bb);
  return r;
}
/* a * b exactly, by Veltkamp's splitting (|a|, |b| < 2^995). */
static lm_dd lm_two_prod(double a, double b) {
  const double split = 134217729.0; /* 2^27 + 1 */
  double ca = split * a, cb = split * b;
  double ah = ca - (ca - a), al = a - ah;
  double bh = cb - (cb - b), bl = b - bh;
  lm_dd r;
  r.hi = a * b;
  r.lo = ((ah * bh - r.hi) + ah * bl + al * bh) + al * bl;
  return r;
}
static lm_dd lm_dd_mul(lm_dd x, lm_dd y) {
  lm_dd p = lm_two_prod(x.hi, y.hi);
  return lm_fast_two_sum(p.hi, p.lo + (x.hi * y.lo + x.lo * y.hi));
}
static lm_dd lm_dd_add(lm_dd x, lm_dd y) {
  lm_dd s = lm_two_sum(x.hi, y.hi);
  return lm_fast_two_sum(s.hi, s.lo + (x.lo + y.lo));
}

/* ---- Helpers ----------------------------------------------------------- */

/* x rounded to an integer, ties to even, for |x| < 2^51 (the default
 * rounding mode does the work). */
static double lm_rint_small(double x) {
  const double big = 0x1.8p52;
  return (x + big) - big;
}

/* 1/d to about 1 ulp for normal d with |d| in [2^-1000, 2^1000]: Newton's
 * iteration from a bit-level first guess (error below 1/8, squared by each
 * step). Cheaper than the software division on Hexagon. */
static double lm_recip(double d) {
  double y = lm_d(0x7fde5f73aabb2290ull - lm_u(d));
  for (int i = 0; i < 4; ++i)
    y = y * (2.0 - d * y);
  return y + y * (1.0 - d * y);
}

/* y * 2^k for y near 1 and any k that exp can produce; the one rounding is
 * the last multiplication, so subnormal results are rounded once. */
static double lm_scale(double y, int k) {
  if (k > 1023) {
    y *= 0x1p1023;
    k -= 1023;
    if (k > 1023)
      k = 1023;
  } else if (k < -1022) {
    y *= 0x1p-1000;
    k += 1000;
    if (k < -1022)
      k = -1022;
  }
  return y * lm_d((uint64_t)(k + 1023) << 52);
}

/* ln 2: a 32-bit head (so k * head is exact for |k| < 2^21) and its tail;
 * and the double-double value. */
static const double kLn2Hi32 = 0x1.62e42fee00000p-1;
static const double kLn2Lo32 = 0x1.a39ef35793c76p-33;
static const double kLn2Hi = 0x1.62e42fefa39efp-1;
static const double kLn2Lo = 0x1.abc9e3b39803fp-56;
static const double kInvLn2 = 0x1.71547652b82fep+0;

/* ---- exp, expm1 -------------------------------------------------------- */

/* e^r - 1 for |r| <= 0.35, Taylor to degree 14 (next term below
 * 0.35^15 / 15! < 2^-70 relative). */
static double lm_expm1_small(double r) {
  double p = 1.0 / 87178291200.0;
  p = 1.0 / 6227020800.0 + r * p;
  p = 1.0 / 479001600.0 + r * p;
  p = 1.0 / 39916800.0 + r * p;
  p = 1.0 / 3628800.0 + r * p;
  p = 1.0 / 362880.0 + r * p;
  p = 1.0 / 40320.0 + r * p;
  p = 1.0 / 5040.0 + r * p;
  p = 1.0 / 720.0 + r * p;
  p = 1.0 / 120.0 + r * p;
  p = 1.0 / 24.0 + r * p;
  p = 1.0 / 6.0 + r * p;
  p = 0.5 + r * p;
  return r + r * r * p;
}

/* x = k ln2 + r + rlo with |r| <= ln2 / 2 (+ rounding); rlo is the
 * rounding error of r plus the caller's low part xlo. */
static int lm_exp_reduce(double x, double xlo, double *r, double *rlo) {
  double kd = lm_rint_small(x * kInvLn2);
  double hi = x - kd * kLn2Hi32; /* exact */
  lm_dd s = lm_two_sum(hi, -(kd * kLn2Lo32));
  *r = s.hi;
  *rlo = s.lo + xlo;
  return (int)kd;
}

/* e^(h + l) for a double-double argument (|l| <= ulp(h)). */
static double lm_exp_dd(double h, double l) {
  if (h > 709.8)
    return lm_d(LM_INF);
  if (h < -745.2)
    return 0.0;
  double r, rlo;
  int k = lm_exp_reduce(h, l, &r, &rlo);
  double p = lm_expm1_small(r);
  /* e^(r + rlo) = (1 + p)(1 + rlo) to first order in rlo */
  return lm_scale(1.0 + (p + rlo * (1.0 + p)), k);
}

double exp(double x) {
  if (x != x)
    return x + x;
  if (x > -0x1p-54 && x < 0x1p-54)
    return 1.0 + x;
  return lm_exp_dd(x, 0.0);
}

double expm1(double x) {
  if (x != x)
    return x + x;
  if (x > 709.8)
    return lm_d(LM_INF);
  if (x < -38.0) /* e^-38 is below half an ulp of 1 */
    return -1.0;
  double ax = x < 0 ? -x : x;
  if (ax < 0x1p-54)
    return x;
  if (ax <= 0.34657359027997264) /* ln2 / 2 */
    return lm_expm1_small(x);
  double r, rlo;
  int k = lm_exp_reduce(x, 0.0, &r, &rlo);
  double p = lm_expm1_small(r);
  p = p + rlo * (1.0 + p);
  /* e^x - 1 = 2^k (1 + p) - 1 */
  if (k > 56)
    return lm_scale(1.0 + p, k);
  if (k < -1)
    return lm_scale(1.0 + p, k) - 1.0;
  return lm_scale(p + (1.0 - lm_d((uint64_t)(1023 - k) << 52)), k);
}

float expf(float x) { return (float)exp((double)x); }
float expm1f(float x) { return (float)expm1((double)x); }

/* ---- log, log1p -------------------------------------------------------- */

/* log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]: with s = f / (2 + f),
 * log(1 + f) = 2 atanh(s) = 2s + s R(s^2), R = sum 2 s^2n / (2n + 1); and
 * 2s = f - s f gives log(1 + f) = f - (f^2/2 - s (f^2/2 + R)), where f is
 * exact and s only enters a correction (so s may be 1 ulp off). Terms to
 * n = 10: s^2 <= 0.0295 makes the next below 2^-60 relative. */
static double lm_log1p_core(double f) {
  double s = f * lm_recip(2.0 + f);
  double z = s * s;
  double R = 2.0 / 21;
  R = 2.0 / 19 + z * R;
  R = 2.0 / 17 + z * R;
  R = 2.0 / 15 + z * R;
  R = 2.0 / 13 + z * R;
  R = 2.0 / 11 + z * R;
  R = 2.0 / 9 + z * R;
  R = 2.0 / 7 + z * R;
  R = 2.0 / 5 + z * R;
  R = 2.0 / 3 + z * R;
  R *= z;
  double hfsq = 0.5 * f * f;
  return f - (hfsq - s * (hfsq + R));
}

/* |x| = 2^e (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)), for finite x > 0. */
static double lm_log_split(double x, int *e) {
  uint64_t u = lm_u(x);
  int adj = 0;
  if ((u >> 52) == 0) { /* subnormal */
    u = lm_u(x * 0x1p54);
    adj = -54;
  }
  int k = (int)(u >> 52) - 1023;
  u = (u & LM_MANT) | 0x3ff0000000000000ull; /* [1, 2) */
  if (u > 0x3ff6a09e667f3bcdull) { /* > sqrt(2) */
    u -= 1ull << 52;
    ++k;
  }
  *e = k + adj;
  return lm_d(u) - 1.0; /* exact */
}

double log(double x) {
  uint64_t u = lm_u(x);
  if ((u & ~LM_SIGN) == 0)
    return -lm_d(LM_INF);
  if ((u & ~LM_SIGN) > LM_INF)
    return x + x;
  if (u & LM_SIGN)
    return lm_nan();
  if (u == LM_INF)
    return x;
  int e;
  double f = lm_log_split(x, &e);
  return e * kLn2Hi32 + (lm_log1p_core(f) + e * kLn2Lo32);
}

double log1p(double x) {
  if (x != x)
    return x + x;
  if (x == -1.0)
    return -lm_d(LM_INF);
  if (x < -1.0)
    return lm_nan();
  if (lm_u(x) == LM_INF)
    return x;
  if (x > -0x1p-54 && x < 0x1p-54)
    return x;
  if (x > -0.29289321881345248 && x < 0.41421356237309503)
    return lm_log1p_core(x);
  /* log(u) for u = 1 + x rounded, plus (1 + x - u) / u */
  double u = 1.0 + x, c = 0.0;
  if (u < 0x1p53)
    c = (x - (u - 1.0)) * lm_recip(u);
  int e;
  double f = lm_log_split(u, &e);
  return e * kLn2Hi32 + (lm_log1p_core(f) + (e * kLn2Lo32 + c));
}

float logf(float x) { return (float)log((double)x); }
float log1pf(float x) { return (float)log1p((double)x); }

/* ---- pow --------------------------------------------------------------- */

/* log x in double-double (relative error about 2^-66) for finite x > 0:
 * the series of lm_log1p_core with s = f / (2 + f) itself in double-double
 * and the leading terms in double-double, terms to n = 12 (the next is
 * below 2^-70 relative). */
static lm_dd lm_log_dd(double x) {
  int e;
  double f = lm_log_split(x, &e);
  lm_dd t = lm_two_sum(2.0, f);
  double rt = lm_recip(t.hi);
  double sh = f * rt;
  lm_dd p = lm_two_prod(sh, t.hi);
  double res = ((f - p.hi) - p.lo) - sh * t.lo;
  lm_dd s = lm_fast_two_sum(sh, res * rt);
  lm_dd z = lm_dd_mul(s, s);
  double zh = z.hi;
  double tail = 2.0 / 25;
  tail = 2.0 / 23 + zh * tail;
  tail = 2.0 / 21 + zh * tail;
  tail = 2.0 / 19 + zh * tail;
  tail = 2.0 / 17 + zh * tail;
  tail = 2.0 / 15 + zh * tail;
  tail = 2.0 / 13 + zh * tail;
  tail = 2.0 / 11 + zh * tail;
  tail = 2.0 / 9 + zh * tail;
  tail = 2.0 / 7 + zh * tail;
  tail = 2.0 / 5 + zh * tail;
  tail *= zh;
  const lm_dd two_thirds = {0x1.5555555555555p-1, 0x1.5555555555555p-55};
  lm_dd c = lm_dd_add(two_thirds, (lm_dd){tail, 0.0});
  lm_dd corr = lm_dd_mul(lm_dd_mul(s, z), c);
  lm_dd L = lm_dd_add((lm_dd){2.0 * s.hi, 2.0 * s.lo}, corr);
  lm_dd E = lm_two_prod((double)e, kLn2Hi);
  E.lo += e * kLn2Lo;
  return lm_dd_add(E, L);
}

/* 0: y is not an integer, 1: odd integer, 2: even integer. */
static int lm_int_kind(double y) {
  uint64_t a = lm_u(y) & ~LM_SIGN;
  if (a >= 0x4340000000000000ull) /* |y| >= 2^53 (or inf) */
    return 2;
  if (a < 0x3ff0000000000000ull) /* |y| < 1 */
    return 0;
  int64_t i = (int64_t)y;
  if ((double)i != y)
    return 0;
  return (i & 1) ? 1 : 2;
}

double pow(double x, double y) {
  uint64_t ux = lm_u(x), uy = lm_u(y);
  uint64_t ax = ux & ~LM_SIGN, ay = uy & ~LM_SIGN;
  if (ay == 0 || ux == 0x3ff0000000000000ull)
    return 1.0; /* x^0 and 1^y, even for NaN */
  if (ax > LM_INF || ay > LM_INF)
    return x + y;
  const int yneg = (uy >> 63) != 0, xneg = (ux >> 63) != 0;
  if (ay == LM_INF) {
    if (ax == 0x3ff0000000000000ull)
      return 1.0; /* (-1)^+-inf */
    return (ax < 0x3ff0000000000000ull) != yneg ? 0.0 : lm_d(LM_INF);
  }
  const int kind = lm_int_kind(y);
  const uint64_t rsign = (xneg && kind == 1) ? LM_SIGN : 0;
  if (ax == 0) /* +-0: inf for y < 0, 0 for y > 0, signed for odd y */
    return lm_d(rsign | (yneg ? LM_INF : 0));
  if (ax == LM_INF)
    return lm_d(rsign | (yneg ? 0 : LM_INF));
  if (xneg && kind == 0)
    return lm_nan();
  const double ab = lm_d(ax);
  if (ax == 0x3ff0000000000000ull) /* (-1)^integer */
    return lm_d(rsign | 0x3ff0000000000000ull);
  /* |y| > 2^70 with |x| != 1: |y log|x|| > 2^16, far past both limits. */
  if (ay > 0x4450000000000000ull)
    return lm_d(rsign | ((ab > 1.0) != yneg ? LM_INF : 0));
  lm_dd L = lm_log_dd(ab);
  lm_dd P = lm_two_prod(y, L.hi);
  P = lm_fast_two_sum(P.hi, P.lo + y * L.lo);
  double r = lm_exp_dd(P.hi, P.lo);
  return rsign ? -r : r;
}

/* float x^y via the double one: its error (a few 2^-53) vanishes in the
 * rounding to float; the special cases carry over since every float is a
 * double. */
float powf(float x, float y) { return (float)pow((double)x, (double)y); }

/* ---- tanh, erf --------------------------------------------------------- */

double tanh(double x) {
  if (x != x)
    return x + x;
  double ax = x < 0 ? -x : x;
  if (ax > 22.0) /* 1 - tanh(22) < 2^-63 */
    return x < 0 ? -1.0 : 1.0;
  if (ax < 0x1p-28) /* tanh x = x - x^3/3: the cube is below half an ulp */
    return x;
  double t = expm1(2.0 * ax); /* tanh |x| = t / (t + 2) */
  double r = t / (t + 2.0);
  return x < 0 ? -r : r;
}

float tanhf(float x) {
  if (x != x)
    return x + x;
  double ax = x < 0 ? -(double)x : (double)x;
  if (ax > 10.0) /* 1 - tanh(10) < 2^-27 */
    return x < 0 ? -1.0f : 1.0f;
  if (ax < 0x1p-14)
    return x;
  double t = expm1(2.0 * ax);
  float r = (float)(t * lm_recip(t + 2.0));
  return x < 0 ? -r : r;
}

static const double kTwoOverSqrtPi = 0x1.20dd750429b6dp+0;

/* erf(k/8) as double-double and 2/sqrt(pi) exp(-(k/8)^2), k = 0..48. */
static const double kErfCentre[49][3] = {
    {0x0.0p+0, 0x0.0p+0, 0x1.20dd750429b6dp+0},
    {0x1.1f5e1a35c3b89p-3, 0x1.d0b6d6493e0f4p-57, 0x1.1c62fa1e869b6p+0},
    {0x1.1af54e232d609p-2, -0x1.bee921fa4172bp-56, 0x1.0f5d1602f7e41p+0},
    {0x1.9dd0d2b721f39p-2, -0x1.1671c021d14c4p-56, 0x1.f5f0cdaf15313p-1},
    {0x1.0a7ef5c18edd2p-1, 0x1.5e809f1a31a28p-56, 0x1.c1efca49a5011p-1},
    {0x1.3f196dcd0f135p-1, -0x1.f25f4f6fdf70bp-56, 0x1.86e9694134b9ep-1},
    {0x1.6c1c9759d0e5fp-1, 0x1.b1432f2cbc455p-55, 0x1.492e42d78d2c5p-1},
    {0x1.91724951b8fc6p-1, -0x1.27912dd352f8bp-55, 0x1.0cab61f084b93p-1},
    {0x1.af767a741088bp-1, -0x1.c97f778122797p-56, 0x1.a911f096fbc26p-2},
    {0x1.c6dad2829ec62p-1, -0x1.ab76d4cba3d05p-57, 0x1.45e99bcbb7915p-2},
    {0x1.d8865d98abe01p-1, -0x1.fcec4afb974d9p-55, 0x1.e4652fadcb6b2p-3},
    {0x1.e5768c3b4a3fcp-1, 0x1.8b62674f89890p-57, 0x1.5ce595c455b0ap-3},
    {0x1.eea5557137ae0p-1, -0x1.385e445f2c96dp-55, 0x1.e723726b824a9p-4},
    {0x1.f4f693b67bd77p-1, -0x1.3a1ee1406c356p-56, 0x1.499d478bca735p-4},
    {0x1.f92d077f8d56dp-1, 0x1.8b55ef493fce7p-56, 0x1.b055303221015p-5},
    {0x1.fbe61eef4cf6ap-1, 0x1.15ded88667618p-55, 0x1.12ceb37ff9bc3p-5},
    {0x1.fd9ae142795e3p-1, 0x1.972801904b9a3p-56, 0x1.529b9e8cf9a1ep-6},
    {0x1.fea4218d6594ap-1, -0x1.e3333d8f7d98cp-58, 0x1.94624e78e0fafp-7},
    {0x1.ff404760319b4p-1, 0x1.f142071432025p-56, 0x1.d4143a9dfe965p-8},
    {0x1.ff9960f3eb327p-1, -0x1.08b1ca6e97f80p-56, 0x1.06918b6355624p-8},
    {0x1.ffcaa8f4c9beap-1, 0x1.b0cee160116f9p-55, 0x1.1d83170fbf6fbp-9},
    {0x1.ffe514bbdc197p-1, -0x1.cd963345b5c6dp-58, 0x1.2ce898809244ep-10},
    {0x1.fff2cfb0453d9p-1, 0x1.9a913686042a3p-55, 0x1.3360ccd23db3ap-11},
    {0x1.fff9ba420e834p-1, 0x1.1379ec5aa630ep-56, 0x1.30538fbb77ecdp-12},
    {0x1.fffd1ac4135f9p-1, 0x1.eeafa1ecd6cefp-55, 0x1.2408e9ba3327fp-13},
    {0x1.fffeb3ebb267bp-1, 0x1.e47f697047cbap-57, 0x1.0f9e1b4dd36dfp-14},
    {0x1.ffff6f9f67e55p-1, 0x1.e1e4483ba034bp-55, 0x1.e9b5e8d00ce77p-16},
    {0x1.ffffc316d9ed0p-1, -0x1.8b32f44f46b3bp-55, 0x1.abe09e9144b5ep-17},
    {0x1.ffffe710d565ep-1, 0x1.c9ea52d76dc04p-55, 0x1.6a597219a93dap-18},
    {0x1.fffff618c3da6p-1, -0x1.19309ce23aa3ep-58, 0x1.296a70f414053p-19},
    {0x1.fffffc2f171e3p-1, 0x1.85edd0395f475p-55, 0x1.d9371e2ff7c35p-21},
    {0x1.fffffe92ced93p-1, -0x1.d2db2ecfe14aep-55, 0x1.6ce1aa3fd7bddp-22},
    {0x1.ffffff7b91176p-1, 0x1.0b2865615db40p-56, 0x1.10b1488aeb235p-23},
    {0x1.ffffffd169d0cp-1, 0x1.70a2bfb068e6fp-55, 0x1.8b0cfce0579e0p-25},
    {0x1.fffffff01a8b6p-1, 0x1.23370eca5ca6ap-60, 0x1.155a09065d4f7p-26},
    {0x1.fffffffabd229p-1, -0x1.4dbe49bec3ef2p-57, 0x1.7974e743dea3dp-28},
    {0x1.fffffffe4fa30p-1, 0x1.d166bcb681c7bp-57, 0x1.f1e3523b41d7dp-30},
    {0x1.ffffffff79626p-1, 0x1.5fbc52d650a89p-55, 0x1.3e44e45301b92p-31},
    {0x1.ffffffffd759dp-1, 0x1.f7bee7eb23420p-55, 0x1.8a61745ec7d1dp-33},
    {0x1.fffffffff4188p-1, 0x1.7a2cb3d056eacp-55, 0x1.d9a880f306bd8p-35},
    {0x1.fffffffffc9e8p-1, -0x1.a759f7738935fp-56, 0x1.13af4f04f9998p-36},
    {0x1.ffffffffff11ap-1, -0x1.3eafccbc6e8b7p-56, 0x1.370ab8327af5ep-38},
    {0x1.ffffffffffc05p-1, 0x1.07ba96a6b2e1ap-55, 0x1.5422ef5d8949dp-40},
    {0x1.ffffffffffef8p-1, 0x1.14be6226402c7p-56, 0x1.68823e52970bep-42},
    {0x1.fffffffffffbep-1, -0x1.182b326b228dcp-55, 0x1.7258610b3b233p-44},
    {0x1.ffffffffffff0p-1, -0x1.20ef3618f2d54p-56, 0x1.70beaf9c7ffb6p-46},
    {0x1.ffffffffffffcp-1, 0x1.8115fd1b12786p-56, 0x1.63daf8b4b1e0cp-48},
    {0x1.fffffffffffffp-1, 0x1.0439397b5f70ap-56, 0x1.4cd9c04158cd7p-50},
    {0x1.0000000000000p+0, -0x1.8cf81557d20b6p-56, 0x1.2dc119095729fp-52},
};

double erf(double x) {
  if (x != x)
    return x + x;
  double ax = x < 0 ? -x : x;
  if (ax >= 6.0) /* 1 - erf(6) < 2^-55 */
    return x < 0 ? -1.0 : 1.0;
  double r;
  if (ax < 0.5) {
    if (ax < 0x1p-28) /* erf x = 2x/sqrt(pi) (1 - x^2/3): one rounding */
      return x * kTwoOverSqrtPi;
    /* erf x = 2/sqrt(pi) sum (-1)^n x^(2n+1) / (n! (2n+1)), n to 12: the
     * next term is below 2^-66 relative for |x| < 1/2. Written as
     * x + x (2/sqrt(pi) - 1 + ...) so the leading term is exact. */
    double z = x * x;
    double q = -kTwoOverSqrtPi / (479001600.0 * 25);
    q = kTwoOverSqrtPi / (39916800.0 * 23) + z * q;
    q = -kTwoOverSqrtPi / (3628800.0 * 21) + z * q;
    q = kTwoOverSqrtPi / (362880.0 * 19) + z * q;
    q = -kTwoOverSqrtPi / (40320.0 * 17) + z * q;
    q = kTwoOverSqrtPi / (5040.0 * 15) + z * q;
    q = -kTwoOverSqrtPi / (720.0 * 13) + z * q;
    q = kTwoOverSqrtPi / (120.0 * 11) + z * q;
    q = -kTwoOverSqrtPi / (24.0 * 9) + z * q;
    q = kTwoOverSqrtPi / (6.0 * 7) + z * q;
    q = -kTwoOverSqrtPi / (2.0 * 5) + z * q;
    q = kTwoOverSqrtPi / 3.0 + z * q;
    return x + x * (0x1.06eba8214db69p-3 /* 2/sqrt(pi) - 1 */ - z * q);
  }
  /* Taylor step from the nearest centre c = k/8 (|h| <= 1/16): with
   * g = erf' = 2/sqrt(pi) e^(-t^2), g' = -2t g gives the coefficients of
   * g(c + h) = sum g_n h^n by (n+1) g_{n+1} = -2 (c g_n + g_{n-1}), and
   * erf(c + h) = erf(c) + sum g_n h^(n+1) / (n+1). Terms to n = 12: the
   * rest is below 2^-70 for every centre. */
  int k = (int)(ax * 8.0 + 0.5);
  double c = k * 0.125, h = ax - c; /* exact */
  static const double inv[14] = {0,           1.0,        1.0 / 2,
                                 1.0 / 3,     1.0 / 4,    1.0 / 5,
                                 1.0 / 6,     1.0 / 7,    1.0 / 8,
                                 1.0 / 9,     1.0 / 10,   1.0 / 11,
                                 1.0 / 12,    1.0 / 13};
  double gprev = 0.0, g = kErfCentre[k][2], hp = h, sum = g * h;
  for (int n = 0; n < 12; ++n) {
    double gnext = -2.0 * (c * g + gprev) * inv[n + 1];
    gprev = g;
    g = gnext;
    hp *= h;
    sum += g * hp * inv[n + 2];
  }
  r = kErfCentre[k][0] + (kErfCentre[k][1] + sum);
  return x < 0 ? -r : r;
}

float erff(float x) { return (float)erf((double)x); }

/* ---- sin, cos ---------------------------------------------------------- */

/* 2/pi, bit 1 (value 1/2) first, 1280 bits: enough for any double. */
static const uint32_t kTwoOverPi[40] = {
    0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u,
    0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u,
    0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u,
    0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u,
    0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu, 0xef2f118bu,
    0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du,
    0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u,
    0x1f8d5d08u, 0x56033046u, 0xfc7b6babu, 0xf0cfbc20u, 0x9af4361du};

/* pi/2 in three parts of 33, 33 and 53 bits; and as a double-double. */
static const double kPio2_1 = 0x1.921fb54400000p+0;
static const double kPio2_2 = 0x1.0b4611a600000p-34;
static const double kPio2_3 = 0x1.3198a2e037073p-69;
static const double kPio2Hi = 0x1.921fb54442d18p+0;
static const double kPio2Lo = 0x1.1a62633145c07p-54;
static const double kTwoOverPiD = 0x1.45f306dc9c883p-1;

/* 32 bits of 2/pi starting at bit i (bits before bit 1 are 0). */
static uint32_t lm_two_over_pi_bits(int i) {
  int j = i - 1;
  if (j <= -32)
    return 0;
  if (j < 0)
    return kTwoOverPi[0] >> -j;
  int w = j >> 5, s = j & 31;
  uint64_t pair = ((uint64_t)kTwoOverPi[w] << 32) | kTwoOverPi[w + 1];
  return (uint32_t)(pair >> (32 - s));
}

/* x = n pi/2 + (hi + lo) with |hi| <= pi/4 (about), x finite; returns n
 * (only n mod 4 matters). Small |x|: Cody and Waite's subtraction of the
 * three-part pi/2 (k * part exact for k < 2^20). Large |x| = m 2^E (Payne
 * and Hanek): only the bits of 2/pi from 2^-(E-1) on matter mod 4, 192 of
 * them times m give x 2/pi mod 4 with 128 fraction bits, which leaves 60+
 * significant bits even for the doubles closest to a multiple of pi/2. */
static int lm_rem_pio2(double x, double *hi, double *lo) {
  uint64_t ax = lm_u(x) & ~LM_SIGN;
  if (ax <= 0x3fe921fb54442d18ull) { /* pi/4 */
    *hi = x;
    *lo = 0.0;
    return 0;
  }
  if (ax < 0x4120000000000000ull) { /* 2^19 */
    double kd = lm_rint_small(x * kTwoOverPiD);
    double r1 = x - kd * kPio2_1; /* exact */
    lm_dd r2 = lm_two_sum(r1, -(kd * kPio2_2));
    lm_dd r3 = lm_two_sum(r2.hi, -(kd * kPio2_3));
    *hi = r3.hi;
    *lo = r3.lo + r2.lo;
    lm_dd n = lm_fast_two_sum(*hi, *lo);
    *hi = n.hi;
    *lo = n.lo;
    return (int)kd;
  }
  int E = (int)(ax >> 52) - 1075;
  uint64_t m = (ax & LM_MANT) | (1ull << 52);
  uint32_t W[6]; /* little-endian limbs of the 192-bit window */
  for (int i = 0; i < 6; ++i)
    W[i] = lm_two_over_pi_bits(E - 1 + 32 * (5 - i));
  /* P = m * W mod 2^192; x 2/pi = P 2^-190 mod 4 */
  uint32_t ml = (uint32_t)m, mh = (uint32_t)(m >> 32), P[6];
  uint64_t carry = 0;
  for (int i = 0; i < 6; ++i) {
    uint64_t t = (uint64_t)ml * W[i] + carry;
    P[i] = (uint32_t)t;
    carry = t >> 32;
  }
  carry = 0;
  for (int i = 0; i + 1 < 6; ++i) {
    uint64_t t = (uint64_t)mh * W[i] + P[i + 1] + carry;
    P[i + 1] = (uint32_t)t;
    carry = t >> 32;
  }
  int n = (int)(P[5] >> 30);
  uint64_t A = ((uint64_t)P[5] << 32) | P[4], B = ((uint64_t)P[3] << 32) | P[2],
           C = ((uint64_t)P[1] << 32) | P[0];
  uint64_t fh = (A << 2) | (B >> 62), fl = (B << 2) | (C >> 62);
  int neg = 0;
  if (fh >> 63) { /* fraction >= 1/2: take the next quadrant, negative r */
    ++n;
    neg = 1;
    fl = ~fl + 1;
    fh = ~fh + (fl == 0);
  }
  if (fh == 0 && fl == 0) {
    *hi = *lo = 0.0;
  } else {
    int z = fh ? __builtin_clzll(fh) : 64 + __builtin_clzll(fl);
    if (z >= 64) {
      fh = fl << (z - 64);
      fl = 0;
    } else if (z > 0) {
      fh = (fh << z) | (fl >> (64 - z));
      fl <<= z;
    }
    double scale = lm_d((uint64_t)(1023 - 64 - z) << 52);
    double a = (double)(fh & ~0x7ffull) * scale;
    double b = ((double)(fh & 0x7ff) + (double)fl * 0x1p-64) * scale;
    lm_dd f = lm_fast_two_sum(a, b);
    lm_dd p = lm_two_prod(f.hi, kPio2Hi);
    p = lm_fast_two_sum(p.hi, p.lo + (f.hi * kPio2Lo + f.lo * kPio2Hi));
    *hi = neg ? -p.hi : p.hi;
    *lo = neg ? -p.lo : p.lo;
  }
  if (lm_u(x) >> 63) {
    *hi = -*hi;
    *lo = -*lo;
    n = -n;
  }
  return n;
}

/* sin(x + lo) for |x| <= pi/4: Taylor to x^19 (next term below 2^-70
 * relative), plus lo cos x ~ lo. */
static double lm_sin_k(double x, double lo) {
  double z = x * x;
  double p = -1.0 / 121645100408832000.0;
  p = 1.0 / 355687428096000.0 + z * p;
  p = -1.0 / 1307674368000.0 + z * p;
  p = 1.0 / 6227020800.0 + z * p;
  p = -1.0 / 39916800.0 + z * p;
  p = 1.0 / 362880.0 + z * p;
  p = -1.0 / 5040.0 + z * p;
  p = 1.0 / 120.0 + z * p;
  p = -1.0 / 6.0 + z * p;
  return x + (x * (z * p) + lo);
}

/* cos(x + lo) for |x| <= pi/4: 1 - x^2/2 split so its rounding error is
 * recovered, Taylor to x^20, minus lo sin x ~ lo x. */
static double lm_cos_k(double x, double lo) {
  double z = x * x;
  double q = 1.0 / 2432902008176640000.0;
  q = -1.0 / 6402373705728000.0 + z * q;
  q = 1.0 / 20922789888000.0 + z * q;
  q = -1.0 / 87178291200.0 + z * q;
  q = 1.0 / 479001600.0 + z * q;
  q = -1.0 / 3628800.0 + z * q;
  q = 1.0 / 40320.0 + z * q;
  q = -1.0 / 720.0 + z * q;
  q = 1.0 / 24.0 + z * q;
  double hz = 0.5 * z, w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + (z * z * q - x * lo));
}

double sin(double x) {
  uint64_t ax = lm_u(x) & ~LM_SIGN;
  if (ax >= LM_INF)
    return x - x; /* NaN for inf and NaN */
  if (ax < 0x3e50000000000000ull) /* 2^-26: x^3/6 below half an ulp */
    return x;
  double hi, lo;
  int n = lm_rem_pio2(x, &hi, &lo);
  switch (n & 3) {
  case 0: return lm_sin_k(hi, lo);
  case 1: return lm_cos_k(hi, lo);
  case 2: return -lm_sin_k(hi, lo);
  default: return -lm_cos_k(hi, lo);
  }
}

double cos(double x) {
  uint64_t ax = lm_u(x) & ~LM_SIGN;
  if (ax >= LM_INF)
    return x - x;
  if (ax < 0x3e40000000000000ull) /* 2^-27: x^2/2 below half an ulp */
    return 1.0;
  double hi, lo;
  int n = lm_rem_pio2(x, &hi, &lo);
  switch (n & 3) {
  case 0: return lm_cos_k(hi, lo);
  case 1: return -lm_sin_k(hi, lo);
  case 2: return -lm_cos_k(hi, lo);
  default: return lm_sin_k(hi, lo);
  }
}

float sinf(float x) { return (float)sin((double)x); }
float cosf(float x) { return (float)cos((double)x); }

/* ---- Exact functions --------------------------------------------------- */

double fabs(double x) { return lm_d(lm_u(x) & ~LM_SIGN); }
float fabsf(float x) {
  union { float f; uint32_t u; } v = {x};
  v.u &= 0x7fffffffu;
  return v.f;
}

double trunc(double x) {
  uint64_t u = lm_u(x);
  int e = (int)((u >> 52) & 0x7ff) - 1023;
  if (e >= 52)
    return x + 0.0 == x ? x : x + x; /* integral, inf, or NaN (quieted) */
  if (e < 0)
    return lm_d(u & LM_SIGN);
  return lm_d(u & ~(LM_MANT >> e));
}

double floor(double x) {
  double t = trunc(x);
  return t > x ? t - 1.0 : t;
}

double ceil(double x) {
  double t = trunc(x);
  return t < x ? t + 1.0 : t;
}

/* Halves away from zero. x - trunc(x) is exact. */
double round(double x) {
  double t = trunc(x), d = x - t;
  if (d >= 0.5)
    return t + 1.0;
  if (d <= -0.5)
    return t - 1.0;
  return t;
}

/* Halves to even, as the default rounding mode does; keeps the sign of
 * zero. */
double nearbyint(double x) {
  uint64_t u = lm_u(x);
  if ((u & ~LM_SIGN) >= 0x4330000000000000ull) /* |x| >= 2^52, inf, NaN */
    return x + 0.0 == x ? x : x + x;
  double r = lm_rint_small(lm_d(u & ~LM_SIGN));
  return lm_d(lm_u(r) | (u & LM_SIGN));
}

/* Every float is a double and these results are floats: exact. */
float truncf(float x) { return (float)trunc((double)x); }
float floorf(float x) { return (float)floor((double)x); }
float ceilf(float x) { return (float)ceil((double)x); }
float roundf(float x) { return (float)round((double)x); }
float nearbyintf(float x) { return (float)nearbyint((double)x); }

/* x - n y with n = trunc(x / y), exact: long division of the mantissas,
 * one quotient bit per step. */
double fmod(double x, double y) {
  uint64_t ux = lm_u(x), uy = lm_u(y), sign = ux & LM_SIGN;
  uint64_t ax = ux & ~LM_SIGN, ay = uy & ~LM_SIGN;
  if (ax > LM_INF || ay > LM_INF)
    return x + y;
  if (ax == LM_INF || ay == 0)
    return lm_nan();
  if (ax < ay)
    return x;
  if (ax == ay)
    return lm_d(sign);
  int ex, ey;
  uint64_t r = lm_unpack(ax, &ex), my = lm_unpack(ay, &ey);
  for (int e = ex - ey; e > 0; --e) {
    if (r >= my)
      r -= my;
    r <<= 1;
  }
  if (r >= my)
    r -= my;
  return lm_pack(sign, ey, r); /* exact: the result is representable */
}

float fmodf(float x, float y) { return (float)fmod((double)x, (double)y); }
