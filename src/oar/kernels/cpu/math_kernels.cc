// Elementwise math kernels of src/oar/ops/math.yaml: powers and logarithms, the
// error function and its inverse, rounding, trigonometric and hyperbolic
// functions, atan2, floor division and remainder, clip, lerp and heaviside.
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <type_traits>

#include "oar/core/errors.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/elementwise.h"
#include "oar/kernels/funcs/vec_chunked.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

using funcs::BinaryElementwise;
using funcs::UnaryElementwise;

#define OAR_MATH_UNARY_KERNEL(Name, cost, expr)                             \
  template <typename T>                                                     \
  void Name(const DeviceContext&, const DenseTensor& x, DenseTensor* out) { \
    UnaryElementwise<T, T>(                                                 \
        x, out,                                                             \
        [](auto a) {                                                        \
          using C [[maybe_unused]] = decltype(a);                           \
          return expr;                                                      \
        },                                                                  \
        cost);                                                              \
  }

OAR_MATH_UNARY_KERNEL(SquareKernel, 1, static_cast<C>(a* a))
OAR_MATH_UNARY_KERNEL(RsqrtKernel, 4, static_cast<C>(C(1) / std::sqrt(a)))
OAR_MATH_UNARY_KERNEL(ReciprocalKernel, 2, static_cast<C>(C(1) / a))
OAR_MATH_UNARY_KERNEL(AsinKernel, 8, static_cast<C>(std::asin(a)))
OAR_MATH_UNARY_KERNEL(AcosKernel, 8, static_cast<C>(std::acos(a)))
OAR_MATH_UNARY_KERNEL(AtanKernel, 8, static_cast<C>(std::atan(a)))
OAR_MATH_UNARY_KERNEL(SinhKernel, 8, static_cast<C>(std::sinh(a)))
OAR_MATH_UNARY_KERNEL(CoshKernel, 8, static_cast<C>(std::cosh(a)))
OAR_MATH_UNARY_KERNEL(AsinhKernel, 8, static_cast<C>(std::asinh(a)))
OAR_MATH_UNARY_KERNEL(AcoshKernel, 8, static_cast<C>(std::acosh(a)))
OAR_MATH_UNARY_KERNEL(AtanhKernel, 8, static_cast<C>(std::atanh(a)))
#undef OAR_MATH_UNARY_KERNEL

// The functions vec_math vectorises (SLEEF, 1 ulp).
OAR_VEC_UNARY_KERNEL(Log1pKernel, kLog1p)
OAR_VEC_UNARY_KERNEL(Expm1Kernel, kExpm1)
OAR_VEC_UNARY_KERNEL(Log2Kernel, kLog2)
OAR_VEC_UNARY_KERNEL(Log10Kernel, kLog10)
OAR_VEC_UNARY_KERNEL(TanKernel, kTan)

// Complex elements: std::complex's functions (principal branches, as PyTorch and
// Paddle); the inverse trigonometric and hyperbolic kernels above take complex
// elements as they are. log1p and expm1 keep their accuracy near 0 as PyTorch's do.
template <typename T>
T ComplexLog1p(T z) {
  using R = typename T::value_type;
  const R x = z.real(), y = z.imag();
  const R arg = std::atan2(y, x + R(1));
  if (std::abs(z) < R(0.5)) {
    // log |1 + z| = log1p(x (2 + x) + y^2) / 2, without the rounding of 1 + z
    const R r = x * (R(2) + x) + y * y;
    return r == R(0) ? T(x, arg) : T(R(0.5) * std::log1p(r), arg);
  }
  return T(std::log(std::hypot(x + R(1), y)), arg);
}

template <typename T>
T ComplexExpm1(T z) {
  using R = typename T::value_type;
  const R x = z.real(), y = z.imag();
  // e^x cos y - 1 = expm1(x) cos y - (1 - cos y), and 1 - cos y = 2 sin^2(y / 2)
  const R h = std::sin(y / R(2));
  return T(std::expm1(x) * std::cos(y) - R(2) * h * h, std::exp(x) * std::sin(y));
}

#define OAR_COMPLEX_MATH_KERNEL(Name, cost, expr)                           \
  template <typename T>                                                     \
  void Name(const DeviceContext&, const DenseTensor& x, DenseTensor* out) { \
    using R [[maybe_unused]] = typename T::value_type;                      \
    UnaryElementwise<T, T>(x, out, [](T a) -> T { return expr; }, cost);    \
  }
