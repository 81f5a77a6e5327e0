"""Convolution layers (Paddle's weight layouts and default initializers)."""

from __future__ import annotations

from ...framework import check as _check

import math

from .layers import Layer
from ..initializer import Normal
from .. import functional as F
from ..functional import _window as W

__all__ = [
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "Conv1DTranspose",
    "Conv2DTranspose",
    "Conv3DTranspose",
    "Conv1d",
    "Conv2d",
    "Conv3d",
]


# padding_mode -> the mode of oar.nn.functional.pad
_PAD_MODES = {
    "zeros": "constant",
    "reflect": "reflect",
    "replicate": "replicate",
    "circular": "circular",
}


def _tuple(v, n, who, name):
    if _check.is_int(v):
        return (int(v),) * n
    v = tuple(v)
    if len(v) != n or not all(_check.is_int(x) for x in v):
        raise ValueError(f"{who}: argument '{name}' must be an int or {n} ints, got {v!r}")
    return tuple(int(x) for x in v)


def _as_list(v, n):
    """v as the list of n ints Paddle keeps for stride and dilation (v itself if it is
    neither an int nor a sequence)."""
    if _check.is_int(v):
        return [int(v)] * n
    try:
        return [int(x) for x in v]
    except (TypeError, ValueError):
        return v


