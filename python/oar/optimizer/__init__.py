"""oar.optimizer: Paddle's optimizers (fused C++ updates) and oar.optimizer.lr."""

from . import lr  # noqa: F401
from .optimizer import *  # noqa: F401,F403
from .lbfgs import LBFGS  # noqa: F401
