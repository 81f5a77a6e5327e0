"""FakeQuanterWithAbsMaxObserver: fake quantization with a moving-average abs-max scale."""

from __future__ import annotations

from ...framework import ParamAttr
from ...nn.initializer import Constant
from ...nn.quant._fake import check_bits, check_rate, fake_quant, update_moving_scale
from ..base_quanter import BaseQuanter
from ..factory import QuanterFactory


class FakeQuanterWithAbsMaxObserver(QuanterFactory):
    """Factory of FakeQuanterWithAbsMaxObserverLayer: in training each call updates
    state = moving_rate * state + 1, accum = moving_rate * accum + max|x|, scale =
    accum / state (state and accum start at 1), then fake-quantizes x with scale to
    bit_length bits; in eval mode it uses the last scale."""

    def __init__(self, moving_rate=0.9, bit_length=8, dtype="float32", name=None):
        check_rate("FakeQuanterWithAbsMaxObserver", moving_rate)
        check_bits("FakeQuanterWithAbsMaxObserver", bit_length)
        super().__init__(name=name, moving_rate=moving_rate, bit_length=bit_length, dtype=dtype)

    def _get_class(self):
        return FakeQuanterWithAbsMaxObserverLayer


def _scalar_param(layer, value, dtype):
    p = layer.create_parameter(
        [1], attr=ParamAttr(initializer=Constant(value), trainable=False), dtype=dtype
    )
    p.stop_gradient = True
    return p


class FakeQuanterWithAbsMaxObserverLayer(BaseQuanter):
    """The quanter layer (see FakeQuanterWithAbsMaxObserver); its scale, state and accum
    are non-trainable parameters, so they are in state_dict()."""

    def __init__(self, layer, name=None, moving_rate=0.9, bit_length=8, dtype="float32"):
        super().__init__()
        self._moving_rate = check_rate("FakeQuanterWithAbsMaxObserverLayer", moving_rate)
        self._bit_length = check_bits("FakeQuanterWithAbsMaxObserverLayer", bit_length)
        self._scale = _scalar_param(self, 0.001, dtype)
        self._state = _scalar_param(self, 1.0, dtype)
        self._accum = _scalar_param(self, 1.0, dtype)

    def forward(self, input):
        if self.training:
            update_moving_scale(self._scale, self._state, self._accum, input, self._moving_rate)
        return fake_quant(input, self._scale, self._bit_length)

    def bit_length(self):
        return self._bit_length

    def quant_axis(self):
        return -1

    def scales(self):
        return self._scale

    def zero_points(self):
        return None
