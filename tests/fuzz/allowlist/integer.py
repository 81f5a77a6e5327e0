"""Integer results across ops (scale, pow, round): oar keeps Paddle's integer dtype,
truncating toward zero, and saturates where a value leaves the dtype's range, where
torch promotes to float or wraps."""
import numpy as np

from .common import Difference, _x


def _keeps_integer_dtype(call, detail, last):
    """Paddle's scale/pow of an integer tensor keep its dtype: the float result is
    cast back (toward zero), where torch promotes to float."""
    import worker  # late: worker imports this package
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
    d = call.decl or {}
    if call.key.startswith("scale"):
        xv = x.numpy().astype(np.longdouble)
        sc, b = np.longdouble(float(d.get("scale", 1.0))), np.longdouble(float(d.get("bias", 0.0)))
        with np.errstate(all="ignore"):
            v = sc * xv + b if d.get("bias_after_scale", True) else sc * (xv + b)
        return bool(np.isfinite(v).all()) and \
            out.numpy().tolist() == np.trunc(v).astype(np.int64).tolist()
    return False


def _integer_overflow_saturates(call, detail, last):
    """scale of an integer tensor whose result leaves the dtype's range (a scale of
    1e308): oar saturates to the dtype's limits (NaN to 0), which is defined; torch's
    float-to-int conversion of such values is undefined behaviour in C++."""
    x, out = _x(call, last), last.get("out")
    if x is None or x.is_floating_point() or x.is_complex() or out is None:
        return False
    d = call.decl or {}
    scale, bias = float(d.get("scale", 1.0)), float(d.get("bias", 0.0))
    after = d.get("bias_after_scale", True)
    with np.errstate(all="ignore"):
        xv = x.double().numpy()
        v = scale * xv + bias if after else scale * (xv + bias)
        info = np.iinfo(out.numpy().dtype)
        want = np.where(np.isnan(v), 0, np.clip(v, info.min, info.max))
    return bool(np.isnan(v).any() or v.max(initial=0) > info.max or v.min(initial=0) < info.min) \
        and out.numpy().astype(np.float64).tolist() == np.trunc(want).tolist()


def _integer_round_saturates(call, detail, last):
    """round of an integer tensor to a negative number of decimals whose multiple of
    10**-decimals leaves the dtype's range (uint8 255 to -2 decimals is 300): oar
    saturates, as its casts do; torch wraps (44)."""
    x, out = _x(call, last), last.get("out")
    if x is None or x.is_floating_point() or x.is_complex() or out is None:
        return False
    decimals = int((call.decl or {}).get("decimals", 0))
    if decimals >= 0:
        return False
    p = 10.0 ** -decimals
    with np.errstate(all="ignore"):
        q = np.rint(x.double().numpy() / p)
        v = np.where(q == 0, 0.0, q * p)
        info = np.iinfo(out.numpy().dtype)
    return bool(v.max(initial=0) > info.max or v.min(initial=0) < info.min) and \
        out.numpy().astype(np.float64).tolist() == np.clip(v, info.min, info.max).tolist()


KEEPS_INTEGER_DTYPE = Difference(
    "scale/pow keep an integer dtype", ["scale", "scale_", "pow"], ["value mismatch"],
    _keeps_integer_dtype, _keeps_integer_dtype.__doc__)
SCALE_SATURATES = Difference(
    "integer scale saturates on overflow", ["scale", "scale_"], ["value mismatch"],
    _integer_overflow_saturates, _integer_overflow_saturates.__doc__)
ROUND_SATURATES = Difference(
    "integer round saturates on overflow", ["round", "round_"], ["value mismatch"],
    _integer_round_saturates, _integer_round_saturates.__doc__)
