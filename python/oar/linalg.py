"""oar.linalg: Paddle's paddle.linalg namespace (the ops of this area so far)."""
from ._stats import norm  # noqa: F401

__all__ = ["norm"]
