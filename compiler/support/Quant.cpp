//===- Quant.cpp - f16/bf16 conversion and GGML block (de)quantization ----===//
//
// Part of Kiln.
//
// The quantizers reproduce the published ggml reference algorithms
// (quantize_row_*_ref, and quantize_iq4_nl/_xs's scale search) including their exact order
// of floating-point operations, so the produced bytes are identical. Keep
// every expression in the same evaluation order when editing, and build this
// file without FP contraction (see CMakeLists.txt) so that no FMA changes the
// rounding.
//
//===----------------------------------------------------------------------===//

#include "compiler/support/Quant.h"

#include <cassert>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <cstdlib>

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "Kiln's GGUF support assumes a little-endian host");
#endif

#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace kiln::gguf {

const int8_t kIQ4NLValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                  1,    13,   25,  38,  53,  69,  89,  113};

//===----------------------------------------------------------------------===//
// Type table
//===----------------------------------------------------------------------===//

namespace {
// Block routines, defined below. `src`/`dst` point at one block.
using QuantizeBlock = void (*)(const float *x, uint8_t *y);
using DequantizeBlock = void (*)(const uint8_t *b, float *y);
#define KILN_DECLARE_BLOCK(T)                                                  \
  void quantizeBlock##T(const float *x, uint8_t *y);                           \
  void dequantizeBlock##T(const uint8_t *b, float *y);
KILN_DECLARE_BLOCK(F32)
KILN_DECLARE_BLOCK(F16)
KILN_DECLARE_BLOCK(BF16)
KILN_DECLARE_BLOCK(Q4_0)
KILN_DECLARE_BLOCK(Q4_1)
KILN_DECLARE_BLOCK(Q5_0)
KILN_DECLARE_BLOCK(Q5_1)
KILN_DECLARE_BLOCK(Q8_0)
KILN_DECLARE_BLOCK(Q2_K)
KILN_DECLARE_BLOCK(Q3_K)
KILN_DECLARE_BLOCK(Q4_K)
KILN_DECLARE_BLOCK(Q5_K)
KILN_DECLARE_BLOCK(Q6_K)
KILN_DECLARE_BLOCK(IQ4_NL)
KILN_DECLARE_BLOCK(IQ4_XS)
#undef KILN_DECLARE_BLOCK

struct TypeInfo {
  GGMLType type;
  TypeTraits traits;
  QuantizeBlock quantize;
  DequantizeBlock dequantize;
};
#define KILN_TYPE(T, NAME, BS, BB)                                             \
  {GGMLType::T, {NAME, BS, BB}, quantizeBlock##T, dequantizeBlock##T}
// In type-id order.
const TypeInfo kTypes[] = {
    KILN_TYPE(F32, "f32", 1, 4),
    KILN_TYPE(F16, "f16", 1, 2),
    KILN_TYPE(Q4_0, "q4_0", kQK4_0, 18),
    KILN_TYPE(Q4_1, "q4_1", kQK4_1, 20),
    KILN_TYPE(Q5_0, "q5_0", kQK5_0, 22),
    KILN_TYPE(Q5_1, "q5_1", kQK5_1, 24),
    KILN_TYPE(Q8_0, "q8_0", kQK8_0, 34),
    KILN_TYPE(Q2_K, "q2_k", kQK_K, 84),
    KILN_TYPE(Q3_K, "q3_k", kQK_K, 110),
    KILN_TYPE(Q4_K, "q4_k", kQK_K, 144),
    KILN_TYPE(Q5_K, "q5_k", kQK_K, 176),
    KILN_TYPE(Q6_K, "q6_k", kQK_K, 210),
    KILN_TYPE(IQ4_NL, "iq4_nl", kQK4_NL, 18),
    KILN_TYPE(IQ4_XS, "iq4_xs", kQK_K, 136),
    KILN_TYPE(BF16, "bf16", 1, 2),
};
#undef KILN_TYPE
constexpr size_t kNumTypes = sizeof(kTypes) / sizeof(kTypes[0]);

const TypeInfo *typeInfo(uint32_t type) {
  for (const TypeInfo &t : kTypes)
    if (static_cast<uint32_t>(t.type) == type)
      return &t;
  return nullptr;
}
} // namespace

const TypeTraits *typeTraits(uint32_t type) {
  const TypeInfo *t = typeInfo(type);
  return t ? &t->traits : nullptr;
}

const char *typeName(GGMLType t) {
  const TypeTraits *tt = typeTraits(static_cast<uint32_t>(t));
  return tt ? tt->name : "unknown";
}

std::optional<GGMLType> typeFromName(const std::string &name) {
  std::string lower;
  lower.reserve(name.size());
  for (char c : name)
    lower.push_back(
        static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (const TypeInfo &t : kTypes)
    if (lower == t.traits.name)
      return t.type;
  return std::nullopt;
}

const GGMLType *allTypes(size_t &count) {
  static GGMLType types[kNumTypes];
  for (size_t i = 0; i < kNumTypes; ++i)
    types[i] = kTypes[i].type;
  count = kNumTypes;
  return types;
}

std::string typeList() {
  std::string s;
  for (const TypeInfo &t : kTypes)
    s += (s.empty() ? "" : ", ") + std::string(t.traits.name);
  return s;
}

const char *ggmlTypeName(uint32_t type) {
  // Type ids as assigned by ggml; nullptr marks removed/unassigned ids.
  static const char *const kNames[] = {
      "f32",   "f16",   "q4_0",    "q4_1",   nullptr,   nullptr, "q5_0",
      "q5_1",  "q8_0",  "q8_1",    "q2_K",   "q3_K",    "q4_K",  "q5_K",
      "q6_K",  "q8_K",  "iq2_xxs", "iq2_xs", "iq3_xxs", "iq1_s", "iq4_nl",
      "iq3_s", "iq2_s", "iq4_xs",  "i8",     "i16",     "i32",   "i64",
      "f64",   "iq1_m", "bf16",    nullptr,  nullptr,   nullptr, "tq1_0",
      "tq2_0", nullptr, nullptr,   nullptr,  "mxfp4"};
  if (type >= sizeof(kNames) / sizeof(kNames[0]))
    return nullptr;
  return kNames[type];
}

std::optional<GGMLType> mixBaseType(const std::string &mix) {
  if (mix == "q4_k_m")
    return GGMLType::Q4_K;
  if (mix == "q5_k_m")
    return GGMLType::Q5_K;
  return std::nullopt;
}

GGMLType mixTensorType(GGMLType base, const std::string &name, bool isOutput,
                       int layers) {
  if (isOutput)
    return GGMLType::Q6_K;
  // "blk.N.ROLE.weight"
  if (name.rfind("blk.", 0) != 0)
    return base;
  char *end = nullptr;
  const long layer = std::strtol(name.c_str() + 4, &end, 10);
  if (!end || *end != '.' || layer < 0 || layer >= layers)
    return base;
  const std::string role(end);
  const bool vOrDown = role == ".attn_v.weight" || role == ".attn_qkv.weight" ||
                       role == ".ffn_down.weight";
  const int i = static_cast<int>(layer);
  const bool moreBits = i < layers / 8 || i >= 7 * layers / 8 ||
                        (i - layers / 8) % 3 == 2;
  return vOrDown && moreBits ? GGMLType::Q6_K : base;
}

size_t rowBytes(GGMLType type, int64_t n) {
  const TypeTraits *tt = typeTraits(static_cast<uint32_t>(type));
  if (!tt || n < 0 || n % tt->blockSize != 0)
    return 0;
  return static_cast<size_t>(n / tt->blockSize) *
         static_cast<size_t>(tt->blockBytes);
}

//===----------------------------------------------------------------------===//
// Scalar conversions
//===----------------------------------------------------------------------===//

namespace {
inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline uint16_t load16(const uint8_t *p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
inline void store16(uint8_t *p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
} // namespace

float fp16ToFp32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exactly representable in f32.
    float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  if (exp == 0x1f) // inf / NaN (payload kept)
    return bitsFloat(sign | 0x7f800000u | (mant << 13));
  return bitsFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}

uint16_t fp32ToFp16(float f) {
  const uint32_t bits = floatBits(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) // NaN
    return static_cast<uint16_t>(sign | 0x7e00u);
  if (abs >= 0x477ff000u) // >= 65520 rounds to infinity (also +-inf itself)
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (abs < 0x38800000u) {  // below the smallest normal half (2^-14)
    if (abs <= 0x33000000u) // <= 2^-25: rounds to zero (tie goes to even 0)
      return sign;
    // Subnormal half: round(value / 2^-24) with ties to even.
    const uint32_t e = abs >> 23; // 102..112
    const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - e; // 14..24
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u)))
      ++q; // may carry into the smallest normal (0x400), which is correct
    return static_cast<uint16_t>(sign | q);
  }
  // Normal half.
  uint32_t h = ((abs >> 23) - 112u) << 10 | ((abs >> 13) & 0x3ffu);
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
    ++h; // carries into the exponent as needed
  return static_cast<uint16_t>(sign | h);
}

