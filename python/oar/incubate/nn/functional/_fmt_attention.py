"""The attention of fused_multi_transformer: the qkv projection in Paddle's two weight
layouts (with grouped-query heads), rotary embeddings, the key/value cache of
incremental decoding and masked scaled-dot-product attention, composed from oar ops."""

from __future__ import annotations

import numpy as np

from .... import _C
from ....tensor.creation import to_tensor
from . import _common as c
from .fused_attention import _mask
from .fused_rotary_position_embedding import _rotate

API = "fused_multi_transformer"
NEG = -1e9  # oar's additive value for a masked position (nn.Transformer's)


def heads(w, gqa, trans, e):
    """(num_heads, kv_heads, head_dim) read off a qkv weight's shape."""
    s = list(w.shape)
    if gqa > 0:
        ok = len(s) == 3 and (s[2] if trans else s[0]) == e
        n = (s[0] if trans else s[1]) - 2 * gqa if ok else 0
        if not ok or n <= 0 or n % gqa:
            want = (
                "[num_heads + 2 * gqa_group_size, head_dim, embed_dim]"
                if trans
                else "[embed_dim, num_heads + 2 * gqa_group_size, head_dim]"
            )
            raise ValueError(
                f"{API}(): with gqa_group_size={gqa}, qkv_weights[0] must be {want}"
                f" with embed_dim {e} and num_heads a multiple of gqa_group_size, "
                f"but has shape {s}"
            )
        return n, gqa, s[1] if trans else s[2]
    if len(s) == 4 and trans and s[0] == 3 and s[3] == e:
        return s[1], s[1], s[2]
    if len(s) == 4 and not trans and s[0] == e and s[1] == 3:
        return s[2], s[2], s[3]
    want = "[3, num_heads, head_dim, embed_dim]" if trans else "[embed_dim, 3, num_heads, head_dim]"
    raise ValueError(
        f"{API}(): qkv_weights[0] must be {want} with embed_dim {e} "
        f"(trans_qkvw={trans}), but has shape {s}"
    )


def project(x, w, b, trans, nh, kvh, hd):
    """q [B, nh, S, hd] and k, v [B, kvh, S, hd]: the weight's head axis lists the
    query heads, then the key heads, then the value heads."""
    bsz, s, e = x.shape
    width = (nh + 2 * kvh) * hd
    w = c.like(w, x)
    w = _C.transpose(_C.reshape(w, [width, e]), [1, 0]) if trans else _C.reshape(w, [e, width])
    b = None if b is None else _C.reshape(c.like(b, x), [width])
    out = _C.reshape(c.linear(x, w, b), [bsz, s, nh + 2 * kvh, hd])
    out = _C.transpose(out, [0, 2, 1, 3])
    cut = [0, nh, nh + kvh, nh + 2 * kvh]
    return tuple(_C.slice(out, [1], [cut[i]], [cut[i + 1]]) for i in range(3))


def rotary_tables(rotary_embs, x, s, hd, dims, neox):
    """cos, sin [B or 1, 1, S, hd] from rotary_embs [2, B or 1, 1, S, hd]."""
    c.float_tensor(API, "rotary_embs", rotary_embs)
    r = list(rotary_embs.shape)
    if len(r) != 5 or r[0] != 2 or r[1] not in (1, x.shape[0]) or r[2:] != [1, s, hd]:
        raise ValueError(
            f"{API}(): 'rotary_embs' must be [2, batch_size, 1, seq_len, head_dim]"
            f" = [2, {x.shape[0]}, 1, {s}, {hd}], but has shape {r}"
        )
    if hd % (2 * dims if neox else 2):
        raise ValueError(
            f"{API}(): head_dim {hd} must split into rotary_emb_dims ({dims}) even parts"
        )
    t = c.like(rotary_embs, x)
    return tuple(_C.reshape(_C.slice(t, [0], [i], [i + 1]), r[1:]) for i in range(2))


