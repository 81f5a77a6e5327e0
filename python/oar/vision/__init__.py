"""oar.vision: datasets and transforms (Paddle's paddle.vision)."""
from . import datasets, transforms  # noqa: F401
