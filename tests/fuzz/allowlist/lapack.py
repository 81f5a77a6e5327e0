"""LAPACK factorisations and solves (src/oar/ops/lapack.yaml): oar calls OpenBLAS's
LAPACK, torch MKL's. Where the answer is not unique (signs, phases, bases of repeated
values, orders) or not defined (non-finite, singular or rank-deficient matrices) the two
differ; the rules accept oar's only when it is itself a valid answer, or within the
roundoff the matrix's conditioning allows."""
import re

import numpy as np
import torch

from .common import Difference, _differing, _grad_differing, _numbers, _x


LAPACK_OPS = ["inverse", "det", "slogdet", "solve", "triangular_solve", "cholesky", "qr_packed",
              "svd_packed", "eigh_packed", "eig_packed", "lu_packed", "lu_pivots"]


def _non_finite_matrix(call, detail, last):
    """LAPACK factorisations and solves of a matrix holding inf or NaN: LAPACK's results
    for such input are unspecified (pivots chosen among infinities, inf - inf inside the
    updates) and differ between OpenBLAS, which oar calls, and torch's MKL; both stand
    for an undefined value. Only when an input matrix holds inf or NaN, and (values)
    every differing element belongs to a matrix of x that does, or y holds inf or NaN."""
    x, y = _x(call, last), _x(call, last, "y")
    if x is None or x.dim() < 2:
        return False
    bad_x = ~torch.isfinite(x).flatten(-2).all(-1).numpy()  # per matrix of x
    bad_y = y is not None and not bool(torch.isfinite(y).all())
    if not (bad_x.any() or bad_y):
        return False
    if not detail.startswith("value") or bad_y:
        return True
    d = _differing(last)
    batch = tuple(x.shape[:-2])
    bad = d[2] if d is not None else None
    if bad is not None and call.key == "slogdet" and bad.ndim:  # [2, *batch]: sign, log|det|
        bad = bad.any(0)
    if bad is None or bad.shape[:len(batch)] != batch:
        return bool(bad_x.all())
    per = bad.reshape(batch + (-1,)).any(-1)
    return bool(per.any() and (bad_x | ~per).all())


def _numerically_singular(call, detail, last):
    """det/slogdet of a matrix that is singular in exact arithmetic (repeated rows from an
    expand, seed 143): one LAPACK's LU cancels a pivot to exactly 0 (det 0, sign 0,
    log|det| -inf) where the other's complex division leaves a pivot of roundoff size,
    e.g. |det| 9e-16 for a 2x2 of entries ~2, or both leave different ones (complex64,
    seed 172: two unrelated phases). Both are the determinant within its rounding. Only
    when, for every matrix with a differing element, both |det| (0 for sign 0) are below
    n * 4 eps (of the dtype) times the product of the row norms (Hadamard's bound)."""
    x = _x(call, last)
    d = _differing(last)
    if x is None or d is None or x.dim() < 2 or x.shape[-1] != x.shape[-2] or \
            not bool(torch.isfinite(x).all()):
        return False
    got, want, bad = d
    xd = x.detach()
    eps = float(torch.finfo(xd.dtype).eps)
    n = xd.shape[-1]
    xw = xd.to(torch.complex128) if xd.is_complex() else xd.double()  # keep imaginary parts
    bound = n * 4 * eps * np.prod(torch.linalg.vector_norm(xw, dim=-1).numpy(), axis=-1)
    if call.key == "slogdet":  # [2, *batch]: sign, log|det| -> |det| per matrix
        bad = bad.any(0)
        mag_got = np.where(got[0] == 0, 0.0, np.exp(got[1].real))
        mag_want = np.where(want[0] == 0, 0.0, np.exp(want[1].real))
    else:
        mag_got, mag_want = np.abs(got), np.abs(want)
    bad, bound = np.broadcast_to(bad, np.shape(bound)), np.asarray(bound)
    if not bad.any():
        return False
    tiny = np.maximum(mag_got, mag_want) <= bound
    return bool(tiny[bad].all())


