"""Statistics (src/oar/ops/statistics.yaml): prod, std/var and p_norm at degenerate
groups, extreme orders and low precision."""
import math

import numpy as np
import torch

from .common import Difference, _differing, _grad_differing, _low_precision_reduction, _x


def _prod_grad_of_overflowing_groups_with_zeros(call, detail, last):
    """prod's gradient where a group holds two or more zeros and the product of its other
    elements overflows the dtype it is computed in (dtype=, else x's): the derivative is
    0 everywhere (every product of the others holds a zero). torch's exclusive cumprods
    carry the inf into a zero, which gives NaN everywhere. oar's is exactly 0 away from
    the zeros and NaN at them (the non-zeros' product times the other zeros' polynomial,
    inf * 0), and torch's is 0 at a zero whose exclusive cumprods have not met the inf
    yet. Only when every group is such a group and every differing element is 0 in oar
    and NaN in torch, or NaN in oar at a zero of x."""
    d, x = _grad_differing(call, last), _x(call, last)
    if d is None or x is None or not x.dtype.is_floating_point or x.dim() == 0:
        return False
    g, w, bad, base = d  # the gradient is with respect to x's base
    at_zero = (base == 0)[bad]
    away = ~at_zero
    if not (bad.any() and (g[bad][away] == 0).all() and np.isnan(w[bad][away]).all()
            and np.isnan(g[bad][at_zero]).all()):
        return False
    axis = (call.decl or {}).get("axis") or list(range(x.dim()))
    axis = sorted({int(a) % x.dim() for a in (axis if isinstance(axis, (list, tuple)) else [axis])})
    v = np.moveaxis(x.detach().double().numpy(), axis, list(range(-len(axis), 0)))
    groups = v.reshape(-1, int(np.prod([x.shape[a] for a in axis])))
    dtype = (call.decl or {}).get("dtype")  # dtype= casts x first: it overflows there
    dtype = getattr(torch, dtype) if isinstance(dtype, str) and hasattr(torch, dtype) else x.dtype
    if not dtype.is_floating_point:
        return False
    big = np.log(float(torch.finfo(dtype).max))
    with np.errstate(divide="ignore"):
        logs = np.where(groups == 0, 0.0, np.log(np.abs(groups)))
    return bool(((groups == 0).sum(1) >= 2).all() and (logs.sum(1) > big).all())


def _spread_of_one_element(call, detail, last):
    """std/var of a group of one element with the unbiased correction: the value is NaN
    (0 / 0) in both, so there is no derivative; oar's backward formula (x - mean) /
    ((n - 1) * std) gives NaN, consistent with the value, where torch's backward
    special-cases it to 0. Only when oar's gradient is NaN and x has one element per
    group."""
    x, out = _x(call, last), last.get("out")
    if x is None or "oar np.float64(nan)" not in detail:
        return False
    groups = max(1, out.numel()) if out is not None else 1
    return x.numel() <= groups  # one element per group


def _spread_of_equal_values(call, detail, last):
    """std/var over groups whose values are all equal: the spread is 0, where it is not
    differentiable; oar's kernel computes it exactly 0 and its backward then gives 0
    (PyTorch's own rule for a spread of 0), while torch's rounding can leave a spread of
    ~1e-16 and a gradient of (x - mean) / spread that can be anything. Only when every
    group of x holds one value and oar's differing gradients are 0."""
    x = _x(call, last)
    d = _grad_differing(call, last)
    if x is None or d is None or x.numel() == 0 or not x.is_floating_point():
        return False
    g, _, bad, _ = d
    axis = (call.decl or {}).get("axis") or list(range(x.dim()))
    dims = tuple(sorted({a % x.dim() for a in axis})) if x.dim() else ()
    v = x.detach().double()
    equal = (v.amax(dims) == v.amin(dims)).all() if dims else True
    return bool(equal and bad.any() and (g[bad] == 0).all() and np.isfinite(v.numpy()).all())


def _norm_of_one_element(call, detail, last):
    """p_norm over groups of one element is |x| for every p, and its gradient sign(x) (as
    abs's, also at +-inf); torch's formula x |x|^(p-2) / norm^(p-1) gives NaN when |x|^p
    overflows or underflows (p = 1e308) and at an infinite x (inf / inf). Only when every
    group has one element and oar's differing gradients are finite where torch's are NaN
    at x that is not NaN."""
    d = _grad_differing(call, last)
    out, x = last.get("out"), _x(call, last)
    if d is None or out is None or x is None:
        return False
    g, w, bad, base = d
    if x.numel() > max(1, out.numel()):  # x, not its base: a strided view picks elements
        return False
    return bool(bad.any() and np.isnan(w[bad]).all() and np.isfinite(g[bad]).all()
                and not np.isnan(base[bad]).any())