float bf16ToFp32(uint16_t h) {
  return bitsFloat(static_cast<uint32_t>(h) << 16);
}

uint16_t fp32ToBf16(float f) {
  const uint32_t u = floatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: truncate and force quiet
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + (0x7fffu + ((u >> 16) & 1u))) >> 16);
}

//===----------------------------------------------------------------------===//
// Helpers shared by the quantizers
//===----------------------------------------------------------------------===//

namespace {

constexpr float kGroupMaxEps = 1e-15f;

// Round to nearest with ties to even, via the 1.5*2^23 trick used by ggml
// (valid for |v| <= 4194303; other inputs give an unspecified but defined
// value, which callers clamp).
inline int nearestInt(float v) {
  const float t = v + 12582912.f;
  int32_t i;
  std::memcpy(&i, &t, sizeof i);
  return (i & 0x007fffff) - 0x00400000;
}

// (int8_t)v for in-range v (truncation toward zero), without the undefined
// behaviour of converting NaN or out-of-range values: those saturate, NaN
// gives 0.
inline int truncToInt8(float v) {
  if (!(v == v))
    return 0;
  if (v >= 127.f)
    return 127;
  if (v <= -128.f)
    return -128;
  return static_cast<int>(v);
}

// roundf(v) converted to int8_t, saturating (NaN gives 0).
inline int8_t roundToInt8(float v) {
  const float r = std::roundf(v);
  if (!(r == r))
    return 0;
  if (r >= 127.f)
    return 127;
  if (r <= -128.f)
    return -128;
  return static_cast<int8_t>(r);
}

template <typename T> inline T minOf(T a, T b) { return a < b ? a : b; }
template <typename T> inline T maxOf(T a, T b) { return a > b ? a : b; }

// Weighted asymmetric quantization of n values into [0, nmax] with a
// non-positive offset, searching nstep+1 candidate scales around the min/max
// fit (ggml's make_qkx2_quants). Returns the scale; *theMin receives the
// (positive) offset to subtract.
float makeQkx2Quants(int n, int nmax, const float *x, const float *weights,
                     uint8_t *L, float *theMin, uint8_t *Laux, float rmin,
                     float rdelta, int nstep, bool useMad) {
  float min = x[0];
  float max = x[0];
  float sumW = weights[0];
  float sumX = sumW * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min)
      min = x[i];
    if (x[i] > max)
      max = x[i];
    const float w = weights[i];
    sumW += w;
    sumX += w * x[i];
  }
  if (min > 0)
    min = 0;
  if (max == min) {
    for (int i = 0; i < n; ++i)
      L[i] = 0;
    *theMin = -min;
    return 0.f;
  }
  float iscale = nmax / (max - min);
  float scale = 1 / iscale;
  float bestError = 0;
  for (int i = 0; i < n; ++i) {
    const int l = nearestInt(iscale * (x[i] - min));
    L[i] = static_cast<uint8_t>(maxOf(0, minOf(nmax, l)));
    float diff = scale * L[i] + min - x[i];
    diff = useMad ? std::fabs(diff) : diff * diff;
    const float w = weights[i];
    bestError += w * diff;
  }
  if (nstep < 1) {
    *theMin = -min;
    return scale;
  }
  for (int is = 0; is <= nstep; ++is) {
    iscale = (rmin + rdelta * is + nmax) / (max - min);
    float sumL = 0, sumL2 = 0, sumXL = 0;
    for (int i = 0; i < n; ++i) {
      int l = nearestInt(iscale * (x[i] - min));
      l = maxOf(0, minOf(nmax, l));
      Laux[i] = static_cast<uint8_t>(l);
      const float w = weights[i];
      sumL += w * l;
      sumL2 += w * l * l;
      sumXL += w * l * x[i];
    }
    const float D = sumW * sumL2 - sumL * sumL;
    if (D > 0) {
      float thisScale = (sumW * sumXL - sumX * sumL) / D;
      float thisMin = (sumL2 * sumX - sumL * sumXL) / D;
      if (thisMin > 0) {
        thisMin = 0;
        thisScale = sumXL / sumL2;
      }
      float curError = 0;
      for (int i = 0; i < n; ++i) {
        float diff = thisScale * Laux[i] + thisMin - x[i];
        diff = useMad ? std::fabs(diff) : diff * diff;
        const float w = weights[i];
        curError += w * diff;
      }
      if (curError < bestError) {
        for (int i = 0; i < n; ++i)
          L[i] = Laux[i];
        bestError = curError;
        scale = thisScale;
        min = thisMin;
      }
    }
  }
  *theMin = -min;
  return scale;
}

