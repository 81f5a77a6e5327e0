"""QuantedLinear."""

from __future__ import annotations

from ... import functional as F
from ..format import ConvertibleQuantedLayer


class QuantedLinear(ConvertibleQuantedLayer):
    """A Linear whose input and weight pass through the configuration's quanters (shares
    the original layer's weight and bias)."""

    def __init__(self, layer, q_config):
        super().__init__()
        self._make_quanters(layer, q_config)

    def forward(self, input):
        x, w = self._quantized(input)
        return F.linear(x, w, self.bias)