def _eigh_sign_tie(call, detail, last):
    """eigh_packed signs each eigenvector so its largest-magnitude entry is positive. When
    two entries tie in magnitude ([0, 0.7071, -0.7071] of a rank-deficient matrix, seed
    159), roundoff picks the largest, so OpenBLAS's vector and MKL's come out with
    opposite signs: both are the eigenvector. Only when every differing row has torch's
    eigenvalue, oar's vector is minus torch's, and its two largest |entries| agree within
    the dtype's tolerance."""
    import worker  # late: worker imports this package
    d = _differing(last)
    x = _x(call, last)
    if d is None or x is None or x.dim() < 2:
        return False
    got, want, bad = d
    n = x.shape[-1]
    if got.shape[-2:] != (n, n + 1) or got.dtype.kind != "f":
        return False
    rtol, atol = worker.RTOL.get(str(x.dtype).replace("torch.", ""), worker.RTOL["float64"])
    tol = max(atol, rtol) * 10 * max(1.0, float(x.detach().double().abs().max()))
    rows = bad.any(-1)
    if not rows.any():
        return False
    g, w = torch.from_numpy(got[rows]), torch.from_numpy(want[rows])
    if not bool(torch.isclose(g[:, 0], w[:, 0], atol=tol).all()):
        return False
    if not bool(torch.isclose(g[:, 1:], -w[:, 1:], atol=tol).all()):
        return False
    top = g[:, 1:].abs().topk(min(2, n), -1).values
    return n >= 2 and bool(((top[:, 0] - top[:, 1]) <= tol).all())


def _eigh_phase_tie_gradient(call, detail, last):
    """The gradient of eigh_packed folds in the derivative of the phase (sign) fixing,
    which makes the largest-magnitude entry of each eigenvector real and positive. When
    two entries tie in magnitude (a 2x2 with equal diagonal: |v0| = |v1| = 1/sqrt 2,
    seed 167), roundoff picks the entry, and the two choices are different functions of
    x with different derivatives; oar's and torch's picks differ. Only when every matrix
    holding a differing gradient element has an eigenvector whose two largest |entries|
    agree within 1e-9 (relative)."""
    r = _grad_differing(call, last)
    x = _x(call, last)
    if r is None or x is None or x.dim() < 2 or x.shape[-1] < 2:
        return False
    bad = r[2]
    xd = x.detach().to(torch.complex128 if x.is_complex() else torch.float64)
    upper = bool((call.decl or {}).get("upper", False))
    tri = xd.triu() if upper else xd.tril()
    strict = xd.triu(1) if upper else xd.tril(-1)
    h = tri + strict.mH
    if h.is_complex():
        h = h - 1j * torch.diag_embed(h.diagonal(dim1=-2, dim2=-1).imag)
    v = torch.linalg.eigh(h).eigenvectors.abs()  # columns: eigenvectors
    top = v.topk(2, dim=-2).values  # [..., 2, n]
    tie = ((top[..., 0, :] - top[..., 1, :]) <= 1e-9 * top[..., 0, :]).any(-1).numpy()
    per = bad.reshape(bad.shape[:-2] + (-1,)).any(-1) if bad.ndim >= 2 else bad
    per = np.broadcast_to(per, tie.shape) if np.ndim(per) else per
    return bool(np.any(per) and tie[per].all())


def _inverse_of_a_numerically_singular_matrix(call, detail, last):
    """inverse/solve of a matrix singular in exact arithmetic whose LU leaves a pivot of
    roundoff size instead of 0 (repeated rows from an expand, seed 165): the result is
    roundoff divided by roundoff (entries ~1e15), different in OpenBLAS and MKL, and
    neither raises. Only when every matrix with a differing element has its smallest
    singular value within n * 4 eps (of the dtype) of its largest."""
    d = _differing(last)
    x = _x(call, last)
    if d is None or x is None or x.dim() < 2 or x.shape[-1] != x.shape[-2] or \
            x.shape[-1] == 0 or not bool(torch.isfinite(x).all()):
        return False
    bad = d[2]
    n = x.shape[-1]
    xd = x.detach().to(torch.complex128 if x.is_complex() else torch.float64)
    sv = torch.linalg.svdvals(xd)
    eps = float(torch.finfo(x.dtype).eps)
    singular = (sv[..., -1] <= n * 4 * eps * sv[..., 0]).numpy()
    per = bad.reshape(bad.shape[:-2] + (-1,)).any(-1) if bad.ndim >= 2 else np.asarray(bad)
    if np.shape(per) != np.shape(singular):
        return False
    return bool(np.any(per) and np.asarray(singular)[per].all())


