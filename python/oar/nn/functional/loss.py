"""oar.nn.functional: losses (Paddle's paddle.nn.functional.loss).

cross_entropy and nll_loss run the fused per-sample kernels (cross_entropy_hard /
cross_entropy_soft / nll_pick: one pass per row forward and backward); class weights,
label smoothing and the reductions are applied here, with Paddle's semantics: 'mean'
with a weight divides by the summed weights of the counted samples, ignored samples
count for nothing. mse_loss and l1_loss are compositions of elementwise ops and a
reduction (as fast as a fused kernel would be: one pass each, memory bound).
"""

from __future__ import annotations

from ... import _C
from ...framework import check as C
from ...framework.typing import Tensor
from ._loss_common import _reduction

__all__ = [
    "cross_entropy",
    "softmax_with_cross_entropy",
    "nll_loss",
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "margin_ranking_loss",
    "cosine_embedding_loss",
    # the rest live in _loss_margin, _loss_prob, _loss_sequence, _adaptive_softmax,
    # _margin_ce
    "hinge_embedding_loss",
    "soft_margin_loss",
    "multi_margin_loss",
    "multi_label_margin_loss",
    "multi_label_soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "gaussian_nll_loss",
    "poisson_nll_loss",
    "log_loss",
    "square_error_cost",
    "dice_loss",
    "sigmoid_focal_loss",
    "npair_loss",
    "hsigmoid_loss",
    "ctc_loss",
    "rnnt_loss",
    "adaptive_log_softmax_with_loss",
    "margin_cross_entropy",
]


def _int_label(api, label):
    C.tensor(api, "label", label)
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument 'label' must be an int32 or int64 tensor of class "
            f"indices, but got {label.dtype.name}"
        )
    return label


def _kept(label, ignore_index, dtype):
    """1.0 where the label counts, 0.0 where it equals ignore_index."""
    return _C.cast(_C.not_equal(label, _C.full_like(label, ignore_index)), dtype)


def _class_weight(weight, label, ignore_index, dtype):
    """weight[label] shaped like label, 0 where label == ignore_index."""
    ignored = _C.equal(label, _C.full_like(label, ignore_index))
    safe = _C.where(ignored, _C.full_like(label, 0), label)
    w = _C.index_select(weight, C.reshape_exact(safe, [safe.size]), 0)
    return C.reshape_exact(w, label.shape) * _kept(label, ignore_index, dtype)


def _reduce(loss, reduction, denom=None):
    if reduction == "none":
        return loss
    total = _C.sum(loss)
    if reduction == "sum":
        return total
    if denom is None:
        return _C.mean(loss)
    return total / denom


def cross_entropy(
    input: Tensor,
    label: Tensor,
    weight: Tensor | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    soft_label: bool = False,
    axis: int = -1,
    use_softmax: bool = True,
    label_smoothing: float = 0.0,
    name: str | None = None,
) -> Tensor:
    api = "cross_entropy"
    C.tensor(api, "input", input)
    C.tensor(api, "label", label)
    _reduction(api, reduction)
    a = C.axis(api, "axis", axis, input.ndim)
    ignore_index = C.integer(api, "ignore_index", ignore_index)
    eps = float(C.number(api, "label_smoothing", label_smoothing))
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"{api}(): argument 'label_smoothing' ({eps}) must be in [0, 1]")
    if weight is not None:
        C.tensor(api, "weight", weight)
        if weight.ndim != 1 or weight.shape[0] != input.shape[a]:
            raise ValueError(
                f"{api}(): argument 'weight' has shape {weight.shape} but must be "
                f"[{input.shape[a]}] (one weight per class)"
            )
    n_class = input.shape[a]
    if (
        eps > 0
        and not soft_label
        and label.dtype.is_floating_point
        and list(label.shape) == list(input.shape)
    ):
        # Paddle: with label smoothing, a floating label shaped like input is a one-hot
        # (or soft) label, smoothed like any soft label
        soft_label = True
        label = label.astype(input.dtype)

    if soft_label:
        if list(label.shape) != list(input.shape):
            raise ValueError(
                f"{api}(): argument 'label' has shape {label.shape} but soft labels "
                f"must have the shape of input {input.shape}"
            )
        q = label
        if eps > 0:
            q = q * (1.0 - eps) + eps / n_class
        loss = _soft_loss(input, q, a, use_softmax)
        if weight is None:
            return _reduce(loss, reduction)
        sw = _C.sum(q * _weight_along(weight, input.ndim, a), [a], keepdim=True)
        loss = loss * sw
        return _reduce(loss, reduction, _C.sum(sw) if reduction == "mean" else None)

    _int_label(api, label)
    given = list(label.shape)
    squeeze = label.ndim == input.ndim - 1
    if squeeze:
        label = _C.unsqueeze(label, [a])
    expected = list(input.shape)
    expected[a] = 1
    if list(label.shape) != expected:
        raise ValueError(
            f"{api}(): argument 'label' has shape {given} but must be "
            f"{expected} or that without axis {a} for input of shape {input.shape}"
        )
    kept = _kept(label, ignore_index, input.dtype)
    if use_softmax:
        loss = _C.cross_entropy_hard(input, label, ignore_index, a)
    else:
        loss = _C.nll_pick(_C.log(input), label, ignore_index, a)
    if eps > 0:
        # Paddle's smoothing: the label becomes (1 - eps) one_hot + eps / C, i.e. the
        # hard loss mixed with the loss against the uniform distribution.
        uniform = _C.full_like(input, 1.0 / n_class)
        smooth = _soft_loss(input, uniform, a, use_softmax) * kept
        loss = loss * (1.0 - eps) + smooth * eps
    if weight is not None:
        sw = _class_weight(weight, label, ignore_index, input.dtype)
        if eps > 0:
            sw = sw * (1.0 - eps) + kept * (eps * float(_C.sum(weight).item()) / n_class)
        loss = loss * sw
        denom = _C.sum(sw)
    else:
        denom = _C.sum(kept)
    if squeeze:
        loss = _C.squeeze(loss, [a])
    return _reduce(loss, reduction, denom if reduction == "mean" else None)


