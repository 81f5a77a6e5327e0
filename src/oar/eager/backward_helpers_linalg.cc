// Backward formulas of the LAPACK section (src/oar/ops/lapack.yaml), composed of
// differentiable ops (inverse, solve, triangular_solve, matmul, ...), so every order of
// gradient works. The formulas follow the standard matrix-calculus results (PyTorch's
// derivatives of the same functions); the packed outputs of qr/svd/eigh are split into
// their parts first (docs/linalg.md). Complex inputs take the conjugate-Wirtinger
// convention (docs/dtypes.md): every adjoint is a conjugate transpose (mH), which is mT
// for real tensors, so one formula serves both.
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

// The conjugate transpose of the last two dims (the transpose for real tensors).
Tensor mH(const Tensor& x) { return conj_if_complex(mT(x)); }

// a^H b and a b^H.
Tensor MatmulAH(const Tensor& a, const Tensor& b) {
  return matmul(conj_if_complex(a), b, true, false);
}
Tensor MatmulBH(const Tensor& a, const Tensor& b) {
  return matmul(a, conj_if_complex(b), false, true);
}

// a^-H t for a triangular a (its upper or lower triangle; unit diagonal if unit):
// the plain-transposed solve on conj(a).
Tensor SolveAdjoint(const Tensor& a, const Tensor& t, bool upper, bool unit) {
  return triangular_solve(conj_if_complex(a), t, upper, true, unit);
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

// b @ a^-H for an upper (upper = true) or lower triangular a: a right-hand solve
// written as the left-hand one on the adjoints.
Tensor RightSolveAdjoint(const Tensor& b, const Tensor& a, bool upper) {
  return mH(triangular_solve(a, mH(b), upper, false, false));
}

// The diagonal matrices of t's real diagonal, in t's dtype.
Tensor RealDiagonal(const Tensor& t) {
  const Tensor d = diagonal(t, 0, -2, -1);
  return diag_embed(IsComplex(t.dtype()) ? cast(real(d), t.dtype()) : d, 0, -2, -1);
}

// The gradient w.r.t. x of a function that reads only one triangle of x and mirrors
// it (conjugated, for a Hermitian matrix): the mirrored half's gradient folds onto the
// half that was read; a complex diagonal's imaginary part, which LAPACK ignores, gets
// none.
Tensor FoldSymmetricGrad(const Tensor& g, bool upper) {
  if (IsComplex(g.dtype())) {
    const Tensor half = upper ? add(triu(g, 1), triu(mH(g), 1)) : add(tril(g, -1), tril(mH(g), -1));
    return add(half, RealDiagonal(g));
  }
  return upper ? add(triu(g, 0), triu(mT(g), 1)) : add(tril(g, 0), tril(mT(g), -1));
}

// Where a kernel fixed the unit phase of each column of v (its largest-magnitude entry
// made real and positive: NormaliseUnit), the gradient of a loss of the fixed columns
// with respect to the unfixed ones, less the given one: with b the largest entry's row,
// v -> v conj(v_b) / |v_b| adds -i v Im(dv_b) / v_b to a perturbation, and im [..., 1, k]
// is the loss's derivative along that phase turn (Im(v^H gv)_ii, plus the partner
// vector's term for a singular pair). Subtracting this makes the gradient one of a loss
// that ignores the phases, which the formulas below assume.
Tensor PhaseCorrection(const Tensor& v, const Tensor& im) {
  const int64_t n = Dim(v, -2);
  std::vector<int64_t> rows(n);
  for (int64_t i = 0; i < n; ++i) rows[i] = i;
  const Tensor largest = argmax(abs(v), {-2}, true, DType::kInt64);  // [..., 1, k]
  const Tensor at_b = cast(equal(to_tensor<int64_t>(rows, {n, 1}), largest), v.dtype());
  const Tensor vb = real(sum(multiply(v, at_b), {-2}, DType::kUndefined, true));
  return multiply(at_b, complex(zeros_like(im), divide(im, vb)));
}

// adj(x)^H, the derivative of det(x) for every x, singular ones included: from
// x = U S Vh, adj(x)^H = conj(det(U) det(Vh)) U diag(prod_{j != i} s_j) Vh. (det(x) x^-H
// is the same thing only where x is invertible.)
Tensor AdjugateAdjoint(const Tensor& x) {
  const int64_t n = Dim(x, -1);
  const Tensor p = svd_packed(x, false);  // [..., n, n + 1 + n]: U^T | S | Vh
  const Tensor ut = Cols(p, 0, n), vh = Cols(p, n + 1, 2 * n + 1);
  // S is real (complex-typed for complex x): its products are taken in the real type.
  Tensor s = squeeze(Cols(p, n, n + 1), {-1});
  if (IsComplex(x.dtype())) s = real(s);
  // prod_{j != i} s_j without dividing: the running products from the left and from
  // the right, each shifted by one
  const Tensor one = Cols(ones_like(s), 0, 1);
  const Tensor left = concat({one, Cols(cumprod(s, {-1}, DType::kUndefined), 0, n - 1)}, -1);
  const Tensor right =
      concat({Cols(flip(cumprod(flip(s, {-1}), {-1}, DType::kUndefined), {-1}), 1, n), one}, -1);
  const Tensor others = cast(multiply(left, right), x.dtype());
  const Tensor sign = conj_if_complex(multiply(det(mT(ut)), det(vh)));  // a unit factor
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
  // d(X^-1) = -X^-1 dX X^-1  =>  gX = -X^-H g X^-H.
  const Tensor oc = conj_if_complex(out);
  return neg(matmul(oc, matmul(g, oc, false, true), true, false));
}

Tensor det_grad(const Tensor& x, const Tensor& out, const Tensor& g) {
  // A singular matrix has a gradient too (the adjugate; PyTorch and Paddle give 0,
  // oar raised from inverse): the SVD form then, the cheaper inverse otherwise.
  if (Dim(x, -1) > 0 && AnySingular(out)) {
    return multiply(AsMatrixScale(g), AdjugateAdjoint(x));
  }
  return multiply(AsMatrixScale(multiply(g, conj_if_complex(out))), mH(inverse(x)));
}

Tensor slogdet_grad(const Tensor& x, const Tensor& out, const Tensor& g) {
  // Real x: only log|det| has a gradient (the sign is piecewise constant). Complex x:
  // the sign det/|det| turns with Im tr(x^-1 dx) while log|det| moves with its real
  // part, so the two combine into c = Re(g_log) - i Im(conj(g_sign) sign) times x^-H.
  Tensor c = squeeze(slice(g, {0}, {1}, {2}), {0});
  const Tensor sign = squeeze(slice(out, {0}, {0}, {1}), {0});
  if (IsComplex(x.dtype())) {
    const Tensor g_sign = squeeze(slice(g, {0}, {0}, {1}), {0});
    c = complex(real(c), neg(imag(multiply(conj(g_sign), sign))));
  }
  // x^-H; for a singular matrix (sign 0, log|det| -inf) adj(x)^H / conj(det): +-inf, or
  // NaN where the adjugate is 0, instead of inverse()'s error
  if (Dim(x, -1) > 0 && AnySingular(sign)) {
    return multiply(AsMatrixScale(c),
                    divide(AdjugateAdjoint(x), AsMatrixScale(conj_if_complex(det(x)))));
  }
  return multiply(AsMatrixScale(c), mH(inverse(x)));
}

// For complex x the adjoint is the conjugate transpose (PyTorch's gradient convention,
// docs/dtypes.md); conj_if_complex leaves real tensors alone.
Tensor solve_grad_y(const Tensor& x, const Tensor& g) { return solve(conj_if_complex(mT(x)), g); }

Tensor solve_grad_x(const Tensor& x, const Tensor& out, const Tensor& g) {
  return neg(matmul(solve(conj_if_complex(mT(x)), g), conj_if_complex(out), false, true));
}

// op(x)^-H g: the solve with x conjugated and the transpose flag flipped.
Tensor triangular_solve_grad_y(const Tensor& x, const Tensor& g, bool upper, bool transpose,
                               bool unitriangular) {
  return triangular_solve(conj_if_complex(x), g, upper, !transpose, unitriangular);
}

Tensor triangular_solve_grad_x(const Tensor& x, const Tensor& out, const Tensor& g, bool upper,
                               bool transpose, bool unitriangular) {
  const Tensor gy = triangular_solve_grad_y(x, g, upper, transpose, unitriangular);
  // -gy out^H w.r.t. op(x); through op = transpose, -(gy out^H)^T = -conj(out) gy^T.
  const Tensor gx =
      transpose ? neg(matmul(conj_if_complex(out), gy, false, true)) : neg(MatmulBH(gy, out));
  // Only the triangle that is read (without the diagonal when it is taken as ones).
  const int64_t diag = unitriangular ? 1 : 0;
  return upper ? triu(gx, diag) : tril(gx, -diag);
}

Tensor cholesky_grad(const Tensor& out, const Tensor& g, bool upper) {
  const Tensor L = upper ? mH(out) : out;
  const Tensor gL = upper ? mH(g) : g;
  // gA = L^-H Phi(L^H gL) L^-1 with Phi symmetrising the lower triangle (halved diagonal;
  // for complex, its real part: L's diagonal is real, and so is dA's), then folded onto
  // the lower triangle that the forward reads.
  const Tensor lhgl = MatmulAH(L, gL);
  Tensor p = add(tril(lhgl, -1), RealDiagonal(lhgl));
  p = scale(add(p, mH(tril(p, -1))), 0.5);
  const Tensor left = SolveAdjoint(L, p, false, false);    // L^-H p
  const Tensor ga = RightSolveAdjoint(left, mH(L), true);  // (L^-H p) L^-1
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
    // gA = (gQ + Q copyltu(M)) R^-H with M = gR R^H - Q^H gQ and copyltu(M) =
    // triu(M, 1) + triu(M, 1)^H + Re(diag(M)): R's diagonal is real (LAPACK's
    // Householder vectors make it so), which fixes Q's column phases.
    const Tensor mm = subtract(MatmulBH(gr, r), MatmulAH(q, gq));
    const Tensor sym = add(add(triu(mm, 1), mH(triu(mm, 1))), RealDiagonal(mm));
    return RightSolveAdjoint(add(gq, matmul(q, sym)), r, true);
  };
  if (m >= n) return square_or_tall(q, r, gq, gr);
  // Wide: x = [X | Y] with X = Q R1 (square) and R2 = Q^H Y, so Y's gradient is Q gR2
  // and gR2 reaches Q as Y gR2^H.
  const Tensor y = Cols(x, m, n), gr2 = Cols(gr, m, n);
  const Tensor gx = square_or_tall(q, Cols(r, 0, m), add(gq, MatmulBH(y, gr2)), Cols(gr, 0, m));
  return concat({gx, matmul(q, gr2)}, -1);
}

