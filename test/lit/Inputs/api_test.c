/* api_test.c - the generated C API's contract, for a model compiled with
 * --name=m --context=8 --max-seqs=2 --max-batch=4. Prints one line per check
 * and exits non-zero on the first failure. */
#include "m.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                   \
      ++failures;                                                              \
    }                                                                          \
  } while (0)
#define EXPECT_STATUS(expr, want)                                              \
  do {                                                                         \
    kiln_status s_ = (expr);                                                   \
    if (s_ != (want)) {                                                        \
      printf("FAIL %s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__,  \
             #expr, kiln_status_string(s_), #want);                            \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static float logits_a[M_VOCAB_SIZE], logits_b[M_VOCAB_SIZE];

int main(int argc, char **argv) {
  EXPECT(M_CONTEXT_LENGTH == 8 && M_MAX_SEQS == 2 && M_MAX_BATCH == 4);
  size_t bytes = M_ARENA_BYTES;
  uint8_t *raw = aligned_alloc(KILN_ARENA_ALIGN, bytes + KILN_ARENA_ALIGN);
  kiln_ctx ctx;
  memset(&ctx, 0, sizeof ctx);

  /* Before init, nothing works. */
  int32_t seq = -1;
  EXPECT_STATUS(m_seq_open(&ctx, &seq), KILN_ERR_NOT_INITIALIZED);
  EXPECT_STATUS(m_init(NULL, raw, bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_STATUS(m_init(&ctx, NULL, bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_STATUS(m_init(&ctx, raw + 8, bytes), KILN_ERR_ARENA_MISALIGNED);
  EXPECT_STATUS(m_init(&ctx, raw, bytes - 1), KILN_ERR_ARENA_TOO_SMALL);
  EXPECT_STATUS(m_init(&ctx, raw, bytes), KILN_OK);

  const int32_t prompt[8] = {1, 17, 300, 42, 259, 5, 311, 128};
#if M_WEIGHTS_EXTERNAL
  EXPECT_STATUS(m_seq_open(&ctx, &seq), KILN_OK);
  EXPECT_STATUS(m_prefill(&ctx, seq, prompt, 3, logits_a), KILN_ERR_WEIGHTS_MISSING);
  EXPECT_STATUS(m_seq_close(&ctx, seq), KILN_OK);
  FILE *f = fopen(argv[1], "rb");
  EXPECT(f != NULL);
  uint8_t *w = aligned_alloc(KILN_ARENA_ALIGN, (M_WEIGHTS_BYTES + 63) / 64 * 64);
  EXPECT(fread(w, 1, M_WEIGHTS_BYTES, f) == M_WEIGHTS_BYTES);
  fclose(f);
  EXPECT_STATUS(m_set_weights(&ctx, w, M_WEIGHTS_BYTES - 1), KILN_ERR_WEIGHTS_MISMATCH);
  w[20] ^= 1; /* the fingerprint of another compile */
  EXPECT_STATUS(m_set_weights(&ctx, w, M_WEIGHTS_BYTES), KILN_ERR_WEIGHTS_MISMATCH);
  w[20] ^= 1;
  EXPECT_STATUS(m_set_weights(&ctx, w, M_WEIGHTS_BYTES), KILN_OK);
#else
  (void)argc;
  (void)argv;
  /* The embedded weights copied into caller memory give the very same
   * logits as read in place (bit for bit: the same bytes, the same code). */
  {
    static float in_place[M_VOCAB_SIZE], copied[M_VOCAB_SIZE];
    int32_t sq = -1;
    EXPECT_STATUS(m_seq_open(&ctx, &sq), KILN_OK);
    EXPECT_STATUS(m_prefill(&ctx, sq, prompt, 5, in_place), KILN_OK);
    EXPECT_STATUS(m_seq_close(&ctx, sq), KILN_OK);
    const size_t wb = (M_WEIGHTS_BYTES + 63) / 64 * 64 + KILN_ARENA_ALIGN;
    uint8_t *w = aligned_alloc(KILN_ARENA_ALIGN, wb);
    EXPECT(w != NULL);
    memset(w, 0xA5, wb);
    kiln_ctx fresh;
    memset(&fresh, 0, sizeof fresh);
    EXPECT_STATUS(m_copy_weights(&fresh, w, wb), KILN_ERR_NOT_INITIALIZED);
    EXPECT_STATUS(m_copy_weights(NULL, w, wb), KILN_ERR_INVALID_ARGUMENT);
    EXPECT_STATUS(m_copy_weights(&ctx, NULL, wb), KILN_ERR_INVALID_ARGUMENT);
    EXPECT_STATUS(m_copy_weights(&ctx, w + 8, wb - 8), KILN_ERR_ARENA_MISALIGNED);
    EXPECT_STATUS(m_copy_weights(&ctx, w, M_WEIGHTS_BYTES - 1), KILN_ERR_ARENA_TOO_SMALL);
    EXPECT(w[0] == 0xA5); /* refused calls copy nothing */
    EXPECT_STATUS(m_copy_weights(&ctx, w, M_WEIGHTS_BYTES), KILN_OK);
    EXPECT(memcmp(w, "KILNWT01", 8) == 0);
    EXPECT_STATUS(m_seq_open(&ctx, &sq), KILN_OK);
    EXPECT_STATUS(m_prefill(&ctx, sq, prompt, 5, copied), KILN_OK);
    EXPECT_STATUS(m_seq_close(&ctx, sq), KILN_OK);
    EXPECT(memcmp(in_place, copied, sizeof copied) == 0);
    /* ... and the copy is what is read now: spoiling its payload (after the
     * 64-byte header) changes the logits. */
    for (size_t i = 64; i < M_WEIGHTS_BYTES; ++i)
      w[i] ^= 0x5A;
    EXPECT_STATUS(m_seq_open(&ctx, &sq), KILN_OK);
    EXPECT_STATUS(m_prefill(&ctx, sq, prompt, 5, copied), KILN_OK);
    EXPECT_STATUS(m_seq_close(&ctx, sq), KILN_OK);
    EXPECT(memcmp(in_place, copied, sizeof copied) != 0);
    for (size_t i = 64; i < M_WEIGHTS_BYTES; ++i)
      w[i] ^= 0x5A;
    /* w now holds the weights for the rest of this test; it outlives ctx. */
  }
#endif

  /* Sequences: two may be open; a third is refused. */
  int32_t s0 = -1, s1 = -1, s2 = -1;
  EXPECT_STATUS(m_seq_open(&ctx, &s0), KILN_OK);
  EXPECT_STATUS(m_seq_open(&ctx, &s1), KILN_OK);
  EXPECT(s0 != s1);
  EXPECT_STATUS(m_seq_open(&ctx, &s2), KILN_ERR_NO_FREE_SEQUENCE);
  EXPECT_STATUS(m_seq_open(&ctx, NULL), KILN_ERR_INVALID_ARGUMENT);

  /* Bad input changes nothing: the failed calls leave s0 empty, so its
   * logits equal those of a fresh sequence. */
  const int32_t bad[2] = {1, M_VOCAB_SIZE};
  EXPECT_STATUS(m_prefill(&ctx, s0, bad, 2, logits_a), KILN_ERR_TOKEN_OUT_OF_RANGE);
  const int32_t negative[1] = {-1};
  EXPECT_STATUS(m_prefill(&ctx, s0, negative, 1, logits_a), KILN_ERR_TOKEN_OUT_OF_RANGE);
  EXPECT_STATUS(m_prefill(&ctx, s0, prompt, 0, logits_a), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_STATUS(m_prefill(&ctx, s0, NULL, 3, logits_a), KILN_ERR_INVALID_ARGUMENT);
  const int32_t nine[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_STATUS(m_prefill(&ctx, s0, nine, 9, logits_a), KILN_ERR_CONTEXT_FULL);
  EXPECT_STATUS(m_prefill(&ctx, 7, prompt, 3, logits_a), KILN_ERR_BAD_SEQUENCE);
  EXPECT_STATUS(m_prefill(&ctx, -1, prompt, 3, logits_a), KILN_ERR_BAD_SEQUENCE);

  /* Sequences are independent: the same prompt gives the same logits on
   * either, whatever the other holds. */
  EXPECT_STATUS(m_prefill(&ctx, s1, nine, 2, NULL), KILN_OK);
  EXPECT_STATUS(m_prefill(&ctx, s0, prompt, 6, logits_a), KILN_OK);
  EXPECT_STATUS(m_seq_close(&ctx, s1), KILN_OK);
  EXPECT_STATUS(m_seq_open(&ctx, &s1), KILN_OK);
  EXPECT_STATUS(m_prefill(&ctx, s1, prompt, 6, logits_b), KILN_OK);
  EXPECT(memcmp(logits_a, logits_b, sizeof logits_a) == 0);

  /* Prefill in pieces equals prefill at once (chunking of 6 > max batch 4
   * above, and 3 + 3 here). */
  int32_t s3 = -1;
  EXPECT_STATUS(m_seq_close(&ctx, s1), KILN_OK);
  EXPECT_STATUS(m_seq_open(&ctx, &s3), KILN_OK);
  EXPECT_STATUS(m_prefill(&ctx, s3, prompt, 3, NULL), KILN_OK);
  EXPECT_STATUS(m_prefill(&ctx, s3, prompt + 3, 3, logits_b), KILN_OK);
  float max_diff = 0;
  for (int i = 0; i < M_VOCAB_SIZE; ++i) {
    float d = logits_a[i] - logits_b[i];
    d = d < 0 ? -d : d;
    max_diff = d > max_diff ? d : max_diff;
  }
  EXPECT(max_diff <= 1e-4f);

  /* The context fills up: 6 + 2 fit, the 9th token does not, and the refused
   * decode changes nothing. */
  EXPECT_STATUS(m_decode(&ctx, s0, 7, NULL), KILN_OK);
  EXPECT_STATUS(m_decode(&ctx, s0, 8, logits_a), KILN_OK);
  EXPECT_STATUS(m_decode(&ctx, s0, 9, logits_b), KILN_ERR_CONTEXT_FULL);
  EXPECT_STATUS(m_prefill(&ctx, s0, prompt, 1, logits_b), KILN_ERR_CONTEXT_FULL);

  /* Closing: twice is an error; a closed sequence cannot decode. */
  EXPECT_STATUS(m_seq_close(&ctx, s0), KILN_OK);
  EXPECT_STATUS(m_seq_close(&ctx, s0), KILN_ERR_BAD_SEQUENCE);
  EXPECT_STATUS(m_decode(&ctx, s0, 1, logits_a), KILN_ERR_BAD_SEQUENCE);

  /* Every status has its own description. */
  for (int a = 0; a <= KILN_ERR_WEIGHTS_MISMATCH; ++a)
    for (int b = a + 1; b <= KILN_ERR_WEIGHTS_MISMATCH; ++b)
      EXPECT(strcmp(kiln_status_string((kiln_status)a),
                    kiln_status_string((kiln_status)b)) != 0);

  printf("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
  return failures != 0;
}
