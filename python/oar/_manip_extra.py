"""Paddle's top-level manipulation, indexing and scattering functions beyond
_manipulation.py: splitting (tensor_split, h/v/dsplit), stacking (h/v/d/column/row_stack,
atleast_nd, block_diag, cartesian_prod, combinations), views (crop, narrow, permute,
ravel, matrix_transpose, view, view_as), picking (take, index_fill, index_sample,
multiplex, masked_scatter), scattering into slices (select_scatter, slice_scatter,
diagonal_scatter, scatter_add, scatter_reduce), msort, unbind, shard_index and
unique_consecutive. All are compositions of differentiable ops (slice, concat, reshape,
index_select, take_along_axis, set_value_with_tensor, index_put_nd, where), so values
picked or written keep their gradients.
"""
from __future__ import annotations

import itertools
import math
import numbers
from typing import Any, Sequence

import numpy as np

from . import _C
from .framework import check as C
from .framework.dtype import bool_, convert_dtype, float64, int32, int64
from ._math_extra import common, write_out
from .framework.memory import check_fits, check_objects

Tensor = _C.Tensor

__all__ = [
    "tensor_split", "hsplit", "vsplit", "dsplit", "atleast_1d", "atleast_2d", "atleast_3d",
    "hstack", "vstack", "dstack", "column_stack", "row_stack", "block_diag", "cartesian_prod",
    "combinations", "crop", "diagflat", "narrow", "permute", "ravel", "matrix_transpose",
    "unbind", "msort", "take", "index_fill", "index_sample", "multiplex", "masked_scatter",
    "select_scatter", "slice_scatter", "diagonal_scatter", "scatter_add", "scatter_reduce",
    "shard_index", "unique_consecutive", "view", "view_as", "tolist", "argwhere",
]


def _ints(api, name, v):
    if isinstance(v, Tensor):
        return [int(i) for i in v.numpy().reshape(-1)]
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return [int(v)]
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{api}(): argument '{name}' must be an int or a list of ints, but got "
                        f"{C._kind(v)}")
    return [C.integer(api, name, e) for e in v]


def _index_tensor(values):
    return _C._from_buffer(np.asarray(values, dtype=np.int64).reshape(-1), int64)


# ---- splitting ------------------------------------------------------------------------------
def tensor_split(x: Tensor, num_or_indices: int | Sequence[int], axis: int | Tensor = 0,
                 name: str | None = None) -> list[Tensor]:
    """x split along axis into num_or_indices parts (an int n: sizes differing by at most
    one, the larger first) or at the given indices (parts may be empty).

    Examples:
        >>> import oar
        >>> x = oar.arange(8)
        >>> print([p.shape for p in oar.tensor_split(x, 3)])
        [oar.Size([3]), oar.Size([3]), oar.Size([2])]
        >>> print([p.tolist() for p in oar.tensor_split(x, [2, 3])])
        [[0, 1], [2], [3, 4, 5, 6, 7]]
    """
    return _tensor_split("tensor_split", x, num_or_indices, axis)


def _tensor_split(api, x, num_or_indices, axis):
    """tensor_split for api (tensor_split, hsplit, vsplit or dsplit), whose errors name it."""
    C.tensor(api, "x", x)
    if x.ndim == 0:
        raise ValueError(f"{api}(): argument 'x' must have at least 1 dimension")
    a = C.axis(api, "axis", axis, x.ndim)
    n = x.shape[a]
    if isinstance(num_or_indices, numbers.Integral) and not isinstance(num_or_indices, bool):
        k = int(num_or_indices)
        if k <= 0:
            raise ValueError(f"{api}(): the number of sections must be positive, but got {k}")
        # An empty dimension splits into any number of empty parts, each a tensor object.
        check_objects(api, "sections", k)
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        bounds = list(itertools.accumulate([0] + sizes))
    else:
        idx = _ints(api, "num_or_indices", num_or_indices)
        bounds = [0] + [min(max(i + n if i < 0 else i, 0), n) for i in idx] + [n]
    parts = []
    for s, e in zip(bounds, bounds[1:]):
        e = max(e, s)
        parts.append(_C.slice(x, [a], [s], [e]))
    return parts


def _split_along(api, x, num_or_indices, axis, min_ndim):
    C.tensor(api, "x", x)
    if x.ndim < min_ndim:
        raise ValueError(f"{api}(): argument 'x' must have at least {min_ndim} dimensions, but "
                         f"has {x.ndim}")
    return _tensor_split(api, x, num_or_indices, axis)


def hsplit(x: Tensor, num_or_indices: int | Sequence[int],
           name: str | None = None) -> list[Tensor]:
    """tensor_split along axis 1 (axis 0 for a 1-D x)."""
    C.tensor("hsplit", "x", x)
    return _split_along("hsplit", x, num_or_indices, 1 if x.ndim > 1 else 0, 1)


def vsplit(x: Tensor, num_or_indices: int | Sequence[int],
           name: str | None = None) -> list[Tensor]:
    """tensor_split along axis 0 of an x with at least 2 dimensions."""
    return _split_along("vsplit", x, num_or_indices, 0, 2)


def dsplit(x: Tensor, num_or_indices: int | Sequence[int],
           name: str | None = None) -> list[Tensor]:
    """tensor_split along axis 2 of an x with at least 3 dimensions."""
    return _split_along("dsplit", x, num_or_indices, 2, 3)


