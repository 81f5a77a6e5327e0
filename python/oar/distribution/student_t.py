"""Student's t distribution."""

from __future__ import annotations

import math

from .distribution import Distribution, _check, _is_tensor, _params, _sample_shape
from .gamma import Gamma
from .. import _C
from ..tensor.creation import full_like
from ..tensor.random import randn
from ..tensor.search import where


class StudentT(Distribution):
    """Student's t with df degrees of freedom, shifted by loc and scaled by scale.

    Python numbers for all three parameters give a batch of shape [1], as in Paddle.

    Args:
        df: The degrees of freedom, > 0.
        loc: The location.
        scale: The scale, > 0.
    """

    def __init__(self, df, loc, scale, name=None):
        scalars = not any(_is_tensor(v) or hasattr(v, "__len__") for v in (df, loc, scale))
        if scalars:
            df, loc, scale = [df], [loc], [scale]
        p = _params("StudentT", df=df, loc=loc, scale=scale)
        self.df, self.loc, self.scale = p["df"], p["loc"], p["scale"]
        _check(self.df > 0, "StudentT", "df", "> 0")
        _check(self.scale > 0, "StudentT", "scale", "> 0")
        self.dtype = self.df.dtype
        self.name = name if name is not None else "StudentT"
        self._chi2 = Gamma(0.5 * self.df, self.df * 0 + 0.5)
        super().__init__(self.df.shape)

    @property
    def mean(self):
        return where(self.df > 1, self.loc, full_like(self.loc, math.nan))

    @property
    def variance(self):
        finite = self.scale * self.scale * self.df / (self.df - 2)
        var = where(self.df > 2, finite, full_like(finite, math.inf))
        return where(self.df > 1, var, full_like(var, math.nan))

    def rsample(self, shape=()):
        """loc + scale * z / sqrt(g / df), z ~ N(0, 1), g ~ chi2(df): differentiable in
        all three parameters (df through the gamma sample's implicit gradient)."""
        shape = _sample_shape(shape, "StudentT", "rsample")
        z = randn(list(self._extend_shape(shape)), dtype=self.dtype)
        g = self._chi2.rsample(shape)
        return self.loc + self.scale * z * (self.df / g).sqrt()

    def log_prob(self, value):
        value = self._value(value, self.df)
        y = (value - self.loc) / self.scale
        z = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + _C.lgamma(0.5 * self.df)
            - _C.lgamma(0.5 * (self.df + 1))
        )
        return -0.5 * (self.df + 1) * (y * y / self.df).log1p() - z

    def entropy(self):
        lbeta = _C.lgamma(0.5 * self.df) + math.lgamma(0.5) - _C.lgamma(0.5 * (self.df + 1))
        return (
            self.scale.log()
            + 0.5 * (self.df + 1) * (_C.digamma(0.5 * (self.df + 1)) - _C.digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + lbeta
        )
