"""The exponential distribution."""

from __future__ import annotations

from .distribution import ExponentialFamily, _check, _params, _sample_shape
from ..tensor.creation import full_like
from ..tensor.random import rand
from ..tensor.search import where


class Exponential(ExponentialFamily):
    """The exponential distribution with density rate * exp(-rate * x) on x >= 0.

    Args:
        rate: The rate, > 0 (the mean is 1 / rate).
    """

    def __init__(self, rate):
        self.rate = _params("Exponential", rate=rate)["rate"]
        _check(self.rate > 0, "Exponential", "rate", "> 0")
        self.dtype = self.rate.dtype
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return (self.rate * self.rate).reciprocal()

    def rsample(self, shape=()):
        """-log(1 - u) / rate, u ~ U[0, 1): differentiable in rate."""
        shape = self._extend_shape(_sample_shape(shape, "Exponential", "rsample"))
        u = rand(list(shape), dtype=self.dtype)
        return -(-u).log1p() / self.rate

    def log_prob(self, value):
        value = self._value(value, self.rate)
        lp = self.rate.log() - self.rate * value
        return where(value >= 0, lp, full_like(lp, float("-inf")))

    def entropy(self):
        return 1.0 - self.rate.log()

    def cdf(self, value):
        value = self._value(value, self.rate, "cdf")
        return -(-self.rate * value.clip(min=0)).expm1()

    def icdf(self, value):
        value = self._value(value, self.rate, "icdf")
        return -(-value).log1p() / self.rate

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()

    @property
    def _mean_carrier_measure(self):
        return 0.0
