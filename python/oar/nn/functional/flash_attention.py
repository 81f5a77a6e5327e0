"""oar.nn.functional: scaled_dot_product_attention (Paddle's
paddle.nn.functional.flash_attention), in Paddle's layout [batch, seq_len, num_heads,
head_dim] (3-D: [seq_len, num_heads, head_dim]).

A composition: two batched GEMMs around the fused softmax kernel, the scores
materialised ([batch, heads, L, S]), which is what a CPU implementation without a
tiled flash kernel does anyway. That is SDPBackend.MATH: with it disabled by
oar.nn.attention.sdpa_kernel (only FLASH_ATTENTION / EFFICIENT_ATTENTION enabled), the
call raises RuntimeError, as on a CPU build of Paddle.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _C
from ...framework import check as C
from ...framework.typing import Tensor
from ...tensor.creation import to_tensor
from .common import dropout
from ..attention.sdpa import SDPBackend, _cur_sdpa_kernel_backends

__all__ = ["scaled_dot_product_attention"]


def _require_math_backend(api):
    # Paddle picks the first enabled backend the inputs allow; on the CPU the flash and
    # memory-efficient kernels never qualify, so only MATH can run.
    if SDPBackend.MATH not in _cur_sdpa_kernel_backends():
        raise RuntimeError(
            f"{api}(): No available backend for scaled_dot_product_attention "
            f"was found: the CPU runs only SDPBackend.MATH, which sdpa_kernel() "
            f"has disabled"
        )


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    training: bool = True,
    name: str | None = None,
) -> Tensor:
    api = "scaled_dot_product_attention"
    for n, t in (("query", query), ("key", key), ("value", value)):
        C.tensor(api, n, t)
        if t.ndim not in (3, 4):
            raise ValueError(
                f"{api}(): argument '{n}' must be 4-D [batch, seq_len, num_heads, "
                f"head_dim] or 3-D, but has shape {t.shape}"
            )
    if not query.ndim == key.ndim == value.ndim:
        raise ValueError(
            f"{api}(): 'query', 'key' and 'value' must have the same rank, but got "
            f"{query.shape}, {key.shape}, {value.shape}"
        )
    if (
        key.shape != value.shape[:-1] + [key.shape[-1]]
        or query.shape[-1] != key.shape[-1]
        or query.shape[:-3] != key.shape[:-3]
        or query.shape[-2] != key.shape[-2]
    ):
        raise ValueError(
            f"{api}(): incompatible shapes query {query.shape}, key {key.shape}, "
            f"value {value.shape}: batch and heads must agree, query and key "
            f"share head_dim, key and value share seq_len"
        )
    if attn_mask is not None:
        C.tensor(api, "attn_mask", attn_mask)
    if query.size and key.size and value.size:
        # as Paddle, an empty input takes the math path whatever sdpa_kernel selected
        _require_math_backend(api)
    out_shape = list(query.shape[:-1]) + [value.shape[-1]]
    if 0 in out_shape:
        # an empty batch (or no heads, queries or value features): skip the scores and the
        # causal mask, whose size L x S does not shrink with the batch
        return C.reshape_exact(query if query.size == 0 else value, out_shape)
    # [.., L, H, D] -> [.., H, L, D]
    perm = list(range(query.ndim - 3)) + [query.ndim - 2, query.ndim - 3, query.ndim - 1]
    q = _C.transpose(query, perm)
    k = _C.transpose(key, perm)
    v = _C.transpose(value, perm)
    L, S = query.shape[-3], key.shape[-3]
    scores = _C.scale(_C.matmul(q, k, False, True), 1.0 / math.sqrt(max(query.shape[-1], 1)))
    neg_inf = _C.full_like(scores, float("-inf"))
    if is_causal:
        causal = to_tensor(np.tril(np.ones([L, S], dtype=bool)))
        scores = _C.where(causal, scores, neg_inf)
    if attn_mask is not None:
        if attn_mask.dtype.name == "bool":
            scores = _C.where(attn_mask, scores, neg_inf)
        else:
            scores = scores + attn_mask
    weights = _C.softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=training)
    return _C.transpose(_C.matmul(weights, v), perm)
