"""Ops with Paddle's Python signatures where they differ from the declarations;
the others are the generated _C functions themselves (no Python overhead)."""
import numbers

from . import _C
from ._dtype import convert_dtype

Tensor = _C.Tensor


def pow(x, y, name=None):
    """x ** y: y a Python number (pow) or a Tensor (elementwise_pow)."""
    if isinstance(y, Tensor):
        return _C.elementwise_pow(x, y)
    return x ** y


def _dtype_arg(api, dtype):
    try:
        return convert_dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{api}(): argument 'dtype': {e}") from None


def cast(x, dtype):
    return _C.cast(x, _dtype_arg("cast", dtype))


def slice(input, axes, starts, ends):  # noqa: A001 - Paddle's name
    return _C.slice(input, axes, starts, ends)


def where(condition, x=None, y=None, name=None):
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if not isinstance(x, Tensor):
        x = _C.full_like(y, float(x)) if isinstance(y, Tensor) else None
    if not isinstance(y, Tensor):
        y = _C.full_like(x, float(y))
    if x is None:
        raise TypeError("where(): x or y must be a Tensor")
    return _C.where(condition, x, y)


def nonzero(x, as_tuple=False):
    out = _C.nonzero(x)
    if not as_tuple:
        return out
    return tuple(_C.reshape(_C.slice(out, [1], [k], [k + 1]), [-1]) for k in range(x.ndim))


def stack(x, axis=0, name=None):
    if not x:
        raise ValueError("stack(): argument 'x' must hold at least one tensor")
    axis = axis + x[0].ndim + 1 if axis < 0 else axis
    return _C.concat([_C.unsqueeze(t, [axis]) for t in x], axis)


def split(x, num_or_sections, axis=0, name=None):
    n = x.shape[axis]
    if isinstance(num_or_sections, numbers.Integral):
        if n % num_or_sections:
            raise ValueError(f"split(): dimension {axis} of size {n} cannot be split into "
                             f"{num_or_sections} equal parts")
        sizes = [n // num_or_sections] * num_or_sections
    else:
        sizes = list(num_or_sections)
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = n - sum(s for s in sizes if s != -1)
        if sum(sizes) != n:
            raise ValueError(f"split(): sections {list(num_or_sections)} do not add up to the "
                             f"size {n} of dimension {axis}")
    out, start = [], 0
    for s in sizes:
        out.append(_C.slice(x, [axis], [start], [start + s]))
        start += s
    return out


def gather(x, index, axis=None, name=None):
    return _C.index_select(x, index, 0 if axis is None else axis)


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    nd = x.ndim
    if nd == 0:
        return _C.reshape(x, [1])
    s = start_axis % nd
    e = stop_axis % nd
    shape = x.shape
    merged = 1
    for d in shape[s:e + 1]:
        merged *= d
    return _C.reshape(x, shape[:s] + [merged] + shape[e + 1:])


def t(x, name=None):
    return _C.transpose(x, list(range(x.ndim))[::-1])


def clone(x):
    return _C.assign(x)


def numel(x):
    return x.size
