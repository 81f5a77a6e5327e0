"""Independent: reinterprets a distribution's rightmost batch dimensions as event ones."""

from __future__ import annotations

from .distribution import Distribution, _sample_shape
from .transform import _sum_rightmost


class Independent(Distribution):
    """base, with its rightmost reinterpreted_batch_rank batch dimensions joined to the
    event: log_prob and entropy sum over them.

    Args:
        base: The Distribution.
        reinterpreted_batch_rank: How many batch dimensions join the event
            (1 <= it <= len(base.batch_shape)).
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(
                f"Independent: argument 'base' must be a Distribution, got {type(base).__name__}"
            )
        n = len(base.batch_shape)
        if (
            isinstance(reinterpreted_batch_rank, bool)
            or not isinstance(reinterpreted_batch_rank, int)
            or not 0 < reinterpreted_batch_rank <= n
        ):
            raise ValueError(
                "Independent: argument 'reinterpreted_batch_rank' must be an int in "
                f"[1, {n}] (the base's batch rank), got {reinterpreted_batch_rank!r}"
            )
        self._base = base
        self.dtype = getattr(base, "dtype", None)
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        cut = n - reinterpreted_batch_rank
        super().__init__(shape[:cut], shape[cut:])

    @property
    def mean(self):
        return self._base.mean

    @property
    def variance(self):
        return self._base.variance

    def sample(self, shape=()):
        return self._base.sample(_sample_shape(shape, "Independent", "sample"))

    def rsample(self, shape=()):
        return self._base.rsample(_sample_shape(shape, "Independent", "rsample"))

    def log_prob(self, value):
        return _sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        return _sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)
