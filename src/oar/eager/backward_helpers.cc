#include "oar/eager/backward_helpers.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "oar/core/wide_int.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"
#include "oar/kernels/infer_meta.h"

namespace oar {

Tensor grad_as(Tensor g, const GradSlotMeta& input_meta) {
  if (!g.defined() || !input_meta.HasTensorMeta() || g.dtype() == input_meta.dtype()) return g;
  if (g.is_sparse()) return sparse_with_values(g, cast(sparse_values(g), input_meta.dtype()));
  return cast(g, input_meta.dtype());
}

Tensor reshape_to(const Tensor& g, const std::vector<int64_t>& shape) {
  const DDim& dims = g.dims();
  if (std::equal(dims.begin(), dims.end(), shape.begin(), shape.end())) return g;
  if (std::find(shape.begin(), shape.end(), 0) == shape.end()) return reshape(g, shape);
  return full(shape, 0.0, g.dtype());  // no elements
}

Tensor reshape_to(const Tensor& g, const Tensor& like) {
  return g.dims() == like.dims() ? g : reshape_to(g, like.shape());
}

Tensor conj_if_complex(Tensor t) {
  if (IsComplex(t.dtype())) return conj(t);
  return t;  // moved out, not copied (a conditional expression would copy it)
}

Tensor multiply_conj(const Tensor& g, const Tensor& t) {
  return IsComplex(t.dtype()) ? multiply(g, conj(t)) : multiply(g, t);
}

namespace {

// num / |x| for a complex x, in x's dtype, 0 where x is 0. The quotient is taken in the
// real dtype and the complex tensor is touched once, by the caller's multiply: a complex
// division costs ~15x a real one here (fft2 + abs gradient at 1024^2, benchmarks/fft.py).
Tensor OverAbs(const Tensor& num, const Tensor& x) {
  const Tensor r = abs(x);
  const Tensor zero = equal(r, zeros_like(r));
  return cast(where(zero, zeros_like(r), divide(num, where(zero, ones_like(r), r))), x.dtype());
}

}  // namespace

Tensor abs_grad(const Tensor& x, const Tensor& g) {
  if (!IsComplex(x.dtype())) return multiply(g, sign(x));
  return multiply(OverAbs(g, x), x);  // g * x / |x|
}

Tensor sign_grad(const Tensor& x, const Tensor& out, const Tensor& g) {
  if (!IsComplex(x.dtype())) return zeros_like(g);
  const Tensor along = multiply(cast(real(multiply(g, conj(out))), x.dtype()), out);
  return multiply(OverAbs(ones_like(real(x)), x), subtract(g, along));
}

Tensor angle_grad(const Tensor& x, const Tensor& g) {
  if (!IsComplex(x.dtype())) return zeros_like(g);
  // d angle / d re = -im / |x|^2, d angle / d im = re / |x|^2.
  const Tensor re = real(x), im = imag(x);
  const Tensor den = add(multiply(re, re), multiply(im, im));
  return complex(divide(multiply(neg(im), g), den), divide(multiply(re, g), den));
}

Tensor unbroadcast(Tensor g, const Tensor& like) {
  if (g.dims() == like.dims()) return g;
  // An operand outside the broadcast may have more leading size-1 dims than the output:
  // masked_fill's one-element value of shape [1] filling a 0-d x (fuzz seed 238).
  std::vector<int64_t> target = like.shape();
  size_t lead = 0;
  while (target.size() - lead > static_cast<size_t>(g.ndim()) && target[lead] == 1) ++lead;
  if (lead == 0) return sum_to(g, target);
  return reshape_to(sum_to(g, {target.begin() + static_cast<std::ptrdiff_t>(lead), target.end()}),
                    like);
}

Tensor reduce_grad(const Tensor& g, const Tensor& x, const std::vector<int64_t>& axis,
                   bool keepdim) {
  if (g.dims() == x.dims()) return g;
  Tensor gk = g;
  // A 0-d gradient (every axis reduced) broadcasts as it is.
  if (!keepdim && g.ndim() > 0) {
    // Put the reduced axes back as size-1 dims.
    std::vector<int64_t> kept_shape = x.shape();
    const auto axes = NormalizeReduceAxes(axis, x.ndim());
    for (int64_t d = 0; d < x.ndim(); ++d) {
      if (axes.empty() || std::binary_search(axes.begin(), axes.end(), d)) kept_shape[d] = 1;
    }
    gk = reshape_to(g, kept_shape);
  }
  return expand(gk, x.shape());
}

Tensor mean_grad(const Tensor& g, const Tensor& x, const std::vector<int64_t>& axis, bool keepdim) {
  const int64_t count = g.numel() == 0 ? 1 : x.numel() / g.numel();
  return scale(reduce_grad(g, x, axis, keepdim),
               1.0 / static_cast<double>(std::max<int64_t>(count, 1)));
}

Tensor max_min_grad(const Tensor& x, const Tensor& out, const Tensor& g,
                    const std::vector<int64_t>& axis, bool keepdim) {
  // The elements equal to the result share its gradient. A NaN result came
  // from the NaN elements (NaN propagates), so they are the ones that share
  // it, as torch.max does; NaN == NaN is false, hence the second term.
  const Tensor o = reduce_grad(out, x, axis, keepdim);
  const Tensor mask = add(cast(equal(x, o), x.dtype()), multiply(cast(not_equal(x, x), x.dtype()),
                                                                 cast(not_equal(o, o), x.dtype())));
  const Tensor count = sum(mask, axis, DType::kUndefined, /*keepdim=*/true);
  return divide(multiply(reduce_grad(g, x, axis, keepdim), mask), expand(count, x.shape()));
}

Tensor max_min_mask(const Tensor& a, const Tensor& b, bool is_max) {
  // 1 - [a loses] - 0.5 [tie], written with the comparisons that are false for
  // NaN so that a NaN on either side passes the gradient to both, as PyTorch's
  // maximum/minimum do (and not to neither).
  const Tensor loses = is_max ? less_than(a, b) : greater_than(a, b);
  const Tensor lost = add(cast(loses, a.dtype()), scale(cast(equal(a, b), a.dtype()), 0.5));
  return scale(lost, -1.0, 1.0);
}

Tensor pow_grad_x(const Tensor& x, double y, const Tensor& g) {
  if (y == 0.0) return zeros_like(g);  // x ** 0 is 1 everywhere, 0 ** -1 included
  return multiply(g, conj_if_complex(scale(pow(x, y - 1.0), y)));
}

Tensor atan2_recip(const Tensor& x, const Tensor& y) {
  const Tensor r = add(multiply(x, x), multiply(y, y));
  const Tensor zero = equal(r, zeros_like(r));
  return where(zero, zeros_like(r), divide(ones_like(r), where(zero, ones_like(r), r)));
}

Tensor acosh_grad_denominator(const Tensor& x) {
  if (!IsComplex(x.dtype())) return sqrt(scale(square(x), 1.0, -1.0));
  // sqrt(z^2 - 1) is the derivative's denominator only up to sign off the real axis;
  // the principal branch's is sqrt(z - 1) sqrt(z + 1) (PyTorch's)
  return multiply(sqrt(scale(x, 1.0, -1.0)), sqrt(scale(x, 1.0, 1.0)));
}

Tensor elementwise_pow_grad_x(const Tensor& x, const Tensor& y, const Tensor& g) {
  const Tensor dx =
      multiply(g, conj_if_complex(multiply(y, elementwise_pow(x, scale(y, 1.0, -1.0)))));
  return unbroadcast(where(equal(y, zeros_like(y)), zeros_like(dx), dx), x);
}

Tensor elementwise_pow_grad_y(const Tensor& x, const Tensor& y, const Tensor& out,
                              const Tensor& g) {
  // d/dy x ** y = x ** y * log(x); at x = 0 with y >= 0 (a complex y: Re(y) >= 0, as
  // PyTorch) the limit is 0, not 0 * -inf.
  const Tensor dy = multiply(g, conj_if_complex(multiply(out, log(x))));
  const Tensor zero = zeros_like(dy);
  const Tensor y_order = IsComplex(y.dtype()) ? real(y) : y;
  const Tensor at_zero = where(greater_equal(y_order, zeros_like(y_order)), zero, dy);
  return unbroadcast(where(equal(x, zeros_like(x)), at_zero, dy), y);
}

std::vector<int64_t> inverse_perm(const std::vector<int64_t>& perm) {
  const int64_t n = static_cast<int64_t>(perm.size());
  std::vector<int64_t> inv(perm.size());
  for (int64_t i = 0; i < n; ++i) inv[NormalizeAxis(perm[i], n, "perm")] = i;
  return inv;
}

std::vector<Tensor> concat_grad(const std::vector<Tensor>& x, const Tensor& g, int64_t axis) {
  const int64_t a = NormalizeAxis(axis, g.ndim());
  std::vector<Tensor> grads;
  grads.reserve(x.size());
  int64_t offset = 0;
  for (const auto& t : x) {
    const int64_t size = t.dims()[a];
    grads.push_back(slice(g, {a}, {offset}, {offset + size}));
    offset += size;
  }
  return grads;
}

namespace {
// matmul with 1-D operands promoted: x [K] -> [1, K], y [K] -> [K, 1], g to match.
struct MatmulOperands {
  Tensor x, y, g;
  bool tx, ty;
};
MatmulOperands Promote(const Tensor& x, const Tensor& y, const Tensor& g, bool tx, bool ty) {
  MatmulOperands m{x, y, g, tx, ty};
  const bool xv = x.ndim() == 1, yv = y.ndim() == 1;
  if (xv) {
    m.x = unsqueeze(x, {0});
    m.tx = false;
  }
  if (yv) {
    m.y = unsqueeze(y, {-1});
    m.ty = false;
  }
  if (yv) m.g = unsqueeze(m.g, {-1});
  if (xv) m.g = unsqueeze(m.g, {-2});
  return m;
}
}  // namespace

Tensor matmul_grad_x(const Tensor& x, const Tensor& y, const Tensor& g, bool transpose_x,
                     bool transpose_y) {
  MatmulOperands m = Promote(x, y, g, transpose_x, transpose_y);
  m.y = conj_if_complex(std::move(m.y));  // d(x y)/dx applied to g: g y^H for complex operands
  Tensor dx;
  if (!m.tx && !m.ty) dx = matmul(m.g, m.y, false, true);
  if (!m.tx && m.ty) dx = matmul(m.g, m.y, false, false);
  if (m.tx && !m.ty) dx = matmul(m.y, m.g, false, true);
  if (m.tx && m.ty) dx = matmul(m.y, m.g, true, true);
  return reshape_to(unbroadcast(std::move(dx), m.x), x);
}

Tensor matmul_grad_y(const Tensor& x, const Tensor& y, const Tensor& g, bool transpose_x,
                     bool transpose_y) {
  MatmulOperands m = Promote(x, y, g, transpose_x, transpose_y);
  m.x = conj_if_complex(std::move(m.x));
  Tensor dy;
  if (!m.tx && !m.ty) dy = matmul(m.x, m.g, true, false);
  if (!m.tx && m.ty) dy = matmul(m.g, m.x, true, false);
  if (m.tx && !m.ty) dy = matmul(m.x, m.g, false, false);
  if (m.tx && m.ty) dy = matmul(m.g, m.x, true, true);
  return reshape_to(unbroadcast(std::move(dy), m.y), y);
}

Tensor softmax_grad_out_grad(const Tensor& out, const Tensor& g, const Tensor& gg, int64_t axis) {
  const Tensor sg = sum(multiply(g, out), {axis}, DType::kUndefined, true);
  const Tensor sgg = sum(multiply(gg, out), {axis}, DType::kUndefined, true);
  return subtract(multiply(gg, subtract(g, sg)), multiply(g, sgg));
}

// --- shape section (flip, roll, pad, diagonals, windows) ---
std::vector<int64_t> roll_back_shifts(const Tensor& g, const std::vector<int64_t>& shifts,
                                      const std::vector<int64_t>& axis) {
  // -(s mod n), not -s: a shift of -2^63 has no negation in int64 (the gradient rolled the
  // wrong way). n = 0 (an empty axis) rolls nothing.
  std::vector<int64_t> out(shifts.size());
  for (size_t i = 0; i < shifts.size(); ++i) {
    int64_t n = g.numel();
    if (!axis.empty()) n = g.dims()[axis[i] < 0 ? axis[i] + g.ndim() : axis[i]];
    out[i] = n == 0 ? 0 : -(shifts[i] % n);
  }
  return out;
}

}  // namespace oar

