"""Paddle's incubate Mixture-of-Experts helpers (GPU kernels there), composed from oar
ops: integer bookkeeping (int_bincount, build_src_rank_and_local_expert_id,
expand_modality_expert_id) in numpy, moe_combine and cal_aux_loss differentiable."""

from __future__ import annotations

import numbers

import numpy as np


from ....framework import check as _check
from ....framework.dtype import dtype as _DType
from ....framework.typing import Tensor
from . import _common as c
from .... import _C
from ....tensor.creation import full
from ....tensor.creation import to_tensor
from ....tensor.manipulation import gather
from ....tensor.math import clip

__all__ = [
    "int_bincount",
    "build_src_rank_and_local_expert_id",
    "expand_modality_expert_id",
    "moe_combine",
    "cal_aux_loss",
]

_INTS = ("int32", "int64")


def _int_tensor(api, arg, v):
    _check.tensor(api, arg, v)
    if v.dtype.name not in _INTS:
        raise TypeError(
            f"{api}(): argument '{arg}' must be an int32 or int64 Tensor, but got "
            f"dtype {v.dtype.name}"
        )
    return v


def int_bincount(
    x: Tensor,
    low: int,
    high: int,
    dtype: str | _DType | np.dtype | None = None,
    name: str | None = None,
) -> Tensor:
    """Counts of the integers low, low + 1, ..., high - 1 in x (values outside are
    ignored).

    Args:
        x (Tensor): int32/int64 values, any shape.
        low (int), high (int): the counted range [low, high), low < high.
        dtype (str|oar.dtype|None, optional): 'int32' or 'int64'; None: x's dtype.
        name (str|None, optional): Unused, for Paddle compatibility.

    Returns:
        Tensor: [high - low] counts.
    """
    api = "int_bincount"
    _int_tensor(api, "x", x)
    low = _check.integer(api, "low", low)
    high = _check.integer(api, "high", high)
    if high <= low:
        raise ValueError(f"{api}(): argument 'high' ({high}) must be greater than 'low' ({low})")
    out_dtype = x.dtype.name if dtype is None else getattr(dtype, "name", dtype)
    if out_dtype not in _INTS:
        raise TypeError(f"{api}(): argument 'dtype' must be 'int32' or 'int64', but got {dtype!r}")
    v = x.numpy().reshape(-1).astype(np.int64)
    v = v[(v >= low) & (v < high)] - low
    return to_tensor(np.bincount(v, minlength=high - low).astype(out_dtype))


