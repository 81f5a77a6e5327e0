// Backward helpers of the sparse sections (src/oar/ops/sparse*.yaml), declared in
// backward_helpers.h. Written in declared ops, so every order of gradient works
// wherever the ops themselves are differentiable.
#include "oar/core/grad_mode.h"
#include "oar/eager/backward_helpers.h"
#include "oar/eager/dygraph_functions.h"

namespace oar {
namespace {

// The permutation swapping the last two dimensions of a 2-D or 3-D tensor.
std::vector<int64_t> SwapLastTwo(const Tensor& t) {
  return t.ndim() == 3 ? std::vector<int64_t>{0, 2, 1} : std::vector<int64_t>{1, 0};
}

Tensor MatrixT(const Tensor& t) {
  return t.is_sparse() ? sparse_transpose(t, SwapLastTwo(t)) : transpose(t, SwapLastTwo(t));
}

// g as a sparse tensor of the kind of `like` (any positions).
Tensor AsSparseLike(const Tensor& g, const Tensor& like) {
  if (like.is_sparse_coo()) {
    if (g.is_sparse_coo()) return g;
    return sparse_to_coo(g, like.sparse_coo().sparse_dim());
  }
  return g.is_sparse_csr() ? g : sparse_to_csr(g);
}

// Same positions in the same order: both share the indices' memory.
bool SharesPositions(const Tensor& a, const Tensor& b) {
  if (a.is_sparse_coo() && b.is_sparse_coo()) {
    const auto& ia = a.sparse_coo().indices();
    const auto& ib = b.sparse_coo().indices();
    return ia.Holder() == ib.Holder() && ia.offset() == ib.offset() && ia.dims() == ib.dims();
  }
  if (a.is_sparse_csr() && b.is_sparse_csr()) {
    const auto& ca = a.sparse_csr();
    const auto& cb = b.sparse_csr();
    return ca.cols().Holder() == cb.cols().Holder() && ca.crows().Holder() == cb.crows().Holder() &&
           ca.dims() == cb.dims();
  }
  return false;
}

// The gradient of sparse x @ sparse y at the product's positions. It normally
// arrives there; a dense one (a seed given densely) is masked to the positions of
// the product, recomputed rather than kept alive by every node.
Tensor ProductGrad(const Tensor& x, const Tensor& y, const Tensor& g);

}  // namespace

Tensor sparse_mask_as(const Tensor& g, const Tensor& x) {
  if (!g.defined()) return g;
  if (!x.is_sparse()) return g.is_sparse() ? sparse_to_dense(g) : g;
  if (SharesPositions(g, x)) return g;
  const Tensor src = g.is_sparse() ? AsSparseLike(g, x) : g;
  return sparse_with_values(x, sparse_mask_values(src, x));
}

Tensor sparse_mask_values_grad(const Tensor& x, const Tensor& mask, const Tensor& g) {
  const Tensor on_mask = sparse_with_values(mask, g);
  return x.is_sparse() ? sparse_mask_as(on_mask, x) : sparse_to_dense(on_mask);
}

Tensor sparse_transpose_grad(const Tensor& x, const Tensor& g, const std::vector<int64_t>& perm) {
  const std::vector<int64_t> inv = inverse_perm(perm);
  return sparse_mask_as(g.is_sparse() ? sparse_transpose(g, inv) : transpose(g, inv), x);
}

namespace {
Tensor ProductGrad(const Tensor& x, const Tensor& y, const Tensor& g) {
  if (g.is_sparse()) return AsSparseLike(g, x);
  Tensor positions;
  {
    NoGradGuard no_grad;
    positions = sparse_matmul(x, y);
  }
  return sparse_mask_as(g, positions);
}
}  // namespace

// out = x @ y. dx = g @ y^T (at x's positions), dy = x^T @ g (at y's if sparse).
Tensor sparse_matmul_grad_x(const Tensor& x, const Tensor& y, const Tensor& g) {
  if (!y.is_sparse()) {
    const Tensor gd = g.is_sparse() ? sparse_to_dense(g) : g;
    return sparse_masked_matmul(gd, MatrixT(y), x);
  }
  return sparse_mask_as(sparse_matmul(ProductGrad(x, y, g), MatrixT(y)), x);
}

Tensor sparse_matmul_grad_y(const Tensor& x, const Tensor& y, const Tensor& g) {
  if (!y.is_sparse()) {
    return sparse_matmul(MatrixT(x), g.is_sparse() ? sparse_to_dense(g) : g);
  }
  return sparse_mask_as(sparse_matmul(MatrixT(x), ProductGrad(x, y, g)), y);
}

// out = (x @ y) at mask's positions. dx = G @ y^T, dy = x^T @ G = (G^T @ x)^T,
// G the gradient at mask's positions.
Tensor sparse_masked_matmul_grad_x(const Tensor& x, const Tensor& y, const Tensor& mask,
                                   const Tensor& g) {
  return sparse_matmul(sparse_mask_as(g, mask), MatrixT(y));
}

Tensor sparse_masked_matmul_grad_y(const Tensor& x, const Tensor& y, const Tensor& mask,
                                   const Tensor& g) {
  return MatrixT(sparse_matmul(MatrixT(sparse_mask_as(g, mask)), x));
}

// dx = out * (g - rowsum(g * out)), on out's positions; in differentiable ops, so
// the softmax has gradients of every order.
Tensor sparse_softmax_grad_x(const Tensor& x, const Tensor& out, const Tensor& g, int64_t axis) {
  const Tensor ov = sparse_values(out);
  const Tensor gv = sparse_values(sparse_mask_as(g, out));
  const Tensor dot = sparse_values(sparse_row_sum(sparse_with_values(out, multiply(gv, ov))));
  return sparse_mask_as(sparse_with_values(out, multiply(ov, subtract(gv, dot))), x);
}

}  // namespace oar
