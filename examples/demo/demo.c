/* demo.c - the smallest program that runs a Kiln-compiled model.
 *
 *   kilnc models/kjv-llama.gguf --target=generic -o out --name=demo
 *   cc demo.c -Iout out/libdemo.a -lm -o demo
 *   ./demo $(kiln-tokenize models/kjv-llama.gguf --encode="And God said")
 *
 * Prefills the token ids given as arguments and prints the ids of 32 greedy
 * tokens; the library has no tokenizer, so scripts/demo.sh turns them into
 * text with `kiln-tokenize --decode`. */
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>

/* All the model's memory: sequence table, KV cache and activations. */
static _Alignas(KILN_ARENA_ALIGN) uint8_t arena[DEMO_ARENA_BYTES];
static float logits[DEMO_VOCAB_SIZE];

static int argmax(const float *v, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (v[i] > v[best])
      best = i;
  return best;
}

int main(int argc, char **argv) {
  int32_t prompt[64];
  int n = 0;
  for (int i = 1; i < argc && n < 64; ++i)
    prompt[n++] = (int32_t)atoi(argv[i]);
  if (n == 0) {
    fprintf(stderr, "usage: %s TOKEN_ID...\n", argv[0]);
    return 2;
  }
  kiln_ctx ctx;
  int32_t seq;
  kiln_status s = demo_init(&ctx, arena, sizeof arena);
  if (s == KILN_OK)
    s = demo_seq_open(&ctx, &seq);
  if (s == KILN_OK)
    s = demo_prefill(&ctx, seq, prompt, (size_t)n, logits);
  for (int i = 0; s == KILN_OK && i < 32; ++i) {
    int32_t next = argmax(logits, DEMO_VOCAB_SIZE);
    printf("%d%s", next, i == 31 ? "\n" : " ");
    s = demo_decode(&ctx, seq, next, logits);
  }
  if (s != KILN_OK) {
    fprintf(stderr, "demo: %s\n", kiln_status_string(s));
    return 1;
  }
  return 0;
}
