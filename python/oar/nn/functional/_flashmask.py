"""flashmask_attention: FlashMask's column-wise row ranges as a boolean mask (conventions
in _flash_variants.py)."""

import numbers

import numpy as np

from ...framework import check as C
from ...tensor.creation import to_tensor
from ._flash_common import (
    _attend,
    _bshd_to_bhsd,
    _causal_keep,
    _default_scale,
    _expand_kv,
    _flag,
    _float_tensor,
    _heads,
    _int_array,
    _probability,
    _seed_offset,
)


# ---- flashmask_attention -------------------------------------------------------------------


def _flashmask_keep(idx, causal, sq, sk):
    """Keep mask [B, Hm, sq, sk] from startend_row_indices [B, Hm, sk, 1|2|4]: column j
    masks the query rows its indices name (the dense form of Paddle's docstring)."""
    i = np.arange(sq)[None, None, :, None]
    col = [idx[..., c][:, :, None, :] for c in range(idx.shape[-1])]
    n = idx.shape[-1]
    if causal:
        masked = (i >= col[0]) & (i < col[1]) if n == 2 else i >= col[0]
    elif n == 2:
        masked = (i >= col[0]) | (i < col[1])
    else:
        masked = ((i >= col[0]) & (i < col[1])) | ((i >= col[2]) & (i < col[3]))
    keep = ~masked
    if causal:
        keep = keep & _causal_keep(sq, sk)[None, None]
    return keep