def _norm_of_a_huge_order(call, detail, last):
    """p_norm with a finite order so large that |x|^p overflows or underflows double
    (p = 1e308 and |x| = 2.27): torch's unscaled sum gives inf (or 0), oar divides by the
    largest |x| first and gives the norm, which is max |x| times a number of ties to the
    1/p (1 in double). Only for |p| > 500 and when every differing value is inf or 0 in
    torch and finite, and at most max |x| (to 1e-9), in oar."""
    p = (call.decl or {}).get("porder")
    x = _x(call, last)
    d = _differing(last)
    if not isinstance(p, (int, float)) or not math.isfinite(p) or abs(p) <= 500 or x is None \
            or d is None or not d[2].any():
        return False
    g, w, bad = d
    top = float(x.detach().double().abs().max()) if x.numel() else 0.0
    return bool(((np.isinf(w[bad]) | (w[bad] == 0)) & np.isfinite(g[bad])
                 & (g[bad] <= top * (1 + 1e-9))).all())


def _p_norm_of_a_vanishing_order(call, detail, last):
    """p_norm with |p| below 1e-300 (a denormal order): over a single element the norm is
    |x| for every p, which oar returns; torch's (|x|^p)^(1/p) becomes 1^(±inf) = 1. Only
    for that order, a reduction over length-1 axes, and oar giving |x|."""
    p = (call.decl or {}).get("porder")
    x, out = _x(call, last), last.get("out")
    if not isinstance(p, float) or abs(p) >= 1e-300 or p == 0 or x is None or out is None:
        return False
    o = np.asarray(out.numpy(), dtype=np.float64).reshape(-1)
    xv = np.abs(x.detach().double().numpy()).reshape(-1)
    return o.size == xv.size and bool(np.allclose(o, xv, rtol=1e-2, equal_nan=True))


def _low_precision_prod_rounded_once(call, detail, last):
    """prod into float16/bfloat16: oar multiplies in float32 and rounds the product once;
    torch rounds its running product to the low dtype at every step, so it drifts (2% over
    126 bfloat16 factors) and an overflow to inf times a later 0 gives NaN where the
    product is 0. Accepted when oar's value is the exact float64 product of the rounded
    inputs to within one rounding of the result dtype and the float32 accumulation."""
    r = _low_precision_reduction(call, last)
    if r is None:
        return False
    x, out, tdt, dims, keep = r
    exact = x.to(tdt).double()
    for a in reversed(dims):
        exact = exact.prod(a, keepdim=keep)
    n = max(1, x.numel() // max(1, exact.numel()))
    eps = (2.0 ** -8 if tdt is torch.bfloat16 else 2.0 ** -11) + n * 2.0 ** -23
    got = torch.tensor(np.asarray(out.cast("float64").numpy())).reshape(exact.shape)
    want = exact.to(tdt).double()  # beyond the dtype's range: +-inf, as oar's rounding
    close = (got - exact).abs() <= eps * exact.abs()
    same = (got == want) | (got.isnan() & want.isnan()) | close
    return bool(same.all())


P_NORM_OF_A_DENORMAL_ORDER = Difference(
    "p_norm of a denormal order over one element", ["p_norm"], ["value mismatch"],
    _p_norm_of_a_vanishing_order, _p_norm_of_a_vanishing_order.__doc__)
PROD_GRAD_OF_ZEROS_WITH_OVERFLOW = Difference(
    "prod gradient: zeros in a group whose other factors overflow", ["prod"], ["grad mismatch"],
    _prod_grad_of_overflowing_groups_with_zeros,
    _prod_grad_of_overflowing_groups_with_zeros.__doc__)
SPREAD_OF_ONE_ELEMENT = Difference(
    "std/var gradient of one element", ["std", "var"], ["grad mismatch"], _spread_of_one_element,
    _spread_of_one_element.__doc__)
SPREAD_OF_EQUAL_VALUES = Difference(
    "std/var gradient where all values are equal", ["std", "var"], ["grad mismatch"],
    _spread_of_equal_values, _spread_of_equal_values.__doc__)
P_NORM_OF_ONE_ELEMENT = Difference(
    "p_norm gradient of one element: sign(x)", ["p_norm"], ["grad mismatch"], _norm_of_one_element,
    _norm_of_one_element.__doc__)
P_NORM_OF_A_HUGE_ORDER = Difference(
    "p_norm of a huge finite order (torch's |x|^p overflows)", ["p_norm"], ["value mismatch"],
    _norm_of_a_huge_order, _norm_of_a_huge_order.__doc__)
LOW_PRECISION_PROD_ROUNDED_ONCE = Difference(
    "float16/bfloat16 prod: rounded once", ["prod"], ["value mismatch"],
    _low_precision_prod_rounded_once, _low_precision_prod_rounded_once.__doc__)
