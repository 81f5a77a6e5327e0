"""Indexing: tensor[index] reads and writes (Tensor.__getitem__/__setitem__, numpy's
semantics), and the functions that put, take or scatter by index: put_along_axis,
index_put, take, take_along_dim, index_fill, masked_scatter, select/slice/diagonal
scatter, scatter_add, scatter_reduce."""

from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

import numpy as np

from .. import _C
from ..framework import check as C
from ..framework import check as _check
from ..framework import out as _out
from ..framework.check import _aliases
from ..framework.dtype import bool_, convert_dtype, float64, int32, int64
from ..framework.memory import check_fits
from ..framework.typing import AxisLike, Tensor, TensorLike
from .manipulation import _broadcast_shape, _index_tensor, _ints, broadcast_to


__all__ = [
    "put_along_axis",
    "put_along_axis_",
    "nd_index",
    "index_put",
    "index_put_",
    "take",
    "index_fill",
    "masked_scatter",
    "select_scatter",
    "slice_scatter",
    "diagonal_scatter",
    "scatter_add",
    "scatter_reduce",
    "put_along_axis_reduce",
    "take_along_dim",
]


# ---- indexing -------------------------------------------------------------------------
def _to_index_tensor(v):
    if isinstance(v, Tensor):
        return v
    try:
        arr = np.asarray(v)
    except ValueError as e:  # ragged nested lists
        raise IndexError(f"an index list must be rectangular: {e}") from None
    if isinstance(v, (list, tuple)) and arr.size == 0:
        arr = arr.astype(np.int64)  # [] is an empty integer index (numpy), not float64
    if arr.dtype == bool:
        return _C._from_buffer(arr, bool_)
    if arr.dtype.kind not in "iu":
        raise IndexError(
            f"only integers, slices, None, Ellipsis and integer or boolean "
            f"arrays are valid indices, got an array of {arr.dtype}"
        )
    return _C._from_buffer(arr.astype(np.int64), int64)