def _svd_is_an_svd(call, detail, last):
    """svd_packed: the singular vectors of a repeated singular value (every zero one of a
    rank-deficient matrix) and the extra columns of full_matrices' U or rows of its Vh
    are any orthonormal basis of their subspace -- LAPACK's gesdd picks one, torch's
    another. Only when oar's packed result is itself an SVD of x: U and Vh orthonormal,
    the singular values torch's, and U[:, :k] diag(S) Vh[:k] = x."""
    x, out, want = _x(call, last), last.get("out"), last.get("want")
    if x is None or out is None or want is None or x.dim() < 2 or \
            not bool(torch.isfinite(x).all()):
        return False
    full = bool((call.decl or {}).get("full_matrices", False))
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    cplx = x.is_complex()
    wide = np.complex128 if cplx else np.float64  # complex: each pair's phase is the choice
    p = torch.from_numpy(np.asarray(out.numpy(), dtype=wide))
    w = want.detach().to(torch.complex128 if cplx else torch.float64)
    if p.shape != w.shape:
        return False
    ut = p[..., :(m if full else k), :m]
    s = p[..., :k, m]
    vh = p[..., :(n if full else k), m + 1:]
    scale = max(1.0, float(x.abs().max())) if x.numel() else 1.0
    eye = lambda r: torch.eye(r, dtype=p.dtype)  # noqa: E731
    ok = torch.allclose(s, w[..., :k, m], rtol=1e-9, atol=1e-9 * scale)
    ok = ok and torch.allclose(ut @ ut.mH, eye(ut.shape[-2]).expand_as(ut @ ut.mH), atol=1e-9)
    ok = ok and torch.allclose(vh @ vh.mH, eye(vh.shape[-2]).expand_as(vh @ vh.mH), atol=1e-9)
    rebuilt = (ut[..., :k, :].mT * s.unsqueeze(-2)) @ vh[..., :k, :]
    return bool(ok and torch.allclose(rebuilt, x.to(p.dtype), atol=1e-9 * scale))


def _eig_is_an_eig(call, detail, last):
    """eig_packed: the eigenvectors of a repeated eigenvalue (a rank-deficient matrix's 0)
    are any unit vectors of its eigenspace, and geev's choice among them depends on
    roundoff -- OpenBLAS's differs from torch's MKL. Only when the eigenvalues agree with
    torch's as a multiset, oar's every (value, vector) pair satisfies x v = value v with
    |v| = 1, and each row that differs has an eigenvalue that is repeated (within the
    roundoff of x's scale), or is torch's vector times a unit phase (two entries of equal
    modulus: which one the phase rule makes real is roundoff's choice), or is one of
    torch's rows in another place: geev's order
    follows its deflation, which roundoff can change (seed 88: OpenBLAS and MKL gave a
    9x9 matrix's -5.52 and 5.55 in opposite orders)."""
    x, out, want = _x(call, last), last.get("out"), last.get("want")
    if x is None or out is None or want is None or x.dim() < 2 or x.numel() == 0 or \
            not bool(torch.isfinite(x).all()):
        return False
    p = torch.from_numpy(np.asarray(out.numpy(), dtype=np.complex128))
    w = want.detach().to(torch.complex128)
    if p.shape != w.shape:
        return False
    n = x.shape[-1]
    xs = x.detach().to(torch.complex128).reshape(-1, n, n)
    ps, ws = p.reshape(-1, n, n + 1), w.reshape(-1, n, n + 1)
    tol = (1e-4 if x.dtype == torch.float32 else 1e-10) * n * max(1.0, float(x.abs().max()))
    for a, got, ref in zip(xs, ps, ws):
        lam, vec = got[:, 0], got[:, 1:]
        key = lambda z: sorted(z.tolist(), key=lambda c: (round(c.real, 3), c.imag))  # noqa
        if not np.allclose(key(lam), key(ref[:, 0]), atol=tol):
            return False
        if not torch.allclose(vec.abs().pow(2).sum(-1), torch.ones(n, dtype=torch.float64),
                              atol=1e-4):
            return False
        if float((a @ vec.mT - vec.mT * lam).abs().max()) > tol:
            return False
        for i in torch.nonzero(~torch.isclose(got, ref, atol=tol).all(-1)).flatten().tolist():
            if bool(torch.isclose(ref, got[i], atol=tol).all(-1).any()):
                continue  # the same pair in another row: geev's order
            # the same vector up to its phase: entries of equal modulus tie for the
            # largest, and roundoff picks which one is made real
            if bool(torch.isclose(ref[i, 0], got[i, 0], atol=tol)) and \
                    abs(float(torch.vdot(ref[i, 1:], got[i, 1:]).abs()) - 1) <= tol:
                continue
            gaps = (ref[:, 0] - got[i, 0]).abs()
            if int((gaps <= tol).sum()) < 2:  # the value is not repeated
                return False
    return True