# ---- stacking -------------------------------------------------------------------------------
def _atleast(api, inputs, nd):
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    outs = []
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            from ._creation import to_tensor
            t = to_tensor(t)
        if t.ndim >= nd:
            outs.append(t)
            continue
        s = t.shape
        if nd == 1:
            shape = [1]
        elif nd == 2:
            shape = [1] + s if t.ndim == 1 else [1, 1]
        else:
            shape = [1] + s + [1] if t.ndim == 1 else s + [1] if t.ndim == 2 else [1, 1, 1]
        outs.append(C.reshape_exact(t, shape))
    return outs[0] if len(outs) == 1 else outs


def atleast_1d(*inputs: Any, name: str | None = None) -> Any:
    """Each input with at least 1 dimension (0-D becomes [1]); one input gives a tensor,
    several a list.

    Examples:
        >>> import oar
        >>> print(oar.atleast_1d(oar.to_tensor(3)).shape)
        oar.Size([1])
    """
    return _atleast("atleast_1d", inputs, 1)


def atleast_2d(*inputs: Any, name: str | None = None) -> Any:
    """Each input with at least 2 dimensions (0-D: [1, 1], 1-D [n]: [1, n])."""
    return _atleast("atleast_2d", inputs, 2)


def atleast_3d(*inputs: Any, name: str | None = None) -> Any:
    """Each input with at least 3 dimensions (0-D: [1, 1, 1], [n]: [1, n, 1], [m, n]:
    [m, n, 1])."""
    return _atleast("atleast_3d", inputs, 3)


def _tensors(api, x, rows_of_tensor=False):
    # rows_of_tensor: the stacking functions take a Tensor as the sequence of its slices
    # along axis 0, as Paddle does (it iterates the argument)
    if rows_of_tensor and isinstance(x, Tensor) and x.ndim > 0 and x.shape[0] > 0:
        from ._manipulation import _unstack
        x = _unstack(api, "x", x, 0, None)
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"{api}(): argument 'x' must be a non-empty list or tuple of Tensors"
                        f"{' (or a Tensor of at least one row)' if rows_of_tensor else ''}, "
                        f"but got {C._kind(x)}")
    ts = [C.tensor(api, f"x[{i}]", t) for i, t in enumerate(x)]
    return list(common(api, *ts))


def _as_list(v):
    return v if isinstance(v, list) else [v]


def hstack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The tensors concatenated along axis 1 (axis 0 when they are 1-D or 0-D).

    Examples:
        >>> import oar
        >>> print(oar.hstack([oar.to_tensor([1.0, 2.0]), oar.to_tensor([3.0])]).tolist())
        [1.0, 2.0, 3.0]
    """
    ts = _as_list(atleast_1d(*_tensors("hstack", x, True)))
    return _C.concat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The tensors (made at least 2-D) concatenated along axis 0."""
    return _C.concat(_as_list(atleast_2d(*_tensors("vstack", x, True))), 0)


def row_stack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """vstack: the tensors (made at least 2-D) concatenated along axis 0."""
    return vstack(x)


def dstack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The tensors (made at least 3-D) concatenated along axis 2."""
    return _C.concat(_as_list(atleast_3d(*_tensors("dstack", x, True))), 2)


def column_stack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The tensors as columns: 0-D and 1-D ones become [n, 1], then all are concatenated
    along axis 1."""
    ts = _tensors("column_stack", x, True)
    cols = [C.reshape_exact(t, [t.size, 1]) if t.ndim < 2 else t for t in ts]
    return _C.concat(cols, 1)


