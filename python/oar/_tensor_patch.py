"""Tensor methods written in Python: numpy interop, repr, indexing and slicing."""
import math
import numbers

import numpy as np

from . import _C
from .framework import check as _check
from . import _printing
from .framework.dtype import Place, bfloat16, bool_, convert_dtype, int64
from .framework.memory import check_fits, check_objects

Tensor = _C.Tensor


# ---- numpy --------------------------------------------------------------------------
def numpy(self):
    """The data as a numpy array sharing this tensor's memory (no copy); the
    array keeps the memory alive. bfloat16 comes back as raw uint16 and the float8
    dtypes as raw int8, as Paddle.
    A tensor that requires grad gives a read-only view."""
    return np.asarray(self._buffer())


def _values(self):
    """The data as a numpy array of its values: bfloat16 and float8 (whose numpy arrays
    hold raw bits) as float32."""
    if self.dtype.name.startswith("float8"):
        return numpy(self.astype("float32"))
    a = numpy(self)
    return _bf16_to_f32(a) if self.dtype is bfloat16 else a


def __array__(self, dtype=None, copy=None):
    a = _values(self)
    if dtype is not None:
        a = a.astype(dtype, copy=False)
    return a.copy() if copy else a


def _bf16_to_f32(a):
    # np.asarray: a shift of a 0-d array gives a numpy scalar, whose view() is not an
    # array (and __array__ must return one).
    return np.asarray(a.astype(np.uint32) << 16).view(np.float32)


def tolist(self):
    shape = list(self.shape)
    if 0 in shape:  # nested [] up to the first 0, as torch: numpy cannot hold [0, 2**62]
        # one list per index before the first 0: [2**62, 0] would build 2**62 of them
        check_objects("tolist", "lists", math.prod(shape[:shape.index(0)]))

        def empty(dims):
            return [] if not dims or dims[0] == 0 else [empty(dims[1:]) for _ in range(dims[0])]
        return empty(shape)
    return _values(self).tolist()


def __repr__(self):
    if not self._is_initialized():
        return "Tensor(Not initialized)"
    if self.is_sparse():
        from .sparse._tensor_methods import sparse_repr
        return sparse_repr(self)
    if 0 in self.shape:
        a = None
    else:
        a = _values(self)
    return _printing.tensor_string(self.shape, self.dtype.name, self.place, self.stop_gradient, a)


def __format__(self, spec):
    # A 0-D tensor formats as its value ("{}".format(loss) gives 0.25), as in Paddle.
    if self.ndim == 0:
        return format(self.item(), spec)
    return object.__format__(self, spec) if spec else repr(self)


_item = Tensor.item


def item(self, *args):
    """The element as a Python scalar: the only one, or the one at flat index
    ``item(i)`` or at ``item(i, j, ...)`` (one index per dimension)."""
    if not args:
        return _item(self)
    try:
        return __array__(self).item(*args)
    except (IndexError, ValueError, TypeError) as e:
        raise type(e)(f"Tensor.item(): {e} (the tensor has shape {list(self.shape)})") from None


def _numel(self):
    """The number of elements, as a 0-D int64 tensor (Paddle's Tensor.numel())."""
    return _C._from_buffer(np.asarray(self.size, dtype=np.int64), int64)


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
        raise IndexError(f"only integers, slices, None, Ellipsis and integer or boolean "
                         f"arrays are valid indices, got an array of {arr.dtype}")
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
        if isinstance(it, (list, np.ndarray)) or (isinstance(it, Tensor) and it.ndim > 0) or (
                isinstance(it, Tensor) and it.dtype is bool_):
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
        return isinstance(it, Tensor) or (has_adv and not isinstance(it, (slice, type(None)))
                                          and it is not Ellipsis)
    where_adv = [k for k, it in enumerate(items) if is_adv(it)]
    adjacent = not where_adv or where_adv[-1] - where_adv[0] + 1 == len(where_adv)
    consumed = sum(it.ndim if isinstance(it, Tensor) and it.dtype is bool_ else 1
                   for it in items if it is not None and it is not Ellipsis)
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > x.ndim:
        raise IndexError(f"too many indices for a tensor of dimension {x.ndim} "
                         f"({consumed} were indexed)")
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
                want = x.shape[d:d + it.ndim]
                if list(it.shape) != list(want):
                    raise IndexError(f"the boolean mask of shape {it.shape} does not match the "
                                     f"indexed dimensions {want}")
                coords = _C.nonzero(it)
                for k in range(it.ndim):
                    col = _C.slice(coords, [1], [k], [k + 1])
                    advanced.append((d + k, _C.reshape(col, [-1])))
                d += it.ndim
                out_pos += it.ndim
            else:
                if it.dtype not in (int64, convert_dtype("int32")):
                    raise IndexError(f"tensors used as indices must be integer or bool, not "
                                     f"{it.dtype.name}")
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
            raise IndexError(f"only integers, slices, None, Ellipsis and integer or boolean "
                             f"arrays are valid indices, got {type(it).__name__}")
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
                raise IndexError(f"{api}(): shape mismatch: indexing arrays of shapes "
                                 f"{[list(s) for s in shapes]} could not be broadcast together")
            bshape[i] = n if n != 1 else bshape[i]
    if math.prod(n for n in bshape if n) >= 2 ** 63:
        raise IndexError(f"{api}(): indexing arrays of shapes {[list(s) for s in shapes]} "
                         f"broadcast to {bshape}, whose dims other than 0 multiply past 2^63")
    if 0 not in bshape:
        check_fits(f"{api}():", f"the index arrays broadcast to shape {bshape}",
                   math.prod(bshape) * 8 * (len(shapes) + 1))
    return bshape


