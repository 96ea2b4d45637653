/* nn.c - convolution, pooling and normalization kernels (NCHW, any number
 * of spatial dimensions).
 *
 * Conv is im2col + kiln_sgemm: the columns of one (image, group) are built in
 * the call's scratch a chunk of output positions at a time (the converter
 * picks the chunk so the scratch stays bounded), and the GEMM's contiguous
 * inner loop runs over output positions. ConvTranspose is the reverse: a GEMM
 * with the transposed weights produces columns, which are scatter-added
 * (col2im) into the output. A 1x1 convolution with stride 1 and no padding
 * needs no columns at all. */
#include "kiln_gemm.h"
#include "kiln_tensor.h"

#include <math.h>

static int64_t prod(const int64_t *v, int n) {
  int64_t r = 1;
  for (int i = 0; i < n; ++i)
    r *= v[i];
  return r;
}

/* ceil(a / b) for b > 0 and any sign of a. */
static int64_t ceil_div(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/* Walks the rows of a column matrix (channel, kernel tap) and, per row, the
 * positions [j0, j1) of the position grid `pos`. Position o and tap k map to
 * image coordinate o * st - pb + k * dl on each axis (outside the image: a
 * padding zero). scatter = 0: col[row][j] = img[...] (im2col, conv);
 * scatter = 1: img[...] += col[row][j] (col2im, transposed conv). */
static void im2col_walk(int scatter, float *img, int64_t channels, int nsp,
                        const int64_t *imgDims, const int64_t *pos,
                        const int64_t *ker, const int64_t *st,
                        const int64_t *dl, const int64_t *pb, int64_t j0,
                        int64_t j1, float *col) {
  int last = nsp - 1;
  int64_t w = j1 - j0, plane = prod(imgDims, nsp), kn = prod(ker, nsp);
  int64_t W = imgDims[last], s = st[last];
  float *row = col;
  for (int64_t c = 0; c < channels; ++c) {
    float *src = img + c * plane;
    int64_t kidx[KILN_MAX_RANK] = {0};
    for (int64_t kk = 0; kk < kn; ++kk, row += w) {
      int64_t oidx[KILN_MAX_RANK];
      int64_t rest = j0;
      for (int d = last; d >= 0; --d) {
        oidx[d] = rest % pos[d];
        rest /= pos[d];
      }
      int64_t base = kidx[last] * dl[last] - pb[last];
      float *dst = row;
      for (int64_t j = j0; j < j1;) {
        int64_t o0 = oidx[last];
        int64_t run = pos[last] - o0 < j1 - j ? pos[last] - o0 : j1 - j;
        int64_t off = 0;
        int inside = 1;
        for (int d = 0; d < last; ++d) {
          int64_t ii = oidx[d] * st[d] - pb[d] + kidx[d] * dl[d];
          inside &= ii >= 0 && ii < imgDims[d];
          off = off * imgDims[d] + ii;
        }
        off *= W;
        /* t in [lo, hi) maps inside the image: 0 <= (o0 + t) s + base < W */
        int64_t lo = ceil_div(-base, s) - o0, hi = ceil_div(W - base, s) - o0;
        lo = lo < 0 ? 0 : lo > run ? run : lo;
        hi = hi < lo ? lo : hi > run ? run : hi;
        if (!inside)
          lo = hi = run;
        const int64_t first = off + o0 * s + base;
        if (!scatter) {
          for (int64_t t = 0; t < lo; ++t)
            dst[t] = 0.0f;
          if (s == 1)
            memcpy(dst + lo, src + first + lo, (size_t)(hi - lo) * sizeof(float));
          else
            for (int64_t t = lo; t < hi; ++t)
              dst[t] = src[first + t * s];
          for (int64_t t = hi; t < run; ++t)
            dst[t] = 0.0f;
        } else if (s == 1) {
          for (int64_t t = lo; t < hi; ++t)
            src[first + t] += dst[t];
        } else {
          for (int64_t t = lo; t < hi; ++t)
            src[first + t * s] += dst[t];
        }
        dst += run;
        j += run;
        oidx[last] = 0;
        if (last > 0)
          kiln_nd_next(oidx, pos, last);
      }
      kiln_nd_next(kidx, ker, nsp);
    }
  }
}

/* im2col_walk's gather (scatter = 0) for two spatial dimensions: per tap,
 * the range of output columns that lands inside the image does not depend on
 * the output row, so it is computed once per tap and each row segment is a
 * zero fill, a constant-stride copy and a zero fill, with no per-segment
 * index arithmetic. Writes the same columns as im2col_walk. */
static void im2col_2d(const float *img, int64_t channels, const int64_t *id,
                      const int64_t *od, const int64_t *kd, const int64_t *st,
                      const int64_t *dl, const int64_t *pb, int64_t j0,
                      int64_t j1, float *col) {
  const int64_t H = id[0], W = id[1], OW = od[1], KH = kd[0], KW = kd[1],
                sw = st[1];
  float *row = col;
  for (int64_t c = 0; c < channels; ++c) {
    const float *src = img + c * H * W;
    for (int64_t kh = 0; kh < KH; ++kh)
      for (int64_t kw = 0; kw < KW; ++kw, row += j1 - j0) {
        const int64_t base = kw * dl[1] - pb[1];
        /* ow in [lo, hi) maps inside the row: 0 <= ow * sw + base < W */
        int64_t lo = ceil_div(-base, sw), hi = ceil_div(W - base, sw);
        lo = lo < 0 ? 0 : lo > OW ? OW : lo;
        hi = hi < lo ? lo : hi > OW ? OW : hi;
        float *dst = row;
        for (int64_t j = j0; j < j1;) {
          const int64_t oh = j / OW, o0 = j % OW;
          const int64_t o1 = OW < o0 + (j1 - j) ? OW : o0 + (j1 - j);
          const int64_t ih = oh * st[0] - pb[0] + kh * dl[0];
          const int64_t a = lo < o0 ? o0 : lo > o1 ? o1 : lo,
                        b = hi < a ? a : hi > o1 ? o1 : hi;
          if (ih < 0 || ih >= H) {
            for (int64_t o = o0; o < o1; ++o)
              dst[o - o0] = 0.0f;
          } else {
            const float *xr = src + ih * W;
            for (int64_t o = o0; o < a; ++o)
              dst[o - o0] = 0.0f;
            if (sw == 1)
              for (int64_t o = a; o < b; ++o)
                dst[o - o0] = xr[o + base];
            else
              for (int64_t o = a; o < b; ++o)
                dst[o - o0] = xr[o * sw + base];
            for (int64_t o = b; o < o1; ++o)
              dst[o - o0] = 0.0f;
          }
          dst += o1 - o0;
          j += o1 - o0;
        }
      }
  }
}

/* A depthwise 2-D convolution, one input and one output channel, without
 * im2col: the channel's rows are copied once into `xp`, each with its left
 * padding and enough zeros on the right (dw_padded_width), so every
 * output position reads every tap of a kernel row in range; image rows
 * outside the image are skipped. Each element's sum starts at zero and runs
 * over the taps in im2col's order, zeros of the padding included, and the
 * bias (if any) is added last, as kiln_sgemm adds the product to it, so the
 * result is the im2col path's bit for bit. A kernel row of 3, 5 or 7 taps at
 * stride 1 or 2 adds into a register across the row (one load and store of
 * the output per kernel row); other shapes add a tap at a time. */
/* The padded row's width; the scratch holds in[0] such rows (ops/NN.cpp
 * sizes it with the same formula). */
static int64_t dw_padded_width(const int64_t *kd, const int64_t *od,
                               const int64_t *st, const int64_t *dl) {
  return (od[1] - 1) * st[1] + (kd[1] - 1) * dl[1] + 1;
}
/* The weights are copied to locals first: read through wr, each would be
 * reloaded after every store to yr (which might alias it), and the loop
 * would not vectorize. One vector per iteration, not several interleaved:
 * the rows of late layers are 10 to 40 outputs wide, and a loop that takes
 * four vectors at a time would leave them to its scalar remainder. */
#define KILN_DW_ROW(KWC, SW)                                                  \
  {                                                                           \
    float wk[KWC];                                                            \
    for (int kw = 0; kw < KWC; ++kw)                                          \
      wk[kw] = wr[kw];                                                        \
    _Pragma("clang loop interleave_count(1)")                                 \
    for (int64_t ow = 0; ow < OW; ++ow) {                                     \
      float acc = yr[ow];                                                     \
      for (int kw = 0; kw < KWC; ++kw)                                        \
        acc += wk[kw] * xr[ow * SW + kw * dw];                                \
      yr[ow] = acc;                                                           \
    }                                                                         \
  }
/* An output row of a 3x3 kernel whose taps all lie inside the image: each
 * output's nine taps in one register, in the order the row-at-a-time path
 * adds them (the same bits), one store per output instead of one per kernel
 * row, two vectors of outputs in flight. (Larger kernels keep the rows: 25
 * or 49 weights do not stay in registers, measured slower.) Not inlined, so
 * the row-at-a-time loops around it compile as they did without it. */
static __attribute__((noinline)) void
dw_row_3x3(float *restrict yr, const float *x0, const float *w, int64_t OW,
           int64_t rs, int64_t sw, int64_t dw) {
  float wk[9];
  for (int t = 0; t < 9; ++t)
    wk[t] = w[t];
  const float *x1 = x0 + rs, *x2 = x1 + rs;
  const int64_t d2 = 2 * dw;
  /* Pointers that advance, not products of indices: 64-bit multiplies on
   * 32-bit Hexagon. */
#define KILN_DW_3X3(SW)                                                       \
  _Pragma("clang loop interleave_count(2)")                                   \
  for (int64_t ow = 0; ow < OW; ++ow, x0 += SW, x1 += SW, x2 += SW) {         \
    float acc = 0.0f;                                                         \
    acc += wk[0] * x0[0];                                                     \
    acc += wk[1] * x0[dw];                                                    \
    acc += wk[2] * x0[d2];                                                    \
    acc += wk[3] * x1[0];                                                     \
    acc += wk[4] * x1[dw];                                                    \
    acc += wk[5] * x1[d2];                                                    \
    acc += wk[6] * x2[0];                                                     \
    acc += wk[7] * x2[dw];                                                    \
    acc += wk[8] * x2[d2];                                                    \
    yr[ow] = acc;                                                             \
  }
  if (sw == 1)
    KILN_DW_3X3(1)
  else
    KILN_DW_3X3(2)
#undef KILN_DW_3X3
}
/* Fills `rows` rows of Wp floats from an H x W image plane: padded row i is
 * image row top + i, padded column j image column j - pl; whatever lies
 * outside the image is zero. */
static void pad_rows(float *dst, const float *x, int64_t H, int64_t W,
                     int64_t top, int64_t rows, int64_t pl, int64_t Wp) {
  const int64_t lo = pl < Wp ? pl : Wp;
  const int64_t hi = pl + W < Wp ? pl + W : Wp;
  for (int64_t i = 0; i < rows; ++i, dst += Wp) {
    const int64_t ih = top + i;
    if (ih < 0 || ih >= H || hi <= lo) {
      memset(dst, 0, (size_t)Wp * sizeof(float));
      continue;
    }
    memset(dst, 0, (size_t)lo * sizeof(float));
    memcpy(dst + lo, x + ih * W + (lo - pl), (size_t)(hi - lo) * sizeof(float));
    memset(dst + hi, 0, (size_t)(Wp - hi) * sizeof(float));
  }
}

static void conv_depthwise2d(const float *x, const float *w, const float *bias,
                             float *y, const int64_t *id, const int64_t *kd,
                             const int64_t *od, const int64_t *st,
                             const int64_t *dl, const int64_t *pb, float *xp) {
  const int64_t H = id[0], W = id[1], KH = kd[0], KW = kd[1], OH = od[0],
                OW = od[1], sh = st[0], sw = st[1], dw = dl[1], pw = pb[1];
  const int64_t Wp = dw_padded_width(kd, od, st, dl);
  pad_rows(xp, x, H, W, 0, H, pw, Wp); /* the image's rows only */
  const int wide = (KW == 3 || KW == 5 || KW == 7) && (sw == 1 || sw == 2);
  const int taps3x3 = KH == 3 && KW == 3 && (sw == 1 || sw == 2);
  for (int64_t oh = 0; oh < OH; ++oh) {
    float *yr = y + oh * OW;
    const int64_t ih0 = oh * sh - pb[0], rs = dl[0] * Wp;
    if (taps3x3 && ih0 >= 0 && ih0 + (KH - 1) * dl[0] < H) {
      dw_row_3x3(yr, xp + ih0 * Wp, w, OW, rs, sw, dw);
      if (bias)
        for (int64_t ow = 0; ow < OW; ++ow)
          yr[ow] = *bias + yr[ow];
      continue;
    }
    for (int64_t ow = 0; ow < OW; ++ow)
      yr[ow] = 0.0f;
    for (int64_t kh = 0; kh < KH; ++kh) {
      const int64_t ih = oh * sh - pb[0] + kh * dl[0];
      if (ih < 0 || ih >= H)
        continue;
      const float *xr = xp + ih * Wp;
      const float *wr = w + kh * KW;
      if (!wide) {
        for (int64_t kw = 0; kw < KW; ++kw) {
          const float wv = wr[kw];
          const float *xk = xr + kw * dw;
          if (sw == 1)
            for (int64_t ow = 0; ow < OW; ++ow)
              yr[ow] += wv * xk[ow];
          else
            for (int64_t ow = 0; ow < OW; ++ow)
              yr[ow] += wv * xk[ow * sw];
        }
      } else if (sw == 1) {
        if (KW == 3) KILN_DW_ROW(3, 1)
        else if (KW == 5) KILN_DW_ROW(5, 1)
        else KILN_DW_ROW(7, 1)
      } else {
        if (KW == 3) KILN_DW_ROW(3, 2)
        else if (KW == 5) KILN_DW_ROW(5, 2)
        else KILN_DW_ROW(7, 2)
      }
    }
    if (bias)
      for (int64_t ow = 0; ow < OW; ++ow)
        yr[ow] = *bias + yr[ow];
  }
}

/* Row-shifted GEMM, a 2-D convolution of stride 1 without columns: tap
 * (c, kh, kw) reads the input shifted by (kh * dh, kw * dw). Output rows go
 * `chunk` at a time: a zero-padded copy of the input rows they read (pad
 * rows and columns included, Wp = OW + (KW - 1) * dw wide, hs = chunk +
 * (KH - 1) * dh rows per channel, small enough to stay in L2) makes output
 * (oh0 + r, ow) column r * Wp + ow of a GEMM whose row k = (c, kh, kw) starts
 * at c * hs * Wp + kh * dh * Wp + kw * dw: kiln_sgemm_gather reads B through
 * that offset table. The Wp - OW columns past each output row are computed
 * into `cp` and dropped. Each output sums the values im2col would have
 * built, zeros included, in its order: the same bits. Scratch after the pack
 * buffer: CK offsets, the copy (cg x hs x Wp, then (KW - 1) * dw zeros the
 * last row's dropped columns read) and `cp`, mg x chunk x Wp. */
static void conv_shifted(const float *x, const float *w, const float *bias,
                         float *y, int64_t cg, int64_t mg, const int64_t *id,
                         const int64_t *kd, const int64_t *od,
                         const int64_t *dl, const int64_t *pb, int64_t r0,
                         int64_t r1, int64_t chunk, float *pack,
                         const int64_t *ep, const float *f,
                         const void *const *in, int64_t ch, int64_t at) {
  const int64_t H = id[0], W = id[1], KH = kd[0], KW = kd[1], OW = od[1],
                dh = dl[0], dw = dl[1], P = od[0] * OW;
  const int64_t Wp = OW + (KW - 1) * dw, hs = chunk + (KH - 1) * dh;
  const int64_t plane = hs * Wp, CK = cg * KH * KW;
  int64_t *boff = (int64_t *)(pack + KILN_SGEMM_PACK_FLOATS);
  float *xp = (float *)(boff + CK), *cp = xp + cg * plane + (KW - 1) * dw;
  int64_t k = 0;
  for (int64_t c = 0; c < cg; ++c)
    for (int64_t kh = 0; kh < KH; ++kh)
      for (int64_t kw = 0; kw < KW; ++kw)
        boff[k++] = c * plane + kh * dh * Wp + kw * dw;
  memset(xp + cg * plane, 0, (size_t)((KW - 1) * dw) * sizeof(float));
  for (int64_t oh0 = r0; oh0 < r1; oh0 += chunk) {
    const int64_t oh1 = oh0 + chunk < r1 ? oh0 + chunk : r1;
    const int64_t n = (oh1 - oh0) * Wp;
    for (int64_t c = 0; c < cg; ++c)
      pad_rows(xp + c * plane, x + c * H * W, H, W, oh0 - pb[0], hs, pb[1], Wp);
    kiln_sgemm_gather(mg, n, CK, 1.0f, w, CK, 1, xp, boff, cp, n, 0, bias,
                      pack);
    for (int64_t m = 0; m < mg; ++m) {
      for (int64_t oh = oh0; oh < oh1; ++oh)
        memcpy(y + m * P + oh * OW, cp + m * n + (oh - oh0) * Wp,
               (size_t)OW * sizeof(float));
      if (ep[0])
        kiln_epilogue_f32(ep, f, in, y + m * P + oh0 * OW, (oh1 - oh0) * OW,
                          ch + m, at + m * P + oh0 * OW);
    }
  }
}

/* Small maps (stride 1, output rows narrower than 32): a row is too short
 * for the vector loop, so the taps run over the whole channel at once. In a
 * zero-padded plane of the input (Hp = OH + (KH - 1) * dh rows of Wp =
 * OW + (KW - 1) * dw, then (KW - 1) * dw zeros), output (oh, ow) is element
 * oh * Wp + ow of a plane `yp` that each tap (kh, kw) adds its weight times
 * the input plane shifted by kh * dh * Wp + kw * dw into, one contiguous
 * loop per tap; the Wp - OW extra columns per row are dropped. The same
 * terms in the same order as the row kernel (a padding row's terms add
 * zero to a sum that started at +0), so the same bits. The scratch holds
 * the two planes: (Hp + OH) * Wp + (KW - 1) * dw floats (ops/NN.cpp sizes it
 * with the same formula when dw_small_map says so). */
/* A kernel row of KWC taps added into a register per element, two vectors
 * in flight (each element's taps are a chain of dependent adds). */
#define KILN_DW_PLANE(KWC)                                                    \
  {                                                                           \
    float wk[KWC];                                                            \
    for (int kw = 0; kw < KWC; ++kw)                                          \
      wk[kw] = wr[kw];                                                        \
    _Pragma("clang loop interleave_count(2)")                                 \
    for (int64_t j = 0; j < n; ++j) {                                         \
      float acc = yp[j];                                                      \
      for (int kw = 0; kw < KWC; ++kw)                                        \
        acc += wk[kw] * xr[j + kw * dw];                                      \
      yp[j] = acc;                                                            \
    }                                                                         \
  }
static int dw_small_map(const int64_t *od, const int64_t *st) {
  return st[0] == 1 && st[1] == 1 && od[1] < 32;
}
static void conv_depthwise2d_flat(const float *x, const float *w,
                                  const float *bias, float *y,
                                  const int64_t *id, const int64_t *kd,
                                  const int64_t *od, const int64_t *dl,
                                  const int64_t *pb, float *xp) {
  const int64_t H = id[0], W = id[1], KH = kd[0], KW = kd[1], OH = od[0],
                OW = od[1], dh = dl[0], dw = dl[1];
  const int64_t Wp = OW + (KW - 1) * dw, Hp = OH + (KH - 1) * dh;
  const int64_t n = OH * Wp;
  float *restrict yp = xp + Hp * Wp + (KW - 1) * dw;
  pad_rows(xp, x, H, W, -pb[0], Hp, pb[1], Wp);
  memset(xp + Hp * Wp, 0, (size_t)((KW - 1) * dw) * sizeof(float));
  for (int64_t j = 0; j < n; ++j)
    yp[j] = 0.0f;
  for (int64_t kh = 0; kh < KH; ++kh) {
    const float *restrict xr = xp + kh * dh * Wp;
    const float *wr = w + kh * KW;
    if (KW == 3) KILN_DW_PLANE(3)
    else if (KW == 5) KILN_DW_PLANE(5)
    else if (KW == 7) KILN_DW_PLANE(7)
    else
      for (int64_t kw = 0; kw < KW; ++kw) {
        const float wv = wr[kw];
        const float *restrict xs = xr + kw * dw;
        for (int64_t j = 0; j < n; ++j)
          yp[j] += wv * xs[j];
      }
  }
  for (int64_t oh = 0; oh < OH; ++oh) {
    float *yr = y + oh * OW;
    const float *src = yp + oh * Wp;
    if (bias)
      for (int64_t ow = 0; ow < OW; ++ow)
        yr[ow] = *bias + src[ow];
    else
      memcpy(yr, src, (size_t)OW * sizeof(float));
  }
}

/* Conv (f32).
 *   p = {nsp, N, C, M, group, chunk, direct, in[nsp], k[nsp], out[nsp],
 *        stride[nsp], dilation[nsp], padBegin[nsp], epilogue...}
 *   in = {X [N, C, in...], W [M, C/group, k...], B [M] or NULL, the
 *         epilogue's operands...}
 *   out = {Y [N, M, out...]}
 *   f = the epilogue's float parameters
 * The epilogue (kiln_tensor.h; E = 0: none) runs on each block of output
 * rows as soon as the GEMM has written it. chunk: output positions per
 * im2col block; the scratch holds
 * KILN_SGEMM_PACK_FLOATS floats for the GEMM, then the columns:
 * (C/group) * prod(k) * chunk floats. direct: 1 for a 1x1 kernel, stride
 * 1, no padding, where X itself is the column matrix; 2 for a 2-D
 * convolution of stride 1 run as conv_shifted (chunk: output rows per GEMM,
 * the scratch as conv_shifted says); 0 im2col. A 2-D depthwise convolution
 * (one input and one output channel per group) runs conv_depthwise2d, whose
 * padded copy of a channel takes the columns' place in the scratch.
 * Shares (kiln_tp_conv): depthwise channels; output rows (conv_shifted);
 * otherwise output positions when there are enough for every share, else
 * output channels (each share then builds the columns it reads). A 1x1
 * convolution with channels enough for every share splits those, so that
 * each share streams only its part of the weights. */
static void conv_share(const int64_t *p, const float *f, const void *const *in,
                       void *const *out, void *scratch, int part, int parts) {
  int nsp = (int)p[0];
  int64_t N = p[1], C = p[2], M = p[3], G = p[4], chunk = p[5];
  int direct = (int)p[6];
  const int64_t *id = p + 7, *kd = id + nsp, *od = kd + nsp, *st = od + nsp,
                *dl = st + nsp, *pb = dl + nsp, *ep = pb + nsp;
  const float *X = (const float *)in[0], *Wt = (const float *)in[1],
              *B = (const float *)in[2];
  float *Y = (float *)out[0], *pack = (float *)scratch;
  float *col = pack + KILN_SGEMM_PACK_FLOATS;
  int64_t cg = C / G, mg = M / G, P = prod(od, nsp), Pin = prod(id, nsp);
  int64_t CK = cg * prod(kd, nsp);
  if (direct == 2) {
    int64_t r0, r1;
    kiln_part_range(od[0], part, parts, 1, &r0, &r1);
    for (int64_t n = 0; r0 < r1 && n < N; ++n)
      for (int64_t g = 0; g < G; ++g)
        conv_shifted(X + (n * C + g * cg) * Pin, Wt + g * mg * CK,
                     B ? B + g * mg : NULL, Y + (n * M + g * mg) * P, cg, mg,
                     id, kd, od, dl, pb, r0, r1, chunk, pack, ep, f, in,
                     g * mg, (n * M + g * mg) * P);
    return;
  }
  if (nsp == 2 && cg == 1 && mg == 1 && !direct) {
    int64_t u0, u1;
    kiln_part_range(N * G, part, parts, 1, &u0, &u1);
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t n = u / G, g = u % G;
      float *y = Y + (n * M + g) * P;
      if (dw_small_map(od, st))
        conv_depthwise2d_flat(X + (n * C + g) * Pin, Wt + g * CK,
                              B ? B + g : NULL, y, id, kd, od, dl, pb, col);
      else
        conv_depthwise2d(X + (n * C + g) * Pin, Wt + g * CK, B ? B + g : NULL,
                         y, id, kd, od, st, dl, pb, col);
      if (ep[0])
        kiln_epilogue_f32(ep, f, in, y, P, g, (n * M + g) * P);
    }
    return;
  }
  int64_t c0 = 0, c1 = P, m0 = 0, m1 = mg;
  if (P >= 64 * (int64_t)parts && !(direct && mg >= 64 * (int64_t)parts))
    kiln_part_range(P, part, parts, 16, &c0, &c1);
  else
    kiln_part_range(mg, part, parts, 1, &m0, &m1);
  if (c0 >= c1 || m0 >= m1)
    return;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < G; ++g) {
      const float *x = X + (n * C + g * cg) * Pin;
      const float *w = Wt + (g * mg + m0) * CK;
      float *y = Y + (n * M + g * mg + m0) * P;
      const int64_t rows = m1 - m0, ch = g * mg + m0, at = (n * M + ch) * P;
      for (int64_t j0 = c0; j0 < c1; j0 += direct ? c1 - c0 : chunk) {
        const int64_t j1 = direct || j0 + chunk >= c1 ? c1 : j0 + chunk;
        if (direct)
          kiln_sgemm(rows, j1 - j0, CK, 1.0f, w, CK, 1, x + j0, P, y + j0, P,
                     0, B ? B + ch : NULL, pack);
        else {
          if (nsp == 2)
            im2col_2d(x, cg, id, od, kd, st, dl, pb, j0, j1, col);
          else
            im2col_walk(0, (float *)x, cg, nsp, id, od, kd, st, dl, pb, j0,
                        j1, col);
          kiln_sgemm(rows, j1 - j0, CK, 1.0f, w, CK, 1, col, j1 - j0, y + j0,
                     P, 0, B ? B + ch : NULL, pack);
        }
        for (int64_t m = 0; ep[0] && m < rows; ++m)
          kiln_epilogue_f32(ep, f, in, y + m * P + j0, j1 - j0, ch + m,
                            at + m * P + j0);
      }
    }
}

