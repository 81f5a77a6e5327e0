"""Scattering with Paddle's Python signatures: put_along_axis (a `reduce` string) and
index_put (a tuple of index tensors), over the declared ops _C.put_along_axis and
_C.index_put_nd; also the nd-index form the tensor's __setitem__ writes through."""
import numpy as np

from . import _C
from . import _check as C
from ._dtype import bool_, int64

Tensor = _C.Tensor

# Paddle's reduce names; 'mul'/'multiply', 'mean', 'amin' and 'amax' are not supported.
_REDUCE = {"assign": 0, "add": 1}


def _values(api, name, v, like):
    """A Python number or a Tensor as a tensor of like's dtype."""
    if not isinstance(v, Tensor):
        v = _C._from_buffer(np.asarray(C.number(api, name, v)), like.dtype)
    return v if v.dtype is like.dtype else _C.cast(v, like.dtype)


def _reduce(reduce):
    if not isinstance(reduce, str) or reduce not in _REDUCE:
        raise ValueError(f"put_along_axis(): argument 'reduce' must be one of "
                         f"{sorted(_REDUCE)}, but got {reduce!r}")
    return _REDUCE[reduce]


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True,
                   broadcast=True, name=None):
    C.tensor("put_along_axis", "arr", arr)
    C.tensor("put_along_axis", "indices", indices)
    r = _reduce(reduce)
    v = _values("put_along_axis", "values", values, arr)
    return _C.put_along_axis(arr, indices, v, C.integer("put_along_axis", "axis", axis), r,
                             bool(include_self), bool(broadcast))


def put_along_axis_(arr, indices, values, axis, reduce="assign", include_self=True,
                    broadcast=True, name=None):
    C.tensor("put_along_axis_", "arr", arr)
    C.tensor("put_along_axis_", "indices", indices)
    r = _reduce(reduce)
    v = _values("put_along_axis_", "values", values, arr)
    return _C.put_along_axis_(arr, indices, v, C.integer("put_along_axis_", "axis", axis), r,
                              bool(include_self), bool(broadcast))


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
            arrs.append(a.astype(np.int64))
            d += 1
        else:
            raise TypeError(f"{api}(): argument 'indices' must hold int32, int64 or bool "
                            f"Tensors, but entry {k} is {t.dtype.name}")
    if d > x.ndim:
        raise IndexError(f"{api}(): argument 'indices' indexes {d} dimensions of a tensor of "
                         f"rank {x.ndim}")
    try:
        arrs = np.broadcast_arrays(*arrs) if arrs else []
    except ValueError:
        raise IndexError(f"{api}(): argument 'indices': shape mismatch, index arrays of shapes "
                         f"{[list(a.shape) for a in arrs]} could not be broadcast "
                         f"together") from None
    stacked = np.stack(arrs, -1) if arrs else np.zeros([0], np.int64)
    return _C._from_buffer(np.ascontiguousarray(stacked, dtype=np.int64), int64)


def index_put(x, indices, value, accumulate=False, name=None):
    C.tensor("index_put", "x", x)
    idx = nd_index("index_put", x, indices)
    v = _values("index_put", "value", value, x)
    return _C.index_put_nd(x, idx, v, bool(accumulate))


def index_put_(x, indices, value, accumulate=False, name=None):
    C.tensor("index_put_", "x", x)
    idx = nd_index("index_put_", x, indices)
    v = _values("index_put_", "value", value, x)
    return _C.index_put_nd_(x, idx, v, bool(accumulate))


for _f in (put_along_axis, put_along_axis_, index_put, index_put_):
    setattr(Tensor, _f.__name__, _f)