def block_diag(inputs: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The block-diagonal matrix of the inputs (0-D, 1-D as one row, or 2-D), zeros
    elsewhere.

    Examples:
        >>> import oar
        >>> print(oar.block_diag([oar.to_tensor([[1, 2]]), oar.to_tensor(3)]).tolist())
        [[1, 2, 0], [0, 0, 3]]
    """
    ts = _tensors("block_diag", inputs, True)
    mats = []
    for i, t in enumerate(ts):
        if t.ndim > 2:
            raise ValueError(f"block_diag(): inputs[{i}] must have at most 2 dimensions, but "
                             f"has shape {t.shape}")
        mats.append(C.reshape_exact(t, [1, t.size]) if t.ndim == 1 else
                    C.reshape_exact(t, [1, 1]) if t.ndim == 0 else t)
    total = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        parts = []
        if left:
            parts.append(_C.full([r, left], 0, m.dtype))
        parts.append(m)
        if total - left - c:
            parts.append(_C.full([r, total - left - c], 0, m.dtype))
        rows.append(_C.concat(parts, 1) if len(parts) > 1 else m)
        left += c
    return _C.concat(rows, 0)


def cartesian_prod(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The cartesian product of 1-D tensors, one row per combination ([N1 * N2 * ..., k]);
    one tensor is returned as is.

    Examples:
        >>> import oar
        >>> a, b = oar.to_tensor([1, 2]), oar.to_tensor([5, 6])
        >>> print(oar.cartesian_prod([a, b]).tolist())
        [[1, 5], [1, 6], [2, 5], [2, 6]]
    """
    ts = _tensors("cartesian_prod", x)
    for i, t in enumerate(ts):
        if t.ndim != 1:
            raise ValueError(f"cartesian_prod(): x[{i}] must be 1-D, but has shape {t.shape}")
    if len(ts) == 1:
        return ts[0]
    from ._manipulation import meshgrid
    from ._ops import stack
    grids = meshgrid(*ts)
    return C.reshape_exact(stack(grids, -1), [math.prod(t.size for t in ts), len(ts)])


def combinations(x: Tensor, r: int = 2, with_replacement: bool = False,
                 name: str | None = None) -> Tensor:
    """The length-r combinations of the elements of a 1-D x, one per row, in
    lexicographic order of positions ([0] for r = 0).

    Examples:
        >>> import oar
        >>> print(oar.combinations(oar.to_tensor([1, 2, 3])).tolist())
        [[1, 2], [1, 3], [2, 3]]
    """
    C.tensor("combinations", "x", x)
    r = C.integer("combinations", "r", r)
    if x.ndim != 1:
        raise ValueError(f"combinations(): argument 'x' must be 1-D, but got shape {x.shape}")
    if r < 0:
        raise ValueError(f"combinations(): argument 'r' must be >= 0, but got {r}")
    if r == 0:
        return _C.full([0], 0, x.dtype)
    n = x.shape[0]
    count = math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)
    if count == 0:
        return _C.full([0, r], 0, x.dtype)
    # Every combination is enumerated in Python: count first, so that a count no memory
    # holds (3000 choose 3 is 4.5e9) is refused instead of enumerated for hours.
    check_fits("combinations():", f"{count} combinations of {r} of the {n} elements "
               f"(an int64 index and a value each)", count * r * (8 + x.dtype.itemsize))
    gen = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = np.fromiter(itertools.chain.from_iterable(gen(range(n), r)), dtype=np.int64,
                      count=count * r)
    picked = _C.index_select(x, _C._from_buffer(idx, int64), 0)
    return C.reshape_exact(picked, [count, r])


# ---- views and slices -----------------------------------------------------------------------
def crop(x: Tensor, shape: Any = None, offsets: Any = None, name: str | None = None) -> Tensor:
    """The block of x of the given shape (None: x's; -1: to the end) starting at offsets
    (None: zeros).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        >>> print(oar.crop(x, [2, 2], [0, 1]).tolist())
        [[2, 3], [5, 6]]
    """
    C.tensor("crop", "x", x)
    sizes = list(x.shape) if shape is None else _ints("crop", "shape", shape)
    offs = [0] * x.ndim if offsets is None else _ints("crop", "offsets", offsets)
    if len(sizes) != x.ndim or len(offs) != x.ndim:
        raise ValueError(f"crop(): 'shape' {sizes} and 'offsets' {offs} must have one entry per "
                         f"dimension of x {x.shape}")
    ends = []
    for d, (n, o, s) in enumerate(zip(x.shape, offs, sizes)):
        if o < 0:
            raise ValueError(f"crop(): argument 'offsets' must be >= 0, but got {offs}")
        s = n - o if s == -1 else s
        if s < 0 or o + s > n:
            raise ValueError(f"crop(): the crop of size {s} at offset {o} does not fit dimension "
                             f"{d} of size {n}")
        ends.append(o + s)
    if not x.ndim:
        return x
    return _C.slice(x, list(range(x.ndim)), offs, ends)


def diagflat(x: Tensor, offset: int = 0, name: str | None = None) -> Tensor:
    """The 2-D matrix with x flattened on its offset-th diagonal.

    Examples:
        >>> import oar
        >>> print(oar.diagflat(oar.to_tensor([[1, 2], [3, 4]])).tolist())
        [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 4]]
    """
    C.tensor("diagflat", "x", x)
    from ._manipulation import diag
    return diag(_C.reshape(x, [-1]), C.integer("diagflat", "offset", offset))


def narrow(input: Tensor, dim: int, start: int | Tensor, length: int) -> Tensor:  # noqa: A002
    """The length elements of input along dim from start (negative: from the end)."""
    C.tensor("narrow", "input", input)
    if input.ndim == 0:
        raise ValueError("narrow(): argument 'input' must have at least 1 dimension")
    d = C.axis("narrow", "dim", dim, input.ndim)
    s = C.integer("narrow", "start", start)
    n = C.integer("narrow", "length", length)
    size = input.shape[d]
    if s < 0:
        s += size
    if not 0 <= s <= size or n < 0 or s + n > size:
        raise IndexError(f"narrow(): start {start} and length {length} do not fit dimension {d} "
                         f"of size {size}")
    return _C.slice(input, [d], [s], [s + n])


def permute(input: Tensor, *dims: Any) -> Tensor:  # noqa: A002
    """input with its dimensions reordered: permute(x, (1, 0, 2)) or permute(x, 1, 0, 2)."""
    C.tensor("permute", "input", input)
    spec: Any = dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple, Tensor)) \
        else list(dims)
    return _C.transpose(input, _ints("permute", "dims", spec))


def ravel(input: Tensor) -> Tensor:  # noqa: A002
    """input flattened to 1-D."""
    C.tensor("ravel", "input", input)
    return _C.reshape(input, [-1]) if input.size else C.reshape_exact(input, [0])


def matrix_transpose(x: Tensor, name: str | None = None) -> Tensor:
    """x with its last two dimensions swapped (x.mT)."""
    C.tensor("matrix_transpose", "x", x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose(): argument 'x' must have at least 2 dimensions, "
                         f"but has shape {x.shape}")
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _C.transpose(x, perm)


