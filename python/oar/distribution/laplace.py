"""The Laplace distribution."""

from __future__ import annotations

import math

import numpy as np

from .distribution import Distribution, _init_loc_scale, _sample_shape
from ..tensor.random import uniform


class Laplace(Distribution):
    """The Laplace (double exponential) distribution with density
    exp(-|x - loc| / scale) / (2 scale).

    Args:
        loc: The location (mean and median).
        scale: The scale, > 0.
    """

    def __init__(self, loc, scale):
        _init_loc_scale(self, "Laplace", loc, scale)

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    @property
    def variance(self):
        return 2 * self.scale * self.scale

    def rsample(self, shape=()):
        """loc - scale * sign(u) * log(1 - |u|), u ~ U(-1, 1): differentiable."""
        shape = self._extend_shape(_sample_shape(shape, "Laplace", "rsample"))
        eps = float(np.finfo(self.dtype.name).eps)
        u = uniform(list(shape), dtype=self.dtype, min=-1 + eps, max=1.0)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        value = self._value(value, self.loc)
        return -(value - self.loc).abs() / self.scale - (2 * self.scale).log()

    def entropy(self):
        return 1 + (2 * self.scale).log()

    def cdf(self, value):
        value = self._value(value, self.loc, "cdf")
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * (-d.abs() / self.scale).expm1()

    def icdf(self, value):
        value = self._value(value, self.loc, "icdf")
        t = value - 0.5
        return self.loc - self.scale * t.sign() * (-2 * t.abs()).log1p()
