"""TransformedDistribution: the distribution of transforms applied to a base's samples."""

from __future__ import annotations

from collections.abc import Sequence

from .distribution import Distribution, _sample_shape
from . import transform as _transform
from .transform import ChainTransform, Transform, _ldj, _sum_rightmost
from ..framework.grad_mode import no_grad
from ..tensor.creation import zeros


class TransformedDistribution(Distribution):
    """Y = t_n(...t_1(X)) for X ~ base; log_prob by the change of variables.

    Args:
        base: The Distribution of X.
        transforms: A sequence of injective Transform.
    """

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(
                "TransformedDistribution: argument 'base' must be a Distribution, "
                f"got {type(base).__name__}"
            )
        if not isinstance(transforms, Sequence) or not all(
            isinstance(t, Transform) for t in transforms
        ):
            raise TypeError(
                "TransformedDistribution: argument 'transforms' must be a sequence of Transform"
            )
        for t in transforms:
            if not t._is_injective():
                raise ValueError(
                    "TransformedDistribution: every transform must be injective, "
                    f"{type(t).__name__} is not"
                )
        self._base = base
        self._transforms = list(transforms)
        self.dtype = getattr(base, "dtype", None)
        chain = ChainTransform(self._transforms)
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        if len(base_shape) < chain._domain_event_rank:
            raise ValueError(
                f"TransformedDistribution: the base's shape {list(base_shape)} has "
                f"fewer dimensions than the transforms' event rank "
                f"{chain._domain_event_rank}"
            )
        shape = chain.forward_shape(base_shape)
        event_rank = max(chain._codomain_event_rank, len(base.event_shape))
        cut = len(shape) - event_rank
        super().__init__(shape[:cut], shape[cut:])

    def sample(self, shape=()):
        with no_grad():
            x = self._base.sample(_sample_shape(shape, type(self).__name__, "sample"))
            for t in self._transforms:
                x = t.forward(x)
            return x

    def rsample(self, shape=()):
        x = self._base.rsample(_sample_shape(shape, type(self).__name__, "rsample"))
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        if self.dtype is not None:
            value = self._value(value, zeros([], dtype=self.dtype))
        log_prob = 0.0
        y = value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain_event_rank - t._codomain_event_rank
            log_prob = log_prob - _sum_rightmost(_ldj(t, x), event_rank - t._domain_event_rank)
            y = x
        return log_prob + _sum_rightmost(
            self._base.log_prob(y), event_rank - len(self._base.event_shape)
        )

    def prob(self, value):
        return self.log_prob(value).exp()


_transform._TRANSFORMED_DISTRIBUTION[0] = TransformedDistribution  # Transform.__call__'s
