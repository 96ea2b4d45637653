/* libm_ref.c - checks libm_check's output (stdin) against glibc on the host.
 *
 * For each line NAME X [Y] RESULT it computes glibc's function on the same
 * input bits one precision up - long double for the double functions
 * (x87 extended, 64-bit mantissa), double for the float ones - rounds that
 * to the result's type and measures the distance in ulps (units in the last
 * place of the result's type, counted across the ordered encodings, so
 * subnormals and the step to zero count like any other). The higher
 * precision makes the reference itself good to about half an ulp; glibc's
 * same-precision results are not always (its cos at the double closest to a
 * multiple of pi/2, 0x7506ac5b262ca1ff, is 8 ulp off). Tolerances:
 *   exact functions (fabs floor ceil trunc round nearbyint fmod sqrt, the
 *   double division, 64-bit integer division): identical bits;
 *   float functions: 1 ulp;  double functions: 2 ulp (the targets are 2 ulp
 *   and about 1e-15 relative; measured: 0 and 2).
 * NaN must meet NaN (any payload); infinities and zeros must match in sign.
 * Prints the worst case per function and exits 1 on any failure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { D1, F1, D2, F2, I2 };
struct fn {
  const char *name;
  enum kind kind;
  double (*d1)(double);
  float (*f1)(float);
  double (*d2)(double, double);
  float (*f2)(float, float);
  int tol;
  /* results */
  long count, fails;
  double worst;
  char worst_line[128];
};

static double div_d(double a, double b) { return a / b; }

/* One precision up, rounded once to the result's type. */
#define UP_D(f) static double up_##f(double x) { return (double)f##l(x); }
#define UP_F(f, name) static float name(float x) { return (float)f((double)x); }
#define UP(f) UP_D(f) UP_F(f, up_##f##_f)
UP(exp) UP(expm1) UP(log) UP(log1p) UP(tanh) UP(erf) UP(sin) UP(cos)
static double up_pow(double x, double y) { return (double)powl(x, y); }
static float up_powf(float x, float y) { return (float)pow(x, y); }

static struct fn fns[] = {
    {"exp", D1, up_exp, 0, 0, 0, 2, 0, 0, 0, ""},
    {"expf", F1, 0, up_exp_f, 0, 0, 1, 0, 0, 0, ""},
    {"expm1", D1, up_expm1, 0, 0, 0, 2, 0, 0, 0, ""},
    {"expm1f", F1, 0, up_expm1_f, 0, 0, 1, 0, 0, 0, ""},
    {"log", D1, up_log, 0, 0, 0, 2, 0, 0, 0, ""},
    {"logf", F1, 0, up_log_f, 0, 0, 1, 0, 0, 0, ""},
    {"log1p", D1, up_log1p, 0, 0, 0, 2, 0, 0, 0, ""},
    {"log1pf", F1, 0, up_log1p_f, 0, 0, 1, 0, 0, 0, ""},
    {"sqrt", D1, sqrt, 0, 0, 0, 0, 0, 0, 0, ""},
    {"sqrtf", F1, 0, sqrtf, 0, 0, 0, 0, 0, 0, ""},
    {"tanh", D1, up_tanh, 0, 0, 0, 2, 0, 0, 0, ""},
    {"tanhf", F1, 0, up_tanh_f, 0, 0, 1, 0, 0, 0, ""},
    {"erf", D1, up_erf, 0, 0, 0, 2, 0, 0, 0, ""},
    {"erff", F1, 0, up_erf_f, 0, 0, 1, 0, 0, 0, ""},
    {"sin", D1, up_sin, 0, 0, 0, 2, 0, 0, 0, ""},
    {"sinf", F1, 0, up_sin_f, 0, 0, 1, 0, 0, 0, ""},
    {"cos", D1, up_cos, 0, 0, 0, 2, 0, 0, 0, ""},
    {"cosf", F1, 0, up_cos_f, 0, 0, 1, 0, 0, 0, ""},
    {"fabs", D1, fabs, 0, 0, 0, 0, 0, 0, 0, ""},
    {"fabsf", F1, 0, fabsf, 0, 0, 0, 0, 0, 0, ""},
    {"floor", D1, floor, 0, 0, 0, 0, 0, 0, 0, ""},
    {"floorf", F1, 0, floorf, 0, 0, 0, 0, 0, 0, ""},
    {"ceil", D1, ceil, 0, 0, 0, 0, 0, 0, 0, ""},
    {"ceilf", F1, 0, ceilf, 0, 0, 0, 0, 0, 0, ""},
    {"trunc", D1, trunc, 0, 0, 0, 0, 0, 0, 0, ""},
    {"truncf", F1, 0, truncf, 0, 0, 0, 0, 0, 0, ""},
    {"round", D1, round, 0, 0, 0, 0, 0, 0, 0, ""},
    {"roundf", F1, 0, roundf, 0, 0, 0, 0, 0, 0, ""},
    {"nearbyint", D1, nearbyint, 0, 0, 0, 0, 0, 0, 0, ""},
    {"nearbyintf", F1, 0, nearbyintf, 0, 0, 0, 0, 0, 0, ""},
    {"pow", D2, 0, 0, up_pow, 0, 2, 0, 0, 0, ""},
    {"powf", F2, 0, 0, 0, up_powf, 1, 0, 0, 0, ""},
    {"fmod", D2, 0, 0, fmod, 0, 0, 0, 0, 0, ""},
    {"fmodf", F2, 0, 0, 0, fmodf, 0, 0, 0, 0, ""},
    {"div", D2, 0, 0, div_d, 0, 0, 0, 0, 0, ""},
    {"udiv", I2, 0, 0, 0, 0, 0, 0, 0, 0, ""},
    {"umod", I2, 0, 0, 0, 0, 0, 0, 0, 0, ""},
    {"sdiv", I2, 0, 0, 0, 0, 0, 0, 0, 0, ""},
    {"smod", I2, 0, 0, 0, 0, 0, 0, 0, 0, ""},
};
#define NFNS (sizeof fns / sizeof fns[0])

