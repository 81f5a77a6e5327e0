"""Elementwise math, reductions and scans (Paddle's paddle/tensor/math.py) beyond the C ops:
pow, clip, lerp, nan_to_num, cummax/cummin, copysign, logit, ldexp, frexp, deg2rad,
rad2deg, frac, sgn, stanh, isposinf/isneginf/isreal, gammaln, multigammaln,
logcumsumexp, fmax/fmin, mm/addmm/baddbmm/inner/outer/kron/trace, renorm, trapezoid,
diff, vander, increment, nansum/nanmean, add_n, reduce_as, combinations, and Paddle's
aliases (div, sub, clamp, true_divide, mod, floor_mod, vecdot)."""

from __future__ import annotations

import itertools
import math
import sys
import types
from typing import Any, Sequence

import numpy as np

from .. import _C
from ..framework import check as C
from ..framework import out as _out
from ..framework.check import C_dtype, _aliases, axes, builtins_range, like
from ..framework.dtype import bfloat16, bool_, float16, float32, float64, int64
from ..framework.memory import check_fits
from ..framework.out import api_write_out
from ..framework.promote import as_float, common
from ..framework.typing import AxisLike, DTypeLike
from .manipulation import (
    _int32_kept,
    _like_x,
    _renamed,
    flatten,
    masked_fill,
    masked_fill_,
)
from .search import _gather, _index_dtype, _line_axis

Tensor = _C.Tensor

__all__ = [
    "pow",
    "trace",
    "outer",
    "kron",
    "clip",
    "clip_",
    "nan_to_num",
    "nan_to_num_",
    "lerp",
    "lerp_",
    "cummax",
    "cummin",
    "copysign",
    "logit",
    "ldexp",
    "frexp",
    "deg2rad",
    "rad2deg",
    "frac",
    "sgn",
    "stanh",
    "isposinf",
    "isneginf",
    "isreal",
    "gammaln",
    "multigammaln",
    "logcumsumexp",
    "negative",
    "positive",
    "mul",
    "floor_mod",
    "mod",
    "fmax",
    "fmin",
    "mm",
    "inner",
    "addmm",
    "baddbmm",
    "renorm",
    "trapezoid",
    "cumulative_trapezoid",
    "diff",
    "vander",
    "increment",
    "nansum",
    "nanmean",
    "reduce_as",
    "add_n",
    "combinations",
    "clamp",
    "div",
    "true_divide",
    "sub",
    "vecdot",
]


def pow(x: Tensor, y: float | Tensor, name: str | None = None) -> Tensor:
    """x ** y: y a Python number (pow) or a Tensor (elementwise_pow).

    x must be a Tensor (Paddle's rule): for Python numbers `x ** y` would run Python's
    own power, which for a huge int exponent never finishes."""
    C.tensor("pow", "x", x)
    if isinstance(y, Tensor):
        return _C.elementwise_pow(x, y)
    return x ** C.number("pow", "y", y)


def _sum(x, axes, keepdim=False):
    """sum over `axes` (none: x itself; _C.sum reads an empty list as 'all axes')."""
    return _C.sum(x, list(axes), None, keepdim) if axes else x


def trace(
    x: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None
) -> Tensor:
    """The sum of diagonal `offset` of the planes (axis1, axis2) of x."""
    C.tensor("trace", "x", x)
    d = _renamed(
        "trace",
        _C.diagonal,
        x,
        C.integer("trace", "offset", offset),
        C.integer("trace", "axis1", axis1),
        C.integer("trace", "axis2", axis2),
    )
    return _C.sum(d, [-1], _int32_kept(d), False)


