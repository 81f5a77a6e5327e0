"""The beta distribution."""

from __future__ import annotations

from .distribution import ExponentialFamily, _check, _params, _sample_shape
from .. import _C


def _lbeta(a, b):
    return _C.lgamma(a) + _C.lgamma(b) - _C.lgamma(a + b)


class Beta(ExponentialFamily):
    """The beta distribution on [0, 1] with density x^(alpha-1) (1-x)^(beta-1) / B(alpha, beta).

    Args:
        alpha: The first concentration, > 0.
        beta: The second concentration, > 0; broadcast with alpha.
    """

    def __init__(self, alpha, beta):
        p = _params("Beta", alpha=alpha, beta=beta)
        self.alpha, self.beta = p["alpha"], p["beta"]
        _check(self.alpha > 0, "Beta", "alpha", "> 0")
        _check(self.beta > 0, "Beta", "beta", "> 0")
        self.dtype = self.alpha.dtype
        super().__init__(self.alpha.shape)

    @property
    def mean(self):
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        s = self.alpha + self.beta
        return self.alpha * self.beta / (s * s * (s + 1))

    def rsample(self, shape=()):
        """X / (X + Y) for X ~ Gamma(alpha), Y ~ Gamma(beta): differentiable through the
        gamma samples' reparameterisation gradient."""
        shape = list(self._extend_shape(_sample_shape(shape, "Beta", "rsample")))
        x = _C.standard_gamma(self.alpha.expand(shape))
        y = _C.standard_gamma(self.beta.expand(shape))
        return x / (x + y)

    def log_prob(self, value):
        value = self._value(value, self.alpha)
        return (
            (self.alpha - 1) * value.log()
            + (self.beta - 1) * (-value).log1p()
            - _lbeta(self.alpha, self.beta)
        )

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        a, b = self.alpha, self.beta
        return (
            _lbeta(a, b)
            - (a - 1) * _C.digamma(a)
            - (b - 1) * _C.digamma(b)
            + (a + b - 2) * _C.digamma(a + b)
        )

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return _lbeta(x, y)

    @property
    def _mean_carrier_measure(self):
        return 0.0
