"""DenseNet (Huang et al. 2017) with Paddle's layer names (conv1_func, db_conv_2..5,
tr_conv2..4_blk, batch_norm, out)."""

from __future__ import annotations

import math
from typing import Any

from ... import nn
from ._utils import no_pretrained
from ..._C import concat
from ...tensor.manipulation import flatten

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201", "densenet264"]


class BNACConvLayer(nn.Layer):
    """BatchNorm with its activation, then a bias-free Conv2D (pre-activation)."""

    def __init__(
        self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"
    ):
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = nn.Conv2D(
            num_channels,
            num_filters,
            filter_size,
            stride=stride,
            padding=pad,
            groups=groups,
            bias_attr=False,
        )

    def forward(self, input):  # noqa: A002 - Paddle's name
        return self._conv(self._batch_norm(input))


class DenseLayer(nn.Layer):
    """1x1 bottleneck and 3x3 convolution; the growth_rate new channels are appended."""

    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input):  # noqa: A002
        y = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            y = self.dropout_func(y)
        return concat([input, y], axis=1)


class DenseBlock(nn.Layer):
    """num_layers DenseLayers named <name>_1, <name>_2, ..."""

    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        for i in range(num_layers):
            self.dense_layer_func.append(
                self.add_sublayer(
                    f"{name}_{i + 1}",
                    DenseLayer(num_channels + i * growth_rate, growth_rate, bn_size, dropout),
                )
            )

    def forward(self, input):  # noqa: A002
        for layer in self.dense_layer_func:
            input = layer(input)
        return input


class TransitionLayer(nn.Layer):
    """BN-ReLU-1x1 convolution and a 2x2 average pool between dense blocks."""

    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):  # noqa: A002
        return self.pool2d_avg(self.conv_ac_func(input))


class ConvBNLayer(nn.Layer):
    """A bias-free Conv2D then BatchNorm with its activation."""

    def __init__(
        self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"
    ):
        super().__init__()
        self._conv = nn.Conv2D(
            num_channels,
            num_filters,
            filter_size,
            stride=stride,
            padding=pad,
            groups=groups,
            bias_attr=False,
        )
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input):  # noqa: A002
        return self._batch_norm(self._conv(input))


# layers -> (initial features, growth rate, layers per block)
_SPECS = {
    121: (64, 32, [6, 12, 24, 16]),
    161: (96, 48, [6, 12, 36, 24]),
    169: (64, 32, [6, 12, 32, 32]),
    201: (64, 32, [6, 12, 48, 32]),
    264: (64, 32, [6, 12, 64, 48]),
}


class DenseNet(nn.Layer):
    """DenseNet-121/161/169/201/264 (layers), bottleneck width bn_size * growth rate."""

    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        if layers not in _SPECS:
            raise ValueError(
                f"DenseNet: argument 'layers' must be one of {sorted(_SPECS)}, but got {layers!r}"
            )
        self.num_classes, self.with_pool = num_classes, with_pool
        init, growth, blocks = _SPECS[layers]
        self.block_config = blocks
        self.conv1_func = ConvBNLayer(3, init, 7, stride=2, pad=3)
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.dense_block_func_list, self.transition_func_list = [], []
        features = init
        for i, n in enumerate(blocks):
            self.dense_block_func_list.append(
                self.add_sublayer(
                    f"db_conv_{i + 2}",
                    DenseBlock(features, n, bn_size, growth, dropout, name=f"conv{i + 2}"),
                )
            )
            features += n * growth
            if i != len(blocks) - 1:
                self.transition_func_list.append(
                    self.add_sublayer(
                        f"tr_conv{i + 2}_blk", TransitionLayer(features, features // 2)
                    )
                )
                features //= 2
        self.batch_norm = nn.BatchNorm(features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            bound = 1.0 / math.sqrt(features)
            self.out = nn.Linear(
                features,
                num_classes,
                weight_attr=nn.ParamAttr(initializer=nn.initializer.Uniform(-bound, bound)),
            )

    def forward(self, input):  # noqa: A002
        y = self.pool2d_max(self.conv1_func(input))
        for i, block in enumerate(self.dense_block_func_list):
            y = block(y)
            if i < len(self.transition_func_list):
                y = self.transition_func_list[i](y)
        y = self.batch_norm(y)
        if self.with_pool:
            y = self.pool2d_avg(y)
        if self.num_classes > 0:
            y = self.out(flatten(y, 1))
        return y


def _densenet(layers, pretrained, kwargs):
    no_pretrained(pretrained, f"densenet{layers}")
    return DenseNet(layers=layers, **kwargs)


def densenet121(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-121."""
    return _densenet(121, pretrained, kwargs)


def densenet161(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-161."""
    return _densenet(161, pretrained, kwargs)


def densenet169(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-169."""
    return _densenet(169, pretrained, kwargs)


def densenet201(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-201."""
    return _densenet(201, pretrained, kwargs)


def densenet264(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-264."""
    return _densenet(264, pretrained, kwargs)