// ---- nn.functional: norm, loss and nn sections (src/oar/ops/{norm,loss,nn}.yaml) ----
namespace oar {
namespace {

// The normalised axes [begin, rank) and the row axes [0, begin) of a norm's x.
std::vector<int64_t> AxesRange(int64_t begin, int64_t end) {
  std::vector<int64_t> a;
  for (int64_t d = begin; d < end; ++d) a.push_back(d);
  return a;
}

// g summed over the row axes, shaped like the parameter (an empty axis list
// means "all axes" to sum, so begin == 0 must not reduce).
Tensor SumRowsAs(const Tensor& g, int64_t begin, const Tensor& like) {
  const Tensor s = begin == 0 ? g : sum(g, AxesRange(0, begin), DType::kUndefined, false);
  return reshape_to(s, like);
}

// weight viewed with the trailing shape of x, so it broadcasts over the rows.
Tensor WeightAsTrailing(const Tensor& x, const Tensor& weight, int64_t begin) {
  const std::vector<int64_t> xs = x.shape();
  return reshape_to(weight, std::vector<int64_t>(xs.begin() + begin, xs.end()));
}

Tensor NormGrad(const Tensor& x, const Tensor& w, const Tensor& g, double eps, int64_t begin,
                bool rms) {
  return rms ? rms_norm_grad(x, w, g, eps, begin) : layer_norm_grad(x, w, g, eps, begin);
}

Tensor SumKeep(const Tensor& t, const std::vector<int64_t>& axes) {
  return sum(t, axes, DType::kUndefined, true);
}

}  // namespace

Tensor norm_weight_grad(const Tensor& x, const Tensor& weight, const Tensor& g, double epsilon,
                        int64_t begin_norm_axis, bool rms) {
  return reshape_to(norm_scale_grad(x, g, epsilon, begin_norm_axis, rms), weight);
}

// norm_scale_grad(x, g) = sum_rows(g * xhat(x)); with gg its incoming gradient (the
// trailing shape), d<gg, .>/dx = J_xhat^T (g gg), which is the norm's x gradient
// with gg as the weight, and d<gg, .>/dg = gg xhat.
Tensor norm_scale_grad_x_grad(const Tensor& x, const Tensor& g, const Tensor& gg, double epsilon,
                              int64_t begin_norm_axis, bool rms) {
  return NormGrad(x, gg, g, epsilon, begin_norm_axis, rms);
}

Tensor norm_scale_grad_g_grad(const Tensor& x, const Tensor& gg, double epsilon,
                              int64_t begin_norm_axis, bool rms) {
  const Tensor one = ones_like(gg);
  const Tensor xhat = rms ? rms_norm(x, one, epsilon, begin_norm_axis)
                          : layer_norm(x, one, zeros_like(gg), epsilon, begin_norm_axis);
  return multiply(xhat, gg);
}

Tensor norm_bias_grad(const Tensor& bias, const Tensor& g, int64_t begin_norm_axis) {
  return SumRowsAs(g, begin_norm_axis, bias);
}

// x_grad = r * P(g * w) with P symmetric, so <gg, x_grad> = <w * r * P(gg), g>.
Tensor norm_grad_weight_grad(const Tensor& x, const Tensor& weight, const Tensor& g,
                             const Tensor& gg, double epsilon, int64_t begin_norm_axis, bool rms) {
  const Tensor pgg = NormGrad(x, ones_like(weight), gg, epsilon, begin_norm_axis, rms);
  return SumRowsAs(multiply(g, pgg), begin_norm_axis, weight);
}

Tensor norm_grad_grad_out_grad(const Tensor& x, const Tensor& weight, const Tensor& gg,
                               double epsilon, int64_t begin_norm_axis, bool rms) {
  const Tensor pgg = NormGrad(x, ones_like(weight), gg, epsilon, begin_norm_axis, rms);
  return multiply(WeightAsTrailing(x, weight, begin_norm_axis), pgg);
}

namespace {

// Per normalised group (the axes A, n elements; xhat = (x - mean) * r, gy = g * w,
// a = gg), for layer_norm (A: the trailing axes) and batch_norm (A: all but the
// channels; w then broadcasts per channel):
//   d<a, x_grad>/dx = -(r^2/n) [C xhat + q (gy - mean(gy)) + p (a - mean(a)) - 3 xhat p q / n]
// with C = sum(a gy) - n mean(gy) mean(a), p = sum(gy xhat), q = sum(a xhat).
Tensor NormGradXGrad(const Tensor& x, const Tensor& w, const Tensor& g, const Tensor& gg,
                     double epsilon, const std::vector<int64_t>& A) {
  int64_t count = 1;
  for (int64_t d : A) count *= x.shape()[d];
  const double n = static_cast<double>(std::max<int64_t>(count, 1));
  const Tensor xc = subtract(x, mean(x, A, true));
  const Tensor r = pow(scale(mean(multiply(xc, xc), A, true), 1.0, epsilon), -0.5);
  const Tensor xhat = multiply(xc, r);
  const Tensor gy = multiply(g, w);
  const Tensor m1 = mean(gy, A, true), ma = mean(gg, A, true);
  const Tensor c = subtract(SumKeep(multiply(gg, gy), A), scale(multiply(m1, ma), n));
  const Tensor p = SumKeep(multiply(gy, xhat), A), q = SumKeep(multiply(gg, xhat), A);
  Tensor inner = add(multiply(c, xhat), multiply(q, subtract(gy, m1)));
  inner = add(inner, multiply(p, subtract(gg, ma)));
  inner = subtract(inner, scale(multiply(xhat, multiply(p, q)), 3.0 / n));
  return multiply(scale(multiply(r, r), -1.0 / n), inner);
}

// The axes batch_norm reduces, and a per-channel tensor shaped to broadcast along them.
std::vector<int64_t> BatchAxes(const Tensor& x, int64_t axis) {
  std::vector<int64_t> A;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    if (d != axis) A.push_back(d);
  }
  return A;
}

Tensor PerChannel(const Tensor& x, const Tensor& p, int64_t axis) {
  std::vector<int64_t> shape(static_cast<size_t>(x.ndim()), 1);
  shape[static_cast<size_t>(axis)] = p.numel();
  return reshape_to(p, shape);
}

int64_t ChannelAxis(const Tensor& x, int64_t axis) { return axis < 0 ? axis + x.ndim() : axis; }

Tensor CastTo(const Tensor& t, DType dtype) { return t.dtype() == dtype ? t : cast(t, dtype); }

}  // namespace

