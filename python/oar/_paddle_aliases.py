"""Paddle 3.3's top-level names that are plain Python over oar's ops: the constants
(e, pi, inf, nan, newaxis), the aliases Paddle added for PyTorch users (cat, clamp, div,
sub, swapaxes, take_along_dim, ger, vecdot, ...), and the functional layers and the
autocast context it also exports at the top level. The top-level in-place functions are
in _paddle_inplace.py and the dtype aliases (float, double, ...) in _dtype_aliases.py;
docs/paddle_api_extra.md lists them all.
"""
from __future__ import annotations

import builtins
import functools
import inspect
import math
from typing import Any, Sequence

import numpy as np

from . import _C, amp
from .framework import out as _out
from .framework import check as C
from ._creation import normal as _normal, seed, standard_normal
from .framework.dtype import bool_, int64
from ._framework_extra import tensor as _tensor_namespace
from ._manipulation import outer
from ._math_logic import clip
from .nn.functional import (adaptive_avg_pool1d, conv1d, conv2d, conv3d,  # noqa: F401
                            group_norm, layer_norm)

Tensor = _C.Tensor
_float = builtins.float  # the builtin, spelled apart from Paddle's dtype alias oar.float

__all__ = [
    # constants
    "e", "pi", "inf", "nan", "newaxis",
    # aliases and small functions
    "cat", "concatenate", "clamp", "div", "sub", "true_divide", "swapaxes", "swapdims",
    "take_along_dim", "ger", "reverse", "vecdot", "view_as_complex", "view_as_real",
    "manual_seed", "as_tensor", "shape", "check_shape", "autocast", "log_normal", "conv1d",
    "conv2d", "conv3d", "layer_norm", "group_norm", "adaptive_avg_pool1d",
]


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
                        raise ValueError(f"{fn.__name__}(): cannot specify both '{param}' and "
                                         f"its alias '{alias}'")
            return fn(*args, **kwargs)
        return wrapper
    return decorate


# ---- constants ------------------------------------------------------------------------------
e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None


# ---- aliases --------------------------------------------------------------------------------
@_aliases({"tensors": "x", "dim": "axis"}, strict=True)
def cat(x: Sequence[Tensor], axis: int | Tensor = 0, name: str | None = None, *,
        out: Tensor | None = None) -> Tensor:
    """Joins the tensors along axis (concat; `tensors`/`dim` are accepted for x/axis)."""
    a = C.integer("cat", "axis", axis)
    return _out.write_out(out, _C.concat(x, a), "cat")


concatenate = cat


@_aliases({"input": "x"}, strict=False)
def clamp(x: Tensor, min: float | None = None, max: float | None = None,  # noqa: A002
          name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """clip(x, min, max): the values limited to [min, max] (None: no bound)."""
    return _out.write_out(out, clip(x, min, max), "clamp")


def _trunc_divide(x, y):
    """x / y rounded toward zero; integer tensors stay integers (C's division)."""
    if isinstance(x, Tensor) and isinstance(y, Tensor) and not (
            x.dtype.is_floating_point or x.dtype.is_complex or x.dtype is bool_
            or y.dtype.is_floating_point or y.dtype.is_complex or y.dtype is bool_):
        q = _C.floor_divide(x, y)
        inexact = _C.not_equal(_C.remainder(x, y), _C.full_like(q, 0))
        signs_differ = _C.not_equal(_C.less_than(x, _C.full_like(x, 0)),
                                    _C.less_than(y, _C.full_like(y, 0)))
        return _C.add(q, _C.cast(_C.logical_and(inexact, signs_differ), q.dtype))
    return _C.trunc(_C.divide(x, y))


_ROUNDING = {None: _C.divide, "trunc": _trunc_divide, "floor": _C.floor_divide}


def _rounding(api, mode):
    if not isinstance(mode, (str, type(None))) or mode not in _ROUNDING:
        raise ValueError(f"{api}(): expected rounding_mode to be one of None, 'trunc', or "
                         f"'floor' but found {mode!r}")
    return _ROUNDING[mode]


@_aliases({"input": "x", "other": "y"}, strict=False)
def div(x: Tensor, y: Tensor, name: str | None = None, *, rounding_mode: str | None = None,
        out: Tensor | None = None) -> Tensor:
    """x / y (divide); rounding_mode 'trunc' rounds toward zero, 'floor' down."""
    return _out.write_out(out, _rounding("div", rounding_mode)(x, y), "div")




def true_divide(input: Tensor, other: Tensor, *,  # noqa: A002 - Paddle's names
                out: Tensor | None = None) -> Tensor:
    """input / other, without rounding (divide)."""
    return div(input, other, out=out)


def _scaled(y, alpha):
    return y * alpha if alpha != 1 else y


@_aliases({"input": "x", "other": "y"}, strict=False)
def sub(x: Tensor, y: Tensor, name: str | None = None, *, alpha: float = 1,
        out: Tensor | None = None) -> Tensor:
    """x - alpha * y (subtract)."""
    return _out.write_out(out, _C.subtract(x, _scaled(y, alpha)), "sub")




# Paddle's swapaxes and swapdims are transpose under its transpose_decorator: this is
# the signature they show; dim0/dim1 (axis0/axis1) arrive positionally or as keywords.
_P = inspect.Parameter
_SWAP_SIGNATURE = inspect.Signature([
    _P("x", _P.POSITIONAL_OR_KEYWORD), _P("perm", _P.POSITIONAL_OR_KEYWORD),
    _P("name", _P.POSITIONAL_OR_KEYWORD, default=None)])


def swapaxes(*args: Any, **kwargs: Any) -> Tensor:
    """transpose(x, perm); swapaxes(x, dim0, dim1) (keywords dim0/dim1 or axis0/axis1,
    input for x) exchanges two axes, as PyTorch's."""
    if "input" in kwargs and "x" not in kwargs:
        kwargs["x"] = kwargs.pop("input")
    d0 = kwargs.pop("dim0", kwargs.pop("axis0", None))
    d1 = kwargs.pop("dim1", kwargs.pop("axis1", None))
    if d0 is None and len(args) > 1 and isinstance(args[1], int):
        d0 = args[1]
    if d1 is None and len(args) > 2 and isinstance(args[2], int):
        d1 = args[2]
    if d0 is not None and d1 is not None:
        x = C.tensor("swapaxes", "x", kwargs["x"] if "x" in kwargs else args[0] if args else None)
        perm = list(range(x.ndim))
        d0 = C.axis("swapaxes", "dim0", d0, x.ndim)
        d1 = C.axis("swapaxes", "dim1", d1, x.ndim)
        perm[d0], perm[d1] = perm[d1], perm[d0]
        kwargs["perm"] = perm
        args = args[:1]
    try:
        bound = _SWAP_SIGNATURE.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"swapaxes(): {exc}") from None
    return _C.transpose(bound.arguments["x"], bound.arguments["perm"])