// Symmetric quantization of n values into [-nmax, nmax-1] (stored as
// L + nmax), searching scales around -nmax/max to minimise the weighted error
// (ggml's make_qx_quants; only the rmse_type == 1, no-importance variant is
// needed here: weight = x^2).
float makeQxQuants(int n, int nmax, const float *x, int8_t *L) {
  float max = 0;
  float amax = 0;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
  if (amax < kGroupMaxEps) {
    for (int i = 0; i < n; ++i)
      L[i] = 0;
    return 0.f;
  }
  float iscale = -nmax / max;
  float sumlx = 0;
  float suml2 = 0;
  for (int i = 0; i < n; ++i) {
    int l = nearestInt(iscale * x[i]);
    l = maxOf(-nmax, minOf(nmax - 1, l));
    L[i] = static_cast<int8_t>(l + nmax);
    const float w = x[i] * x[i];
    sumlx += w * x[i] * l;
    suml2 += w * l * l;
  }
  float scale = suml2 != 0 ? sumlx / suml2 : 0.0f;
  float best = scale * sumlx;
  for (int is = -9; is <= 9; ++is) {
    if (is == 0)
      continue;
    iscale = -(nmax + 0.1f * is) / max;
    sumlx = suml2 = 0;
    for (int i = 0; i < n; ++i) {
      int l = nearestInt(iscale * x[i]);
      l = maxOf(-nmax, minOf(nmax - 1, l));
      const float w = x[i] * x[i];
      sumlx += w * x[i] * l;
      suml2 += w * l * l;
    }
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      for (int i = 0; i < n; ++i) {
        const int l = nearestInt(iscale * x[i]);
        L[i] = static_cast<int8_t>(nmax + maxOf(-nmax, minOf(nmax - 1, l)));
      }
      scale = sumlx / suml2;
      best = scale * sumlx;
    }
  }
  return scale;
}

