// IEEE half (float16) and bfloat16 storage types. Arithmetic happens in float:
// kernels load, compute in float and store with round-to-nearest-even.
#pragma once

#include <cstdint>
#include <cstring>
#include <ostream>

namespace oar {

namespace detail {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// float -> binary16, round to nearest even, with subnormals, infinities and NaN.
inline uint16_t FloatToHalfBits(float f) {
  const uint32_t x = FloatBits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) {  // rounds to >= 65520: overflow to inf
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    // Adding 0.5 shifts the value so the FPU performs the rounding for us.
    const float magic = BitsFloat(0x3f000000u);  // 0.5f
    const float r = BitsFloat(abs) + magic;
    return static_cast<uint16_t>(sign | (FloatBits(r) - 0x3f000000u));
  }
  const uint32_t mant_odd = (abs >> 13) & 1u;
  uint32_t v = abs + 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
  return static_cast<uint16_t>(sign | (v >> 13));
}

inline float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    if (mant == 0) return BitsFloat(sign);
    // subnormal: value = mant * 2^-24
    const float v = static_cast<float>(mant) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  if (exp == 31) return BitsFloat(sign | 0x7f800000u | (mant << 13));
  return BitsFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}

inline uint16_t FloatToBFloatBits(float f) {
  const uint32_t x = FloatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}
inline float BFloatBitsToFloat(uint16_t b) { return BitsFloat(static_cast<uint32_t>(b) << 16); }

}  // namespace detail

struct float16 {
  uint16_t x = 0;
  float16() = default;
  explicit float16(float f) : x(detail::FloatToHalfBits(f)) {}
  explicit float16(double d) : float16(static_cast<float>(d)) {}
  explicit float16(int v) : float16(static_cast<float>(v)) {}
  explicit float16(int64_t v) : float16(static_cast<float>(v)) {}
  explicit float16(bool v) : float16(v ? 1.0f : 0.0f) {}
  static float16 FromBits(uint16_t bits) {
    float16 h;
    h.x = bits;
    return h;
  }
  operator float() const { return detail::HalfBitsToFloat(x); }
};

struct bfloat16 {
  uint16_t x = 0;
  bfloat16() = default;
  explicit bfloat16(float f) : x(detail::FloatToBFloatBits(f)) {}
  explicit bfloat16(double d) : bfloat16(static_cast<float>(d)) {}
  explicit bfloat16(int v) : bfloat16(static_cast<float>(v)) {}
  explicit bfloat16(int64_t v) : bfloat16(static_cast<float>(v)) {}
  explicit bfloat16(bool v) : bfloat16(v ? 1.0f : 0.0f) {}
  static bfloat16 FromBits(uint16_t bits) {
    bfloat16 b;
    b.x = bits;
    return b;
  }
  operator float() const { return detail::BFloatBitsToFloat(x); }
};

inline std::ostream& operator<<(std::ostream& os, float16 h) { return os << static_cast<float>(h); }
inline std::ostream& operator<<(std::ostream& os, bfloat16 b) {
  return os << static_cast<float>(b);
}

// The type arithmetic on T is carried out in.
template <typename T>
struct ComputeType {
  using type = T;
};
template <>
struct ComputeType<float16> {
  using type = float;
};
template <>
struct ComputeType<bfloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename ComputeType<T>::type;

}  // namespace oar
