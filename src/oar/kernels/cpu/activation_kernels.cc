// The activations of oar.nn.functional (src/oar/ops/activation.yaml): one fused
// elementwise pass each, forward and backward. Every function is evaluated in
// the compute type (float for float16/bfloat16), and arranged so NaN in gives
// NaN out (comparisons with NaN are false: the branch taken returns NaN). At a
// NaN input a masked gradient (hardtanh, the shrinks) is 0 and a scaled one
// (hardswish, elu) NaN: PyTorch's vectorised loops and Paddle agree on that,
// where PyTorch's scalar tail loop passes grad_out instead.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <type_traits>

#include "oar/kernels/funcs/elementwise.h"
#include "oar/kernels/funcs/vec_chunked.h"
#include "oar/kernels/kernel_registry.h"

namespace oar {
namespace {

using funcs::BinaryElementwise;
using funcs::UnaryElementwise;

// Costs per element for ParallelFor: a transcendental call, or a few flops.
constexpr int64_t kTranscendental = 8;
constexpr int64_t kCheap = 1;

// ---- gelu: x * Phi(x), exact through erf or the tanh approximation.
template <typename C>
struct GeluConst {
  static constexpr C kInvSqrt2 = C(std::numbers::sqrt2 / 2);
  static constexpr C kInvSqrt2Pi = C(std::numbers::inv_sqrtpi / std::numbers::sqrt2);
  static constexpr C kSqrt2OverPi = C(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
  static constexpr C kCubic = C(0.044715);
};

// The transcendental activations run through funcs::VecChunked: each chunk body
// below is a few loops over at most kVecChunk elements around vec::Apply calls
// (`a` the input chunk, `g` the incoming gradient, `y` the result).
template <typename T, typename F>
void Chunked(const DenseTensor& x, DenseTensor* out, F f) {
  funcs::VecChunked<T, 1>({&x}, out, kTranscendental,
                          [&](const auto& in, auto* y, int64_t m) { f(in[0], y, m); });
}
template <typename T, typename F>
void Chunked(const DenseTensor& x, const DenseTensor& grad_out, DenseTensor* x_grad, F f) {
  funcs::VecChunked<T, 2>({&x, &grad_out}, x_grad, kTranscendental,
                          [&](const auto& in, auto* y, int64_t m) { f(in[0], in[1], y, m); });
}

using vec::Fn;

}  // namespace

template <typename T>
void GeluKernel(const DeviceContext&, const DenseTensor& x, bool approximate, DenseTensor* out) {
  using C = compute_t<T>;
  using K = GeluConst<C>;
  Chunked<T>(x, out, [approximate](const C* a, C* y, int64_t m) {
    if constexpr (std::is_same_v<C, float>) {
      if (!approximate) return vec::Gelu(a, y, m);
    }
    if (approximate) {
      for (int64_t k = 0; k < m; ++k)
        y[k] = K::kSqrt2OverPi * (a[k] + K::kCubic * a[k] * a[k] * a[k]);
      vec::Apply(Fn::kTanh, y, y, m);
    } else {
      for (int64_t k = 0; k < m; ++k) y[k] = a[k] * K::kInvSqrt2;
      vec::Apply(vec::Fn::kErf, y, y, m);
    }
    for (int64_t k = 0; k < m; ++k) y[k] = C(0.5) * a[k] * (C(1) + y[k]);
  });
}
template <typename T>
void GeluGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                    bool approximate, DenseTensor* x_grad) {
  using C = compute_t<T>;
  using K = GeluConst<C>;
  Chunked<T>(x, grad_out, x_grad, [approximate](const C* a, const C* g, C* y, int64_t m) {
    if constexpr (std::is_same_v<C, float>) {
      if (!approximate) return vec::GeluGrad(a, g, y, m);
    }
    if (approximate) {
      for (int64_t k = 0; k < m; ++k)
        y[k] = K::kSqrt2OverPi * a[k] * (C(1) + K::kCubic * a[k] * a[k]);
      vec::Apply(Fn::kTanh, y, y, m);
      for (int64_t k = 0; k < m; ++k) {
        const C x2 = a[k] * a[k], t = y[k];
        y[k] = g[k] * (C(0.5) * (C(1) + t) + C(0.5) * a[k] * (C(1) - t * t) * K::kSqrt2OverPi *
                                                 (C(1) + C(3) * K::kCubic * x2));
      }
      return;
    }
    C e[funcs::kVecChunk];
    for (int64_t k = 0; k < m; ++k) {
      y[k] = a[k] * K::kInvSqrt2;
      e[k] = C(-0.5) * a[k] * a[k];
    }
    vec::Apply(vec::Fn::kErf, y, y, m);
    vec::Apply(Fn::kExp, e, e, m);
    for (int64_t k = 0; k < m; ++k)
      y[k] = g[k] * (C(0.5) * (C(1) + y[k]) + a[k] * K::kInvSqrt2Pi * e[k]);
  });
}

// ---- silu (swish): x * sigmoid(x).
template <typename T>
void SiluKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  using C = compute_t<T>;
  Chunked<T>(x, out, [](const C* a, C* y, int64_t m) {
    vec::Apply(Fn::kSigmoid, a, y, m);
    for (int64_t k = 0; k < m; ++k) y[k] *= a[k];
  });
}
template <typename T>
void SiluGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                    DenseTensor* x_grad) {
  using C = compute_t<T>;
  Chunked<T>(x, grad_out, x_grad, [](const C* a, const C* g, C* y, int64_t m) {
    vec::Apply(Fn::kSigmoid, a, y, m);
    for (int64_t k = 0; k < m; ++k) y[k] = g[k] * y[k] * (C(1) + a[k] * (C(1) - y[k]));
  });
}

