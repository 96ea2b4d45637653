/* paged_test.c - paged KV through the generated API, for a model compiled with
 * --name=p --context=8 --max-seqs=3 --kv-block=4 --kv-pool-tokens=16 (4 blocks
 * of 4 tokens): fork shares blocks, the first append to a shared partly filled
 * block copies it, an append the pool cannot hold fails and changes nothing. */
#include "p.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("FAIL line %d: %s\n", __LINE__, #cond);                           \
      ++failures;                                                              \
    }                                                                          \
  } while (0)
#define EXPECT_STATUS(expr, want)                                              \
  do {                                                                         \
    kiln_status s_ = (expr);                                                   \
    if (s_ != (want)) {                                                        \
      printf("FAIL line %d: %s returned %s, expected %s\n", __LINE__, #expr,   \
             kiln_status_string(s_), #want);                                   \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static float la[P_VOCAB_SIZE], lb[P_VOCAB_SIZE], lc[P_VOCAB_SIZE];
static float batch[2 * P_VOCAB_SIZE];

static float max_diff(const float *a, const float *b) {
  float m = 0;
  for (int i = 0; i < P_VOCAB_SIZE; ++i) {
    float d = a[i] - b[i];
    d = d < 0 ? -d : d;
    m = d > m ? d : m;
  }
  return m;
}

int main(void) {
  EXPECT(P_KV_BLOCK == 4 && P_KV_BLOCKS == 4 && P_MAX_SEQS == 3);
  uint8_t *arena = aligned_alloc(KILN_ARENA_ALIGN, P_ARENA_BYTES);
  kiln_ctx ctx;
  EXPECT_STATUS(p_init(&ctx, arena, P_ARENA_BYTES), KILN_OK);
  EXPECT(p_kv_free_blocks(&ctx) == 4);

  const int32_t prompt[8] = {1, 17, 300, 42, 259, 5, 7, 8};
  int32_t a, b, c;
  EXPECT_STATUS(p_seq_open(&ctx, &a), KILN_OK);
  EXPECT(p_kv_free_blocks(&ctx) == 4); /* an empty sequence holds nothing */
  EXPECT_STATUS(p_prefill(&ctx, a, prompt, 6, la), KILN_OK);
  EXPECT(p_kv_free_blocks(&ctx) == 2);

  /* Fork shares both blocks. */
  EXPECT_STATUS(p_seq_fork(&ctx, a, &b), KILN_OK);
  EXPECT(p_kv_free_blocks(&ctx) == 2);
  EXPECT_STATUS(p_seq_fork(&ctx, 7, &c), KILN_ERR_BAD_SEQUENCE);

  /* The first to append to the shared, half-full last block copies it. */
  EXPECT_STATUS(p_decode(&ctx, a, 7, la), KILN_OK);
  EXPECT(p_kv_free_blocks(&ctx) == 1);
  EXPECT_STATUS(p_decode(&ctx, b, 7, lb), KILN_OK);
  EXPECT(p_kv_free_blocks(&ctx) == 1);
  EXPECT(max_diff(la, lb) == 0.0f);

  /* Diverge: b's token must not leak into a. */
  EXPECT_STATUS(p_decode(&ctx, b, 300, lb), KILN_OK);
  EXPECT_STATUS(p_decode(&ctx, a, 8, la), KILN_OK);

  /* c needs two blocks, the pool has one left: refused, nothing changes. */
  EXPECT_STATUS(p_seq_open(&ctx, &c), KILN_OK);
  EXPECT_STATUS(p_prefill(&ctx, c, prompt, 8, lc), KILN_ERR_KV_POOL_EXHAUSTED);
  EXPECT(p_kv_free_blocks(&ctx) == 1);
  /* Closing b returns the block only it held. */
  EXPECT_STATUS(p_seq_close(&ctx, b), KILN_OK);
  EXPECT(p_kv_free_blocks(&ctx) == 2);
  EXPECT_STATUS(p_prefill(&ctx, c, prompt, 8, lc), KILN_OK);
  EXPECT(p_kv_free_blocks(&ctx) == 0);
  /* a saw exactly c's eight tokens. */
  EXPECT(max_diff(la, lc) <= 1e-5f);
  EXPECT(max_diff(la, lb) > 1e-3f);

  EXPECT_STATUS(p_decode(&ctx, a, 9, la), KILN_ERR_CONTEXT_FULL);
  EXPECT_STATUS(p_seq_close(&ctx, a), KILN_OK);
  EXPECT_STATUS(p_seq_close(&ctx, c), KILN_OK);
  EXPECT(p_kv_free_blocks(&ctx) == 4);

  /* Batched decode: two sequences in one call get what each gets alone. */
  EXPECT_STATUS(p_seq_open(&ctx, &a), KILN_OK);
  EXPECT_STATUS(p_seq_open(&ctx, &b), KILN_OK);
  EXPECT_STATUS(p_prefill(&ctx, a, prompt, 2, NULL), KILN_OK);
  EXPECT_STATUS(p_prefill(&ctx, b, prompt + 2, 3, NULL), KILN_OK);
  int32_t pair[2] = {a, b}, next[2] = {5, 6}, dup[2] = {a, a};
  EXPECT_STATUS(p_decode_batch(&ctx, dup, next, 2, batch), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_STATUS(p_decode_batch(&ctx, pair, next, 0, batch), KILN_ERR_INVALID_ARGUMENT);
  int32_t bad[2] = {a, 2};
  EXPECT_STATUS(p_decode_batch(&ctx, bad, next, 2, batch), KILN_ERR_BAD_SEQUENCE);
  int32_t oov[2] = {5, P_VOCAB_SIZE};
  EXPECT_STATUS(p_decode_batch(&ctx, pair, oov, 2, batch), KILN_ERR_TOKEN_OUT_OF_RANGE);
  EXPECT_STATUS(p_decode_batch(&ctx, pair, next, 2, batch), KILN_OK);
  EXPECT_STATUS(p_seq_close(&ctx, a), KILN_OK);
  EXPECT_STATUS(p_seq_close(&ctx, b), KILN_OK);
  EXPECT_STATUS(p_seq_open(&ctx, &a), KILN_OK);
  EXPECT_STATUS(p_prefill(&ctx, a, prompt, 2, NULL), KILN_OK);
  EXPECT_STATUS(p_decode(&ctx, a, 5, la), KILN_OK);
  EXPECT_STATUS(p_seq_close(&ctx, a), KILN_OK);
  EXPECT_STATUS(p_seq_open(&ctx, &b), KILN_OK);
  EXPECT_STATUS(p_prefill(&ctx, b, prompt + 2, 3, NULL), KILN_OK);
  EXPECT_STATUS(p_decode(&ctx, b, 6, lb), KILN_OK);
  EXPECT(max_diff(batch, la) <= 1e-5f);
  EXPECT(max_diff(batch + P_VOCAB_SIZE, lb) <= 1e-5f);

  /* All or nothing: one sequence's full context refuses the whole batch. */
  EXPECT_STATUS(p_seq_open(&ctx, &a), KILN_OK);
  EXPECT_STATUS(p_prefill(&ctx, a, prompt, 8, NULL), KILN_OK);
  int32_t both[2] = {a, b};
  uint32_t free_before = p_kv_free_blocks(&ctx);
  EXPECT_STATUS(p_decode_batch(&ctx, both, next, 2, batch), KILN_ERR_CONTEXT_FULL);
  EXPECT(p_kv_free_blocks(&ctx) == free_before);
  EXPECT_STATUS(p_decode(&ctx, b, 7, lc), KILN_OK); /* b still at 4 tokens */

  printf("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
  return failures != 0;
}