Tensor layer_norm_grad_x_grad(const Tensor& x, const Tensor& weight, const Tensor& g,
                              const Tensor& gg, double epsilon, int64_t begin_norm_axis) {
  return NormGradXGrad(x, WeightAsTrailing(x, weight, begin_norm_axis), g, gg, epsilon,
                       AxesRange(begin_norm_axis, x.ndim()));
}

Tensor bn_weight_grad(const Tensor& x, const Tensor& weight, const Tensor& g, double epsilon,
                      int64_t axis) {
  return CastTo(batch_norm_scale_grad(x, g, epsilon, axis), weight.dtype());
}

// Summed in the bias's dtype, so a bfloat16 gradient adds up in float32 for a
// float32 bias.
Tensor bn_bias_grad(const Tensor& bias, const Tensor& g, int64_t axis) {
  return sum(g, BatchAxes(g, ChannelAxis(g, axis)), bias.dtype(), false);
}

Tensor batch_norm_grad_x_grad(const Tensor& x, const Tensor& weight, const Tensor& g,
                              const Tensor& gg, double epsilon, int64_t axis) {
  const int64_t a = ChannelAxis(x, axis);
  const Tensor w = PerChannel(x, CastTo(weight, x.dtype()), a);
  return NormGradXGrad(x, w, g, gg, epsilon, BatchAxes(x, a));
}

