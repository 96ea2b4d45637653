/* weights_align.c - where the linked embedded weights of a model compiled
 * with --name=m start, and that m_copy_weights into 2 MiB-aligned memory
 * reads the same weights (identical logits). */
#include "m.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const uint8_t m_weights_blob[]; /* the archive's symbol */

static float a[M_VOCAB_SIZE], b[M_VOCAB_SIZE];

static int logits(kiln_ctx *ctx, float *out) {
  const int32_t prompt[4] = {1, 42, 7, 300};
  int32_t seq;
  return m_seq_open(ctx, &seq) == KILN_OK &&
         m_prefill(ctx, seq, prompt, 4, out) == KILN_OK &&
         m_seq_close(ctx, seq) == KILN_OK;
}

int main(void) {
  const size_t huge = (size_t)2 << 20;
  printf("aligned %zu: %s\n", huge,
         (uintptr_t)m_weights_blob % huge == 0 ? "yes" : "no");
  void *arena = aligned_alloc(KILN_ARENA_ALIGN, M_ARENA_BYTES);
  void *w = aligned_alloc(huge, (M_WEIGHTS_BYTES + huge - 1) / huge * huge);
  kiln_ctx ctx;
  if (!arena || !w || m_init(&ctx, arena, M_ARENA_BYTES) != KILN_OK ||
      !logits(&ctx, a) || m_copy_weights(&ctx, w, M_WEIGHTS_BYTES) != KILN_OK ||
      !logits(&ctx, b)) {
    printf("FAIL: a call failed\n");
    return 1;
  }
  printf("copy equals in place: %s\n", memcmp(a, b, sizeof a) == 0 ? "yes" : "no");
  return 0;
}
