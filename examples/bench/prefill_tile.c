/* prefill_tile.c - the AVX-512 VNNI prefill matmul against the int8 unit.
 *
 *   clang-16 -O3 -march=native -Iruntime/include -Ikernels -Ikernels/common \
 *     examples/bench/prefill_tile.c -o prefill_tile &&
 *   taskset -c 0 ./prefill_tile [TYPE] [ROWS] [K] [N]
 *
 * Times kiln_matmul_q8_0_q8_0_4x16_avx512vnni (or TYPE's AVX-512 kernel) on ROWS
 * activation rows (default 64, the prefill chunk kilnc picks for a 1 MiB L2)
 * against N x K weights (default 2048 x 2048, one attention projection of
 * the 1B shape), quantizer included, as a library calls it. Beside it, the
 * unit's own rate: VPDPBUSD on 12 independent accumulators with every
 * operand in a register (fewer accumulators do not cover the instruction's
 * latency; docs/notes/benchmarks-history.md, "Zen 5: the int8 probe").
 * Both best of 7, alternately, in one process. Weights are random bytes
 * with fp16 scales of 2^-7 (Q4_K: 6-bit sub-block scales and mins); the kernel is called through a pointer so that
 * a profile (perf record) shows it as one symbol. */
#define _GNU_SOURCE
#include "kiln/kiln.h"

#include "generic/kernels_generic.c"
#include "common/kernels_q8.c"
#include "x86/kernels_x86.c"

#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(__AVX512VNNI__)
#error "prefill_tile needs AVX-512 VNNI (-march=native on such a host)"
#endif

typedef void (*matmul_fn)(const float *, int, int, const uint8_t *, int,
                          const float *, float *, void *);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* GOP/s of VPDPBUSD alone: 12 chains, 64 multiply-adds each. */
__attribute__((noinline)) static double unit_rate(void) {
  __m512i a[12];
  for (int i = 0; i < 12; ++i)
    a[i] = _mm512_set1_epi32(i);
  __m512i w = _mm512_set1_epi8(3), x = _mm512_set1_epi8(1);
  const long iters = 20000000;
  const double t0 = now();
  for (long i = 0; i < iters; ++i) {
    for (int j = 0; j < 12; ++j)
      a[j] = _mm512_dpbusd_epi32(a[j], w, x);
    __asm__ volatile("" : "+v"(w), "+v"(x));
  }
  const double t = now() - t0;
  int s = 0;
  for (int j = 0; j < 12; ++j)
    s += _mm512_reduce_add_epi32(a[j]);
  __asm__ volatile("" ::"r"(s));
  return (double)iters * 12 * 64 * 2 / t / 1e9;
}

/* The AVX-512 VNNI kernels this times: block (weights per scale block),
 * meta and quant bytes per block and group of 16 rows (the kernels' layouts
 * in kernels_x86.c), and whether the activations are Q8_K. */
typedef struct {
  const char *name;
  matmul_fn fn;
  int block, meta, quant, q8k;
} kernel_kind;
static const kernel_kind kinds[] = {
    {"q8_0", kiln_matmul_q8_0_q8_0_4x16_avx512vnni, 32, 32, 512, 0},
    {"q4_0", kiln_matmul_q4_0_q8_0_4x16_avx512vnni, 32, 32, 256, 0},
    {"q5_0", kiln_matmul_q5_0_q8_0_4x16_avx512vnni, 32, 32, 320, 0},
    {"q5_1", kiln_matmul_q5_1_q8_0_4x16_avx512vnni, 32, 64, 320, 0},
    {"iq4_nl", kiln_matmul_iq4_nl_q8_0_4x16_avx512vnni, 32, 32, 256, 0},
    {"q4_k", kiln_matmul_q4_k_q8_k_4x16_avx512vnni, 256, 320, 2048, 1},
    {"q5_k", kiln_matmul_q5_k_q8_k_4x16_avx512vnni, 256, 320, 2560, 1},
    {"q6_k", kiln_matmul_q6_k_q8_k_4x16_avx512vnni, 256, 288, 3072, 1},
    {"iq4_xs", kiln_matmul_iq4_xs_q8_k_4x16_avx512vnni, 256, 160, 2048, 1},
};