def _parse_index(x, index):
    """Splits an index into basic parts (slices, ints, None) and advanced parts.

    Returns (axes, starts, ends, steps, counts, int_axes, none_positions, advanced,
    adjacent) where advanced is a list of (input axis, integer Tensor) pairs; a boolean
    mask becomes one integer index per dimension it covers. As in numpy, an int counts
    as advanced (a 0-d index) when the index holds any array/list/mask; `adjacent` says
    whether the advanced entries sit next to each other in the index (no slice, None or
    Ellipsis between them), which decides where their dims go in the result."""
    if not isinstance(index, tuple):
        index = (index,)
    items = []
    for it in index:
        if (
            isinstance(it, (list, np.ndarray))
            or (isinstance(it, Tensor) and it.ndim > 0)
            or (isinstance(it, Tensor) and it.dtype is bool_)
        ):
            items.append(_to_index_tensor(it))
        elif isinstance(it, Tensor):
            if it.dtype is bool_:
                items.append(it)
            else:
                items.append(int(it.item()))
        elif isinstance(it, (bool, np.bool_)):
            raise IndexError("a Python bool is not a valid index; use a boolean Tensor mask")
        else:
            items.append(it)
    has_adv = any(isinstance(it, Tensor) for it in items)

    def is_adv(it):
        return isinstance(it, Tensor) or (
            has_adv and not isinstance(it, (slice, type(None))) and it is not Ellipsis
        )

    where_adv = [k for k, it in enumerate(items) if is_adv(it)]
    adjacent = not where_adv or where_adv[-1] - where_adv[0] + 1 == len(where_adv)
    consumed = sum(
        it.ndim if isinstance(it, Tensor) and it.dtype is bool_ else 1
        for it in items
        if it is not None and it is not Ellipsis
    )
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > x.ndim:
        raise IndexError(
            f"too many indices for a tensor of dimension {x.ndim} ({consumed} were indexed)"
        )
    expanded = []
    for it in items:
        if it is Ellipsis:
            expanded += [slice(None)] * (x.ndim - consumed)
        else:
            expanded.append(it)
    axes, starts, ends, steps, int_axes, nones, advanced = [], [], [], [], [], [], []
    counts = []  # the number of elements each entry of axes selects
    d = 0
    out_pos = 0  # position in the result of basic indexing
    for it in expanded:
        if it is None:
            nones.append(out_pos)
            out_pos += 1
            continue
        if isinstance(it, Tensor):
            if it.dtype is bool_:
                if it.ndim == 0:
                    raise IndexError("a 0-d boolean mask is not supported as an index")
                want = x.shape[d : d + it.ndim]
                if list(it.shape) != list(want):
                    raise IndexError(
                        f"the boolean mask of shape {it.shape} does not match the "
                        f"indexed dimensions {want}"
                    )
                coords = _C.nonzero(it)
                for k in range(it.ndim):
                    col = _C.slice(coords, [1], [k], [k + 1])
                    advanced.append((d + k, _C.reshape(col, [-1])))
                d += it.ndim
                out_pos += it.ndim
            else:
                if it.dtype not in (int64, convert_dtype("int32")):
                    raise IndexError(
                        f"tensors used as indices must be integer or bool, not {it.dtype.name}"
                    )
                advanced.append((d, it))
                d += 1
                out_pos += 1
            continue
        size = x.shape[d]
        if isinstance(it, slice):
            start, stop, step = it.indices(size)
            count = len(range(start, stop, step))
            if count == 0:
                start, stop, step = 0, 0, 1
            elif step < 0:
                stop = start + step * count
                if stop < 0:
                    stop = -size - 1  # "before index 0", which -1 would not mean
            if (start, stop, step) != (0, size, 1):
                axes.append(d)
                starts.append(start)
                ends.append(stop)
                steps.append(step)
                counts.append(count)
            d += 1
            out_pos += 1
        elif isinstance(it, numbers.Integral) or hasattr(it, "__index__"):
            i = it.__index__()
            if i < -size or i >= size:
                raise IndexError(f"index {i} is out of bounds for axis {d} with size {size}")
            i = i + size if i < 0 else i
            if has_adv:  # a 0-d advanced index: its place in the result is numpy's
                advanced.append((d, _C._from_buffer(np.array(i, np.int64), int64)))
                d += 1
                out_pos += 1
                continue
            axes.append(d)
            starts.append(i)
            ends.append(i + 1)
            steps.append(1)
            counts.append(1)
            int_axes.append(d)
            d += 1
        else:
            raise IndexError(
                f"only integers, slices, None, Ellipsis and integer or boolean "
                f"arrays are valid indices, got {type(it).__name__}"
            )
    return axes, starts, ends, steps, counts, int_axes, nones, advanced, adjacent


_reshape = _check.reshape_exact  # reshape() alone reads a 0 as "keep this dimension"


def _basic(x, axes, starts, ends, steps, int_axes, nones):
    out = _C.strided_slice(x, axes, starts, ends, steps) if axes else x
    if int_axes:
        out = _C.squeeze(out, int_axes) if out.ndim else out
        # squeeze ignores non-1 dims only; the int axes are all size 1 here
    if nones:
        out = _C.unsqueeze(out, nones)
    return out


def _result_axis(axis, int_axes, nones):
    """Where input axis `axis` sits after ints are squeezed and Nones inserted."""
    a = axis - sum(1 for i in int_axes if i < axis)
    for p in sorted(nones):
        if p <= a:
            a += 1
    return a


def _broadcast_shapes(shapes):
    return list(np.broadcast_shapes(*[tuple(s) for s in shapes]))


def _index_broadcast(api, shapes):
    """The broadcast shape of the index arrays (from their shapes alone), refusing one
    whose int64 linear index (and a copy of each index) would not fit in memory."""
    ndim = max(len(s) for s in shapes)
    bshape = [1] * ndim
    for s in shapes:  # numpy's rule, in Python ints (numpy refuses sizes past int64)
        for i, n in enumerate(s, ndim - len(s)):
            if n != 1 and bshape[i] not in (1, n):
                raise IndexError(
                    f"{api}(): shape mismatch: indexing arrays of shapes "
                    f"{[list(s) for s in shapes]} could not be broadcast together"
                )
            bshape[i] = n if n != 1 else bshape[i]
    if math.prod(n for n in bshape if n) >= 2**63:
        raise IndexError(
            f"{api}(): indexing arrays of shapes {[list(s) for s in shapes]} "
            f"broadcast to {bshape}, whose dims other than 0 multiply past 2^63"
        )
    if 0 not in bshape:
        check_fits(
            f"{api}():",
            f"the index arrays broadcast to shape {bshape}",
            math.prod(bshape) * 8 * (len(shapes) + 1),
        )
    return bshape


