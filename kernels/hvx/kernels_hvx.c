/* kernels_hvx.c - Hexagon v67 HVX (128-byte) matmul microkernels.
 *
 * Weights are repacked at compile time (HvxTarget.cpp) into tiles of 32
 * output rows, one row per 32-bit lane (the last tile holds only its tw rows,
 * vectors 4 * tw bytes apart, and the buffer ends in 128 bytes of padding): for each tile and 32-element block,
 * vector g holds, in lane j, 4 consecutive unsigned weight bytes of row j, so
 * that vrmpy(Vu.ub, Rt.b) with the 4 matching activation bytes in Rt adds
 * their dot product to lane j. After the vectors come the rows' scales.
 *
 *  q4_0: 4 vectors (lane j byte t of vector g: element 4g+t in the low nibble,
 *        element 16+4g+t in the high one, unsigned 0..15), 32 words of
 *        fixed-point d (below) (640 bytes per full tile-block)
 *  q4_k: per super-block (not per block), 8 blocks of q4_0's nibble
 *        vectors, then 4 vectors of u8 scales and mins (lane j of vector
 *        v: sc, m of block 2v, sc, m of block 2v + 1), then per row the
 *        file's f16 d and dmin: 148 bytes per row and super-block (the
 *        file's 144 with its 6-bit scales unpacked)
 *  q8_0: 8 vectors of q+128 (0..255; element 4g+t), 32 words of
 *        fixed-point d                                               (1152)
 *  q6_k: per super-block, 8 blocks of 6 vectors (three per half, the
 *        6-bit values 0..63 in bits 0..5, a fourth value's two bits in
 *        bits 6..7), 4 vectors of int8 scales, per row f32 d: 212 bytes
 *        per row and super-block (the file's 210, d widened)
 *  iq4_nl: as q4_0, the file's nibbles (indices of the IQ4 levels, which
 *        vlut32 looks up as level + 128)                              (640)
 *  iq4_xs: per super-block, 8 blocks of iq4_nl's nibble vectors, 2 vectors
 *        of int8 scales (sc - 32), per row f32 d: 140 bytes per row and
 *        super-block (the file's 136, scales unpacked and d widened)
 *  q5_0: as q8_0, of q - 16, fixed-point d                          (1152)
 *  q5_1: 8 vectors of the 5-bit values (0..31), 32 f32 d, 32 f32 -m (1280)
 *  q5_k: as q4_k with a vector of fifth bits after each block's nibble
 *        vectors: 180 bytes per row and super-block (the file's 176)
 *  q2_k: per super-block, 8 blocks of 2 vectors (four 2-bit values a
 *        byte), 4 vectors of the file's scale bytes (sc | m << 4), per row
 *        the file's f16 d and dmin: the file's 84 bytes per row and
 *        super-block
 *  q3_k: per super-block, 8 blocks of 3 vectors (two 3-bit values + 4 in
 *        bits 0..5 of each byte, bits 6..7 a third of a pair), 4 vectors
 *        of int8 scales, per row f32 d: 116 bytes per row and super-block
 *        (the file's 110, scales unpacked and d widened)
 * (HvxTarget.cpp's packKMin, packQ6K and packTwoBit.) The byte layouts take
 * about twice the file's bytes for q5_0 and q5_1.
 *
 * Unsigned weights times signed activations: the offsets (8, 128, 32) times
 * the activation block sum are subtracted by starting the accumulator there.
 * v67 HVX has no float arithmetic. q4_0, q8_0, q5_0 and iq4_nl scale in
 * fixed point: row j's block scale d is m * S_j / 2^(15 + k), with m a
 * 16-bit integer in the high half of lane j's word, sh - k (sh =
 * KILN_HVX_SHIFT) in its low half and S_j a power of two (the rows' f32 S
 * follow the last tile); an activation block's d is a * A / 2^(15 + fk)
 * with A a power of two over the chunk's blocks. Each block's sum, shifted
 * left by sh - k, takes m and then a in two rounding 32x16 multiplies
 * (vmpyo), a rounding shift right by fk, and adds into 64-bit lane sums;
 * the sum per row goes to float once per chunk. m and a hold the f16
 * scales' 11-bit mantissas whole (the weights' while within 2^(sh + 4) of
 * the row's largest), the shifts keep each block's term under 2^31, and
 * the roundings fall 2^sh below a unit of the integer sums: the fixed point
 * rounds less than the products' float sums do. The K-quants' and
 * iq4_xs's integer scales multiply the block sums in vectors and their
 * float step runs once per row and super-block; they take ggml's Q8_K
 * activations (kiln_q8k_rows, as llama.cpp's kernels for them): each
 * block's scale is its super-block's and its half sums are Q8_K's
 * 16-element sums. q5_1's integer block sums (on Q8_0 blocks) go through
 * a vector store to per-row float scaling in scalar code.
 */
#include "kiln_kernels.h"

#include <hexagon_types.h>
#include <hvx_hexagon_protos.h>

#define KILN_HVX_TILE 32
#define KILN_HVX_CHUNK 32 /* activation blocks handled per pass over a tile */

typedef long kiln_hvx_vu __attribute__((__vector_size__(128), __aligned__(1)));

/* Per-block activation data of one chunk. */
typedef struct {
  float ad[KILN_HVX_CHUNK];
  int32_t lo[KILN_HVX_CHUNK], hi[KILN_HVX_CHUNK]; /* sums of 0..15, 16..31 */
  int32_t aw[KILN_HVX_CHUNK][8]; /* the 32 int8 as 8 little-endian words */
  /* Fixed point: ad = (fa >> 16) * A / 2^(15 + fk), fa's high half holding
   * ad's mantissa whole; fr rounds the shift by fk. */
  int32_t fa[KILN_HVX_CHUNK], fk[KILN_HVX_CHUNK], fr[KILN_HVX_CHUNK];
  float A; /* a power of two above every ad of the chunk (0 if all are 0) */
} kiln_hvx_act;

/* 2^(e+1) for the largest e with 2^e <= x (x > 0, normal), by its bits. */
static inline float kiln_hvx_pow2_above(float x) {
  union { float f; uint32_t u; } v = {x};
  v.u = ((v.u >> 23) + 1) << 23;
  return v.f;
}

