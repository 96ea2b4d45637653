/* blocked_tile.h - conv_nchwc's row loops for one block width, included by
 * blocked.c once per width with KILN_CB (lanes) and KILN_V (a vector of
 * KILN_CB floats) defined; it undefines both. Not a public header.
 *
 * Each function takes a zero vector: a function with a 512-bit vector in
 * its signature is compiled with 512-bit registers (clang's
 * min-legal-vector-width), where -march=x86-64-v4 otherwise prefers 256-bit
 * ones and splits every 16-float vector in two (kernels/tensor/gemm.c). */
#define KILN_BT_CAT2(a, b) a##b
#define KILN_BT_CAT(a, b) KILN_BT_CAT2(a, b)
#define KILN_BT_FN(name) KILN_BT_CAT(name, KILN_CB)

/* Output positions per register tile of the depthwise loop. */
#define KILN_BT_T 8

/* Output blocks and positions of the dense loop's register tile: each
 * broadcast input value feeds MBT multiply-adds, each weight vector T. */
#define KILN_BT_DT 6
#if KILN_CB == 16
#define KILN_BT_MBT 4
#else
#define KILN_BT_MBT 2
#endif

/* A dense tile: `mbt` output blocks from mb (a constant where it is
 * inlined, so the accumulators are registers) x positions [ow0, ow0 + tn)
 * of output row oh of image n. */
static inline __attribute__((always_inline)) void KILN_BT_FN(blocked_dense_tile_)(
    KILN_V zero, const struct kiln_blocked_conv *g, const float *X, const float *W,
    const float *B, float *Y, int64_t n, int64_t oh, int64_t mb, int mbt,
    int64_t ow0, int64_t tn) {
  enum { CB = KILN_CB, T = KILN_BT_DT, MBT = KILN_BT_MBT };
  const int64_t IH = g->IH, IW = g->IW, KH = g->KH, KW = g->KW, OW = g->OW,
                SW = g->SW, Cb = g->Cb;
  const int64_t wstep = Cb * KH * KW * CB * CB; /* next output block */
  KILN_V acc[MBT][T];
  for (int j = 0; j < mbt; ++j) {
    KILN_V bias = zero;
    if (B)
      bias = *(const KILN_V *)(B + (mb + j) * CB);
    for (int t = 0; t < T; ++t)
      acc[j][t] = bias;
  }
  for (int64_t ib = 0; ib < Cb; ++ib) {
    const float *xc = X + (n * Cb + ib) * IH * IW * CB;
    const float *wc = W + (mb * Cb + ib) * KH * KW * CB * CB;
    for (int64_t kh = 0; kh < KH; ++kh) {
      const int64_t ih = oh * g->SH - g->PH + kh * g->DH;
      if (ih < 0 || ih >= IH)
        continue;
      const float *xr = xc + ih * IW * CB;
      for (int64_t kw = 0; kw < KW; ++kw) {
        const float *wk = wc + (kh * KW + kw) * CB * CB;
        const int64_t iw0 = ow0 * SW - g->PW + kw * g->DW;
        if (tn == T && iw0 >= 0 && iw0 + (T - 1) * SW < IW) {
          const float *xp = xr + iw0 * CB;
          for (int ci = 0; ci < CB; ++ci) {
            KILN_V wv[MBT];
            for (int j = 0; j < mbt; ++j)
              wv[j] = *(const KILN_V *)(wk + j * wstep + ci * CB);
            for (int t = 0; t < T; ++t) {
              const float s = xp[t * SW * CB + ci];
              for (int j = 0; j < mbt; ++j)
                acc[j][t] += s * wv[j];
            }
          }
        } else {
          for (int t = 0; t < T; ++t) { /* constant trip counts */
            const int64_t iw = iw0 + t * SW;
            if (t >= tn || iw < 0 || iw >= IW)
              continue;
            const float *xp = xr + iw * CB;
            for (int ci = 0; ci < CB; ++ci)
              for (int j = 0; j < mbt; ++j)
                acc[j][t] += xp[ci] * *(const KILN_V *)(wk + j * wstep + ci * CB);
          }
        }
      }
    }
  }
  for (int j = 0; j < mbt; ++j) {
    float *yr = Y + ((n * g->Mb + mb + j) * g->OH + oh) * OW * CB;
    for (int t = 0; t < T; ++t)
      if (t < tn)
        *(KILN_V *)(yr + (ow0 + t) * CB) = acc[j][t];
  }
}

/* Dense rows [r0, r1) in the order (image, output row, output block):
 * row r's output block runs in a tile with the next ones of its image and
 * output row inside the range. */