// ---- mish: x * tanh(softplus(x)), softplus with PyTorch's and Paddle's threshold
// of 20 (above it softplus(x) is x to working precision).
namespace {
// y = tanh(softplus(a)).
template <typename C>
void MishTanhSoftplus(const C* a, C* y, int64_t m) {
  vec::Apply(Fn::kExp, a, y, m);
  vec::Apply(Fn::kLog1p, y, y, m);
  for (int64_t k = 0; k < m; ++k) y[k] = a[k] > C(20) ? a[k] : y[k];
  vec::Apply(Fn::kTanh, y, y, m);
}
}  // namespace
template <typename T>
void MishKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  using C = compute_t<T>;
  Chunked<T>(x, out, [](const C* a, C* y, int64_t m) {
    MishTanhSoftplus(a, y, m);
    for (int64_t k = 0; k < m; ++k) y[k] *= a[k];
  });
}
template <typename T>
void MishGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                    DenseTensor* x_grad) {
  using C = compute_t<T>;
  Chunked<T>(x, grad_out, x_grad, [](const C* a, const C* g, C* y, int64_t m) {
    C s[funcs::kVecChunk];
    MishTanhSoftplus(a, y, m);
    vec::Apply(Fn::kSigmoid, a, s, m);
    for (int64_t k = 0; k < m; ++k) y[k] = g[k] * (y[k] + a[k] * (C(1) - y[k] * y[k]) * s[k]);
  });
}

// ---- elu, selu, celu: out = pos * x for x > 0, neg * expm1(x / in_div) otherwise
// (expm1 is exact near 0); the gradient is g pos, or g neg / in_div exp(x / in_div).
namespace {
// x * in_scale, or x / in_div where in_scale = 1 / in_div is not a normal number of C:
// celu's 1 / alpha for alpha = -1e-320 is -inf, and 0 * -inf made celu(0) NaN.
template <typename C>
void ScaleInput(const C* a, C* y, int64_t m, double in_div) {
  const C s = C(1.0 / in_div);
  if (std::isnormal(s)) {
    for (int64_t k = 0; k < m; ++k) y[k] = a[k] * s;
  } else {
    for (int64_t k = 0; k < m; ++k) y[k] = C(static_cast<double>(a[k]) / in_div);
  }
}
template <typename T>
void ExpLinear(const DenseTensor& x, double pos, double neg, double in_div, DenseTensor* out) {
  using C = compute_t<T>;
  const C p = C(pos), n = C(neg);
  Chunked<T>(x, out, [=](const C* a, C* y, int64_t m) {
    ScaleInput(a, y, m, in_div);
    vec::Apply(Fn::kExpm1, y, y, m);
    for (int64_t k = 0; k < m; ++k) y[k] = a[k] > C(0) ? p * a[k] : n * y[k];
  });
}
template <typename T>
void ExpLinearGrad(const DenseTensor& x, const DenseTensor& grad_out, double pos, double neg,
                   double in_div, DenseTensor* x_grad) {
  using C = compute_t<T>;
  const C p = C(pos), n = C(neg / in_div);
  Chunked<T>(x, grad_out, x_grad, [=](const C* a, const C* g, C* y, int64_t m) {
    ScaleInput(a, y, m, in_div);
    vec::Apply(Fn::kExp, y, y, m);
    for (int64_t k = 0; k < m; ++k) y[k] = a[k] > C(0) ? g[k] * p : g[k] * n * y[k];
  });
}
}  // namespace
template <typename T>
void EluKernel(const DeviceContext&, const DenseTensor& x, double alpha, DenseTensor* out) {
  ExpLinear<T>(x, 1.0, alpha, 1.0, out);
}
template <typename T>
void EluGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                   double alpha, DenseTensor* x_grad) {
  ExpLinearGrad<T>(x, grad_out, 1.0, alpha, 1.0, x_grad);
}
template <typename T>
void SeluKernel(const DeviceContext&, const DenseTensor& x, double scale, double alpha,
                DenseTensor* out) {
  ExpLinear<T>(x, scale, scale * alpha, 1.0, out);
}
template <typename T>
void SeluGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                    double scale, double alpha, DenseTensor* x_grad) {
  ExpLinearGrad<T>(x, grad_out, scale, scale * alpha, 1.0, x_grad);
}
template <typename T>
void CeluKernel(const DeviceContext&, const DenseTensor& x, double alpha, DenseTensor* out) {
  ExpLinear<T>(x, 1.0, alpha, alpha, out);
}
template <typename T>
void CeluGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                    double alpha, DenseTensor* x_grad) {
  // d/dx alpha expm1(x / alpha) = exp(x / alpha): neg / in_div = 1.
  ExpLinearGrad<T>(x, grad_out, 1.0, alpha, alpha, x_grad);
}