// x_grad = w r P(g) per channel with P symmetric, so d<gg, x_grad>/dw = sum(g r P(gg)).
Tensor bn_grad_weight_grad(const Tensor& x, const Tensor& weight, const Tensor& g, const Tensor& gg,
                           double epsilon, int64_t axis) {
  const int64_t a = ChannelAxis(x, axis);
  const Tensor pgg = batch_norm_grad(x, ones_like(weight), gg, epsilon, axis);
  return sum(multiply(g, pgg), BatchAxes(x, a), weight.dtype(), false);
}

Tensor bn_scale_grad_g_grad(const Tensor& x, const Tensor& gg, double epsilon, int64_t axis) {
  return batch_norm(x, gg, zeros_like(gg), epsilon, axis);
}

// g r w per channel: batch_norm_infer with zero mean and bias.
Tensor bn_infer_x_grad(const Tensor& g, const Tensor& mean, const Tensor& variance,
                       const Tensor& weight, const Tensor&, double epsilon, int64_t axis) {
  const Tensor zero = zeros_like(mean);
  return batch_norm_infer(g, zero, variance, weight, zero, epsilon, axis);
}

// -sum(g) r w per channel.
Tensor bn_infer_mean_grad(const Tensor& g, const Tensor& variance, const Tensor& weight,
                          double epsilon, int64_t axis) {
  const Tensor sg = sum(g, BatchAxes(g, ChannelAxis(g, axis)), variance.dtype(), false);
  const Tensor rw = multiply(pow(scale(variance, 1.0, epsilon), -0.5), weight);
  return scale(multiply(sg, rw), -1.0);
}

