"""fused_dropout_add: dropout(x) + y. Paddle 3.3 itself falls back to exactly this
composition (its fused kernel had precision problems)."""

from __future__ import annotations

import numpy as np

from ....framework.typing import Tensor
from . import _common as c

__all__ = ["fused_dropout_add"]


def fused_dropout_add(
    x: Tensor,
    y: Tensor,
    p: float = 0.5,
    training: bool = True,
    mode: str = "upscale_in_train",
    name: str | None = None,
) -> Tensor:
    """dropout(x, p) + y.

    Args:
        x (Tensor): The tensor dropped out, floating point.
        y (Tensor): Added after the dropout; broadcastable with x.
        p (float, optional): The probability of zeroing an element of x, in [0, 1].
            Default: 0.5.
        training (bool, optional): False: no elements are dropped. Default: True.
        mode (str, optional): 'upscale_in_train' (kept elements / (1 - p) in training,
            x unchanged in inference) or 'downscale_in_infer' (kept elements unscaled in
            training, x * (1 - p) in inference). Default: 'upscale_in_train'.
        name (str|None, optional): Unused, for Paddle compatibility. Default: None.

    Returns:
        Tensor: the broadcast shape of x and y, in x's dtype.

    Raises:
        TypeError: x or y not a floating-point Tensor, p not a number, training not a
            bool.
        ValueError: p outside [0, 1], an unknown mode, shapes that do not broadcast.
    """
    api = "fused_dropout_add"
    c.float_tensor(api, "x", x)
    c.float_tensor(api, "y", y)
    p = c.rate(api, "p", p)
    training = c.flag(api, "training", training)
    m = c.mode(api, mode)
    try:
        np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    except ValueError:
        raise ValueError(
            f"{api}(): the shapes of 'x' {list(x.shape)} and 'y' {list(y.shape)} do not broadcast"
        ) from None
    return c.dropout(x, p, training, m) + c.like(y, x)
