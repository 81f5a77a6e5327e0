"""Channel rearranging layers (Paddle's paddle.nn.layer.vision)."""

from __future__ import annotations

from .common import _factor_repr
from .layers import Layer
from .. import functional as F

__all__ = ["PixelUnshuffle", "ChannelShuffle"]


class PixelUnshuffle(Layer):
    """[N, C, H * r, W * r] -> [N, C * r * r, H, W] (the inverse of PixelShuffle)."""

    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._factor, self._data_format, self._name = downscale_factor, data_format, name

    def forward(self, x):
        return F.pixel_unshuffle(x, self._factor, self._data_format)

    def extra_repr(self):
        return _factor_repr("downscale_factor", self._factor, self._data_format, self._name)


class ChannelShuffle(Layer):
    """Interleaves the channels of groups: [N, g * k, H, W] read as [N, k, g, H, W]."""

    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        self._groups, self._data_format, self._name = groups, data_format, name

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format)

    def extra_repr(self):
        return _factor_repr("groups", self._groups, self._data_format, self._name)