def _weight_along(weight, ndim, a):
    shape = [1] * ndim
    shape[a] = weight.shape[0]
    return _C.reshape(weight, shape)


def _soft_loss(input, q, a, use_softmax):
    if use_softmax:
        return _C.cross_entropy_soft(input, q, a)
    return _C.sum(_C.neg(q * _C.log(input)), [a], keepdim=True)


def softmax_with_cross_entropy(
    logits: Tensor,
    label: Tensor,
    soft_label: bool = False,
    ignore_index: int = -100,
    numeric_stable_mode: bool = True,
    return_softmax: bool = False,
    axis: int = -1,
    name: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    api = "softmax_with_cross_entropy"
    C.tensor(api, "logits", logits)
    C.tensor(api, "label", label)
    a = C.axis(api, "axis", axis, logits.ndim)
    if soft_label:
        loss = _C.cross_entropy_soft(logits, label, a)
    else:
        _int_label(api, label)
        if label.ndim == logits.ndim - 1:
            label = _C.unsqueeze(label, [a])
        loss = _C.cross_entropy_hard(logits, label, C.integer(api, "ignore_index", ignore_index), a)
    if return_softmax:
        return loss, _C.softmax(logits, a)
    return loss


def nll_loss(
    input: Tensor,
    label: Tensor,
    weight: Tensor | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    name: str | None = None,
) -> Tensor:
    api = "nll_loss"
    C.tensor(api, "input", input)
    _int_label(api, label)
    _reduction(api, reduction)
    ignore_index = C.integer(api, "ignore_index", ignore_index)
    if input.ndim < 2:
        raise ValueError(
            f"{api}(): argument 'input' must have at least 2 dimensions [N, C, ...], "
            f"but has shape {input.shape}"
        )
    expected = [input.shape[0]] + list(input.shape[2:])
    if (
        label.ndim == input.ndim
        and label.ndim >= 2
        and label.shape[1] == 1
        and [label.shape[0]] + list(label.shape[2:]) == expected
    ):
        label = _C.squeeze(label, [1])  # Paddle also takes the labels with a class axis of 1
    if list(label.shape) != expected:
        raise ValueError(
            f"{api}(): argument 'label' has shape {label.shape} but must be "
            f"{expected} (or {expected[:1] + [1] + expected[1:]}) for input of "
            f"shape {input.shape}"
        )
    if weight is not None:
        C.tensor(api, "weight", weight)
        if weight.ndim != 1 or weight.shape[0] != input.shape[1]:
            raise ValueError(
                f"{api}(): argument 'weight' has shape {weight.shape} but must be "
                f"[{input.shape[1]}] (one weight per class)"
            )
    lab = _C.unsqueeze(label, [1])
    loss = _C.squeeze(_C.nll_pick(input, lab, ignore_index, 1), [1])
    if weight is not None:
        sw = _class_weight(weight, label, ignore_index, input.dtype)
        loss = loss * sw
        denom = _C.sum(sw)
    else:
        denom = _C.sum(_kept(label, ignore_index, input.dtype))
    return _reduce(loss, reduction, denom if reduction == "mean" else None)


def _pair(api, input, label):
    C.tensor(api, "input", input)
    C.tensor(api, "label", label)
    if list(input.shape) != list(label.shape):
        raise ValueError(
            f"{api}(): arguments 'input' {input.shape} and 'label' {label.shape} "
            f"must have the same shape"
        )


def _broadcast_pair(api, input, label):
    """input and label of shapes that broadcast together (Paddle's mse_loss and l1_loss
    subtract them with broadcasting, without a warning: input [N, 1] and label [N] give
    an [N, N] loss)."""
    C.tensor(api, "input", input)
    C.tensor(api, "label", label)
    a, b = list(input.shape), list(label.shape)
    if a == b:
        return
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and x != 1 and y != 1:
            raise ValueError(
                f"{api}(): arguments 'input' {input.shape} and 'label' {label.shape} "
                f"do not broadcast together"
            )


def mse_loss(
    input: Tensor, label: Tensor, reduction: str = "mean", name: str | None = None
) -> Tensor:
    """mean/sum/none of (input - label)^2, input and label broadcast together as in
    Paddle."""
    _broadcast_pair("mse_loss", input, label)
    _reduction("mse_loss", reduction)
    d = input - label
    return _reduce(d * d, reduction)


def l1_loss(
    input: Tensor, label: Tensor, reduction: str = "mean", name: str | None = None
) -> Tensor:
    """mean/sum/none of |input - label|, input and label broadcast together as in
    Paddle."""
    _broadcast_pair("l1_loss", input, label)
    _reduction("l1_loss", reduction)
    return _reduce(_C.abs(input - label), reduction)


def smooth_l1_loss(
    input: Tensor,
    label: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    is_huber: bool = True,
    name: str | None = None,
) -> Tensor:
    """Paddle's smooth_l1_loss is the Huber loss with threshold delta:
    0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta); is_huber=False divides it
    by delta (PyTorch's smooth L1: 0.5 d^2 / delta, else |d| - 0.5 delta)."""
    _pair("smooth_l1_loss", input, label)
    _reduction("smooth_l1_loss", reduction)
    delta = float(delta)
    d = _C.abs(input - label)
    small = _C.less_than(d, _C.full_like(d, delta))
    loss = _C.where(small, _C.scale(d * d, 0.5), _C.scale(d, delta, -0.5 * delta * delta))
    if not is_huber:
        loss = _C.scale(loss, 1.0 / delta)
    return _reduce(loss, reduction)


def _elementwise_weight(api, loss, weight):
    if weight is None:
        return loss
    C.tensor(api, "weight", weight)
    return loss * weight


def binary_cross_entropy(
    input: Tensor,
    label: Tensor,
    weight: Tensor | None = None,
    reduction: str = "mean",
    name: str | None = None,
) -> Tensor:
    api = "binary_cross_entropy"
    _pair(api, input, label)
    _reduction(api, reduction)
    # log clamped at -100, so p = 0 or 1 gives a finite loss (as Paddle and PyTorch do)
    floor = -100.0
    lp = _C.maximum(_C.log(input), _C.full_like(input, floor))
    lq = _C.maximum(_C.log(_C.scale(input, -1.0, 1.0)), _C.full_like(input, floor))
    loss = _C.neg(label * lp + _C.scale(label, -1.0, 1.0) * lq)
    return _reduce(_elementwise_weight(api, loss, weight), reduction)


def binary_cross_entropy_with_logits(
    logit: Tensor,
    label: Tensor,
    weight: Tensor | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
    name: str | None = None,
) -> Tensor:
    api = "binary_cross_entropy_with_logits"
    _pair(api, logit, label)
    _reduction(api, reduction)
    # -[pw y log s(x) + (1 - y) log(1 - s(x))] = (1 - y) x + (1 + (pw - 1) y) softplus(-x),
    # softplus(-x) = log(1 + exp(-|x|)) + max(-x, 0) without overflow.
    sp = _C.log(_C.scale(_C.exp(_C.neg(_C.abs(logit))), 1.0, 1.0)) + _C.relu(_C.neg(logit))
    coef: float | Tensor = 1.0
    if pos_weight is not None:
        C.tensor(api, "pos_weight", pos_weight)
        coef = _C.scale(pos_weight, 1.0, -1.0) * label + 1.0
    loss = _C.scale(label, -1.0, 1.0) * logit + sp * coef
    return _reduce(_elementwise_weight(api, loss, weight), reduction)


def kl_div(
    input: Tensor,
    label: Tensor,
    reduction: str = "mean",
    log_target: bool = False,
    name: str | None = None,
) -> Tensor:
    api = "kl_div"
    _pair(api, input, label)
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ValueError(
            f"{api}(): argument 'reduction' must be one of 'mean', 'batchmean', "
            f"'sum', 'none', but got {reduction!r}"
        )
    if log_target:
        loss = _C.exp(label) * (label - input)
    else:
        # label * (log(label) - input), 0 where label is 0 (the limit)
        pos = _C.greater_than(label, _C.full_like(label, 0.0))
        safe = _C.where(pos, label, _C.full_like(label, 1.0))
        loss = _C.where(pos, label * (_C.log(safe) - input), _C.full_like(input, 0.0) * input)
    if reduction == "batchmean":
        n = input.shape[0] if input.ndim else 1
        return _C.sum(loss) / float(n)
    return _reduce(loss, reduction)


def margin_ranking_loss(
    input: Tensor,
    other: Tensor,
    label: Tensor,
    margin: float = 0.0,
    reduction: str = "mean",
    name: str | None = None,
) -> Tensor:
    api = "margin_ranking_loss"
    C.tensor(api, "input", input)
    C.tensor(api, "other", other)
    C.tensor(api, "label", label)
    _reduction(api, reduction)
    loss = _C.relu(_C.scale(_C.neg(label) * (input - other), 1.0, float(margin)))
    return _reduce(loss, reduction)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    label: Tensor,
    margin: float = 0,
    reduction: str = "mean",
    name: str | None = None,
) -> Tensor:
    api = "cosine_embedding_loss"
    C.tensor(api, "input1", input1)
    C.tensor(api, "input2", input2)
    C.tensor(api, "label", label)
    _reduction(api, reduction)
    if input1.ndim not in (1, 2) or list(input1.shape) != list(input2.shape):
        raise ValueError(
            f"{api}(): arguments 'input1' {input1.shape} and 'input2' "
            f"{input2.shape} must have the same 1-D or 2-D shape"
        )
    a = input1.ndim - 1
    w12 = _C.sum(input1 * input2, [a])
    # as Paddle: a small epsilon keeps zero vectors finite
    n12 = _C.sqrt(
        _C.scale(_C.sum(input1 * input1, [a]), 1.0, 1e-12)
        * _C.scale(_C.sum(input2 * input2, [a]), 1.0, 1e-12)
    )
    cos = w12 / n12
    lab = _C.cast(label, cos.dtype)
    pos = _C.equal(lab, _C.full_like(lab, 1.0))
    neg = _C.relu(_C.scale(cos, 1.0, -float(margin)))
    loss = _C.where(pos, _C.scale(cos, -1.0, 1.0), neg)
    return _reduce(loss, reduction)


