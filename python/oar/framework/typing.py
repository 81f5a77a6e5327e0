"""The types oar's annotations use (PEP 484), as Paddle's paddle._typing names them.

    TensorLike  what to_tensor accepts: a Tensor, a numpy array, a Python number or a
                nested sequence of numbers
    ShapeLike   a shape: a sequence of ints (or of one-element int tensors), or a 1-D
                int tensor
    DTypeLike   a dtype: oar.float32, 'float32', a numpy dtype or type, Python's
                bool/int/float/complex
    AxisLike    one axis or several (None: all)
    PlaceLike   a place: 'cpu', oar.CPUPlace()
"""
from __future__ import annotations

from typing import Sequence, Union

import numpy as np

from .. import _C
from .dtype import Place, dtype

Tensor = _C.Tensor

TensorLike = Union[Tensor, np.ndarray, np.generic, bool, int, float, complex, Sequence]
ShapeLike = Union[Sequence[Union[int, Tensor]], Tensor]
DTypeLike = Union[dtype, str, np.dtype, type]
AxisLike = Union[int, Sequence[int], None]
PlaceLike = Union[str, Place]

__all__ = ["Tensor", "TensorLike", "ShapeLike", "DTypeLike", "AxisLike", "PlaceLike"]
