"""Convolution (src/oar/ops/conv.yaml)."""
import numpy as np

from .common import Difference, _x


def _conv_without_input_channels(call, detail, last):
    """conv with zero input channels (weight [C_out, 0, ...]): oar gives the empty sum,
    zeros of shape [N, C_out, ...]; torch (and Paddle) return no output channels at all.
    Only when weight has no input channels and oar's result is zeros of torch's shape
    with C_out channels."""
    w, out, want = _x(call, last, "weight"), last.get("out"), last.get("want")
    if w is None or out is None or want is None or w.dim() < 2 or w.shape[1] != 0:
        return False
    shape = list(want.shape)
    shape[1] = w.shape[0]
    return list(out.shape) == shape and not np.asarray(out.numpy()).any()


CONV_WITHOUT_INPUT_CHANNELS = Difference(
    "conv with no input channels: the empty sum", ["conv"], ["value mismatch"],
    _conv_without_input_channels, _conv_without_input_channels.__doc__)
