"""fused_multi_head_attention: Paddle's fused self-attention (layer norm, qkv
projection, scaled-dot-product attention with dropout, output projection, residual),
composed from oar ops, with its two qkv weight layouts and the key/value cache."""

from __future__ import annotations

import numpy as np

from ....framework.check import is_int
from .... import _C
from ....framework.typing import Tensor
from . import _common as c
from ....nn.layer.transformer import _convert_attention_mask

__all__ = ["fused_multi_head_attention"]


def _qkv(api, x, qkv_weight, qkv_bias, transpose_qkv_wb, num_heads, ring_id):
    """q, k, v as [batch, heads, seq, head_dim] from either weight layout."""
    b, s, e = x.shape
    c.float_tensor(api, "qkv_weight", qkv_weight)
    if transpose_qkv_wb:
        if not is_int(num_heads) or num_heads <= 0:
            raise ValueError(
                f"{api}(): transpose_qkv_wb needs a positive 'num_heads', but got {num_heads!r}"
            )
        if (
            qkv_weight.ndim != 2
            or qkv_weight.shape[0] != e
            or qkv_weight.shape[1] % (3 * num_heads)
            or (ring_id == -1 and qkv_weight.shape[1] != 3 * e)
        ):
            raise ValueError(
                f"{api}(): with transpose_qkv_wb, 'qkv_weight' must be "
                f"[embed_dim, 3 * embed_dim] = [{e}, {3 * e}], but has shape "
                f"{list(qkv_weight.shape)}"
            )
        nh, hd = num_heads, qkv_weight.shape[1] // (3 * num_heads)
        w = c.like(qkv_weight, x)
        bias = c.vector(api, "qkv_bias", qkv_bias, 3 * nh * hd, x)
    else:
        if (
            qkv_weight.ndim != 4
            or qkv_weight.shape[0] != 3
            or qkv_weight.shape[3] != e
            or (ring_id == -1 and qkv_weight.shape[1] * qkv_weight.shape[2] != e)
        ):
            raise ValueError(
                f"{api}(): 'qkv_weight' must be [3, num_heads, head_dim, "
                f"embed_dim] with num_heads * head_dim = embed_dim = {e}, but has "
                f"shape {list(qkv_weight.shape)}"
            )
        nh, hd = qkv_weight.shape[1], qkv_weight.shape[2]
        w = _C.transpose(_C.reshape(c.like(qkv_weight, x), [3 * nh * hd, e]), [1, 0])
        if qkv_bias is not None:
            c.float_tensor(api, "qkv_bias", qkv_bias)
            c.shape_is(api, "qkv_bias", qkv_bias, [3, nh, hd])
        bias = None if qkv_bias is None else _C.reshape(c.like(qkv_bias, x), [3 * nh * hd])
    qkv = _C.reshape(c.linear(x, w, bias), [b, s, 3, nh, hd])
    qkv = _C.transpose(qkv, [2, 0, 3, 1, 4])
    q, k, v = (_C.reshape(_C.slice(qkv, [0], [i], [i + 1]), [b, nh, s, hd]) for i in range(3))
    return q, k, v


def _with_cache(api, k, v, cache_kv):
    """k, v prefixed by the cached ones, and the new cache [2, batch, heads, len, dim]."""
    c.float_tensor(api, "cache_kv", cache_kv)
    b, nh, _, hd = k.shape
    if (
        cache_kv.ndim != 5
        or cache_kv.shape[0] != 2
        or list(cache_kv.shape[1:3]) != [b, nh]
        or cache_kv.shape[4] != hd
    ):
        raise ValueError(
            f"{api}(): 'cache_kv' must be [2, batch_size, num_heads, cache_len, "
            f"head_dim] = [2, {b}, {nh}, *, {hd}], but has shape "
            f"{list(cache_kv.shape)}"
        )
    cache_kv = c.like(cache_kv, k)
    old = [
        _C.reshape(_C.slice(cache_kv, [0], [i], [i + 1]), list(cache_kv.shape[1:]))
        for i in range(2)
    ]
    k, v = _C.concat([old[0], k], 2), _C.concat([old[1], v], 2)
    return k, v, _C.concat([_C.unsqueeze(k, [0]), _C.unsqueeze(v, [0])], 0)


def _mask(api, attn_mask, shape, ref):
    """An additive float mask; bool/int masks keep their True/non-zero positions."""
    c.tensor(api, "attn_mask", attn_mask)
    try:
        ok = list(np.broadcast_shapes(tuple(attn_mask.shape), tuple(shape))) == list(shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"{api}(): 'attn_mask' {list(attn_mask.shape)} must broadcast to "
            f"[batch_size, num_heads, seq_len, key_len] = {list(shape)}"
        )
    return _convert_attention_mask(attn_mask, ref.dtype)