void kiln_t_conv(const int64_t *p, const float *f, const void *const *in,
                 void *const *out, void *scratch) {
  conv_share(p, f, in, out, scratch, 0, 1);
}

void kiln_tp_conv(const int64_t *p, const float *f, const void *const *in,
                  void *const *out, void *scratch, int part, int parts) {
  conv_share(p, f, in, out, scratch, part, parts);
}

void kiln_conv_epilogue_f32(const int64_t *p, const float *f,
                            const void *const *in, void *const *out) {
  const int nsp = (int)p[0];
  const int64_t N = p[1], M = p[3], P = prod(p + 7 + 2 * nsp, nsp);
  const int64_t *ep = p + 7 + 6 * nsp;
  const float *B = (const float *)in[2];
  float *Y = (float *)out[0];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      float *y = Y + (n * M + m) * P;
      for (int64_t j = 0; B && j < P; ++j)
        y[j] += B[m];
      if (ep[0])
        kiln_epilogue_f32(ep, f, in, y, P, m, (n * M + m) * P);
    }
}

/* ConvTranspose (f32).
 *   p = {nsp, N, C, M, group, chunk, in[nsp], k[nsp], out[nsp],
 *        stride[nsp], dilation[nsp], padBegin[nsp], epilogue...}
 *   in = {X [N, C, in...], W [C, M/group, k...], B [M] or NULL, the
 *         epilogue's operands...}
 *   out = {Y [N, M, out...]}
 *   f = the epilogue's float parameters (kiln_tensor.h; it runs on each
 *       output channel once all its sums are in)
 * Input position i and tap k add into output position i * stride - padBegin
 * + k * dilation (dropped outside the output). The scratch holds
 * KILN_SGEMM_PACK_FLOATS floats for the GEMM, then (M/group) * prod(k) *
 * chunk floats: the columns of `chunk` input positions. Shares
 * (kiln_tp_conv_transpose): output channels of each group. */
