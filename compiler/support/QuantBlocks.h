//===- QuantBlocks.h - GGML weights as 32-element integer blocks ----------===//
//
// Compile-time helpers of the targets' weight packers. decode() serves RVV
// and HVX: every 32-element
// block of a Q8_0 / Q4_0 / Q4_K / Q6_K weight row becomes 32 small integers
// and up to two float scales, in the form the microkernels multiply:
//   q4_0: q = nibble 0..15 (value q-8),  s0 = d
//   q4_k: q = nibble 0..15,              s0 = d*sc, s1 = dmin*m
//   q8_0: q = int8,                      s0 = d
//   q6_k: q = 6-bit value - 32,          s0 = d*sc (elements 0..15),
//                                        s1 = d*sc (elements 16..31)
//   q5_0: q = 5-bit value - 16,          s0 = d
//   q5_1: q = 5-bit value 0..31,         s0 = d, s1 = -m
//   q5_k: q = 5-bit value 0..31,         s0 = d*sc, s1 = dmin*m
//   iq4_nl, iq4_xs: q = the IQ4 level,   s0 = d (iq4_xs: d*(sc-32))
//   q3_k: q = 3-bit value -4..3,         s0, s1 = d*sc of the two halves
//                                        (elements 0..15, 16..31), as q6_k
//   q2_k: q = 2-bit value 0..3,          s0, s1 = d*sc of the two halves,
//                                        m0, m1 = dmin*m of the two halves
// (s1 of q5_1 and q5_k is subtracted times the activation block's sum; m0
// and m1 of q2_k times the sums of its two halves.)
// The decoding follows the scalar kernels of kernels_q8.c.
//
#ifndef KILN_SUPPORT_QUANTBLOCKS_H
#define KILN_SUPPORT_QUANTBLOCKS_H

