/* bandwidth.c - single-thread read bandwidth, the decode yardstick (x86 with AVX-512).
 *   clang-16 -O2 -mavx512f examples/bench/bandwidth.c -o bandwidth && ./bandwidth 512 */
#define _POSIX_C_SOURCE 199309L
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* An AVX-512 sum over a buffer larger than any cache, best of 5. */
int main(int argc, char **argv) {
  size_t bytes = (size_t)(argc > 1 ? atol(argv[1]) : 512) << 20;
  float *p = aligned_alloc(64, bytes);
  memset(p, 1, bytes);
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i < bytes / 4; i += 64) {
      s0 = _mm512_add_ps(s0, _mm512_load_ps(p + i));
      s1 = _mm512_add_ps(s1, _mm512_load_ps(p + i + 16));
      s2 = _mm512_add_ps(s2, _mm512_load_ps(p + i + 32));
      s3 = _mm512_add_ps(s3, _mm512_load_ps(p + i + 48));
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    volatile float sink = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    (void)sink;
    double gbs = bytes / ((b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec)) / 1e9;
    if (gbs > best) best = gbs;
  }
  printf("read bandwidth %.1f GB/s (best of 5 over %zu MiB)\n", best, bytes >> 20);
  return 0;
}
