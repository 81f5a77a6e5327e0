"""fused_multi_transformer: Paddle's stack of decoder layers (self-attention and
feed-forward, pre- or post-norm) with rotary embeddings, grouped-query heads and a
key/value cache for incremental decoding, composed from oar ops."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .... import _C
from ....framework.check import _kind, integer
from ....framework.typing import Tensor
from ....tensor.creation import to_tensor, zeros_like
from . import _common as c
from . import _fmt_args as G
from . import _fmt_attention as A
from .fused_bias_act import fused_bias_act

__all__ = ["fused_multi_transformer"]
API = A.API
ACTS = ("gelu", "relu", "geglu", "swiglu")
NORMS = ("layernorm", "rmsnorm")


def _norm(h, scale, bias, eps, kind):
    if kind == "layernorm":
        return c.last_axis_ln(h, c.like(scale, h), c.like(bias, h), eps)
    out = h * _C.rsqrt(_C.mean(_C.square(h), [h.ndim - 1], True) + eps)
    out = out * c.like(scale, h)
    return out if bias is None else out + c.like(bias, h)


def fused_multi_transformer(
    x: Tensor,
    ln_scales: Sequence[Tensor],
    ln_biases: Sequence[Tensor | None] | None,
    qkv_weights: Sequence[Tensor],
    qkv_biases: Sequence[Tensor | None] | None,
    linear_weights: Sequence[Tensor],
    linear_biases: Sequence[Tensor | None] | None,
    ffn_ln_scales: Sequence[Tensor],
    ffn_ln_biases: Sequence[Tensor | None] | None,
    ffn1_weights: Sequence[Tensor],
    ffn1_biases: Sequence[Tensor | None] | None,
    ffn2_weights: Sequence[Tensor],
    ffn2_biases: Sequence[Tensor | None] | None,
    pre_layer_norm: bool = True,
    epsilon: float = 1e-05,
    residual_alpha: float = 1.0,
    cache_kvs: Sequence[Tensor] | None = None,
    beam_offset: Tensor | None = None,
    pre_caches: Sequence[Tensor] | None = None,
    seq_lens: Tensor | None = None,
    rotary_embs: Tensor | None = None,
    time_step: Tensor | int | None = None,
    attn_mask: Tensor | None = None,
    dropout_rate: float = 0.0,
    rotary_emb_dims: int = 0,
    activation: str = "gelu",
    training: bool = False,
    mode: str = "upscale_in_train",
    trans_qkvw: bool = True,
    ring_id: int = -1,
    norm_type: str = "layernorm",
    use_neox_rotary_style: bool = False,
    gqa_group_size: int = -1,
    name: str | None = None,
) -> Tensor | tuple[Tensor, Sequence[Tensor]]:
    """A stack of Transformer decoder layers. Layer i, with norm = LayerNorm (or
    RMSNorm) and h its input:

        a = norm(h) if pre_layer_norm else h
        q, k, v = heads of a @ W_qkv + b_qkv  (rotary embeddings on q, k)
        o = dropout(softmax(q k^T / sqrt(head_dim) + mask) v) @ W_linear + b_linear
        h = alpha * h + dropout(o)           (then norm(h) with ln_* if post-norm)
        f = norm(h) if pre_layer_norm else h
        f = dropout(act(f @ W_ffn1 + b_ffn1)) @ W_ffn2 + b_ffn2
        h = alpha * h + dropout(f)           (then norm(h) with ffn_ln_* if post-norm)

    The mask is attn_mask; without one, causal (each token sees the keys up to its
    own, and the whole pre_caches prefix). alpha is residual_alpha.

    Args:
        x (Tensor): [batch_size, seq_len, embed_dim], floating point.
        ln_scales, ln_biases (list[Tensor]): [embed_dim] per layer: the attention
            norm (pre-norm: of its input; post-norm: of its output). Biases may be
            None.
        qkv_weights (list[Tensor]): [3, num_heads, head_dim, embed_dim] (trans_qkvw)
            or [embed_dim, 3, num_heads, head_dim]; with gqa_group_size = g > 0,
            [num_heads + 2 g, head_dim, embed_dim] or [embed_dim, num_heads + 2 g,
            head_dim] (query heads, then g key and g value heads).
        qkv_biases (list[Tensor]|None): [3, num_heads, head_dim] ([num_heads + 2 g,
            head_dim]) or flat.
        linear_weights, linear_biases (list[Tensor]): [num_heads * head_dim,
            embed_dim] and [embed_dim]: the attention output projection.
        ffn_ln_scales, ffn_ln_biases (list[Tensor]): [embed_dim]: the feed-forward
            norm.
        ffn1_weights, ffn1_biases (list[Tensor]): [embed_dim, dim_ffn], [dim_ffn];
            for geglu/swiglu dim_ffn holds both halves.
        ffn2_weights, ffn2_biases (list[Tensor]): [dim_ffn (half for *glu),
            embed_dim], [embed_dim].
        pre_layer_norm (bool, optional): Pre-norm (True) or post-norm. Default: True.
        epsilon (float, optional): The norms' epsilon. Default: 1e-5.
        residual_alpha (float, optional): The residual's weight alpha. Default: 1.0.
        cache_kvs (list[Tensor]|None, optional): Per layer [2, batch_size, kv_heads,
            max_seq_len, head_dim], updated in place: without time_step (the context
            stage) the keys/values of the pre_caches prefix and of x go to positions
            0 ..; with time_step (decoding, seq_len 1) the new ones go to position
            time_step and attention covers positions 0 .. time_step. Default: None.
        beam_offset (Tensor|None, optional): Paddle's beam-search cache offsets; not
            supported (NotImplementedError). Default: None.
        pre_caches (list[Tensor]|None, optional): Per layer [2, batch_size, kv_heads,
            prefix_len, head_dim]: keys/values put before x's in the context stage.
            Default: None.
        seq_lens (Tensor|None, optional): Integer [batch_size]: context stage: the
            valid length of each sequence (the rest is padding: not attended, not
            cached, zero output); decoding: each sequence's own time step (0: a
            finished sequence, zero output, cache untouched). Default: None.
        rotary_embs (Tensor|None, optional): [2, batch_size (or 1), 1, seq_len,
            head_dim]: cos then sin for x's tokens, used when rotary_emb_dims > 0.
            Default: None.
        time_step (Tensor|int|None, optional): One integer >= 1, the number of cached
            positions: selects the decoding stage. Default: None.
        attn_mask (Tensor|None, optional): Broadcast to [batch_size, num_heads,
            seq_len, key_len] (a longer last axis is cut); float: added; bool/int:
            keeps True/non-zero. Default: None (causal; when decoding, every
            position up to the step).
        dropout_rate (float, optional): All four dropouts. Default: 0.0.
        rotary_emb_dims (int, optional): 0: no rotary embedding; d > 0: rotate.
            Default: 0.
        activation (str, optional): 'gelu' (erf), 'relu', 'geglu' or 'swiglu'
            (act(first half) * second half). Default: 'gelu'.
        training (bool, optional): Dropout active. Default: False.
        mode (str, optional): 'upscale_in_train' or 'downscale_in_infer'.
            Default: 'upscale_in_train'.
        trans_qkvw (bool, optional): The qkv weight layout (see qkv_weights).
            Default: True.
        ring_id (int, optional): Tensor-parallel communicator; unused on one process.
            Default: -1.
        norm_type (str, optional): 'layernorm' or 'rmsnorm'. Default: 'layernorm'.
        use_neox_rotary_style (bool, optional): False: rotate adjacent pairs (x[2i],
            x[2i+1]); True: rotate the two halves of each of the rotary_emb_dims parts
            of head_dim. Default: False.
        gqa_group_size (int, optional): > 0: the number of key/value heads.
            Default: -1.
        name (str|None, optional): Unused, for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape and dtype; with cache_kvs, (out, cache_kvs), the caches
        updated in place.

    Raises:
        TypeError: non-Tensor or non-floating inputs, non-list parameter lists, a
            cache dtype unlike x's, non-integer seq_lens/time_step.
        ValueError: wrong ranks or shapes, list lengths unlike qkv_weights', an unknown
            activation/norm_type/mode, a rate outside [0, 1], time_step without
            cache_kvs or with seq_len != 1 or < 1, a cache too short, rotary_emb_dims
            > 0 without rotary_embs.
        NotImplementedError: beam_offset.
    """
    c.float_tensor(API, "x", x)
    if x.ndim != 3:
        raise ValueError(
            f"{API}(): 'x' must be [batch_size, seq_len, embed_dim], but has shape {list(x.shape)}"
        )
    bsz, s, e = x.shape
    (p,), training, mode = c.dropouts(API, (("dropout_rate", dropout_rate),), training, mode)
    pre = c.flag(API, "pre_layer_norm", pre_layer_norm)
    eps, alpha = c.number(API, "epsilon", epsilon), c.number(API, "residual_alpha", residual_alpha)
    trans = c.flag(API, "trans_qkvw", trans_qkvw)
    neox = c.flag(API, "use_neox_rotary_style", use_neox_rotary_style)
    act = G.choice("activation", activation, ACTS)
    norm = G.choice("norm_type", norm_type, NORMS)
    gqa, dims = (
        integer(API, "gqa_group_size", gqa_group_size),
        integer(API, "rotary_emb_dims", rotary_emb_dims),
    )
    if dims < 0:
        raise ValueError(f"{API}(): argument 'rotary_emb_dims' must be >= 0, but got {dims}")
    if beam_offset is not None:
        raise NotImplementedError(
            f"{API}(): 'beam_offset' (beam-search cache offsets) is not supported by oar"
        )
    if not isinstance(qkv_weights, (list, tuple)) or not qkv_weights:
        raise TypeError(
            f"{API}(): argument 'qkv_weights' must be a non-empty list of Tensors, "
            f"but got {_kind(qkv_weights)}"
        )
    n = len(qkv_weights)
    params = {
        arg: G.per_layer(arg, v, n, opt)
        for arg, v, opt in (
            ("ln_scales", ln_scales, False),
            ("ln_biases", ln_biases, True),
            ("qkv_weights", qkv_weights, False),
            ("qkv_biases", qkv_biases, True),
            ("linear_weights", linear_weights, False),
            ("linear_biases", linear_biases, True),
            ("ffn_ln_scales", ffn_ln_scales, False),
            ("ffn_ln_biases", ffn_ln_biases, True),
            ("ffn1_weights", ffn1_weights, False),
            ("ffn1_biases", ffn1_biases, True),
            ("ffn2_weights", ffn2_weights, False),
            ("ffn2_biases", ffn2_biases, True),
        )
    }
    nh, kvh, hd = A.heads(params["qkv_weights"][0], gqa, trans, e)
    G.check_shapes(params, e, nh, kvh, hd, act)
    decode = time_step is not None
    caches = None if cache_kvs is None else G.caches("cache_kvs", cache_kvs, n, x, kvh, hd)
    prefix = (
        None if pre_caches is None or decode else G.caches("pre_caches", pre_caches, n, x, kvh, hd)
    )
    plen = 0 if prefix is None else prefix[0].shape[3]
    if decode:
        steps, keep_rows = G.decode_steps(time_step, seq_lens, caches, s, bsz)
        lengths = keep_rows or [1] * bsz
        mask, klen = A.decode_mask(steps), max(steps) + 1
    else:
        keep_rows = lengths = G.lengths(seq_lens, bsz, s)
        klen = plen + s
        if caches is not None and caches[0].shape[3] < klen:
            raise ValueError(
                f"{API}(): cache_kvs hold {caches[0].shape[3]} positions, but the "
                f"context stage stores {klen}"
            )
        mask = A.context_mask(lengths, bsz, s, plen, attn_mask is None)
    mask = None if mask is None else A.additive(mask, x)
    if attn_mask is not None:
        user = A.user_mask(attn_mask, [bsz, nh, s, klen], x)
        mask = user if mask is None else mask + user
    if dims:
        if rotary_embs is None:
            raise ValueError(f"{API}(): rotary_emb_dims={dims} needs 'rotary_embs'")
        cos, sin = A.rotary_tables(rotary_embs, x, s, hd, dims, neox)
    h = x
    for i in range(n):
        ly = {k: v[i] for k, v in params.items()}
        a = _norm(h, ly["ln_scales"], ly["ln_biases"], eps, norm) if pre else h
        q, k, v = A.project(a, ly["qkv_weights"], ly["qkv_biases"], trans, nh, kvh, hd)
        if dims:
            q, k = (A.rotate(t, cos, sin, dims, neox) for t in (q, k))
        if decode:
            A.write_cache(caches[i], k, v, steps, lengths)
            k, v = A.decode_keys(caches[i], k, v, steps)
        else:
            if prefix is not None:
                old = [
                    _C.reshape(_C.slice(prefix[i], [0], [j], [j + 1]), list(prefix[i].shape[1:]))
                    for j in range(2)
                ]
                k, v = _C.concat([c.like(old[0], k), k], 2), _C.concat([c.like(old[1], v), v], 2)
            if caches is not None:
                A.write_cache(
                    caches[i], k, v, [0] * bsz, [plen + m for m in (lengths or [s] * bsz)]
                )
        o = c.linear(
            A.attend(q, k, v, mask, p, training, mode),
            c.like(ly["linear_weights"], x),
            c.like(ly["linear_biases"], x),
        )
        h = _residual(h, c.dropout(o, p, training, mode), alpha)
        if not pre:
            h = _norm(h, ly["ln_scales"], ly["ln_biases"], eps, norm)
        f = _norm(h, ly["ffn_ln_scales"], ly["ffn_ln_biases"], eps, norm) if pre else h
        f = fused_bias_act(
            c.linear(f, c.like(ly["ffn1_weights"], x), None),
            c.like(ly["ffn1_biases"], x),
            act_method=act,
        )
        f = c.linear(
            c.dropout(f, p, training, mode),
            c.like(ly["ffn2_weights"], x),
            c.like(ly["ffn2_biases"], x),
        )
        h = _residual(h, c.dropout(f, p, training, mode), alpha)
        if not pre:
            h = _norm(h, ly["ffn_ln_scales"], ly["ffn_ln_biases"], eps, norm)
    if keep_rows is not None:  # the rows of padding and of finished sequences are zero
        rows = np.arange(s)[None, :] < np.asarray(keep_rows)[:, None]
        h = _C.where(to_tensor(rows[:, :, None]), h, zeros_like(h))
    return h if cache_kvs is None else (h, cache_kvs)


def _residual(h, out, alpha):
    return h + out if alpha == 1.0 else _C.scale(h, alpha, 0.0) + out
