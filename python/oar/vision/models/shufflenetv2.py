"""ShuffleNetV2 (Ma et al. 2018) with Paddle's layer names (_conv1, 2_1 .. 4_4, _last_conv,
_fc)."""

from __future__ import annotations

from typing import Any

from ... import nn
from ...framework.typing import Tensor
from ._utils import ConvNormActivation, no_pretrained
from ..._C import reshape, transpose
from ..._C import concat
from ...tensor.manipulation import split
from ...tensor.manipulation import flatten

__all__ = [
    "ShuffleNetV2",
    "shufflenet_v2_x0_25",
    "shufflenet_v2_x0_33",
    "shufflenet_v2_x0_5",
    "shufflenet_v2_x1_0",
    "shufflenet_v2_x1_5",
    "shufflenet_v2_x2_0",
    "shufflenet_v2_swish",
]

_WIDTHS = {
    0.25: [24, 24, 48, 96, 512],
    0.33: [24, 32, 64, 128, 512],
    0.5: [24, 48, 96, 192, 1024],
    1.0: [24, 116, 232, 464, 1024],
    1.5: [24, 176, 352, 704, 1024],
    2.0: [24, 224, 488, 976, 2048],
}


def _activation(act):
    if act == "relu":
        return nn.ReLU
    if act == "swish":
        return nn.Swish
    if act is None:
        return None
    raise ValueError(
        f"ShuffleNetV2: argument 'act' must be 'relu', 'swish' or None, but got {act!r}"
    )


def channel_shuffle(x: Tensor, groups: int) -> Tensor:
    """Interleave the channels of `groups` equal groups."""
    n, c, h, w = x.shape[:4]
    x = reshape(x, [n, groups, c // groups, h, w])
    return reshape(transpose(x, [0, 2, 1, 3, 4]), [n, c, h, w])


class InvertedResidual(nn.Layer):
    """Stride-1 unit: half the channels pass, the other half go through 1x1, 3x3 depthwise
    and 1x1 convolutions; then a channel shuffle."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = ConvNormActivation(
            in_channels // 2, half, 1, padding=0, activation_layer=activation_layer
        )
        self._conv_dw = ConvNormActivation(
            half, half, 3, stride=stride, padding=1, groups=half, activation_layer=None
        )
        self._conv_linear = ConvNormActivation(
            half, half, 1, padding=0, activation_layer=activation_layer
        )

    def forward(self, inputs):
        c = inputs.shape[1]
        x1, x2 = split(inputs, [c // 2, c // 2], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """Down-sampling unit: two strided branches over the whole input."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = ConvNormActivation(
            in_channels,
            in_channels,
            3,
            stride=stride,
            padding=1,
            groups=in_channels,
            activation_layer=None,
        )
        self._conv_linear_1 = ConvNormActivation(
            in_channels, half, 1, padding=0, activation_layer=activation_layer
        )
        self._conv_pw_2 = ConvNormActivation(
            in_channels, half, 1, padding=0, activation_layer=activation_layer
        )
        self._conv_dw_2 = ConvNormActivation(
            half, half, 3, stride=stride, padding=1, groups=half, activation_layer=None
        )
        self._conv_linear_2 = ConvNormActivation(
            half, half, 1, padding=0, activation_layer=activation_layer
        )

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2; scale in {0.25, 0.33, 0.5, 1.0, 1.5, 2.0}, act 'relu', 'swish' or None."""

    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        if scale not in _WIDTHS:
            raise ValueError(
                f"ShuffleNetV2: argument 'scale' must be one of {sorted(_WIDTHS)}, "
                f"but got {scale!r}"
            )
        self.scale, self.num_classes, self.with_pool = scale, num_classes, with_pool
        widths, actl = _WIDTHS[scale], _activation(act)
        self._conv1 = ConvNormActivation(
            3, widths[0], 3, stride=2, padding=1, activation_layer=actl
        )
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage, repeats in enumerate([4, 8, 4]):
            cin, cout = widths[stage], widths[stage + 1]
            for i in range(repeats):
                block = (
                    InvertedResidualDS(cin, cout, 2, actl)
                    if i == 0
                    else InvertedResidual(cout, cout, 1, actl)
                )
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = ConvNormActivation(
            widths[-2], widths[-1], 1, padding=0, activation_layer=actl
        )
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = widths[-1]
            self._fc = nn.Linear(widths[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(flatten(x, 1))
        return x


def _shufflenet(name, scale, pretrained, kwargs, act="relu"):
    no_pretrained(pretrained, name)
    return ShuffleNetV2(scale=scale, act=act, **kwargs)


def shufflenet_v2_x0_25(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 0.25."""
    return _shufflenet("shufflenet_v2_x0_25", 0.25, pretrained, kwargs)


def shufflenet_v2_x0_33(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 0.33."""
    return _shufflenet("shufflenet_v2_x0_33", 0.33, pretrained, kwargs)


def shufflenet_v2_x0_5(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 0.5."""
    return _shufflenet("shufflenet_v2_x0_5", 0.5, pretrained, kwargs)


def shufflenet_v2_x1_0(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 1.0."""
    return _shufflenet("shufflenet_v2_x1_0", 1.0, pretrained, kwargs)


def shufflenet_v2_x1_5(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 1.5."""
    return _shufflenet("shufflenet_v2_x1_5", 1.5, pretrained, kwargs)


def shufflenet_v2_x2_0(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 2.0."""
    return _shufflenet("shufflenet_v2_x2_0", 2.0, pretrained, kwargs)


def shufflenet_v2_swish(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at scale 1.0 with swish activations."""
    return _shufflenet("shufflenet_v2_swish", 1.0, pretrained, kwargs, act="swish")
