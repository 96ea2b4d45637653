/* math.h - <math.h> for freestanding targets (Hexagon), which have no C
 * library. Generated libraries for those targets get this file beside their
 * sources (found through -I.) and kiln_libm.c, which implements what it
 * declares; hosted targets use the system's <math.h> and libm. */
#ifndef KILN_FREESTANDING_MATH_H
#define KILN_FREESTANDING_MATH_H

#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define HUGE_VAL (__builtin_huge_val())
#define HUGE_VALF (__builtin_huge_valf())

/* Classification compiles to bit tests: no library calls. */
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#define signbit(x) __builtin_signbit(x)

double exp(double), expm1(double), log(double), log1p(double);
double pow(double, double), sqrt(double), tanh(double), erf(double);
double sin(double), cos(double), fabs(double), floor(double), ceil(double);
double fmod(double, double), nearbyint(double), round(double), trunc(double);

float expf(float), expm1f(float), logf(float), log1pf(float);
float powf(float, float), sqrtf(float), tanhf(float), erff(float);
float sinf(float), cosf(float), fabsf(float), floorf(float), ceilf(float);
float fmodf(float, float), nearbyintf(float), roundf(float), truncf(float);

#endif
