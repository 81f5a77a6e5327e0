// Kernels of src/oar/ops/numeric.yaml: copysign, hypot, logaddexp, nextafter,
// ldexp/frexp, gcd/lcm, bit shifts, signbit, the modified Bessel functions i0/i1 and
// their scaled forms, sinc, logit, the regularized incomplete gamma functions, the
// logcumsumexp scan and searchsorted. The transcendental ones compute in double and round
// once to the output dtype.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <numeric>
#include <type_traits>

#include "oar/core/errors.h"
#include "oar/core/parallel.h"
#include "oar/kernels/funcs/axis_rows.h"
#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/elementwise.h"
#include "oar/kernels/funcs/gamma_math.h"
#include "oar/kernels/infer_meta.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

using funcs::BinaryElementwise;
using funcs::UnaryElementwise;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename C>
constexpr bool kIsFloat = std::is_floating_point_v<C>;

// A unary kernel evaluating the double function F and rounding once to T.
template <typename T, double (*F)(double)>
void UnaryDouble(const DenseTensor& x, DenseTensor* out, int64_t cost) {
  UnaryElementwise<T, T>(
      x, out, [](auto a) { return static_cast<decltype(a)>(F(static_cast<double>(a))); }, cost);
}

// ---- sign and float format ----------------------------------------------------------------

template <typename T>
void CopysignKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                    DenseTensor* out) {
  BinaryElementwise<T, T, T>(
      x, y, out,
      [](auto a, auto b) -> decltype(a) {
        using C = decltype(a);
        if constexpr (kIsFloat<C>) {
          return std::copysign(a, b);
        } else if constexpr (std::is_signed_v<C>) {
          const C m = a < 0 ? static_cast<C>(-a) : a;
          return b < 0 ? static_cast<C>(-m) : m;
        } else {
          return a;  // unsigned: never negative
        }
      },
      2);
}

template <typename T>
void SignbitKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<bool, T>(x, out, [](auto a) -> bool {
    using C = decltype(a);
    if constexpr (kIsFloat<C>) {
      // through double: GCC 12's vectoriser fails (an internal compiler error) on
      // std::signbit of float with -march=native; the widening keeps the sign, NaN's too
      return std::signbit(static_cast<double>(a));
    } else if constexpr (std::is_signed_v<C>) {
      return a < 0;
    } else {
      return false;
    }
  });
}

template <typename T>
void NextafterKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                     DenseTensor* out) {
  BinaryElementwise<T, T, T>(x, y, out, [](auto a, auto b) { return std::nextafter(a, b); }, 2);
}

// x * 2**y: exact (std::ldexp) for an integer y, which oar.ldexp passes; exp2 otherwise.
// The exponent is clamped far beyond the range where the result is 0 or inf, so the int
// conversion stays defined.
template <typename T>
void LdexpKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                 DenseTensor* out) {
  BinaryElementwise<T, T, T>(
      x, y, out,
      [](auto a, auto b) {
        using C = decltype(a);
        const double v = static_cast<double>(a), e = static_cast<double>(b);
        if (!std::isfinite(e) || e != std::floor(e)) return static_cast<C>(v * std::exp2(e));
        return static_cast<C>(std::ldexp(v, static_cast<int>(std::clamp(e, -1e5, 1e5))));
      },
      4);
}

template <typename T>
void FrexpExponentKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<T, T>(
      x, out,
      [](auto a) {
        using C = decltype(a);
        const double v = static_cast<double>(a);
        int e = 0;
        if (std::isfinite(v)) std::frexp(v, &e);
        return static_cast<C>(e);
      },
      4);
}

// ---- hypot, logaddexp -----------------------------------------------------------------

template <typename T>
void HypotKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                 DenseTensor* out) {
  BinaryElementwise<T, T, T>(
      x, y, out, [](auto a, auto b) { return static_cast<decltype(a)>(std::hypot(a, b)); }, 8);
}

double LogAddExp(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  if (a == b) return a + std::numbers::ln2;  // also inf + inf, without inf - inf
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

template <typename T>
void LogaddexpKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                     DenseTensor* out) {
  BinaryElementwise<T, T, T>(
      x, y, out,
      [](auto a, auto b) {
        return static_cast<decltype(a)>(LogAddExp(static_cast<double>(a), static_cast<double>(b)));
      },
      16);
}

// ---- integers: gcd, lcm, shifts ---------------------------------------------------------

