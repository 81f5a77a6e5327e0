"""The gamma distribution and its special case chi-squared."""

from __future__ import annotations

from .distribution import ExponentialFamily, _check, _params, _sample_shape
from .. import _C
from ..tensor.creation import full_like
from ..tensor.search import where


class Gamma(ExponentialFamily):
    """The gamma distribution with density rate^a x^(a-1) exp(-rate x) / Gamma(a), x > 0.

    Args:
        concentration: The shape a, > 0.
        rate: The rate (inverse scale), > 0.
    """

    def __init__(self, concentration, rate):
        p = _params("Gamma", concentration=concentration, rate=rate)
        self.concentration, self.rate = p["concentration"], p["rate"]
        _check(self.concentration > 0, type(self).__name__, "concentration", "> 0")
        _check(self.rate > 0, type(self).__name__, "rate", "> 0")
        self.dtype = self.rate.dtype
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def variance(self):
        return self.concentration / (self.rate * self.rate)

    def rsample(self, shape=()):
        """standard_gamma(concentration) / rate: differentiable in both parameters (the
        concentration through standard_gamma's implicit reparameterisation gradient)."""
        shape = self._extend_shape(_sample_shape(shape, type(self).__name__, "rsample"))
        return _C.standard_gamma(self.concentration.expand(list(shape))) / self.rate

    def log_prob(self, value):
        value = self._value(value, self.rate)
        a = self.concentration
        lp = a * self.rate.log() + (a - 1) * value.log() - self.rate * value - _C.lgamma(a)
        return where(value > 0, lp, full_like(lp, float("-inf")))

    def entropy(self):
        a = self.concentration
        return a - self.rate.log() + _C.lgamma(a) + (1 - a) * _C.digamma(a)

    @property
    def _natural_parameters(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return _C.lgamma(x + 1) - (x + 1) * (-y).log()

    @property
    def _mean_carrier_measure(self):
        return 0.0


class Chi2(Gamma):
    """The chi-squared distribution with df degrees of freedom: Gamma(df / 2, 1 / 2).

    Args:
        df: The degrees of freedom, > 0.
    """

    def __init__(self, df):
        self.df = _params("Chi2", df=df)["df"]
        _check(self.df > 0, "Chi2", "df", "> 0")
        super().__init__(0.5 * self.df, self.df * 0 + 0.5)
