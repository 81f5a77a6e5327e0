// The backward helpers of the activations (src/oar/ops/activation.yaml). Each
// *_grad_x_grad returns gg * g * f''(x) built from differentiable ops, so the
// fused first-order backward <op>_grad can itself be differentiated to any order.
// Masks come from comparisons (no gradient, correct away from the kinks), and an
// exponential that a mask later discards is taken of min(x, 0), never of a
// large x: inf * 0 would turn the discarded branch into NaN.
#include <numbers>

#include "oar/eager/backward_helpers.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"

namespace oar {
namespace {

Tensor Const(const Tensor& like, double v) { return full_like(like, v); }
// 1 where cond holds, else 0, in like's dtype.
Tensor Mask(const Tensor& cond, const Tensor& like) { return cast(cond, like.dtype()); }
// 1 - t
Tensor OneMinus(const Tensor& t) { return scale(t, -1.0, 1.0); }
// gg * g * f2
Tensor Chain(const Tensor& g, const Tensor& gg, const Tensor& f2) {
  return multiply(gg, multiply(g, f2));
}
// e ** (k * min(x, 0)) where x < 0, else 0: the second derivative of the
// exponential branch of elu/selu/celu, up to a constant factor. At x = 0 it is 0,
// as PyTorch's elu double backward has it (the first derivative there takes the
// exponential branch: the kink of f' is met from the right).
Tensor NegativeExp(const Tensor& x, double k) {
  const Tensor lt = less_than(x, Const(x, 0.0));
  const Tensor xn = where(lt, x, zeros_like(x));
  return multiply(exp(scale(xn, k)), Mask(lt, x));
}

}  // namespace

Tensor gelu_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg, bool approximate) {
  const Tensor x2 = multiply(x, x);
  if (!approximate) {
    // f'' = phi(x) * (2 - x^2), phi the standard normal density.
    const double inv_sqrt_2pi = std::numbers::inv_sqrtpi / std::numbers::sqrt2;
    const Tensor phi = scale(exp(scale(x2, -0.5)), inv_sqrt_2pi);
    return Chain(g, gg, multiply(phi, scale(x2, -1.0, 2.0)));
  }
  // u = k (x + c x^3), t = tanh(u), a = du/dx = k (1 + 3 c x^2):
  // f'' = (1 - t^2) (k (1 + 6 c x^2) - x t a^2).
  const double k = std::numbers::sqrt2 * std::numbers::inv_sqrtpi, c = 0.044715;
  const Tensor t = tanh(multiply(x, scale(x2, k * c, k)));
  const Tensor a = scale(x2, 3.0 * k * c, k);
  const Tensor inner =
      subtract(scale(x2, 6.0 * k * c, k), multiply(multiply(x, t), multiply(a, a)));
  return Chain(g, gg, multiply(OneMinus(multiply(t, t)), inner));
}

Tensor silu_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg) {
  // s = sigmoid(x): f'' = s (1 - s) (2 + x (1 - 2 s)).
  const Tensor s = sigmoid(x);
  const Tensor inner = scale(multiply(x, scale(s, -2.0, 1.0)), 1.0, 2.0);
  return Chain(g, gg, multiply(multiply(s, OneMinus(s)), inner));
}

Tensor mish_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg) {
  // T = tanh(softplus(x)), s = sigmoid(x): f'' = (1 - T^2) s (2 + x (1 - s - 2 T s)).
  const Tensor s = sigmoid(x);
  const Tensor t = tanh(softplus(x));
  const Tensor inner = scale(multiply(x, OneMinus(multiply(s, scale(t, 2.0, 1.0)))), 1.0, 2.0);
  return Chain(g, gg, multiply(multiply(OneMinus(multiply(t, t)), s), inner));
}

Tensor elu_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg, double alpha) {
  return Chain(g, gg, scale(NegativeExp(x, 1.0), alpha));
}

Tensor selu_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg, double scl,
                        double alpha) {
  return Chain(g, gg, scale(NegativeExp(x, 1.0), scl * alpha));
}

Tensor celu_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg, double alpha) {
  return Chain(g, gg, scale(NegativeExp(x, 1.0 / alpha), 1.0 / alpha));
}

Tensor softplus_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg, double beta,
                            double threshold) {
  // Below the threshold f'' = beta s (1 - s), s = sigmoid(beta x); above it f is x.
  // At beta x = threshold it is 0, as in PyTorch's softplus double backward.
  const Tensor z = scale(x, beta);
  const Tensor s = sigmoid(z);
  const Tensor below = Mask(less_than(z, Const(z, threshold)), x);
  return Chain(g, gg, scale(multiply(multiply(s, OneMinus(s)), below), beta));
}

Tensor softsign_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg) {
  // f'' = -2 sign(x) / (1 + |x|)^3
  const Tensor d = scale(abs(x), 1.0, 1.0);
  return Chain(g, gg, scale(divide(sign(x), multiply(d, multiply(d, d))), -2.0));
}

Tensor log_sigmoid_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg) {
  // f' = sigmoid(-x), f'' = -s (1 - s)
  const Tensor s = sigmoid(x);
  return Chain(g, gg, neg(multiply(s, OneMinus(s))));
}

Tensor tanhshrink_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg) {
  // f' = t^2, f'' = 2 t (1 - t^2)
  const Tensor t = tanh(x);
  return Chain(g, gg, scale(multiply(t, OneMinus(multiply(t, t))), 2.0));
}

Tensor hardswish_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg) {
  // f'' = 1/3 on (-3, 3), 0 outside -- selected, not multiplied, so that an infinite
  // g or gg outside gives 0 (as PyTorch), not inf * 0.
  const Tensor inside = logical_and(greater_than(x, Const(x, -3.0)), less_than(x, Const(x, 3.0)));
  return where(inside, scale(multiply(gg, g), 1.0 / 3.0), zeros_like(x));
}

Tensor prelu_grad_x(const Tensor& x, const Tensor& weight, const Tensor& g) {
  const Tensor pos = Mask(greater_than(x, Const(x, 0.0)), x);
  return add(multiply(g, pos), multiply(multiply(g, weight), OneMinus(pos)));
}

Tensor prelu_grad_weight(const Tensor& x, const Tensor& weight, const Tensor& g) {
  const Tensor nonpos = Mask(less_equal(x, Const(x, 0.0)), x);
  return unbroadcast(multiply(g, multiply(x, nonpos)), weight);
}

}  // namespace oar
