"""Scans (src/oar/ops/scan.yaml): cumsum and cumprod (with prod's gradient, which
shares cumprod's formula)."""
import torch

import gen
from .common import Difference, _x


def _cumprod_grad_of_non_finite(call, detail, last):
    """cumprod's gradient where x holds inf or NaN: inf * 0 or NaN meets the products
    (oar's gradient of x_i is a running sum of g * out divided by x_i), where torch's
    separate path for inputs with zeros gives 0; both stand for an undefined value. And
    prod's: the product of the other factors is inf where another one is, which torch
    writes out / x_i = inf / inf = NaN. Only when x is not finite and oar's first
    differing element is NaN, or every differing one inf where torch's is NaN."""
    x = _x(call, last)
    return x is not None and not bool(torch.isfinite(x).all()) and \
        ("oar np.float64(nan)" in detail or detail.endswith("[all: oar inf where torch nan]"))


def _scan_of_complex_to_a_real_dtype(call, detail, last):
    """cumsum/cumprod of a complex x with a real dtype=: the forward scans x's real part
    (the cast drops the imaginary part, as in both), so the gradient is that of the real
    part's scan, with a zero imaginary part -- oar's. torch's backward runs its formula on
    the complex input instead (for x = [0.04-1.71i, 1.39-2.87i, -2.21+1.5i] and weights
    [0.5, -1.2, 0.7]: torch -0.0018+0.078i where the derivative of the real scan, and oar,
    give -3.318). Only for those ops, a complex x and a real or integer dtype."""
    x = (call.decl or {}).get("x")
    d = (call.decl or {}).get("dtype")
    name = d.name if isinstance(d, gen.DType) else d
    return isinstance(x, gen.T) and x.dtype.startswith("complex") and isinstance(name, str) \
        and not name.startswith("complex") and "grad" in detail


COMPLEX_SCAN_TO_A_REAL_DTYPE = Difference(
    "the scan of a complex x to a real dtype: torch's backward", ["cumsum", "cumprod"],
    ["grad mismatch"], _scan_of_complex_to_a_real_dtype, _scan_of_complex_to_a_real_dtype.__doc__)
CUMPROD_GRAD_OF_NON_FINITE = Difference(
    "cumprod gradient at inf/NaN inputs", ["cumprod", "prod"], ["grad mismatch"],
    _cumprod_grad_of_non_finite, _cumprod_grad_of_non_finite.__doc__)
