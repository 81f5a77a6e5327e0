"""oar.regularizer: weight decay as Paddle names it (L1Decay, L2Decay), given to an
optimizer (weight_decay=) or to one parameter (ParamAttr(regularizer=))."""

from __future__ import annotations

from .framework.param import _Decay

__all__ = ["L1Decay", "L2Decay"]


class L2Decay(_Decay):
    """Adds coeff * param to the gradient (loss + coeff/2 * |param|^2)."""


class L1Decay(_Decay):
    """Adds coeff * sign(param) to the gradient (loss + coeff * |param|_1)."""
