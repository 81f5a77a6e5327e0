"""oar.vision: datasets and transforms (Paddle's paddle.vision)."""
from . import datasets, models, transforms  # noqa: F401
