"""Normal and LogNormal."""

from __future__ import annotations

import math

from .distribution import Distribution, _init_loc_scale, _sample_shape
from .transform import ExpTransform
from .transformed_distribution import TransformedDistribution
from .. import _C
from ..tensor.random import randn


class Normal(Distribution):
    """The normal (Gaussian) distribution N(loc, scale^2).

    Args:
        loc: The mean (float, list, numpy array or Tensor).
        scale: The standard deviation, > 0; broadcast with loc.
        name: Unused; Paddle's name argument.
    """

    def __init__(self, loc, scale, name=None):
        _init_loc_scale(self, "Normal", loc, scale)
        self.name = name if name is not None else "Normal"

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return self.scale * self.scale

    @property
    def stddev(self):
        return self.scale

    def sample(self, shape=(), seed=0):
        """Samples of shape `shape + batch_shape` (seed: unused, oar.seed seeds)."""
        return super().sample(shape)

    def rsample(self, shape=()):
        """Reparameterised samples loc + scale * eps, eps ~ N(0, 1): differentiable."""
        shape = self._extend_shape(_sample_shape(shape, "Normal", "rsample"))
        return self.loc + randn(list(shape), dtype=self.dtype) * self.scale

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    def log_prob(self, value):
        value = self._value(value, self.loc)
        z = (value - self.loc) / self.scale
        return -0.5 * z * z - self.scale.log() - 0.5 * math.log(2 * math.pi)

    def probs(self, value):
        return self.prob(value)

    def cdf(self, value):
        value = self._value(value, self.loc, "cdf")
        return 0.5 * (1 + _C.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        value = self._value(value, self.loc, "icdf")
        return self.loc + self.scale * math.sqrt(2) * _C.erfinv(2 * value - 1)


class LogNormal(TransformedDistribution):
    """The distribution of exp(X) for X ~ Normal(loc, scale).

    Args:
        loc: The mean of log(X).
        scale: The standard deviation of log(X), > 0.
    """

    def __init__(self, loc, scale):
        self._base = Normal(loc=loc, scale=scale)
        self.loc, self.scale = self._base.loc, self._base.scale
        self.dtype = self.loc.dtype
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self):
        return (self.loc + self.scale * self.scale / 2).exp()

    @property
    def variance(self):
        s2 = self.scale * self.scale
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self):
        return self._base.entropy() + self.loc

    def probs(self, value):
        return self.prob(value)