def outer(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The outer product of the flattened x and y: out[i, j] = x[i] * y[j]."""
    C.tensor("outer", "x", x)
    C.tensor("outer", "y", y)
    return _C.multiply(_C.reshape(flatten(x), [-1, 1]), _C.reshape(flatten(y), [1, -1]))


def kron(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The Kronecker product: blocks x[i..] * y (ranks aligned from the right)."""
    C.tensor("kron", "x", x)
    C.tensor("kron", "y", y)
    d = max(x.ndim, y.ndim)
    xs = [1] * (d - x.ndim) + list(x.shape)
    ys = [1] * (d - y.ndim) + list(y.shape)
    xv = C.reshape_exact(x, [v for s in xs for v in (s, 1)])
    yv = C.reshape_exact(y, [v for s in ys for v in (1, s)])
    return C.reshape_exact(_C.multiply(xv, yv), [a * b for a, b in zip(xs, ys)])


def _bound(api, name, v, none):
    return none if v is None else float(C.number(api, name, v))


def clip(
    x: Tensor,
    min: float | Tensor | None = None,
    max: float | Tensor | None = None,  # noqa: A002 - Paddle's names
    name: str | None = None,
) -> Tensor:
    C.tensor("clip", "x", x)
    return _C.clip(x, _bound("clip", "min", min, -math.inf), _bound("clip", "max", max, math.inf))


def clip_(
    x: Tensor,
    min: float | Tensor | None = None,
    max: float | Tensor | None = None,  # noqa: A002
    name: str | None = None,
) -> Tensor:
    C.tensor("clip_", "x", x)
    return _C.clip_(
        x, _bound("clip_", "min", min, -math.inf), _bound("clip_", "max", max, math.inf)
    )


# finfo(dtype).max of the floating dtypes, as constants: building a finfo per call took
# half of nan_to_num's time.
_LARGEST_FINITE = types.MappingProxyType(
    {
        float16: 65504.0,
        bfloat16: 3.3895313892515355e38,  # (2 - 2**-7) * 2**127
        float32: 3.4028234663852886e38,
        float64: sys.float_info.max,
    }
)


def _nan_args(api, x, nan, posinf, neginf):
    """None is x's dtype's largest (lowest) finite value; a given value is used as is
    (posinf=inf keeps +inf, as in PyTorch and Paddle). Integers have no infinities."""
    big = _LARGEST_FINITE.get(x.dtype, math.inf)
    return (
        float(C.number(api, "nan", nan)),
        _bound(api, "posinf", posinf, big),
        _bound(api, "neginf", neginf, -big),
    )


def nan_to_num(
    x: Tensor,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
    name: str | None = None,
) -> Tensor:
    C.tensor("nan_to_num", "x", x)
    return _C.nan_to_num(x, *_nan_args("nan_to_num", x, nan, posinf, neginf))


def nan_to_num_(
    x: Tensor,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
    name: str | None = None,
) -> Tensor:
    C.tensor("nan_to_num_", "x", x)
    return _C.nan_to_num_(x, *_nan_args("nan_to_num_", x, nan, posinf, neginf))


def lerp(x: Tensor, y: Tensor, weight: float | Tensor, name: str | None = None) -> Tensor:
    C.tensor("lerp", "x", x)
    return _C.lerp(x, y, _like_x("lerp", "weight", x, weight))


def lerp_(x: Tensor, y: Tensor, weight: float | Tensor, name: str | None = None) -> Tensor:
    C.tensor("lerp_", "x", x)
    return _C.lerp_(x, y, _like_x("lerp_", "weight", x, weight))


# Docstrings: the generated ones (Args, Returns, Examples), whose examples use these
# wrappers' defaults.
for _f in (clip, clip_, nan_to_num, nan_to_num_, lerp, lerp_, masked_fill, masked_fill_):
    _f.__doc__ = getattr(_C, _f.__name__).__doc__


WRAPPERS = {
    f.__name__: f
    for f in (clip, clip_, nan_to_num, nan_to_num_, lerp, lerp_, masked_fill, masked_fill_)
}


# ---- scans ------------------------------------------------------------------------------
def _cum_extreme(api, index_op, x, axis, dtype):
    C.tensor(api, "x", x)
    d = _index_dtype(api, dtype)
    xs, a = _line_axis(api, x, axis)
    idx = index_op(xs, [a])
    return _gather(xs, idx, a), _C.cast(idx, d)


def cummax(
    x: Tensor, axis: AxisLike | None = None, dtype: DTypeLike = "int64", name: str | None = None
) -> tuple[Tensor, Tensor]:
    """The running maximum along axis (None: x flattened) and its positions (later ties
    win). Returns (values, indices)."""
    return _cum_extreme("cummax", _C.cummax_index, x, axis, dtype)


def cummin(
    x: Tensor, axis: AxisLike | None = None, dtype: DTypeLike = "int64", name: str | None = None
) -> tuple[Tensor, Tensor]:
    """The running minimum along axis (None: x flattened) and its positions (later ties
    win). Returns (values, indices)."""
    return _cum_extreme("cummin", _C.cummin_index, x, axis, dtype)


# ---- sign and float format ------------------------------------------------------------------
def copysign(x: Tensor, y: Tensor | float, name: str | None = None) -> Tensor:
    """The magnitude of x with the sign of y (a Tensor broadcast against x, or a number);
    -0.0 counts as negative. The result has x's dtype (two floating dtypes promote).

    Examples:
        >>> import oar
        >>> print(oar.copysign(oar.to_tensor([1.0, 2.0, 3.0]), -0.0))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1., -2., -3.])
    """
    C.tensor("copysign", "x", x)
    s = like("copysign", "y", y, x)
    if s.dtype is not x.dtype and not (s.dtype.is_floating_point and x.dtype.is_floating_point):
        # only y's sign bit counts (-0.0 too): as -1 or 1 in x's dtype, which the result keeps
        neg = _C.signbit(s) if s.dtype is not bool_ else _C.full(s.shape, False, bool_)
        s = _C.where(neg, _C.full([], -1, x.dtype), _C.full([], 1, x.dtype))
    return _C.copysign(x, s)


def logit(x: Tensor, eps: float | None = None, name: str | None = None) -> Tensor:
    """log(z / (1 - z)) with z = x clipped to [eps, 1 - eps] (eps None: no clipping, NaN
    outside [0, 1]). Integer inputs compute in float32."""
    C.tensor("logit", "x", x)
    e = -1.0 if eps is None else float(C.number("logit", "eps", eps))
    return _C.logit(x, e)


def ldexp(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x * 2**y for an integer tensor y, broadcasting; integer x gives the default float.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 2.0, 3.0])
        >>> print(oar.ldexp(x, oar.to_tensor([2, 3, 4], dtype='int32')))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [4. , 16., 48.])
    """
    C.tensor("ldexp", "x", x)
    C.tensor("ldexp", "y", y)
    if y.dtype.is_floating_point or y.dtype.is_complex or y.dtype is bool_:
        raise TypeError(f"ldexp(): argument 'y' must be an integer tensor, but got {y.dtype.name}")
    xf = as_float(x)
    return _C.ldexp_exact(xf, _C.cast(y, xf.dtype))


def frexp(x: Tensor, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(mantissa, exponent) with x = mantissa * 2**exponent and 0.5 <= |mantissa| < 1
    (0 for 0; inf and NaN keep themselves with exponent 0), both in x's floating dtype.

    Examples:
        >>> import oar
        >>> m, e = oar.frexp(oar.to_tensor([1.0, 3.0, -0.375]))
        >>> print(m.tolist(), e.tolist())
        [0.5, 0.75, -0.75] [1.0, 2.0, -1.0]
    """
    C.tensor("frexp", "x", x)
    if not x.dtype.is_floating_point:
        raise TypeError(f"frexp(): argument 'x' must be a floating tensor, but got {x.dtype.name}")
    e = _C.frexp_exponent(x)
    return _C.ldexp_exact(x, _C.neg(e)), e


