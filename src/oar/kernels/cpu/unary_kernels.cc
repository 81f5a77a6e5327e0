// Elementwise unary kernels (math functions, activations, scale, pow, cast,
// assign, floor, fill) and the fused gradients of activations.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "oar/kernels/funcs/copy.h"
#include "oar/kernels/funcs/elementwise.h"
#include "oar/kernels/funcs/vec_unary.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {

using funcs::BinaryElementwise;
using funcs::UnaryElementwise;

#define OAR_UNARY_KERNEL(Name, cost, expr)                                  \
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

OAR_UNARY_KERNEL(SqrtKernel, 4, static_cast<C>(std::sqrt(a)))

// The transcendental functions run on SLEEF through vec_math (1 ulp, libm's
// special values), at the SIMD width the CPU has.
OAR_VEC_UNARY_KERNEL(ExpKernel, kExp)
OAR_VEC_UNARY_KERNEL(LogKernel, kLog)
OAR_VEC_UNARY_KERNEL(SinKernel, kSin)
OAR_VEC_UNARY_KERNEL(CosKernel, kCos)
OAR_VEC_UNARY_KERNEL(TanhKernel, kTanh)
OAR_VEC_UNARY_KERNEL(SigmoidKernel, kSigmoid)

// Comparisons with NaN are false, so each expression below is arranged for
// NaN to take the branch that returns it: NaN in, NaN out (IEEE, PyTorch).
// abs of a floating type clears the sign bit (std::abs: one AND; NaN stays NaN, -0
// becomes +0). The select it replaced (a < 0 ? -a : a + 0) compiled to three loads of
// each input vector: abs of x[:, :768] of a [1024, 1024] float32 matrix took 100 us on
// two Zen 3 threads, and takes 70.
OAR_UNARY_KERNEL(AbsKernel, 1, [&] {
  if constexpr (std::is_floating_point_v<C>) {
    return C(std::abs(a));
  } else {
    return a < C(0) ? C(-a) : a;
  }
}())
OAR_UNARY_KERNEL(ReluKernel, 1, a < C(0) ? C(0) : a)
OAR_UNARY_KERNEL(NegKernel, 1, static_cast<C>(-a))
OAR_UNARY_KERNEL(SignKernel, 1, static_cast<C>((C(0) < a) - (a < C(0))))
OAR_UNARY_KERNEL(AssignKernel, 1, a)
#undef OAR_UNARY_KERNEL

// A double result stored into an integer dtype: truncated toward zero, and
// saturated at the dtype's limits (NaN to 0), since converting an out-of-range
// double to an integer is undefined behaviour (scale(x, 1e308) on int32).
template <typename C>
C SaturatingCast(double v) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    if (std::isnan(v)) return C(0);
    if (v <= static_cast<double>(std::numeric_limits<C>::lowest())) {
      return std::numeric_limits<C>::lowest();
    }
    // max() of int64 is not a double: compare with 2**63 itself.
    if (v >= std::ldexp(1.0, std::numeric_limits<C>::digits)) return std::numeric_limits<C>::max();
  }
  return static_cast<C>(v);
}

template <typename T>
void ScaleKernel(const DeviceContext&, const DenseTensor& x, double scale, double bias,
                 bool bias_after_scale, DenseTensor* out) {
  using C = compute_t<T>;
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    // Integer scale and bias (x + 1, x * 2 on an int8 tensor): exact in int64,
    // wrapping in the narrow dtype as Paddle's and torch's integer kernels do.
    const bool exact = scale == std::trunc(scale) && bias == std::trunc(bias) &&
                       std::abs(scale) < 0x1p31 && std::abs(bias) < 0x1p31;
    if (exact && sizeof(C) < sizeof(int64_t)) {
      const int64_t s = static_cast<int64_t>(scale), b = static_cast<int64_t>(bias);
      UnaryElementwise<T, T>(x, out, [=](C a) {
        const int64_t v = bias_after_scale ? s * a + b : s * (a + b);
        return static_cast<C>(static_cast<uint64_t>(v));
      });
      return;
    }
    UnaryElementwise<T, T>(x, out, [=](C a) {
      return SaturatingCast<C>(bias_after_scale ? scale * a + bias : scale * (a + bias));
    });
  } else {
    const C s = static_cast<C>(scale), b = static_cast<C>(bias);
    if (bias == 0.0) {
      // Adding +0.0 would turn -0.0 into +0.0 and flip the sign of whatever
      // divides by it (the gradient of sqrt at -0.0 is -inf).
      UnaryElementwise<T, T>(x, out, [=](C a) { return s * a; });
    } else if (bias_after_scale) {
      UnaryElementwise<T, T>(x, out, [=](C a) { return s * a + b; });
    } else {
      UnaryElementwise<T, T>(x, out, [=](C a) { return s * (a + b); });
    }
  }
}