def _rank_deficient_gradient(call, detail, last):
    """The gradient of a factorisation or solve of a rank-deficient (singular) matrix is
    undefined: it divides by a zero pivot or singular value, giving inf in one
    implementation and NaN (inf - inf) in the other. Only when x has a rank-deficient
    matrix and both values at the first differing element are inf or NaN -- or, for
    svd_packed and qr_packed, oar's is: torch's gesdd returns a zero singular value as
    roundoff (1e-17) and its geqrf a zero pivot of R as 2e-16, so its gradient there is
    finite (1e15, or anything after the sum over an expanded input) where OpenBLAS's
    exact 0 gives oar inf or NaN -- or the other way round, when OpenBLAS leaves the
    roundoff and MKL the exact 0 (a rank-1 3x3 in bfloat16: oar -5.9e15, torch NaN). For
    slogdet, whose log|det| is -inf there, oar's adj(x)^T / det is 0 / 0 = NaN where the
    adjugate vanishes, and torch's SVD-based formula gives a finite value (-0.0, seed
    116), and for lu_packed a zero pivot divides in oar where MKL's roundoff leaves a tiny
    one (seed 133): one side non-finite is enough too."""
    x = _x(call, last)
    m = re.search(r"oar np\.(?:float|complex)\d+\(([^)]*)\), "
                  r"want np\.(?:float|complex)\d+\(([^)]*)\)", detail)
    if x is None or x.dim() < 2 or x.numel() == 0 or m is None or \
            not bool(torch.isfinite(x).all()):
        return False
    # a complex value is non-finite when either part is
    non_finite = [v.strip("-") in ("inf", "nan") or (v.endswith("j") and
                                                     ("inf" in v or "nan" in v))
                  for v in m.groups()]
    # qr_packed of a rank-deficient matrix: the gradient divides by R's roundoff-size
    # diagonal entry, and summed over an expanded input the huge terms cancel to a finite
    # remainder that is roundoff in both (complex 5x2 of equal rows, seed 179: -0.875-2j
    # against -0.75-1.75j); svd_packed the same way through its 1/s terms (a rectangular
    # or complex x's singular vectors of a zero singular value; complex64 4x2 of equal
    # rows, seed 218: 0.625-0.34j against -0.125-0.094j), lu_packed through its zero
    # pivot (complex64 5x2 of equal rows, seed 220: 2+4j against 4j) and eig_packed
    # through 1/(lambda_j - lambda_i) at the repeated eigenvalue 0 (complex64 3x3 of
    # equal rows, seed 220: 0.125-1.25j against -0.125-1.25j)
    if not (all(non_finite) or call.key in ("qr_packed", "svd_packed", "lu_packed") or
            (call.key in ("svd_packed", "slogdet", "lu_packed") and any(non_finite))):
        if call.key != "eig_packed":
            return False
        xd = x.detach().to(torch.complex128)
        lam = torch.linalg.eigvals(xd)
        gaps = (lam.unsqueeze(-1) - lam.unsqueeze(-2)).abs()
        gaps = gaps.masked_fill(torch.eye(lam.shape[-1], dtype=torch.bool), float("inf"))
        tol = 1e-3 * max(1.0, float(xd.abs().max()))
        if not bool((gaps <= tol).any()):
            return False
    rank = torch.linalg.matrix_rank(x.detach().to(torch.complex128 if x.is_complex()
                                                  else torch.float64))
    return bool((rank < min(x.shape[-2], x.shape[-1])).any())


