"""oar.nn.functional: Paddle's GPU attention kernels on the CPU: flash_attn_qkvpacked,
flash_attn_varlen_qkvpacked, flash_attention_v3_varlen, flashmask_attention and
sparse_attention.

Each is the math path of scaled_dot_product_attention (a GEMM, a softmax, a GEMM, the
scores materialised) with the kernel's masking written out as a boolean mask: causal,
sliding windows, FlashMask's column-wise row ranges, the CSR pattern of
sparse_attention, and the sequence boundaries of the packed (varlen) layouts. Gradients
flow to q, k and v (to qkv for the packed forms) through ordinary oar ops.

Conventions of the FlashAttention kernels kept here: the causal diagonal is aligned to the
bottom-right corner when a sequence has more keys than queries; a query row with no key
to attend to gives 0; grouped-query attention maps query head h to key/value head
h // (num_heads / num_heads_k). Dropout draws its mask from a Philox stream keyed by
(seed, offset): `fixed_seed_offset` gives the pair, otherwise the seed comes from oar's
default generator (so oar.seed makes it reproducible).
"""
import math
import numbers

import numpy as np

from ... import _C
from ... import _check as C
from ..._creation import randint, to_tensor
from ..._grad_mode import no_grad
from .flash_attention import _require_math_backend

__all__ = ["flash_attn_qkvpacked", "flash_attn_varlen_qkvpacked",
           "flash_attention_v3_varlen", "flashmask_attention", "sparse_attention"]

_FLOATS = ("float16", "bfloat16", "float32", "float64")


# ---- shared pieces --------------------------------------------------------------------------

def _float_tensor(api, name, t, ndim):
    C.tensor(api, name, t)
    if t.dtype.name not in _FLOATS:
        raise TypeError(f"{api}(): argument '{name}' must be a float16, bfloat16, float32 or "
                        f"float64 Tensor, but got {t.dtype.name}")
    if t.ndim != ndim:
        raise ValueError(f"{api}(): argument '{name}' must be {ndim}-D, but has shape {t.shape}")
    return t


def _int_array(api, name, t, ndim=1):
    C.tensor(api, name, t)
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{api}(): argument '{name}' must be an int32 Tensor, but got "
                        f"{t.dtype.name}")
    if t.ndim != ndim:
        raise ValueError(f"{api}(): argument '{name}' must be {ndim}-D, but has shape {t.shape}")
    return t.numpy().astype(np.int64)


