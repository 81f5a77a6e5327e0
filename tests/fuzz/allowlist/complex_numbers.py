"""Complex arithmetic, for every op with a complex result or gradient: infinite and NaN
parts (C99's Annex G against torch's formulas), branch cuts, and pow at a zero base."""
import numpy as np
import torch

import gen
from .common import Difference, _differing, _grad_arrays


# The complex functions with branch cuts, which all lie on the real or imaginary axis.
BRANCH_CUT_OPS = ["asinh", "acosh", "atanh", "asin", "acos", "atan", "log", "log2", "log10",
                  "log1p", "sqrt", "rsqrt", "elementwise_pow", "pow", "angle"]


def _complex_infinities(call, detail, last):
    """Complex arithmetic on an infinite or NaN part has no one answer: oar's kernels
    follow std::complex (C99's Annex G), torch's vectorised formulas differ -- its add
    and subtract multiply the second operand by alpha = 1 + 0i, so inf * 0 makes the
    other part NaN ((-1.25 - 1.62i) - (inf + 2.31i): oar -inf - 3.93i, torch -inf + NaN i),
    and its tanh' of an infinite z is NaN where oar's is an infinity; gradients alike. Only
    for a complex result (or gradient), when an input holds a non-finite part and every
    differing element has a non-finite part on one side or the other (an infinite or huge
    float attribute, as scale's bias or pow's exponent 1e308, counts as an input); with
    finite inputs that overflow (a long complex cumprod), when both sides are non-finite
    there."""
    d = _differing(last) if detail.startswith("value") else _grad_arrays(last)
    if d is None or not (np.iscomplexobj(d[0]) or np.iscomplexobj(d[1])):
        return False
    g, w, bad = d
    attrs = [v for v in (call.decl or {}).values() if isinstance(v, float)]
    non_finite_input = any(t.data and not np.isfinite(np.asarray(t.data, np.complex128)).all()
                           for t in call.tensors())
    huge_attr = any(not np.isfinite(v) or abs(v) >= 1e300 for v in attrs)
    if not (non_finite_input or huge_attr):
        # finite inputs can still overflow (a long cumprod): then both sides must be
        # non-finite at every differing element
        d0 = _differing(last) if detail.startswith("value") else _grad_arrays(last)
        if d0 is None:
            return False
        with np.errstate(invalid="ignore"):
            return bool(d0[2].any() and (~np.isfinite(d0[0][d0[2]])).all()
                        and (~np.isfinite(d0[1][d0[2]])).all())
    with np.errstate(invalid="ignore"):
        return bool(bad.any() and (~np.isfinite(g[bad]) | ~np.isfinite(w[bad])).all())


def _derivative_on_a_branch_cut(call, detail, last):
    """A complex function's derivative at a point of its branch cut (asinh's on the
    imaginary axis beyond ±i, log's on the negative real axis, ...): its value there is
    the limit from one side, chosen by the sign of a zero part, and oar's formula
    (1 / sqrt(z^2 + 1) for asinh) and torch's take the square root of values whose zero
    parts carry different signs, so the derivative comes out negated. Only when every
    differing element's input lies on the real or imaginary axis (where the cuts are), or
    is one that _complex_infinities would pass (a non-finite input or gradient)."""
    t = (call.decl or {}).get("x")
    # the gradient is the base's (x may be a view of it)
    x = last.get("tbases", {}).get(id(t)) if isinstance(t, gen.T) else None
    d = _grad_arrays(last)
    if x is None or d is None or not x.is_complex() or tuple(x.shape) != d[0].shape:
        return False
    xv = x.detach().to(torch.complex128).numpy()
    g, w, bad = d
    with np.errstate(invalid="ignore"):
        # on a cut, or where the input or a gradient is not finite (_complex_infinities)
        ok = (xv.real == 0) | (xv.imag == 0) | ~np.isfinite(xv) | ~np.isfinite(g) | \
            ~np.isfinite(w)
    return bool(bad.any() and ok[bad].all())


def _complex_pow_at_a_zero_or_infinite_base(call, detail, last):
    """Complex pow's gradient where the base is 0 or has an infinite or NaN part: 0 ** y
    has the limit 0 for Re(y) > 0, which oar's formulas keep (y x^(y-1) and x^y log x are
    masked there), while torch's products meet 0 * inf and answer NaN; at an infinite base
    the parts' infinities come out in different combinations (oar -inf - inf i, torch
    NaN). Only for a complex gradient, when x holds a zero or a non-finite part and every
    differing element is NaN on torch's side or non-finite on one side."""
    d = _grad_arrays(last)
    if d is None or not (np.iscomplexobj(d[0]) or np.iscomplexobj(d[1])):
        return False
    x = (call.decl or {}).get("x")
    if not isinstance(x, gen.T) or not x.data:
        return False
    xv = np.asarray(x.data, dtype=np.complex128)
    if not ((xv == 0).any() or not np.isfinite(xv).all()):
        return False
    g, w, bad = d
    with np.errstate(invalid="ignore"):
        return bool(bad.any() and (np.isnan(w[bad]) | ~np.isfinite(g[bad])
                                   | ~np.isfinite(w[bad])).all())


INFINITE_PARTS = Difference(
    "complex arithmetic on infinite parts (C99's rules against torch's formulas)", None,
    ["value mismatch", "grad mismatch"], _complex_infinities, _complex_infinities.__doc__)
POW_AT_A_ZERO_OR_INFINITE_BASE = Difference(
    "complex pow at a zero or infinite base", ["pow", "elementwise_pow"], ["grad mismatch"],
    _complex_pow_at_a_zero_or_infinite_base, _complex_pow_at_a_zero_or_infinite_base.__doc__)
DERIVATIVE_ON_A_BRANCH_CUT = Difference(
    "a complex derivative on a branch cut", BRANCH_CUT_OPS, ["grad mismatch"],
    _derivative_on_a_branch_cut, _derivative_on_a_branch_cut.__doc__)
