"""Linear algebra (Paddle's paddle/tensor/linalg.py; oar.linalg is its public namespace).

The factorisations and solves are the ops of src/oar/ops/lapack.yaml (LAPACK); qr, svd
and eigh come packed into one tensor and are sliced apart here (docs/linalg.md). The
rest is composed of declared ops, so gradients of every order flow through all of it.
Matrices are the last two dims; leading dims are batch dims. Also the top-level
functions of the subject: t, bmm, dot, cross, mv, tensordot, norm, cdist/pdist/dist,
bincount, histogram, histogram_bin_edges, histogramdd, ger."""

from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

import numpy as np

from .. import _C
from ..framework import check as C
from ..framework import out as _out
from ..framework.check import _aliases, builtins_range
from ..framework.dtype import convert_dtype, default_float, float32, float64, int64
from ..framework.dtype import int64 as i64
from ..framework.promote import as_float, common
from ..framework.typing import AxisLike, DTypeLike
from .creation import linspace, to_tensor
from .manipulation import _int32_kept
from .math import outer

Tensor = _C.Tensor

__all__ = [
    "t",
    "bmm",
    "cross",
    "dot",
    "bincount",
    "histogram",
    "norm",
    "matmul",
    "inv",
    "det",
    "slogdet",
    "solve",
    "triangular_solve",
    "cholesky",
    "cholesky_solve",
    "cholesky_inverse",
    "matrix_power",
    "multi_dot",
    "lu",
    "lu_unpack",
    "lu_solve",
    "matrix_exp",
    "householder_product",
    "ormqr",
    "vecdot",
    "svd_lowrank",
    "pca_lowrank",
    "qr",
    "svd",
    "svdvals",
    "eigh",
    "eigvalsh",
    "eig",
    "eigvals",
    "pinv",
    "lstsq",
    "matrix_rank",
    "vector_norm",
    "matrix_norm",
    "cond",
    "cov",
    "corrcoef",
    "diagonal",
    "matrix_transpose",
    "mv",
    "tensordot",
    "cdist",
    "pdist",
    "dist",
    "histogram_bin_edges",
    "histogramdd",
    "ger",
]


def t(x: Tensor, name: str | None = None) -> Tensor:
    C.tensor("t", "x", x)
    if x.ndim > 2:  # Paddle and torch: t() is for 0-D, 1-D and 2-D tensors only
        raise ValueError(
            f"t(): argument 'x' must have at most 2 dimensions, but has {x.ndim}; "
            f"use transpose() (or x.T) for more"
        )
    return _C.transpose(x, list(range(x.ndim))[::-1])


# --- products ------------------------------------------------------------------------------


def bmm(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Batched matrix product of two 3-D tensors [b, n, k] @ [b, k, m]."""
    C.tensor("bmm", "x", x)
    C.tensor("bmm", "y", y)
    if x.ndim != 3 or y.ndim != 3:
        raise ValueError(
            f"bmm(): arguments 'x' and 'y' must be 3-D, but have shapes {x.shape} and {y.shape}"
        )
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"bmm(): the batch sizes of x {x.shape} and y {y.shape} differ")
    if x.shape[2] != y.shape[1]:
        raise ValueError(
            f"bmm(): x {x.shape} and y {y.shape} cannot be multiplied (x's last "
            f"dimension must equal y's second)"
        )
    return _C.matmul(x, y)


def cross(x: Tensor, y: Tensor, axis: AxisLike = 9, name: str | None = None) -> Tensor:
    """The cross product of 3-vectors along axis (default: the first axis of size 3)."""
    C.tensor("cross", "x", x)
    C.tensor("cross", "y", y)
    if list(x.shape) != list(y.shape):
        raise ValueError(f"cross(): x {x.shape} and y {y.shape} must have the same shape")
    if axis is None or axis == 9:
        sizes = [i for i, s in enumerate(x.shape) if s == 3]
        if not sizes:
            raise ValueError(f"cross(): x of shape {x.shape} has no dimension of size 3")
        a = sizes[0]
    else:
        a = C.axis("cross", "axis", axis, x.ndim)
        if x.shape[a] != 3:
            raise ValueError(
                f"cross(): dimension {a} of x {x.shape} must have size 3, but has {x.shape[a]}"
            )

    def part(v, i):
        return _C.slice(v, [a], [i], [i + 1])

    x0, x1, x2 = (part(x, i) for i in range(3))
    y0, y1, y2 = (part(y, i) for i in range(3))
    mul, sub = _C.multiply, _C.subtract
    return _C.concat(
        [
            sub(mul(x1, y2), mul(x2, y1)),
            sub(mul(x2, y0), mul(x0, y2)),
            sub(mul(x0, y1), mul(x1, y0)),
        ],
        a,
    )


def dot(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The dot product of 1-D x and y, or of each row of 2-D x and y."""
    C.tensor("dot", "x", x)
    C.tensor("dot", "y", y)
    if x.ndim not in (1, 2) or list(x.shape) != list(y.shape):
        raise ValueError(
            f"dot(): x and y must be 1-D or 2-D of the same shape, but have shapes "
            f"{x.shape} and {y.shape}"
        )
    xy = _C.multiply(x, y)
    return _C.sum(xy, [-1], _int32_kept(xy), False)


def bincount(x: Tensor, weights: Any = None, minlength: Any = 0, name: str | None = None) -> Tensor:
    """The number of occurrences (or the sum of weights) of each value of the 1-D
    non-negative integers x; at least minlength entries."""
    C.tensor("bincount", "x", x)
    if weights is None:
        weights = _C.full_like(x, 1, int64)
    minlength = C.integer("bincount", "minlength", minlength)
    return _C.bincount(x, C.tensor("bincount", "weights", weights), minlength)


def histogram(
    input: Tensor,
    bins: Any = 100,
    min: float | Tensor | None = 0.0,  # noqa: A002
    max: float | Tensor | None = 0.0,
    weight: float | Tensor | None = None,
    density: Any = False,
    name: str | None = None,
) -> Tensor:
    """Counts (or summed weight) in `bins` equal-width bins of [min, max]; the data's range
    when min == max (Paddle's kernel; its histogram_bin_edges differs, see there). int64
    without weight; density gives float32 densities."""
    C.tensor("histogram", "input", input)
    bins = C.integer("histogram", "bins", bins)
    lo, hi = float(C.number("histogram", "min", min)), float(C.number("histogram", "max", max))
    w = _C.full_like(input, 1, int64) if weight is None else C.tensor("histogram", "weight", weight)
    hist = _C.histogram(input, w, bins, lo, hi)
    if not density:
        return hist
    if lo == hi and input.size:  # Paddle: min == max takes the data's range
        lo, hi = (
            float(_C.amin(_C.cast(input, float64), [], False).item()),
            float(_C.amax(_C.cast(input, float64), [], False).item()),
        )
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    h = _C.cast(hist, float32)
    total = _C.sum(h, [], None, False)
    return _C.divide(h, _C.scale(total, (hi - lo) / bins))


# ---- norms ------------------------------------------------------------------------------
def _p_norm(x, p, axes, keepdim):
    """p_norm, of |x| for complex x (the norm of a complex vector is its moduli's)."""
    return _C.p_norm(_C.abs(x) if x.dtype.is_complex else x, p, axes, keepdim)


def norm(
    x: Tensor,
    p: float | str | None = None,
    axis: AxisLike | None = None,
    keepdim: bool = False,
    name: str | None = None,
) -> Tensor:
    """The vector or matrix norm of x (Paddle's paddle.linalg.norm).

    axis None: x flattened, a vector norm (p None = 2, 'fro' = 2). One axis: the vector
    p-norm (any real p, inf, -inf; 0 counts non-zeros). Two axes: a matrix norm, p None or
    'fro' (Frobenius), 1 / -1 (max / min column sum of |x|), inf / -inf (max / min row sum).
    The spectral (2, -2) and nuclear ('nuc') norms come from the singular values
    (oar.linalg.svdvals)."""
    C.tensor("norm", "x", x)
    if axis is None:
        axes = []
    elif isinstance(axis, (list, tuple)):
        axes = [C.axis("norm", "axis", a, max(x.ndim, 1)) for a in axis]
    else:
        axes = [C.axis("norm", "axis", axis, max(x.ndim, 1))]
    if len(axes) > 2 or len(set(axes)) != len(axes):
        raise ValueError(
            f"norm(): argument 'axis' must be None, one axis or two distinct axes, but got {axis}"
        )
    if isinstance(p, str):
        if p == "nuc":
            if len(axes) != 2 and not (axis is None and x.ndim == 2):
                raise ValueError("norm(): p='nuc' is a matrix norm: give two axes")
            return _spectral(x, "nuc", axes or [0, 1], bool(keepdim))
        if p != "fro":
            raise ValueError(
                f"norm(): argument 'p' must be a number, inf, -inf, 'fro' or 'nuc', but got {p!r}"
            )
        if len(axes) == 1:
            raise ValueError("norm(): p='fro' is a matrix norm: give two axes or None")
        return _p_norm(x, 2.0, axes, bool(keepdim))
    if p is None:
        return _p_norm(x, 2.0, axes, bool(keepdim))
    p = float(C.number("norm", "p", p))
    if len(axes) < 2:
        return _p_norm(x, p, axes, bool(keepdim))
    if p in (2.0, -2.0):
        return _spectral(x, p, axes, bool(keepdim))
    if p not in (1.0, -1.0, math.inf, -math.inf):
        raise ValueError(
            f"norm(): a matrix norm (two axes) takes p in 'fro', 1, -1, inf, -inf, but got {p}"
        )
    # 1: the largest column sum (sum over the rows axis); inf: the largest row sum.
    summed, extreme = (axes[0], axes[1]) if abs(p) == 1 else (axes[1], axes[0])
    s = _C.sum(_C.abs(x), [summed], None, True)
    out = (_C.amax if p > 0 else _C.amin)(s, [extreme], True)
    return out if keepdim else _C.squeeze(out, sorted(axes))


matmul = _C.matmul


# ---- helpers ----------------------------------------------------------------------------
def _matrix(api, x, name="x", square=False):
    C.tensor(api, name, x)
    if x.ndim < 2:
        raise ValueError(
            f"{api}(): argument '{name}' must be a matrix or a batch of matrices "
            f"(at least 2 dims), but has shape {x.shape}"
        )
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"{api}(): argument '{name}' must be square in its last two dims, "
            f"but has shape {x.shape}"
        )
    return x