def _conditioned_roundoff(call, detail, last):
    """A gradient through a LAPACK factorisation or solve carries the roundoff of its
    triangular solves, amplified by the condition number of the matrix solved with
    (for a wide QR, its first m columns; for the SVD, s_max^2 over the smallest gap
    between squared singular values): OpenBLAS and torch's MKL round differently.
    Only when the first differing values agree within 1e-14 * cond * max(1, |value|,
    the largest |gradient| entry)."""
    x = _x(call, last)
    v = _numbers(detail)
    if x is None or v is None or x.dim() < 2 or x.numel() == 0 or \
            not bool(torch.isfinite(x).all()):
        return False
    xd = x.detach().double()
    conds = [torch.linalg.cond(xd)]
    if xd.shape[-2] < xd.shape[-1]:
        conds.append(torch.linalg.cond(xd[..., :, :xd.shape[-2]]))
    if call.key == "svd_packed" and min(xd.shape[-2:]) > 1:
        # The SVD's gradient divides by the gaps s_j^2 - s_i^2 (and by s for a
        # rectangular x): its amplification is s_max^2 over the smallest of those.
        s2 = torch.linalg.svdvals(xd) ** 2
        gaps = (s2.unsqueeze(-1) - s2.unsqueeze(-2)).abs()
        gaps = gaps + torch.eye(s2.shape[-1], dtype=s2.dtype) * s2.max()
        small = torch.minimum(gaps.amin((-2, -1)), s2.amin(-1))
        conds.append(s2.amax(-1) / small)
    cond = max(float(c.max()) for c in conds)
    # The roundoff is relative to the gradient's largest terms: a small entry is a
    # difference of large ones.
    t = last.get("grad_torch")
    scale = max(1.0, abs(v[1]), float(t.detach().abs().max()) if t is not None and
                t.numel() and bool(torch.isfinite(t).all()) else 0.0)
    return abs(v[0] - v[1]) <= 1e-14 * cond * scale


def _qr_is_a_qr(call, detail, last):
    """qr_packed: a QR is unique only up to the signs of R's rows (with Q's columns), and
    Q's columns past the rank of a rank-deficient matrix are any orthonormal completion.
    LAPACK's Householder step signs R's diagonal against its pivot, and the reference
    LAPACK that OpenBLAS builds reads the sign of a -0.0 pivot where torch's MKL takes it
    as +0. Only when every matrix of x with differing elements either holds inf or NaN
    (unspecified, as for _non_finite_matrix) or has oar's result itself a QR of it: Q
    orthonormal, R upper triangular with torch's |diagonal|, and Q R = x, within the
    dtype's roundoff."""
    x, out, want = _x(call, last), last.get("out"), last.get("want")
    d = _differing(last)
    if x is None or out is None or want is None or x.dim() < 2 or d is None:
        return False
    m = x.shape[-2]
    # complex: R's rows (with Q's columns) are unique up to a unit phase, not a sign
    wide = torch.complex128 if x.is_complex() else torch.float64
    p = torch.from_numpy(np.asarray(out.numpy(), dtype=np.complex128 if x.is_complex()
                                    else np.float64))
    w = want.detach().to(wide)
    if p.shape != w.shape or p.shape[:-2] != x.shape[:-2]:
        return False
    k = p.shape[-2]
    tol = 1e-9 if x.dtype in (torch.float64, torch.complex128) else 1e-4
    bad = torch.from_numpy(d[2]).reshape(-1, k * p.shape[-1]).any(-1)
    xs, ps, ws = x.detach().to(wide).reshape((-1,) + x.shape[-2:]), \
        p.reshape((-1,) + p.shape[-2:]), w.reshape((-1,) + w.shape[-2:])
    eye = torch.eye(k, dtype=wide)
    for xb, pb, wb, b in zip(xs, ps, ws, bad):
        if not b or not bool(torch.isfinite(xb).all()):
            continue
        scale = max(1.0, float(xb.abs().max())) if xb.numel() else 1.0
        q, r = pb[:, :m].mT, pb[:, m:]  # Q: [m, k], R: [k, n]
        ok = torch.allclose(q.mH @ q, eye, atol=tol) and torch.allclose(r, r.triu(), atol=0)
        dr, dw = r.diagonal().abs(), wb[:, m:].diagonal().abs()
        ok = ok and torch.allclose(dr, dw, rtol=tol, atol=tol * scale)
        if not (ok and torch.allclose(q @ r, xb, atol=tol * scale)):
            return False
    return True


