"""Statistics (Paddle's paddle/tensor/stat.py): mean, var, std, median, nanmedian,
quantile, nanquantile, numel.

Integer inputs follow Paddle 3.3.1 (docs/dtypes.md, "Integer statistics"): mean of int32,
int64 or bool keeps the dtype (the float32 mean, truncated toward zero; bool: any nonzero
mean is True); var keeps int32/int64 (Paddle's formula in integers: the truncated mean,
then the truncated quotient), std is float32 (the square root of that var); nanmedian keeps
int32/int64 (the two middle values' sum halved toward zero). Where Paddle has no kernel
(var, std, nanmedian of bool, uint8, int8, int16) they raise TypeError."""

from __future__ import annotations

import math
from typing import Any, Sequence

from .. import _C
from ..framework import check as C
from ..framework.check import C_dtype, _zero_d, builtins_range
from ..framework.dtype import bool_, float32, float64, int64
from ..framework.out import api_write_out
from ..framework.typing import AxisLike
from .manipulation import stack
from .search import _gather, _line_axis, _squeeze_if, sort

Tensor = _C.Tensor

__all__ = ["median", "quantile", "nanquantile", "nanmedian", "numel", "mean", "var", "std"]

# The integer dtypes Paddle's mean, var and nanmedian take (its kernels have no others).
_PADDLE_INTS = ("int32", "int64")


def _no_kernel(api, x):
    """TypeError for an integer or bool x the op (as Paddle's) has no kernel for."""
    raise TypeError(
        f"{api}(): argument 'x' of dtype {x.dtype.name} is not supported (Paddle 3.3.1 "
        f"has no {x.dtype.name} kernel for it); it takes int32, int64 and floating "
        f"dtypes. Cast x first, e.g. x.astype('float32')"
    )


def _int_mean(x, axis, keepdim):
    """Paddle's mean of an int32, int64 or bool tensor: the float32 mean cast back to x's
    dtype (toward zero: [-1, -2] gives -1; bool: True when any element is)."""
    return _C.cast(_C.mean(_C.cast(x, float32), axis, keepdim), x.dtype)


def _sum_axes(axis):
    if axis is None:
        return []
    return list(axis) if isinstance(axis, (list, tuple)) else [axis]


def _int_var(x, axis, unbiased, keepdim):
    """Paddle 3.3.1's var of an int32/int64 tensor, its formula in x's dtype: the
    truncated mean u (keepdim), sum((x - u)**2) in x's dtype (wrapping as Paddle's), over
    float32(n - 1) (n without unbiased, at least 0), the quotient truncated to x's dtype
    (0 / 0: NaN, which becomes the dtype's lowest value, as in Paddle)."""
    u = _int_mean(x, axis, True)
    d = _C.subtract(x, u)
    s = _C.sum(_C.multiply(d, d), _sum_axes(axis), x.dtype, bool(keepdim))
    n = x.size // s.size if s.size else 0
    dof = float(max(n - (1 if unbiased else 0), 0))
    q = _C.divide(_C.cast(s, float32), _C.full([], dof, float32))
    return _C.cast(q, x.dtype)


def var(
    x: Tensor,
    axis: int | Sequence[int] | None = None,
    unbiased: bool = True,
    keepdim: bool = False,
    name: str | None = None,
) -> Tensor:
    """Variance over axis (all when None or []); unbiased divides by N - 1.

    int32 and int64 x give Paddle 3.3.1's integer result (the module docstring): var of
    [1, 4] is 5 (the truncated mean 2, then (1 + 4) / 1). Cast to float for the true
    variance.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 2.0, 3.0, 4.0])
        >>> print(oar.var(x))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.66666663)
    """
    C.tensor("var", "x", x)
    if x.dtype.name in _PADDLE_INTS:
        return _int_var(x, axis, bool(unbiased), keepdim)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        _no_kernel("var", x)
    return _C.var(x, axis, bool(unbiased), bool(keepdim))


def std(
    x: Tensor,
    axis: int | Sequence[int] | None = None,
    unbiased: bool = True,
    keepdim: bool = False,
    name: str | None = None,
) -> Tensor:
    """Standard deviation over axis (all when None or []); unbiased divides by N - 1.

    int32 and int64 x give float32: the square root of var's integer result, as Paddle
    3.3.1 (std of [1, 4] is sqrt(5)).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 3.0])
        >>> print(oar.std(x))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.41421354)
    """
    C.tensor("std", "x", x)
    if x.dtype.name in _PADDLE_INTS:
        return _C.sqrt(_int_var(x, axis, bool(unbiased), keepdim))
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        _no_kernel("std", x)
    return _C.std(x, axis, bool(unbiased), bool(keepdim))