def __getitem__(self: Tensor, index: Any) -> Tensor:
    axes, starts, ends, steps, _, int_axes, nones, advanced, adjacent = _parse_index(self, index)
    out = _basic(self, axes, starts, ends, steps, int_axes, nones)
    if not advanced:
        return out
    res_axes = [_result_axis(a, int_axes, nones) for a, _ in advanced]
    idx = [t for _, t in advanced]
    if not adjacent:
        # numpy: advanced indices separated in the index (by a slice, None or Ellipsis,
        # even one that spans no dim) put their broadcast dims first
        perm = res_axes + [d for d in range(out.ndim) if d not in res_axes]
        out = _C.transpose(out, perm)
        res_axes = list(range(len(res_axes)))
    first = res_axes[0]
    shape = out.shape
    # Index arithmetic needs no gradient: one linear index over the merged dims.
    bshape = _index_broadcast("__getitem__", [t.shape for t in idx])
    # numpy checks no index when the broadcast is empty, and none is read here: an index
    # of shape [0, 2**62] has no array numpy can hold
    arrs = [np.asarray(t, dtype=np.int64) for t in idx] if 0 not in bshape else []
    linear = np.zeros(bshape if arrs else [0], dtype=np.int64)
    for a, arr in zip(res_axes, arrs):
        n = shape[a]
        bad = arr[(arr < -n) | (arr >= n)]
        if bad.size:
            raise IndexError(
                f"index {int(bad.reshape(-1)[0])} is out of bounds for axis {a} with size {n}"
            )
        linear = linear * n + np.where(arr < 0, arr + n, arr)
    count = int(np.prod([shape[a] for a in res_axes]))
    result_shape = shape[:first] + bshape + shape[first + len(res_axes) :]
    if count == 0:  # out is empty (and every index too, or the bounds check raised)
        return _reshape(out, result_shape)
    merged = _reshape(out, shape[:first] + [count] + shape[first + len(res_axes) :])
    picked = _C.index_select(merged, _C._from_buffer(linear.reshape(-1), int64), first)
    return _reshape(picked, result_shape)


def __setitem__(self: Tensor, index: Any, value: TensorLike) -> None:
    axes, starts, ends, steps, counts, int_axes, nones, advanced, adjacent = _parse_index(
        self, index
    )
    # numpy rejects index arrays that do not broadcast even for an empty region: checked
    # once here, and the shape handed on
    bshape = _index_broadcast("__setitem__", [t.shape for _, t in advanced]) if advanced else None
    if 0 in counts:
        return  # an empty region: nothing to write
    if advanced:
        v = _setitem_value(self, value)
        # x[mask] = v for a mask covering x and v a scalar or shaped like x: a where(),
        # written back in place (Paddle's reading of a same-shape value).
        if (
            isinstance(index, Tensor)
            and index.dtype is bool_
            and list(index.shape) == self.shape
            and (v.ndim == 0 or v.shape == self.shape)
        ):
            new = _C.where(index, _C.expand(v, self.shape) if v.ndim == 0 else v, self)
            _C.set_value_with_tensor_(self, new, [], [], [], [])
            return
        _setitem_advanced(self, axes, starts, ends, steps, nones, advanced, adjacent, v, bshape)
        return
    if (
        isinstance(value, (numbers.Number, np.number, np.bool_))
        and not isinstance(value, Tensor)
        and not isinstance(value, (complex, np.complexfloating))
    ):
        _C.set_value_(self, axes, starts, ends, steps, float(value))
        return
    v = value if isinstance(value, Tensor) else _C._from_buffer(np.asarray(value), self.dtype)
    if v.dtype is not self.dtype:
        v = _C.cast(v, self.dtype)
    # numpy's shape of x[index] (int dims dropped, None dims inserted), which the value
    # must broadcast to; it is then written as the region's shape (int dims back as 1s,
    # None dims gone).
    region = list(self.shape)
    for a, n in zip(axes, counts):
        region[a] = n
    target = [n for i, n in enumerate(region) if i not in int_axes]
    for p in sorted(nones):
        target.insert(p, 1)

    def cannot():
        return ValueError(
            f"could not broadcast a value of shape {v.shape} into the indexed "
            f"region of shape {target}"
        )

    if v.ndim > len(target):
        lead = v.ndim - len(target)  # numpy drops leading 1s only
        if any(n != 1 for n in v.shape[:lead]):
            raise cannot()
        v = _reshape(v, v.shape[lead:])
    try:
        vb = _broadcast_shapes([v.shape, target]) if target else list(v.shape)
    except ValueError:
        raise cannot() from None
    if vb != target:
        raise cannot()
    if (int_axes or nones) and v.ndim:
        v = _reshape(_C.expand(v, target), region)
    _C.set_value_with_tensor_(self, v, axes, starts, ends, steps)


