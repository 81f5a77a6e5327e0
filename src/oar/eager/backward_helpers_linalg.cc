// Backward formulas of the LAPACK section (src/oar/ops/lapack.yaml), composed of
// differentiable ops (inverse, solve, triangular_solve, matmul, ...), so every order of
// gradient works. The formulas follow the standard matrix-calculus results (PyTorch's
// derivatives of the same functions); the packed outputs of qr/svd/eigh are split into
// their parts first (docs/linalg.md).
#include <algorithm>
#include <vector>

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

}  // namespace

Tensor inverse_grad(const Tensor& out, const Tensor& g) {
  // d(X^-1) = -X^-1 dX X^-1  =>  gX = -X^-H g X^-H.
  const Tensor oc = conj_if_complex(out);
  return neg(matmul(oc, matmul(g, oc, false, true), true, false));
}

Tensor det_grad(const Tensor& x, const Tensor& out, const Tensor& g) {
  return multiply(AsMatrixScale(multiply(g, out)), mT(inverse(x)));
}

Tensor slogdet_grad(const Tensor& x, const Tensor& g) {
  // Only log|det| has a gradient (the sign is piecewise constant).
  const Tensor g_log = squeeze(slice(g, {0}, {1}, {2}), {0});
  return multiply(AsMatrixScale(g_log), mT(inverse(x)));
}

// For complex x the adjoint is the conjugate transpose (PyTorch's gradient convention,
// docs/dtypes.md); conj_if_complex leaves real tensors alone.
Tensor solve_grad_y(const Tensor& x, const Tensor& g) { return solve(conj_if_complex(mT(x)), g); }

Tensor solve_grad_x(const Tensor& x, const Tensor& out, const Tensor& g) {
  return neg(matmul(solve(conj_if_complex(mT(x)), g), conj_if_complex(out), false, true));
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
  OAR_ENFORCE(!IsComplex(out.dtype()),
              errors::Unimplemented("the gradient of eigh for complex (Hermitian) matrices is "
                                    "not available; only the forward is (docs/linalg.md)"));
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

// ---- eig and LU (lapack.yaml: eig_packed, lu_packed) ----
namespace oar {
namespace {

// P @ t for the row permutation P of lu(x) = P L U (from x's pivots), i.e. t's rows
// moved: row j goes to row perm[j]. A constant index, so differentiable in t.
// The eig kernel fixed each eigenvector's phase (its largest entry real and positive,
// NormalisePhase). With V_b that entry, v -> v * conj(v_b) / |v_b| adds -i v Im(dv_b) / v_b
// to a perturbation, so the gradient with respect to the unfixed eigenvector is
// gv - i e_b Im(<v, gv>) / v_b: then the formula below, which assumes a loss that ignores
// the phases, gives the derivative of the output as returned, for any loss.
Tensor PhaseFixedGrad(const Tensor& v, const Tensor& vh, const Tensor& gv) {
  const int64_t n = Dim(v, -1);
  std::vector<int64_t> rows(n);
  for (int64_t i = 0; i < n; ++i) rows[i] = i;
  const Tensor largest = argmax(abs(v), {-2}, true, DType::kInt64);  // [..., 1, n]
  const Tensor at_b = cast(equal(to_tensor<int64_t>(rows, {n, 1}), largest), v.dtype());
  const Tensor vb = real(sum(multiply(v, at_b), {-2}, DType::kUndefined, true));
  const Tensor im = unsqueeze(imag(diagonal(matmul(vh, gv), 0, -2, -1)), {-2});
  return subtract(gv, multiply(at_b, complex(zeros_like(im), divide(im, vb))));
}

// The identity of t's shape (ones on the main diagonal of each [..., r, c] matrix).
Tensor UnitDiagonal(const Tensor& t) {
  const int64_t r = Dim(t, -2), c = Dim(t, -1), d = std::min(r, c);
  std::vector<int64_t> shape = t.shape();
  shape.back() = d;
  shape.erase(shape.end() - 2);
  Tensor eye = diag_embed(ones(shape, t.dtype()), 0, -2, -1);  // [..., d, d]
  if (r > d) eye = concat({eye, zeros_like(Rows(t, 0, r - d))}, -2);
  if (c > d) eye = concat({eye, zeros_like(Cols(t, 0, c - d))}, -1);
  return eye;
}

Tensor ApplyLuPermutation(const Tensor& x, const Tensor& t) {
  const Tensor piv = lu_pivots(x);  // a fresh contiguous int32 [..., k]
  std::vector<int64_t> shape = x.shape();
  const int64_t m = shape[shape.size() - 2], k = Dim(piv, -1);
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < shape.size(); ++d) batch *= shape[d];
  std::vector<int64_t> inv(static_cast<size_t>(batch * m)), perm(m);
  const int* p = piv.data<int>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m; ++i) perm[i] = i;
    for (int64_t i = 0; i < k; ++i) std::swap(perm[i], perm[p[b * k + i] - 1]);
    for (int64_t j = 0; j < m; ++j) inv[b * m + perm[j]] = j;
  }
  shape.back() = 1;
  return take_along_axis(t, to_tensor<int64_t>(inv, shape), -2, true);
}

}  // namespace

