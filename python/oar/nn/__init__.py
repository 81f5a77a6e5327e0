"""oar.nn: layers (Paddle's paddle.nn), their functional forms (oar.nn.functional),
parameter initializers (oar.nn.initializer), utilities (oar.nn.utils) and the
simulated-quantization layers (oar.nn.quant)."""

from . import functional, initializer, utils  # noqa: F401
from .layer import *  # noqa: F401,F403
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from .decode import BeamSearchDecoder, dynamic_decode  # noqa: F401
from ..framework.param import ParamAttr, Parameter  # noqa: F401
from . import quant  # noqa: F401,E402  (after Layer: the quantized layers build on it)
from ._module_compat import Module, ModuleDict, ModuleList  # noqa: F401 - Paddle 3.3's aliases
from . import attention  # noqa: F401,E402
