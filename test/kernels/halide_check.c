/* halide_check.c - runs the Halide pipelines kiln-halide-gen compiled
 * (kernels/halide) against a double-precision reference on the target:
 * HalideTest.cpp builds it for x86, NEON (qemu-aarch64) and Hexagon
 * (freestanding, qemu-hexagon) with these shapes:
 *
 *   sgemm_a  24 x 80 x 96    whole register tiles
 *   sgemm_b   7 x 37 x 19    row and column tails (tiles shifted inwards)
 *   dw_a      3 channels, 9 x 21 outputs, 3x3, stride 1
 *   dw_b      2 channels, 7 x 10 outputs, 5x5, stride 2
 *
 * Each result must lie within 1e-5 of the sum of its terms' magnitudes of
 * the reference (f32 rounding over at most 96 terms stays far inside).
 * Prints a line per kernel and "ok" or "FAIL"; exits 1 on a failure. */
#include "HalideRuntime.h"

#include <stddef.h>
#include <stdint.h>

#include "check_io.h"

#if defined(__hexagon__)
/* Halide's Hexagon objects bring the runtime's HVX lock wrappers even with
 * no_runtime: they call QuRT's lock (freestanding under qemu the vector unit
 * is always ours, so it succeeds) and on failure format an error with these,
 * which never run here: the heap is refused. */
int qurt_hvx_lock(int mode) { (void)mode; return 0; }
int qurt_hvx_unlock(void) { return 0; }
void *malloc(size_t n) { (void)n; return NULL; }
void free(void *p) { (void)p; }
void halide_error(void *user_context, const char *msg) {
  (void)user_context;
  put_str("halide_error: ");
  put_str(msg);
  put_str("\n");
}
char *halide_string_to_string(char *dst, char *end, const char *arg) {
  while (dst < end && *arg)
    *dst++ = *arg++;
  if (dst < end)
    *dst = 0;
  return dst;
}
int halide_msan_annotate_memory_is_initialized(void *user_context,
                                               const void *ptr, uint64_t len) {
  (void)user_context, (void)ptr, (void)len;
  return 0;
}
#endif

static void put_int(long v) {
  char b[24];
  int i = 23;
  b[i] = 0;
  int neg = v < 0;
  unsigned long u = neg ? -(unsigned long)v : (unsigned long)v;
  do {
    b[--i] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (neg)
    b[--i] = '-';
  put_str(b + i);
}

int sgemm_a(halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);
int sgemm_b(halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);
int dw_a(halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);
int dw_b(halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);

static float in0[96 * 80 + 64], in1[96 * 80 + 64], out0[80 * 24 + 64];
static double ref[80 * 24], mag[80 * 24];

static uint32_t seed = 12345;
static float next_value(void) { /* -1 .. 1, multiples of 2^-12 */
  seed = seed * 1664525u + 1013904223u;
  return (float)((int)(seed >> 20) - 2048) / 2048.0f;
}

/* The runtime's descriptor of dense f32 data (runtime/src/kiln_halide.c,
 * compiled into this program), which the libraries' steps use too. */
void kiln_halide_dense_f32(halide_buffer_t *b, halide_dimension_t *d,
                           void *data, const int32_t *e, int n);

static double fabs_d(double v) { return v < 0 ? -v : v; }

/* Compares out0[0..n) with ref/mag; reports and returns 1 on a mismatch. */
static int compare(const char *name, int n, int rc) {
  int bad = rc != 0;
  int worst = -1;
  double worst_excess = 0; /* no division: Hexagon's is in kiln_libm.c */
  for (int i = 0; i < n; ++i) {
    double err = fabs_d((double)out0[i] - ref[i]);
    double tol = 1e-5 * mag[i] + 1e-30;
    if (err > tol) {
      bad = 1;
      if (err - tol > worst_excess) {
        worst_excess = err - tol;
        worst = i;
      }
    }
  }
  put_str(name);
  put_str(bad ? ": FAIL" : ": ok");
  if (rc) {
    put_str(" (returned ");
    put_int(rc);
    put_str(")");
  }
  if (worst >= 0) {
    put_str(" worst element ");
    put_int(worst);
  }
  put_str("\n");
  return bad;
}

static int check_sgemm(const char *name,
                       int (*fn)(halide_buffer_t *, halide_buffer_t *,
                                 halide_buffer_t *),
                       int m, int n, int k) {
  for (int i = 0; i < m * k; ++i)
    in0[i] = next_value();
  for (int i = 0; i < k * n; ++i)
    in1[i] = next_value();
  for (int i = 0; i < m * n; ++i)
    out0[i] = 12345.0f; /* every element must be written */
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0, a = 0;
      for (int kk = 0; kk < k; ++kk) {
        double t = (double)in0[i * k + kk] * in1[kk * n + j];
        s += t;
        a += fabs_d(t);
      }
      ref[i * n + j] = s;
      mag[i * n + j] = a;
    }
  halide_buffer_t A, B, C;
  halide_dimension_t dA[2], dB[2], dC[2];
  const int32_t eA[2] = {k, m}, eB[2] = {n, k}, eC[2] = {n, m};
  kiln_halide_dense_f32(&A, dA, in0, eA, 2);
  kiln_halide_dense_f32(&B, dB, in1, eB, 2);
  kiln_halide_dense_f32(&C, dC, out0, eC, 2);
  return compare(name, m * n, fn(&A, &B, &C));
}

static int check_dw(const char *name,
                    int (*fn)(halide_buffer_t *, halide_buffer_t *,
                              halide_buffer_t *),
                    int c, int oh, int ow, int kern, int s) {
  const int ih = (oh - 1) * s + kern, iw = (ow - 1) * s + kern;
  for (int i = 0; i < c * ih * iw; ++i)
    in0[i] = next_value();
  for (int i = 0; i < c * kern * kern; ++i)
    in1[i] = next_value();
  for (int i = 0; i < c * oh * ow; ++i)
    out0[i] = 12345.0f;
  for (int ch = 0; ch < c; ++ch)
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x) {
        double sum = 0, a = 0;
        for (int kh = 0; kh < kern; ++kh)
          for (int kw = 0; kw < kern; ++kw) {
            double t = (double)in0[(ch * ih + y * s + kh) * iw + x * s + kw] *
                       in1[(ch * kern + kh) * kern + kw];
            sum += t;
            a += fabs_d(t);
          }
        ref[(ch * oh + y) * ow + x] = sum;
        mag[(ch * oh + y) * ow + x] = a;
      }
  halide_buffer_t I, W, O;
  halide_dimension_t dI[3], dW[3], dO[3];
  const int32_t eI[3] = {iw, ih, c}, eW[3] = {kern, kern, c}, eO[3] = {ow, oh, c};
  kiln_halide_dense_f32(&I, dI, in0, eI, 3);
  kiln_halide_dense_f32(&W, dW, in1, eW, 3);
  kiln_halide_dense_f32(&O, dO, out0, eO, 3);
  return compare(name, c * oh * ow, fn(&I, &W, &O));
}

static int run(void) {
  int bad = 0;
  bad |= check_sgemm("sgemm_a", sgemm_a, 24, 80, 96);
  bad |= check_sgemm("sgemm_b", sgemm_b, 7, 37, 19);
  bad |= check_dw("dw_a", dw_a, 3, 9, 21, 3, 1);
  bad |= check_dw("dw_b", dw_b, 2, 7, 10, 5, 2);
  put_str(bad ? "FAIL\n" : "all ok\n");
  flush();
  return bad;
}

CHECK_MAIN(run)
