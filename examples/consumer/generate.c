/* generate.c - the model-facing half of the consumer: prefill a prompt, then
 * 16 greedy tokens written as one line of text. Uses no C library (Hexagon
 * builds are freestanding). */
#include "generate.h"

#include "tiny.h"

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

static char *put_uint(char *p, uint32_t v) {
  char digits[10];
  int n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n)
    *p++ = digits[--n];
  return p;
}

int generate(const int32_t *prompt, size_t n, char *text, const char **error) {
  kiln_ctx ctx;
  int32_t seq;
  char *p = text;
  if (n > TINY_MAX_BATCH)
    n = TINY_MAX_BATCH;
  kiln_status s = tiny_init(&ctx, arena, sizeof arena);
  if (s == KILN_OK)
    s = tiny_seq_open(&ctx, &seq);
  if (s == KILN_OK)
    s = tiny_prefill(&ctx, seq, prompt, n, logits);
  for (int i = 0; s == KILN_OK && i < GENERATE_TOKENS; ++i) {
    int32_t next = argmax(logits, TINY_VOCAB_SIZE);
    p = put_uint(p, (uint32_t)next);
    *p++ = i + 1 == GENERATE_TOKENS ? '\n' : ' ';
    if (i + 1 < GENERATE_TOKENS)
      s = tiny_decode(&ctx, seq, next, logits);
  }
  *p = 0;
  if (s != KILN_OK) {
    *error = kiln_status_string(s);
    return -1;
  }
  return (int)(p - text);
}