def flashmask_attention(
    query,
    key,
    value,
    startend_row_indices=None,
    *,
    dropout=0.0,
    causal=False,
    window_size=None,
    return_softmax_lse=False,
    return_seed_offset=False,
    fixed_seed_offset=None,
    rng_name="",
    training=True,
    name=None,
    softmax_scale=None,
    block_mask=None,
):
    """FlashMask attention: softmax(q @ k^T * scale + M) @ v with the column-wise sparse
    mask M given by row ranges per key column.

    Args:
        query (Tensor): [batch, seq_len_q, num_heads, head_dim].
        key (Tensor): [batch, seq_len_k, num_heads_k, head_dim].
        value (Tensor): [batch, seq_len_k, num_heads_k, head_dim].
        startend_row_indices (Tensor|None, optional): int32
            [batch, 1 | num_heads | num_heads_k, seq_len_k, 1 | 2 | 4]. For key column j:
            causal with 1 value: rows >= start are masked; causal with 2: rows in
            [start, end); non-causal with 2: rows >= the lower start and rows < the upper
            end; non-causal with 4: rows in [lower start, lower end) and in
            [upper start, upper end). Default: None (plain attention).
        dropout (float, optional): Dropout rate. Default: 0.0.
        causal (bool, optional): Also mask keys after each query. Default: False.
        window_size (int|tuple|None, optional): Sliding window (left, right), turned into
            startend_row_indices. Default: None.
        return_softmax_lse (bool, optional): Also return the log-sum-exp. Default: False.
        return_seed_offset (bool, optional): Also return the dropout (seed, offset).
        fixed_seed_offset (Tensor|None, optional): int64 [2] (seed, offset) for dropout.
        rng_name (str, optional): Accepted for Paddle compatibility.
        training (bool, optional): Apply dropout. Default: True.
        name (str|None, optional): Unused.
        softmax_scale (float|None, optional): Default: head_dim ** -0.5.
        block_mask (Tensor|None, optional): int32 [batch, heads of startend_row_indices,
            ceil(seq_len_q / 128), ceil(seq_len_k / 128)]; 0 masks a 128 x 128 block.

    Returns:
        Tensor|list: out [batch, seq_len_q, num_heads, head_dim]; with return_softmax_lse
        or return_seed_offset a list [out, lse [batch, num_heads, seq_len_q] float32,
        seed_offset int64 [2]] of the requested entries.

    Examples:
        >>> import oar
        >>> q = oar.ones([1, 4, 2, 8])
        >>> idx = oar.to_tensor([[[[2], [3], [4], [4]]]], dtype="int32")
        >>> out = oar.nn.functional.flashmask_attention(q, q, q, idx, causal=True)
        >>> list(out.shape)
        [1, 4, 2, 8]
    """
    api = "flashmask_attention"
    _float_tensor(api, "query", query, 4)
    _float_tensor(api, "key", key, 4)
    _float_tensor(api, "value", value, 4)
    bsz, sq, h, d = query.shape
    _, sk, hk, dk = key.shape
    if key.shape[0] != bsz or dk != d or value.shape[:3] != key.shape[:3]:
        raise ValueError(
            f"{api}(): incompatible shapes query {query.shape}, key {key.shape}, "
            f"value {value.shape}"
        )
    g = _heads(api, h, hk, "key/value")
    p = _probability(api, "dropout", dropout)
    causal = _flag(api, "causal", causal)
    training = _flag(api, "training", training)
    return_softmax_lse = _flag(api, "return_softmax_lse", return_softmax_lse)
    return_seed_offset = _flag(api, "return_seed_offset", return_seed_offset)
    scale = (
        _default_scale(d)
        if softmax_scale is None
        else float(C.number(api, "softmax_scale", softmax_scale))
    )
    idx = None
    if window_size is not None:
        if startend_row_indices is not None:
            raise ValueError(
                f"{api}(): 'window_size' and 'startend_row_indices' cannot be used together"
            )
        w = (
            (window_size, window_size)
            if isinstance(window_size, numbers.Integral)
            else tuple(window_size)
        )
        if len(w) != 2:
            raise ValueError(
                f"{api}(): argument 'window_size' must be an int or a (left, "
                f"right) pair, but got {window_size!r}"
            )
        w = tuple(C.integer(api, "window_size", x) for x in w)
        lower = np.clip(np.arange(w[0] + 1, sq + w[0] + 1), None, sq)
        if causal:
            idx = lower[None, None, :, None]
        else:
            upper = np.clip(np.arange(-w[1], sq - w[1]), 0, sq)
            idx = np.stack([lower, upper], -1)[None, None]
        idx = np.repeat(idx, bsz, 0)
        if sq != sk:
            raise ValueError(
                f"{api}(): 'window_size' needs seq_len_q == seq_len_k, but got {sq} and {sk}"
            )
    elif startend_row_indices is not None:
        idx = _int_array(api, "startend_row_indices", startend_row_indices, 4)
        if idx.shape[0] != bsz or idx.shape[2] != sk:
            raise ValueError(
                f"{api}(): argument 'startend_row_indices' must have shape "
                f"[{bsz}, heads, {sk}, 1|2|4], but has {list(idx.shape)}"
            )
        if idx.shape[1] not in (1, h, hk):
            raise ValueError(
                f"{api}(): the heads of 'startend_row_indices' ({idx.shape[1]}) "
                f"must be 1, num_heads ({h}) or num_heads_k ({hk})"
            )
        allowed = (1, 2) if causal else (2, 4)
        if idx.shape[3] not in allowed:
            raise ValueError(
                f"{api}(): with causal={causal} the last dimension of "
                f"'startend_row_indices' must be {allowed[0]} or {allowed[1]}, "
                f"but got {idx.shape[3]}"
            )
    if block_mask is not None and idx is None:
        raise ValueError(f"{api}(): 'block_mask' needs 'startend_row_indices'")
    seed, offset = _seed_offset(api, fixed_seed_offset, p, training)
    if idx is None:
        keep = _causal_keep(sq, sk)[None, None] if causal else None
    else:
        keep = _flashmask_keep(idx, causal, sq, sk)
        if block_mask is not None:
            bm = _int_array(api, "block_mask", block_mask, 4)
            want = [bsz, idx.shape[1], -(-sq // 128), -(-sk // 128)]
            if list(bm.shape) != want:
                raise ValueError(
                    f"{api}(): argument 'block_mask' must have shape {want}, but "
                    f"has {list(bm.shape)}"
                )
            blocks = np.repeat(np.repeat(bm != 0, 128, 2), 128, 3)[:, :, :sq, :sk]
            keep = keep & blocks
        if keep.shape[1] not in (1, h):  # one mask per key/value head: expand to queries
            keep = np.repeat(keep, g, 1)
    out, _, lse = _attend(
        _bshd_to_bhsd(query),
        _expand_kv(_bshd_to_bhsd(key), g),
        _expand_kv(_bshd_to_bhsd(value), g),
        keep,
        scale,
        p if training else 0.0,
        seed,
        offset,
        empty_lse=float("inf") if return_softmax_lse else None,
    )
    out = _bshd_to_bhsd(out)
    if not (return_softmax_lse or return_seed_offset):
        return out
    outputs = [out]
    if return_softmax_lse:
        outputs.append(lse)
    if return_seed_offset:
        outputs.append(to_tensor(np.array([seed, offset], np.int64)))
    return outputs
