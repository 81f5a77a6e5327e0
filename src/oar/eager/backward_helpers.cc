#include "oar/eager/backward_helpers.h"

#include <algorithm>
#include <cmath>

#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"
#include "oar/kernels/infer_meta.h"

namespace oar {

Tensor grad_as(const Tensor& g, const GradSlotMeta& input_meta) {
  if (!g.defined() || !input_meta.HasTensorMeta() || g.dtype() == input_meta.dtype()) return g;
  return cast(g, input_meta.dtype());
}

Tensor reshape_to(const Tensor& g, const std::vector<int64_t>& shape) {
  if (std::find(shape.begin(), shape.end(), 0) == shape.end()) return reshape(g, shape);
  return full(shape, 0.0, g.dtype());  // no elements
}

Tensor unbroadcast(const Tensor& g, const Tensor& like) {
  if (g.dims() == like.dims()) return g;
  return sum_to(g, like.shape());
}

Tensor reduce_grad(const Tensor& g, const Tensor& x, const std::vector<int64_t>& axis,
                   bool keepdim) {
  if (g.dims() == x.dims()) return g;
  Tensor gk = g;
  if (!keepdim) {
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
  return multiply(g, scale(pow(x, y - 1.0), y));
}

Tensor elementwise_pow_grad_x(const Tensor& x, const Tensor& y, const Tensor& g) {
  const Tensor dx = multiply(g, multiply(y, elementwise_pow(x, scale(y, 1.0, -1.0))));
  return unbroadcast(where(equal(y, zeros_like(y)), zeros_like(dx), dx), x);
}

Tensor elementwise_pow_grad_y(const Tensor& x, const Tensor& y, const Tensor& out,
                              const Tensor& g) {
  // d/dy x ** y = x ** y * log(x); at x = 0 with y >= 0 the limit is 0, not 0 * -inf.
  const Tensor dy = multiply(g, multiply(out, log(x)));
  const Tensor zero = zeros_like(dy);
  const Tensor at_zero = where(greater_equal(y, zeros_like(y)), zero, dy);
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
  const MatmulOperands m = Promote(x, y, g, transpose_x, transpose_y);
  Tensor dx;
  if (!m.tx && !m.ty) dx = matmul(m.g, m.y, false, true);
  if (!m.tx && m.ty) dx = matmul(m.g, m.y, false, false);
  if (m.tx && !m.ty) dx = matmul(m.y, m.g, false, true);
  if (m.tx && m.ty) dx = matmul(m.y, m.g, true, true);
  return reshape_to(unbroadcast(dx, m.x), x.shape());
}

Tensor matmul_grad_y(const Tensor& x, const Tensor& y, const Tensor& g, bool transpose_x,
                     bool transpose_y) {
  const MatmulOperands m = Promote(x, y, g, transpose_x, transpose_y);
  Tensor dy;
  if (!m.tx && !m.ty) dy = matmul(m.x, m.g, true, false);
  if (!m.tx && m.ty) dy = matmul(m.g, m.x, true, false);
  if (m.tx && !m.ty) dy = matmul(m.x, m.g, false, false);
  if (m.tx && m.ty) dy = matmul(m.g, m.x, true, true);
  return reshape_to(unbroadcast(dy, m.y), y.shape());
}

Tensor softmax_grad_out_grad(const Tensor& out, const Tensor& g, const Tensor& gg, int64_t axis) {
  const Tensor sg = sum(multiply(g, out), {axis}, DType::kUndefined, true);
  const Tensor sgg = sum(multiply(gg, out), {axis}, DType::kUndefined, true);
  return subtract(multiply(gg, subtract(g, sg)), multiply(g, sgg));
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
  if (sum(z, {}, DType::kUndefined, false).item<double>() == 0) return multiply(G, divide(o, x));
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
  return multiply(G, d);
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
  return var_grad(x, divide(g, scale(out, 2.0)), axis, unbiased, keepdim);
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
  const Tensor o = reduce_grad(out, x, axis, keepdim);
  const Tensor safe = nonzero_or_one(o, equal(o, zeros_like(o)));  // a zero norm has x == 0
  if (porder == 2) return multiply(G, divide(x, safe));
  const Tensor ratio = divide(pow(abs(x), porder - 1.0), pow(safe, porder - 1.0));
  return multiply(G, multiply(sign(x), ratio));
}

Tensor cumsum_grad(const Tensor& x, const Tensor& g, const std::vector<int64_t>& axis) {
  if (axis.empty()) return reshape_to(scan_sum(g, 0, /*reverse=*/true), x.shape());
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
  // rsum(g * out)_i / x_i (rsum: the running sum from the end).
  const Tensor zero = equal(xs, zeros_like(xs));
  const Tensor zf = cast(zero, xs.dtype());
  Tensor d = divide(scan_sum(multiply(g, out), a, /*reverse=*/true), nonzero_or_one(xs, zero));
  const Tensor rank = multiply(zf, scan_sum(zf, a, false));  // r at the r-th zero of a line
  const double zeros = amax(rank, {}, false).item<double>();
  // The r-th zero of a line: the same sum with x_i replaced by 1 (the earlier zeros stay,
  // so the derivatives through them are right); zeros after the third contribute to
  // fourth and higher derivatives only, and get 0.
  Tensor at_zero = zeros_like(xs);
  for (int r = 1; r <= 3 && r <= zeros; ++r) {
    const Tensor here = equal(rank, full_like(rank, r));
    const Tensor x_r = where(here, ones_like(xs), xs);
    const Tensor grad_r =
        scan_sum(multiply(g, cumprod(x_r, {a}, DType::kUndefined)), a, /*reverse=*/true);
    at_zero = where(here, grad_r, at_zero);
  }
  if (zeros > 0) d = where(zero, at_zero, d);
  return dim.empty() ? reshape_to(d, x.shape()) : d;
}

}  // namespace oar