// |v| as the unsigned type of the same width: the most negative value has no signed
// absolute value.
template <typename C>
std::make_unsigned_t<C> Magnitude(C v) {
  using U = std::make_unsigned_t<C>;
  if constexpr (std::is_signed_v<C>) {
    return v < 0 ? static_cast<U>(U{0} - static_cast<U>(v)) : static_cast<U>(v);
  } else {
    return v;
  }
}

template <typename T>
void GcdKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y, DenseTensor* out) {
  BinaryElementwise<T, T, T>(
      x, y, out,
      [](auto a, auto b) { return static_cast<decltype(a)>(std::gcd(Magnitude(a), Magnitude(b))); },
      16);
}

template <typename T>
void LcmKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y, DenseTensor* out) {
  BinaryElementwise<T, T, T>(
      x, y, out,
      [](auto a, auto b) {
        using C = decltype(a);
        const auto ua = Magnitude(a), ub = Magnitude(b);
        if (ua == 0 || ub == 0) return C{0};
        // wraps on overflow, as the integer types do (and torch)
        return static_cast<C>(static_cast<decltype(ua)>(ua / std::gcd(ua, ub) * ub));
      },
      16);
}

template <typename C>
bool IsNegative(C v) {
  if constexpr (std::is_signed_v<C>) return v < 0;
  return false;
}

// A shift by a negative amount or by the bit width or more (undefined in C++): every bit
// is shifted out.
template <typename C>
bool ShiftsOutEverything(C amount) {
  constexpr int64_t kBits = std::numeric_limits<std::make_unsigned_t<C>>::digits;
  if constexpr (std::is_signed_v<C>) {
    if (amount < 0) return true;
  }
  return static_cast<int64_t>(amount) >= kBits;
}

template <typename T>
void BitwiseLeftShiftKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y, bool,
                            DenseTensor* out) {
  BinaryElementwise<T, T, T>(x, y, out, [](auto a, auto b) {
    using C = decltype(a);
    using U = std::make_unsigned_t<C>;
    if (ShiftsOutEverything(b)) return C{0};
    return static_cast<C>(static_cast<U>(static_cast<U>(a) << b));
  });
}

template <typename T>
void BitwiseRightShiftKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                             bool is_arithmetic, DenseTensor* out) {
  BinaryElementwise<T, T, T>(x, y, out, [is_arithmetic](auto a, auto b) {
    using C = decltype(a);
    using U = std::make_unsigned_t<C>;
    if (ShiftsOutEverything(b)) return is_arithmetic && IsNegative(a) ? static_cast<C>(-1) : C{0};
    if (is_arithmetic) return static_cast<C>(a >> b);  // arithmetic for signed C (C++20)
    return static_cast<C>(static_cast<U>(static_cast<U>(a) >> b));
  });
}

// ---- modified Bessel functions of order 0 and 1 ------------------------------------------

// Below kBesselSeries the power series (all terms positive, so no cancellation); above it
// the asymptotic expansion, whose smallest term there is below 1e-25 relative.
constexpr double kBesselSeries = 30;

// I_nu(|x|) * exp(-|x|) for nu 0 or 1 (x >= 0).
double ScaledBesselI(int nu, double x) {
  if (std::isinf(x)) return 0;
  if (x <= kBesselSeries) {
    const double q = x * x / 4;
    double term = nu == 0 ? 1 : x / 2;
    double sum = term;
    for (int k = 1; k < 500 && term > 1e-17 * sum; ++k) {
      term *= q / (static_cast<double>(k) * (k + nu));
      sum += term;
    }
    return sum * std::exp(-x);
  }
  // I_nu(x) ~ e^x / sqrt(2 pi x) * sum_k (-1)^k prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (k! (8x)^k)
  const double mu = 4.0 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k < 200; ++k) {
    const double odd = 2.0 * k - 1;
    const double next = -term * (mu - odd * odd) / (8.0 * k * x);
    if (std::fabs(next) >= std::fabs(term)) break;  // the series starts to diverge
    term = next;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
  }
  return sum / std::sqrt(2 * std::numbers::pi * x);
}

double BesselI0e(double x) { return std::isnan(x) ? kNaN : ScaledBesselI(0, std::fabs(x)); }
double BesselI1e(double x) {
  if (std::isnan(x)) return kNaN;
  return std::copysign(ScaledBesselI(1, std::fabs(x)), x);
}
// exp(|x| - 0.5 log(2 pi |x|)) * sum is how the unscaled value avoids overflowing early;
// exp(|x|) * scaled does the same, since the scaled value is below 1.
double BesselI0(double x) {
  if (std::isnan(x)) return kNaN;
  const double a = std::fabs(x);
  if (std::isinf(a)) return kInf;
  return std::exp(a) * ScaledBesselI(0, a);
}
double BesselI1(double x) {
  if (std::isnan(x)) return kNaN;
  const double a = std::fabs(x);
  if (std::isinf(a)) return std::copysign(kInf, x);
  return std::copysign(std::exp(a) * ScaledBesselI(1, a), x);
}

