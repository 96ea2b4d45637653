/* stream_ladder.c - what bounds one core's read stream: arithmetic, or the
 * access pattern? (docs/notes/benchmarks-history.md, "One core's read stream")
 *
 *   clang-16 -O2 -march=x86-64-v4 -mavx512vnni examples/bench/stream_ladder.c \
 *     -o stream_ladder && ./stream_ladder [ROUNDS]
 *
 * Reads 128 MiB (2 MiB pages, MADV_HUGEPAGE) with software prefetch, in one
 * process, every pass once per round, and prints each pass's median GB/s and
 * its median per-round ratio to the plain sum:
 *   sum + R dpbusd - one sequential stream, R vpdpbusd per 64-byte line on
 *                    independent accumulators (R = 0: a plain sum). Also
 *                    timed on 512 KiB in cache: the arithmetic's own rate.
 *   4 groups       - the x86 decode walk's pattern: groups of 9 KiB (1 KiB of
 *                    scales, then 8 KiB of quants, as the Q4_0 VNNI packing for
 *                    K = 1024), 4 groups walked at once, 256 bytes of quants
 *                    from each per step and their scales, 2 vpdpbusd per line.
 *   4 groups, no scales - the same without reading the scales.
 *   1 stream, scales between quants - lines of [64 bytes of scales][512 bytes
 *                    of quants], one group after the other.
 * The arithmetic stands in for the kernel's; the bytes are random. */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

enum { GROUP = 9216, META = 1024, LINE = 576, GROUPS = 14560, ROUNDS_MAX = 101 };
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static volatile int sink;
static int fold(const __m512i *s, int n) {
  __m512i z = s[0];
  for (int i = 1; i < n; ++i)
    z = _mm512_add_epi32(z, s[i]);
  return _mm512_reduce_add_epi32(z);
}
#define PF(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)

/* One stream, R vpdpbusd per line, prefetch 4 KiB ahead. */
#define SUM_PASS(R)                                                            \
  static double sum_##R(const uint8_t *p, size_t bytes) {                      \
    const __m512i a = _mm512_set1_epi8(3);                                     \
    __m512i s[8];                                                              \
    for (int i = 0; i < 8; ++i)                                                \
      s[i] = _mm512_setzero_si512();                                           \
    double t0 = now();                                                         \
    for (size_t i = 0; i + 256 <= bytes; i += 256) {                           \
      for (int o = 0; o < 256; o += 64)                                        \
        PF(p + i + 4096 + o);                                                  \
      for (int c = 0; c < 4; ++c) {                                            \
        const __m512i v = _mm512_load_si512(p + i + 64 * c);                   \
        s[c] = _mm512_add_epi32(s[c], v);                                      \
        for (int r = 0; r < (R); ++r)                                          \
          s[(4 + c + r) & 7] = _mm512_dpbusd_epi32(s[(4 + c + r) & 7], v, a);  \
      }                                                                        \
    }                                                                          \
    double t = now() - t0;                                                     \
    sink = fold(s, 8);                                                         \
    return t;                                                                  \
  }
SUM_PASS(0)
SUM_PASS(2)
SUM_PASS(4)
SUM_PASS(8)

/* 4 groups at once, each stream prefetched 1 KiB ahead (4 KiB in all);
 * scales read (and the next walk's prefetched) unless noscales. */
static double groups4(const uint8_t *p, size_t bytes, int noscales) {
  const __m512i a = _mm512_set1_epi8(3);
  __m512i s[8];
  for (int i = 0; i < 8; ++i)
    s[i] = _mm512_setzero_si512();
  const size_t groups = bytes / GROUP / 4 * 4;
  double t0 = now();
  for (size_t g = 0; g < groups; g += 4) {
    const uint8_t *g0 = p + g * GROUP;
    for (int b = 0; b < 32; ++b) {
      for (int k = 0; k < 4; ++k) {
        const uint8_t *q = g0 + k * GROUP + META + 256 * b;
        for (int o = 0; o < 256; o += 64)
          PF(q + 1024 + o);
        for (int c = 0; c < 4; ++c) {
          const __m512i v = _mm512_load_si512(q + 64 * c);
          s[2 * k] = _mm512_dpbusd_epi32(s[2 * k], v, a);
          s[2 * k + 1] = _mm512_dpbusd_epi32(s[2 * k + 1], v, a);
        }
      }
      if (noscales)
        continue;
      for (int k = 0; k < 4; ++k) {
        if (!(b & 1))
          PF(g0 + (4 + k) * GROUP + 32 * b);
        const __m512i m = _mm512_cvtepu16_epi32(
            _mm256_load_si256((const __m256i *)(g0 + k * GROUP + 32 * b)));
        s[k] = _mm512_add_epi32(s[k], m);
      }
    }
  }
  double t = now() - t0;
  sink = fold(s, 8);
  return t;
}
static double groups4_scales(const uint8_t *p, size_t bytes) { return groups4(p, bytes, 0); }
static double groups4_noscales(const uint8_t *p, size_t bytes) { return groups4(p, bytes, 1); }