// ---- softplus: log(1 + e ** (beta x)) / beta, linear above the threshold;
// max(z, 0) + log1p(e ** -|z|) never overflows.
template <typename T>
void SoftplusKernel(const DeviceContext&, const DenseTensor& x, double beta, double threshold,
                    DenseTensor* out) {
  using C = compute_t<T>;
  const C b = static_cast<C>(beta), th = static_cast<C>(threshold), inv = static_cast<C>(1 / beta);
  Chunked<T>(x, out, [=](const C* a, C* y, int64_t m) {
    for (int64_t k = 0; k < m; ++k) y[k] = -std::abs(a[k] * b);
    vec::Apply(Fn::kExp, y, y, m);
    vec::Apply(Fn::kLog1p, y, y, m);
    for (int64_t k = 0; k < m; ++k) {
      const C z = a[k] * b;
      y[k] = z > th ? a[k] : (std::max(z, C(0)) + y[k]) * inv;
    }
  });
}
template <typename T>
void SoftplusGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                        double beta, double threshold, DenseTensor* x_grad) {
  using C = compute_t<T>;
  const C b = static_cast<C>(beta), th = static_cast<C>(threshold);
  Chunked<T>(x, grad_out, x_grad, [=](const C* a, const C* g, C* y, int64_t m) {
    for (int64_t k = 0; k < m; ++k) y[k] = a[k] * b;
    vec::Apply(Fn::kSigmoid, y, y, m);
    for (int64_t k = 0; k < m; ++k) y[k] = a[k] * b > th ? g[k] : g[k] * y[k];
  });
}

// ---- softsign, log_sigmoid, tanhshrink, hardswish
template <typename T>
void SoftsignKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<T, T>(x, out, [](auto a) { return a / (decltype(a)(1) + std::abs(a)); }, 2);
}
template <typename T>
void SoftsignGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                        DenseTensor* x_grad) {
  BinaryElementwise<T, T, T>(
      x, grad_out, x_grad,
      [](auto a, auto g) {
        const auto d = decltype(a)(1) + std::abs(a);
        return g / (d * d);
      },
      2);
}
template <typename T>
void LogSigmoidKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  // log(sigmoid(x)) = -softplus(-x) = min(x, 0) - log1p(e ** -|x|).
  using C = compute_t<T>;
  Chunked<T>(x, out, [](const C* a, C* y, int64_t m) {
    for (int64_t k = 0; k < m; ++k) y[k] = -std::abs(a[k]);
    vec::Apply(Fn::kExp, y, y, m);
    vec::Apply(Fn::kLog1p, y, y, m);
    for (int64_t k = 0; k < m; ++k) y[k] = std::min(a[k], C(0)) - y[k];
  });
}
template <typename T>
void LogSigmoidGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                          DenseTensor* x_grad) {
  // sigmoid(-x) from e ** -|x|, which never overflows.
  using C = compute_t<T>;
  Chunked<T>(x, grad_out, x_grad, [](const C* a, const C* g, C* y, int64_t m) {
    for (int64_t k = 0; k < m; ++k) y[k] = -std::abs(a[k]);
    vec::Apply(Fn::kExp, y, y, m);
    for (int64_t k = 0; k < m; ++k)
      y[k] = g[k] * (a[k] < C(0) ? C(1) / (C(1) + y[k]) : y[k] / (C(1) + y[k]));
  });
}
template <typename T>
void TanhshrinkKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  using C = compute_t<T>;
  Chunked<T>(x, out, [](const C* a, C* y, int64_t m) {
    vec::Apply(Fn::kTanh, a, y, m);
    for (int64_t k = 0; k < m; ++k) y[k] = a[k] - y[k];
  });
}
template <typename T>
void TanhshrinkGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                          DenseTensor* x_grad) {
  using C = compute_t<T>;
  Chunked<T>(x, grad_out, x_grad, [](const C* a, const C* g, C* y, int64_t m) {
    vec::Apply(Fn::kTanh, a, y, m);
    for (int64_t k = 0; k < m; ++k) y[k] = g[k] * y[k] * y[k];
  });
}
template <typename T>
void HardswishKernel(const DeviceContext&, const DenseTensor& x, DenseTensor* out) {
  UnaryElementwise<T, T>(
      x, out,
      [](auto a) {
        using C = decltype(a);
        return a * std::min(std::max(a + C(3), C(0)), C(6)) / C(6);
      },
      kCheap);
}
template <typename T>
void HardswishGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                         DenseTensor* x_grad) {
  BinaryElementwise<T, T, T>(
      x, grad_out, x_grad,
      [](auto a, auto g) {
        using C = decltype(a);
        // The kinks belong to the flat pieces (0 at -3, g at 3), as in PyTorch and
        // Paddle; NaN falls through to the middle piece and gives NaN.
        if (a <= C(-3)) return C(0);
        return a >= C(3) ? g : g * (a / C(3) + C(0.5));
      },
      kCheap);
}

