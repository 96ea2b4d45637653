/* kernel_stream.c - the x86 decode matmul kernel against the bandwidth floor.
 *
 *   clang-16 -O2 -march=x86-64-v4 -mavx512vnni -Iruntime/include -Ikernels \
 *     -Ikernels/common examples/bench/kernel_stream.c -o kernel_stream &&
 *   ./kernel_stream [MiB]
 *
 * Times kiln_matmul_q4_0_q8_0_4x16_avx512vnni (the kernel kilnc picks for
 * Q4_0 on AVX-512 VNNI) on one activation row, as decode calls it, over
 * K = 1024 weights packed as the kernel reads them (groups of 16 rows:
 * 1 KiB of scales, 8 KiB of quants), and reads the same bytes with a plain
 * AVX-512 sum, in one process, alternately, best of 7 each:
 *   in-cache  - 1,024 rows (576 KiB) again and again: the kernel's own rate;
 *   streaming - MiB of rows (default 120, one decode step's weights of the
 *               200M model) once per pass, on 4 KiB pages and on
 *               transparent huge pages (MADV_HUGEPAGE);
 *   prefetch  - the streaming pass cut into calls of 8 groups (72 KiB) with
 *               the harness prefetching the call after next (a crude
 *               stand-in for prefetch inside the kernel);
 *   busy sum  - the sum doing the kernel's nibble unpacking per byte.
 * The kernel is unchanged: this file includes the same sources, as one unit,
 * that kilnc builds into every x86 library. Weights are random bytes with small fp16 scales. */
#define _GNU_SOURCE
#include "kiln/kiln.h"

#include "generic/kernels_generic.c"
#include "common/kernels_q8.c"
#include "x86/kernels_x86.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

enum { K = 1024, GROUP_BYTES = 1024 + 32 * 256, CHUNK = 8 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint8_t *weights(size_t groups, int huge) {
  size_t bytes = groups * GROUP_BYTES, align = (size_t)2 << 20;
  uint8_t *w = aligned_alloc(align, (bytes + align - 1) / align * align);
  madvise(w, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  uint64_t s = 88172645463325252ull;
  for (size_t i = 0; i < bytes; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    w[i] = (uint8_t)s;
  }
  for (size_t g = 0; g < groups; ++g) /* fp16 scales: 0x2000 = 2^-7 */
    for (int i = 0; i < 512; ++i) {
      w[g * GROUP_BYTES + 2 * i] = 0x00;
      w[g * GROUP_BYTES + 2 * i + 1] = 0x20;
    }
  return w;
}

static float x[K], y[1 << 22];
static kiln_q8_block scratch[K / 32];
static volatile long long sink;

static double kernel_pass(const uint8_t *w, size_t groups, int prefetch) {
  double t0 = now();
  if (!prefetch) {
    kiln_matmul_q4_0_q8_0_4x16_avx512vnni(x, 1, K, w, (int)(groups * 16), 0, y, scratch);
  } else {
    for (size_t g = 0; g < groups; g += CHUNK) {
      size_t n = groups - g < CHUNK ? groups - g : CHUNK;
      const uint8_t *ahead = w + (g + 2 * CHUNK) * GROUP_BYTES;
      if (g + 3 * CHUNK <= groups)
        for (size_t b = 0; b < (size_t)CHUNK * GROUP_BYTES; b += 64)
          _mm_prefetch((const char *)ahead + b, _MM_HINT_T0);
      kiln_matmul_q4_0_q8_0_4x16_avx512vnni(x, 1, K, w + g * GROUP_BYTES, (int)(n * 16), 0,
                                            y + g * 16, scratch);
    }
  }
  return now() - t0;
}

static double sum_pass(const uint8_t *p, size_t bytes) {
  double t0 = now();
  __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = 0; i + 256 <= bytes; i += 256) {
    s0 = _mm512_add_epi64(s0, _mm512_load_si512(p + i));
    s1 = _mm512_add_epi64(s1, _mm512_load_si512(p + i + 64));
    s2 = _mm512_add_epi64(s2, _mm512_load_si512(p + i + 128));
    s3 = _mm512_add_epi64(s3, _mm512_load_si512(p + i + 192));
  }
  double t = now() - t0;
  sink = _mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(s0, s1), _mm512_add_epi64(s2, s3)));
  return t;
}

