/* blocked_tile.h - conv_nchwc's row loops for one block width, included by
 * blocked.c once per width with KILN_CB (lanes) and KILN_V (a vector of
 * KILN_CB floats) defined; it undefines both. Not a public header. */
#define KILN_BT_CAT2(a, b) a##b
#define KILN_BT_CAT(a, b) KILN_BT_CAT2(a, b)
#define KILN_BT_FN(name) KILN_BT_CAT(name, KILN_CB)

/* Output positions per register tile. */
#define KILN_BT_T 8

/* Dense rows [r0, r1): row r is image n, output block mb, output row oh. */
static void KILN_BT_FN(blocked_dense_rows_)(
    const struct kiln_blocked_conv *g, const float *X, const float *W,
    const float *B, float *Y, int64_t r0, int64_t r1, const float *f,
    const void *const *in) {
  enum { CB = KILN_CB, T = KILN_BT_T };
  const int64_t IH = g->IH, IW = g->IW, KH = g->KH, KW = g->KW, OW = g->OW,
                SW = g->SW, Cb = g->Cb;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t oh = r % g->OH, mb = (r / g->OH) % g->Mb,
                  n = r / (g->OH * g->Mb);
    float *yr = Y + r * OW * CB;
    KILN_V bias = {0};
    if (B)
      bias = *(const KILN_V *)(B + mb * CB);
    for (int64_t ow0 = 0; ow0 < OW; ow0 += T) {
      const int64_t tn = OW - ow0 < T ? OW - ow0 : T;
      KILN_V acc[T];
      for (int t = 0; t < T; ++t)
        acc[t] = bias;
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
                const KILN_V wv = *(const KILN_V *)(wk + ci * CB);
                for (int t = 0; t < T; ++t)
                  acc[t] += xp[t * SW * CB + ci] * wv;
              }
            } else {
              // Constant trip counts, so acc stays in registers.
              for (int t = 0; t < T; ++t) {
                const int64_t iw = iw0 + t * SW;
                if (t >= tn || iw < 0 || iw >= IW)
                  continue;
                const float *xp = xr + iw * CB;
                for (int ci = 0; ci < CB; ++ci)
                  acc[t] += xp[ci] * *(const KILN_V *)(wk + ci * CB);
              }
            }
          }
        }
      }
      for (int t = 0; t < T; ++t)
        if (t < tn)
          *(KILN_V *)(yr + (ow0 + t) * CB) = acc[t];
    }
    blocked_row_end(g, yr, r, f, in);
  }
}

/* Depthwise rows [r0, r1): row r is image n, channel block mb, row oh. */
static void KILN_BT_FN(blocked_depthwise_rows_)(
    const struct kiln_blocked_conv *g, const float *X, const float *W,
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
    KILN_V bias = {0};
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
    blocked_row_end(g, yr, r, f, in);
  }
}

#undef KILN_BT_T
#undef KILN_BT_FN
#undef KILN_BT_CAT
#undef KILN_BT_CAT2
#undef KILN_CB
#undef KILN_V
