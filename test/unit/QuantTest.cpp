//===- QuantTest.cpp - Tests for f16/bf16 conversion and GGML quantization ===//

#include "compiler/support/Quant.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace kiln::gguf;

namespace {

float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint32_t floatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Deterministic uniform data in [lo, hi) independent of the standard
// library's distribution implementations.
std::vector<float> randomData(size_t n, uint32_t seed, float lo = -1.f,
                              float hi = 1.f) {
  std::mt19937 gen(seed);
  std::vector<float> v(n);
  for (float &x : v) {
    const float u = static_cast<float>(gen() >> 8) * (1.0f / 16777216.0f);
    x = lo + (hi - lo) * u;
  }
  return v;
}

std::vector<uint8_t> quantizeVec(GGMLType t, const std::vector<float> &x) {
  std::vector<uint8_t> q(rowBytes(t, static_cast<int64_t>(x.size())));
  quantize(t, x.data(), q.data(), static_cast<int64_t>(x.size()));
  return q;
}

std::vector<float> dequantizeVec(GGMLType t, const std::vector<uint8_t> &q,
                                 size_t n) {
  std::vector<float> y(n);
  dequantize(t, q.data(), y.data(), static_cast<int64_t>(n));
  return y;
}

uint16_t rd16(const uint8_t *p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

} // namespace

//===----------------------------------------------------------------------===//
// Type table
//===----------------------------------------------------------------------===//

TEST(QuantTypes, TraitsAndNames) {
  struct Row {
    GGMLType t;
    const char *name;
    int64_t bs, bb;
  } rows[] = {
      {GGMLType::F32, "f32", 1, 4},       {GGMLType::F16, "f16", 1, 2},
      {GGMLType::Q4_0, "q4_0", 32, 18},   {GGMLType::Q4_1, "q4_1", 32, 20},
      {GGMLType::Q8_0, "q8_0", 32, 34},   {GGMLType::Q4_K, "q4_k", 256, 144},
      {GGMLType::Q6_K, "q6_k", 256, 210}, {GGMLType::BF16, "bf16", 1, 2},
      {GGMLType::Q5_0, "q5_0", 32, 22},   {GGMLType::Q5_1, "q5_1", 32, 24},
      {GGMLType::Q2_K, "q2_k", 256, 84},  {GGMLType::Q3_K, "q3_k", 256, 110},
      {GGMLType::Q5_K, "q5_k", 256, 176}, {GGMLType::IQ4_NL, "iq4_nl", 32, 18},
      {GGMLType::IQ4_XS, "iq4_xs", 256, 136}};
  for (const Row &r : rows) {
    const TypeTraits *tt = typeTraits(static_cast<uint32_t>(r.t));
    ASSERT_NE(tt, nullptr) << r.name;
    EXPECT_STREQ(tt->name, r.name);
    EXPECT_EQ(tt->blockSize, r.bs);
    EXPECT_EQ(tt->blockBytes, r.bb);
    EXPECT_STREQ(typeName(r.t), r.name);
    auto back = typeFromName(r.name);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, r.t);
    EXPECT_EQ(rowBytes(r.t, r.bs * 3), static_cast<size_t>(r.bb * 3));
  }
  EXPECT_EQ(typeFromName("Q4_K"), GGMLType::Q4_K); // case-insensitive
  EXPECT_FALSE(typeFromName("iq2_xs").has_value());
  EXPECT_EQ(typeTraits(17), nullptr); // iq2_xs: known to ggml, not to Kiln
  EXPECT_EQ(typeTraits(4), nullptr);
  EXPECT_EQ(typeTraits(0xffffffffu), nullptr);
  EXPECT_STREQ(ggmlTypeName(17), "iq2_xs");
  EXPECT_EQ(ggmlTypeName(4), nullptr);
  EXPECT_EQ(ggmlTypeName(1000), nullptr);
  EXPECT_EQ(rowBytes(GGMLType::Q4_0, 33), 0u); // not a whole number of blocks
  EXPECT_EQ(rowBytes(GGMLType::Q4_0, -32), 0u);
  EXPECT_EQ(rowBytes(GGMLType::Q6_K, 0), 0u);
}

//===----------------------------------------------------------------------===//
// fp16 / bf16
//===----------------------------------------------------------------------===//

