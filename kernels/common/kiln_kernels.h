/* kiln_kernels.h - what the kernel sources share: the block-format decoders,
 * ggml's Q8_0 activation block and the functions one kernel file calls in
 * another.
 *
 * Every kernel source includes this header and compiles as a translation unit
 * of its own (test/kernels/KernelUnitsTest.cpp compiles each for its ISA).
 * kilnc builds a library's kernels as one unit instead, this header first and
 * then the files in dependency order (IsaTarget::kernelSource), so that every
 * kernel is a static function: the C compiler specialises the kernels for the
 * constant shapes at their call sites, and two model libraries link into one
 * program without clashing symbols.
 */
#ifndef KILN_KERNELS_H
#define KILN_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln.h"

/* Linkage of the kernels the generated code calls (the matmul and attention
 * kernels of kernels.def and the portable ones) and of the functions one
 * kernel file defines for the others: static in kilnc's single unit; a file
 * compiled alone with KILN_KERNEL defined as empty exports them. */
#ifndef KILN_KERNEL
#define KILN_KERNEL static
#endif

/* --- IEEE binary16 and little-endian fields of GGML blocks --------------- */

static inline float kiln_g_f16(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31;
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else { /* subnormal: renormalise */
      exp = 127 - 15 + 1;
      while (!(man & 0x400)) {
        man <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp - 15 + 127) << 23) | (man << 13);
  }
  union { uint32_t u; float f; } v = {bits};
  return v.f;
}

/* f32 -> IEEE binary16, rounded to nearest even (as the F16C and NEON
 * conversions round by default); overflow gives infinity, NaN stays NaN. */
static inline uint16_t kiln_g_to_f16(float f) {
  union { float f; uint32_t u; } v = {f};
  const uint32_t sign = (v.u >> 16) & 0x8000u, a = v.u & 0x7fffffffu;
  if (a > 0x7f800000u) /* NaN: quiet, keep the top payload bits */
    return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) /* >= 65520 rounds past 65504, the largest finite */
    return (uint16_t)(sign | 0x7c00u);
  uint32_t h, rem, half;
  if (a >= 0x38800000u) { /* normal: rebias the exponent, drop 13 bits */
    const uint32_t r = a - ((uint32_t)(127 - 15) << 23);
    h = r >> 13, rem = r & 0x1fffu, half = 0x1000u;
  } else { /* below 2^-14: a subnormal half, value / 2^-24 rounded */
    const uint32_t e = a >> 23;
    if (e < 102) /* below 2^-25: rounds to zero */
      return (uint16_t)sign;
    const uint32_t m = (a & 0x7fffffu) | 0x800000u, shift = 126u - e;
    h = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
  }
  h += rem > half || (rem == half && (h & 1u)); /* a carry lands in the exponent */
  return (uint16_t)(sign | h);
}

static inline uint16_t kiln_g_u16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}

