"""AlexNet (Krizhevsky et al. 2012) with Paddle's layer names (_conv1.._conv5, _fc6.._fc8)."""

from __future__ import annotations

import math
from typing import Any

from ... import nn
from ._utils import no_pretrained
from ...tensor.manipulation import flatten
from ...nn import functional as F

__all__ = ["AlexNet", "alexnet"]


def _uniform_attr(fan_in):
    bound = 1.0 / math.sqrt(fan_in)
    return nn.ParamAttr(initializer=nn.initializer.Uniform(-bound, bound))


def _conv(cin, cout, k, stride, padding):
    fan_in = cin * k * k
    return nn.Conv2D(
        cin,
        cout,
        k,
        stride=stride,
        padding=padding,
        weight_attr=_uniform_attr(fan_in),
        bias_attr=_uniform_attr(fan_in),
    )


class ConvPoolLayer(nn.Layer):
    """Conv2D (+ ReLU when act='relu') and a 3x3/2 max pool."""

    def __init__(
        self,
        input_channels,
        output_channels,
        filter_size,
        stride,
        padding,
        stdv=None,
        groups=1,
        act=None,
    ):
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = _conv(input_channels, output_channels, filter_size, stride, padding)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """AlexNet for 3x224x224 images; num_classes <= 0 returns the last feature map."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, act="relu")
        self._conv3 = _conv(192, 384, 3, 1, 1)
        self._conv4 = _conv(384, 256, 3, 1, 1)
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, act="relu")
        if num_classes > 0:
            fan_in = 256 * 6 * 6
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(
                fan_in, 4096, weight_attr=_uniform_attr(fan_in), bias_attr=_uniform_attr(fan_in)
            )
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(
                4096, 4096, weight_attr=_uniform_attr(fan_in), bias_attr=_uniform_attr(fan_in)
            )
            self._fc8 = nn.Linear(
                4096,
                num_classes,
                weight_attr=_uniform_attr(fan_in),
                bias_attr=_uniform_attr(fan_in),
            )

    def forward(self, inputs):
        x = self._conv2(self._conv1(inputs))
        x = F.relu(self._conv4(F.relu(self._conv3(x))))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = F.relu(self._fc6(self._drop1(flatten(x, 1))))
            x = F.relu(self._fc7(self._drop2(x)))
            x = self._fc8(x)
        return x


def alexnet(pretrained: bool = False, **kwargs: Any) -> AlexNet:
    """AlexNet(**kwargs)."""
    no_pretrained(pretrained, "alexnet")
    return AlexNet(**kwargs)