Tensor svd_packed_grad(const Tensor& x, const Tensor& out, const Tensor& g, bool full_matrices) {
  const int64_t m = Dim(x, -2), n = Dim(x, -1), k = std::min(m, n);
  // The first k rows of each part: the extra columns of a full U/V get no gradient
  // (they are not determined by x), as in PyTorch.
  const Tensor o = Rows(out, 0, k), go = Rows(g, 0, k);
  const bool cplx = IsComplex(x.dtype());
  const Tensor u = mT(Cols(o, 0, m)), vh = Cols(o, m + 1, m + 1 + n);
  const Tensor s = squeeze(Cols(o, m, m + 1), {-1});
  Tensor gu = mT(Cols(go, 0, m));
  const Tensor gvh = Cols(go, m + 1, m + 1 + n);
  Tensor gs = squeeze(Cols(go, m, m + 1), {-1});
  // V^H gV for gV = gVh^H, the gradient w.r.t. V.
  const Tensor vhgv = MatmulBH(vh, gvh);
  if (cplx) {
    // S is real: only Re(gS) reaches it. A singular pair (u, v) is fixed up to a
    // common phase, which the kernel fixed from u (NormaliseUnit).
    gs = cast(real(gs), x.dtype());
    const Tensor im =
        add(imag(diagonal(MatmulAH(u, gu), 0, -2, -1)), imag(diagonal(vhgv, 0, -2, -1)));
    gu = subtract(gu, PhaseCorrection(u, unsqueeze(im, {-2})));
  }
  const Tensor s_row = unsqueeze(s, {-2}), s_col = unsqueeze(s, {-1});
  // E_ij = s_j^2 - s_i^2, ones on the diagonal (where the skew terms are zero).
  const Tensor s2 = multiply(s, s);
  const Tensor e =
      add(subtract(unsqueeze(s2, {-2}), unsqueeze(s2, {-1})), diag_embed(ones_like(s), 0, -2, -1));
  const Tensor uhgu = MatmulAH(u, gu);
  const Tensor skew_u = subtract(uhgu, mH(uhgu)), skew_v = subtract(vhgv, mH(vhgv));
  Tensor core = divide(add(multiply(skew_u, s_row), multiply(s_col, skew_v)), e);
  if (cplx) {
    // The skew terms' diagonals are 2i Im(.)_ii, not zero: they become the phase term
    // i (Im(U^H gU)_ii - Im(V^H gV)_ii) / (2 s_i) of a phase-invariant loss.
    const Tensor off = subtract(ones_like(e), diag_embed(ones_like(s), 0, -2, -1));
    const Tensor im = subtract(imag(diagonal(uhgu, 0, -2, -1)), imag(diagonal(vhgv, 0, -2, -1)));
    const Tensor phase = divide(complex(zeros_like(im), im), scale(s, 2.0));
    core = add(multiply(core, off), diag_embed(phase, 0, -2, -1));
  }
  core = add(core, diag_embed(gs, 0, -2, -1));
  if (m > n) {
    // gA = [U core + (I - U U^H) gU S^-1] Vh.
    const Tensor gus = divide(gu, s_row);
    const Tensor inner = add(matmul(u, core), subtract(gus, matmul(u, MatmulAH(u, gus))));
    return matmul(inner, vh);
  }
  if (m < n) {
    // gA = U [core Vh + S^-1 gVh (I - V Vh)].
    const Tensor sgvh = divide(gvh, s_col);
    const Tensor inner = add(matmul(core, vh), subtract(sgvh, matmul(MatmulBH(sgvh, vh), vh)));
    return matmul(u, inner);
  }
  return matmul(u, matmul(core, vh));
}

