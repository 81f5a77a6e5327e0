"""The continuous uniform distribution."""

from __future__ import annotations

from .distribution import Distribution, _check, _params, _sample_shape
from ..tensor.creation import full_like
from ..tensor.random import rand
from ..tensor.search import where


class Uniform(Distribution):
    """Uniform on [low, high).

    Args:
        low: The lower bound (included).
        high: The upper bound (excluded), > low; broadcast with low.
        name: Unused; Paddle's name argument.
    """

    def __init__(self, low, high, name=None):
        p = _params("Uniform", low=low, high=high)
        self.low, self.high = p["low"], p["high"]
        _check(self.low < self.high, "Uniform", "high", "> low")
        self.name = name if name is not None else "Uniform"
        self.dtype = self.low.dtype
        super().__init__(self.low.shape)

    @property
    def mean(self):
        return (self.low + self.high) / 2

    @property
    def variance(self):
        w = self.high - self.low
        return w * w / 12

    def sample(self, shape=(), seed=0):
        """Samples of shape `shape + batch_shape` (seed: unused, oar.seed seeds)."""
        return super().sample(shape)

    def rsample(self, shape=()):
        """low + (high - low) * u, u ~ U[0, 1): differentiable in low and high."""
        shape = self._extend_shape(_sample_shape(shape, "Uniform", "rsample"))
        return self.low + (self.high - self.low) * rand(list(shape), dtype=self.dtype)

    def log_prob(self, value):
        value = self._value(value, self.low)
        inside = (value >= self.low).logical_and(value < self.high)
        lp = -(self.high - self.low).log() + value * 0
        return where(inside, lp, full_like(lp, float("-inf")))

    def probs(self, value):
        return self.prob(value)

    def entropy(self):
        return (self.high - self.low).log()

    def cdf(self, value):
        value = self._value(value, self.low, "cdf")
        return ((value - self.low) / (self.high - self.low)).clip(0, 1)

    def icdf(self, value):
        value = self._value(value, self.low, "icdf")
        return self.low + value * (self.high - self.low)
