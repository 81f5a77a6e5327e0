"""flash_attn_varlen_qkvpacked and flash_attention_v3_varlen: the packed layouts, one
sequence per cu_seqlens range (conventions in _flash_variants.py)."""

import numpy as np

from ... import _C
from ...framework import check as C
from ...tensor.creation import to_tensor
from ...framework.grad_mode import no_grad
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


# ---- the packed (varlen) layouts -----------------------------------------------------------


def _seqs(api, cu_name, cu, max_name, max_len, total, padded, used=None, used_name=None):
    """Start row and length of every sequence (and the used length)."""
    cu = _int_array(api, cu_name, cu)
    if cu.size < 1:
        raise ValueError(
            f"{api}(): argument '{cu_name}' must hold batch_size + 1 values, but is empty"
        )
    m = C.integer(api, max_name, max_len)
    if m < 0:
        raise ValueError(f"{api}(): argument '{max_name}' must be >= 0, but got {m}")
    lens = np.diff(cu)
    if (lens < 0).any() or cu[0] < 0:
        raise ValueError(
            f"{api}(): argument '{cu_name}' must be non-negative and "
            f"non-decreasing, but got {cu.tolist()}"
        )
    if (lens > m).any():
        raise ValueError(
            f"{api}(): a sequence of argument '{cu_name}' is longer than "
            f"{max_name}={m}: lengths {lens.tolist()}"
        )
    starts = np.arange(lens.size) * m if padded else cu[:-1]
    if lens.size and (starts + lens).max() > total:
        raise ValueError(
            f"{api}(): argument '{cu_name}' ({cu.tolist()}) reaches past the "
            f"{total} packed tokens" + (f" (sequence b starts at row b * {m})" if padded else "")
        )
    use = lens
    if used is not None:
        use = _int_array(api, used_name, used)
        if use.shape != lens.shape or (use < 0).any() or (use > lens).any():
            raise ValueError(
                f"{api}(): argument '{used_name}' must hold one length per "
                f"sequence, each at most its length {lens.tolist()}, but got "
                f"{use.tolist()}"
            )
    return starts, lens, use, m


def _gather_rows(t, starts, m):
    """Rows t[starts[b] + i] (i < m) as [B, m, ...]; rows past the end read row 0 (masked)."""
    if t.shape[0] == 0:
        return _C.full([starts.size, m] + list(t.shape[1:]), 0.0, t.dtype)
    idx = starts[:, None] + np.arange(m)[None, :]
    idx = np.where(idx < t.shape[0], idx, 0)
    rows = _C.gather(t, to_tensor(idx.reshape(-1).astype(np.int64)), 0)
    return C.reshape_exact(rows, [starts.size, m] + list(t.shape[1:]))


def _scatter_rows(padded, starts, lens, total):
    """padded [B, m, ...] -> [total, ...]: each sequence's first lens[b] rows at starts[b],
    zeros elsewhere."""
    bsz, m = padded.shape[0], padded.shape[1]
    rest = list(padded.shape[2:])
    src = np.full(total, bsz * m, np.int64)
    for bi in range(bsz):
        src[starts[bi] : starts[bi] + lens[bi]] = bi * m + np.arange(lens[bi])
    flat = C.reshape_exact(padded, [bsz * m] + rest)
    flat = _C.concat([flat, _C.full([1] + rest, 0.0, padded.dtype)], 0)
    return _C.gather(flat, to_tensor(src), 0)


def _varlen_keep(lq, lk, mq, mk, causal, window):
    """[B, 1, mq, mk]: keys of the sequence, and the causal / window band."""
    bsz = lq.size
    keep = np.zeros((bsz, 1, mq, mk), bool)
    for bi in range(bsz):
        if causal or window != (-1, -1):
            band = _causal_keep(int(lq[bi]), int(lk[bi]), window, causal)
        else:
            band = True
        keep[bi, 0, : lq[bi], : lk[bi]] = band
    return keep


