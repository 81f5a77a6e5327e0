"""SqueezeNet 1.0 / 1.1 (Iandola et al. 2016) with Paddle's layer names."""

from __future__ import annotations

from typing import Any

from ... import nn
from ._utils import no_pretrained
from ...nn import functional as F
from ..._C import concat
from ..._C import squeeze

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]


class MakeFireConv(nn.Layer):
    """Conv2D + ReLU."""

    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """A fire module: a 1x1 squeeze, then 1x1 and 3x3 expansions concatenated."""

    def __init__(self, input_channels, squeeze_channels, expand1x1_channels, expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


_FIRES = [(16, 64), (16, 64), (32, 128), (32, 128), (48, 192), (48, 192), (64, 256), (64, 256)]


class SqueezeNet(nn.Layer):
    """SqueezeNet; version '1.0' or '1.1' (1.1: a 3x3 stem and earlier pooling)."""

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        if version not in ("1.0", "1.1"):
            raise ValueError(
                f"SqueezeNet: argument 'version' must be '1.0' or '1.1', but got {version!r}"
            )
        self.version, self.num_classes, self.with_pool = version, num_classes, with_pool
        stem = 96 if version == "1.0" else 64
        self._conv = (
            nn.Conv2D(3, stem, 7, stride=2)
            if version == "1.0"
            else nn.Conv2D(3, stem, 3, stride=2, padding=1)
        )
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        cin = stem
        for i, (sq, ex) in enumerate(_FIRES, start=1):
            setattr(self, f"_conv{i}", MakeFire(cin, sq, ex, ex))
            cin = 2 * ex
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        if num_classes > 0:
            self._conv9 = nn.Conv2D(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        pools_after = (3, 7) if self.version == "1.0" else (2, 4)
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in pools_after:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = squeeze(self._avg_pool(F.relu(x)), axis=[2, 3])
        return x


def squeezenet1_0(pretrained: bool = False, **kwargs: Any) -> SqueezeNet:
    """SqueezeNet('1.0', **kwargs)."""
    no_pretrained(pretrained, "squeezenet1_0")
    return SqueezeNet("1.0", **kwargs)


def squeezenet1_1(pretrained: bool = False, **kwargs: Any) -> SqueezeNet:
    """SqueezeNet('1.1', **kwargs)."""
    no_pretrained(pretrained, "squeezenet1_1")
    return SqueezeNet("1.1", **kwargs)