static void conv_transpose_share(const int64_t *p, const float *f,
                                 const void *const *in, void *const *out,
                                 void *scratch, int part, int parts) {
  int nsp = (int)p[0];
  int64_t N = p[1], C = p[2], M = p[3], G = p[4], chunk = p[5];
  const int64_t *id = p + 6, *kd = id + nsp, *od = kd + nsp, *st = od + nsp,
                *dl = st + nsp, *pb = dl + nsp, *ep = pb + nsp;
  const float *X = (const float *)in[0], *Wt = (const float *)in[1],
              *B = (const float *)in[2];
  float *Y = (float *)out[0], *pack = (float *)scratch;
  float *col = pack + KILN_SGEMM_PACK_FLOATS;
  int64_t cg = C / G, mg = M / G, P = prod(od, nsp), Pin = prod(id, nsp);
  int64_t kn = prod(kd, nsp), MK = mg * kn, m0, m1;
  kiln_part_range(mg, part, parts, 1, &m0, &m1);
  if (m0 >= m1)
    return;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < G; ++g) {
      const int64_t ch = g * mg + m0, rows = m1 - m0;
      float *y = Y + (n * M + ch) * P;
      for (int64_t m = 0; m < rows; ++m)
        for (int64_t j = 0; j < P; ++j)
          y[m * P + j] = B ? B[ch + m] : 0.0f;
      const float *x = X + (n * C + g * cg) * Pin;
      /* [cg, MK], read transposed; this share's rows from channel m0 on. */
      const float *w = Wt + g * cg * MK + m0 * kn;
      for (int64_t j0 = 0; j0 < Pin; j0 += chunk) {
        int64_t j1 = j0 + chunk < Pin ? j0 + chunk : Pin;
        kiln_sgemm(rows * kn, j1 - j0, cg, 1.0f, w, 1, MK, x + j0, Pin, col,
                   j1 - j0, 0, NULL, pack);
        im2col_walk(1, y, rows, nsp, od, id, kd, st, dl, pb, j0, j1, col);
      }
      for (int64_t m = 0; ep[0] && m < rows; ++m)
        kiln_epilogue_f32(ep, f, in, y + m * P, P, ch + m,
                          (n * M + ch + m) * P);
    }
}

