/* kv_memory.c - KV cache bytes, paged vs contiguous, for a mixed workload.
 *
 *   cc -O2 -Iruntime/include examples/bench/kv_memory.c runtime/src/kiln_runtime.c -o kv_memory
 *   ./kv_memory LAYERS KV_WIDTH CONTEXT SEQS BLOCK SEED
 *
 * Draws SEQS sequence lengths from a wide (log-uniform) distribution up to
 * CONTEXT, fills them through the runtime's own allocator and prints what each
 * layout reserves and how much of it holds tokens. Metadata (block tables,
 * reference counts, free list) is counted from kiln_arena_bytes. */
#include "kiln/kiln.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng_state;
static double uniform(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: kv_memory LAYERS KV_WIDTH CONTEXT SEQS BLOCK SEED\n");
    return 2;
  }
  uint32_t layers = (uint32_t)atoi(argv[1]), width = (uint32_t)atoi(argv[2]);
  uint32_t context = (uint32_t)atoi(argv[3]), seqs = (uint32_t)atoi(argv[4]);
  uint32_t block = (uint32_t)atoi(argv[5]);
  rng_state = (uint64_t)atoll(argv[6]);
  uint32_t len[1024];
  uint64_t tokens = 0;
  for (uint32_t s = 0; s < seqs; ++s) {
    len[s] = (uint32_t)exp(uniform() * log((double)context));
    if (len[s] < 1) len[s] = 1;
    tokens += len[s];
  }
  const double token_bytes = 2.0 * layers * width * sizeof(float);
  /* Contiguous: every sequence reserves its whole context. */
  kiln_layout contiguous = {KILN_ABI_VERSION, sizeof(kiln_layout), layers, width,
                            context, seqs, context, seqs, 0, 1, 0, 0, 0};
  /* Paged: a pool just large enough for this workload, found by filling it. */
  uint32_t need = 0;
  for (uint32_t s = 0; s < seqs; ++s)
    need += (len[s] + block - 1) / block;
  kiln_layout paged = {KILN_ABI_VERSION, sizeof(kiln_layout), layers, width,
                       context, seqs, block, need, 0, 1, 0, 0, 0};
  size_t pbytes = kiln_arena_bytes(&paged), cbytes = kiln_arena_bytes(&contiguous);
  void *arena = aligned_alloc(KILN_ARENA_ALIGN, pbytes);
  kiln_ctx ctx;
  if (kiln_ctx_init(&ctx, &paged, arena, pbytes) != KILN_OK) return 1;
  for (uint32_t s = 0; s < seqs; ++s) {
    int32_t id;
    if (kiln_seq_open(&ctx, &id) != KILN_OK ||
        kiln_seq_reserve(&ctx, id, len[s]) != KILN_OK) {
      fprintf(stderr, "kv_memory: the pool did not hold sequence %u\n", s);
      return 1;
    }
    kiln_seq_grow(&ctx, id, len[s]);
    ctx.seqs[id].length += len[s];
  }
  double used = tokens * token_bytes;
  printf("workload: %u sequences, %llu tokens, lengths", seqs, (unsigned long long)tokens);
  for (uint32_t s = 0; s < seqs; ++s) printf(" %u", len[s]);
  printf("\ncontiguous: %.1f MiB reserved, %.1f%% holds tokens\n", cbytes / 1048576.0,
         100.0 * used / cbytes);
  printf("paged (block %u): %u blocks, %.1f MiB reserved, %.1f%% holds tokens, free after fill %u\n",
         block, need, pbytes / 1048576.0, 100.0 * used / pbytes, kiln_kv_free_blocks(&ctx));
  return 0;
}
