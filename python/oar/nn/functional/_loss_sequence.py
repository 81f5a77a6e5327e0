"""Sequence losses (Paddle's paddle.nn.functional.ctc_loss and rnnt_loss).

Both are the negative log-likelihood of a lattice of alignments, computed by the
forward (alpha) recursion in log space with differentiable ops, one vectorised step
per time step (CTC) or per anti-diagonal of the T x U lattice (RNN-T). Backward is
autograd through the recursion, so gradients of every order exist. The cost is
O(T) (CTC) or O(T + U) (RNN-T) small ops per call: fine for the sequence lengths of
training on a CPU, slower than a fused kernel for very long sequences.

Unreachable lattice states hold a large negative number instead of -inf, so that the
gradient of logsumexp stays finite (0 for those states) everywhere.
"""

from __future__ import annotations

import numpy as np

from ... import _C
from ...framework import check as C
from ...framework.typing import Tensor
from ...tensor.creation import to_tensor
from ...framework.dtype import convert_dtype
from ._loss_margin import _reduction

__all__ = ["ctc_loss", "rnnt_loss"]

_NEG = -1.0e30  # "log 0" for unreachable states (finite: see above)


def _lengths(api, name, t, n, upper):
    C.tensor(api, name, t)
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument '{name}' must be an int32 or int64 tensor, but got {t.dtype.name}"
        )
    v = t.numpy().reshape(-1).astype(np.int64)
    if v.shape[0] != n:
        raise ValueError(f"{api}(): argument '{name}' has {v.shape[0]} values for a batch of {n}")
    if n and (v.min() < 0 or v.max() > upper):
        raise ValueError(f"{api}(): argument '{name}' holds lengths outside [0, {upper}]")
    return v


def _int_matrix(api, name, t, rows):
    C.tensor(api, name, t)
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument '{name}' must be an int32 or int64 tensor, but got {t.dtype.name}"
        )
    if t.ndim != 2 or t.shape[0] != rows:
        raise ValueError(
            f"{api}(): argument '{name}' has shape {t.shape} but must be [{rows}, max_label_length]"
        )
    return t.numpy().astype(np.int64)


def _scores(api, name, t, rank, layout, reduction):
    C.tensor(api, name, t)
    _reduction(api, reduction)
    if not t.dtype.is_floating_point or t.ndim != rank:
        raise ValueError(
            f"{api}(): argument '{name}' must be a {rank}-D floating tensor "
            f"{layout}, but got a {t.dtype.name} tensor of shape {t.shape}"
        )
    return t.shape


def _shift(a, k):
    """a [B, S] moved right by k along S, the first k filled with _NEG."""
    b, s = a.shape
    if k >= s:
        return _C.full([b, s], _NEG, a.dtype)
    return _C.concat([_C.full([b, k], _NEG, a.dtype), _C.slice(a, [1], [0], [s - k])], 1)


def _ctc_nll(lp, labels, in_len, lab_len, blank):
    """-log p(labels | lp) per sample; lp [T, B, C] log-probabilities."""
    t_max, b, c = lp.shape
    l_max = labels.shape[1]
    s = 2 * l_max + 1
    ext = np.full((b, s), blank, dtype=np.int64)  # blank, l1, blank, l2, ..., blank
    ext[:, 1::2] = labels
    # a label may be skipped to from two states back unless it repeats that label
    skip = np.zeros((b, s), dtype=bool)
    skip[:, 3::2] = labels[:, 1:] != labels[:, :-1]
    reach = np.arange(s)[None, :] < 2 * lab_len[:, None] + 1
    idx = _C.expand(to_tensor(ext[None]), [t_max, b, s])
    emit = _C.take_along_axis(lp, idx, 2)  # [T, B, S]
    skip_t = to_tensor(skip)
    start = to_tensor(np.arange(s)[None, :].repeat(b, 0) < 2)
    neg = _C.full([b, s], _NEG, lp.dtype)
    alpha = _C.where(start, _C.squeeze(_C.slice(emit, [0], [0], [1]), [0]), neg)
    for t in range(1, t_max):
        prev = alpha
        two = _C.where(skip_t, _shift(prev, 2), neg)
        step = _C.logsumexp(
            _C.concat(
                [
                    _C.unsqueeze(prev, [0]),
                    _C.unsqueeze(_shift(prev, 1), [0]),
                    _C.unsqueeze(two, [0]),
                ],
                0,
            ),
            [0],
        )
        new = step + _C.squeeze(_C.slice(emit, [0], [t], [t + 1]), [0])
        alive = to_tensor((t < in_len)[:, None].repeat(s, 1))
        alpha = _C.where(alive, new, prev)
    alpha = _C.where(to_tensor(reach), alpha, neg)
    last = np.stack([2 * lab_len, np.maximum(2 * lab_len - 1, 0)], 1)
    ends = _C.take_along_axis(alpha, to_tensor(last), 1)
    # an empty label ends only in state 0
    ends = _C.where(
        to_tensor(np.stack([np.ones(b, bool), lab_len > 0], 1)),
        ends,
        _C.full([b, 2], _NEG, lp.dtype),
    )
    ll = _C.logsumexp(ends, [1])
    # no input at all: the likelihood is 1 for an empty label, 0 otherwise
    return _C.neg(ll), in_len == 0


