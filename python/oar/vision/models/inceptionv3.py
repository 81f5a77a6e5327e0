"""Inception-v3 (Szegedy et al. 2016) with Paddle's layer names (inception_stem,
inception_block_list.0-10, avg_pool, fc); input 3x299x299."""

from __future__ import annotations

import math
from typing import Any

from ... import nn
from ._utils import ConvNormActivation, no_pretrained
from ..._C import concat
from ..._C import reshape

__all__ = ["InceptionV3", "inception_v3"]


def _cna(cin, cout, kernel, stride=1, padding=0):
    return ConvNormActivation(
        cin, cout, kernel, stride=stride, padding=padding, activation_layer=nn.ReLU
    )


def _avg3():
    return nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)


def _cat(xs):
    return concat(xs, axis=1)


class InceptionStem(nn.Layer):
    """Five convolutions and two max pools: 3x299x299 -> 192x35x35."""

    def __init__(self):
        super().__init__()
        self.conv_1a_3x3 = _cna(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _cna(32, 32, 3)
        self.conv_2b_3x3 = _cna(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _cna(64, 80, 1)
        self.conv_4a_3x3 = _cna(80, 192, 3)

    def forward(self, x):
        x = self.max_pool(self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x))))
        return self.max_pool(self.conv_4a_3x3(self.conv_3b_1x1(x)))


class InceptionA(nn.Layer):
    """1x1, 5x5, double 3x3 and pooled branches (35x35 grid)."""

    def __init__(self, num_channels, pool_features):
        super().__init__()
        self.branch1x1 = _cna(num_channels, 64, 1)
        self.branch5x5_1 = _cna(num_channels, 48, 1)
        self.branch5x5_2 = _cna(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _cna(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cna(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cna(96, 96, 3, padding=1)
        self.branch_pool = _avg3()
        self.branch_pool_conv = _cna(num_channels, pool_features, 1)

    def forward(self, x):
        return _cat(
            [
                self.branch1x1(x),
                self.branch5x5_2(self.branch5x5_1(x)),
                self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                self.branch_pool_conv(self.branch_pool(x)),
            ]
        )


class InceptionB(nn.Layer):
    """Grid reduction 35 -> 17: strided 3x3, strided double 3x3, max pool."""

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3 = _cna(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _cna(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cna(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cna(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        return _cat(
            [
                self.branch3x3(x),
                self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                self.branch_pool(x),
            ]
        )


class InceptionC(nn.Layer):
    """Factorised 7x7 branches (17x17 grid)."""

    def __init__(self, num_channels, channels_7x7):
        super().__init__()
        c = channels_7x7
        self.branch1x1 = _cna(num_channels, 192, 1)
        self.branch7x7_1 = _cna(num_channels, c, 1)
        self.branch7x7_2 = _cna(c, c, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _cna(c, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _cna(num_channels, c, 1)
        self.branch7x7dbl_2 = _cna(c, c, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _cna(c, c, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _cna(c, c, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _cna(c, 192, (1, 7), padding=(0, 3))
        self.branch_pool = _avg3()
        self.branch_pool_conv = _cna(num_channels, 192, 1)

    def forward(self, x):
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        d = x
        for i in range(1, 6):
            d = getattr(self, f"branch7x7dbl_{i}")(d)
        return _cat([self.branch1x1(x), b7, d, self.branch_pool_conv(self.branch_pool(x))])


class InceptionD(nn.Layer):
    """Grid reduction 17 -> 8."""

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3_1 = _cna(num_channels, 192, 1)
        self.branch3x3_2 = _cna(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _cna(num_channels, 192, 1)
        self.branch7x7x3_2 = _cna(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _cna(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _cna(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        b7 = x
        for i in range(1, 5):
            b7 = getattr(self, f"branch7x7x3_{i}")(b7)
        return _cat([self.branch3x3_2(self.branch3x3_1(x)), b7, self.branch_pool(x)])


class InceptionE(nn.Layer):
    """Expanded filter-bank branches (8x8 grid)."""

    def __init__(self, num_channels):
        super().__init__()
        self.branch1x1 = _cna(num_channels, 320, 1)
        self.branch3x3_1 = _cna(num_channels, 384, 1)
        self.branch3x3_2a = _cna(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _cna(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _cna(num_channels, 448, 1)
        self.branch3x3dbl_2 = _cna(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _cna(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _cna(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = _avg3()
        self.branch_pool_conv = _cna(num_channels, 192, 1)

    def forward(self, x):
        b3 = self.branch3x3_1(x)
        d = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        return _cat(
            [
                self.branch1x1(x),
                _cat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)]),
                _cat([self.branch3x3dbl_3a(d), self.branch3x3dbl_3b(d)]),
                self.branch_pool_conv(self.branch_pool(x)),
            ]
        )


class InceptionV3(nn.Layer):
    """Inception-v3 for 3x299x299 images."""

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes, self.with_pool = num_classes, with_pool
        self.inception_stem = InceptionStem()
        blocks = [InceptionA(c, p) for c, p in ((192, 32), (256, 64), (288, 64))]
        blocks.append(InceptionB(288))
        blocks += [InceptionC(768, c) for c in (128, 160, 160, 192)]
        blocks.append(InceptionD(768))
        blocks += [InceptionE(c) for c in (1280, 2048)]
        self.inception_block_list = nn.LayerList(blocks)
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            bound = 1.0 / math.sqrt(2048.0)
            self.fc = nn.Linear(
                2048,
                num_classes,
                weight_attr=nn.ParamAttr(initializer=nn.initializer.Uniform(-bound, bound)),
            )

    def forward(self, x):
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = self.fc(self.dropout(reshape(x, [-1, 2048])))
        return x


def inception_v3(pretrained: bool = False, **kwargs: Any) -> InceptionV3:
    """InceptionV3(**kwargs)."""
    no_pretrained(pretrained, "inception_v3")
    return InceptionV3(**kwargs)
