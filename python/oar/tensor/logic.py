"""Comparisons and logic (Paddle's paddle/tensor/logic.py) beyond the C ops: the short
comparison names (gt, ge, lt, le, eq, ne, greater, less), bitwise_invert, is_empty,
is_tensor, isin."""

from __future__ import annotations

from typing import Any

from .. import _C
from ..framework import check as C
from ..framework.check import _zero_d
from ..framework.dtype import bool_, float64
from ..framework.out import api_write_out
from ..framework.promote import common
from .math import _aliased

Tensor = _C.Tensor

__all__ = [
    "gt",
    "ge",
    "lt",
    "le",
    "eq",
    "ne",
    "greater",
    "less",
    "bitwise_invert",
    "is_empty",
    "isin",
    "is_tensor",
]


gt = _aliased(_C.greater_than, "gt")


ge = _aliased(_C.greater_equal, "ge")


lt = _aliased(_C.less_than, "lt")


le = _aliased(_C.less_equal, "le")


eq = _aliased(_C.equal, "eq")


ne = _aliased(_C.not_equal, "ne")


greater = _aliased(_C.greater_than, "greater")


less = _aliased(_C.less_than, "less")


def bitwise_invert(x: Tensor, out: Tensor | None = None, name: str | None = None) -> Tensor:
    """~x bit by bit (Paddle's alias of bitwise_not)."""
    return api_write_out("bitwise_invert", out, _C.bitwise_not(x))


def is_empty(x: Tensor, name: str | None = None) -> Tensor:
    """Whether x has no elements, as a 0-D bool tensor."""
    C.tensor("is_empty", "x", x)
    return _zero_d(x.size == 0, bool_)


def isin(
    x: Tensor,
    test_x: Tensor,
    assume_unique: bool = False,
    invert: bool = False,
    name: str | None = None,
) -> Tensor:
    """Whether each element of x occurs in test_x (NaN never does), as a bool tensor of
    x's shape; invert negates it. assume_unique is accepted (the result never depends on it).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-0.0, -2.1, 2.5, 1.0])
        >>> print(oar.isin(x, oar.to_tensor([-2.1, 2.5])).tolist())
        [False, True, True, False]
    """
    C.tensor("isin", "x", x)
    C.tensor("isin", "test_x", test_x)
    x, test_x = common("isin", x, test_x)
    if x.dtype is not test_x.dtype:
        x, test_x = _C.cast(x, float64), _C.cast(test_x, float64)
    flat = _C.reshape(test_x, [-1])
    if flat.size == 0:
        found = _C.full(x.shape, False, bool_)
    else:
        srt = _C.gather(flat, _C.argsort(flat, 0, False, False), 0) if flat.ndim else flat
        pos = _C.searchsorted_index(
            srt, _C.reshape(x, [-1]) if x.ndim else _C.reshape(x, [1]), False, False
        )
        pos = _C.clip(pos, 0.0, float(flat.size - 1))
        hit = _C.equal(
            _C.gather(srt, pos, 0), _C.reshape(x, [-1]) if x.ndim else _C.reshape(x, [1])
        )
        found = C.reshape_exact(hit, x.shape)
    return _C.logical_not(found) if invert else found


def is_tensor(x: Any) -> bool:
    """Whether x is an oar Tensor.

    Examples:
        >>> import oar
        >>> print(oar.is_tensor(oar.ones([2])), oar.is_tensor([1, 2]))
        True False
    """
    return isinstance(x, Tensor)