def unbind(input: Tensor, axis: int = 0) -> list[Tensor]:  # noqa: A002
    """The slices of input along axis, each without that axis."""
    from ._manipulation import _unstack
    return _unstack("unbind", "input", input, axis, None)


def msort(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """input sorted along its first dimension."""
    from ._stats import sort
    C.tensor("msort", "input", input)
    if input.ndim == 0:
        return write_out("msort", out, _C.assign(input))
    return write_out("msort", out, sort(input, 0))


def view(x: Tensor, shape_or_dtype: Any, name: str | None = None) -> Tensor:
    """x's memory seen with another shape (one -1 allowed; x must be contiguous), or its
    bytes read as another dtype (the last dimension scaled by the size ratio).

    Examples:
        >>> import oar
        >>> x = oar.zeros([2, 4, 6])
        >>> print(oar.view(x, [8, -1]).shape, oar.view(x, 'uint8').shape)
        oar.Size([8, 6]) oar.Size([2, 4, 24])
    """
    C.tensor("view", "x", x)
    if isinstance(shape_or_dtype, (list, tuple, Tensor)) and not (
            isinstance(shape_or_dtype, Tensor) and shape_or_dtype.ndim == 0):
        shape = _ints("view", "shape_or_dtype", shape_or_dtype)
        if not x.is_contiguous():
            raise ValueError("view(): argument 'x' must be contiguous to be viewed with another "
                             "shape; use reshape()")
        return _C.reshape(x, shape) if x.size else C.reshape_exact(x, shape)
    try:
        d = convert_dtype(shape_or_dtype)
    except TypeError:
        raise TypeError(f"view(): argument 'shape_or_dtype' must be a shape or a dtype, but got "
                        f"{shape_or_dtype!r}") from None
    return _C._view_dtype(x, d)


def view_as(x: Tensor, other: Tensor, name: str | None = None) -> Tensor:
    """view(x, other.shape)."""
    C.tensor("view_as", "other", other)
    return view(x, other.shape)


def tolist(x: Tensor) -> Any:
    """The elements of x as nested Python lists (a number for a 0-D x)."""
    return C.tensor("tolist", "x", x).tolist()


def argwhere(input: Tensor) -> Tensor:  # noqa: A002
    """The int64 coordinates [N, ndim] of the non-zero elements of input, row-major."""
    return _C.nonzero(C.tensor("argwhere", "input", input))


# ---- picking --------------------------------------------------------------------------------
def take(x: Tensor, index: Tensor, mode: str = "raise", name: str | None = None) -> Tensor:
    """The elements of x flattened at the positions index (any shape; the result takes it).
    mode 'raise': indices in [-n, n) (negative from the end), else IndexError; 'wrap':
    modulo n; 'clip': clamped to [0, n - 1].

    Examples:
        >>> import oar
        >>> x = oar.arange(12).reshape([3, 4])
        >>> print(oar.take(x, oar.to_tensor([[0, -1], [13, 5]]), mode='wrap').tolist())
        [[0, 11], [1, 5]]
    """
    C.tensor("take", "x", x)
    C.tensor("take", "index", index)
    if index.dtype not in (int32, int64):
        raise TypeError(f"take(): argument 'index' must be int32 or int64, but got "
                        f"{index.dtype.name}")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"take(): argument 'mode' must be 'raise', 'wrap' or 'clip', but got "
                         f"{mode!r}")
    n = x.size
    flat = _C.reshape(x, [-1]) if x.ndim != 1 else x
    # an empty index is not read: one of shape [0, 2**62] has no numpy array
    idx = np.asarray(index.numpy(), dtype=np.int64) if index.size else np.zeros([0], np.int64)
    if n == 0 and idx.size:
        raise IndexError("take(): cannot take from an empty tensor")
    if mode == "raise":
        bad = idx[(idx < -n) | (idx >= n)]
        if bad.size:
            raise IndexError(f"take(): index {int(bad.reshape(-1)[0])} is out of range for a "
                             f"tensor of {n} elements")
        idx = np.where(idx < 0, idx + n, idx)
    elif mode == "wrap":
        idx = np.mod(idx, n) if n else idx
    else:
        idx = np.clip(idx, 0, max(n - 1, 0))
    picked = _C.index_select(flat, _index_tensor(idx), 0)
    return C.reshape_exact(picked, index.shape)


def index_fill(x: Tensor, index: Tensor, axis: int, value: float | Tensor,
               name: str | None = None) -> Tensor:
    """x with the slices at `index` along axis set to value (a number or a 0-D tensor).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1, 2], [3, 4], [5, 6]])
        >>> print(oar.index_fill(x, oar.to_tensor([0, 2]), 0, -1).tolist())
        [[-1, -1], [3, 4], [-1, -1]]
    """
    C.tensor("index_fill", "x", x)
    C.tensor("index_fill", "index", index)
    if x.ndim == 0:
        raise ValueError("index_fill(): argument 'x' must have at least 1 dimension")
    a = C.axis("index_fill", "axis", axis, x.ndim)
    n = x.shape[a]
    idx = np.asarray(index.numpy(), dtype=np.int64).reshape(-1)
    bad = idx[(idx < -n) | (idx >= n)]
    if bad.size:
        raise IndexError(f"index_fill(): index {int(bad[0])} is out of range for axis {a} of "
                         f"size {n}")
    if isinstance(value, Tensor):
        v = value if value.dtype is x.dtype else _C.cast(value, x.dtype)
    else:
        v = _C.full([], C.number("index_fill", "value", value), x.dtype)
    if x.size == 0:
        # Nothing to fill; the mask along axis would have n entries, and n can be 2**62.
        return _C.assign(x)
    m = np.zeros(n, dtype=bool)
    m[idx] = True
    shape = [1] * x.ndim
    shape[a] = n
    mask = _C._from_buffer(m.reshape(shape), bool_)
    return _C.where(mask, _C.expand(v, x.shape) if v.ndim == 0 else v, x)


