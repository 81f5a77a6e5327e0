"""Creation (src/oar/ops/creation.yaml, and pyapi's linspace): arange and linspace in
integer and low-precision dtypes, where oar casts the bounds first as Paddle does, or
rounds each value once."""
import math

import numpy as np
import torch

from .common import Difference, _differing


def _arange_casts_bounds_first(call, detail, last):
    """arange with an integer dtype casts start, end and step to it first (toward
    zero), as Paddle does; torch counts an int32 range from the float bounds (but an
    int64 range from the cast ones). Only when oar's result is exactly that of the
    cast bounds."""
    d = call.decl or {}
    out = last.get("out")
    dt = str(d.get("dtype", ""))
    if out is None or "int" not in dt:
        return False
    try:
        want = np.arange(int(d["start"]), int(d["end"]), int(d.get("step", 1)))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return False
    return out.numpy().tolist() == want.tolist()


def _arange_exact_length(call, detail, last):
    """arange's length ceil((end - start) / step) is computed exactly when the bounds
    and step are integers (in 128 bits: (0 - -2**63) / (2**63 - 1) is just above 1, so
    two values, the second -1 < end); torch (and Paddle) divide in float64, where that
    quotient rounds to 1.0. Only for integer bounds and step, when oar's length is the
    exact one and float64's is not."""
    d = call.decl or {}
    out = last.get("out")
    vals = [d.get("start", 0), d.get("end"), d.get("step", 1)]
    if out is None or not all(isinstance(v, int) for v in vals) or vals[2] == 0:
        return False
    start, end, step = vals
    exact = max(0, -((start - end) // step))
    return list(out.shape) == [exact] and exact != max(0, math.ceil((end - start) / step))


def _rounded_once(call, detail, last):
    """linspace/arange in float16 or bfloat16: oar computes each value in float64 and
    rounds it once; torch rounds on the way (an ulp or more apart). Only when oar's
    values are exactly numpy's float64 values rounded to the dtype."""
    out = last.get("out")
    args = list(call.args) + [v for k, v in sorted(call.kwargs.items()) if k != "dtype"]
    dt = str(call.kwargs.get("dtype", args[3] if call.key == "linspace" and len(args) > 3
                             else args[3] if len(args) > 3 else ""))
    tdt = {"bfloat16": torch.bfloat16, "float16": torch.float16}.get(
        next((n for n in ("bfloat16", "float16") if n in dt), ""))
    if out is None or tdt is None:
        return False
    try:
        f = np.linspace if call.key == "linspace" else np.arange
        exact = f(float(args[0]), float(args[1]), args[2])
    except (TypeError, ValueError, IndexError):
        return False
    want = torch.tensor(exact).to(tdt).double().numpy()
    got = torch.tensor(out.numpy()).double().numpy() if out.dtype.name != "bfloat16" \
        else np.asarray(out.cast("float64").numpy())
    return got.shape == want.shape and bool(np.array_equal(got, want, equal_nan=True))


def _linspace_casts_bounds_first(call, detail, last):
    """linspace with an integer dtype casts start and stop to it first (Paddle fills
    them into tensors of that dtype), then truncates each value; torch keeps the float
    bounds. Only when oar's result is exactly that rule's."""
    out = last.get("out")
    args = list(call.args)
    if out is None or "int" not in out.dtype.name or len(args) < 3:
        return False
    try:
        s, e, n = float(int(args[0])), float(int(args[1])), int(args[2])
    except (TypeError, ValueError, OverflowError):
        return False
    i = np.arange(n, dtype=np.float64)
    step = (e - s) / max(n - 1, 1)
    h = n // 2
    v = np.concatenate([s + step * i[:h], e - step * (n - 1 - i[h:])])
    if n == 1:
        v[0] = s
    return out.numpy().tolist() == np.trunc(v).astype(np.int64).tolist()


def _arange_rounded_once(call, detail, last):
    """arange in bfloat16/float16: oar computes start + i * step in float64 and rounds each
    value once to the dtype; torch accumulates in a wider float and rounds differently
    (arange(-4, 3, 0.04, bfloat16)[100]: exactly 0 up to float64 roundoff, oar 8.3e-17,
    torch -1.6e-4). Only when oar's value is at least as close as torch's to the exact
    start + i * step at every differing element."""
    d = _differing(last)
    dec = call.decl or {}
    if d is None or d[0].ndim != 1 or not all(
            isinstance(dec.get(k), (int, float)) for k in ("start", "step")):
        return False
    g, w, bad = d
    exact = float(dec["start"]) + float(dec["step"]) * np.arange(g.shape[0], dtype=np.float64)
    return bool(bad.any() and (np.abs(g[bad] - exact[bad]) <= np.abs(w[bad] - exact[bad])).all())


ARANGE_ROUNDED_ONCE = Difference(
    "arange in a low precision: each value rounded once", ["arange"], ["value mismatch"],
    _arange_rounded_once, _arange_rounded_once.__doc__)
ARANGE_CASTS_BOUNDS_FIRST = Difference(
    "arange casts its bounds to an integer dtype first", ["arange"], ["value mismatch"],
    _arange_casts_bounds_first, _arange_casts_bounds_first.__doc__)
ARANGE_EXACT_LENGTH = Difference(
    "arange's length exact for integer bounds", ["arange"], ["value mismatch"],
    _arange_exact_length, _arange_exact_length.__doc__)
LOW_PRECISION_RANGE_ROUNDED_ONCE = Difference(
    "low-precision linspace/arange rounded once", ["linspace", "arange"], ["value mismatch"],
    _rounded_once, _rounded_once.__doc__)
LINSPACE_CASTS_BOUNDS_FIRST = Difference(
    "linspace casts its bounds to an integer dtype first", ["linspace"], ["value mismatch"],
    _linspace_casts_bounds_first, _linspace_casts_bounds_first.__doc__)