def _mT(x):
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _C.transpose(x, perm)


def _cols(x, begin, end):
    return _C.slice(x, [x.ndim - 1], [begin], [end])


def _rows(x, begin, end):
    return _C.slice(x, [x.ndim - 2], [begin], [end])


def _mH(x):
    """The conjugate transpose of the last two dims (the transpose of a real x)."""
    return _mT(_conj(x))


def _conj(x):
    return _C.conj(x) if x.dtype.is_complex else x


def _float_of(x):
    """x itself if floating or complex; other dtypes compute in float32."""
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return x
    return _C.cast(x, convert_dtype("float32"))


def _real_float_of(api, x):
    """_float_of for the functions that take real matrices only (as Paddle's)."""
    if x.dtype.is_complex:
        raise TypeError(
            f"{api}(): argument 'x' must be a real (float32/float64) tensor, but got {x.dtype.name}"
        )
    return _float_of(x)


def _broadcast_batch(api, x, y):
    """x and y expanded to their broadcast batch dims (expand's backward sums back)."""
    bx, by = list(x.shape[:-2]), list(y.shape[:-2])
    if bx == by:
        return x, y
    try:
        batch = list(np.broadcast_shapes(tuple(bx), tuple(by)))
    except ValueError:
        raise ValueError(
            f"{api}(): the batch dims of x {x.shape} and y {y.shape} do not broadcast"
        ) from None
    if bx != batch:
        x = _C.expand(x, batch + list(x.shape[-2:]))
    if by != batch:
        y = _C.expand(y, batch + list(y.shape[-2:]))
    return x, y


def _eye_like(x, n):
    """The n x n identity in x's dtype, broadcast over x's batch dims."""
    eye = _C.diag_embed(_C.full([n], 1, x.dtype), 0, -2, -1)
    return _C.expand(eye, list(x.shape[:-2]) + [n, n])


def _eps(x):
    double = x.dtype.name in ("float64", "complex128")
    return float(np.finfo(np.float64 if double else np.float32).eps)


# ---- LU-based: inverse, determinants, solves --------------------------------------------
def inv(x: Tensor, name: str | None = None) -> Tensor:
    """The inverse of each square matrix of x (a singular matrix raises ValueError)."""
    return _C.inverse(_matrix("inv", x, square=True))


def det(x: Tensor, name: str | None = None) -> Tensor:
    """The determinant of each square matrix of x, shape x.shape[:-2]."""
    return _C.det(_matrix("det", x, square=True))


def slogdet(x: Tensor, name: str | None = None) -> Tensor:
    """sign(det) and log|det| of each square matrix of x stacked into one tensor of shape
    [2, *x.shape[:-2]] (Paddle's layout; a singular matrix gives 0 and -inf)."""
    return _C.slogdet(_matrix("slogdet", x, square=True))


def solve(x: Tensor, y: Tensor, left: bool = True, name: str | None = None) -> Tensor:
    """The solution of x @ out = y (left) or out @ x = y (left=False). y may be a vector;
    batch dims broadcast. A singular x raises ValueError naming the batch element."""
    _matrix("solve", x, square=True)
    C.tensor("solve", "y", y)
    if not isinstance(left, bool):
        raise TypeError(f"solve(): argument 'left' must be bool, but got {type(left).__name__}")
    vector = y.ndim == 1
    if vector:
        y = _C.unsqueeze(y, [-1] if left else [0])
    elif y.ndim < 2:
        raise ValueError(
            f"solve(): argument 'y' must be a vector or a matrix, but has shape {y.shape}"
        )
    if not left:
        x, y = _mT(x), _mT(y)
    x, y = _broadcast_batch("solve", x, y)
    out = _C.solve(x, y)
    if not left:
        out = _mT(out)
    return _C.squeeze(out, [-1] if left else [-2]) if vector else out


def triangular_solve(
    x: Tensor,
    y: Tensor,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: Any = False,
    name: str | None = None,
) -> Tensor:
    """The solution of op(x) @ out = y for triangular x (op: transpose or not); only x's
    upper (or lower) triangle is read, its diagonal taken as ones when unitriangular."""
    _matrix("triangular_solve", x, square=True)
    _matrix("triangular_solve", y, "y")
    x, y = _broadcast_batch("triangular_solve", x, y)
    return _C.triangular_solve(x, y, bool(upper), bool(transpose), bool(unitriangular))


def cholesky(x: Tensor, upper: bool = False, name: str | None = None) -> Tensor:
    """The Cholesky factor L (x = L L^H) or U (upper; x = U^H U) of each symmetric
    (complex: Hermitian) positive-definite matrix of x (its lower triangle is read)."""
    return _C.cholesky(_matrix("cholesky", x, square=True), bool(upper))


def cholesky_solve(x: Tensor, y: Tensor, upper: bool = False, name: str | None = None) -> Tensor:
    """The solution of A @ out = x where y is A's Cholesky factor (lower, or upper)."""
    C.tensor("cholesky_solve", "x", x)
    _matrix("cholesky_solve", y, "y", square=True)
    # The adjoint solve is the transposed one on the conjugate factor.
    if upper:  # A = U^H U
        z = triangular_solve(_conj(y), x, upper=True, transpose=True)
        return triangular_solve(y, z, upper=True)
    z = triangular_solve(y, x, upper=False)  # A = L L^H
    return triangular_solve(_conj(y), z, upper=False, transpose=True)


def cholesky_inverse(x: Tensor, upper: bool = False, name: str | None = None) -> Tensor:
    """The inverse of A from its Cholesky factor x."""
    _matrix("cholesky_inverse", x, square=True)
    return cholesky_solve(_eye_like(x, x.shape[-1]), x, upper)


def matrix_power(x: Tensor, n: Any, name: str | None = None) -> Tensor:
    """x multiplied by itself n times (n < 0: the inverse's power; n = 0: the identity)."""
    _matrix("matrix_power", x, square=True)
    n = C.integer("matrix_power", "n", n)
    if n == 0:
        # The identity, still a function of x (gradient zero), as Paddle's (stop_gradient
        # False) and PyTorch's; where() rather than adding 0 * x, which is NaN at an inf
        keep = _C.full(list(x.shape), 1, convert_dtype("bool"))
        return _C.where(keep, _eye_like(x, x.shape[-1]), x)
    if n < 0:
        x, n = inv(x), -n
    result, base = None, x
    while n:  # binary powers: log2(n) products
        if n & 1:
            result = base if result is None else _C.matmul(result, base)
        n >>= 1
        if n:
            base = _C.matmul(base, base)
    assert result is not None  # n >= 1: the loop multiplied at least once
    return result


