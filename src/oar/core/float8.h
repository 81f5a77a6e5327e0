// The 8-bit float storage types float8_e4m3fn (4 exponent bits, 3 mantissa bits,
// no infinities, one NaN pattern per sign: S.1111.111) and float8_e5m2 (5 and 2,
// IEEE-like, with infinities), Paddle's and PyTorch's float8 dtypes (docs/dtypes.md).
// oar stores them and casts to and from them; no arithmetic kernel takes them.
//
// Conversions from float round to nearest even, as PyTorch's do: a value past
// e4m3fn's largest (448) saturates to +-448, infinities included, and one past
// e5m2's largest (57344) becomes +-inf; NaN stays NaN. Paddle 3.3.1's CPU cast
// differs at the edges (NaN becomes 448, 465 becomes NaN, e5m2 saturates some
// overflows and not others); oar follows PyTorch there.
#pragma once

#include <cmath>
#include <cstdint>

#include "oar/core/float16.h"

namespace oar {

namespace detail {

// Encodes |f| (sign added by the caller) with `ebits` exponent bits, `mbits`
// mantissa bits and bias 2^(ebits-1) - 1; `max_code` is the largest finite code and
// `over` the code of a value past it.
inline uint8_t EncodeFloat8(float a, int ebits, int mbits, uint8_t max_code, uint8_t over) {
  if (std::isinf(a)) return over;
  const int bias = (1 << (ebits - 1)) - 1;
  const float min_normal = std::ldexp(1.0f, 1 - bias);
  if (a < min_normal) {  // subnormal (or 0): a multiple of 2^(1 - bias - mbits)
    // nearbyint rounds to nearest even; a result of 2^mbits is the smallest normal,
    // whose code is the same number.
    return static_cast<uint8_t>(std::nearbyint(std::ldexp(a, bias - 1 + mbits)));
  }
  int e2 = 0;
  const float fr = std::frexp(a, &e2);  // a = fr * 2^e2, fr in [0.5, 1)
  int e = e2 - 1;                       // a = m * 2^e, m in [1, 2)
  float q = std::nearbyint((fr * 2.0f - 1.0f) * static_cast<float>(1 << mbits));
  if (q == static_cast<float>(1 << mbits)) {  // rounded up to the next power of two
    q = 0.0f;
    ++e;
  }
  const int biased = e + bias;
  if (biased >= (1 << ebits)) return over;
  const int code = (biased << mbits) | static_cast<int>(q);
  return code > max_code ? over : static_cast<uint8_t>(code);
}

inline float DecodeFloat8(uint8_t code, int ebits, int mbits) {
  const int bias = (1 << (ebits - 1)) - 1;
  const int exp = (code >> mbits) & ((1 << ebits) - 1);
  const int man = code & ((1 << mbits) - 1);
  const float v = exp == 0
                      ? std::ldexp(static_cast<float>(man), 1 - bias - mbits)
                      : std::ldexp(1.0f + std::ldexp(static_cast<float>(man), -mbits), exp - bias);
  return (code & 0x80) ? -v : v;
}

}  // namespace detail

// A float8 format: `E` exponent and `M` mantissa bits; `kMax` is the largest finite
// code, `kOver` the code of a value past it (kMax itself when the format saturates),
// and `kInf` whether S.11..1.00 is infinity (e5m2) rather than a finite value.
template <int E, int M, uint8_t kMax, uint8_t kOver, bool kInf>
struct Float8 {
  uint8_t x = 0;
  Float8() = default;
  // NaN keeps its sign, as PyTorch's conversion does; its pattern is S.1..1.
  explicit Float8(float f)
      : x(static_cast<uint8_t>(
            (std::signbit(f) ? 0x80 : 0) |
            (std::isnan(f) ? 0x7f : detail::EncodeFloat8(std::fabs(f), E, M, kMax, kOver)))) {}
  explicit Float8(double d) : Float8(static_cast<float>(d)) {}
  operator float() const {
    const int mag = x & 0x7f;
    if (mag > kMax + (kInf ? 1 : 0)) return std::nanf("");
    if (kInf && mag == kMax + 1) return (x & 0x80) ? -INFINITY : INFINITY;
    return detail::DecodeFloat8(x, E, M);
  }
};

// No infinities: past 448 (and +-inf) saturates to +-448 (0x7e); 0x7f is NaN.
using float8_e4m3fn = Float8<4, 3, 0x7e, 0x7e, false>;
// Past 57344 (0x7b) is infinity (0x7c); 0x7d-0x7f are NaN.
using float8_e5m2 = Float8<5, 2, 0x7b, 0x7c, true>;

// Loads widen to float (kernels/funcs/elementwise.h), as for float16.
template <>
struct ComputeType<float8_e4m3fn> {
  using type = float;
};
template <>
struct ComputeType<float8_e5m2> {
  using type = float;
};

}  // namespace oar
