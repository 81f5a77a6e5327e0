"""Argument checks of fused_multi_transformer: the per-layer parameter lists, their
shapes, the caches and the decoding step, with typed errors naming the function and
the argument."""

from __future__ import annotations

from .... import _C
from ....framework.check import _kind, integer
from . import _common as c

API = "fused_multi_transformer"


def per_layer(arg, v, n, optional):
    """v as a list of n Tensors (None entries, or None for all, when optional)."""
    if v is None and optional:
        return [None] * n
    if not isinstance(v, (list, tuple)):
        raise TypeError(
            f"{API}(): argument '{arg}' must be a list or tuple of Tensors (one "
            f"per layer), but got {_kind(v)}"
        )
    if len(v) != n:
        raise ValueError(
            f"{API}(): argument '{arg}' has {len(v)} entries, but qkv_weights has "
            f"{n} (one per layer)"
        )
    for i, t in enumerate(v):
        if t is not None or not optional:
            c.float_tensor(API, f"{arg}[{i}]", t)
    return list(v)


def shapes(arg, ts, shape_of):
    for i, t in enumerate(ts):
        if t is not None:
            c.shape_is(API, f"{arg}[{i}]", t, shape_of(i))


def choice(arg, v, options):
    if v not in options:
        raise ValueError(
            f"{API}(): argument '{arg}' must be one of {', '.join(options)}, but got {v!r}"
        )
    return v


def lengths(seq_lens, bsz, limit):
    """seq_lens as a list of ints in [0, limit], or None."""
    if seq_lens is None:
        return None
    c.tensor(API, "seq_lens", seq_lens)
    if seq_lens.dtype.is_floating_point or seq_lens.dtype.name == "bool":
        raise TypeError(
            f"{API}(): argument 'seq_lens' must be an integer Tensor, but got dtype "
            f"{seq_lens.dtype.name}"
        )
    v = seq_lens.numpy().reshape(-1)
    if v.size != bsz or (v < 0).any() or (v > limit).any():
        raise ValueError(
            f"{API}(): 'seq_lens' must hold {bsz} lengths in [0, {limit}], but is {v.tolist()}"
        )
    return [int(n) for n in v]


def caches(arg, v, n, x, kvh, hd):
    caches = per_layer(arg, v, n, False)
    for i, t in enumerate(caches):
        s = list(t.shape)
        if len(s) != 5 or s[0] != 2 or s[1] != x.shape[0] or s[2] != kvh or s[4] != hd:
            raise ValueError(
                f"{API}(): {arg}[{i}] must be [2, batch_size, kv_heads, length, "
                f"head_dim] = [2, {x.shape[0]}, {kvh}, *, {hd}], but has shape {s}"
            )
        if t.dtype != x.dtype:
            raise TypeError(
                f"{API}(): {arg}[{i}] ({t.dtype.name}) must have x's dtype ({x.dtype.name})"
            )
    return caches


def check_shapes(params, e, nh, kvh, hd, act):
    width = (nh + 2 * kvh) * hd
    for arg in (
        "ln_scales",
        "ln_biases",
        "ffn_ln_scales",
        "ffn_ln_biases",
        "linear_biases",
        "ffn2_biases",
    ):
        shapes(arg, params[arg], lambda i: [e])
    shapes("qkv_weights", params["qkv_weights"], lambda i: list(params["qkv_weights"][0].shape))
    shapes("linear_weights", params["linear_weights"], lambda i: [nh * hd, e])
    structured = (
        [3, nh, hd] if kvh == nh and params["qkv_weights"][0].ndim == 4 else [nh + 2 * kvh, hd]
    )
    for i, b in enumerate(params["qkv_biases"]):
        if b is not None and list(b.shape) not in (structured, [width]):
            raise ValueError(
                f"{API}(): qkv_biases[{i}] must have shape {structured} (or "
                f"[{width}]), but got {list(b.shape)}"
            )
    for i, w in enumerate(params["ffn1_weights"]):
        if w.ndim != 2 or w.shape[0] != e or ("glu" in act and w.shape[1] % 2):
            raise ValueError(
                f"{API}(): ffn1_weights[{i}] must be [embed_dim, dim_ffn] with "
                f"embed_dim {e}{' and an even dim_ffn' if 'glu' in act else ''}, "
                f"but has shape {list(w.shape)}"
            )
        dff = w.shape[1]
        shapes("ffn1_biases", [params["ffn1_biases"][i]], lambda _: [dff])
        c.shape_is(
            API,
            f"ffn2_weights[{i}]",
            params["ffn2_weights"][i],
            [dff // 2 if "glu" in act else dff, e],
        )


def decode_steps(time_step, seq_lens, caches, s, bsz):
    """Each batch's time step, and (with seq_lens) 1 for a running sequence, 0 for a
    finished one."""
    if caches is None:
        raise ValueError(f"{API}(): 'time_step' (the decoding stage) needs 'cache_kvs'")
    if s != 1:
        raise ValueError(
            f"{API}(): in the decoding stage (time_step given) seq_len must be 1, "
            f"but x has {s} tokens"
        )
    if isinstance(time_step, _C.Tensor) and time_step.size != 1:
        raise ValueError(
            f"{API}(): 'time_step' must hold one integer, but has shape {list(time_step.shape)}"
        )
    t = integer(API, "time_step", time_step)
    if t < 1:
        raise ValueError(f"{API}(): 'time_step' must be >= 1, but got {t}")
    steps = [t] * bsz if seq_lens is None else lengths(seq_lens, bsz, 1 << 62)
    if max(steps) >= caches[0].shape[3]:
        raise ValueError(
            f"{API}(): time step {max(steps)} is past the {caches[0].shape[3]} "
            f"positions of cache_kvs"
        )
    return steps, (None if seq_lens is None else [int(k > 0) for k in steps])
