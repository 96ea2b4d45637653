/* attention_prefill.c - time the tiled attention kernel alone over one
 * layer's 512-token prefill of the TinyLlama shape (32 query heads, 4 KV
 * heads, head dimension 64, f16 KV cache in blocks of 64 tokens), in the
 * prefill chunks of 64 rows the generated code calls it with (host only).
 *
 *   K=kernels R=runtime
 *   clang-16 -O2 -march=native -std=c11 -D_GNU_SOURCE -DKILN_THREADS -DKILN_KERNEL= \
 *     -I$K/common -I$K/generic -I$R/include examples/bench/attention_prefill.c \
 *     $R/src/kiln_runtime.c $R/src/kiln_threads.c -lpthread -lm -o attention_prefill
 *   ./attention_prefill [THREADS]
 *
 * To compare two versions of attention_tiled.c, put the other one in a
 * directory D and build a second program with -ID before -I$K/common.
 * Prints the best of 7 passes. */
#include "kiln/kiln.h"
#include "kiln_kernels.h"
#include "kernels_generic.c"
#include "attention_tiled.c"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  enum { HEADS = 32, KV_HEADS = 4, D = 64, PROMPT = 512, CHUNK = 64 };
  const uint32_t threads = argc > 1 ? (uint32_t)atoi(argv[1]) : 1;
  kiln_layout l = {0};
  l.abi_version = KILN_ABI_VERSION;
  l.struct_size = sizeof l;
  l.n_layers = 1;
  l.kv_width = KV_HEADS * D;
  l.context = 1024;
  l.max_seqs = 1;
  l.kv_block = 64;
  l.kv_blocks = 1024 / 64;
  l.activation_bytes = 64;
  l.max_threads = 2;
  l.kv_dtype = KILN_KV_F16;
  const size_t bytes = kiln_arena_bytes(&l);
  void *arena = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
  kiln_ctx ctx;
  if (!arena || kiln_ctx_init(&ctx, &l, arena, bytes) != KILN_OK ||
      kiln_threads_start(&ctx, threads) != KILN_OK) {
    fprintf(stderr, "attention_prefill: setup failed (threads 1 or 2)\n");
    return 1;
  }
  static float q[CHUNK * HEADS * D], k[CHUNK * KV_HEADS * D],
      v[CHUNK * KV_HEADS * D], out[CHUNK * HEADS * D];
  srand(1);
  for (int i = 0; i < CHUNK * HEADS * D; ++i)
    q[i] = rand() / (float)RAND_MAX - 0.5f;
  for (int i = 0; i < CHUNK * KV_HEADS * D; ++i) {
    k[i] = rand() / (float)RAND_MAX - 0.5f;
    v[i] = rand() / (float)RAND_MAX - 0.5f;
  }
  double best = 1e9;
  for (int pass = 0; pass < 7; ++pass) {
    int32_t s, seq[CHUNK];
    uint32_t pos[CHUNK];
    kiln_seq_open(&ctx, &s);
    const double t0 = now();
    for (int c0 = 0; c0 < PROMPT; c0 += CHUNK) {
      for (int r = 0; r < CHUNK; ++r) {
        seq[r] = s;
        pos[r] = (uint32_t)(c0 + r);
      }
      kiln_attention_f32_tiled(&ctx, 0, seq, pos, q, k, v, CHUNK, HEADS,
                               KV_HEADS, D, 0.125f, out, 0);
      ctx.seqs[s].length += CHUNK;
    }
    const double t = now() - t0;
    best = t < best ? t : best;
    kiln_seq_close(&ctx, s);
  }
  printf("%.3f ms per layer (512-token prefill, %u thread(s), best of 7)\n",
         best * 1e3, threads);
  kiln_threads_stop(&ctx);
  free(arena);
  return 0;
}