# ---- assignment through integer-array and boolean indices ------------------------------
def _setitem_value(x, value):
    v = value if isinstance(value, Tensor) else _C._from_buffer(np.asarray(value), x.dtype)
    return _C.cast(v, x.dtype) if v.dtype is not x.dtype else v


def _setitem_advanced(x, axes, starts, ends, steps, nones, advanced, adjacent, v, bshape):
    """x[index] = v with advanced entries: numpy's semantics, through index_put_nd.

    The basic part selects a region (a strided slice; the ints of such an index are
    advanced); the region is permuted so the advanced axes lead, in the order of the
    index, which is the layout index_put_nd writes; v is broadcast to the shape
    x[index] has and permuted the same way; the result is written back into the
    region in place (the set_value path), or straight into x when no permutation
    or slice is needed. Both record autograd and bump x's version."""
    region = _C.strided_slice(x, axes, starts, ends, steps) if axes else x
    rshape = region.shape
    adv_axes = [a for a, _ in advanced]
    # bshape: the index arrays' broadcast (__setitem__). numpy checks no index when it is
    # empty, and none is read here (an index of shape [0, 2**62] has no array numpy can hold)
    arrs = [np.asarray(t, dtype=np.int64) for _, t in advanced] if 0 not in bshape else []
    for a, arr in zip(adv_axes, arrs):
        n = rshape[a]
        bad = arr[(arr < -n) | (arr >= n)]
        if bad.size:
            raise IndexError(
                f"__setitem__(): argument 'index': index "
                f"{int(bad.reshape(-1)[0])} is out of bounds for axis {a} "
                f"with size {n}"
            )
    # The layout of x[index]: labels ('n',) for None dims, ('r', d) for region dim d,
    # ('b', j) for broadcast index dim j.
    layout = [("r", d) for d in range(len(rshape))]
    for p in sorted(nones):
        layout.insert(p, ("n",))
    pos = [layout.index(("r", a)) for a in adv_axes]
    if not adjacent:
        layout = [layout[p] for p in pos] + [lab for p, lab in enumerate(layout) if p not in pos]
        pos = list(range(len(pos)))
    layout = layout[: pos[0]] + [("b", j) for j in range(len(bshape))] + layout[pos[0] + len(pos) :]
    size = {
        ("n",): 1,
        **{("r", d): n for d, n in enumerate(rshape)},
        **{("b", j): n for j, n in enumerate(bshape)},
    }
    target = [size[lab] for lab in layout]

    def cannot():
        return ValueError(
            f"__setitem__(): argument 'value' of shape {v.shape} could not be "
            f"broadcast to the indexed shape {target}"
        )

    if v.ndim > len(target):
        lead = v.ndim - len(target)  # numpy drops leading 1s only
        if any(n != 1 for n in v.shape[:lead]):
            raise cannot()
        v = _reshape(v, v.shape[lead:])
    try:
        ok = _broadcast_shapes([v.shape, target]) == target
    except ValueError:
        ok = False
    if not ok:
        raise cannot()
    if not arrs:
        return  # an empty broadcast: nothing to write (the value's shape is checked above)
    rest = [d for d in range(len(rshape)) if d not in adv_axes]
    if v.ndim:
        v = _reshape(_C.expand(v, target), [n for lab, n in zip(layout, target) if lab != ("n",)])
        kept = [lab for lab in layout if lab != ("n",)]
        vperm = [kept.index(("b", j)) for j in range(len(bshape))] + [
            kept.index(("r", d)) for d in rest
        ]
        if vperm != list(range(len(vperm))):
            v = _C.transpose(v, vperm)
    stacked = np.stack(np.broadcast_arrays(*arrs), -1)
    idx = _C._from_buffer(np.ascontiguousarray(stacked, dtype=np.int64), int64)
    perm = adv_axes + rest
    if not axes and perm == list(range(len(perm))):
        _C.index_put_nd_(x, idx, v, False)
        return
    moved = _C.transpose(region, perm) if perm != list(range(len(perm))) else region
    new = _C.index_put_nd(moved, idx, v, False)
    if perm != list(range(len(perm))):
        new = _C.transpose(new, [int(i) for i in np.argsort(perm)])
    _C.set_value_with_tensor_(x, new, axes, starts, ends, steps)


