"""fused_bias_act: Paddle's inference epilogue for the feed-forward matmul. The bias
add, the activation (plain or gated), the smooth-quant shift/scale and the int8 output
quantisation, composed from oar ops (differentiable up to the quantisation)."""

from __future__ import annotations

from .... import _C
from ....framework.typing import Tensor
from ....nn import functional as F
from . import _common as c

__all__ = ["fused_bias_act"]

# Paddle's kernel computes gelu with erf (its FLAGS_use_fast_math tanh form is GPU-only).
_PLAIN = ("gelu", "relu")
_GATED = ("swiglu", "geglu")
_COMPUTE = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def _dequantize(api, x, dequant_scales, compute_dtype):
    """int32 GEMM output * per-column scale, in the compute dtype."""
    if compute_dtype not in _COMPUTE:
        raise ValueError(
            f"{api}(): with an int32 'x', argument 'compute_dtype' must be one of "
            f"'fp32', 'fp16', 'bf16', but got {compute_dtype!r}"
        )
    if dequant_scales is None:
        raise ValueError(f"{api}(): an int32 'x' needs 'dequant_scales'")
    c.float_tensor(api, "dequant_scales", dequant_scales)
    c.shape_is(api, "dequant_scales", dequant_scales, [x.shape[-1]])
    h = _C.cast(x, "float32") * _C.cast(dequant_scales, "float32")
    return _C.cast(h, _COMPUTE[compute_dtype])


def fused_bias_act(
    x: Tensor,
    bias: Tensor | None = None,
    dequant_scales: Tensor | None = None,
    shift: Tensor | None = None,
    smooth: Tensor | None = None,
    act_method: str = "gelu",
    compute_dtype: str = "default",
    quant_scale: float = -1,
    quant_round_type: int = 0,
    quant_max_bound: float = 0,
    quant_min_bound: float = 0,
) -> Tensor:
    """act(x + bias), with Paddle's optional dequantisation, smoothing and quantisation.

    Args:
        x (Tensor): The input, at least 2-D [..., cols], floating point; or int32 (a
            quantised GEMM's output) together with dequant_scales.
        bias (Tensor|None, optional): 1-D [cols], added before the activation.
            Default: None.
        dequant_scales (Tensor|None, optional): 1-D [cols] float scales; only with an
            int32 x, which becomes x * dequant_scales first. Default: None.
        shift (Tensor|None, optional): 1-D [out_cols]; with smooth, the activation's
            output becomes (out + shift) * smooth. Default: None.
        smooth (Tensor|None, optional): 1-D [out_cols]; needed when shift is given.
            Default: None.
        act_method (str, optional): 'gelu' (erf form), 'relu', or the gated 'swiglu'
            (silu(a) * b) and 'geglu' (gelu(a) * b), where a and b are the first and
            second halves of the last axis (out_cols = cols / 2). Default: 'gelu'.
        compute_dtype (str, optional): With an int32 x: 'fp32', 'fp16' or 'bf16', the
            output dtype. Ignored for a floating x. Default: 'default'.
        quant_scale (float, optional): > 0: the output is int8,
            clip(round(quant_max_bound * quant_scale * out), quant_min_bound,
            quant_max_bound). Default: -1 (no quantisation).
        quant_round_type (int, optional): 0 rounds half to even, 1 half away from zero.
            Default: 0.
        quant_max_bound (float, optional): Upper clip bound. Default: 0.
        quant_min_bound (float, optional): Lower clip bound. Default: 0.

    Returns:
        Tensor: [..., out_cols]; x's dtype (the compute dtype for an int32 x), int8 when
        quantised.

    Raises:
        TypeError: x not a Tensor of a floating dtype or int32; dequant_scales with a
            floating x; bias/shift/smooth not floating Tensors.
        ValueError: an unknown act_method, an odd last axis for a gated activation,
            mismatched bias/shift/smooth/dequant_scales sizes, x below 2-D, shift without
            smooth, an int32 x without dequant_scales or a valid compute_dtype.
    """
    api = "fused_bias_act"
    c.tensor(api, "x", x)
    c.rank_at_least(api, "x", x, 2)
    if not isinstance(act_method, str) or act_method not in _PLAIN + _GATED:
        raise ValueError(
            f"{api}(): argument 'act_method' must be one of 'gelu', 'relu', "
            f"'swiglu', 'geglu', but got {act_method!r}"
        )
    cols = x.shape[-1]
    if x.dtype.name == "int32":
        h = _dequantize(api, x, dequant_scales, compute_dtype)
    elif not x.dtype.is_floating_point:
        raise TypeError(
            f"{api}(): argument 'x' must be a floating-point or int32 Tensor, "
            f"but got dtype {x.dtype.name}"
        )
    elif dequant_scales is not None:
        raise TypeError(
            f"{api}(): 'dequant_scales' applies to an int32 'x' only, but 'x' is {x.dtype.name}"
        )
    else:
        h = x
    if bias is not None:
        h = h + c.vector(api, "bias", bias, cols, h)
    if act_method in _GATED:
        if cols % 2:
            raise ValueError(
                f"{api}(): act_method {act_method!r} needs an even last "
                f"dimension of 'x', but got {cols}"
            )
        half = cols // 2
        a = _C.slice(h, [h.ndim - 1], [0], [half])
        b = _C.slice(h, [h.ndim - 1], [half], [cols])
        out = (F.silu(a) if act_method == "swiglu" else F.gelu(a)) * b
    else:
        out = F.gelu(h) if act_method == "gelu" else F.relu(h)
    if shift is not None:
        if smooth is None:
            raise ValueError(f"{api}(): 'shift' needs 'smooth'")
        n = out.shape[-1]
        shift = c.vector(api, "shift", shift, n, out)
        out = (out + shift) * c.vector(api, "smooth", smooth, n, out)
    if c.quant_args(api, quant_scale, quant_round_type, quant_max_bound, quant_min_bound):
        return c.quantize(out, quant_scale, quant_round_type, quant_max_bound, quant_min_bound)
    return out