int main(int argc, char **argv) {
  const char *type = argc > 1 ? argv[1] : "q8_0";
  const kernel_kind *k = 0;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i)
    if (!strcmp(type, kinds[i].name))
      k = &kinds[i];
  const int rows = argc > 2 ? atoi(argv[2]) : 64, K = argc > 3 ? atoi(argv[3]) : 2048,
            N = argc > 4 ? atoi(argv[4]) : 2048;
  if (!k || rows < 1 || K < k->block || K % k->block || N < 16 || N % 16) {
    fprintf(stderr, "prefill_tile: TYPE q8_0, q4_0, q5_0, q5_1, iq4_nl, q4_k, q5_k, "
                    "q6_k or iq4_xs; ROWS >= 1, K a multiple of its block (32 or "
                    "256), N of 16\n");
    return 2;
  }
  matmul_fn volatile fn = k->fn;
  const int nb = K / k->block, quant = k->quant, meta = k->meta;
  const int q4k = !strcmp(type, "q4_k");
  /* A group of 16 weight rows: nb x META bytes of scales (padded to 64
   * bytes), then nb blocks of quants (X86Target.cpp's layout). */
  const long metaBytes = ((long)nb * meta + 63) & ~63L;
  const long groupBytes = metaBytes + (long)nb * quant;
  const long wbytes = (long)(N / 16) * groupBytes;
  uint8_t *w = aligned_alloc(64, (size_t)((wbytes + 63) & ~63L));
  float *x = malloc(sizeof(float) * (size_t)rows * K), *y = malloc(sizeof(float) * (size_t)rows * N);
  const long actBytes = k->q8k ? (long)rows * (K / 256) * 308 : (long)rows * (K / 32) * 42;
  void *scratch = aligned_alloc(64, (size_t)((actBytes + 4096 + 63) & ~63L));
  if (!w || !x || !y || !scratch) {
    fprintf(stderr, "prefill_tile: out of memory\n");
    return 1;
  }
  srand(1);
  for (long i = 0; i < wbytes; ++i)
    w[i] = (uint8_t)rand();
  for (int g = 0; g < N / 16; ++g)
    for (int b = 0; b < nb; ++b) {
      uint8_t *m = w + g * groupBytes + (long)b * meta;
      if (strcmp(type, "q8_0") && strcmp(type, "q4_0") && !q4k) {
        /* the other types: fp16 scales of 0x2020 (about 2^-7), integer
         * scales and mins of 32 */
        memset(m, 0x20, (size_t)meta);
        continue;
      }
      for (int i = 0; i < 16 * (q4k ? 2 : 1); ++i)
        ((uint16_t *)m)[i] = 0x2000; /* 2^-7: d (and Q4_K's dmin) */
      for (int i = 64; q4k && i < meta; ++i)
        m[i] &= 63; /* Q4_K's 6-bit scales and mins */
    }
  for (long i = 0; i < (long)rows * K; ++i)
    x[i] = (float)(rand() % 200 - 100) / 50.0f;

  double best = 1e30, unit = 0;
  for (int rep = 0; rep < 7; ++rep) {
    const double u = unit_rate();
    if (u > unit)
      unit = u;
    int calls = 0;
    const double t0 = now();
    do {
      fn(x, rows, K, w, N, 0, y, scratch);
      ++calls;
    } while (now() - t0 < 0.3);
    const double t = (now() - t0) / calls;
    if (t < best)
      best = t;
  }
  const double gops = 2.0 * rows * K * N / best / 1e9;
  printf("%s rows %d K %d N %d: %.1f GOP/s (%.1f us a call), unit %.1f GOP/s, "
         "fraction %.3f (y[0] %g)\n",
         type, rows, K, N, gops, best * 1e6, unit, gops / unit, y[0]);
  return 0;
}
