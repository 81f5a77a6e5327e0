"""Paddle's signatures for the math and logic ops whose declarations cannot state them
(src/oar/ops/math.yaml, logic.yaml), and the Tensor operators // % & | ^ ~.

clip, nan_to_num, lerp and masked_fill take None, Python numbers or Tensors where the
declared op takes a float or a Tensor: clip's None bounds become infinities (no bound),
nan_to_num's None replacements the dtype's largest and lowest finite values, and numbers
become 0-d tensors of x's dtype. The functions replace oar.<op>, oar.<op>_ and the Tensor
methods; the generated _C functions stay reachable as oar._C.<op>.
"""
import math
import numbers
import sys
import types

from . import _C
from .framework import check as C
from .framework.dtype import bfloat16, bool_, float16, float32, float64, int64

Tensor = _C.Tensor


def _bound(api, name, v, none):
    return none if v is None else float(C.number(api, name, v))


def clip(x, min=None, max=None, name=None):  # noqa: A002 - Paddle's names
    C.tensor("clip", "x", x)
    return _C.clip(x, _bound("clip", "min", min, -math.inf), _bound("clip", "max", max, math.inf))


def clip_(x, min=None, max=None, name=None):  # noqa: A002
    C.tensor("clip_", "x", x)
    return _C.clip_(x, _bound("clip_", "min", min, -math.inf),
                    _bound("clip_", "max", max, math.inf))


# finfo(dtype).max of the floating dtypes, as constants: building a finfo per call took
# half of nan_to_num's time.
_LARGEST_FINITE = types.MappingProxyType({
    float16: 65504.0, bfloat16: 3.3895313892515355e38,  # (2 - 2**-7) * 2**127
    float32: 3.4028234663852886e38, float64: sys.float_info.max})


def _nan_args(api, x, nan, posinf, neginf):
    """None is x's dtype's largest (lowest) finite value; a given value is used as is
    (posinf=inf keeps +inf, as in PyTorch and Paddle). Integers have no infinities."""
    big = _LARGEST_FINITE.get(x.dtype, math.inf)
    return (float(C.number(api, "nan", nan)), _bound(api, "posinf", posinf, big),
            _bound(api, "neginf", neginf, -big))


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    C.tensor("nan_to_num", "x", x)
    return _C.nan_to_num(x, *_nan_args("nan_to_num", x, nan, posinf, neginf))


def nan_to_num_(x, nan=0.0, posinf=None, neginf=None, name=None):
    C.tensor("nan_to_num_", "x", x)
    return _C.nan_to_num_(x, *_nan_args("nan_to_num_", x, nan, posinf, neginf))


def _like_x(api, name, x, v):
    """v as a tensor of x's dtype: a number becomes 0-d; a Tensor is cast (differentiably),
    unless the cast would drop a complex v's imaginary part."""
    if isinstance(v, Tensor):
        if v.dtype.is_complex and not x.dtype.is_complex:
            raise TypeError(f"{api}(): argument '{name}' is {v.dtype.name} but x is "
                            f"{x.dtype.name}: casting it to x's dtype would drop its imaginary "
                            f"part; make x complex first")
        return v if v.dtype is x.dtype else _C.cast(v, x.dtype)
    return _C.full([], C.number(api, name, v), x.dtype)


def lerp(x, y, weight, name=None):
    C.tensor("lerp", "x", x)
    return _C.lerp(x, y, _like_x("lerp", "weight", x, weight))


def lerp_(x, y, weight, name=None):
    C.tensor("lerp_", "x", x)
    return _C.lerp_(x, y, _like_x("lerp_", "weight", x, weight))


def masked_fill(x, mask, value, name=None):
    C.tensor("masked_fill", "x", x)
    return _C.masked_fill(x, mask, _like_x("masked_fill", "value", x, value))


def masked_fill_(x, mask, value, name=None):
    C.tensor("masked_fill_", "x", x)
    return _C.masked_fill_(x, mask, _like_x("masked_fill_", "value", x, value))


# Docstrings: the generated ones (Args, Returns, Examples), whose examples use these
# wrappers' defaults.
for _f in (clip, clip_, nan_to_num, nan_to_num_, lerp, lerp_, masked_fill, masked_fill_):
    _f.__doc__ = getattr(_C, _f.__name__).__doc__