namespace {
// sum(g xhat) per channel, xhat = (x - mean) r, in `dtype`.
Tensor SumGradXhat(const Tensor& x, const Tensor& g, const Tensor& mean, const Tensor& variance,
                   const Tensor& weight, double epsilon, int64_t axis, DType dtype) {
  const Tensor xhat =
      batch_norm_infer(x, mean, variance, ones_like(weight), zeros_like(mean), epsilon, axis);
  return sum(multiply(g, xhat), BatchAxes(x, ChannelAxis(x, axis)), dtype, false);
}
}  // namespace

// dy/dvariance = -(x - mean) w r^3 / 2 = -xhat w r^2 / 2.
Tensor bn_infer_variance_grad(const Tensor& x, const Tensor& g, const Tensor& mean,
                              const Tensor& variance, const Tensor& weight, const Tensor&,
                              double epsilon, int64_t axis) {
  const Tensor s = SumGradXhat(x, g, mean, variance, weight, epsilon, axis, variance.dtype());
  const Tensor r2 = pow(scale(variance, 1.0, epsilon), -1.0);
  return scale(multiply(s, multiply(r2, weight)), -0.5);
}

Tensor bn_infer_weight_grad(const Tensor& x, const Tensor& g, const Tensor& mean,
                            const Tensor& variance, const Tensor& weight, const Tensor&,
                            double epsilon, int64_t axis) {
  return SumGradXhat(x, g, mean, variance, weight, epsilon, axis, weight.dtype());
}

// Per row (r = (mean(x^2) + eps)^-1/2, gy = g * w, a = gg):
//   d<a, x_grad>/dx = -(r^3/n) [(a.gy) x - 3 r^2 x (a.x)(gy.x) / n + a (gy.x) + gy (a.x)]
Tensor rms_norm_grad_x_grad(const Tensor& x, const Tensor& weight, const Tensor& g,
                            const Tensor& gg, double epsilon, int64_t begin_norm_axis) {
  const std::vector<int64_t> A = AxesRange(begin_norm_axis, x.ndim());
  int64_t cols = 1;
  for (int64_t d = begin_norm_axis; d < x.ndim(); ++d) cols *= x.shape()[d];
  const double n = static_cast<double>(std::max<int64_t>(cols, 1));
  const Tensor r = pow(scale(mean(multiply(x, x), A, true), 1.0, epsilon), -0.5);
  const Tensor gy = multiply(g, WeightAsTrailing(x, weight, begin_norm_axis));
  const Tensor agy = SumKeep(multiply(gg, gy), A), gx = SumKeep(multiply(gy, x), A),
               ax = SumKeep(multiply(gg, x), A);
  const Tensor r2 = multiply(r, r);
  Tensor inner = multiply(agy, x);
  inner = subtract(inner, scale(multiply(multiply(r2, x), multiply(ax, gx)), 3.0 / n));
  inner = add(inner, add(multiply(gg, gx), multiply(gy, ax)));
  return multiply(scale(multiply(r2, r), -1.0 / n), inner);
}

// x_grad = g m (s - onehot) (m: 0 for ignored rows) is linear in g and depends on
// the logits through s = softmax only.
Tensor ce_hard_grad_logits_grad(const Tensor& logits, const Tensor& label, const Tensor& g,
                                const Tensor& gg, int64_t ignore_index, int64_t axis) {
  const Tensor kept =
      cast(not_equal(label, full_like(label, ignore_index, label.dtype())), logits.dtype());
  return softmax_grad(softmax(logits, axis), multiply(gg, multiply(g, kept)), axis);
}

