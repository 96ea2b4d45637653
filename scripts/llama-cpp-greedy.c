/* llama-cpp-greedy.c - greedy decoding through llama.cpp, printed as
 * kiln-run prints it, to compare the two on the same GGUF.
 *
 *   llama-cpp-greedy MODEL GENERATE T1,T2,... [STEP ...]
 *   -> "tokens G1 G2 ..." (GENERATE greedy ids after the prompt) and, for
 *      each STEP (0 = after the prompt), "logits@STEP v v ..." (every logit
 *      with %.9g), as kiln-run --tokens=... --generate=N --logits-at=STEPS.
 *
 * One thread, llama.cpp's defaults otherwise (f16 KV cache). Built by
 * scripts/bench-llama-cpp.sh beside llama-cpp-driver; used by
 * scripts/compare-llama-cpp.sh, never by the test suite's default labels. */
#include "ggml-backend.h"
#include "llama.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void quiet(enum ggml_log_level level, const char *text, void *user) {
  (void)user;
  if (level == GGML_LOG_LEVEL_ERROR)
    fputs(text, stderr);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: llama-cpp-greedy MODEL GENERATE T1,T2,... [STEP ...]\n");
    return 2;
  }
  const int generate = atoi(argv[2]);
  llama_token prompt[4096];
  int n = 0;
  for (char *s = strtok(argv[3], ","); s && n < 4096; s = strtok(NULL, ","))
    prompt[n++] = (llama_token)atoi(s);
  llama_log_set(quiet, NULL);
  ggml_backend_load_all_from_path(LLAMA_LIBS);
  llama_backend_init();
  struct llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  struct llama_model *model = llama_model_load_from_file(argv[1], mp);
  if (!model) {
    fprintf(stderr, "llama-cpp-greedy: cannot load %s\n", argv[1]);
    return 1;
  }
  struct llama_context_params cp = llama_context_default_params();
  cp.n_ctx = (uint32_t)(n + generate + 16);
  cp.n_batch = 512;
  cp.n_threads = 1;
  cp.n_threads_batch = 1;
  cp.no_perf = true;
  struct llama_context *ctx = llama_init_from_model(model, cp);
  if (!ctx) {
    fprintf(stderr, "llama-cpp-greedy: cannot create a context\n");
    return 1;
  }
  const int32_t vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
  llama_token *out = malloc(sizeof(llama_token) * (size_t)(generate + 1));
  float **logits = calloc((size_t)generate + 1, sizeof(float *));
  if (llama_decode(ctx, llama_batch_get_one(prompt, n)) != 0)
    return fprintf(stderr, "llama-cpp-greedy: llama_decode failed\n"), 1;
  for (int g = 0; g <= generate; ++g) {
    const float *l = llama_get_logits_ith(ctx, -1);
    logits[g] = malloc(sizeof(float) * (size_t)vocab);
    memcpy(logits[g], l, sizeof(float) * (size_t)vocab);
    if (g == generate)
      break;
    llama_token best = 0;
    for (int32_t j = 1; j < vocab; ++j)
      if (l[j] > l[best])
        best = j;
    out[g] = best;
    if (llama_decode(ctx, llama_batch_get_one(&out[g], 1)) != 0)
      return fprintf(stderr, "llama-cpp-greedy: llama_decode failed\n"), 1;
  }
  printf("tokens");
  for (int g = 0; g < generate; ++g)
    printf(" %d", out[g]);
  printf("\n");
  for (int a = 4; a < argc; ++a) {
    int step = atoi(argv[a]);
    if (step < 0 || step > generate)
      continue;
    printf("logits@%d", step);
    for (int32_t j = 0; j < vocab; ++j)
      printf(" %.9g", logits[step][j]);
    printf("\n");
  }
  llama_free(ctx);
  llama_model_free(model);
  return 0;
}