static void KILN_BT_FN(blocked_dense_rows_)(
    KILN_V zero, const struct kiln_blocked_conv *g, const float *X, const float *W,
    const float *B, float *Y, int64_t r0, int64_t r1, const float *f,
    const void *const *in) {
  enum { T = KILN_BT_DT, MBT = KILN_BT_MBT };
  const int64_t Mb = g->Mb, OH = g->OH, OW = g->OW;
  for (int64_t r = r0; r < r1;) {
    const int64_t mb = r % Mb, oh = (r / Mb) % OH, n = r / (Mb * OH);
    int64_t mbt = Mb - mb < r1 - r ? Mb - mb : r1 - r;
    if (mbt > MBT)
      mbt = MBT;
    for (int64_t ow0 = 0; ow0 < OW; ow0 += T) {
      const int64_t tn = OW - ow0 < T ? OW - ow0 : T;
      if (mbt == MBT)
        KILN_BT_FN(blocked_dense_tile_)(zero, g, X, W, B, Y, n, oh, mb, MBT, ow0, tn);
      else if (MBT > 2 && mbt >= 2) {
        KILN_BT_FN(blocked_dense_tile_)(zero, g, X, W, B, Y, n, oh, mb, 2, ow0, tn);
        if (mbt == 3)
          KILN_BT_FN(blocked_dense_tile_)(zero, g, X, W, B, Y, n, oh, mb + 2, 1, ow0,
                                          tn);
      } else
        KILN_BT_FN(blocked_dense_tile_)(zero, g, X, W, B, Y, n, oh, mb, 1, ow0, tn);
    }
    for (int64_t j = 0; j < mbt; ++j) {
      const int64_t row = (n * Mb + mb + j) * OH + oh;
      blocked_row_end(g, Y + row * OW * KILN_CB, mb + j, row * OW * KILN_CB,
                      f, in);
    }
    r += mbt;
  }
}

/* Depthwise rows [r0, r1): row r is image n, channel block mb, row oh. */
static void KILN_BT_FN(blocked_depthwise_rows_)(
    KILN_V zero, const struct kiln_blocked_conv *g, const float *X, const float *W,
    const float *B, float *Y, int64_t r0, int64_t r1, const float *f,
    const void *const *in) {
  enum { CB = KILN_CB, T = KILN_BT_T };
  const int64_t IH = g->IH, IW = g->IW, KH = g->KH, KW = g->KW, OW = g->OW,
                SW = g->SW;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t oh = r % g->OH, mb = (r / g->OH) % g->Mb,
                  n = r / (g->OH * g->Mb);
    const float *xc = X + (n * g->Cb + mb) * IH * IW * CB;
    const float *wc = W + mb * KH * KW * CB;
    float *yr = Y + r * OW * CB;
    KILN_V bias = zero;
    if (B)
      bias = *(const KILN_V *)(B + mb * CB);
    for (int64_t ow0 = 0; ow0 < OW; ow0 += T) {
      const int64_t tn = OW - ow0 < T ? OW - ow0 : T;
      KILN_V acc[T];
      for (int t = 0; t < T; ++t)
        acc[t] = bias;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = oh * g->SH - g->PH + kh * g->DH;
        if (ih < 0 || ih >= IH)
          continue;
        const float *xr = xc + ih * IW * CB;
        for (int64_t kw = 0; kw < KW; ++kw) {
          const KILN_V wv = *(const KILN_V *)(wc + (kh * KW + kw) * CB);
          const int64_t iw0 = ow0 * SW - g->PW + kw * g->DW;
          if (tn == T && iw0 >= 0 && iw0 + (T - 1) * SW < IW) {
            for (int t = 0; t < T; ++t)
              acc[t] += *(const KILN_V *)(xr + (iw0 + t * SW) * CB) * wv;
          } else {
            for (int t = 0; t < T; ++t) { /* constant trip count */
              const int64_t iw = iw0 + t * SW;
              if (t < tn && iw >= 0 && iw < IW)
                acc[t] += *(const KILN_V *)(xr + iw * CB) * wv;
            }
          }
        }
      }
      for (int t = 0; t < T; ++t)
        if (t < tn)
          *(KILN_V *)(yr + (ow0 + t) * CB) = acc[t];
    }
    blocked_row_end(g, yr, mb, r * OW * CB, f, in);
  }
}

#undef KILN_BT_T
#undef KILN_BT_DT
#undef KILN_BT_MBT
#undef KILN_BT_FN
#undef KILN_BT_CAT
#undef KILN_BT_CAT2
#undef KILN_CB
#undef KILN_V
