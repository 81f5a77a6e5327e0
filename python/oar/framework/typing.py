"""The types oar's annotations use (PEP 484), as Paddle's paddle._typing names them.

TensorLike  what to_tensor accepts: a Tensor, a numpy array, a Python number or a
            nested sequence of numbers
ShapeLike   a shape: a sequence of ints (or of one-element int tensors), or a 1-D
            int tensor
DTypeLike   a dtype: oar.float32, 'float32', a numpy dtype or type, Python's
            bool/int/float/complex
AxisLike    one axis or several (None: all)
PlaceLike   a place: 'cpu', oar.CPUPlace()
IntsLike    one int for every dimension, or one int per dimension (kernel sizes,
            strides, dilations)
PaddingLike a convolution's or pooling's padding: 'SAME' or 'VALID', an int, one int
            per dimension, two (before, after) per dimension, or one pair per
            dimension of the input
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
IntsLike = Union[int, Sequence[int]]
PaddingLike = Union[str, int, Sequence[int], Sequence[Sequence[int]]]

__all__ = [
    "Tensor",
    "TensorLike",
    "ShapeLike",
    "DTypeLike",
    "AxisLike",
    "PlaceLike",
    "IntsLike",
    "PaddingLike",
]
