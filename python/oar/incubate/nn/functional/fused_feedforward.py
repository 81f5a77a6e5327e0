"""The Transformer's residual blocks, composed from oar ops: the feed-forward block
(fused_feedforward) and layer_norm(residual + dropout(x + bias))
(fused_bias_dropout_residual_layer_norm). Pre- or post-layer-norm as Paddle; dropouts use
the default generator and Paddle's two modes."""

from __future__ import annotations

from ....framework.typing import Tensor
from ....nn import functional as F
from . import _common as c

__all__ = ["fused_feedforward", "fused_bias_dropout_residual_layer_norm"]

_FFN_ACTS = ("relu", "gelu")  # Paddle's kernel: these two, gelu with erf


def fused_feedforward(
    x: Tensor,
    linear1_weight: Tensor,
    linear2_weight: Tensor,
    linear1_bias: Tensor | None = None,
    linear2_bias: Tensor | None = None,
    ln1_scale: Tensor | None = None,
    ln1_bias: Tensor | None = None,
    ln2_scale: Tensor | None = None,
    ln2_bias: Tensor | None = None,
    dropout1_rate: float = 0.5,
    dropout2_rate: float = 0.5,
    activation: str = "relu",
    ln1_epsilon: float = 1e-5,
    ln2_epsilon: float = 1e-5,
    pre_layer_norm: bool = False,
    training: bool = True,
    mode: str = "upscale_in_train",
    ring_id: int = -1,
    add_residual: bool = True,
    name: str | None = None,
) -> Tensor:
    """The Transformer feed-forward block:
    out = linear2(dropout1(activation(linear1(layer_norm1(x) if pre_layer_norm else x)))),
    then x + dropout2(out) (dropout2(out) without add_residual), then layer_norm2 of that
    unless pre_layer_norm.

    Args:
        x (Tensor): [batch_size, seq_len, d_model] (any rank >= 2), floating point.
        linear1_weight (Tensor): [d_model, dim_feedforward].
        linear2_weight (Tensor): [dim_feedforward, d_model].
        linear1_bias (Tensor|None, optional): [dim_feedforward]. Default: None.
        linear2_bias (Tensor|None, optional): [d_model]. Default: None.
        ln1_scale (Tensor|None, optional): [d_model], the pre-norm's scale. Default: None.
        ln1_bias (Tensor|None, optional): [d_model]. Default: None.
        ln2_scale (Tensor|None, optional): [d_model], the post-norm's scale.
            Default: None.
        ln2_bias (Tensor|None, optional): [d_model]. Default: None.
        dropout1_rate (float, optional): After the activation. Default: 0.5.
        dropout2_rate (float, optional): Before the residual add. Default: 0.5.
        activation (str, optional): 'relu' or 'gelu' (erf form). Default: 'relu'.
        ln1_epsilon (float, optional): Default: 1e-5.
        ln2_epsilon (float, optional): Default: 1e-5.
        pre_layer_norm (bool, optional): Normalise the input (ln1) instead of the output
            (ln2). Default: False.
        training (bool, optional): Default: True.
        mode (str, optional): 'upscale_in_train' or 'downscale_in_infer' (see
            fused_dropout_add). Default: 'upscale_in_train'.
        ring_id (int, optional): Tensor-parallel communicator; unused on one CPU process.
            Default: -1.
        add_residual (bool, optional): Add x back. Default: True.
        name (str|None, optional): Unused, for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape and dtype.

    Raises:
        TypeError: a non-Tensor or non-floating input, a non-number rate.
        ValueError: weights/biases/scales of the wrong shape, an unknown activation or
            mode, a rate outside [0, 1].
    """
    api = "fused_feedforward"
    c.float_tensor(api, "x", x)
    c.rank_at_least(api, "x", x, 2)
    d = x.shape[-1]
    c.float_tensor(api, "linear1_weight", linear1_weight)
    if linear1_weight.ndim != 2:
        raise ValueError(
            f"{api}(): argument 'linear1_weight' must be 2-D [d_model, "
            f"dim_feedforward], but has shape {list(linear1_weight.shape)}"
        )
    dff = linear1_weight.shape[1]
    w1 = c.matrix(api, "linear1_weight", linear1_weight, [d, dff], x)
    w2 = c.matrix(api, "linear2_weight", linear2_weight, [dff, d], x)
    b1 = c.vector(api, "linear1_bias", linear1_bias, dff, x)
    b2 = c.vector(api, "linear2_bias", linear2_bias, d, x)
    ln = [
        c.vector(api, arg, t, d, x)
        for arg, t in (
            ("ln1_scale", ln1_scale),
            ("ln1_bias", ln1_bias),
            ("ln2_scale", ln2_scale),
            ("ln2_bias", ln2_bias),
        )
    ]
    if not isinstance(activation, str) or activation not in _FFN_ACTS:
        raise ValueError(
            f"{api}(): argument 'activation' must be 'relu' or 'gelu', but got {activation!r}"
        )
    (p1, p2), training, mode = c.dropouts(
        api, (("dropout1_rate", dropout1_rate), ("dropout2_rate", dropout2_rate)), training, mode
    )
    pre = c.flag(api, "pre_layer_norm", pre_layer_norm)
    out = c.last_axis_ln(x, ln[0], ln[1], c.number(api, "ln1_epsilon", ln1_epsilon)) if pre else x
    act = F.relu if activation == "relu" else F.gelu
    out = c.dropout(act(c.linear(out, w1, b1)), p1, training, mode)
    out = c.dropout(c.linear(out, w2, b2), p2, training, mode)
    if c.flag(api, "add_residual", add_residual):
        out = x + out
    if not pre:
        out = c.last_axis_ln(out, ln[2], ln[3], c.number(api, "ln2_epsilon", ln2_epsilon))
    return out