/* An f16 as f32 without branches: its bits moved into place and the
 * exponent rebased by a float multiply by 2^112, which makes subnormals
 * exact too; infinities and NaN get f32's top exponent first. */
static inline float kiln_hvx_f16(uint32_t h) {
  uint32_t b = (h & 0x7fffu) << 13;
  b |= (h & 0x7c00u) == 0x7c00u ? 0x7f800000u : 0u;
  union { uint32_t u; float f; } v = {b | (h & 0x8000u) << 16};
  return v.f * 0x1p112f;
}

/* A block's 32 int8 as 8 little-endian words, vrmpy's scalar operands. */
static inline void kiln_hvx_words(const int8_t *q, int32_t *aw) {
  for (int g = 0; g < 8; ++g)
    aw[g] = (int32_t)((uint32_t)(uint8_t)q[4 * g] | (uint32_t)(uint8_t)q[4 * g + 1] << 8 |
                      (uint32_t)(uint8_t)q[4 * g + 2] << 16 |
                      (uint32_t)(uint8_t)q[4 * g + 3] << 24);
}

/* The K-quants' activation blocks b0 .. b0 + n - 1 of Q8_K super-blocks a:
 * each block's scale is its super-block's, and its half sums are Q8_K's
 * 16-element sums (no fixed point: these types scale in scalar float). */
static void kiln_hvx_prep_k(const kiln_q8k_block *a, int b0, int n, kiln_hvx_act *p) {
  for (int b = 0; b < n; ++b) {
    const kiln_q8k_block *sb = a + (b0 + b) / 8;
    const int j = (b0 + b) % 8;
    p->ad[b] = sb->d;
    p->lo[b] = sb->bsums[2 * j];
    p->hi[b] = sb->bsums[2 * j + 1];
    kiln_hvx_words(sb->qs + 32 * j, p->aw[b]);
  }
}

static void kiln_hvx_prep(const kiln_q8_block *a, int n, kiln_hvx_act *p) {
  float amax = 0.0f;
  int finite = 1;
  for (int b = 0; b < n; ++b) {
    const int8_t *q = a[b].qs;
    p->ad[b] = kiln_g_f16(a[b].d);
    int32_t lo = 0, hi = 0;
    for (int l = 0; l < 16; ++l) {
      lo += q[l];
      hi += q[l + 16];
    }
    p->lo[b] = lo;
    p->hi[b] = hi;
    kiln_hvx_words(q, p->aw[b]);
    amax = p->ad[b] > amax ? p->ad[b] : amax;
    finite &= p->ad[b] <= 65504.0f; /* not an infinite or NaN input */
  }
  /* ad is an f16 (>= 0) of 11 significant bits: scaled by the power of two
   * above it to below 2^15, it is an exact 15-bit integer; fk is the
   * distance from that power to A. One too far below A to reach the sums
   * (fk > 30) counts as 0. An input that was not finite makes the chunk's
   * sums NaN, as the float products would. */
  p->A = !finite ? __builtin_nanf("")
         : amax > 0 ? kiln_hvx_pow2_above(amax)
                    : 0.0f;
  union { float f; uint32_t u; } eA = {p->A};
  for (int b = 0; b < n; ++b) {
    const float ad = p->ad[b];
    int32_t fa = 0, fk = 0;
    if (finite && ad > 0) {
      union { float f; uint32_t u; } above = {kiln_hvx_pow2_above(ad)};
      /* 1 / above by its exponent: Hexagon divides in software. */
      union { float f; uint32_t u; } inv = {0};
      inv.u = (254u - (above.u >> 23)) << 23;
      fk = (int32_t)((eA.u >> 23) - (above.u >> 23));
      fa = fk > 30 ? 0 : (int32_t)(ad * inv.f * 32768.0f + 0.5f);
      fk = fk > 30 ? 0 : fk;
    }
    p->fa[b] = (int32_t)((uint32_t)fa << 16);
    p->fk[b] = fk;
    p->fr[b] = fk ? 1 << (fk - 1) : 0;
  }
}

/* Q4_0, IQ4N (iq4_nl's nibbles) and Q8_0 (q8_0, q5_0): fixed-point scales;
 * U5: one scale and a min term (q5_1); Q4_K, Q5_KP, Q6_KP, Q2_KP, Q3_KP and
 * IQ4_XSP: q4_k, q5_k, q6_k, q2_k, q3_k and iq4_xs per super-block, their
 * integer scales in vectors. */
enum { KILN_HVX_Q4_0, KILN_HVX_Q4_K, KILN_HVX_Q8_0, KILN_HVX_U5,
       KILN_HVX_Q6_KP, KILN_HVX_Q5_KP, KILN_HVX_Q2_KP, KILN_HVX_Q3_KP,
       KILN_HVX_IQ4N, KILN_HVX_IQ4_XSP };

/* vlut32's table of the IQ4 levels + 128 (unsigned, for vrmpy): entry k at
 * bytes 2k and 2k + 1 (with Rt = 0 the lookup reads Vv.h[idx].ub[0]; the
 * odd copy makes the byte it reads not matter). */
static const uint8_t kiln_hvx_iq4_lut[128] __attribute__((aligned(128))) = {
#define KILN_HVX_L(v) (uint8_t)((v) + 128), (uint8_t)((v) + 128)
    KILN_HVX_L(-127), KILN_HVX_L(-104), KILN_HVX_L(-83), KILN_HVX_L(-65),
    KILN_HVX_L(-49),  KILN_HVX_L(-35),  KILN_HVX_L(-22), KILN_HVX_L(-10),
    KILN_HVX_L(1),    KILN_HVX_L(13),   KILN_HVX_L(25),  KILN_HVX_L(38),
    KILN_HVX_L(53),   KILN_HVX_L(69),   KILN_HVX_L(89),  KILN_HVX_L(113)
#undef KILN_HVX_L
};

