"""oar.nn layers (Paddle's paddle.nn.layer), one module per group."""
from .activation import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
