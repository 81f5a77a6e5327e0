// float16/bfloat16 conversions: exhaustive half round trips, float -> half
// against the F16C hardware conversion, bfloat16 round-to-nearest-even against
// an integer reference.
#include <gtest/gtest.h>
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "oar/core/float16.h"

namespace oar {
namespace {

using detail::BitsFloat;
using detail::FloatBits;

bool IsHalfNaN(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }
bool IsBFloatNaN(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }

#ifdef __F16C__
uint16_t HardwareHalf(float f) { return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT); }
float HardwareFloat(uint16_t h) { return _cvtsh_ss(h); }

// Compares one float -> half conversion with the hardware; NaNs need only stay NaN.
::testing::AssertionResult MatchesHardware(float f) {
  const uint16_t ours = float16(f).x, hw = HardwareHalf(f);
  if (ours == hw || (IsHalfNaN(ours) && IsHalfNaN(hw))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "float bits 0x" << std::hex << FloatBits(f) << " (" << f
                                       << "): oar 0x" << ours << ", F16C 0x" << hw;
}
#endif

TEST(Float16, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float f = float16::FromBits(h);
    const uint16_t back = float16(f).x;
    if (IsHalfNaN(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
      ASSERT_TRUE(IsHalfNaN(back)) << std::hex << b;
      ASSERT_EQ(back & 0x8000u, h & 0x8000u) << "NaN sign, bits " << std::hex << b;
    } else {
      ASSERT_EQ(back, h) << "bits 0x" << std::hex << b << " -> " << f;
    }
  }
}

TEST(Float16, KnownValues) {
  EXPECT_EQ(float16(1.0f).x, 0x3c00);
  EXPECT_EQ(float16(-2.0f).x, 0xc000);
  EXPECT_EQ(float16(65504.0f).x, 0x7bff);
  EXPECT_EQ(float16(65520.0f).x, 0x7c00);               // the tie above the max rounds to inf
  EXPECT_EQ(float16(65519.99f).x, 0x7bff);              // just below the tie
  EXPECT_EQ(float16(std::ldexp(1.0f, -24)).x, 0x0001);  // smallest subnormal
  EXPECT_EQ(float16(std::ldexp(1.0f, -25)).x, 0x0000);  // tie to even: zero
  EXPECT_EQ(float16(std::ldexp(3.0f, -25)).x, 0x0002);  // 1.5 ulp: tie to even: 2
  EXPECT_EQ(float16(-0.0f).x, 0x8000);
  EXPECT_EQ(float16(std::numeric_limits<float>::infinity()).x, 0x7c00);
  EXPECT_TRUE(IsHalfNaN(float16(std::nanf("")).x));
  EXPECT_EQ(static_cast<float>(float16::FromBits(0x0001)), std::ldexp(1.0f, -24));
  EXPECT_EQ(static_cast<float>(float16::FromBits(0x03ff)), std::ldexp(1023.0f, -24));
}

#ifdef __F16C__
TEST(Float16, HalfToFloatMatchesF16C) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float ours = float16::FromBits(h), hw = HardwareFloat(h);
    if (IsHalfNaN(h)) {
      ASSERT_TRUE(std::isnan(ours)) << std::hex << b;
    } else {
      ASSERT_EQ(FloatBits(ours), FloatBits(hw)) << std::hex << b;
    }
  }
}

TEST(Float16, FloatToHalfMatchesF16COnASweepOfAllFloats) {
  int failures = 0;
  for (uint64_t u = 0; u <= 0xffffffffull && failures < 10; u += 97) {
    const auto r = MatchesHardware(BitsFloat(static_cast<uint32_t>(u)));
    if (!r) {
      ADD_FAILURE() << r.message();
      ++failures;
    }
  }
}

// Every midpoint between adjacent halves (the ties), and the floats right next
// to them, both signs: the cases where rounding to nearest even decides.
TEST(Float16, FloatToHalfMatchesF16CAtEveryTie) {
  int failures = 0;
  for (uint32_t h = 0; h < 0x7c00u && failures < 10; ++h) {
    const double lo = float16::FromBits(static_cast<uint16_t>(h));
    const double hi = h + 1 == 0x7c00u ? 65536.0 : float16::FromBits(static_cast<uint16_t>(h + 1));
    const float mid = static_cast<float>((lo + hi) / 2);  // exact in float
    const float cases[] = {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f),
                           static_cast<float>(lo)};
    for (float f : cases) {
      for (float s : {f, -f}) {
        const auto r = MatchesHardware(s);
        if (!r) {
          ADD_FAILURE() << r.message();
          ++failures;
        }
      }
    }
  }
}

