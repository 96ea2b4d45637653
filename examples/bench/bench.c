/* bench.c - prefill and decode timing of a Kiln-compiled model (host only).
 *
 *   kilnc model.gguf --target=x86 -o out --name=bench --context=N
 *   cc -O2 bench.c -Iout out/libbench.a -lm -o bench && ./bench PROMPT DECODE [THREADS]
 *
 * Prefills PROMPT tokens, then decodes DECODE tokens greedily, and prints the
 * wall time of each phase and tokens/s. One run per process: repeat the
 * process and take the median (see docs/performance.md). */
#define _POSIX_C_SOURCE 199309L
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static float logits[BENCH_VOCAB_SIZE];

int main(int argc, char **argv) {
  int prompt = argc > 1 ? atoi(argv[1]) : 64;
  int decode = argc > 2 ? atoi(argv[2]) : 128;
  int threads = argc > 3 ? atoi(argv[3]) : 1;
  if (prompt < 1 || decode < 1 || prompt + decode > BENCH_CONTEXT_LENGTH) {
    fprintf(stderr, "bench: need 1 <= PROMPT, 1 <= DECODE, PROMPT + DECODE <= %d\n",
            BENCH_CONTEXT_LENGTH);
    return 2;
  }
  uint8_t *arena = aligned_alloc(KILN_ARENA_ALIGN, BENCH_ARENA_BYTES);
  int32_t *tokens = malloc(sizeof(int32_t) * (size_t)prompt);
  for (int i = 0; i < prompt; ++i)
    tokens[i] = (int32_t)((i * 7919 + 1) % BENCH_VOCAB_SIZE);
  kiln_ctx ctx;
  int32_t seq;
  kiln_status s = bench_init_threads(&ctx, arena, BENCH_ARENA_BYTES, (uint32_t)threads);
  if (s == KILN_OK)
    s = bench_seq_open(&ctx, &seq);
  double t0 = now();
  if (s == KILN_OK)
    s = bench_prefill(&ctx, seq, tokens, (size_t)prompt, logits);
  double t1 = now();
  for (int i = 0; s == KILN_OK && i < decode; ++i) {
    int32_t best = 0;
    for (int32_t j = 1; j < BENCH_VOCAB_SIZE; ++j)
      if (logits[j] > logits[best])
        best = j;
    s = bench_decode(&ctx, seq, best, logits);
  }
  double t2 = now();
  bench_shutdown(&ctx);
  if (s != KILN_OK) {
    fprintf(stderr, "bench: %s\n", kiln_status_string(s));
    return 1;
  }
  printf("prefill_tokens %d prefill_s %.6f prefill_tok_s %.2f\n", prompt,
         t1 - t0, prompt / (t1 - t0));
  printf("decode_tokens %d decode_s %.6f decode_tok_s %.2f\n", decode, t2 - t1,
         decode / (t2 - t1));
  return 0;
}