void kiln_t_conv_transpose(const int64_t *p, const float *f,
                           const void *const *in, void *const *out,
                           void *scratch) {
  conv_transpose_share(p, f, in, out, scratch, 0, 1);
}

void kiln_tp_conv_transpose(const int64_t *p, const float *f,
                            const void *const *in, void *const *out,
                            void *scratch, int part, int parts) {
  conv_transpose_share(p, f, in, out, scratch, part, parts);
}

/* BatchNormalization (inference):
 *   y = (x - mean) * scale / sqrt(var + epsilon) + B, per channel.
 *   p = {dtype, N, C, S}  (S = product of the spatial dimensions)
 *   f = {epsilon}
 *   in = {X, scale, B, mean, var} (the four of shape [C]) */
void kiln_t_batchnorm(const int64_t *p, const float *f, const void *const *in,
                      void *const *out, void *scratch) {
  (void)scratch;
  const int64_t dtype = p[0], N = p[1], C = p[2], S = p[3];
  const float eps = f[0];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c) {
      const int64_t at = (n * C + c) * S;
      if (dtype == KILN_F32) {
        kiln_batchnorm_channel_f32(in + 1, eps, c, (const float *)in[0] + at,
                                   (float *)out[0] + at, S);
      } else if (dtype == KILN_F64) {
        const double *sc = (const double *)in[1], *bi = (const double *)in[2],
                     *mu = (const double *)in[3], *va = (const double *)in[4];
        const double *xs = (const double *)in[0] + at;
        double *ys = (double *)out[0] + at;
        KILN_BATCHNORM_CHANNEL(double);
      }
    }
}

