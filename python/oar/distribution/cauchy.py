"""The Cauchy distribution."""

from __future__ import annotations

import math

from .distribution import Distribution, _init_loc_scale, _sample_shape
from ..tensor.random import rand


class Cauchy(Distribution):
    """The Cauchy distribution with density 1 / (pi scale (1 + ((x - loc) / scale)^2)).

    Args:
        loc: The location (the median).
        scale: The scale (half the interquartile range), > 0.
        name: Unused; Paddle's name argument.
    """

    def __init__(self, loc, scale, name=None):
        _init_loc_scale(self, "Cauchy", loc, scale)
        self.name = name if name is not None else "Cauchy"

    @property
    def mean(self):
        raise ValueError("Cauchy: the distribution has no mean")

    @property
    def variance(self):
        raise ValueError("Cauchy: the distribution has no variance")

    @property
    def stddev(self):
        raise ValueError("Cauchy: the distribution has no standard deviation")

    def sample(self, shape=(), name=None):
        return super().sample(shape)

    def rsample(self, shape=(), name=None):
        """loc + scale * tan(pi (u - 1/2)), u ~ U[0, 1): differentiable."""
        shape = self._extend_shape(_sample_shape(shape, "Cauchy", "rsample"))
        u = rand(list(shape), dtype=self.dtype)
        return self.loc + self.scale * (math.pi * (u - 0.5)).tan()

    def log_prob(self, value):
        value = self._value(value, self.loc)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (z * z).log1p()

    def cdf(self, value):
        value = self._value(value, self.loc, "cdf")
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        value = self._value(value, self.loc, "icdf")
        return self.loc + self.scale * (math.pi * (value - 0.5)).tan()

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
