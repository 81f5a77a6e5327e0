"""QuantedConv2D."""

from __future__ import annotations

from ... import functional as F
from ..format import ConvertibleQuantedLayer


class QuantedConv2D(ConvertibleQuantedLayer):
    """A Conv2D whose input and weight pass through the configuration's quanters (shares
    the original layer's weight, bias and settings)."""

    def __init__(self, layer, q_config):
        super().__init__()
        self._groups, self._stride = layer._groups, layer._stride
        self._padding, self._dilation = layer._padding, layer._dilation
        self._data_format = layer._data_format
        self._make_quanters(layer, q_config)

    def forward(self, input):
        x, w = self._quantized(input)
        return F.conv2d(
            x,
            w,
            bias=self.bias,
            stride=self._stride,
            padding=self._padding,
            dilation=self._dilation,
            groups=self._groups,
            data_format=self._data_format,
        )