Tensor lu_packed_grad(const Tensor& x, const Tensor& out, const Tensor& g) {
  // A = P L U with L [m, k] unit lower, U [k, n] upper, k = min(m, n), packed in out;
  // gL = tril(g, -1), gU = triu(g) (PyTorch's linalg_lu_backward). The triangular
  // solves read L and U straight from the packed factors (unit diagonal for L).
  const int64_t m = Dim(x, -2), n = Dim(x, -1);
  const int64_t k = std::min(m, n);
  const Tensor lower_unit = add(tril(Cols(out, 0, k), -1), UnitDiagonal(Cols(out, 0, k)));
  const Tensor upper = triu(Rows(out, 0, k), 0);
  const Tensor gl = tril(Cols(g, 0, k), -1), gu = triu(Rows(g, 0, k), 0);
  Tensor ga;
  if (m <= n) {
    // [tril(L^T gL - gU U^T, -1) U1^-T + triu(gU1) | gU2], then L^-T from the left.
    const Tensor lsq = Cols(out, 0, m);
    Tensor t =
        tril(subtract(matmul(lower_unit, gl, true, false), matmul(gu, upper, false, true)), -1);
    t = add(RightSolveTransposed(t, lsq, true), Cols(gu, 0, m));
    if (n > m) t = concat({t, Cols(gu, m, n)}, -1);
    ga = triangular_solve(lsq, t, false, true, true);
  } else {
    // L1^-T triu(gU U^T - L^T gL) + tril(gL1, -1) stacked on gL2, then U^-T from the right.
    const Tensor l1 = Rows(out, 0, n);
    Tensor t =
        triu(subtract(matmul(gu, upper, false, true), matmul(lower_unit, gl, true, false)), 0);
    t = add(triangular_solve(l1, t, false, true, true), Rows(gl, 0, n));
    t = concat({t, Rows(gl, n, m)}, -2);
    ga = RightSolveTransposed(t, l1, true);
  }
  return ApplyLuPermutation(x, ga);
}

Tensor eig_packed_grad(const Tensor& x, const Tensor& out, const Tensor& g) {
  // PyTorch's derivation (linalg_eig_backward): with A V = V diag(L),
  // gA = V^-H (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / E) V^H,
  // E_ij = conj(L_j) - conj(L_i) off the diagonal, 1 on it; real x takes the real part.
  const int64_t n = Dim(out, -2);
  const Tensor l = squeeze(Cols(out, 0, 1), {-1}), v = mT(Cols(out, 1, n + 1));
  const Tensor gl = squeeze(Cols(g, 0, 1), {-1});
  const Tensor vh = conj(mT(v));
  const Tensor gv = PhaseFixedGrad(v, vh, mT(Cols(g, 1, n + 1)));
  const Tensor vhgv = matmul(vh, gv);
  const Tensor re_diag = cast(real(diagonal(vhgv, 0, -2, -1)), out.dtype());
  const Tensor proj = subtract(vhgv, matmul(vh, multiply(v, unsqueeze(re_diag, {-2}))));
  const Tensor lc = conj(l);
  const Tensor e =
      add(subtract(unsqueeze(lc, {-2}), unsqueeze(lc, {-1})), diag_embed(ones_like(lc), 0, -2, -1));
  const Tensor core = add(divide(proj, e), diag_embed(gl, 0, -2, -1));
  const Tensor ga = solve(vh, matmul(core, vh));
  return IsComplex(x.dtype()) ? ga : real(ga);
}

}  // namespace oar