static inline __attribute__((always_inline)) HVX_Vector
kiln_hvx_ld(const uint8_t *p, const int aligned) {
  if (aligned)
    return *(const HVX_Vector *)p;
  return (HVX_Vector)*(const kiln_hvx_vu *)p;
}

/* Left shift of a fixed-point block sum: |sum| < 2^15 (q4_0: 32 * 8 * 127)
 * or 2^19 (q8_0: 32 * 128 * 127) times it stays under 2^30, and the
 * roundings after it fall 2^15 and 2^11 below a unit of the integer sum
 * (HvxTarget.cpp packs with the same shifts). */
#define KILN_HVX_SHIFT(mode) ((mode) == KILN_HVX_Q4_0 ? 15 : 11)

/* Block b's integer sum `s` (lane j: row j) scaled in fixed point and
 * added to the 64-bit lane sums (*hi, *lo): s shifted left by the low half
 * of the block's word at wm, times its high half m (the weights' d), then
 * times the activation's fa, each a rounding 32 x 16 multiply that keeps
 * the product's bits from 2^15 up, then shifted right by fk, rounded. */
static inline __attribute__((always_inline)) void
kiln_hvx_fold(HVX_Vector *hi, HVX_Vector *lo, HVX_Vector s, const uint8_t *wm,
              const kiln_hvx_act *act, int b, const int aligned) {
  const HVX_Vector word = kiln_hvx_ld(wm, aligned);
  HVX_Vector t = Q6_Vw_vmpyo_VwVh_s1_rnd_sat(
      Q6_Vw_vasl_VwVw(s, Q6_V_vand_VV(word, Q6_V_vsplat_R(31))), word);
  HVX_Vector u = Q6_Vw_vmpyo_VwVh_s1_rnd_sat(t, Q6_V_vsplat_R(act->fa[b]));
  u = Q6_Vw_vasr_VwR(Q6_Vw_vadd_VwVw(u, Q6_V_vsplat_R(act->fr[b])),
                     act->fk[b]);
  HVX_VectorPred carry = Q6_Q_vcmp_gt_VwVw(Q6_V_vzero(), Q6_V_vzero());
  *lo = Q6_Vw_vadd_VwVwQ_carry(*lo, u, &carry);
  *hi = Q6_Vw_vadd_VwVwQ_carry(*hi, Q6_Vw_vasr_VwR(u, 31), &carry);
}

/* Integer block sums of one tile (tw rows; vectors tw * 4 bytes apart), or
 * for q4_0 and q8_0 their fixed-point sum over the chunk, 64 bits a lane,
 * in fixed[0] (high words) and fixed[1] (low). */
static inline __attribute__((always_inline)) void
kiln_hvx_sums(const uint8_t *wt, int tb, int tw, const kiln_hvx_act *act,
              int nc, HVX_Vector (*isum)[2], HVX_Vector *fixed, const int mode,
              const int aligned) {
  const int nib = mode == KILN_HVX_Q4_0 || mode == KILN_HVX_IQ4N;
  const int vs = 4 * tw;
  const HVX_Vector m0f = Q6_Vb_vsplat_R(0x0f);
  const HVX_Vector lut = *(const HVX_Vector *)kiln_hvx_iq4_lut;
  HVX_Vector fhi = Q6_V_vzero(), flo = Q6_V_vzero();
  for (int b = 0; b < nc; ++b) {
    const uint8_t *wb = wt + (size_t)b * tb;
    const int32_t *aw = act->aw[b];
    if (nib) {
      HVX_Vector acc = Q6_V_vsplat_R((mode == KILN_HVX_Q4_0 ? -8 : -128) *
                                     (act->lo[b] + act->hi[b]));
      for (int g = 0; g < 4; ++g) {
        HVX_Vector v = kiln_hvx_ld(wb + vs * g, aligned);
        HVX_Vector lo = Q6_V_vand_VV(v, m0f),
                   hi = Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(v, 4), m0f);
        if (mode == KILN_HVX_IQ4N) {
          lo = Q6_Vb_vlut32_VbVbR(lo, lut, 0);
          hi = Q6_Vb_vlut32_VbVbR(hi, lut, 0);
        }
        acc = Q6_Vw_vrmpyacc_VwVubRb(acc, lo, aw[g]);
        acc = Q6_Vw_vrmpyacc_VwVubRb(acc, hi, aw[g + 4]);
      }
      kiln_hvx_fold(&fhi, &flo, acc, wb + 4 * vs, act, b, aligned);
    } else {
      const int off = mode == KILN_HVX_Q8_0 ? -128 : 0;
      HVX_Vector a0 = Q6_V_vsplat_R(off * act->lo[b]);
      HVX_Vector a1 = Q6_V_vsplat_R(off * act->hi[b]);
      for (int g = 0; g < 4; ++g) {
        a0 = Q6_Vw_vrmpyacc_VwVubRb(a0, kiln_hvx_ld(wb + vs * g, aligned), aw[g]);
        a1 = Q6_Vw_vrmpyacc_VwVubRb(a1, kiln_hvx_ld(wb + vs * (g + 4), aligned),
                                    aw[g + 4]);
      }
      if (mode == KILN_HVX_Q8_0) {
        kiln_hvx_fold(&fhi, &flo, Q6_Vw_vadd_VwVw(a0, a1), wb + 8 * vs, act, b,
                      aligned);
      } else {
        isum[b][0] = Q6_Vw_vadd_VwVw(a0, a1);
      }
    }
  }
  fixed[0] = fhi;
  fixed[1] = flo;
}

/* q4_k (per super-block 148 * tw bytes: the blocks' nibble vectors, then
 * word j of vector v holding row j's (sc, m) of blocks 2v and 2v + 1) and
 * q5_k (FIVE; 180 * tw bytes: each block's nibble vectors followed by a
 * vector of its fifth bits, lane j byte e bit g: element 4g + e of row j):
 * per super-block sb, sum sc x block sum into isum[sb][0] and m x the
 * activation block's sum into isum[sb][1], 32 rows at once. */