def rotate(t, cos, sin, dims, neox):
    """t * cos + rotate(t) * sin. Not neox: adjacent pairs (x[2i], x[2i+1]); neox:
    the two halves of each of the rotary_emb_dims parts of head_dim."""
    if neox:
        shape = list(t.shape)
        parts = _C.reshape(t, shape[:-1] + [dims, shape[-1] // dims])
        r = _C.reshape(_rotate(parts, False), shape)
    else:
        r = _rotate(t, True)
    return t * cos + r * sin


def user_mask(attn_mask, shape, ref):
    """attn_mask as an additive mask broadcasting to shape [B, H, S, K]; a longer last
    axis (a decode mask sized for the whole cache) is cut to K."""
    c.tensor(API, "attn_mask", attn_mask)
    m = attn_mask
    if m.ndim == 4 and m.shape[3] > shape[3]:
        m = _C.slice(m, [3], [0], [shape[3]])
    return _mask(API, m, shape, ref)


def additive(keep, ref):
    """A [B, S, K] keep-mask as a [B, 1, S, K] additive one: 0 (keep) / NEG."""
    return to_tensor(np.where(keep, 0.0, NEG)[:, None], dtype=ref.dtype)


def attend(q, k, v, mask, p, training, mode):
    """softmax(q k^T / sqrt(hd) + mask) v, the kv heads shared by groups of query
    heads; [B, S, nh * hd]."""
    bsz, nh, s, hd = q.shape
    kvh, kl = k.shape[1], k.shape[2]
    if kvh != nh:
        k, v = (
            _C.reshape(
                _C.expand(_C.unsqueeze(t, [2]), [bsz, kvh, nh // kvh, kl, hd]), [bsz, nh, kl, hd]
            )
            for t in (k, v)
        )
    scores = _C.matmul(_C.scale(q, hd**-0.5), k, False, True)
    if mask is not None:
        scores = scores + mask
    weights = c.dropout(_C.softmax(scores, -1), p, training, mode)
    return _C.reshape(_C.transpose(_C.matmul(weights, v), [0, 2, 1, 3]), [bsz, s, nh * hd])


def write_cache(cache, k, v, starts, lengths):
    """Stores k, v [B, kvh, n, hd] of batch b at positions starts[b] .. + lengths[b]
    of the cache [2, B, kvh, max_len, hd], in place (the cache holds values, not
    gradients)."""
    k, v = c.like(k, cache).detach(), c.like(v, cache).detach()
    for b, (p0, n) in enumerate(zip(starts, lengths)):
        if n:
            cache[0, b, :, p0 : p0 + n, :] = k[b, :, :n, :]
            cache[1, b, :, p0 : p0 + n, :] = v[b, :, :n, :]


def decode_keys(cache, k, v, steps):
    """Keys and values for a decode step: the cache up to the longest step, with each
    batch's current k, v at its own step (taken from k, v so gradients reach them)."""
    bsz, last = k.shape[0], max(steps) + 1
    past = [
        _C.slice(
            _C.reshape(_C.slice(cache, [0], [i], [i + 1]), list(cache.shape[1:])), [2], [0], [last]
        ).detach()
        for i in range(2)
    ]
    sel = np.zeros((bsz, 1, last, 1))
    sel[np.arange(bsz), 0, steps, 0] = 1.0
    sel = to_tensor(sel, dtype=k.dtype)
    return tuple(p * (1.0 - sel) + c.like(t, p) * sel for p, t in zip(past, (k, v)))


def decode_mask(steps):
    """[B, 1, K] keep-mask (one query row): position j is visible to batch b iff
    j <= steps[b]; None when every batch is at the same step (nothing to hide)."""
    if len(set(steps)) == 1:
        return None
    j = np.arange(max(steps) + 1)
    return (j[None, :] <= np.asarray(steps)[:, None])[:, None, :]


def context_mask(lengths, bsz, s, plen, causal):
    """[B, S, K] keep-mask: causal (unless a mask is given), and no padded key; None
    when nothing is hidden."""
    if not causal and lengths is None:
        return None
    i, j = np.arange(s)[:, None], np.arange(plen + s)[None, :]
    keep = np.broadcast_to(
        j <= plen + i if causal else np.ones_like(j, bool), (bsz, s, plen + s)
    ).copy()
    if lengths is not None:
        keep &= j < plen + np.asarray(lengths)[:, None, None]
    return keep
