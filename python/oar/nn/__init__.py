"""oar.nn: layers (Paddle's paddle.nn), their functional forms (oar.nn.functional)
and parameter initializers (oar.nn.initializer)."""
from . import functional, initializer, utils  # noqa: F401
from .layer import *  # noqa: F401,F403
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from .decode import BeamSearchDecoder, dynamic_decode  # noqa: F401
from ..framework.param import ParamAttr, Parameter  # noqa: F401
