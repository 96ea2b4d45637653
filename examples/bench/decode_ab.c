/* decode_ab.c - A/B of x86 matmul kernel variants on one decode step's
 * matmuls, in one process (docs/notes/benchmarks-history.md, "Decode bandwidth: prefetch
 * across groups"). Built and run by decode_ab.sh, which compiles this file
 * once per variant (-DKILN_AB_VARIANT=NAME with the variant's -D defines: the
 * kernel sources kilnc builds into every x86 library, wrapped as NAME) and
 * once as the harness, which
 *   - reads OUT/bench_weights.bin (`kilnc MODEL --target=x86 --emit=c -o OUT`)
 *     into transparent-huge-page memory, as a decoding library reads it;
 *   - calls every variant on every matmul of one decode step (one activation
 *     row; the calls, shapes and weight offsets of OUT/bench.c) and checks
 *     that all variants give bit-identical outputs;
 *   - then ROUNDS rounds, each running every variant for TOKENS steps in
 *     alternating order, plus a plain sum over the same bytes;
 *   - prints each variant's median GB/s (packed matmul weight bytes per step
 *     over time) and the median (min-max) of its per-round ratio to the
 *     plain sum and to the first variant.
 * Only the matmuls run: attention, norms and activation quantization do not,
 * so this measures the kernel against the memory, not a whole decode step. */
#ifdef KILN_AB_VARIANT
#include "kiln/kiln.h"

#include "generic/kernels_generic.c"
#include "common/kernels_q8.c"
#include "x86/kernels_x86.c"

void KILN_AB_VARIANT(const float *x, int rows, int K, const uint8_t *w, int N,
                     const float *bias, float *y, void *scratch) {
  KILN_AB_KERNEL(x, rows, K, w, N, bias, y, scratch);
}
#else
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

typedef void (*kernel_fn)(const float *, int, int, const uint8_t *, int,
                          const float *, float *, void *);
#include "decode_ab_variants.h" /* AB_VARIANTS: {"name", fn}, ...; AB_KERNEL */
static const struct {
  const char *name;
  kernel_fn fn;
} variants[] = {AB_VARIANTS};
enum { NV = sizeof variants / sizeof variants[0], MAX_ROUNDS = 256 };
static const int64_t calls[][3] = { /* K, N, weight offset */
#include "decode_ab_calls.h"
};
enum { NC = sizeof calls / sizeof calls[0] };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double d = *(const double *)a - *(const double *)b;
  return d < 0 ? -1 : d > 0;
}

static double median(const double *v, int n) {
  double t[MAX_ROUNDS];
  memcpy(t, v, (size_t)n * sizeof *v);
  qsort(t, (size_t)n, sizeof *t, cmp);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static volatile long long sink;

/* The yardstick: a plain AVX2 sum over the same bytes (no prefetch). */
static void sum_pass(const uint8_t *p, size_t bytes) {
  __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = 0; i + 128 <= bytes; i += 128) {
    s0 = _mm256_add_epi64(s0, _mm256_load_si256((const __m256i *)(p + i)));
    s1 = _mm256_add_epi64(s1, _mm256_load_si256((const __m256i *)(p + i + 32)));
    s2 = _mm256_add_epi64(s2, _mm256_load_si256((const __m256i *)(p + i + 64)));
    s3 = _mm256_add_epi64(s3, _mm256_load_si256((const __m256i *)(p + i + 96)));
  }
  __m256i s = _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3));
  sink = _mm256_extract_epi64(s, 0) + _mm256_extract_epi64(s, 3);
}

static float x[8192], *ref, y[65536];
static _Alignas(64) uint8_t scratch[8192 / 32 * 34 + 64];