/* InstanceNormalization: per (n, c), normalize over the spatial dimensions.
 *   p = {dtype, N, C, S}, f = {epsilon}, in = {X, scale [C], B [C]} */
void kiln_t_instancenorm(const int64_t *p, const float *f,
                         const void *const *in, void *const *out,
                         void *scratch) {
  (void)scratch;
  int64_t dtype = p[0], N = p[1], C = p[2], S = p[3];
  switch (dtype) {
#define X(code, T)                                                            \
  case code: {                                                                \
    const T *x = (const T *)in[0], *sc = (const T *)in[1],                    \
            *bi = (const T *)in[2];                                           \
    T *y = (T *)out[0];                                                       \
    for (int64_t n = 0; n < N; ++n)                                           \
      for (int64_t c = 0; c < C; ++c) {                                       \
        const T *xs = x + (n * C + c) * S;                                    \
        T *ys = y + (n * C + c) * S;                                          \
        double sum = 0, sq = 0;                                               \
        for (int64_t i = 0; i < S; ++i)                                       \
          sum += xs[i];                                                       \
        double mean = sum / (double)S;                                        \
        for (int64_t i = 0; i < S; ++i)                                       \
          sq += ((double)xs[i] - mean) * ((double)xs[i] - mean);              \
        T a = (T)(sc[c] / sqrt(sq / (double)S + (double)f[0]));               \
        T b = (T)(bi[c] - mean * a);                                          \
        for (int64_t i = 0; i < S; ++i)                                       \
          ys[i] = xs[i] * a + b;                                              \
      }                                                                       \
    break;                                                                    \
  }
    KILN_FOR_FLOAT_TYPES(X)
#undef X
  default: break;
  }
}

