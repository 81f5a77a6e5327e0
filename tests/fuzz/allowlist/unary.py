"""Unary ops (src/oar/ops/unary.yaml): scale's fused multiply-add and pow's double
exponent."""
from .common import Difference, _differing_only_where_torch_is_non_finite


def _double_exponent(call, detail, last):
    """pow's scalar exponent is a double (Paddle's float attribute); torch's vectorised
    loop rounds it to float32 for integer and float32 tensors, so an exponent below
    float32's range (|y| < 1.2e-38, e.g. -1e-320) is 0 to torch but not to oar: x ** -1e-320
    of 60 int64 values (seed 7, call 100097) is 1 everywhere in torch, and in oar NaN at
    a negative x (a non-integer power), inf at 0 and 1 elsewhere -- as torch's own
    answer for a 9-element tensor. Only when y is a non-zero float of magnitude below
    float32's smallest normal (1.1754944e-38); the value is not re-checked."""
    y = call.decl.get("y") if call.decl else None
    return isinstance(y, float) and y != 0.0 and abs(y) < 1.1754944e-38


def _fused_multiply_add(call, detail, last):
    """scale = x * scale + bias in one fused multiply-add: no intermediate overflow near
    float64's limit (|scale| ~ 1e308), so 1e308 * x + 1e308 stays finite and
    1e308 * x + inf is inf, where torch's two roundings overflow to ±inf or NaN. Only
    when every differing element is non-finite in torch, and the scale or bias huge."""
    d = call.decl or {}
    if max(abs(float(d.get("scale", 1.0))), abs(float(d.get("bias", 0.0)))) < 1e300:
        return False
    if detail.endswith("[all: oar inf where torch nan]"):
        return True
    if "grad" in detail:
        # The gradient is g * scale: with |scale| ~ 1e308 whether its sum over
        # broadcast rows overflows depends on the summation order.
        return abs(float(d.get("scale", 1.0))) >= 1e300
    return _differing_only_where_torch_is_non_finite(last)


SCALE_FUSED_MULTIPLY_ADD = Difference(
    "scale is one fused multiply-add", ["scale", "scale_"], ["value mismatch", "grad mismatch"],
    _fused_multiply_add, _fused_multiply_add.__doc__)
POW_EXPONENT_IS_A_DOUBLE = Difference(
    "pow's exponent is a double", ["pow"], ["value mismatch", "grad mismatch"], _double_exponent,
    _double_exponent.__doc__)
