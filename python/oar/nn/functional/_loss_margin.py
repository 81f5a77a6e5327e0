"""Margin and ranking losses (Paddle's paddle.nn.functional.loss): hinge_embedding_loss,
soft_margin_loss, multi_margin_loss, multi_label_margin_loss,
multi_label_soft_margin_loss, triplet_margin_loss, triplet_margin_with_distance_loss.
Compositions of elementwise ops, gathers and reductions, differentiable to any order;
the integer labels only select terms."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ... import _C
from ...framework import check as C
from ...framework.typing import Tensor
from ...tensor.creation import to_tensor
from ._loss_common import _reduction  # noqa: F401 - shared by the loss modules
from .distance import pairwise_distance

__all__ = [
    "hinge_embedding_loss",
    "soft_margin_loss",
    "multi_margin_loss",
    "multi_label_margin_loss",
    "multi_label_soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def _reduce(loss, reduction):
    if reduction == "mean":
        return _C.mean(loss)
    if reduction == "sum":
        return _C.sum(loss)
    return loss


def _floating(api, name, x):
    C.tensor(api, name, x)
    if not x.dtype.is_floating_point:
        raise TypeError(
            f"{api}(): argument '{name}' must be a floating tensor, but got {x.dtype.name}"
        )
    return x


def _like(api, label, x):
    """label as a tensor of x's dtype (Paddle takes integer {-1, 1} labels too)."""
    C.tensor(api, "label", label)
    return label if label.dtype == x.dtype else _C.cast(label, x.dtype)


def _same_shape_label(api, input, label, reduction):
    """The checks of an elementwise loss: floating input, a label of its shape (cast to
    its dtype), a known reduction."""
    _floating(api, "input", input)
    _reduction(api, reduction)
    lab = _like(api, label, input)
    if list(lab.shape) != list(input.shape):
        raise ValueError(
            f"{api}(): arguments 'input' {input.shape} and 'label' {lab.shape} "
            f"must have the same shape"
        )
    return lab


def _int_labels(api, label):
    C.tensor(api, "label", label)
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument 'label' must be an int32 or int64 tensor, but got "
            f"{label.dtype.name}"
        )
    return label


def hinge_embedding_loss(
    input: Tensor,
    label: Tensor,
    margin: float = 1.0,
    reduction: str = "mean",
    name: str | None = None,
) -> Tensor:
    """input where label is 1, max(0, margin - input) where label is -1 (0 elsewhere)."""
    api = "hinge_embedding_loss"
    _floating(api, "input", input)
    _reduction(api, reduction)
    lab = _like(api, label, input)
    zero = _C.full_like(input, 0.0)
    pos = _C.where(_C.equal(lab, _C.full_like(lab, 1.0)), input, zero)
    neg = _C.where(
        _C.equal(lab, _C.full_like(lab, -1.0)), _C.relu(_C.scale(input, -1.0, float(margin))), zero
    )
    return _reduce(pos + neg, reduction)


def soft_margin_loss(
    input: Tensor, label: Tensor, reduction: str = "mean", name: str | None = None
) -> Tensor:
    """log(1 + exp(-label * input)), label in {-1, 1}."""
    lab = _same_shape_label("soft_margin_loss", input, label, reduction)
    return _reduce(_C.softplus(_C.neg(lab * input), 1.0, 20.0), reduction)


def _class_logits(api, input, label):
    _floating(api, "input", input)
    _int_labels(api, label)
    if input.ndim != 2:
        raise ValueError(
            f"{api}(): argument 'input' must be 2-D [N, C], but has shape {input.shape}"
        )
    if label.ndim not in (1, 2) or label.shape[0] != input.shape[0]:
        raise ValueError(
            f"{api}(): argument 'label' has shape {label.shape} but must be "
            f"[{input.shape[0]}] for input of shape {input.shape}"
        )


def multi_margin_loss(
    input: Tensor,
    label: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    reduction: str = "mean",
    name: str | None = None,
) -> Tensor:
    """sum over j != label of weight[label] * max(0, margin - input[label] + input[j]) ** p,
    divided by the number of classes C."""
    api = "multi_margin_loss"
    _class_logits(api, input, label)
    _reduction(api, reduction)
    p = C.integer(api, "p", p)
    if p not in (1, 2):
        raise ValueError(f"{api}(): argument 'p' must be 1 or 2, but got {p}")
    n, c = input.shape
    lab = C.reshape_exact(label, [n, 1])
    if n and (int(label.min().item()) < 0 or int(label.max().item()) >= c):
        raise IndexError(f"{api}(): argument 'label' holds values outside [0, {c})")
    picked = _C.take_along_axis(input, lab, 1)
    terms = _C.relu(_C.scale(input - picked, 1.0, float(margin)))
    if p == 2:
        terms = terms * terms
    other = _C.cast(
        _C.not_equal(
            _C.expand(lab, [n, c]),
            _C.expand(to_tensor(np.arange(c)[None, :]).astype(lab.dtype), [n, c]),
        ),
        input.dtype,
    )
    terms = terms * other
    if weight is not None:
        C.tensor(api, "weight", weight)
        if weight.ndim != 1 or weight.shape[0] != c:
            raise ValueError(
                f"{api}(): argument 'weight' has shape {weight.shape} but must be [{c}]"
            )
        terms = terms * C.reshape_exact(
            _C.index_select(weight, C.reshape_exact(lab, [n]), 0), [n, 1]
        )
    return _reduce(_C.scale(_C.sum(terms, [1]), 1.0 / c), reduction)


