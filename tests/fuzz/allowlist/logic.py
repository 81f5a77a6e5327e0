"""Comparisons (src/oar/ops/logic.yaml): isclose and allclose."""
from fractions import Fraction

import numpy as np
import torch

from .common import Difference, _x


def _integer_isclose_in_float32(call, detail, last):
    """isclose (and allclose) of integer tensors with an rtol past float32's range: torch
    computes atol + rtol * |y| for integers in float32, where rtol is inf and inf * 0 is NaN, so
    a y of 0 is never close; oar computes in float64 and gives the value torch gives for
    the same numbers as float64 tensors."""
    d = call.decl or {}
    x, y, out = _x(call, last), _x(call, last, "y"), last.get("out")
    if x is None or y is None or out is None or x.is_floating_point() or \
            y.is_floating_point() or abs(float(d.get("rtol", 1e-5))) <= 3.4e38:
        return False
    want = torch.isclose(x.double(), y.double(), float(d.get("rtol", 1e-5)),
                         float(d.get("atol", 1e-8)), bool(d.get("equal_nan", False)))
    if call.key == "allclose":  # all of isclose's answers (seed 139)
        want = want.all()
    return np.array_equal(np.asarray(out.numpy()), want.numpy())


def _isclose_tolerance_in_one_rounding(call, detail, last):
    """isclose/allclose compute atol + rtol * |y| in one fused multiply-add (the compiler
    contracts it), so the tolerance is rounded once where torch rounds the product and
    the sum: at a tie to roundoff (|x - y| equal to the tolerance within two ulps:
    2.24 and -0.15 with rtol 3, atol 1.94, seed 223) the answers can differ. Only when
    every differing element is such a tie and oar's answer is the comparison with the
    tolerance rounded once."""
    d = call.decl or {}
    x, y, out, want = _x(call, last), _x(call, last, "y"), last.get("out"), last.get("want")
    if x is None or y is None or out is None or want is None or call.key != "isclose" or \
            not (x.is_floating_point() and y.is_floating_point()):
        return False
    rtol, atol = float(d.get("rtol", 1e-5)), float(d.get("atol", 1e-8))
    xs, ys = np.broadcast_arrays(x.detach().double().numpy(), y.detach().double().numpy())
    got, ref = np.asarray(out.numpy()), np.asarray(want.numpy())
    if got.shape != xs.shape or ref.shape != xs.shape:
        return False
    bad = np.argwhere(got != ref)
    if len(bad) == 0:
        return False
    for idx in map(tuple, bad):
        a, b = float(xs[idx]), float(ys[idx])
        if not (np.isfinite(a) and np.isfinite(b)):
            return False
        diff = abs(a - b)
        tol = float(Fraction(rtol) * Fraction(abs(b)) + Fraction(atol))
        if abs(diff - tol) > 4.5e-16 * max(diff, tol) or bool(got[idx]) != (diff <= tol):
            return False
    return True


ISCLOSE_TOLERANCE_ROUNDED_ONCE = Difference(
    "isclose's tolerance rounded once (a tie at roundoff)", ["isclose"], ["value mismatch"],
    _isclose_tolerance_in_one_rounding, _isclose_tolerance_in_one_rounding.__doc__)
INTEGER_ISCLOSE_IN_FLOAT32 = Difference(
    "integer isclose: torch's rtol * |y| in float32", ["isclose", "allclose"], ["value mismatch"],
    _integer_isclose_in_float32, _integer_isclose_in_float32.__doc__)
