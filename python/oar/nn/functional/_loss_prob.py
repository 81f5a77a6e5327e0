"""Likelihood-style losses (Paddle's paddle.nn.functional.loss): gaussian_nll_loss,
poisson_nll_loss, log_loss, square_error_cost, dice_loss,
npair_loss, hsigmoid_loss. Compositions of differentiable ops (hsigmoid_loss reads the
path of each label from its class id, or from path_table / path_code)."""

from __future__ import annotations

import math

import numpy as np

from ... import _C
from ...framework import check as C
from ...framework.typing import Tensor
from ...tensor.creation import to_tensor
from ._loss_margin import _floating, _reduce, _reduction

__all__ = [
    "gaussian_nll_loss",
    "poisson_nll_loss",
    "log_loss",
    "square_error_cost",
    "dice_loss",
    "npair_loss",
    "hsigmoid_loss",
]


def gaussian_nll_loss(
    input: Tensor,
    label: Tensor,
    variance: Tensor,
    full: bool = False,
    epsilon: float = 1e-6,
    reduction: str = "mean",
    name: str | None = None,
) -> Tensor:
    """0.5 * (log(var) + (input - label) ** 2 / var) (+ 0.5 * log(2 pi) with full), var the
    variance clamped below at epsilon. variance has input's shape, or input's without the
    last dim, or with a last dim of 1 (one variance per row)."""
    api = "gaussian_nll_loss"
    for n, t in (("input", input), ("label", label), ("variance", variance)):
        _floating(api, n, t)
    _reduction(api, reduction)
    shape, vshape = list(input.shape), list(variance.shape)
    if vshape != shape:
        if vshape == shape[:-1]:
            variance = _C.unsqueeze(variance, [-1])
        elif not (vshape[:-1] == shape[:-1] and vshape and vshape[-1] == 1):
            raise ValueError(
                f"{api}(): argument 'variance' has shape {vshape} but must be "
                f"{shape}, {shape[:-1]} or {shape[:-1] + [1]}"
            )
    if bool(_C.any(_C.less_than(variance, _C.full_like(variance, 0.0)))):
        raise ValueError(f"{api}(): argument 'variance' has negative entries")
    # the clamp keeps the gradient of variance (as the identity where it clamps), as
    # PyTorch; Paddle's clamp under no_grad stops it
    floor = _C.maximum(variance, _C.full_like(variance, float(epsilon))).detach()
    var = variance + (floor - variance.detach())
    d = input - label
    loss = _C.scale(_C.log(var) + d * d / var, 0.5)
    if full:
        loss = _C.scale(loss, 1.0, 0.5 * math.log(2 * math.pi))
    return _reduce(loss, reduction)


def poisson_nll_loss(
    input: Tensor,
    label: Tensor,
    log_input: bool = True,
    full: bool = False,
    epsilon: float = 1e-8,
    reduction: str = "mean",
    name: str | None = None,
) -> Tensor:
    """exp(input) - label * input (log_input), else input - label * log(input + epsilon);
    with full, Stirling's label * log(label) - label + 0.5 * log(2 pi label) where label > 1."""
    api = "poisson_nll_loss"
    _floating(api, "input", input)
    _floating(api, "label", label)
    _reduction(api, reduction)
    eps = float(C.number(api, "epsilon", epsilon))
    if eps <= 0:
        raise ValueError(f"{api}(): argument 'epsilon' must be positive, but got {eps}")
    if list(input.shape) != list(label.shape):
        raise ValueError(
            f"{api}(): arguments 'input' {input.shape} and 'label' {label.shape} "
            f"must have the same shape"
        )
    if log_input:
        loss = _C.exp(input) - label * input
    else:
        loss = input - label * _C.log(_C.scale(input, 1.0, eps))
    if full:
        big = _C.greater_than(label, _C.full_like(label, 1.0))
        safe = _C.where(big, label, _C.full_like(label, 1.0))
        stirling = safe * _C.log(safe) - safe + _C.scale(_C.log(_C.scale(safe, 2 * math.pi)), 0.5)
        loss = loss + _C.where(big, stirling, _C.full_like(loss, 0.0))
    return _reduce(loss, reduction)