def multi_label_margin_loss(
    input: Tensor, label: Tensor, reduction: str = "mean", name: str | None = None
) -> Tensor:
    """For each sample, label holds its target classes, ended by the first -1: the loss is
    the sum over targets j and non-targets i of max(0, 1 - (input[j] - input[i])), over C."""
    api = "multi_label_margin_loss"
    _class_logits(api, input, label)
    _reduction(api, reduction)
    if list(label.shape) != list(input.shape):
        raise ValueError(
            f"{api}(): argument 'label' has shape {label.shape} but must have the "
            f"shape of input {input.shape}"
        )
    n, c = input.shape
    lab = label.numpy().astype(np.int64)
    if ((lab < -1) | (lab >= c)).any():
        raise IndexError(f"{api}(): argument 'label' holds values outside [-1, {c})")
    # the targets of a row are its entries before the first -1
    ended = np.cumsum(lab == -1, axis=1) > 0
    valid = ~ended
    is_target = np.zeros((n, c), dtype=bool)
    rows = np.repeat(np.arange(n), c).reshape(n, c)
    is_target[rows[valid], lab[valid]] = True
    picked = _C.take_along_axis(input, to_tensor(np.where(valid, lab, 0)), 1)  # [N, L]
    diff = _C.unsqueeze(input, [1]) - _C.unsqueeze(picked, [2])  # input[i] - input[j]
    mask = to_tensor((valid[:, :, None] & ~is_target[:, None, :]).astype(np.float64))
    terms = _C.relu(_C.scale(diff, 1.0, 1.0)) * mask.astype(input.dtype)
    return _reduce(_C.scale(_C.sum(terms, [1, 2]), 1.0 / c), reduction)


def multi_label_soft_margin_loss(
    input: Tensor,
    label: Tensor,
    weight: Tensor | None = None,
    reduction: str = "mean",
    name: str | None = None,
) -> Tensor:
    """-(label * log sigmoid(input) + (1 - label) * log sigmoid(-input)), times weight,
    averaged over the classes (the last dim)."""
    api = "multi_label_soft_margin_loss"
    lab = _same_shape_label(api, input, label, reduction)
    loss = _C.neg(
        lab * _C.log_sigmoid(input) + _C.scale(lab, -1.0, 1.0) * _C.log_sigmoid(_C.neg(input))
    )
    if weight is not None:
        C.tensor(api, "weight", weight)
        loss = loss * weight
    return _reduce(_C.mean(loss, [input.ndim - 1]), reduction)


def _pairwise(x, y, p, eps):
    return pairwise_distance(x, y, p, eps)


def triplet_margin_loss(
    input: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2.0,
    epsilon: float = 1e-06,
    swap: bool = False,
    reduction: str = "mean",
    name: str | None = None,
) -> Tensor:
    """max(0, d(input, positive) - d(input, negative) + margin), d the p-norm distance along
    the last axis; with swap, d(input, negative) is replaced by d(positive, negative) where
    smaller."""
    api = "triplet_margin_loss"
    for n, t in (("input", input), ("positive", positive), ("negative", negative)):
        _floating(api, n, t)
    _reduction(api, reduction)
    p = float(C.number(api, "p", p))
    if p <= 0:
        raise ValueError(f"{api}(): argument 'p' must be positive, but got {p}")
    d_pos = _pairwise(input, positive, p, epsilon)
    d_neg = _pairwise(input, negative, p, epsilon)
    if swap:
        d_neg = _C.minimum(d_neg, _pairwise(positive, negative, p, epsilon))
    return _reduce(_C.relu(_C.scale(d_pos - d_neg, 1.0, float(margin))), reduction)


def triplet_margin_with_distance_loss(
    input: Tensor,
    positive: Tensor,
    negative: Tensor,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
    name: str | None = None,
) -> Tensor:
    """max(0, d(input, positive) - d(input, negative) + margin) for a distance function d
    (default: the 2-norm pairwise_distance)."""
    api = "triplet_margin_with_distance_loss"
    for n, t in (("input", input), ("positive", positive), ("negative", negative)):
        _floating(api, n, t)
    _reduction(api, reduction)
    if float(margin) < 0:
        raise ValueError(f"{api}(): argument 'margin' must not be negative, but got {margin}")
    if not list(input.shape) == list(positive.shape) == list(negative.shape):
        raise ValueError(
            f"{api}(): 'input' {input.shape}, 'positive' {positive.shape} and "
            f"'negative' {negative.shape} must have the same shape"
        )
    if distance_function is None:

        def distance_function(a, b):
            return _pairwise(a, b, 2.0, 1e-6)
    elif not callable(distance_function):
        raise TypeError(
            f"{api}(): argument 'distance_function' must be callable, but got "
            f"{type(distance_function).__name__}"
        )
    d_pos = distance_function(input, positive)
    d_neg = distance_function(input, negative)
    if swap:
        d_neg = _C.minimum(d_neg, distance_function(positive, negative))
    return _reduce(_C.relu(_C.scale(d_pos - d_neg, 1.0, float(margin))), reduction)