template <typename T>
void PowKernel(const DeviceContext&, const DenseTensor& x, double y, DenseTensor* out) {
  using C = compute_t<T>;
  // The exponents with a cheaper exact form, as PyTorch computes them: x ** 0.5
  // is sqrt(x), so (-inf) ** 0.5 and its gradient (-inf) ** -0.5 are NaN, not
  // std::pow's +inf and 0.
  if (y == 2.0) {
    UnaryElementwise<T, T>(x, out, [](C a) { return a * a; });
  } else if (y == 0.5 && std::is_floating_point_v<C>) {
    UnaryElementwise<T, T>(x, out, [](C a) { return static_cast<C>(std::sqrt(a)); }, 4);
  } else if (y == -0.5 && std::is_floating_point_v<C>) {
    UnaryElementwise<T, T>(x, out, [](C a) { return static_cast<C>(C(1) / std::sqrt(a)); }, 4);
  } else if (y == 1.0) {
    UnaryElementwise<T, T>(x, out, [](C a) { return a; });
  } else {
    UnaryElementwise<T, T>(
        x, out, [=](C a) { return SaturatingCast<C>(std::pow(static_cast<double>(a), y)); }, 8);
  }
}

template <typename T>
void CastKernel(const DeviceContext&, const DenseTensor& x, DType dtype, DenseTensor* out) {
  (void)dtype;  // the output meta already carries it
  out->AllocateFrom(x.place());
  funcs::CopyInto(x, out);
}

template <typename T>
void FloorKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  funcs::UnaryElementwise<T, T>(x, out, [](auto a) {
    using C = decltype(a);
    if constexpr (std::is_integral_v<C>) {
      return a;
    } else {
      return static_cast<C>(std::floor(a));
    }
  });
}

// Writes into `out`, which is x itself for fill_.
template <typename T>
void FillKernel(const DeviceContext& ctx, const DenseTensor&, const Scalar& value,
                DenseTensor* out) {
  out->AllocateFrom(ctx.GetPlace());
  funcs::Fill(out, value);
}

// Fused gradients: one pass instead of three ops, with their own backward.
template <typename T>
void TanhGradKernel(const DeviceContext&, const DenseTensor& out, const DenseTensor& grad_out,
                    DenseTensor* x_grad) {
  BinaryElementwise<T, T, T>(out, grad_out, x_grad,
                             [](auto o, auto g) { return g * (decltype(o)(1) - o * o); });
}
template <typename T>
void SigmoidGradKernel(const DeviceContext&, const DenseTensor& out, const DenseTensor& grad_out,
                       DenseTensor* x_grad) {
  BinaryElementwise<T, T, T>(out, grad_out, x_grad,
                             [](auto o, auto g) { return g * o * (decltype(o)(1) - o); });
}
template <typename T>
void ReluGradKernel(const DeviceContext&, const DenseTensor& out, const DenseTensor& grad_out,
                    DenseTensor* x_grad) {
  // out <= 0 is false for NaN: the gradient passes there, as in PyTorch.
  BinaryElementwise<T, T, T>(out, grad_out, x_grad, [](auto o, auto g) {
    return o <= decltype(o)(0) ? decltype(g)(0) : g;
  });
}

// Complex elements: std::complex's functions (principal branches, as numpy,
// PyTorch and Paddle); SLEEF has no complex functions.
#define OAR_COMPLEX_UNARY_KERNEL(Name, cost, expr)                          \
  template <typename T>                                                     \
  void Name(const DeviceContext&, const DenseTensor& x, DenseTensor* out) { \
    UnaryElementwise<T, T>(x, out, [](T a) -> T { return expr; }, cost);    \
  }
OAR_COMPLEX_UNARY_KERNEL(ComplexExpKernel, 8, std::exp(a))
OAR_COMPLEX_UNARY_KERNEL(ComplexLogKernel, 8, std::log(a))
OAR_COMPLEX_UNARY_KERNEL(ComplexSqrtKernel, 8, std::sqrt(a))
OAR_COMPLEX_UNARY_KERNEL(ComplexSinKernel, 8, std::sin(a))
OAR_COMPLEX_UNARY_KERNEL(ComplexCosKernel, 8, std::cos(a))
OAR_COMPLEX_UNARY_KERNEL(ComplexTanhKernel, 8, std::tanh(a))
// 1 / (1 + e^-z), as PyTorch's complex sigmoid.
OAR_COMPLEX_UNARY_KERNEL(ComplexSigmoidKernel, 8, T(1) / (T(1) + std::exp(-a)))
OAR_COMPLEX_UNARY_KERNEL(ComplexNegKernel, 1, -a)
// sign(z) = z / |z| (0 at 0), Paddle's and PyTorch's sgn.
OAR_COMPLEX_UNARY_KERNEL(ComplexSignKernel, 4, a == T(0) ? T(0) : a / std::abs(a))
#undef OAR_COMPLEX_UNARY_KERNEL

