"""Paddle's tensor attributes (paddle/tensor/attribute.py): the dtype queries (is_complex,
is_floating_point, is_integer), rank, shape and check_shape."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _C
from ..framework import check as C
from ..framework.check import _zero_d
from ..framework.dtype import int32, int64

Tensor = _C.Tensor

__all__ = ["is_complex", "is_floating_point", "is_integer", "rank", "shape", "check_shape"]


def is_complex(x: Tensor) -> bool:
    """True if x is a complex64 or complex128 tensor."""
    C.tensor("is_complex", "x", x)
    return x.dtype.is_complex


def is_floating_point(x: Tensor) -> bool:
    """True if x is a float16, bfloat16, float32 or float64 tensor."""
    C.tensor("is_floating_point", "x", x)
    return x.dtype.is_floating_point


def is_integer(x: Tensor) -> bool:
    """True if x is a uint8, int8, int16, int32 or int64 tensor."""
    C.tensor("is_integer", "x", x)
    return x.dtype.name in ("uint8", "int8", "int16", "int32", "int64")


# ---- shapes, counts, reductions -------------------------------------------------------------
def rank(input: Tensor) -> Tensor:  # noqa: A002
    """The number of dimensions of input, as a 0-D int32 tensor."""
    C.tensor("rank", "input", input)
    return _zero_d(input.ndim, int32)


def shape(input: Tensor) -> Tensor:  # noqa: A002
    """The shape of input as a 1-D int64 tensor (it carries no gradient)."""
    C.tensor("shape", "input", input)
    return _C._from_buffer(np.asarray(list(input.shape), dtype=np.int64), int64)


def check_shape(
    shape: Any,
    op_name: str,  # noqa: A002
    expected_shape_type: Any = (list, tuple, Tensor),
    expected_element_type: Any = (int, Tensor),
    expected_tensor_dtype: tuple[str, ...] = ("int32", "int64"),
) -> None:
    """Paddle's check of a shape argument for building static graphs. oar runs eagerly,
    where Paddle returns at once (the kernels check shapes as they run); so does this."""
    return None
