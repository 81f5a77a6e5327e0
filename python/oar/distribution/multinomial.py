"""The multinomial distribution."""

from __future__ import annotations

from .categorical import Categorical
from .distribution import Distribution, _as_param, _check, _sample_shape
from .. import _C
from .. import nn as _nn
from ..tensor.creation import arange
from ..tensor.creation import to_tensor
from ..tensor.creation import zeros_like
from ..tensor.search import where


class Multinomial(Distribution):
    """The counts of total_count independent draws from the categories of probs's last axis.

    Args:
        total_count: The number of draws, an int >= 1.
        probs: The category weights (normalised along the last axis), at least 1-D.
    """

    def __init__(self, total_count, probs):
        if isinstance(total_count, bool) or not isinstance(total_count, int) or total_count < 1:
            raise ValueError(
                f"Multinomial: argument 'total_count' must be an int >= 1, got {total_count!r}"
            )
        probs = _as_param(probs, "Multinomial", "probs")
        if probs.ndim < 1:
            raise ValueError("Multinomial: argument 'probs' must be at least 1-D, got a 0-D tensor")
        _check(probs >= 0, "Multinomial", "probs", ">= 0")
        self.total_count = total_count
        self.probs = probs / probs.sum(-1, keepdim=True)
        self.dtype = self.probs.dtype
        eps = 1e-7 if self.dtype.name == "float32" else 1e-15
        self._categorical = Categorical(self.probs.clip(min=eps).log())
        shape = tuple(probs.shape)
        super().__init__(shape[:-1], shape[-1:])

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def _log_norm_terms(self, value):
        value = self._value(value, self.probs)
        logp = self.probs.log()
        # 0 * log 0 = 0: a category of probability 0 with count 0 adds nothing
        term = where(value == 0, zeros_like(value * logp), value * logp)
        return _C.lgamma(value.sum(-1) + 1) - _C.lgamma(value + 1).sum(-1) + term.sum(-1)

    def log_prob(self, value):
        return self._log_norm_terms(value)

    def prob(self, value):
        return self.log_prob(value).exp()

    def sample(self, shape=()):
        """Counts of shape `shape + batch_shape + [K]` (float, probs's dtype)."""
        shape = list(_sample_shape(shape, "Multinomial", "sample"))
        draws = self._categorical.sample([self.total_count] + shape)
        k = self.probs.shape[-1]
        return _nn.functional.one_hot(draws, k).astype(self.dtype).sum(0)

    def entropy(self):
        """n H(p) - lgamma(n + 1) + sum_k E[lgamma(X_k + 1)], X_k ~ Binomial(n, p_k)."""
        n = self.total_count
        support = arange(1, n + 1, dtype=self.dtype).reshape([-1] + [1] * self.probs.ndim)
        p = self.probs.clip(1e-30, 1.0)
        q = (1 - self.probs).clip(1e-30, 1.0)
        log_pmf = (
            _C.lgamma(to_tensor(n + 1.0, dtype=self.dtype))
            - _C.lgamma(support + 1)
            - _C.lgamma(n - support + 1)
            + support * p.log()
            + (n - support) * q.log()
        )
        cat = -(self.probs * p.log()).sum(-1)
        return (
            n * cat
            - _C.lgamma(to_tensor(n + 1.0, dtype=self.dtype))
            + (log_pmf.exp() * _C.lgamma(support + 1)).sum([0, -1])
        )