static inline __attribute__((always_inline)) void
kiln_hvx_sums_kmin(const uint8_t *wt, int tw, const kiln_hvx_act *act, int nc,
                   HVX_Vector (*isum)[2], const int five, const int aligned) {
  const int vs = 4 * tw, bv = five ? 5 : 4; /* vectors per block */
  const HVX_Vector m0f = Q6_Vb_vsplat_R(0x0f), m01 = Q6_Vb_vsplat_R(0x01),
                   m255 = Q6_V_vsplat_R(0xff);
  for (int sb = 0; sb < nc / 8; ++sb) {
    const uint8_t *ws = wt + (size_t)sb * (five ? 180 : 148) * tw;
    HVX_Vector ks = Q6_V_vzero(), km = Q6_V_vzero();
#pragma clang loop unroll(full)
    for (int j = 0; j < 8; ++j) {
      const int b = 8 * sb + j;
      const int32_t *aw = act->aw[b];
      const uint8_t *wb = ws + j * bv * vs;
      HVX_Vector acc = Q6_V_vzero();
      for (int g = 0; g < 4; ++g) {
        HVX_Vector v = kiln_hvx_ld(wb + vs * g, aligned);
        acc = Q6_Vw_vrmpyacc_VwVubRb(acc, Q6_V_vand_VV(v, m0f), aw[g]);
        acc = Q6_Vw_vrmpyacc_VwVubRb(
            acc, Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(v, 4), m0f), aw[g + 4]);
      }
      if (five) { /* 16 x the fifth bits' sum (|.| <= 32 * 127) */
        const HVX_Vector f = kiln_hvx_ld(wb + 4 * vs, aligned);
        HVX_Vector s5 = Q6_V_vzero();
#pragma clang loop unroll(full)
        for (int g = 0; g < 8; ++g)
          s5 = Q6_Vw_vrmpyacc_VwVubRb(
              s5, Q6_V_vand_VV(g ? Q6_Vuh_vlsr_VuhR(f, g) : f, m01), aw[g]);
        acc = Q6_Vw_vadd_VwVw(acc, Q6_Vw_vasl_VwR(s5, 4));
      }
      const HVX_Vector sw = kiln_hvx_ld(ws + 8 * bv * vs + (j / 2) * vs, aligned);
      const HVX_Vector sc = Q6_V_vand_VV(j % 2 ? Q6_Vuw_vlsr_VuwR(sw, 16) : sw, m255);
      const HVX_Vector mn = j % 2 ? Q6_Vuw_vlsr_VuwR(sw, 24)
                                  : Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(sw, 8), m255);
      const int32_t as = act->lo[b] + act->hi[b]; /* |.| < 2^12 */
      ks = Q6_Vw_vmpyieacc_VwVwVuh(ks, acc, sc);
      km = Q6_Vw_vmpyiacc_VwVwRh(km, mn, (int32_t)((uint32_t)(uint16_t)as * 0x10001u));
    }
    isum[sb][0] = ks;
    isum[sb][1] = km;
  }
}

/* Bits 6..7 of A, B and C gathered into bits 0..1, 2..3 and 4..5 of each
 * byte (q6_k's fourth value group, q3_k's last pair of groups): halfword
 * shifts, then byte masks. */
static inline HVX_Vector kiln_hvx_top(HVX_Vector A, HVX_Vector B, HVX_Vector C) {
  return Q6_V_vor_VV(
      Q6_V_vor_VV(Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(A, 6), Q6_Vb_vsplat_R(0x03)),
                  Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(B, 4), Q6_Vb_vsplat_R(0x0c))),
      Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(C, 2), Q6_Vb_vsplat_R(0x30)));
}

/* The int8 in byte k of each lane's word, sign-extended (q6_k's and
 * q3_k's sub-block scales, for vmpyie's low halfword). */
static inline HVX_Vector kiln_hvx_sbyte(HVX_Vector w, const int k) {
  return Q6_Vw_vasr_VwR(Q6_Vw_vasl_VwR(w, 24 - 8 * k), 24);
}

/* q6_k (KILN_HVX_Q6_KP; per super-block 212 * tw bytes, HvxTarget.cpp's
 * packQ6K): per super-block sb, sum scale x half sum into isum[sb][0], 32
 * rows at once. Each half's sum starts at -32 x Q8_K's sum of the half;
 * its fourth value group comes from bits 6..7 of A, B and C. */
static inline __attribute__((always_inline)) void
kiln_hvx_sums_q6k(const uint8_t *wt, int tw, const kiln_hvx_act *act, int nc,
                  HVX_Vector (*isum)[2], const int aligned) {
  const int vs = 4 * tw;
  const HVX_Vector m63 = Q6_Vb_vsplat_R(63);
  for (int sb = 0; sb < nc / 8; ++sb) {
    const uint8_t *ws = wt + (size_t)sb * 212 * tw;
    HVX_Vector ks = Q6_V_vzero();
#pragma clang loop unroll(full)
    for (int j = 0; j < 8; ++j) {
      const int b = 8 * sb + j;
      const int32_t *aw = act->aw[b];
      const HVX_Vector sw = kiln_hvx_ld(ws + 192 * tw + (j / 2) * vs, aligned);
#pragma clang loop unroll(full)
      for (int h = 0; h < 2; ++h) {
        const uint8_t *p = ws + (6 * j + 3 * h) * vs;
        const HVX_Vector A = kiln_hvx_ld(p, aligned), B = kiln_hvx_ld(p + vs, aligned),
                         C = kiln_hvx_ld(p + 2 * vs, aligned);
        const HVX_Vector top = kiln_hvx_top(A, B, C);
        HVX_Vector acc = Q6_V_vsplat_R(-32 * (h ? act->hi[b] : act->lo[b]));
        acc = Q6_Vw_vrmpyacc_VwVubRb(acc, Q6_V_vand_VV(A, m63), aw[4 * h]);
        acc = Q6_Vw_vrmpyacc_VwVubRb(acc, Q6_V_vand_VV(B, m63), aw[4 * h + 1]);
        acc = Q6_Vw_vrmpyacc_VwVubRb(acc, Q6_V_vand_VV(C, m63), aw[4 * h + 2]);
        acc = Q6_Vw_vrmpyacc_VwVubRb(acc, top, aw[4 * h + 3]);
        /* half 2j + h's int8 scale: byte 2 (j % 2) + h of the lane's word */
        ks = Q6_Vw_vmpyieacc_VwVwVh(ks, acc, kiln_hvx_sbyte(sw, 2 * (j % 2) + h));
      }
    }
    isum[sb][0] = ks;
  }
}

