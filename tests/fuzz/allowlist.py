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
    if out.dtype.name != worker.golden.DTYPE_NAMES[x.dtype]:
        return False
    if worker.compare(out, want.to(x.dtype), "") is None:
        return True
    # scale computes scale * x + bias as one fused multiply-add in double, so a result
    # within an ulp of an integer may truncate to the other side of it than torch's
    # float32 arithmetic: accept exactly the truncation of the unrounded value.
    import numpy as np
    d = call.decl or {}
    if call.key.startswith("scale"):
        xv = x.numpy().astype(np.longdouble)
        sc, b = np.longdouble(float(d.get("scale", 1.0))), np.longdouble(float(d.get("bias", 0.0)))
        with np.errstate(all="ignore"):
            v = sc * xv + b if d.get("bias_after_scale", True) else sc * (xv + b)
        return bool(np.isfinite(v).all()) and \
            out.numpy().tolist() == np.trunc(v).astype(np.int64).tolist()
    return False


def _paddle_promotion(call, detail, last):
    """Paddle promotes only between floating dtypes; int/bool mixed with another dtype
    is an error (torch promotes)."""
    return "dtypes are promoted (Paddle's rule)" in detail


def _no_integer_kernel(call, detail, last):
    """Paddle has no integer/bool kernels for float math (exp, sqrt, softmax, matmul,
    sigmoid, ...) nor bool kernels for arithmetic (max, sign, scale); torch computes
    them (promoting to float)."""
    import re
    return re.search(r"the kernel '\w+' is not registered for (int32|int64|bool) on CPU",
                     detail) is not None


def _inf_minus_inf_in_oracle(call, detail, last):
    """The torch oracle of a *_grad op is a formula (tests/op_cases/): its autograd
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


def _nan_input_of_masked_gradient(call, detail, last):
    """The gradient of a piecewise activation at a NaN input: NaN fails every comparison,
    so torch's scalar loop passes grad_out there while its vectorized loop gives 0 or
    NaN -- the answer depends on where the element lies in the tensor. oar always gives
    the scalar loop's answer. Only when x holds at least as many NaNs as elements differ."""
    import re
    import torch
    x = _x(call, last)
    m = re.search(r"(\d+)/\d+ elements differ", detail)
    return x is not None and m is not None and \
        0 < int(m.group(1)) <= int(torch.isnan(x).sum())
def _positions_of_ties(call, detail, last):
    """topk/kthvalue positions among equal values (0.0 and -0.0 included): which of the
    tied positions comes first is unspecified (torch's depends on its selection
    algorithm; oar takes the smaller position). Only when the values at oar's positions
    equal the values at torch's."""
    import torch
    x, out, want = _x(call, last), last.get("out"), last.get("want")
    if x is None or out is None or want is None or x.dim() == 0:
        return False
    d = call.decl or {}
    axis = int(d.get("axis", -1)) % x.dim()
    got = torch.tensor(out.numpy()).long()
    want = want.long()
    if call.key == "kthvalue_index" and not d.get("keepdim", False):
        got, want = got.unsqueeze(axis), want.unsqueeze(axis)
    a, b = x.gather(axis, got), x.gather(axis, want)
    return bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all())


def _cumprod_grad_of_non_finite(call, detail, last):
    """cumprod's gradient where x holds inf or NaN: inf * 0 or NaN meets the products
    (oar's gradient of x_i is a running sum of g * out divided by x_i), where torch's
    separate path for inputs with zeros gives 0; both stand for an undefined value.
    Only when x is not finite and oar's first differing element is NaN."""
    import torch
    x = _x(call, last)
    return x is not None and not bool(torch.isfinite(x).all()) and "oar np.float64(nan)" in detail


def _non_finite_attribute(call, detail, last):
    """An attribute of inf or NaN (hardsigmoid's slope=inf): the gradient is
    inf * 0 where torch keeps the product and oar's piecewise form gives the limit 0.
    Only when some float attribute of the call is not finite."""
    import math
    attrs = call.decl or {}
    return any(isinstance(v, float) and not math.isfinite(v) for v in attrs.values())


def _softsign_at_infinity(call, detail, last):
    """softsign's gradient 1 / (1 + |x|)^2 at x = +-inf: oar gives the limit 0, torch
    NaN (inf / inf). Only when x holds an infinity and torch's value is NaN."""
    import torch
    x = _x(call, last)
    return x is not None and bool(torch.isinf(x).any()) and "want np.float64(nan)" in detail


