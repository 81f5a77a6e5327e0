"""The Difference class and the helpers the rules' predicates share: the call's torch
inputs, and the elements where oar's value or gradient differs from torch's."""
import re

import numpy as np
import torch

import gen


class Difference:
    def __init__(self, name, keys, outcomes, predicate, why):
        self.name, self.outcomes = name, set(outcomes)
        self.keys = None if keys is None else set(keys)  # None: every op
        self.predicate, self.why = predicate, why


def _x(call, last, name="x"):
    x = call.decl.get(name) if call.decl else None
    return last["tviews"][id(x)] if isinstance(x, gen.T) and "tviews" in last else None


def _grad_differing(call, last):
    """(oar, torch, mask of the differing elements, x's base) as float64 numpy arrays
    for a gradient mismatch with respect to x; None otherwise."""
    import worker  # late: worker imports this package
    x = call.decl.get("x") if call.decl else None
    o, t = last.get("grad_oar"), last.get("grad_torch")
    if not isinstance(x, gen.T) or o is None or t is None or last.get("grad_of") != id(x):
        return None
    g, _ = worker.as_numpy(o)
    w, _ = worker.as_numpy(t)
    base = last["tbases"][id(x)].detach().double().numpy()
    if g.shape != w.shape or g.shape != base.shape:
        return None
    g, w = g.astype(np.float64), w.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        bad = ~np.isclose(g, w, rtol=1e-10, atol=1e-12, equal_nan=True)
    return g, w, bad, base


def _differing(last):
    """(oar, torch, mask of the differing elements) as float64 numpy arrays, for a value
    mismatch of equal shapes; None otherwise."""
    import worker  # late: worker imports this package
    out, want = last.get("out"), last.get("want")
    if out is None or want is None or not hasattr(out, "shape") or not hasattr(want, "shape"):
        return None
    g, _ = worker.as_numpy(out)
    w, wd = worker.as_numpy(want)
    if g.shape != w.shape:
        return None
    rtol, atol = worker.RTOL.get(wd, worker.RTOL["float64"])  # the worker's, for its dtype
    if np.iscomplexobj(g) or np.iscomplexobj(w):  # part by part (inf - inf is NaN)
        g, w = g.astype(np.complex128), w.astype(np.complex128)
        with np.errstate(invalid="ignore", over="ignore"):
            bad = ~(np.isclose(g.real, w.real, rtol=rtol, atol=atol, equal_nan=True)
                    & np.isclose(g.imag, w.imag, rtol=rtol, atol=atol, equal_nan=True))
        return g, w, bad
    g, w = g.astype(np.float64), w.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        bad = ~np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    return g, w, bad


def _grad_arrays(last):
    """(oar, torch, mask of the differing elements) of a gradient mismatch, as numpy
    arrays (complex kept); None otherwise."""
    import worker  # late: worker imports this package
    o, t = last.get("grad_oar"), last.get("grad_torch")
    if o is None or t is None:
        return None
    g, _ = worker.as_numpy(o)
    w, wd = worker.as_numpy(t)
    if g.shape != w.shape:
        return None
    rtol, atol = worker.RTOL.get(wd, worker.RTOL["float64"])
    g, w = g.astype(np.complex128), w.astype(np.complex128)
    with np.errstate(invalid="ignore", over="ignore"):
        bad = ~(np.isclose(g.real, w.real, rtol=rtol, atol=atol, equal_nan=True)
                & np.isclose(g.imag, w.imag, rtol=rtol, atol=atol, equal_nan=True))
    return g, w, bad


def _differing_only_where_torch_is_non_finite(last):
    """Some output elements differ, and torch's value is inf or NaN at every one."""
    out, want = last.get("out"), last.get("want")
    if out is None or want is None:
        return False
    g, w = np.asarray(out.numpy(), dtype=np.float64), want.detach().double().numpy()
    with np.errstate(invalid="ignore"):
        bad = ~np.isclose(g, w, equal_nan=True)
    return bool(bad.any() and not np.isfinite(w[bad]).any())


def _low_precision_reduction(call, last):
    """(x, out, torch dtype of out, reduced dims, keepdim) for a reduction into
    float16/bfloat16; None otherwise."""
    x, out = _x(call, last), last.get("out")
    if x is None or out is None or out.dtype.name not in ("bfloat16", "float16"):
        return None
    d = call.decl or {}
    axis = d.get("axis") or list(range(x.dim()))
    dims = sorted({a % x.dim() for a in axis}) if x.dim() else []
    return x, out, getattr(torch, out.dtype.name), dims, bool(d.get("keepdim", False))


def _numbers(detail):
    m = re.search(r"oar np\.float\d+\(([^)]*)\), want np\.float\d+\(([^)]*)\)", detail)
    return (float(m.group(1)), float(m.group(2))) if m else None