Tensor ce_hard_grad_grad_out_grad(const Tensor& logits, const Tensor& label, const Tensor& gg,
                                  int64_t ignore_index, int64_t axis) {
  const Tensor unit =
      cross_entropy_hard_grad(logits, label, ones_like(label, logits.dtype()), ignore_index, axis);
  return SumKeep(multiply(gg, unit), {axis});
}

// x_grad = g (s sum(label) - label).
Tensor ce_soft_grad_logits_grad(const Tensor& logits, const Tensor& label, const Tensor& g,
                                const Tensor& gg, int64_t axis) {
  return softmax_grad(softmax(logits, axis), multiply(gg, multiply(g, SumKeep(label, {axis}))),
                      axis);
}

Tensor ce_soft_grad_label_grad(const Tensor& logits, const Tensor& g, const Tensor& gg,
                               int64_t axis) {
  return multiply(g, subtract(SumKeep(multiply(gg, softmax(logits, axis)), {axis}), gg));
}

Tensor ce_soft_grad_grad_out_grad(const Tensor& logits, const Tensor& label, const Tensor& gg,
                                  int64_t axis) {
  const Tensor one = ones_like(SumKeep(label, {axis}), logits.dtype());
  return SumKeep(multiply(gg, cross_entropy_soft_grad(logits, label, one, axis)), {axis});
}

Tensor linear_weight_grad(const Tensor& x, const Tensor& g) {
  const int64_t k = x.shape().back(), n = g.shape().back();
  const int64_t m = k == 0 ? 0 : x.numel() / k;
  if (m == 0 || k == 0) return zeros({k, n}, g.dtype());
  return matmul(reshape_to(x, {m, k}), reshape_to(g, {m, n}), true, false);
}

Tensor linear_bias_grad(const Tensor& g) {
  if (g.ndim() <= 1) return g;
  return sum(g, AxesRange(0, g.ndim() - 1), DType::kUndefined, false);
}

// ---- gathering and scattering (gather.yaml, scatter.yaml) ----
Tensor gather_grad(const Tensor& x, const Tensor& index, const Tensor& g, int64_t axis) {
  const int64_t a = NormalizeAxis(axis, x.ndim());
  const Tensor flat = reshape(index, {-1});
  return index_select_grad(x, flat, index.ndim() == 0 ? unsqueeze(g, {a}) : g, a);
}

Tensor take_along_axis_grad(const Tensor& arr, const Tensor& indices, const Tensor& g, int64_t axis,
                            bool broadcast) {
  const int64_t a = NormalizeAxis(axis, arr.ndim());
  std::vector<int64_t> wide = broadcast ? g.shape() : arr.shape();
  wide[a] = arr.dims()[a];
  const Tensor spread =
      scatter_along_axis(zeros(wide, g.dtype()), indices, g, a, /*reduce=add*/ 1, true, broadcast);
  return unbroadcast(spread, arr);
}

Tensor scatter_along_axis_grad_arr(const Tensor& indices, const Tensor& g, int64_t axis,
                                   int64_t reduce, bool include_self, bool broadcast) {
  if (reduce == 1 && include_self) return g;
  return scatter_along_axis(g, indices, zeros({}, g.dtype()), axis, /*reduce=assign*/ 0, true,
                            broadcast);
}

Tensor index_put_nd_grad_x(const Tensor& g, const Tensor& index, bool accumulate) {
  if (accumulate) return g;
  return index_put_nd(g, index, zeros({}, g.dtype()), false);
}

}  // namespace oar

