/* pad.c - Pad: constant, reflect and edge modes, negative pads crop.
 *
 * Each output index maps to an input index per dimension (or to "outside"
 * in constant mode). The kernel walks output rows: a row whose outer indices
 * fall outside is filled with the constant; otherwise the part of the row
 * that lies inside the input is one memcpy and only the borders go element
 * by element. Works on bytes, so every element type is handled alike. */
#include "kiln_tensor.h"

/* Input index of output index o along a dimension of n input elements with
 * `begin` elements padded before it; -1 when outside in constant mode. */
static int64_t pad_source(int64_t o, int64_t begin, int64_t n, int mode) {
  int64_t i = o - begin;
  if (i >= 0 && i < n)
    return i;
  if (mode == KILN_PAD_CONSTANT || n == 0)
    return -1;
  if (mode == KILN_PAD_EDGE || n == 1)
    return i < 0 ? 0 : n - 1;
  /* reflect (without repeating the edge): period 2(n-1) */
  const int64_t period = 2 * (n - 1);
  i %= period;
  if (i < 0)
    i += period;
  return i < n ? i : period - i;
}

/* p = {elem_bytes, mode, rank, in_shape[rank], out_shape[rank],
 *      begin[rank]}; in = {x, constant value (one element) or NULL for 0}.
 * begin may be negative (cropping). rank >= 1. */
void kiln_t_pad(const int64_t *p, const float *f, const void *const *in,
                void *const *out, void *scratch) {
  (void)f; (void)scratch;
  const size_t e = (size_t)p[0];
  const int mode = (int)p[1], rank = (int)p[2];
  const int64_t *ish = p + 3, *osh = ish + rank, *beg = osh + rank;
  const char *x = (const char *)in[0];
  char *y = (char *)out[0];
  char zero[16] = {0};
  const char *value = in[1] ? (const char *)in[1] : zero;
  for (int d = 0; d < rank; ++d)
    if (osh[d] == 0)
      return;
  int64_t istr[KILN_MAX_RANK];
  istr[rank - 1] = 1;
  for (int d = rank - 2; d >= 0; --d)
    istr[d] = istr[d + 1] * ish[d + 1];
  const int64_t n_out = osh[rank - 1], n_in = ish[rank - 1],
                b = beg[rank - 1];
  /* output range [lo, hi) that copies input [lo - b, hi - b) */
  int64_t lo = b < 0 ? 0 : b, hi = b + n_in;
  if (hi > n_out)
    hi = n_out;
  int64_t idx[KILN_MAX_RANK] = {0};
  int64_t row = 0;
  do {
    char *yr = y + (size_t)(row * n_out) * e;
    int64_t src = 0;
    int inside = 1;
    for (int d = 0; d < rank - 1; ++d) {
      int64_t s = pad_source(idx[d], beg[d], ish[d], mode);
      if (s < 0) {
        inside = 0;
        break;
      }
      src += s * istr[d];
    }
    if (!inside) {
      for (int64_t j = 0; j < n_out; ++j)
        memcpy(yr + j * e, value, e);
    } else {
      const char *xr = x + (size_t)src * e;
      if (hi > lo)
        memcpy(yr + lo * e, xr + (lo - b) * e, (size_t)(hi - lo) * e);
      for (int64_t j = 0; j < n_out; ++j) {
        if (j >= lo && j < hi) {
          j = hi - 1;
          continue;
        }
        int64_t s = pad_source(j, b, n_in, mode);
        memcpy(yr + j * e, s < 0 ? value : xr + s * e, e);
      }
    }
    ++row;
  } while (rank > 1 && kiln_nd_next(idx, osh, rank - 1) >= 0);
}
