"""oar's high-level API (Paddle's paddle.hapi): Model, summary, callbacks, flops."""

from . import callbacks, dynamic_flops  # noqa: F401
from .dynamic_flops import flops  # noqa: F401
from .model import Model, summary  # noqa: F401
