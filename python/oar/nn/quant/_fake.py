"""Fake quantization with a straight-through gradient, for every quanter and layer."""

from __future__ import annotations

from ... import _C
from ...framework.grad_mode import is_grad_enabled, no_grad

Tensor = _C.Tensor


def fake_quant(x, scale, bit_length=8, quant_axis=-1):
    """x snapped to the symmetric grid of 2^(bit_length-1)-1 steps per scale (one scale,
    or one per slice along quant_axis), in x's dtype. The gradient w.r.t. x is the
    incoming gradient unchanged (Paddle's straight-through estimator): the value is the
    non-differentiable op's, plus x - x.detach(), which is exactly zero and has the
    identity as derivative (to every order)."""
    q = _C.fake_quantize_dequantize(x, scale, bit_length, quant_axis)
    if x.stop_gradient or not is_grad_enabled():
        return q
    return q + (x - x.detach())


@no_grad()
def abs_max(x, quant_axis=None):
    """max |x| over everything (a 1-element tensor), or per slice along quant_axis."""
    a = x.abs()
    if quant_axis is None:
        return a.max().reshape([1])
    axis = quant_axis % x.ndim
    return _C.amax(a, [d for d in range(x.ndim) if d != axis], False)


@no_grad()
def update_moving_scale(scale, state, accum, x, rate):
    """Paddle's moving-average abs-max, in place on 1-element tensors: state = rate *
    state + 1, accum = rate * accum + max|x|, scale = accum / state."""
    state[...] = state * rate + 1.0
    accum[...] = accum * rate + abs_max(x).astype(accum.dtype)
    scale[...] = accum / state


def check_bits(who, bits):
    if isinstance(bits, bool) or not isinstance(bits, int) or not 2 <= bits <= 16:
        raise ValueError(f"{who}: the bit length must be an int in [2, 16], got {bits!r}")
    return bits


def check_rate(who, rate):
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
        raise ValueError(f"{who}: argument 'moving_rate' must be in [0, 1], got {rate!r}")
    return float(rate)