template <typename T>
void I0Kernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryDouble<T, BesselI0>(x, out, 96);
}
template <typename T>
void I0eKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryDouble<T, BesselI0e>(x, out, 96);
}
template <typename T>
void I1Kernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryDouble<T, BesselI1>(x, out, 96);
}
template <typename T>
void I1eKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryDouble<T, BesselI1e>(x, out, 96);
}

// ---- sinc, logit ------------------------------------------------------------------------

// sin(pi x) with the argument reduced to [-1, 1] first: exact zeros at the integers, where
// sin(pi * x) would leave the rounding of pi * x (3.9e-17 at x = 1).
double SinPi(double x) {
  const double r = std::remainder(x, 2.0);
  if (r == 0 || std::fabs(r) == 1) return std::copysign(0.0, r);
  return std::sin(std::numbers::pi * r);
}

double Sinc(double x) {
  if (x == 0) return 1;
  return SinPi(x) / (std::numbers::pi * x);
}

template <typename T>
void SincKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryDouble<T, Sinc>(x, out, 16);
}

// Complex sinc: sin(pi z) / (pi z) in the element type, 1 at 0 (PyTorch's).
template <typename T>
void ComplexSincKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  using R = typename T::value_type;
  UnaryElementwise<T, T>(
      x, out,
      [](T a) -> T {
        if (a == T(0)) return T(1);
        const T p = std::numbers::pi_v<R> * a;
        return std::sin(p) / p;
      },
      16);
}

template <typename T>
void LogitKernel(const DeviceContext&, const DenseTensor& x, double eps, DenseTensor* out) {
  OAR_ENFORCE(eps <= 0.5, errors::InvalidArgument("argument 'eps' must be in [0, 0.5] (or "
                                                  "negative for no clipping), but got ",
                                                  eps));
  UnaryElementwise<T, T>(
      x, out,
      [eps](auto a) {
        double z = static_cast<double>(a);
        if (eps >= 0 && !std::isnan(z)) z = std::clamp(z, eps, 1 - eps);
        return static_cast<decltype(a)>(std::log(z / (1 - z)));
      },
      16);
}

// ---- regularized incomplete gamma functions ------------------------------------------

// {P(a, x), Q(a, x)}: the series of P below x = a + 1, the continued fraction of Q above,
// each complement by subtraction where it is the larger of the two.
struct GammaPQ {
  double p, q;
};

// The edges in torch's order (so a NaN shape still gives the value every shape has at
// x = 0 or x = inf).
GammaPQ IncompleteGamma(double a, double x) {
  if (a < 0 || x < 0) return {kNaN, kNaN};
  if (a == 0) return x > 0 ? GammaPQ{1, 0} : GammaPQ{kNaN, kNaN};  // the limit for x > 0
  if (x == 0) return {0, 1};
  if (std::isinf(a)) return std::isinf(x) ? GammaPQ{kNaN, kNaN} : GammaPQ{0, 1};
  if (std::isinf(x)) return {1, 0};
  if (std::isnan(a) || std::isnan(x)) return {kNaN, kNaN};
  const double log_front = a * std::log(x) - x;  // log(x^a e^-x)
  if (x < a + 1) {
    // P = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a+1)...(a+n))
    double term = 1, sum = 1;
    for (int n = 1; n < 100000 && term > 1e-17 * sum; ++n) {
      term *= x / (a + n);
      sum += term;
    }
    const double p = std::exp(log_front - funcs::LogGamma(a + 1)) * sum;
    return {p, 1 - p};
  }
  const double q = std::exp(log_front - funcs::LogGamma(a)) * funcs::UpperGammaFraction(a, x);
  return {1 - q, q};
}

template <typename T, bool kUpper>
void IncompleteGammaImpl(const DenseTensor& x, const DenseTensor& y, DenseTensor* out) {
  BinaryElementwise<T, T, T>(
      x, y, out,
      [](auto a, auto b) {
        const GammaPQ pq = IncompleteGamma(static_cast<double>(a), static_cast<double>(b));
        return static_cast<decltype(a)>(kUpper ? pq.q : pq.p);
      },
      256);
}

template <typename T>
void GammaincKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                    DenseTensor* out) {
  IncompleteGammaImpl<T, false>(x, y, out);
}