// --- convolution (src/oar/ops/conv.yaml) ---
namespace oar {

Tensor conv_grad_x(const Tensor& g, const Tensor& w, const Tensor& x,
                   const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                   const std::vector<int64_t>& dilations, int64_t groups) {
  const int64_t nd = x.ndim() - 2;
  const auto s = PerDimOr(strides, nd, 1), p = PerDimOr(paddings, 2 * nd, 0);
  const auto dl = PerDimOr(dilations, nd, 1);
  std::vector<int64_t> output_padding(nd);
  for (int64_t d = 0; d < nd; ++d) {
    // In 128 bits: the forward's checks bound the result, not the terms (2 * pad can pass
    // int64 while the sum comes back).
    const int64_t k = w.dims()[2 + d];
    const Int128 base =
        Int128(g.dims()[2 + d] - 1) * s[d] - p[2 * d] - p[2 * d + 1] + Int128(dl[d]) * (k - 1) + 1;
    output_padding[d] = static_cast<int64_t>(x.dims()[2 + d] - base);
  }
  return conv_transpose(g, w, strides, paddings, output_padding, dilations, groups);
}

Tensor conv_transpose_grad_x(const Tensor& g, const Tensor& w, const Tensor& x,
                             const std::vector<int64_t>& strides,
                             const std::vector<int64_t>& paddings,
                             const std::vector<int64_t>& dilations, int64_t groups) {
  Tensor dx = conv(g, w, strides, paddings, dilations, groups);
  if (dx.dims() == x.dims()) return dx;
  std::vector<int64_t> axes, starts, ends;
  for (int64_t d = 2; d < x.ndim(); ++d) {
    axes.push_back(d);
    starts.push_back(0);
    ends.push_back(x.dims()[d]);
  }
  return slice(dx, axes, starts, ends);
}

Tensor conv_transpose_grad_w(const Tensor& g, const Tensor& x, const Tensor& w,
                             const std::vector<int64_t>& strides,
                             const std::vector<int64_t>& paddings,
                             const std::vector<int64_t>& dilations, int64_t groups) {
  const int64_t nd = x.ndim() - 2;
  const auto s = PerDimOr(strides, nd, 1), p = PerDimOr(paddings, 2 * nd, 0);
  const auto dl = PerDimOr(dilations, nd, 1);
  Tensor xe = x;
  for (int64_t d = 0; d < nd; ++d) {
    // As in conv_grad_x: the terms may pass int64, the result not.
    const Int128 span = Int128(dl[d]) * (w.dims()[2 + d] - 1) + 1;
    const auto n =
        static_cast<int64_t>((Int128(g.dims()[2 + d]) + p[2 * d] + p[2 * d + 1] - span) / s[d] + 1);
    if (n > xe.dims()[2 + d]) {
      std::vector<int64_t> shape = xe.shape();
      shape[2 + d] = n - xe.dims()[2 + d];
      xe = concat({xe, full(shape, 0.0, xe.dtype())}, 2 + d);
    }
  }
  return conv_filter_grad(g, xe, w.shape(), strides, paddings, dilations, groups);
}

}  // namespace oar

