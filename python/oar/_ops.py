"""Ops with Paddle's Python signatures where they differ from the declarations;
the others are the generated _C functions themselves (no Python overhead)."""
import numbers

from . import _C
from .framework import check as C
from .framework.dtype import bool_, convert_dtype, float32, int64
from .framework.memory import check_objects
from .framework.out import write_out

Tensor = _C.Tensor


def pow(x, y, name=None):
    """x ** y: y a Python number (pow) or a Tensor (elementwise_pow).

    x must be a Tensor (Paddle's rule): for Python numbers `x ** y` would run Python's
    own power, which for a huge int exponent never finishes."""
    C.tensor("pow", "x", x)
    if isinstance(y, Tensor):
        return _C.elementwise_pow(x, y)
    return x ** C.number("pow", "y", y)


def _dtype_arg(api, dtype):
    try:
        return convert_dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{api}(): argument 'dtype': {e}") from None


def cast(x, dtype):
    return _C.cast(C.tensor("cast", "x", x), _dtype_arg("cast", dtype))


def slice(input, axes, starts, ends):  # noqa: A001 - Paddle's name
    return _C.slice(input, axes, starts, ends)


def where(condition, x=None, y=None, name=None):
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


def nonzero(x, as_tuple=False):
    C.tensor("nonzero", "x", x)
    if not as_tuple:
        return _C.nonzero(x)
    # as_tuple: one index tensor per dim; a 0-d x counts as 1-d (torch's rule), so
    # the tuple is never empty.
    if x.ndim == 0:
        x = _C.reshape(x, [1])
    out = _C.nonzero(x)
    return tuple(_C.reshape(_C.slice(out, [1], [k], [k + 1]), [-1]) for k in range(x.ndim))


def stack(x, axis=0, name=None):
    if not isinstance(x, (list, tuple)):
        raise TypeError(f"stack(): argument 'x' must be a list or tuple of Tensors, but got "
                        f"{C._kind(x)}")
    if not x:
        raise ValueError("stack(): argument 'x' must hold at least one tensor")
    for i, t in enumerate(x):
        if list(C.tensor("stack", f"x[{i}]", t).shape) != list(x[0].shape):
            raise ValueError(f"stack(): all tensors must have the same shape, but x[0] has "
                             f"{x[0].shape} and x[{i}] has {t.shape}")
    axis = C.axis("stack", "axis", axis, x[0].ndim + 1, "the result")
    return _C.concat([_C.unsqueeze(t, [axis]) for t in x], axis)


def _section(v, i):
    s = C.integer("split", f"num_or_sections[{i}]", v)
    if s < -1:
        raise ValueError(f"split(): argument 'num_or_sections' has a negative section {s} "
                         f"(only one -1, meaning 'the rest', is allowed)")
    return s


def split(x, num_or_sections, axis=0, name=None):
    C.tensor("split", "x", x)
    if x.ndim == 0:
        raise ValueError("split(): argument 'x' must have at least 1 dimension, but it is 0-D")
    axis = C.axis("split", "axis", axis, x.ndim)
    n = x.shape[axis]
    if isinstance(num_or_sections, (list, tuple)):
        sizes = [_section(v, i) for i, v in enumerate(num_or_sections)]
        if sizes.count(-1) > 1:
            raise ValueError(f"split(): argument 'num_or_sections' {sizes} may hold at most "
                             f"one -1")
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = n - sum(s for s in sizes if s != -1)
        if sum(sizes) != n or min(sizes, default=0) < 0:
            raise ValueError(f"split(): sections {list(num_or_sections)} do not add up to the "
                             f"size {n} of dimension {axis}")
    else:
        num = C.integer("split", "num_or_sections", num_or_sections)
        if num <= 0:  # also keeps `n % num` below from dividing by zero
            raise ValueError(f"split(): argument 'num_or_sections' must be a positive int, "
                             f"but got {num}")
        if n % num:
            raise ValueError(f"split(): dimension {axis} of size {n} cannot be split into "
                             f"{num} equal parts")
        check_objects("split", "sections", num)
        sizes = [n // num] * num
    out, start = [], 0
    for s in sizes:
        out.append(_C.slice(x, [axis], [start], [start + s]))
        start += s
    return out


def gather(x, index, axis=None, name=None):
    axis = 0 if axis is None else C.integer("gather", "axis", axis)
    return _C.gather(x, index, axis)


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    C.tensor("flatten", "x", x)
    nd = max(x.ndim, 1)  # a 0-d x flattens to [1]; its axes are 0 and -1 (torch, Paddle)
    s = C.axis("flatten", "start_axis", start_axis, nd)
    e = C.axis("flatten", "stop_axis", stop_axis, nd)
    if s > e:
        raise ValueError(f"flatten(): argument 'start_axis' ({start_axis}) must not come after "
                         f"'stop_axis' ({stop_axis})")
    if x.ndim == 0:
        return _C.reshape(x, [1])
    shape = x.shape
    merged = 1
    for d in shape[s:e + 1]:
        merged *= d
    # Every entry literal: reshape alone would read a merged 0 as "copy x's dim".
    return C.reshape_exact(x, shape[:s] + [merged] + shape[e + 1:])


def t(x, name=None):
    C.tensor("t", "x", x)
    if x.ndim > 2:  # Paddle and torch: t() is for 0-D, 1-D and 2-D tensors only
        raise ValueError(f"t(): argument 'x' must have at most 2 dimensions, but has {x.ndim}; "
                         f"use transpose() (or x.T) for more")
    return _C.transpose(x, list(range(x.ndim))[::-1])


def clone(x):
    return _C.assign(C.tensor("clone", "x", x))