def log_loss(
    input: Tensor, label: Tensor, epsilon: float = 0.0001, name: str | None = None
) -> Tensor:
    """-label * log(input + epsilon) - (1 - label) * log(1 - input + epsilon), per element."""
    api = "log_loss"
    _floating(api, "input", input)
    _floating(api, "label", label)
    if list(input.shape) != list(label.shape):
        # Paddle's kernel requires equal shapes too (no broadcasting)
        raise ValueError(
            f"{api}(): arguments 'input' {input.shape} and 'label' {label.shape} "
            f"must have the same shape"
        )
    eps = float(epsilon)
    return _C.neg(
        label * _C.log(_C.scale(input, 1.0, eps))
        + _C.scale(label, -1.0, 1.0) * _C.log(_C.scale(input, -1.0, 1.0 + eps))
    )


def square_error_cost(input: Tensor, label: Tensor) -> Tensor:
    """(input - label) ** 2, per element."""
    api = "square_error_cost"
    _floating(api, "input", input)
    C.tensor(api, "label", label)
    d = input - label
    return d * d


def dice_loss(
    input: Tensor, label: Tensor, epsilon: float = 1e-05, name: str | None = None
) -> Tensor:
    """1 - 2 * |input * one_hot(label)| / (|input| + |one_hot(label)| + epsilon) per sample
    (sums over every dim but the first), averaged over the batch; input [N, ..., C]
    probabilities, label [N, ..., 1] class ids."""
    api = "dice_loss"
    _floating(api, "input", input)
    C.tensor(api, "label", label)
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument 'label' must be an int32 or int64 tensor, but got "
            f"{label.dtype.name}"
        )
    if (
        input.ndim < 2
        or label.ndim != input.ndim
        or label.shape[-1] != 1
        or list(label.shape[:-1]) != list(input.shape[:-1])
    ):
        raise ValueError(
            f"{api}(): argument 'label' has shape {label.shape} but must be "
            f"{list(input.shape[:-1]) + [1]} for input of shape {input.shape}"
        )
    one_hot = _C.cast(_C.one_hot(_C.squeeze(label, [-1]), input.shape[-1]), input.dtype)
    axes = list(range(1, input.ndim))
    inter = _C.sum(input * one_hot, axes)
    total = _C.sum(input, axes) + _C.sum(one_hot, axes)
    return _C.mean(_C.scale(_C.scale(inter, 2.0) / _C.scale(total, 1.0, float(epsilon)), -1.0, 1.0))


def npair_loss(anchor: Tensor, positive: Tensor, labels: Tensor, l2_reg: float = 0.002) -> Tensor:
    """N-pair loss: softmax cross-entropy of anchor @ positive.T against the rows of equal
    labels (normalised), plus l2_reg * 0.25 * (mean squared norm of anchor and positive)."""
    api = "npair_loss"
    _floating(api, "anchor", anchor)
    _floating(api, "positive", positive)
    C.tensor(api, "labels", labels)
    if anchor.ndim != 2 or list(anchor.shape) != list(positive.shape):
        raise ValueError(
            f"{api}(): arguments 'anchor' {anchor.shape} and 'positive' "
            f"{positive.shape} must have the same 2-D shape [batch, dim]"
        )
    b = anchor.shape[0]
    if labels.size != b:
        raise ValueError(
            f"{api}(): argument 'labels' has shape {labels.shape} but must hold {b} values"
        )
    lab = C.reshape_exact(labels, [b, 1])
    same = _C.cast(
        _C.equal(_C.expand(lab, [b, b]), _C.transpose(_C.expand(lab, [b, b]), [1, 0])), anchor.dtype
    )
    target = same / _C.sum(same, [1], keepdim=True)
    l2 = _C.mean(_C.sum(anchor * anchor, [1])) + _C.mean(_C.sum(positive * positive, [1]))
    sim = _C.matmul(anchor, positive, False, True)
    ce = _C.mean(_C.cross_entropy_soft(sim, target.detach(), 1))
    return _C.scale(l2, 0.25 * float(l2_reg)) + ce


def _find_last_set(v):
    return int(v).bit_length()


def _default_paths(labels, num_classes):
    """Paddle's default tree: class c is leaf c + num_classes of a heap; its path visits
    the inner nodes (code >> (bit + 1)) - 1 with the branch bits code & (1 << bit)."""
    length = _find_last_set(num_classes - 1)
    code = labels.astype(np.int64) + num_classes
    bits = np.arange(length)
    index = (code[:, None] >> (bits[None, :] + 1)) - 1
    branch = (code[:, None] >> bits[None, :]) & 1
    path_len = np.array([_find_last_set(c) - 1 for c in code])
    valid = bits[None, :] < path_len[:, None]
    return np.where(valid, index, 0), branch.astype(np.float64), valid