Tensor eigh_packed_grad(const Tensor& out, const Tensor& g, bool upper) {
  const int64_t n = Dim(out, -2);
  const Tensor w = squeeze(Cols(out, 0, 1), {-1}), v = mT(Cols(out, 1, n + 1));
  Tensor gw = squeeze(Cols(g, 0, 1), {-1}), gv = mT(Cols(g, 1, n + 1));
  if (IsComplex(out.dtype())) {
    // The eigenvalues are real (only Re(gw) reaches them); the kernel fixed each
    // eigenvector's phase (NormaliseUnit), whose derivative is folded in as for eig.
    gw = cast(real(gw), out.dtype());
    const Tensor im = unsqueeze(imag(diagonal(MatmulAH(v, gv), 0, -2, -1)), {-2});
    gv = subtract(gv, PhaseCorrection(v, im));
  }
  // gA = V (diag(gw) + offdiag(V^H gV) / E) V^H, E_ij = w_j - w_i; folded onto the
  // triangle the forward reads.
  const Tensor ones_n = ones_like(w);
  const Tensor e =
      add(subtract(unsqueeze(w, {-2}), unsqueeze(w, {-1})), diag_embed(ones_n, 0, -2, -1));
  const Tensor off = subtract(ones_like(e), diag_embed(ones_n, 0, -2, -1));
  const Tensor core = add(multiply(divide(MatmulAH(v, gv), e), off), diag_embed(gw, 0, -2, -1));
  return FoldSymmetricGrad(matmul(v, MatmulBH(core, v)), upper);
}

}  // namespace oar