# Paddle's reduce names for the kernel; 'mul'/'multiply', 'mean', 'amin' and 'amax' are
# compositions (_manip_extra.put_along_axis_reduce).
_REDUCE = {"assign": 0, "add": 1}


_COMPOSED = ("mul", "multiply", "mean", "amin", "amax")


def _values(api, name, v, like):
    """A Python number or a Tensor as a tensor of like's dtype."""
    if not isinstance(v, Tensor):
        v = _C._from_buffer(np.asarray(C.number(api, name, v)), like.dtype)
    return v if v.dtype is like.dtype else _C.cast(v, like.dtype)


def _reduce(reduce):
    if not isinstance(reduce, str) or reduce not in _REDUCE:
        raise ValueError(
            f"put_along_axis(): argument 'reduce' must be one of "
            f"{sorted(_REDUCE) + sorted(_COMPOSED)}, but got {reduce!r}"
        )
    return _REDUCE[reduce]


def _renamed(call, internal, api):
    """call(), with the internal op's name in its errors replaced by the public one."""
    try:
        return call()
    except (ValueError, TypeError, IndexError) as e:
        msg = str(e)
        if not msg.startswith(internal + "("):
            raise
        raise type(e)(api + msg[len(internal) :]) from None


def _put(api, internal, arr, indices, values, axis, reduce, include_self, broadcast):
    C.tensor(api, "arr", arr)
    C.tensor(api, "indices", indices)
    if isinstance(reduce, str) and reduce in _COMPOSED:
        v = _values(api, "values", values, arr)
        out = put_along_axis_reduce(
            api, arr, indices, v, axis, reduce, bool(include_self), bool(broadcast)
        )
        if internal.endswith("_"):  # in place
            _C.set_value_with_tensor_(arr, out, [], [], [], [])
            return arr
        return out
    r = _reduce(reduce)
    v = _values(api, "values", values, arr)
    a = C.integer(api, "axis", axis)
    fn = getattr(_C, internal)
    return _renamed(
        lambda: fn(arr, indices, v, a, r, bool(include_self), bool(broadcast)), internal, api
    )


def put_along_axis(
    arr: Tensor,
    indices: Tensor,
    values: Tensor | float,
    axis: AxisLike,
    reduce: str = "assign",
    include_self: bool = True,
    broadcast: bool = True,
    name: str | None = None,
) -> Tensor:
    return _put(
        "put_along_axis",
        "scatter_along_axis",
        arr,
        indices,
        values,
        axis,
        reduce,
        include_self,
        broadcast,
    )


def put_along_axis_(
    arr: Tensor,
    indices: Tensor,
    values: Tensor | float,
    axis: AxisLike,
    reduce: str = "assign",
    include_self: bool = True,
    broadcast: bool = True,
    name: str | None = None,
) -> Tensor:
    return _put(
        "put_along_axis_",
        "scatter_along_axis_",
        arr,
        indices,
        values,
        axis,
        reduce,
        include_self,
        broadcast,
    )


