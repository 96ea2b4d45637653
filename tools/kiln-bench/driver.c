/* driver.c - the program kiln-bench links against the compiled library
 * (bench.h, libbench.a) and times. kilnc embeds this file; kiln-bench writes
 * it beside the library and compiles it for the host. It speaks the protocol
 * scripts/llama-cpp-driver.c speaks too:
 *   driver THREADS DECODE P1 [P2 ...]
 *   -> "first_token T" (CLOCK_MONOTONIC seconds), "ttft P S", "decode N S",
 *      "VmHWM: K kB" (its peak resident memory)
 * It places the weights as the environment variable KILN_BENCH_WEIGHTS says,
 * so one build serves an A/B of the placements: external weights (read from
 * bench.weights beside it) huge, anon or file, default huge; embedded ones
 * embedded (default), embedded-4k (in place, 4 KiB entries) or copied by
 * bench_copy_weights, huge or anon.
 */
#define _DEFAULT_SOURCE
#include "bench.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
static void check(kiln_status s, const char *what) {
  if (s == KILN_OK) return;
  fprintf(stderr, "driver: %s: %s\n", what, kiln_status_string(s));
  exit(1);
}
/* 2 MiB-aligned anonymous memory, advised to use transparent huge pages
 * unless `mode` is anon. */
