"""oar.nn.quant.qat: the layers QAT puts in place of Linear and Conv2D."""

from .conv import QuantedConv2D  # noqa: F401
from .linear import QuantedLinear  # noqa: F401

__all__ = ["QuantedConv2D", "QuantedLinear"]
