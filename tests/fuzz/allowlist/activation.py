"""Activations (src/oar/ops/activation.yaml) and their *_grad ops: NaN inputs,
infinities and coefficients near float64's limit, where oar's kernels give the limit or
Paddle's answer and torch's formulas overflow or depend on its loop."""
import math
import re
from fractions import Fraction

import numpy as np
import torch

import gen
from .common import Difference, _differing, _grad_differing, _numbers, _x


def _nan_input_of_masked_gradient(call, detail, last):
    """The gradient of a piecewise activation at a NaN input: NaN fails every comparison,
    so torch's scalar loop passes grad_out there while its vectorized loop gives 0
    (hardtanh, the shrinks) or NaN (hardswish, elu, selu, celu) -- the answer depends on
    where the element lies in the tensor. oar always gives the vectorized loop's answer,
    which is also Paddle's. Only when every differing element of a *_grad op's value is
    at a NaN of x, or (gradients) x holds at least as many NaNs as elements differ."""
    x = _x(call, last, "out" if call.key == "hardtanh_grad" else "x")
    if x is None:
        return False
    if detail.startswith("value"):
        d = _differing(last)
        if d is None or tuple(x.shape) != d[0].shape:
            return False
        return bool(d[2].any() and np.isnan(x.detach().double().numpy())[d[2]].all())
    m = re.search(r"(\d+)/\d+ elements differ", detail)
    return m is not None and 0 < int(m.group(1)) <= int(torch.isnan(x).sum())


def _softsign_at_infinity(call, detail, last):
    """softsign's gradient 1 / (1 + |x|)^2 at x = +-inf: oar gives the limit 0, torch
    NaN (inf / inf). Only when x holds an infinity and torch's value is NaN."""
    x = _x(call, last)
    return x is not None and bool(torch.isinf(x).any()) and "want np.float64(nan)" in detail


def _softplus_without_overflow(call, detail, last):
    """softplus with beta * x beyond exp's range (beta = 1e308): oar evaluates the stable
    max(x, 0) + log1p(exp(-|beta x|)) / beta, which is x there; torch's (and Paddle's)
    log1p(exp(beta x)) / beta overflows to inf. Only when every differing element is inf
    in torch and oar's is the stable form's float64 value."""
    d, x = _differing(last), _x(call, last)
    beta = float((call.decl or {}).get("beta", 1.0))
    if d is None or x is None or d[0].shape != tuple(x.shape):
        return False
    g, w, bad = d
    xv = x.detach().double().numpy()
    with np.errstate(over="ignore", invalid="ignore"):
        stable = np.maximum(xv, 0) + np.log1p(np.exp(-np.abs(beta * xv))) / beta
    return bool(bad.any() and np.isinf(w[bad]).all()
                and np.allclose(g[bad], stable[bad], rtol=1e-6, atol=0))


def _softplus_grad_without_overflow(call, detail, last):
    """softplus_grad with beta * x beyond exp's range (beta = 1e308): oar's derivative is
    grad_out * sigmoid(beta x), evaluated without overflow (grad_out itself for x > 0, 0 for
    x < 0); torch's exp(beta x) overflows, and inf / inf gives NaN. Only when every
    differing element is NaN in torch and oar's is that sigmoid's float64 value."""
    d, x = _differing(last), _x(call, last)
    g_in = _x(call, last, "grad_out")
    beta = float((call.decl or {}).get("beta", 1.0))
    if d is None or x is None or g_in is None or d[0].shape != tuple(x.shape) or \
            abs(beta) < 1e300:
        return False
    g, w, bad = d
    xv, gv = x.detach().double().numpy(), g_in.detach().double().numpy()
    with np.errstate(over="ignore", invalid="ignore"):
        sig = np.where(beta * xv > 0, 1.0, np.where(beta * xv < 0, 0.0, 0.5))
        want = np.broadcast_to(gv * sig, g.shape)
    return bool(bad.any() and np.isnan(w[bad]).all()
                and np.allclose(g[bad], want[bad], rtol=1e-6, atol=1e-12, equal_nan=True))


def _selu_grad_of_zero_alpha(call, detail, last):
    """selu_grad's own gradient with alpha = 0: scale * alpha * exp(x) is 0 for every x;
    torch's order of operations overflows first at scale = 1e308 (inf * 0 = NaN). Only
    when alpha is 0 and oar's differing gradients are 0 where torch's are NaN."""
    if float((call.decl or {}).get("alpha", 1.0)) != 0.0:
        return False
    d = _grad_differing(call, last)
    if d is None:
        return False
    g, w, bad, _ = d
    return bool(bad.any() and (g[bad] == 0).all() and np.isnan(w[bad]).all())


