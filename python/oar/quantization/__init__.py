"""oar.quantization: quantization-aware training (QAT) and post-training quantization
(PTQ) with Paddle's API, simulated ("fake") on the CPU.

A QuantConfig says which quanter (a factory such as
quanters.FakeQuanterWithAbsMaxObserver) or observer (observers.AbsmaxObserver)
each layer's activations and weights get; QAT(config).quantize(model) swaps
Linear/Conv2D/Stub layers for their quantized versions (oar.nn.quant.qat) and wraps
leaf layers in observers; PTQ does the same for calibration in eval mode. Fake
quantization rounds values to the int grid of a scale and back to float
(the op fake_quantize_dequantize), with Paddle's straight-through gradient.
convert() turns the trained quanters into fixed quantize-dequantize layers.
docs/quantization.md has the details and what is not there (int8 kernels, export).
"""

from . import observers, quanters  # noqa: F401
from .base_observer import BaseObserver  # noqa: F401
from .base_quanter import BaseQuanter  # noqa: F401
from .config import QuantConfig  # noqa: F401
from .factory import quanter  # noqa: F401
from .ptq import PTQ  # noqa: F401
from .qat import QAT  # noqa: F401

__all__ = ["QuantConfig", "BaseQuanter", "BaseObserver", "quanter", "QAT", "PTQ"]