def flash_attn_varlen_qkvpacked(
    qkv,
    cu_seqlens_q,
    cu_seqlens_k,
    max_seqlen_q,
    max_seqlen_k,
    scale,
    dropout=0.0,
    causal=False,
    return_softmax=False,
    fixed_seed_offset=None,
    rng_name="",
    varlen_padded=True,
    training=True,
    name=None,
):
    """Attention over packed sequences of different lengths, q, k and v packed in one
    tensor.

    Args:
        qkv (Tensor): [total_tokens, num_heads / num_heads_k + 2, num_heads_k, head_dim].
        cu_seqlens_q (Tensor): int32 [batch + 1], cumulative query lengths.
        cu_seqlens_k (Tensor): int32 [batch + 1], cumulative key lengths.
        max_seqlen_q (int): The padded query length (varlen_padded) / longest sequence.
        max_seqlen_k (int): The same for keys.
        scale (float): Multiplies q @ k^T before the softmax.
        dropout (float, optional): Dropout rate. Default: 0.0.
        causal (bool, optional): Causal mask per sequence. Default: False.
        return_softmax (bool, optional): Also return the weights. Default: False.
        fixed_seed_offset (Tensor|None, optional): int64 [2] (seed, offset) for dropout.
        rng_name (str, optional): Accepted for Paddle compatibility.
        varlen_padded (bool, optional): Sequence b starts at row b * max_seqlen (True) or at
            row cu_seqlens[b] (False). Default: True.
        training (bool, optional): Apply dropout. Default: True.
        name (str|None, optional): Unused.

    Returns:
        tuple: out [total_tokens, num_heads, head_dim] (0 on rows outside every sequence)
        and the weights [batch, num_heads, max_seqlen_q, max_seqlen_k] or None.

    Examples:
        >>> import oar
        >>> qkv = oar.ones([8, 3, 2, 4])
        >>> cu = oar.to_tensor([0, 3, 7], dtype="int32")
        >>> out, _ = oar.nn.functional.flash_attn_varlen_qkvpacked(
        ...     qkv, cu, cu, 4, 4, 0.5, varlen_padded=True)
        >>> list(out.shape)
        [8, 2, 4]
    """
    api = "flash_attn_varlen_qkvpacked"
    _float_tensor(api, "qkv", qkv, 4)
    total, groups, hk, d = qkv.shape
    if groups < 3:
        raise ValueError(
            f"{api}(): argument 'qkv' must have at least 3 entries on axis 1 "
            f"(query groups, key, value), but has shape {qkv.shape}"
        )
    scale = float(C.number(api, "scale", scale))
    p = _probability(api, "dropout", dropout)
    causal = _flag(api, "causal", causal)
    return_softmax = _flag(api, "return_softmax", return_softmax)
    varlen_padded = _flag(api, "varlen_padded", varlen_padded)
    training = _flag(api, "training", training)
    sq, lq, _, mq = _seqs(
        api, "cu_seqlens_q", cu_seqlens_q, "max_seqlen_q", max_seqlen_q, total, varlen_padded
    )
    sk, lk, _, mk = _seqs(
        api, "cu_seqlens_k", cu_seqlens_k, "max_seqlen_k", max_seqlen_k, total, varlen_padded
    )
    if lq.size != lk.size:
        raise ValueError(
            f"{api}(): 'cu_seqlens_q' and 'cu_seqlens_k' must describe the same "
            f"number of sequences, but have {lq.size + 1} and {lk.size + 1} values"
        )
    seed, offset = _seed_offset(api, fixed_seed_offset, p, training)
    g = groups - 2
    q = C.reshape_exact(_C.slice(qkv, [1], [0], [g]), [total, g * hk, d])
    k = _C.squeeze(_C.slice(qkv, [1], [g], [g + 1]), [1])
    v = _C.squeeze(_C.slice(qkv, [1], [g + 1], [g + 2]), [1])
    qp = _bshd_to_bhsd(_gather_rows(q, sq, mq))
    kp = _expand_kv(_bshd_to_bhsd(_gather_rows(k, sk, mk)), g)
    vp = _expand_kv(_bshd_to_bhsd(_gather_rows(v, sk, mk)), g)
    keep = _varlen_keep(lq, lk, mq, mk, causal, (-1, -1))
    out, w, _ = _attend(
        qp, kp, vp, keep, scale, p if training else 0.0, seed, offset, want_probs=return_softmax
    )
    return _scatter_rows(_bshd_to_bhsd(out), sq, lq, total), w


def _no_tensor(api, name, v, why):
    if v is not None:
        raise ValueError(f"{api}(): argument '{name}' must be None: {why}")


