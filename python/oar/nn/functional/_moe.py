"""moe_permute / moe_unpermute: Paddle's Mixture-of-Experts token (un)permutation,
composed from gathers so gradients reach the tokens and the probabilities.

The routing maps are integers and decide only where rows go, so the row indices are
worked out in numpy; the data itself moves through oar ops (concat + gather), which is
what carries the gradient.
"""

from __future__ import annotations

import numbers

import numpy as np


from ...framework import check as _check
from ... import _C
from ...framework.typing import Tensor
from ...tensor.creation import to_tensor
from ...tensor.creation import zeros
from ...tensor.manipulation import gather

__all__ = ["moe_permute", "moe_unpermute"]

_INT_DTYPES = ("int32", "int64")


def _int_tensor(api, arg, v, ndim):
    _check.tensor(api, arg, v)
    if v.dtype.name not in _INT_DTYPES:
        raise TypeError(
            f"{api}(): argument '{arg}' must be an int32 or int64 Tensor, but got "
            f"dtype {v.dtype.name}"
        )
    if v.ndim != ndim:
        raise ValueError(
            f"{api}(): argument '{arg}' must be {ndim}-D, but has shape {list(v.shape)}"
        )
    return v.numpy().astype(np.int64)


def _float_tensor(api, arg, v, ndim=None):
    _check.tensor(api, arg, v)
    if not v.dtype.is_floating_point:
        raise TypeError(
            f"{api}(): argument '{arg}' must be a floating-point Tensor, but got "
            f"dtype {v.dtype.name}"
        )
    if ndim is not None and v.ndim != ndim:
        raise ValueError(
            f"{api}(): argument '{arg}' must be {ndim}-D, but has shape {list(v.shape)}"
        )
    return v


def _flag(api, arg, v):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{api}(): argument '{arg}' must be a bool, but got {_check._kind(v)}")
    return bool(v)


def _positive(api, arg, v, minimum=1):
    v = _check.integer(api, arg, v)
    if v < minimum:
        raise ValueError(f"{api}(): argument '{arg}' must be >= {minimum}, but got {v}")
    return v


def _rows_with_zero(t):
    """t with one zero row appended: padding rows gather it, so they are zero in the
    forward pass and send no gradient anywhere."""
    zero = zeros([1] + list(t.shape[1:]), dtype=t.dtype)
    return _C.concat([t, zero], axis=0)


def _idx(a):
    return to_tensor(np.ascontiguousarray(a, dtype=np.int64))