def nd_index(api: Any, x: Tensor, indices: Tensor) -> Tensor:
    """The [..., k] int64 coordinate tensor of a tuple of index tensors (integer ones
    broadcast together; a boolean one stands for the coordinates of its True entries,
    one per dimension it covers), checked against x's leading dimensions."""
    if isinstance(indices, Tensor) or not isinstance(indices, (list, tuple)):
        raise TypeError(
            f"{api}(): argument 'indices' must be a tuple or list of Tensors, but "
            f"got {type(indices).__name__}"
        )
    arrs, d = [], 0
    for k, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{api}(): argument 'indices' must hold Tensors, but entry {k} is "
                f"{type(t).__name__}"
            )
        a = np.asarray(t)
        if t.dtype is bool_:
            want = x.shape[d : d + a.ndim]
            if a.ndim == 0 or list(a.shape) != list(want):
                raise IndexError(
                    f"{api}(): argument 'indices': the boolean mask {k} of shape "
                    f"{list(a.shape)} does not match the indexed dimensions {want}"
                )
            arrs += list(np.nonzero(a))
            d += a.ndim
        elif t.dtype.name in ("int32", "int64"):
            if d >= x.ndim:
                raise IndexError(
                    f"{api}(): argument 'indices' indexes more dimensions than "
                    f"the tensor's {x.ndim}"
                )
            n = x.shape[d]
            bad = a[(a < -n) | (a >= n)]
            if bad.size:
                raise IndexError(
                    f"{api}(): argument 'indices': index {int(bad.reshape(-1)[0])} "
                    f"is out of bounds for axis {d} with size {n}"
                )
            arrs.append(a.astype(np.int64))
            d += 1
        else:
            raise TypeError(
                f"{api}(): argument 'indices' must hold int32, int64 or bool "
                f"Tensors, but entry {k} is {t.dtype.name}"
            )
    try:
        arrs = np.broadcast_arrays(*arrs) if arrs else []
    except ValueError:
        raise IndexError(
            f"{api}(): argument 'indices': shape mismatch, index arrays of shapes "
            f"{[list(a.shape) for a in arrs]} could not be broadcast "
            f"together"
        ) from None
    stacked = np.stack(arrs, -1) if arrs else np.zeros([0], np.int64)
    return _C._from_buffer(np.ascontiguousarray(stacked, dtype=np.int64), int64)


def _index_put(api, internal, x, indices, value, accumulate):
    C.tensor(api, "x", x)
    idx = nd_index(api, x, indices)
    v = _values(api, "value", value, x)
    fn = getattr(_C, internal)
    return _renamed(lambda: fn(x, idx, v, bool(accumulate)), internal, api)


def index_put(
    x: Tensor,
    indices: Tensor,
    value: Tensor | float,
    accumulate: bool = False,
    name: str | None = None,
) -> Tensor:
    return _index_put("index_put", "index_put_nd", x, indices, value, accumulate)


def index_put_(
    x: Tensor,
    indices: Tensor,
    value: Tensor | float,
    accumulate: bool = False,
    name: str | None = None,
) -> Tensor:
    return _index_put("index_put_", "index_put_nd_", x, indices, value, accumulate)


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
        raise TypeError(
            f"take(): argument 'index' must be int32 or int64, but got {index.dtype.name}"
        )
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(
            f"take(): argument 'mode' must be 'raise', 'wrap' or 'clip', but got {mode!r}"
        )
    n = x.size
    flat = _C.reshape(x, [-1]) if x.ndim != 1 else x
    # an empty index is not read: one of shape [0, 2**62] has no numpy array
    idx = np.asarray(index, dtype=np.int64) if index.size else np.zeros([0], np.int64)
    if n == 0 and idx.size:
        raise IndexError("take(): cannot take from an empty tensor")
    if mode == "raise":
        bad = idx[(idx < -n) | (idx >= n)]
        if bad.size:
            raise IndexError(
                f"take(): index {int(bad.reshape(-1)[0])} is out of range for a "
                f"tensor of {n} elements"
            )
        idx = np.where(idx < 0, idx + n, idx)
    elif mode == "wrap":
        idx = np.mod(idx, n) if n else idx
    else:
        idx = np.clip(idx, 0, max(n - 1, 0))
    picked = _C.index_select(flat, _index_tensor(idx), 0)
    return C.reshape_exact(picked, index.shape)