TEST(QuantHalf, SpecialValuesToHalf) {
  EXPECT_EQ(fp32ToFp16(0.0f), 0x0000);
  EXPECT_EQ(fp32ToFp16(-0.0f), 0x8000);
  EXPECT_EQ(fp32ToFp16(1.0f), 0x3c00);
  EXPECT_EQ(fp32ToFp16(-2.0f), 0xc000);
  EXPECT_EQ(fp32ToFp16(0.5f), 0x3800);
  EXPECT_EQ(fp32ToFp16(65504.0f), 0x7bff);   // max finite half
  EXPECT_EQ(fp32ToFp16(65519.996f), 0x7bff); // just below the midpoint
  EXPECT_EQ(fp32ToFp16(65520.0f), 0x7c00);   // midpoint ties to even = inf
  EXPECT_EQ(fp32ToFp16(1e10f), 0x7c00);
  EXPECT_EQ(fp32ToFp16(-1e10f), 0xfc00);
  EXPECT_EQ(fp32ToFp16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(fp32ToFp16(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(fp32ToFp16(std::numeric_limits<float>::quiet_NaN()), 0x7e00);
  EXPECT_EQ(fp32ToFp16(-std::numeric_limits<float>::quiet_NaN()), 0xfe00);
  EXPECT_EQ(fp32ToFp16(bitsToFloat(0x7f800001u)), 0x7e00); // signalling NaN
  // Normal rounding: ties to even.
  EXPECT_EQ(fp32ToFp16(1.0f + std::ldexp(1.0f, -11)), 0x3c00); // tie -> even
  EXPECT_EQ(fp32ToFp16(1.0f + 3 * std::ldexp(1.0f, -11)),
            0x3c02); // tie -> even
  EXPECT_EQ(fp32ToFp16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
            0x3c01);
  EXPECT_EQ(fp32ToFp16(2047.0f / 1024.0f * 1.0f + std::ldexp(1.0f, -11)),
            0x4000); // 1.9990234 + half ulp carries into the exponent
  // Subnormals.
  EXPECT_EQ(fp32ToFp16(std::ldexp(1.0f, -14)), 0x0400); // min normal
  EXPECT_EQ(fp32ToFp16(std::ldexp(1.0f, -24)), 0x0001); // min subnormal
  EXPECT_EQ(fp32ToFp16(std::ldexp(1.0f, -25)), 0x0000); // tie -> even (0)
  EXPECT_EQ(fp32ToFp16(-std::ldexp(1.0f, -25)), 0x8000);
  EXPECT_EQ(fp32ToFp16(std::ldexp(1.0f, -25) * 1.0000001f), 0x0001);
  EXPECT_EQ(fp32ToFp16(3 * std::ldexp(1.0f, -25)), 0x0002); // 1.5 -> 2
  EXPECT_EQ(fp32ToFp16(5 * std::ldexp(1.0f, -25)), 0x0002); // 2.5 -> 2
  EXPECT_EQ(fp32ToFp16(1023 * std::ldexp(1.0f, -24)), 0x03ff);
  EXPECT_EQ(fp32ToFp16(1023.5f * std::ldexp(1.0f, -24)), 0x0400); // carry
  EXPECT_EQ(fp32ToFp16(1e-30f), 0x0000);
  EXPECT_EQ(fp32ToFp16(bitsToFloat(1)), 0x0000); // f32 subnormal
}

TEST(QuantHalf, SpecialValuesFromHalf) {
  EXPECT_EQ(fp16ToFp32(0x0000), 0.0f);
  EXPECT_TRUE(std::signbit(fp16ToFp32(0x8000)));
  EXPECT_EQ(fp16ToFp32(0x3c00), 1.0f);
  EXPECT_EQ(fp16ToFp32(0xc000), -2.0f);
  EXPECT_EQ(fp16ToFp32(0x7bff), 65504.0f);
  EXPECT_EQ(fp16ToFp32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16ToFp32(0x03ff), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16ToFp32(0x8001), -std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16ToFp32(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(fp16ToFp32(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(fp16ToFp32(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(fp16ToFp32(0x7e00)));
  EXPECT_TRUE(std::isnan(fp16ToFp32(0x7c01)));
  EXPECT_EQ(floatToBits(fp16ToFp32(0x7c01)), 0x7f802000u); // payload kept
}

TEST(QuantHalf, AllHalvesRoundTrip) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = fp16ToFp32(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(fp16ToFp32(fp32ToFp16(f)))) << h;
      continue;
    }
    ASSERT_EQ(fp32ToFp16(f), h) << "half bits " << h;
  }
}

TEST(QuantHalf, RoundsToNearestOnRandomFloats) {
  // Compare against the nearest of the two neighbouring halves.
  std::mt19937 gen(7);
  for (int i = 0; i < 200000; ++i) {
    const float f = bitsToFloat((gen() & 0x8fffffffu) | 0x30000000u);
    if (!std::isfinite(f) || std::fabs(f) >= 65504.f)
      continue;
    const uint16_t h = fp32ToFp16(f);
    const double got = fp16ToFp32(h);
    const double err = std::fabs(got - static_cast<double>(f));
    const uint16_t up = static_cast<uint16_t>(h + 1),
                   dn = static_cast<uint16_t>(h - 1);
    for (uint16_t o : {up, dn}) {
      if ((o & 0x7fff) >= 0x7c00 || ((o ^ h) & 0x8000))
        continue;
      const double other = std::fabs(fp16ToFp32(o) - static_cast<double>(f));
      ASSERT_LE(err, other) << f;
      if (err == other) { // tie: must be even
        ASSERT_EQ(h & 1, 0) << f;
      }
    }
  }
}

TEST(QuantBF16, SpecialValues) {
  EXPECT_EQ(fp32ToBf16(0.0f), 0x0000);
  EXPECT_EQ(fp32ToBf16(-0.0f), 0x8000);
  EXPECT_EQ(fp32ToBf16(1.0f), 0x3f80);
  EXPECT_EQ(fp32ToBf16(-2.0f), 0xc000);
  EXPECT_EQ(fp32ToBf16(bitsToFloat(0x3f808000u)), 0x3f80); // tie -> even
  EXPECT_EQ(fp32ToBf16(bitsToFloat(0x3f818000u)), 0x3f82); // tie -> even
  EXPECT_EQ(fp32ToBf16(bitsToFloat(0x3f808001u)), 0x3f81); // above tie
  EXPECT_EQ(fp32ToBf16(bitsToFloat(0x3f807fffu)), 0x3f80); // below tie
  EXPECT_EQ(fp32ToBf16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(fp32ToBf16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(fp32ToBf16(std::numeric_limits<float>::max()), 0x7f80); // overflow
  EXPECT_EQ(fp32ToBf16(bitsToFloat(0x00000001u)), 0x0000); // tiny subnormal
  EXPECT_EQ(fp32ToBf16(bitsToFloat(0x00018000u)), 0x0002); // subnormal tie
  const uint16_t nan =
      fp32ToBf16(bitsToFloat(0x7f800001u)); // sNaN, low payload
  EXPECT_TRUE(std::isnan(bf16ToFp32(nan)));
  EXPECT_EQ(nan & 0x7fc0, 0x7fc0); // quiet
  EXPECT_EQ(bf16ToFp32(0x3f80), 1.0f);
  EXPECT_EQ(bf16ToFp32(0xff80), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(bf16ToFp32(0x7fc0)));
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = bf16ToFp32(static_cast<uint16_t>(h));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(fp32ToBf16(f), h);
  }
}

//===----------------------------------------------------------------------===//
// Round trips on random data
//===----------------------------------------------------------------------===//

namespace {
struct ErrStats {
  double maxAbs = 0, rms = 0;
};
ErrStats errors(const std::vector<float> &x, const std::vector<float> &y) {
  ErrStats s;
  double sq = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = std::fabs(static_cast<double>(x[i]) - y[i]);
    s.maxAbs = std::max(s.maxAbs, e);
    sq += e * e;
  }
  s.rms = std::sqrt(sq / static_cast<double>(x.size()));
  return s;
}
} // namespace

TEST(QuantRoundTrip, F32IsExact) {
  auto x = randomData(1024, 1);
  auto y =
      dequantizeVec(GGMLType::F32, quantizeVec(GGMLType::F32, x), x.size());
  EXPECT_EQ(x, y);
}

TEST(QuantRoundTrip, F16WithinHalfUlp) {
  auto x = randomData(4096, 2, -100.f, 100.f);
  auto y =
      dequantizeVec(GGMLType::F16, quantizeVec(GGMLType::F16, x), x.size());
  for (size_t i = 0; i < x.size(); ++i) // relative 2^-11, absolute 2^-25 near 0
    ASSERT_LE(std::fabs(x[i] - y[i]),
              std::max(std::fabs(x[i]) * std::ldexp(1.0f, -11),
                       std::ldexp(1.0f, -25)))
        << i;
}

TEST(QuantRoundTrip, BF16WithinHalfUlp) {
  auto x = randomData(4096, 3, -100.f, 100.f);
  auto y =
      dequantizeVec(GGMLType::BF16, quantizeVec(GGMLType::BF16, x), x.size());
  for (size_t i = 0; i < x.size(); ++i) // relative 2^-8
    ASSERT_LE(std::fabs(x[i] - y[i]), std::fabs(x[i]) * std::ldexp(1.0f, -8))
        << i;
}

// Per-block bounds derived from each format's step size (see comments), with
// a margin for the f16 rounding of the stored scales.
TEST(QuantRoundTrip, Q8_0PerBlockBound) {
  auto x = randomData(32 * 256, 4, -3.f, 3.f);
  auto y =
      dequantizeVec(GGMLType::Q8_0, quantizeVec(GGMLType::Q8_0, x), x.size());
  for (size_t b = 0; b < x.size() / 32; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j)
      amax = std::max(amax, std::fabs(x[b * 32 + j]));
    // step d = amax/127: error <= d/2 plus 127 * (f16 error of d <= d*2^-11).
    const float tol =
        amax / 127 * (0.5f + 127 * std::ldexp(1.0f, -11)) * 1.001f;
    for (int j = 0; j < 32; ++j)
      ASSERT_LE(std::fabs(x[b * 32 + j] - y[b * 32 + j]), tol) << b << " " << j;
  }
}

TEST(QuantRoundTrip, Q4_0PerBlockBound) {
  auto x = randomData(32 * 256, 5, -3.f, 3.f);
  auto y =
      dequantizeVec(GGMLType::Q4_0, quantizeVec(GGMLType::Q4_0, x), x.size());
  for (size_t b = 0; b < x.size() / 32; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j)
      amax = std::max(amax, std::fabs(x[b * 32 + j]));
    // step d = amax/8; values of the opposite sign to the extreme clip at
    // +7d, so the worst case error is one full step d (plus f16 error of d).
    const float tol = amax / 8 * (1.0f + 8 * std::ldexp(1.0f, -11)) * 1.001f;
    for (int j = 0; j < 32; ++j)
      ASSERT_LE(std::fabs(x[b * 32 + j] - y[b * 32 + j]), tol) << b << " " << j;
  }
  // Typical error is much smaller: rms <= d/3.
  EXPECT_LE(errors(x, y).rms, 3.0 / 8 / 3);
}

TEST(QuantRoundTrip, Q4_1PerBlockBound) {
  auto x = randomData(32 * 256, 6, -2.f, 5.f);
  auto y =
      dequantizeVec(GGMLType::Q4_1, quantizeVec(GGMLType::Q4_1, x), x.size());
  for (size_t b = 0; b < x.size() / 32; ++b) {
    float mn = x[b * 32], mx = x[b * 32];
    for (int j = 0; j < 32; ++j) {
      mn = std::min(mn, x[b * 32 + j]);
      mx = std::max(mx, x[b * 32 + j]);
    }
    // step d = (max-min)/15: error <= d/2 + 15 * f16 error of d + f16 error of
    // min.
    const float d = (mx - mn) / 15;
    const float tol = (d * (0.5f + 15 * std::ldexp(1.0f, -11)) +
                       std::fabs(mn) * std::ldexp(1.0f, -11)) *
                      1.001f;
    for (int j = 0; j < 32; ++j)
      ASSERT_LE(std::fabs(x[b * 32 + j] - y[b * 32 + j]), tol) << b << " " << j;
  }
}

TEST(QuantRoundTrip, Q4_KErrorBounds) {
  // Uniform [-1, 1]: sub-block range 2 over 15 levels gives step ~0.133; the
  // 6-bit scale/min quantization adds a little. Bounds: max |err| <= 0.125
  // (just under one step), rms <= 0.045 (uniform rounding error is
  // step/sqrt(12) ~ 0.038).
  auto x = randomData(256 * 64, 8);
  auto y =
      dequantizeVec(GGMLType::Q4_K, quantizeVec(GGMLType::Q4_K, x), x.size());
  ErrStats s = errors(x, y);
  EXPECT_LE(s.maxAbs, 0.125);
  EXPECT_LE(s.rms, 0.045);
}

TEST(QuantRoundTrip, Q6_KErrorBounds) {
  // 6-bit symmetric: step ~ 1/32 for data in [-1, 1]. Bounds: max |err| <=
  // 0.03, rms <= 0.01.
  auto x = randomData(256 * 64, 9);
  auto y =
      dequantizeVec(GGMLType::Q6_K, quantizeVec(GGMLType::Q6_K, x), x.size());
  ErrStats s = errors(x, y);
  EXPECT_LE(s.maxAbs, 0.03);
  EXPECT_LE(s.rms, 0.01);
}

TEST(QuantRoundTrip, ScaleInvariantRelativeError) {
  // The K-quants must behave the same at very different magnitudes. (Below
  // ~0.1 the f16 super-block scale of Q6_K, ~amax/4096, becomes an f16
  // subnormal and loses relative precision - a property of the format.)
  for (float scale : {0.1f, 1.0f, 1e3f}) {
    auto x = randomData(256 * 8, 10, -scale, scale);
    for (GGMLType t : {GGMLType::Q4_K, GGMLType::Q6_K}) {
      auto y = dequantizeVec(t, quantizeVec(t, x), x.size());
      const double rel = errors(x, y).rms / scale;
      EXPECT_LE(rel, t == GGMLType::Q4_K ? 0.045 : 0.01)
          << typeName(t) << " " << scale;
    }
  }
}

TEST(QuantRoundTrip, ZerosStayZero) {
  std::vector<float> x(512, 0.0f);
  for (GGMLType t :
       {GGMLType::F32, GGMLType::F16, GGMLType::BF16, GGMLType::Q4_0,
        GGMLType::Q4_1, GGMLType::Q8_0, GGMLType::Q4_K, GGMLType::Q6_K}) {
    auto q = quantizeVec(t, x);
    auto y = dequantizeVec(t, q, x.size());
    for (float v : y)
      ASSERT_EQ(v, 0.0f) << typeName(t);
  }
  // Q6_K all-zero super-block is all zero bytes.
  auto q = quantizeVec(GGMLType::Q6_K, std::vector<float>(256, 0.0f));
  for (uint8_t b : q)
    ASSERT_EQ(b, 0);
}

TEST(QuantRoundTrip, ConstantBlocks) {
  // A constant positive block: Q4_1/Q4_K represent it (nearly) exactly via
  // the min.
  std::vector<float> x(256, 0.75f);
  for (GGMLType t : {GGMLType::Q4_0, GGMLType::Q4_1, GGMLType::Q8_0,
                     GGMLType::Q4_K, GGMLType::Q6_K}) {
    auto y = dequantizeVec(t, quantizeVec(t, x), x.size());
    for (float v : y)
      ASSERT_NEAR(v, 0.75f, 0.75f * 2e-3f) << typeName(t);
  }
}

//===----------------------------------------------------------------------===//
// Hand-computed blocks (exact bytes)
//===----------------------------------------------------------------------===//

TEST(QuantKnownBlocks, Q8_0) {
  // amax = 127 gives d = 1 exactly (f16 0x3c00) and id = 1, so q = roundf(x);
  // roundf rounds ties away from zero, as ggml's reference does.
  std::vector<float> x(32, 0.0f);
  const float vals[] = {-127.f, 126.4f, 0.5f,   -0.5f,  2.5f,
                        -2.5f,  1.49f,  -1.51f, 100.6f, 3.0f};
  std::copy(std::begin(vals), std::end(vals), x.begin());
  auto q = quantizeVec(GGMLType::Q8_0, x);
  ASSERT_EQ(q.size(), 34u);
  const uint8_t expectedHead[] = {
      0x00,        0x3c, 0x81 /*-127*/, 126, 1, 0xff /*-1*/, 3,
      0xfd /*-3*/, 1,    0xfe /*-2*/,   101, 3};
  for (size_t i = 0; i < sizeof expectedHead; ++i)
    EXPECT_EQ(q[i], expectedHead[i]) << "byte " << i;
  for (size_t i = sizeof expectedHead; i < 34; ++i)
    EXPECT_EQ(q[i], 0) << "byte " << i;
  auto y = dequantizeVec(GGMLType::Q8_0, q, 32);
  EXPECT_EQ(y[0], -127.f);
  EXPECT_EQ(y[2], 1.f);
  EXPECT_EQ(y[10], 0.f);
}

TEST(QuantKnownBlocks, Q8_0HalfScale) {
  // amax = 63.5 gives d = 0.5 (f16 0x3800), id = 2: q = roundf(2x).
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j)
    x[j] = (j - 16) * 0.25f; // -4 .. 3.75
  x[31] = 63.5f;
  auto q = quantizeVec(GGMLType::Q8_0, x);
  EXPECT_EQ(rd16(q.data()), 0x3800);
  for (int j = 0; j < 31; ++j) {
    // 2 * (j-16)/4 = (j-16)/2, ties away from zero.
    const float v = (j - 16) * 0.5f;
    const int expected =
        static_cast<int>(v < 0 ? -std::floor(-v + 0.5f) : std::floor(v + 0.5f));
    EXPECT_EQ(static_cast<int8_t>(q[2 + j]), expected) << j;
  }
  EXPECT_EQ(static_cast<int8_t>(q[33]), 127);
}

TEST(QuantKnownBlocks, Q4_0NegativeExtreme) {
  // Largest magnitude -8 (first occurrence) gives d = -8/-8 = 1, id = 1 and
  // q = min(15, trunc(x + 8.5)).
  std::vector<float> x(32, 0.0f);
  x[0] = -8.0f;  // q 0
  x[1] = 8.0f;   // same magnitude but later: 16.5 -> 16 -> clamped 15
  x[2] = 7.0f;   // 15
  x[3] = 0.4f;   // 8.9 -> 8
  x[4] = -0.6f;  // 7.9 -> 7
  x[5] = 0.5f;   // 9.0 -> 9
  x[16] = -3.2f; // 5.3 -> 5
  x[17] = 2.6f;  // 11.1 -> 11
  auto q = quantizeVec(GGMLType::Q4_0, x);
  ASSERT_EQ(q.size(), 18u);
  EXPECT_EQ(q[0], 0x00); // d = 1.0 -> 0x3c00
  EXPECT_EQ(q[1], 0x3c);
  // qs[j] = q[j] | q[j+16] << 4; zeros map to 8.
  const uint8_t qs[16] = {0x50, 0xbf, 0x8f, 0x88, 0x87, 0x89, 0x88, 0x88,
                          0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88};
  for (int j = 0; j < 16; ++j)
    EXPECT_EQ(q[2 + j], qs[j]) << "qs " << j;
  auto y = dequantizeVec(GGMLType::Q4_0, q, 32);
  EXPECT_EQ(y[0], -8.f);
  EXPECT_EQ(y[1], 7.f);
  EXPECT_EQ(y[16], -3.f);
  EXPECT_EQ(y[17], 3.f);
}

TEST(QuantKnownBlocks, Q4_0PositiveExtreme) {
  // Largest magnitude +4 gives d = 4/-8 = -0.5 (f16 0xb800), id = -2.
  std::vector<float> x(32, 0.0f);
  x[0] = 4.0f;  // -8 + 8.5 = 0.5 -> 0
  x[1] = -4.0f; // 8 + 8.5 = 16.5 -> 16 -> 15
  x[2] = 1.0f;  // -2 + 8.5 = 6.5 -> 6
  x[3] = -1.2f; // 2.4 + 8.5 = 10.9 -> 10
  auto q = quantizeVec(GGMLType::Q4_0, x);
  EXPECT_EQ(rd16(q.data()), 0xb800);
  EXPECT_EQ(q[2], 0x80);
  EXPECT_EQ(q[3], 0x8f);
  EXPECT_EQ(q[4], 0x86);
  EXPECT_EQ(q[5], 0x8a);
  auto y = dequantizeVec(GGMLType::Q4_0, q, 32);
  EXPECT_EQ(y[0], 4.f);   // (0-8) * -0.5
  EXPECT_EQ(y[1], -3.5f); // (15-8) * -0.5: clipped
  EXPECT_EQ(y[2], 1.f);
  EXPECT_EQ(y[3], -1.f);
}

TEST(QuantKnownBlocks, Q4_1) {
  // min = -1, max = 14 -> d = 1 (0x3c00), m = -1 (0xbc00); q = trunc(x+1+0.5).
  std::vector<float> x(32, 0.0f);
  x[0] = -1.0f;  // 0
  x[1] = 14.0f;  // 15
  x[2] = 0.2f;   // 1.7 -> 1
  x[3] = 0.5f;   // 2.0 -> 2
  x[16] = 5.49f; // 6.99 -> 6
  auto q = quantizeVec(GGMLType::Q4_1, x);
  ASSERT_EQ(q.size(), 20u);
  EXPECT_EQ(rd16(q.data()), 0x3c00);
  EXPECT_EQ(rd16(q.data() + 2), 0xbc00);
  EXPECT_EQ(q[4], 0x60);
  EXPECT_EQ(q[5], 0x1f);
  EXPECT_EQ(q[6], 0x11);
  EXPECT_EQ(q[7], 0x12);
  EXPECT_EQ(q[8], 0x11); // zeros -> 1
}

// Build a Q4_K block by the documented packing and check dequantize against
// the documented formula x = d*sc*q - dmin*m.
TEST(QuantKnownBlocks, Q4_KDequantize) {
  const uint8_t sc[8] = {1, 17, 33, 63, 5, 20, 40, 62};
  const uint8_t mn[8] = {0, 9, 18, 63, 7, 31, 32, 48};
  uint8_t block[144] = {};
  block[0] = 0x00;
  block[1] = 0x38; // d = 0.5
  block[2] = 0x00;
  block[3] = 0x34; // dmin = 0.25
  uint8_t *s = block + 4;
  for (int j = 0; j < 4; ++j) {
    s[j] = static_cast<uint8_t>((sc[j] & 63) | ((sc[j + 4] >> 4) << 6));
    s[j + 4] = static_cast<uint8_t>((mn[j] & 63) | ((mn[j + 4] >> 4) << 6));
    s[j + 8] = static_cast<uint8_t>((sc[j + 4] & 15) | ((mn[j + 4] & 15) << 4));
  }
  std::mt19937 gen(11);
  for (int i = 0; i < 128; ++i)
    block[16 + i] = static_cast<uint8_t>(gen());
  float y[256];
  dequantize(GGMLType::Q4_K, block, y, 256);
  for (int e = 0; e < 256; ++e) {
    const int chunk = e / 64, l = e % 32, hi = (e % 64) >= 32;
    const int sub = 2 * chunk + hi;
    const uint8_t byte = block[16 + 32 * chunk + l];
    const int q = hi ? byte >> 4 : byte & 15;
    const float expected = 0.5f * sc[sub] * q - 0.25f * mn[sub];
    ASSERT_EQ(y[e], expected) << "element " << e;
  }
}

TEST(QuantKnownBlocks, Q6_KDequantize) {
  uint8_t block[210];
  std::mt19937 gen(12);
  for (uint8_t &b : block)
    b = static_cast<uint8_t>(gen());
  block[208] = 0x00;
  block[209] = 0x30; // d = 0.125
  block[192] = 0x80; // scale -128
  block[193] = 0x7f; // scale 127
  float y[256];
  dequantize(GGMLType::Q6_K, block, y, 256);
  for (int e = 0; e < 256; ++e) {
    const int h = e / 128, r = e % 128, k = r / 32, l = r % 32;
    const uint8_t qlByte = block[64 * h + l + 32 * (k & 1)];
    const int lowBits = k < 2 ? (qlByte & 15) : (qlByte >> 4);
    const int highBits = (block[128 + 32 * h + l] >> (2 * k)) & 3;
    const int q = (lowBits | (highBits << 4)) - 32;
    const int scale = static_cast<int8_t>(block[192 + e / 16]);
    const float expected = 0.125f * scale * q;
    ASSERT_EQ(y[e], expected) << "element " << e;
  }
}

TEST(QuantKnownBlocks, Q4_KQuantizePacksScales) {
  // Sub-block j holds values in [0, 15*(j+1)/8] so the scales grow with j;
  // check the packed 6-bit scales decode and reproduce the data closely.
  std::vector<float> x(256);
  for (int j = 0; j < 8; ++j)
    for (int l = 0; l < 32; ++l)
      x[32 * j + l] = static_cast<float>(l % 16) * (j + 1) / 8.0f;
  auto q = quantizeVec(GGMLType::Q4_K, x);
  auto y = dequantizeVec(GGMLType::Q4_K, q, 256);
  for (int i = 0; i < 256; ++i)
    ASSERT_NEAR(y[i], x[i], 0.02f * 15) << i;
  // The largest sub-block scale maps to 63.
  const uint8_t *s = q.data() + 4;
  const int sc7 = (s[11] & 15) | ((s[3] >> 6) << 4);
  EXPECT_EQ(sc7, 63);
}

//===----------------------------------------------------------------------===//
// Requantization stability
//===----------------------------------------------------------------------===//

TEST(QuantIdempotence, Q8_0AndQ4_0RequantizeToSameBytes) {
  for (GGMLType t : {GGMLType::Q8_0, GGMLType::Q4_0}) {
    for (uint32_t seed = 0; seed < 4; ++seed) {
      auto x = randomData(32 * 512, 100 + seed, -10.f, 10.f);
      auto q1 = quantizeVec(t, x);
      auto y = dequantizeVec(t, q1, x.size());
      auto q2 = quantizeVec(t, y);
      ASSERT_EQ(q1, q2) << typeName(t) << " seed " << seed;
    }
  }
}

TEST(QuantIdempotence, OtherTypesAreStable) {
  // Requantizing dequantized values reproduces them (nearly) exactly.
  struct Case {
    GGMLType t;
    double tol;
  } cases[] = {{GGMLType::F16, 0.0},
               {GGMLType::BF16, 0.0},
               {GGMLType::Q4_1, 1e-4},
               {GGMLType::Q4_K, 1e-3},
               {GGMLType::Q6_K, 1e-3}};
  for (const Case &c : cases) {
    auto x = randomData(256 * 32, 200);
    auto y1 = dequantizeVec(c.t, quantizeVec(c.t, x), x.size());
    auto y2 = dequantizeVec(c.t, quantizeVec(c.t, y1), x.size());
    EXPECT_LE(errors(y1, y2).rms, c.tol) << typeName(c.t);
  }
}

TEST(QuantRobustness, NonFiniteInputsDoNotCrash) {
  // Quantizing inf/NaN has no meaningful result, but must be well defined.
  std::vector<float> x = randomData(256, 300);
  x[3] = std::numeric_limits<float>::infinity();
  x[40] = std::numeric_limits<float>::quiet_NaN();
  x[77] = -std::numeric_limits<float>::infinity();
  size_t count = 0;
  const GGMLType *types = allTypes(count);
  for (size_t i = 0; i < count; ++i) {
    const GGMLType t = types[i];
    auto q = quantizeVec(t, x);
    auto y = dequantizeVec(t, q, x.size());
    EXPECT_EQ(y.size(), x.size());
  }
}

//===----------------------------------------------------------------------===//
// Golden vectors from llama.cpp (scripts/gen-quant-vectors.py): dequantization
// as gguf-py and ggml compute it, quantization as llama-quantize writes it.
//===----------------------------------------------------------------------===//

namespace {
struct GoldenRecord {
  char kind; // 'D' or 'Q'
  uint32_t type;
  uint32_t n;
  std::vector<uint8_t> blocks;
  std::vector<float> values;
};

std::vector<GoldenRecord> readGolden() {
  std::vector<GoldenRecord> out;
  FILE *f = std::fopen(KILN_SOURCE_DIR "/test/unit/Inputs/quant-vectors.bin", "rb");
  if (!f)
    return out;
  std::vector<uint8_t> all;
  uint8_t buf[65536];
  for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;)
    all.insert(all.end(), buf, buf + got);
  std::fclose(f);
  size_t at = 0;
  auto u32 = [&](size_t p) {
    uint32_t v;
    std::memcpy(&v, all.data() + p, 4);
    return v;
  };
  while (at + 9 <= all.size()) {
    GoldenRecord r;
    r.kind = static_cast<char>(all[at]);
    r.type = u32(at + 1);
    r.n = u32(at + 5);
    at += 9;
    const TypeTraits *tt = typeTraits(r.type);
    if (!tt)
      return {}; // a type this build does not know: the test fails below
    const size_t bytes = rowBytes(static_cast<GGMLType>(r.type), r.n);
    const size_t floats = static_cast<size_t>(r.n) * 4;
    if (at + bytes + floats > all.size())
      return {};
    const uint8_t *first = all.data() + at;
    const uint8_t *blocks = r.kind == 'D' ? first : first + floats;
    const uint8_t *values = r.kind == 'D' ? first + bytes : first;
    r.blocks.assign(blocks, blocks + bytes);
    r.values.resize(r.n);
    std::memcpy(r.values.data(), values, floats);
    at += bytes + floats;
    out.push_back(std::move(r));
  }
  return out;
}
} // namespace

TEST(QuantGolden, EveryTypeMatchesLlamaCpp) {
  const std::vector<GoldenRecord> records = readGolden();
  ASSERT_FALSE(records.empty()) << "test/unit/Inputs/quant-vectors.bin unreadable";
  size_t count = 0;
  const GGMLType *types = allTypes(count);
  for (size_t i = 0; i < count; ++i) {
    int seen[2] = {0, 0};
    for (const GoldenRecord &r : records)
      if (r.type == static_cast<uint32_t>(types[i]))
        ++seen[r.kind == 'Q'];
    EXPECT_GT(seen[0], 0) << "no dequantization vectors for " << typeName(types[i]);
    EXPECT_GT(seen[1], 0) << "no quantization vectors for " << typeName(types[i]);
  }
  for (size_t ri = 0; ri < records.size(); ++ri) {
    const GoldenRecord &r = records[ri];
    const auto t = static_cast<GGMLType>(r.type);
    if (r.kind == 'D') {
      const std::vector<float> y = dequantizeVec(t, r.blocks, r.n);
      size_t bad = 0, first = 0;
      for (size_t j = 0; j < r.n; ++j)
        if (floatToBits(y[j]) != floatToBits(r.values[j]) && bad++ == 0)
          first = j;
      EXPECT_EQ(bad, 0u) << typeName(t) << " dequantization, record " << ri
                         << ": first difference at element " << first << ": "
                         << y[first] << " vs llama.cpp's " << r.values[first];
    } else {
      const std::vector<uint8_t> q = quantizeVec(t, r.values);
      size_t bad = 0, first = 0;
      for (size_t j = 0; j < q.size(); ++j)
        if (q[j] != r.blocks[j] && bad++ == 0)
          first = j;
      EXPECT_EQ(bad, 0u) << typeName(t) << " quantization, record " << ri
                         << ": " << bad << " bytes differ, first at byte "
                         << first << " (block " << first / typeTraits(r.type)->blockBytes
                         << ")";
    }
  }
}

// firstNonFinite against dequantize as the oracle: an infinity or NaN
// written at every byte offset of the second block of each type is reported
// exactly when it makes a dequantized value of that block non-finite, and
// then at the block's first element. So every float field of every layout
// is checked, and no quant byte is taken for one.
TEST(QuantNonFinite, ReportedExactlyWhenDequantizationIsNotFinite) {
  size_t count = 0;
  const GGMLType *types = allTypes(count);
  for (size_t ti = 0; ti < count; ++ti) {
    const GGMLType t = types[ti];
    const TypeTraits *tt = typeTraits(t);
    const size_t n = 2 * static_cast<size_t>(tt->blockSize);
    const std::vector<uint8_t> clean = quantizeVec(t, randomData(n, 7));
    EXPECT_FALSE(firstNonFinite(t, clean.data(), n)) << typeName(t);
    size_t reported = 0;
    for (int64_t at = 0; at + 2 <= tt->blockBytes; ++at)
      for (uint16_t bits : {uint16_t(0x7c00), uint16_t(0xfe00), uint16_t(0x7f80)}) {
        std::vector<uint8_t> q = clean;
        uint8_t *p = q.data() + tt->blockBytes + at;
        p[0] = static_cast<uint8_t>(bits);
        p[1] = static_cast<uint8_t>(bits >> 8);
        if (t == GGMLType::F32) { // a whole f32 NaN or infinity at `at`
          if (at % 4 != 0)
            continue;
          const uint32_t f = bits == 0x7c00 ? 0x7f800000u : 0xffc00000u;
          std::memcpy(p, &f, 4);
        }
        const std::vector<float> y = dequantizeVec(t, q, n);
        const bool nonFinite = std::any_of(y.begin(), y.end(), [](float v) {
          return !std::isfinite(v);
        });
        const auto got = firstNonFinite(t, q.data(), n);
        ASSERT_EQ(got.has_value(), nonFinite)
            << typeName(t) << " with " << std::hex << bits << " at byte "
            << std::dec << at << " of block 1";
        if (got) {
          ++reported;
          EXPECT_EQ(got->element, static_cast<uint64_t>(tt->blockSize))
              << typeName(t) << " byte " << at;
          EXPECT_FALSE(std::isfinite(got->value)) << typeName(t);
        }
      }
    EXPECT_GT(reported, 0u) << typeName(t);
  }
}

// Long F16, BF16 and F32 tensors (tested in chunks): the first non-finite
// value is found at its index, in a whole chunk or the tail, and a later one
// does not hide it.
TEST(QuantNonFinite, FindsTheFirstInLongTensors) {
  for (GGMLType t : {GGMLType::F16, GGMLType::BF16, GGMLType::F32}) {
    const size_t n = 1000;
    const std::vector<uint8_t> clean = quantizeVec(t, randomData(n, 3));
    EXPECT_FALSE(firstNonFinite(t, clean.data(), n)) << typeName(t);
    for (size_t at : {size_t(0), size_t(127), size_t(128), size_t(500), size_t(895),
                      size_t(896), size_t(999)}) {
      std::vector<uint8_t> q = clean;
      auto poison = [&](size_t i, bool nan) {
        if (t == GGMLType::F32) {
          const uint32_t f = nan ? 0x7fc00000u : 0xff800000u;
          std::memcpy(q.data() + 4 * i, &f, 4);
        } else {
          const uint16_t h = t == GGMLType::F16 ? (nan ? 0x7e00 : 0xfc00)
                                                : (nan ? 0x7fc0 : 0xff80);
          std::memcpy(q.data() + 2 * i, &h, 2);
        }
      };
      poison(at, at % 2 == 1);
      if (at + 1 < n)
        poison(n - 1, true);
      const auto got = firstNonFinite(t, q.data(), n);
      ASSERT_TRUE(got) << typeName(t) << " at " << at;
      EXPECT_EQ(got->element, at) << typeName(t);
      EXPECT_EQ(std::isnan(got->value), at % 2 == 1) << typeName(t) << " at " << at;
    }
  }
}