TEST(Float16, FloatToHalfMatchesF16CAtEdges) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> edges = {0.0f,
                                    -0.0f,
                                    65504.0f,
                                    65505.0f,
                                    65519.0f,
                                    65520.0f,
                                    65521.0f,
                                    65536.0f,
                                    1e10f,
                                    std::numeric_limits<float>::max(),
                                    inf,
                                    -inf,
                                    std::numeric_limits<float>::quiet_NaN(),
                                    std::ldexp(1.0f, -24),
                                    std::ldexp(1.0f, -25),
                                    std::nextafter(std::ldexp(1.0f, -25), 1.0f),
                                    std::nextafter(std::ldexp(1.0f, -25), 0.0f),
                                    std::ldexp(1.0f, -26),
                                    std::ldexp(1.0f, -14),
                                    std::nextafter(std::ldexp(1.0f, -14), 0.0f),
                                    std::ldexp(1023.5f, -24),
                                    std::numeric_limits<float>::denorm_min(),
                                    std::numeric_limits<float>::min(),
                                    BitsFloat(0x7f800001u),  // signalling NaN
                                    BitsFloat(0x477ff000u),
                                    BitsFloat(0x477fefffu),
                                    BitsFloat(0x38800000u),
                                    BitsFloat(0x387fffffu)};
  for (float f : edges) {
    EXPECT_TRUE(MatchesHardware(f));
    EXPECT_TRUE(MatchesHardware(-f));
  }
}
#endif  // __F16C__

// bfloat16 reference: keep the high half, round to nearest even on the low half.
uint16_t ReferenceBFloat(uint32_t x) {
  uint32_t hi = x >> 16;
  const uint32_t lo = x & 0xffffu;
  if (lo > 0x8000u || (lo == 0x8000u && (hi & 1u))) ++hi;
  return static_cast<uint16_t>(hi);
}

::testing::AssertionResult BFloatMatchesReference(uint32_t x) {
  const float f = BitsFloat(x);
  const uint16_t ours = bfloat16(f).x;
  if (std::isnan(f)) {
    if (IsBFloatNaN(ours) && (ours & 0x8000u) == ((x >> 16) & 0x8000u))
      return ::testing::AssertionSuccess();
  } else if (ours == ReferenceBFloat(x)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "float bits 0x" << std::hex << x << ": oar 0x" << ours
                                       << ", reference 0x" << ReferenceBFloat(x);
}

TEST(BFloat16, EveryBFloatRoundTripsThroughFloat) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t v = static_cast<uint16_t>(b);
    const float f = bfloat16::FromBits(v);
    EXPECT_EQ(FloatBits(f), b << 16);
    const uint16_t back = bfloat16(f).x;
    if (IsBFloatNaN(v)) {
      ASSERT_TRUE(IsBFloatNaN(back)) << std::hex << b;
    } else {
      ASSERT_EQ(back, v) << std::hex << b;
    }
  }
}

TEST(BFloat16, RoundsToNearestEvenOnASweepOfAllFloats) {
  int failures = 0;
  for (uint64_t u = 0; u <= 0xffffffffull && failures < 10; u += 97) {
    const auto r = BFloatMatchesReference(static_cast<uint32_t>(u));
    if (!r) {
      ADD_FAILURE() << r.message();
      ++failures;
    }
  }
}

TEST(BFloat16, RoundsToNearestEvenAtEveryTie) {
  int failures = 0;
  for (uint32_t hi = 0; hi < 65536 && failures < 10; ++hi) {
    for (uint32_t lo : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      const auto r = BFloatMatchesReference(hi << 16 | lo);
      if (!r) {
        ADD_FAILURE() << r.message();
        ++failures;
      }
    }
  }
  EXPECT_EQ(bfloat16(std::numeric_limits<float>::max()).x, 0x7f80);  // rounds up to inf
  EXPECT_EQ(bfloat16(1.0f).x, 0x3f80);
}

}  // namespace
}  // namespace oar