OAR_COMPLEX_MATH_KERNEL(ComplexLog1pKernel, 16, ComplexLog1p(a))
OAR_COMPLEX_MATH_KERNEL(ComplexExpm1Kernel, 16, ComplexExpm1(a))
OAR_COMPLEX_MATH_KERNEL(ComplexLog2Kernel, 8, std::log(a) / R(std::numbers::ln2))
OAR_COMPLEX_MATH_KERNEL(ComplexLog10Kernel, 8, std::log10(a))
OAR_COMPLEX_MATH_KERNEL(ComplexTanKernel, 8, std::tan(a))
#undef OAR_COMPLEX_MATH_KERNEL

// erf through vec_math (float: oar's own polynomial, 2.2 ulp, vec_erf.inc).
template <typename T>
void ErfKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  funcs::VecChunked<T, 1>({&x}, out, 8, [](const auto& in, auto* y, int64_t m) {
    vec::Apply(vec::Fn::kErf, in[0], y, m);
  });
}

// The complementary error function through std::erfc, in double: 1 - erf(x) would
// lose every digit for large x, where erfc(x) is tiny.
template <typename T>
void ErfcKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<T, T>(
      x, out, [](auto a) { return static_cast<decltype(a)>(std::erfc(static_cast<double>(a))); },
      16);
}

// The inverse error function. No libm has it: a closed-form first guess
// (Winitzki's approximation, relative error below 2e-3) refined by Newton steps
// on erf, each of which roughly squares the error. Near |y| = 1 the residual is
// taken on erfc against 1 - |y|, which is exact there, so the steps keep their
// precision where erf(x) itself has none left.
double ErfInv(double y) {
  if (std::isnan(y) || y < -1.0 || y > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1.0) return std::numeric_limits<double>::infinity();
  if (y == -1.0) return -std::numeric_limits<double>::infinity();
  if (y == 0.0) return y;  // keeps the sign of -0.0
  const double s = y < 0 ? -1.0 : 1.0;
  const double t = std::fabs(y);
  constexpr double kA = 0.147;
  const double l = std::log((1.0 - t) * (1.0 + t));
  const double b = 2.0 / (std::numbers::pi * kA) + 0.5 * l;
  double x = std::sqrt(std::sqrt(b * b - l / kA) - b);
  const double tail = 1.0 - t;  // exact for t >= 0.5 (Sterbenz)
  const double slope = 2.0 / std::sqrt(std::numbers::pi);
  for (int i = 0; i < 4; ++i) {
    const double r = t < 0.5 ? std::erf(x) - t : tail - std::erfc(x);
    x -= r / (slope * std::exp(-x * x));
  }
  return s * x;
}

template <typename T>
void ErfinvKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<T, T>(
      x, out, [](auto a) { return static_cast<decltype(a)>(ErfInv(static_cast<double>(a))); }, 32);
}

// Rounding: integers are already integral.
#define OAR_ROUNDING_KERNEL(Name, fn)                                       \
  template <typename T>                                                     \
  void Name(const DeviceContext&, const DenseTensor& x, DenseTensor* out) { \
    UnaryElementwise<T, T>(x, out, [](auto a) {                             \
      using C = decltype(a);                                                \
      if constexpr (std::is_integral_v<C>) {                                \
        return a;                                                           \
      } else {                                                              \
        return static_cast<C>(fn(a));                                       \
      }                                                                     \
    });                                                                     \
  }
OAR_ROUNDING_KERNEL(CeilKernel, std::ceil)
OAR_ROUNDING_KERNEL(TruncKernel, std::trunc)
#undef OAR_ROUNDING_KERNEL

// A bound of clip in the compute type: floats as they are (float16 through
// float), integers truncated toward zero and saturated, so an infinite bound
// (Python None) means "no bound".
template <typename C>
C ClipBound(double v) {
  if constexpr (std::is_integral_v<C>) {
    if (std::isnan(v)) return C(0);
    if (v <= static_cast<double>(std::numeric_limits<C>::lowest())) {
      return std::numeric_limits<C>::lowest();
    }
    if (v >= std::ldexp(1.0, std::numeric_limits<C>::digits)) return std::numeric_limits<C>::max();
  }
  return static_cast<C>(v);
}

// Halves go to the even neighbour (std::nearbyint in the default rounding
// mode), as Paddle 3 and PyTorch round. With decimals, the value is scaled by a
// power of ten first: x * 10**d for d > 0, x / 10**-d for d < 0 (dividing by an
// exact power of ten rather than multiplying by an inexact 10**d). Calls f with the
// rounding of one floating value C, so the loop is chosen once, not per element.
template <typename C, typename F>
void WithFloatRounding(int64_t decimals, F f) {
  if (decimals == 0) {
    f([](C a) { return static_cast<C>(std::nearbyint(a)); });
  } else if (decimals > 0) {
    const C p = static_cast<C>(std::pow(10.0, static_cast<double>(decimals)));
    f([=](C a) { return static_cast<C>(std::nearbyint(a * p) / p); });
  } else {
    const C p = static_cast<C>(std::pow(10.0, -static_cast<double>(decimals)));
    f([=](C a) { return static_cast<C>(std::nearbyint(a / p) * p); });
  }
}