def ctc_loss(
    log_probs: Tensor,
    labels: Tensor,
    input_lengths: Tensor,
    label_lengths: Tensor,
    blank: int = 0,
    reduction: str = "mean",
    norm_by_times: bool = False,
    zero_infinity: bool = False,
) -> Tensor:
    """The CTC loss of log_probs [T, B, C] (Paddle's warp-ctc normalises them with a
    log_softmax over the classes first, so unnormalised scores work too) against labels
    [B, L] (class ids, blank excluded), with the valid lengths of each sample. reduction
    'mean' divides each loss by its label length (at least 1) before averaging. norm_by_times scales
    each sample's gradient by 1 / its input length (the loss is unchanged). An impossible
    alignment (a label longer than the input allows) gives an infinite loss, or 0 with
    zero_infinity."""
    api = "ctc_loss"
    t_max, b, c = _scores(
        api, "log_probs", log_probs, 3, "[max_logit_length, batch_size, num_classes + 1]", reduction
    )
    lab = _int_matrix(api, "labels", labels, b)
    in_len = _lengths(api, "input_lengths", input_lengths, b, t_max)
    lab_len = _lengths(api, "label_lengths", label_lengths, b, lab.shape[1])
    blank = C.integer(api, "blank", blank)
    if not 0 <= blank < c:
        raise ValueError(f"{api}(): argument 'blank' ({blank}) must be in [0, {c})")
    used = np.arange(lab.shape[1])[None, :] < lab_len[:, None]
    if used.any() and (lab[used].min() < 0 or lab[used].max() >= c or (lab[used] == blank).any()):
        raise ValueError(
            f"{api}(): argument 'labels' holds class ids outside [0, {c}) or the "
            f"blank ({blank}) within the label lengths"
        )
    lab = np.where(used, lab, blank)
    if b == 0:
        # no sequences: skip the T-step recursion; the reductions of an empty batch are
        # those of the general path (sum 0, mean NaN as the mean of nothing)
        loss = C.reshape_exact(log_probs, [0])
        if reduction == "none":
            return loss
        return _C.sum(loss) if reduction == "sum" else _C.mean(loss)
    work = (
        log_probs
        if log_probs.dtype.name == "float64"
        else _C.cast(log_probs, convert_dtype("float32"))
    )
    lp = _C.log_softmax(work, 2)
    if t_max == 0:  # every input is empty: likelihood 1 for an empty label, else 0
        loss = _C.sum(lp, [0, 2]) + to_tensor(np.where(lab_len == 0, 0.0, np.inf)).astype(lp.dtype)
        no_input = np.zeros(b, dtype=bool)
    else:
        loss, no_input = _ctc_nll(lp, lab, in_len, lab_len, blank)
    if no_input.any():
        fixed = np.where(lab_len == 0, 0.0, np.inf)
        loss = _C.where(to_tensor(no_input), to_tensor(fixed).astype(loss.dtype), loss)
    # the sentinel stands for an impossible alignment: report it as inf
    impossible = _C.greater_than(loss, _C.full_like(loss, -_NEG / 2))
    loss = _C.where(impossible, _C.full_like(loss, float("inf")), loss)
    if zero_infinity:
        loss = _C.where(_C.isinf(loss), _C.full_like(loss, 0.0), loss)
    if norm_by_times:
        # value unchanged, gradient / T: loss / T + (loss - loss / T) held constant
        scale = to_tensor(1.0 / np.maximum(in_len, 1)).astype(loss.dtype)
        scaled = loss * scale
        loss = scaled + (loss - scaled).detach()
    loss = loss if loss.dtype == log_probs.dtype else _C.cast(loss, log_probs.dtype)
    if reduction == "sum":
        return _C.sum(loss)
    if reduction == "mean":
        # an empty label divides by 1 (PyTorch's rule; Paddle divides by 0)
        per = to_tensor(np.maximum(lab_len, 1).astype(np.float64)).astype(loss.dtype)
        return _C.mean(loss / per)
    return loss