def _celu_of_a_subnormal_alpha(call, detail, last):
    """celu (and its gradient) with alpha so small that 1 / alpha overflows (-1e-320): oar
    divides x by alpha, so celu(0) = 0 and its gradient exp(0 / alpha) = 1; torch
    multiplies by the infinite reciprocal, and 0 * inf is NaN. Only when 1 / alpha is
    infinite and every differing element is at x = 0, NaN in torch and not in oar, or
    at a NaN of x, where oar gives NaN ("gradient at a NaN input of a piecewise
    activation"; both in one call at seed 148)."""
    alpha = float((call.decl or {}).get("alpha", 1.0))
    with np.errstate(divide="ignore", over="ignore"):
        if alpha == 0 or math.isfinite(np.float64(1.0) / np.float64(alpha)):
            return False
    d = _grad_differing(call, last) if detail.startswith("grad") else _differing(last)
    x = _x(call, last)
    if d is None or x is None:
        return False
    g, w, bad = d[0], d[1], d[2]
    xv = d[3] if len(d) == 4 else x.detach().double().numpy()
    if xv.shape != g.shape:
        return False
    zero = (xv == 0) & np.isnan(w) & ~np.isnan(g)  # oar's grad_out * 1, inf included
    nan_x = np.isnan(xv) & np.isnan(g)
    return bool(bad.any() and (zero | nan_x)[bad].all() and zero[bad].any())


def _overflowing_sum_over_a_broadcast(call, detail, last):
    """The gradient of a broadcast input (a `bcast` view: one base element read by many
    output elements) is a sum of the output gradients that reach it; when that sum
    overflows float64, which sign of infinity (or NaN, for inf - inf) it ends at depends
    on the order of the additions, which oar's and torch's reductions choose differently.
    Only for a broadcast input of leaky_relu with |negative_slope| >= 1e300 (each term is
    then near float64's limit), and when both gradients are non-finite at every differing
    element."""
    x = call.decl.get("x") if call.decl else None
    if not isinstance(x, gen.T) or x.view != "bcast":
        return False
    r = _grad_differing(call, last)
    if r is None:
        return False
    g, w, bad, _ = r
    return bool(bad.any() and not np.isfinite(g[bad]).any() and not np.isfinite(w[bad]).any()
                and abs(float((call.decl or {}).get("negative_slope", 1e308))) >= 1e300)


def _affine_kink_rounding(call, detail, last):
    """hardsigmoid's gradient is slope strictly inside 0 < slope * x + offset < 1. oar's
    kernel computes slope * x + offset in one fused multiply-add, the oracle with a
    rounded product: at x = 0.87, slope 3, offset -2.61 (seed 147) the fma gives 2.2e-16,
    inside, and the rounded product exactly 0, the kink. Only when at every differing
    element slope * x + offset, computed exactly, lies within 4 eps (of x's dtype) times
    max(|slope x|, |offset|, 1) of 0 or 1."""
    d = call.decl or {}
    x = _x(call, last)
    if x is None:
        return False
    if detail.startswith("grad"):
        r = _grad_differing(call, last)
        if r is None:
            return False
        bad = r[2]
    else:
        r = _differing(last)
        if r is None:
            return False
        bad = r[2]
    xs = np.broadcast_to(x.detach().double().numpy(), bad.shape)[bad]
    if xs.size == 0 or not bool(torch.isfinite(x).all()):
        return False
    slope, offset = float(d.get("slope", 1 / 6)), float(d.get("offset", 0.5))
    eps = float(torch.finfo(x.dtype).eps) if x.dtype.is_floating_point else 0.0
    for v in xs.tolist():
        exact = Fraction(slope) * Fraction(v) + Fraction(offset)
        tol = 4 * eps * max(abs(slope * v), abs(offset), 1.0)
        if min(abs(float(exact)), abs(float(exact - 1))) > tol:
            return False
    return True