def index_sample(x: Tensor, index: Tensor) -> Tensor:
    """Row i of the result holds x[i, index[i, j]] ([B, N] x, [B, K] index)."""
    C.tensor("index_sample", "x", x)
    C.tensor("index_sample", "index", index)
    if x.ndim != 2 or index.ndim != 2 or x.shape[0] != index.shape[0]:
        raise ValueError(f"index_sample(): 'x' [B, N] and 'index' [B, K] must be 2-D with the "
                         f"same first dimension, but got {x.shape} and {index.shape}")
    if index.dtype not in (int32, int64):
        raise TypeError(f"index_sample(): argument 'index' must be int32 or int64, but got "
                        f"{index.dtype.name}")
    return _C.take_along_axis(x, index, 1, False)


def multiplex(inputs: Sequence[Tensor], index: Tensor, name: str | None = None) -> Tensor:
    """Row i of the result is row i of inputs[index[i]] (inputs of one shape [M, ...],
    index [M, 1]).

    Examples:
        >>> import oar
        >>> a = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> b = oar.to_tensor([[5.0, 6.0], [7.0, 8.0]])
        >>> print(oar.multiplex([a, b], oar.to_tensor([[1], [0]])).tolist())
        [[5.0, 6.0], [3.0, 4.0]]
    """
    ts = _tensors("multiplex", inputs)
    C.tensor("multiplex", "index", index)
    for i, t in enumerate(ts):
        if t.shape != ts[0].shape or t.ndim == 0:
            raise ValueError(f"multiplex(): every input must have the shape {ts[0].shape} (at "
                             f"least 1-D), but inputs[{i}] has {t.shape}")
    m = ts[0].shape[0]
    idx = np.asarray(index.numpy(), dtype=np.int64).reshape(-1)
    if idx.size != m:
        raise ValueError(f"multiplex(): argument 'index' must hold one entry per row ({m}), "
                         f"but has {idx.size}")
    bad = idx[(idx < 0) | (idx >= len(ts))]
    if bad.size:
        raise IndexError(f"multiplex(): index {int(bad[0])} is out of range for "
                         f"{len(ts)} inputs")
    from ._ops import stack
    coords = np.stack([idx, np.arange(m)], -1)
    return _C.gather_nd(stack(ts, 0), _C._from_buffer(coords.astype(np.int64), int64))


def masked_scatter(x: Tensor, mask: Tensor, value: Tensor, name: str | None = None) -> Tensor:
    """x with the positions where mask (broadcast) is True filled, in row-major order,
    with the leading elements of value.

    Examples:
        >>> import oar
        >>> x = oar.zeros([2, 2])
        >>> mask = oar.to_tensor([[True, False], [True, True]])
        >>> print(oar.masked_scatter(x, mask, oar.to_tensor([1.0, 2.0, 3.0, 4.0])).tolist())
        [[1.0, 0.0], [2.0, 3.0]]
    """
    C.tensor("masked_scatter", "x", x)
    C.tensor("masked_scatter", "mask", mask)
    C.tensor("masked_scatter", "value", value)
    if mask.dtype is not bool_:
        raise TypeError(f"masked_scatter(): argument 'mask' must be a bool tensor, but got "
                        f"{mask.dtype.name}")
    from ._manipulation import _broadcast_shape
    shape = _broadcast_shape("masked_scatter", [x.shape, mask.shape], ["x", "mask"])
    m = np.broadcast_to(np.asarray(mask.numpy()), shape)
    count = int(m.sum())
    if count > value.size:
        raise ValueError(f"masked_scatter(): the mask selects {count} elements but 'value' has "
                         f"only {value.size}")
    v = value if value.dtype is x.dtype else _C.cast(value, x.dtype)
    pos = np.maximum(np.cumsum(m.reshape(-1)) - 1, 0)
    if value.size == 0:
        return _C.expand(x, shape) if x.shape != shape else _C.assign(x)
    flat = _C.reshape(v, [-1])
    picked = C.reshape_exact(_C.index_select(flat, _index_tensor(pos), 0), shape)
    xb = _C.expand(x, shape) if x.shape != shape else x
    return _C.where(_C._from_buffer(np.ascontiguousarray(m), bool_), picked, xb)


# ---- scattering into slices -----------------------------------------------------------------
def _value_as(api, v, x):
    C.tensor(api, "values", v)
    return v if v.dtype is x.dtype else _C.cast(v, x.dtype)