/* LRN across channels (f32):
 *   y = x / (bias + alpha / size * sum of x^2 over channels
 *            [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta
 *   p = {N, C, S, size}, f = {alpha, beta, bias} */
void kiln_t_lrn(const int64_t *p, const float *f, const void *const *in,
                void *const *out, void *scratch) {
  (void)scratch;
  int64_t N = p[0], C = p[1], S = p[2], size = p[3];
  float alpha = f[0], beta = f[1], bias = f[2];
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  const float *x = (const float *)in[0];
  float *y = (float *)out[0];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c) {
      int64_t c0 = c - before < 0 ? 0 : c - before;
      int64_t c1 = c + after >= C ? C - 1 : c + after;
      float *ys = y + (n * C + c) * S;
      for (int64_t i = 0; i < S; ++i)
        ys[i] = 0.0f;
      for (int64_t cc = c0; cc <= c1; ++cc) {
        const float *xs = x + (n * C + cc) * S;
        for (int64_t i = 0; i < S; ++i)
          ys[i] += xs[i] * xs[i];
      }
      const float *xc = x + (n * C + c) * S;
      for (int64_t i = 0; i < S; ++i)
        ys[i] = xc[i] / powf(bias + alpha / (float)size * ys[i], beta);
    }
}

/* Taps of a window along one axis (k taps, stride s, dilation d, padding
 * pb) that land in [lo, hi) for output position o. */
