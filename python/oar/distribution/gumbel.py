"""The Gumbel (type-I extreme value) distribution."""

from __future__ import annotations

import math

from .distribution import Distribution, _init_loc_scale, _sample_shape
from ..framework.dtype import float64
from ..tensor.random import rand

_EULER = 0.57721566490153286061


class Gumbel(Distribution):
    """The Gumbel distribution with cdf exp(-exp(-(x - loc) / scale)).

    Args:
        loc: The location (the mode).
        scale: The scale, > 0.
    """

    def __init__(self, loc, scale):
        _init_loc_scale(self, "Gumbel", loc, scale)

    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def variance(self):
        return (math.pi**2 / 6) * self.scale * self.scale

    @property
    def stddev(self):
        return self.variance.sqrt()

    def rsample(self, shape=()):
        """loc - scale * log(-log(u)), u ~ U(0, 1): differentiable."""
        shape = self._extend_shape(_sample_shape(shape, "Gumbel", "rsample"))
        tiny = 1e-30 if self.dtype == float64 else 1e-12
        u = rand(list(shape), dtype=self.dtype).clip(tiny, 1 - tiny)
        return self.loc - self.scale * (-u.log()).log()

    def log_prob(self, value):
        value = self._value(value, self.loc)
        z = (value - self.loc) / self.scale
        return -(z + (-z).exp()) - self.scale.log()

    def prob(self, value):
        return self.log_prob(value).exp()

    def cdf(self, value):
        value = self._value(value, self.loc, "cdf")
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def entropy(self):
        return self.scale.log() + 1 + _EULER
