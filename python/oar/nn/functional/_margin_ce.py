"""margin_cross_entropy: the combined-margin softmax loss of ArcFace / CosFace /
SphereFace (Paddle's paddle.nn.functional.margin_cross_entropy), on one process.

Each row's target logit cos(theta) becomes cos(m1 * theta + m2) - m3, every logit is
scaled by s, and the loss is the cross entropy of the softmax of the result. A
composition of differentiable ops, so the gradient is the derivative of that formula (the
one Paddle's GPU kernel writes out by hand). Paddle has no CPU kernel for it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _C
from ...framework import check as C
from ...framework.dtype import convert_dtype
from ...framework import collective

Tensor = _C.Tensor

__all__ = ["margin_cross_entropy"]


def _as_attr(api, name, v):
    # Paddle passes the margins and the scale to its kernel as float32 attributes: rounding
    # them the same way keeps float64 results equal to Paddle's (0.35 is 0.3499999940...)
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{api}(): argument '{name}' must be a number, but got {type(v).__name__}")
    return float(np.float32(v))


def _single_process(api, group):
    """None for a group this process is not in (Paddle then returns None), else True;
    raises for the model-parallel case across several processes."""
    if group is False:
        return True  # data parallel: no communication, each process on its own logits
    if group is not None and not hasattr(group, "is_member"):
        raise ValueError(
            f"{api}(): argument 'group' must be False, None or a Group from "
            f"oar.distributed.new_group, but got {group!r}"
        )
    if group is not None and not group.is_member():
        return None
    get_world_size = collective.distributed().get_world_size
    if get_world_size(group) > 1:
        raise NotImplementedError(
            f"{api}(): logits sharded across {get_world_size(group)} "
            f"processes (model parallel) are not supported; pass "
            f"group=False to compute each process's loss on its own"
        )
    return True


def margin_cross_entropy(
    logits: Tensor,
    label: Tensor,
    margin1: float = 1.0,
    margin2: float = 0.5,
    margin3: float = 0.0,
    scale: float = 64.0,
    group: Any = None,
    return_softmax: bool = False,
    reduction: str | None = "mean",
) -> Tensor | tuple[Tensor, Tensor] | None:
    """The combined-margin (ArcFace/CosFace) cross entropy of cosine logits.

    With theta_y = acos(logits[i, y]) for each row's label y, the target logit becomes
    cos(margin1 * theta_y + margin2) - margin3; all logits are multiplied by scale, and
    the loss is -log softmax at the label. The defaults are ArcFace's (m2 = 0.5); CosFace
    is margin1=1, margin2=0, margin3=m.

    Args:
        logits (Tensor): [N, C] cosines (normalised features times normalised class
            weights), or [..., C]; float16, bfloat16, float32 or float64 (the half types
            compute in float32).
        label (Tensor): [N] or [N, 1] int32/int64 class indices in [0, C).
        margin1 (float, optional): m1, multiplying the angle. Default: 1.0.
        margin2 (float, optional): m2, added to the angle. Default: 0.5.
        margin3 (float, optional): m3, subtracted from the cosine. Default: 0.0.
        scale (float, optional): s, multiplying every logit. Default: 64.0.
        group (Group|bool|None, optional): None or a one-process group (logits of all
            classes here), or False (no communication); a group of several processes
            raises NotImplementedError, and a group this process is not in returns None.
            Default: None.
        return_softmax (bool, optional): Also return the softmax of the adjusted, scaled
            logits. Default: False.
        reduction (str|None, optional): 'mean', 'sum', or 'none' / None for the per-row
            losses of shape [N, 1]. Default: 'mean'.

    Returns:
        Tensor | tuple[Tensor, Tensor]: the loss, or (loss, softmax).

    Examples:
        >>> import oar
        >>> import oar.nn.functional as F
        >>> logits = oar.to_tensor([[0.6, 0.8], [1.0, 0.0]])
        >>> loss = F.margin_cross_entropy(logits, oar.to_tensor([1, 0]), margin2=0.0,
        ...                               scale=1.0, reduction=None)
        >>> [round(float(v), 4) for v in loss.flatten()]
        [0.5981, 0.3133]
    """
    api = "margin_cross_entropy"
    if reduction not in ("mean", "sum", "none", None):
        raise ValueError(
            f"{api}(): argument 'reduction' must be 'mean', 'sum', 'none' or "
            f"None, but got {reduction!r}"
        )
    m1, m2, m3 = (
        _as_attr(api, n, v)
        for n, v in (("margin1", margin1), ("margin2", margin2), ("margin3", margin3))
    )
    s = _as_attr(api, "scale", scale)
    if _single_process(api, group) is None:
        return None
    C.tensor(api, "logits", logits)
    C.tensor(api, "label", label)
    if not logits.dtype.is_floating_point:
        raise TypeError(
            f"{api}(): argument 'logits' must be a float16, bfloat16, float32 or "
            f"float64 tensor, but got {logits.dtype.name}"
        )
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument 'label' must be an int32 or int64 tensor, but got "
            f"{label.dtype.name}"
        )
    if logits.ndim == 0 or logits.shape[-1] == 0:
        raise ValueError(
            f"{api}(): argument 'logits' must have a non-empty last dimension "
            f"(the classes), but has shape {logits.shape}"
        )
    lead, n_class = list(logits.shape[:-1]), logits.shape[-1]
    if list(label.shape) == lead:
        label = _C.unsqueeze(label, [-1])
    elif list(label.shape) != lead + [1]:
        raise ValueError(
            f"{api}(): argument 'label' must have shape {lead} or {lead + [1]} "
            f"for logits of shape {logits.shape}, but has shape {label.shape}"
        )
    values = label.numpy()
    if values.size and (values.min() < 0 or values.max() >= n_class):
        bad = values[(values < 0) | (values >= n_class)].flat[0]
        raise ValueError(
            f"{api}(): argument 'label' holds {bad}, outside the classes [0, {n_class})"
        )
    out_dtype = logits.dtype
    x = logits
    if out_dtype.name in ("float16", "bfloat16"):
        x = _C.cast(x, convert_dtype("float32"))
    label = _C.cast(label, convert_dtype("int64"))
    target = _C.take_along_axis(x, label, -1)
    # Paddle skips an identity margin rather than computing cos(acos(x)), which would
    # give infinite gradients at |x| = 1
    if abs(m1 - 1.0) > 1e-8 or abs(m2) > 1e-8:
        theta = _C.acos(target)
        if abs(m1 - 1.0) > 1e-8:
            theta = _C.scale(theta, m1)
        if abs(m2) > 1e-8:
            theta = _C.scale(theta, 1.0, m2)
        target = _C.cos(theta)
    if abs(m3) > 1e-8:
        target = _C.scale(target, 1.0, -m3)
    is_target = _C.cast(_C.one_hot(_C.squeeze(label, [-1]), n_class), convert_dtype("bool"))
    adjusted = _C.where(is_target, target, x)  # target [.., 1] broadcasts along the classes
    log_prob = _C.log_softmax(_C.scale(adjusted, s), -1)
    loss = _C.scale(_C.take_along_axis(log_prob, label, -1), -1.0)
    if reduction == "mean":
        loss = _C.mean(loss)
    elif reduction == "sum":
        loss = _C.sum(loss)
    if out_dtype != x.dtype:
        loss = _C.cast(loss, out_dtype)
    if not return_softmax:
        return loss
    softmax = _C.exp(log_prob)
    if out_dtype != x.dtype:
        softmax = _C.cast(softmax, out_dtype)
    return loss, softmax