/* The same sum with the kernel's per-byte work (unpack nibbles: and, shift,
 * and; about 36 instructions per 256 bytes instead of 10): if bandwidth falls
 * to the kernel's, the limit is how many bytes the out-of-order window keeps
 * in flight, not the kernel's arithmetic. */
static double busy_sum_pass(const uint8_t *p, size_t bytes) {
  double t0 = now();
  const __m512i m4 = _mm512_set1_epi8(0x0f);
  __m512i s0 = _mm512_setzero_si512(), s1 = s0;
  for (size_t i = 0; i + 256 <= bytes; i += 256)
    for (int c = 0; c < 4; ++c) {
      __m512i v = _mm512_load_si512(p + i + 64 * c);
      __m512i lo = _mm512_and_si512(v, m4), hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), m4);
      s0 = _mm512_add_epi32(s0, _mm512_madd_epi16(_mm512_maddubs_epi16(lo, m4), _mm512_set1_epi16(1)));
      s1 = _mm512_add_epi32(s1, _mm512_madd_epi16(_mm512_maddubs_epi16(hi, m4), _mm512_set1_epi16(1)));
    }
  double t = now() - t0;
  sink = _mm512_reduce_add_epi32(_mm512_add_epi32(s0, s1));
  return t;
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 120;
  size_t big = (mib << 20) / GROUP_BYTES / CHUNK * CHUNK, small = 1024 / 16;
  if (big * 16 > sizeof y / sizeof y[0]) {
    fprintf(stderr, "kernel_stream: at most %zu MiB\n", (sizeof y / sizeof y[0] / 16 * GROUP_BYTES) >> 20);
    return 2;
  }
  for (int i = 0; i < K; ++i)
    x[i] = (float)((i * 37) % 101 - 50) / 50.0f;
  uint8_t *w4 = weights(big, 0), *wh = weights(big, 1), *ws = weights(small, 0);
  double best[7] = {1e9, 1e9, 1e9, 1e9, 1e9, 1e9, 1e9};
  for (int rep = 0; rep < 7; ++rep) {
    double t = now();
    for (int i = 0; i < 200; ++i)
      kernel_pass(ws, small, 0);
    t = (now() - t) / 200;
    if (t < best[0]) best[0] = t;
    double v[6] = {kernel_pass(w4, big, 0), sum_pass(w4, big * GROUP_BYTES),
                   kernel_pass(wh, big, 0), sum_pass(wh, big * GROUP_BYTES),
                   kernel_pass(w4, big, 1), busy_sum_pass(w4, big * GROUP_BYTES)};
    for (int i = 0; i < 6; ++i)
      if (v[i] < best[i + 1]) best[i + 1] = v[i];
  }
  const double sb = (double)small * GROUP_BYTES, bb = (double)big * GROUP_BYTES;
  printf("in-cache kernel (%.0f KiB)          %6.1f GB/s\n", sb / 1024, sb / best[0] / 1e9);
  printf("streaming %zu MiB, 4 KiB pages: kernel %6.1f GB/s, sum %6.1f GB/s\n",
         (size_t)(bb / (1 << 20)), bb / best[1] / 1e9, bb / best[2] / 1e9);
  printf("streaming %zu MiB, huge pages:  kernel %6.1f GB/s, sum %6.1f GB/s\n",
         (size_t)(bb / (1 << 20)), bb / best[3] / 1e9, bb / best[4] / 1e9);
  printf("streaming, 4 KiB pages, harness prefetch 2 calls ahead: kernel %6.1f GB/s\n",
         bb / best[5] / 1e9);
  printf("streaming, 4 KiB pages, sum with the kernel's unpacking work: %6.1f GB/s\n",
         bb / best[6] / 1e9);
  return 0;
}
