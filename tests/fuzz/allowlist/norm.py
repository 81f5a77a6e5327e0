"""Normalisation (src/oar/ops/norm.yaml and batch_norm.yaml) and their gradients:
infinite weights and gradients, and the roundoff of their cancelling row sums."""
import re

import numpy as np
import torch

from .common import Difference, _differing, _numbers, _x


def _batch_norm_second_order_roundoff(call, detail, last):
    """batch_norm_grad's own gradient with respect to x sums products of centred values
    whose exact sum is 0 at some elements: what is left is float64 roundoff of either
    sign (6.3e-13 against -5.1e-13, seed 111), set by the order of the channel sums
    (oar's kernel folds 32 lanes once per channel; the oracle's composite formula sums
    otherwise). Only when a single element differs and both values are below 1e-11."""
    v = _numbers(detail)
    return bool(re.match(r"grad of input \d+: 1/\d+ elements differ", detail)) and \
        v is not None and abs(v[0]) < 1e-11 and abs(v[1]) < 1e-11


def _norm_gradient_of_infinite_weight(call, detail, last):
    """layer_norm/rms_norm's (and batch_norm's, per channel) x gradient
    r (g w - mean(g w) - xhat mean(g w xhat)) when the weight holds an infinity: both row
    means are infinite, and which elements come out as inf - inf (or 0 * inf) depends on
    how the terms are grouped and on whether the row's xhat is exactly 0 -- oar's fused
    pass subtracts the means as above, torch's kernel folds them into per-row
    coefficients of x, and the layer_norm_grad oracle's x - mean(x) rounds a constant
    row off 0. Neither value is a derivative. Only when the weight holds inf or NaN and
    every differing element is non-finite in both."""
    return _non_finite_both_beside(call, detail, last, "weight")


def _norm_scale_grad_of_infinite_g(call, detail, last):
    """batch_norm_scale_grad / norm_scale_grad, sum(g xhat), where g holds an infinity
    and a channel (row) is constant: oar's xhat there is exactly 0 and inf * 0 is NaN,
    as in PyTorch's own batch_norm backward; the oracle's forward rounds that xhat off 0
    and sums to ±inf. Only when g holds inf or NaN and every differing element is
    non-finite in both."""
    return _non_finite_both_beside(call, detail, last, "g")


def _norm_scale_grad_roundoff(call, detail, last):
    """The x-gradient of norm_scale_grad, sum(g xhat), and of layer_norm_grad /
    rms_norm_grad (second order): their terms are divided by the row's std (norm_scale_grad)
    or its square, so the roundoff of their cancelling sum grows as 1 / std (1 / std^2).
    With two-element rows xhat is +-1 whatever x is, so the exact gradient is 0, and
    oar's and torch's differ by their roundoff (3.6e-12 at a row of std 0.005, seed 153;
    2.5e-11 at std 0.01 in a second-order layer_norm_grad, seed 166). Only when every
    difference is within 1e-13 * max(1, max 1 / std)^order * the largest magnitudes of
    the other tensor inputs (each at least 1) * the rows summed (norm_scale_grad) or the
    row length (the others), and all inputs are finite."""
    d = call.decl or {}
    second = call.key in ("layer_norm_grad", "rms_norm_grad")
    names = ("weight", "grad_out") if second else ("g",)
    x, others = _x(call, last), [_x(call, last, k) for k in names]
    o, t = last.get("grad_oar"), last.get("grad_torch")
    if x is None or any(v is None for v in others) or o is None or t is None or \
            x.dim() == 0 or last.get("grad_of") != id(d.get("x")) or \
            not all(bool(torch.isfinite(v).all()) for v in [x] + others):
        return False
    axis = int(d.get("begin_norm_axis", 1)) % x.dim()
    xd = x.detach().double()
    dims = tuple(range(axis, x.dim()))
    rms = d.get("rms", False) or call.key == "rms_norm_grad"
    var = (xd * xd).mean(dims) if rms else xd.var(dims, unbiased=False)
    std = torch.sqrt(var + float(d.get("epsilon", 1e-5)))
    if std.numel() == 0 or bool((std == 0).any()):
        return False
    amp = max(1.0, float((1 / std).max())) ** (2 if second else 1)
    scale = 1.0
    for v in others:
        scale *= max(1.0, float(v.detach().double().abs().max())) if v.numel() else 1.0
    count = int(np.prod(x.shape[axis:] if second else x.shape[:axis]))
    a, b = o.detach().double().numpy(), t.detach().double().numpy()
    return a.shape == b.shape and bool(
        (np.abs(a - b) <= 1e-13 * amp * scale * max(1, count)).all())


def _norm_gradient_of_infinite_grad_out(call, detail, last):
    """batch_norm_grad / layer_norm_grad / rms_norm_grad where grad_out holds inf or NaN:
    the row (channel) means of g w are then infinite or NaN, and whether an element
    comes out as inf or as inf - inf = NaN depends on how the terms are grouped (oar's
    fused pass subtracts the means from g w; seed 163: oar NaN, torch inf). Only when
    grad_out holds inf or NaN and every differing element is non-finite in both."""
    return _non_finite_both_beside(call, detail, last, "grad_out")


def _non_finite_both_beside(call, detail, last, name):
    """Input `name` holds inf or NaN, and every differing element is non-finite in both
    oar's result and torch's (or the detail says oar has inf where torch has NaN)."""
    w = _x(call, last, name)
    if w is None or bool(torch.isfinite(w).all()):
        return False
    if detail.endswith("[all: oar inf where torch nan]"):
        return True
    d = _differing(last) if detail.startswith("value") else None
    if d is None:
        return False
    g, t, bad = d
    return bool(bad.any() and (~np.isfinite(g[bad]) & ~np.isfinite(t[bad])).all())


BATCH_NORM_SECOND_ORDER_ROUNDOFF = Difference(
    "batch_norm_grad's second order: roundoff at exact zeros", ["batch_norm_grad"],
    ["grad mismatch"], _batch_norm_second_order_roundoff, _batch_norm_second_order_roundoff.__doc__)
NORM_GRAD_ROUNDOFF_OVER_STD = Difference(
    "a norm gradient's x-gradient: roundoff over the row's std",
    ["norm_scale_grad", "layer_norm_grad", "rms_norm_grad"], ["grad mismatch"],
    _norm_scale_grad_roundoff, _norm_scale_grad_roundoff.__doc__)
INFINITE_GRAD_OUT = Difference(
    "norm gradient with an infinite grad_out",
    ["layer_norm_grad", "rms_norm_grad", "batch_norm_grad"], ["value mismatch"],
    _norm_gradient_of_infinite_grad_out, _norm_gradient_of_infinite_grad_out.__doc__)
INFINITE_WEIGHT = Difference(
    "norm gradient with an infinite weight",
    ["layer_norm", "rms_norm", "layer_norm_grad", "rms_norm_grad", "batch_norm_grad"],
    ["grad mismatch", "value mismatch"], _norm_gradient_of_infinite_weight,
    _norm_gradient_of_infinite_weight.__doc__)
SCALE_GRAD_OF_AN_INFINITE_G = Difference(
    "norm scale gradient of an infinite g on a constant channel",
    ["batch_norm_scale_grad", "norm_scale_grad"], ["value mismatch"],
    _norm_scale_grad_of_infinite_g, _norm_scale_grad_of_infinite_g.__doc__)