static int64_t taps_inside(int64_t o, int64_t k, int64_t s, int64_t d,
                           int64_t pb, int64_t lo, int64_t hi) {
  int64_t n = 0;
  for (int64_t t = 0; t < k; ++t) {
    int64_t i = o * s - pb + t * d;
    n += i >= lo && i < hi;
  }
  return n;
}

/* The lowest value of T (the identity of max): -inf for floats. */
#define KILN_LOWEST(T)                                                        \
  ((T)0.5 != (T)0 ? (T)-INFINITY                                              \
                  : (T)-1 < (T)0 ? (T)((uint64_t)1 << (sizeof(T) * 8 - 1))    \
                                 : (T)0)

/* MaxPool / AveragePool over nsp spatial dimensions.
 *   p = {dtype, kind (0 max, 1 average), countIncludePad, storageOrder,
 *        wantIndices, nsp, NC, in[nsp], k[nsp], out[nsp], stride[nsp],
 *        dilation[nsp], padBegin[nsp], padEnd[nsp]}
 *   out = {Y [N, C, out...], Indices (int64) when wantIndices}
 * The loop runs tap by tap over whole output rows, like im2col: the inner
 * loop over the last axis has a constant stride and vectorizes. Average:
 * the divisor counts the taps inside the input, or with countIncludePad the
 * taps inside the explicitly padded input (taps that ceil_mode adds past the
 * padding never count); a box window makes it a product of per-axis counts,
 * kept in the scratch (sum of out[] int64). Indices are flat indices into
 * X, row-major (storageOrder 0) or with the spatial dimensions column-major
 * (storageOrder 1); the first maximum wins. */
