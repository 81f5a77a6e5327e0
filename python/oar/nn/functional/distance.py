"""oar.nn.functional: pairwise_distance (Paddle's paddle.nn.functional.distance),
a composition of elementwise ops and a reduction."""

from __future__ import annotations

from ... import _C
from ...framework import check as C
from ...framework.typing import Tensor

__all__ = ["pairwise_distance"]


def pairwise_distance(
    x: Tensor,
    y: Tensor,
    p: float = 2.0,
    epsilon: float = 1e-06,
    keepdim: bool = False,
    name: str | None = None,
) -> Tensor:
    """The p-norm of x - y + epsilon along the last axis."""
    api = "pairwise_distance"
    C.tensor(api, "x", x)
    C.tensor(api, "y", y)
    p = float(C.number(api, "p", p))
    d = _C.scale(x - y, 1.0, float(epsilon))
    a = max(d.ndim - 1, 0)
    if d.ndim == 0:
        d = _C.reshape(d, [1])
    if p == 0:
        return _C.sum(_C.cast(_C.not_equal(d, _C.full_like(d, 0.0)), d.dtype), [a], keepdim=keepdim)
    if p == float("inf"):
        return _C.max(_C.abs(d), [a], keepdim)
    if p == float("-inf"):
        return _C.min(_C.abs(d), [a], keepdim)
    if p == 2:
        return _C.sqrt(_C.sum(d * d, [a], keepdim=keepdim))
    return _C.pow(_C.sum(_C.pow(_C.abs(d), p), [a], keepdim=keepdim), 1.0 / p)
