"""The continuous Bernoulli distribution (Loaiza-Ganem and Cunningham, 2019)."""

from __future__ import annotations

import math

import numpy as np

from .distribution import Distribution, _params, _sample_shape
from .. import _C
from ..tensor.creation import full_like
from ..tensor.creation import ones_like
from ..tensor.creation import zeros_like
from ..tensor.random import uniform
from ..tensor.search import where


class ContinuousBernoulli(Distribution):
    """The density C(p) p^x (1 - p)^(1 - x) on [0, 1], C(p) its normaliser.

    Near p = 1/2 the closed forms divide 0 by 0, so for p in (lims[0], lims[1]] their
    Taylor expansions around 1/2 are used instead (PyTorch's and Paddle's rule).

    Args:
        probs: p, in [0, 1] (clipped to [eps, 1 - eps]).
        lims: The interval around 1/2 where the Taylor expansions are used.
    """

    def __init__(self, probs, lims=(0.499, 0.501)):
        self.probs = _params("ContinuousBernoulli", probs=probs)["probs"]
        self.dtype = self.probs.dtype
        eps = float(np.finfo(self.dtype.name).eps)
        if not (isinstance(lims, (list, tuple)) and len(lims) == 2 and lims[0] < 0.5 < lims[1]):
            raise ValueError(
                f"ContinuousBernoulli: argument 'lims' must be two numbers around 0.5, got {lims!r}"
            )
        self.lims = tuple(float(v) for v in lims)
        self.probs = self.probs.clip(eps, 1 - eps)
        super().__init__(self.probs.shape)

    def _outside(self):
        return (self.probs <= self.lims[0]).logical_or(self.probs > self.lims[1])

    def _cut_probs(self):
        return where(self._outside(), self.probs, full_like(self.probs, self.lims[0]))

    def _log_normalizer(self):
        p = self._cut_probs()
        below = where(p <= 0.5, p, zeros_like(p))
        above = where(p >= 0.5, p, ones_like(p))
        exact = (2 * _C.atanh(1 - 2 * p).abs()).log() - where(
            p <= 0.5, (-2 * below).log1p(), (2 * above - 1).log()
        )
        x = (self.probs - 0.5) ** 2
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside(), exact, taylor)

    @property
    def mean(self):
        p = self._cut_probs()
        exact = p / (2 * p - 1) + 1 / (2 * _C.atanh(1 - 2 * p))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x * x) * x
        return where(self._outside(), exact, taylor)

    @property
    def variance(self):
        p = self._cut_probs()
        exact = p * (p - 1) / (1 - 2 * p) ** 2 + 1 / ((-p).log1p() - p.log()) ** 2
        x = (self.probs - 0.5) ** 2
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside(), exact, taylor)

    def rsample(self, shape=()):
        """icdf(u), u ~ U(0, 1): differentiable in probs."""
        shape = list(self._extend_shape(_sample_shape(shape, "ContinuousBernoulli", "rsample")))
        return self.icdf(uniform(shape, dtype=self.dtype, min=0.0, max=1.0))

    def log_prob(self, value):
        value = self._value(value, self.probs)
        return (
            self._log_normalizer() + value * self.probs.log() + (1 - value) * (-self.probs).log1p()
        )

    def entropy(self):
        log_p, log_q = self.probs.log(), (-self.probs).log1p()
        return -self._log_normalizer() + self.mean * (log_q - log_p) - log_q

    def cdf(self, value):
        value = self._value(value, self.probs, "cdf")
        p = self._cut_probs()
        exact = (p**value * (1 - p) ** (1 - value) + p - 1) / (2 * p - 1)
        inside = where(self._outside(), exact, value)
        return where(value <= 0, zeros_like(inside), where(value >= 1, ones_like(inside), inside))

    def icdf(self, value):
        value = self._value(value, self.probs, "icdf")
        p = self._cut_probs()
        exact = ((-p + value * (2 * p - 1)).log1p() - (-p).log1p()) / (p.log() - (-p).log1p())
        return where(self._outside(), exact, value)
