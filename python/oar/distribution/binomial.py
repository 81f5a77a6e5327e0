"""The binomial distribution."""

from __future__ import annotations

from ..framework.dtype import float64
from ..framework.memory import check_fits
from .distribution import Distribution, _check, _params, _sample_shape
from .. import _C
from ..framework.grad_mode import no_grad
from ..tensor.creation import arange
from ..tensor.creation import ones_like
from ..tensor.creation import zeros
from ..tensor.creation import zeros_like
from ..tensor.search import where

# oar.binomial draws counts up to here with std::binomial_distribution and splits larger
# ones itself (sampling_kernels.cc), but takes counts below 9.2e18 only; splitting here
# down to the same bound lets float counts up to 1e30 be sampled, as PyTorch's are.
_KERNEL_TRIALS = 2.0**40


class Binomial(Distribution):
    """The number of successes in total_count independent trials of probability probs.

    Args:
        total_count: The number of trials, integers >= 0 (an int or a Tensor).
        probs: The success probability of each trial, in [0, 1].
    """

    def __init__(self, total_count, probs):
        p = _params("Binomial", total_count=total_count, probs=probs)
        self.total_count, self.probs = p["total_count"], p["probs"]
        _check(
            (self.total_count >= 0).logical_and(self.total_count == self.total_count.floor()),
            "Binomial",
            "total_count",
            "whole numbers >= 0",
        )
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
        """Whole numbers in probs's dtype, without work per trial (as torch.binomial):
        counts past _KERNEL_TRIALS are split by the order statistics of their uniforms
        (below), the rest drawn by oar.binomial."""
        shape = list(self._extend_shape(_sample_shape(shape, "Binomial", "sample")))
        with no_grad():
            if 0 in shape:
                return zeros(shape, dtype=self.dtype)
            n0 = n = self.total_count.astype(float64).expand(shape)
            p0 = p = self.probs.astype(float64).expand(shape)
            x = zeros(shape, dtype=float64)
            # Bin(n, p) counts the n uniforms <= p. Their i-th smallest, u ~ Beta(i, n + 1 - i),
            # splits them: if u <= p the count is i plus Bin(n - i, (p - u) / (1 - u)) of the
            # uniforms above u, else Bin(i - 1, p / u) of those below. Each step halves n, so
            # a count of 1e18 takes about 20 steps (of the whole sample) to reach the kernel.
            while True:
                big = n > _KERNEL_TRIALS
                if not bool(big.any()):
                    break
                i = where(big, ((n + 1) * 0.5).floor(), ones_like(n))
                g1 = _C.standard_gamma(i)
                g2 = _C.standard_gamma(where(big, n + 1 - i, ones_like(n)))
                u = g1 / (g1 + g2)
                low = u <= p
                x = where(big.logical_and(low), x + i, x)
                n = where(big, where(low, n - i, i - 1), n)
                p = where(big, where(low, (p - u) / (1 - u), p / u).clip(0.0, 1.0), p)
            x = x + _C.binomial(n, p).astype(float64)
            # past 2**53 the sum of the parts rounds: keep it within [0, n], and n when p is 1
            x = where(p0 >= 1, n0, x.minimum(n0))
            return x.astype(self.dtype)

    def log_prob(self, value):
        value = self._value(value, self.probs)
        n, p = self.total_count, self.probs
        comb = _C.lgamma(n + 1) - _C.lgamma(value + 1) - _C.lgamma(n - value + 1)
        succ = where(value == 0, zeros_like(value * p), value * p.clip(min=1e-300).log())
        fail = where(
            n - value == 0, zeros_like(value * p), (n - value) * (-p).clip(min=-1.0).log1p()
        )
        return comb + succ + fail

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        """-sum_k p(k) log p(k) over k = 0 .. total_count."""
        n_max = int(self.total_count.max()) if self.total_count.numel() else 0
        # log-probabilities of every outcome 0..n_max of every element are held at once
        check_fits(
            "Binomial.entropy():",
            f"argument 'total_count' ({n_max}) asks for a sum "
            f"over {n_max + 1} outcomes of {self.probs.size} elements, which",
            4 * (n_max + 1) * max(self.probs.size, 1) * self.dtype.itemsize,
        )
        k = arange(0, n_max + 1, dtype=self.dtype).reshape([-1] + [1] * self.probs.ndim)
        lp = self.log_prob(k.minimum(self.total_count))
        inside = (k <= self.total_count).astype(self.dtype)
        return -(inside * lp.exp() * lp).sum(0)
