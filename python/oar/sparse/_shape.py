"""Positions of sparse tensors (docs/sparse.md): coalesce, transpose, reshape,
slice, sum, mask_as, is_same_shape. The index arithmetic runs on the int64
indices outside the graph; the values move through differentiable dense ops."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from .. import _C
from ..framework.dtype import convert_dtype, int64
from ..framework.typing import AxisLike, DTypeLike
from ..tensor.manipulation import stack
from ._base import check_sparse, check_tensor, normalize_axis
from ..tensor.creation import to_tensor

Tensor = _C.Tensor

__all__ = ["coalesce", "transpose", "reshape", "slice", "sum", "mask_as", "is_same_shape"]


def _to_tensor(values):
    return to_tensor(values, dtype="int64")


def _coo(x, api):
    """x as COO (a CSR tensor converts; the caller converts the result back)."""
    return x if x.is_sparse_coo() else _C.sparse_to_coo(x, x.ndim)


def _back(out, like):
    return _C.sparse_to_csr(out) if like.is_sparse_csr() else out


def _positions(indices, sizes):
    """Row-major linear positions of index columns over dims of `sizes` ([nnz] int64)."""
    strides, s = [], 1
    for n in reversed(sizes):
        strides.append(s)
        s *= n
    strides.reverse()
    w = _C.reshape(_to_tensor(strides), [len(sizes), 1])
    return _C.sum(indices * w, [0])


def _unravel(pos, sizes):
    rows, rem = [], pos
    for n in reversed(sizes):
        rows.append(rem % n)
        rem = _C.floor_divide(rem, _C.full_like(rem, n, int64))
    return stack(list(reversed(rows)), 0) if rows else _C.reshape(pos, [0, pos.shape[0]])


def coalesce(x: Tensor, name: str | None = None) -> Tensor:
    """x with its entries sorted by position and repeated positions summed.

    Args:
        x (Tensor): a sparse COO tensor.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: the coalesced COO tensor.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0, 1], [1, 1, 2]], [1.0, 2.0, 3.0])
        >>> oar.sparse.coalesce(x).values().tolist()
        [3.0, 3.0]
    """
    check_sparse("coalesce", "x", x)
    if not x.is_sparse_coo():
        raise TypeError(
            "coalesce(): argument 'x' must be a sparse COO tensor (a CSR tensor has "
            "no repeated positions to merge)"
        )
    return _C.sparse_coalesce(x)


def transpose(x: Tensor, perm: Sequence[int], name: str | None = None) -> Tensor:
    """x with its dimensions permuted. A COO tensor permutes its sparse and its
    dense dimensions each among themselves; a CSR tensor is 2-D or 3-D.

    Args:
        x (Tensor): a sparse COO or CSR tensor.
        perm (list|tuple): the new order of the dimensions.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor of x's format.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0., 1.], [2., 0.]]).to_sparse_csr()
        >>> oar.sparse.transpose(x, [1, 0]).to_dense().tolist()
        [[0.0, 2.0], [1.0, 0.0]]
    """
    check_sparse("transpose", "x", x)
    return _C.sparse_transpose(x, list(perm))


def _resolve_shape(api, x, shape):
    shape = list(shape.tolist() if isinstance(shape, Tensor) else shape)
    out, infer = [], None
    for i, s in enumerate(shape):
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise TypeError(f"{api}(): shape entries must be ints, got {shape}")
        if s == 0:
            if i >= x.ndim:
                raise ValueError(f"{api}(): shape[{i}] is 0 (copy) but x has {x.ndim} dimensions")
            s = x.shape[i]
        elif s == -1:
            if infer is not None:
                raise ValueError(f"{api}(): shape {shape} has more than one -1")
            infer = i
        elif s < 0:
            raise ValueError(f"{api}(): shape {shape} has a negative size")
        out.append(int(s))
    total = 1
    for s in x.shape:
        total *= s
    if infer is not None:
        known = 1
        for i, s in enumerate(out):
            if i != infer:
                known *= s
        if known == 0 or total % known:
            raise ValueError(f"{api}(): cannot reshape {list(x.shape)} to {shape}")
        out[infer] = total // known
    n = 1
    for s in out:
        n *= s
    if n != total:
        raise ValueError(f"{api}(): cannot reshape {list(x.shape)} ({total} elements) to {shape}")
    return out


def reshape(x: Tensor, shape: Sequence[int] | Tensor, name: str | None = None) -> Tensor:
    """x with a new shape (0 copies a size of x, -1 is inferred). The dense
    dimensions of a COO tensor stay as they are; only the sparse ones change.

    Args:
        x (Tensor): a sparse COO or CSR tensor.
        shape (list|tuple): the new shape.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor of x's format.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0., 1.], [2., 0.]]).to_sparse_coo(2)
        >>> oar.sparse.reshape(x, [4]).indices().tolist()
        [[1, 2]]
    """
    check_sparse("reshape", "x", x)
    new_shape = _resolve_shape("reshape", x, shape)
    c = _coo(x, "reshape")
    sd, dd = c.sparse_dim(), c.dense_dim()
    dense_part = list(c.shape[sd:])
    if dd and new_shape[len(new_shape) - dd :] != dense_part:
        raise ValueError(
            f"reshape(): the dense dimensions {dense_part} of x must stay the last "
            f"ones of the new shape, got {new_shape}"
        )
    sparse_new = new_shape[: len(new_shape) - dd]
    if not sparse_new:
        raise ValueError("reshape(): the new shape must keep at least one sparse dimension")
    pos = _positions(_C.sparse_indices(c), list(c.shape[:sd]))
    out = _C.sparse_coo_tensor(_unravel(pos, sparse_new), _C.sparse_values(c), new_shape)
    return _back(out, x)


def slice(  # noqa: A001 - Paddle's name
    x: Tensor,
    axes: Sequence[int],
    starts: Sequence[int],
    ends: Sequence[int],
    name: str | None = None,
) -> Tensor:
    """The part of x in [starts, ends) along axes (negative values count from the end).

    Args:
        x (Tensor): a sparse COO or CSR tensor.
        axes (list|tuple): the sliced dimensions.
        starts (list|tuple): the first position kept, per axis.
        ends (list|tuple): one past the last position kept, per axis.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor of x's format.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[4., 0., 7.], [0., 5., 0.]]).to_sparse_coo(2)
        >>> oar.sparse.slice(x, [1], [1], [3]).to_dense().tolist()
        [[0.0, 7.0], [5.0, 0.0]]
    """
    check_sparse("slice", "x", x)
    axes, starts, ends = list(axes), list(starts), list(ends)
    if not len(axes) == len(starts) == len(ends):
        raise ValueError(
            f"slice(): axes, starts and ends must have equal lengths, got "
            f"{len(axes)}, {len(starts)} and {len(ends)}"
        )
    c = _coo(x, "slice")
    sd = c.sparse_dim()
    shape = list(c.shape)
    bounds = {}
    for a, s, e in zip(axes, starts, ends):
        a = normalize_axis("slice", a, c.ndim)
        n = shape[a]
        s = max(0, min(n, s + n if s < 0 else s))
        e = max(s, min(n, e + n if e < 0 else e))
        bounds[a] = (s, e)
        shape[a] = e - s
    indices, values = _C.sparse_indices(c), _C.sparse_values(c)
    sparse_axes = sorted(a for a in bounds if a < sd)
    if sparse_axes:
        keep = None
        for a in sparse_axes:
            s, e = bounds[a]
            row = indices[a]
            k = _C.logical_and(row >= s, row < e)
            keep = k if keep is None else _C.logical_and(keep, k)
        kept = _C.reshape(_C.nonzero(keep), [-1])
        shift = _C.reshape(
            _to_tensor([bounds[a][0] if a in bounds else 0 for a in range(sd)]), [sd, 1]
        )
        indices = _C.index_select(indices, kept, 1) - shift
        values = _C.index_select(values, kept, 0)
    for a in sorted(a for a in bounds if a >= sd):
        s, e = bounds[a]
        values = _C.slice(values, [a - sd + 1], [s], [e])
    return _back(_C.sparse_coo_tensor(indices, values, shape), x)


def sum(  # noqa: A001 - Paddle's name
    x: Tensor,
    axis: AxisLike = None,
    dtype: DTypeLike | None = None,
    keepdim: bool = False,
    name: str | None = None,
) -> Tensor:
    """The sum of x's elements over axis (all when None), as a sparse tensor
    (Paddle's shapes: summing every sparse dimension of a COO tensor keeps one
    sparse dimension of size 1; a CSR tensor sums over all or over the last axis).

    Args:
        x (Tensor): a sparse COO or CSR tensor.
        axis (int|list|tuple, optional): the dimensions summed. Default: all.
        dtype (str|oar.dtype, optional): the result's dtype (default: x's, integers
            and bool giving int64).
        keepdim (bool, optional): keep the summed dimensions with size 1.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor of x's format.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[-2., 0.], [1., 2.]]).to_sparse_coo(1)
        >>> oar.sparse.sum(x, axis=-1).values().tolist()
        [-2.0, 3.0]
    """
    check_sparse("sum", "x", x)
    if x.is_sparse_csr():
        return _sum_csr(x, axis, dtype)
    return _sum_coo(x, axis, dtype, keepdim)


def _sum_dtype(x, dtype):
    if dtype is not None:
        return convert_dtype(dtype)
    return x.dtype if x.dtype.is_floating_point or x.dtype.is_complex else int64


def _axes(api, axis, ndim):
    if axis is None:
        return None
    axes = [axis] if isinstance(axis, numbers.Integral) else list(axis)
    return sorted({normalize_axis(api, a, ndim) for a in axes})


def _sum_coo(x, axis, dtype, keepdim):
    nd, sd = x.ndim, x.sparse_dim()
    values = _C.cast(_C.sparse_values(x), _sum_dtype(x, dtype))
    axes = _axes("sum", axis, nd)
    if axes is None:
        total = _C.sum(values)
        if keepdim:
            return _C.sparse_coo_tensor(
                _C.full([sd, 1], 0, int64), _C.reshape(total, [1] * (1 + nd - sd)), [1] * nd
            )
        return _C.sparse_coo_tensor(_C.full([1, 1], 0, int64), _C.reshape(total, [1]), [1])
    dense_axes = [a - sd + 1 for a in axes if a >= sd]
    if dense_axes:
        values = _C.sum(values, dense_axes, keepdim=keepdim)
    sparse_axes = [a for a in axes if a < sd]
    shape = [1 if a in axes else s for a, s in enumerate(x.shape)]
    if not keepdim:
        shape = [s for a, s in enumerate(x.shape) if a not in axes]
    indices = _C.sparse_indices(x)
    if not sparse_axes:
        return _C.sparse_coo_tensor(indices, values, shape)
    if keepdim:
        keep = _C.reshape(_to_tensor([0 if d in sparse_axes else 1 for d in range(sd)]), [sd, 1])
        indices = indices * keep
    else:
        kept = [d for d in range(sd) if d not in sparse_axes]
        if kept:
            indices = _C.index_select(indices, _to_tensor(kept), 0)
        else:  # every sparse dimension summed: one of size 1 stays (Paddle's shape)
            indices = _C.full([1, indices.shape[1]], 0, int64)
            shape = [1] + shape
    return _C.sparse_coalesce(_C.sparse_coo_tensor(indices, values, shape))


def _sum_csr(x, axis, dtype):
    if axis is not None and _axes("sum", axis, x.ndim) != [x.ndim - 1]:
        raise ValueError(
            f"sum(): a CSR tensor sums over all elements or over its last axis "
            f"({x.ndim - 1} or -1), got axis {axis}"
        )
    c = _C.sparse_to_coo(x, x.ndim)
    values = _C.cast(_C.sparse_values(c), _sum_dtype(x, dtype))
    if axis is None:
        total = _C.reshape(_C.sum(values), [1])
        return _C.sparse_to_csr(_C.sparse_coo_tensor(_C.full([2, 1], 0, int64), total, [1, 1]))
    indices = _C.sparse_indices(c) * _C.reshape(_to_tensor([1] * (x.ndim - 1) + [0]), [x.ndim, 1])
    shape = list(x.shape[:-1]) + [1]
    return _C.sparse_to_csr(_C.sparse_coo_tensor(indices, values, shape))


def mask_as(x: Tensor, mask: Tensor, name: str | None = None) -> Tensor:
    """The values of a dense x at the stored positions of a sparse mask.

    Args:
        x (Tensor): a dense tensor.
        mask (Tensor): a sparse COO or CSR tensor of x's shape.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor with mask's format and positions.

    Examples:
        >>> import oar
        >>> mask = oar.to_tensor([[1., 0.], [0., 1.]]).to_sparse_coo(2)
        >>> oar.sparse.mask_as(oar.to_tensor([[5., 6.], [7., 8.]]), mask).values().tolist()
        [5.0, 8.0]
    """
    check_tensor("mask_as", "x", x)
    check_sparse("mask_as", "mask", mask)
    if x.is_sparse():
        raise TypeError("mask_as(): argument 'x' must be a dense tensor")
    return _C.sparse_with_values(mask, _C.sparse_mask_values(x, mask))


def is_same_shape(x: Tensor, y: Tensor) -> bool:
    """Whether two tensors (dense or sparse) have the same shape.

    Args:
        x (Tensor): a tensor.
        y (Tensor): a tensor.

    Returns:
        bool: x.shape == y.shape.

    Examples:
        >>> import oar
        >>> oar.sparse.is_same_shape(oar.ones([2, 3]), oar.ones([2, 3]).to_sparse_csr())
        True
    """
    check_tensor("is_same_shape", "x", x)
    check_tensor("is_same_shape", "y", y)
    return list(x.shape) == list(y.shape)