// ---- piecewise linear: the gradient is a mask (times a slope).
template <typename T>
void LeakyReluKernel(const DeviceContext&, const DenseTensor& x, double negative_slope,
                     DenseTensor* out) {
  using C = compute_t<T>;
  const C s = static_cast<C>(negative_slope);
  UnaryElementwise<T, T>(x, out, [=](C a) { return a > C(0) ? a : a * s; }, kCheap);
}
template <typename T>
void LeakyReluGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                         double negative_slope, DenseTensor* x_grad) {
  using C = compute_t<T>;
  const C s = static_cast<C>(negative_slope);
  BinaryElementwise<T, T, T>(
      x, grad_out, x_grad, [=](C a, C g) { return a > C(0) ? g : g * s; }, kCheap);
}
template <typename T>
void HardsigmoidKernel(const DeviceContext&, const DenseTensor& x, double slope, double offset,
                       DenseTensor* out) {
  using C = compute_t<T>;
  const C s = static_cast<C>(slope), o = static_cast<C>(offset);
  UnaryElementwise<T, T>(
      x, out,
      [=](C a) {
        const C y = a * s + o;
        return y < C(0) ? C(0) : (y > C(1) ? C(1) : y);
      },
      kCheap);
}
template <typename T>
void HardsigmoidGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                           double slope, double offset, DenseTensor* x_grad) {
  using C = compute_t<T>;
  const C s = static_cast<C>(slope), o = static_cast<C>(offset);
  BinaryElementwise<T, T, T>(
      x, grad_out, x_grad,
      [=](C a, C g) {
        const C y = a * s + o;
        return y > C(0) && y < C(1) ? g * s : C(0);
      },
      kCheap);
}
template <typename T>
void HardtanhKernel(const DeviceContext&, const DenseTensor& x, double min, double max,
                    DenseTensor* out) {
  using C = compute_t<T>;
  const C lo = static_cast<C>(min), hi = static_cast<C>(max);
  UnaryElementwise<T, T>(x, out, [=](C a) { return a < lo ? lo : (a > hi ? hi : a); }, kCheap);
}
template <typename T>
void HardtanhGradKernel(const DeviceContext&, const DenseTensor& out, const DenseTensor& grad_out,
                        double min, double max, DenseTensor* x_grad) {
  using C = compute_t<T>;
  const C lo = static_cast<C>(min), hi = static_cast<C>(max);
  BinaryElementwise<T, T, T>(
      out, grad_out, x_grad, [=](C a, C g) { return a > lo && a < hi ? g : C(0); }, kCheap);
}
template <typename T>
void SoftshrinkKernel(const DeviceContext&, const DenseTensor& x, double threshold,
                      DenseTensor* out) {
  using C = compute_t<T>;
  const C t = static_cast<C>(threshold);
  UnaryElementwise<T, T>(
      x, out,
      [=](C a) {
        if (a >= -t && a <= t) return C(0);
        return a > t ? a - t : a + t;
      },
      kCheap);
}
namespace {
// Both shrinks pass the gradient outside [-threshold, threshold] and stop it inside
// (and at NaN).
template <typename T>
void ShrinkGrad(const DenseTensor& x, const DenseTensor& grad_out, double threshold,
                DenseTensor* x_grad) {
  using C = compute_t<T>;
  const C t = static_cast<C>(threshold);
  BinaryElementwise<T, T, T>(
      x, grad_out, x_grad, [=](C a, C g) { return a < -t || a > t ? g : C(0); }, kCheap);
}
}  // namespace
template <typename T>
void SoftshrinkGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                          double threshold, DenseTensor* x_grad) {
  ShrinkGrad<T>(x, grad_out, threshold, x_grad);
}
template <typename T>
void HardshrinkKernel(const DeviceContext&, const DenseTensor& x, double threshold,
                      DenseTensor* out) {
  using C = compute_t<T>;
  const C t = static_cast<C>(threshold);
  UnaryElementwise<T, T>(x, out, [=](C a) { return a >= -t && a <= t ? C(0) : a; }, kCheap);
}
template <typename T>
void HardshrinkGradKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& grad_out,
                          double threshold, DenseTensor* x_grad) {
  ShrinkGrad<T>(x, grad_out, threshold, x_grad);
}
template <typename T>
void ThresholdedReluKernel(const DeviceContext&, const DenseTensor& x, double threshold,
                           double value, DenseTensor* out) {
  using C = compute_t<T>;
  const C t = static_cast<C>(threshold), v = static_cast<C>(value);
  UnaryElementwise<T, T>(x, out, [=](C a) { return a <= t ? v : a; }, kCheap);
}
template <typename T>
void ThresholdedReluGradKernel(const DeviceContext&, const DenseTensor& x,
                               const DenseTensor& grad_out, double threshold, DenseTensor* x_grad) {
  using C = compute_t<T>;
  const C t = static_cast<C>(threshold);
  BinaryElementwise<T, T, T>(
      x, grad_out, x_grad, [=](C a, C g) { return a <= t ? C(0) : g; }, kCheap);
}

