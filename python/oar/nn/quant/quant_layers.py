"""Paddle's imperative quantization layers (paddle.nn.quant.quant_layers): fake
quantizers of inputs and weights and the quantized Conv2D, Conv2DTranspose and Linear
built from them. Each quantizes with fake_quantize_dequantize and passes the gradient
straight through (docs/quantization.md)."""

from __future__ import annotations

from ... import _C
from ...framework.grad_mode import no_grad
from ...framework import ParamAttr
from ._fake import abs_max, check_bits, check_rate, fake_quant, update_moving_scale
from .. import functional as F
from ..initializer import Constant
from ..layer.layers import Layer

__all__ = [
    "FakeQuantAbsMax",
    "FakeQuantMovingAverageAbsMax",
    "FakeQuantChannelWiseAbsMax",
    "QuantizedConv2D",
    "QuantizedConv2DTranspose",
    "QuantizedLinear",
    "MovingAverageAbsMaxScale",
    "MAOutputScaleLayer",
    "FakeQuantMAOutputScaleLayer",
    "QuantStub",
]

Tensor = _C.Tensor


def _state(layer, shape, value, dtype, name, suffix):
    """A non-trainable parameter of the quantizer (in state_dict under its attribute
    name; its parameter name is generated, as Paddle's unique names are)."""
    attr = ParamAttr(initializer=Constant(value), trainable=False)
    p = layer.create_parameter(shape, attr=attr, dtype=dtype)
    p.stop_gradient = True
    return p


def _check_reduce(who, reduce_type):
    if reduce_type not in (None, "max"):
        raise ValueError(
            f"{who}: argument 'reduce_type' must be None or 'max', got {reduce_type!r}"
        )
    if reduce_type == "max":
        raise NotImplementedError(
            f"{who}: reduce_type='max' all-reduces the scale across "
            f"ranks, which the simulated quantizers do not do"
        )


class FakeQuantAbsMax(Layer):
    """Fake quantization with scale = max|x| of the current input. With quant_on_weight
    the scale is kept in a parameter (for convert())."""

    def __init__(
        self, name=None, quant_bits=8, dtype="float32", quant_on_weight=False, reduce_type=None
    ):
        super().__init__()
        _check_reduce("FakeQuantAbsMax", reduce_type)
        self._quant_bits = check_bits("FakeQuantAbsMax", quant_bits)
        self._name = name
        self._scale = _state(self, [1], 0.001, dtype, name, "scale") if quant_on_weight else None

    def forward(self, input):
        scale = abs_max(input)
        if self._scale is not None:
            with no_grad():
                self._scale[...] = scale.astype(self._scale.dtype)
        return fake_quant(input, scale, self._quant_bits)


class FakeQuantMovingAverageAbsMax(Layer):
    """Fake quantization with a moving-average abs-max scale: in training, state =
    rate * state + 1, accum = rate * accum + max|x|, scale = accum / state (state and
    accum start at 1); in eval, the last scale."""

    def __init__(self, name=None, moving_rate=0.9, quant_bits=8, dtype="float32", reduce_type=None):
        super().__init__()
        _check_reduce("FakeQuantMovingAverageAbsMax", reduce_type)
        self._moving_rate = check_rate("FakeQuantMovingAverageAbsMax", moving_rate)
        self._quant_bits = check_bits("FakeQuantMovingAverageAbsMax", quant_bits)
        self._scale = _state(self, [1], 0.001, dtype, name, "scale")
        self._state = _state(self, [1], 1.0, dtype, name, "state")
        self._accum = _state(self, [1], 1.0, dtype, name, "accum")

    def forward(self, input):
        if self.training:
            update_moving_scale(self._scale, self._state, self._accum, input, self._moving_rate)
        return fake_quant(input, self._scale, self._quant_bits)