static uint8_t *anon_memory(size_t n, const char *mode) {
  const size_t huge = (size_t)2 << 20, len = (n + huge - 1) / huge * huge;
  uint8_t *raw = mmap(NULL, len + huge, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  uint8_t *p = (uint8_t *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
#ifdef MADV_HUGEPAGE
  if (strcmp(mode, "anon")) madvise(p, len, MADV_HUGEPAGE);
#endif
  return p;
}
static int bad_mode(const char *mode, const char *expected) {
  fprintf(stderr, "driver: KILN_BENCH_WEIGHTS=%s: expected %s\n", mode, expected);
  return 0;
}
#if BENCH_WEIGHTS_EXTERNAL
/* bench.weights from the driver's directory, read into anonymous memory
 * (huge, anon) or mapped (file). read() does not map the file, so the
 * weights are resident once. */
static int place_weights(kiln_ctx *ctx, const char *argv0, const char *mode) {
  if (strcmp(mode, "huge") && strcmp(mode, "anon") && strcmp(mode, "file"))
    return bad_mode(mode, "huge, anon or file");
  char path[4096];
  const char *slash = strrchr(argv0, '/');
  int dir = slash ? (int)(slash - argv0 + 1) : 0;
  snprintf(path, sizeof path, "%.*sbench.weights", dir, argv0);
  int fd = open(path, O_RDONLY);
  if (fd < 0) { perror(path); return 0; }
  const size_t n = BENCH_WEIGHTS_BYTES;
  uint8_t *p;
  if (!strcmp(mode, "file")) {
    p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) p = NULL;
  } else if ((p = anon_memory(n, mode))) {
    for (size_t done = 0; done < n;) {
      ssize_t got = read(fd, p + done, n - done);
      if (got <= 0) { perror(path); p = NULL; break; }
      done += (size_t)got;
    }
  }
  close(fd);
  if (!p) return 0;
  check(bench_set_weights(ctx, p, n), "set_weights");
  return 1;
}
#else
/* The embedded weights read in place (embedded; embedded-4k forbids the
 * kernel to map them with 2 MiB entries, to measure what those buy), or
 * copied once by bench_copy_weights into anonymous memory (huge, anon): the
 * copy touches the embedded pages too, so both count in the peak resident
 * memory. */
extern const uint8_t bench_weights_blob[];
static int place_weights(kiln_ctx *ctx, const char *argv0, const char *mode) {
  (void)argv0;
  if (!strcmp(mode, "embedded")) return 1;
  if (!strcmp(mode, "embedded-4k")) {
#ifdef MADV_NOHUGEPAGE
    uintptr_t a = (uintptr_t)bench_weights_blob & ~(uintptr_t)4095;
    size_t n = (uintptr_t)bench_weights_blob + BENCH_WEIGHTS_BYTES - a;
    if (madvise((void *)a, n, MADV_NOHUGEPAGE) != 0) perror("madvise");
#endif
    return 1;
  }
  if (strcmp(mode, "huge") && strcmp(mode, "anon"))
    return bad_mode(mode, "embedded, embedded-4k, huge or anon");
  uint8_t *p = anon_memory(BENCH_WEIGHTS_BYTES, mode);
  if (!p) return 0;
  check(bench_copy_weights(ctx, p, BENCH_WEIGHTS_BYTES), "copy_weights");
  return 1;
}
#endif
static double now(void) {
  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static float logits[BENCH_VOCAB_SIZE];
static int32_t argmax(void) {
  int32_t best = 0;
  for (int32_t j = 1; j < BENCH_VOCAB_SIZE; ++j)
    if (logits[j] > logits[best]) best = j;
  return best;
}
int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: driver THREADS DECODE P...\n"); return 2; }
  int threads = atoi(argv[1]), decode = atoi(argv[2]), np = argc - 3, maxp = 0;
  for (int i = 0; i < np; ++i) if (atoi(argv[3 + i]) > maxp) maxp = atoi(argv[3 + i]);
  int32_t *tokens = malloc(sizeof(int32_t) * (size_t)maxp);
  for (int i = 0; i < maxp; ++i) tokens[i] = (int32_t)((i * 7919 + 1) % BENCH_VOCAB_SIZE);
  /* The arena (KV cache, activations) on 2 MiB pages where the kernel has
   * them: decode walks the whole KV cache every token. */
  const size_t huge = (size_t)2 << 20;
  const size_t arena_bytes = ((size_t)BENCH_ARENA_BYTES + huge - 1) & ~(huge - 1);
  uint8_t *arena = aligned_alloc(huge, arena_bytes);
  if (arena) madvise(arena, arena_bytes, MADV_HUGEPAGE);
  if (!arena || !tokens) return 1;
  kiln_ctx ctx;
  int32_t seq;
  const int p0 = atoi(argv[3]);
  check(bench_init_threads(&ctx, arena, BENCH_ARENA_BYTES, (uint32_t)threads), "init");
  const char *mode = getenv("KILN_BENCH_WEIGHTS");
  if (!place_weights(&ctx, argv[0], mode && *mode ? mode : BENCH_WEIGHTS_EXTERNAL ? "huge" : "embedded"))
    return 1;
  check(bench_seq_open(&ctx, &seq), "seq_open");
  check(bench_prefill(&ctx, seq, tokens, (size_t)p0, logits), "prefill");
  volatile int32_t first = argmax();
  printf("first_token %.9f\n", now());
  check(bench_seq_close(&ctx, seq), "seq_close");
  for (int i = 0; i < np; ++i) {
    int p = atoi(argv[3 + i]);
    check(bench_seq_open(&ctx, &seq), "seq_open");
    double t0 = now();
    check(bench_prefill(&ctx, seq, tokens, (size_t)p, logits), "prefill");
    first = argmax();
    printf("ttft %d %.9f\n", p, now() - t0);
    check(bench_seq_close(&ctx, seq), "seq_close");
  }
  check(bench_seq_open(&ctx, &seq), "seq_open");
  check(bench_prefill(&ctx, seq, tokens, (size_t)p0, logits), "prefill");
  double t0 = now();
  for (int i = 0; i < decode; ++i)
    check(bench_decode(&ctx, seq, argmax(), logits), "decode");
  printf("decode %d %.9f\n", decode, now() - t0);
  check(bench_seq_close(&ctx, seq), "seq_close");
  bench_shutdown(&ctx);
  (void)first;
  /* Peak resident memory of this process image (VmHWM; see runOnce), and
   * where the resident pages are now (anonymous or file-backed), which shows
   * where the weights were placed. */
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %ld", &(long){0}) == 1 ||
        sscanf(line, "RssAnon: %ld", &(long){0}) == 1 ||
        sscanf(line, "RssFile: %ld", &(long){0}) == 1)
      fputs(line, stdout);
  if (f) fclose(f);
  return 0;
}
