/* logits_main.c - prints a model's logits (%.9g, one line per step) after a
 * prompt and after 4 greedy decode steps, for comparing two builds of the same
 * model (--name=m) bit for bit. */
#include "m.h"

#include <stdio.h>

static _Alignas(KILN_ARENA_ALIGN) uint8_t arena[M_ARENA_BYTES];
static float logits[M_VOCAB_SIZE];

static void print(void) {
  for (int i = 0; i < M_VOCAB_SIZE; ++i)
    printf("%.9g%c", logits[i], i + 1 == M_VOCAB_SIZE ? '\n' : ' ');
}

int main(void) {
  const int32_t prompt[] = {1, 17, 300, 42, 259};
  kiln_ctx ctx;
  int32_t seq;
  kiln_status s = m_init(&ctx, arena, sizeof arena);
  if (s == KILN_OK)
    s = m_seq_open(&ctx, &seq);
  if (s == KILN_OK)
    s = m_prefill(&ctx, seq, prompt, 5, logits);
  for (int step = 0; s == KILN_OK && step < 5; ++step) {
    print();
    int32_t next = 0;
    for (int i = 1; i < M_VOCAB_SIZE; ++i)
      if (logits[i] > logits[next])
        next = i;
    if (step < 4)
      s = m_decode(&ctx, seq, next, logits);
  }
  if (s != KILN_OK) {
    fprintf(stderr, "logits_main: %s\n", kiln_status_string(s));
    return 1;
  }
  return 0;
}