static int64_t ordered(uint64_t bits, int sign_bit) {
  uint64_t sign = 1ull << sign_bit;
  return (bits & sign) ? -(int64_t)(bits & ~sign) : (int64_t)bits;
}

/* Distance in ulps, or -1 when the special values disagree. */
static double distance(uint64_t got, uint64_t want, int is_float) {
  int sb = is_float ? 31 : 63;
  uint64_t inf = is_float ? 0x7f800000u : 0x7ff0000000000000ull;
  uint64_t mag_g = got & ~(1ull << sb), mag_w = want & ~(1ull << sb);
  int nan_g = mag_g > inf, nan_w = mag_w > inf;
  if (nan_g || nan_w)
    return nan_g == nan_w ? 0 : -1;
  if (mag_g == inf || mag_w == inf || mag_g == 0 || mag_w == 0) {
    if (got == want)
      return 0;
    if (mag_g == inf || mag_w == inf || (mag_g == 0 && mag_w == 0))
      return -1;
  }
  int64_t d = ordered(got, sb) - ordered(want, sb);
  return d < 0 ? -(double)d : (double)d;
}

static double dbits(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}
static float fbits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint64_t bitsd(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
static uint32_t bitsf(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

int main(void) {
  char line[256], name[32];
  long lines = 0;
  int ended = 0;
  while (fgets(line, sizeof line, stdin)) {
    if (!strcmp(line, "end\n")) {
      ended = 1;
      break;
    }
    unsigned long long a, b, c;
    int n = sscanf(line, "%31s %llx %llx %llx", name, &a, &b, &c);
    struct fn *f = 0;
    for (size_t i = 0; i < NFNS; ++i)
      if (!strcmp(fns[i].name, name))
        f = &fns[i];
    if (!f || n < 3) {
      fprintf(stderr, "libm_ref: cannot parse line %ld: %s", lines + 1, line);
      return 2;
    }
    ++lines;
    uint64_t got = n == 4 ? c : b, want = 0;
    int is_float = f->kind == F1 || f->kind == F2;
    switch (f->kind) {
    case D1: want = bitsd(f->d1(dbits(a))); break;
    case F1: want = bitsf(f->f1(fbits((uint32_t)a))); break;
    case D2: want = bitsd(f->d2(dbits(a), dbits(b))); break;
    case F2: want = bitsf(f->f2(fbits((uint32_t)a), fbits((uint32_t)b))); break;
    case I2:
      if (!strcmp(name, "udiv")) want = a / b;
      else if (!strcmp(name, "umod")) want = a % b;
      else if (!strcmp(name, "sdiv")) want = (uint64_t)((int64_t)a / (int64_t)b);
      else want = (uint64_t)((int64_t)a % (int64_t)b);
      break;
    }
    double d = f->kind == I2 ? (got == want ? 0 : -1) : distance(got, want, is_float);
    ++f->count;
    int bad = d < 0 || d > f->tol;
    if (bad && f->fails++ < 5)
      fprintf(stderr, "FAIL %s: got %llx, glibc %llx (%s ulp)\n  %s", name,
              (unsigned long long)got, (unsigned long long)want,
              d < 0 ? "special" : "many", line);
    if (d < 0 ? f->worst >= 0 : d > f->worst) {
      f->worst = d;
      snprintf(f->worst_line, sizeof f->worst_line, "%s", line);
      f->worst_line[strcspn(f->worst_line, "\n")] = 0;
    }
  }
  if (!ended) {
    fprintf(stderr, "libm_ref: output ends early after %ld lines\n", lines);
    return 2;
  }
  int failed = 0;
  printf("%-11s %7s %5s %9s  %s\n", "function", "inputs", "tol", "max ulp", "worst input");
  for (size_t i = 0; i < NFNS; ++i) {
    struct fn *f = &fns[i];
    if (!f->count) {
      fprintf(stderr, "libm_ref: no results for %s\n", f->name);
      failed = 1;
      continue;
    }
    printf("%-11s %7ld %5d %9g  %s\n", f->name, f->count, f->tol,
           f->worst, f->worst_line);
    if (f->fails) {
      fprintf(stderr, "libm_ref: %s: %ld of %ld inputs out of tolerance\n",
              f->name, f->fails, f->count);
      failed = 1;
    }
  }
  printf("%ld results, %s\n", lines, failed ? "FAILED" : "all within tolerance");
  return failed;
}
