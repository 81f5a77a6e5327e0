"""the numeric section (src/oar/ops/numeric.yaml): Bessel functions, copysign,
logit, searchsorted and logcumsumexp at infinities, NaN and -0.0."""
import re

import numpy as np
import torch

import gen
from .common import Difference, _grad_differing, _x
from .activation import _nan_input_of_masked_gradient


def _logit_grad_at_nan(call, detail, last):
    """logit's gradient at a NaN x with eps >= 0: oar's is NaN (Paddle's kernel, and
    PyTorch's scalar loop); PyTorch's vectorised loop gives 0, so torch's own answer
    depends on where the element falls. Only when every differing element is at a NaN x
    with oar's NaN and torch's 0, or at -0.0 with infinities of opposite signs (the
    difference documented as "logit gradient at -0.0"), one at least at a NaN."""
    d = _grad_differing(call, last)
    if d is None:
        return False
    g, w, bad, base = d
    at_nan = np.isnan(base) & np.isnan(g) & (w == 0)
    at_minus_zero = (base == 0) & np.signbit(base) & np.isinf(g) & (g == -w)
    return bool((bad & at_nan).any() and (at_nan | at_minus_zero)[bad].all())


def _bessel_at_infinity(call, detail, last):
    """i0(±inf) = inf and i1(±inf) = ±inf (the limits); torch answers NaN. Only when x
    holds an infinity and every differing element is oar inf where torch has NaN."""
    x = _x(call, last)
    return x is not None and bool(torch.isinf(x).any()) and \
        detail.endswith("[all: oar inf where torch nan]")


def _non_finite_sign_input(call, detail, last):
    """copysign's gradient sign(x) * sign(y): torch computes out / x, NaN at x = ±inf
    (inf / inf), and NaN spreads through its masked division. Only when an input holds
    inf or NaN and every differing element is NaN in torch."""
    d = call.decl or {}
    ts = [last["tviews"].get(id(v)) for v in d.values() if isinstance(v, gen.T)]
    return detail.endswith("[all: torch nan]") and any(
        t is not None and t.is_floating_point() and not bool(torch.isfinite(t).all()) for t in ts)


def _logit_at_negative_zero(call, detail, last):
    """logit's gradient at x = -0.0 is +inf, the limit from inside [0, 1]; torch's sign
    there follows the zero's sign on one of its loops and not the other. Only when x
    holds -0.0 and oar and torch differ by the sign of an infinity."""
    x = _x(call, last)
    m = re.search(r"oar np\.float64\((-?inf)\), want np\.float64\((-?inf)\)", detail)
    return x is not None and m is not None and m.group(1) != m.group(2) and \
        bool(((x == 0) & torch.signbit(x)).any())


def _unsorted_sequence(call, detail, last):
    """searchsorted on a sequence that is not sorted (NaN last) or holds NaN: where a value
    goes is unspecified (the binary searches differ); oar treats NaN as after every
    number, as numpy does. Only when some row of the sequence is such."""
    seq = (call.decl or {}).get("sorted_sequence")
    t = last["tviews"].get(id(seq)) if isinstance(seq, gen.T) and "tviews" in last else None
    if t is None:
        return False
    a = t.double().numpy().reshape(-1, t.shape[-1]) if t.dim() else t.double().numpy()
    if np.isnan(a).any():
        return True
    return bool((np.diff(a, axis=-1) < 0).any())


def _logcumsumexp_at_infinity(call, detail, last):
    """logcumsumexp's gradient at ±inf and NaN inputs: the backward formula weights the
    upstream gradients by exp(x_i - out_j), which at an infinite x_i (out_j infinite too)
    is exp(inf - inf) = NaN in oar's log-space formula, and NaN propagates; torch's
    returns the upstream gradient for a lone element. Neither is a derivative of a
    function that is infinite there. Only when x holds a non-finite value (broad: any
    gradient mismatch of such a call)."""
    x = _x(call, last)
    return x is not None and not bool(torch.isfinite(x).all())


LOGIT_GRAD_AT_NAN = Difference(
    "logit's gradient at NaN (torch's vector loop: 0)", ["logit"], ["grad mismatch"],
    _logit_grad_at_nan, _logit_grad_at_nan.__doc__)
BESSEL_AT_INFINITY = Difference(
    "i0/i1 at ±inf", ["i0", "i1"], ["value mismatch", "grad mismatch"], _bessel_at_infinity,
    _bessel_at_infinity.__doc__)
I1_GRAD_AT_NAN = Difference(
    "i1/i1e gradient at a NaN input", ["i1", "i1e"], ["grad mismatch"],
    _nan_input_of_masked_gradient,
    "i1/i1e's gradient at a NaN x: torch's formula takes its x == 0 branch there and "
    "answers 0.5 (the derivative at 0); oar's is NaN, as its value is (NaN in, NaN out). "
    "Only when x holds at least as many NaNs as gradient elements differ (the predicate "
    "of 'gradient at a NaN input of a piecewise activation').")
COPYSIGN_GRAD_OF_NON_FINITE = Difference(
    "copysign gradient at non-finite inputs", ["copysign"], ["grad mismatch"],
    _non_finite_sign_input, _non_finite_sign_input.__doc__)
LOGIT_GRAD_AT_NEGATIVE_ZERO = Difference(
    "logit gradient at -0.0", ["logit"], ["grad mismatch"], _logit_at_negative_zero,
    _logit_at_negative_zero.__doc__)
SEARCHSORTED_UNSORTED_SEQUENCE = Difference(
    "searchsorted on an unsorted sequence", ["searchsorted_index"], ["value mismatch"],
    _unsorted_sequence, _unsorted_sequence.__doc__)
LOGCUMSUMEXP_GRAD_AT_NON_FINITE = Difference(
    "logcumsumexp gradient at non-finite inputs", ["logcumsumexp_scan"], ["grad mismatch"],
    _logcumsumexp_at_infinity, _logcumsumexp_at_infinity.__doc__)
