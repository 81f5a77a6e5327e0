"""Paddle's fused RMS norms: fused_rms_norm (RMSNorm of x + bias + residual, returning
the sum for the next residual branch), and the last-axis forms fused_rms_norm_ext and
fast_rms_norm that also return 1 / rms."""

from __future__ import annotations

import numpy as np

from .... import _C
from ....framework.typing import Tensor
from ....nn import functional as F
from . import _common as c

__all__ = ["fused_rms_norm", "fused_rms_norm_ext", "fast_rms_norm"]


def fused_rms_norm(
    x: Tensor,
    norm_weight: Tensor,
    norm_bias: Tensor | None,
    epsilon: float,
    begin_norm_axis: int = 1,
    bias: Tensor | None = None,
    residual: Tensor | None = None,
    quant_scale: float = -1,
    quant_round_type: int = 0,
    quant_max_bound: float = 0,
    quant_min_bound: float = 0,
) -> tuple[Tensor, Tensor]:
    """RMSNorm(x + bias + residual) * norm_weight + norm_bias over the axes from
    begin_norm_axis on: h / sqrt(mean(h ** 2) + epsilon) * norm_weight + norm_bias.

    Args:
        x (Tensor): The input, floating point.
        norm_weight (Tensor): 1-D scale of prod(x.shape[begin_norm_axis:]) entries.
        norm_bias (Tensor|None): 1-D shift of the same size, or None.
        epsilon (float): Added to the mean square.
        begin_norm_axis (int, optional): The first normalised axis (negative counts from
            the end). Default: 1.
        bias (Tensor|None, optional): The previous layer's bias, shaped like x's
            normalised axes (or flattened). Used only together with residual, as in
            Paddle. Default: None.
        residual (Tensor|None, optional): The shape of x. Default: None.
        quant_scale (float, optional): > 0: out is int8 (see fused_bias_act).
            Default: -1.
        quant_round_type (int, optional): 0 half to even, 1 half away from zero.
            Default: 0.
        quant_max_bound (float, optional): Upper clip bound. Default: 0.
        quant_min_bound (float, optional): Lower clip bound. Default: 0.

    Returns:
        tuple: (out, residual_out): out of x's shape; residual_out the sum that was
        normalised, x + bias + residual (an empty [0] tensor without residual).

    Raises:
        TypeError: a non-Tensor or non-floating input (norm_weight None included).
        ValueError: begin_norm_axis out of range, a weight/bias not of the normalised
            size, residual not of x's shape.
    """
    api = "fused_rms_norm"
    c.float_tensor(api, "x", x)
    axis = c.norm_axis(api, begin_norm_axis, x.ndim)
    eps = c.number(api, "epsilon", epsilon)
    c.float_tensor(api, "norm_weight", norm_weight)
    norm_shape = list(x.shape[axis:])
    cols = int(np.prod(norm_shape, dtype=np.int64))
    w = c.vector(api, "norm_weight", norm_weight, cols, x)
    b = c.vector(api, "norm_bias", norm_bias, cols, x)
    if bias is not None:
        c.float_tensor(api, "bias", bias)
        if list(bias.shape) not in (norm_shape, [cols]):
            raise ValueError(
                f"{api}(): argument 'bias' must have shape {norm_shape} (x's "
                f"normalised axes), but got {list(bias.shape)}"
            )
        bias = c.like(bias, x)
    if residual is None:
        # Paddle's kernels read bias only together with a residual.
        h, residual_out = x, c.empty_output(x)
    else:
        c.float_tensor(api, "residual", residual)
        c.shape_is(api, "residual", residual, x.shape)
        h = x + c.like(residual, x)
        if bias is not None:
            h = h + _C.reshape(bias, norm_shape)
        residual_out = h
    quant = c.quant_args(api, quant_scale, quant_round_type, quant_max_bound, quant_min_bound)
    out = F.rms_norm(h, norm_shape, weight=w, epsilon=eps)
    if b is not None:
        out = out + _C.reshape(b, norm_shape)
    if quant:
        out = c.quantize(out, quant_scale, quant_round_type, quant_max_bound, quant_min_bound)
    return out, residual_out


def _last_axis_rms(api, x, scale, epsilon):
    c.float_tensor(api, "x", x)
    c.rank_at_least(api, "x", x, 1)
    eps = c.number(api, "epsilon", epsilon)
    cols = x.shape[-1]
    c.tensor(api, "scale", scale)
    w = c.vector(api, "scale", scale, cols, x)
    _, inv = c.row_stats(x, x.ndim - 1, eps, centred=False)
    return F.rms_norm(x, [cols], weight=w, epsilon=eps), inv


def fused_rms_norm_ext(
    x: Tensor, scale: Tensor, epsilon: float = 1e-5, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """RMSNorm over the last axis: x / sqrt(mean(x ** 2) + epsilon) * scale.

    Args:
        x (Tensor): The input, at least 1-D [..., cols], floating point.
        scale (Tensor): 1-D [cols].
        epsilon (float, optional): Added to the mean square. Default: 1e-5.
        name (str|None, optional): Unused, for Paddle compatibility. Default: None.

    Returns:
        tuple: (y, invvar): y of x's shape; invvar, 1 / sqrt(mean(x ** 2) + epsilon),
        1-D over the prod(x.shape[:-1]) rows, without gradient.

    Raises:
        TypeError: a non-Tensor or non-floating input.
        ValueError: scale not [cols].
    """
    return _last_axis_rms("fused_rms_norm_ext", x, scale, epsilon)


def fast_rms_norm(x: Tensor, scale: Tensor, epsilon: float = 1e-5) -> tuple[Tensor, Tensor]:
    """RMSNorm over the last axis, as fused_rms_norm_ext.

    Args:
        x (Tensor): The input, at least 1-D [..., cols], floating point.
        scale (Tensor): 1-D [cols].
        epsilon (float, optional): Added to the mean square. Default: 1e-5.

    Returns:
        tuple: (y, invvar), as fused_rms_norm_ext.

    Raises:
        TypeError: a non-Tensor or non-floating input.
        ValueError: scale not [cols].
    """
    return _last_axis_rms("fast_rms_norm", x, scale, epsilon)