/* q2_k (KILN_HVX_Q2_KP; per super-block 84 * tw bytes, HvxTarget.cpp's
 * packTwoBit): per super-block sb, sum sc x half sum into isum[sb][0] and
 * m x Q8_K's half sum into isum[sb][1], 32 rows at once. Bit pairs 0 and 2
 * of a byte are taken as values, 1 and 3 in place (4 x the value) into a
 * second sum, divided by 4 once per super-block. */
static inline __attribute__((always_inline)) void
kiln_hvx_sums_q2k(const uint8_t *wt, int tw, const kiln_hvx_act *act, int nc,
                  HVX_Vector (*isum)[2], const int aligned) {
  const int vs = 4 * tw;
  const HVX_Vector m03 = Q6_Vb_vsplat_R(0x03), m0c = Q6_Vb_vsplat_R(0x0c),
                   m0f = Q6_V_vsplat_R(0x0f);
  for (int sb = 0; sb < nc / 8; ++sb) {
    const uint8_t *ws = wt + (size_t)sb * 84 * tw;
    HVX_Vector ks = Q6_V_vzero(), k4 = Q6_V_vzero(), km = Q6_V_vzero();
#pragma clang loop unroll(full)
    for (int j = 0; j < 8; ++j) {
      const int b = 8 * sb + j;
      const int32_t *aw = act->aw[b];
      const HVX_Vector sw = kiln_hvx_ld(ws + 64 * tw + (j / 2) * vs, aligned);
#pragma clang loop unroll(full)
      for (int h = 0; h < 2; ++h) {
        const HVX_Vector v = kiln_hvx_ld(ws + (2 * j + h) * vs, aligned);
        const HVX_Vector v4 = Q6_Vuh_vlsr_VuhR(v, 4);
        HVX_Vector e = Q6_Vw_vrmpy_VubRb(Q6_V_vand_VV(v, m03), aw[4 * h]);
        e = Q6_Vw_vrmpyacc_VwVubRb(e, Q6_V_vand_VV(v4, m03), aw[4 * h + 2]);
        HVX_Vector o = Q6_Vw_vrmpy_VubRb(Q6_V_vand_VV(v, m0c), aw[4 * h + 1]);
        o = Q6_Vw_vrmpyacc_VwVubRb(o, Q6_V_vand_VV(v4, m0c), aw[4 * h + 3]);
        /* half 2j + h's sc and m: byte k of the lane's word, its nibbles */
        const int k = 2 * (j % 2) + h;
        const HVX_Vector sc = Q6_V_vand_VV(k ? Q6_Vuw_vlsr_VuwR(sw, 8 * k) : sw, m0f);
        const HVX_Vector mn = k == 3 ? Q6_Vuw_vlsr_VuwR(sw, 28)
                                     : Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(sw, 8 * k + 4), m0f);
        const int32_t as = h ? act->hi[b] : act->lo[b]; /* |.| <= 16 * 128 */
        ks = Q6_Vw_vmpyieacc_VwVwVuh(ks, e, sc);
        k4 = Q6_Vw_vmpyieacc_VwVwVuh(k4, o, sc);
        km = Q6_Vw_vmpyiacc_VwVwRh(km, mn, (int32_t)((uint32_t)(uint16_t)as * 0x10001u));
      }
    }
    isum[sb][0] = Q6_Vw_vadd_VwVw(ks, Q6_Vw_vasr_VwR(k4, 2));
    isum[sb][1] = km;
  }
}

/* q3_k (KILN_HVX_Q3_KP; per super-block 116 * tw bytes, packTwoBit): per
 * super-block sb, sum scale x half sum into isum[sb][0], 32 rows at once.
 * Each half's sum starts at -4 x Q8_K's sum of the half; a byte's bits
 * 0..2 are taken as a value, its bits 3..5 in place (8 x the value) into a
 * second sum, divided by 8 once per super-block; the last two value
 * groups come from bits 6..7 of A, B and C. */
static inline __attribute__((always_inline)) void
kiln_hvx_sums_q3k(const uint8_t *wt, int tw, const kiln_hvx_act *act, int nc,
                  HVX_Vector (*isum)[2], const int aligned) {
  const int vs = 4 * tw;
  const HVX_Vector m07 = Q6_Vb_vsplat_R(0x07), m38 = Q6_Vb_vsplat_R(0x38);
  for (int sb = 0; sb < nc / 8; ++sb) {
    const uint8_t *ws = wt + (size_t)sb * 116 * tw;
    HVX_Vector ks = Q6_V_vzero(), k8 = Q6_V_vzero();
#pragma clang loop unroll(full)
    for (int j = 0; j < 8; ++j) {
      const int b = 8 * sb + j;
      const int32_t *aw = act->aw[b];
      const HVX_Vector sw = kiln_hvx_ld(ws + 96 * tw + (j / 2) * vs, aligned);
      const uint8_t *p = ws + 3 * j * vs;
      const HVX_Vector A = kiln_hvx_ld(p, aligned), B = kiln_hvx_ld(p + vs, aligned),
                       C = kiln_hvx_ld(p + 2 * vs, aligned);
      const HVX_Vector src[2][2] = {{A, B}, {C, kiln_hvx_top(A, B, C)}};
#pragma clang loop unroll(full)
      for (int h = 0; h < 2; ++h) {
        HVX_Vector e = Q6_V_vsplat_R(-4 * (h ? act->hi[b] : act->lo[b]));
        e = Q6_Vw_vrmpyacc_VwVubRb(e, Q6_V_vand_VV(src[h][0], m07), aw[4 * h]);
        e = Q6_Vw_vrmpyacc_VwVubRb(e, Q6_V_vand_VV(src[h][1], m07), aw[4 * h + 2]);
        HVX_Vector o = Q6_Vw_vrmpy_VubRb(Q6_V_vand_VV(src[h][0], m38), aw[4 * h + 1]);
        o = Q6_Vw_vrmpyacc_VwVubRb(o, Q6_V_vand_VV(src[h][1], m38), aw[4 * h + 3]);
        /* half 2j + h's int8 scale: byte 2 (j % 2) + h of the lane's word */
        const HVX_Vector sc = kiln_hvx_sbyte(sw, 2 * (j % 2) + h);
        ks = Q6_Vw_vmpyieacc_VwVwVh(ks, e, sc);
        k8 = Q6_Vw_vmpyieacc_VwVwVh(k8, o, sc);
      }
    }
    isum[sb][0] = Q6_Vw_vadd_VwVw(ks, Q6_Vw_vasr_VwR(k8, 3));
  }
}