/* One stream of lines [64 bytes of scales][2 x 256 bytes of quants],
 * prefetched 8 KiB ahead. */
static double lines1(const uint8_t *p, size_t bytes) {
  const __m512i a = _mm512_set1_epi8(3);
  __m512i s[8];
  for (int i = 0; i < 8; ++i)
    s[i] = _mm512_setzero_si512();
  double t0 = now();
  for (size_t l = 0; l + LINE <= bytes; l += LINE) {
    const uint8_t *ln = p + l;
    for (int o = 0; o < LINE; o += 64)
      PF(ln + 8192 + o);
    for (int b = 0; b < 2; ++b) {
      for (int c = 0; c < 4; ++c) {
        const __m512i v = _mm512_load_si512(ln + 64 + 256 * b + 64 * c);
        s[2 * c] = _mm512_dpbusd_epi32(s[2 * c], v, a);
        s[2 * c + 1] = _mm512_dpbusd_epi32(s[2 * c + 1], v, a);
      }
      const __m512i m = _mm512_cvtepu16_epi32(_mm256_load_si256((const __m256i *)(ln + 32 * b)));
      s[b] = _mm512_add_epi32(s[b], m);
    }
  }
  double t = now() - t0;
  sink = fold(s, 8);
  return t;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return v[n / 2];
}

typedef double (*pass_fn)(const uint8_t *, size_t);
int main(int argc, char **argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 15;
  if (rounds < 1 || rounds > ROUNDS_MAX) {
    fprintf(stderr, "stream_ladder: ROUNDS is 1 to %d\n", ROUNDS_MAX);
    return 2;
  }
  const size_t big = (size_t)GROUP * GROUPS, small = (size_t)512 << 10;
  const size_t align = (size_t)2 << 20;
  uint8_t *w = aligned_alloc(align, (big + align - 1) / align * align);
  uint8_t *c = aligned_alloc(align, align);
  if (!w || !c)
    return 1;
  madvise(w, big, MADV_HUGEPAGE);
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < big; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    w[i] = (uint8_t)x;
  }
  for (size_t i = 0; i < small; ++i)
    c[i] = (uint8_t)i;
  const struct {
    const char *name;
    pass_fn fn;
    int in_cache;
  } passes[] = {{"sum", sum_0, 1},
                {"sum + 2 dpbusd", sum_2, 1},
                {"sum + 4 dpbusd", sum_4, 1},
                {"sum + 8 dpbusd", sum_8, 1},
                {"4 groups", groups4_scales, 0},
                {"4 groups, no scales", groups4_noscales, 0},
                {"1 stream, scales between quants", lines1, 0}};
  enum { NP = sizeof passes / sizeof passes[0] };
  static double t[NP][ROUNDS_MAX], ic[NP][ROUNDS_MAX], ratio[NP][ROUNDS_MAX];
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < NP; ++k) {
      t[k][r] = passes[k].fn(w, big);
      if (passes[k].in_cache) {
        double t0 = now();
        for (int i = 0; i < 64; ++i)
          passes[k].fn(c, small);
        ic[k][r] = (double)small * 64 / (now() - t0) / 1e9;
      }
    }
  printf("%-34s %9s %12s %10s\n", "pass (128 MiB streamed)", "GB/s", "/ sum", "in cache");
  for (int k = 0; k < NP; ++k) {
    double gb[ROUNDS_MAX];
    for (int r = 0; r < rounds; ++r) {
      gb[r] = (double)big / t[k][r] / 1e9;
      ratio[k][r] = t[0][r] / t[k][r];
    }
    printf("%-34s %9.1f %12.3f", passes[k].name, median(gb, rounds), median(ratio[k], rounds));
    if (passes[k].in_cache)
      printf(" %9.1f", median(ic[k], rounds));
    printf("\n");
  }
  return 0;
}
