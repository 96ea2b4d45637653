/* kiln_math.h - <math.h> for the tensor kernels, hosted or not.
 *
 * Hosted targets use the C library's <math.h>. Freestanding ones (Hexagon)
 * have no C library: the functions come from the runtime's kiln_libm.c,
 * declared here with their standard names, and the classification macros
 * map to compiler builtins. Kernels include this, never <math.h>. */
#ifndef KILN_MATH_H
#define KILN_MATH_H

#if __STDC_HOSTED__
#include <math.h>
#else
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define HUGE_VAL (__builtin_huge_val())
#define HUGE_VALF (__builtin_huge_valf())
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#define signbit(x) __builtin_signbit(x)
#define KILN_MATH_1(name) double name(double); float name##f(float);
#define KILN_MATH_2(name) double name(double, double); float name##f(float, float);
KILN_MATH_1(exp) KILN_MATH_1(log) KILN_MATH_1(sqrt) KILN_MATH_1(tanh)
KILN_MATH_1(erf) KILN_MATH_1(sin) KILN_MATH_1(cos) KILN_MATH_1(fabs)
KILN_MATH_1(floor) KILN_MATH_1(ceil) KILN_MATH_1(nearbyint) KILN_MATH_1(round)
KILN_MATH_1(trunc) KILN_MATH_1(log1p) KILN_MATH_1(expm1)
KILN_MATH_2(pow) KILN_MATH_2(fmod)
#undef KILN_MATH_1
#undef KILN_MATH_2
#endif

#endif