#include "compiler/support/Quant.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kiln {
namespace qblocks {

struct Block {
  int8_t q[32];
  float s0 = 0, s1 = 0;
  float m0 = 0, m1 = 0; // q2_k only
};

inline float f16(const uint8_t *p) {
  return gguf::fp16ToFp32((uint16_t)(p[0] | (p[1] << 8)));
}

inline void scaleMinK4(int j, const uint8_t *s, int &sc, int &m) {
  if (j < 4) {
    sc = s[j] & 63;
    m = s[j + 4] & 63;
  } else {
    sc = (s[j + 4] & 0xf) | ((s[j - 4] >> 6) << 4);
    m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

/// The x86 and NEON packers of the five-bit and IQ4 types: one 32-element
/// block (sub-block j of a q5_k / iq4_xs super-block at src) as unsigned
/// values u (0..31, or the 0..15 index of an IQ4 level); false for another
/// type.
inline bool smallValues(llvm::StringRef type, const uint8_t *src, int j,
                        uint8_t u[32]) {
  auto q5 = [&](const uint8_t *qh, const uint8_t *qs) {
    const uint32_t h = (uint32_t)qh[0] | (uint32_t)qh[1] << 8 |
                       (uint32_t)qh[2] << 16 | (uint32_t)qh[3] << 24;
    for (int e = 0; e < 32; ++e)
      u[e] = (uint8_t)((e < 16 ? qs[e] & 0xf : qs[e - 16] >> 4) |
                       ((h >> e) & 1) << 4);
  };
  if (type == "q5_0") {
    q5(src + 2, src + 6);
  } else if (type == "q5_1") {
    q5(src + 4, src + 8);
  } else if (type == "q4_k") {
    const uint8_t *qs = src + 16 + (j / 2) * 32;
    const int shift = (j % 2) * 4;
    for (int l = 0; l < 32; ++l)
      u[l] = (uint8_t)((qs[l] >> shift) & 0xf);
  } else if (type == "q5_k") {
    const uint8_t *qh = src + 16, *qs = src + 48 + (j / 2) * 32;
    const int shift = (j % 2) * 4;
    for (int l = 0; l < 32; ++l)
      u[l] = (uint8_t)(((qs[l] >> shift) & 0xf) | ((qh[l] >> j) & 1) << 4);
  } else if (type == "iq4_nl" || type == "iq4_xs") {
    const uint8_t *qs = type == "iq4_nl" ? src + 2 : src + 8 + 16 * j;
    for (int l = 0; l < 16; ++l) {
      u[l] = qs[l] & 0xf;
      u[l + 16] = qs[l] >> 4;
    }
  } else {
    return false;
  }
  return true;
}

/// The 6-bit scale of Q3_K sub-block s16 (of 16) at src, minus 32.
inline int q3kScale(const uint8_t *src, int s16) {
  const uint8_t *sc = src + 96;
  const int lo = s16 < 8 ? sc[s16] & 0xf : sc[s16 - 8] >> 4;
  return (lo | (((sc[8 + s16 % 4] >> (2 * (s16 / 4))) & 3) << 4)) - 32;
}

/// The 32 two-bit values (low) and, for q3_k, third bits (high; 0 for q2_k)
/// of 32-element block blk of a Q2_K / Q3_K super-block at src.
inline void twoBitBlock(bool three, const uint8_t *src, int blk, uint8_t low[32],
                        uint8_t high[32]) {
  const uint8_t *qs = src + (three ? 32 : 16);
  for (int l = 0; l < 32; ++l) {
    const int e = 32 * blk + l;
    low[l] = (uint8_t)((qs[(e / 128) * 32 + e % 32] >> (2 * ((e % 128) / 32))) & 3);
    high[l] = three ? (uint8_t)((src[e % 32] >> (e / 32)) & 1) : 0;
  }
}

/// The 32 six-bit values (0..63; the weight is value - 32) of 32-element
/// block blk of a Q6_K super-block at src. Its sub-blocks' int8 scales are
/// src[192 + 2 * blk] (elements 0..15) and src[193 + 2 * blk] (16..31).
inline void sixBitBlock(const uint8_t *src, int blk, uint8_t u[32]) {
  const int half = blk / 4, quad = blk % 4;
  const uint8_t *l4 = src + half * 64 + (quad & 1) * 32;
  const uint8_t *h2 = src + 128 + half * 32;
  const int lowShift = (quad >> 1) * 4, highShift = quad * 2;
  for (int l = 0; l < 32; ++l)
    u[l] = (uint8_t)(((l4[l] >> lowShift) & 0xf) | (((h2[l] >> highShift) & 3) << 4));
}

/// The 6-bit scale of IQ4_XS sub-block j, minus 32.
inline int iq4xsScale(const uint8_t *src, int j) {
  const int sh = src[2] | src[3] << 8;
  return (((src[4 + j / 2] >> 4 * (j % 2)) & 0xf) | ((sh >> 2 * j) & 3) << 4) - 32;
}


/// Decodes weight [N, K] into N * K/32 blocks (row-major). False with `error`
/// for an unknown type or a size mismatch.
inline bool decode(llvm::StringRef type, int64_t N, int64_t K,
                   const uint8_t *w, size_t bytes, std::vector<Block> &out,
                   std::string &error) {
  int64_t sb, sbBytes;
  if (type == "q8_0")
    sb = 32, sbBytes = 34;
  else if (type == "q4_0")
    sb = 32, sbBytes = 18;
  else if (type == "q4_k")
    sb = 256, sbBytes = 144;
  else if (type == "q6_k")
    sb = 256, sbBytes = 210;
  else if (type == "q5_0")
    sb = 32, sbBytes = 22;
  else if (type == "q5_1")
    sb = 32, sbBytes = 24;
  else if (type == "q5_k")
    sb = 256, sbBytes = 176;
  else if (type == "iq4_nl")
    sb = 32, sbBytes = 18;
  else if (type == "iq4_xs")
    sb = 256, sbBytes = 136;
  else if (type == "q3_k")
    sb = 256, sbBytes = 110;
  else if (type == "q2_k")
    sb = 256, sbBytes = 84;
  else {
    error = "no packed layout for weight type " + type.str();
    return false;
  }
  if (K % sb != 0 || (size_t)(N * (K / sb) * sbBytes) != bytes) {
    error = "weight of type " + type.str() + " has " + std::to_string(bytes) +
            " bytes, expected [" + std::to_string(N) + ", " +
            std::to_string(K) + "]";
    return false;
  }
  const int64_t nb = K / 32;
  out.assign((size_t)(N * nb), Block());
  for (int64_t j = 0; j < N; ++j) {
    const uint8_t *row = w + j * (K / sb) * sbBytes;
    Block *o = out.data() + j * nb;
    if (type == "q8_0") {
      for (int64_t b = 0; b < nb; ++b, row += 34) {
        o[b].s0 = f16(row);
        std::memcpy(o[b].q, row + 2, 32);
      }
    } else if (type == "q4_0") {
      for (int64_t b = 0; b < nb; ++b, row += 18) {
        o[b].s0 = f16(row);
        for (int i = 0; i < 16; ++i) {
          o[b].q[i] = (int8_t)(row[2 + i] & 0xf);
          o[b].q[i + 16] = (int8_t)(row[2 + i] >> 4);
        }
      }
    } else if (type == "q4_k") {
      for (int64_t s = 0; s < K / 256; ++s, row += 144) {
        const float d = f16(row), dmin = f16(row + 2);
        for (int sub = 0; sub < 8; ++sub) {
          Block &bl = o[s * 8 + sub];
          int sc, m;
          scaleMinK4(sub, row + 4, sc, m);
          bl.s0 = d * (float)sc;
          bl.s1 = dmin * (float)m;
          uint8_t u[32];
          smallValues(type, row, sub, u);
          for (int l = 0; l < 32; ++l)
            bl.q[l] = (int8_t)u[l];
        }
      }
    } else if (type == "q2_k" || type == "q3_k") {
      const bool three = type == "q3_k";
      for (int64_t s = 0; s < K / 256; ++s, row += sbBytes) {
        const float d = f16(row + (three ? 108 : 80));
        const float dmin = three ? 0.0f : f16(row + 82);
        for (int b = 0; b < 8; ++b) {
          Block &bl = o[s * 8 + b];
          uint8_t low[32], high[32];
          twoBitBlock(three, row, b, low, high);
          for (int l = 0; l < 32; ++l)
            bl.q[l] = (int8_t)(three ? low[l] - (high[l] ? 0 : 4) : low[l]);
          if (three) {
            bl.s0 = d * (float)q3kScale(row, 2 * b);
            bl.s1 = d * (float)q3kScale(row, 2 * b + 1);
          } else {
            bl.s0 = d * (float)(row[2 * b] & 0xf);
            bl.s1 = d * (float)(row[2 * b + 1] & 0xf);
            bl.m0 = dmin * (float)(row[2 * b] >> 4);
            bl.m1 = dmin * (float)(row[2 * b + 1] >> 4);
          }
        }
      }
    } else if (type != "q6_k") { // the five-bit and IQ4 types
      for (int64_t s = 0; s < K / sb; ++s, row += sbBytes)
        for (int sub = 0; sub < sb / 32; ++sub) {
          Block &bl = o[s * (sb / 32) + sub];
          uint8_t u[32];
          smallValues(type, row, sub, u);
          for (int l = 0; l < 32; ++l)
            bl.q[l] = type.startswith("iq4") ? gguf::kIQ4NLValues[u[l]]
                      : type == "q5_0"       ? (int8_t)(u[l] - 16)
                                             : (int8_t)u[l];
          const float d = f16(row);
          if (type == "q5_1") {
            bl.s0 = d;
            bl.s1 = -f16(row + 2);
          } else if (type == "q5_k") {
            int sc, m;
            scaleMinK4(sub, row + 4, sc, m);
            bl.s0 = d * (float)sc;
            bl.s1 = f16(row + 2) * (float)m;
          } else if (type == "iq4_xs") {
            bl.s0 = d * (float)iq4xsScale(row, sub);
          } else {
            bl.s0 = d;
          }
        }
    } else { // q6_k
      for (int64_t s = 0; s < K / 256; ++s, row += 210) {
        const int8_t *sc = (const int8_t *)(row + 192);
        const float d = f16(row + 208);
        for (int b = 0; b < 8; ++b) {
          Block &bl = o[s * 8 + b];
          uint8_t u[32];
          sixBitBlock(row, b, u);
          for (int l = 0; l < 32; ++l)
            bl.q[l] = (int8_t)((int)u[l] - 32);
          bl.s0 = d * (float)sc[2 * b];
          bl.s1 = d * (float)sc[2 * b + 1];
        }
      }
    }
  }
  return true;
}

inline void putFloat(uint8_t *p, float f) { std::memcpy(p, &f, 4); }

} // namespace qblocks
} // namespace kiln

#endif
