"""FusedDropoutAdd: the layer form of fused_dropout_add, dropping out in training mode
only."""

from __future__ import annotations

from ....nn.layer.layers import Layer
from ..functional import _common as c
from ..functional import fused_dropout_add

__all__ = ["FusedDropoutAdd"]


class FusedDropoutAdd(Layer):
    """forward(x, y) = dropout(x, p) + y, dropping only while self.training.

    Args:
        p (float, optional): The probability of zeroing an element of x. Default: 0.5.
        mode (str, optional): 'upscale_in_train' or 'downscale_in_infer' (see
            fused_dropout_add). Default: 'upscale_in_train'.
        name (str|None, optional): Shown by repr. Default: None.
    """

    def __init__(self, p=0.5, mode="upscale_in_train", name=None):
        super().__init__()
        # checked now, so a bad setting fails where it is made; kept as given for repr
        c.rate("FusedDropoutAdd", "p", p)
        self.p = p
        self.mode = c.mode("FusedDropoutAdd", mode)
        self.name = name

    def forward(self, x, y):
        return fused_dropout_add(
            x, y, p=self.p, training=self.training, mode=self.mode, name=self.name
        )

    def extra_repr(self):
        return f"p={self.p}, mode={self.mode}" + (f", name={self.name}" if self.name else "")
