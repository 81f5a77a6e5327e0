"""Paddle's incubate loss marker and fused masked softmaxes, composed from oar ops so
that autograd differentiates them like any other expression."""

from __future__ import annotations

import numpy as np

from .. import _C
from ..tensor.manipulation import assign
from ..tensor.creation import to_tensor
from ..framework.typing import Tensor

_REDUCTIONS = {"sum": 0, "mean": 1, "none": 2}
_FLOATS = ("float32", "float64")


def _check_float(api, arg, t):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"{api}(): argument '{arg}' must be a Tensor, but got {type(t).__name__}")
    dt = str(t.dtype).replace("paddle.", "").replace("oar.", "")
    if dt not in _FLOATS:
        raise TypeError(
            f"{api}(): argument '{arg}' must be float32 or float64 on the CPU, but got {dt}"
        )
    return dt


def identity_loss(x: Tensor, reduction: str | int = "none") -> Tensor:
    """Mark x as (part of) the loss, reducing it as asked. On an IPU this tells the
    graph compiler where backpropagation starts; in eager mode it is the reduction.

    Args:
        x (Tensor): The loss, float32 or float64, any shape.
        reduction (str|int, optional): 'sum' (or 0), 'mean' (or 1) or 'none' (or 2);
            strings are case-insensitive. Default: 'none'.

    Returns:
        Tensor: a 0-D tensor for 'sum' and 'mean', a copy of x (same shape) for 'none';
        the gradient flows to x in every case.

    Raises:
        TypeError: an unknown reduction string, or x not a float32/float64 Tensor.
        ValueError: an integer reduction other than 0, 1 or 2.
    """
    if isinstance(reduction, str):
        code = _REDUCTIONS.get(reduction.lower())
        if code is None:
            raise TypeError("Unsupported reduction type.")
        reduction = code
    _check_float("identity_loss", "x", x)
    if reduction not in (0, 1, 2):
        raise ValueError(f"identity_loss(): reduction should be 0, 1 and 2. But get {reduction}")
    if reduction == 0:
        return x.sum()
    if reduction == 1:
        return x.mean()
    # A new tensor, as Paddle's op returns, so in-place edits of the result leave x alone.
    return assign(x)


def _check_4d(api, arg, t):
    if t.ndim != 4:
        raise ValueError(
            f"{api}(): Input {arg} must be in 4D dimension but received the "
            f"dimension of {arg} is {t.ndim}"
        )


def softmax_mask_fuse(x: Tensor, mask: Tensor, name: str | None = None) -> Tensor:
    """softmax(x + mask) over the last axis: the attention-score softmax of a
    Transformer with an additive mask shared by all heads.

    Args:
        x (Tensor): The scores, 4-D [batch, heads, query_len, key_len], float32 or
            float64.
        mask (Tensor): The additive mask, 4-D [batch, 1, query_len, key_len], the dtype
            of x (large negative values, e.g. -10000, hide a position). It gets no
            gradient, as in Paddle.
        name (str|None, optional): Unused, for Paddle compatibility. Default: None.

    Returns:
        Tensor: the shape and dtype of x; each row over the last axis sums to 1.

    Raises:
        TypeError: x or mask not a float32/float64 Tensor, or their dtypes differ.
        ValueError: x or mask not 4-D, mask's second dimension not 1, or the other
            dimensions of x and mask not equal.
    """
    api = "softmax_mask_fuse"
    if isinstance(mask, _C.Tensor) and mask.size == 0:
        # Paddle returns the plain sum for an empty mask (a broadcast error unless x
        # is empty too).
        return x + mask
    dx = _check_float(api, "x", x)
    dm = _check_float(api, "mask", mask)
    _check_4d(api, "x", x)
    _check_4d(api, "mask", mask)
    if mask.shape[1] != 1:
        raise ValueError(
            f"{api}(): Input mask's second dim must be 1 received the second "
            f"dimension of mask is {mask.shape[1]}"
        )
    for i in (0, 2, 3):
        if x.shape[i] != mask.shape[i]:
            raise ValueError(
                f"{api}(): Input x's {i}th dim should be equal with input "
                f"mask's {i}th dim but the {i}th dim of x is {x.shape[i]}, "
                f"while the {i}th dim of mask is {mask.shape[i]}."
            )
    if dx != dm:
        raise TypeError(f"{api}(): argument 'mask' must have the dtype of x ({dx}), but got {dm}")
    return _C.softmax(x + mask.detach(), -1)


def softmax_mask_fuse_upper_triangle(x: Tensor) -> Tensor:
    """softmax over the last axis with every position above the diagonal hidden: the
    causal (GPT) attention softmax. Row i of each [query_len, key_len] matrix is the
    softmax of its first i + 1 entries, followed by zeros.

    Args:
        x (Tensor): The scores, 4-D [batch, heads, seq_len, seq_len], float32 or
            float64.

    Returns:
        Tensor: the shape and dtype of x.

    Raises:
        TypeError: x not a float32/float64 Tensor.
        ValueError: x not 4-D, or its last two dimensions differ.
    """
    api = "softmax_mask_fuse_upper_triangle"
    dt = _check_float(api, "x", x)
    _check_4d(api, "x", x)
    q, k = x.shape[2], x.shape[3]
    if q != k:
        raise ValueError(
            f"{api}(): Key seq len must be equal with query seq len, but got "
            f"query_len {q} and key_len {k}"
        )
    # -inf above the diagonal: exp gives exact zeros there, so those outputs (and
    # their gradients) are 0, and the diagonal keeps every row non-empty.
    tri = np.triu(np.full((q, k), -np.inf, dtype=dt), 1)
    return _C.softmax(x + to_tensor(tri, dtype=dt), -1)
