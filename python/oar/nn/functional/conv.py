"""oar.nn.functional: convolutions (as Paddle's paddle.nn.functional.conv).

All of them run the rank-generic C++ ops conv / conv_transpose (src/oar/ops/conv.yaml)
on channels-first tensors; a channels-last input is transposed in and out, and the
bias is added afterwards, so autograd covers every part (double gradients included).
"""

from __future__ import annotations

from ... import _C
from ...framework import check as _check
from ...framework.typing import IntsLike, PaddingLike, Tensor
from . import _window as W

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose", "conv3d_transpose"]


def _add_bias(api, out, bias, nd):
    if bias is None:
        return out
    _check.tensor(api, "bias", bias)
    if bias.ndim != 1 or bias.shape[0] != out.shape[1]:
        raise ValueError(
            f"{api}(): argument 'bias' must be 1-D with {out.shape[1]} values "
            f"(the output channels), but has shape {list(bias.shape)}"
        )
    if out.dtype != bias.dtype and out.dtype.name in _LOW and _C._amp_state()[0] > 0:
        # Under auto_cast the convolution ran in the low dtype (a white-list op), and its
        # bias is part of it, as in PyTorch's autocast: adding a float32 bias would
        # promote the activation back to float32 and every op after it would run there.
        bias = _C.cast(bias, out.dtype)
    return _C.add(out, _check.reshape_exact(bias, [1, out.shape[1]] + [1] * nd))


_LOW = ("bfloat16", "float16")


def _conv(api, nd, x, weight, bias, stride, padding, dilation, groups, data_format):
    last = W.channel_last(api, data_format, nd)
    W.check_input(api, x, nd, data_format)
    _check.tensor(api, "weight", weight)
    if weight.ndim != nd + 2:
        raise ValueError(
            f"{api}(): argument 'weight' must be {nd + 2}-D [C_out, C_in / groups, "
            f"*kernel], but has shape {list(weight.shape)}"
        )
    strides = W.int_list(api, "stride", stride, nd)
    dilations = W.int_list(api, "dilation", dilation, nd)
    groups = _check.integer(api, "groups", groups)
    algo, pads = W.padding(api, padding, nd, last)
    if algo == "SAME":
        # Paddle's 'SAME' ignores dilation: out = ceil(in / stride)
        dilations = [1] * nd
        pads = W.same_padding(W.spatial(x, nd, last), list(weight.shape[2:]), strides)
    if last:
        x = W.to_channels_first(x, nd)
    out = W.call(api, "conv", _C.conv, x, weight, strides, pads, dilations, groups)
    out = _add_bias(api, out, bias, nd)
    return W.to_channels_last(out, nd) if last else out


