"""Argument checks shared by the Python wrappers, and an exact reshape.

A wrapper that touches an argument's attributes (x.ndim, x.shape) before any _C call
would leak an AttributeError (or KeyError, ZeroDivisionError) for bad input; these
raise the typed error the generated bindings raise, in their wording:
"<api>(): argument '<name>' must be ..., but got ...".
"""

from __future__ import annotations

import numbers
from typing import Any, Sequence

from .. import _C
import builtins
import functools
from .place import _to_place
from .dtype import convert_dtype, dtype
from .typing import DTypeLike

Tensor = _C.Tensor


def _kind(v):
    return "None" if v is None else type(v).__name__


def tensor(api: str, name: str, v: object) -> Tensor:
    if not isinstance(v, Tensor):
        raise TypeError(f"{api}(): argument '{name}' must be Tensor, but got {_kind(v)}")
    return v


def is_int(v: object) -> bool:
    """Whether v is an integer that is not a bool: a Python int or a numpy integer
    (np.int64(3), what indexing or summing a numpy array gives), as Paddle's Python takes
    them where an int is expected."""
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def size(who: str, name: str, v: object, minimum: int = 1) -> int:
    """A size or count (a layer's features, a batch size, a step count): an int or numpy
    integer >= minimum, as a Python int; else ValueError "<who>: argument '<name>' must be
    a positive int, got ..." (a non-negative int for minimum 0)."""
    if not is_int(v) or v < minimum:
        what = {0: "a non-negative int", 1: "a positive int"}.get(minimum, f"an int >= {minimum}")
        raise ValueError(f"{who}: argument '{name}' must be {what}, got {v!r}")
    return int(v)  # type: ignore[call-overload]


def integral(api: str, name: str, v: object) -> int:
    """integer() that also takes a float holding a whole number (5.0, np.float64(5)), as
    Paddle's linspace and logspace take num; a fractional float is a TypeError (Paddle
    would truncate 5.5 to 5, where its documentation asks for an int)."""
    if isinstance(v, numbers.Real) and not isinstance(v, (bool, numbers.Integral, Tensor)):
        f = float(v)
        if not f.is_integer():
            raise TypeError(
                f"{api}(): argument '{name}' must be int (or a float holding a whole "
                f"number), but got {v!r}"
            )
        return int(f)
    return integer(api, name, v)


def integer(api: str, name: str, v: object) -> int:
    """A Python int or numpy integer (not bool), or a one-element integer Tensor (Paddle
    accepts those)."""
    if (
        isinstance(v, Tensor)
        and v.size == 1
        and not v.dtype.is_floating_point
        and v.dtype.name != "bool"
    ):
        return int(v.item())
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{api}(): argument '{name}' must be int, but got {_kind(v)}")
    return int(v)


def number(api: str, name: str, v: object) -> Any:  # a Python number, or a numpy scalar as given
    """A real Python number or a one-element Tensor, as a Python int/float/bool."""
    if isinstance(v, Tensor):
        if v.size != 1:
            raise ValueError(
                f"{api}(): argument '{name}' must be a number or a one-element "
                f"Tensor, but got a Tensor of shape {v.shape}"
            )
        return v.item()
    if not isinstance(v, numbers.Real):
        raise TypeError(f"{api}(): argument '{name}' must be a number, but got {_kind(v)}")
    return v


def axis(api: str, name: str, v: object, ndim: int, what: str = "a tensor") -> int:
    """An axis in [-ndim, ndim), made non-negative (IndexError, as the C++ ops)."""
    a = integer(api, name, v)
    if not -ndim <= a < ndim:
        raise IndexError(
            f"{api}(): argument '{name}' ({a}) is out of range for {what} of rank "
            f"{ndim}: expected {-ndim} <= {name} < {ndim}"
        )
    return a + ndim if a < 0 else a


def reshape_exact(x: Tensor, shape: Sequence[Any]) -> Tensor:
    """reshape(x, shape) with every entry literal, autograd kept.

    _C.reshape reads a 0 as "copy x's dimension here" (Paddle's rule), so a target with
    a literal 0 is only right where x happens to have a 0 at that position. For such a
    target, x (empty then) is first given len(shape) leading dims, size 0 exactly where
    the target has a 0 (unsqueeze, then an empty slice); reshape then copies those 0s."""
    shape = [int(s) for s in shape]
    if 0 not in shape:
        return _C.reshape(x, shape)
    if x.size:
        raise ValueError(
            f"reshape(): cannot reshape a tensor of shape {x.shape} ({x.size} "
            f"elements) to {shape} (0 elements)"
        )
    zeros = [i for i, s in enumerate(shape) if s == 0]
    z = _C.unsqueeze(x, list(range(len(shape))))
    z = _C.slice(z, zeros, [0] * len(zeros), [0] * len(zeros))
    return _C.reshape(z, shape)


def like(api: str, name: str, v: object, x: Tensor) -> Tensor:
    """v as a tensor: a Tensor as is, a Python number as a 0-d tensor of x's dtype."""
    if isinstance(v, Tensor):
        return v
    return _C.full([], number(api, name, v), x.dtype)


_one_axis = axis  # axes() below has a parameter named axis


def axes(api: str, name: str, axis: object, ndim: int) -> list[int]:
    """A sorted list of distinct non-negative axes from None (all), an int or a sequence."""
    if axis is None:
        return list(builtins_range(ndim))
    if isinstance(axis, (list, tuple)):
        out = sorted({_one_axis(api, name, a, max(ndim, 1)) for a in axis})
    else:
        out = [_one_axis(api, name, axis, max(ndim, 1))]
    return [a for a in out if a < ndim] if ndim else []


builtins_range = builtins.range  # `range` below is Paddle's


def _zero_d(value, dtype):
    return _C.full([], value, dtype)


def C_dtype(api: str, d: DTypeLike) -> dtype:  # noqa: N802 - mirrors C.tensor/C.integer
    try:
        return convert_dtype(d)
    except TypeError as e:
        raise TypeError(f"{api}(): argument 'dtype': {e}") from None


def _cpu_device(api, device):
    if device is not None:
        _to_place(device, api)


# ---- Paddle's keyword aliases ---------------------------------------------------------------
def _aliases(mapping, strict):
    """Accepts Paddle's alias keywords (the PyTorch names: input, other, dim, ...) for the
    wrapped function's parameters; its signature stays the one shown. Passing both names
    is a ValueError where Paddle's ParamAliasDecorator raises it (strict), else the alias
    is left in place for Python's TypeError, as Paddle's param_*_alias wrappers do."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for alias, param in mapping.items():
                if alias in kwargs:
                    if param not in kwargs:
                        kwargs[param] = kwargs.pop(alias)
                    elif strict:
                        raise ValueError(
                            f"{fn.__name__}(): cannot specify both '{param}' and "
                            f"its alias '{alias}'"
                        )
            return fn(*args, **kwargs)

        return wrapper

    return decorate