def fused_multi_head_attention(
    x: Tensor,
    qkv_weight: Tensor,
    linear_weight: Tensor,
    pre_layer_norm: bool = False,
    pre_ln_scale: Tensor | None = None,
    pre_ln_bias: Tensor | None = None,
    ln_scale: Tensor | None = None,
    ln_bias: Tensor | None = None,
    pre_ln_epsilon: float = 1e-05,
    qkv_bias: Tensor | None = None,
    linear_bias: Tensor | None = None,
    cache_kv: Tensor | None = None,
    attn_mask: Tensor | None = None,
    dropout_rate: float = 0.5,
    attn_dropout_rate: float = 0.5,
    ln_epsilon: float = 1e-05,
    training: bool = True,
    mode: str = "upscale_in_train",
    ring_id: int = -1,
    add_residual: bool = True,
    num_heads: int = -1,
    transpose_qkv_wb: bool = False,
    name: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """Self-attention with its projections, residual and layer norm:
    h = layer_norm(x) if pre_layer_norm else x; q, k, v = split(h @ W_qkv + b_qkv);
    a = dropout(softmax(q k^T / sqrt(head_dim) + attn_mask)) v; out = a @ linear_weight +
    linear_bias; out = x + dropout(out) (dropout(out) without add_residual); then
    layer_norm(out) unless pre_layer_norm.

    Args:
        x (Tensor): [batch_size, seq_len, embed_dim], floating point.
        qkv_weight (Tensor): [3, num_heads, head_dim, embed_dim]; with transpose_qkv_wb
            [embed_dim, 3 * embed_dim].
        linear_weight (Tensor): [num_heads * head_dim, embed_dim].
        pre_layer_norm (bool, optional): Normalise the input instead of the output.
            Default: False.
        pre_ln_scale (Tensor|None, optional): [embed_dim]. Default: None.
        pre_ln_bias (Tensor|None, optional): [embed_dim]. Default: None.
        ln_scale (Tensor|None, optional): [embed_dim], the post-norm's. Default: None.
        ln_bias (Tensor|None, optional): [embed_dim]. Default: None.
        pre_ln_epsilon (float, optional): Default: 1e-5.
        qkv_bias (Tensor|None, optional): [3, num_heads, head_dim] ([3 * embed_dim] with
            transpose_qkv_wb). Default: None.
        linear_bias (Tensor|None, optional): [embed_dim]. Default: None.
        cache_kv (Tensor|None, optional): [2, batch_size, num_heads, cache_len,
            head_dim], keys and values of earlier steps, put before the new ones.
            Default: None.
        attn_mask (Tensor|None, optional): Broadcast to [batch_size, num_heads, seq_len,
            key_len]; float: added to the scores; bool/int: keeps True/non-zero
            positions. Default: None.
        dropout_rate (float, optional): Before the residual add. Default: 0.5.
        attn_dropout_rate (float, optional): On the attention weights. Default: 0.5.
        ln_epsilon (float, optional): Default: 1e-5.
        training (bool, optional): Default: True.
        mode (str, optional): 'upscale_in_train' or 'downscale_in_infer', for both
            dropouts. Default: 'upscale_in_train'.
        ring_id (int, optional): Tensor-parallel communicator; unused on one CPU process
            (it only relaxes the num_heads * head_dim = embed_dim check). Default: -1.
        add_residual (bool, optional): Add x back. Default: True.
        num_heads (int, optional): Needed with transpose_qkv_wb. Default: -1.
        transpose_qkv_wb (bool, optional): qkv_weight/qkv_bias in the 2-D/1-D layout.
            Default: False.
        name (str|None, optional): Unused, for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape and dtype; with cache_kv, (out, cache_kv_out), cache_kv_out
        [2, batch_size, num_heads, cache_len + seq_len, head_dim].

    Raises:
        TypeError: a non-Tensor or non-floating input, a non-number rate.
        ValueError: x not 3-D, weights/biases/cache/mask of the wrong shape, a missing
            num_heads with transpose_qkv_wb, an unknown mode, a rate outside [0, 1].
    """
    api = "fused_multi_head_attention"
    c.float_tensor(api, "x", x)
    if x.ndim != 3:
        raise ValueError(
            f"{api}(): the rank of 'x' should be 3 [batch_size, seq_len, "
            f"embed_dim], but has shape {list(x.shape)}"
        )
    b, s, e = x.shape
    (p_out, p_attn), training, mode = c.dropouts(
        api,
        (("dropout_rate", dropout_rate), ("attn_dropout_rate", attn_dropout_rate)),
        training,
        mode,
    )
    pre = c.flag(api, "pre_layer_norm", pre_layer_norm)
    ln = [
        c.vector(api, arg, t, e, x)
        for arg, t in (
            ("pre_ln_scale", pre_ln_scale),
            ("pre_ln_bias", pre_ln_bias),
            ("ln_scale", ln_scale),
            ("ln_bias", ln_bias),
        )
    ]
    h = x
    if pre:
        h = c.last_axis_ln(x, ln[0], ln[1], c.number(api, "pre_ln_epsilon", pre_ln_epsilon))
    transposed = c.flag(api, "transpose_qkv_wb", transpose_qkv_wb)
    q, k, v = _qkv(api, h, qkv_weight, qkv_bias, transposed, num_heads, ring_id)
    nh, hd = q.shape[1], q.shape[3]
    w_out = c.matrix(api, "linear_weight", linear_weight, [nh * hd, e], x)
    b_out = c.vector(api, "linear_bias", linear_bias, e, x)
    cache_out = None
    if cache_kv is not None:
        k, v, cache_out = _with_cache(api, k, v, cache_kv)
    scores = _C.matmul(_C.scale(q, hd**-0.5), k, False, True)
    if attn_mask is not None:
        scores = scores + _mask(api, attn_mask, scores.shape, scores)
    weights = c.dropout(_C.softmax(scores, -1), p_attn, training, mode)
    ctx = _C.reshape(_C.transpose(_C.matmul(weights, v), [0, 2, 1, 3]), [b, s, nh * hd])
    out = c.dropout(c.linear(ctx, w_out, b_out), p_out, training, mode)
    if c.flag(api, "add_residual", add_residual):
        out = x + out
    if not pre:
        out = c.last_axis_ln(out, ln[2], ln[3], c.number(api, "ln_epsilon", ln_epsilon))
    return out if cache_out is None else (out, cache_out)
