"""Searching and sorting (Paddle's paddle/tensor/search.py): where, nonzero, argwhere, sort,
msort, topk, kthvalue, mode, searchsorted, bucketize, index_sample. The ops with several
results are composed of declared ops that compute int64 positions (topk_index, ...) and
along_axis_gather, whose backward scatters the gradient to those positions."""

from __future__ import annotations

import numbers
from typing import Any, Literal, overload

from .. import _C
from ..framework import check as C
from ..framework.dtype import bool_, convert_dtype, float32, float64, int32, int64
from ..framework.out import api_write_out
from ..framework.promote import common
from ..framework.typing import AxisLike

Tensor = _C.Tensor

__all__ = [
    "where",
    "nonzero",
    "topk",
    "sort",
    "kthvalue",
    "mode",
    "searchsorted",
    "bucketize",
    "msort",
    "argwhere",
    "index_sample",
]


@overload
def where(
    condition: Any, x: None = None, y: None = None, name: str | None = None
) -> tuple[Tensor, ...]: ...
@overload
def where(condition: Any, x: Any, y: Any, name: str | None = None) -> Tensor: ...
def where(
    condition: Any, x: Any = None, y: Any = None, name: str | None = None
) -> Tensor | tuple[Tensor, ...]:
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    # Paddle accepts scalars for x and y. One scalar becomes a tensor like the other
    # operand; two become tensors of condition's shape, of the default float dtype
    # (float32), int64 if both are ints, bool if both are bools.
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        C.tensor("where", "condition", condition)
        xv, yv = C.number("where", "x", x), C.number("where", "y", y)
        if isinstance(xv, bool) and isinstance(yv, bool):
            dtype = bool_
        elif isinstance(xv, numbers.Integral) and isinstance(yv, numbers.Integral):
            dtype = int64
        else:
            dtype = float32
        shape = condition.shape
        return _C.where(condition, _C.full(shape, xv, dtype), _C.full(shape, yv, dtype))
    if not isinstance(x, Tensor):
        x = _C.full_like(y, float(C.number("where", "x", x)))
    if not isinstance(y, Tensor):
        y = _C.full_like(x, float(C.number("where", "y", y)))
    return _C.where(condition, x, y)


@overload
def nonzero(x: Tensor, as_tuple: Literal[False] = False) -> Tensor: ...
@overload
def nonzero(x: Tensor, as_tuple: Literal[True]) -> tuple[Tensor, ...]: ...
@overload
def nonzero(x: Tensor, as_tuple: bool) -> Tensor | tuple[Tensor, ...]: ...
def nonzero(x: Tensor, as_tuple: Any = False) -> Tensor | tuple[Tensor, ...]:
    C.tensor("nonzero", "x", x)
    if not as_tuple:
        return _C.nonzero(x)
    # as_tuple: one index tensor per dim; a 0-d x counts as 1-d (torch's rule), so
    # the tuple is never empty.
    if x.ndim == 0:
        x = _C.reshape(x, [1])
    out = _C.nonzero(x)
    return tuple(_C.reshape(_C.slice(out, [1], [k], [k + 1]), [-1]) for k in range(x.ndim))


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
def topk(
    x: Tensor,
    k: int,
    axis: AxisLike | None = None,
    largest: bool = True,
    sorted: Any = True,
    name: str | None = None,  # noqa: A002 - Paddle's name
) -> tuple[Tensor, Tensor]:
    """The k largest (smallest) elements along axis (default -1) and their int64 positions.

    Returns (values, indices); values are differentiable."""
    C.tensor("topk", "x", x)
    k = C.integer("topk", "k", k)
    a = -1 if axis is None else C.integer("topk", "axis", axis)
    idx = _C.topk_index(x, k, a, bool(largest), bool(sorted))
    return _gather(x, idx, a), idx


def sort(
    x: Tensor,
    axis: AxisLike = -1,
    descending: bool = False,
    stable: bool = False,
    name: str | None = None,
) -> Tensor:
    """x sorted along axis (NaN last; descending puts NaN first); equal values keep their
    order. Differentiable: the gradient goes back to each value's position."""
    C.tensor("sort", "x", x)
    a = C.integer("sort", "axis", axis)
    return _gather(x, _C.argsort(x, a, bool(descending), bool(stable)), a)