/* Row j's blocks of infinite or NaN d in a chunk of a fixed-point tile (the
 * packer's marker: m = 0, d's f16 bits in the low half of the word), in
 * float as the scalar kernels sum them: the block's integer sum from lane
 * j's bytes (q4_0's or iq4_nl's nibbles, or bytes of value + 128) times d
 * x da. Their
 * sum is infinite or NaN (inf x 0 is NaN), so whatever the row's finite
 * blocks add to it leaves it as it is. Out of line: damaged files only. */
static __attribute__((noinline)) float kiln_hvx_nonfinite(const uint8_t *wt, int tb, int nv, int j,
                                const kiln_hvx_act *act, int nc, int mode) {
  const int nib = mode == KILN_HVX_Q4_0 || mode == KILN_HVX_IQ4N;
  const int vs = 4 * nv, groups = nib ? 4 : 8;
  float sum = 0.0f;
  for (int b = 0; b < nc; ++b) {
    const uint8_t *wb = wt + (size_t)b * tb, *word = wb + groups * vs + 4 * j;
    const uint32_t h = kiln_g_u16(word);
    if (kiln_g_u16(word + 2) != 0 || (h & 0x7c00u) != 0x7c00u)
      continue;
    const int8_t *a = (const int8_t *)act->aw[b];
    int32_t isum = 0;
    for (int g = 0; g < groups; ++g)
      for (int e = 0; e < 4; ++e) {
        const int u = wb[g * vs + 4 * j + e];
        if (mode == KILN_HVX_IQ4N)
          isum += kiln_g_iq4nl[u & 15] * a[4 * g + e] + kiln_g_iq4nl[u >> 4] * a[16 + 4 * g + e];
        else if (nib)
          isum += ((u & 15) - 8) * a[4 * g + e] + ((u >> 4) - 8) * a[16 + 4 * g + e];
        else
          isum += (u - 128) * a[4 * g + e];
      }
    sum += (float)isum * (kiln_hvx_f16(h) * act->ad[b]);
  }
  return sum;
}

/* iq4_xs (KILN_HVX_IQ4_XSP; per super-block 140 * tw bytes, HvxTarget.cpp's
 * packIq4Xs): per super-block sb, sum scale x block sum into isum[sb][0],
 * 32 rows at once; each block's sum starts at -128 x Q8_K's sum of the
 * block and takes its nibbles as levels + 128 (vlut32). */
static inline __attribute__((always_inline)) void
kiln_hvx_sums_iq4xs(const uint8_t *wt, int tw, const kiln_hvx_act *act, int nc,
                    HVX_Vector (*isum)[2], const int aligned) {
  const int vs = 4 * tw;
  const HVX_Vector m0f = Q6_Vb_vsplat_R(0x0f);
  const HVX_Vector lut = *(const HVX_Vector *)kiln_hvx_iq4_lut;
  for (int sb = 0; sb < nc / 8; ++sb) {
    const uint8_t *ws = wt + (size_t)sb * 140 * tw;
    HVX_Vector ks = Q6_V_vzero();
#pragma clang loop unroll(full)
    for (int j = 0; j < 8; ++j) {
      const int b = 8 * sb + j;
      const int32_t *aw = act->aw[b];
      HVX_Vector acc = Q6_V_vsplat_R(-128 * (act->lo[b] + act->hi[b]));
      for (int g = 0; g < 4; ++g) {
        const HVX_Vector v = kiln_hvx_ld(ws + (4 * j + g) * vs, aligned);
        acc = Q6_Vw_vrmpyacc_VwVubRb(
            acc, Q6_Vb_vlut32_VbVbR(Q6_V_vand_VV(v, m0f), lut, 0), aw[g]);
        acc = Q6_Vw_vrmpyacc_VwVubRb(
            acc, Q6_Vb_vlut32_VbVbR(Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(v, 4), m0f), lut, 0),
            aw[g + 4]);
      }
      /* block j's int8 scale: byte j % 4 of the lane's word in vector j / 4 */
      const HVX_Vector sw = kiln_hvx_ld(ws + 128 * tw + (j / 4) * vs, aligned);
      ks = Q6_Vw_vmpyieacc_VwVwVh(ks, acc, kiln_hvx_sbyte(sw, j % 4));
    }
    isum[sb][0] = ks;
  }
}