// ---- eig and LU (lapack.yaml: eig_packed, lu_packed) ----
namespace oar {
namespace {

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

// P @ t for the row permutation P of lu(x) = P L U (from x's pivots), i.e. t's rows
// moved: row j goes to row perm[j]. A constant index, so differentiable in t.
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
  // solves read L and U straight from the packed factors (unit diagonal for L); for
  // complex factors every adjoint is a conjugate transpose.
  const int64_t m = Dim(x, -2), n = Dim(x, -1);
  const int64_t k = std::min(m, n);
  const Tensor lower_unit = add(tril(Cols(out, 0, k), -1), UnitDiagonal(Cols(out, 0, k)));
  const Tensor upper = triu(Rows(out, 0, k), 0);
  const Tensor gl = tril(Cols(g, 0, k), -1), gu = triu(Rows(g, 0, k), 0);
  Tensor ga;
  if (m <= n) {
    // [tril(L^H gL - gU U^H, -1) U1^-H + triu(gU1) | gU2], then L^-H from the left.
    const Tensor lsq = Cols(out, 0, m);
    Tensor t = tril(subtract(MatmulAH(lower_unit, gl), MatmulBH(gu, upper)), -1);
    t = add(RightSolveAdjoint(t, lsq, true), Cols(gu, 0, m));
    if (n > m) t = concat({t, Cols(gu, m, n)}, -1);
    ga = SolveAdjoint(lsq, t, false, true);
  } else {
    // L1^-H triu(gU U^H - L^H gL) + tril(gL1, -1) stacked on gL2, then U^-H from the right.
    const Tensor l1 = Rows(out, 0, n);
    Tensor t = triu(subtract(MatmulBH(gu, upper), MatmulAH(lower_unit, gl)), 0);
    t = add(SolveAdjoint(l1, t, false, true), Rows(gl, 0, n));
    t = concat({t, Rows(gl, n, m)}, -2);
    ga = RightSolveAdjoint(t, l1, true);
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
  const Tensor gv0 = mT(Cols(g, 1, n + 1));
  const Tensor im = unsqueeze(imag(diagonal(matmul(vh, gv0), 0, -2, -1)), {-2});
  const Tensor gv = subtract(gv0, PhaseCorrection(v, im));
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