def index_fill(
    x: Tensor, index: Tensor, axis: int, value: float | Tensor, name: str | None = None
) -> Tensor:
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
    idx = np.asarray(index, dtype=np.int64).reshape(-1)
    bad = idx[(idx < -n) | (idx >= n)]
    if bad.size:
        raise IndexError(
            f"index_fill(): index {int(bad[0])} is out of range for axis {a} of size {n}"
        )
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
        raise TypeError(
            f"masked_scatter(): argument 'mask' must be a bool tensor, but got {mask.dtype.name}"
        )
    shape = _broadcast_shape("masked_scatter", [x.shape, mask.shape], ["x", "mask"])
    m = np.broadcast_to(np.asarray(mask), shape)
    count = int(m.sum())
    if count > value.size:
        raise ValueError(
            f"masked_scatter(): the mask selects {count} elements but 'value' has only {value.size}"
        )
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


def select_scatter(
    x: Tensor, values: Tensor, axis: int, index: int, name: str | None = None
) -> Tensor:
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
    want = x.shape[:a] + x.shape[a + 1 :]
    if v.shape != want:
        raise ValueError(
            f"select_scatter(): argument 'values' must have the slice's shape "
            f"{want}, but has {v.shape}"
        )
    return _C.set_value_with_tensor(x, _C.unsqueeze(v, [a]), [a], [i], [i + 1], [1])


def slice_scatter(
    x: Tensor,
    value: Tensor,
    axes: Sequence[int],
    starts: Sequence[int],
    ends: Sequence[int],
    strides: Sequence[int],
    name: str | None = None,
) -> Tensor:
    """x with the strided slice (axes, starts, ends, strides) replaced by value, which is
    broadcast to the slice's shape."""
    C.tensor("slice_scatter", "x", x)
    v = _value_as("slice_scatter", value, x)
    lists = [
        _ints("slice_scatter", n, a)
        for n, a in (("axes", axes), ("starts", starts), ("ends", ends), ("strides", strides))
    ]
    if len({len(v) for v in lists}) != 1:
        raise ValueError(
            "slice_scatter(): 'axes', 'starts', 'ends' and 'strides' must have the same length"
        )
    region = _C.strided_slice(x, *lists)
    if v.shape != region.shape:
        v = broadcast_to(v, region.shape)
    return _C.set_value_with_tensor(x, v, *lists)


def diagonal_scatter(
    x: Tensor, y: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None
) -> Tensor:
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
        raise ValueError(
            f"diagonal_scatter(): argument 'x' must have at least 2 dimensions, "
            f"but has shape {x.shape}"
        )
    off = C.integer("diagonal_scatter", "offset", offset)
    a1 = C.axis("diagonal_scatter", "axis1", axis1, x.ndim)
    a2 = C.axis("diagonal_scatter", "axis2", axis2, x.ndim)
    if a1 == a2:
        raise ValueError(f"diagonal_scatter(): 'axis1' and 'axis2' must differ, both are {a1}")
    want = _C.diagonal(x, off, a1, a2).shape
    if y.shape != want:
        raise ValueError(
            f"diagonal_scatter(): argument 'y' must have the diagonal's shape "
            f"{want}, but has {y.shape}"
        )
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


_SCATTER_REDUCE = {"sum": "add", "prod": "mul", "mean": "mean", "amin": "amin", "amax": "amax"}


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:  # noqa: A002
    """input with src added at the positions index along dim (put_along_axis 'add')."""
    return put_along_axis(input, index, src, dim, "add", True, False)


