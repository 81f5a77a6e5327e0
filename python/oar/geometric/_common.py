"""Argument checks shared by oar.geometric's functions."""

from .. import _C
from ..framework import check as C

Tensor = _C.Tensor

REDUCE = {"sum": 0, "mean": 1, "max": 2, "min": 3}
MESSAGE = ("add", "sub", "mul", "div")


def index(api, name, t):
    """A 1-D int32/int64 tensor."""
    C.tensor(api, name, t)
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument '{name}' must be an int32 or int64 tensor, but got {t.dtype.name}"
        )
    if t.ndim != 1:
        raise ValueError(f"{api}(): argument '{name}' must be 1-D, but has shape {t.shape}")
    return t


def reduce_code(api, reduce_op):
    if reduce_op not in REDUCE:
        raise ValueError(
            f"{api}(): argument 'reduce_op' must be 'sum', 'mean', 'max' or 'min', "
            f"but got {reduce_op!r}"
        )
    return REDUCE[reduce_op]


def message(api, message_op):
    if message_op not in MESSAGE:
        raise ValueError(
            f"{api}(): argument 'message_op' must be 'add', 'sub', 'mul' or 'div', "
            f"but got {message_op!r}"
        )
    return message_op
