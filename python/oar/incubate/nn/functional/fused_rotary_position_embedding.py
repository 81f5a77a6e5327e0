"""fused_rotary_position_embedding: rotary position embedding (RoPE) of q, k and v,
with Paddle's two pairings, given or computed sin/cos tables and per-token position ids.
Composed from oar ops, so the gradients of q/k/v (and of given sin/cos) flow."""

from __future__ import annotations

import numbers

import numpy as np

from .... import _C
from ....framework.typing import Tensor
from ....tensor.creation import to_tensor
from . import _common as c

__all__ = ["fused_rotary_position_embedding"]
API = "fused_rotary_position_embedding"


def _rotate(t, neox):
    """The partner of every element with the sign of the rotation: adjacent pairs
    (x0, x1) -> (-x1, x0) for neox style, halves (a, b) -> (-b, a) otherwise."""
    d, last = t.shape[-1], t.ndim - 1
    if neox:
        pairs = _C.reshape(t, list(t.shape[:-1]) + [d // 2, 2])
        even = _C.slice(pairs, [last + 1], [0], [1])
        odd = _C.slice(pairs, [last + 1], [1], [2])
        return _C.reshape(_C.concat([-odd, even], last + 1), list(t.shape))
    first = _C.slice(t, [last], [0], [d // 2])
    second = _C.slice(t, [last], [d // 2], [d])
    return _C.concat([-second, first], last)


def _computed_table(seq_len, head_dim, base, dtype):
    """sin/cos [seq_len, head_dim] of position * base ** (-2 * (i // 2) / head_dim),
    Paddle's table for adjacent pairs."""
    pair = (np.arange(head_dim) // 2) * 2
    freq = np.arange(seq_len)[:, None] * base ** (-pair[None, :] / head_dim)
    return to_tensor(np.sin(freq), dtype=dtype), to_tensor(np.cos(freq), dtype=dtype)


def _given_table(sin, cos, q, seq_len, head_dim, with_ids):
    """The [rows, head_dim] tables from [rows, head_dim] or [1, rows, 1, head_dim]."""
    for arg, t in (("sin", sin), ("cos", cos)):
        c.float_tensor(API, arg, t)
    if list(sin.shape) != list(cos.shape):
        raise ValueError(
            f"{API}(): 'sin' {list(sin.shape)} and 'cos' {list(cos.shape)} must have the same shape"
        )
    shape = list(sin.shape)
    if len(shape) not in (2, 4) or (len(shape) == 4 and (shape[0] != 1 or shape[2] != 1)):
        raise ValueError(
            f"{API}(): 'sin' and 'cos' must be [seq_len, head_dim] or [1, "
            f"seq_len, 1, head_dim], but have shape {shape}"
        )
    rows = shape[1] if len(shape) == 4 else shape[0]
    if shape[-1] != head_dim or (rows < seq_len if with_ids else rows != seq_len):
        need = "at least " if with_ids else ""
        raise ValueError(
            f"{API}(): 'sin' and 'cos' must have {need}{seq_len} positions and "
            f"head_dim {head_dim} (q's), but have shape {shape}"
        )
    return (
        _C.reshape(c.like(sin, q), [rows, head_dim]),
        _C.reshape(c.like(cos, q), [rows, head_dim]),
    )


def _by_position(table, position_ids, batch, seq_len):
    """table rows picked per token: [batch, seq_len, head_dim]."""
    c.tensor(API, "position_ids", position_ids)
    if position_ids.dtype.is_floating_point or position_ids.dtype.name == "bool":
        raise TypeError(
            f"{API}(): argument 'position_ids' must be an integer Tensor, but got "
            f"dtype {position_ids.dtype.name}"
        )
    c.shape_is(API, "position_ids", position_ids, [batch, seq_len])
    ids = position_ids.numpy()
    if ids.size and (ids.min() < 0 or ids.max() >= table.shape[0]):
        raise ValueError(
            f"{API}(): 'position_ids' must be in [0, {table.shape[0]}) (the rows "
            f"of sin/cos), but range over [{ids.min()}, {ids.max()}]"
        )
    flat = _C.reshape(_C.cast(position_ids, "int64"), [batch * seq_len])
    return _C.reshape(_C.gather(table, flat, 0), [batch, seq_len, table.shape[1]])


def _check_qkv(arg, t, q, time_major):
    c.float_tensor(API, arg, t)
    if t.ndim != 4:
        raise ValueError(
            f"{API}(): argument '{arg}' must be 4-D [batch_size, seq_len, "
            f"num_heads, head_dim] ([seq_len, batch_size, ...] when time_major), "
            f"but has shape {list(t.shape)}"
        )
    if q is not None and (
        t.shape[0] != q.shape[0] or t.shape[1] != q.shape[1] or t.shape[3] != q.shape[3]
    ):
        layout = "seq_len, batch_size" if time_major else "batch_size, seq_len"
        raise ValueError(
            f"{API}(): argument '{arg}' {list(t.shape)} must match q "
            f"{list(q.shape)} in {layout} and head_dim"
        )


def fused_rotary_position_embedding(
    q: Tensor,
    k: Tensor | None = None,
    v: Tensor | None = None,
    sin: Tensor | None = None,
    cos: Tensor | None = None,
    position_ids: Tensor | None = None,
    use_neox_rotary_style: bool = True,
    time_major: bool = False,
    rotary_emb_base: float = 10000.0,
) -> tuple[Tensor, Tensor | None, Tensor | None]:
    """Rotate q, k and v by their positions: out = t * cos + rotate(t) * sin.

    Args:
        q (Tensor): [batch_size, seq_len, num_heads, head_dim] ([seq_len, batch_size,
            num_heads, head_dim] when time_major), floating point, head_dim even.
        k (Tensor|None, optional): Like q; num_heads may differ. Default: None.
        v (Tensor|None, optional): Like q; num_heads may differ. Default: None.
        sin (Tensor|None, optional): [seq_len, head_dim] or [1, seq_len, 1, head_dim]
            (at least seq_len rows with position_ids). None (with cos None): computed,
            sin(p * rotary_emb_base ** (-2 * (i // 2) / head_dim)) for position p and
            channel i. Default: None.
        cos (Tensor|None, optional): Like sin. Default: None.
        position_ids (Tensor|None, optional): Integer [batch_size, seq_len]: the row of
            sin/cos each token uses (only with given sin/cos). Default: None.
        use_neox_rotary_style (bool, optional): True: rotate adjacent pairs (x[2i],
            x[2i+1]); False: rotate the first half with the second (rotate_half).
            Computed tables need True. Default: True.
        time_major (bool, optional): The first axis is seq_len. Default: False.
        rotary_emb_base (float, optional): The base of the computed frequencies.
            Default: 10000.0.

    Returns:
        tuple: (out_q, out_k, out_v), each the shape and dtype of its input, None for an
        input not given.

    Raises:
        TypeError: a non-Tensor or non-floating q/k/v/sin/cos, non-integer position_ids.
        ValueError: q/k/v not 4-D or not matching, an odd head_dim, sin/cos of the wrong
            shape or only one of them, position_ids without sin/cos or out of range,
            computed tables with use_neox_rotary_style=False.
    """
    _check_qkv("q", q, None, time_major)
    for arg, t in (("k", k), ("v", v)):
        if t is not None:
            _check_qkv(arg, t, q, time_major)
    neox = c.flag(API, "use_neox_rotary_style", use_neox_rotary_style)
    time_major = c.flag(API, "time_major", time_major)
    seq_len, batch = (q.shape[0], q.shape[1]) if time_major else (q.shape[1], q.shape[0])
    head_dim = q.shape[3]
    if head_dim % 2:
        raise ValueError(
            f"{API}(): head_dim (the last dimension of q) must be even, but got {head_dim}"
        )
    if (sin is None) != (cos is None):
        raise ValueError(f"{API}(): 'sin' and 'cos' must be given together")
    if sin is None:
        if position_ids is not None:
            raise ValueError(f"{API}(): 'position_ids' needs 'sin' and 'cos'")
        if not neox:
            raise ValueError(
                f"{API}(): computed sin/cos (none given) need use_neox_rotary_style=True"
            )
        if isinstance(rotary_emb_base, bool) or not isinstance(rotary_emb_base, numbers.Real):
            raise TypeError(
                f"{API}(): argument 'rotary_emb_base' must be a number, but got "
                f"{type(rotary_emb_base).__name__}"
            )
        sin_t, cos_t = _computed_table(seq_len, head_dim, float(rotary_emb_base), q.dtype)
    else:
        sin_t, cos_t = _given_table(sin, cos, q, seq_len, head_dim, position_ids is not None)
    if position_ids is not None:
        sin_t = _by_position(sin_t, position_ids, batch, seq_len)
        cos_t = _by_position(cos_t, position_ids, batch, seq_len)
        if time_major:
            sin_t, cos_t = (_C.transpose(t, [1, 0, 2]) for t in (sin_t, cos_t))
        # [seq, batch] or [batch, seq] leading, one table row for every head
        sin_t, cos_t = (_C.unsqueeze(t, [2]) for t in (sin_t, cos_t))
    else:
        shape = [seq_len, 1, 1, head_dim] if time_major else [1, seq_len, 1, head_dim]
        sin_t, cos_t = (_C.reshape(t, shape) for t in (sin_t, cos_t))
    return tuple(None if t is None else t * cos_t + _rotate(t, neox) * sin_t for t in (q, k, v))