def scatter_reduce(
    input: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor,  # noqa: A002
    reduce: str,
    *,
    include_self: bool = True,
) -> Tensor:
    """input with src combined in at the positions index along dim by reduce ('sum',
    'prod', 'mean', 'amin', 'amax'); include_self=False leaves input's values out of the
    positions written to."""
    if reduce not in _SCATTER_REDUCE:
        raise ValueError(
            f"scatter_reduce(): argument 'reduce' must be one of "
            f"{sorted(_SCATTER_REDUCE)}, but got {reduce!r}"
        )
    return put_along_axis(input, index, src, dim, _SCATTER_REDUCE[reduce], include_self, False)


# ---- put_along_axis with the reductions its kernel lacks -------------------------------------
_COMPOSED_REDUCE = ("mul", "multiply", "mean", "amin", "amax")


def _values_to(api, values, arr, dom):
    v = values if values.dtype is arr.dtype else _C.cast(values, arr.dtype)
    try:
        return broadcast_to(v, dom) if v.shape != dom else v
    except ValueError:
        raise ValueError(
            f"{api}(): argument 'values' of shape {values.shape} does not "
            f"broadcast to the indexed shape {dom}"
        ) from None


def put_along_axis_reduce(
    api: Any,
    arr: Tensor,
    indices: Tensor,
    values: Tensor | float,
    axis: AxisLike,
    reduce: str,
    include_self: bool,
    broadcast: bool,
) -> Tensor:
    """put_along_axis for reduce 'mul'/'multiply', 'mean', 'amin', 'amax', composed of
    differentiable ops: the written positions are found first; 'mean' divides a scattered
    sum by the count (truncating for integers, as Paddle); the others reduce the values of
    each written position over a [positions, values] mask (memory grows with their
    product)."""
    a = C.axis(api, "axis", axis, max(arr.ndim, 1))
    if indices.ndim != arr.ndim:
        raise ValueError(
            f"{api}(): argument 'indices' must have the rank of 'arr' "
            f"({arr.ndim}), but has shape {indices.shape}"
        )
    dom = list(indices.shape)
    for d in range(arr.ndim):
        if d == a:
            continue
        if broadcast:
            if indices.shape[d] not in (1, arr.shape[d]):
                raise ValueError(
                    f"{api}(): argument 'indices' of shape {indices.shape} does not "
                    f"broadcast to 'arr' of shape {arr.shape} at dimension {d}"
                )
            dom[d] = arr.shape[d]
        elif indices.shape[d] > arr.shape[d]:
            raise ValueError(
                f"{api}(): argument 'indices' of shape {indices.shape} is larger "
                f"than 'arr' of shape {arr.shape} at dimension {d}"
            )
    if 0 in dom:
        # Nothing is written (an empty arr always has empty indices). Numpy cannot even hold
        # an empty [0, 2**62] index array, and np.indices below would build a range for
        # every dimension of dom: answer before either.
        _values_to(api, values, arr, dom)
        return _C.assign(arr)
    idx = np.broadcast_to(np.asarray(indices, dtype=np.int64), dom)
    n = arr.shape[a]
    bad = idx[(idx < -n) | (idx >= n)]
    if bad.size:
        raise IndexError(
            f"{api}(): index {int(bad.reshape(-1)[0])} is out of bounds for axis {a} with size {n}"
        )
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
        cnt = _C._from_buffer(
            counts,
            float64 if not floating else arr.dtype if arr.dtype.is_floating_point else float64,
        )
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
                fill = (info.min if reduce == "amax" else info.max) if info else (reduce != "amax")
            red = _C.amax if reduce == "amax" else _C.amin
            r = red(_C.where(mask, wide, _C.full_like(wide, fill)), [1], False)
            if include_self:
                r = (_C.maximum if reduce == "amax" else _C.minimum)(r, old)
    out = _C.index_put_nd(flat_arr, u_idx, r, False)
    return C.reshape_exact(out, arr.shape)


@_aliases({"input": "arr", "dim": "axis"}, strict=True)
def take_along_dim(
    arr: Tensor, indices: Tensor, axis: int, broadcast: bool = True, *, out: Tensor | None = None
) -> Tensor:
    """take_along_axis: the values of arr at indices along axis."""
    return _out.write_out(out, _C.take_along_axis(arr, indices, axis, broadcast), "take_along_dim")