def _huge_exp_linear_coefficient(call, detail, last):
    """elu/selu/celu with a negative-side coefficient (alpha, scale * alpha) near
    float64's limit: torch multiplies grad_out by it first, which overflows to inf (and
    to inf * 0 = NaN where the mask then drops it); oar's products stay finite where the
    result is. The second-order gradients multiply four factors (scale * alpha, exp(x),
    grad_out, grad_x_grad), and which grouping overflows differs the other way too: oar
    -inf where torch's order keeps -8.3e306 (seed 107). Only when the coefficient is at
    least 1e300 and the first differing value is not finite on one side."""
    d = call.decl or {}
    coef = abs(float(d.get("alpha", 1.0))) * abs(float(d.get("scale", 1.0)))
    v = _numbers(detail)
    return coef >= 1e300 and v is not None and not (math.isfinite(v[0]) and math.isfinite(v[1]))


def _softplus_at_infinity(call, detail, last):
    """softplus's gradient at x * beta = +inf when the threshold is inf too: torch's
    z / (z + 1), z = e ** (x beta), is inf / inf = NaN; oar's sigmoid gives the limit 1
    (grad_out). Only when every differing element is NaN in torch at an infinite x."""
    x = _x(call, last)
    if x is None:
        return False
    if not detail.startswith("value"):
        return bool(x.isinf().any()) and "want np.float64(nan)" in detail
    d = _differing(last)
    if d is None or d[0].shape != tuple(x.shape):
        return False
    return bool(d[2].any() and np.isnan(d[1][d[2]]).all() and
                np.isinf(x.detach().double().numpy()[d[2]]).all())


NAN_INPUT_OF_A_PIECEWISE_GRADIENT = Difference(
    "gradient at a NaN input of a piecewise activation",
    [k + s for k in ("hardtanh", "hardswish", "softshrink", "hardshrink", "hardsigmoid",
                     "thresholded_relu", "leaky_relu", "elu", "selu", "celu")
     for s in ("", "_grad")] + ["hardtanh_"],
    ["grad mismatch", "value mismatch"],
    _nan_input_of_masked_gradient, _nan_input_of_masked_gradient.__doc__)
OVERFLOWING_SUM_OVER_A_BROADCAST = Difference(
    "an overflowing gradient sum over a broadcast input", ["leaky_relu"], ["grad mismatch"],
    _overflowing_sum_over_a_broadcast, _overflowing_sum_over_a_broadcast.__doc__)
SOFTSIGN_AT_INFINITY = Difference(
    "softsign gradient at infinity", ["softsign", "softsign_grad"],
    ["grad mismatch", "value mismatch"], _softsign_at_infinity, _softsign_at_infinity.__doc__)
SOFTPLUS_WITHOUT_OVERFLOW = Difference(
    "softplus where beta * x overflows exp", ["softplus"], ["value mismatch"],
    _softplus_without_overflow, _softplus_without_overflow.__doc__)
SOFTPLUS_GRAD_WITHOUT_OVERFLOW = Difference(
    "softplus_grad where beta * x overflows exp", ["softplus_grad"], ["value mismatch"],
    _softplus_grad_without_overflow, _softplus_grad_without_overflow.__doc__)
SELU_GRAD_OF_ZERO_ALPHA = Difference(
    "selu_grad's gradient with alpha 0", ["selu_grad"], ["grad mismatch"], _selu_grad_of_zero_alpha,
    _selu_grad_of_zero_alpha.__doc__)
CELU_OF_A_SUBNORMAL_ALPHA = Difference(
    "celu with a subnormal alpha", ["celu", "celu_grad"], ["value mismatch", "grad mismatch"],
    _celu_of_a_subnormal_alpha, _celu_of_a_subnormal_alpha.__doc__)
HARDSIGMOID_KINK_ROUNDING = Difference(
    "hardsigmoid's kink: a fused multiply-add against a rounded product",
    ["hardsigmoid", "hardsigmoid_grad"], ["grad mismatch", "value mismatch"], _affine_kink_rounding,
    _affine_kink_rounding.__doc__)
HUGE_EXP_LINEAR_COEFFICIENT = Difference(
    "elu/selu/celu coefficient near float64's limit",
    ["elu", "elu_grad", "selu", "selu_grad", "celu", "celu_grad"],
    ["value mismatch", "grad mismatch"], _huge_exp_linear_coefficient,
    _huge_exp_linear_coefficient.__doc__)
SOFTPLUS_AT_INFINITY = Difference(
    "softplus gradient at infinity", ["softplus", "softplus_grad"],
    ["value mismatch", "grad mismatch"], _softplus_at_infinity, _softplus_at_infinity.__doc__)