WRAPPERS = {f.__name__: f for f in (clip, clip_, nan_to_num, nan_to_num_, lerp, lerp_,
                                    masked_fill, masked_fill_)}


# ---- operators ------------------------------------------------------------------------
def _scalar_kind(v):
    if isinstance(v, (bool,)) or type(v).__name__ == "bool_":
        return "bool"
    if isinstance(v, numbers.Integral):
        return "int"
    if isinstance(v, numbers.Real):
        return "float"
    return None


def _operands(x, other):
    """(x, other) as tensors, or None when other is neither a Tensor nor a real number.
    With a Python number, the dtype is Paddle's (as for + - * /): a float tensor keeps
    its dtype, a float number makes an integer or bool tensor float32, an int number
    makes a bool tensor int64."""
    if isinstance(other, Tensor):
        return x, other
    kind = _scalar_kind(other)
    if kind is None:
        return None
    dt = x.dtype
    if not dt.is_floating_point:
        if kind == "float":
            dt = float32
        elif dt is bool_ and kind == "int":
            dt = int64
    xc = x if dt is x.dtype else _C.cast(x, dt)
    return xc, _C.full([], other, dt)


def _binary(op, reflected=False):
    def method(self, other):
        pair = _operands(self, other)
        if pair is None:
            return NotImplemented
        a, b = pair
        return op(b, a) if reflected else op(a, b)
    return method


def _inplace(op_, name):
    def method(self, other):
        pair = _operands(self, other)
        if pair is None:
            return NotImplemented
        a, b = pair
        if a is not self:
            raise TypeError(f"{name}: the result of dtype {a.dtype.name} cannot be written in "
                            f"place into a tensor of dtype {self.dtype.name}")
        return op_(self, b)
    return method


def _invert(self):
    return _C.bitwise_not(self)


_OPERATORS = {
    "__floordiv__": _binary(_C.floor_divide), "__rfloordiv__": _binary(_C.floor_divide, True),
    "__ifloordiv__": _inplace(_C.floor_divide_, "//="),
    "__mod__": _binary(_C.remainder), "__rmod__": _binary(_C.remainder, True),
    "__imod__": _inplace(_C.remainder_, "%="),
    "__and__": _binary(_C.bitwise_and), "__rand__": _binary(_C.bitwise_and, True),
    "__iand__": _inplace(_C.bitwise_and_, "&="),
    "__or__": _binary(_C.bitwise_or), "__ror__": _binary(_C.bitwise_or, True),
    "__ior__": _inplace(_C.bitwise_or_, "|="),
    "__xor__": _binary(_C.bitwise_xor), "__rxor__": _binary(_C.bitwise_xor, True),
    "__ixor__": _inplace(_C.bitwise_xor_, "^="),
    "__invert__": _invert,
}


# The Tensor methods: the functions with x as self (Tensor methods name it self).
def _clip_method(self, min=None, max=None, name=None):  # noqa: A002
    return clip(self, min, max)


def _clip__method(self, min=None, max=None, name=None):  # noqa: A002
    return clip_(self, min, max)


def _nan_to_num_method(self, nan=0.0, posinf=None, neginf=None, name=None):
    return nan_to_num(self, nan, posinf, neginf)


def _nan_to_num__method(self, nan=0.0, posinf=None, neginf=None, name=None):
    return nan_to_num_(self, nan, posinf, neginf)


def _lerp_method(self, y, weight, name=None):
    return lerp(self, y, weight)


def _lerp__method(self, y, weight, name=None):
    return lerp_(self, y, weight)


def _masked_fill_method(self, mask, value, name=None):
    return masked_fill(self, mask, value)


def _masked_fill__method(self, mask, value, name=None):
    return masked_fill_(self, mask, value)


_METHODS = {}
for _f in (_clip_method, _clip__method, _nan_to_num_method, _nan_to_num__method, _lerp_method,
           _lerp__method, _masked_fill_method, _masked_fill__method):
    _name = _f.__name__[1:-len("_method")]
    _f.__name__ = _f.__qualname__ = _name
    _f.__doc__ = getattr(Tensor, _name).__doc__  # the generated method's docstring
    _METHODS[_name] = _f
for _k, _v in {**_OPERATORS, **_METHODS}.items():
    setattr(Tensor, _k, _v)
