"""Elementwise functions of sparse tensors: the dense op applied to the stored
values (its kernels and gradients), the positions kept (docs/sparse.md)."""

from __future__ import annotations

import math
from typing import Callable, Protocol

from .. import _C
from ..framework.dtype import convert_dtype
from ..framework.typing import DTypeLike, Tensor
from ._base import check_number, check_sparse, map_values

__all__ = [
    "abs",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "sin",
    "sinh",
    "tan",
    "tanh",
    "sqrt",
    "square",
    "log1p",
    "expm1",
    "neg",
    "pow",
    "rad2deg",
    "deg2rad",
    "cast",
    "isnan",
]


class _Unary(Protocol):
    """The signature of the functions _unary makes."""

    def __call__(self, x: Tensor, name: str | None = None) -> Tensor: ...


def _unary(name: str, dense: Callable[[Tensor], Tensor], linear: bool = False) -> _Unary:
    def fn(x: Tensor, name: str | None = None) -> Tensor:
        return map_values(check_sparse(name_, "x", x), dense, linear)

    name_ = name
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""{name} of the stored values of a sparse tensor; the positions stay.

    Args:
        x (Tensor): a sparse COO or CSR tensor.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor of x's format and positions.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-0.5, 0.0, 0.5]).to_sparse_coo(1)
        >>> oar.sparse.{name}(x).nnz()
        2
    """
    return fn


abs = _unary("abs", _C.abs)  # noqa: A001 - Paddle's name
asin = _unary("asin", _C.asin)
asinh = _unary("asinh", _C.asinh)
atan = _unary("atan", _C.atan)
atanh = _unary("atanh", _C.atanh)
sin = _unary("sin", _C.sin)
sinh = _unary("sinh", _C.sinh)
tan = _unary("tan", _C.tan)
tanh = _unary("tanh", _C.tanh)
sqrt = _unary("sqrt", _C.sqrt)
square = _unary("square", _C.square)
log1p = _unary("log1p", _C.log1p)
expm1 = _unary("expm1", _C.expm1)
neg = _unary("neg", _C.neg, linear=True)
rad2deg = _unary("rad2deg", lambda v: _C.scale(v, 180.0 / math.pi, 0.0, True), linear=True)
deg2rad = _unary("deg2rad", lambda v: _C.scale(v, math.pi / 180.0, 0.0, True), linear=True)
isnan = _unary("isnan", _C.isnan)


def pow(x: Tensor, factor: float, name: str | None = None) -> Tensor:  # noqa: A001 - Paddle's name
    """The stored values of a sparse tensor raised to `factor`; the positions stay.

    Args:
        x (Tensor): a sparse COO or CSR tensor.
        factor (float|int): the exponent.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor of x's format and positions.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, 0.0, 3.0]).to_sparse_coo(1)
        >>> oar.sparse.pow(x, 2).values().tolist()
        [4.0, 9.0]
    """
    check_sparse("pow", "x", x)
    factor = check_number("pow", "factor", factor)
    return map_values(x, lambda v: v**factor)


def cast(
    x: Tensor,
    index_dtype: DTypeLike | None = None,
    value_dtype: DTypeLike | None = None,
    name: str | None = None,
) -> Tensor:
    """A sparse tensor with its values cast to value_dtype.

    oar stores indices (and crows/cols) as int64 whatever index_dtype says;
    index_dtype is checked to be an integer dtype and otherwise has no effect.

    Args:
        x (Tensor): a sparse COO or CSR tensor.
        index_dtype (str|oar.dtype, optional): int32 or int64.
        value_dtype (str|oar.dtype, optional): the new dtype of the values.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor of x's format and positions.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2, 0, 1]).to_sparse_coo(1)
        >>> oar.sparse.cast(x, 'int32', 'float64').dtype
        oar.float64
    """
    check_sparse("cast", "x", x)
    if index_dtype is not None and convert_dtype(index_dtype).name not in ("int32", "int64"):
        raise TypeError(f"cast(): argument 'index_dtype' must be int32 or int64, got {index_dtype}")
    if value_dtype is None:
        return x
    dt = convert_dtype(value_dtype)
    return map_values(x, lambda v: _C.cast(v, dt))
