"""Paddle's top-level constants: e, pi, inf, nan, newaxis."""

from __future__ import annotations

import math

# ---- constants ------------------------------------------------------------------------------
e = math.e


pi = math.pi


inf = math.inf


nan = math.nan


newaxis = None