def _spread_of_one_element(call, detail, last):
    """std/var of a group of one element with the unbiased correction: the value is NaN
    (0 / 0) in both; torch's backward gives 0, oar's (x - mean) / ((n - 1) * std) gives
    NaN. Only when oar's gradient is NaN and x has one element per group."""
    x, out = _x(call, last), last.get("out")
    if x is None or "oar np.float64(nan)" not in detail:
        return False
    groups = max(1, out.numel()) if out is not None else 1
    return x.numel() <= groups  # one element per group


def _gradient_in_result_dtype(call, detail, last):
    """prod/cumprod with a lower-precision dtype= than x: x is cast first, so the gradient
    is computed in that dtype (as torch's) and its rounding differs from torch's order of
    operations by a few ulps of the result dtype. Only when the first differing element
    agrees to the dtype's precision."""
    import re
    dt = (call.decl or {}).get("dtype")
    dt = getattr(dt, "name", dt)  # a name, or gen.DType (oar.float32)
    eps = {"float32": 1e-5, "float16": 4e-3, "bfloat16": 3e-2}.get(dt)
    m = re.search(r"oar np\.float64\(([^)]*)\), want np\.float64\(([^)]*)\)", detail)
    if eps is None or not m:
        return False
    a, b = float(m.group(1)), float(m.group(2))
    return abs(a - b) <= eps * abs(b) + eps * 1e-1


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


def _rounded_once(call, detail, last):
    """linspace/arange in float16 or bfloat16: oar computes each value in float64 and
    rounds it once; torch rounds on the way (an ulp or more apart). Only when oar's
    values are exactly numpy's float64 values rounded to the dtype."""
    import numpy as np
    import torch
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
    import numpy as np
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


def _integer_overflow_saturates(call, detail, last):
    """scale of an integer tensor whose result leaves the dtype's range (a scale of
    1e308): oar saturates to the dtype's limits (NaN to 0), which is defined; torch's
    float-to-int conversion of such values is undefined behaviour in C++."""
    import numpy as np
    x, out = _x(call, last), last.get("out")
    if x is None or x.is_floating_point() or out is None:
        return False
    d = call.decl or {}
    scale, bias = float(d.get("scale", 1.0)), float(d.get("bias", 0.0))
    after = d.get("bias_after_scale", True)
    with np.errstate(all="ignore"):
        xv = x.double().numpy()
        v = scale * xv + bias if after else scale * (xv + bias)
        info = np.iinfo(out.numpy().dtype)
        want = np.where(np.isnan(v), 0, np.clip(v, info.min, info.max))
    return bool(np.isnan(v).any() or np.abs(v).max(initial=0) > info.max) and \
        out.numpy().astype(np.float64).tolist() == np.trunc(want).tolist()


def _fused_multiply_add(call, detail, last):
    """scale = x * scale + bias in one fused multiply-add: no intermediate overflow near
    float64's limit (|scale| ~ 1e308), so 1e308 * x + 1e308 stays finite and
    1e308 * x + inf is inf, where torch's two roundings overflow to ±inf or NaN. Only
    when every differing element is non-finite in torch, and the scale or bias huge."""
    import numpy as np
    d = call.decl or {}
    if max(abs(float(d.get("scale", 1.0))), abs(float(d.get("bias", 0.0)))) < 1e300:
        return False
    if detail.endswith("[all: oar inf where torch nan]"):
        return True
    if "grad" in detail:
        # The gradient is g * scale: with |scale| ~ 1e308 whether its sum over
        # broadcast rows overflows depends on the summation order.
        return abs(float(d.get("scale", 1.0))) >= 1e300
    out, want = last.get("out"), last.get("want")
    if out is None or want is None:
        return False
    g, w = np.asarray(out.numpy(), dtype=np.float64), want.detach().double().numpy()
    with np.errstate(invalid="ignore"):
        bad = ~np.isclose(g, w, equal_nan=True)
    return bool(bad.any() and not np.isfinite(w[bad]).any())


