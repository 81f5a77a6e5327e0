"""Statistics, search, scans and random ops with Paddle's Python signatures.

The ops with several results (topk, kthvalue, mode, median, cummax, cummin, unique) and
the ones whose Paddle signature has optional tensors or string options (norm, bincount,
histogram, bernoulli, randint_like, triu_indices) are composed here from the declared
ops of src/oar/ops/{statistics,search,scan,random}.yaml. Values picked by position come
from along_axis_gather(x, positions), whose backward scatters the gradient to those
positions, so they are differentiable to any order."""
import math

from . import _C
from .framework import check as C
from .framework.dtype import convert_dtype, float32, float64, int64

Tensor = _C.Tensor


def _gather(x, index, axis):
    return _C.along_axis_gather(x, index, axis)


def _squeeze_if(t, axis, keepdim, x):
    return t if keepdim or x.ndim == 0 else _C.squeeze(t, [axis])


def _line_axis(api, x, axis):
    """(x or x flattened, axis): axis None means x flattened (Paddle's rule)."""
    if axis is None:
        return _C.reshape(x, [-1]), 0
    return x, C.axis(api, "axis", axis, max(x.ndim, 1))


def _index_dtype(api, dtype):
    d = convert_dtype(dtype)
    if d.name not in ("int32", "int64"):
        raise TypeError(f"{api}(): argument 'dtype' must be int32 or int64, but got {d.name}")
    return d


# ---- search ----------------------------------------------------------------------------
def topk(x, k, axis=None, largest=True, sorted=True, name=None):  # noqa: A002 - Paddle's name
    """The k largest (smallest) elements along axis (default -1) and their int64 positions.

    Returns (values, indices); values are differentiable."""
    C.tensor("topk", "x", x)
    k = C.integer("topk", "k", k)
    a = -1 if axis is None else C.integer("topk", "axis", axis)
    idx = _C.topk_index(x, k, a, bool(largest), bool(sorted))
    return _gather(x, idx, a), idx


def sort(x, axis=-1, descending=False, stable=False, name=None):
    """x sorted along axis (NaN last; descending puts NaN first); equal values keep their
    order. Differentiable: the gradient goes back to each value's position."""
    C.tensor("sort", "x", x)
    a = C.integer("sort", "axis", axis)
    return _gather(x, _C.argsort(x, a, bool(descending), bool(stable)), a)


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """The k-th smallest element (k from 1) along axis (default -1) and its int64 position.

    Returns (values, indices)."""
    C.tensor("kthvalue", "x", x)
    k = C.integer("kthvalue", "k", k)
    a = -1 if axis is None else C.integer("kthvalue", "axis", axis)
    idx = _C.kthvalue_index(x, k, a, True)
    return (_squeeze_if(_gather(x, idx, a), a, keepdim, x),
            _squeeze_if(idx, a, keepdim, x))


def mode(x, axis=-1, keepdim=False, name=None):
    """The most frequent value along axis (the smallest of equally frequent ones) and an
    int64 position of it. Returns (values, indices)."""
    C.tensor("mode", "x", x)
    a = C.integer("mode", "axis", axis)
    idx = _C.mode_index(x, a, True)
    return (_squeeze_if(_gather(x, idx, a), a, keepdim, x),
            _squeeze_if(idx, a, keepdim, x))


