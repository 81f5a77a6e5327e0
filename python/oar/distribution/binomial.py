"""The binomial distribution."""
from __future__ import annotations

from .distribution import Distribution, _check, _params, _sample_shape


class Binomial(Distribution):
    """The number of successes in total_count independent trials of probability probs.

    Args:
        total_count: The number of trials, integers >= 0 (an int or a Tensor).
        probs: The success probability of each trial, in [0, 1].
    """

    def __init__(self, total_count, probs):
        p = _params("Binomial", total_count=total_count, probs=probs)
        self.total_count, self.probs = p["total_count"], p["probs"]
        _check((self.total_count >= 0).logical_and(self.total_count == self.total_count.floor()),
               "Binomial", "total_count", "whole numbers >= 0")
        # inf passes `n == floor(n)`, but sample and entropy count up to total_count
        _check(self.total_count.isfinite(), "Binomial", "total_count", "finite")
        _check((self.probs >= 0).logical_and(self.probs <= 1), "Binomial", "probs", "in [0, 1]")
        self.dtype = self.probs.dtype
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=()):
        """The sum of total_count Bernoulli draws: whole numbers in probs's dtype."""
        import oar
        shape = list(self._extend_shape(_sample_shape(shape, "Binomial", "sample")))
        n_max = int(self.total_count.max()) if self.total_count.numel() else 0
        with oar.no_grad():
            if n_max == 0:
                return oar.zeros(shape, dtype=self.dtype)
            trials = oar.bernoulli(self.probs.expand([n_max] + shape))
            k = oar.arange(0, n_max, dtype=self.dtype).reshape([-1] + [1] * len(shape))
            return (trials * (k < self.total_count).astype(self.dtype)).sum(0)

    def log_prob(self, value):
        import oar
        value = self._value(value, self.probs)
        n, p = self.total_count, self.probs
        comb = oar.lgamma(n + 1) - oar.lgamma(value + 1) - oar.lgamma(n - value + 1)
        succ = oar.where(value == 0, oar.zeros_like(value * p), value * p.clip(min=1e-300).log())
        fail = oar.where(n - value == 0, oar.zeros_like(value * p),
                         (n - value) * (-p).clip(min=-1.0).log1p())
        return comb + succ + fail

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        """-sum_k p(k) log p(k) over k = 0 .. total_count."""
        import oar
        n_max = int(self.total_count.max()) if self.total_count.numel() else 0
        k = oar.arange(0, n_max + 1, dtype=self.dtype).reshape([-1] + [1] * self.probs.ndim)
        lp = self.log_prob(k.minimum(self.total_count))
        inside = (k <= self.total_count).astype(self.dtype)
        return -(inside * lp.exp() * lp).sum(0)