static inline __attribute__((always_inline)) void
kiln_hvx_matmul(const float *x, int rows, int K, const uint8_t *w, int N,
                const float *bias, float *y, void *scratch, const int mode,
                const int k8, const int aligned) {
  /* k8: the K-quants' Q8_K activations (kiln_hvx_prep_k) */
  const kiln_q8_block *a = k8 ? 0 : kiln_q8_rows(x, rows, K, scratch);
  const kiln_q8k_block *ak = k8 ? kiln_q8k_rows(x, rows, K, scratch) : 0;
  const int nb = K / 32, ntile = (N + KILN_HVX_TILE - 1) / KILN_HVX_TILE;
  /* bytes per row-block of the per-block layouts (not the K-quants) */
  const int nib = mode == KILN_HVX_Q4_0 || mode == KILN_HVX_IQ4N;
  const int bpb = (nib ? 16 : 32) + (mode == KILN_HVX_U5 ? 8 : 4);
  const int fixed = nib || mode == KILN_HVX_Q8_0;
  /* The K-quants, laid out per super-block, sbb bytes a row: q4_k, q5_k and
   * q2_k (kp) end in f16 d and dmin, q6_k, q3_k and iq4_xs in f32 d. */
  const int kp = mode == KILN_HVX_Q4_K || mode == KILN_HVX_Q5_KP || mode == KILN_HVX_Q2_KP;
  const int per_sb = kp || mode == KILN_HVX_Q6_KP || mode == KILN_HVX_Q3_KP ||
                     mode == KILN_HVX_IQ4_XSP;
  const int sbb = mode == KILN_HVX_Q4_K      ? 148
                  : mode == KILN_HVX_Q5_KP   ? 180
                  : mode == KILN_HVX_Q2_KP   ? 84
                  : mode == KILN_HVX_Q3_KP   ? 116
                  : mode == KILN_HVX_IQ4_XSP ? 140
                                             : 212;
  /* The rows' powers of two after the tiles (fixed point). */
  const uint8_t *rowPow = w + (size_t)N * nb * bpb;
  kiln_hvx_act act;
  HVX_Vector isum[KILN_HVX_CHUNK][2], fx[2];
  int32_t fxs[2][KILN_HVX_TILE] __attribute__((aligned(128)));
  for (int r = 0; r < rows; ++r) {
    float *yr = y + (int64_t)r * N;
    for (int c0 = 0; c0 < nb; c0 += KILN_HVX_CHUNK) { /* k8: whole super-blocks */
      const int nc = nb - c0 < KILN_HVX_CHUNK ? nb - c0 : KILN_HVX_CHUNK;
      if (k8)
        kiln_hvx_prep_k(ak + (int64_t)r * (nb / 8), c0, nc, &act);
      else
        kiln_hvx_prep(a + (int64_t)r * nb + c0, nc, &act);
      for (int t = 0; t < ntile; ++t) {
        const int n0 = t * KILN_HVX_TILE;
        const int nv = N - n0 < KILN_HVX_TILE ? N - n0 : KILN_HVX_TILE;
        /* The last tile holds only its nv rows (vectors 4 * nv bytes apart). */
        const int tb = nv * bpb, qb = nv * (nib ? 16 : 32);
        const uint8_t *wt =
            per_sb
                ? w + (size_t)t * KILN_HVX_TILE * (nb / 8) * sbb + (size_t)(c0 / 8) * sbb * nv
                : w + (size_t)t * KILN_HVX_TILE * nb * bpb + (size_t)c0 * tb;
        /* Full tiles of a 128-byte aligned weight: aligned vector loads
         * (each step instantiated with aligned a constant, both ways). */
        const int full = aligned && nv == KILN_HVX_TILE;
#define KILN_HVX_STEP(F, ...) (full ? F(__VA_ARGS__, 1) : F(__VA_ARGS__, 0))
        if (mode == KILN_HVX_Q6_KP)
          KILN_HVX_STEP(kiln_hvx_sums_q6k, wt, nv, &act, nc, isum);
        else if (mode == KILN_HVX_Q2_KP)
          KILN_HVX_STEP(kiln_hvx_sums_q2k, wt, nv, &act, nc, isum);
        else if (mode == KILN_HVX_Q3_KP)
          KILN_HVX_STEP(kiln_hvx_sums_q3k, wt, nv, &act, nc, isum);
        else if (mode == KILN_HVX_IQ4_XSP)
          KILN_HVX_STEP(kiln_hvx_sums_iq4xs, wt, nv, &act, nc, isum);
        else if (kp)
          KILN_HVX_STEP(kiln_hvx_sums_kmin, wt, nv, &act, nc, isum, mode == KILN_HVX_Q5_KP);
        else
          KILN_HVX_STEP(kiln_hvx_sums, wt, tb, nv, &act, nc, isum, fx, mode);
#undef KILN_HVX_STEP
        if (fixed) {
          /* To float once per row and chunk: sum * S_j * A / 2^shift. */
          *(HVX_Vector *)fxs[0] = fx[0];
          *(HVX_Vector *)fxs[1] = fx[1];
          const float unit =
              act.A * (1.0f / (float)(1 << KILN_HVX_SHIFT(mode)));
          int damaged = 0; /* some S_j = -1: rows with non-finite d */
          for (int j = 0; j < nv; ++j) {
            const float acc = c0 ? yr[n0 + j] : (bias ? bias[n0 + j] : 0.0f);
            float sj;
            if (aligned) /* the weight 128-byte aligned: S_j word-aligned */
              sj = ((const float *)rowPow)[n0 + j];
            else
              __builtin_memcpy(&sj, rowPow + 4 * (n0 + j), 4);
            damaged |= sj < 0;
            const int64_t sum =
                (int64_t)((uint64_t)(uint32_t)fxs[0][j] << 32 | (uint32_t)fxs[1][j]);
            yr[n0 + j] = acc + (float)sum * (sj * unit);
          }
          /* Those rows' blocks of infinite or NaN d: their float terms,
           * infinite or NaN, outweigh the finite sum above. */
          for (int j = 0; damaged && j < nv; ++j) {
            float sj;
            __builtin_memcpy(&sj, rowPow + 4 * (n0 + j), 4);
            if (sj < 0)
              yr[n0 + j] += kiln_hvx_nonfinite(wt, tb, nv, j, &act, nc, mode);
          }
          continue;
        }
        if (kp) {
          /* Per row and super-block its two integer sums (|.| < 2^26)
           * times d x da and dmin x da, scalar. */
          for (int j = 0; j < nv; ++j) {
            float acc = c0 ? yr[n0 + j] : (bias ? bias[n0 + j] : 0.0f);
            for (int sb = 0; sb < nc / 8; ++sb) {
              const uint8_t *h = wt + (size_t)sb * sbb * nv + (sbb - 4) * nv + 4 * j;
              const float ad = act.ad[8 * sb];
              acc += (float)((const int32_t *)&isum[sb][0])[j] *
                         (kiln_hvx_f16(kiln_g_u16(h)) * ad) -
                     (float)((const int32_t *)&isum[sb][1])[j] *
                         (kiln_hvx_f16(kiln_g_u16(h + 2)) * ad);
            }
            yr[n0 + j] = acc;
          }
          continue;
        }
        if (per_sb) {
          /* q6_k, q3_k, iq4_xs: per row and super-block its integer sum
           * (|.| < 2^29) times d x da, scalar. */
          for (int j = 0; j < nv; ++j) {
            float acc = c0 ? yr[n0 + j] : (bias ? bias[n0 + j] : 0.0f);
            for (int sb = 0; sb < nc / 8; ++sb) {
              float d;
              __builtin_memcpy(&d, wt + (size_t)sb * sbb * nv + (sbb - 4) * nv + 4 * j, 4);
              acc += (float)((const int32_t *)&isum[sb][0])[j] * (d * act.ad[8 * sb]);
            }
            yr[n0 + j] = acc;
          }
          continue;
        }
        /* q5_1: float scaling per row and block, scalar. */
        for (int j = 0; j < nv; ++j) {
          float acc = c0 ? yr[n0 + j] : (bias ? bias[n0 + j] : 0.0f);
          const uint8_t *sp = wt + qb + 4 * j;
          for (int b = 0; b < nc; ++b, sp += tb) {
            const float ad = act.ad[b];
            const float s0 = *(const float *)sp;
            const float i0 = (float)((const int32_t *)&isum[b][0])[j];
            const float s1 = *(const float *)(sp + 4 * nv); /* U5 */
            acc += i0 * (s0 * ad) - s1 * (ad * (float)(act.lo[b] + act.hi[b]));
          }
          yr[n0 + j] = acc;
        }
      }
    }
  }
}

