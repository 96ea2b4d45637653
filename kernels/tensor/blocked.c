/* blocked.c - convolutions in a blocked channel layout (NCHWc).
 *
 * kiln-layout-channels (compiler/passes/LayoutChannels.cpp) keeps the
 * activations of a region of convolutions as [N, ceil(C / cb), spatial...,
 * cb]: cb consecutive channels of one position side by side, cb a vector of
 * floats on the target. A dense convolution then loads one vector of
 * weights per input channel and tap, broadcasts one input value into it and
 * accumulates a register tile of positions, with no column matrix and no
 * padded copy; a depthwise one multiplies whole vectors of channels. The
 * lanes of the last block past the real channel count hold zeros on every
 * convolution's output (and its weights for them are zeros), so they never
 * reach a real channel.
 *
 * block_channels / unblock_channels (f32):
 *   p = {N, C, S, cb}: x [N, C, S] <-> y [N, ceil(C / cb), S, cb]
 * conv_nchwc (f32, 2-D):
 *   p = {N, C, M, cb, depthwise, IH, IW, KH, KW, OH, OW, SH, SW, DH, DW,
 *        PH, PW, epilogue...}
 *   in = {X [N, Cb, IH, IW, cb], W, B [Mb * cb] or NULL, the epilogue's
 *         operands...}, W [Mb, Cb, KH, KW, cb (in), cb (out)] when dense,
 *         [Cb, KH, KW, cb] when depthwise (M = C, one channel per group)
 *   out = {Y [N, Mb, OH, OW, cb]}
 *   f = the epilogue's floats (kiln_tensor.h; kiln_epilogue_blocked_f32,
 *       on each output row once its sums are in)
 * Shares (kiln_tp_conv_nchwc): output rows, as (image, row, block) when
 * dense (a tile takes up to four blocks of one row), (image, block, row)
 * when depthwise. Each output element sums its bias, then input channel
 * blocks, taps and lanes in that order whatever the tile or share, so
 * results do not depend on the number of threads. */
#include "kiln_tensor.h"

/* The vectors pass only between this file's static functions (for the
 * register width, blocked_tile.h), so the ABI warning concerns no interface. */
#pragma clang diagnostic ignored "-Wpsabi"

typedef float kiln_v4 __attribute__((vector_size(16), aligned(4)));
typedef float kiln_v8 __attribute__((vector_size(32), aligned(4)));
typedef float kiln_v16 __attribute__((vector_size(64), aligned(4)));

/* A conv_nchwc call's geometry. */
struct kiln_blocked_conv {
  int64_t N, C, M, cb, depthwise, IH, IW, KH, KW, OH, OW, SH, SW, DH, DW, PH,
      PW, Cb, Mb;
  const int64_t *ep;
};

static struct kiln_blocked_conv blocked_geometry(const int64_t *p) {
  struct kiln_blocked_conv g = {
      p[0], p[1], p[2],  p[3],  p[4],  p[5],  p[6], p[7], p[8], p[9],
      p[10], p[11], p[12], p[13], p[14], p[15], p[16], 0, 0, p + 17};
  g.Cb = (g.C + g.cb - 1) / g.cb;
  g.Mb = (g.M + g.cb - 1) / g.cb;
  return g;
}

/* Runs the epilogue on an output row of block mb, element `offset` of the
 * output, and zeroes the lanes past the real channels. */
static void blocked_row_end(const struct kiln_blocked_conv *g, float *yr,
                            int64_t mb, int64_t offset, const float *f,
                            const void *const *in) {
  const int64_t cb = g->cb;
  const int64_t lanes = g->M - mb * cb < cb ? g->M - mb * cb : cb;
  if (g->ep[0])
    kiln_epilogue_blocked_f32(g->ep, f, in, yr, g->OW, cb, mb * cb, lanes,
                              offset);
  if (lanes < cb)
    for (int64_t q = 0; q < g->OW; ++q)
      for (int64_t l = lanes; l < cb; ++l)
        yr[q * cb + l] = 0;
}

/* The tile loops, once per block width. */
#define KILN_CB 4
#define KILN_V kiln_v4
#include "blocked_tile.h"
#define KILN_CB 8
#define KILN_V kiln_v8
#include "blocked_tile.h"
#define KILN_CB 16
#define KILN_V kiln_v16
#include "blocked_tile.h"

static void conv_nchwc_share(const int64_t *p, const float *f,
                             const void *const *in, void *const *out,
                             int part, int parts) {
  const struct kiln_blocked_conv g = blocked_geometry(p);
  const int64_t rows = g.N * g.Mb * g.OH;
  int64_t r0, r1;
  kiln_part_range(rows, part, parts, 1, &r0, &r1);
  const float *X = (const float *)in[0], *W = (const float *)in[1],
              *B = (const float *)in[2];
  float *Y = (float *)out[0];
  switch (g.cb) {
#define X_CB(n)                                                                \
  case n:                                                                      \
    if (g.depthwise)                                                           \
      blocked_depthwise_rows_##n((kiln_v##n){0}, &g, X, W, B, Y, r0, r1, f,   \
                                 in);                                          \
    else                                                                       \
      blocked_dense_rows_##n((kiln_v##n){0}, &g, X, W, B, Y, r0, r1, f, in);   \
    break;
    X_CB(4) X_CB(8) X_CB(16)
#undef X_CB
  }
}

void kiln_t_conv_nchwc(const int64_t *p, const float *f, const void *const *in,
                       void *const *out, void *scratch) {
  (void)scratch;
  conv_nchwc_share(p, f, in, out, 0, 1);
}

void kiln_tp_conv_nchwc(const int64_t *p, const float *f,
                        const void *const *in, void *const *out, void *scratch,
                        int part, int parts) {
  (void)scratch;
  conv_nchwc_share(p, f, in, out, part, parts);
}

/* x [N, C, S] <-> y [N, ceil(C / cb), S, cb] for p = {N, C, S, cb}: each
 * blocked line is written (to_blocked) or read whole, cb plain rows in
 * step; to_blocked also zeroes the lanes past C. */
static void channel_blocks(const int64_t *p, const float *x, float *y,
                           int to_blocked) {
  const int64_t N = p[0], C = p[1], S = p[2], cb = p[3];
  const int64_t Cb = (C + cb - 1) / cb;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t b = 0; b < Cb; ++b) {
      const int64_t line = (n * Cb + b) * S * cb, row = (n * C + b * cb) * S;
      const int64_t lanes = C - b * cb < cb ? C - b * cb : cb;
      for (int64_t s = 0; s < S; ++s) {
        if (!to_blocked) {
          for (int64_t l = 0; l < lanes; ++l)
            y[row + l * S + s] = x[line + s * cb + l];
          continue;
        }
        for (int64_t l = 0; l < lanes; ++l)
          y[line + s * cb + l] = x[row + l * S + s];
        for (int64_t l = lanes; l < cb; ++l)
          y[line + s * cb + l] = 0.0f;
      }
    }
}

void kiln_t_block_channels(const int64_t *p, const float *f,
                           const void *const *in, void *const *out,
                           void *scratch) {
  (void)f; (void)scratch;
  channel_blocks(p, (const float *)in[0], (float *)out[0], 1);
}

void kiln_t_unblock_channels(const int64_t *p, const float *f,
                             const void *const *in, void *const *out,
                             void *scratch) {
  (void)f; (void)scratch;
  channel_blocks(p, (const float *)in[0], (float *)out[0], 0);
}
