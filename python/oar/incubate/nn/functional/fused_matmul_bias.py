"""Paddle's GEMM-with-epilogue functions (cuBLASLt fused_gemm_epilogue on a GPU): a
matmul whose bias add, and optionally a relu/gelu, run in the same kernel. On the CPU
they are oar.matmul (or the fused linear op) plus the epilogue; autograd differentiates
the composition."""

from __future__ import annotations

from .... import _C
from ....framework.typing import Tensor
from ....nn import functional as F
from . import _common as c

__all__ = ["fused_matmul_bias", "fused_linear", "fused_linear_activation"]


def _gemm_bias(api, x, y, bias, trans_x, trans_y, names):
    """The checked product plus bias; names: the caller's names for x, y, bias and the
    two transpose flags, so errors speak the caller's language."""
    c.float_tensor(api, names[0], x)
    c.float_tensor(api, names[1], y)
    c.float_tensor(api, names[2], bias)
    trans_x = c.flag(api, names[3], trans_x)
    trans_y = c.flag(api, names[4], trans_y)
    if y.ndim != 2:
        raise ValueError(
            f"{api}(): argument '{names[1]}' must be 2-D, but has shape {list(y.shape)}"
        )
    c.rank_at_least(api, names[0], x, 2)
    n = y.shape[0] if trans_y else y.shape[1]
    k_y = y.shape[1] if trans_y else y.shape[0]
    k_x = x.shape[-2] if trans_x else x.shape[-1]
    if k_x != k_y:
        raise ValueError(
            f"{api}(): the inner dimensions of '{names[0]}' {list(x.shape)} and "
            f"'{names[1]}' {list(y.shape)} differ ({k_x} vs {k_y})"
        )
    if bias.ndim != 1 or bias.shape[0] != n:
        raise ValueError(
            f"{api}(): argument '{names[2]}' must be 1-D of size {n} (the last "
            f"dimension of the product), but has shape {list(bias.shape)}"
        )
    bias = c.like(bias, x)
    if not trans_x and not trans_y:
        return _C.linear(x, c.like(y, x), bias)
    return _C.matmul(x, c.like(y, x), trans_x, trans_y) + bias


def fused_matmul_bias(
    x: Tensor,
    y: Tensor,
    bias: Tensor | None = None,
    transpose_x: bool = False,
    transpose_y: bool = False,
    name: str | None = None,
) -> Tensor:
    """matmul(x, y) + bias in one step.

    Args:
        x (Tensor): The left operand, at least 2-D ([..., M, K], or [..., K, M] with
            transpose_x), floating point.
        y (Tensor): The right operand, 2-D [K, N] ([N, K] with transpose_y).
        bias (Tensor|None, optional): 1-D [N], added to every row of the product. None:
            the plain oar.matmul (then any ranks matmul accepts). Default: None.
        transpose_x (bool, optional): Use the transpose of x's last two axes.
            Default: False.
        transpose_y (bool, optional): Use the transpose of y. Default: False.
        name (str|None, optional): Unused, for Paddle compatibility. Default: None.

    Returns:
        Tensor: [..., M, N] in x's dtype.

    Raises:
        TypeError: x, y or bias not a floating-point Tensor; a transpose flag not a bool.
        ValueError: y not 2-D, x below 2-D, inner dimensions that differ, bias not [N].
    """
    if bias is None:
        c.float_tensor("fused_matmul_bias", "x", x)
        c.float_tensor("fused_matmul_bias", "y", y)
        return _C.matmul(x, y, bool(transpose_x), bool(transpose_y))
    return _gemm_bias(
        "fused_matmul_bias",
        x,
        y,
        bias,
        transpose_x,
        transpose_y,
        ("x", "y", "bias", "transpose_x", "transpose_y"),
    )


def fused_linear(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    transpose_weight: bool = False,
    name: str | None = None,
) -> Tensor:
    """A fully connected layer: x @ weight + bias.

    Args:
        x (Tensor): The input, at least 2-D, [..., in_features].
        weight (Tensor): 2-D [in_features, out_features] ([out_features, in_features]
            with transpose_weight).
        bias (Tensor|None, optional): 1-D [out_features]; None: no bias. Default: None.
        transpose_weight (bool, optional): weight is stored transposed. Default: False.
        name (str|None, optional): Unused, for Paddle compatibility. Default: None.

    Returns:
        Tensor: [..., out_features] in x's dtype.

    Raises:
        TypeError: a non-Tensor or non-floating input.
        ValueError: weight not 2-D, in_features not matching x's last axis, bias not
            [out_features].
    """
    api = "fused_linear"
    c.float_tensor(api, "x", x)
    c.float_tensor(api, "weight", weight)
    if bias is None:
        if weight.ndim != 2:
            raise ValueError(
                f"{api}(): argument 'weight' must be 2-D, but has shape {list(weight.shape)}"
            )
        c.rank_at_least(api, "x", x, 1)
        k = weight.shape[1] if transpose_weight else weight.shape[0]
        if x.shape[-1] != k:
            raise ValueError(
                f"{api}(): the last dimension of 'x' {list(x.shape)} must be "
                f"{k} to match 'weight' {list(weight.shape)}"
            )
        return _C.matmul(x, c.like(weight, x), False, bool(transpose_weight))
    return _gemm_bias(
        api,
        x,
        weight,
        bias,
        False,
        transpose_weight,
        ("x", "weight", "bias", "transpose_x", "transpose_weight"),
    )


_ACTIVATIONS = ("none", "relu", "gelu")


def fused_linear_activation(
    x: Tensor,
    y: Tensor,
    bias: Tensor,
    trans_x: bool = False,
    trans_y: bool = False,
    activation: str | None = None,
) -> Tensor:
    """activation(matmul(x, y) + bias).

    Args:
        x (Tensor): The left operand, at least 2-D.
        y (Tensor): The weight, 2-D [K, N] ([N, K] with trans_y).
        bias (Tensor): 1-D [N].
        trans_x (bool, optional): Use the transpose of x's last two axes. Default: False.
        trans_y (bool, optional): Use the transpose of y. Default: False.
        activation (str|None, optional): 'relu', 'gelu' (the tanh approximation, as the
            cuBLASLt epilogue), or None / 'none'. Default: None.

    Returns:
        Tensor: [..., M, N] in x's dtype.

    Raises:
        TypeError: a non-Tensor or non-floating input.
        ValueError: an unknown activation, or shapes as fused_matmul_bias.
    """
    api = "fused_linear_activation"
    act = "none" if activation is None else activation
    if not isinstance(act, str) or act not in _ACTIVATIONS:
        raise ValueError(
            f"{api}(): argument 'activation' must be 'relu', 'gelu' or None, but got {activation!r}"
        )
    out = _gemm_bias(api, x, y, bias, trans_x, trans_y, ("x", "y", "bias", "trans_x", "trans_y"))
    if act == "relu":
        return F.relu(out)
    # cuBLASLt's GELU epilogue is the tanh approximation
    return F.gelu(out, approximate=True) if act == "gelu" else out
