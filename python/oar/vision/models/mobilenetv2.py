"""MobileNetV2 (Sandler et al. 2018) with Paddle's names: features, pool2d_avg, classifier."""

from __future__ import annotations

from typing import Any

from ... import nn
from ._utils import make_divisible, no_pretrained
from ...tensor.manipulation import flatten

__all__ = ["MobileNetV2", "mobilenet_v2"]


class _ConvBNReLU(nn.Sequential):
    def __init__(self, in_planes, out_planes, kernel_size=3, stride=1, groups=1):
        padding = (kernel_size - 1) // 2
        super().__init__(
            nn.Conv2D(
                in_planes, out_planes, kernel_size, stride, padding, groups=groups, bias_attr=False
            ),
            nn.BatchNorm2D(out_planes),
            nn.ReLU6(),
        )


class _InvertedResidual(nn.Layer):
    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(_ConvBNReLU(inp, hidden, kernel_size=1))
        layers += [
            _ConvBNReLU(hidden, hidden, stride=stride, groups=hidden),
            nn.Conv2D(hidden, oup, 1, 1, 0, bias_attr=False),
            nn.BatchNorm2D(oup),
        ]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class MobileNetV2(nn.Layer):
    """MobileNetV2 (Sandler et al.) with Paddle's names: features, pool2d_avg, classifier."""

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes, self.with_pool = num_classes, with_pool
        input_channel = make_divisible(32 * scale)
        last_channel = make_divisible(1280 * max(1.0, scale))
        settings = [
            [1, 16, 1, 1],
            [6, 24, 2, 2],
            [6, 32, 3, 2],
            [6, 64, 4, 2],
            [6, 96, 3, 1],
            [6, 160, 3, 2],
            [6, 320, 1, 1],
        ]
        features = [_ConvBNReLU(3, input_channel, stride=2)]
        for t, c, n, s in settings:
            out = make_divisible(c * scale)
            for i in range(n):
                features.append(_InvertedResidual(input_channel, out, s if i == 0 else 1, t))
                input_channel = out
        features.append(_ConvBNReLU(input_channel, last_channel, kernel_size=1))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


def mobilenet_v2(pretrained: bool = False, scale: float = 1.0, **kwargs: Any) -> MobileNetV2:
    no_pretrained(pretrained, "mobilenet_v2")
    return MobileNetV2(scale=scale, **kwargs)