from ._loss_margin import _floating  # noqa: E402
from ._loss_margin import (
    hinge_embedding_loss,
    multi_label_margin_loss,  # noqa: E402,F401
    multi_label_soft_margin_loss,
    multi_margin_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from ._loss_prob import (
    dice_loss,
    gaussian_nll_loss,
    hsigmoid_loss,
    log_loss,  # noqa: E402,F401
    npair_loss,
    poisson_nll_loss,
    square_error_cost,
)
from ._loss_sequence import ctc_loss, rnnt_loss  # noqa: E402,F401
from ._adaptive_softmax import adaptive_log_softmax_with_loss  # noqa: E402,F401
from ._margin_ce import margin_cross_entropy  # noqa: E402,F401


def sigmoid_focal_loss(
    logit: Tensor,
    label: Tensor,
    normalizer: Tensor | None = None,
    alpha: float = 0.25,
    gamma: float = 2.0,
    reduction: str = "sum",
    name: str | None = None,
) -> Tensor:
    """Focal loss of logits: the binary cross-entropy times alpha_t * (1 - p_t) ** gamma,
    p_t = sigmoid(logit) where label is 1 and 1 - sigmoid(logit) where it is 0, divided by
    normalizer."""
    api = "sigmoid_focal_loss"
    _floating(api, "logit", logit)
    _floating(api, "label", label)
    _reduction(api, reduction)
    if list(logit.shape) != list(label.shape):
        raise ValueError(
            f"{api}(): arguments 'logit' {logit.shape} and 'label' {label.shape} "
            f"must have the same shape"
        )
    ce = binary_cross_entropy_with_logits(logit, label, reduction="none")
    p = _C.sigmoid(logit)
    p_t = p * label + _C.scale(p, -1.0, 1.0) * _C.scale(label, -1.0, 1.0)
    a = float(alpha)
    alpha_t = _C.scale(label, a, 0.0) + _C.scale(_C.scale(label, -1.0, 1.0), 1.0 - a)
    loss = alpha_t * ce * _C.pow(_C.scale(p_t, -1.0, 1.0), float(gamma))
    if normalizer is not None:
        C.tensor(api, "normalizer", normalizer)
        loss = loss / normalizer
    return _reduce(loss, reduction)
