"""The Poisson distribution."""

from __future__ import annotations

import math

from .distribution import Distribution, _check, _params, _sample_shape
from .. import _C
from ..framework.grad_mode import no_grad
from ..tensor.creation import arange
from ..tensor.creation import zeros_like
from ..tensor.search import where


class Poisson(Distribution):
    """P(X = k) = rate^k exp(-rate) / k! for k = 0, 1, 2, ...

    Args:
        rate: The rate (mean), >= 0.
    """

    def __init__(self, rate):
        self.rate = _params("Poisson", rate=rate)["rate"]
        _check(self.rate >= 0, "Poisson", "rate", ">= 0")
        # entropy sums the mass over max(rate) + 30 sqrt(max(rate)) values: a finite count
        _check(self.rate.isfinite(), "Poisson", "rate", "finite")
        self.dtype = self.rate.dtype
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        return self.rate

    @property
    def variance(self):
        return self.rate

    def sample(self, shape=()):
        shape = list(self._extend_shape(_sample_shape(shape, "Poisson", "sample")))
        with no_grad():
            return _C.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        value = self._value(value, self.rate)
        # value * log(rate) with 0 * log 0 = 0
        term = where(
            value == 0, zeros_like(value * self.rate), value * self.rate.clip(min=1e-300).log()
        )
        return term - self.rate - _C.lgamma(value + 1)

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        """-sum_k p(k) log p(k) over k = 0 .. max(rate) + 30 sqrt(max(rate)) (as Paddle;
        the mass beyond is below 1e-190 of the total)."""

        if self.rate.numel() == 0:
            return self.rate * 0
        top = float(self.rate.max())
        upper = int(top + 30 * math.sqrt(max(top, 1.0))) + 1
        values = arange(0, upper, dtype=self.dtype).reshape([-1] + [1] * self.rate.ndim)
        lp = self.log_prob(values)
        return -(lp.exp() * lp).sum(0)