def select_scatter(x: Tensor, values: Tensor, axis: int, index: int,
                   name: str | None = None) -> Tensor:
    """x with its slice at index along axis replaced by values (of that slice's shape).

    Examples:
        >>> import oar
        >>> out = oar.select_scatter(oar.zeros([2, 3]), oar.ones([2]), 1, 1)
        >>> print(out.tolist())
        [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    """
    C.tensor("select_scatter", "x", x)
    if x.ndim == 0:
        raise ValueError("select_scatter(): argument 'x' must have at least 1 dimension")
    a = C.axis("select_scatter", "axis", axis, x.ndim)
    n = x.shape[a]
    i = C.integer("select_scatter", "index", index)
    if not -n <= i < n:
        raise IndexError(f"select_scatter(): index {i} is out of range for axis {a} of size {n}")
    i = i + n if i < 0 else i
    v = _value_as("select_scatter", values, x)
    want = x.shape[:a] + x.shape[a + 1:]
    if v.shape != want:
        raise ValueError(f"select_scatter(): argument 'values' must have the slice's shape "
                         f"{want}, but has {v.shape}")
    return _C.set_value_with_tensor(x, _C.unsqueeze(v, [a]), [a], [i], [i + 1], [1])


def slice_scatter(x: Tensor, value: Tensor, axes: Sequence[int], starts: Sequence[int],
                  ends: Sequence[int], strides: Sequence[int],
                  name: str | None = None) -> Tensor:
    """x with the strided slice (axes, starts, ends, strides) replaced by value, which is
    broadcast to the slice's shape."""
    C.tensor("slice_scatter", "x", x)
    v = _value_as("slice_scatter", value, x)
    lists = [_ints("slice_scatter", n, a) for n, a in (("axes", axes), ("starts", starts),
                                                       ("ends", ends), ("strides", strides))]
    if len({len(v) for v in lists}) != 1:
        raise ValueError("slice_scatter(): 'axes', 'starts', 'ends' and 'strides' must have "
                         "the same length")
    region = _C.strided_slice(x, *lists)
    if v.shape != region.shape:
        from ._manipulation import broadcast_to
        v = broadcast_to(v, region.shape)
    return _C.set_value_with_tensor(x, v, *lists)


def diagonal_scatter(x: Tensor, y: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1,
                     name: str | None = None) -> Tensor:
    """x with its diagonal (offset, axis1, axis2; as oar.diagonal reads it) replaced by y.

    Examples:
        >>> import oar
        >>> x = oar.arange(6.0).reshape([2, 3])
        >>> print(oar.diagonal_scatter(x, oar.ones([2])).tolist())
        [[1.0, 1.0, 2.0], [3.0, 1.0, 5.0]]
    """
    C.tensor("diagonal_scatter", "x", x)
    C.tensor("diagonal_scatter", "y", y)
    if x.ndim < 2:
        raise ValueError(f"diagonal_scatter(): argument 'x' must have at least 2 dimensions, "
                         f"but has shape {x.shape}")
    off = C.integer("diagonal_scatter", "offset", offset)
    a1 = C.axis("diagonal_scatter", "axis1", axis1, x.ndim)
    a2 = C.axis("diagonal_scatter", "axis2", axis2, x.ndim)
    if a1 == a2:
        raise ValueError(f"diagonal_scatter(): 'axis1' and 'axis2' must differ, both are {a1}")
    want = _C.diagonal(x, off, a1, a2).shape
    if y.shape != want:
        raise ValueError(f"diagonal_scatter(): argument 'y' must have the diagonal's shape "
                         f"{want}, but has {y.shape}")
    yv = y if y.dtype is x.dtype else _C.cast(y, x.dtype)
    length = want[-1]
    rest = [d for d in range(x.ndim) if d not in (a1, a2)]
    perm = [a1, a2] + rest
    xt = _C.transpose(x, perm)
    if y.size == 0:
        # Nothing to write; the diagonal's length alone can be 2**31 next to a 0.
        return _C.assign(x)
    rows = np.arange(length) + max(-off, 0)
    cols = np.arange(length) + max(off, 0)
    idx = _C._from_buffer(np.stack([rows, cols], -1).astype(np.int64), int64)
    yt = _C.transpose(yv, [yv.ndim - 1] + list(range(yv.ndim - 1)))
    new = _C.index_put_nd(xt, idx, yt, False)
    return _C.transpose(new, [perm.index(d) for d in range(x.ndim)])


_SCATTER_REDUCE = {"sum": "add", "prod": "mul", "mean": "mean", "amin": "amin",
                   "amax": "amax"}


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:  # noqa: A002
    """input with src added at the positions index along dim (put_along_axis 'add')."""
    from ._indexing import put_along_axis
    return put_along_axis(input, index, src, dim, "add", True, False)


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor,  # noqa: A002
                   reduce: str, *, include_self: bool = True) -> Tensor:
    """input with src combined in at the positions index along dim by reduce ('sum',
    'prod', 'mean', 'amin', 'amax'); include_self=False leaves input's values out of the
    positions written to."""
    from ._indexing import put_along_axis
    if reduce not in _SCATTER_REDUCE:
        raise ValueError(f"scatter_reduce(): argument 'reduce' must be one of "
                         f"{sorted(_SCATTER_REDUCE)}, but got {reduce!r}")
    return put_along_axis(input, index, src, dim, _SCATTER_REDUCE[reduce], include_self, False)


