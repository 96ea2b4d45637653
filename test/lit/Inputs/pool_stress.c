/* pool_stress.c - the thread pool alone, many short parallel sections in a
 * row (as decode runs them): every slice of every section runs exactly once,
 * and a section returns only after all of its slices finished. Built with
 * the default spin-then-sleep waits and with -DKILN_SPIN_US=0 (always sleep),
 * so both wake-up paths are taken. */
#include "kiln/kiln.h"

#include <stdio.h>
#include <stdlib.h>

enum { SECTIONS = 50000, MAX_SLICES = 7 };

typedef struct {
  int section;
  int hits[MAX_SLICES];
  int stale; /* slices that saw another section's data */
} work;

static void slice(void *arg, int i) {
  work *w = arg;
  __atomic_fetch_add(&w->hits[i], 1, __ATOMIC_RELAXED);
  /* Uneven slices: some finish while others still run. */
  volatile int spin = (i * 37 + w->section) % 200;
  while (spin > 0)
    --spin;
  if (w->section < 0)
    __atomic_fetch_add(&w->stale, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv) {
  const uint32_t threads = (uint32_t)atoi(argv[1]);
  kiln_layout l = {0};
  l.abi_version = KILN_ABI_VERSION;
  l.struct_size = sizeof l;
  l.n_layers = 1;
  l.kv_width = 1;
  l.context = 1;
  l.max_seqs = 1;
  l.kv_block = 1;
  l.kv_blocks = 1;
  l.activation_bytes = 64;
  l.max_threads = threads;
  size_t bytes = kiln_arena_bytes(&l);
  void *arena = aligned_alloc(KILN_ARENA_ALIGN, (bytes + 63) & ~(size_t)63);
  kiln_ctx ctx;
  if (kiln_ctx_init(&ctx, &l, arena, bytes) != KILN_OK ||
      kiln_threads_start(&ctx, threads) != KILN_OK) {
    printf("FAIL setup\n");
    return 1;
  }
  int failures = 0;
  for (int s = 0; s < SECTIONS; ++s) {
    work w = {s, {0}, 0};
    const int n = 1 + s % MAX_SLICES;
    kiln_parallel_for(&ctx, slice, &w, n);
    /* w dies here: a slice still running would see the next section's. */
    for (int i = 0; i < MAX_SLICES; ++i)
      if (__atomic_load_n(&w.hits[i], __ATOMIC_RELAXED) != (i < n)) {
        if (failures++ < 5)
          printf("FAIL section %d slice %d ran %d times\n", s, i, w.hits[i]);
      }
    w.section = -1;
    if (w.stale)
      ++failures;
  }
  kiln_threads_stop(&ctx);
  printf("%s: %d sections, %u threads, %d failures\n",
         failures ? "FAIL" : "PASSED", SECTIONS, threads, failures);
  return failures != 0;
}
