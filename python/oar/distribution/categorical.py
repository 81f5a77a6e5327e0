"""The categorical distribution."""

from __future__ import annotations

from .distribution import Distribution, _as_param, _check, _sample_shape
from .. import _C
from .. import nn as _nn
from ..framework.grad_mode import no_grad
from ..tensor.creation import to_tensor
from ..tensor.creation import zeros
from ..tensor.manipulation import gather


class Categorical(Distribution):
    """A draw of one of the last axis's K categories.

    As in Paddle, `logits` plays two roles: sample, entropy and kl_divergence use
    softmax(logits), while probs and log_prob use logits normalised by their sum
    (Paddle's documented behaviour, kept so its programs print the same numbers; pass
    non-negative weights for the two to agree on what a category's weight means).

    Args:
        logits: The category weights, at least 1-D.
        name: Unused; Paddle's name argument.
    """

    def __init__(self, logits, name=None):
        self.logits = _as_param(logits, "Categorical", "logits")
        if self.logits.ndim < 1:
            raise ValueError(
                "Categorical: argument 'logits' must be at least 1-D, got a 0-D tensor"
            )
        self.name = name if name is not None else "Categorical"
        self.dtype = self.logits.dtype
        self._prob = self.logits / self.logits.sum(-1, keepdim=True)
        shape = tuple(self.logits.shape)
        super().__init__(shape[:-1])

    def sample(self, shape=()):
        """Category indices (int64) of shape `shape + batch_shape`, drawn from softmax(logits)."""
        shape = _sample_shape(shape, "Categorical", "sample")
        n = 1
        for d in shape:
            n *= d
        k = self.logits.shape[-1]
        probs = _nn.functional.softmax(self.logits.reshape([-1, k]), axis=-1)
        with no_grad():
            if n == 0:
                return zeros(list(shape) + list(self._batch_shape), dtype="int64")
            idx = _C.multinomial(probs, n, True)  # [batch, n]
        return idx.t().reshape(list(shape) + list(self._batch_shape))

    def entropy(self):
        logp = _nn.functional.log_softmax(self.logits, axis=-1)
        return -(logp.exp() * logp).sum(-1)

    def probs(self, value):
        """The normalised weight logits / sum(logits) of each category in value (as Paddle:
        with 1-D logits, value's shape; with a batch and a 1-D value, every value for every
        distribution; else value indexes the last axis per distribution)."""
        value = self._index(value)
        if self._prob.ndim == 1:
            return gather(self._prob, value.reshape([-1])).reshape(value.shape)
        if value.ndim == 1:
            idx = value.reshape([1] * (self._prob.ndim - 1) + [-1])
            idx = idx.expand(list(self._prob.shape[:-1]) + [value.shape[0]])
            return _C.take_along_axis(self._prob, idx, axis=-1)
        return _C.take_along_axis(self._prob, value, axis=-1)

    def prob(self, value):
        return self.probs(value)

    def log_prob(self, value):
        return self.probs(value).log()

    def _index(self, value):
        if not hasattr(value, "dtype"):
            value = to_tensor(value, dtype="int64")
        if value.dtype.is_floating_point:
            value = value.astype("int64")
        k = self.logits.shape[-1]
        if value.numel():
            _check(
                (value >= 0).logical_and(value < k),
                "Categorical",
                "value",
                f"category indices in [0, {k})",
            )
        return value
