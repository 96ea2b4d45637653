/* main.c - a program linking a model that kiln_add_model() compiled.
 *
 * Prefills the token ids given as arguments and prints 16 greedy tokens on one
 * line, space-separated (the format of kiln-run --generate=16). */
#include "tiny.h"

#include <stdio.h>
#include <stdlib.h>

/* Every byte the model touches: sequences, KV cache, activations. */
static _Alignas(KILN_ARENA_ALIGN) uint8_t arena[TINY_ARENA_BYTES];
static float logits[TINY_VOCAB_SIZE];

static int32_t argmax(const float *v, int n) {
  int32_t best = 0;
  for (int i = 1; i < n; ++i)
    if (v[i] > v[best])
      best = i;
  return best;
}

int main(int argc, char **argv) {
  int32_t prompt[TINY_MAX_BATCH];
  size_t n = 0;
  for (int i = 1; i < argc && n < TINY_MAX_BATCH; ++i)
    prompt[n++] = (int32_t)atoi(argv[i]);
  if (n == 0) {
    fprintf(stderr, "usage: %s TOKEN_ID...\n", argv[0]);
    return 2;
  }
  kiln_ctx ctx;
  int32_t seq;
  kiln_status s = tiny_init(&ctx, arena, sizeof arena);
  if (s == KILN_OK)
    s = tiny_seq_open(&ctx, &seq);
  if (s == KILN_OK)
    s = tiny_prefill(&ctx, seq, prompt, n, logits);
  for (int i = 0; s == KILN_OK && i < 16; ++i) {
    int32_t next = argmax(logits, TINY_VOCAB_SIZE);
    printf("%d%s", (int)next, i == 15 ? "\n" : " ");
    if (i < 15)
      s = tiny_decode(&ctx, seq, next, logits);
  }
  if (s != KILN_OK) {
    fprintf(stderr, "consumer: %s\n", kiln_status_string(s));
    return 1;
  }
  return 0;
}
