/* graph_driver.c - the program kiln-bench links against a compiled ONNX graph
 * (bench.h, libbench.a) and times. kiln-bench embeds this file, writes it
 * beside the library and compiles it for the host. It speaks the protocol
 * scripts/onnxruntime-driver.mjs speaks too:
 *   graph_driver THREADS ITERATIONS
 *   -> "first_run T" (CLOCK_MONOTONIC seconds at the end of the first run:
 *      init, inputs and one run after the process started),
 *      ITERATIONS x "run S" (one timed bench_run each),
 *      "VmHWM: K kB" (its peak resident memory)
 * Inputs are filled by the generator the peer driver uses (kiln_bench_fill),
 * so both engines see the same numbers: floats in [-1, 1), integers and
 * booleans 0 or 1.
 */
#define _DEFAULT_SOURCE
#include "bench.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check(kiln_status s, const char *what) {
  if (s == KILN_OK)
    return;
  fprintf(stderr, "graph_driver: %s: %s\n", what, kiln_status_string(s));
  exit(1);
}

/* ONNX element types (TensorProto.DataType) the generator fills. */
enum { T_FLOAT = 1, T_UINT8 = 2, T_INT8 = 3, T_INT32 = 6, T_INT64 = 7, T_BOOL = 9 };

static void kiln_bench_fill(const kiln_tensor_info *t, void *data, uint32_t *state) {
  const size_t n = t->bytes;
  for (size_t i = 0;; ++i) {
    *state = *state * 1664525u + 1013904223u;
    const uint32_t r = *state >> 8; /* 24 random bits */
    switch (t->dtype) {
    case T_FLOAT:
      if (i >= n / 4) return;
      ((float *)data)[i] = (float)r / 8388608.0f - 1.0f;
      break;
    case T_UINT8: case T_INT8: case T_BOOL:
      if (i >= n) return;
      ((uint8_t *)data)[i] = (uint8_t)(r & 1u);
      break;
    case T_INT32:
      if (i >= n / 4) return;
      ((int32_t *)data)[i] = (int32_t)(r & 1u);
      break;
    case T_INT64:
      if (i >= n / 8) return;
      ((int64_t *)data)[i] = (int64_t)(r & 1u);
      break;
    default:
      fprintf(stderr, "graph_driver: input '%s': element type %d is not generated\n",
              t->name, (int)t->dtype);
      exit(1);
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: graph_driver THREADS ITERATIONS\n");
    return 2;
  }
  const int threads = atoi(argv[1]), iterations = atoi(argv[2]);
  if (threads < 1 || threads > BENCH_MAX_THREADS || iterations < 1) {
    fprintf(stderr, "graph_driver: expected 1 to %d threads and at least 1 "
            "iteration\n", (int)BENCH_MAX_THREADS);
    return 2;
  }
  void *arena = aligned_alloc(KILN_ARENA_ALIGN,
                              (BENCH_ARENA_BYTES + KILN_ARENA_ALIGN - 1) /
                                  KILN_ARENA_ALIGN * KILN_ARENA_ALIGN);
  const void *in[BENCH_NUM_INPUTS + 1];
  void *out[BENCH_NUM_OUTPUTS + 1];
  uint32_t state = 12345u;
  for (int i = 0; i < BENCH_NUM_INPUTS; ++i) {
    void *p = malloc(bench_inputs[i].bytes ? bench_inputs[i].bytes : 1);
    if (!p) { perror("graph_driver: input"); return 1; }
    kiln_bench_fill(&bench_inputs[i], p, &state);
    in[i] = p;
  }
  for (int i = 0; i < BENCH_NUM_OUTPUTS; ++i)
    if (!(out[i] = malloc(bench_outputs[i].bytes ? bench_outputs[i].bytes : 1))) {
      perror("graph_driver: output");
      return 1;
    }
  if (!arena) { perror("graph_driver: arena"); return 1; }
  kiln_ctx ctx;
  check(bench_init_threads(&ctx, arena, BENCH_ARENA_BYTES, (uint32_t)threads),
        "bench_init_threads");
  check(bench_run(&ctx, in, out), "bench_run");
  printf("first_run %.9f\n", seconds());
  for (int it = 0; it < iterations; ++it) {
    const double t0 = seconds();
    check(bench_run(&ctx, in, out), "bench_run");
    printf("run %.9f\n", seconds() - t0);
  }
  /* The outputs are read so that no run can be optimised away. */
  double sum = 0;
  for (int i = 0; i < BENCH_NUM_OUTPUTS; ++i)
    for (size_t b = 0; b < bench_outputs[i].bytes; b += 4096)
      sum += ((const uint8_t *)out[i])[b];
  printf("checksum %.0f\n", sum);
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6))
      fputs(line, stdout);
  if (f)
    fclose(f);
  return 0;
}