// |z| is real: out has the real dtype (AbsInferMeta). A complex64 |z| is taken from
// the squares in double, which neither overflow nor underflow for any float and
// round once: the loop vectorises, where std::abs (hypotf) ran one element at a time
// (1.7 ms for 2^20 elements against ~0.2). An infinite part gives inf even beside a
// NaN, as hypot does.
template <typename T>
auto ComplexMagnitude(T a) -> typename T::value_type {
  using R = typename T::value_type;
  if constexpr (std::is_same_v<R, float>) {
    const double re = a.real(), im = a.imag();
    const double m = std::sqrt(re * re + im * im);
    return std::isinf(a.real()) || std::isinf(a.imag()) ? INFINITY : static_cast<float>(m);
  } else {
    return std::abs(a);
  }
}

template <typename T>
void ComplexAbsKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  using R = typename T::value_type;
  UnaryElementwise<R, T>(x, out, [](T a) -> R { return ComplexMagnitude(a); }, 4);
}

template <typename T>
void ComplexPowKernel(const DeviceContext&, const DenseTensor& x, double y, DenseTensor* out) {
  using R = typename T::value_type;
  if (y == 2.0) {
    UnaryElementwise<T, T>(x, out, [](T a) -> T { return a * a; });
  } else if (y == 0.0) {
    // x ** 0 is 1 for every x, as for real pow and in Paddle and PyTorch; std::pow's
    // exp(0 * log x) gives NaN at x = 0 (0 * -inf) and at infinite or NaN parts.
    UnaryElementwise<T, T>(x, out, [](T) -> T { return T(1); });
  } else {
    const R e = static_cast<R>(y);
    UnaryElementwise<T, T>(x, out, [=](T a) -> T { return std::pow(a, e); }, 8);
  }
}

template <typename T>
void ComplexScaleKernel(const DeviceContext&, const DenseTensor& x, double scale, double bias,
                        bool bias_after_scale, DenseTensor* out) {
  using R = typename T::value_type;
  const R s = static_cast<R>(scale), b = static_cast<R>(bias);
  if (bias == 0.0) {
    UnaryElementwise<T, T>(x, out, [=](T a) -> T { return s * a; });
  } else if (bias_after_scale) {
    UnaryElementwise<T, T>(x, out, [=](T a) -> T { return s * a + b; });
  } else {
    UnaryElementwise<T, T>(x, out, [=](T a) -> T { return s * (a + b); });
  }
}

OAR_REGISTER_KERNEL(exp, CPU, Any, ComplexExpKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(log, CPU, Any, ComplexLogKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(sqrt, CPU, Any, ComplexSqrtKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(sin, CPU, Any, ComplexSinKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(cos, CPU, Any, ComplexCosKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(tanh, CPU, Any, ComplexTanhKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(sigmoid, CPU, Any, ComplexSigmoidKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(neg, CPU, Any, ComplexNegKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(sign, CPU, Any, ComplexSignKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(abs, CPU, Any, ComplexAbsKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(pow, CPU, Any, ComplexPowKernel, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(scale, CPU, Any, ComplexScaleKernel, OAR_COMPLEX_TYPES);

OAR_REGISTER_KERNEL(exp, CPU, Any, ExpKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(log, CPU, Any, LogKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(sqrt, CPU, Any, SqrtKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(sin, CPU, Any, SinKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(cos, CPU, Any, CosKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(tanh, CPU, Any, TanhKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(sigmoid, CPU, Any, SigmoidKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(abs, CPU, Any, AbsKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(relu, CPU, Any, ReluKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(neg, CPU, Any, NegKernel, OAR_NUMERIC_TYPES);
// -x of bool is x, as Paddle's (-true is nonzero: true).
OAR_REGISTER_KERNEL(neg, CPU, Any, AssignKernel, bool);
OAR_REGISTER_KERNEL(sign, CPU, Any, SignKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(assign, CPU, Any, AssignKernel, OAR_ALL_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(scale, CPU, Any, ScaleKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(pow, CPU, Any, PowKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(cast, CPU, Any, CastKernel, OAR_ALL_TYPES, OAR_COMPLEX_TYPES);
// float8 tensors are storage only (core/float8.h): casts and copies.
OAR_REGISTER_KERNEL(cast, CPU, Any, CastKernel, OAR_FLOAT8_TYPES);
OAR_REGISTER_KERNEL(assign, CPU, Any, AssignKernel, OAR_FLOAT8_TYPES);
OAR_REGISTER_KERNEL(floor, CPU, Any, FloorKernel, OAR_NUMERIC_TYPES);
OAR_REGISTER_KERNEL(fill, CPU, Any, FillKernel, OAR_ALL_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(tanh_grad, CPU, Any, TanhGradKernel, OAR_FLOAT_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(sigmoid_grad, CPU, Any, SigmoidGradKernel, OAR_FLOAT_TYPES, OAR_COMPLEX_TYPES);
OAR_REGISTER_KERNEL(relu_grad, CPU, Any, ReluGradKernel, OAR_NUMERIC_TYPES);

}  // namespace oar
