"""ResNet, ResNeXt and Wide ResNet (He et al. 2016, Xie et al. 2017, Zagoruyko &
Komodakis 2016) with Paddle's names: conv1, bn1, layer1-4, fc; blocks BasicBlock and
BottleneckBlock."""

from __future__ import annotations

from typing import Any

from ... import nn
from ._utils import no_pretrained
from ...tensor.manipulation import flatten

__all__ = [
    "BasicBlock",
    "BottleneckBlock",
    "ResNet",
    "resnet18",
    "resnet34",
    "resnet50",
    "resnet101",
    "resnet152",
    "resnext50_32x4d",
    "resnext50_64x4d",
    "resnext101_32x4d",
    "resnext101_64x4d",
    "resnext152_32x4d",
    "resnext152_64x4d",
    "wide_resnet50_2",
    "wide_resnet101_2",
]


class BasicBlock(nn.Layer):
    expansion = 1

    def __init__(
        self,
        inplanes,
        planes,
        stride=1,
        downsample=None,
        groups=1,
        base_width=64,
        dilation=1,
        norm_layer=None,
    ):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride, bias_attr=False)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    expansion = 4

    def __init__(
        self,
        inplanes,
        planes,
        stride=1,
        downsample=None,
        groups=1,
        base_width=64,
        dilation=1,
        norm_layer=None,
    ):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = nn.Conv2D(inplanes, width, 1, bias_attr=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2D(
            width,
            width,
            3,
            padding=dilation,
            stride=stride,
            groups=groups,
            dilation=dilation,
            bias_attr=False,
        )
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2D(width, planes * self.expansion, 1, bias_attr=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Layer):
    """ResNet (He et al.) with Paddle's names: conv1, bn1, layer1-4, fc.

    Args:
        block: BasicBlock or BottleneckBlock.
        depth: 18, 34, 50, 101 or 152.
        num_classes: size of the classifier (<= 0: no fc, the pooled features).
        with_pool: the final adaptive average pool.
    """

    _LAYERS = {
        18: [2, 2, 2, 2],
        34: [3, 4, 6, 3],
        50: [3, 4, 6, 3],
        101: [3, 4, 23, 3],
        152: [3, 8, 36, 3],
    }

    def __init__(self, block, depth=50, width=64, num_classes=1000, with_pool=True, groups=1):
        super().__init__()
        if depth not in self._LAYERS:
            raise ValueError(
                f"ResNet: argument 'depth' must be one of {sorted(self._LAYERS)}, got {depth!r}"
            )
        layers = self._LAYERS[depth]
        self.groups, self.base_width = groups, width
        self.num_classes, self.with_pool = num_classes, with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes, self.dilation = 64, 1
        self.conv1 = nn.Conv2D(
            3, self.inplanes, kernel_size=7, stride=2, padding=3, bias_attr=False
        )
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2D(
                    self.inplanes, planes * block.expansion, 1, stride=stride, bias_attr=False
                ),
                self._norm_layer(planes * block.expansion),
            )
        layers = [
            block(
                self.inplanes,
                planes,
                stride,
                downsample,
                self.groups,
                self.base_width,
                norm_layer=self._norm_layer,
            )
        ]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(
                block(
                    self.inplanes,
                    planes,
                    groups=self.groups,
                    base_width=self.base_width,
                    norm_layer=self._norm_layer,
                )
            )
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x


def resnet18(pretrained: bool = False, **kwargs: Any) -> ResNet:
    no_pretrained(pretrained, "resnet18")
    return ResNet(BasicBlock, 18, **kwargs)


def resnet34(pretrained: bool = False, **kwargs: Any) -> ResNet:
    no_pretrained(pretrained, "resnet34")
    return ResNet(BasicBlock, 34, **kwargs)


def resnet50(pretrained: bool = False, **kwargs: Any) -> ResNet:
    no_pretrained(pretrained, "resnet50")
    return ResNet(BottleneckBlock, 50, **kwargs)


def _resnet(name, block, depth, pretrained, kwargs, **fixed):
    no_pretrained(pretrained, name)
    return ResNet(block, depth, **fixed, **kwargs)


def resnet101(pretrained: bool = False, **kwargs: Any) -> ResNet:
    """ResNet-101."""
    return _resnet("resnet101", BottleneckBlock, 101, pretrained, kwargs)


def resnet152(pretrained: bool = False, **kwargs: Any) -> ResNet:
    """ResNet-152."""
    return _resnet("resnet152", BottleneckBlock, 152, pretrained, kwargs)


def resnext50_32x4d(pretrained: bool = False, **kwargs: Any) -> ResNet:
    """ResNeXt-50, 32 groups of width 4."""
    return _resnet("resnext50_32x4d", BottleneckBlock, 50, pretrained, kwargs, width=4, groups=32)


def resnext50_64x4d(pretrained: bool = False, **kwargs: Any) -> ResNet:
    """ResNeXt-50, 64 groups of width 4."""
    return _resnet("resnext50_64x4d", BottleneckBlock, 50, pretrained, kwargs, width=4, groups=64)


def resnext101_32x4d(pretrained: bool = False, **kwargs: Any) -> ResNet:
    """ResNeXt-101, 32 groups of width 4."""
    return _resnet("resnext101_32x4d", BottleneckBlock, 101, pretrained, kwargs, width=4, groups=32)


def resnext101_64x4d(pretrained: bool = False, **kwargs: Any) -> ResNet:
    """ResNeXt-101, 64 groups of width 4."""
    return _resnet("resnext101_64x4d", BottleneckBlock, 101, pretrained, kwargs, width=4, groups=64)


def resnext152_32x4d(pretrained: bool = False, **kwargs: Any) -> ResNet:
    """ResNeXt-152, 32 groups of width 4."""
    return _resnet("resnext152_32x4d", BottleneckBlock, 152, pretrained, kwargs, width=4, groups=32)


def resnext152_64x4d(pretrained: bool = False, **kwargs: Any) -> ResNet:
    """ResNeXt-152, 64 groups of width 4."""
    return _resnet("resnext152_64x4d", BottleneckBlock, 152, pretrained, kwargs, width=4, groups=64)


def wide_resnet50_2(pretrained: bool = False, **kwargs: Any) -> ResNet:
    """Wide ResNet-50-2 (bottleneck width 128)."""
    return _resnet("wide_resnet50_2", BottleneckBlock, 50, pretrained, kwargs, width=128)


def wide_resnet101_2(pretrained: bool = False, **kwargs: Any) -> ResNet:
    """Wide ResNet-101-2 (bottleneck width 128)."""
    return _resnet("wide_resnet101_2", BottleneckBlock, 101, pretrained, kwargs, width=128)