template <typename T>
void RoundKernel(const DeviceContext&, const DenseTensor& x, int64_t decimals, DenseTensor* out) {
  using C = compute_t<T>;
  if constexpr (std::is_integral_v<C>) {
    if (decimals >= 0) {
      UnaryElementwise<T, T>(x, out, [](C a) { return a; });
    } else {
      // A quotient of 0 stays 0 even where p is infinite (0 * inf would be NaN), and
      // a multiple of p beyond the dtype saturates instead of overflowing.
      const double p = std::pow(10.0, -static_cast<double>(decimals));
      UnaryElementwise<T, T>(x, out, [=](C a) {
        const double q = std::nearbyint(static_cast<double>(a) / p);
        return ClipBound<C>(q == 0.0 ? 0.0 : q * p);
      });
    }
  } else if constexpr (is_complex_v<C>) {
    // The real and imaginary parts apart, as Paddle rounds complex numbers (PyTorch
    // has no complex round).
    using R = typename C::value_type;
    WithFloatRounding<R>(decimals, [&](auto round) {
      UnaryElementwise<T, T>(x, out, [=](C a) { return C(round(a.real()), round(a.imag())); });
    });
  } else {
    WithFloatRounding<C>(decimals, [&](auto round) { UnaryElementwise<T, T>(x, out, round); });
  }
}

template <typename T>
void Atan2Kernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                 DenseTensor* out) {
  BinaryElementwise<T, T, T>(
      x, y, out, [](auto a, auto b) { return static_cast<decltype(a)>(std::atan2(a, b)); }, 8);
}

// Integer division by zero traps (SIGFPE) instead of producing a value, so an
// integer divisor is checked for zeros before the loop, where an error can
// still be thrown (not from inside a parallel region).
template <typename T>
void CheckNoZeroDivisor(const DenseTensor& y) {
  if constexpr (std::is_integral_v<compute_t<T>>) {
    if (y.numel() == 0) return;
    const DenseTensor yc = funcs::Contiguous(y);
    const T* p = static_cast<const T*>(yc.data());
    for (int64_t i = 0, n = yc.numel(); i < n; ++i) {
      if (p[i] == T(0)) {
        throw errors::InvalidArgument("argument 'y' holds a zero: integer division by zero");
      }
    }
  }
}

// -a with the two's complement wrap-around: the lowest value divided by -1
// overflows, and the hardware traps on it like on a division by zero.
template <typename C>
C WrappingNeg(C a) {
  using U = std::make_unsigned_t<C>;
  return static_cast<C>(U(0) - static_cast<U>(a));
}

template <typename C>
C FloorDiv(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    // Only a signed -1: for uint8, C(-1) is 255, and 7 // 255 gave 249 (found by the
    // registry's uint8 cases).
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return WrappingNeg(a);
    }
    const C q = a / b;  // truncated
    return (a % b != 0 && ((a < 0) != (b < 0))) ? C(q - 1) : q;
  } else {
    if (b == C(0)) return a / b;  // +-inf or NaN, as IEEE division
    // floor(a / b) of the rounded quotient can be off by one; working from the
    // exact remainder fmod(a, b) gives the floor of the true quotient.
    const C mod = std::fmod(a, b);
    C div = (a - mod) / b;
    if (mod != C(0) && ((b < C(0)) != (mod < C(0)))) div -= C(1);
    if (div == C(0)) return std::copysign(C(0), a / b);
    C fl = std::floor(div);
    if (div - fl > C(0.5)) fl += C(1);  // div is integral up to rounding
    return fl;
  }
}

template <typename C>
C FloorMod(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return C(0);  // the lowest value % -1 traps like a division by zero
    }
    const C r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? C(r + b) : r;
  } else {
    C r = std::fmod(a, b);  // NaN for b == 0
    if (r != C(0) && ((b < C(0)) != (r < C(0)))) r += b;
    return r;
  }
}

template <typename T>
void FloorDivideKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                       DenseTensor* out) {
  CheckNoZeroDivisor<T>(y);
  BinaryElementwise<T, T, T>(x, y, out, [](auto a, auto b) { return FloorDiv(a, b); }, 4);
}

