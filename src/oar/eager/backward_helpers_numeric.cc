// Backward helpers of the numeric section (src/oar/ops/numeric.yaml), in
// differentiable ops so every order of gradient works (Note [Gradients of any order]).
#include <cmath>
#include <limits>
#include <numbers>

#include "oar/eager/backward_helpers.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"
#include "oar/kernels/infer_meta.h"

namespace oar {
namespace {

Tensor is_zero(const Tensor& x) { return equal(x, zeros_like(x)); }

// x with its zeros replaced by ones: a divisor that stays finite where a formula's limit
// at 0 is taken from another branch.
Tensor nonzero_divisor(const Tensor& x) { return where(is_zero(x), ones_like(x), x); }

// The most negative finite value of a floating dtype.
double LowestFinite(DType t) {
  switch (t) {
    case DType::kFloat64:
      return std::numeric_limits<double>::lowest();
    case DType::kFloat16:
      return -65504.0;
    default:  // float32; bfloat16 shares its exponent range, and rounds this down to its own
      return -3.0e38;
  }
}

}  // namespace

Tensor copysign_grad_factor(const Tensor& x, const Tensor& y) {
  return multiply(sign(x), copysign(ones_like(y), y));
}

Tensor i1_grad_factor(const Tensor& x, const Tensor& out, bool scaled) {
  const Tensor xs = nonzero_divisor(x);
  Tensor r = subtract(scaled ? i0e(x) : i0(x), divide(out, xs));
  if (scaled) r = subtract(r, multiply(sign(x), out));
  return where(is_zero(x), full_like(x, 0.5), r);
}

Tensor sinc_grad_factor(const Tensor& x, const Tensor& out) {
  // the numerator is 0 at x = 0 too, so the divisor 1 there gives the limit 0
  return divide(subtract(cos(scale(x, std::numbers::pi)), out), nonzero_divisor(x));
}

Tensor logit_grad_factor(const Tensor& x, double eps) {
  // |x (1 - x)|: the same inside [0, 1], and +inf (the limit from inside) at -0.0
  const Tensor r = reciprocal(abs(multiply(x, scale(x, -1.0, 1.0))));
  // "not below or above" rather than "inside": a NaN x keeps its NaN gradient, as in
  // Paddle's kernel and PyTorch's scalar loop (PyTorch's vectorised loop gives 0 there)
  const double lo = eps >= 0 ? eps : 0.0, hi = eps >= 0 ? 1.0 - eps : 1.0;
  const Tensor inside =
      logical_not(logical_or(less_than(x, full_like(x, lo)), greater_than(x, full_like(x, hi))));
  const double outside_value = eps >= 0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  return where(inside, r, full_like(x, outside_value));
}

Tensor gamma_density(const Tensor& a, const Tensor& y) {
  const Tensor log_density = subtract(multiply(scale(a, 1.0, -1.0), log(y)), add(y, lgamma(a)));
  return exp(log_density);
}

Tensor logcumsumexp_grad(const Tensor& x, const Tensor& out, const Tensor& g, int64_t axis) {
  const int64_t a = NormalizeAxisAllowing0d(axis, x.ndim());
  const std::vector<int64_t> dims = {a};
  auto reversed_scan = [&](const Tensor& t) {
    return x.ndim() == 0 ? logcumsumexp_scan(t, axis)
                         : flip(logcumsumexp_scan(flip(t, dims), axis), dims);
  };
  // log|g| where g has the sign, else the lowest number (exp of it, less out, is 0 and
  // no -inf - -inf appears); log of 1 where it is masked keeps every gradient finite.
  const Tensor lowest = full_like(g, LowestFinite(g.dtype()));
  auto part = [&](const Tensor& mask) {
    const Tensor log_g = log(where(mask, abs(g), ones_like(g)));
    const Tensor terms = subtract(where(mask, log_g, lowest), out);
    return exp(add(reversed_scan(terms), x));
  };
  return subtract(part(greater_than(g, zeros_like(g))), part(less_than(g, zeros_like(g))));
}

}  // namespace oar
