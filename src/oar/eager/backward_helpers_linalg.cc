// Backward formulas of the LAPACK section (src/oar/ops/lapack.yaml), composed of
// differentiable ops (inverse, solve, triangular_solve, matmul, ...), so every order of
// gradient works. The formulas follow the standard matrix-calculus results (PyTorch's
// derivatives of the same functions); the packed outputs of qr/svd/eigh are split into
// their parts first (docs/linalg.md).
#include "oar/core/errors.h"
#include "oar/eager/backward_helpers.h"
#include "oar/eager/creation.h"
#include "oar/eager/dygraph_functions.h"

namespace oar {
namespace {

// The last two dims swapped.
Tensor mT(const Tensor& x) {
  std::vector<int64_t> perm(x.shape().size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return transpose(x, perm);
}

int64_t Dim(const Tensor& t, int64_t i) {
  const auto s = t.shape();
  return s[i < 0 ? static_cast<int64_t>(s.size()) + i : i];
}

// Columns [begin, end) / rows [begin, end) of the last two dims.
Tensor Cols(const Tensor& t, int64_t begin, int64_t end) {
  return slice(t, {static_cast<int64_t>(t.shape().size()) - 1}, {begin}, {end});
}
Tensor Rows(const Tensor& t, int64_t begin, int64_t end) {
  return slice(t, {static_cast<int64_t>(t.shape().size()) - 2}, {begin}, {end});
}

// [...] -> [..., 1, 1], to scale whole matrices.
Tensor AsMatrixScale(const Tensor& t) { return unsqueeze(t, {-1, -1}); }

// b @ a^{-T} for an upper (upper = true) or lower triangular a: a right-hand solve
// written as the left-hand one on the transposes.
Tensor RightSolveTransposed(const Tensor& b, const Tensor& a, bool upper) {
  return mT(triangular_solve(a, mT(b), upper, false, false));
}

// The gradient w.r.t. x of a function that reads only one triangle of x and mirrors
// it: the mirrored half's gradient folds onto the half that was read.
Tensor FoldSymmetricGrad(const Tensor& g, bool upper) {
  return upper ? add(triu(g, 0), triu(mT(g), 1)) : add(tril(g, 0), tril(mT(g), -1));
}

// adj(x)^T, the derivative of det(x) for every x, singular ones included: from
// x = U S Vh, adj(x)^T = det(U) det(Vh) U diag(prod_{j != i} s_j) Vh. (det(x) x^-T is
// the same thing only where x is invertible.)
Tensor AdjugateTransposed(const Tensor& x) {
  const int64_t n = Dim(x, -1);
  const Tensor p = svd_packed(x, false);  // [..., n, n + 1 + n]: U^T | S | Vh
  const Tensor ut = Cols(p, 0, n), vh = Cols(p, n + 1, 2 * n + 1);
  const Tensor s = squeeze(Cols(p, n, n + 1), {-1});
  // prod_{j != i} s_j without dividing: the running products from the left and from
  // the right, each shifted by one
  const Tensor one = Cols(ones_like(s), 0, 1);
  const Tensor left = concat({one, Cols(cumprod(s, {-1}, DType::kUndefined), 0, n - 1)}, -1);
  const Tensor right =
      concat({Cols(flip(cumprod(flip(s, {-1}), {-1}, DType::kUndefined), {-1}), 1, n), one}, -1);
  const Tensor others = multiply(left, right);
  const Tensor sign = multiply(det(mT(ut)), det(vh));  // +-1
  return multiply(AsMatrixScale(sign), matmul(multiply(mT(ut), unsqueeze(others, {-2})), vh));
}

// Whether any matrix has a zero determinant (the only case inverse() refuses).
bool AnySingular(const Tensor& det_or_sign) {
  if (det_or_sign.numel() == 0) return false;
  const Tensor zero = cast(equal(det_or_sign, zeros_like(det_or_sign)), DType::kFloat64);
  return amax(zero, {}, false).item<double>() > 0;
}

}  // namespace

Tensor inverse_grad(const Tensor& out, const Tensor& g) {
  // d(X^-1) = -X^-1 dX X^-1  =>  gX = -X^-T g X^-T.
  return neg(matmul(out, matmul(g, out, false, true), true, false));
}

Tensor det_grad(const Tensor& x, const Tensor& out, const Tensor& g) {
  // A singular matrix has a gradient too (the adjugate; PyTorch and Paddle give 0,
  // oar raised from inverse): the SVD form then, the cheaper inverse otherwise.
  if (Dim(x, -1) > 0 && AnySingular(out)) {
    return multiply(AsMatrixScale(g), AdjugateTransposed(x));
  }
  return multiply(AsMatrixScale(multiply(g, out)), mT(inverse(x)));
}

Tensor slogdet_grad(const Tensor& x, const Tensor& out, const Tensor& g) {
  // Only log|det| has a gradient (the sign is piecewise constant).
  const Tensor g_log = squeeze(slice(g, {0}, {1}, {2}), {0});
  // x^-T; for a singular matrix (sign 0, log|det| -inf) adj(x)^T / 0: +-inf, or NaN
  // where the adjugate is 0, instead of inverse()'s error
  if (Dim(x, -1) > 0 && AnySingular(squeeze(slice(out, {0}, {0}, {1}), {0}))) {
    return multiply(AsMatrixScale(g_log), divide(AdjugateTransposed(x), AsMatrixScale(det(x))));
  }
  return multiply(AsMatrixScale(g_log), mT(inverse(x)));
}

Tensor solve_grad_y(const Tensor& x, const Tensor& g) { return solve(mT(x), g); }

Tensor solve_grad_x(const Tensor& x, const Tensor& out, const Tensor& g) {
  return neg(matmul(solve(mT(x), g), out, false, true));
}

Tensor triangular_solve_grad_y(const Tensor& x, const Tensor& g, bool upper, bool transpose,
                               bool unitriangular) {
  return triangular_solve(x, g, upper, !transpose, unitriangular);
}

Tensor triangular_solve_grad_x(const Tensor& x, const Tensor& out, const Tensor& g, bool upper,
                               bool transpose, bool unitriangular) {
  const Tensor gy = triangular_solve(x, g, upper, !transpose, unitriangular);
  const Tensor gx =
      transpose ? neg(matmul(out, gy, false, true)) : neg(matmul(gy, out, false, true));
  // Only the triangle that is read (without the diagonal when it is taken as ones).
  const int64_t diag = unitriangular ? 1 : 0;
  return upper ? triu(gx, diag) : tril(gx, -diag);
}

Tensor cholesky_grad(const Tensor& out, const Tensor& g, bool upper) {
  const Tensor L = upper ? mT(out) : out;
  const Tensor gL = upper ? mT(g) : g;
  // gA = L^-T Phi(L^T gL) L^-1 with Phi symmetrising the lower triangle (halved diagonal),
  // then folded onto the lower triangle that the forward reads.
  Tensor p = tril(matmul(L, gL, true, false), 0);
  p = scale(add(p, mT(tril(p, -1))), 0.5);
  const Tensor left = triangular_solve(L, p, false, true, false);  // L^-T p
  const Tensor ga = RightSolveTransposed(left, mT(L), true);       // (L^-T p) L^-1
  return FoldSymmetricGrad(ga, false);
}

Tensor qr_packed_grad(const Tensor& x, const Tensor& out, const Tensor& g, bool complete) {
  const int64_t m = Dim(x, -2), n = Dim(x, -1);
  OAR_ENFORCE(!complete || m <= n,
              errors::Unimplemented("the QR decomposition with mode='complete' is not "
                                    "differentiable when the matrix has more rows (",
                                    m, ") than columns (", n, "); use mode='reduced'"));
  const Tensor q = mT(Cols(out, 0, m)), r = Cols(out, m, m + n);
  const Tensor gq = mT(Cols(g, 0, m)), gr = Cols(g, m, m + n);
  const auto square_or_tall = [](const Tensor& q, const Tensor& r, const Tensor& gq,
                                 const Tensor& gr) {
    // gA = (gQ + Q copyltu(M)) R^-T with M = gR R^T - Q^T gQ, copyltu(M) = triu(M) + triu(M, 1)^T.
    const Tensor mm = subtract(matmul(gr, r, false, true), matmul(q, gq, true, false));
    const Tensor sym = add(triu(mm, 0), mT(triu(mm, 1)));
    return RightSolveTransposed(add(gq, matmul(q, sym)), r, true);
  };
  if (m >= n) return square_or_tall(q, r, gq, gr);
  // Wide: x = [X | Y] with X = Q R1 (square) and R2 = Q^T Y, so Y's gradient is Q gR2
  // and gR2 reaches Q as Y gR2^T.
  const Tensor y = Cols(x, m, n), gr2 = Cols(gr, m, n);
  const Tensor gx =
      square_or_tall(q, Cols(r, 0, m), add(gq, matmul(y, gr2, false, true)), Cols(gr, 0, m));
  return concat({gx, matmul(q, gr2)}, -1);
}

Tensor svd_packed_grad(const Tensor& x, const Tensor& out, const Tensor& g, bool full_matrices) {
  const int64_t m = Dim(x, -2), n = Dim(x, -1), k = std::min(m, n);
  // The first k rows of each part: the extra columns of a full U/V get no gradient
  // (they are not determined by x), as in PyTorch.
  const Tensor o = Rows(out, 0, k), go = Rows(g, 0, k);
  const Tensor u = mT(Cols(o, 0, m)), vh = Cols(o, m + 1, m + 1 + n);
  const Tensor s = squeeze(Cols(o, m, m + 1), {-1});
  const Tensor gu = mT(Cols(go, 0, m)), gvh = Cols(go, m + 1, m + 1 + n);
  const Tensor gs = squeeze(Cols(go, m, m + 1), {-1});
  const Tensor s_row = unsqueeze(s, {-2}), s_col = unsqueeze(s, {-1});
  // E_ij = s_j^2 - s_i^2, ones on the diagonal (where the skew terms are zero).
  const Tensor s2 = multiply(s, s);
  const Tensor e =
      add(subtract(unsqueeze(s2, {-2}), unsqueeze(s2, {-1})), diag_embed(ones_like(s), 0, -2, -1));
  const Tensor uhgu = matmul(u, gu, true, false);
  const Tensor vhgv = matmul(vh, gvh, false, true);
  const Tensor skew_u = subtract(uhgu, mT(uhgu)), skew_v = subtract(vhgv, mT(vhgv));
  Tensor core = divide(add(multiply(skew_u, s_row), multiply(s_col, skew_v)), e);
  core = add(core, diag_embed(gs, 0, -2, -1));
  if (m > n) {
    // gA = [U core + (I - U U^T) gU S^-1] Vh.
    const Tensor gus = divide(gu, s_row);
    const Tensor inner =
        add(matmul(u, core), subtract(gus, matmul(u, matmul(u, gus, true, false))));
    return matmul(inner, vh);
  }
  if (m < n) {
    // gA = U [core Vh + S^-1 gVh (I - V Vh)].
    const Tensor sgvh = divide(gvh, s_col);
    const Tensor inner =
        add(matmul(core, vh), subtract(sgvh, matmul(matmul(sgvh, vh, false, true), vh)));
    return matmul(u, inner);
  }
  return matmul(u, matmul(core, vh));
}

Tensor eigh_packed_grad(const Tensor& out, const Tensor& g, bool upper) {
  const int64_t n = Dim(out, -2);
  const Tensor w = squeeze(Cols(out, 0, 1), {-1}), v = mT(Cols(out, 1, n + 1));
  const Tensor gw = squeeze(Cols(g, 0, 1), {-1}), gv = mT(Cols(g, 1, n + 1));
  // gA = V (diag(gw) + offdiag(V^T gV) / E) V^T, E_ij = w_j - w_i; folded onto the
  // triangle the forward reads.
  const Tensor ones_n = ones_like(w);
  const Tensor e =
      add(subtract(unsqueeze(w, {-2}), unsqueeze(w, {-1})), diag_embed(ones_n, 0, -2, -1));
  const Tensor off = subtract(ones_like(e), diag_embed(ones_n, 0, -2, -1));
  const Tensor core =
      add(multiply(divide(matmul(v, gv, true, false), e), off), diag_embed(gw, 0, -2, -1));
  return FoldSymmetricGrad(matmul(v, matmul(core, v, false, true)), upper);
}

}  // namespace oar
