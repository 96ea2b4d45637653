/* kiln_freestanding.c - the C library functions a compiler may call, for
 * targets without a C library (Hexagon). Only linked into their archives. */
#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  while (n--)
    *d++ = *s++;
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d < s) {
    while (n--)
      *d++ = *s++;
  } else {
    while (n--)
      d[n] = s[n];
  }
  return dst;
}

void *memset(void *dst, int c, size_t n) {
  unsigned char *d = dst;
  while (n--)
    *d++ = (unsigned char)c;
  return dst;
}

#if defined(__hexagon__)
/* Hexagon has no divide instructions; clang calls these compiler-rt helpers,
 * which no package provides for Hexagon here. The double division and
 * float square root helpers are in kiln_libm.c, with the math they share. */
#include <stdint.h>

static float kiln_fs_bits(uint32_t u) {
  union { uint32_t u; float f; } v = {u};
  return v.f;
}

/* a / b: Newton-Raphson reciprocal from a bit-level first guess, then one
 * residual correction of the quotient (within 1 ulp for normal operands). */
float __hexagon_divsf3(float a, float b) {
  union { float f; uint32_t u; } va = {a}, vb = {b};
  uint32_t mag = vb.u & 0x7fffffffu;
  if (mag == 0) /* x/0: inf with the sign of a*b; NaN for 0/0 and NaN/0 */
    return a != a || a == 0.0f
               ? kiln_fs_bits(0x7fc00000u)
               : kiln_fs_bits(((va.u ^ vb.u) & 0x80000000u) | 0x7f800000u);
  if (mag > 0x7f800000u) /* NaN */
    return b;
  if (mag == 0x7f800000u) /* x/inf: NaN for inf or NaN, else signed zero */
    return a != a || a - a != 0.0f
               ? kiln_fs_bits(0x7fc00000u)
               : kiln_fs_bits((va.u ^ vb.u) & 0x80000000u);
  /* Scale b into [1, 2) so the guess and iterations stay in range. */
  int exp = (int)(mag >> 23) - 127;
  uint32_t mbits = (mag & 0x7fffffu) | 0x3f800000u;
  float m = kiln_fs_bits(mbits);
  float y = kiln_fs_bits(0x7ef311c3u - mbits);
  for (int i = 0; i < 4; ++i)
    y = y * (2.0f - m * y);
  /* 1/b = y * 2^-exp, applied in two steps to stay representable. */
  int e1 = -exp / 2, e2 = -exp - e1;
  float r = y * kiln_fs_bits((uint32_t)(e1 + 127) << 23) *
            kiln_fs_bits((uint32_t)(e2 + 127) << 23);
  if (vb.u >> 31)
    r = -r;
  float q = a * r;
  return q + (a - b * q) * r;
}

static uint32_t kiln_fs_udivmod(uint32_t n, uint32_t d, uint32_t *rem) {
  uint32_t q = 0, r = 0;
  for (int i = 31; i >= 0; --i) {
    r = (r << 1) | ((n >> i) & 1u);
    if (r >= d) {
      r -= d;
      q |= 1u << i;
    }
  }
  *rem = r;
  return q;
}
uint32_t __hexagon_udivsi3(uint32_t n, uint32_t d) {
  uint32_t r;
  return kiln_fs_udivmod(n, d, &r);
}
uint32_t __hexagon_umodsi3(uint32_t n, uint32_t d) {
  uint32_t r;
  kiln_fs_udivmod(n, d, &r);
  return r;
}
int32_t __hexagon_divsi3(int32_t n, int32_t d) {
  uint32_t r, q = kiln_fs_udivmod(n < 0 ? -(uint32_t)n : (uint32_t)n,
                                  d < 0 ? -(uint32_t)d : (uint32_t)d, &r);
  return (n < 0) != (d < 0) ? -(int32_t)q : (int32_t)q;
}
int32_t __hexagon_modsi3(int32_t n, int32_t d) {
  uint32_t r;
  kiln_fs_udivmod(n < 0 ? -(uint32_t)n : (uint32_t)n,
                  d < 0 ? -(uint32_t)d : (uint32_t)d, &r);
  return n < 0 ? -(int32_t)r : (int32_t)r;
}

/* 64-bit division: shift-subtract from the divisor aligned with the
 * dividend's leading bit. Division by zero is undefined in C; it gives 0. */
static uint64_t kiln_fs_udivmod64(uint64_t n, uint64_t d, uint64_t *rem) {
  if (d == 0 || d > n) {
    *rem = d == 0 ? 0 : n;
    return 0;
  }
  int s = __builtin_clzll(d) - __builtin_clzll(n);
  uint64_t q = 0;
  d <<= s;
  for (int i = 0; i <= s; ++i) {
    q <<= 1;
    if (n >= d) {
      n -= d;
      q |= 1;
    }
    d >>= 1;
  }
  *rem = n;
  return q;
}
uint64_t __hexagon_udivdi3(uint64_t n, uint64_t d) {
  uint64_t r;
  return kiln_fs_udivmod64(n, d, &r);
}
uint64_t __hexagon_umoddi3(uint64_t n, uint64_t d) {
  uint64_t r;
  kiln_fs_udivmod64(n, d, &r);
  return r;
}
int64_t __hexagon_divdi3(int64_t n, int64_t d) {
  uint64_t r, q = kiln_fs_udivmod64(n < 0 ? -(uint64_t)n : (uint64_t)n,
                                    d < 0 ? -(uint64_t)d : (uint64_t)d, &r);
  return (n < 0) != (d < 0) ? (int64_t)-q : (int64_t)q;
}
int64_t __hexagon_moddi3(int64_t n, int64_t d) {
  uint64_t r;
  kiln_fs_udivmod64(n < 0 ? -(uint64_t)n : (uint64_t)n,
                    d < 0 ? -(uint64_t)d : (uint64_t)d, &r);
  return n < 0 ? (int64_t)-r : (int64_t)r;
}

/* Clang copies large aligned aggregates with this. */
void *__hexagon_memcpy_likely_aligned_min32bytes_mult8bytes(void *dst,
                                                           const void *src,
                                                           size_t n) {
  return memcpy(dst, src, n);
}
#endif
