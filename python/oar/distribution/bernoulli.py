"""The Bernoulli distribution."""

from __future__ import annotations

from .distribution import ExponentialFamily, _check, _params, _sample_shape
from .. import nn as _nn
from ..framework.grad_mode import no_grad
from ..tensor.creation import ones_like
from ..tensor.creation import zeros_like
from ..tensor.manipulation import broadcast_tensors
from ..tensor.random import bernoulli
from ..tensor.random import rand
from ..tensor.search import where


class Bernoulli(ExponentialFamily):
    """1 with probability probs, else 0.

    Args:
        probs: The probability of 1, in [0, 1].
        name: Unused; Paddle's name argument.
    """

    def __init__(self, probs, name=None):
        self.probs = _params("Bernoulli", probs=probs)["probs"]
        _check((self.probs >= 0).logical_and(self.probs <= 1), "Bernoulli", "probs", "in [0, 1]")
        self.name = name if name is not None else "Bernoulli"
        self.dtype = self.probs.dtype
        # log(p / (1 - p)), clipped so p = 0 or 1 stays finite
        eps = 1e-7 if self.dtype.name == "float32" else 1e-15
        p = self.probs.clip(eps, 1 - eps)
        self.logits = p.log() - (-p).log1p()
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, shape=()):
        shape = list(self._extend_shape(_sample_shape(shape, "Bernoulli", "sample")))
        with no_grad():
            return bernoulli(self.probs.expand(shape))

    def rsample(self, shape=(), temperature=1.0):
        """A continuous relaxation, as Paddle's: (logit(u) + logit(probs)) / temperature
        for u ~ U(0, 1), the logit of a relaxed Bernoulli sample (apply sigmoid for a value
        in (0, 1)); differentiable in probs."""
        shape = list(self._extend_shape(_sample_shape(shape, "Bernoulli", "rsample")))
        if not isinstance(temperature, (int, float)) or temperature <= 0:
            raise ValueError(
                "Bernoulli.rsample: argument 'temperature' must be a number > 0, "
                f"got {temperature!r}"
            )
        u = rand(shape, dtype=self.dtype).clip(1e-12, 1 - 1e-7)
        probs = self.probs.expand(shape)
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / temperature

    def cdf(self, value):
        value = self._value(value, self.probs, "cdf")
        probs, value = broadcast_tensors([self.probs, value])
        zero, one = zeros_like(probs), ones_like(probs)
        return where(value < 0, zero, where(value < 1, one - probs, one))

    def log_prob(self, value):
        value = self._value(value, self.probs)
        # -binary_cross_entropy_with_logits(logits, value)
        return -_nn.functional.binary_cross_entropy_with_logits(
            *broadcast_tensors([self.logits, value]), reduction="none"
        )

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        return _nn.functional.binary_cross_entropy_with_logits(
            self.logits, self.probs, reduction="none"
        )

    @property
    def _natural_parameters(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return x.exp().log1p()

    @property
    def _mean_carrier_measure(self):
        return 0.0
