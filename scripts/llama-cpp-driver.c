/* llama-cpp-driver.c - kiln-bench's measurement protocol through llama.cpp.
 *
 *   llama-cpp-driver MODEL.gguf THREADS DECODE P1 [P2 ...]
 *   -> "first_token T" (CLOCK_MONOTONIC seconds), "ttft P S", "decode N S",
 *      "VmHWM: K kB" (peak resident memory, read before exit)
 *
 * The same steps as kiln-bench's own driver, on the same GGUF with the same
 * token ids (i * 7919 + 1 mod vocab) and greedy argmax over the logits:
 * load + prefill of P1 + argmax is the cold start; each prompt length is
 * prefilled into an emptied KV cache; decode steps follow a P1-token prompt.
 * Built by scripts/bench-llama-cpp.sh against the prebuilt llama.cpp CPU
 * libraries of node-llama-cpp (llama.h from the llama.cpp sources it ships).
 * llama.cpp keeps its defaults otherwise (f16 KV cache, mmap, flash attention
 * "auto", n_ubatch 512), with n_batch 512 and n_ctx just large enough. */
#define _POSIX_C_SOURCE 199309L
#include "ggml-backend.h"
#include "llama.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void quiet(enum ggml_log_level level, const char *text, void *user) {
  (void)user;
  if (level == GGML_LOG_LEVEL_ERROR)
    fputs(text, stderr);
}

static struct llama_context *lctx;
static int32_t n_vocab;

static int32_t argmax(void) {
  const float *l = llama_get_logits_ith(lctx, -1);
  int32_t best = 0;
  for (int32_t j = 1; j < n_vocab; ++j)
    if (l[j] > l[best])
      best = j;
  return best;
}

static void eval(llama_token *tokens, int32_t n) {
  /* Chunks of n_batch; only the last token's logits are computed. */
  for (int32_t i = 0; i < n; i += 512) {
    int32_t c = n - i < 512 ? n - i : 512;
    if (llama_decode(lctx, llama_batch_get_one(tokens + i, c)) != 0) {
      fprintf(stderr, "llama-cpp-driver: llama_decode failed\n");
      exit(1);
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: llama-cpp-driver MODEL THREADS DECODE P1 [P2 ...]\n");
    return 2;
  }
  const int threads = atoi(argv[2]), decode = atoi(argv[3]), np = argc - 4;
  int maxp = 0;
  for (int i = 0; i < np; ++i)
    if (atoi(argv[4 + i]) > maxp)
      maxp = atoi(argv[4 + i]);
  const int p0 = atoi(argv[4]);
  llama_log_set(quiet, NULL);
  ggml_backend_load_all_from_path(LLAMA_LIBS);
  llama_backend_init();
  struct llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  struct llama_model *model = llama_model_load_from_file(argv[1], mp);
  if (!model) {
    fprintf(stderr, "llama-cpp-driver: cannot load %s\n", argv[1]);
    return 1;
  }
  struct llama_context_params cp = llama_context_default_params();
  cp.n_ctx = (uint32_t)((maxp > p0 + decode ? maxp : p0 + decode) + 16);
  cp.n_batch = 512;
  cp.n_threads = threads;
  cp.n_threads_batch = threads;
  cp.no_perf = true;
  lctx = llama_init_from_model(model, cp);
  if (!lctx) {
    fprintf(stderr, "llama-cpp-driver: cannot create a context\n");
    return 1;
  }
  n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
  llama_token *tokens = malloc(sizeof(llama_token) * (size_t)maxp);
  for (int i = 0; i < maxp; ++i)
    tokens[i] = (llama_token)((i * 7919 + 1) % n_vocab);
  llama_memory_t mem = llama_get_memory(lctx);

  eval(tokens, p0);
  volatile int32_t first = argmax();
  printf("first_token %.9f\n", now());
  for (int i = 0; i < np; ++i) {
    int p = atoi(argv[4 + i]);
    llama_memory_clear(mem, true);
    double t0 = now();
    eval(tokens, p);
    first = argmax();
    printf("ttft %d %.9f\n", p, now() - t0);
  }
  llama_memory_clear(mem, true);
  eval(tokens, p0);
  double t0 = now();
  for (int i = 0; i < decode; ++i) {
    llama_token t = argmax();
    eval(&t, 1);
  }
  printf("decode %d %.9f\n", decode, now() - t0);
  (void)first;
  llama_free(lctx);
  llama_model_free(model);
  /* Peak resident memory of this process image, as kiln-bench's driver. */
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %ld", &kib) == 1)
      fputs(line, stdout);
  if (f)
    fclose(f);
  return 0;
}
