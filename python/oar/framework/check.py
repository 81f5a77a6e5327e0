"""Argument checks shared by the Python wrappers, and an exact reshape.

A wrapper that touches an argument's attributes (x.ndim, x.shape) before any _C call
would leak an AttributeError (or KeyError, ZeroDivisionError) for bad input; these
raise the typed error the generated bindings raise, in their wording:
"<api>(): argument '<name>' must be ..., but got ...".
"""
import numbers

from .. import _C

Tensor = _C.Tensor


def _kind(v):
    return "None" if v is None else type(v).__name__


def tensor(api, name, v):
    if not isinstance(v, Tensor):
        raise TypeError(f"{api}(): argument '{name}' must be Tensor, but got {_kind(v)}")
    return v


def integer(api, name, v):
    """A Python int (not bool), or a one-element integer Tensor (Paddle accepts those)."""
    if isinstance(v, Tensor) and v.size == 1 and not v.dtype.is_floating_point \
            and v.dtype.name != "bool":
        return int(v.item())
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{api}(): argument '{name}' must be int, but got {_kind(v)}")
    return int(v)


def number(api, name, v):
    """A real Python number or a one-element Tensor, as a Python int/float/bool."""
    if isinstance(v, Tensor):
        if v.size != 1:
            raise ValueError(f"{api}(): argument '{name}' must be a number or a one-element "
                             f"Tensor, but got a Tensor of shape {v.shape}")
        return v.item()
    if not isinstance(v, numbers.Real):
        raise TypeError(f"{api}(): argument '{name}' must be a number, but got {_kind(v)}")
    return v


def axis(api, name, v, ndim, what="a tensor"):
    """An axis in [-ndim, ndim), made non-negative (IndexError, as the C++ ops)."""
    a = integer(api, name, v)
    if not -ndim <= a < ndim:
        raise IndexError(f"{api}(): argument '{name}' ({a}) is out of range for {what} of rank "
                         f"{ndim}: expected {-ndim} <= {name} < {ndim}")
    return a + ndim if a < 0 else a


def reshape_exact(x, shape):
    """reshape(x, shape) with every entry literal, autograd kept.

    _C.reshape reads a 0 as "copy x's dimension here" (Paddle's rule), so a target with
    a literal 0 is only right where x happens to have a 0 at that position. For such a
    target, x (empty then) is first given len(shape) leading dims, size 0 exactly where
    the target has a 0 (unsqueeze, then an empty slice); reshape then copies those 0s."""
    shape = [int(s) for s in shape]
    if 0 not in shape:
        return _C.reshape(x, shape)
    if x.size:
        raise ValueError(f"reshape(): cannot reshape a tensor of shape {x.shape} ({x.size} "
                         f"elements) to {shape} (0 elements)")
    zeros = [i for i, s in enumerate(shape) if s == 0]
    z = _C.unsqueeze(x, list(range(len(shape))))
    z = _C.slice(z, zeros, [0] * len(zeros), [0] * len(zeros))
    return _C.reshape(z, shape)