template <typename T>
void RemainderKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                     DenseTensor* out) {
  CheckNoZeroDivisor<T>(y);
  BinaryElementwise<T, T, T>(x, y, out, [](auto a, auto b) { return FloorMod(a, b); }, 4);
}

// min(max(x, min), max): with min > max everything becomes max (numpy, PyTorch);
// NaN stays NaN (both comparisons are false), and a NaN bound makes every float
// element NaN, as in PyTorch and numpy.
template <typename T>
void ClipKernel(const DeviceContext&, const DenseTensor& x, double min, double max,
                DenseTensor* out) {
  using C = compute_t<T>;
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(min) || std::isnan(max)) {
      UnaryElementwise<T, T>(x, out, [](C) { return std::numeric_limits<C>::quiet_NaN(); });
      return;
    }
  }
  const C lo = ClipBound<C>(min), hi = ClipBound<C>(max);
  UnaryElementwise<T, T>(x, out, [=](C a) {
    const C r = a < lo ? lo : a;
    return r > hi ? hi : r;
  });
}

template <typename T>
void ClipGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                    double min, double max, DenseTensor* x_grad) {
  using C = compute_t<T>;
  const C lo = ClipBound<C>(min), hi = ClipBound<C>(max);
  BinaryElementwise<T, T, T>(x, grad_out, x_grad,
                             [=](C a, C g) { return (a >= lo && a <= hi) ? g : C(0); });
}

// x + w * (y - x) for w < 0.5, y - (y - x) * (1 - w) above: each form is exact at
// its end (x at w = 0, y at w = 1) and loses little near it, as PyTorch computes it.
template <typename T>
void LerpKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                const DenseTensor& weight, DenseTensor* out) {
  funcs::TernaryElementwise<T, T, T, T>(x, y, weight, out, [](auto a, auto b, auto w) {
    using C = decltype(a);
    return std::abs(w) < C(0.5) ? a + w * (b - a) : b - (b - a) * (C(1) - w);
  });
}

template <typename T>
void HeavisideKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                     DenseTensor* out) {
  // NaN x: neither 0 nor > 0, so 0.
  BinaryElementwise<T, T, T>(x, y, out, [](auto a, auto b) {
    using C = decltype(a);
    return a == C(0) ? b : (a > C(0) ? C(1) : C(0));
  });
}

}  // namespace

OAR_REGISTER_KERNEL(square, CPU, Any, SquareKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(rsqrt, CPU, Any, RsqrtKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(reciprocal, CPU, Any, ReciprocalKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(square, CPU, Any, SquareKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(reciprocal, CPU, Any, ReciprocalKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(log1p, CPU, Any, Log1pKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(expm1, CPU, Any, Expm1Kernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(log2, CPU, Any, Log2Kernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(log10, CPU, Any, Log10Kernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(erf, CPU, Any, ErfKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(erfc, CPU, Any, ErfcKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(erfinv, CPU, Any, ErfinvKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(tan, CPU, Any, TanKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(asin, CPU, Any, AsinKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(acos, CPU, Any, AcosKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(atan, CPU, Any, AtanKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(sinh, CPU, Any, SinhKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(cosh, CPU, Any, CoshKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(asinh, CPU, Any, AsinhKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(acosh, CPU, Any, AcoshKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(atanh, CPU, Any, AtanhKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(ceil, CPU, Any, CeilKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(trunc, CPU, Any, TruncKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(round, CPU, Any, RoundKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(atan2, CPU, Any, Atan2Kernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(floor_divide, CPU, Any, FloorDivideKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(remainder, CPU, Any, RemainderKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(clip, CPU, Any, ClipKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(clip_grad, CPU, Any, ClipGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(lerp, CPU, Any, LerpKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(heaviside, CPU, Any, HeavisideKernel, OAR_NUMERIC_TYPES);
// Complex elements (Paddle's complex kernels of these ops).
OAR_REGISTER_KERNEL(log1p, CPU, Any, ComplexLog1pKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(expm1, CPU, Any, ComplexExpm1Kernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(log2, CPU, Any, ComplexLog2Kernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(log10, CPU, Any, ComplexLog10Kernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(tan, CPU, Any, ComplexTanKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(asin, CPU, Any, AsinKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(acos, CPU, Any, AcosKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(atan, CPU, Any, AtanKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(sinh, CPU, Any, SinhKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(cosh, CPU, Any, CoshKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(asinh, CPU, Any, AsinhKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(acosh, CPU, Any, AcoshKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(atanh, CPU, Any, AtanhKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(round, CPU, Any, RoundKernel, OAR_COMPLEX_TYPES);

}  // namespace oar
