/* kiln_halide.c - the calls of Halide pipelines in a graph library, and the
 * runtime hooks their objects reference.
 *
 * kilnc compiles a pipeline of kernels/halide for each shape a library runs
 * on Halide (kilnc --halide; compiler/codegen/HalideObjects.cpp) with
 * no_runtime: the object is one function of halide_buffer_t descriptors,
 * with fixed bounds, no asserts, no threads and no heap. The library's step
 * for it calls kiln_halide_sgemm (a MatMul) or kiln_halide_conv (a 1x1
 * convolution) below with that function.
 *
 * Hexagon objects also carry Halide's HVX lock wrappers, which call QuRT's
 * lock and, when it fails, format an error on the heap. kilnc renames those
 * references to the hooks here. The f32 pipelines use no HVX vectors and
 * never take the lock; if anything did, it would be refused, and so is the
 * heap: the runtime never allocates. */
#include "HalideRuntime.h"

#include <stddef.h>
#include <stdint.h>

typedef int (*kiln_halide_sgemm_fn)(halide_buffer_t *A, halide_buffer_t *B,
                                    halide_buffer_t *C);

void *kiln_halide_malloc(size_t n) {
  (void)n;
  return NULL;
}

void kiln_halide_free(void *p) { (void)p; }

void kiln_halide_error(void *user_context, const char *msg) {
  (void)user_context, (void)msg;
}

char *kiln_halide_string_to_string(char *dst, char *end, const char *arg) {
  while (dst < end && *arg)
    *dst++ = *arg++;
  if (dst < end)
    *dst = 0;
  return dst;
}

int kiln_halide_msan_annotate_memory_is_initialized(void *user_context,
                                                    const void *ptr,
                                                    uint64_t len) {
  (void)user_context, (void)ptr, (void)len;
  return 0;
}

int kiln_halide_hvx_lock(int mode) {
  (void)mode;
  return -1;
}

int kiln_halide_hvx_unlock(void) { return -1; }

/* Describes dense f32 data of n dimensions with extents e[0] (the
 * contiguous one) .. e[n-1] in b, with d[n] for its dimensions. */
void kiln_halide_dense_f32(halide_buffer_t *b, halide_dimension_t *d,
                           void *data, const int32_t *e, int n) {
  int32_t stride = 1;
  for (int i = 0; i < n; ++i) {
    d[i].min = 0;
    d[i].extent = e[i];
    d[i].stride = stride;
    d[i].flags = 0;
    stride *= e[i];
  }
  b->device = 0;
  b->device_interface = NULL;
  b->host = (uint8_t *)data;
  b->flags = 0;
  b->type.code = halide_type_float;
  b->type.bits = 32;
  b->type.lanes = 1;
  b->dimensions = n;
  b->dim = d;
  b->padding = NULL;
}

/* MatMul's kernel call (kiln_t_matmul's parameters, f32):
 *   p = {dtype, M, N, K, R, batch[R], aStride[R], bStride[R], ...}
 * (the epilogue after them is the library step's, run after this call):
 * Y[b] = A[b] B[b] for each batch index, A and B at their strides per batch
 * index (0 on a broadcast dimension), Y dense. `fn` is the pipeline compiled
 * for M x N x K. A pipeline that fails (none can: no asserts, no heap) would
 * leave NaNs, never stale values. */
void kiln_halide_sgemm(kiln_halide_sgemm_fn fn, const int64_t *p,
                       const void *const *in, void *const *out) {
  const int64_t M = p[1], N = p[2], K = p[3];
  const int R = (int)p[4];
  const int64_t *batch = p + 5, *as = batch + R, *bs = as + R;
  int64_t idx[16] = {0};
  const float *A = (const float *)in[0], *B = (const float *)in[1];
  float *Y = (float *)out[0];
  for (;;) {
    int64_t ao = 0, bo = 0;
    for (int d = 0; d < R; ++d) {
      ao += idx[d] * as[d];
      bo += idx[d] * bs[d];
    }
    halide_buffer_t a, b, c;
    halide_dimension_t da[2], db[2], dc[2];
    const int32_t ea[2] = {(int32_t)K, (int32_t)M},
                  eb[2] = {(int32_t)N, (int32_t)K},
                  ec[2] = {(int32_t)N, (int32_t)M};
    kiln_halide_dense_f32(&a, da, (void *)(A + ao), ea, 2);
    kiln_halide_dense_f32(&b, db, (void *)(B + bo), eb, 2);
    kiln_halide_dense_f32(&c, dc, Y, ec, 2);
    if (fn(&a, &b, &c) != 0)
      for (int64_t i = 0; i < M * N; ++i)
        Y[i] = __builtin_nanf("");
    Y += M * N;
    int d = R - 1;
    while (d >= 0 && ++idx[d] == batch[d])
      idx[d--] = 0;
    if (d < 0)
      break;
  }
}

/* A direct convolution's kernel call (kiln_t_conv's parameters, f32: the
 * 1x1, stride 1, unpadded case kilnc gives to Halide's GEMM):
 *   p = {nsp, N, C, M, group, chunk, 1, in[nsp], k[nsp], out[nsp], ...}
 *   in = {X [N, C, out...], W [M, C/group], B [M] or NULL, ...}
 * For each image and group Y = W X with W [M/group, C/group], X [C/group, P]
 * and Y [M/group, P] all dense (P = prod(out), the input's positions too).
 * `fn` is the pipeline compiled for M/group x P x C/group. The bias and the
 * epilogue are the step's, after this call (kiln_conv_epilogue_f32). */
void kiln_halide_conv(kiln_halide_sgemm_fn fn, const int64_t *p,
                      const void *const *in, void *const *out) {
  const int64_t nsp = p[0], N = p[1], C = p[2], M = p[3], G = p[4];
  const int64_t cg = C / G, mg = M / G;
  int64_t P = 1;
  for (int64_t d = 0; d < nsp; ++d)
    P *= p[7 + 2 * nsp + d];
  const float *X = (const float *)in[0], *W = (const float *)in[1];
  float *Y = (float *)out[0];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < G; ++g) {
      float *y = Y + (n * M + g * mg) * P;
      halide_buffer_t a, b, c;
      halide_dimension_t da[2], db[2], dc[2];
      const int32_t ea[2] = {(int32_t)cg, (int32_t)mg},
                    eb[2] = {(int32_t)P, (int32_t)cg},
                    ec[2] = {(int32_t)P, (int32_t)mg};
      kiln_halide_dense_f32(&a, da, (void *)(W + g * mg * cg), ea, 2);
      kiln_halide_dense_f32(&b, db, (void *)(X + (n * C + g * cg) * P), eb, 2);
      kiln_halide_dense_f32(&c, dc, y, ec, 2);
      if (fn(&a, &b, &c) != 0)
        for (int64_t i = 0; i < mg * P; ++i)
          y[i] = __builtin_nanf("");
    }
}
