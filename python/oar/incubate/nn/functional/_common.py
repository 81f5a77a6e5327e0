"""Argument checks and small pieces shared by the fused functions: typed errors that
name the function and the argument, dropout with Paddle's rate/mode rules, layer-norm
statistics and the int8 output quantisation of Paddle's inference kernels."""

from __future__ import annotations

import numbers

import numpy as np

from .... import _C
from ....framework.check import _kind, tensor  # noqa: F401 - shared with oar's other checks
from ....nn import functional as F
from ....tensor.creation import to_tensor

Tensor = _C.Tensor
MODES = ("upscale_in_train", "downscale_in_infer")


def float_tensor(api, arg, v, optional=False):
    """A floating-point Tensor (or None when optional)."""
    if v is None and optional:
        return None
    tensor(api, arg, v)
    if not v.dtype.is_floating_point:
        raise TypeError(
            f"{api}(): argument '{arg}' must be a floating-point Tensor, but got "
            f"dtype {v.dtype.name}"
        )
    return v


def like(t, ref):
    """t in ref's dtype: Paddle's kernels read low-precision inputs with float32
    weights, so a dtype difference alone is no error."""
    return t if t is None or t.dtype == ref.dtype else _C.cast(t, ref.dtype)


def shape_is(api, arg, t, shape):
    if t is not None and list(t.shape) != list(shape):
        raise ValueError(
            f"{api}(): argument '{arg}' must have shape {list(shape)}, but got {list(t.shape)}"
        )


def rank_at_least(api, arg, t, n):
    if t.ndim < n:
        raise ValueError(
            f"{api}(): argument '{arg}' must be at least {n}-D, but has shape {list(t.shape)}"
        )


def number(api, arg, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{api}(): argument '{arg}' must be a number, but got {_kind(v)}")
    return float(v)


def flag(api, arg, v):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{api}(): argument '{arg}' must be a bool, but got {_kind(v)}")
    return bool(v)


def rate(api, arg, p):
    """A dropout probability in [0, 1]."""
    p = number(api, arg, p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{api}(): argument '{arg}' ({p}) must be in [0, 1]")
    return p


def mode(api, m):
    if m not in MODES:
        raise ValueError(
            f"{api}(): argument 'mode' must be 'upscale_in_train' or "
            f"'downscale_in_infer', but got {m!r}"
        )
    return m


def dropout(x, p, training, m):
    """Paddle's two dropout conventions; draws come from the default generator, so
    oar.seed makes them reproducible."""
    return F.dropout(x, p, training=training, mode=m)


def dropouts(api, rates, training, m):
    """Checked rates (in the order given), training flag and mode."""
    return ([rate(api, arg, p) for arg, p in rates], flag(api, "training", training), mode(api, m))


def matrix(api, arg, w, shape, ref):
    float_tensor(api, arg, w)
    shape_is(api, arg, w, shape)
    return like(w, ref)


def linear(x, weight, bias):
    return _C.matmul(x, weight) if bias is None else _C.linear(x, weight, bias)


def last_axis_ln(x, scale, bias, epsilon):
    return F.layer_norm(x, [x.shape[-1]], weight=scale, bias=bias, epsilon=epsilon)


def norm_axis(api, begin_norm_axis, ndim):
    """begin_norm_axis in [-ndim, ndim), made non-negative."""
    if isinstance(begin_norm_axis, bool) or not isinstance(begin_norm_axis, numbers.Integral):
        raise TypeError(
            f"{api}(): argument 'begin_norm_axis' must be an int, but got {_kind(begin_norm_axis)}"
        )
    a = int(begin_norm_axis)
    if not -ndim <= a < ndim:
        raise ValueError(
            f"{api}(): argument 'begin_norm_axis' must be in range [0, {ndim}), but got {a}"
        )
    return a + ndim if a < 0 else a


def vector(api, arg, t, n, ref):
    """An optional 1-D per-feature Tensor of n entries, in ref's dtype."""
    if t is None:
        return None
    float_tensor(api, arg, t)
    if t.ndim != 1 or t.shape[0] != n:
        raise ValueError(
            f"{api}(): argument '{arg}' must be 1-D of size {n}, but has shape {list(t.shape)}"
        )
    return like(t, ref)


def row_stats(h, begin, epsilon, centred=True):
    """Per-row mean and 1/sqrt(var + eps) (or 1/sqrt(mean(h^2) + eps) when not
    centred) over the axes from `begin`, flattened to [rows]; no gradient, they are
    side outputs. float32 for half-precision inputs, as Paddle's kernels."""
    rows = int(np.prod(h.shape[:begin], dtype=np.int64))
    d = h.detach()
    if d.dtype.name not in ("float32", "float64"):
        d = _C.cast(d, "float32")
    d = _C.reshape(d, [rows, -1])
    mean = _C.mean(d, [1], False)
    sq = _C.square(d - _C.unsqueeze(mean, [1])) if centred else _C.square(d)
    inv = _C.rsqrt(_C.mean(sq, [1], False) + epsilon)
    return mean, inv


def empty_output(ref):
    """The [0] tensor Paddle returns for an output it did not compute."""
    return _C.full([0], 0.0, ref.dtype)


def quant_args(api, scale, round_type, max_bound, min_bound):
    """The quantisation attributes; True when int8 output is asked for (scale > 0)."""
    scale = number(api, "quant_scale", scale)
    if scale <= 0:
        return False
    if round_type not in (0, 1) or isinstance(round_type, bool):
        raise ValueError(
            f"{api}(): argument 'quant_round_type' must be 0 (half to even) or 1 "
            f"(half away from zero), but got {round_type!r}"
        )
    if abs(number(api, "quant_max_bound", max_bound) - 448.0) < 1e-6:
        # Paddle's signal for float8_e4m3fn output, a dtype oar does not have
        raise ValueError(
            f"{api}(): quant_max_bound 448 asks for float8_e4m3fn output, "
            f"which oar does not support; int8 output uses 127"
        )
    number(api, "quant_min_bound", min_bound)
    return True


def quantize(t, scale, round_type, max_bound, min_bound):
    """int8(clip(round(max_bound * scale * t), min_bound, max_bound)), Paddle's
    QuantHelperFunc. The int8 result has no gradient, so numpy does the rounding."""
    v = max_bound * scale * t.detach().numpy().astype(np.float32)
    v = np.rint(v) if round_type == 0 else np.sign(v) * np.floor(np.abs(v) + 0.5)
    return to_tensor(np.clip(v, min_bound, max_bound).astype(np.int8))