def multi_dot(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The product of the matrices in the list x, in the order with the fewest
    multiplications; the first may be a row vector and the last a column vector."""
    if not isinstance(x, (list, tuple)) or len(x) < 2:
        raise ValueError("multi_dot(): argument 'x' must be a list of at least 2 tensors")
    ts = [C.tensor("multi_dot", f"x[{i}]", t) for i, t in enumerate(x)]
    first_vec, last_vec = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_vec:
        ts[0] = _C.unsqueeze(ts[0], [0])
    if last_vec:
        ts[-1] = _C.unsqueeze(ts[-1], [1])
    for i, t in enumerate(ts):
        if t.ndim != 2:
            raise ValueError(
                f"multi_dot(): x[{i}] must be 2-D (the first and last may be 1-D), "
                f"but has shape {x[i].shape}"
            )
    for i in range(len(ts) - 1):
        if ts[i].shape[1] != ts[i + 1].shape[0]:
            raise ValueError(
                f"multi_dot(): x[{i}] {ts[i].shape} and x[{i + 1}] "
                f"{ts[i + 1].shape} cannot be multiplied"
            )
    dims = [ts[0].shape[0]] + [t.shape[1] for t in ts]
    k = len(ts)
    cost: list[list[float]] = [[0] * k for _ in range(k)]
    split = [[0] * k for _ in range(k)]
    for length in range(1, k):  # matrix-chain order
        for i in range(k - length):
            j = i + length
            cost[i][j] = math.inf
            for s in range(i, j):
                c = cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, s

    def product(i, j):
        if i == j:
            return ts[i]
        s = split[i][j]
        return _C.matmul(product(i, s), product(s + 1, j))

    out = product(0, k - 1)
    if first_vec and last_vec:
        return _C.reshape(out, [])
    if first_vec:
        return _C.squeeze(out, [0])
    return _C.squeeze(out, [1]) if last_vec else out


# ---- LU ---------------------------------------------------------------------------------
def lu(
    x: Tensor, pivot: Any = True, get_infos: Any = False, name: str | None = None
) -> tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]:
    """The LU factorisation with partial pivoting: (LU, pivots[, infos]) with L (unit
    diagonal, below) and U packed in one matrix, 1-based int32 pivots and, with
    get_infos, int32 infos (0, or the 1-based index of the first zero pivot). The packed
    factors are differentiable for square x (docs/linalg.md)."""
    _matrix("lu", x)
    if not pivot:
        raise ValueError(
            "lu(): pivot=False (LU without pivoting) is not available on the CPU, as in Paddle"
        )
    packed, pivots = _C.lu_packed(x), _C.lu_pivots(x)
    if not get_infos:
        return packed, pivots
    k = min(x.shape[-2], x.shape[-1])
    diag = np.diagonal(np.asarray(packed), axis1=-2, axis2=-1)[..., :k]
    zero = diag == 0
    infos = np.where(zero.any(-1), zero.argmax(-1) + 1, 0).astype(np.int32)
    return packed, pivots, _to_tensor(infos)


def _to_tensor(a):
    return to_tensor(a)


def lu_unpack(
    x: Tensor,
    y: Tensor,
    unpack_ludata: Any = True,
    unpack_pivots: Any = True,
    name: str | None = None,
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    """(P, L, U) from lu()'s packed factors x and pivots y, with x = P @ L @ U; the parts
    not asked for are None."""
    _matrix("lu_unpack", x)
    C.tensor("lu_unpack", "y", y)
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    p = lower = upper = None
    if unpack_ludata:
        eye_mk = _cols(_C.diag_embed(_C.full([m], 1, x.dtype), 0, -2, -1), 0, k)
        lower = _C.add(_C.tril(_cols(x, 0, k), -1), eye_mk)
        upper = _C.triu(_rows(x, 0, k), 0)
    if unpack_pivots:
        piv = (
            np.array(y, dtype=np.int64).reshape(-1, y.shape[-1])
            if y.size
            else np.zeros((max(int(np.prod(y.shape[:-1])), 1), 0), np.int64)
        )
        batch = piv.shape[0]
        perms = np.tile(np.arange(m), (batch, 1))
        for b in range(batch):
            for i, pv in enumerate(piv[b]):
                j = int(pv) - 1
                if not 0 <= j < m:
                    raise ValueError(
                        f"lu_unpack(): pivot {pv} at position {i} is out of range "
                        f"for {m} rows (pivots are 1-based)"
                    )
                perms[b, i], perms[b, j] = perms[b, j], perms[b, i]
        mats = np.zeros(
            (batch, m, m), dtype=np.float64 if x.dtype.name == "float64" else np.float32
        )
        for b in range(batch):
            mats[b, perms[b], np.arange(m)] = 1  # row perm[i] of x is row i of L U
        p = _to_tensor(mats.reshape(list(x.shape[:-2]) + [m, m]))
    return p, lower, upper


def _pivot_order(api, pivots, m, batch_shape):
    """perm per batch element (int64 numpy [..., m]): lu's A = P L U moves row j of L U to
    row perm[j], i.e. perm is the pivots' transpositions applied to 0 .. m - 1."""
    piv = np.array(pivots, dtype=np.int64)
    k = piv.shape[-1] if piv.ndim else 0
    flat = (
        piv.reshape(-1, k)
        if k
        else np.zeros((int(np.prod(batch_shape, dtype=np.int64)), 0), np.int64)
    )
    perms = np.tile(np.arange(m), (flat.shape[0], 1))
    for b in range(flat.shape[0]):
        for i, pv in enumerate(flat[b]):
            j = int(pv) - 1
            if not i <= j < m:
                raise ValueError(
                    f"{api}(): pivot {pv} at position {i} is out of range for {m} "
                    f"rows (pivots are 1-based, pivot i is at least i)"
                )
            perms[b, i], perms[b, j] = perms[b, j], perms[b, i]
    return perms.reshape(list(batch_shape) + [m])


def _take_rows(t, rows):
    """t's rows reordered: out[..., i, :] = t[..., rows[..., i], :] (rows a numpy array)."""
    idx = _to_tensor(np.ascontiguousarray(rows[..., None]))
    return _C.take_along_axis(t, idx, t.ndim - 2, True)


def lu_solve(b: Any, lu: Any, pivots: Any, trans: Any = "N", name: str | None = None) -> Tensor:
    """The solution x of A x = b (trans 'N'), A^T x = b ('T') or A^H x = b ('C') from lu()'s
    packed factors and pivots of A = P L U. Batch dims of b and lu broadcast;
    differentiable in b and lu."""
    api = "lu_solve"
    _matrix(api, b, "b")
    _matrix(api, lu, "lu", square=True)
    C.tensor(api, "pivots", pivots)
    if trans not in ("N", "T", "C"):
        raise ValueError(f"{api}(): argument 'trans' must be 'N', 'T' or 'C', but got {trans!r}")
    if pivots.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument 'pivots' must be an int32 tensor, but got {pivots.dtype.name}"
        )
    m = lu.shape[-1]
    if b.shape[-2] != m:
        raise ValueError(f"{api}(): b {b.shape} must have {m} rows, as lu {lu.shape}")
    if list(pivots.shape) != list(lu.shape[:-1]):
        raise ValueError(f"{api}(): pivots {pivots.shape} must have shape {lu.shape[:-1]}")
    perm = _pivot_order(api, pivots, m, lu.shape[:-2])
    b, lu = _broadcast_batch(api, _float_of(b), _float_of(lu))
    batch = list(b.shape[:-2])
    perm = np.broadcast_to(perm, batch + [m])
    if trans == "N":  # L U x = P^T b, (P^T b)[j] = b[perm[j]]
        z = triangular_solve(lu, _take_rows(b, perm), upper=False, unitriangular=True)
        return triangular_solve(lu, z, upper=True)
    # A^T x = b: U^T L^T (P^T x) = b; A^H x = b: the same on the conjugate factors
    if trans == "C":
        lu = _conj(lu)
    z = triangular_solve(lu, b, upper=True, transpose=True)
    z = triangular_solve(lu, z, upper=False, transpose=True, unitriangular=True)
    return _take_rows(z, np.argsort(perm, axis=-1))


