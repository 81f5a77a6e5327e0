"""oar.regularizer: weight decay as Paddle names it (L1Decay, L2Decay), given to an
optimizer (weight_decay=) or to one parameter (ParamAttr(regularizer=))."""
from __future__ import annotations

__all__ = ["L1Decay", "L2Decay"]


class _Decay:
    def __init__(self, coeff=0.0):
        if isinstance(coeff, bool) or not isinstance(coeff, (int, float)) or coeff < 0:
            raise ValueError(f"{type(self).__name__}: argument 'coeff' must be a number >= 0, "
                             f"got {coeff!r}")
        self._coeff = float(coeff)

    def __repr__(self):
        return f"{type(self).__name__}(coeff={self._coeff})"


class L2Decay(_Decay):
    """Adds coeff * param to the gradient (loss + coeff/2 * |param|^2)."""


class L1Decay(_Decay):
    """Adds coeff * sign(param) to the gradient (loss + coeff * |param|_1)."""