// Unpack the 6-bit scale and min of sub-block j from a Q4_K scales array.
inline void unpackScaleMinK4(int j, const uint8_t *q, uint8_t &sc, uint8_t &m) {
  if (j < 4) {
    sc = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    sc = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

//===----------------------------------------------------------------------===//
// Per-type block routines. `src`/`dst` point at one block.
//===----------------------------------------------------------------------===//

void quantizeBlockQ8_0(const float *x, uint8_t *y) {
  float amax = 0.0f;
  for (int j = 0; j < kQK8_0; ++j)
    amax = maxOf(amax, std::fabs(x[j]));
  const float d = amax / ((1 << 7) - 1);
  const float id = d != 0 ? 1.0f / d : 0.0f;
  store16(y, fp32ToFp16(d));
  for (int j = 0; j < kQK8_0; ++j)
    y[2 + j] = static_cast<uint8_t>(roundToInt8(x[j] * id));
}

void dequantizeBlockQ8_0(const uint8_t *b, float *y) {
  const float d = fp16ToFp32(load16(b));
  for (int j = 0; j < kQK8_0; ++j)
    y[j] = static_cast<int8_t>(b[2 + j]) * d;
}

void quantizeBlockQ4_0(const float *x, uint8_t *y) {
  float amax = 0.0f;
  float max = 0.0f;
  for (int j = 0; j < kQK4_0; ++j) {
    const float v = x[j];
    if (amax < std::fabs(v)) {
      amax = std::fabs(v);
      max = v;
    }
  }
  const float d = max / -8;
  const float id = d != 0 ? 1.0f / d : 0.0f;
  store16(y, fp32ToFp16(d));
  for (int j = 0; j < kQK4_0 / 2; ++j) {
    const float x0 = x[j] * id;
    const float x1 = x[kQK4_0 / 2 + j] * id;
    const int xi0 = minOf(15, truncToInt8(x0 + 8.5f));
    const int xi1 = minOf(15, truncToInt8(x1 + 8.5f));
    y[2 + j] = static_cast<uint8_t>((xi0 & 0xFF) | ((xi1 & 0xF) << 4));
  }
}

void dequantizeBlockQ4_0(const uint8_t *b, float *y) {
  const float d = fp16ToFp32(load16(b));
  for (int j = 0; j < kQK4_0 / 2; ++j) {
    const int x0 = (b[2 + j] & 0x0F) - 8;
    const int x1 = (b[2 + j] >> 4) - 8;
    y[j] = x0 * d;
    y[j + kQK4_0 / 2] = x1 * d;
  }
}

void quantizeBlockQ4_1(const float *x, uint8_t *y) {
  float min = FLT_MAX;
  float max = -FLT_MAX;
  for (int j = 0; j < kQK4_1; ++j) {
    const float v = x[j];
    if (v < min)
      min = v;
    if (v > max)
      max = v;
  }
  const float d = (max - min) / ((1 << 4) - 1);
  const float id = d != 0 ? 1.0f / d : 0.0f;
  store16(y, fp32ToFp16(d));
  store16(y + 2, fp32ToFp16(min));
  for (int j = 0; j < kQK4_1 / 2; ++j) {
    const float x0 = (x[j] - min) * id;
    const float x1 = (x[kQK4_1 / 2 + j] - min) * id;
    const int xi0 = minOf(15, truncToInt8(x0 + 0.5f));
    const int xi1 = minOf(15, truncToInt8(x1 + 0.5f));
    y[4 + j] = static_cast<uint8_t>((xi0 & 0xFF) | ((xi1 & 0xF) << 4));
  }
}

void dequantizeBlockQ4_1(const uint8_t *b, float *y) {
  const float d = fp16ToFp32(load16(b));
  const float m = fp16ToFp32(load16(b + 2));
  for (int j = 0; j < kQK4_1 / 2; ++j) {
    const int x0 = b[4 + j] & 0x0F;
    const int x1 = b[4 + j] >> 4;
    y[j] = x0 * d + m;
    y[j + kQK4_1 / 2] = x1 * d + m;
  }
}

// Q4_K byte offsets.
constexpr int kQ4K_D = 0, kQ4K_DMin = 2, kQ4K_Scales = 4, kQ4K_Qs = 16;

// The part Q4_K and Q5_K share (ggml's quantize_row_q4_K_ref and _q5_K_ref):
// per sub-block of 32 a scale and min from makeQkx2Quants (levels 0..nmax,
// its search from rmin in nstep steps), both quantized to 6 bits against the
// super-block's d and dmin (written at y, y + 2, scales at y + 4), then the
// levels L again against the quantized scales.
void quantizeScalesMinsK(const float *x, int nmax, float rmin, int nstep,
                         uint8_t *y, uint8_t L[kQK_K]) {
  uint8_t Laux[32];
  float weights[32];
  float mins[kQK_K / 32];
  float scales[kQK_K / 32];

  float maxScale = 0; // scales are non-negative since the min is deducted
  float maxMin = 0;
  for (int j = 0; j < kQK_K / 32; ++j) {
    float sumX2 = 0;
    for (int l = 0; l < 32; ++l)
      sumX2 += x[32 * j + l] * x[32 * j + l];
    const float avX = std::sqrt(sumX2 / 32);
    for (int l = 0; l < 32; ++l)
      weights[l] = avX + std::fabs(x[32 * j + l]);
    scales[j] = makeQkx2Quants(32, nmax, x + 32 * j, weights, L + 32 * j,
                               &mins[j], Laux, rmin, 0.1f, nstep, false);
    if (scales[j] > maxScale)
      maxScale = scales[j];
    if (mins[j] > maxMin)
      maxMin = mins[j];
  }

  uint8_t *sc = y + 4;
  std::memset(sc, 0, kKScaleBytes);
  const float invScale = maxScale > 0 ? 63.f / maxScale : 0.f;
  const float invMin = maxMin > 0 ? 63.f / maxMin : 0.f;
  for (int j = 0; j < kQK_K / 32; ++j) {
    // Conversion to uint8_t is modular, as in the reference.
    uint8_t ls = static_cast<uint8_t>(nearestInt(invScale * scales[j]));
    uint8_t lm = static_cast<uint8_t>(nearestInt(invMin * mins[j]));
    ls = minOf<uint8_t>(63, ls);
    lm = minOf<uint8_t>(63, lm);
    if (j < 4) {
      sc[j] = ls;
      sc[j + 4] = lm;
    } else {
      sc[j + 4] = static_cast<uint8_t>((ls & 0xF) | ((lm & 0xF) << 4));
      sc[j - 4] |= static_cast<uint8_t>((ls >> 4) << 6);
      sc[j] |= static_cast<uint8_t>((lm >> 4) << 6);
    }
  }
  const uint16_t dBits = fp32ToFp16(maxScale / 63.f);
  const uint16_t dminBits = fp32ToFp16(maxMin / 63.f);
  store16(y, dBits);
  store16(y + 2, dminBits);

  for (int j = 0; j < kQK_K / 32; ++j) {
    uint8_t s, m;
    unpackScaleMinK4(j, sc, s, m);
    const float d = fp16ToFp32(dBits) * s;
    if (d == 0)
      continue;
    const float dm = fp16ToFp32(dminBits) * m;
    for (int ii = 0; ii < 32; ++ii) {
      int l = nearestInt((x[32 * j + ii] + dm) / d);
      l = maxOf(0, minOf(nmax, l));
      L[32 * j + ii] = static_cast<uint8_t>(l);
    }
  }
}

void quantizeBlockQ4_K(const float *x, uint8_t *y) {
  uint8_t L[kQK_K];
  quantizeScalesMinsK(x, 15, -1.f, 20, y, L);
  uint8_t *q = y + kQ4K_Qs;
  for (int j = 0; j < kQK_K; j += 64) {
    for (int l = 0; l < 32; ++l)
      q[l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 4));
    q += 32;
  }
}

void dequantizeBlockQ4_K(const uint8_t *b, float *y) {
  const float d = fp16ToFp32(load16(b + kQ4K_D));
  const float min = fp16ToFp32(load16(b + kQ4K_DMin));
  const uint8_t *scales = b + kQ4K_Scales;
  const uint8_t *q = b + kQ4K_Qs;
  int is = 0;
  for (int j = 0; j < kQK_K; j += 64) {
    uint8_t sc, m;
    unpackScaleMinK4(is + 0, scales, sc, m);
    const float d1 = d * sc;
    const float m1 = min * m;
    unpackScaleMinK4(is + 1, scales, sc, m);
    const float d2 = d * sc;
    const float m2 = min * m;
    for (int l = 0; l < 32; ++l)
      *y++ = d1 * (q[l] & 0xF) - m1;
    for (int l = 0; l < 32; ++l)
      *y++ = d2 * (q[l] >> 4) - m2;
    q += 32;
    is += 2;
  }
}

// Q6_K byte offsets.
constexpr int kQ6K_Ql = 0, kQ6K_Qh = 128, kQ6K_Scales = 192, kQ6K_D = 208;
constexpr int kQ6KBytes = 210;

void quantizeBlockQ6_K(const float *x, uint8_t *y) {
  int8_t L[kQK_K];
  float scales[kQK_K / 16];

  float maxScale = 0;
  float maxAbsScale = 0;
  for (int ib = 0; ib < kQK_K / 16; ++ib) {
    const float scale = makeQxQuants(16, 32, x + 16 * ib, L + 16 * ib);
    scales[ib] = scale;
    const float absScale = std::fabs(scale);
    if (absScale > maxAbsScale) {
      maxAbsScale = absScale;
      maxScale = scale;
    }
  }

  if (maxAbsScale < kGroupMaxEps) {
    std::memset(y, 0, kQ6KBytes);
    store16(y + kQ6K_D, fp32ToFp16(0.f));
    return;
  }

  const float iscale = -128.f / maxScale;
  const uint16_t dBits = fp32ToFp16(1 / iscale);
  store16(y + kQ6K_D, dBits);
  int8_t *sc = reinterpret_cast<int8_t *>(y + kQ6K_Scales);
  for (int ib = 0; ib < kQK_K / 16; ++ib)
    sc[ib] = static_cast<int8_t>(minOf(127, nearestInt(iscale * scales[ib])));

  for (int j = 0; j < kQK_K / 16; ++j) {
    const float d = fp16ToFp32(dBits) * sc[j];
    if (d == 0)
      continue;
    for (int ii = 0; ii < 16; ++ii) {
      int l = nearestInt(x[16 * j + ii] / d);
      l = maxOf(-32, minOf(31, l));
      L[16 * j + ii] = static_cast<int8_t>(l + 32);
    }
  }

  uint8_t *ql = y + kQ6K_Ql;
  uint8_t *qh = y + kQ6K_Qh;
  for (int j = 0; j < kQK_K; j += 128) {
    for (int l = 0; l < 32; ++l) {
      const uint8_t u0 = static_cast<uint8_t>(L[j + l + 0]);
      const uint8_t u1 = static_cast<uint8_t>(L[j + l + 32]);
      const uint8_t u2 = static_cast<uint8_t>(L[j + l + 64]);
      const uint8_t u3 = static_cast<uint8_t>(L[j + l + 96]);
      ql[l + 0] = static_cast<uint8_t>((u0 & 0xF) | ((u2 & 0xF) << 4));
      ql[l + 32] = static_cast<uint8_t>((u1 & 0xF) | ((u3 & 0xF) << 4));
      qh[l] = static_cast<uint8_t>((u0 >> 4) | ((u1 >> 4) << 2) |
                                   ((u2 >> 4) << 4) | ((u3 >> 4) << 6));
    }
    ql += 64;
    qh += 32;
  }
}

void dequantizeBlockQ6_K(const uint8_t *b, float *y) {
  const float d = fp16ToFp32(load16(b + kQ6K_D));
  const uint8_t *ql = b + kQ6K_Ql;
  const uint8_t *qh = b + kQ6K_Qh;
  const int8_t *sc = reinterpret_cast<const int8_t *>(b + kQ6K_Scales);
  for (int n = 0; n < kQK_K; n += 128) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l + 0] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l + 0] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[l + 0] = d * sc[is + 0] * q1;
      y[l + 32] = d * sc[is + 2] * q2;
      y[l + 64] = d * sc[is + 4] * q3;
      y[l + 96] = d * sc[is + 6] * q4;
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

// Scalar types as blocks of one element.
void quantizeBlockF32(const float *x, uint8_t *y) { std::memcpy(y, x, 4); }
void dequantizeBlockF32(const uint8_t *b, float *y) { std::memcpy(y, b, 4); }
void quantizeBlockF16(const float *x, uint8_t *y) { store16(y, fp32ToFp16(*x)); }
void dequantizeBlockF16(const uint8_t *b, float *y) { *y = fp16ToFp32(load16(b)); }
void quantizeBlockBF16(const float *x, uint8_t *y) { store16(y, fp32ToBf16(*x)); }
void dequantizeBlockBF16(const uint8_t *b, float *y) { *y = bf16ToFp32(load16(b)); }