def shard_index(input: Tensor, index_num: int, nshards: int, shard_id: int,  # noqa: A002
                ignore_value: int = -1) -> Tensor:
    """Each label of input (integers in [0, index_num)) as an index within shard shard_id
    of nshards equal shards, or ignore_value when it belongs to another shard.

    Examples:
        >>> import oar
        >>> label = oar.to_tensor([[16], [1]])
        >>> print(oar.shard_index(label, 20, 2, 0).tolist())
        [[-1], [1]]
    """
    C.tensor("shard_index", "input", input)
    if input.dtype not in (int32, int64):
        raise TypeError(f"shard_index(): argument 'input' must be int32 or int64, but got "
                        f"{input.dtype.name}")
    index_num = C.integer("shard_index", "index_num", index_num)
    nshards = C.integer("shard_index", "nshards", nshards)
    shard_id = C.integer("shard_index", "shard_id", shard_id)
    ignore_value = C.integer("shard_index", "ignore_value", ignore_value)
    if nshards <= 0 or index_num <= 0:
        raise ValueError(f"shard_index(): 'index_num' ({index_num}) and 'nshards' ({nshards}) "
                         f"must be positive")
    if not 0 <= shard_id < nshards:
        raise ValueError(f"shard_index(): 'shard_id' ({shard_id}) must be in [0, {nshards})")
    size = (index_num + nshards - 1) // nshards
    lab = _C.cast(input, int64)
    shard = _C.floor_divide(lab, _C.full_like(lab, size))
    local = _C.remainder(lab, _C.full_like(lab, size))
    out = _C.where(_C.equal(shard, _C.full_like(shard, shard_id)), local,
                   _C.full_like(local, ignore_value))
    return out if input.dtype is int64 else _C.cast(out, input.dtype)


def unique_consecutive(x: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       axis: int | None = None, dtype: Any = "int64",
                       name: str | None = None) -> Any:
    """x with each run of equal consecutive elements (slices along axis; None: x
    flattened) kept once; with return_inverse the run number of every element, with
    return_counts the length of every run (in dtype).

    Examples:
        >>> import oar
        >>> out, counts = oar.unique_consecutive(oar.to_tensor([1, 1, 2, 2, 3, 1]),
        ...                                      return_counts=True)
        >>> print(out.tolist(), counts.tolist())
        [1, 2, 3, 1] [2, 2, 1, 1]
    """
    C.tensor("unique_consecutive", "x", x)
    d = convert_dtype(dtype)
    if d not in (int32, int64):
        raise TypeError(f"unique_consecutive(): argument 'dtype' must be int32 or int64, but "
                        f"got {d.name}")
    if axis is None:
        lines = _C.reshape(x, [-1]) if x.size else C.reshape_exact(x, [0])
        a = 0
    else:
        if x.ndim == 0:
            raise ValueError("unique_consecutive(): a 0-D tensor has no axis")
        a = C.axis("unique_consecutive", "axis", axis, x.ndim)
        lines = x
    n = lines.shape[a]
    if lines.size == 0 and n:
        return _unique_empty_slices(lines, a, n, d, return_inverse, return_counts)
    change = np.ones(n, dtype=bool)
    if n:
        arr = np.moveaxis(np.asarray(lines.numpy()), a, 0).reshape(n, -1)
        change[1:] = np.any(arr[1:] != arr[:-1], axis=1)
    starts = np.flatnonzero(change)
    out = _C.index_select(lines, _index_tensor(starts), a)
    if not (return_inverse or return_counts):
        return out
    res = [out]
    if return_inverse:
        res.append(_unique_ints(np.cumsum(change) - 1, d, counts=False))
    if return_counts:
        res.append(_unique_ints(np.diff(np.append(starts, n)), d, counts=True))
    return tuple(res)


def _past_int32(top, *, counts):
    """The error for a run number (counts False) or run length (counts True) of top that
    dtype int32 cannot hold."""
    if counts:
        return ValueError(f"unique_consecutive(): the run of {top} slices cannot be counted "
                          f"in argument 'dtype' int32")
    return ValueError(f"unique_consecutive(): the run number {top} cannot be held in argument "
                      f"'dtype' int32")


def _unique_ints(values, d, *, counts):
    """unique_consecutive's run numbers (counts False) or lengths (counts True), counted in
    int64, as a tensor of d, refusing rather than wrapping one past int32 when d is int32."""
    values = np.asarray(values, dtype=np.int64)
    top = int(values.max()) if values.size else 0
    if d is int32 and top > np.iinfo(np.int32).max:
        raise _past_int32(top, counts=counts)
    t = _C._from_buffer(values, int64)
    return t if d is int64 else _C.cast(t, d)


def _unique_empty_slices(lines, a, n, d, return_inverse, return_counts):
    """unique_consecutive of n empty slices (a 0 in another dimension): all are equal, so
    one run of length n, found without the per-slice arrays n (up to 2**62) would need."""
    out = _C.slice(lines, [a], [0], [1])
    if not (return_inverse or return_counts):
        return out
    res = [out]
    if return_inverse:
        check_fits("unique_consecutive():", f"the inverse of {n} slices", n * d.itemsize)
        res.append(_C.full([n], 0, d))
    if return_counts:
        if d is int32 and n > np.iinfo(np.int32).max:
            raise _past_int32(n, counts=True)
        res.append(_C.full([1], n, d))
    return tuple(res)


