"""dtype predicates with Paddle's names: oar.is_complex, is_floating_point,
is_integer (functions and Tensor methods)."""
from . import _C
from .framework import check as C

Tensor = _C.Tensor


def is_complex(x):
    """True if x is a complex64 or complex128 tensor."""
    C.tensor("is_complex", "x", x)
    return x.dtype.is_complex


def is_floating_point(x):
    """True if x is a float16, bfloat16, float32 or float64 tensor."""
    C.tensor("is_floating_point", "x", x)
    return x.dtype.is_floating_point


def is_integer(x):
    """True if x is a uint8, int8, int16, int32 or int64 tensor."""
    C.tensor("is_integer", "x", x)
    return x.dtype.name in ("uint8", "int8", "int16", "int32", "int64")


def _is_complex(self):
    return is_complex(self)


def _is_floating_point(self):
    return is_floating_point(self)


def _is_integer(self):
    return is_integer(self)


for _name, _method in (("is_complex", _is_complex), ("is_floating_point", _is_floating_point),
                       ("is_integer", _is_integer)):
    setattr(Tensor, _name, _method)
