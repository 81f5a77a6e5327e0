"""oar's high-level API (Paddle's paddle.hapi): Model, summary, callbacks."""
from . import callbacks  # noqa: F401
from .model import Model, summary  # noqa: F401