/* Float division for kiln_q8_rows, correctly rounded, for programs linked
 * without the runtime (kiln_freestanding.c's definition takes precedence). */
__attribute__((weak)) float __hexagon_divsf3(float a, float b) {
  union { float f; uint32_t u; } va = {a}, vb = {b}, r;
  const uint32_t sign = (va.u ^ vb.u) & 0x80000000u;
  uint32_t xa = va.u & 0x7fffffffu, xb = vb.u & 0x7fffffffu;
  if (xa > 0x7f800000u || xb > 0x7f800000u || (xa == 0 && xb == 0) ||
      (xa == 0x7f800000u && xb == 0x7f800000u)) {
    r.u = 0x7fc00000u;
    return r.f;
  }
  if (xa == 0x7f800000u || xb == 0) {
    r.u = sign | 0x7f800000u;
    return r.f;
  }
  if (xa == 0 || xb == 0x7f800000u) {
    r.u = sign;
    return r.f;
  }
  int ea = (int)(xa >> 23), eb = (int)(xb >> 23);
  uint32_t ma = xa & 0x7fffffu, mb = xb & 0x7fffffu;
  if (ea) ma |= 0x800000u; else for (ea = 1; !(ma & 0x800000u); --ea) ma <<= 1;
  if (eb) mb |= 0x800000u; else for (eb = 1; !(mb & 0x800000u); --eb) mb <<= 1;
  int e = ea - eb + 127;
  if (ma < mb) {
    ma <<= 1;
    --e;
  }
  /* 26 quotient bits (1.23 + guard + round) by restoring division */
  uint32_t q = 0, rem = ma;
  for (int i = 0; i < 26; ++i) {
    q <<= 1;
    if (rem >= mb) {
      rem -= mb;
      q |= 1;
    }
    rem <<= 1;
  }
  uint32_t sticky = rem != 0;
  if (e >= 255) {
    r.u = sign | 0x7f800000u;
    return r.f;
  }
  if (e <= 0) { /* subnormal result */
    const int sh = 1 - e;
    if (sh >= 27) {
      sticky |= q != 0;
      q = 0;
    } else {
      sticky |= (q & ((1u << sh) - 1u)) != 0;
      q >>= sh;
    }
    e = 1;
  }
  uint32_t mant = q >> 2;
  const uint32_t rb = (q >> 1) & 1u, st = (q & 1u) | sticky;
  if (rb && (st || (mant & 1u)))
    ++mant;
  r.u = sign | (((uint32_t)(e - 1) << 23) + mant);
  return r.f;
}

/* ACT: q8_0, or q8_k with K8 = 1 (the K-quants and iq4_xs, as llama.cpp's
 * kernels for them). */
#define KILN_HVX_KERNEL(T, ACT, K8, MODE)                                      \
  KILN_KERNEL void kiln_matmul_##T##_##ACT##_32x_hvx(                          \
      const float *x, int rows, int K, const uint8_t *w, int N,                \
      const float *bias, float *y, void *scratch) {                            \
    if (((uintptr_t)w & 127) == 0)                                             \
      kiln_hvx_matmul(x, rows, K, w, N, bias, y, scratch, MODE, K8, 1);        \
    else                                                                       \
      kiln_hvx_matmul(x, rows, K, w, N, bias, y, scratch, MODE, K8, 0);        \
  }

KILN_HVX_KERNEL(q4_0, q8_0, 0, KILN_HVX_Q4_0)
KILN_HVX_KERNEL(q4_k, q8_k, 1, KILN_HVX_Q4_K)
KILN_HVX_KERNEL(q8_0, q8_0, 0, KILN_HVX_Q8_0)
KILN_HVX_KERNEL(q6_k, q8_k, 1, KILN_HVX_Q6_KP)
KILN_HVX_KERNEL(q5_0, q8_0, 0, KILN_HVX_Q8_0)
KILN_HVX_KERNEL(iq4_nl, q8_0, 0, KILN_HVX_IQ4N)
KILN_HVX_KERNEL(iq4_xs, q8_k, 1, KILN_HVX_IQ4_XSP)
KILN_HVX_KERNEL(q5_1, q8_0, 0, KILN_HVX_U5)
KILN_Q4_1_AS_Q5_1(32x_hvx)
KILN_HVX_KERNEL(q5_k, q8_k, 1, KILN_HVX_Q5_KP)
KILN_HVX_KERNEL(q3_k, q8_k, 1, KILN_HVX_Q3_KP)
KILN_HVX_KERNEL(q2_k, q8_k, 1, KILN_HVX_Q2_KP)