def conv1d(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntsLike = 1,
    padding: PaddingLike = 0,
    dilation: IntsLike = 1,
    groups: int = 1,
    data_format: str = "NCL",
    name: str | None = None,
) -> Tensor:
    """1-D convolution (cross-correlation) of x [N, C_in, L] with weight [C_out, C_in / groups, k]."""
    return _conv("conv1d", 1, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv2d(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntsLike = 1,
    padding: PaddingLike = 0,
    dilation: IntsLike = 1,
    groups: int = 1,
    data_format: str = "NCHW",
    name: str | None = None,
) -> Tensor:
    """2-D convolution (cross-correlation) of x [N, C_in, H, W] with weight [C_out, C_in / groups, kH, kW]."""
    return _conv("conv2d", 2, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv3d(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntsLike = 1,
    padding: PaddingLike = 0,
    dilation: IntsLike = 1,
    groups: int = 1,
    data_format: str = "NCDHW",
    name: str | None = None,
) -> Tensor:
    """3-D convolution (cross-correlation) of x [N, C_in, D, H, W] with weight [C_out, C_in / groups, kD, kH, kW]."""
    return _conv("conv3d", 3, x, weight, bias, stride, padding, dilation, groups, data_format)


def _conv_transpose(
    api,
    nd,
    x,
    weight,
    bias,
    stride,
    padding,
    output_padding,
    dilation,
    groups,
    output_size,
    data_format,
):
    last = W.channel_last(api, data_format, nd)
    W.check_input(api, x, nd, data_format)
    _check.tensor(api, "weight", weight)
    if weight.ndim != nd + 2:
        raise ValueError(
            f"{api}(): argument 'weight' must be {nd + 2}-D [C_in, C_out / groups, "
            f"*kernel], but has shape {list(weight.shape)}"
        )
    strides = W.int_list(api, "stride", stride, nd)
    dilations = W.int_list(api, "dilation", dilation, nd)
    groups = _check.integer(api, "groups", groups)
    algo, pads = W.padding(api, padding, nd, last)
    in_sizes = W.spatial(x, nd, last)
    kernel = list(weight.shape[2:])
    if algo == "SAME":
        dilations = [1] * nd
        pads = W.same_padding(in_sizes, kernel, strides)
    base = [
        (n - 1) * s - pads[2 * i] - pads[2 * i + 1] + d * (k - 1) + 1
        for i, (n, s, d, k) in enumerate(zip(in_sizes, strides, dilations, kernel))
    ]
    if output_size is not None:
        if output_padding not in (0, [0] * nd, (0,) * nd):
            raise ValueError(f"{api}(): give output_size or output_padding, not both")
        sizes = W.int_list(api, "output_size", output_size, nd)
        out_pad = [o - b for o, b in zip(sizes, base)]
        for o, b, s, d in zip(sizes, base, strides, dilations):
            if not b <= o < b + max(s, d):
                raise ValueError(
                    f"{api}(): argument 'output_size' {sizes} is not reachable: "
                    f"each size must be in [{b}, {b + max(s, d)}) for this input"
                )
    else:
        out_pad = W.int_list(api, "output_padding", output_padding, nd, minimum=0)
    if last:
        x = W.to_channels_first(x, nd)
    out = W.call(
        api,
        "conv_transpose",
        _C.conv_transpose,
        x,
        weight,
        strides,
        pads,
        out_pad,
        dilations,
        groups,
    )
    out = _add_bias(api, out, bias, nd)
    return W.to_channels_last(out, nd) if last else out


def conv1d_transpose(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntsLike = 1,
    padding: PaddingLike = 0,
    output_padding: IntsLike = 0,
    groups: int = 1,
    dilation: IntsLike = 1,
    output_size: IntsLike | None = None,
    data_format: str = "NCL",
    name: str | None = None,
) -> Tensor:
    """1-D transposed convolution of x [N, C_in, L] with weight [C_in, C_out / groups, k]."""
    return _conv_transpose(
        "conv1d_transpose",
        1,
        x,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        dilation,
        groups,
        output_size,
        data_format,
    )


def conv2d_transpose(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntsLike = 1,
    padding: PaddingLike = 0,
    output_padding: IntsLike = 0,
    dilation: IntsLike = 1,
    groups: int = 1,
    output_size: IntsLike | None = None,
    data_format: str = "NCHW",
    name: str | None = None,
) -> Tensor:
    """2-D transposed convolution of x [N, C_in, H, W] with weight [C_in, C_out / groups, kH, kW]."""
    return _conv_transpose(
        "conv2d_transpose",
        2,
        x,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        dilation,
        groups,
        output_size,
        data_format,
    )


def conv3d_transpose(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntsLike = 1,
    padding: PaddingLike = 0,
    output_padding: IntsLike = 0,
    groups: int = 1,
    dilation: IntsLike = 1,
    output_size: IntsLike | None = None,
    data_format: str = "NCDHW",
    name: str | None = None,
) -> Tensor:
    """3-D transposed convolution of x [N, C_in, D, H, W] with weight [C_in, C_out / groups, kD, kH, kW]."""
    return _conv_transpose(
        "conv3d_transpose",
        3,
        x,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        dilation,
        groups,
        output_size,
        data_format,
    )