def deg2rad(x: Tensor, name: str | None = None) -> Tensor:
    """Degrees to radians (integer inputs compute in the default float)."""
    C.tensor("deg2rad", "x", x)
    return _C.scale(as_float(x), math.pi / 180.0)


def rad2deg(x: Tensor, name: str | None = None) -> Tensor:
    """Radians to degrees (integer inputs compute in the default float)."""
    C.tensor("rad2deg", "x", x)
    return _C.scale(as_float(x), 180.0 / math.pi)


def frac(x: Tensor, name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The fractional part x - trunc(x), with x's sign (0 for integers).

    Examples:
        >>> import oar
        >>> print(oar.frac(oar.to_tensor([1.5, -2.25])).tolist())
        [0.5, -0.25]
    """
    C.tensor("frac", "x", x)
    return api_write_out("frac", out, _C.subtract(x, _C.trunc(x)))


def sgn(x: Tensor, name: str | None = None) -> Tensor:
    """sign(x) for real x; x / |x| (0 at 0) for complex x."""
    C.tensor("sgn", "x", x)
    if not x.dtype.is_complex:
        return _C.sign(x)
    r = _C.abs(x)
    zero = _C.equal(r, _C.full_like(r, 0.0))
    safe = _C.where(zero, _C.full_like(r, 1.0), r)
    return _C.where(zero, _C.full_like(x, 0.0), _C.divide(x, _C.cast(safe, x.dtype)))


def stanh(
    x: Tensor, scale_a: float = 0.67, scale_b: float = 1.7159, name: str | None = None
) -> Tensor:
    """The scaled tanh, scale_b * tanh(scale_a * x)."""
    C.tensor("stanh", "x", x)
    a = float(C.number("stanh", "scale_a", scale_a))
    b = float(C.number("stanh", "scale_b", scale_b))
    return _C.scale(_C.tanh(_C.scale(as_float(x), a)), b)


def _inf_test(api, x, positive):
    C.tensor(api, "x", x)
    if not x.dtype.is_floating_point:
        return _C.full(x.shape, False, bool_)
    side = _C.greater_than if positive else _C.less_than
    return _C.logical_and(_C.isinf(x), side(x, _C.full_like(x, 0.0)))


def isposinf(x: Tensor, name: str | None = None) -> Tensor:
    """Whether each element is +inf, as a bool tensor."""
    return _inf_test("isposinf", x, True)


def isneginf(x: Tensor, name: str | None = None) -> Tensor:
    """Whether each element is -inf, as a bool tensor."""
    return _inf_test("isneginf", x, False)


def isreal(x: Tensor, name: str | None = None) -> Tensor:
    """Whether each element is real: True for real dtypes, imag == 0 for complex ones."""
    C.tensor("isreal", "x", x)
    if not x.dtype.is_complex:
        return _C.full(x.shape, True, bool_)
    im = _C.imag(x)
    return _C.equal(im, _C.full_like(im, 0.0))


# ---- gamma family ---------------------------------------------------------------------------
def gammaln(x: Tensor, name: str | None = None) -> Tensor:
    """The log of the absolute value of the gamma function (Paddle's name for lgamma)."""
    C.tensor("gammaln", "x", x)
    return _C.lgamma(x)


def multigammaln(x: Tensor, p: int, name: str | None = None) -> Tensor:
    """The log of the multivariate gamma function of dimension p: p(p-1)/4 log(pi) +
    sum_j lgamma(x - j/2), j < p; every element of x must exceed (p - 1) / 2.

    Examples:
        >>> import oar
        >>> print(oar.multigammaln(oar.to_tensor([2.5, 4.0], dtype='float64'), 2).numpy())
        [0.85704781 3.56509801]
    """
    C.tensor("multigammaln", "x", x)
    p = C.integer("multigammaln", "p", p)
    if p < 1:
        raise ValueError(f"multigammaln(): argument 'p' must be >= 1, but got {p}")
    xf = as_float(x)
    if x.size == 0:
        return _C.full_like(xf, 0)
    if bool(_C.any(_C.less_equal(xf, _C.full_like(xf, (p - 1) / 2.0)))):
        raise ValueError(
            f"multigammaln(): every element of 'x' must be greater than (p - 1) / 2 = {(p - 1) / 2}"
        )
    # The p terms of each element are summed in blocks (one broadcast lgamma per block, so
    # a large p is not p Python steps), bounded so that a block stays small next to x. A
    # p whose terms could not even be held in memory would still take hours: refuse it.
    # The blocks never hold every term at once: the message says the count is refused and
    # what holding it would take, not that the computation would allocate that much.
    terms = x.size * p
    elements = f"{x.size} element" + ("s" if x.size != 1 else "")
    check_fits(
        "multigammaln():",
        f"argument 'p' ({p}) asks for {terms} lgamma terms (p for "
        f"each of the {elements} of 'x'), too many to compute: held at once, their "
        f"{terms} {xf.dtype.name} values would",
        terms * xf.dtype.itemsize,
    )
    out = _C.full_like(xf, p * (p - 1) / 4.0 * math.log(math.pi))
    wide = _C.unsqueeze(xf, [-1])
    block = max(1, min(p, _MULTIGAMMA_BLOCK // x.size))
    j0 = 0
    while j0 < p:
        j1 = min(j0 + block, p)
        half = _C.scale(_C.arange(j0, j1, 1, xf.dtype), -0.5, 0.0)
        out = _C.add(out, _C.sum(_C.lgamma(_C.add(wide, half)), [-1], None, False))
        j0 = j1
    return out


_MULTIGAMMA_BLOCK = 1 << 20


def logcumsumexp(
    x: Tensor, axis: int | None = None, dtype: Any = None, name: str | None = None
) -> Tensor:
    """The running log(sum(exp(x))) along axis (None: over x flattened), without
    overflow; dtype casts x first.

    Examples:
        >>> import oar
        >>> print(oar.logcumsumexp(oar.to_tensor([0.0, 0.0, 1000.0])).tolist())
        [0.0, 0.6931471824645996, 1000.0]
    """
    C.tensor("logcumsumexp", "x", x)
    if dtype is not None:
        x = _C.cast(x, C_dtype("logcumsumexp", dtype))
    if axis is None:
        return _C.logcumsumexp_scan(_C.reshape(x, [-1]), 0)
    return _C.logcumsumexp_scan(x, C.axis("logcumsumexp", "axis", axis, max(x.ndim, 1)))


# ---- aliases --------------------------------------------------------------------------------
def negative(x: Tensor, name: str | None = None) -> Tensor:
    """-x."""
    return _C.neg(C.tensor("negative", "x", x))


def positive(x: Tensor, name: str | None = None) -> Tensor:
    """x itself (+x); bool tensors are refused, as Paddle does."""
    C.tensor("positive", "x", x)
    if x.dtype is bool_:
        raise TypeError("positive(): argument 'x' must not be a bool tensor")
    return x


def mul(x: Tensor, y: Tensor, name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """x * y, broadcasting (Paddle's alias of multiply)."""
    return api_write_out("mul", out, _C.multiply(x, y))


def _aliased(fn, api):
    def alias(
        x: Tensor, y: Tensor, name: str | None = None, *, out: Tensor | None = None
    ) -> Tensor:
        return api_write_out(api, out, fn(x, y))

    alias.__name__ = alias.__qualname__ = api
    alias.__doc__ = f"{api}(x, y): Paddle's alias of {fn.__name__}, as a bool tensor."
    return alias


floor_mod = _aliased(_C.remainder, "floor_mod")


mod = _aliased(_C.remainder, "mod")


floor_mod.__doc__ = "floor_mod(x, y): the remainder of floor division (Paddle's remainder)."


mod.__doc__ = "mod(x, y): the remainder of floor division (Paddle's remainder)."


def _fm(api, x, y, is_max):
    C.tensor(api, "x", x)
    C.tensor(api, "y", y)
    x, y = common(api, x, y)
    cmp = _C.greater_equal(x, y) if is_max else _C.less_equal(x, y)
    take_x = _C.logical_or(cmp, _C.isnan(y))
    return _C.where(take_x, x, y)


def fmax(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The elementwise maximum, ignoring NaN (NaN only where both are NaN).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([2.0, float('nan'), 5.0])
        >>> print(oar.fmax(x, oar.to_tensor([1.0, 3.0, float('nan')])))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [2., 3., 5.])
    """
    return _fm("fmax", x, y, True)


def fmin(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The elementwise minimum, ignoring NaN (NaN only where both are NaN)."""
    return _fm("fmin", x, y, False)


# ---- products -------------------------------------------------------------------------------
def mm(input: Tensor, mat2: Tensor, name: str | None = None) -> Tensor:  # noqa: A002
    """The matrix product input @ mat2 (matmul's broadcasting rules)."""
    C.tensor("mm", "input", input)
    C.tensor("mm", "mat2", mat2)
    return _C.matmul(input, mat2)


def inner(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The inner product over the last dimension: shape x.shape[:-1] + y.shape[:-1]
    (a product when either is 0-D)."""
    C.tensor("inner", "x", x)
    C.tensor("inner", "y", y)
    if x.ndim == 0 or y.ndim == 0:
        return _C.multiply(x, y)
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(
            f"inner(): the last dimensions of 'x' {x.shape} and 'y' {y.shape} must match"
        )
    n = x.shape[-1]
    out = _C.matmul(
        C.reshape_exact(x, [-1, n] if x.size else [0, n]),
        C.reshape_exact(y, [-1, n] if y.size else [0, n]),
        False,
        True,
    )
    return C.reshape_exact(out, x.shape[:-1] + y.shape[:-1])


def _addmm(api, ndim, input, x, y, beta, alpha):  # noqa: A002
    for n, t in (("input", input), ("x", x), ("y", y)):
        C.tensor(api, n, t)
    if x.ndim != ndim or y.ndim != ndim:
        raise ValueError(
            f"{api}(): 'x' and 'y' must be {ndim}-D, but got shapes {x.shape} and {y.shape}"
        )
    b = float(C.number(api, "beta", beta))
    a = float(C.number(api, "alpha", alpha))
    prod = _C.matmul(x, y)
    return _C.add(_C.scale(input, b), _C.scale(prod, a))


def addmm(
    input: Tensor,
    x: Tensor,
    y: Tensor,
    beta: float = 1.0,
    alpha: float = 1.0,  # noqa: A002
    name: str | None = None,
) -> Tensor:
    """beta * input + alpha * (x @ y) for 2-D x and y (input broadcast to the product).

    Examples:
        >>> import oar
        >>> out = oar.addmm(oar.ones([2, 2]), oar.ones([2, 2]), oar.ones([2, 2]), 0.5, 5.0)
        >>> print(out.tolist())
        [[10.5, 10.5], [10.5, 10.5]]
    """
    return _addmm("addmm", 2, input, x, y, beta, alpha)


def baddbmm(
    input: Tensor,
    x: Tensor,
    y: Tensor,
    beta: float = 1.0,  # noqa: A002
    alpha: float = 1.0,
    name: str | None = None,
) -> Tensor:
    """beta * input + alpha * (x @ y) for batches of matrices x [B, N, K] and y [B, K, M]."""
    return _addmm("baddbmm", 3, input, x, y, beta, alpha)


def renorm(x: Tensor, p: float, axis: int, max_norm: float) -> Tensor:
    """x with each slice along axis whose p-norm exceeds max_norm scaled down to norm
    max_norm (by max_norm / (norm + 1e-7))."""
    C.tensor("renorm", "x", x)
    p = float(C.number("renorm", "p", p))
    max_norm = float(C.number("renorm", "max_norm", max_norm))
    if x.ndim == 0:
        raise ValueError("renorm(): argument 'x' must have at least 1 dimension")
    a = C.axis("renorm", "axis", axis, x.ndim)
    if p <= 0:
        raise ValueError(f"renorm(): argument 'p' must be > 0, but got {p}")
    if max_norm < 0:
        raise ValueError(f"renorm(): argument 'max_norm' must be >= 0, but got {max_norm}")
    others = [d for d in builtins_range(x.ndim) if d != a]
    norms = _C.p_norm(x, p, others, True) if others else _C.abs(x)
    over = _C.greater_than(norms, _C.full_like(norms, max_norm))
    factor = _C.where(
        over,
        _C.divide(_C.full_like(norms, max_norm), _C.scale(norms, 1.0, 1e-7)),
        _C.full_like(norms, 1.0),
    )
    return _C.multiply(x, factor)


# ---- integration and differences ------------------------------------------------------------
def _trapezoid_terms(api, y, x, dx, axis):
    C.tensor(api, "y", y)
    if y.ndim == 0:
        raise ValueError(f"{api}(): argument 'y' must have at least 1 dimension")
    a = C.axis(api, "axis", axis, y.ndim)
    if x is not None and dx is not None:
        raise ValueError(f"{api}(): give either 'x' or 'dx', not both")
    y = as_float(y)
    n = y.shape[a]
    lo = _C.slice(y, [a], [0], [max(n - 1, 0)])
    hi = _C.slice(y, [a], [1], [max(n, 1)])
    mid = _C.scale(_C.add(lo, hi), 0.5)
    if x is None:
        step = 1.0 if dx is None else float(C.number(api, "dx", dx))
        return _C.scale(mid, step), a
    C.tensor(api, "x", x)
    x = as_float(x)
    if x.ndim == 1:
        if x.shape[0] != n:
            raise ValueError(
                f"{api}(): 1-D 'x' must have the length {n} of y's axis {a}, but has {x.shape[0]}"
            )
        shape = [1] * y.ndim
        shape[a] = max(n - 1, 0)
        dxs = C.reshape_exact(
            _C.subtract(_C.slice(x, [0], [1], [max(n, 1)]), _C.slice(x, [0], [0], [max(n - 1, 0)])),
            shape,
        )
    else:
        if x.ndim != y.ndim:
            raise ValueError(
                f"{api}(): 'x' must be 1-D or have y's rank, but has shape "
                f"{x.shape} against {y.shape}"
            )
        dxs = _C.subtract(
            _C.slice(x, [a], [1], [max(n, 1)]), _C.slice(x, [a], [0], [max(n - 1, 0)])
        )
    return _C.multiply(mid, dxs), a


def trapezoid(
    y: Tensor,
    x: Tensor | None = None,
    dx: float | None = None,
    axis: int = -1,
    name: str | None = None,
) -> Tensor:
    """The integral of y along axis by the trapezoidal rule, with sample points x (1-D,
    or y's shape) or a constant spacing dx (default 1).

    Examples:
        >>> import oar
        >>> y = oar.to_tensor([4.0, 5.0, 6.0])
        >>> print(oar.trapezoid(y).item(), oar.trapezoid(y, dx=2.0).item())
        10.0 20.0
    """
    terms, a = _trapezoid_terms("trapezoid", y, x, dx, axis)
    return _C.sum(terms, [a], None, False)


def cumulative_trapezoid(
    y: Tensor,
    x: Tensor | None = None,
    dx: float | None = None,
    axis: int = -1,
    name: str | None = None,
) -> Tensor:
    """The running trapezoidal integral of y along axis (one element shorter there)."""
    terms, a = _trapezoid_terms("cumulative_trapezoid", y, x, dx, axis)
    return _C.cumsum(terms, a)


def diff(
    x: Tensor,
    n: int = 1,
    axis: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
    name: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The n-th forward difference along axis (x[i+1] - x[i], applied n times), after
    prepending / appending tensors along that axis; bool tensors take x[i+1] != x[i].

    Examples:
        >>> import oar
        >>> print(oar.diff(oar.to_tensor([1, 4, 5, 2]), n=2).tolist())
        [-2, -4]
    """
    C.tensor("diff", "x", x)
    n = C.integer("diff", "n", n)
    if n < 0:
        raise ValueError(f"diff(): argument 'n' must be >= 0, but got {n}")
    if x.ndim == 0:
        raise ValueError("diff(): argument 'x' must have at least 1 dimension")
    a = C.axis("diff", "axis", axis, x.ndim)
    parts = []
    for nm, t in (("prepend", prepend), ("x", x), ("append", append)):
        if t is None:
            continue
        C.tensor("diff", nm, t)
        if t.ndim != x.ndim:
            raise ValueError(
                f"diff(): argument '{nm}' must have x's rank {x.ndim}, but has shape {t.shape}"
            )
        parts.append(t)
    if len(parts) > 1:
        parts = list(common("diff", *parts))
        x = _C.concat(list(parts), a)
    if x.size == 0:
        # Each difference only shortens the axis by one; with no elements there is nothing
        # to subtract, and n and the axis can both be past what a loop gets through.
        m = x.shape[a]
        return api_write_out("diff", out, _C.slice(x, [a], [0], [max(m - n, 0)]))
    for _ in builtins_range(n):
        m = x.shape[a]
        if m == 0:
            break
        hi, lo = _C.slice(x, [a], [1], [m]), _C.slice(x, [a], [0], [m - 1])
        x = _C.logical_xor(hi, lo) if x.dtype is bool_ else _C.subtract(hi, lo)
    return api_write_out("diff", out, x)


def vander(
    x: Tensor, n: int | None = None, increasing: bool = False, name: str | None = None
) -> Tensor:
    """The Vandermonde matrix of a 1-D x: columns x**(n-1), ..., x**0 (reversed with
    increasing); n defaults to len(x).

    Examples:
        >>> import oar
        >>> print(oar.vander(oar.to_tensor([1.0, 2.0, 3.0])).tolist())
        [[1.0, 1.0, 1.0], [4.0, 2.0, 1.0], [9.0, 3.0, 1.0]]
    """
    C.tensor("vander", "x", x)
    if x.ndim != 1:
        raise ValueError(f"vander(): argument 'x' must be 1-D, but got shape {x.shape}")
    n = x.shape[0] if n is None else C.integer("vander", "n", n)
    if n < 0:
        raise ValueError(f"vander(): argument 'n' must be >= 0, but got {n}")
    if n == 0 or x.shape[0] == 0:
        return _C.full([x.shape[0], n], 0, x.dtype)
    # [1, x, x, ...] (a column of ones and n - 1 of x), its running product along the row
    # (x**k as k sequential multiplies, as numpy's and torch's; int64 for bool) and the
    # flip are held at once: refuse an n whose matrix cannot fit before any is built.
    m = x.shape[0]
    check_fits(
        "vander():",
        f"argument 'n' ({n}) asks for {n} columns of {m} elements, which",
        4 * n * m * (8 if x.dtype is bool_ else x.dtype.itemsize),
    )
    col = _C.reshape(x, [m, 1])
    ones = _C.full_like(col, 1)
    if x.dtype.is_complex:  # no complex cumprod: doubling, log2(n) multiplies of blocks
        out = ones
        while out.shape[1] < n:
            k = out.shape[1]
            block = _C.multiply(
                _C.slice(out, [1], [0], [min(k, n - k)]), _C.slice(out, [1], [k - 1], [k]) * col
            )
            out = _C.concat([out, block], 1)
    else:
        rows = _C.concat([ones, _C.expand(col, [m, n - 1])], 1) if n > 1 else ones
        out = _C.cumprod(rows, 1)
        if out.dtype is not x.dtype:  # bool's running product comes back as int64
            out = _C.cast(out, x.dtype)
    return out if increasing else _C.flip(out, [1])


def increment(x: Tensor, value: float = 1.0, name: str | None = None) -> Tensor:
    """Adds value to the one element of x, in place (Paddle's increment), and returns x.

    Examples:
        >>> import oar
        >>> x = oar.zeros([1])
        >>> _ = oar.increment(x)
        >>> print(x.tolist())
        [1.0]
    """
    C.tensor("increment", "x", x)
    if x.size != 1:
        raise ValueError(f"increment(): argument 'x' must have exactly 1 element, but has {x.size}")
    v = like("increment", "value", value, x)
    if v.dtype is not x.dtype:
        v = _C.cast(v, x.dtype)
    return _C.add_(x, v)


# ---- NaN-aware reductions, quantiles ---------------------------------------------------------
def _nan_mask(x):
    return _C.isnan(x) if x.dtype.is_floating_point else None


def nansum(
    x: Tensor,
    axis: int | Sequence[int] | None = None,
    dtype: Any = None,
    keepdim: bool = False,
    name: str | None = None,
) -> Tensor:
    """The sum over axis, NaN counted as 0.

    Examples:
        >>> import oar
        >>> print(oar.nansum(oar.to_tensor([1.0, float('nan'), 2.5])).item())
        3.5
    """
    C.tensor("nansum", "x", x)
    m = _nan_mask(x)
    if m is not None:
        x = _C.where(m, _C.full_like(x, 0.0), x)
    ax = [] if axis is None else axes("nansum", "axis", axis, x.ndim)
    if axis is not None and not ax and x.ndim:
        return x
    d = None if dtype is None else C_dtype("nansum", dtype)
    return _C.sum(x, ax, d, bool(keepdim))


def nanmean(
    x: Tensor,
    axis: int | Sequence[int] | None = None,
    keepdim: bool = False,
    name: str | None = None,
) -> Tensor:
    """The mean over axis of the elements that are not NaN (NaN when there are none).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[float('nan'), 1.0], [2.0, 4.0]])
        >>> print(oar.nanmean(x, axis=0).tolist())
        [2.0, 2.5]
    """
    C.tensor("nanmean", "x", x)
    x = as_float(x)
    m = _nan_mask(x)
    keep = _C.cast(_C.logical_not(m), x.dtype)
    total = nansum(x, axis, None, keepdim)
    ax = [] if axis is None else axes("nanmean", "axis", axis, x.ndim)
    count = _C.sum(keep, ax, None, bool(keepdim))
    return _C.divide(total, count)


def reduce_as(x: Tensor, target: Tensor, name: str | None = None) -> Tensor:
    """x summed down to target's shape (the reverse of broadcasting target to x).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
        >>> print(oar.reduce_as(x, oar.to_tensor([1, 2, 3, 4])).tolist())
        [6, 8, 10, 12]
    """
    C.tensor("reduce_as", "x", x)
    C.tensor("reduce_as", "target", target)
    t = target.shape
    if len(t) > x.ndim or any(a != b and a != 1 for a, b in zip(t[::-1], x.shape[::-1])):
        raise ValueError(
            f"reduce_as(): x of shape {x.shape} cannot be reduced to the shape {t} of 'target'"
        )
    return _C.sum_to(x, t)


def add_n(inputs: Tensor | Sequence[Tensor], name: str | None = None) -> Tensor:
    """The elementwise sum of a list of tensors of the same shape (or of one tensor).

    Examples:
        >>> import oar
        >>> a = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> print(oar.add_n([a, a, a]).tolist())
        [[3.0, 6.0], [9.0, 12.0]]
    """
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError(
            f"add_n(): argument 'inputs' must be a Tensor or a non-empty list of "
            f"Tensors, but got {C._kind(inputs)}"
        )
    ts = [C.tensor("add_n", f"inputs[{i}]", t) for i, t in enumerate(inputs)]
    for i, t in enumerate(ts[1:], 1):
        if t.shape != ts[0].shape:
            raise ValueError(
                f"add_n(): every input must have the shape {ts[0].shape} of the "
                f"first, but inputs[{i}] has {t.shape}"
            )
    out = ts[0] if len(ts) > 1 else _C.assign(ts[0])
    for t in ts[1:]:
        out = _C.add(out, t)
    return out


def combinations(
    x: Tensor, r: int = 2, with_replacement: bool = False, name: str | None = None
) -> Tensor:
    """The length-r combinations of the elements of a 1-D x, one per row, in
    lexicographic order of positions ([0] for r = 0).

    Examples:
        >>> import oar
        >>> print(oar.combinations(oar.to_tensor([1, 2, 3])).tolist())
        [[1, 2], [1, 3], [2, 3]]
    """
    C.tensor("combinations", "x", x)
    r = C.integer("combinations", "r", r)
    if x.ndim != 1:
        raise ValueError(f"combinations(): argument 'x' must be 1-D, but got shape {x.shape}")
    if r < 0:
        raise ValueError(f"combinations(): argument 'r' must be >= 0, but got {r}")
    if r == 0:
        return _C.full([0], 0, x.dtype)
    n = x.shape[0]
    count = math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)
    if count == 0:
        return _C.full([0, r], 0, x.dtype)
    # Every combination is enumerated in Python: count first, so that a count no memory
    # holds (3000 choose 3 is 4.5e9) is refused instead of enumerated for hours.
    check_fits(
        "combinations():",
        f"{count} combinations of {r} of the {n} elements (an int64 index and a value each)",
        count * r * (8 + x.dtype.itemsize),
    )
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.fromiter(
        itertools.chain.from_iterable(gen(range(n), r)), dtype=np.int64, count=count * r
    )
    picked = _C.index_select(x, _C._from_buffer(idx, int64), 0)
    return C.reshape_exact(picked, [count, r])


@_aliases({"input": "x"}, strict=False)
def clamp(
    x: Tensor,
    min: float | None = None,
    max: float | None = None,  # noqa: A002
    name: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """clip(x, min, max): the values limited to [min, max] (None: no bound)."""
    return _out.write_out(out, clip(x, min, max), "clamp")


def _trunc_divide(x, y):
    """x / y rounded toward zero; integer tensors stay integers (C's division)."""
    if (
        isinstance(x, Tensor)
        and isinstance(y, Tensor)
        and not (
            x.dtype.is_floating_point
            or x.dtype.is_complex
            or x.dtype is bool_
            or y.dtype.is_floating_point
            or y.dtype.is_complex
            or y.dtype is bool_
        )
    ):
        q = _C.floor_divide(x, y)
        inexact = _C.not_equal(_C.remainder(x, y), _C.full_like(q, 0))
        signs_differ = _C.not_equal(
            _C.less_than(x, _C.full_like(x, 0)), _C.less_than(y, _C.full_like(y, 0))
        )
        return _C.add(q, _C.cast(_C.logical_and(inexact, signs_differ), q.dtype))
    return _C.trunc(_C.divide(x, y))


_ROUNDING = {None: _C.divide, "trunc": _trunc_divide, "floor": _C.floor_divide}


def _rounding(api, mode):
    if not isinstance(mode, (str, type(None))) or mode not in _ROUNDING:
        raise ValueError(
            f"{api}(): expected rounding_mode to be one of None, 'trunc', or "
            f"'floor' but found {mode!r}"
        )
    return _ROUNDING[mode]


@_aliases({"input": "x", "other": "y"}, strict=False)
def div(
    x: Tensor,
    y: Tensor,
    name: str | None = None,
    *,
    rounding_mode: str | None = None,
    out: Tensor | None = None,
) -> Tensor:
    """x / y (divide); rounding_mode 'trunc' rounds toward zero, 'floor' down."""
    return _out.write_out(out, _rounding("div", rounding_mode)(x, y), "div")


def true_divide(
    input: Tensor,
    other: Tensor,
    *,  # noqa: A002 - Paddle's names
    out: Tensor | None = None,
) -> Tensor:
    """input / other, without rounding (divide)."""
    return div(input, other, out=out)


def _scaled(y, alpha):
    return y * alpha if alpha != 1 else y


@_aliases({"input": "x", "other": "y"}, strict=False)
def sub(
    x: Tensor, y: Tensor, name: str | None = None, *, alpha: float = 1, out: Tensor | None = None
) -> Tensor:
    """x - alpha * y (subtract)."""
    return _out.write_out(out, _C.subtract(x, _scaled(y, alpha)), "sub")


def vecdot(x: Tensor, y: Tensor, axis: int = -1, name: str | None = None) -> Tensor:
    """The dot products of the vectors along axis, sum(conj(x) * y, axis), broadcasting."""
    C.tensor("vecdot", "x", x)
    C.tensor("vecdot", "y", y)
    return (x.conj() * y).sum(axis=axis)
