"""adaptive_log_softmax_with_loss (Paddle's paddle.nn.functional, Grave et al.,
Efficient softmax approximation for GPUs, 2016): a head softmax over the frequent
classes (the shortlist, below cutoffs[0]) plus one entry per tail cluster, and for a
label in cluster i the log-probability of the cluster plus that of the label within
the cluster (a two-layer projection, then log_softmax). Every row's tail projection is
computed and the rows of other clusters are masked out, so the result is one
differentiable expression."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ... import _C
from ...framework import check as C
from ...framework.typing import Tensor
from ...tensor.creation import to_tensor
from ...framework.dtype import convert_dtype

__all__ = ["adaptive_log_softmax_with_loss"]


def _head(input, head_weight, head_bias):
    out = _C.matmul(input, head_weight)
    if head_bias is not None:
        out = out + head_bias
    return _C.log_softmax(out, 1)


def _cluster_log_prob(input, weights):
    return _C.log_softmax(_C.matmul(_C.matmul(input, weights[0]), weights[1]), 1)


def adaptive_log_softmax_with_loss(
    input: Tensor,
    label: Tensor,
    head_weight: Tensor,
    tail_weights: Sequence[Sequence[Tensor]],
    cutoffs: Sequence[int | Tensor],
    head_bias: Tensor | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """Returns (the log-probability of each label [N], the loss mean(-that)). cutoffs: the
    increasing class boundaries ending with the number of classes (as the layer passes
    them); head_weight [in, cutoffs[0] + clusters]; tail_weights[i] = (projection
    [in, hidden_i], output [hidden_i, size of cluster i])."""
    api = "adaptive_log_softmax_with_loss"
    C.tensor(api, "input", input)
    C.tensor(api, "label", label)
    C.tensor(api, "head_weight", head_weight)
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument 'label' must be an int32 or int64 tensor, but got "
            f"{label.dtype.name}"
        )
    batched = label.ndim == 1
    if label.ndim > 1 or (batched and input.ndim != 2) or (not batched and input.ndim != 1):
        raise ValueError(
            f"{api}(): expected a 1-D label with a 2-D input or a 0-D label with "
            f"a 1-D input, but got label {label.shape} and input {input.shape}"
        )
    if not batched:
        input, label = _C.unsqueeze(input, [0]), _C.unsqueeze(label, [0])
    if input.shape[0] != label.shape[0]:
        raise ValueError(
            f"{api}(): input has {input.shape[0]} rows but label has {label.shape[0]} values"
        )
    cuts = [int(c.item()) if isinstance(c, _C.Tensor) else int(c) for c in cutoffs]
    if not cuts or cuts != sorted(set(cuts)) or cuts[0] <= 0:
        raise ValueError(
            f"{api}(): argument 'cutoffs' must be increasing positive ints, but got {cuts}"
        )
    if len(tail_weights) < len(cuts) - 1:
        raise ValueError(
            f"{api}(): cutoffs {cuts} make {len(cuts) - 1} tail clusters but "
            f"tail_weights has {len(tail_weights)}"
        )
    lab = label.numpy().astype(np.int64)
    if lab.size and (lab.min() < 0 or lab.max() >= cuts[-1]):
        raise ValueError(f"{api}(): label values must be in [0, {cuts[-1] - 1}]")
    shortlist = cuts[0]
    head_lp = _head(input, head_weight, head_bias)
    cluster = np.searchsorted(np.array(cuts), lab, side="right")  # 0: the shortlist
    head_index = np.where(cluster == 0, lab, shortlist + cluster - 1)
    out = _C.squeeze(_C.take_along_axis(head_lp, to_tensor(head_index[:, None]), 1), [1])
    for i in range(1, len(cuts)):
        rows = cluster == i
        if not rows.any():
            continue
        lp = _cluster_log_prob(input, tail_weights[i - 1])
        rel = np.where(rows, lab - cuts[i - 1], 0)
        local = _C.squeeze(_C.take_along_axis(lp, to_tensor(rel[:, None]), 1), [1])
        out = out + _C.where(to_tensor(rows), local, _C.full_like(local, 0.0))
    loss = _C.mean(_C.neg(out))
    if not batched:
        out = _C.squeeze(out, [0])
    return out, loss


def _full_log_prob(input, head_weight, head_bias, tail_weights, cutoffs):
    """[N, n_classes]: the shortlist's head log-probabilities, then each cluster's."""
    head_lp = _head(input, head_weight, head_bias)
    shortlist = cutoffs[0]
    parts = [_C.slice(head_lp, [1], [0], [shortlist])]
    for i in range(len(cutoffs) - 1):
        cluster = _C.slice(head_lp, [1], [shortlist + i], [shortlist + i + 1])
        parts.append(_cluster_log_prob(input, tail_weights[i]) + cluster)
    return _C.concat(parts, 1)


def _predict(log_prob):
    # Paddle returns the class ids as float32
    return _C.cast(_C.argmax(log_prob, 1, False, convert_dtype("int64")), convert_dtype("float32"))
