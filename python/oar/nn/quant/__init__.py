"""oar.nn.quant: the layers of simulated quantization (docs/quantization.md).

- Stub: marks where a model's activations are quantized (QAT turns it into a
  QuanterStub);
- qat.QuantedLinear, qat.QuantedConv2D: what QAT puts in place of Linear/Conv2D;
- quant_layers: Paddle's earlier (ImperativeQuantAware) layers: FakeQuantAbsMax,
  FakeQuantMovingAverageAbsMax, FakeQuantChannelWiseAbsMax, MovingAverageAbsMaxScale
  (= QuantStub), QuantizedConv2D, QuantizedConv2DTranspose, QuantizedLinear,
  MAOutputScaleLayer, FakeQuantMAOutputScaleLayer;
- format: LinearQuanter, LinearDequanter, LinearQuanterDequanter (what convert() uses);
- weight_quantize, weight_dequantize, weight_only_linear, llm_int8_linear: Paddle's
  weight-only / LLM.int8() linears, with real int8 weights in Paddle's byte layouts
  (_weight_only.py).
"""

from . import format, qat, quant_layers, stub  # noqa: F401
from .quant_layers import QuantStub  # noqa: F401
from ._weight_only import (
    llm_int8_linear,
    weight_dequantize,  # noqa: F401
    weight_only_linear,
    weight_quantize,
)
from .stub import Stub  # noqa: F401

__all__ = ["Stub", "weight_quantize", "weight_dequantize", "weight_only_linear", "llm_int8_linear"]