def hsigmoid_loss(
    input: Tensor,
    label: Tensor,
    num_classes: int,
    weight: Tensor,
    bias: Tensor | None = None,
    path_table: Tensor | None = None,
    path_code: Tensor | None = None,
    is_sparse: bool = False,
    name: str | None = None,
) -> Tensor:
    """Hierarchical sigmoid: the sum, over the inner nodes j on the path of each label, of
    softplus(p_j) - code_j * p_j, p_j = input @ weight[j] + bias[j] clipped to [-40, 40].
    The default tree is Paddle's (class c is leaf c + num_classes of a binary heap); a
    custom tree gives each sample's node ids in path_table (-1 ends a path) and branch
    bits in path_code. As Paddle's kernel, each of the code_length slots a path does not
    use adds softplus(0) = log 2 (a constant that does not change the gradient). On the
    default tree, labels from num_classes up to 2 ** (code_length + 1) - num_classes - 1
    are accepted as in Paddle's example; a node of their path past the weight's rows
    adds log 2 too. Returns [N, 1]."""
    api = "hsigmoid_loss"
    _floating(api, "input", input)
    C.tensor(api, "label", label)
    C.tensor(api, "weight", weight)
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument 'label' must be an int64 tensor, but got {label.dtype.name}"
        )
    if input.ndim != 2:
        raise ValueError(
            f"{api}(): argument 'input' must be 2-D [N, D], but has shape {input.shape}"
        )
    n, d = input.shape
    lab = label.numpy().reshape(-1)
    if lab.shape[0] != n:
        raise ValueError(f"{api}(): argument 'label' holds {lab.shape[0]} values for {n} rows")
    k = C.integer(api, "num_classes", num_classes)
    if (path_table is None) != (path_code is None):
        raise ValueError(f"{api}(): give both path_table and path_code, or neither")
    if path_table is None:
        if k < 2:
            raise ValueError(f"{api}(): argument 'num_classes' must be at least 2, but got {k}")
        # Labels from num_classes up follow the same heap code (Paddle's own example
        # passes label 5 with num_classes 5); their paths may name nodes past the weight's
        # rows, which count as absent (below). A label whose path is longer than
        # code_length has no value: Paddle's kernel writes past its buffers for it.
        top = (1 << (_find_last_set(k - 1) + 1)) - k
        if n and (lab.min() < 0 or lab.max() >= top):
            raise IndexError(
                f"{api}(): argument 'label' holds values outside [0, {top}) (labels from "
                f"num_classes = {k} up to {top - 1} still have a path of the default tree)"
            )
        index, branch, valid = _default_paths(lab, k)
    else:
        table = path_table.numpy().astype(np.int64)
        codes = path_code.numpy().astype(np.int64)
        if table.shape != codes.shape or table.ndim != 2 or table.shape[0] != n:
            raise ValueError(
                f"{api}(): arguments 'path_table' {list(table.shape)} and "
                f"'path_code' {list(codes.shape)} must both be [{n}, length]"
            )
        valid = np.cumsum(table < 0, axis=1) == 0
        index = np.where(valid, table, 0)
        branch = codes.astype(np.float64)
    rows = weight.shape[0]
    if weight.ndim != 2 or weight.shape[1] != d:
        raise ValueError(
            f"{api}(): argument 'weight' has shape {weight.shape} but must be [nodes, {d}]"
        )
    if path_table is None:
        # a node past the weight's rows (a label >= num_classes on the default tree)
        # contributes as a pre-activation of 0, i.e. log 2, without weight or bias: the
        # value of Paddle's documented example (its kernel reads past the weight there)
        valid = valid & (index < rows)
        index = np.where(valid, index, 0)
    elif index.size and index[valid].size and index[valid].max() >= rows:
        raise IndexError(
            f"{api}(): a path visits node {int(index[valid].max())} but weight has {rows} rows"
        )
    idx = to_tensor(index.astype(np.int64))
    w_path = _C.embedding(idx, weight, -1)  # [N, L, D]
    pre = _C.sum(w_path * _C.unsqueeze(input, [1]), [2])
    if bias is not None:
        C.tensor(api, "bias", bias)
        pre = pre + C.reshape_exact(
            _C.embedding(idx, C.reshape_exact(bias, [bias.size, 1]), -1), list(index.shape)
        )
    on_path = to_tensor(valid.astype(np.float64)).astype(input.dtype)
    pre = _C.clip(pre * on_path, -40.0, 40.0)
    code = to_tensor(branch * valid).astype(input.dtype)
    return _C.sum(_C.softplus(pre, 1.0, 20.0) - code * pre, [1], keepdim=True)