def moe_permute(
    hidden_states: Tensor,
    scale: Tensor | None,
    expert_routemap_topk: Tensor,
    expert_prob_topk: Tensor,
    num_experts: int,
    tokens_per_expert: list[int] | tuple[int, ...],
    padding_alignment: int,
    do_gather: bool = True,
    using_ue8m0_scale: bool = False,
    return_expert_indices: bool = False,
    override_buffer_size: int = -1,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor] | tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """Group the tokens by expert: each token is copied once per expert it is routed to.

    Expert e owns the rows [offset_e, offset_e + tokens_per_expert[e]) of the output,
    with offset_e the sum of the earlier experts' counts each rounded up to a multiple of
    padding_alignment; inside that block the tokens keep their order. Rows that only
    pad a block are zero (token and probability) and have expert index -1.

    Args:
        hidden_states (Tensor): [seq, dim], floating point.
        scale (Tensor|None): [seq, cols] per-token scales, copied with the tokens.
        expert_routemap_topk (Tensor): [seq, topk] int32/int64, expert ids or -1.
        expert_prob_topk (Tensor): [seq, topk] routing probabilities.
        num_experts (int): the number of experts.
        tokens_per_expert (list[int]): how many tokens each expert receives (must equal
            the counts in expert_routemap_topk).
        padding_alignment (int): block sizes are rounded up to a multiple of this.
        do_gather (bool, optional): False leaves the token rows zero. Default: True.
        using_ue8m0_scale (bool, optional): scale holds packed int32 values (it is only
            copied). Default: False.
        return_expert_indices (bool, optional): also return the expert of each output
            row (int32, -1 for padding). Default: False.
        override_buffer_size (int, optional): >= 0: the number of output rows (at least
            the padded total; the extra rows are padding). Default: -1.
        name (str|None, optional): Unused, for Paddle compatibility.

    Returns:
        tuple: (hidden_states_unzipped [rows, dim], zipped_expertwise_rowmap [seq,
        num_experts] int32 (the output row of each (token, expert), -1 if none),
        token_prob_unzipped [rows] float32, scale_unzipped [rows, cols] (float32
        [rows, 0] without scale)) and, with return_expert_indices, expert_indices [rows].
    """
    api = "moe_permute"
    _float_tensor(api, "hidden_states", hidden_states, 2)
    routemap = _int_tensor(api, "expert_routemap_topk", expert_routemap_topk, 2)
    _float_tensor(api, "expert_prob_topk", expert_prob_topk, 2)
    num_experts = _positive(api, "num_experts", num_experts)
    padding_alignment = _positive(api, "padding_alignment", padding_alignment)
    do_gather = _flag(api, "do_gather", do_gather)
    using_ue8m0_scale = _flag(api, "using_ue8m0_scale", using_ue8m0_scale)
    return_expert_indices = _flag(api, "return_expert_indices", return_expert_indices)
    override_buffer_size = _check.integer(api, "override_buffer_size", override_buffer_size)
    seq, topk = routemap.shape
    if hidden_states.shape[0] != seq:
        raise ValueError(
            f"{api}(): 'hidden_states' has {hidden_states.shape[0]} rows but "
            f"'expert_routemap_topk' has {seq}"
        )
    if list(expert_prob_topk.shape) != [seq, topk]:
        raise ValueError(
            f"{api}(): argument 'expert_prob_topk' must have shape {[seq, topk]}, "
            f"but got {list(expert_prob_topk.shape)}"
        )
    if scale is not None:
        _check.tensor(api, "scale", scale)
        if scale.ndim != 2 or scale.shape[0] != seq:
            raise ValueError(
                f"{api}(): argument 'scale' must be [{seq}, cols], but has shape "
                f"{list(scale.shape)}"
            )
        want = "int32" if using_ue8m0_scale else "float32"
        if scale.dtype.name != want:
            raise TypeError(
                f"{api}(): argument 'scale' must be {want} with "
                f"using_ue8m0_scale={using_ue8m0_scale}, but got dtype "
                f"{scale.dtype.name}"
            )
    if not isinstance(tokens_per_expert, (list, tuple)) or not all(
        isinstance(n, numbers.Integral) and not isinstance(n, bool) for n in tokens_per_expert
    ):
        raise TypeError(
            f"{api}(): argument 'tokens_per_expert' must be a list of int, but got "
            f"{_check._kind(tokens_per_expert)}"
        )
    counts = [int(n) for n in tokens_per_expert]
    if len(counts) != num_experts:
        raise ValueError(
            f"{api}(): argument 'tokens_per_expert' must have num_experts="
            f"{num_experts} entries, but has {len(counts)}"
        )
    if routemap.size and (routemap.min() < -1 or routemap.max() >= num_experts):
        raise ValueError(
            f"{api}(): argument 'expert_routemap_topk' must lie in [-1, "
            f"{num_experts}), but holds values in [{routemap.min()}, "
            f"{routemap.max()}]"
        )
    for s in range(seq):
        ids = routemap[s][routemap[s] >= 0]
        # Paddle's kernel keeps one row per (token, expert); a repeat would be lost.
        if len(np.unique(ids)) != len(ids):
            raise ValueError(
                f"{api}(): argument 'expert_routemap_topk' routes token {s} to "
                f"the same expert twice"
            )
    actual = np.bincount(routemap[routemap >= 0], minlength=num_experts)
    if list(actual) != counts:
        raise ValueError(
            f"{api}(): argument 'tokens_per_expert' {counts} does not match the "
            f"counts in 'expert_routemap_topk' {actual.tolist()}"
        )

    padded = [-(-n // padding_alignment) * padding_alignment for n in counts]
    offsets = np.concatenate([[0], np.cumsum(padded)]).astype(np.int64)
    rows = int(offsets[-1])
    if override_buffer_size >= 0:
        if override_buffer_size < rows:
            raise ValueError(
                f"{api}(): argument 'override_buffer_size' ({override_buffer_size})"
                f" is smaller than the {rows} rows the experts need"
            )
        rows = override_buffer_size

    # Source of each output row: a (token, topk slot) pair, or padding (-> the zero row).
    src_token = np.full(rows, seq, dtype=np.int64)
    src_slot = np.full(rows, seq * topk, dtype=np.int64)
    expert_of_row = np.full(rows, -1, dtype=np.int32)
    rowmap = np.full((seq, num_experts), -1, dtype=np.int32)
    for e in range(num_experts):
        tok, slot = np.nonzero(routemap == e)
        dest = offsets[e] + np.arange(len(tok))
        src_token[dest] = tok
        src_slot[dest] = tok * topk + slot
        expert_of_row[dest] = e
        rowmap[tok, e] = dest

    if do_gather:
        x_out = gather(_rows_with_zero(hidden_states), _idx(src_token))
    else:
        x_out = zeros([rows, hidden_states.shape[1]], dtype=hidden_states.dtype)
    probs = _C.reshape(expert_prob_topk.astype("float32"), [seq * topk])
    prob_out = gather(_rows_with_zero(probs), _idx(src_slot))
    if scale is not None:
        scale_out = gather(_rows_with_zero(scale), _idx(src_token))
    else:
        scale_out = zeros([rows, 0], dtype="float32")
    out = (x_out, to_tensor(rowmap), prob_out, scale_out)
    if return_expert_indices:
        out = out + (to_tensor(expert_of_row),)
    return out


def moe_unpermute(
    hidden_states_unzipped: Tensor,
    zipped_expertwise_rowmap: Tensor,
    expert_routemap_topk: Tensor,
    token_prob_unzipped: Tensor,
    total_zipped_tokens: int,
    num_experts: int,
    using_mix_precision: bool = True,
    using_weighted_combine: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """Undo moe_permute: each token is the sum of its rows over the experts it went to.

    Args:
        hidden_states_unzipped (Tensor): [rows, dim], floating point.
        zipped_expertwise_rowmap (Tensor): [seq, num_experts] int32, from moe_permute.
        expert_routemap_topk (Tensor): [seq, topk] int32/int64, expert ids or -1.
        token_prob_unzipped (Tensor): [rows] (or [rows, 1]) probabilities.
        total_zipped_tokens (int): seq, the number of output tokens.
        num_experts (int): the number of experts.
        using_mix_precision (bool, optional): accumulate low-precision rows in float32.
            Default: True.
        using_weighted_combine (bool, optional): weight each row by its probability
            before summing. Default: False.
        name (str|None, optional): Unused, for Paddle compatibility.

    Returns:
        tuple: (hidden_states [seq, dim] in the input dtype, expert_prob_topk [seq, topk]
        float32: each slot's probability read back, 0 where the slot routes nowhere).
    """
    api = "moe_unpermute"
    _float_tensor(api, "hidden_states_unzipped", hidden_states_unzipped, 2)
    rowmap = _int_tensor(api, "zipped_expertwise_rowmap", zipped_expertwise_rowmap, 2)
    routemap = _int_tensor(api, "expert_routemap_topk", expert_routemap_topk, 2)
    _float_tensor(api, "token_prob_unzipped", token_prob_unzipped)
    seq = _positive(api, "total_zipped_tokens", total_zipped_tokens, 0)
    num_experts = _positive(api, "num_experts", num_experts)
    mix = _flag(api, "using_mix_precision", using_mix_precision)
    weighted = _flag(api, "using_weighted_combine", using_weighted_combine)
    rows, dim = hidden_states_unzipped.shape
    if list(rowmap.shape) != [seq, num_experts]:
        raise ValueError(
            f"{api}(): argument 'zipped_expertwise_rowmap' must have shape "
            f"{[seq, num_experts]}, but got {list(rowmap.shape)}"
        )
    if routemap.shape[0] != seq:
        raise ValueError(
            f"{api}(): argument 'expert_routemap_topk' must have {seq} rows, but "
            f"has shape {list(routemap.shape)}"
        )
    if token_prob_unzipped.size != rows or token_prob_unzipped.ndim not in (1, 2):
        raise ValueError(
            f"{api}(): argument 'token_prob_unzipped' must be [{rows}] or "
            f"[{rows}, 1], but has shape {list(token_prob_unzipped.shape)}"
        )
    if rowmap.size and (rowmap.min() < -1 or rowmap.max() >= rows):
        raise ValueError(f"{api}(): argument 'zipped_expertwise_rowmap' must lie in [-1, {rows})")
    if routemap.size and (routemap.min() < -1 or routemap.max() >= num_experts):
        raise ValueError(
            f"{api}(): argument 'expert_routemap_topk' must lie in [-1, {num_experts})"
        )
    topk = routemap.shape[1]

    src = np.where(rowmap < 0, rows, rowmap)
    x = hidden_states_unzipped
    low = x.dtype.name in ("float16", "bfloat16")
    acc = x.astype("float32") if (mix and low) else x
    picked = _C.reshape(
        gather(_rows_with_zero(acc), _idx(src.reshape(-1))), [seq, num_experts, dim]
    )
    probs = _C.reshape(token_prob_unzipped.astype("float32"), [rows])
    probs_z = _rows_with_zero(probs)
    if weighted:
        w = _C.reshape(gather(probs_z, _idx(src.reshape(-1))), [seq, num_experts, 1])
        picked = picked * w.astype(picked.dtype)
    tokens = _C.sum(picked, axis=1).astype(x.dtype)

    slot_rows = np.full((seq, topk), rows, dtype=np.int64)
    s_idx, k_idx = np.nonzero(routemap >= 0)
    slot_rows[s_idx, k_idx] = src[s_idx, routemap[s_idx, k_idx]]
    probs_topk = _C.reshape(gather(probs_z, _idx(slot_rows.reshape(-1))), [seq, topk])
    return tokens, probs_topk
