"""Fixed quantize / dequantize layers and the convertible quantized layers (what
Quantization.convert() produces)."""

from __future__ import annotations

from ... import _C
from ...tensor.creation import to_tensor
from ...framework.grad_mode import no_grad
from ._fake import fake_quant
from ..layer.layers import Layer

Tensor = _C.Tensor


def _as_scale(v):
    if v is None:
        return None
    return v.detach() if isinstance(v, Tensor) else to_tensor(v, dtype="float32")


def _levels(bits):
    return float((1 << (bits - 1)) - 1)


class LinearQuanter(Layer):
    """x -> clip(round(x / scale * levels), -levels, levels) (the integer grid values, in
    x's dtype), with zero_point added when given."""

    def __init__(self, scales, zero_point=None, quant_axis=None, bit_length=8):
        super().__init__()
        self._scales = _as_scale(scales)
        self._zero_point = _as_scale(zero_point)
        self._quant_axis = -1 if quant_axis is None else quant_axis
        self._bit_length = bit_length

    def forward(self, input):
        levels = _levels(self._bit_length)
        out = _C.round(input * levels / self._broadcast(input), 0).clip(-levels, levels)
        if self._zero_point is not None:
            out = out + self._zero_point.astype(input.dtype)
        return out

    def _broadcast(self, x):
        s = self._scales.astype(x.dtype)
        if s.size == 1:
            return s.reshape([])
        shape = [1] * x.ndim
        shape[self._quant_axis % x.ndim] = -1
        return s.reshape(shape)


class LinearDequanter(LinearQuanter):
    """The inverse of LinearQuanter: (x - zero_point) * scale / levels."""

    def forward(self, input):
        if self._zero_point is not None:
            input = input - self._zero_point.astype(input.dtype)
        return input * self._broadcast(input) / _levels(self._bit_length)


class LinearQuanterDequanter(Layer):
    """LinearQuanter then LinearDequanter: fake quantization with fixed scales."""

    def __init__(self, quanter, dequanter):
        super().__init__()
        self._quanter = quanter
        self._dequanter = dequanter

    def forward(self, input):
        q = self._quanter
        if q._zero_point is None or not bool(q._zero_point.abs().max().item()):
            # symmetric: the fused op, with the straight-through gradient
            return fake_quant(input, q._scales, q._bit_length, q._quant_axis)
        return self._dequanter(self._quanter(input))

    @staticmethod
    def from_quanter(quanter):
        scales = quanter.scales()
        if scales is None:
            raise ValueError(
                f"convert: {type(quanter).__name__} has no scales yet (run data "
                f"through the model first)"
            )
        args = (scales, quanter.zero_points(), quanter.quant_axis(), quanter.bit_length())
        return LinearQuanterDequanter(LinearQuanter(*args), LinearDequanter(*args))


class ConvertibleQuantedLayer(Layer):
    """A quantized layer that convert() can freeze: its weights are replaced by their
    quantized-dequantized values (remain_weight=False) and its quanters by fixed
    LinearQuanterDequanter layers."""

    def __init__(self):
        super().__init__()
        self.converted = False

    def _make_quanters(self, layer, q_config):
        """weight_quanter and activation_quanter from the layer's configuration (None
        where it has none); the layer's weight and bias are shared."""
        self.weight = layer.weight
        self.bias = layer.bias
        self.weight_quanter = None
        self.activation_quanter = None
        if q_config is not None and q_config.weight is not None:
            self.weight_quanter = q_config.weight._instance(layer)
        if q_config is not None and q_config.activation is not None:
            self.activation_quanter = q_config.activation._instance(layer)

    def _quantized(self, input):
        """(input, weight) through their quanters."""
        if self.activation_quanter is not None:
            input = self.activation_quanter(input)
        weight = self.weight
        if self.weight_quanter is not None:
            weight = self.weight_quanter(weight)
        return input, weight

    def weights_to_quanters(self):
        """[(weight attribute, its quanter attribute), ...]"""
        return [("weight", "weight_quanter")]

    def activation_quanters(self):
        """[activation quanter attribute, ...]"""
        return ["activation_quanter"]

    @no_grad()
    def _convert(self, remain_weight=False):
        for weight_name, quanter_name in self.weights_to_quanters():
            quanter = getattr(self, quanter_name)
            if quanter is None:
                continue
            fixed = LinearQuanterDequanter.from_quanter(quanter)
            if not remain_weight:
                w = getattr(self, weight_name)
                w[...] = fixed(w)
            self._sub_layers[quanter_name] = None
        for name in self.activation_quanters():
            quanter = getattr(self, name)
            if quanter is not None:
                self._sub_layers[name] = LinearQuanterDequanter.from_quanter(quanter)
        self.converted = True
