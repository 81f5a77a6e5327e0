"""Tensor to numpy and Python: Tensor.numpy() (a copy, as Paddle's), __array__ (the
zero-copy path: np.asarray(x)) and tolist()."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..framework.dtype import bfloat16
from ..framework.memory import check_objects
from ..framework.typing import Tensor

__all__ = ["numpy", "tolist"]


# ---- numpy --------------------------------------------------------------------------
def numpy(self: Any) -> np.ndarray:
    """A copy of the data as a writable numpy array, as Paddle's: writing into it leaves
    the tensor alone. bfloat16 comes back as raw uint16 and the float8 dtypes as raw
    int8, as Paddle. For the data without a copy, np.asarray(x) (read-only when x
    requires grad) or DLPack (np.from_dlpack(x))."""
    return np.array(self._readonly_buffer())


def _view(t: Any, writable: bool = False) -> np.ndarray:
    """The data as a numpy array sharing t's memory (no copy), with numpy()'s dtypes:
    oar's own readers use it where numpy() would copy. Read-only unless writable (and
    even then when t requires grad): a writable view lets numpy write the memory behind
    oar's back, so oar keeps nothing derived from it (Note [A convolution's weight
    packed across calls])."""
    return np.asarray(t._buffer() if writable else t._readonly_buffer())


def _values(self, writable: bool = False):
    """The data as a numpy array of its values, without a copy where numpy holds the
    dtype: bfloat16 and float8 (whose numpy arrays hold raw bits) as float32."""
    if self.dtype.name.startswith("float8"):
        return _view(self.astype("float32"))
    a = _view(self, writable)
    return _bf16_to_f32(a) if self.dtype is bfloat16 else a


def __array__(self: Tensor, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
    # np.asarray(x): a view numpy may write, as the buffer protocol gives
    a = _values(self, writable=not copy)
    if dtype is not None:
        a = a.astype(dtype, copy=False)
    return a.copy() if copy else a


def _bf16_to_f32(a):
    # np.asarray: a shift of a 0-d array gives a numpy scalar, whose view() is not an
    # array (and __array__ must return one).
    return np.asarray(a.astype(np.uint32) << 16).view(np.float32)


def tolist(self: Any) -> list[Any] | bool | int | float | complex:
    shape = list(self.shape)
    if 0 in shape:  # nested [] up to the first 0, as torch: numpy cannot hold [0, 2**62]
        # one list per index before the first 0: [2**62, 0] would build 2**62 of them
        check_objects("tolist", "lists", math.prod(shape[: shape.index(0)]))

        def empty(dims):
            return [] if not dims or dims[0] == 0 else [empty(dims[1:]) for _ in range(dims[0])]

        return empty(shape)
    return _values(self).tolist()
