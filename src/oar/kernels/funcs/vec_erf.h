// erf over a contiguous span. SLEEF's float erf costs about 5 ns an element on
// AVX2 (seven times its exp), which made exact gelu six times slower than
// PyTorch's; this float version is two polynomials fitted for it and an inline
// exp, a vector register at a time (16 lanes with AVX-512, else 8):
//   |x| <= 1:  erf(x) = x P(x^2)                       (P degree 5)
//   |x| >  1:  erf(x) = sign(x) (1 - e^(-x^2) Q(|x|))    (Q degree 10, erfc(x) e^(x^2)
//                                                       on [1, 4]; |x| is capped at 4,
//                                                       where erf is 1 in float)
// The coefficients are least-squares fits at Chebyshev nodes (relative weight);
// the maximum error over 300k random floats in [-4.5, 4.5] is 2.2 ulp against
// mpmath. NaN gives NaN, +-inf gives +-1. double keeps SLEEF's 1-ulp erf.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "oar/kernels/funcs/vec_math.h"

namespace oar::funcs {

// Floats in GCC's generic vector type: the compiler maps it onto the SIMD
// registers of the target (one AVX-512 or AVX register, two SSE ones). Plain
// loops would do for the arithmetic, but GCC leaves a loop with float selects
// scalar unless -fno-trapping-math is on, and that flag de-vectorises other
// kernels' selects. Bits move between the float and int views with bit_cast
// (a pointer cast breaks strict aliasing, and GCC then drops the stores).
namespace erf_detail {
#if defined(__AVX512F__)
inline constexpr int kLanes = 16;
#else
inline constexpr int kLanes = 8;
#endif
using VF = float __attribute__((vector_size(kLanes * 4)));
using VI = int32_t __attribute__((vector_size(kLanes * 4)));

inline VF Splat(float v) { return VF{} + v; }

// e^t for t in [-87, 0]: Cephes' expf reduction (e^r 2^n, |r| <= ln2 / 2, r in
// two parts) and its polynomial, about 1 ulp; 2^n is built from the exponent
// bits, which is safe for n in [-126, 0].
inline VF ExpNonPositive(VF t) {
  const VF magic = Splat(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  const VF shifted = t * 1.44269504088896341f + magic;
  const VF n = shifted - magic;
  const VI ni = std::bit_cast<VI>(shifted) - std::bit_cast<VI>(magic);
  const VF r = (t - n * 0.693359375f) + n * 2.12194440e-4f;
  VF p = Splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const VI bits = (ni + 127) << 23;
  return p * std::bit_cast<VF>(bits);
}

// e^(-a^2) for a in [0, 9.3].
inline VF ExpOfNegSquare(VF a) { return ExpNonPositive(-a * a); }

inline VF ErfV(VF v) {
  constexpr float P[] = {1.1283791f,    -0.3761232f, 0.11280129f,
                         -0.026709916f, 0.00491598f, -0.00056252064f};
  constexpr float Q[] = {0.9922683f,     -1.0821421f,     0.8737453f,   -0.5418197f,
                         0.2575725f,     -0.09242064f,    0.024437387f, -0.0045944843f,
                         0.00057920045f, -4.3788623e-05f, 1.498171e-06f};
  const VI vi = std::bit_cast<VI>(v);
  const VI abs_bits = vi & 0x7fffffff;
  const VF av = std::bit_cast<VF>(abs_bits);
  const VF ax = av < 4.0f ? av : Splat(4.0f);  // NaN goes to 4 and is restored below
  const VF z = v * v;
  VF p = Splat(P[5]);
  for (int j = 4; j >= 0; --j) p = p * z + P[j];
  VF q = Splat(Q[10]);
  for (int j = 9; j >= 0; --j) q = q * ax + Q[j];
  const VF tail = 1.0f - ExpOfNegSquare(ax) * q;  // in [0.84, 1]: its sign bit is clear
  const VI signed_tail = std::bit_cast<VI>(tail) | (vi & int32_t(0x80000000u));
  const VF y = av <= 1.0f ? v * p : std::bit_cast<VF>(signed_tail);
  return v != v ? v : y;
}

// Note [Exact gelu from the normal tail]
// gelu(x) = x Phi(x). Both halves come from the lower tail T = Phi(-|x|):
// Phi(x) = T for x < 0 and 1 - T otherwise, so there is no 1 + erf(u) to
// cancel for negative x and the result keeps its relative accuracy through
// the tail. With a = |x| / sqrt 2 and t = 1 / (1 + 0.33 a),
//   T = erfc(a) / 2 = e^(-x^2/2) t C(t) / 2,
// C of degree 7 fitted to erfc(a) e^(a^2) / t (relative, minimax-weighted,
// a in [0, 9.5]; 8.3e-8), one division and one exp instead of erf's two
// polynomials. x^2/2 carries its rounding error into the exp (the product's
// FMA remainder; with contraction off it is 0 and costs accuracy only):
// at |x| = 6 one ulp of x^2 is 20 ulp of e^(-x^2/2). Past |x| = 13, T is
// below float's normal range and taken as 0. The same e^(-x^2/2) gives the
// density for the derivative, gelu'(x) = Phi(x) + x e^(-x^2/2) / sqrt(2 pi).
struct NormalTail {
  VF tail;  // Phi(-|x|)
  VF e;     // e^(-x^2/2)
};
inline NormalTail LowerTail(VF x) {
  constexpr float C[] = {0.18636605f, 0.182838f,   0.20191965f, 0.04502333f,
                         0.41251907f, -0.3554155f, 0.462675f,   -0.13592568f};
  const VF ax = std::bit_cast<VF>(std::bit_cast<VI>(x) & 0x7fffffff);
  const auto inside = ax < 13.0f;  // false for NaN, which keeps x's NaN below
  const VF c = inside ? ax : Splat(13.0f);
  const VF sq = c * c;
  const VF sq_err = c * c - sq;
  const VF e = ExpNonPositive(-0.5f * sq) * (1.0f - 0.5f * sq_err);
  const VF t = 1.0f / (1.0f + c * 0.23334524f);  // 0.33 / sqrt 2
  VF r = Splat(C[7]);
  for (int j = 6; j >= 0; --j) r = r * t + C[j];
  return {inside ? 0.5f * e * t * r : VF{}, inside ? e : VF{}};
}
inline VF GeluV(VF v) {
  const NormalTail n = LowerTail(v);
  return v * (v < 0.0f ? n.tail : 1.0f - n.tail);
}
inline VF GeluGradV(VF v, VF g) {
  const NormalTail n = LowerTail(v);
  const VF phi = v < 0.0f ? n.tail : 1.0f - n.tail;
  return g * (phi + v * 0.39894228040143268f * n.e);
}

// y = f(x lanes, g lanes) over a span of n floats (g may be null), the tail in a
// zero-padded vector: the same bits as a full one.
template <typename F>
void MapV(const float* x, const float* g, float* y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    VF v, w = {};
    std::memcpy(&v, x + i, sizeof(VF));
    if (g != nullptr) std::memcpy(&w, g + i, sizeof(VF));
    v = f(v, w);
    std::memcpy(y + i, &v, sizeof(VF));
  }
  if (i < n) {
    const size_t bytes = sizeof(float) * static_cast<size_t>(n - i);
    VF v = {}, w = {};
    std::memcpy(&v, x + i, bytes);
    if (g != nullptr) std::memcpy(&w, g + i, bytes);
    v = f(v, w);
    std::memcpy(y + i, &v, bytes);
  }
}
}  // namespace erf_detail

// y[i] = erf(x[i]) for i < n; y == x is allowed.
template <typename C>
void ErfSpan(const C* x, C* y, int64_t n) {
  if constexpr (!std::is_same_v<C, float>) {
    vec::Apply(vec::Fn::kErf, x, y, n);
  } else {
    erf_detail::MapV(x, nullptr, y, n, [](auto v, auto) { return erf_detail::ErfV(v); });
  }
}

// The exact gelu (and, with g, g times its derivative) over a span of floats.
inline void GeluSpan(const float* x, float* y, int64_t n) {
  erf_detail::MapV(x, nullptr, y, n, [](auto v, auto) { return erf_detail::GeluV(v); });
}
inline void GeluGradSpan(const float* x, const float* g, float* y, int64_t n) {
  erf_detail::MapV(x, g, y, n, [](auto v, auto w) { return erf_detail::GeluGradV(v, w); });
}

}  // namespace oar::funcs
