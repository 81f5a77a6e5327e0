"""VGG (Simonyan & Zisserman 2014) with Paddle's names: features, avgpool, classifier."""

from __future__ import annotations

from typing import Any, Sequence

from ... import nn
from ._utils import no_pretrained
from ...tensor.manipulation import flatten

__all__ = ["VGG", "make_layers", "vgg11", "vgg13", "vgg16", "vgg19"]


class VGG(nn.Layer):
    """VGG over a features network (make_layers); a 7x7 adaptive pool (with_pool) and a
    three-layer classifier (num_classes > 0)."""

    def __init__(self, features, num_classes=1000, with_pool=True):
        super().__init__()
        self.features = features
        self.num_classes, self.with_pool = num_classes, with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096),
                nn.ReLU(),
                nn.Dropout(),
                nn.Linear(4096, 4096),
                nn.ReLU(),
                nn.Dropout(),
                nn.Linear(4096, num_classes),
            )

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


def make_layers(cfg: Sequence[int | str], batch_norm: bool = False) -> nn.Sequential:
    """A Sequential from cfg: an int is a 3x3 convolution with that many channels (then
    BatchNorm2D if batch_norm, then ReLU), 'M' a 2x2 max pool."""
    layers: list[nn.Layer] = []
    cin = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        if not isinstance(v, int) or v <= 0:
            raise ValueError(
                f"make_layers(): cfg entries must be positive ints or 'M', but got {v!r}"
            )
        layers.append(nn.Conv2D(cin, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(v))
        layers.append(nn.ReLU())
        cin = v
    return nn.Sequential(*layers)


_CFGS = {
    11: [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    13: [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    16: [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    19: [
        64,
        64,
        "M",
        128,
        128,
        "M",
        256,
        256,
        256,
        256,
        "M",
        512,
        512,
        512,
        512,
        "M",
        512,
        512,
        512,
        512,
        "M",
    ],
}


def _vgg(depth, pretrained, batch_norm, kwargs):
    no_pretrained(pretrained, f"vgg{depth}")
    return VGG(make_layers(_CFGS[depth], batch_norm=batch_norm), **kwargs)


def vgg11(pretrained: bool = False, batch_norm: bool = False, **kwargs: Any) -> VGG:
    """VGG-11 (configuration A)."""
    return _vgg(11, pretrained, batch_norm, kwargs)


def vgg13(pretrained: bool = False, batch_norm: bool = False, **kwargs: Any) -> VGG:
    """VGG-13 (configuration B)."""
    return _vgg(13, pretrained, batch_norm, kwargs)


def vgg16(pretrained: bool = False, batch_norm: bool = False, **kwargs: Any) -> VGG:
    """VGG-16 (configuration D)."""
    return _vgg(16, pretrained, batch_norm, kwargs)


def vgg19(pretrained: bool = False, batch_norm: bool = False, **kwargs: Any) -> VGG:
    """VGG-19 (configuration E)."""
    return _vgg(19, pretrained, batch_norm, kwargs)