def _det_gradient_at_a_singular_matrix(call, detail, last):
    """det's gradient at a singular matrix is its adjugate (transposed), non-zero when
    the rank is n - 1; torch (and Paddle) give 0 there. Only when every differing
    element is in a matrix whose determinant is 0, torch's gradient there is 0, and
    oar's is a multiple of the adjugate."""
    d = _grad_differing(call, last)
    if d is None:
        return False
    g, w, bad, base = d
    if base.ndim < 2 or base.shape[-1] != base.shape[-2] or base.shape[-1] == 0:
        return False
    n = base.shape[-1]
    mats, gs, ws = base.reshape(-1, n, n), g.reshape(-1, n, n), w.reshape(-1, n, n)
    for a, go, gt, b in zip(mats, gs, ws, bad.reshape(-1, n * n).any(-1)):
        if not b:
            continue
        if np.linalg.det(a) != 0 and np.linalg.matrix_rank(a) == n:
            return False
        if gt.any():
            return False
        u, s, vh = np.linalg.svd(a)
        others = np.array([np.prod(np.delete(s, i)) for i in range(n)])
        adj_t = np.linalg.det(u) * np.linalg.det(vh) * (u * others) @ vh
        c = (go * adj_t).sum() / max((adj_t * adj_t).sum(), 1e-300)
        if not np.allclose(go, c * adj_t, rtol=1e-8, atol=1e-10):
            return False
    return True


def _factorization_of_non_finite(call, detail, last):
    """A factorization (qr) of a matrix holding inf or NaN: LAPACK's results for such
    input are unspecified (as for "LAPACK on a matrix holding inf or NaN"), and oar's
    Householder reflectors meet an infinity where torch's meet inf - inf. Only when x
    holds a non-finite value and every differing element is NaN in torch (oar's NaN or
    inf)."""
    x = _x(call, last)
    return x is not None and not bool(torch.isfinite(x).all()) and (
        detail.endswith("[all: torch nan]") or detail.endswith("[all: oar inf where torch nan]"))


NON_FINITE_MATRIX = Difference(
    "LAPACK on a matrix holding inf or NaN", LAPACK_OPS, ["value mismatch", "grad mismatch"],
    _non_finite_matrix, _non_finite_matrix.__doc__)
DET_OF_A_NUMERICALLY_SINGULAR_MATRIX = Difference(
    "det of a matrix singular within its rounding", ["det", "slogdet"], ["value mismatch"],
    _numerically_singular, _numerically_singular.__doc__)
EIGH_SIGN_TIE = Difference(
    "eigh: an eigenvector whose largest entries tie in magnitude", ["eigh_packed"],
    ["value mismatch"], _eigh_sign_tie, _eigh_sign_tie.__doc__)
EIGH_PHASE_TIE_GRADIENT = Difference(
    "eigh gradient where an eigenvector's largest entries tie", ["eigh_packed"], ["grad mismatch"],
    _eigh_phase_tie_gradient, _eigh_phase_tie_gradient.__doc__)
INVERSE_OF_A_NUMERICALLY_SINGULAR_MATRIX = Difference(
    "inverse/solve of a matrix singular within its rounding", ["inverse", "solve"],
    ["value mismatch"], _inverse_of_a_numerically_singular_matrix,
    _inverse_of_a_numerically_singular_matrix.__doc__)
SVD_IS_AN_SVD = Difference(
    "singular vectors are a basis of their subspace", ["svd_packed"], ["value mismatch"],
    _svd_is_an_svd, _svd_is_an_svd.__doc__)
EIG_IS_AN_EIG = Difference(
    "eig: a repeated eigenvalue's vectors, or geev's order", ["eig_packed"], ["value mismatch"],
    _eig_is_an_eig, _eig_is_an_eig.__doc__)
RANK_DEFICIENT_GRADIENT = Difference(
    "gradient of a rank-deficient factorisation", LAPACK_OPS, ["grad mismatch"],
    _rank_deficient_gradient, _rank_deficient_gradient.__doc__)
CONDITIONED_ROUNDOFF = Difference(
    "LAPACK gradient roundoff within the condition number", LAPACK_OPS, ["grad mismatch"],
    _conditioned_roundoff, _conditioned_roundoff.__doc__)
QR_IS_A_QR = Difference(
    "a QR is unique up to R's row signs and Q's completion", ["qr_packed"], ["value mismatch"],
    _qr_is_a_qr, _qr_is_a_qr.__doc__)
DET_GRADIENT_AT_A_SINGULAR_MATRIX = Difference(
    "det gradient at a singular matrix: the adjugate", ["det"], ["grad mismatch"],
    _det_gradient_at_a_singular_matrix, _det_gradient_at_a_singular_matrix.__doc__)
QR_OF_A_NON_FINITE_MATRIX = Difference(
    "qr of a non-finite matrix", ["qr_packed"], ["value mismatch"], _factorization_of_non_finite,
    _factorization_of_non_finite.__doc__)
