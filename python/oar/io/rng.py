"""Host-side randomness of oar.io and oar.vision (shuffling, random transforms),
drawn from oar's seeded generator so oar.seed(n) makes a whole run reproducible."""

from __future__ import annotations

import numpy as np

from .. import _C


def host_rng():
    """A numpy Generator seeded from oar's default generator (advancing it)."""
    seeds = _C.uniform([4], "float64", 0.0, float(2**32), 0).numpy().astype(np.uint64)
    return np.random.default_rng(seeds)
