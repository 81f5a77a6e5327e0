"""Distance layers (Paddle's paddle.nn.layer.distance)."""

from __future__ import annotations

from .layers import Layer
from .. import functional as F

__all__ = ["PairwiseDistance"]


class PairwiseDistance(Layer):
    """The p-norm of x - y + epsilon along the last axis."""

    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self._p, self._epsilon, self._keepdim = p, epsilon, keepdim
        self._name = name

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self._p, self._epsilon, self._keepdim)

    def extra_repr(self):
        # Paddle's: p, then the settings that differ from their defaults
        s = f"p={self._p}"
        if self._epsilon != 1e-6:
            s += f", epsilon={self._epsilon}"
        if self._keepdim is not False:
            s += f", keepdim={self._keepdim}"
        return s if self._name is None else s + f", name={self._name}"
