"""Special functions (src/oar/ops/special.yaml): digamma, polygamma, lgamma and
standard_gamma_grad, where oar's values are SciPy's (or mpmath's) and torch's series are
less accurate or use other conventions."""
import numpy as np

import gen
from .common import Difference, _differing, _grad_differing, _numbers, _x


def _torch_series_accuracy(call, detail, last):
    """digamma/polygamma (and lgamma's gradient, digamma): torch's series are accurate
    to ~1e-9 relative; oar's match SciPy and mpmath (tests/python/test_distribution.py
    checks them against SciPy). A mismatch below 1e-7 relative is torch's error, not
    oar's. Only when the first differing values agree to 1e-7 relative (not re-checked
    against SciPy here)."""
    v = _numbers(detail)
    return v is not None and abs(v[0] - v[1]) <= 1e-7 * max(1.0, abs(v[1]))


def _polygamma_conventions(call, detail, last):
    """polygamma (n >= 1, and digamma's gradient polygamma(x, 1)) at the poles 0, -1, -2, ...
    and at +-inf: oar follows SciPy (and Paddle): (-1)^(n+1) inf at the poles and at -inf,
    the limit (-1)^(n+1) 0 at +inf. torch agrees for n >= 2 at the poles, but gives NaN
    at +inf for n >= 2, NaN at -inf for n = 1, and for n = 1 at a negative integer a
    finite 1 / sin(pi x)^2 rounding residue (6.6e32 at -1). Values and gradients:
    only when every differing element is at such an x or within torch's series accuracy
    (1e-7 relative), and one at least at such an x; for values, oar's there is SciPy's."""
    import scipy.special as sp  # late: SciPy takes 0.3 s to import, for one rule
    x = _x(call, last)
    if x is None:
        return False
    xv = x.detach().double().numpy()
    special = np.isinf(xv) | ((xv <= 0) & (xv == np.round(xv)))
    if detail.startswith("value"):
        n = int((call.decl or {}).get("n", 0))
        d = _differing(last)
        if d is None or d[0].shape != xv.shape or n < 1 or not d[2].any():
            return False
        g, w, bad = d
        at = bad & special
        with np.errstate(invalid="ignore"):
            close = np.abs(g - w) <= 1e-7 * np.maximum(1.0, np.abs(w))
        return bool(at.any() and (special | close)[bad].all()
                    and np.array_equal(g[at], sp.polygamma(n, xv[at]), equal_nan=True))
    # gradients: each differing element at such an x, or within torch's series accuracy
    d = _grad_differing(call, last)
    if d is None:
        return False
    g, w, bad, base = d
    at_special = np.isinf(base) | ((base <= 0) & (base == np.round(base)))
    with np.errstate(invalid="ignore"):
        close = np.abs(g - w) <= 1e-7 * np.maximum(1.0, np.abs(w))
    return bool(bad.any() and (at_special | close)[bad].all() and at_special[bad].any())


def _polygamma_huge_order(call, detail, last):
    """polygamma of order n >= 2**31: torch's order is an int32, so it computes NaN
    throughout (2**31 wraps negative) or the polygamma of n mod 2**32 (2**53 + 1 gives
    trigamma), where n! zeta(n + 1, x) is +-inf for every x of moderate size (and so is
    the gradient, of order n + 1). Only when every differing element is NaN in torch,
    +-inf/NaN in oar, or (values) at an x of +-inf or NaN."""
    n = int((call.decl or {}).get("n", 0))
    if n < 2 ** 31:
        return False
    if not detail.startswith("value"):  # the gradient is polygamma of order n + 1
        if "want np.float64(nan)" in detail or "want np.float32(nan)" in detail:
            return True
        d = _grad_differing(call, last)
        if d is None or not d[2].any():
            return False
        g, w, bad, _ = d
        return bool((np.isinf(g[bad]) | np.isnan(g[bad])).all())
    d = _differing(last)
    if d is None or not d[2].any():
        return False
    g, w, bad = d
    ok = np.isnan(w[bad]) | np.isinf(g[bad]) | np.isnan(g[bad])
    x = _x(call, last)
    if x is not None and list(x.shape) == list(g.shape):
        # at x = +-inf or NaN torch's wrapped order gives its own limit (digamma's
        # -inf at NaN); oar's is polygamma's (the -0.0 limit at +inf, SciPy's)
        ok |= ~np.isfinite(x.detach().double().numpy()[bad])
    return bool(ok.all())


