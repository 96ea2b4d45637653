/* threads_test.c - the thread pool through the generated API, for a model
 * compiled with --name=t --threads=2: two threads give the logits one gives,
 * bit for bit; more threads than compiled for are refused. */
#include "t.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float one[T_VOCAB_SIZE], two[T_VOCAB_SIZE];

static int run(uint32_t threads, float *logits) {
  uint8_t *arena = aligned_alloc(KILN_ARENA_ALIGN, T_ARENA_BYTES);
  kiln_ctx ctx;
  kiln_status s = t_init_threads(&ctx, arena, T_ARENA_BYTES, threads);
  if (s != KILN_OK) {
    free(arena);
    return (int)s;
  }
  const int32_t prompt[5] = {1, 17, 300, 42, 259};
  int32_t seq;
  if (t_seq_open(&ctx, &seq) != KILN_OK ||
      t_prefill(&ctx, seq, prompt, 5, NULL) != KILN_OK ||
      t_decode(&ctx, seq, 7, logits) != KILN_OK)
    return -1;
  t_shutdown(&ctx);
  /* After shutdown the context still works, single-threaded. */
  if (t_decode(&ctx, seq, 8, NULL) != KILN_OK)
    return -2;
  free(arena);
  return 0;
}

int main(void) {
  int failures = 0;
  if (T_MAX_THREADS != 2) { printf("FAIL max threads %d\n", T_MAX_THREADS); ++failures; }
  int rc = run(3, one);
  if (rc != KILN_ERR_INVALID_ARGUMENT) { printf("FAIL 3 threads: %d\n", rc); ++failures; }
  if ((rc = run(1, one)) != 0) { printf("FAIL 1 thread: %d\n", rc); ++failures; }
  if ((rc = run(2, two)) != 0) { printf("FAIL 2 threads: %d\n", rc); ++failures; }
  if (memcmp(one, two, sizeof one) != 0) { printf("FAIL logits differ\n"); ++failures; }
  printf("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
  return failures != 0;
}
