/* x86_prefetch_check.c - the x86 decode walks' prefetch schedule covers what
 * the next walk reads.
 *
 * kiln_x86_pf_groups (kernels/x86/kernels_x86.c) runs once per block of a
 * decode walk over G row groups. Across the walk it must request, ahead of
 * use, every 64-byte line the walk itself reads past the first stretch of
 * each quant stream, and every line the next walk (groups g0 + G ..) starts
 * with: the first stretch of its quant streams and all of its metadata. A
 * metadata line left out is a cold miss at the start of every group (with
 * 20 metadata bytes per Q4_K block, a walk once fetched one line in five).
 * This program replaces _mm_prefetch with a recorder, runs the schedule for
 * each weight type's (quant, metadata) bytes per block at G = 2 and 4 over
 * several K, and checks both sets line by line; it also checks that no
 * prefetch lands outside the weights of this walk and the next.
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kBase;   /* start of the fake weight buffer */
static long kLimit;         /* its size in bytes */
static unsigned char *kSeen; /* lines prefetched, by line index */
static int kWild;

static void record(const char *p) {
  long off = (long)(p - kBase);
  if (off < 0 || off >= kLimit) {
    ++kWild;
    return;
  }
  kSeen[off / 64] = 1;
}

#undef _mm_prefetch
#define _mm_prefetch(p, hint) record((const char *)(p))
#include "kernels/x86/kernels_x86.c"

static int check(int bytes, int meta, int nb, int G) {
  const int64_t metaBytes = ((int64_t)nb * meta + 63) & ~(int64_t)63;
  const int64_t groupBytes = metaBytes + (int64_t)nb * bytes;
  kLimit = (long)(2 * G * groupBytes + KILN_X86_PFG);
  char *buf = aligned_alloc(64, (size_t)kLimit);
  kSeen = calloc((size_t)kLimit / 64 + 1, 1);
  kBase = buf;
  kWild = 0;
  for (int b = 0; b < nb; ++b)
    kiln_x86_pf_groups((const uint8_t *)buf, groupBytes, metaBytes, nb, b, G,
                       bytes, meta);
  const int dist = KILN_X86_PFG / G;
  int bad = 0;
  for (int g = 0; g < G && !bad; ++g) {
    /* this walk: the quants beyond the first stretch */
    const int64_t q = g * groupBytes + metaBytes;
    for (int64_t o = dist; o < (int64_t)nb * bytes && !bad; o += 64)
      if (!kSeen[(q + o) / 64]) {
        printf("FAIL bytes=%d meta=%d nb=%d G=%d: group %d quant line at %lld "
               "not prefetched\n", bytes, meta, nb, G, g, (long long)o);
        bad = 1;
      }
    /* the next walk: all its metadata, then the first stretch of quants */
    const int64_t n = (G + g) * groupBytes;
    for (int64_t o = 0; o < (int64_t)nb * meta && !bad; o += 64)
      if (!kSeen[(n + o) / 64]) {
        printf("FAIL bytes=%d meta=%d nb=%d G=%d: next group %d metadata line "
               "at %lld not prefetched\n", bytes, meta, nb, G, g, (long long)o);
        bad = 1;
      }
    const int64_t stretch = dist < (int64_t)nb * bytes ? dist : (int64_t)nb * bytes;
    for (int64_t o = 0; o < stretch && !bad; o += 64)
      if (!kSeen[(n + metaBytes + o) / 64]) {
        printf("FAIL bytes=%d meta=%d nb=%d G=%d: next group %d quant line at "
               "%lld not prefetched\n", bytes, meta, nb, G, g, (long long)o);
        bad = 1;
      }
  }
  if (!bad && kWild) {
    printf("FAIL bytes=%d meta=%d nb=%d G=%d: %d prefetches outside the "
           "weights of this walk and the next\n", bytes, meta, nb, G, kWild);
    bad = 1;
  }
  free(buf);
  free(kSeen);
  return bad;
}

int main(void) {
  /* (quant bytes, metadata bytes) per 32-element block of each walk that
   * calls the schedule: AVX2 Q4_0 Q8_0 Q5_0 Q5_1 Q5_K Q4_K Q6_K IQ4_NL IQ4_XS
   * Q3_K Q2_K, then AVX-512 Q4_0 Q8_0 Q5_0 Q5_1 Q4_K Q5_K IQ4_NL IQ4_XS Q3_K
   * Q6_K Q2_K. */
  static const int kinds[][2] = {
      {128, 16}, {256, 16}, {160, 16}, {160, 32}, {160, 20}, {128, 20},
      {192, 18}, {128, 16}, {128, 10}, {96, 18},  {100, 0},  {256, 32},
      {512, 32}, {320, 32}, {320, 64}, {256, 40}, {320, 40}, {256, 32},
      {256, 20}, {192, 36}, {384, 36}, {200, 0}};
  static const int nbs[] = {8, 32, 88, 176};
  int failures = 0, runs = 0;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
    for (size_t i = 0; i < sizeof nbs / sizeof nbs[0]; ++i)
      for (int G = 2; G <= 4; G += 2) {
        failures += check(kinds[k][0], kinds[k][1], nbs[i], G);
        ++runs;
      }
  printf("%d of %d schedules cover the next walk\n", runs - failures, runs);
  return failures != 0;
}