def median(
    x: Tensor,
    axis: AxisLike | None = None,
    keepdim: bool = False,
    mode: str = "avg",
    name: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """The median along axis (None: of all elements). mode 'avg' averages the two middle
    values of an even count (float64 stays, other dtypes give float32); 'min' takes the
    lower one, and with an axis also returns its int64 position. A NaN in a line gives NaN."""
    C.tensor("median", "x", x)
    if mode not in ("avg", "min"):
        raise ValueError(f"median(): argument 'mode' must be 'avg' or 'min', but got {mode!r}")
    xs, a = _line_axis("median", x, axis)
    n = xs.shape[a] if xs.ndim else 1
    if n == 0:
        raise ValueError(
            f"median(): cannot take the median of an empty axis (x has shape {x.shape})"
        )
    if mode == "avg" and xs.dtype != float64:
        xs = _C.cast(xs, float32)
    kd = keepdim if axis is not None else False
    lo_idx = _C.kthvalue_index(xs, (n + 1) // 2, a, True)
    value = _gather(xs, lo_idx, a)
    if mode == "avg" and n % 2 == 0:
        hi = _gather(xs, _C.kthvalue_index(xs, n // 2 + 1, a, True), a)
        value = _C.scale(_C.add(value, hi), 0.5)
    if xs.dtype.is_floating_point:  # a NaN anywhere in the line makes the median NaN
        is_nan = _C.cast(_C.not_equal(xs, xs), xs.dtype)
        has_nan = _C.greater_than(_C.amax(is_nan, [a], True), _C.full([], 0.0, xs.dtype))
        value = _C.where(has_nan, _C.full_like(value, math.nan), value)
        if mode == "min":  # ... and its position that of the line's first NaN (Paddle)
            lo_idx = _C.where(has_nan, _C.argmax(is_nan, [a], True, lo_idx.dtype), lo_idx)
    if axis is None:
        value = _C.reshape(value, [1] * x.ndim if keepdim else [])
        return value
    value = _squeeze_if(value, a, kd, x)
    if mode == "min":
        return value, _squeeze_if(lo_idx, a, kd, x)
    return value


_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


def _lines(api, x, axis):
    """(x with the reduced axes merged into one last axis, the reduced axes, the shape of
    the kept dims with keepdim's 1s)."""
    if axis is None:
        ax = list(builtins_range(x.ndim))
    elif isinstance(axis, (list, tuple)):
        if not axis:
            raise ValueError(f"{api}(): argument 'axis' must not be an empty list")
        ax = sorted({C.axis(api, "axis", a, max(x.ndim, 1)) for a in axis})
    else:
        ax = [C.axis(api, "axis", axis, max(x.ndim, 1))]
    ax = [a for a in ax if a < x.ndim]
    kept = [d for d in builtins_range(x.ndim) if d not in ax]
    moved = _C.transpose(x, kept + ax) if x.ndim else x
    lead = [x.shape[d] for d in kept]
    lines = C.reshape_exact(moved, lead + [math.prod(x.shape[d] for d in ax)])
    keep_shape = [1 if d in ax else x.shape[d] for d in builtins_range(x.ndim)]
    return lines, ax, lead, keep_shape


def _quantile(api, x, q, axis, keepdim, interpolation, ignore_nan):
    C.tensor(api, "x", x)
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(
            f"{api}(): argument 'interpolation' must be one of {_INTERPOLATIONS}, "
            f"but got {interpolation!r}"
        )
    scalar_q = not isinstance(q, (list, tuple, Tensor)) or (isinstance(q, Tensor) and q.ndim == 0)
    qs = q.tolist() if isinstance(q, Tensor) else q
    qs = [qs] if scalar_q else list(qs)
    if isinstance(q, Tensor) and q.ndim > 1:
        raise ValueError(f"{api}(): argument 'q' must be a number or 1-D, but got shape {q.shape}")
    if not qs:
        raise ValueError(f"{api}(): argument 'q' must not be empty")
    qs = [float(C.number(api, "q", v)) for v in qs]
    if any(not 0.0 <= v <= 1.0 for v in qs):
        raise ValueError(f"{api}(): argument 'q' must be in [0, 1], but got {qs}")
    if not x.dtype.is_floating_point:
        x = _C.cast(x, float32)
    lines, ax, lead, keep_shape = _lines(api, x, axis)
    n = lines.shape[-1]
    if n == 0:
        raise ValueError(
            f"{api}(): cannot take a quantile over an empty axis (x has shape {x.shape})"
        )
    srt = sort(lines, -1)  # NaN last
    nan = _C.isnan(lines)
    nan_count = _C.sum(_C.cast(nan, int64), [-1], None, True)
    valid = _C.scale(_C.cast(nan_count, float64), -1.0, float(n))  # per line
    outs = []
    for qv in qs:
        # the position among the line's valid (non-NaN) values; with NaN counted
        # (quantile), a NaN anywhere makes the result NaN below
        cnt = valid if ignore_nan else _C.full_like(valid, float(n))
        pos = _C.scale(_C.scale(cnt, 1.0, -1.0), qv)
        pos = _C.clip(pos, 0.0, math.inf)
        lo = _C.floor(pos)
        hi = _C.clip(_C.ceil(pos), 0.0, float(n - 1))
        if interpolation == "nearest":
            near = _C.round(pos)
            lo = hi = near
        lo_i = _C.cast(_C.clip(lo, 0.0, float(n - 1)), int64)
        hi_i = _C.cast(hi, int64)
        vlo = _C.take_along_axis(srt, lo_i, -1, False)
        vhi = _C.take_along_axis(srt, hi_i, -1, False)
        if interpolation in ("lower", "nearest"):
            v = vlo
        elif interpolation == "higher":
            v = vhi
        elif interpolation == "midpoint":
            v = _C.scale(_C.add(vlo, vhi), 0.5)
        else:
            w = _C.cast(_C.subtract(pos, lo), x.dtype)
            v = _C.add(vlo, _C.multiply(_C.subtract(vhi, vlo), w))
        bad = (
            _C.less_equal(valid, _C.full_like(valid, 0.0))
            if ignore_nan
            else _C.greater_than(nan_count, _C.full_like(nan_count, 0))
        )
        v = _C.where(bad, _C.full_like(v, math.nan), v)
        v = C.reshape_exact(v, keep_shape if keepdim else lead)
        outs.append(v)
    if scalar_q:
        return outs[0]
    return stack(outs, 0)


def quantile(
    x: Tensor,
    q: float | Sequence[float] | Tensor,
    axis: int | Sequence[int] | None = None,
    keepdim: bool = False,
    interpolation: str = "linear",
    name: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The q-th quantiles of x over axis (None: all elements), interpolating between the
    sorted values as `interpolation` says ('linear', 'lower', 'higher', 'nearest',
    'midpoint'); a NaN in a line gives NaN. A list of q adds a leading dimension.

    Examples:
        >>> import oar
        >>> y = oar.arange(8, dtype='float32').reshape([4, 2])
        >>> print(oar.quantile(y, q=0.5, axis=1).tolist())
        [0.5, 2.5, 4.5, 6.5]
    """
    return api_write_out(
        "quantile", out, _quantile("quantile", x, q, axis, keepdim, interpolation, False)
    )


def nanquantile(
    x: Tensor,
    q: float | Sequence[float] | Tensor,
    axis: int | Sequence[int] | None = None,
    keepdim: bool = False,
    interpolation: str = "linear",
) -> Tensor:
    """quantile over the elements that are not NaN (NaN for a line of NaN only)."""
    return _quantile("nanquantile", x, q, axis, keepdim, interpolation, True)


def nanmedian(
    x: Tensor,
    axis: int | Sequence[int] | None = None,
    keepdim: bool = False,
    mode: str = "avg",
    name: str | None = None,
) -> Any:
    """The median over axis of the elements that are not NaN (NaN for a line of NaN
    only). mode 'avg' averages the two middle values of an even count; 'min' takes the
    lower one and, for an int axis, also returns its int64 position (-1 for a line of NaN).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[float('nan'), 2.0, 3.0], [0.0, 1.0, 2.0]])
        >>> print(x.nanmedian().item(), oar.nanmedian(x, 0).tolist())
        2.0 [0.0, 1.5, 2.5]
    """
    C.tensor("nanmedian", "x", x)
    if mode not in ("avg", "min"):
        raise ValueError(f"nanmedian(): argument 'mode' must be 'avg' or 'min', but got {mode!r}")
    if x.dtype.name in _PADDLE_INTS:
        return _int_nanmedian(x, axis, keepdim, mode)
    if not x.dtype.is_floating_point:
        _no_kernel("nanmedian", x)
    xf = x
    lines, ax, lead, keep_shape = _lines("nanmedian", xf, axis)
    n = lines.shape[-1]
    if n == 0:
        raise ValueError(
            f"nanmedian(): cannot take the median of an empty axis (x has shape {x.shape})"
        )
    order = _C.argsort(lines, -1, False, True)  # NaN last, stable
    srt = _C.take_along_axis(lines, order, -1, False)
    valid = _C.sum(_C.cast(_C.logical_not(_C.isnan(lines)), int64), [-1], None, True)
    lo_pos = _C.floor_divide(_C.scale(valid, 1.0, -1.0), _C.full_like(valid, 2))
    lo_pos = _C.clip(lo_pos, 0.0, float(n - 1))
    v = _C.take_along_axis(srt, lo_pos, -1, False)
    if mode == "avg":
        hi_pos = _C.clip(_C.floor_divide(valid, _C.full_like(valid, 2)), 0.0, float(n - 1))
        vhi = _C.take_along_axis(srt, hi_pos, -1, False)
        v = _C.scale(_C.add(v, vhi), 0.5)
    empty = _C.equal(valid, _C.full_like(valid, 0))
    v = _C.where(empty, _C.full_like(v, math.nan), v)
    values = C.reshape_exact(v, keep_shape if keepdim else lead)
    if mode == "min" and axis is not None and not isinstance(axis, (list, tuple)):
        idx = _C.take_along_axis(order, lo_pos, -1, False)
        idx = _C.where(empty, _C.full_like(idx, -1), idx)
        return values, C.reshape_exact(idx, keep_shape if keepdim else lead)
    return values


def _int_nanmedian(x, axis, keepdim, mode):
    """nanmedian of int32/int64 x in its dtype (Paddle 3.3.1): the lower middle value, or
    with 'avg' the two middle values' sum (in x's dtype) halved toward zero."""
    lines, ax, lead, keep_shape = _lines("nanmedian", x, axis)
    n = lines.shape[-1]
    if n == 0:
        raise ValueError(
            f"nanmedian(): cannot take the median of an empty axis (x has shape {x.shape})"
        )
    order = _C.argsort(lines, -1, False, True)  # stable
    srt = _C.take_along_axis(lines, order, -1, False)
    lo_pos = _C.full(lead + [1], (n - 1) // 2, int64)
    v = _C.take_along_axis(srt, lo_pos, -1, False)
    if mode == "avg":
        vhi = _C.take_along_axis(srt, _C.full(lead + [1], n // 2, int64), -1, False)
        s = _C.add(v, vhi)
        # s / 2 toward zero: floor((s + 1) / 2) for a negative s, floor(s / 2) otherwise
        neg = _C.cast(_C.less_than(s, _C.full([], 0, s.dtype)), s.dtype)
        v = _C.floor_divide(_C.add(s, neg), _C.full([], 2, s.dtype))
    values = C.reshape_exact(v, keep_shape if keepdim else lead)
    if mode == "min" and axis is not None and not isinstance(axis, (list, tuple)):
        idx = _C.take_along_axis(order, lo_pos, -1, False)
        return values, C.reshape_exact(idx, keep_shape if keepdim else lead)
    return values


def numel(x: Tensor, name: str | None = None) -> Tensor:
    """The number of elements of x, as a 0-D int64 tensor (Paddle's numel)."""
    C.tensor("numel", "x", x)
    return _zero_d(x.size, int64)


def mean(
    x: Tensor,
    axis: int | Sequence[int] | None = None,
    keepdim: bool = False,
    name: str | None = None,
    *,
    dtype: Any = None,
    out: Tensor | None = None,
) -> Tensor:
    """The mean over axis (None: all elements); dtype casts x first. int32, int64 and bool
    x keep their dtype, as Paddle's (its documentation: "with the same data type as x"):
    the float32 mean truncated toward zero (mean of [1, 2] is 1), bool True when the mean
    is not 0; uint8, int8 and int16 raise (Paddle has no kernel for them).

    Examples:
        >>> import oar
        >>> print(oar.mean(oar.to_tensor([1, 2, 4])).item())
        2
        >>> print(oar.mean(oar.to_tensor([1.0, 2.0, 4.0])).item())
        2.3333332538604736
    """
    C.tensor("mean", "x", x)
    if dtype is not None:
        x = _C.cast(x, C_dtype("mean", dtype))
    ax = None if axis is None else axis
    if x.dtype.name in _PADDLE_INTS or x.dtype is bool_:
        return api_write_out("mean", out, _int_mean(x, ax, bool(keepdim)))
    return api_write_out("mean", out, _C.mean(x, ax, bool(keepdim)))