// ---- statistics, search and scans (src/oar/ops/{statistics,search,scan}.yaml) ----
namespace oar {
namespace {
// x with its zeros replaced by one: a denominator whose unused branch never makes NaN.
Tensor nonzero_or_one(const Tensor& x, const Tensor& zero) { return where(zero, ones_like(x), x); }
}  // namespace

Tensor prod_grad(const Tensor& x, const Tensor& out, const Tensor& g,
                 const std::vector<int64_t>& axis, bool keepdim) {
  if (out.dtype() != x.dtype()) {  // dtype= casts x first: the gradient goes through the cast
    return cast(prod_grad(cast(x, out.dtype()), out, g, axis, keepdim), x.dtype());
  }
  const Tensor G = reduce_grad(g, x, axis, keepdim);
  const Tensor o = cast(reduce_grad(out, x, axis, keepdim), x.dtype());
  const Tensor zero = equal(x, zeros_like(x));
  const Tensor z = cast(zero, x.dtype());
  if (sum(z, {}, DType::kUndefined, false).item<double>() == 0) {
    return multiply(G, conj_if_complex(divide(o, x)));
  }
  // d out / d x_i is the product of the others: out / x_i where x_i != 0. At a zero it is
  // P (the product of the non-zeros) times the product of the other zeros, written as a
  // polynomial in them so that its derivatives are right: 1, (S - x_i) and
  // ((S - x_i)^2 - (Q - x_i^2)) / 2 for 1, 2 and 3 zeros in the group (S, Q: the sum and
  // sum of squares of the zeros). With 4 or more zeros it vanishes to third order.
  auto group = [&](const Tensor& t) {
    return expand(sum(t, axis, DType::kUndefined, /*keepdim=*/true), x.shape());
  };
  const Tensor P =
      expand(prod(where(zero, ones_like(x), x), axis, true, DType::kUndefined), x.shape());
  const Tensor count = group(z);
  const Tensor xz = multiply(x, z);
  const Tensor s1 = subtract(group(xz), x);
  const Tensor s2 = subtract(group(multiply(xz, xz)), multiply(x, x));
  auto is = [&](double k) { return equal(count, full_like(count, k)); };
  const Tensor e = where(
      is(1), ones_like(x),
      where(is(2), s1, where(is(3), scale(subtract(multiply(s1, s1), s2), 0.5), zeros_like(x))));
  const Tensor d = where(zero, multiply(P, e), divide(o, nonzero_or_one(x, zero)));
  return multiply(G, conj_if_complex(d));
}

Tensor logsumexp_grad(const Tensor& x, const Tensor& out, const Tensor& g,
                      const std::vector<int64_t>& axis, bool keepdim) {
  const Tensor p = exp(subtract(x, reduce_grad(out, x, axis, keepdim)));
  return multiply(reduce_grad(g, x, axis, keepdim), p);
}

Tensor var_grad(const Tensor& x, const Tensor& g, const std::vector<int64_t>& axis, bool unbiased,
                bool keepdim) {
  const int64_t count = g.numel() == 0 ? 1 : x.numel() / g.numel();
  const double denom = static_cast<double>(count) - (unbiased ? 1.0 : 0.0);
  const Tensor dev = subtract(x, mean(x, axis, /*keepdim=*/true));
  return multiply(reduce_grad(g, x, axis, keepdim), scale(dev, 2.0 / denom));
}

Tensor std_grad(const Tensor& x, const Tensor& out, const Tensor& g,
                const std::vector<int64_t>& axis, bool unbiased, bool keepdim) {
  // d std = d var / (2 std); a group of equal values (std 0, every x - mean 0) gets
  // 0, as in PyTorch, not 0 / 0.
  const Tensor zero = equal(out, zeros_like(out));
  const Tensor half = where(zero, zeros_like(g), divide(g, scale(nonzero_or_one(out, zero), 2.0)));
  return var_grad(x, half, axis, unbiased, keepdim);
}

Tensor p_norm_grad(const Tensor& x, const Tensor& out, const Tensor& g, double porder,
                   const std::vector<int64_t>& axis, bool keepdim) {
  if (porder == 0) return zeros_like(x);  // a count: piecewise constant
  if (std::isinf(porder)) {
    // The extreme |x| shares the gradient among ties, times d|x|/dx.
    return multiply(max_min_grad(abs(x), out, g, axis, keepdim), sign(x));
  }
  const Tensor G = reduce_grad(g, x, axis, keepdim);
  if (porder == 1) return multiply(G, sign(x));
  // Lines of one element, whose norm is |x| (p_norm's kernel takes it so): sign(x) for
  // every p (torch's formula gives NaN at p = 1e308), NaN at a NaN (sign(NaN) is 0).
  if (x.numel() == out.numel()) return multiply(G, where(isnan(x), x, sign(x)));
  const Tensor o = reduce_grad(out, x, axis, keepdim);
  const Tensor zero = equal(o, zeros_like(o));
  const Tensor safe = nonzero_or_one(o, zero);
  if (porder == 2) return multiply(G, divide(x, safe));  // a zero 2-norm has x == 0
  // A zero norm (all x 0 for p > 0; some x 0, or an underflow, for p < 0) gets 0,
  // as in PyTorch: the formula would divide by it. So does an x of 0 for p < 1, where
  // |x|^(p - 1) is infinite (PyTorch's subgradient; the formula gives 0 * inf), unless
  // the norm is NaN or infinite: then the line's gradient is NaN there too.
  const Tensor ratio = divide(pow(abs(x), porder - 1.0), pow(safe, porder - 1.0));
  const Tensor none =
      porder < 1 ? logical_or(zero, logical_and(equal(x, zeros_like(x)), isfinite(o))) : zero;
  return where(none, zeros_like(x), multiply(G, multiply(sign(x), ratio)));
}

Tensor cumsum_grad(const Tensor& x, const Tensor& g_out, const std::vector<int64_t>& axis) {
  // With a narrower dtype= (float32 for a float64 x) the running sum of the gradient
  // is taken in x's dtype, as PyTorch does; a wider one keeps its precision.
  const bool widen = IsFloating(x.dtype()) && IsFloating(g_out.dtype()) &&
                     SizeOf(x.dtype()) > SizeOf(g_out.dtype());
  const Tensor g = widen ? cast(g_out, x.dtype()) : g_out;
  if (axis.empty()) return reshape_to(scan_sum(g, 0, /*reverse=*/true), x);
  return scan_sum(g, axis[0], /*reverse=*/true);
}

Tensor cumprod_grad(const Tensor& x, const Tensor& out, const Tensor& g,
                    const std::vector<int64_t>& dim) {
  if (x.numel() == 0) return zeros_like(x);
  if (out.dtype() != x.dtype()) {  // dtype= casts x first: the gradient goes through the cast
    return cast(cumprod_grad(cast(x, out.dtype()), out, g, dim), x.dtype());
  }
  const Tensor xs = dim.empty() ? reshape(x, {-1}) : x;
  const int64_t a = dim.empty() ? 0 : dim[0];
  // d out_j / d x_i = prod_{k <= j, k != i} x_k, so the gradient of x_i != 0 is
  // rsum(g * out)_i / x_i (rsum: the running sum from the end); complex x takes the
  // conjugates of out and x (docs/dtypes.md, "Complex gradients").
  const Tensor zero = equal(xs, zeros_like(xs));
  Tensor d = divide(scan_sum(multiply(g, conj_if_complex(out)), a, /*reverse=*/true),
                    conj_if_complex(nonzero_or_one(xs, zero)));
  const Tensor zf = cast(zero, ToReal(xs.dtype()));
  const Tensor rank = multiply(zf, scan_sum(zf, a, false));  // r at the r-th zero of a line
  const double zeros = amax(rank, {}, false).item<double>();
  // The r-th zero of a line: the same sum with x_i replaced by 1 (the earlier zeros stay,
  // so the derivatives through them are right); zeros after the third contribute to
  // fourth and higher derivatives only, and get 0.
  Tensor at_zero = zeros_like(xs);
  for (int r = 1; r <= 3 && r <= zeros; ++r) {
    const Tensor here = equal(rank, full_like(rank, r));
    const Tensor x_r = where(here, ones_like(xs), xs);
    const Tensor partial = conj_if_complex(cumprod(x_r, {a}, DType::kUndefined));
    const Tensor grad_r = scan_sum(multiply(g, partial), a, /*reverse=*/true);
    at_zero = where(here, grad_r, at_zero);
  }
  if (zeros > 0) d = where(zero, at_zero, d);
  return dim.empty() ? reshape_to(d, x) : d;
}

}  // namespace oar
