"""Linear algebra on sparse matrices (docs/sparse.md): pca_lowrank.

The randomized SVD (Halko et al. 2009) only needs products of the matrix and its
transpose with dense blocks, so the sparse matrix is never densified; the centring is
kept as a rank-one correction, A = X - 1 mu^T, applied inside each product (Paddle builds
the dense m x n matrix of column means instead).
"""

from __future__ import annotations

from .. import _C
from ..framework import check as C
from ..framework.dtype import convert_dtype
from ..tensor.linalg import qr, svd

Tensor = _C.Tensor

__all__ = ["pca_lowrank"]


def _swap(t):
    perm = list(range(t.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _C.sparse_transpose(t, perm) if t.is_sparse() else _C.transpose(t, perm)


def pca_lowrank(
    x: Tensor, q: int | None = None, center: bool = True, niter: int = 2, name: str | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """Principal components of a sparse matrix: (U [m, q], S [q], V [n, q]) with
    U diag(S) V^T close to x minus its column means (center) or to x itself.

    A randomized SVD with q random directions refined by niter power iterations; the
    random directions come from oar's default generator. x stays sparse throughout.

    Args:
        x (Tensor): A sparse COO or CSR matrix [m, n] (or a batch [b, m, n]), float32 or
            float64 (integer values compute in float32).
        q (int|None, optional): The number of components, in [0, min(m, n)]; a slight
            overestimate of the rank does best. Default: min(6, m, n).
        center (bool, optional): Subtract the column means first. Default: True.
        niter (int, optional): The number of power iterations (>= 0). Default: 2.
        name (str|None, optional): Unused, for Paddle compatibility.

    Returns:
        tuple[Tensor, Tensor, Tensor]: U, S (descending) and V, all dense.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1., 0., 0.], [0., 2., 0.], [0., 0., 0.], [1., 0., 3.]])
        >>> u, s, v = oar.sparse.pca_lowrank(x.to_sparse_coo(2), q=3, center=False)
        >>> [round(float(e), 4) for e in s]
        [3.1796, 2.0, 0.9435]
    """
    api = "sparse.pca_lowrank"
    if not isinstance(x, Tensor):
        raise ValueError(
            f"{api}(): argument 'x' must be a sparse Tensor, but got {type(x).__name__}"
        )
    if not x.is_sparse():
        raise ValueError(
            f"{api}(): argument 'x' must be sparse (COO or CSR), but got a dense "
            f"tensor; use oar.linalg.pca_lowrank for dense input"
        )
    if x.ndim not in (2, 3):
        raise ValueError(
            f"{api}(): argument 'x' must be a matrix [m, n] or a batch of "
            f"matrices [b, m, n], but has shape {x.shape}"
        )
    if x.dtype.is_complex:
        raise TypeError(
            f"{api}(): argument 'x' must be real (float32/float64), but got {x.dtype.name}"
        )
    if not x.dtype.is_floating_point:
        x = _C.sparse_with_values(x, _C.cast(_C.sparse_values(x), convert_dtype("float32")))
    m, n = x.shape[-2], x.shape[-1]
    q = min(6, m, n) if q is None else C.integer(api, "q", q)
    if not 0 <= q <= min(m, n):
        raise ValueError(f"{api}(): argument 'q' ({q}) must be in [0, min(m, n) = {min(m, n)}]")
    niter = C.integer(api, "niter", niter)
    if niter < 0:
        raise ValueError(f"{api}(): argument 'niter' ({niter}) must be non-negative")
    batch = list(x.shape[:-2])
    xt = _swap(x)
    ones = _C.full(batch + [m, 1], 1.0, x.dtype)
    # column means [.., n, 1] (X^T 1 / m), and the products with A = X - 1 mu^T
    mu = _C.scale(_C.sparse_matmul(xt, ones), 1.0 / m) if center else None

    def a_mul(w):  # A @ w, w [.., n, k]
        r = _C.sparse_matmul(x, w)
        return r if mu is None else _C.subtract(r, _C.matmul(ones, _C.matmul(mu, w, True)))

    def at_mul(w):  # A^T @ w, w [.., m, k]
        r = _C.sparse_matmul(xt, w)
        return r if mu is None else _C.subtract(r, _C.matmul(mu, _C.matmul(ones, w, True)))

    # the basis is built on the longer side, so the small SVD is of a q x min(m, n) block
    fwd, back, k = (a_mul, at_mul, n) if m >= n else (at_mul, a_mul, m)
    basis = qr(fwd(_C.normal(batch + [k, q], 0.0, 1.0, 0, x.dtype)))[0]
    for _ in range(niter):
        basis = qr(back(basis))[0]
        basis = qr(fwd(basis))[0]
    u, s, vh = svd(_swap(back(basis)))  # basis^T A (m >= n) or basis^T A^T
    u = _C.matmul(basis, u)
    v = _swap(vh)
    return (u, s, v) if m >= n else (v, s, u)