/* Q4_K / Q5_K: sub-block j's 6-bit scale and min, packed in 12 bytes. */
static inline void kiln_g_scale_min_k4(int j, const uint8_t *s, int *sc, int *m) {
  if (j < 4) {
    *sc = s[j] & 63;
    *m = s[j + 4] & 63;
  } else {
    *sc = (s[j + 4] & 0xf) | ((s[j - 4] >> 6) << 4);
    *m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

/* Q2_K / Q3_K: element e's two low bits are bits 2((e%128)/32) of
 * qs[32(e/128) + e%32]. */
static inline int kiln_g_2bit(const uint8_t *qs, int e) {
  return (qs[(e / 128) * 32 + e % 32] >> (2 * ((e % 128) / 32))) & 3;
}

/* Q3_K: sub-block j's 6-bit signed scale. */
static inline int kiln_g_q3k_scale(const uint8_t *s, int j) {
  const int lo = j < 8 ? s[j] & 0xf : s[j - 8] >> 4;
  return (lo | (((s[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32;
}

/* IQ4_NL / IQ4_XS: the 16 non-linear levels the nibbles index. */
static const int8_t kiln_g_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                        1,    13,   25,  38,  53,  69,  89,  113};

/* --- Activations: ggml's Q8_0 blocks (kernels_q8.c) ----------------------- */

typedef struct kiln_q8_block {
  uint16_t d;     /* fp16 scale */
  int8_t qs[32];
} kiln_q8_block;
_Static_assert(sizeof(kiln_q8_block) == 34, "kiln_q8_block is ggml's block_q8_0");

/* One row of K floats -> K/32 blocks (K a multiple of 32). */
KILN_KERNEL void kiln_quantize_row_q8_0(const float *x, int K, kiln_q8_block *y);
/* Quantizes `rows` rows of x into scratch and returns the blocks; x == 0
 * means the scratch already holds them. */
KILN_KERNEL const kiln_q8_block *kiln_q8_rows(const float *x, int rows, int K,
                                              void *scratch);

/* ggml's Q8_K blocks, the activations of the kernels that read them (Q4_K on
 * AVX2): per 256 values a float d = (the value of largest magnitude) / -127,
 * q = nearest(x / d) with ties to even (at most 127), and the sums of each 16
 * q. One scale per super-block lets a super-block's sums stay integer. */
typedef struct kiln_q8k_block {
  float d;
  int8_t qs[256];
  int16_t bsums[16];
} kiln_q8k_block;
_Static_assert(sizeof(kiln_q8k_block) == 292, "kiln_q8k_block is ggml's block_q8_K");

/* One row of K values (a multiple of 256) as K/256 Q8_K blocks. */
KILN_KERNEL void kiln_quantize_row_q8_k(const float *x, int K, kiln_q8k_block *y);

/* As kiln_q8_rows, into K/256 Q8_K blocks per row (K a multiple of 256). */
KILN_KERNEL const kiln_q8k_block *kiln_q8k_rows(const float *x, int rows, int K,
                                                void *scratch);

/* The float-weight matmuls whose pass, PASS(x, nr, K, w, nw, N, bias, y, j),
 * multiplies nw <= 4 weight rows (ELEM elements, the file's layout) by
 * nr <= 2 activation rows (SVE, RVV): weight rows outer, so a pass's rows
 * stay in cache while the activation rows go by, and each pass called with
 * constant counts for the common cases, so that it unrolls. */
#define KILN_FLOAT_2X4_DRIVER(NAME, ELEM, PASS)                                \
  KILN_KERNEL void kiln_##NAME(const float *x, int rows, int K,                \
                               const uint8_t *w, int N, const float *bias,     \
                               float *y) {                                     \
    const ELEM *we = (const ELEM *)w;                                          \
    for (int j = 0; j < N; j += 4) {                                           \
      const ELEM *wj = we + (int64_t)j * K;                                    \
      const int nw = N - j < 4 ? N - j : 4;                                    \
      for (int r0 = 0; r0 < rows; r0 += 2) {                                   \
        const float *xr = x + (int64_t)r0 * K;                                 \
        float *yr = y + (int64_t)r0 * N;                                       \
        if (rows - r0 > 1) {                                                   \
          if (nw == 4) PASS(xr, 2, K, wj, 4, N, bias, yr, j);                  \
          else PASS(xr, 2, K, wj, nw, N, bias, yr, j);                         \
        } else {                                                               \
          if (nw == 4) PASS(xr, 1, K, wj, 4, N, bias, yr, j);                  \
          else PASS(xr, 1, K, wj, nw, N, bias, yr, j);                         \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

/* Q4_1 weights run an ISA's Q5_1 kernel: the target packs each Q4_1 block as
 * the Q5_1 block of the same values, fifth bits zero (IsaTarget::packWeight),
 * so x = q*d + m with q in 0..15 is Q5_1's x = q*d + m with q in 0..31. */
#define KILN_Q4_1_AS_Q5_1(SUFFIX)                                              \
  KILN_KERNEL void kiln_matmul_q4_1_q8_0_##SUFFIX(                             \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    kiln_matmul_q5_1_q8_0_##SUFFIX(x, rows, K, w, N, bias, y, scratch);        \
  }

#endif /* KILN_KERNELS_H */