static void step(kernel_fn f, const uint8_t *w) {
  for (int c = 0; c < NC; ++c)
    f(x, 1, (int)calls[c][0], w + calls[c][2], (int)calls[c][1], 0, y, scratch);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: decode_ab OUT/bench_weights.bin ROUNDS TOKENS\n");
    return 2;
  }
  const int rounds = atoi(argv[2]), tokens = atoi(argv[3]);
  if (rounds < 1 || rounds > MAX_ROUNDS || tokens < 1) {
    fprintf(stderr, "decode_ab: ROUNDS must be 1-%d, TOKENS >= 1\n", MAX_ROUNDS);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  const size_t bytes = (size_t)ftell(f), align = (size_t)2 << 20;
  fseek(f, 0, SEEK_SET);
  uint8_t *w = aligned_alloc(align, (bytes + align - 1) / align * align);
  if (!w) return 1;
  madvise(w, (bytes + align - 1) / align * align, MADV_HUGEPAGE);
  if (fread(w, 1, bytes, f) != bytes) {
    fprintf(stderr, "decode_ab: cannot read %s\n", argv[1]);
    return 1;
  }
  fclose(f);
  /* Packed bytes per step: groups of NR rows, [metadata padded to 64][quants],
   * META and QUANT bytes per block of BS values (AB_LAYOUT, read by
   * decode_ab.sh from the kernel's definition in kernels_x86.c). */
  const int layout[4] = {AB_LAYOUT}, nr = layout[0], bs = layout[1], meta = layout[2],
            quant = layout[3];
  double stepBytes = 0;
  for (int c = 0; c < NC; ++c) {
    const int64_t nb = calls[c][0] / bs, groups = (calls[c][1] + nr - 1) / nr;
    if (calls[c][2] < 0 || (size_t)calls[c][2] >= bytes || calls[c][0] > 8192 ||
        calls[c][1] > 65536) {
      fprintf(stderr, "decode_ab: call %d (K %lld, N %lld) outside the harness\n", c,
              (long long)calls[c][0], (long long)calls[c][1]);
      return 2;
    }
    stepBytes += (double)groups * (double)(((nb * meta + 63) & ~63) + nb * quant);
  }
  for (int i = 0; i < 8192; ++i)
    x[i] = (float)((i * 37) % 101 - 50) / 50.0f;

  /* Every variant must compute the same bits on every call. */
  ref = malloc(sizeof(float) * 65536 * NC);
  for (int v = 0; v < NV; ++v)
    for (int c = 0; c < NC; ++c) {
      variants[v].fn(x, 1, (int)calls[c][0], w + calls[c][2], (int)calls[c][1], 0, y,
                     scratch);
      float *r = ref + (size_t)65536 * c;
      if (v == 0)
        memcpy(r, y, sizeof(float) * (size_t)calls[c][1]);
      else if (memcmp(r, y, sizeof(float) * (size_t)calls[c][1])) {
        fprintf(stderr, "decode_ab: %s differs from %s on call %d\n", variants[v].name,
                variants[0].name, c);
        return 1;
      }
    }

  static double t[NV + 1][MAX_ROUNDS];
  double load[2] = {0, 0};
  FILE *la = fopen("/proc/loadavg", "r");
  if (la && fscanf(la, "%lf", &load[0]) != 1) load[0] = -1;
  if (la) fclose(la);
  const size_t span = bytes - (size_t)calls[0][2]; /* what the sum reads */
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k <= NV; ++k) {
      const int v = r % 2 ? NV - k : k; /* NV = the plain sum */
      const double t0 = now();
      for (int i = 0; i < tokens; ++i)
        if (v == NV)
          sum_pass(w + calls[0][2], span);
        else
          step(variants[v].fn, w);
      t[v][r] = (now() - t0) / tokens;
    }
  la = fopen("/proc/loadavg", "r");
  if (la && fscanf(la, "%lf", &load[1]) != 1) load[1] = -1;
  if (la) fclose(la);
  printf("%s: %d matmuls, %.1f MB per step; %d rounds x %d steps; load %.1f-%.1f; "
         "outputs bit-identical\n",
         AB_KERNEL, NC, stepBytes / 1e6, rounds, tokens, load[0], load[1]);
  for (int v = 0; v <= NV; ++v) {
    double gbs[MAX_ROUNDS], vsSum[MAX_ROUNDS], vsFirst[MAX_ROUNDS], lo = 1e30, hi = 0;
    for (int r = 0; r < rounds; ++r) {
      gbs[r] = (v == NV ? (double)span : stepBytes) / t[v][r] / 1e9;
      vsSum[r] = gbs[r] / ((double)span / t[NV][r] / 1e9);
      vsFirst[r] = t[0][r] / t[v][r];
      lo = vsFirst[r] < lo ? vsFirst[r] : lo;
      hi = vsFirst[r] > hi ? vsFirst[r] : hi;
    }
    printf("%-12s %6.2f GB/s  / plain sum %.3f  / %s %.3f (%.3f-%.3f)\n",
           v == NV ? "plain-sum" : variants[v].name, median(gbs, rounds),
           median(vsSum, rounds), variants[0].name, median(vsFirst, rounds), lo, hi);
  }
  return 0;
}
#endif