def kthvalue(
    x: Tensor, k: int, axis: AxisLike | None = None, keepdim: bool = False, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """The k-th smallest element (k from 1) along axis (default -1) and its int64 position.

    Returns (values, indices)."""
    C.tensor("kthvalue", "x", x)
    k = C.integer("kthvalue", "k", k)
    a = -1 if axis is None else C.integer("kthvalue", "axis", axis)
    idx = _C.kthvalue_index(x, k, a, True)
    return (_squeeze_if(_gather(x, idx, a), a, keepdim, x), _squeeze_if(idx, a, keepdim, x))


def mode(
    x: Tensor, axis: AxisLike = -1, keepdim: bool = False, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """The most frequent value along axis (the smallest of equally frequent ones) and an
    int64 position of it. Returns (values, indices)."""
    C.tensor("mode", "x", x)
    a = C.integer("mode", "axis", axis)
    idx = _C.mode_index(x, a, True)
    return (_squeeze_if(_gather(x, idx, a), a, keepdim, x), _squeeze_if(idx, a, keepdim, x))


# ---- searching ------------------------------------------------------------------------------
def searchsorted(
    sorted_sequence: Tensor,
    values: Tensor,
    out_int32: bool = False,
    right: bool = False,
    name: str | None = None,
    *,
    side: str | None = None,
    out: Tensor | None = None,
    sorter: Tensor | None = None,
) -> Tensor:
    """For each value, where it goes in the last dimension of sorted_sequence (ascending;
    1-D, or with values' leading dimensions) to keep it sorted: the first such index, or
    the last with right=True (side='right'). sorter: the indices sorting an unsorted
    sequence. int64 results (int32 with out_int32).

    Examples:
        >>> import oar
        >>> seq = oar.to_tensor([1, 3, 5, 7, 9])
        >>> print(oar.searchsorted(seq, oar.to_tensor([3, 6, 9])).tolist())
        [1, 3, 4]
        >>> print(oar.searchsorted(seq, oar.to_tensor([3, 6, 9]), right=True).tolist())
        [2, 3, 5]
    """
    C.tensor("searchsorted", "sorted_sequence", sorted_sequence)
    C.tensor("searchsorted", "values", values)
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(
                f"searchsorted(): argument 'side' must be 'left' or 'right', but got {side!r}"
            )
        if right and side == "left":
            raise ValueError("searchsorted(): right=True contradicts side='left'")
        right = side == "right"
    if sorter is not None:
        C.tensor("searchsorted", "sorter", sorter)
        sorted_sequence = _C.take_along_axis(sorted_sequence, sorter, -1, False)
    seq, vals = common("searchsorted", sorted_sequence, values)
    if seq.dtype is not vals.dtype:  # two floats: the op promotes, but both must match
        seq, vals = (_C.cast(t, float64) if t.dtype is not float64 else t for t in (seq, vals))
    res = _C.searchsorted_index(seq, vals, bool(out_int32), bool(right))
    return api_write_out("searchsorted", out, res)


def bucketize(
    x: Tensor,
    sorted_sequence: Tensor,
    out_int32: bool = False,
    right: bool = False,
    name: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The bucket of each element of x among the boundaries of a 1-D sorted_sequence
    (searchsorted with the arguments swapped).

    Examples:
        >>> import oar
        >>> seq = oar.to_tensor([2, 4, 8, 16], dtype='int32')
        >>> print(oar.bucketize(oar.to_tensor([[0, 8], [4, 17]], dtype='int32'), seq).tolist())
        [[0, 2], [1, 4]]
    """
    C.tensor("bucketize", "sorted_sequence", sorted_sequence)
    if sorted_sequence.ndim != 1:
        raise ValueError(
            f"bucketize(): argument 'sorted_sequence' must be 1-D, but got shape "
            f"{sorted_sequence.shape}"
        )
    return searchsorted(sorted_sequence, x, out_int32, right, out=out)


def msort(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """input sorted along its first dimension."""
    C.tensor("msort", "input", input)
    if input.ndim == 0:
        return api_write_out("msort", out, _C.assign(input))
    return api_write_out("msort", out, sort(input, 0))


def argwhere(input: Tensor) -> Tensor:  # noqa: A002
    """The int64 coordinates [N, ndim] of the non-zero elements of input, row-major."""
    return _C.nonzero(C.tensor("argwhere", "input", input))


def index_sample(x: Tensor, index: Tensor) -> Tensor:
    """Row i of the result holds x[i, index[i, j]] ([B, N] x, [B, K] index)."""
    C.tensor("index_sample", "x", x)
    C.tensor("index_sample", "index", index)
    if x.ndim != 2 or index.ndim != 2 or x.shape[0] != index.shape[0]:
        raise ValueError(
            f"index_sample(): 'x' [B, N] and 'index' [B, K] must be 2-D with the "
            f"same first dimension, but got {x.shape} and {index.shape}"
        )
    if index.dtype not in (int32, int64):
        raise TypeError(
            f"index_sample(): argument 'index' must be int32 or int64, but got {index.dtype.name}"
        )
    return _C.take_along_axis(x, index, 1, False)