def median(x, axis=None, keepdim=False, mode="avg", name=None):
    """The median along axis (None: of all elements). mode 'avg' averages the two middle
    values of an even count (float64 stays, other dtypes give float32); 'min' takes the
    lower one, and with an axis also returns its int64 position. A NaN in a line gives NaN."""
    C.tensor("median", "x", x)
    if mode not in ("avg", "min"):
        raise ValueError(f"median(): argument 'mode' must be 'avg' or 'min', but got {mode!r}")
    xs, a = _line_axis("median", x, axis)
    n = xs.shape[a] if xs.ndim else 1
    if n == 0:
        raise ValueError(f"median(): cannot take the median of an empty axis (x has shape "
                         f"{x.shape})")
    if mode == "avg" and xs.dtype != float64:
        xs = _C.cast(xs, float32)
    kd = keepdim if axis is not None else False
    lo_idx = _C.kthvalue_index(xs, (n + 1) // 2, a, True)
    value = _gather(xs, lo_idx, a)
    if mode == "avg" and n % 2 == 0:
        hi = _gather(xs, _C.kthvalue_index(xs, n // 2 + 1, a, True), a)
        value = _C.scale(_C.add(value, hi), 0.5)
    if xs.dtype.is_floating_point:  # a NaN anywhere in the line makes the median NaN
        is_nan = _C.cast(_C.not_equal(xs, xs), xs.dtype)
        has_nan = _C.greater_than(_C.amax(is_nan, [a], True), _C.full([], 0.0, xs.dtype))
        value = _C.where(has_nan, _C.full_like(value, math.nan), value)
        if mode == "min":  # ... and its position that of the line's first NaN (Paddle)
            lo_idx = _C.where(has_nan, _C.argmax(is_nan, [a], True, lo_idx.dtype), lo_idx)
    if axis is None:
        value = _C.reshape(value, [1] * x.ndim if keepdim else [])
        return value
    value = _squeeze_if(value, a, kd, x)
    if mode == "min":
        return value, _squeeze_if(lo_idx, a, kd, x)
    return value


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", name=None):
    """The distinct elements of x flattened (or slices along axis) in ascending order.

    Also returns, as asked: the position of each one's first occurrence, the number of
    the distinct value of each element (slice), and the count of each."""
    C.tensor("unique", "x", x)
    d = _index_dtype("unique", dtype)
    if axis is None:
        inv = _C.unique_inverse(x, [])
        src, a = _C.reshape(x, [-1]), 0
    else:
        a = C.axis("unique", "axis", axis, x.ndim, "a tensor")
        inv = _C.unique_inverse(x, [a])
        src = x
    counts = _C.bincount(inv, _C.full_like(inv, 1), 0)
    # With a stable order of the group numbers, a group's first member comes first.
    order = _C.argsort(inv, 0, False, True)
    starts = _C.subtract(_C.cumsum(counts, [0], None), counts)
    index = _C.index_select(order, starts, 0)
    out = [_C.index_select(src, index, a)]
    if return_index:
        out.append(_C.cast(index, d))
    if return_inverse:
        out.append(_C.cast(inv, d))
    if return_counts:
        out.append(_C.cast(counts, d))
    return out[0] if len(out) == 1 else tuple(out)


def bincount(x, weights=None, minlength=0, name=None):
    """The number of occurrences (or the sum of weights) of each value of the 1-D
    non-negative integers x; at least minlength entries."""
    C.tensor("bincount", "x", x)
    if weights is None:
        weights = _C.full_like(x, 1, int64)
    minlength = C.integer("bincount", "minlength", minlength)
    return _C.bincount(x, C.tensor("bincount", "weights", weights), minlength)


def histogram(input, bins=100, min=0.0, max=0.0, weight=None, density=False,  # noqa: A002
              name=None):
    """Counts (or summed weight) in `bins` equal-width bins of [min, max]; the data's range
    when min == max (Paddle's kernel; its histogram_bin_edges differs, see there). int64
    without weight; density gives float32 densities."""
    C.tensor("histogram", "input", input)
    bins = C.integer("histogram", "bins", bins)
    lo, hi = float(C.number("histogram", "min", min)), float(C.number("histogram", "max", max))
    w = _C.full_like(input, 1, int64) if weight is None else \
        C.tensor("histogram", "weight", weight)
    hist = _C.histogram(input, w, bins, lo, hi)
    if not density:
        return hist
    if lo == hi and input.size:  # Paddle: min == max takes the data's range
        lo, hi = float(_C.amin(_C.cast(input, float64), [], False).item()), \
            float(_C.amax(_C.cast(input, float64), [], False).item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    h = _C.cast(hist, float32)
    total = _C.sum(h, [], None, False)
    return _C.divide(h, _C.scale(total, (hi - lo) / bins))


# ---- scans ------------------------------------------------------------------------------
def _cum_extreme(api, index_op, x, axis, dtype):
    C.tensor(api, "x", x)
    d = _index_dtype(api, dtype)
    xs, a = _line_axis(api, x, axis)
    idx = index_op(xs, [a])
    return _gather(xs, idx, a), _C.cast(idx, d)


def cummax(x, axis=None, dtype="int64", name=None):
    """The running maximum along axis (None: x flattened) and its positions (later ties
    win). Returns (values, indices)."""
    return _cum_extreme("cummax", _C.cummax_index, x, axis, dtype)


def cummin(x, axis=None, dtype="int64", name=None):
    """The running minimum along axis (None: x flattened) and its positions (later ties
    win). Returns (values, indices)."""
    return _cum_extreme("cummin", _C.cummin_index, x, axis, dtype)


# ---- norms ------------------------------------------------------------------------------
def _p_norm(x, p, axes, keepdim):
    """p_norm, of |x| for complex x (the norm of a complex vector is its moduli's)."""
    return _C.p_norm(_C.abs(x) if x.dtype.is_complex else x, p, axes, keepdim)


def norm(x, p=None, axis=None, keepdim=False, name=None):
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
        raise ValueError(f"norm(): argument 'axis' must be None, one axis or two distinct "
                         f"axes, but got {axis}")
    if isinstance(p, str):
        if p == "nuc":
            if len(axes) != 2 and not (axis is None and x.ndim == 2):
                raise ValueError("norm(): p='nuc' is a matrix norm: give two axes")
            from .linalg import _spectral  # late: linalg imports this module
            return _spectral(x, "nuc", axes or [0, 1], bool(keepdim))
        if p != "fro":
            raise ValueError(f"norm(): argument 'p' must be a number, inf, -inf, 'fro' or "
                             f"'nuc', but got {p!r}")
        if len(axes) == 1:
            raise ValueError("norm(): p='fro' is a matrix norm: give two axes or None")
        return _p_norm(x, 2.0, axes, bool(keepdim))
    if p is None:
        return _p_norm(x, 2.0, axes, bool(keepdim))
    p = float(C.number("norm", "p", p))
    if len(axes) < 2:
        return _p_norm(x, p, axes, bool(keepdim))
    if p in (2.0, -2.0):
        from .linalg import _spectral  # late: linalg imports this module
        return _spectral(x, p, axes, bool(keepdim))
    if p not in (1.0, -1.0, math.inf, -math.inf):
        raise ValueError(f"norm(): a matrix norm (two axes) takes p in 'fro', 1, -1, inf, "
                         f"-inf, but got {p}")
    # 1: the largest column sum (sum over the rows axis); inf: the largest row sum.
    summed, extreme = (axes[0], axes[1]) if abs(p) == 1 else (axes[1], axes[0])
    s = _C.sum(_C.abs(x), [summed], None, True)
    out = (_C.amax if p > 0 else _C.amin)(s, [extreme], True)
    return out if keepdim else _C.squeeze(out, sorted(axes))


# ---- random -----------------------------------------------------------------------------
def randint_like(x, low=0, high=None, dtype=None, name=None):
    """Uniform random integers in [low, high) (or [0, low) when high is None) shaped like x,
    in dtype (x's when None), from the default generator."""
    C.tensor("randint_like", "x", x)
    low = C.integer("randint_like", "low", low)
    if high is None:
        low, high = 0, low
    high = C.integer("randint_like", "high", high)
    d = x.dtype if dtype is None else convert_dtype(dtype)
    if d.name == "bool":  # Paddle: the integers drawn, read as bool (non-zero is True)
        return _C.cast(_C.randint_like(x, low, high, int64), d)
    return _C.randint_like(x, low, high, d)


def bernoulli(x, p=None, name=None):
    """1 with probability x (or p for every element when given), else 0; x's shape and
    dtype, from the default generator."""
    C.tensor("bernoulli", "x", x)
    if p is not None:
        x = _C.full_like(x, float(C.number("bernoulli", "p", p)))
    return _C.bernoulli(x)


def triu_indices(row, col=None, offset=0, dtype="int64", name=None):
    """The [2, N] (row, column) coordinates of the upper triangle (col - row >= offset) of a
    row x col matrix (col defaults to row)."""
    row = C.integer("triu_indices", "row", row)
    col = row if col is None else C.integer("triu_indices", "col", col)
    return _C.triu_indices(row, col, C.integer("triu_indices", "offset", offset),
                           convert_dtype(dtype))


_METHODS = {
    "topk": topk, "sort": sort, "kthvalue": kthvalue, "mode": mode, "median": median,
    "unique": unique, "bincount": bincount, "histogram": histogram, "cummax": cummax,
    "cummin": cummin, "norm": norm, "bernoulli": bernoulli,
}
for _k, _v in _METHODS.items():
    setattr(Tensor, _k, _v)

__all__ = ["topk", "sort", "kthvalue", "mode", "median", "unique", "bincount", "histogram",
           "cummax", "cummin", "norm", "randint_like", "bernoulli", "triu_indices"]