def __getitem__(self, index):
    axes, starts, ends, steps, _, int_axes, nones, advanced, adjacent = \
        _parse_index(self, index)
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
    arrs = [np.asarray(t.numpy(), dtype=np.int64) for t in idx] if 0 not in bshape else []
    linear = np.zeros(bshape if arrs else [0], dtype=np.int64)
    for a, arr in zip(res_axes, arrs):
        n = shape[a]
        bad = arr[(arr < -n) | (arr >= n)]
        if bad.size:
            raise IndexError(f"index {int(bad.reshape(-1)[0])} is out of bounds for axis {a} "
                             f"with size {n}")
        linear = linear * n + np.where(arr < 0, arr + n, arr)
    count = int(np.prod([shape[a] for a in res_axes]))
    result_shape = shape[:first] + bshape + shape[first + len(res_axes):]
    if count == 0:  # out is empty (and every index too, or the bounds check raised)
        return _reshape(out, result_shape)
    merged = _reshape(out, shape[:first] + [count] + shape[first + len(res_axes):])
    picked = _C.index_select(merged, _C._from_buffer(linear.reshape(-1), int64), first)
    return _reshape(picked, result_shape)


def __setitem__(self, index, value):
    axes, starts, ends, steps, counts, int_axes, nones, advanced, adjacent = \
        _parse_index(self, index)
    # numpy rejects index arrays that do not broadcast even for an empty region: checked
    # once here, and the shape handed on
    bshape = _index_broadcast("__setitem__", [t.shape for _, t in advanced]) if advanced \
        else None
    if 0 in counts:
        return  # an empty region: nothing to write
    if advanced:
        v = _setitem_value(self, value)
        # x[mask] = v for a mask covering x and v a scalar or shaped like x: a where(),
        # written back in place (Paddle's reading of a same-shape value).
        if (isinstance(index, Tensor) and index.dtype is bool_
                and list(index.shape) == self.shape and (v.ndim == 0 or v.shape == self.shape)):
            new = _C.where(index, _C.expand(v, self.shape) if v.ndim == 0 else v, self)
            _C.set_value_with_tensor_(self, new, [], [], [], [])
            return
        _setitem_advanced(self, axes, starts, ends, steps, nones, advanced, adjacent, v, bshape)
        return
    if isinstance(value, (numbers.Number, np.number, np.bool_)) and not isinstance(value, Tensor) \
            and not isinstance(value, (complex, np.complexfloating)):
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
        return ValueError(f"could not broadcast a value of shape {v.shape} into the indexed "
                          f"region of shape {target}")
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
    arrs = [np.asarray(t.numpy(), dtype=np.int64) for _, t in advanced] if 0 not in bshape \
        else []
    for a, arr in zip(adv_axes, arrs):
        n = rshape[a]
        bad = arr[(arr < -n) | (arr >= n)]
        if bad.size:
            raise IndexError(f"__setitem__(): argument 'index': index "
                             f"{int(bad.reshape(-1)[0])} is out of bounds for axis {a} "
                             f"with size {n}")
    # The layout of x[index]: labels ('n',) for None dims, ('r', d) for region dim d,
    # ('b', j) for broadcast index dim j.
    layout = [("r", d) for d in range(len(rshape))]
    for p in sorted(nones):
        layout.insert(p, ("n",))
    pos = [layout.index(("r", a)) for a in adv_axes]
    if not adjacent:
        layout = [layout[p] for p in pos] + [lab for p, lab in enumerate(layout) if p not in pos]
        pos = list(range(len(pos)))
    layout = layout[:pos[0]] + [("b", j) for j in range(len(bshape))] + layout[pos[0] + len(pos):]
    size = {("n",): 1, **{("r", d): n for d, n in enumerate(rshape)},
            **{("b", j): n for j, n in enumerate(bshape)}}
    target = [size[lab] for lab in layout]

    def cannot():
        return ValueError(f"__setitem__(): argument 'value' of shape {v.shape} could not be "
                          f"broadcast to the indexed shape {target}")
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
        vperm = [kept.index(("b", j)) for j in range(len(bshape))] + \
            [kept.index(("r", d)) for d in rest]
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


def __iter__(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-D tensor")
    for i in range(self.shape[0]):
        yield self[i]


def _t(self):
    return _C.transpose(self, list(range(self.ndim))[::-1])


def _pow_method(self, y, name=None):
    from ._ops import pow
    return pow(self, y)


def _astype(self, dtype):
    try:
        d = convert_dtype(dtype)
    except TypeError as e:
        raise TypeError(f"astype(): argument 'dtype': {e}") from None
    return _C.cast(self, d)


def _cpu(self):
    return self


_PLACES = {"Place(cpu)": Place("cpu")}
_place_name = Tensor.place  # the C getter: "Place(cpu)", "Place(gpu:0)"


def _place(self):
    name = _place_name.__get__(self)
    p = _PLACES.get(name)
    if p is None:
        kind, _, dev = name[6:-1].partition(":")
        p = _PLACES[name] = Place(kind, int(dev or 0))
    return p


_PATCHES = {
    "numpy": numpy, "__array__": __array__, "tolist": tolist, "__repr__": __repr__,
    "__str__": __repr__, "__format__": __format__, "__getitem__": __getitem__,
    "__setitem__": __setitem__, "__iter__": __iter__, "pow": _pow_method, "astype": _astype,
    "cpu": _cpu, "T": property(_t), "__array_priority__": 100, "place": property(_place),
    "item": item, "numel": _numel,
}
for _k, _v in _PATCHES.items():
    setattr(Tensor, _k, _v)