void kiln_t_pool(const int64_t *p, const float *f, const void *const *in,
                 void *const *out, void *scratch) {
  (void)f;
  int64_t dtype = p[0], kind = p[1], incPad = p[2], order = p[3];
  int64_t wantIdx = p[4];
  int nsp = (int)p[5], last = nsp - 1;
  int64_t NC = p[6];
  const int64_t *id = p + 7, *kd = id + nsp, *od = kd + nsp, *st = od + nsp,
                *dl = st + nsp, *pb = dl + nsp, *pe = pb + nsp;
  int64_t P = prod(od, nsp), Pin = prod(id, nsp), kn = prod(kd, nsp);
  int64_t rows = P / od[last], W = id[last], s = st[last];
  int64_t *indices = wantIdx ? (int64_t *)out[1] : NULL;
  /* Flat-index weights of each spatial axis for Indices. */
  int64_t mul[KILN_MAX_RANK], m = 1;
  for (int d = 0; d < nsp; ++d) {
    int dd = order ? d : nsp - 1 - d;
    mul[dd] = m;
    m *= id[dd];
  }
  /* Average divisors per axis and output position. */
  int64_t *cnt[KILN_MAX_RANK];
  if (kind == 1) {
    int64_t *c = (int64_t *)scratch;
    for (int d = 0; d < nsp; ++d) {
      cnt[d] = c;
      for (int64_t o = 0; o < od[d]; ++o)
        c[o] = taps_inside(o, kd[d], st[d], dl[d], pb[d],
                           incPad ? -pb[d] : 0, incPad ? id[d] + pe[d] : id[d]);
      c += od[d];
    }
  }
  switch (dtype) {
#define X(code, T)                                                            \
  case code: {                                                                \
    const T *x = (const T *)in[0];                                            \
    T *y = (T *)out[0];                                                       \
    for (int64_t pl = 0; pl < NC; ++pl) {                                     \
      const T *xs = x + pl * Pin;                                             \
      T *ys = y + pl * P;                                                     \
      int64_t *is = indices ? indices + pl * P : NULL;                        \
      for (int64_t o = 0; o < P; ++o)                                         \
        ys[o] = kind == 0 ? KILN_LOWEST(T) : (T)0;                            \
      if (is)                                                                 \
        for (int64_t o = 0; o < P; ++o)                                       \
          is[o] = pl * Pin;                                                   \
      int64_t kidx[KILN_MAX_RANK] = {0};                                      \
      for (int64_t t = 0; t < kn; ++t, kiln_nd_next(kidx, kd, nsp)) {         \
        int64_t oidx[KILN_MAX_RANK] = {0};                                    \
        int64_t base = kidx[last] * dl[last] - pb[last];                      \
        int64_t lo = ceil_div(-base, s), hi = ceil_div(W - base, s);          \
        lo = lo < 0 ? 0 : lo > od[last] ? od[last] : lo;                      \
        hi = hi < lo ? lo : hi > od[last] ? od[last] : hi;                    \
        for (int64_t r = 0; r < rows; ++r) {                                  \
          int64_t off = 0, flat = 0;                                          \
          int inside = 1;                                                     \
          for (int d = 0; d < last; ++d) {                                    \
            int64_t ii = oidx[d] * st[d] - pb[d] + kidx[d] * dl[d];           \
            inside &= ii >= 0 && ii < id[d];                                  \
            off = off * id[d] + ii;                                           \
            flat += ii * mul[d];                                              \
          }                                                                   \
          if (last > 0)                                                       \
            kiln_nd_next(oidx, od, last);                                     \
          if (!inside)                                                        \
            continue;                                                         \
          const int64_t first = off * W + base;                               \
          T *dst = ys + r * od[last];                                         \
          if (kind == 1) {                                                    \
            for (int64_t q = lo; q < hi; ++q)                                 \
              dst[q] += xs[first + q * s];                                    \
          } else if (!is) {                                                   \
            for (int64_t q = lo; q < hi; ++q) {                               \
              T v = xs[first + q * s];                                        \
              dst[q] = v > dst[q] ? v : dst[q];                               \
            }                                                                 \
          } else {                                                            \
            int64_t *ids = is + r * od[last];                                 \
            for (int64_t q = lo; q < hi; ++q) {                               \
              T v = xs[first + q * s];                                        \
              if (v > dst[q]) {                                               \
                dst[q] = v;                                                   \
                ids[q] = pl * Pin + flat + (q * s + base) * mul[last];        \
              }                                                               \
            }                                                                 \
          }                                                                   \
        }                                                                     \
      }                                                                       \
      if (kind == 1) {                                                        \
        int64_t oidx[KILN_MAX_RANK] = {0};                                    \
        for (int64_t o = 0; o < P; ++o, kiln_nd_next(oidx, od, nsp)) {        \
          int64_t div = 1;                                                    \
          for (int d = 0; d < nsp; ++d)                                       \
            div *= cnt[d][oidx[d]];                                           \
          ys[o] = div ? (T)(ys[o] / (T)div) : (T)0;                           \
        }                                                                     \
      }                                                                       \
    }                                                                         \
    break;                                                                    \
  }
    KILN_FOR_NUMERIC_TYPES(X)
#undef X
  default: break;
  }
}

/* GlobalMaxPool / GlobalAveragePool: one value per (n, c) plane.
 *   p = {dtype, kind (0 max, 1 average), NC, S}
 * Shares (kiln_tp_global_pool): planes. */
void kiln_tp_global_pool(const int64_t *p, const float *f,
                         const void *const *in, void *const *out,
                         void *scratch, int part, int parts) {
  (void)f; (void)scratch;
  int64_t dtype = p[0], kind = p[1], NC = p[2], S = p[3], pl0, pl1;
  kiln_part_range(NC, part, parts, 1, &pl0, &pl1);
  switch (dtype) {
#define X(code, T)                                                            \
  case code: {                                                                \
    const T *x = (const T *)in[0];                                            \
    T *y = (T *)out[0];                                                       \
    for (int64_t pl = pl0; pl < pl1; ++pl) {                                  \
      const T *xs = x + pl * S;                                               \
      if (kind == 0) {                                                        \
        T best = xs[0];                                                       \
        for (int64_t i = 1; i < S; ++i)                                       \
          best = xs[i] > best ? xs[i] : best;                                 \
        y[pl] = best;                                                         \
      } else {                                                                \
        /* Eight running sums (element i into sum i % 8), added pairwise at \
         * the end: independent adds that vectorize, in an order fixed by    \
         * the source, where one running sum is a chain of dependent adds.  \
         */                                                                   \
        double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};                             \
        int64_t i = 0;                                                        \
        for (; i + 8 <= S; i += 8)                                            \
          for (int l = 0; l < 8; ++l)                                         \
            acc[l] += (double)xs[i + l];                                      \
        for (int l = 0; i < S; ++i, ++l)                                      \
          acc[l] += (double)xs[i];                                            \
        const double sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) +          \
                           ((acc[4] + acc[5]) + (acc[6] + acc[7]));           \
        y[pl] = (T)(sum / (double)S);                                         \
      }                                                                       \
    }                                                                         \
    break;                                                                    \
  }
    KILN_FOR_NUMERIC_TYPES(X)
#undef X
  default: break;
  }
}

void kiln_t_global_pool(const int64_t *p, const float *f,
                        const void *const *in, void *const *out,
                        void *scratch) {
  kiln_tp_global_pool(p, f, in, out, scratch, 0, 1);
}