inline uint32_t load32(const uint8_t *p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
inline void store32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Packs 32 five-bit values (the reference's order: element j and j + 16
// share a byte) into nibbles at qs and the fifth bits into the word at qh.
void packQ5(const uint8_t *xi, uint8_t *qh, uint8_t *qs) {
  uint32_t h = 0;
  for (int j = 0; j < 16; ++j) {
    qs[j] = static_cast<uint8_t>((xi[j] & 0x0F) | ((xi[j + 16] & 0x0F) << 4));
    h |= ((xi[j] & 0x10u) >> 4) << (j + 0);
    h |= ((xi[j + 16] & 0x10u) >> 4) << (j + 16);
  }
  store32(qh, h);
}
// The five-bit value of element j < 32.
inline int q5At(const uint8_t *qh, const uint8_t *qs, int j) {
  const uint32_t h = load32(qh);
  const int lo = j < 16 ? qs[j] & 0x0F : qs[j - 16] >> 4;
  return lo | static_cast<int>(((h >> j) & 1u) << 4);
}

void quantizeBlockQ5_0(const float *x, uint8_t *y) {
  float amax = 0.0f;
  float max = 0.0f;
  for (int j = 0; j < kQK5_0; ++j) {
    const float v = x[j];
    if (amax < std::fabs(v)) {
      amax = std::fabs(v);
      max = v;
    }
  }
  const float d = max / -16;
  const float id = d != 0 ? 1.0f / d : 0.0f;
  store16(y, fp32ToFp16(d));
  uint8_t xi[kQK5_0];
  for (int j = 0; j < kQK5_0; ++j)
    xi[j] = static_cast<uint8_t>(minOf(31, truncToInt8(x[j] * id + 16.5f)));
  packQ5(xi, y + 2, y + 6);
}

void dequantizeBlockQ5_0(const uint8_t *b, float *y) {
  const float d = fp16ToFp32(load16(b));
  for (int j = 0; j < kQK5_0; ++j)
    y[j] = (q5At(b + 2, b + 6, j) - 16) * d;
}

void quantizeBlockQ5_1(const float *x, uint8_t *y) {
  float min = FLT_MAX;
  float max = -FLT_MAX;
  for (int j = 0; j < kQK5_1; ++j) {
    const float v = x[j];
    if (v < min)
      min = v;
    if (v > max)
      max = v;
  }
  const float d = (max - min) / ((1 << 5) - 1);
  const float id = d != 0 ? 1.0f / d : 0.0f;
  store16(y, fp32ToFp16(d));
  store16(y + 2, fp32ToFp16(min));
  uint8_t xi[kQK5_1];
  for (int j = 0; j < kQK5_1; ++j) {
    // (uint8_t) of a float in the reference: in range for finite input.
    const float v = (x[j] - min) * id + 0.5f;
    xi[j] = static_cast<uint8_t>(v >= 0.f && v < 256.f ? static_cast<int>(v) : 0);
  }
  packQ5(xi, y + 4, y + 8);
}

void dequantizeBlockQ5_1(const uint8_t *b, float *y) {
  const float d = fp16ToFp32(load16(b));
  const float m = fp16ToFp32(load16(b + 2));
  for (int j = 0; j < kQK5_1; ++j)
    y[j] = q5At(b + 4, b + 8, j) * d + m;
}

// Q2_K byte offsets.
constexpr int kQ2K_Scales = 0, kQ2K_Qs = 16, kQ2K_D = 80, kQ2K_DMin = 82;

// Packs 256 two-bit values: element 128h + 32k + l into bits 2k of
// qs[32h + l].
void pack2Bit(const uint8_t *L, uint8_t *qs) {
  for (int j = 0; j < kQK_K; j += 128)
    for (int l = 0; l < 32; ++l)
      qs[j / 4 + l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 2) |
                                           (L[j + l + 64] << 4) |
                                           (L[j + l + 96] << 6));
}
inline int twoBitAt(const uint8_t *qs, int e) {
  return (qs[(e / 128) * 32 + e % 32] >> (2 * ((e % 128) / 32))) & 3;
}

void quantizeBlockQ2_K(const float *x, uint8_t *y) {
  uint8_t L[kQK_K];
  uint8_t Laux[16];
  float weights[16];
  float mins[kQK_K / 16];
  float scales[kQK_K / 16];
  const float q4scale = 15.f;

  float maxScale = 0;
  float maxMin = 0;
  for (int j = 0; j < kQK_K / 16; ++j) {
    for (int l = 0; l < 16; ++l)
      weights[l] = std::fabs(x[16 * j + l]);
    scales[j] = makeQkx2Quants(16, 3, x + 16 * j, weights, L + 16 * j,
                               &mins[j], Laux, -0.5f, 0.1f, 15, true);
    if (scales[j] > maxScale)
      maxScale = scales[j];
    if (mins[j] > maxMin)
      maxMin = mins[j];
  }

  uint8_t *sc = y + kQ2K_Scales;
  if (maxScale > 0) {
    const float iscale = q4scale / maxScale;
    for (int j = 0; j < kQK_K / 16; ++j)
      sc[j] = static_cast<uint8_t>(nearestInt(iscale * scales[j]));
    store16(y + kQ2K_D, fp32ToFp16(maxScale / q4scale));
  } else {
    std::memset(sc, 0, kQK_K / 16);
    store16(y + kQ2K_D, fp32ToFp16(0.f));
  }
  if (maxMin > 0) {
    const float iscale = q4scale / maxMin;
    for (int j = 0; j < kQK_K / 16; ++j)
      sc[j] |= static_cast<uint8_t>(static_cast<uint32_t>(nearestInt(iscale * mins[j])) << 4);
    store16(y + kQ2K_DMin, fp32ToFp16(maxMin / q4scale));
  } else {
    store16(y + kQ2K_DMin, fp32ToFp16(0.f));
  }
  const float dAll = fp16ToFp32(load16(y + kQ2K_D));
  const float dminAll = fp16ToFp32(load16(y + kQ2K_DMin));
  for (int j = 0; j < kQK_K / 16; ++j) {
    const float d = dAll * (sc[j] & 0xF);
    if (d == 0)
      continue;
    const float dm = dminAll * (sc[j] >> 4);
    for (int ii = 0; ii < 16; ++ii) {
      const int l = nearestInt((x[16 * j + ii] + dm) / d);
      L[16 * j + ii] = static_cast<uint8_t>(maxOf(0, minOf(3, l)));
    }
  }
  pack2Bit(L, y + kQ2K_Qs);
}

void dequantizeBlockQ2_K(const uint8_t *b, float *y) {
  const float d = fp16ToFp32(load16(b + kQ2K_D));
  const float min = fp16ToFp32(load16(b + kQ2K_DMin));
  const uint8_t *sc = b + kQ2K_Scales;
  for (int e = 0; e < kQK_K; ++e) {
    const uint8_t s = sc[e / 16];
    const float dl = d * (s & 0xF), ml = min * (s >> 4);
    y[e] = dl * twoBitAt(b + kQ2K_Qs, e) - ml;
  }
}

// ggml's make_q3_quants with do_rmse: symmetric levels [-nmax, nmax-1]
// (returned as L + nmax), refined by coordinate descent on x^2-weighted
// error.
float makeQ3Quants(int n, int nmax, const float *x, int8_t *L) {
  float max = 0;
  float amax = 0;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
  if (amax < kGroupMaxEps) {
    for (int i = 0; i < n; ++i)
      L[i] = 0;
    return 0.f;
  }
  const float iscale = -nmax / max;
  float sumlx = 0;
  float suml2 = 0;
  for (int i = 0; i < n; ++i) {
    int l = nearestInt(iscale * x[i]);
    l = maxOf(-nmax, minOf(nmax - 1, l));
    L[i] = static_cast<int8_t>(l);
    const float w = x[i] * x[i];
    sumlx += w * x[i] * l;
    suml2 += w * l * l;
  }
  for (int itry = 0; itry < 5; ++itry) {
    int nChanged = 0;
    for (int i = 0; i < n; ++i) {
      const float w = x[i] * x[i];
      float slx = sumlx - w * x[i] * L[i];
      if (slx > 0) {
        float sl2 = suml2 - w * L[i] * L[i];
        int newL = nearestInt(x[i] * sl2 / slx);
        newL = maxOf(-nmax, minOf(nmax - 1, newL));
        if (newL != L[i]) {
          slx += w * x[i] * newL;
          sl2 += w * newL * newL;
          if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
            L[i] = static_cast<int8_t>(newL);
            sumlx = slx;
            suml2 = sl2;
            ++nChanged;
          }
        }
      }
    }
    if (!nChanged)
      break;
  }
  for (int i = 0; i < n; ++i)
    L[i] = static_cast<int8_t>(L[i] + nmax);
  return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

// Q3_K byte offsets.
constexpr int kQ3K_HMask = 0, kQ3K_Qs = 32, kQ3K_Scales = 96, kQ3K_D = 108;

// The 6-bit scale (0..63, value - 32) of Q3_K sub-block j.
inline int q3kScale(const uint8_t *s, int j) {
  const int lo = j < 8 ? s[j] & 0xF : s[j - 8] >> 4;
  return lo | (((s[8 + j % 4] >> (2 * (j / 4))) & 3) << 4);
}

void quantizeBlockQ3_K(const float *x, uint8_t *y) {
  int8_t L[kQK_K];
  float scales[kQK_K / 16];

  float maxScale = 0;
  float amax = 0;
  for (int j = 0; j < kQK_K / 16; ++j) {
    scales[j] = makeQ3Quants(16, 4, x + 16 * j, L + 16 * j);
    const float scale = std::fabs(scales[j]);
    if (scale > amax) {
      amax = scale;
      maxScale = scales[j];
    }
  }

  uint8_t *sc = y + kQ3K_Scales;
  std::memset(sc, 0, kKScaleBytes);
  if (maxScale != 0) {
    const float iscale = -32.f / maxScale;
    for (int j = 0; j < kQK_K / 16; ++j) {
      // int8_t of the rounded value, as the reference converts it.
      int l = static_cast<int8_t>(nearestInt(iscale * scales[j]));
      l = maxOf(-32, minOf(31, l)) + 32;
      if (j < 8)
        sc[j] = static_cast<uint8_t>(l & 0xF);
      else
        sc[j - 8] |= static_cast<uint8_t>((l & 0xF) << 4);
      l >>= 4;
      sc[j % 4 + 8] |= static_cast<uint8_t>(l << (2 * (j / 4)));
    }
    store16(y + kQ3K_D, fp32ToFp16(1 / iscale));
  } else {
    store16(y + kQ3K_D, fp32ToFp16(0.f));
  }

  const float dAll = fp16ToFp32(load16(y + kQ3K_D));
  for (int j = 0; j < kQK_K / 16; ++j) {
    const float d = dAll * static_cast<int8_t>(q3kScale(sc, j) - 32);
    if (d == 0)
      continue;
    for (int ii = 0; ii < 16; ++ii) {
      int l = nearestInt(x[16 * j + ii] / d);
      l = maxOf(-4, minOf(3, l));
      L[16 * j + ii] = static_cast<int8_t>(l + 4);
    }
  }

  uint8_t *hmask = y + kQ3K_HMask;
  std::memset(hmask, 0, kQK_K / 8);
  uint8_t U[kQK_K];
  for (int j = 0; j < kQK_K; ++j) {
    U[j] = static_cast<uint8_t>(L[j]);
    if (U[j] > 3) {
      hmask[j % 32] |= static_cast<uint8_t>(1u << (j / 32));
      U[j] = static_cast<uint8_t>(U[j] - 4);
    }
  }
  pack2Bit(U, y + kQ3K_Qs);
}

void dequantizeBlockQ3_K(const uint8_t *b, float *y) {
  const float dAll = fp16ToFp32(load16(b + kQ3K_D));
  const uint8_t *hm = b + kQ3K_HMask;
  for (int e = 0; e < kQK_K; ++e) {
    const float dl = dAll * (q3kScale(b + kQ3K_Scales, e / 16) - 32);
    const int high = (hm[e % 32] >> (e / 32)) & 1;
    y[e] = dl * (twoBitAt(b + kQ3K_Qs, e) - (high ? 0 : 4));
  }
}

// Q5_K byte offsets.
constexpr int kQ5K_D = 0, kQ5K_DMin = 2, kQ5K_Scales = 4, kQ5K_Qh = 16,
              kQ5K_Qs = 48;

void quantizeBlockQ5_K(const float *x, uint8_t *y) {
  uint8_t L[kQK_K];
  quantizeScalesMinsK(x, 31, -0.5f, 15, y, L);
  uint8_t *qh = y + kQ5K_Qh;
  uint8_t *ql = y + kQ5K_Qs;
  std::memset(qh, 0, kQK_K / 8);
  uint8_t m1 = 1, m2 = 2;
  for (int n = 0; n < kQK_K; n += 64) {
    for (int j = 0; j < 32; ++j) {
      int l1 = L[n + j];
      if (l1 > 15) {
        l1 -= 16;
        qh[j] |= m1;
      }
      int l2 = L[n + j + 32];
      if (l2 > 15) {
        l2 -= 16;
        qh[j] |= m2;
      }
      ql[j] = static_cast<uint8_t>(l1 | (l2 << 4));
    }
    m1 = static_cast<uint8_t>(m1 << 2);
    m2 = static_cast<uint8_t>(m2 << 2);
    ql += 32;
  }
}

void dequantizeBlockQ5_K(const uint8_t *b, float *y) {
  const float d = fp16ToFp32(load16(b + kQ5K_D));
  const float min = fp16ToFp32(load16(b + kQ5K_DMin));
  const uint8_t *ql = b + kQ5K_Qs, *qh = b + kQ5K_Qh;
  int is = 0;
  uint8_t u1 = 1, u2 = 2;
  for (int j = 0; j < kQK_K; j += 64) {
    uint8_t sc, m;
    unpackScaleMinK4(is + 0, b + kQ5K_Scales, sc, m);
    const float d1 = d * sc;
    const float m1 = min * m;
    unpackScaleMinK4(is + 1, b + kQ5K_Scales, sc, m);
    const float d2 = d * sc;
    const float m2 = min * m;
    for (int l = 0; l < 32; ++l)
      *y++ = d1 * ((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0)) - m1;
    for (int l = 0; l < 32; ++l)
      *y++ = d2 * ((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
    ql += 32;
    is += 2;
    u1 = static_cast<uint8_t>(u1 << 2);
    u2 = static_cast<uint8_t>(u2 << 2);
  }
}

// Index of the level nearest x in the sorted table val[0..n) (ties go up).
int bestIndexInt8(int n, const int8_t *val, float x) {
  if (x <= val[0])
    return 0;
  if (x >= val[n - 1])
    return n - 1;
  int ml = 0, mu = n - 1;
  while (mu - ml > 1) {
    const int mav = (ml + mu) / 2;
    if (x < val[mav])
      mu = mav;
    else
      ml = mav;
  }
  return x - val[mu - 1] < val[mu] - x ? mu - 1 : mu;
}

// ggml's quantize_row_iq4_nl_impl without an importance matrix: per block of
// 32 a scale from the largest magnitude, refined over 2*ntry+1 candidates;
// with several blocks (IQ4_XS) the scales are then quantized to 6 bits
// against the super-block scale. Writes d, the 4-bit indices and, for
// IQ4_XS, the packed scales.
void quantizeIQ4(int superBlockSize, const float *x, uint8_t *dh, uint8_t *q4,
                 uint8_t *scalesH, uint8_t *scalesL, int ntry) {
  constexpr int kBlock = 32;
  const int8_t *values = kIQ4NLValues;
  uint8_t L[kQK_K];
  float weight[kBlock];
  float scales[kQK_K / kBlock];

  std::memset(q4, 0, superBlockSize / 2);
  store16(dh, fp32ToFp16(0.f));

  float maxScale = 0, amaxScale = 0;
  for (int ib = 0; ib < superBlockSize / kBlock; ++ib) {
    const float *xb = x + ib * kBlock;
    uint8_t *Lb = L + ib * kBlock;
    for (int j = 0; j < kBlock; ++j)
      weight[j] = xb[j] * xb[j];
    float amax = 0, max = 0;
    for (int j = 0; j < kBlock; ++j) {
      const float ax = std::fabs(xb[j]);
      if (ax > amax) {
        amax = ax;
        max = xb[j];
      }
    }
    if (amax < kGroupMaxEps) {
      scales[ib] = 0;
      // The reference leaves this block's indices unset; with ntry > 0 the
      // IQ4_NL path and the IQ4_XS rescale below overwrite them.
      std::memset(Lb, 0, kBlock);
      continue;
    }
    float d = ntry > 0 ? -max / values[0] : max / values[0];
    float id = 1 / d;
    float sumqx = 0, sumq2 = 0;
    for (int j = 0; j < kBlock; ++j) {
      const float al = id * xb[j];
      const int l = bestIndexInt8(16, values, al);
      Lb[j] = static_cast<uint8_t>(l);
      const float q = values[l];
      const float w = weight[j];
      sumqx += w * q * xb[j];
      sumq2 += w * q * q;
    }
    d = sumq2 > 0 ? sumqx / sumq2 : 0.f;
    float best = d * sumqx;
    for (int itry = -ntry; itry <= ntry; ++itry) {
      id = (itry + values[0]) / max;
      sumqx = sumq2 = 0;
      for (int j = 0; j < kBlock; ++j) {
        const float al = id * xb[j];
        const int l = bestIndexInt8(16, values, al);
        const float q = values[l];
        const float w = weight[j];
        sumqx += w * q * xb[j];
        sumq2 += w * q * q;
      }
      if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
        d = sumqx / sumq2;
        best = d * sumqx;
      }
    }
    scales[ib] = d;
    const float absD = std::fabs(d);
    if (absD > amaxScale) {
      amaxScale = absD;
      maxScale = d;
    }
  }

  if (superBlockSize / kBlock > 1) {
    uint16_t sh = 0;
    const float d = -maxScale / 32;
    store16(dh, fp32ToFp16(d));
    const float id = d != 0 ? 1 / d : 0.f;
    for (int ib = 0; ib < superBlockSize / kBlock; ++ib) {
      int l = nearestInt(id * scales[ib]);
      l = maxOf(-32, minOf(31, l));
      const float dl = d * l;
      const float idl = dl != 0 ? 1 / dl : 0.f;
      uint8_t *Lb = L + ib * kBlock;
      const float *xb = x + ib * kBlock;
      for (int j = 0; j < kBlock; ++j)
        Lb[j] = static_cast<uint8_t>(bestIndexInt8(16, values, idl * xb[j]));
      l += 32;
      const uint8_t lLow = static_cast<uint8_t>(l & 0xf);
      const uint8_t lHigh = static_cast<uint8_t>(l >> 4);
      if (ib % 2 == 0)
        scalesL[ib / 2] = lLow;
      else
        scalesL[ib / 2] |= static_cast<uint8_t>(lLow << 4);
      sh |= static_cast<uint16_t>(lHigh << (2 * (ib % 8)));
    }
    store16(scalesH, sh);
  } else {
    store16(dh, fp32ToFp16(scales[0]));
    if (ntry > 0) {
      const float id = scales[0] != 0 ? 1 / scales[0] : 0;
      for (int j = 0; j < superBlockSize; ++j)
        L[j] = static_cast<uint8_t>(bestIndexInt8(16, values, id * x[j]));
    }
  }

  for (int i = 0; i < superBlockSize / 32; ++i)
    for (int j = 0; j < 16; ++j)
      q4[16 * i + j] = static_cast<uint8_t>(L[32 * i + j] | (L[32 * i + 16 + j] << 4));
}

// llama.cpp's quantize_iq4_nl / quantize_iq4_xs search 7 steps each way.
constexpr int kIQ4Tries = 7;

void quantizeBlockIQ4_NL(const float *x, uint8_t *y) {
  quantizeIQ4(kQK4_NL, x, y, y + 2, nullptr, nullptr, kIQ4Tries);
}

void dequantizeBlockIQ4_NL(const uint8_t *b, float *y) {
  const float d = fp16ToFp32(load16(b));
  for (int j = 0; j < kQK4_NL / 2; ++j) {
    y[j] = d * kIQ4NLValues[b[2 + j] & 0xf];
    y[j + kQK4_NL / 2] = d * kIQ4NLValues[b[2 + j] >> 4];
  }
}

void quantizeBlockIQ4_XS(const float *x, uint8_t *y) {
  quantizeIQ4(kQK_K, x, y, y + 8, y + 2, y + 4, kIQ4Tries);
}

void dequantizeBlockIQ4_XS(const uint8_t *b, float *y) {
  const float d = fp16ToFp32(load16(b));
  const uint16_t sh = load16(b + 2);
  const uint8_t *sl = b + 4, *qs = b + 8;
  for (int ib = 0; ib < kQK_K / 32; ++ib) {
    const int ls = ((sl[ib / 2] >> 4 * (ib % 2)) & 0xf) | (((sh >> 2 * ib) & 3) << 4);
    const float dl = d * (ls - 32);
    for (int j = 0; j < 16; ++j) {
      y[j] = dl * kIQ4NLValues[qs[j] & 0xf];
      y[j + 16] = dl * kIQ4NLValues[qs[j] >> 4];
    }
    y += 32;
    qs += 16;
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Public row routines
//===----------------------------------------------------------------------===//

void dequantize(GGMLType type, const void *src, float *dst, int64_t n) {
  const TypeInfo *ti = typeInfo(static_cast<uint32_t>(type));
  assert(ti && "unsupported type");
  assert(n >= 0 && "negative element count");
  if (!ti || n <= 0)
    return;
  const TypeTraits &tt = ti->traits;
  assert(n % tt.blockSize == 0 && "n must be a multiple of the block size");
  const int64_t nb = n / tt.blockSize;
  const auto *s = static_cast<const uint8_t *>(src);
  for (int64_t i = 0; i < nb; ++i)
    ti->dequantize(s + i * tt.blockBytes, dst + i * tt.blockSize);
  for (int64_t i = nb * tt.blockSize; i < n; ++i)
    dst[i] = 0.0f;
}

void quantizeQ8K(const float *src, void *dst, int64_t n) {
  uint8_t *y = static_cast<uint8_t *>(dst);
  for (int64_t b = 0; b + 256 <= n; b += 256, y += kQ8KBlockBytes) {
    const float *x = src + b;
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < 256; ++j)
      if (std::fabs(x[j]) > amax) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    std::memset(y, 0, kQ8KBlockBytes);
    if (amax == 0.0f)
      continue;
    const float iscale = -127.0f / max, d = 1.0f / iscale;
    std::memcpy(y, &d, 4);
    int8_t *q = reinterpret_cast<int8_t *>(y + 4);
    for (int j = 0; j < 256; ++j) {
      const int v = nearestInt(iscale * x[j]);
      q[j] = (int8_t)(v < 127 ? v : 127);
    }
    for (int g = 0; g < 16; ++g) {
      int sum = 0;
      for (int j = 0; j < 16; ++j)
        sum += q[16 * g + j];
      const int16_t s16 = (int16_t)sum;
      std::memcpy(y + 260 + 2 * g, &s16, 2);
    }
  }
}

void quantize(GGMLType type, const float *src, void *dst, int64_t n) {
  const TypeInfo *ti = typeInfo(static_cast<uint32_t>(type));
  assert(ti && "unsupported type");
  assert(n >= 0 && "negative element count");
  if (!ti || n <= 0)
    return;
  const TypeTraits &tt = ti->traits;
  assert(n % tt.blockSize == 0 && "n must be a multiple of the block size");
  const int64_t nb = n / tt.blockSize;
  auto *d = static_cast<uint8_t *>(dst);
  for (int64_t i = 0; i < nb; ++i)
    ti->quantize(src + i * tt.blockSize, d + i * tt.blockBytes);
}

namespace {
// Index of the first of n values (each a T at p) whose exponent bits `exp`
// are all set, or n. Chunks of 128 values are tested together (vectorized);
// only a chunk with one is looked at value by value.
template <typename T>
uint64_t firstAllOnes(const uint8_t *p, uint64_t n, T exp) {
  uint64_t i = 0;
  for (; i + 128 <= n; i += 128) {
    T chunk[128];
    std::memcpy(chunk, p + sizeof(T) * i, sizeof chunk);
    int any = 0;
    for (int k = 0; k < 128; ++k)
      any |= (chunk[k] & exp) == exp;
    if (any)
      break;
  }
  for (; i < n; ++i) {
    T v;
    std::memcpy(&v, p + sizeof(T) * i, sizeof v);
    if ((v & exp) == exp)
      return i;
  }
  return n;
}
} // namespace

std::optional<NonFinite> firstNonFinite(GGMLType type, const void *src,
                                        uint64_t n) {
  const auto *p = static_cast<const uint8_t *>(src);
  if (type == GGMLType::F32) {
    const uint64_t i = firstAllOnes<uint32_t>(p, n, 0x7f800000u);
    if (i == n)
      return std::nullopt;
    uint32_t bits;
    std::memcpy(&bits, p + 4 * i, 4);
    return NonFinite{i, "value", bitsFloat(bits)};
  }
  if (type == GGMLType::F16 || type == GGMLType::BF16) {
    const bool f16 = type == GGMLType::F16;
    const uint64_t i = firstAllOnes<uint16_t>(p, n, f16 ? 0x7c00 : 0x7f80);
    if (i == n)
      return std::nullopt;
    const uint16_t h = load16(p + 2 * i);
    return NonFinite{i, "value", f16 ? fp16ToFp32(h) : bf16ToFp32(h)};
  }
  // Each block's fp16 fields: byte offset and name (d first elsewhere).
  struct Field {
    int at;
    const char *name;
  };
  static const Field d0[] = {{0, "d"}}, dm[] = {{0, "d"}, {2, "m"}},
                     q4k[] = {{kQ4K_D, "d"}, {kQ4K_DMin, "dmin"}},
                     q5k[] = {{kQ5K_D, "d"}, {kQ5K_DMin, "dmin"}},
                     q2k[] = {{kQ2K_D, "d"}, {kQ2K_DMin, "dmin"}},
                     q3k[] = {{kQ3K_D, "d"}}, q6k[] = {{kQ6K_D, "d"}};
  const Field *first = d0, *last = d0 + 1;
  auto use = [&](const Field *f, size_t count) { first = f, last = f + count; };
  switch (type) {
  case GGMLType::Q4_1:
  case GGMLType::Q5_1: use(dm, 2); break;
  case GGMLType::Q4_K: use(q4k, 2); break;
  case GGMLType::Q5_K: use(q5k, 2); break;
  case GGMLType::Q2_K: use(q2k, 2); break;
  case GGMLType::Q3_K: use(q3k, 1); break;
  case GGMLType::Q6_K: use(q6k, 1); break;
  default: break; // Q4_0, Q5_0, Q8_0, IQ4_NL, IQ4_XS
  }
  const TypeTraits *tt = typeTraits(type);
  if (!tt)
    return std::nullopt;
  const uint64_t blocks = n / (uint64_t)tt->blockSize;
  for (uint64_t b = 0; b < blocks; ++b)
    for (const Field *f = first; f != last; ++f) {
      const uint16_t h = load16(p + b * (uint64_t)tt->blockBytes + (uint64_t)f->at);
      if ((h & 0x7c00) == 0x7c00)
        return NonFinite{b * (uint64_t)tt->blockSize, f->name, fp16ToFp32(h)};
    }
  return std::nullopt;
}

} // namespace kiln::gguf
