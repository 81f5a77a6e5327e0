"""oar.random: Paddle's paddle.random namespace (initial_seed); the random tensor
functions themselves are top-level (oar.rand, oar.randn, oar.seed, ...)."""

from __future__ import annotations

from . import _C

__all__ = ["initial_seed"]


def initial_seed() -> int:
    """The seed the default (CPU) random generator was last seeded with, as an int
    (oar.seed(s) sets it; a fresh process has a seed drawn at start).

    Examples:
        >>> import oar
        >>> _ = oar.seed(2023)
        >>> print(oar.random.initial_seed())
        2023
    """
    return _C._get_rng_state()[0]
