"""Dtypes, for every op: Paddle's kernels exist for fewer dtypes than torch's (no
integer kernels for float math; float_only ops return float32), and a dtype= narrower
than the input carries its rounding into the gradient."""
import re

import numpy as np

import gen
from .common import Difference


def _no_integer_kernel(call, detail, last):
    """Paddle has no integer/bool kernels for float math (softmax, ...; matmul has
    int32/int64 only) nor bool kernels for arithmetic (max, sign, scale), and oar
    registers its kernels for the same dtypes, so such a call is a clear error where
    torch computes it (promoting to float). Only when oar's error is the kernel
    registry's "the kernel '<name>' is not registered for int32/int64/bool on CPU"."""
    return re.search(r"the kernel '\w+' is not registered for (int32|int64|bool) on CPU",
                     detail) is not None


def _gradient_in_result_dtype(call, detail, last):
    """prod/cumprod with a lower-precision dtype= than x: x is cast first, so the gradient
    is computed in that dtype (as torch's) and its rounding differs from torch's order of
    operations by a few ulps of the result dtype. Only when the first differing element
    agrees to the dtype's precision (a complex x's gradient is complex with a zero
    imaginary part: a real dtype= takes x's real part, seed 221)."""
    dt = (call.decl or {}).get("dtype")
    dt = getattr(dt, "name", dt)  # a name, or gen.DType (oar.float32)
    eps = {"float32": 1e-5, "float16": 4e-3, "bfloat16": 3e-2}.get(dt)
    m = re.search(r"oar np\.(?:float64|complex128)\(([^)]*)\), "
                  r"want np\.(?:float64|complex128)\(([^)]*)\)", detail)
    if eps is None or not m:
        return False
    try:
        a, b = complex(m.group(1)), complex(m.group(2))
    except ValueError:
        return False
    return abs(a - b) <= eps * abs(b) + eps * 1e-1


def _gradient_through_a_narrower_dtype(call, detail, last):
    """A gradient through a dtype= narrower than the input (cumsum of a float64 x with
    dtype='complex64' or 'float32'): the gradient comes back through that dtype, so it
    carries its rounding, which oar's and torch's backward steps apply at different
    points. Only when dtype= is float32/complex64 (or narrower) and the gradients agree
    within that dtype's tolerance."""
    import worker  # late: worker imports this package
    d = (call.decl or {}).get("dtype")
    name = d.name if isinstance(d, gen.DType) else d
    tol = {"float32": "float32", "complex64": "float32", "float16": "float16",
           "bfloat16": "bfloat16"}.get(name)
    o, t = last.get("grad_oar"), last.get("grad_torch")
    if tol is None or o is None or t is None:
        return False
    g, _ = worker.as_numpy(o)
    w, _ = worker.as_numpy(t)
    rtol, atol = worker.RTOL[tol]
    scale = max(1.0, float(np.abs(w).max())) if w.size else 1.0
    with np.errstate(invalid="ignore"):
        return g.shape == w.shape and bool(np.allclose(g, w, rtol=rtol, atol=atol * scale))


def _float_only_keeps_float(call, detail, last):
    """float_only ops (the LAPACK ones among them) compute integer and bool input in
    float32 and return float32 (docs/dtypes.md), as Paddle's float kernels do; torch's
    oracle keeps an empty integer input's dtype where it would raise on a non-empty
    one. Only for an op declared float_only: true, when oar's value is float32 and
    torch's has another dtype."""
    import worker  # late: worker imports this package
    op = worker.golden.OPS.get(call.key)
    return op is not None and getattr(op, "float_only", False) and \
        detail.startswith("value: dtype float32, want ")


GRADIENT_THROUGH_A_NARROWER_DTYPE = Difference(
    "a gradient through a narrower dtype= carries its rounding", None, ["grad mismatch"],
    _gradient_through_a_narrower_dtype, _gradient_through_a_narrower_dtype.__doc__)
NO_INTEGER_KERNELS = Difference(
    "no integer kernels for float math", None, ["oar raises"], _no_integer_kernel,
    _no_integer_kernel.__doc__)
GRADIENT_IN_A_LOWER_RESULT_DTYPE = Difference(
    "prod/cumprod gradient in a lower dtype=", ["prod", "cumprod"], ["grad mismatch"],
    _gradient_in_result_dtype, _gradient_in_result_dtype.__doc__)
FLOAT_ONLY_RETURNS_FLOAT32 = Difference(
    "float_only ops return float32 for integer input", None, ["value mismatch"],
    _float_only_keeps_float, _float_only_keeps_float.__doc__)