class FakeQuantChannelWiseAbsMax(Layer):
    """Fake quantization of a weight with one abs-max scale per slice along quant_axis
    (channel_num slices). Only for weights (quant_on_weight=True), as in Paddle."""

    def __init__(
        self,
        name=None,
        channel_num=None,
        quant_bits=8,
        quant_axis=0,
        dtype="float32",
        quant_on_weight=False,
        reduce_type=None,
    ):
        super().__init__()
        if not quant_on_weight:
            raise ValueError(
                "FakeQuantChannelWiseAbsMax: channel-wise quantization is for "
                "weights only (quant_on_weight=True)"
            )
        if isinstance(channel_num, bool) or not isinstance(channel_num, int) or channel_num < 1:
            raise ValueError(
                f"FakeQuantChannelWiseAbsMax: argument 'channel_num' must be a "
                f"positive int, got {channel_num!r}"
            )
        _check_reduce("FakeQuantChannelWiseAbsMax", reduce_type)
        self._quant_bits = check_bits("FakeQuantChannelWiseAbsMax", quant_bits)
        self._quant_axis = quant_axis
        self._channel_num = channel_num
        self._scale = _state(self, [channel_num], 0.0, dtype, name, "scale")

    def forward(self, input):
        if input.ndim == 0 or input.shape[self._quant_axis] != self._channel_num:
            raise ValueError(
                f"FakeQuantChannelWiseAbsMax: the input has shape "
                f"{list(input.shape)}, expected {self._channel_num} channels "
                f"along axis {self._quant_axis}"
            )
        scale = abs_max(input, self._quant_axis)
        with no_grad():
            self._scale[...] = scale.astype(self._scale.dtype)
        return fake_quant(input, scale, self._quant_bits, self._quant_axis)


class MovingAverageAbsMaxScale(Layer):
    """Identity that records a moving-average abs-max of what passes (state and accum
    start at 0): the output scale of a layer, for deployment."""

    def __init__(self, name=None, moving_rate=0.9, dtype="float32", reduce_type=None):
        super().__init__()
        _check_reduce("MovingAverageAbsMaxScale", reduce_type)
        self._moving_rate = check_rate("MovingAverageAbsMaxScale", moving_rate)
        self._scale = _state(self, [1], 0.0, dtype, name, "scale")
        self._state = _state(self, [1], 0.0, dtype, name, "state")
        self._accum = _state(self, [1], 0.0, dtype, name, "accum")

    def forward(self, input):
        if self.training:
            update_moving_scale(self._scale, self._state, self._accum, input, self._moving_rate)
        return input


QuantStub = MovingAverageAbsMaxScale

_QUANT_TYPES = ("abs_max", "moving_average_abs_max", "channel_wise_abs_max")


def _make_quanter(who, kind, *, name, bits, rate, dtype, on_weight, channels=None, axis=0):
    if kind not in _QUANT_TYPES:
        raise ValueError(
            f"{who}: quantize type must be one of {', '.join(_QUANT_TYPES)}, got "
            f"{kind!r} (the LSQ types are not implemented)"
        )
    if kind == "abs_max":
        return FakeQuantAbsMax(name, bits, dtype, quant_on_weight=on_weight)
    if kind == "moving_average_abs_max":
        return FakeQuantMovingAverageAbsMax(name, rate, bits, dtype)
    if not on_weight:
        raise ValueError(f"{who}: 'channel_wise_abs_max' is for weights only")
    return FakeQuantChannelWiseAbsMax(name, channels, bits, axis, dtype, quant_on_weight=True)


class _Quantized(Layer):
    """The shared part of the quantized layers: quantizers of the input and the weight,
    optional preprocessing layers, and the wrapped layer's weight and bias."""

    _weight_axis = 0  # the output-channel axis of the weight (channel-wise scales)

    def __init__(
        self,
        layer,
        weight_bits=8,
        activation_bits=8,
        moving_rate=0.9,
        weight_quantize_type="abs_max",
        activation_quantize_type="abs_max",
        weight_pre_layer=None,
        act_pre_layer=None,
        weight_quant_layer=None,
        act_quant_layer=None,
    ):
        super().__init__()
        who = type(self).__name__
        if not isinstance(layer, Layer) or not hasattr(layer, "weight"):
            raise TypeError(
                f"{who}: argument 'layer' must be the layer to quantize, got {type(layer).__name__}"
            )
        self.weight = layer.weight
        self.bias = layer.bias
        if weight_quant_layer is not None:
            self._fake_quant_weight = weight_quant_layer()
        else:
            self._fake_quant_weight = _make_quanter(
                who,
                weight_quantize_type,
                name=self.weight.name,
                bits=weight_bits,
                rate=moving_rate,
                dtype=self.weight.dtype.name,
                on_weight=True,
                channels=self.weight.shape[self._weight_axis],
                axis=self._weight_axis,
            )
        if act_quant_layer is not None:
            self._fake_quant_input = act_quant_layer()
        else:
            self._fake_quant_input = _make_quanter(
                who,
                activation_quantize_type,
                name=layer.full_name(),
                bits=activation_bits,
                rate=moving_rate,
                dtype=self.weight.dtype.name,
                on_weight=False,
            )
        self._act_preprocess = act_pre_layer() if act_pre_layer is not None else None
        self._weight_preprocess = weight_pre_layer() if weight_pre_layer is not None else None

    def _quantized_inputs(self, input):
        if self._act_preprocess is not None:
            input = self._act_preprocess(input)
        weight = self.weight
        if self._weight_preprocess is not None:
            weight = self._weight_preprocess(weight)
        return self._fake_quant_input(input), self._fake_quant_weight(weight)