template <typename T>
void GammainccKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& y,
                     DenseTensor* out) {
  IncompleteGammaImpl<T, true>(x, y, out);
}

// ---- logcumsumexp ---------------------------------------------------------------------

// A running logaddexp in double along each line of the axis.
template <typename T>
void LogcumsumexpKernel(const DeviceContext&, const DenseTensor& x_in, int64_t axis,
                        DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor x = funcs::Contiguous(x_in);
  const funcs::AxisSplit s = funcs::SplitAround(x.dims(), NormalizeAxisAllowing0d(axis, x.ndim()));
  const T* in = static_cast<const T*>(x.data());
  T* o = static_cast<T*>(out->AllocateFrom(x.place()));
  if (x.numel() == 0) return;
  ParallelFor(0, s.lines(), 16 * s.n, [&](int64_t b, int64_t e) {
    for (int64_t line = b; line < e; ++line) {
      double acc = -kInf;
      for (int64_t j = 0; j < s.n; ++j) {
        const int64_t at = s.At(line, j);
        acc = LogAddExp(acc, static_cast<double>(static_cast<C>(in[at])));
        o[at] = static_cast<T>(static_cast<C>(acc));
      }
    }
  });
}

// ---- searchsorted -----------------------------------------------------------------------

template <typename T>
void SearchsortedKernel(const DeviceContext&, const DenseTensor& sorted_in,
                        const DenseTensor& values_in, bool out_int32, bool right,
                        DenseTensor* out) {
  using C = compute_t<T>;
  const DenseTensor seq = funcs::Contiguous(sorted_in);
  const DenseTensor values = funcs::Contiguous(values_in);
  const int64_t len = seq.dims()[seq.ndim() - 1];
  const int64_t n = values.numel();
  // values per row of seq: all of them for a 1-D seq, else its last dim
  const int64_t per_row =
      seq.ndim() == 1 ? n : (values.ndim() ? values.dims()[values.ndim() - 1] : 1);
  const T* s = static_cast<const T*>(seq.data());
  const T* v = static_cast<const T*>(values.data());
  void* o = out->AllocateFrom(values.place());
  if (n == 0) return;
  // NaN sorts after every number, as oar.sort puts it.
  auto less = [](C a, C b) { return funcs::LessNanLast(a, b); };
  ParallelFor(0, n, 4 + len / 8, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const T* row = s + (per_row ? i / per_row : 0) * len;
      const C val = static_cast<C>(v[i]);
      auto key = [&](const T& elem, C value) { return less(static_cast<C>(elem), value); };
      auto key_right = [&](C value, const T& elem) { return less(value, static_cast<C>(elem)); };
      const int64_t pos = right ? std::upper_bound(row, row + len, val, key_right) - row
                                : std::lower_bound(row, row + len, val, key) - row;
      if (out_int32) {
        static_cast<int32_t*>(o)[i] = static_cast<int32_t>(pos);
      } else {
        static_cast<int64_t*>(o)[i] = pos;
      }
    }
  });
}

}  // namespace

OAR_REGISTER_KERNEL(copysign, CPU, Any, CopysignKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(signbit, CPU, Any, SignbitKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(nextafter, CPU, Any, NextafterKernel, float, double);
OAR_REGISTER_KERNEL(ldexp_exact, CPU, Any, LdexpKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(frexp_exponent, CPU, Any, FrexpExponentKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(hypot, CPU, Any, HypotKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(logaddexp, CPU, Any, LogaddexpKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(gcd, CPU, Any, GcdKernel, OAR_INT_TYPES);
OAR_REGISTER_KERNEL(lcm, CPU, Any, LcmKernel, OAR_INT_TYPES);
OAR_REGISTER_KERNEL(bitwise_left_shift, CPU, Any, BitwiseLeftShiftKernel, OAR_INT_TYPES);
OAR_REGISTER_KERNEL(bitwise_right_shift, CPU, Any, BitwiseRightShiftKernel, OAR_INT_TYPES);
OAR_REGISTER_KERNEL(i0, CPU, Any, I0Kernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(i0e, CPU, Any, I0eKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(i1, CPU, Any, I1Kernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(i1e, CPU, Any, I1eKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(sinc, CPU, Any, SincKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(sinc, CPU, Any, ComplexSincKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(logit, CPU, Any, LogitKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(gammainc, CPU, Any, GammaincKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(gammaincc, CPU, Any, GammainccKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(logcumsumexp_scan, CPU, Any, LogcumsumexpKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(searchsorted_index, CPU, Any, SearchsortedKernel, OAR_NUMERIC_TYPES);

}  // namespace oar