def _pade(a, eye, deg):
    """The numerator U + V and denominator V - U parts of the [deg/deg] Pade approximant
    of exp(a) (Higham 2005): U holds the odd powers, V the even ones."""
    b = {
        3: [120.0, 60.0, 12.0, 1.0],
        5: [30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0],
        7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0],
        9: [
            17643225600.0,
            8821612800.0,
            2075673600.0,
            302702400.0,
            30270240.0,
            2162160.0,
            110880.0,
            3960.0,
            90.0,
            1.0,
        ],
        13: [
            64764752532480000.0,
            32382376266240000.0,
            7771770303897600.0,
            1187353796428800.0,
            129060195264000.0,
            10559470521600.0,
            670442572800.0,
            33522128640.0,
            1323241920.0,
            40840800.0,
            960960.0,
            16380.0,
            182.0,
            1.0,
        ],
    }[deg]
    a2 = _C.matmul(a, a)

    def lin(terms):
        out = None
        for coef, t in terms:
            term = _C.scale(t, coef)
            out = term if out is None else _C.add(out, term)
        return out

    if deg == 13:
        a4 = _C.matmul(a2, a2)
        a6 = _C.matmul(a4, a2)
        u_inner = _C.add(
            _C.matmul(a6, lin([(b[13], a6), (b[11], a4), (b[9], a2)])),
            lin([(b[7], a6), (b[5], a4), (b[3], a2), (b[1], eye)]),
        )
        v = _C.add(
            _C.matmul(a6, lin([(b[12], a6), (b[10], a4), (b[8], a2)])),
            lin([(b[6], a6), (b[4], a4), (b[2], a2), (b[0], eye)]),
        )
    else:
        powers = [eye, a2]
        while len(powers) <= deg // 2:
            powers.append(_C.matmul(powers[-1], a2))
        u_inner = lin([(b[2 * j + 1], powers[j]) for j in range(deg // 2 + 1)])
        v = lin([(b[2 * j], powers[j]) for j in range(deg // 2 + 1)])
    u = _C.matmul(a, u_inner)
    return _C.add(v, u), _C.subtract(v, u)


# Higham's bounds on the 1-norm for each Pade degree (float64; float32 needs less).
_EXPM_THETA = {
    "float64": [
        (3, 1.495585217958292e-2),
        (5, 2.539398330063230e-1),
        (7, 9.504178996162932e-1),
        (9, 2.097847961257068),
        (13, 5.371920351148152),
    ],
    "float32": [(3, 4.258730016922831e-1), (5, 1.880152677804762), (7, 3.925724783138660)],
}


def matrix_exp(x: Tensor, name: str | None = None) -> Tensor:
    """exp of each square matrix of x, by scaling and squaring with a Pade approximant
    (Higham 2005; the degree and the number of squarings follow the largest 1-norm in
    the batch). Composed of matmul and solve, so it is differentiable to any order."""
    _matrix("matrix_exp", x, square=True)
    x = _float_of(x)
    n = x.shape[-1]
    if x.size == 0:
        return _C.scale(x, 1.0)
    thetas = _EXPM_THETA["float64" if x.dtype.name in ("float64", "complex128") else "float32"]
    norm = float(np.max(np.sum(np.abs(np.asarray(x)), axis=-2)))
    if not math.isfinite(norm):
        raise ValueError("matrix_exp(): argument 'x' holds inf or nan")
    eye = _eye_like(x, n)
    deg, squarings = thetas[-1][0], 0
    for d, theta in thetas:
        if norm <= theta:
            deg = d
            break
    else:
        squarings = max(0, int(math.ceil(math.log2(norm / thetas[-1][1]))))
    a = _C.scale(x, 2.0**-squarings) if squarings else x
    num, den = _pade(a, eye, deg)
    r = _C.solve(den, num)
    for _ in range(squarings):
        r = _C.matmul(r, r)
    return r


def _reflector(x, i):
    """Householder vector i of x's packed reflectors: zeros above row i, 1 at row i,
    x[i+1:, i] below."""
    m = x.shape[-2]
    below = np.zeros([m, 1], dtype=bool)
    below[i + 1 :] = True
    col = _cols(x, i, i + 1)
    unit = np.zeros([m, 1])
    unit[i] = 1
    zero = _C.full_like(col, 0)
    return _C.add(_C.where(_to_tensor(below), col, zero), _C.cast(_to_tensor(unit), x.dtype))


def householder_product(x: Tensor, tau: Tensor, name: str | None = None) -> Tensor:
    """The first n columns of Q = H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^H, with v_i
    read from column i of x (LAPACK's packed reflectors, as geqrf leaves them): x
    [..., m, n] (m >= n), tau [..., k] (k <= n). Differentiable in x and tau."""
    api = "householder_product"
    _matrix(api, x)
    C.tensor(api, "tau", tau)
    m, n = x.shape[-2], x.shape[-1]
    if m < n:
        raise ValueError(
            f"{api}(): x must have at least as many rows as columns, but has shape {x.shape}"
        )
    if tau.ndim != x.ndim - 1 or list(tau.shape[:-1]) != list(x.shape[:-2]) or tau.shape[-1] > n:
        raise ValueError(
            f"{api}(): tau must have shape {x.shape[:-2] + ['k']} with k <= {n}, "
            f"but has shape {tau.shape}"
        )
    if tau.dtype != x.dtype:
        raise TypeError(f"{api}(): tau ({tau.dtype.name}) must have x's dtype ({x.dtype.name})")
    q = _cols(_eye_like(x, m), 0, n)
    cplx = x.dtype.name.startswith("complex")
    for i in reversed(range(tau.shape[-1])):
        v = _reflector(x, i)
        vh_q = _C.matmul(_C.conj(v) if cplx else v, q, True, False)
        t = _C.unsqueeze(_C.slice(tau, [tau.ndim - 1], [i], [i + 1]), [-1])
        q = _C.subtract(q, _C.multiply(t, _C.matmul(v, vh_q)))
    return q


def ormqr(
    x: Tensor,
    tau: Tensor,
    y: Tensor,
    left: bool = True,
    transpose: bool = False,
    name: str | None = None,
) -> Tensor:
    """op(Q) @ y (left) or y @ op(Q), Q = householder_product(x, tau) and op the
    (conjugate) transpose when transpose is True, as Paddle defines it."""
    api = "ormqr"
    _matrix(api, x)
    _matrix(api, y, "y")
    C.tensor(api, "tau", tau)
    for arg, v in (("left", left), ("transpose", transpose)):
        if not isinstance(v, bool):
            raise TypeError(f"{api}(): argument '{arg}' must be bool, but got {type(v).__name__}")
    if not (x.dtype == tau.dtype == y.dtype):
        raise TypeError(
            f"{api}(): x, tau and y must have the same dtype, but got "
            f"{x.dtype.name}, {tau.dtype.name}, {y.dtype.name}"
        )
    q = householder_product(x, tau)
    if transpose:
        q = _mT(_C.conj(q) if q.dtype.name.startswith("complex") else q)
    inner = q.shape[-1] if left else q.shape[-2]
    if (y.shape[-2] if left else y.shape[-1]) != inner:
        raise ValueError(
            f"{api}(): op(Q) {q.shape} and y {y.shape} cannot be multiplied "
            f"({'op(Q) @ y' if left else 'y @ op(Q)'})"
        )
    return _C.matmul(q, y) if left else _C.matmul(y, q)


def vecdot(x: Tensor, y: Tensor, axis: AxisLike = -1, name: str | None = None) -> Tensor:
    """The dot product of x and y along axis (x conjugated when complex), batch dims
    broadcast."""
    C.tensor("vecdot", "x", x)
    C.tensor("vecdot", "y", y)
    xs = _C.conj(x) if x.dtype.name.startswith("complex") else x
    prod = _C.multiply(xs, y)
    a = C.axis("vecdot", "axis", axis, max(prod.ndim, 1))
    return _C.sum(prod, [a], None, False)


def _approximate_basis(a, q, niter, m_t=None):
    """An orthonormal basis (columns) of a's range, from q random directions refined by
    niter power iterations (Halko et al. 2009, Algorithm 4.4); m_t is subtracted from a."""

    def sub(z, mm, w):
        return z if mm is None else _C.subtract(z, _C.matmul(mm, w))

    r = _C.normal([a.shape[-1], q], 0.0, 1.0, 0, a.dtype)
    qb = qr(sub(_C.matmul(a, r), m_t, r))[0]
    for _ in range(niter):
        z = sub(_C.matmul(a, qb, True, False), None if m_t is None else _mT(m_t), qb)
        qb = qr(z)[0]
        qb = qr(sub(_C.matmul(a, qb), m_t, qb))[0]
    return qb


def svd_lowrank(
    x: Tensor, q: int | None = None, niter: int = 2, M: Any = None, name: str | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """(U [..., m, q], S [..., q], V [..., n, q]) with x - M ~ U diag(S) V^T, by the
    randomized SVD (Halko et al. 2009) with q directions (default min(6, m, n)) and niter
    power iterations; random draws come from oar's generator. Differentiable."""
    api = "svd_lowrank"
    _matrix(api, x)
    x = _real_float_of(api, x)
    m, n = x.shape[-2], x.shape[-1]
    q = min(6, m, n) if q is None else C.integer(api, "q", q)
    if min(m, n) and not 0 <= q <= min(m, n):
        raise ValueError(f"{api}(): q (={q}) must be in [0, min(m, n) = {min(m, n)}]")
    niter = C.integer(api, "niter", niter)
    if niter < 0:
        raise ValueError(f"{api}(): niter (={niter}) must be non-negative")
    if M is not None:
        C.tensor(api, "M", M)
        M = _C.expand(_C.cast(M, x.dtype), list(x.shape))
    tall = m >= n
    a = x if tall else _mT(x)
    mm = None if M is None else (M if tall else _mT(M))
    basis = _approximate_basis(a, q, niter, mm)
    bmat = _C.matmul(basis, a, True, False)
    if mm is not None:
        bmat = _C.subtract(bmat, _C.matmul(basis, mm, True, False))
    u, s, vh = svd(bmat)
    u = _C.matmul(basis, u)
    v = _mT(vh)
    return (u, s, v) if tall else (v, s, u)


def pca_lowrank(
    x: Tensor, q: int | None = None, center: Any = True, niter: int = 2, name: str | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """svd_lowrank of x with its column means subtracted (center): U [..., m, q],
    S [..., q], V [..., n, q], q defaulting to min(6, m, n)."""
    api = "pca_lowrank"
    _matrix(api, x)
    x = _real_float_of(api, x)
    m, n = x.shape[-2], x.shape[-1]
    if q is None:
        q = min(6, m, n)
    q = C.integer(api, "q", q)
    if not 0 <= q <= min(m, n):
        raise ValueError(f"{api}(): q (={q}) must be in [0, min(m, n) = {min(m, n)}]")
    if center:
        x = _C.subtract(x, _C.mean(x, [-2], True))
    return svd_lowrank(x, q, niter)


# ---- QR, SVD, symmetric eigendecomposition ------------------------------------------------
def qr(x: Tensor, mode: str = "reduced", name: str | None = None) -> tuple[Tensor, Tensor] | Tensor:
    """(Q, R) with x = Q @ R: 'reduced' (Q [.., m, k], k = min(m, n)), 'complete'
    (Q [.., m, m]) or 'r' (R alone)."""
    _matrix("qr", x)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(
            f"qr(): argument 'mode' must be 'reduced', 'complete' or 'r', but got {mode!r}"
        )
    m, n = x.shape[-2], x.shape[-1]
    packed = _C.qr_packed(x, mode == "complete")
    r = _cols(packed, m, m + n)
    if mode == "r":
        return r
    return _mT(_cols(packed, 0, m)), r


def _svd_parts(x, full_matrices):
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    packed = _C.svd_packed(x, bool(full_matrices))
    ur, vr = (m, n) if full_matrices else (k, k)
    u = _mT(_rows(_cols(packed, 0, m), 0, ur))
    s = _C.squeeze(_rows(_cols(packed, m, m + 1), 0, k), [-1])
    if s.dtype.is_complex:  # packed in x's dtype; singular values are real
        s = _C.real(s)
    vh = _rows(_cols(packed, m + 1, m + 1 + n), 0, vr)
    return u, s, vh


def svd(
    x: Tensor, full_matrices: Any = False, name: str | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """(U, S, VH) with x = U @ diag(S) @ VH, S descending (real: float32 for complex64
    x). Each singular pair's sign (complex: unit phase) is fixed: the largest-magnitude
    entry of each column of U is real and positive."""
    return _svd_parts(_matrix("svd", x), full_matrices)


def svdvals(x: Tensor, name: str | None = None) -> Tensor:
    """The singular values of each matrix of x, descending."""
    return _svd_parts(_matrix("svdvals", x), False)[1]


def _uplo(api, UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError(f"{api}(): argument 'UPLO' must be 'L' or 'U', but got {UPLO!r}")
    return UPLO == "U"


def _eigenvalues(packed):
    w = _C.squeeze(_cols(packed, 0, 1), [-1])
    return _C.real(w) if packed.dtype.name.startswith("complex") else w


def eigh(x: Tensor, UPLO: str = "L", name: str | None = None) -> tuple[Tensor, Tensor]:
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric (complex:
    Hermitian) matrix of x; only the UPLO triangle is read. Each eigenvector's
    largest-magnitude entry is real and positive. The eigenvalues are real (float32 for
    complex64 input)."""
    upper = _uplo("eigh", UPLO)
    _matrix("eigh", x, square=True)
    n = x.shape[-1]
    packed = _C.eigh_packed(x, upper)
    return _eigenvalues(packed), _mT(_cols(packed, 1, n + 1))


def eigvalsh(x: Tensor, UPLO: str = "L", name: str | None = None) -> Tensor:
    """The eigenvalues (ascending, real) of each symmetric or Hermitian matrix of x."""
    upper = _uplo("eigvalsh", UPLO)
    _matrix("eigvalsh", x, square=True)
    return _eigenvalues(_C.eigh_packed(x, upper))


def eig(x: Tensor, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(eigenvalues, eigenvectors as columns) of each square matrix of x, both complex
    (complex64 for float32 input, complex128 for float64), in LAPACK's order (geev). Each
    eigenvector has unit norm and its largest-magnitude entry real and positive.
    Differentiable (PyTorch's formula; it needs distinct eigenvalues, and a loss that
    does not depend on the eigenvectors' phases)."""
    _matrix("eig", x, square=True)
    n = x.shape[-1]
    packed = _C.eig_packed(x)
    return _C.squeeze(_cols(packed, 0, 1), [-1]), _mT(_cols(packed, 1, n + 1))


def eigvals(x: Tensor, name: str | None = None) -> Tensor:
    """The (complex) eigenvalues of each square matrix of x, in LAPACK's order."""
    _matrix("eigvals", x, square=True)
    return _C.squeeze(_cols(_C.eig_packed(x), 0, 1), [-1])


# ---- composed of the decompositions ------------------------------------------------------
def _safe_reciprocal(s, keep):
    """1/s where keep, else 0, with no inf in either branch (so no NaN gradients)."""
    ones = _C.full_like(s, 1)
    return _C.where(keep, _C.reciprocal(_C.where(keep, s, ones)), _C.full_like(s, 0))


def _threshold(s_max, rcond):
    if isinstance(rcond, Tensor):
        return _C.multiply(
            _C.unsqueeze(s_max, [-1]),
            _C.cast(rcond, s_max.dtype)
            if rcond.ndim == 0
            else _C.unsqueeze(_C.cast(rcond, s_max.dtype), [-1]),
        )
    return _C.scale(_C.unsqueeze(s_max, [-1]), float(rcond))


def pinv(
    x: Tensor, rcond: float | None = 1e-15, hermitian: bool = False, name: str | None = None
) -> Tensor:
    """The Moore-Penrose pseudo-inverse: singular values at most rcond * the largest are
    taken as zero. hermitian: x is symmetric (an eigendecomposition instead of an SVD)."""
    _matrix("pinv", x)
    x = _float_of(x)
    if hermitian:
        w, v = eigh(x)
        aw = _C.abs(w)
        keep = _C.greater_than(aw, _threshold(_C.max(aw, [-1], False), rcond))
        winv = _C.cast(_safe_reciprocal(w, keep), x.dtype)
        return _C.matmul(_C.multiply(v, _C.unsqueeze(winv, [-2])), _conj(v), False, True)
    u, s, vh = svd(x)
    if s.shape[-1] == 0:
        return _mT(_C.full_like(x, 0))
    keep = _C.greater_than(s, _threshold(_C.max(s, [-1], False), rcond))
    sinv = _C.cast(_safe_reciprocal(s, keep), x.dtype)
    # V S^+ U^H
    return _C.matmul(_C.multiply(_mH(vh), _C.unsqueeze(sinv, [-2])), _conj(u), False, True)


_LSTSQ_DRIVERS = (None, "gels", "gelsy", "gelsd", "gelss")


def lstsq(
    x: Tensor, y: Tensor, rcond: float | None = None, driver: Any = None, name: str | None = None
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The least-squares solution of x @ solution = y: (solution, residuals, rank,
    singular_values) as Paddle returns them (residuals when m > n and x has full rank,
    except for gelsy; rank except for gels; singular values for gelsd/gelss; else empty).
    Computed through the SVD (the minimum-norm solution, what gelsd gives), so it is
    differentiable; rcond defaults to eps * max(m, n)."""
    _matrix("lstsq", x)
    _matrix("lstsq", y, "y")
    if driver not in _LSTSQ_DRIVERS:
        raise ValueError(
            f"lstsq(): argument 'driver' must be one of 'gels', 'gelsy', "
            f"'gelsd', 'gelss' or None, but got {driver!r}"
        )
    driver = driver or "gelsy"
    if x.shape[-2] != y.shape[-2]:
        raise ValueError(f"lstsq(): x {x.shape} and y {y.shape} must have the same number of rows")
    x, y = _broadcast_batch("lstsq", _float_of(x), _float_of(y))
    m, n = x.shape[-2], x.shape[-1]
    if rcond is None:
        rcond = _eps(x) * max(m, n)
    u, s, vh = svd(x)
    if s.shape[-1]:
        smax = _C.max(s, [-1], False)
        keep = _C.greater_than(s, _threshold(smax, rcond))
    else:
        keep = _C.greater_than(s, s)
    sinv = _C.cast(_safe_reciprocal(s, keep), x.dtype)
    solution = _C.matmul(
        _C.multiply(_mH(vh), _C.unsqueeze(sinv, [-2])), _C.matmul(_conj(u), y, True, False)
    )
    rank = _C.sum(_C.cast(keep, convert_dtype("int32")), [-1], None, False)
    rank = _C.cast(rank, convert_dtype("int32"))
    # residuals and singular values are real (float32 for complex64)
    empty = _C.full([0], 0, s.dtype)
    residuals = empty
    full_rank = bool(np.all(np.asarray(rank) == n)) if rank.size else True
    if m > n and full_rank and driver != "gelsy":
        r = _C.subtract(y, _C.matmul(x, solution))
        r2 = _C.real(_C.multiply(r, _C.conj(r))) if r.dtype.is_complex else _C.multiply(r, r)
        residuals = _C.sum(r2, [-2], None, False)
    if driver == "gels":
        rank = _C.full([0], 0, convert_dtype("int64"))
    singular_values = s if driver in ("gelsd", "gelss") else empty
    return solution, residuals, rank, singular_values


def _tol_tensor(v, like):
    return v if isinstance(v, Tensor) else _C.full([], float(v), like.dtype)


def matrix_rank(
    x: Tensor,
    tol: Any = None,
    hermitian: bool = False,
    atol: Any = None,
    rtol: Any = None,
    name: str | None = None,
) -> Tensor:
    """The number of singular values (|eigenvalues| when hermitian) above the tolerance:
    tol (absolute) if given, else max(atol, rtol * largest) with rtol defaulting to
    eps * max(m, n) (0 when atol is given alone). int64."""
    C.tensor("matrix_rank", "x", x)
    if x.ndim < 2:
        raise ValueError(
            f"matrix_rank(): argument 'x' must be a matrix or a batch of "
            f"matrices, but has shape {x.shape}"
        )
    x = _float_of(x)
    s = _C.abs(eigvalsh(x)) if hermitian else svdvals(x)
    if s.shape[-1] == 0:
        return _C.full(list(x.shape[:-2]), 0, convert_dtype("int64"))
    smax = _C.unsqueeze(_C.max(s, [-1], False), [-1])
    if tol is not None:
        thr = _tol_tensor(tol, s)
        thr = _C.unsqueeze(thr, [-1]) if thr.ndim else thr
    else:
        if rtol is None:
            rtol = 0.0 if atol is not None else _eps(x) * max(x.shape[-2], x.shape[-1])
        rt = _tol_tensor(rtol, s)
        rel = _C.multiply(smax, _C.unsqueeze(rt, [-1]) if rt.ndim else rt)
        thr = (
            rel
            if atol is None
            else _C.maximum(
                rel,
                _C.unsqueeze(_tol_tensor(atol, s), [-1])
                if isinstance(atol, Tensor) and atol.ndim
                else _tol_tensor(atol, s),
            )
        )
    keep = _C.greater_than(s, thr)
    return _C.sum(_C.cast(keep, convert_dtype("int64")), [-1], None, False)


# ---- norms and condition numbers ----------------------------------------------------------
def _spectral(x, p, axes, keepdim):
    """The matrix 2-norm (p = 2), its minimum (-2) or the nuclear norm ('nuc') over the
    two axes of x."""
    a0, a1 = axes
    rest = [d for d in range(x.ndim) if d not in (a0, a1)]
    moved = _C.transpose(x, rest + [a0, a1]) if rest + [a0, a1] != list(range(x.ndim)) else x
    s = svdvals(moved)
    if p == "nuc":
        out = _C.sum(s, [-1], None, False)
    elif s.shape[-1] == 0:
        out = _C.full(list(s.shape[:-1]), 0, s.dtype)
    else:
        out = (_C.amax if p > 0 else _C.amin)(s, [-1], False)
    return _C.unsqueeze(out, sorted(axes)) if keepdim else out


def vector_norm(
    x: Tensor,
    p: float | str | None = 2.0,
    axis: AxisLike | None = None,
    keepdim: bool = False,
    name: str | None = None,
    *,
    dtype: DTypeLike | None = None,
) -> Tensor:
    """The vector p-norm of x flattened (axis None) or over the given axes."""
    C.tensor("vector_norm", "x", x)
    if dtype is not None:
        x = _C.cast(x, convert_dtype(dtype))
    if axis is None:
        axes = []
    elif isinstance(axis, (list, tuple)):
        axes = [C.axis("vector_norm", "axis", a, max(x.ndim, 1)) for a in axis]
    else:
        axes = [C.axis("vector_norm", "axis", axis, max(x.ndim, 1))]
    p = float(C.number("vector_norm", "p", p))
    return _p_norm(_float_of(x), p, axes, bool(keepdim))


def matrix_norm(
    x: Tensor,
    p: float | str | None = "fro",
    axis: AxisLike = (-2, -1),
    keepdim: bool = False,
    name: str | None = None,
) -> Tensor:
    """The matrix norm over two axes: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf."""
    C.tensor("matrix_norm", "x", x)
    if not isinstance(axis, (list, tuple)) or len(axis) != 2:
        raise ValueError(f"matrix_norm(): argument 'axis' must be two axes, but got {axis}")
    if x.ndim < 2:
        raise ValueError(
            f"matrix_norm(): argument 'x' must have at least 2 dims, but has shape {x.shape}"
        )
    return norm(x, p, list(axis), keepdim)


def cond(x: Tensor, p: float | str | None = None, name: str | None = None) -> Tensor:
    """The condition number of each matrix of x: for p None, 2 or -2 the ratio of the
    extreme singular values; for 'fro', 'nuc', 1, -1, inf, -inf norm(x) * norm(inv(x))."""
    _matrix("cond", x)
    x = _float_of(x)
    if p is None or (not isinstance(p, str) and C.number("cond", "p", p) in (2, -2)):
        s = svdvals(x)
        big, small = _C.amax(s, [-1], False), _C.amin(s, [-1], False)
        return _C.divide(big, small) if p in (None, 2) else _C.divide(small, big)
    if p not in ("fro", "nuc", 1, -1, math.inf, -math.inf):
        raise ValueError(
            f"cond(): argument 'p' must be None, 'fro', 'nuc', 1, -1, 2, -2, "
            f"inf or -inf, but got {p!r}"
        )
    _matrix("cond", x, square=True)
    return _C.multiply(matrix_norm(x, p), matrix_norm(inv(x), p))


# ---- statistics ---------------------------------------------------------------------------
def cov(
    x: Tensor,
    rowvar: bool = True,
    ddof: Any = True,
    fweights: Any = None,
    aweights: Any = None,
    name: str | None = None,
) -> Tensor:
    """The covariance matrix of the variables of x (rows, or columns when rowvar is
    False), with optional integer frequency and float observation weights; ddof=True
    divides by N - 1 (weighted: as NumPy's cov)."""
    C.tensor("cov", "x", x)
    if x.ndim > 2:
        raise ValueError(f"cov(): argument 'x' must be 1-D or 2-D, but has shape {x.shape}")
    x = _float_of(x)
    if x.ndim < 2:
        x = _C.reshape(x, [1, -1])
    if not rowvar and x.shape[0] != 1:
        x = _mT(x)
    nobs = x.shape[1]
    w = None
    if fweights is not None:
        C.tensor("cov", "fweights", fweights)
        if fweights.ndim != 1 or fweights.shape[0] != nobs:
            raise ValueError(
                f"cov(): fweights must be 1-D with {nobs} entries, but has shape {fweights.shape}"
            )
        if fweights.dtype.is_floating_point:
            raise TypeError("cov(): fweights must be an integer tensor")
        w = _C.cast(fweights, x.dtype)
    if aweights is not None:
        C.tensor("cov", "aweights", aweights)
        if aweights.ndim != 1 or aweights.shape[0] != nobs:
            raise ValueError(
                f"cov(): aweights must be 1-D with {nobs} entries, but has shape {aweights.shape}"
            )
        aw = _C.cast(aweights, x.dtype)
        w = aw if w is None else _C.multiply(w, aw)
    if w is None:
        w = _C.full([nobs], 1, x.dtype)
    w_sum = _C.sum(w, [], None, False)
    avg = _C.divide(_C.sum(_C.multiply(x, w), [1], None, True), w_sum)
    if not ddof:
        norm_factor = w_sum
    elif aweights is None:
        norm_factor = _C.scale(w_sum, 1.0, -1.0)
    else:
        aw = _C.cast(aweights, x.dtype)
        norm_factor = _C.subtract(
            w_sum, _C.divide(_C.sum(_C.multiply(w, aw), [], None, False), w_sum)
        )
    xc = _C.subtract(x, avg)
    c = _C.divide(_C.matmul(_C.multiply(xc, w), _conj(xc), False, True), norm_factor)
    return _C.reshape(c, []) if c.shape == [1, 1] else c


def corrcoef(x: Tensor, rowvar: bool = True, name: str | None = None) -> Tensor:
    """The Pearson correlation coefficients of the variables of x (clipped to [-1, 1])."""
    c = cov(x, rowvar)
    if c.ndim == 0:
        return _C.divide(c, c)
    d = _C.diagonal(c, 0, 0, 1)
    if c.dtype.is_complex:  # a variance is real; NumPy clips both parts of a complex c
        d = _C.cast(_C.real(d), c.dtype)
    d = _C.sqrt(d)
    c = _C.divide(_C.divide(c, _C.unsqueeze(d, [1])), _C.unsqueeze(d, [0]))
    if c.dtype.is_complex:
        return _C.complex(_C.clip(_C.real(c), -1.0, 1.0), _C.clip(_C.imag(c), -1.0, 1.0))
    return _C.clip(c, -1.0, 1.0)


# ---- paddle.linalg's small re-exports ----------------------------------------------------
def diagonal(
    x: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None
) -> Tensor:
    return _C.diagonal(x, offset, axis1, axis2)


def matrix_transpose(x: Tensor, name: str | None = None) -> Tensor:
    """x with its last two dims swapped."""
    return _mT(_matrix("matrix_transpose", x))


def mv(x: Tensor, vec: Tensor, name: str | None = None) -> Tensor:
    """The product of a matrix x [M, N] and a vector vec [N]."""
    C.tensor("mv", "x", x)
    C.tensor("mv", "vec", vec)
    if x.ndim != 2 or vec.ndim != 1:
        raise ValueError(
            f"mv(): 'x' must be 2-D and 'vec' 1-D, but got shapes {x.shape} and {vec.shape}"
        )
    return _C.matmul(x, vec)


def _tensordot_axes(axes, xd, yd):
    if isinstance(axes, Tensor):
        axes = axes.tolist()
    if isinstance(axes, numbers.Integral) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0 or n > min(xd, yd):
            raise ValueError(f"tensordot(): argument 'axes' ({n}) must be in [0, {min(xd, yd)}]")
        return list(builtins_range(xd - n, xd)), list(builtins_range(n))
    if not isinstance(axes, (list, tuple)):
        raise TypeError(
            f"tensordot(): argument 'axes' must be an int, a list or a Tensor, but "
            f"got {type(axes).__name__}"
        )
    axes = list(axes)
    if not axes:
        return [], []
    if all(isinstance(a, numbers.Integral) for a in axes):
        return [int(a) for a in axes], [int(a) for a in axes]
    if len(axes) == 1:
        axes = [axes[0], []]
    if len(axes) != 2:
        raise ValueError(
            f"tensordot(): argument 'axes' must hold at most two lists, but got {axes}"
        )
    ax, ay = (list(a.tolist() if isinstance(a, Tensor) else a) for a in axes)
    # Paddle's expansion: the shorter list continues with the longer one's entries
    if len(ax) < len(ay):
        ax = ax + ay[len(ax) :]
    elif len(ay) < len(ax):
        ay = ay + ax[len(ay) :]
    return [int(a) for a in ax], [int(a) for a in ay]


def tensordot(x: Tensor, y: Tensor, axes: Any = 2, name: str | None = None) -> Tensor:
    """The sum of products of x and y over the contracted axes: an int n (x's last n with
    y's first n), a list of axes for both, or two lists (the shorter one continued with the
    longer one's entries). The result has x's free axes, then y's.

    Examples:
        >>> import oar
        >>> x = oar.arange(6, dtype='float64').reshape([2, 3])
        >>> y = oar.arange(12, dtype='float64').reshape([3, 4])
        >>> print(oar.tensordot(x, y, axes=1).tolist())
        [[20.0, 23.0, 26.0, 29.0], [56.0, 68.0, 80.0, 92.0]]
    """
    C.tensor("tensordot", "x", x)
    C.tensor("tensordot", "y", y)
    ax, ay = _tensordot_axes(axes, x.ndim, y.ndim)
    ax = [C.axis("tensordot", "axes", a, max(x.ndim, 1)) for a in ax]
    ay = [C.axis("tensordot", "axes", a, max(y.ndim, 1)) for a in ay]
    if len(set(ax)) != len(ax) or len(set(ay)) != len(ay):
        raise ValueError(f"tensordot(): argument 'axes' repeats an axis: {ax}, {ay}")
    for a, b in zip(ax, ay):
        if x.shape[a] != y.shape[b]:
            raise ValueError(
                f"tensordot(): x's axis {a} (size {x.shape[a]}) and y's axis {b} "
                f"(size {y.shape[b]}) cannot be contracted"
            )
    x, y = common("tensordot", x, y)
    fx = [a for a in builtins_range(x.ndim) if a not in ax]
    fy = [b for b in builtins_range(y.ndim) if b not in ay]
    k = math.prod(x.shape[a] for a in ax)
    xm = C.reshape_exact(_C.transpose(x, fx + ax), [math.prod(x.shape[a] for a in fx), k])
    ym = C.reshape_exact(_C.transpose(y, ay + fy), [k, math.prod(y.shape[b] for b in fy)])
    return C.reshape_exact(_C.matmul(xm, ym), [x.shape[a] for a in fx] + [y.shape[b] for b in fy])


# ---- distances and norms --------------------------------------------------------------------
def _pnorm_last(d, p):
    return _C.p_norm(d, float(p), [-1], False)


def cdist(
    x: Tensor,
    y: Tensor,
    p: float = 2.0,
    compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
    name: str | None = None,
) -> Tensor:
    """The p-norm distances between the rows of x [..., P, M] and y [..., R, M]:
    [..., P, R]. For p = 2, compute_mode may use the matrix-product form
    |x|^2 + |y|^2 - 2 x.y ('use_mm_for_euclid_dist', or '..._if_necessary' for P or R
    above 25), faster and slightly less exact.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0.0, 0.0], [3.0, 4.0]])
        >>> print(oar.cdist(x, oar.to_tensor([[0.0, 0.0]])).tolist())
        [[0.0], [5.0]]
    """
    C.tensor("cdist", "x", x)
    C.tensor("cdist", "y", y)
    p = float(C.number("cdist", "p", p))
    modes = (
        "use_mm_for_euclid_dist_if_necessary",
        "use_mm_for_euclid_dist",
        "donot_use_mm_for_euclid_dist",
    )
    if compute_mode not in modes:
        raise ValueError(
            f"cdist(): argument 'compute_mode' must be one of {modes}, but got {compute_mode!r}"
        )
    if p < 0:
        raise ValueError(f"cdist(): argument 'p' must be >= 0, but got {p}")
    if x.ndim < 2 or y.ndim < 2 or x.shape[-1] != y.shape[-1]:
        raise ValueError(
            f"cdist(): 'x' [..., P, M] and 'y' [..., R, M] must be at least 2-D "
            f"with equal last dimensions, but got {x.shape} and {y.shape}"
        )
    x, y = common("cdist", as_float(x), as_float(y))
    big = x.shape[-2] > 25 or y.shape[-2] > 25
    if p == 2.0 and (
        compute_mode == "use_mm_for_euclid_dist" or (big and compute_mode == modes[0])
    ):
        xx = _C.sum(_C.square(x), [-1], None, True)
        yy = _C.sum(_C.square(y), [-1], None, True)
        d2 = _C.add(
            _C.subtract(xx, _C.scale(_C.matmul(x, y, False, True), 2.0)),
            _C.transpose(yy, list(builtins_range(yy.ndim - 2)) + [yy.ndim - 1, yy.ndim - 2]),
        )
        return _C.sqrt(_C.clip(d2, 0.0, math.inf))
    diff_ = _C.subtract(_C.unsqueeze(x, [-2]), _C.unsqueeze(y, [-3]))
    return _pnorm_last(diff_, p)


def pdist(x: Tensor, p: float = 2.0, name: str | None = None) -> Tensor:
    """The p-norm distances between the rows i < j of x [N, M], in row-major order of
    the pairs: N (N - 1) / 2 values."""
    C.tensor("pdist", "x", x)
    p = float(C.number("pdist", "p", p))
    if x.ndim != 2:
        raise ValueError(f"pdist(): argument 'x' must be 2-D, but got shape {x.shape}")
    if p < 0:
        raise ValueError(f"pdist(): argument 'p' must be >= 0, but got {p}")
    n = x.shape[0]
    i, j = np.triu_indices(n, 1)
    xf = as_float(x)
    if i.size == 0:
        return _C.full([0], 0.0, xf.dtype)
    a = _C.index_select(xf, _C._from_buffer(i.astype(np.int64), i64), 0)
    b = _C.index_select(xf, _C._from_buffer(j.astype(np.int64), i64), 0)
    return _pnorm_last(_C.subtract(a, b), p)


def dist(x: Tensor, y: Tensor, p: float = 2, name: str | None = None) -> Tensor:
    """The p-norm of x - y (broadcast) over all elements, as a 0-D tensor: p = 0 counts
    the non-zero differences, inf / -inf take the largest / smallest absolute one.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[3.0, 3.0], [3.0, 3.0]])
        >>> y = oar.to_tensor([[3.0, 3.0], [3.0, 1.0]])
        >>> print(oar.dist(x, y, 2).item(), oar.dist(x, y, 0).item())
        2.0 1.0
    """
    C.tensor("dist", "x", x)
    C.tensor("dist", "y", y)
    p = float(C.number("dist", "p", p))
    x, y = common("dist", as_float(x), as_float(y))
    d = _C.reshape(_C.subtract(x, y), [-1])
    return _C.p_norm(d, p, [0], False)


# ---- histograms -----------------------------------------------------------------------------
def histogram_bin_edges(
    input: Tensor,
    bins: int = 100,
    min: float = 0.0,  # noqa: A002
    max: float = 0.0,
    name: str | None = None,
) -> Tensor:
    """The bins + 1 edges evenly spaced over [min, max], or over the data's range when both
    are 0, widened by 0.5 each way when the range is one value. (Paddle's rule: for
    min == max != 0 these are min +- 0.5, while histogram counts over the data's range.)

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1, 2, 1])
        >>> print(oar.histogram_bin_edges(x, bins=4, min=0, max=3).tolist())
        [0.0, 0.75, 1.5, 2.25, 3.0]
    """
    C.tensor("histogram_bin_edges", "input", input)
    bins = C.integer("histogram_bin_edges", "bins", bins)
    if bins < 1:
        raise ValueError(f"histogram_bin_edges(): argument 'bins' must be >= 1, but got {bins}")
    lo = float(C.number("histogram_bin_edges", "min", min))
    hi = float(C.number("histogram_bin_edges", "max", max))
    if lo > hi:
        raise ValueError(f"histogram_bin_edges(): 'max' ({hi}) must be >= 'min' ({lo})")
    if lo == 0 and hi == 0 and input.size:  # unlike histogram's min == max: Paddle's rule
        a = np.array(input, dtype=np.float64)
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"histogram_bin_edges(): the range [{lo}, {hi}] is not finite")
    d = input.dtype if input.dtype.is_floating_point else default_float()
    return linspace(lo, hi, bins + 1, d)


def histogramdd(
    x: Tensor,
    bins: Tensor | Sequence[int] | int = 10,
    ranges: Sequence[float] | None = None,
    density: bool = False,
    weights: Tensor | None = None,
    name: str | None = None,
) -> tuple[Tensor, list[Tensor]]:
    """The D-dimensional histogram of the points x [..., D]: bins per dimension (an int,
    D ints, or D tensors of edges), ranges [lo0, hi0, lo1, hi1, ...] (default: the data's),
    point weights, density normalisation. Returns (hist, [edges per dimension]). Not
    differentiable.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
        >>> hist, edges = oar.histogramdd(x, bins=[3, 3])
        >>> print(hist.tolist())
        [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 1.0]]
    """
    C.tensor("histogramdd", "x", x)
    if x.ndim < 2:
        raise ValueError(
            f"histogramdd(): argument 'x' must be [..., D] with at least 2 "
            f"dimensions, but got shape {x.shape}"
        )
    dim = x.shape[-1]
    xf = as_float(x)
    pts = np.asarray(xf, dtype=np.float64).reshape(-1, dim)
    specs: list[Any]
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        specs = [int(bins)] * dim
    elif isinstance(bins, Tensor):
        specs = [bins]
    elif isinstance(bins, (list, tuple)):
        specs = list(bins)
    else:
        specs = []
    if len(specs) != dim:
        raise ValueError(
            f"histogramdd(): argument 'bins' must be an int or one entry per "
            f"dimension ({dim}), but got {bins!r}"
        )
    if ranges is not None:
        ranges = [float(C.number("histogramdd", "ranges", r)) for r in ranges]
        if len(ranges) != 2 * dim:
            raise ValueError(
                f"histogramdd(): argument 'ranges' must hold 2 * D = {2 * dim} "
                f"numbers, but got {len(ranges)}"
            )
    edges = []
    for d, b in enumerate(specs):
        if isinstance(b, Tensor):
            e = as_float(b)
            if e.ndim != 1 or e.shape[0] < 2:
                raise ValueError(
                    f"histogramdd(): the edges of dimension {d} must be 1-D with at least 2 values"
                )
        else:
            b = C.integer("histogramdd", "bins", b)
            if b < 1:
                raise ValueError(f"histogramdd(): argument 'bins' must be >= 1, but got {b}")
            if ranges is not None:
                lo, hi = ranges[2 * d], ranges[2 * d + 1]
            elif pts.shape[0]:
                lo, hi = float(pts[:, d].min()), float(pts[:, d].max())
            else:
                lo, hi = 0.0, 1.0
            if lo > hi:
                raise ValueError(
                    f"histogramdd(): the range of dimension {d} is empty: [{lo}, {hi}]"
                )
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            e = linspace(lo, hi, b + 1, xf.dtype)
        edges.append(e)
    w = None
    if weights is not None:
        C.tensor("histogramdd", "weights", weights)
        w = np.asarray(as_float(weights), dtype=np.float64).reshape(-1)
        if w.size != pts.shape[0]:
            raise ValueError(
                f"histogramdd(): argument 'weights' must have one value per point "
                f"({pts.shape[0]}), but has {w.size}"
            )
    np_edges = [np.asarray(e, dtype=np.float64) for e in edges]
    hist, _ = np.histogramdd(pts, bins=np_edges, weights=w, density=bool(density))
    return to_tensor(hist, dtype=xf.dtype), edges


@_aliases({"input": "x", "vec2": "y"}, strict=True)
def ger(x: Tensor, y: Tensor, name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The outer product of x and y (outer)."""
    return _out.write_out(out, outer(x, y), "ger")