class QuantizedConv2D(_Quantized):
    """Conv2D on fake-quantized input and weight (weight scales per output channel, axis
    0, with 'channel_wise_abs_max')."""

    def __init__(self, layer, *args, **kwargs):
        super().__init__(layer, *args, **kwargs)
        self._groups, self._stride = layer._groups, layer._stride
        self._padding, self._dilation = layer._padding, layer._dilation
        self._data_format = layer._data_format

    def forward(self, input):
        x, w = self._quantized_inputs(input)
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


class QuantizedConv2DTranspose(_Quantized):
    """Conv2DTranspose on fake-quantized input and weight (weight scales per output
    channel, axis 1 of the [in, out, kh, kw] weight)."""

    _weight_axis = 1

    def __init__(self, layer, *args, **kwargs):
        super().__init__(layer, *args, **kwargs)
        self._groups, self._stride = layer._groups, layer._stride
        self._padding, self._dilation = layer._padding, layer._dilation
        self._output_padding = getattr(
            layer, "output_padding", getattr(layer, "_output_padding", 0)
        )
        self._data_format = layer._data_format

    def forward(self, input, output_size=None):
        x, w = self._quantized_inputs(input)
        kw = {}
        if output_size is None:
            kw["output_padding"] = self._output_padding
        else:
            kw["output_size"] = output_size
        return F.conv2d_transpose(
            x,
            w,
            bias=self.bias,
            stride=self._stride,
            padding=self._padding,
            dilation=self._dilation,
            groups=self._groups,
            data_format=self._data_format,
            **kw,
        )


class QuantizedLinear(_Quantized):
    """Linear on fake-quantized input and weight (weight scales per output feature, axis
    1 of the [in, out] weight)."""

    _weight_axis = 1

    def forward(self, input):
        x, w = self._quantized_inputs(input)
        return F.linear(x, w, self.bias)


class MAOutputScaleLayer(Layer):
    """Runs layer and records the moving-average abs-max of its (single) output."""

    def __init__(self, layer=None, moving_rate=0.9, name=None, dtype="float32", reduce_type=None):
        super().__init__()
        if not isinstance(layer, Layer):
            raise TypeError(
                f"MAOutputScaleLayer: argument 'layer' must be a Layer, got {type(layer).__name__}"
            )
        self._layer = layer
        self._ma_output_scale = MovingAverageAbsMaxScale(
            name if name is not None else layer.full_name(), moving_rate, dtype, reduce_type
        )

    def forward(self, *inputs, **kwargs):
        out = self._layer(*inputs, **kwargs)
        if isinstance(out, (list, tuple, dict)):
            return out
        return self._ma_output_scale(out)


class FakeQuantMAOutputScaleLayer(Layer):
    """Runs layer and fake-quantizes its (single) output with a moving-average scale."""

    def __init__(
        self,
        layer,
        weight_bits=8,
        activation_bits=8,
        moving_rate=0.9,
        name=None,
        reduce_type=None,
        *args,
        **kwargs,
    ):
        super().__init__()
        if not isinstance(layer, Layer):
            raise TypeError(
                f"FakeQuantMAOutputScaleLayer: argument 'layer' must be a Layer, "
                f"got {type(layer).__name__}"
            )
        self._layer = layer
        self._fake_quant_output = FakeQuantMovingAverageAbsMax(
            layer.full_name() if name is None else name,
            moving_rate,
            activation_bits,
            self._dtype,
            reduce_type,
        )

    def forward(self, *inputs, **kwargs):
        out = self._layer(*inputs, **kwargs)
        if isinstance(out, (list, tuple)) and len(out) > 1:
            return out
        return self._fake_quant_output(out)