class _ConvNd(Layer):
    _dims = 2
    _fn = "conv2d"
    _transpose = False

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        *,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
        weight_attr=None,
        bias_attr=None,
        data_format=None,
    ):
        # Paddle 3's Conv1D/2D/3D signature; the transposed layers call _setup directly
        self._setup(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias=bias,
            padding_mode=padding_mode,
            dtype=dtype,
            weight_attr=weight_attr,
            bias_attr=bias_attr,
            data_format=data_format,
        )

    def _setup(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        *,
        bias=True,
        padding_mode="zeros",
        dtype=None,
        weight_attr=None,
        bias_attr=None,
        data_format=None,
        output_padding=0,
    ):
        Layer.__init__(self, dtype=dtype or "float32")
        who = type(self).__name__
        for name, v in (
            ("in_channels", in_channels),
            ("out_channels", out_channels),
            ("groups", groups),
        ):
            if not _check.is_int(v) or v < 1:
                raise ValueError(f"{who}: argument '{name}' must be a positive int, got {v!r}")
        in_channels, out_channels, groups = int(in_channels), int(out_channels), int(groups)
        if in_channels % groups or out_channels % groups:
            raise ValueError(
                f"{who}: in_channels ({in_channels}) and out_channels "
                f"({out_channels}) must be divisible by groups ({groups})"
            )
        if padding_mode not in _PAD_MODES:
            raise ValueError(
                f"{who}: argument 'padding_mode' must be one of "
                f"{list(_PAD_MODES)}, got {padding_mode!r}"
            )
        if padding_mode != "zeros" and (self._transpose or isinstance(padding, str)):
            raise ValueError(
                f"{who}: padding_mode {padding_mode!r} needs a numeric padding "
                f"and a non-transposed convolution"
            )
        n = self._dims
        self._kernel = _tuple(kernel_size, n, who, "kernel_size")
        self._stride, self._padding = stride, padding
        self._dilation, self._groups = dilation, groups
        self._padding_mode = padding_mode
        self._output_padding = output_padding
        self._in, self._out = in_channels, out_channels
        default_format = {1: "NCL", 2: "NCHW", 3: "NCDHW"}[n]
        self._data_format = data_format or default_format
        if self._transpose:
            # Paddle's default for a transposed weight is the layer default, XavierUniform
            # over [in, out / groups, *kernel]: bound sqrt(6 / ((in + out / groups) * k)).
            shape = [in_channels, out_channels // groups, *self._kernel]
            default = None
        else:
            # Paddle's default: Normal(0, sqrt(2 / (in_channels * k))), in_channels whole
            # even when grouped (Paddle does not divide by groups).
            shape = [out_channels, in_channels // groups, *self._kernel]
            default = Normal(0.0, math.sqrt(2.0 / (in_channels * math.prod(self._kernel))))
        self.weight = self.create_parameter(shape, attr=weight_attr, default_initializer=default)
        self.bias = self.create_parameter(
            [out_channels], attr=bias_attr if bias else False, is_bias=True
        )

    def forward(self, x, output_size=None):
        kw = dict(
            stride=self._stride,
            padding=self._padding,
            dilation=self._dilation,
            groups=self._groups,
            data_format=self._data_format,
        )
        if self._transpose:
            kw["output_padding"] = self._output_padding
            if output_size is not None:
                kw["output_size"] = output_size
        elif self._padding_mode != "zeros":
            # Paddle pads with the mode first, then convolves without padding
            n = self._dims
            _, pads = W.padding(type(self).__name__, self._padding, n, self._data_format[-1] == "C")
            spatial_last_first = [v for d in reversed(range(n)) for v in pads[2 * d : 2 * d + 2]]
            x = F.pad(
                x,
                spatial_last_first,
                mode=_PAD_MODES[self._padding_mode],
                data_format=self._data_format,
            )
            kw["padding"] = 0
        return getattr(F, self._fn)(x, self.weight, self.bias, **kw)

    def extra_repr(self):
        # Paddle's: the settings that differ from their defaults; stride and dilation
        # as lists of one int per spatial axis, padding as given
        n = self._dims
        stride, dilation = _as_list(self._stride, n), _as_list(self._dilation, n)
        s = f"{self._in}, {self._out}, kernel_size={list(self._kernel)}"
        if stride != [1] * n:
            s += f", stride={stride}"
        if self._padding != 0:
            s += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            s += f", padding_mode={self._padding_mode}"
        if self._output_padding != 0:
            s += f", output_padding={self._output_padding}"
        if dilation != [1] * n:
            s += f", dilation={dilation}"
        if self._groups != 1:
            s += f", groups={self._groups}"
        return s + f", data_format={self._data_format}"


class Conv1D(_ConvNd):
    """1-D convolution over [N, C, L] (data_format NCL) or [N, L, C] (NLC)."""

    _dims, _fn = 1, "conv1d"


class Conv2D(_ConvNd):
    """2-D convolution; weight [out_channels, in_channels / groups, kh, kw]."""

    _dims, _fn = 2, "conv2d"


class Conv3D(_ConvNd):
    """3-D convolution over [N, C, D, H, W]."""

    _dims, _fn = 3, "conv3d"


class Conv2DTranspose(_ConvNd):
    """2-D transposed convolution; weight [in_channels, out_channels / groups, kh, kw]."""

    _dims, _fn, _transpose = 2, "conv2d_transpose", True

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        dilation=1,
        groups=1,
        weight_attr=None,
        bias_attr=None,
        data_format="NCHW",
    ):
        self._setup(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            weight_attr=weight_attr,
            bias_attr=bias_attr,
            data_format=data_format,
            output_padding=output_padding,
        )


class Conv1DTranspose(Conv2DTranspose):
    """1-D transposed convolution; weight [in_channels, out_channels / groups, k]."""

    _dims, _fn = 1, "conv1d_transpose"

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        dilation=1,
        weight_attr=None,
        bias_attr=None,
        data_format="NCL",
    ):
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            output_padding,
            dilation,
            groups,
            weight_attr,
            bias_attr,
            data_format,
        )


class Conv3DTranspose(Conv2DTranspose):
    """3-D transposed convolution; weight [in_channels, out_channels / groups, kd, kh, kw]."""

    _dims, _fn = 3, "conv3d_transpose"

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        dilation=1,
        groups=1,
        weight_attr=None,
        bias_attr=None,
        data_format="NCDHW",
    ):
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            output_padding,
            dilation,
            groups,
            weight_attr,
            bias_attr,
            data_format,
        )


# PyTorch's spellings, as Paddle exports them
Conv1d, Conv2d, Conv3d = Conv1D, Conv2D, Conv3D