swapaxes.__signature__ = _SWAP_SIGNATURE  # type: ignore[attr-defined]
swapdims = swapaxes


@_aliases({"input": "arr", "dim": "axis"}, strict=True)
def take_along_dim(arr: Tensor, indices: Tensor, axis: int, broadcast: bool = True, *,
                   out: Tensor | None = None) -> Tensor:
    """take_along_axis: the values of arr at indices along axis."""
    return _out.write_out(out, _C.take_along_axis(arr, indices, axis, broadcast),
                          "take_along_dim")


@_aliases({"input": "x", "vec2": "y"}, strict=True)
def ger(x: Tensor, y: Tensor, name: str | None = None, *,
        out: Tensor | None = None) -> Tensor:
    """The outer product of x and y (outer)."""
    return _out.write_out(out, outer(x, y), "ger")


def reverse(x: Tensor, axis: Sequence[int] | int, name: str | None = None) -> Tensor:
    """x with the order of its elements reversed along axis (flip)."""
    return _C.flip(x, [axis] if isinstance(axis, int) else axis)


def vecdot(x: Tensor, y: Tensor, axis: int = -1, name: str | None = None) -> Tensor:
    """The dot products of the vectors along axis, sum(conj(x) * y, axis), broadcasting."""
    C.tensor("vecdot", "x", x)
    C.tensor("vecdot", "y", y)
    return (x.conj() * y).sum(axis=axis)


def view_as_complex(input: Tensor) -> Tensor:  # noqa: A002 - Paddle's name
    """The complex tensor whose last dimension of 2 holds (real, imag) (as_complex)."""
    return _C.as_complex(input)


def view_as_real(input: Tensor) -> Tensor:  # noqa: A002
    """The real tensor with a last dimension of 2 holding (real, imag) (as_real)."""
    return _C.as_real(input)


manual_seed = seed


def as_tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
              pin_memory: bool = False) -> Tensor:
    """A new tensor from data (Paddle's paddle.tensor, the same as oar.tensor(...))."""
    return _tensor_namespace(data, dtype, device, requires_grad, pin_memory)


def shape(input: Tensor) -> Tensor:  # noqa: A002
    """The shape of input as a 1-D int64 tensor (it carries no gradient)."""
    C.tensor("shape", "input", input)
    return _C._from_buffer(np.asarray(list(input.shape), dtype=np.int64), int64)


def check_shape(shape: Any, op_name: str,  # noqa: A002
                expected_shape_type: Any = (list, tuple, Tensor),
                expected_element_type: Any = (int, Tensor),
                expected_tensor_dtype: tuple[str, ...] = ("int32", "int64")) -> None:
    """Paddle's check of a shape argument for building static graphs. oar runs eagerly,
    where Paddle returns at once (the kernels check shapes as they run); so does this."""
    return None


def autocast(device_type: str | None, dtype: str = "float16", enabled: bool = True,
             cache_enabled: bool = True) -> Any:
    """auto_cast(enable=enabled, dtype=dtype), PyTorch's way round; device_type and
    cache_enabled are not used (as in Paddle)."""
    return amp.auto_cast(enable=enabled, dtype=dtype)


def log_normal(mean: float | Tensor = 1.0, std: float | Tensor = 2.0,
               shape: Sequence[int] | None = None, name: str | None = None) -> Tensor:  # noqa: A002
    """exp of normal samples: log-normal samples with the underlying normal's mean and std
    (numbers with shape, or tensors giving the shape, as paddle.normal)."""
    if isinstance(mean, Tensor):
        if isinstance(std, Tensor):
            std = _C.reshape(std if std.dtype is mean.dtype else _C.cast(std, mean.dtype),
                             list(mean.shape))
        else:
            std = _float(C.number("log_normal", "std", std))
        z = standard_normal(list(mean.shape), mean.dtype) * std + mean
    elif isinstance(std, Tensor):
        m = _float(C.number("log_normal", "mean", mean))
        z = standard_normal(list(std.shape), std.dtype) * std + m
    else:
        z = _normal(mean, std, shape)
    return _C.exp(z)