def rnnt_loss(
    input: Tensor,
    label: Tensor,
    input_lengths: Tensor,
    label_lengths: Tensor,
    blank: int = 0,
    fastemit_lambda: float = 0.001,
    reduction: str = "mean",
    name: str | None = None,
) -> Tensor:
    """The RNN-T loss of input [B, T, U + 1, V] (log-probabilities, used as given, as
    Paddle's CPU kernel) against label [B, U]: -log of the sum over the monotonic
    alignments. fastemit_lambda > 0 scales the gradient of the label emissions by
    1 + fastemit_lambda (FastEmit); the loss value is unchanged. reduction 'mean' is the
    sum over the batch divided by its size."""
    api = "rnnt_loss"
    b, t_max, u1, v = _scores(api, "input", input, 4, "[B, Tmax, Umax + 1, D]", reduction)
    lab = _int_matrix(api, "label", label, b)
    if lab.shape[1] < u1 - 1:
        raise ValueError(
            f"{api}(): argument 'label' has {lab.shape[1]} columns but input has "
            f"room for {u1 - 1} labels"
        )
    in_len = _lengths(api, "input_lengths", input_lengths, b, t_max)
    lab_len = _lengths(api, "label_lengths", label_lengths, b, u1 - 1)
    if b and in_len.min() < 1:
        raise ValueError(f"{api}(): argument 'input_lengths' must be at least 1")
    blank = C.integer(api, "blank", blank)
    if not 0 <= blank < v:
        raise ValueError(f"{api}(): argument 'blank' ({blank}) must be in [0, {v})")
    lab = lab[:, : u1 - 1]
    used = np.arange(u1 - 1)[None, :] < lab_len[:, None]
    if used.any() and (lab[used].min() < 0 or lab[used].max() >= v):
        raise ValueError(f"{api}(): argument 'label' holds class ids outside [0, {v})")
    lab = np.where(used, lab, 0)
    lam = float(C.number(api, "fastemit_lambda", fastemit_lambda))
    if b == 0:
        # no sequences: skip the T + U diagonals; 'mean' divides by max(B, 1), so it is
        # the sum, 0, as well
        loss = C.reshape_exact(input, [0])
        return loss if reduction == "none" else _C.sum(loss)
    x = input
    blank_lp = _C.squeeze(_C.slice(x, [3], [blank], [blank + 1]), [3])  # [B, T, U + 1]
    if u1 > 1:
        idx = _C.expand(to_tensor(lab[:, None, :, None]), [b, t_max, u1 - 1, 1])
        emit_lp = _C.squeeze(_C.take_along_axis(_C.slice(x, [2], [0], [u1 - 1]), idx, 3), [3])
        if lam:
            # value unchanged, gradient times (1 + lambda)
            emit_lp = _C.scale(emit_lp, 1.0 + lam) - _C.scale(emit_lp.detach(), lam)
    # anti-diagonals d = t + u of the lattice; D[b, u] = alpha[b, d - u, u]
    flat_blank = C.reshape_exact(blank_lp, [b, t_max * u1])
    flat_emit = C.reshape_exact(emit_lp, [b, t_max * (u1 - 1)]) if u1 > 1 else None
    u = np.arange(u1)
    neg = _C.full([b, u1], _NEG, x.dtype)
    diag = _C.where(
        to_tensor(np.broadcast_to(u == 0, (b, u1)).copy()), _C.full([b, u1], 0.0, x.dtype), neg
    )
    final = neg
    t_end = in_len - 1  # alpha[T_b - 1, U_b] is read on diagonal T_b - 1 + U_b
    for d in range(0, t_max + u1 - 1):
        if d > 0:
            # from (t - 1, u) by a blank, and from (t, u - 1) by emitting label u - 1
            t_prev = d - 1 - u
            ok_b = (t_prev >= 0) & (t_prev < t_max)
            ib = to_tensor(np.broadcast_to(np.where(ok_b, t_prev * u1 + u, 0), (b, u1)).copy())
            from_blank = diag + _C.take_along_axis(flat_blank, ib, 1)
            from_blank = _C.where(to_tensor(np.broadcast_to(ok_b, (b, u1)).copy()), from_blank, neg)
            if u1 > 1:
                t_here = d - u
                ok_e = (u >= 1) & (t_here >= 0) & (t_here < t_max)
                ie = np.where(ok_e, t_here * (u1 - 1) + u - 1, 0)
                emit = _C.take_along_axis(
                    flat_emit, to_tensor(np.broadcast_to(ie, (b, u1)).copy()), 1
                )
                from_emit = _shift(diag, 1) + emit
                from_emit = _C.where(
                    to_tensor(np.broadcast_to(ok_e, (b, u1)).copy()), from_emit, neg
                )
                diag = _C.logsumexp(
                    _C.concat([_C.unsqueeze(from_blank, [0]), _C.unsqueeze(from_emit, [0])], 0), [0]
                )
            else:
                diag = from_blank
        here = (d == t_end + lab_len)[:, None] & (u[None, :] == lab_len[:, None])
        if here.any():
            final = _C.where(to_tensor(here), diag, final)
    ll_end = _C.sum(
        _C.where(to_tensor(u[None, :] == lab_len[:, None]), final, _C.full_like(final, 0.0)), [1]
    )
    last_blank = _C.take_along_axis(flat_blank, to_tensor((t_end * u1 + lab_len)[:, None]), 1)
    loss = _C.neg(ll_end + _C.squeeze(last_blank, [1]))
    if reduction == "sum":
        return _C.sum(loss)
    if reduction == "mean":
        return _C.scale(_C.sum(loss), 1.0 / max(b, 1))
    return loss
