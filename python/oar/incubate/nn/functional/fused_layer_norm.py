"""Paddle's fused layer norms: fused_layer_norm (LayerNorm of x + bias +
residual_alpha * residual, returning the sum for the next residual branch) and fast_ln
(the apex-style last-axis LayerNorm returning its statistics)."""

from __future__ import annotations

import numpy as np

from .... import _C
from ....framework.typing import Tensor
from ....nn import functional as F
from . import _common as c

__all__ = ["fused_layer_norm", "fast_ln"]


def _fused_sum(api, x, bias, residual, alpha, axis):
    """(x + bias + alpha * residual, residual_out). Paddle's kernels read bias only
    together with a residual, so without one the bias is checked and then unused."""
    norm_shape = list(x.shape[axis:])
    if bias is not None:
        c.float_tensor(api, "bias", bias)
        if list(bias.shape) != norm_shape and list(bias.shape) != [int(np.prod(norm_shape))]:
            raise ValueError(
                f"{api}(): argument 'bias' must have shape {norm_shape} (x's "
                f"normalised axes), but got {list(bias.shape)}"
            )
        bias = c.like(bias, x)
    if residual is None:
        return x, c.empty_output(x)
    c.float_tensor(api, "residual", residual)
    c.shape_is(api, "residual", residual, x.shape)
    h = x + c.like(residual, x) * alpha if alpha != 1.0 else x + c.like(residual, x)
    if bias is not None:
        h = h + _C.reshape(bias, norm_shape)
    return h, h


def fused_layer_norm(
    x: Tensor,
    norm_weight: Tensor | None,
    norm_bias: Tensor | None,
    epsilon: float,
    residual_alpha: float = 1.0,
    begin_norm_axis: int = 1,
    bias: Tensor | None = None,
    residual: Tensor | None = None,
    quant_scale: float = -1,
    quant_round_type: int = 0,
    quant_max_bound: float = 0,
    quant_min_bound: float = 0,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """LayerNorm(x + bias + residual_alpha * residual) over the axes from
    begin_norm_axis on.

    Args:
        x (Tensor): The input, floating point.
        norm_weight (Tensor|None): 1-D scale of prod(x.shape[begin_norm_axis:]) entries.
        norm_bias (Tensor|None): 1-D shift of the same size. With norm_weight also None
            the sum is returned unnormalised.
        epsilon (float): Added to the variance.
        residual_alpha (float, optional): The residual's factor. Default: 1.0.
        begin_norm_axis (int, optional): The first normalised axis (negative counts from
            the end). Default: 1.
        bias (Tensor|None, optional): The previous layer's bias, shaped like x's
            normalised axes (or flattened). Used only together with residual, as in
            Paddle. Default: None.
        residual (Tensor|None, optional): The shape of x. Default: None.
        quant_scale (float, optional): > 0: the normalised out is int8 (see
            fused_bias_act). Default: -1.
        quant_round_type (int, optional): 0 half to even, 1 half away from zero.
            Default: 0.
        quant_max_bound (float, optional): Upper clip bound. Default: 0.
        quant_min_bound (float, optional): Lower clip bound. Default: 0.

    Returns:
        tuple: (out, residual_out, mean, invvar). out has x's shape; residual_out is
        the sum that was normalised, x + bias + residual_alpha * residual (an empty [0]
        tensor without residual); mean and invvar (1 / sqrt(var + epsilon)) are 1-D over the
        prod(x.shape[:begin_norm_axis]) rows, without gradient.

    Raises:
        TypeError: a non-Tensor or non-floating input, a non-number epsilon.
        ValueError: begin_norm_axis out of range, a weight/bias not of the normalised
            size, residual not of x's shape.
    """
    api = "fused_layer_norm"
    c.float_tensor(api, "x", x)
    axis = c.norm_axis(api, begin_norm_axis, x.ndim)
    eps = c.number(api, "epsilon", epsilon)
    alpha = c.number(api, "residual_alpha", residual_alpha)
    cols = int(np.prod(x.shape[axis:], dtype=np.int64))
    w = c.vector(api, "norm_weight", norm_weight, cols, x)
    b = c.vector(api, "norm_bias", norm_bias, cols, x)
    h, residual_out = _fused_sum(api, x, bias, residual, alpha, axis)
    quant = c.quant_args(api, quant_scale, quant_round_type, quant_max_bound, quant_min_bound)
    normalise = w is not None or b is not None
    out = F.layer_norm(h, list(x.shape[axis:]), weight=w, bias=b, epsilon=eps) if normalise else h
    mean, inv = c.row_stats(h, axis, eps)
    if quant and normalise:
        out = c.quantize(out, quant_scale, quant_round_type, quant_max_bound, quant_min_bound)
    return out, residual_out, mean, inv


def fast_ln(
    x: Tensor, scale: Tensor, bias: Tensor, epsilon: float = 1e-5
) -> tuple[Tensor, Tensor, Tensor]:
    """LayerNorm over the last axis, also returning its statistics.

    Args:
        x (Tensor): The input, at least 1-D [..., cols], floating point.
        scale (Tensor): 1-D [cols].
        bias (Tensor): 1-D [cols].
        epsilon (float, optional): Added to the variance. Default: 1e-5.

    Returns:
        tuple: (y, mean, invvar): y of x's shape; mean and invvar
        (1 / sqrt(var + epsilon)) 1-D over the prod(x.shape[:-1]) rows, without
        gradient.

    Raises:
        TypeError: a non-Tensor or non-floating input.
        ValueError: scale or bias not [cols].
    """
    api = "fast_ln"
    c.float_tensor(api, "x", x)
    c.rank_at_least(api, "x", x, 1)
    eps = c.number(api, "epsilon", epsilon)
    cols = x.shape[-1]
    c.tensor(api, "scale", scale)
    c.tensor(api, "bias", bias)
    w = c.vector(api, "scale", scale, cols, x)
    b = c.vector(api, "bias", bias, cols, x)
    mean, inv = c.row_stats(x, x.ndim - 1, eps)
    return F.layer_norm(x, [cols], weight=w, bias=b, epsilon=eps), mean, inv
