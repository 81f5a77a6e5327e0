"""The Dirichlet distribution."""

from __future__ import annotations

from .distribution import ExponentialFamily, _as_param, _check, _sample_shape
from .. import _C


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the probability simplex of concentration's last axis.

    Args:
        concentration: The concentrations, > 0, at least 1-D; the last axis is the event.
    """

    def __init__(self, concentration):
        self.concentration = _as_param(concentration, "Dirichlet", "concentration")
        if self.concentration.ndim < 1:
            raise ValueError(
                "Dirichlet: argument 'concentration' must be at least 1-D, got a 0-D tensor"
            )
        _check(self.concentration > 0, "Dirichlet", "concentration", "> 0")
        self.dtype = self.concentration.dtype
        shape = tuple(self.concentration.shape)
        super().__init__(shape[:-1], shape[-1:])

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self):
        a0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (a0 - self.concentration) / (a0 * a0 * (a0 + 1))

    def rsample(self, shape=()):
        """Gamma(concentration) samples normalised to sum 1: differentiable."""
        shape = list(self._extend_shape(_sample_shape(shape, "Dirichlet", "rsample")))
        g = _C.standard_gamma(self.concentration.expand(shape))
        return g / g.sum(-1, keepdim=True)

    def log_prob(self, value):
        value = self._value(value, self.concentration)
        a = self.concentration
        return ((a - 1) * value.log()).sum(-1) + _C.lgamma(a.sum(-1)) - _C.lgamma(a).sum(-1)

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        a = self.concentration
        k = a.shape[-1]
        a0 = a.sum(-1)
        return (
            _C.lgamma(a).sum(-1)
            - _C.lgamma(a0)
            - (k - a0) * _C.digamma(a0)
            - ((a - 1) * _C.digamma(a)).sum(-1)
        )

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return _C.lgamma(x).sum(-1) - _C.lgamma(x.sum(-1))

    @property
    def _mean_carrier_measure(self):
        return 0.0