// ---- prelu: weight already shaped to broadcast against x (PreluInferMeta).
template <typename T>
void PreluKernel(const DeviceContext&, const DenseTensor& x, const DenseTensor& weight,
                 DenseTensor* out) {
  BinaryElementwise<T, T, T>(
      x, weight, out, [](auto a, auto w) { return a > decltype(a)(0) ? a : a * w; }, kCheap);
}

OAR_REGISTER_KERNEL(gelu, CPU, Any, GeluKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(gelu_grad, CPU, Any, GeluGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(silu, CPU, Any, SiluKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(silu_grad, CPU, Any, SiluGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(mish, CPU, Any, MishKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(mish_grad, CPU, Any, MishGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(elu, CPU, Any, EluKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(elu_grad, CPU, Any, EluGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(selu, CPU, Any, SeluKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(selu_grad, CPU, Any, SeluGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(celu, CPU, Any, CeluKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(celu_grad, CPU, Any, CeluGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(softplus, CPU, Any, SoftplusKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(softplus_grad, CPU, Any, SoftplusGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(softsign, CPU, Any, SoftsignKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(softsign_grad, CPU, Any, SoftsignGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(log_sigmoid, CPU, Any, LogSigmoidKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(log_sigmoid_grad, CPU, Any, LogSigmoidGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(tanhshrink, CPU, Any, TanhshrinkKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(tanhshrink_grad, CPU, Any, TanhshrinkGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(hardswish, CPU, Any, HardswishKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(hardswish_grad, CPU, Any, HardswishGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(leaky_relu, CPU, Any, LeakyReluKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(leaky_relu_grad, CPU, Any, LeakyReluGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(hardsigmoid, CPU, Any, HardsigmoidKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(hardsigmoid_grad, CPU, Any, HardsigmoidGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(hardtanh, CPU, Any, HardtanhKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(hardtanh_grad, CPU, Any, HardtanhGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(softshrink, CPU, Any, SoftshrinkKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(softshrink_grad, CPU, Any, SoftshrinkGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(hardshrink, CPU, Any, HardshrinkKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(hardshrink_grad, CPU, Any, HardshrinkGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(thresholded_relu, CPU, Any, ThresholdedReluKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(thresholded_relu_grad, CPU, Any, ThresholdedReluGradKernel, OAR_FLOAT_TYPES);
OAR_REGISTER_KERNEL(prelu, CPU, Any, PreluKernel, OAR_FLOAT_TYPES);

}  // namespace oar
