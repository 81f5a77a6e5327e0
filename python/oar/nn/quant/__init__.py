"""oar.nn.quant: the layers of simulated quantization (docs/quantization.md).

- Stub: marks where a model's activations are quantized (QAT turns it into a
  QuanterStub);
- qat.QuantedLinear, qat.QuantedConv2D: what QAT puts in place of Linear/Conv2D;
- quant_layers: Paddle's earlier (ImperativeQuantAware) layers: FakeQuantAbsMax,
  FakeQuantMovingAverageAbsMax, FakeQuantChannelWiseAbsMax, MovingAverageAbsMaxScale
  (= QuantStub), QuantizedConv2D, QuantizedConv2DTranspose, QuantizedLinear,
  MAOutputScaleLayer, FakeQuantMAOutputScaleLayer;
- format: LinearQuanter, LinearDequanter, LinearQuanterDequanter (what convert() uses).
"""
from . import format, qat, quant_layers, stub  # noqa: F401
from .quant_layers import QuantStub  # noqa: F401
from .stub import Stub  # noqa: F401

__all__ = ["Stub"]
