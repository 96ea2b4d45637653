/* graph_api_test.c - the generated API of a graph model (ONNX), for the
 * model of test/lit/onnx/graph-api.test compiled with --name=g: y = x * 2 + b
 * (x float [2,3], b = {1, 2, 3}) and mask = y > 3 (bool [2,3]). Prints one
 * line per failed check and exits non-zero if any failed. */
#include "g.h"

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

int main(void) {
  /* The header states every input and output: name, type, shape, bytes. */
  EXPECT(G_NUM_INPUTS == 1 && G_NUM_OUTPUTS == 2);
  EXPECT(!strcmp(g_inputs[0].name, "x") && g_inputs[0].dtype == 1 &&
         g_inputs[0].rank == 2 && g_inputs[0].shape[0] == 2 &&
         g_inputs[0].shape[1] == 3 && g_inputs[0].bytes == G_INPUT_0_BYTES &&
         G_INPUT_0_BYTES == 24);
  EXPECT(!strcmp(g_outputs[0].name, "y") && g_outputs[0].dtype == 1 &&
         G_OUTPUT_0_BYTES == 24);
  EXPECT(!strcmp(g_outputs[1].name, "mask") && g_outputs[1].dtype == 9 &&
         G_OUTPUT_1_BYTES == 6);

  kiln_ctx ctx;
  void *arena = aligned_alloc(KILN_ARENA_ALIGN, G_ARENA_BYTES + 64);
  EXPECT(g_init(&ctx, arena, G_ARENA_BYTES - 1) == KILN_ERR_ARENA_TOO_SMALL);
  EXPECT(g_init(&ctx, (char *)arena + 1, G_ARENA_BYTES) ==
         KILN_ERR_ARENA_MISALIGNED);
  EXPECT(g_init(&ctx, arena, G_ARENA_BYTES) == KILN_OK);
  /* More threads than compiled for: the context is usable, single-threaded. */
  EXPECT(g_init_threads(&ctx, arena, G_ARENA_BYTES, G_MAX_THREADS + 1) ==
         KILN_ERR_INVALID_ARGUMENT);
  EXPECT(g_init_threads(&ctx, arena, G_ARENA_BYTES, G_MAX_THREADS) == KILN_OK);
  EXPECT(ctx.threads == G_MAX_THREADS);

  const float x[6] = {0, 1, 2, -1, 0.5f, 10};
  float y[6];
  unsigned char mask[6];
  const void *in[1] = {x};
  void *out[2] = {y, mask};
  void *bad_out[2] = {y, NULL};
  EXPECT(g_run(&ctx, NULL, out) == KILN_ERR_INVALID_ARGUMENT);
  EXPECT(g_run(&ctx, in, bad_out) == KILN_ERR_INVALID_ARGUMENT);
  kiln_ctx uninit;
  memset(&uninit, 0, sizeof uninit);
  EXPECT(g_run(&uninit, in, out) == KILN_ERR_NOT_INITIALIZED);

  EXPECT(g_run(&ctx, in, out) == KILN_OK);
  const float b[3] = {1, 2, 3};
  for (int i = 0; i < 6; ++i) {
    float want = x[i] * 2 + b[i % 3];
    EXPECT(y[i] == want);
    EXPECT(mask[i] == (want > 3));
  }
  /* A second run with other inputs: nothing carries over. */
  const float x2[6] = {1, 1, 1, 1, 1, 1};
  in[0] = x2;
  EXPECT(g_run(&ctx, in, out) == KILN_OK);
  for (int i = 0; i < 6; ++i)
    EXPECT(y[i] == 2 + b[i % 3]);
  g_shutdown(&ctx);
  EXPECT(ctx.threads == 1);
  EXPECT(g_run(&ctx, in, out) == KILN_OK); /* still usable */
  for (int i = 0; i < 6; ++i)
    EXPECT(y[i] == 2 + b[i % 3]);
  free(arena);
  if (!failures)
    printf("graph API: all checks passed\n");
  return failures != 0;
}
