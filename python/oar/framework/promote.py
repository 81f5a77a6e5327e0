"""Dtype promotion in the Python wrappers: the kind order bool < integers < floating <
complex, and the common dtype of several tensors."""

from __future__ import annotations

import numpy as np

from .. import _C
from .dtype import bool_, convert_dtype, default_float
from .typing import Tensor


# ---- helpers --------------------------------------------------------------------------------
def _rank(d):
    """bool < integers < floating < complex: the kind order of dtype promotion."""
    return 3 if d.is_complex else 2 if d.is_floating_point else 0 if d is bool_ else 1


def common(api: str, *xs: Tensor) -> tuple[Tensor, ...]:
    """The tensors cast to one dtype: the higher kind wins (an integer tensor meeting a
    floating one becomes that float dtype); two floats are left to the op's promotion; two
    integer dtypes meet in numpy's result type."""
    ds = [x.dtype for x in xs]
    if all(d is ds[0] for d in ds):
        return xs
    top = max(_rank(d) for d in ds)
    if top >= 2:
        first = next(d for d in ds if _rank(d) == top)
        return tuple(x if _rank(x.dtype) >= 2 else _C.cast(x, first) for x in xs)
    target = convert_dtype(np.result_type(*[np.dtype(d.name) for d in ds]).name)
    return tuple(x if x.dtype is target else _C.cast(x, target) for x in xs)


def as_float(x: Tensor) -> Tensor:
    """x itself when floating or complex, else x in the default floating dtype."""
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return x
    return _C.cast(x, default_float())
