"""Scattering with Paddle's Python signatures: put_along_axis (a `reduce` string) and
index_put (a tuple of index tensors), over the internal declared ops
_C.scatter_along_axis and _C.index_put_nd, and their Tensor methods."""
import numpy as np

from . import _C
from .framework import check as C
from .framework.dtype import bool_, int64

Tensor = _C.Tensor

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
        raise ValueError(f"put_along_axis(): argument 'reduce' must be one of "
                         f"{sorted(_REDUCE) + sorted(_COMPOSED)}, but got {reduce!r}")
    return _REDUCE[reduce]


def _renamed(call, internal, api):
    """call(), with the internal op's name in its errors replaced by the public one."""
    try:
        return call()
    except (ValueError, TypeError, IndexError) as e:
        msg = str(e)
        if not msg.startswith(internal + "("):
            raise
        raise type(e)(api + msg[len(internal):]) from None


def _put(api, internal, arr, indices, values, axis, reduce, include_self, broadcast):
    C.tensor(api, "arr", arr)
    C.tensor(api, "indices", indices)
    if isinstance(reduce, str) and reduce in _COMPOSED:
        from ._manip_extra import put_along_axis_reduce
        v = _values(api, "values", values, arr)
        out = put_along_axis_reduce(api, arr, indices, v, axis, reduce, bool(include_self),
                                    bool(broadcast))
        if internal.endswith("_"):  # in place
            _C.set_value_with_tensor_(arr, out, [], [], [], [])
            return arr
        return out
    r = _reduce(reduce)
    v = _values(api, "values", values, arr)
    a = C.integer(api, "axis", axis)
    fn = getattr(_C, internal)
    return _renamed(lambda: fn(arr, indices, v, a, r, bool(include_self), bool(broadcast)),
                    internal, api)


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True,
                   broadcast=True, name=None):
    return _put("put_along_axis", "scatter_along_axis", arr, indices, values, axis, reduce,
                include_self, broadcast)


def put_along_axis_(arr, indices, values, axis, reduce="assign", include_self=True,
                    broadcast=True, name=None):
    return _put("put_along_axis_", "scatter_along_axis_", arr, indices, values, axis, reduce,
                include_self, broadcast)


def nd_index(api, x, indices):
    """The [..., k] int64 coordinate tensor of a tuple of index tensors (integer ones
    broadcast together; a boolean one stands for the coordinates of its True entries,
    one per dimension it covers), checked against x's leading dimensions."""
    if isinstance(indices, Tensor) or not isinstance(indices, (list, tuple)):
        raise TypeError(f"{api}(): argument 'indices' must be a tuple or list of Tensors, but "
                        f"got {type(indices).__name__}")
    arrs, d = [], 0
    for k, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"{api}(): argument 'indices' must hold Tensors, but entry {k} is "
                            f"{type(t).__name__}")
        a = np.asarray(t.numpy())
        if t.dtype is bool_:
            want = x.shape[d:d + a.ndim]
            if a.ndim == 0 or list(a.shape) != list(want):
                raise IndexError(f"{api}(): argument 'indices': the boolean mask {k} of shape "
                                 f"{list(a.shape)} does not match the indexed dimensions {want}")
            arrs += list(np.nonzero(a))
            d += a.ndim
        elif t.dtype.name in ("int32", "int64"):
            if d >= x.ndim:
                raise IndexError(f"{api}(): argument 'indices' indexes more dimensions than "
                                 f"the tensor's {x.ndim}")
            n = x.shape[d]
            bad = a[(a < -n) | (a >= n)]
            if bad.size:
                raise IndexError(f"{api}(): argument 'indices': index {int(bad.reshape(-1)[0])} "
                                 f"is out of bounds for axis {d} with size {n}")
            arrs.append(a.astype(np.int64))
            d += 1
        else:
            raise TypeError(f"{api}(): argument 'indices' must hold int32, int64 or bool "
                            f"Tensors, but entry {k} is {t.dtype.name}")
    try:
        arrs = np.broadcast_arrays(*arrs) if arrs else []
    except ValueError:
        raise IndexError(f"{api}(): argument 'indices': shape mismatch, index arrays of shapes "
                         f"{[list(a.shape) for a in arrs]} could not be broadcast "
                         f"together") from None
    stacked = np.stack(arrs, -1) if arrs else np.zeros([0], np.int64)
    return _C._from_buffer(np.ascontiguousarray(stacked, dtype=np.int64), int64)


def _index_put(api, internal, x, indices, value, accumulate):
    C.tensor(api, "x", x)
    idx = nd_index(api, x, indices)
    v = _values(api, "value", value, x)
    fn = getattr(_C, internal)
    return _renamed(lambda: fn(x, idx, v, bool(accumulate)), internal, api)


def index_put(x, indices, value, accumulate=False, name=None):
    return _index_put("index_put", "index_put_nd", x, indices, value, accumulate)


def index_put_(x, indices, value, accumulate=False, name=None):
    return _index_put("index_put_", "index_put_nd_", x, indices, value, accumulate)


# Tensor methods: Paddle's signatures with the tensor as self.
def _put_along_axis_method(self, indices, values, axis, reduce="assign", include_self=True,
                           broadcast=True, name=None):
    return put_along_axis(self, indices, values, axis, reduce, include_self, broadcast)


def _put_along_axis_method_(self, indices, values, axis, reduce="assign", include_self=True,
                            broadcast=True, name=None):
    return put_along_axis_(self, indices, values, axis, reduce, include_self, broadcast)


def _index_put_method(self, indices, value, accumulate=False, name=None):
    return index_put(self, indices, value, accumulate)


def _index_put_method_(self, indices, value, accumulate=False, name=None):
    return index_put_(self, indices, value, accumulate)


for _name, _method in {"put_along_axis": _put_along_axis_method,
                       "put_along_axis_": _put_along_axis_method_,
                       "index_put": _index_put_method, "index_put_": _index_put_method_}.items():
    setattr(Tensor, _name, _method)