def _polygamma_left_cancellation(call, detail, last):
    """polygamma of even order n left of 0: torch (and SciPy) sum (x + k)^-(n+1) directly,
    and the terms of both signs near the poles cancel and take the rest's digits with
    them (n = 20 at -2.5: -4.2e8 for -9.2e6); oar adds the poles' parts first. Values
    only, when every differing element has x < 0 and oar's value is mpmath's (at n + 100
    digits) to 1e-10 relative or both are beyond the float range."""
    if not detail.startswith("value"):
        return False
    n = int((call.decl or {}).get("n", 0))
    x, d = _x(call, last), _differing(last)
    if x is None or d is None or n < 2 or n % 2 or n > 5000 or not d[2].any():
        return False
    g, w, bad = d
    xv = x.detach().double().numpy()
    if xv.shape != g.shape or not (xv[bad] < 0).all():
        return False
    import mpmath as mp  # late: only this rule needs mpmath
    mp.mp.dps = n + 100
    single = "float64" not in str(getattr(last.get("out"), "dtype", "float64"))
    top, rtol = (3.4e38, 1e-6) if single else (1.7e308, 1e-10)
    for xi, gi in zip(xv[bad], g[bad]):
        ref = mp.polygamma(n, mp.mpf(float(xi)))
        if abs(ref) > top:
            if not (np.isinf(gi) and np.sign(gi) == mp.sign(ref)):
                return False
        elif not abs(gi - ref) <= rtol * abs(ref) + 1e-300:
            return False
    return True


def _standard_gamma_grad_exact(call, detail, last):
    """standard_gamma_grad: oar computes the implicit gradient -dF/dalpha / dF/dx of
    the regularised incomplete gamma F exactly; torch uses an approximation good to
    ~1e-4, and gives 0 where alpha <= 0 (no such distribution: oar gives NaN). The
    oar value is re-checked against SciPy's gammainc by central differences in alpha."""
    import scipy.special as sp  # late: SciPy takes 0.3 s to import, for one rule
    d = call.decl or {}
    out, xs, ss = last.get("out"), _x(call, last), d.get("out")
    if out is None or xs is None or not hasattr(ss, "shape"):
        return False
    samples = last["tviews"].get(id(ss)) if isinstance(ss, gen.T) else None
    if samples is None:
        return False
    a = np.broadcast_to(xs.double().numpy(), out.shape).astype(np.float64)
    z = np.broadcast_to(samples.double().numpy(), out.shape).astype(np.float64)
    got = np.asarray(out.cast("float64").numpy())
    bad = (a <= 0) | (z <= 0) | ~np.isfinite(a) | ~np.isfinite(z)
    with np.errstate(all="ignore"):
        h = 1e-6 * np.maximum(a, 1.0)
        dfa = (sp.gammainc(a + h, z) - sp.gammainc(a - h, z)) / (2 * h)
        dfz = np.exp((a - 1) * np.log(z) - z - sp.gammaln(a))
        want = -dfa / dfz
    ok_bad = ~np.isfinite(got[bad]) | (got[bad] == 0)
    ok_good = np.isclose(got[~bad], want[~bad], rtol=1e-4, atol=1e-6) | ~np.isfinite(want[~bad])
    return bool(ok_bad.all() and ok_good.all())


TORCH_SERIES_ACCURACY = Difference(
    "torch's digamma/polygamma series accuracy", ["digamma", "polygamma", "lgamma"],
    ["value mismatch", "grad mismatch"], _torch_series_accuracy, _torch_series_accuracy.__doc__)
POLYGAMMA_AT_POLES_AND_INFINITIES = Difference(
    "polygamma at the poles and infinities (SciPy's values)", ["polygamma", "digamma"],
    ["value mismatch", "grad mismatch"], _polygamma_conventions, _polygamma_conventions.__doc__)
POLYGAMMA_HUGE_ORDER = Difference(
    "polygamma of order n >= 2**31", ["polygamma"], ["value mismatch", "grad mismatch"],
    _polygamma_huge_order, _polygamma_huge_order.__doc__)
POLYGAMMA_LEFT_CANCELLATION = Difference(
    "polygamma of even order left of 0 (torch's sum cancels)", ["polygamma"], ["value mismatch"],
    _polygamma_left_cancellation, _polygamma_left_cancellation.__doc__)
STANDARD_GAMMA_GRAD_EXACT = Difference(
    "standard_gamma_grad is exact", ["standard_gamma_grad"], ["value mismatch"],
    _standard_gamma_grad_exact, _standard_gamma_grad_exact.__doc__)
