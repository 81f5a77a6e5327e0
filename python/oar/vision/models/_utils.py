"""Pieces shared by oar.vision.models: the pretrained-weights refusal, channel rounding
and Paddle's ConvNormActivation block."""

from __future__ import annotations

from ... import nn


def no_pretrained(pretrained, name):
    """oar never downloads weights: pretrained=True is an error saying how to load them."""
    if pretrained:
        raise ValueError(
            f"{name}: pretrained=True needs downloaded weights, which oar never "
            f"fetches; build the model with pretrained=False and load a local "
            f"checkpoint with model.set_state_dict(oar.load(path)) (Paddle's "
            f".pdparams files load by the same key names)"
        )


def make_divisible(v, divisor=8, min_value=None):
    """v rounded to the nearest multiple of divisor, never below min_value (default
    divisor) nor more than 10% below v."""
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class ConvNormActivation(nn.Sequential):
    """Conv2D, then norm_layer (default BatchNorm2D) and activation_layer (default ReLU);
    either may be None. The convolution has a bias only without a norm layer (or with
    bias=True). Sub-layer names are 0, 1, 2 as in Paddle."""

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size=3,
        stride=1,
        padding=None,
        groups=1,
        norm_layer=nn.BatchNorm2D,
        activation_layer=nn.ReLU,
        dilation=1,
        bias=None,
    ):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [
            nn.Conv2D(
                in_channels,
                out_channels,
                kernel_size,
                stride,
                padding,
                dilation=dilation,
                groups=groups,
                bias_attr=None if bias else False,
            )
        ]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