def _low_precision_sum_order(call, detail, last):
    """sum into float16/bfloat16: the result is rounded once from a float32 accumulator
    whose summation order differs from torch's; accepted when oar's value is within the
    rounding bound n * eps * sum|x| of the exact float64 sum of the rounded inputs."""
    import numpy as np
    import torch
    x, out = _x(call, last), last.get("out")
    if x is None or out is None or out.dtype.name not in ("bfloat16", "float16"):
        return False
    tdt = getattr(torch, out.dtype.name)
    d = call.decl or {}
    axis = d.get("axis") or list(range(x.dim()))
    dims = tuple(sorted({a % x.dim() for a in axis})) if x.dim() else ()
    keep = bool(d.get("keepdim", False))
    xr = x.to(tdt).double()
    exact = xr.sum(dims, keepdim=keep) if dims else xr
    bound = xr.abs().sum(dims, keepdim=keep) if dims else xr.abs()
    n = max(1, x.numel() // max(1, exact.numel()))
    eps = 2.0 ** -7 if tdt is torch.bfloat16 else 2.0 ** -10
    got = torch.tensor(np.asarray(out.cast("float64").numpy()))
    return bool(((got - exact).abs() <= n * eps * bound + 1e-6).all())


def _float_only_keeps_float(call, detail, last):
    """float_only ops (the LAPACK ones among them) compute integer and bool input in
    float32 and return float32 (docs/dtypes.md); torch's oracle keeps an empty integer
    input's dtype where it would raise on a non-empty one."""
    import worker
    op = worker.golden.OPS.get(call.key)
    return op is not None and getattr(op, "float_only", False) and \
        detail.startswith("value: dtype float32, want ")


def _numbers(detail):
    import re
    m = re.search(r"oar np\.float\d+\(([^)]*)\), want np\.float\d+\(([^)]*)\)", detail)
    return (float(m.group(1)), float(m.group(2))) if m else None


def _torch_series_accuracy(call, detail, last):
    """digamma/polygamma: torch's series are accurate to ~1e-9 relative; oar's match
    SciPy and mpmath (tests/python/test_distribution.py checks them against SciPy). A
    mismatch below 1e-7 relative is torch's error, not oar's."""
    v = _numbers(detail)
    return v is not None and abs(v[0] - v[1]) <= 1e-7 * max(1.0, abs(v[1]))


def _polygamma_pole(call, detail, last):
    """polygamma at a pole (x = 0, -1, -2, ...): oar returns NaN; torch returns +inf or
    -inf with no consistent rule between orders. Only when x has such a value."""
    x = _x(call, last)
    if x is None or "oar np.float" not in detail or "(nan)" not in detail.split("want")[0]:
        return False
    xv = x.double()
    return bool(((xv <= 0) & (xv == xv.round())).any())


def _standard_gamma_grad_exact(call, detail, last):
    """standard_gamma_grad: oar computes the implicit gradient -dF/dalpha / dF/dx of
    the regularised incomplete gamma F exactly; torch uses an approximation good to
    ~1e-4, and gives 0 where alpha <= 0 (no such distribution: oar gives NaN). The
    oar value is re-checked against SciPy's gammainc by central differences in alpha."""
    import numpy as np
    import scipy.special as sp
    d = call.decl or {}
    out, xs, ss = last.get("out"), _x(call, last), d.get("out")
    if out is None or xs is None or not hasattr(ss, "shape"):
        return False
    import gen
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


def _unsorted_topk_order(call, detail, last):
    """topk_index with sorted=False: the order of the k positions is unspecified (torch's
    follows its selection algorithm), so only the sets must agree. Only when oar's and
    torch's positions are the same set along the axis."""
    import torch
    out, want = last.get("out"), last.get("want")
    d = call.decl or {}
    if d.get("sorted", True) or out is None or want is None:
        return False
    got = torch.tensor(out.numpy()).long()
    want = want.long()
    if got.shape != want.shape or got.dim() == 0:
        return False
    axis = int(d.get("axis", -1)) % got.dim()
    return bool((got.sort(axis).values == want.sort(axis).values).all())


def _lapack_non_finite(call, detail, last):
    """A factorisation or solve of a matrix holding inf or NaN: LAPACK leaves the result
    undefined, and OpenBLAS (oar) and MKL (torch) propagate the non-finite values
    differently (one gives NaN where the other keeps a finite or infinite number).
    Only when some float tensor argument is not finite."""
    import gen
    import torch
    views = last.get("tviews") or {}
    for v in (call.decl or {}).values():
        t = views.get(id(v)) if isinstance(v, gen.T) else None
        if t is not None and (t.is_floating_point() or t.is_complex()) and \
                not bool(torch.isfinite(t).all()):
            return True
    return False


LAPACK_OPS = ["inverse", "det", "slogdet", "solve", "triangular_solve", "cholesky", "qr_packed",
              "svd_packed", "eigh_packed", "eig_packed", "lu_packed", "lu_pivots"]


DIFFERENCES = [
    Difference("Paddle's promotion rule (no int/float mix)", None, ["oar raises"],
               _paddle_promotion, _paddle_promotion.__doc__),
    Difference("no integer kernels for float math", None, ["oar raises"],
               _no_integer_kernel, _no_integer_kernel.__doc__),
    Difference("inf - inf in a torch formula", None, ["grad mismatch"],
               _inf_minus_inf_in_oracle, _inf_minus_inf_in_oracle.__doc__),
    Difference("scale/pow keep an integer dtype", ["scale", "scale_", "pow"], ["value mismatch"],
               _keeps_integer_dtype, _keeps_integer_dtype.__doc__),
    Difference("max/min gradient of a NaN group goes to its NaNs", ["max", "min", "amax", "amin"],
               ["grad mismatch"], _nan_group_of_max, _nan_group_of_max.__doc__),
    Difference("gradient at a NaN input of a piecewise activation",
               ["hardtanh", "hardtanh_", "hardswish", "softshrink", "hardshrink", "hardsigmoid",
                "thresholded_relu", "leaky_relu", "elu", "selu", "celu"], ["grad mismatch"],
               _nan_input_of_masked_gradient, _nan_input_of_masked_gradient.__doc__),
    Difference("positions of tied values", ["topk_index", "kthvalue_index"], ["value mismatch"],
               _positions_of_ties, _positions_of_ties.__doc__),
    Difference("cumprod gradient at inf/NaN inputs", ["cumprod", "prod"], ["grad mismatch"],
               _cumprod_grad_of_non_finite, _cumprod_grad_of_non_finite.__doc__),
    Difference("gradient with a non-finite attribute", ["hardsigmoid", "hardsigmoid_grad"],
               ["grad mismatch"], _non_finite_attribute, _non_finite_attribute.__doc__),
    Difference("softsign gradient at infinity", ["softsign", "softsign_grad"],
               ["grad mismatch", "value mismatch"], _softsign_at_infinity,
               _softsign_at_infinity.__doc__),
    Difference("std/var gradient of one element", ["std", "var"], ["grad mismatch"],
               _spread_of_one_element, _spread_of_one_element.__doc__),
    Difference("prod/cumprod gradient in a lower dtype=", ["prod", "cumprod"], ["grad mismatch"],
               _gradient_in_result_dtype, _gradient_in_result_dtype.__doc__),
    Difference("sum_to keeps its input dtype", ["sum_to"], ["value mismatch"],
               _sum_to_keeps_dtype, _sum_to_keeps_dtype.__doc__),
    Difference("arange casts its bounds to an integer dtype first", ["arange"],
               ["value mismatch"], _arange_casts_bounds_first, _arange_casts_bounds_first.__doc__),
    Difference("low-precision linspace/arange rounded once", ["linspace", "arange"],
               ["value mismatch"], _rounded_once, _rounded_once.__doc__),
    Difference("linspace casts its bounds to an integer dtype first", ["linspace"],
               ["value mismatch"], _linspace_casts_bounds_first,
               _linspace_casts_bounds_first.__doc__),
    Difference("integer scale saturates on overflow", ["scale", "scale_"], ["value mismatch"],
               _integer_overflow_saturates, _integer_overflow_saturates.__doc__),
    Difference("scale is one fused multiply-add", ["scale", "scale_"],
               ["value mismatch", "grad mismatch"],
               _fused_multiply_add, _fused_multiply_add.__doc__),
    Difference("float16/bfloat16 sum: summation order", ["sum"], ["value mismatch"],
               _low_precision_sum_order, _low_precision_sum_order.__doc__),
    Difference("float_only ops return float32 for integer input", None, ["value mismatch"],
               _float_only_keeps_float, _float_only_keeps_float.__doc__),
    Difference("torch's digamma/polygamma series accuracy", ["digamma", "polygamma", "lgamma"],
               ["value mismatch", "grad mismatch"], _torch_series_accuracy,
               _torch_series_accuracy.__doc__),
    Difference("polygamma at a pole", ["polygamma"], ["value mismatch", "grad mismatch"],
               _polygamma_pole, _polygamma_pole.__doc__),
    Difference("standard_gamma_grad is exact", ["standard_gamma_grad"], ["value mismatch"],
               _standard_gamma_grad_exact, _standard_gamma_grad_exact.__doc__),
    Difference("pow's exponent is a double", ["pow"], ["value mismatch", "grad mismatch"],
               _double_exponent, _double_exponent.__doc__),
    Difference("unsorted topk order", ["topk_index"], ["value mismatch"],
               _unsorted_topk_order, _unsorted_topk_order.__doc__),
    Difference("LAPACK on a matrix with inf/NaN", LAPACK_OPS, ["value mismatch", "grad mismatch"],
               _lapack_non_finite, _lapack_non_finite.__doc__),
]


def match(call, outcome, detail, last):
    for d in DIFFERENCES:
        if (d.keys is None or call.key in d.keys) and outcome in d.outcomes and \
                d.predicate(call, detail, last):
            return d.name
    return None
