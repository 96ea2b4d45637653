/* q8k_quantize.c - the Q8_K activation quantizer (kiln_q8k_rows) alone.
 *
 *   clang-16 -O3 -march=native -Iruntime/include -Ikernels -Ikernels/common \
 *     examples/bench/q8k_quantize.c -o q8k_quantize &&
 *   taskset -c 0 ./q8k_quantize [ROWS] [K]
 *
 * Quantizes ROWS x K floats (default 64 x 2048, a prefill chunk of the 1B
 * shape's attention input) 100 times per pass, best of 15 passes, and prints
 * the time per call and a hash of the blocks, so that two builds (one per
 * source tree, -I pointing at each) can be timed in turn and checked to write
 * the same bytes. */
#include "kiln/kiln.h"

#include "generic/kernels_generic.c"
#include "common/kernels_q8.c"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  const int rows = argc > 1 ? atoi(argv[1]) : 64, K = argc > 2 ? atoi(argv[2]) : 2048;
  if (rows < 1 || K < 256 || K % 256) {
    fprintf(stderr, "q8k_quantize: ROWS >= 1, K a multiple of 256\n");
    return 2;
  }
  const size_t bytes = (size_t)rows * (size_t)(K / 256) * sizeof(kiln_q8k_block);
  float *x = malloc(sizeof(float) * (size_t)rows * K);
  void *q = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
  if (!x || !q) {
    fprintf(stderr, "q8k_quantize: out of memory\n");
    return 1;
  }
  srand(1);
  for (long i = 0; i < (long)rows * K; ++i)
    x[i] = (float)(rand() % 2001 - 1000) / 300.0f;
  double best = 1e30;
  for (int pass = 0; pass < 15; ++pass) {
    const double t0 = now();
    for (int k = 0; k < 100; ++k)
      kiln_q8k_rows(x, rows, K, q);
    const double t = (now() - t0) / 100;
    if (t < best)
      best = t;
  }
  unsigned h = 0;
  for (size_t i = 0; i < bytes; ++i)
    h = h * 31 + ((const unsigned char *)q)[i];
  printf("kiln_q8k_rows %d x %d: %.1f us a call, hash %08x\n", rows, K, best * 1e6, h);
  return 0;
}