def _probability(api, name, p):
    p = C.number(api, name, p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{api}(): argument '{name}' must be in [0, 1], but got {p}")
    return float(p)


def _flag(api, name, v):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{api}(): argument '{name}' must be bool, but got {type(v).__name__}")
    return bool(v)


def _seed_offset(api, fixed_seed_offset, p, training):
    """(seed, offset) of this call's dropout stream, as Paddle's seed_offset output."""
    if fixed_seed_offset is not None:
        pair = _int_array(api, "fixed_seed_offset", fixed_seed_offset)
        if pair.size != 2:
            raise ValueError(f"{api}(): argument 'fixed_seed_offset' must hold 2 values "
                             f"(seed, offset), but has {pair.size}")
        return int(pair[0]), int(pair[1])
    if p > 0.0 and training:
        return int(randint(0, 2 ** 31 - 1, [1]).item()), 0
    return 0, 0


def _dropout_keep(shape, p, seed, offset):
    rng = np.random.Generator(np.random.Philox(key=seed & (2 ** 64 - 1),
                                               counter=offset & (2 ** 64 - 1)))
    return rng.random(shape, dtype=np.float32) >= p


def _expand_kv(t, groups):
    """[B, Hk, L, D] -> [B, Hk * groups, L, D], query head h reading head h // groups."""
    if groups == 1:
        return t
    heads = np.repeat(np.arange(t.shape[1], dtype=np.int64), groups)
    return _C.index_select(t, to_tensor(heads), 1)


def _attend(q, k, v, keep, scale, p=0.0, seed=0, offset=0, softcap=0.0, empty_lse=None,
            want_probs=False):
    """q [B, H, Lq, D], k [B, H, Lk, D], v [B, H, Lk, Dv] (heads already matched); keep a
    numpy bool mask broadcastable to [B, H, Lq, Lk] or None. Returns out [B, H, Lq, Dv],
    the (dropped-out) probabilities or None, and the float32 log-sum-exp [B, H, Lq] or
    None (empty_lse: the value for a row that attends to nothing)."""
    s = _C.scale(_C.matmul(q, k, False, True), float(scale))
    if softcap > 0.0:
        s = _C.scale(_C.tanh(_C.scale(s, 1.0 / softcap)), softcap)
    rowok = None
    if keep is not None:
        s = _C.where(to_tensor(np.ascontiguousarray(keep)), s, _C.full_like(s, float("-inf")))
        rows = keep.any(axis=-1, keepdims=True)
        if not rows.all():
            rowok = to_tensor(np.ascontiguousarray(rows))
    lse = None
    if empty_lse is not None:
        with no_grad():
            lse = _C.logsumexp(_C.cast(s, "float32"), [-1], False)
            if rowok is not None:
                fill = _C.full_like(lse, empty_lse)
                lse = _C.where(_C.squeeze(rowok, [-1]), lse, fill)
    if rowok is not None:
        # a row with every key masked would be 0/0; the kernels write 0 for it
        s = _C.where(rowok, s, _C.full_like(s, 0.0))
    w = _C.softmax(s, -1)
    if rowok is not None:
        w = w * _C.cast(rowok, w.dtype)
    if p >= 1.0:
        w = w * _C.full_like(w, 0.0)
    elif p > 0.0:
        keep_d = _C.cast(to_tensor(_dropout_keep(list(w.shape), p, seed, offset)), w.dtype)
        w = w * _C.scale(keep_d, 1.0 / (1.0 - p))
    out = _C.matmul(w, v)
    return out, (w if want_probs else None), lse


def _bshd_to_bhsd(t):
    return _C.transpose(t, [0, 2, 1, 3])


def _causal_keep(lq, lk, window=(-1, -1), causal=True):
    """[lq, lk] keep mask, the diagonal aligned to the bottom-right corner."""
    i = np.arange(lq)[:, None] + (lk - lq)
    j = np.arange(lk)[None, :]
    keep = np.ones((lq, lk), bool)
    left, right = window
    if causal:
        right = 0 if right < 0 else min(right, 0)
    if right >= 0:
        keep &= j <= i + right
    if left >= 0:
        keep &= j >= i - left
    return keep


def _default_scale(d):
    return 1.0 / math.sqrt(d) if d else 1.0


# ---- flash_attn_qkvpacked -------------------------------------------------------------------

def flash_attn_qkvpacked(qkv, dropout=0.0, causal=False, return_softmax=False, *,
                         fixed_seed_offset=None, rng_name="", training=True, name=None):
    """Attention with q, k and v packed in one tensor.

    Args:
        qkv (Tensor): [batch, seq_len, num_heads / num_heads_k + 2, num_heads_k, head_dim]:
            the query head groups, then the key, then the value.
        dropout (float, optional): Dropout rate of the attention weights. Default: 0.0.
        causal (bool, optional): Mask keys after each query. Default: False.
        return_softmax (bool, optional): Also return the weights. Default: False.
        fixed_seed_offset (Tensor|None, optional): int64 [2] (seed, offset) of the dropout
            stream. Default: None.
        rng_name (str, optional): Accepted for Paddle compatibility; oar has one generator.
        training (bool, optional): Apply dropout. Default: True.
        name (str|None, optional): Unused.

    Returns:
        tuple: out [batch, seq_len, num_heads, head_dim] and the weights
        [batch, num_heads, seq_len, seq_len] (after dropout) or None.

    Examples:
        >>> import oar
        >>> qkv = oar.ones([1, 4, 3, 2, 8])
        >>> out, sm = oar.nn.functional.flash_attn_qkvpacked(qkv, return_softmax=True)
        >>> list(out.shape), list(sm.shape)
        ([1, 4, 2, 8], [1, 2, 4, 4])
    """
    api = "flash_attn_qkvpacked"
    _float_tensor(api, "qkv", qkv, 5)
    b, s, groups, hk, d = qkv.shape
    if groups < 3:
        raise ValueError(f"{api}(): argument 'qkv' must have at least 3 entries on axis 2 "
                         f"(query groups, key, value), but has shape {qkv.shape}")
    p = _probability(api, "dropout", dropout)
    causal = _flag(api, "causal", causal)
    return_softmax = _flag(api, "return_softmax", return_softmax)
    training = _flag(api, "training", training)
    if not isinstance(rng_name, str):
        raise TypeError(f"{api}(): argument 'rng_name' must be str, but got "
                        f"{type(rng_name).__name__}")
    _require_math_backend(api)
    seed, offset = _seed_offset(api, fixed_seed_offset, p, training)
    g = groups - 2
    q = C.reshape_exact(_C.slice(qkv, [2], [0], [g]), [b, s, g * hk, d])
    k = _C.squeeze(_C.slice(qkv, [2], [g], [g + 1]), [2])
    v = _C.squeeze(_C.slice(qkv, [2], [g + 1], [g + 2]), [2])
    keep = _causal_keep(s, s)[None, None] if causal else None
    out, w, _ = _attend(_bshd_to_bhsd(q), _expand_kv(_bshd_to_bhsd(k), g),
                        _expand_kv(_bshd_to_bhsd(v), g), keep, _default_scale(d),
                        p if training else 0.0, seed, offset, want_probs=return_softmax)
    return _bshd_to_bhsd(out), w


# ---- the packed (varlen) layouts -----------------------------------------------------------

def _seqs(api, cu_name, cu, max_name, max_len, total, padded, used=None, used_name=None):
    """Start row and length of every sequence (and the used length)."""
    cu = _int_array(api, cu_name, cu)
    if cu.size < 1:
        raise ValueError(f"{api}(): argument '{cu_name}' must hold batch_size + 1 values, "
                         f"but is empty")
    m = C.integer(api, max_name, max_len)
    if m < 0:
        raise ValueError(f"{api}(): argument '{max_name}' must be >= 0, but got {m}")
    lens = np.diff(cu)
    if (lens < 0).any() or cu[0] < 0:
        raise ValueError(f"{api}(): argument '{cu_name}' must be non-negative and "
                         f"non-decreasing, but got {cu.tolist()}")
    if (lens > m).any():
        raise ValueError(f"{api}(): a sequence of argument '{cu_name}' is longer than "
                         f"{max_name}={m}: lengths {lens.tolist()}")
    starts = np.arange(lens.size) * m if padded else cu[:-1]
    if lens.size and (starts + lens).max() > total:
        raise ValueError(f"{api}(): argument '{cu_name}' ({cu.tolist()}) reaches past the "
                         f"{total} packed tokens" + (f" (sequence b starts at row b * {m})"
                                                     if padded else ""))
    use = lens
    if used is not None:
        use = _int_array(api, used_name, used)
        if use.shape != lens.shape or (use < 0).any() or (use > lens).any():
            raise ValueError(f"{api}(): argument '{used_name}' must hold one length per "
                             f"sequence, each at most its length {lens.tolist()}, but got "
                             f"{use.tolist()}")
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
        src[starts[bi]:starts[bi] + lens[bi]] = bi * m + np.arange(lens[bi])
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
        keep[bi, 0, :lq[bi], :lk[bi]] = band
    return keep


def _heads(api, hq, hk, what):
    if hk == 0 or hq % hk:
        raise ValueError(f"{api}(): the number of query heads ({hq}) must be a multiple of "
                         f"the number of {what} heads ({hk})")
    return hq // hk


def flash_attn_varlen_qkvpacked(qkv, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                                scale, dropout=0.0, causal=False, return_softmax=False,
                                fixed_seed_offset=None, rng_name="", varlen_padded=True,
                                training=True, name=None):
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
        raise ValueError(f"{api}(): argument 'qkv' must have at least 3 entries on axis 1 "
                         f"(query groups, key, value), but has shape {qkv.shape}")
    scale = float(C.number(api, "scale", scale))
    p = _probability(api, "dropout", dropout)
    causal = _flag(api, "causal", causal)
    return_softmax = _flag(api, "return_softmax", return_softmax)
    varlen_padded = _flag(api, "varlen_padded", varlen_padded)
    training = _flag(api, "training", training)
    sq, lq, _, mq = _seqs(api, "cu_seqlens_q", cu_seqlens_q, "max_seqlen_q", max_seqlen_q,
                          total, varlen_padded)
    sk, lk, _, mk = _seqs(api, "cu_seqlens_k", cu_seqlens_k, "max_seqlen_k", max_seqlen_k,
                          total, varlen_padded)
    if lq.size != lk.size:
        raise ValueError(f"{api}(): 'cu_seqlens_q' and 'cu_seqlens_k' must describe the same "
                         f"number of sequences, but have {lq.size + 1} and {lk.size + 1} values")
    seed, offset = _seed_offset(api, fixed_seed_offset, p, training)
    g = groups - 2
    q = C.reshape_exact(_C.slice(qkv, [1], [0], [g]), [total, g * hk, d])
    k = _C.squeeze(_C.slice(qkv, [1], [g], [g + 1]), [1])
    v = _C.squeeze(_C.slice(qkv, [1], [g + 1], [g + 2]), [1])
    qp = _bshd_to_bhsd(_gather_rows(q, sq, mq))
    kp = _expand_kv(_bshd_to_bhsd(_gather_rows(k, sk, mk)), g)
    vp = _expand_kv(_bshd_to_bhsd(_gather_rows(v, sk, mk)), g)
    keep = _varlen_keep(lq, lk, mq, mk, causal, (-1, -1))
    out, w, _ = _attend(qp, kp, vp, keep, scale, p if training else 0.0, seed, offset,
                        want_probs=return_softmax)
    return _scatter_rows(_bshd_to_bhsd(out), sq, lq, total), w


def _no_tensor(api, name, v, why):
    if v is not None:
        raise ValueError(f"{api}(): argument '{name}' must be None: {why}")


def flash_attention_v3_varlen(query, key, value, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                              max_seqlen_k, seqused_q=None, seqused_k=None, softmax_scale=None,
                              causal=False, qv=None, q_descale=None, k_descale=None,
                              v_descale=None, window_size=(-1, -1), softcap=0.0, num_splits=1,
                              pack_gqa=None, sm_margin=0):
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
    for n_, t_ in (("q_descale", q_descale), ("k_descale", k_descale),
                   ("v_descale", v_descale)):
        _no_tensor(api, n_, t_, "the FP8 path is not available in oar")
    tq, h, d = query.shape
    tk, hk, dk = key.shape
    if dk != d or value.shape[0] != tk or value.shape[1] != hk:
        raise ValueError(f"{api}(): incompatible shapes query {query.shape}, key {key.shape}, "
                         f"value {value.shape}: query and key share head_dim, key and value "
                         f"share tokens and heads")
    g = _heads(api, h, hk, "key/value")
    scale = _default_scale(d) if softmax_scale is None else \
        float(C.number(api, "softmax_scale", softmax_scale))
    causal = _flag(api, "causal", causal)
    if not isinstance(window_size, (tuple, list)) or len(window_size) != 2:
        raise TypeError(f"{api}(): argument 'window_size' must be a (left, right) pair, but "
                        f"got {window_size!r}")
    window = tuple(C.integer(api, "window_size", w) for w in window_size)
    softcap = float(C.number(api, "softcap", softcap))
    if softcap < 0:
        raise ValueError(f"{api}(): argument 'softcap' must be >= 0, but got {softcap}")
    C.integer(api, "num_splits", num_splits)
    C.integer(api, "sm_margin", sm_margin)
    sq, lq, uq, mq = _seqs(api, "cu_seqlens_q", cu_seqlens_q, "max_seqlen_q", max_seqlen_q,
                           tq, False, seqused_q, "seqused_q")
    sk, lk, uk, mk = _seqs(api, "cu_seqlens_k", cu_seqlens_k, "max_seqlen_k", max_seqlen_k,
                           tk, False, seqused_k, "seqused_k")
    if lq.size != lk.size:
        raise ValueError(f"{api}(): 'cu_seqlens_q' and 'cu_seqlens_k' must describe the same "
                         f"number of sequences, but have {lq.size + 1} and {lk.size + 1} values")
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
            rows[sq[bi]:sq[bi] + uq[bi]] = True
        lse_rows = _C.where(to_tensor(rows[:, None]), lse_rows,
                            _C.full_like(lse_rows, float("-inf")))
        lse = _C.transpose(lse_rows, [1, 0])
    return out, lse


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


def flashmask_attention(query, key, value, startend_row_indices=None, *, dropout=0.0,
                        causal=False, window_size=None, return_softmax_lse=False,
                        return_seed_offset=False, fixed_seed_offset=None, rng_name="",
                        training=True, name=None, softmax_scale=None, block_mask=None):
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
        raise ValueError(f"{api}(): incompatible shapes query {query.shape}, key {key.shape}, "
                         f"value {value.shape}")
    g = _heads(api, h, hk, "key/value")
    p = _probability(api, "dropout", dropout)
    causal = _flag(api, "causal", causal)
    training = _flag(api, "training", training)
    return_softmax_lse = _flag(api, "return_softmax_lse", return_softmax_lse)
    return_seed_offset = _flag(api, "return_seed_offset", return_seed_offset)
    scale = _default_scale(d) if softmax_scale is None else \
        float(C.number(api, "softmax_scale", softmax_scale))
    idx = None
    if window_size is not None:
        if startend_row_indices is not None:
            raise ValueError(f"{api}(): 'window_size' and 'startend_row_indices' cannot be "
                             f"used together")
        w = (window_size, window_size) if isinstance(window_size, numbers.Integral) \
            else tuple(window_size)
        if len(w) != 2:
            raise ValueError(f"{api}(): argument 'window_size' must be an int or a (left, "
                             f"right) pair, but got {window_size!r}")
        w = tuple(C.integer(api, "window_size", x) for x in w)
        lower = np.clip(np.arange(w[0] + 1, sq + w[0] + 1), None, sq)
        if causal:
            idx = lower[None, None, :, None]
        else:
            upper = np.clip(np.arange(-w[1], sq - w[1]), 0, sq)
            idx = np.stack([lower, upper], -1)[None, None]
        idx = np.repeat(idx, bsz, 0)
        if sq != sk:
            raise ValueError(f"{api}(): 'window_size' needs seq_len_q == seq_len_k, but got "
                             f"{sq} and {sk}")
    elif startend_row_indices is not None:
        idx = _int_array(api, "startend_row_indices", startend_row_indices, 4)
        if idx.shape[0] != bsz or idx.shape[2] != sk:
            raise ValueError(f"{api}(): argument 'startend_row_indices' must have shape "
                             f"[{bsz}, heads, {sk}, 1|2|4], but has {list(idx.shape)}")
        if idx.shape[1] not in (1, h, hk):
            raise ValueError(f"{api}(): the heads of 'startend_row_indices' ({idx.shape[1]}) "
                             f"must be 1, num_heads ({h}) or num_heads_k ({hk})")
        allowed = (1, 2) if causal else (2, 4)
        if idx.shape[3] not in allowed:
            raise ValueError(f"{api}(): with causal={causal} the last dimension of "
                             f"'startend_row_indices' must be {allowed[0]} or {allowed[1]}, "
                             f"but got {idx.shape[3]}")
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
                raise ValueError(f"{api}(): argument 'block_mask' must have shape {want}, but "
                                 f"has {list(bm.shape)}")
            blocks = np.repeat(np.repeat(bm != 0, 128, 2), 128, 3)[:, :, :sq, :sk]
            keep = keep & blocks
        if keep.shape[1] not in (1, h):  # one mask per key/value head: expand to queries
            keep = np.repeat(keep, g, 1)
    out, _, lse = _attend(_bshd_to_bhsd(query), _expand_kv(_bshd_to_bhsd(key), g),
                          _expand_kv(_bshd_to_bhsd(value), g), keep, scale,
                          p if training else 0.0, seed, offset,
                          empty_lse=float("inf") if return_softmax_lse else None)
    out = _bshd_to_bhsd(out)
    if not (return_softmax_lse or return_seed_offset):
        return out
    outputs = [out]
    if return_softmax_lse:
        outputs.append(lse)
    if return_seed_offset:
        outputs.append(to_tensor(np.array([seed, offset], np.int64)))
    return outputs


# ---- sparse_attention ----------------------------------------------------------------------

def sparse_attention(query, key, value, sparse_csr_offset, sparse_csr_columns,
                     key_padding_mask=None, attn_mask=None, name=None):
    """Attention restricted to a CSR pattern of (query, key) pairs per batch and head.

    Args:
        query (Tensor): [batch, num_heads, seq_len, head_dim].
        key (Tensor): [batch, num_heads, seq_len, head_dim].
        value (Tensor): [batch, num_heads, seq_len, head_dim].
        sparse_csr_offset (Tensor): int32 [batch, num_heads, seq_len + 1]: row i's entries
            are columns[offset[i]:offset[i + 1]].
        sparse_csr_columns (Tensor): int32 [batch, num_heads, nnz]: the key of each entry.
        key_padding_mask (Tensor|None, optional): [batch, seq_len]; 0 masks a key.
        attn_mask (Tensor|None, optional): [seq_len, seq_len]; 0 masks a (query, key) pair.
        name (str|None, optional): Unused.

    Returns:
        Tensor: [batch, num_heads, seq_len, head_dim]; a row without entries gives 0, a row
        whose entries are all masked gives NaN (as the CUDA kernel).

    Examples:
        >>> import oar
        >>> q = oar.ones([1, 1, 4, 2])
        >>> offset = oar.to_tensor([[[0, 2, 4, 6, 8]]], dtype="int32")
        >>> columns = oar.to_tensor([[[0, 1, 0, 1, 2, 3, 2, 3]]], dtype="int32")
        >>> list(oar.nn.functional.sparse_attention(q, q, q, offset, columns).shape)
        [1, 1, 4, 2]
    """
    api = "sparse_attention"
    _float_tensor(api, "query", query, 4)
    _float_tensor(api, "key", key, 4)
    _float_tensor(api, "value", value, 4)
    if not query.shape == key.shape == value.shape:
        raise ValueError(f"{api}(): 'query', 'key' and 'value' must have the same shape, but "
                         f"got {query.shape}, {key.shape}, {value.shape}")
    bsz, h, s, d = query.shape
    off = _int_array(api, "sparse_csr_offset", sparse_csr_offset, 3)
    cols = _int_array(api, "sparse_csr_columns", sparse_csr_columns, 3)
    if list(off.shape) != [bsz, h, s + 1]:
        raise ValueError(f"{api}(): argument 'sparse_csr_offset' must have shape "
                         f"[{bsz}, {h}, {s + 1}], but has {list(off.shape)}")
    if list(cols.shape[:2]) != [bsz, h]:
        raise ValueError(f"{api}(): argument 'sparse_csr_columns' must have shape "
                         f"[{bsz}, {h}, nnz], but has {list(cols.shape)}")
    nnz = cols.shape[2]
    if (np.diff(off, axis=-1) < 0).any() or (off < 0).any() or (off > nnz).any():
        raise ValueError(f"{api}(): argument 'sparse_csr_offset' must be non-decreasing "
                         f"offsets within [0, {nnz}]")
    counts = np.zeros((bsz, h, s, s), np.float64)
    for bi in range(bsz):
        for hi in range(h):
            row_of = np.repeat(np.arange(s), np.diff(off[bi, hi]))
            c = cols[bi, hi, off[bi, hi, 0]:off[bi, hi, -1]]
            if c.size and (c.min() < 0 or c.max() >= s):
                raise ValueError(f"{api}(): argument 'sparse_csr_columns' must be in "
                                 f"[0, {s}), but holds {int(c.min())}..{int(c.max())}")
            np.add.at(counts[bi, hi], (row_of, c), 1.0)
    # a pair listed n times counts n times in the softmax and in the sum, as in CSR
    bias = np.where(counts > 0, np.log(np.maximum(counts, 1.0)), -np.inf)
    masked = np.zeros((bsz, 1, s, s), bool)
    for nm, m, shape in (("key_padding_mask", key_padding_mask, [bsz, s]),
                         ("attn_mask", attn_mask, [s, s])):
        if m is None:
            continue
        _float_tensor(api, nm, m, 2)
        if list(m.shape) != shape:
            raise ValueError(f"{api}(): argument '{nm}' must have shape {shape}, but has "
                             f"{m.shape}")
        mv = np.abs(m.astype("float64").numpy()) < np.finfo(np.dtype(
            "float64" if m.dtype.name == "float64" else "float32")).eps
        masked |= mv[:, None, None, :] if nm == "key_padding_mask" else mv[None, None]
    has_entries = counts.any(axis=-1, keepdims=True)
    # a masked entry takes part as exp(-inf) = 0: all masked -> 0/0 = NaN, as the kernel
    bias = np.where(masked & (counts > 0), -np.inf, bias)
    sc = _C.scale(_C.matmul(query, key, False, True), _default_scale(d))
    sc = sc + _C.cast(to_tensor(np.where(has_entries, bias, 0.0)), sc.dtype)
    w = _C.softmax(sc, -1) * _C.cast(to_tensor(has_entries), sc.dtype)
    return _C.matmul(w, value)