def flash_attention_v3_varlen(
    query,
    key,
    value,
    cu_seqlens_q,
    cu_seqlens_k,
    max_seqlen_q,
    max_seqlen_k,
    seqused_q=None,
    seqused_k=None,
    softmax_scale=None,
    causal=False,
    qv=None,
    q_descale=None,
    k_descale=None,
    v_descale=None,
    window_size=(-1, -1),
    softcap=0.0,
    num_splits=1,
    pack_gqa=None,
    sm_margin=0,
):
    """FlashAttention-3's attention over packed sequences of different lengths.

    Args:
        query (Tensor): [total_q, num_heads, head_dim], sequence b at rows
            cu_seqlens_q[b]:cu_seqlens_q[b + 1].
        key (Tensor): [total_k, num_heads_k, head_dim].
        value (Tensor): [total_k, num_heads_k, head_dim_v].
        cu_seqlens_q (Tensor): int32 [batch + 1].
        cu_seqlens_k (Tensor): int32 [batch + 1].
        max_seqlen_q (int): The longest query sequence.
        max_seqlen_k (int): The longest key sequence.
        seqused_q (Tensor|None, optional): int32 [batch]: only the first seqused_q[b]
            queries of each sequence are computed (the rest give 0). Default: None.
        seqused_k (Tensor|None, optional): int32 [batch]: only the first seqused_k[b] keys
            are attended to. Default: None.
        softmax_scale (float|None, optional): Default: head_dim ** -0.5.
        causal (bool, optional): Causal mask (bottom-right aligned). Default: False.
        qv, q_descale, k_descale, v_descale: Must be None (FP8 / extra-V kernels).
        window_size (tuple, optional): (left, right) sliding window; -1 is unbounded.
            Default: (-1, -1).
        softcap (float, optional): If > 0, scores become softcap * tanh(scores / softcap).
            Default: 0.0.
        num_splits, pack_gqa, sm_margin: Kernel tuning knobs, accepted and unused.

    Returns:
        tuple: out [total_q, num_heads, head_dim_v] and the float32 log-sum-exp of each
        query's scores, [num_heads, total_q] (-inf where a query attends to nothing).

    Examples:
        >>> import oar
        >>> q = oar.ones([10, 2, 8])
        >>> cu = oar.to_tensor([0, 4, 10], dtype="int32")
        >>> out, lse = oar.nn.functional.flash_attention_v3_varlen(
        ...     q, q, q, cu, cu, 6, 6, causal=True)
        >>> list(out.shape), list(lse.shape)
        ([10, 2, 8], [2, 10])
    """
    api = "flash_attention_v3_varlen"
    _float_tensor(api, "query", query, 3)
    _float_tensor(api, "key", key, 3)
    _float_tensor(api, "value", value, 3)
    _no_tensor(api, "qv", qv, "Paddle's flash_attn_varlen_func does not support it")
    for n_, t_ in (("q_descale", q_descale), ("k_descale", k_descale), ("v_descale", v_descale)):
        _no_tensor(api, n_, t_, "the FP8 path is not available in oar")
    tq, h, d = query.shape
    tk, hk, dk = key.shape
    if dk != d or value.shape[0] != tk or value.shape[1] != hk:
        raise ValueError(
            f"{api}(): incompatible shapes query {query.shape}, key {key.shape}, "
            f"value {value.shape}: query and key share head_dim, key and value "
            f"share tokens and heads"
        )
    g = _heads(api, h, hk, "key/value")
    scale = (
        _default_scale(d)
        if softmax_scale is None
        else float(C.number(api, "softmax_scale", softmax_scale))
    )
    causal = _flag(api, "causal", causal)
    if not isinstance(window_size, (tuple, list)) or len(window_size) != 2:
        raise TypeError(
            f"{api}(): argument 'window_size' must be a (left, right) pair, but got {window_size!r}"
        )
    window = tuple(C.integer(api, "window_size", w) for w in window_size)
    softcap = float(C.number(api, "softcap", softcap))
    if softcap < 0:
        raise ValueError(f"{api}(): argument 'softcap' must be >= 0, but got {softcap}")
    C.integer(api, "num_splits", num_splits)
    C.integer(api, "sm_margin", sm_margin)
    sq, lq, uq, mq = _seqs(
        api,
        "cu_seqlens_q",
        cu_seqlens_q,
        "max_seqlen_q",
        max_seqlen_q,
        tq,
        False,
        seqused_q,
        "seqused_q",
    )
    sk, lk, uk, mk = _seqs(
        api,
        "cu_seqlens_k",
        cu_seqlens_k,
        "max_seqlen_k",
        max_seqlen_k,
        tk,
        False,
        seqused_k,
        "seqused_k",
    )
    if lq.size != lk.size:
        raise ValueError(
            f"{api}(): 'cu_seqlens_q' and 'cu_seqlens_k' must describe the same "
            f"number of sequences, but have {lq.size + 1} and {lk.size + 1} values"
        )
    qp = _bshd_to_bhsd(_gather_rows(query, sq, mq))
    kp = _expand_kv(_bshd_to_bhsd(_gather_rows(key, sk, mk)), g)
    vp = _expand_kv(_bshd_to_bhsd(_gather_rows(value, sk, mk)), g)
    keep = _varlen_keep(uq, uk, mq, mk, causal, window)
    out, _, lse = _attend(qp, kp, vp, keep, scale, softcap=softcap, empty_lse=float("-inf"))
    out = _scatter_rows(_bshd_to_bhsd(out), sq, uq, tq)
    with no_grad():
        # [B, H, mq] -> [H, total_q]; rows outside the used queries keep -inf
        lse_rows = _scatter_rows(_C.transpose(lse, [0, 2, 1]), sq, uq, tq)  # [total_q, H]
        rows = np.zeros(tq, bool)
        for bi in range(sq.size):
            rows[sq[bi] : sq[bi] + uq[bi]] = True
        lse_rows = _C.where(
            to_tensor(rows[:, None]), lse_rows, _C.full_like(lse_rows, float("-inf"))
        )
        lse = _C.transpose(lse_rows, [1, 0])
    return out, lse