def build_src_rank_and_local_expert_id(
    expert_num_global_tensor: Tensor,
    expert_num_global: list[int] | tuple[int, ...],
    num_local_experts: int,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """For tokens laid out expert after expert (expert i has expert_num_global[i] of
    them), the rank owning each token's expert (i // num_local_experts) and the
    expert's id on that rank (i % num_local_experts).

    Args:
        expert_num_global_tensor (Tensor): [num_experts] int32/int64 token counts.
        expert_num_global (list[int]): the same counts as a list (sets the output size).
        num_local_experts (int): experts per rank, > 0.
        name (str|None, optional): Unused, for Paddle compatibility.

    Returns:
        tuple: (src_rank, local_expert_id), both int32 [sum(expert_num_global)].
    """
    api = "build_src_rank_and_local_expert_id"
    _int_tensor(api, "expert_num_global_tensor", expert_num_global_tensor)
    if not isinstance(expert_num_global, (list, tuple)) or not all(
        isinstance(n, numbers.Integral) and not isinstance(n, bool) for n in expert_num_global
    ):
        raise TypeError(
            f"{api}(): argument 'expert_num_global' must be a list of int, but got "
            f"{_check._kind(expert_num_global)}"
        )
    local = _check.integer(api, "num_local_experts", num_local_experts)
    if local <= 0:
        raise ValueError(f"{api}(): argument 'num_local_experts' must be > 0, but got {local}")
    counts = expert_num_global_tensor.numpy().reshape(-1).astype(np.int64)
    listed = [int(n) for n in expert_num_global]
    if counts.tolist() != listed:
        raise ValueError(
            f"{api}(): 'expert_num_global_tensor' {counts.tolist()} differs from "
            f"'expert_num_global' {listed}"
        )
    if (counts < 0).any():
        raise ValueError(f"{api}(): argument 'expert_num_global' must not hold negative counts")
    expert = np.repeat(np.arange(len(counts)), counts)
    return (
        to_tensor((expert // local).astype(np.int32)),
        to_tensor((expert % local).astype(np.int32)),
    )


def expand_modality_expert_id(
    expert_id: Tensor,
    num_expert_per_modality: int,
    group_size: int,
    modality_offset: int,
    is_group_expert: bool,
    name: str | None = None,
) -> Tensor:
    """Map expert ids of one modality into the global numbering of two interleaved
    modalities: with is_group_expert the id in top-k slot j first moves by j *
    group_size; then (num_expert_per_modality = n > 0) e -> (e // n) * 2n + e % n +
    modality_offset * n.

    Args:
        expert_id (Tensor): [seq, k] int32/int64.
        num_expert_per_modality (int): n; <= 0 skips the modality mapping.
        group_size (int): the id shift between top-k slots with is_group_expert.
        modality_offset (int): 0 or 1, which modality's half.
        is_group_expert (bool): shift the ids by slot.
        name (str|None, optional): Unused, for Paddle compatibility.

    Returns:
        Tensor: [seq, k] in expert_id's dtype.
    """
    api = "expand_modality_expert_id"
    _int_tensor(api, "expert_id", expert_id)
    if expert_id.ndim != 2:
        raise ValueError(
            f"{api}(): argument 'expert_id' must be 2-D [seq, k], but has shape "
            f"{list(expert_id.shape)}"
        )
    n = _check.integer(api, "num_expert_per_modality", num_expert_per_modality)
    group = _check.integer(api, "group_size", group_size)
    offset = _check.integer(api, "modality_offset", modality_offset)
    grouped = c.flag(api, "is_group_expert", is_group_expert)
    e = expert_id.numpy().astype(np.int64)
    if grouped:
        e = e + np.arange(e.shape[1], dtype=np.int64)[None, :] * group
    if n > 0:
        # C integer division truncates toward zero; keep that for negative ids too.
        rank = np.trunc(e / n).astype(np.int64)
        e = rank * (2 * n) + np.fmod(e, n) + offset * n
    return to_tensor(e.astype(expert_id.dtype.name))


def moe_combine(
    x: Tensor, combine_weights: Tensor, scatter_index: Tensor, name: str | None = None
) -> Tensor:
    """y[s] = sum_k combine_weights[s, k] * x[scatter_index[k, s]]: the experts' outputs
    back into token order, weighted.

    Args:
        x (Tensor): [rows, dim] expert outputs, floating point.
        combine_weights (Tensor): [seq, k], x's dtype.
        scatter_index (Tensor): [k, seq] int32/int64 rows of x.
        name (str|None, optional): Unused, for Paddle compatibility.

    Returns:
        Tensor: [seq, dim]; differentiable in x and combine_weights.
    """
    api = "moe_combine"
    c.float_tensor(api, "x", x)
    c.float_tensor(api, "combine_weights", combine_weights)
    _int_tensor(api, "scatter_index", scatter_index)
    if x.ndim != 2 or combine_weights.ndim != 2:
        raise ValueError(
            f"{api}(): 'x' and 'combine_weights' must be 2-D, but have shapes "
            f"{list(x.shape)} and {list(combine_weights.shape)}"
        )
    seq, k = combine_weights.shape
    if list(scatter_index.shape) != [k, seq]:
        raise ValueError(
            f"{api}(): argument 'scatter_index' must have shape {[k, seq]}, but "
            f"got {list(scatter_index.shape)}"
        )
    if combine_weights.dtype != x.dtype:
        raise TypeError(
            f"{api}(): 'combine_weights' ({combine_weights.dtype.name}) must have "
            f"x's dtype ({x.dtype.name})"
        )
    idx = scatter_index.numpy().astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= x.shape[0]):
        raise ValueError(f"{api}(): argument 'scatter_index' must lie in [0, {x.shape[0]})")
    rows = gather(x, to_tensor(np.ascontiguousarray(idx.T.reshape(-1))))
    rows = _C.reshape(rows, [seq, k, x.shape[1]])
    return _C.sum(rows * _C.unsqueeze(combine_weights, -1), axis=1)


def cal_aux_loss(
    gate_prob: Tensor,
    dispatch_mask: Tensor,
    tokens_mask: Tensor | None,
    dispatch_tokens_mask: Tensor | None,
    num_experts: int,
    use_group: bool,
    moe_k: int,
    clip_min: float,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """The load-balancing loss num_experts * sum_e me_e * ce_e, me = column sums of
    gate_prob / L, ce = dispatch counts / L (no gradient), L the clipped token count.

    L is the sum of dispatch_tokens_mask if given, else of tokens_mask, else
    gate_prob.numel / num_experts, clipped below at clip_min. use_group divides the loss
    by moe_k. With both masks and a dispatch_tokens_mask of another length than
    gate_prob, the loss value is scaled by L / max(sum(tokens_mask), clip_min) while the
    gradient stays the unscaled one.

    Args:
        gate_prob (Tensor): [seq, num_experts] floating point.
        dispatch_mask (Tensor): [num_experts] counts, or [seq, num_experts] (summed).
        tokens_mask (Tensor|None): [seq] token mask.
        dispatch_tokens_mask (Tensor|None): mask of the dispatched tokens.
        num_experts (int), use_group (bool), moe_k (int), clip_min (float).
        name (str|None, optional): Unused, for Paddle compatibility.

    Returns:
        tuple: (l_aux [], seqlen_float [], ce [num_experts]) in gate_prob's dtype.
    """
    api = "cal_aux_loss"
    c.float_tensor(api, "gate_prob", gate_prob)
    _check.tensor(api, "dispatch_mask", dispatch_mask)
    if tokens_mask is not None:
        _check.tensor(api, "tokens_mask", tokens_mask)
    if dispatch_tokens_mask is not None:
        _check.tensor(api, "dispatch_tokens_mask", dispatch_tokens_mask)
    num_experts = _check.integer(api, "num_experts", num_experts)
    use_group = c.flag(api, "use_group", use_group)
    moe_k = _check.integer(api, "moe_k", moe_k)
    clip_min = _check.number(api, "clip_min", clip_min)
    if gate_prob.ndim != 2:
        raise ValueError(
            f"{api}(): argument 'gate_prob' must be 2-D, but has shape {list(gate_prob.shape)}"
        )
    if num_experts <= 0 or (use_group and moe_k == 0):
        raise ValueError(
            f"{api}(): 'num_experts' must be > 0 and 'moe_k' non-zero with "
            f"use_group, but got {num_experts} and {moe_k}"
        )
    if dispatch_mask.ndim not in (1, 2) or dispatch_mask.shape[-1] != gate_prob.shape[1]:
        raise ValueError(
            f"{api}(): argument 'dispatch_mask' must be [{gate_prob.shape[1]}] or "
            f"[seq, {gate_prob.shape[1]}], but has shape "
            f"{list(dispatch_mask.shape)}"
        )
    dt = gate_prob.dtype
    if tokens_mask is not None:
        tokens_mask = tokens_mask.astype(dt)
    scale = None
    if dispatch_tokens_mask is not None:
        seqlen = _C.sum(dispatch_tokens_mask.astype(dt))
        if tokens_mask is not None and gate_prob.shape[0] != dispatch_tokens_mask.shape[0]:
            scale = seqlen / clip(_C.sum(tokens_mask), min=clip_min)
    elif tokens_mask is not None:
        seqlen = _C.sum(tokens_mask)
    else:
        seqlen = full([], gate_prob.size / num_experts, dtype=dt)
    seqlen = clip(seqlen, min=clip_min).detach()
    counts = dispatch_mask if dispatch_mask.ndim == 1 else _C.sum(dispatch_mask, axis=0)
    ce = counts.astype(dt).detach() / seqlen
    me = _C.sum(gate_prob, axis=0) / seqlen
    loss = _C.sum(me * ce) * num_experts
    if use_group:
        loss = loss / moe_k
    if scale is not None:
        # The value is scaled (global token count), the gradient is the local one.
        loss = loss + (scale.detach() - 1) * loss.detach()
    return loss, seqlen, ce
