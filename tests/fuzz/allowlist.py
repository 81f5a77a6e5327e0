"""Documented differences: where oar follows Paddle rather than PyTorch on purpose.

A failing comparison that matches an entry is counted as "documented: <name>",
not as a bug (and not silently dropped). Each entry says why oar is right. Keep
the predicates narrow: they must match the deliberate rule, never a bug that
happens to produce the same symptom -- so most re-check the value under oar's rule.

A predicate gets (call, detail, last): `last` holds the oar result `out`, torch's
`want`, and the torch inputs `tviews` (by id of the gen.T) of the float64 run.
"""


class Difference:
    def __init__(self, name, keys, outcomes, predicate, why):
        self.name, self.outcomes = name, set(outcomes)
        self.keys = None if keys is None else set(keys)  # None: every op
        self.predicate, self.why = predicate, why


def _x(call, last):
    import gen
    x = call.decl.get("x") if call.decl else None
    return last["tviews"][id(x)] if isinstance(x, gen.T) and "tviews" in last else None


def _keeps_integer_dtype(call, detail, last):
    """Paddle's scale/pow of an integer tensor keep its dtype: the float result is
    cast back (toward zero), where torch promotes to float."""
    import worker
    x = _x(call, last)
    out, want = last.get("out"), last.get("want")
    if x is None or x.is_floating_point() or out is None or want is None:
        return False
    return out.dtype.name == worker.golden.DTYPE_NAMES[x.dtype] and \
        worker.compare(out, want.to(x.dtype), "") is None


def _paddle_promotion(call, detail, last):
    """Paddle promotes only between floating dtypes; int/bool mixed with another dtype
    is an error (torch promotes)."""
    return "only floating-point dtypes are promoted (Paddle's rule)" in detail


def _no_integer_kernel(call, detail, last):
    """Paddle has no integer/bool kernels for float math (exp, sqrt, softmax, matmul,
    sigmoid, ...) nor bool kernels for arithmetic (max, sign, scale); torch computes
    them (promoting to float)."""
    import re
    return re.search(r"the kernel '\w+' is not registered for (int32|int64|bool) on CPU",
                     detail) is not None


def _inf_minus_inf_in_oracle(call, detail, last):
    """The torch oracle of a *_grad op is a formula (op_cases.yaml): its autograd
    meets inf - inf or 0 * inf where oar's fused backward gives the limit (±inf).
    Only when every differing element is nan in torch and ±inf in oar."""
    return detail.endswith("[all: oar inf where torch nan]") and call.key.endswith("_grad")


def _nan_group_of_max(call, detail, last):
    """max/min of a group that holds NaN: the result is NaN and its gradient goes to
    the NaN elements (split among them), as torch.max(x) without dim does; the
    oracle torch.amax instead sets the whole group's gradient to NaN."""
    import torch
    x = _x(call, last)
    return x is not None and bool(torch.isnan(x).any()) and detail.endswith("[all: torch nan]")


def _sum_to_keeps_dtype(call, detail, last):
    """sum_to is the internal op that undoes broadcasting in backward formulas: a
    gradient keeps its input's dtype, so int32 stays int32 (torch's sum widens)."""
    return "dtype int32, want int64" in detail


def _double_exponent(call, detail, last):
    """pow's scalar exponent is a double (Paddle's float attribute); torch rounds it to
    float32 for integer and float32 tensors, so an exponent below float32's range
    (|y| < 1.2e-38, e.g. -1e-320) is 0 to torch but not to oar."""
    y = call.decl.get("y") if call.decl else None
    return isinstance(y, float) and y != 0.0 and abs(y) < 1.1754944e-38


def _arange_casts_bounds_first(call, detail, last):
    """arange with an integer dtype casts start, end and step to it first (toward
    zero), as Paddle does; torch counts an int32 range from the float bounds (but an
    int64 range from the cast ones). Only when oar's result is exactly that of the
    cast bounds."""
    import numpy as np
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


def _bfloat16_rounded_once(call, detail, last):
    """linspace in bfloat16: oar rounds the exact float64 value once; torch rounds
    every step to bfloat16 on the way (an ulp or more apart)."""
    return "bfloat16" in str((call.decl or {}).get("dtype", "")) and "bfloat16" in call.repro()


DIFFERENCES = [
    Difference("Paddle's promotion rule (no int/float mix)", None, ["oar raises"],
               _paddle_promotion, _paddle_promotion.__doc__),
    Difference("no integer kernels for float math", None, ["oar raises"],
               _no_integer_kernel, _no_integer_kernel.__doc__),
    Difference("inf - inf in a torch formula", None, ["grad mismatch"],
               _inf_minus_inf_in_oracle, _inf_minus_inf_in_oracle.__doc__),
    Difference("scale/pow keep an integer dtype", ["scale", "scale_", "pow"], ["value mismatch"],
               _keeps_integer_dtype, _keeps_integer_dtype.__doc__),
    Difference("max/min gradient of a NaN group goes to its NaNs", ["max", "min"],
               ["grad mismatch"], _nan_group_of_max, _nan_group_of_max.__doc__),
    Difference("sum_to keeps its input dtype", ["sum_to"], ["value mismatch"],
               _sum_to_keeps_dtype, _sum_to_keeps_dtype.__doc__),
    Difference("arange casts its bounds to an integer dtype first", ["arange"],
               ["value mismatch"], _arange_casts_bounds_first, _arange_casts_bounds_first.__doc__),
    Difference("linspace rounds bfloat16 once", ["linspace"], ["value mismatch"],
               _bfloat16_rounded_once, _bfloat16_rounded_once.__doc__),
    Difference("pow's exponent is a double", ["pow"], ["value mismatch", "grad mismatch"],
               _double_exponent, _double_exponent.__doc__),
]


def match(call, outcome, detail, last):
    for d in DIFFERENCES:
        if (d.keys is None or call.key in d.keys) and outcome in d.outcomes and \
                d.predicate(call, detail, last):
            return d.name
    return None