def fused_bias_dropout_residual_layer_norm(
    x: Tensor,
    residual: Tensor,
    bias: Tensor | None = None,
    ln_scale: Tensor | None = None,
    ln_bias: Tensor | None = None,
    dropout_rate: float = 0.5,
    ln_epsilon: float = 1e-5,
    training: bool = True,
    mode: str = "upscale_in_train",
    name: str | None = None,
) -> Tensor:
    """layer_norm(residual + dropout(x + bias)) over the last axis.

    Args:
        x (Tensor): [..., embed_dim], floating point.
        residual (Tensor): The shape of x.
        bias (Tensor|None, optional): [embed_dim], the previous linear's bias.
            Default: None.
        ln_scale (Tensor|None, optional): [embed_dim]. Default: None.
        ln_bias (Tensor|None, optional): [embed_dim]. Default: None.
        dropout_rate (float, optional): Default: 0.5.
        ln_epsilon (float, optional): Default: 1e-5.
        training (bool, optional): Default: True.
        mode (str, optional): 'upscale_in_train' or 'downscale_in_infer'.
            Default: 'upscale_in_train'.
        name (str|None, optional): Unused, for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape and dtype.

    Raises:
        TypeError: a non-Tensor or non-floating input, a non-number rate.
        ValueError: residual not of x's shape, a bias/scale not [embed_dim], an unknown
            mode, a rate outside [0, 1].
    """
    api = "fused_bias_dropout_residual_layer_norm"
    c.float_tensor(api, "x", x)
    c.rank_at_least(api, "x", x, 1)
    c.float_tensor(api, "residual", residual)
    c.shape_is(api, "residual", residual, x.shape)
    d = x.shape[-1]
    bias, scale, shift = (
        c.vector(api, arg, t, d, x)
        for arg, t in (("bias", bias), ("ln_scale", ln_scale), ("ln_bias", ln_bias))
    )
    (p,), training, mode = c.dropouts(api, (("dropout_rate", dropout_rate),), training, mode)
    h = x if bias is None else x + bias
    h = c.like(residual, x) + c.dropout(h, p, training, mode)
    return c.last_axis_ln(h, scale, shift, c.number(api, "ln_epsilon", ln_epsilon))