# ---- put_along_axis with the reductions its kernel lacks -------------------------------------
_COMPOSED_REDUCE = ("mul", "multiply", "mean", "amin", "amax")


def _values_to(api, values, arr, dom):
    from ._manipulation import broadcast_to
    v = values if values.dtype is arr.dtype else _C.cast(values, arr.dtype)
    try:
        return broadcast_to(v, dom) if v.shape != dom else v
    except ValueError:
        raise ValueError(f"{api}(): argument 'values' of shape {values.shape} does not "
                         f"broadcast to the indexed shape {dom}") from None


def put_along_axis_reduce(api, arr, indices, values, axis, reduce, include_self, broadcast):
    """put_along_axis for reduce 'mul'/'multiply', 'mean', 'amin', 'amax', composed of
    differentiable ops: the written positions are found first; 'mean' divides a scattered
    sum by the count (truncating for integers, as Paddle); the others reduce the values of
    each written position over a [positions, values] mask (memory grows with their
    product)."""
    a = C.axis(api, "axis", axis, max(arr.ndim, 1))
    if indices.ndim != arr.ndim:
        raise ValueError(f"{api}(): argument 'indices' must have the rank of 'arr' "
                         f"({arr.ndim}), but has shape {indices.shape}")
    dom = list(indices.shape)
    for d in range(arr.ndim):
        if d == a:
            continue
        if broadcast:
            if indices.shape[d] not in (1, arr.shape[d]):
                raise ValueError(f"{api}(): argument 'indices' of shape {indices.shape} does not "
                                 f"broadcast to 'arr' of shape {arr.shape} at dimension {d}")
            dom[d] = arr.shape[d]
        elif indices.shape[d] > arr.shape[d]:
            raise ValueError(f"{api}(): argument 'indices' of shape {indices.shape} is larger "
                             f"than 'arr' of shape {arr.shape} at dimension {d}")
    if 0 in dom:
        # Nothing is written (an empty arr always has empty indices). Numpy cannot even hold
        # an empty [0, 2**62] index array, and np.indices below would build a range for
        # every dimension of dom: answer before either.
        _values_to(api, values, arr, dom)
        return _C.assign(arr)
    idx = np.broadcast_to(np.asarray(indices.numpy(), dtype=np.int64), dom)
    n = arr.shape[a]
    bad = idx[(idx < -n) | (idx >= n)]
    if bad.size:
        raise IndexError(f"{api}(): index {int(bad.reshape(-1)[0])} is out of bounds for axis "
                         f"{a} with size {n}")
    idx = np.where(idx < 0, idx + n, idx)
    v = _values_to(api, values, arr, dom)
    coords = list(np.indices(dom, sparse=True))
    coords[a] = idx
    pos = np.ravel_multi_index(np.broadcast_arrays(*coords), arr.shape).reshape(-1)
    flat_arr = _C.reshape(arr, [-1])
    flat_v = _C.reshape(v, [-1]) if v.size else C.reshape_exact(v, [0])
    if pos.size == 0:
        return _C.assign(arr)
    uniq, inv = np.unique(pos, return_inverse=True)
    u_idx = _C._from_buffer(uniq.astype(np.int64).reshape(-1, 1), int64)
    floating = arr.dtype.is_floating_point or arr.dtype.is_complex
    if reduce == "mean":
        counts = np.bincount(inv, minlength=uniq.size).astype(np.float64)
        group = _C._from_buffer(inv.astype(np.int64), int64)
        sums = _C.index_add(_C.full([uniq.size], 0, arr.dtype), group, 0, flat_v)
        old = _C.gather(flat_arr, _C._from_buffer(uniq.astype(np.int64), int64), 0)
        if include_self:
            sums = _C.add(sums, old)
            counts = counts + 1
        cnt = _C._from_buffer(counts, float64 if not floating else arr.dtype
                              if arr.dtype.is_floating_point else float64)
        if floating:
            r = _C.divide(sums, _C.cast(cnt, sums.dtype))
        else:
            r = _C.cast(_C.trunc(_C.divide(_C.cast(sums, float64), cnt)), arr.dtype)
    else:
        mask = _C._from_buffer(inv[None, :] == np.arange(uniq.size)[:, None], bool_)
        wide = _C.expand(_C.unsqueeze(flat_v, [0]), [uniq.size, pos.size])
        old = _C.gather(flat_arr, _C._from_buffer(uniq.astype(np.int64), int64), 0)
        if reduce in ("mul", "multiply"):
            r = _C.prod(_C.where(mask, wide, _C.full_like(wide, 1)), [1], False, None)
            if include_self:
                r = _C.multiply(r, old)
        else:
            if floating:
                fill = -math.inf if reduce == "amax" else math.inf
            else:
                info = np.iinfo(arr.dtype.name) if arr.dtype is not bool_ else None
                fill = (info.min if reduce == "amax" else info.max) if info else \
                    (reduce != "amax")
            red = _C.amax if reduce == "amax" else _C.amin
            r = red(_C.where(mask, wide, _C.full_like(wide, fill)), [1], False)
            if include_self:
                r = (_C.maximum if reduce == "amax" else _C.minimum)(r, old)
    out = _C.index_put_nd(flat_arr, u_idx, r, False)
    return C.reshape_exact(out, arr.shape)
