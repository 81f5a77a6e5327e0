"""The geometric distribution (the number of failures before the first success)."""

from __future__ import annotations

import numpy as np

from .distribution import Distribution, _check, _params, _sample_shape
from ..tensor.random import uniform


class Geometric(Distribution):
    """P(X = k) = (1 - probs)^k probs for k = 0, 1, 2, ...: the failures before the first
    success of independent trials that each succeed with probability probs.

    Args:
        probs: The success probability, in (0, 1].
    """

    def __init__(self, probs):
        self.probs = _params("Geometric", probs=probs)["probs"]
        _check((self.probs > 0).logical_and(self.probs <= 1), "Geometric", "probs", "in (0, 1]")
        self.dtype = self.probs.dtype
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        return 1 / self.probs - 1

    @property
    def variance(self):
        return (1 / self.probs - 1) / self.probs

    @property
    def stddev(self):
        return self.variance.sqrt()

    def rsample(self, shape=()):
        """floor(log(u) / log(1 - probs)), u ~ U(0, 1]: whole numbers in probs's dtype.
        Paddle's rsample: the graph runs through probs, but floor makes the gradient 0."""
        shape = list(self._extend_shape(_sample_shape(shape, "Geometric", "rsample")))
        tiny = float(np.finfo(self.dtype.name).tiny)
        u = uniform(shape, dtype=self.dtype, min=tiny, max=1.0)
        return (u.log() / (-self.probs).log1p()).floor()

    def sample(self, shape=()):
        """rsample without gradient."""
        return super().sample(shape)

    def pmf(self, k):
        return self.log_pmf(k).exp()

    def log_pmf(self, k):
        k = self._value(k, self.probs, "log_pmf")
        return k * (-self.probs).log1p() + self.probs.log()

    def log_prob(self, value):
        return self.log_pmf(value)

    def prob(self, value):
        return self.pmf(value)

    def entropy(self):
        p = self.probs
        q = 1 - p
        return -(p * p.log() + q * (-p).log1p()) / p

    def cdf(self, k):
        k = self._value(k, self.probs, "cdf")
        return -((k.floor() + 1) * (-self.probs).log1p()).expm1()
