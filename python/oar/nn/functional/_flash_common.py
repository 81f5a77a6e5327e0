"""The pieces the CPU versions of Paddle's FlashAttention kernels share (argument
checks, dropout keyed by (seed, offset), masks, the attention itself), and
flash_attn_qkvpacked; the conventions are in _flash_variants.py."""

import math

import numpy as np

from ... import _C
from ...framework import check as C
from ...tensor.random import randint
from ...tensor.creation import to_tensor
from ...framework.grad_mode import no_grad
from .flash_attention import _require_math_backend

_FLOATS = ("float16", "bfloat16", "float32", "float64")


# ---- shared pieces --------------------------------------------------------------------------


def _float_tensor(api, name, t, ndim):
    C.tensor(api, name, t)
    if t.dtype.name not in _FLOATS:
        raise TypeError(
            f"{api}(): argument '{name}' must be a float16, bfloat16, float32 or "
            f"float64 Tensor, but got {t.dtype.name}"
        )
    if t.ndim != ndim:
        raise ValueError(f"{api}(): argument '{name}' must be {ndim}-D, but has shape {t.shape}")
    return t


def _int_array(api, name, t, ndim=1):
    C.tensor(api, name, t)
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument '{name}' must be an int32 Tensor, but got {t.dtype.name}"
        )
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
            raise ValueError(
                f"{api}(): argument 'fixed_seed_offset' must hold 2 values "
                f"(seed, offset), but has {pair.size}"
            )
        return int(pair[0]), int(pair[1])
    if p > 0.0 and training:
        return int(randint(0, 2**31 - 1, [1]).item()), 0
    return 0, 0


def _dropout_keep(shape, p, seed, offset):
    rng = np.random.Generator(
        np.random.Philox(key=seed & (2**64 - 1), counter=offset & (2**64 - 1))
    )
    return rng.random(shape, dtype=np.float32) >= p


def _expand_kv(t, groups):
    """[B, Hk, L, D] -> [B, Hk * groups, L, D], query head h reading head h // groups."""
    if groups == 1:
        return t
    heads = np.repeat(np.arange(t.shape[1], dtype=np.int64), groups)
    return _C.index_select(t, to_tensor(heads), 1)


def _attend(
    q, k, v, keep, scale, p=0.0, seed=0, offset=0, softcap=0.0, empty_lse=None, want_probs=False
):
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


def _heads(api, hq, hk, what):
    if hk == 0 or hq % hk:
        raise ValueError(
            f"{api}(): the number of query heads ({hq}) must be a multiple of "
            f"the number of {what} heads ({hk})"
        )
    return hq // hk


# ---- flash_attn_qkvpacked -------------------------------------------------------------------


def flash_attn_qkvpacked(
    qkv,
    dropout=0.0,
    causal=False,
    return_softmax=False,
    *,
    fixed_seed_offset=None,
    rng_name="",
    training=True,
    name=None,
):
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
        raise ValueError(
            f"{api}(): argument 'qkv' must have at least 3 entries on axis 2 "
            f"(query groups, key, value), but has shape {qkv.shape}"
        )
    p = _probability(api, "dropout", dropout)
    causal = _flag(api, "causal", causal)
    return_softmax = _flag(api, "return_softmax", return_softmax)
    training = _flag(api, "training", training)
    if not isinstance(rng_name, str):
        raise TypeError(
            f"{api}(): argument 'rng_name' must be str, but got {type(rng_name).__name__}"
        )
    _require_math_backend(api)
    seed, offset = _seed_offset(api, fixed_seed_offset, p, training)
    g = groups - 2
    q = C.reshape_exact(_C.slice(qkv, [2], [0], [g]), [b, s, g * hk, d])
    k = _C.squeeze(_C.slice(qkv, [2], [g], [g + 1]), [2])
    v = _C.squeeze(_C.slice(qkv, [2], [g + 1], [g + 2]), [2])
    keep = _causal_keep(s, s)[None, None] if causal else None
    out, w, _ = _attend(
        _bshd_to_bhsd(q),
        _expand_kv(_bshd_to_bhsd(k), g),
        _expand_kv(_bshd_to_bhsd(v), g),
        keep,
        _default_scale(d),
        p if training else 0.0,
        seed,
        offset,
        want_probs=return_softmax,
    )
    return _bshd_to_bhsd(out), w
