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

// The conversions (and the float16/bfloat16 constructors and operator float
// below) are always inlined: in a file with many instantiations (funcs/copy.cc
// has one per dtype pair) GCC ran out of inlining budget and made a call per
// element, which no loop vectorises (a float32 -> float16 cast of 1M elements
// took 1.9 ms instead of 0.1).

// float -> binary16, round to nearest even, with subnormals, infinities and NaN.
// Every case is computed and one is selected, without branches, so that the
// kernels' conversion loops vectorise (a branchy version kept float16 kernels
// at 7-90x float32's time; benchmarks/amp.py, docs/amp_kernels.md). Bitwise
// the same as F16C's vcvtps2ph for every float (tests/cpp/test_core_float16.cc).
[[gnu::always_inline]] inline uint16_t FloatToHalfBits(float f) {
  const uint32_t x = FloatBits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  // inf or nan (quieted)
  const uint32_t nan_inf = 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u);
  // Below the smallest normal half: adding 0.5 shifts the value so that the
  // FPU's own rounding leaves the subnormal half in the low bits.
  const uint32_t sub = FloatBits(BitsFloat(abs) + BitsFloat(0x3f000000u)) - 0x3f000000u;
  // Normal: rebias the exponent (-112 << 23) and round to nearest even.
  const uint32_t norm = (abs + 0xc8000fffu + ((abs >> 13) & 1u)) >> 13;
  const uint32_t h = abs >= 0x7f800000u   ? nan_inf
                     : abs >= 0x477ff000u ? 0x7c00u  // rounds to >= 65520: inf
                     : abs < 0x38800000u  ? sub
                                          : norm;
  return static_cast<uint16_t>(sign | h);
}

// binary16 -> float (exact), branch-free for the same reason.
[[gnu::always_inline]] inline float HalfBitsToFloat(uint16_t h) {
  uint32_t o = static_cast<uint32_t>(h & 0x7fffu) << 13;  // exponent and mantissa
  const uint32_t exp = o & 0x0f800000u;
  o += 0x38000000u;                            // rebias: (127 - 15) << 23
  o += exp == 0x0f800000u ? 0x38000000u : 0u;  // inf/nan: all exponent bits
  // Subnormal: 2^-14 * (1 + mant / 1024) - 2^-14, exact in float.
  const uint32_t sub = FloatBits(BitsFloat(o + 0x00800000u) - BitsFloat(0x38800000u));
  return BitsFloat((exp == 0 ? sub : o) | (static_cast<uint32_t>(h & 0x8000u) << 16));
}

[[gnu::always_inline]] inline uint16_t FloatToBFloatBits(float f) {
  const uint32_t x = FloatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}
[[gnu::always_inline]] inline float BFloatBitsToFloat(uint16_t b) {
  return BitsFloat(static_cast<uint32_t>(b) << 16);
}

}  // namespace detail

struct float16 {
  uint16_t x = 0;
  float16() = default;
  [[gnu::always_inline]] explicit float16(float f) : x(detail::FloatToHalfBits(f)) {}
  explicit float16(double d) : float16(static_cast<float>(d)) {}
  explicit float16(int v) : float16(static_cast<float>(v)) {}
  explicit float16(int64_t v) : float16(static_cast<float>(v)) {}
  explicit float16(bool v) : float16(v ? 1.0f : 0.0f) {}
  static float16 FromBits(uint16_t bits) {
    float16 h;
    h.x = bits;
    return h;
  }
  [[gnu::always_inline]] operator float() const { return detail::HalfBitsToFloat(x); }
};

struct bfloat16 {
  uint16_t x = 0;
  bfloat16() = default;
  [[gnu::always_inline]] explicit bfloat16(float f) : x(detail::FloatToBFloatBits(f)) {}
  explicit bfloat16(double d) : bfloat16(static_cast<float>(d)) {}
  explicit bfloat16(int v) : bfloat16(static_cast<float>(v)) {}
  explicit bfloat16(int64_t v) : bfloat16(static_cast<float>(v)) {}
  explicit bfloat16(bool v) : bfloat16(v ? 1.0f : 0.0f) {}
  static bfloat16 FromBits(uint16_t bits) {
    bfloat16 b;
    b.x = bits;
    return b;
  }
  [[gnu::always_inline]] operator float() const { return detail::BFloatBitsToFloat(x); }
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
