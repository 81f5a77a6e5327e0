"""oar.compat.nn.functional: paddle.compat.nn.functional, PyTorch's signatures
(`input`, torch's pad order and weight layout [out_features, in_features])."""

from __future__ import annotations

from typing import Union

from ... import _C
from ...framework import check as C
from ...framework.dtype import convert_dtype
from ...nn.functional import unfold as _unfold
from ...nn.functional.flash_attention import scaled_dot_product_attention as _sdpa
from ...nn.functional.padding import _PAD_MODES
from .._out import _write
from ...framework.typing import DTypeLike, IntsLike

Tensor = _C.Tensor

_IntsOrTensor = Union[IntsLike, Tensor]

__all__ = ["pad", "softmax", "linear", "scaled_dot_product_attention", "unfold"]


def _implicit_dim(ndim):
    # PyTorch's legacy rule for softmax without a dim.
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor,
    dim: int | None = None,
    dtype: DTypeLike | None = None,
    *,
    out: Tensor | None = None,
    _stacklevel: int = 3,
) -> Tensor:
    """Softmax along dim (None: PyTorch's implicit dim, 0 for 0-, 1- and 3-D input, else
    1); with dtype, input is cast first."""
    C.tensor("softmax", "input", input)
    if dim is None:
        dim = _implicit_dim(input.ndim)
    a = C.axis("softmax", "dim", dim, max(input.ndim, 1))
    x = input if dtype is None else _C.cast(input, convert_dtype(dtype))
    ret = _C.softmax(x, a)
    if out is not None:
        return _write("softmax", ret, out)
    return ret


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias, weight in PyTorch's layout [out_features, in_features]."""
    C.tensor("linear", "input", input)
    C.tensor("linear", "weight", weight)
    if weight.ndim not in (1, 2):
        raise ValueError(
            f"linear(): argument 'weight' must be 1-D or 2-D [out_features, "
            f"in_features], but has shape {weight.shape}"
        )
    out = _C.matmul(input, weight, False, weight.ndim == 2)
    if bias is not None:
        C.tensor("linear", "bias", bias)
        out = _C.add(out, bias)
    return out


def pad(
    input: Tensor,
    pad: list[int] | tuple[int, ...] | Tensor,
    mode: str = "constant",
    value: float = 0.0,
) -> Tensor:
    """PyTorch's pad: pad = (before, after) of the last dim, then of the one before, ...
    (at most 3 dims; non-constant modes leave the first two dims alone). Modes
    'constant', 'reflect', 'replicate', 'circular'."""
    C.tensor("pad", "input", input)
    if mode not in _PAD_MODES:
        raise ValueError(
            f"pad(): argument 'mode' must be one of 'constant', 'reflect', "
            f"'replicate', 'circular', but got {mode!r}"
        )
    if isinstance(pad, Tensor):
        pad = [int(v) for v in pad.numpy().reshape(-1).tolist()]
    if not isinstance(pad, (list, tuple)):
        raise TypeError(
            f"pad(): argument 'pad' must be a list or tuple of int, but got {type(pad).__name__}"
        )
    pads = [C.integer("pad", f"pad[{i}]", v) for i, v in enumerate(pad)]
    n = input.ndim
    if len(pads) % 2:
        raise ValueError(f"pad(): argument 'pad' must have an even length, but has {len(pads)}")
    limit = 2 * n if mode == "constant" else 2 * n - 2
    if mode != "constant" and n < 2:
        raise ValueError(
            f"pad(): {mode} padding needs at least a 2-D input, but got shape {input.shape}"
        )
    if len(pads) > limit or (mode != "constant" and len(pads) > 6):
        raise ValueError(
            f"pad(): argument 'pad' has {len(pads)} entries; at most "
            f"{min(limit, 6) if mode != 'constant' else limit} for a {n}-D input "
            f"in {mode} mode"
        )
    per_axis = [[0, 0] for _ in range(n)]
    for k in range(len(pads) // 2):
        per_axis[n - 1 - k] = pads[2 * k : 2 * k + 2]
    flat = [v for p in per_axis for v in p]
    return _C.pad(input, flat, _PAD_MODES[mode], C.number("pad", "value", value))


def unfold(
    input: Tensor,
    kernel_size: _IntsOrTensor,
    dilation: _IntsOrTensor = 1,
    padding: _IntsOrTensor = 0,
    stride: _IntsOrTensor = 1,
) -> Tensor:
    """Sliding blocks of input [N, C, H, W] as columns [N, C * kh * kw, L] (PyTorch's
    argument order: kernel_size, dilation, padding, stride)."""

    def as_list(v):
        return v.numpy().reshape(-1).tolist() if isinstance(v, Tensor) else v

    return _unfold(
        input, as_list(kernel_size), as_list(stride), as_list(padding), as_list(dilation)
    )


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """PyTorch's layout [..., heads, seq_len, head_dim]; a bool mask keeps True positions,
    a float mask is added to the scores."""
    for n, t in (("query", query), ("key", key), ("value", value)):
        C.tensor("scaled_dot_product_attention", n, t)
        if t.ndim < 3:
            raise ValueError(
                f"scaled_dot_product_attention(): argument '{n}' must be at least "
                f"3-D [..., seq_len, head_dim], but has shape {t.shape}"
            )
    if enable_gqa:
        raise ValueError(
            "scaled_dot_product_attention(): enable_gqa=True (grouped-query "
            "attention) is not supported by oar.compat"
        )
    d = query.shape[-1]
    if scale is not None:  # sdpa divides by sqrt(d): pre-scale q to get `scale` overall
        query = _C.scale(query, float(scale) * (max(d, 1) ** 0.5))

    def to_paddle(t):  # [..., S, H?]: move the seq axis after the heads axis
        if t.ndim == 3:
            return _C.transpose(t, [1, 0, 2])
        perm = list(range(t.ndim - 3)) + [t.ndim - 2, t.ndim - 3, t.ndim - 1]
        return _C.transpose(t, perm)

    out = _sdpa(
        to_paddle(query), to_paddle(key), to_paddle(value), attn_mask, dropout_p, is_causal, True
    )
    return to_paddle(out)
