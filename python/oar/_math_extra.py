"""Paddle's top-level math functions beyond the declared unary, binary and math ops:
wrappers with Paddle's signatures over the ops of src/oar/ops/extra_math.yaml (a number
for copysign's y, eps None for logit, axis None for logcumsumexp, ...), aliases (mul, mm,
mod, gt, ...) and compositions of differentiable ops (deg2rad, frac, trapezoid, diff,
cdist, renorm, quantile, nanmean, tensordot, vander, ...), so every result that can carry
a gradient does, to any order.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

import numpy as np

from . import _C
from .framework import out as _out
from .framework import check as C
from .framework.dtype import bool_, convert_dtype, float32, float64, int32, int64
from .framework.memory import check_fits

Tensor = _C.Tensor

__all__ = [
    "copysign", "logit", "ldexp", "frexp", "deg2rad", "rad2deg", "frac", "sgn", "stanh",
    "isposinf", "isneginf", "isreal", "gammaln", "multigammaln", "polar", "logcumsumexp",
    "negative", "positive", "mul", "mm", "mv", "inner", "addmm", "baddbmm", "tensordot",
    "cdist", "pdist", "dist", "renorm", "trapezoid", "cumulative_trapezoid", "diff", "vander",
    "increment", "nanmean", "nansum", "quantile", "nanquantile", "nanmedian", "logspace",
    "range", "rank", "reduce_as", "is_empty", "add_n", "gt", "ge", "lt", "le", "eq", "ne",
    "greater", "less", "floor_mod", "mod", "fmax", "fmin", "bitwise_invert", "mean", "assign",
    "numel", "searchsorted", "bucketize", "isin", "histogram_bin_edges", "histogramdd",
    "broadcast_shape", "broadcast_shapes",
]


# ---- helpers --------------------------------------------------------------------------------
def _rank(d):
    """bool < integers < floating < complex: the kind order of dtype promotion."""
    return 3 if d.is_complex else 2 if d.is_floating_point else 0 if d is bool_ else 1


def common(api, *xs):
    """The tensors cast to one dtype: the higher kind wins (an integer tensor meeting a
    floating one becomes that float dtype); two floats are left to the op's promotion; two
    integer dtypes meet in numpy's result type."""
    ds = [x.dtype for x in xs]
    if all(d is ds[0] for d in ds):
        return xs
    top = max(_rank(d) for d in ds)
    if top >= 2:
        first = next(d for d in ds if _rank(d) == top)
        return tuple(x if _rank(x.dtype) >= 2 else _C.cast(x, first) for x in xs)
    target = convert_dtype(np.result_type(*[np.dtype(d.name) for d in ds]).name)
    return tuple(x if x.dtype is target else _C.cast(x, target) for x in xs)


def as_float(x):
    """x itself when floating or complex, else x in the default floating dtype."""
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return x
    from ._creation import default_float
    return _C.cast(x, default_float())


def like(api, name, v, x):
    """v as a tensor: a Tensor as is, a Python number as a 0-d tensor of x's dtype."""
    if isinstance(v, Tensor):
        return v
    return _C.full([], C.number(api, name, v), x.dtype)


def write_out(api, out, result):
    """Paddle's out=: `out` is made to hold result (its shape and dtype become result's;
    with gradients recorded, a differentiable in-place copy; see _out.write_out)."""
    return _out.write_out(out, result, api)


def axes(api, name, axis, ndim):
    """A sorted list of distinct non-negative axes from None (all), an int or a sequence."""
    if axis is None:
        return list(builtins_range(ndim))
    if isinstance(axis, (list, tuple)):
        out = sorted({C.axis(api, name, a, max(ndim, 1)) for a in axis})
    else:
        out = [C.axis(api, name, axis, max(ndim, 1))]
    return [a for a in out if a < ndim] if ndim else []


builtins_range = range  # `range` below is Paddle's


def _zero_d(value, dtype):
    return _C.full([], value, dtype)


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
        raise TypeError(f"ldexp(): argument 'y' must be an integer tensor, but got "
                        f"{y.dtype.name}")
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
        raise TypeError(f"frexp(): argument 'x' must be a floating tensor, but got "
                        f"{x.dtype.name}")
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
    return write_out("frac", out, _C.subtract(x, _C.trunc(x)))


def sgn(x: Tensor, name: str | None = None) -> Tensor:
    """sign(x) for real x; x / |x| (0 at 0) for complex x."""
    C.tensor("sgn", "x", x)
    if not x.dtype.is_complex:
        return _C.sign(x)
    r = _C.abs(x)
    zero = _C.equal(r, _C.full_like(r, 0.0))
    safe = _C.where(zero, _C.full_like(r, 1.0), r)
    return _C.where(zero, _C.full_like(x, 0.0), _C.divide(x, _C.cast(safe, x.dtype)))


def stanh(x: Tensor, scale_a: float = 0.67, scale_b: float = 1.7159,
          name: str | None = None) -> Tensor:
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
        raise ValueError(f"multigammaln(): every element of 'x' must be greater than (p - 1) "
                         f"/ 2 = {(p - 1) / 2}")
    # The p terms of each element are summed in blocks (one broadcast lgamma per block, so
    # a large p is not p Python steps), bounded so that a block stays small next to x. A
    # p whose terms could not even be held in memory would still take hours: refuse it.
    # The blocks never hold every term at once: the message says the count is refused and
    # what holding it would take, not that the computation would allocate that much.
    terms = x.size * p
    elements = f"{x.size} element" + ("s" if x.size != 1 else "")
    check_fits("multigammaln():", f"argument 'p' ({p}) asks for {terms} lgamma terms (p for "
               f"each of the {elements} of 'x'), too many to compute: held at once, their "
               f"{terms} {xf.dtype.name} values would", terms * xf.dtype.itemsize)
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


def polar(abs: Tensor, angle: Tensor, name: str | None = None, *,  # noqa: A002
          out: Tensor | None = None) -> Tensor:
    """The complex numbers abs * (cos(angle) + i sin(angle)) (float32 or float64 inputs)."""
    C.tensor("polar", "abs", abs)
    C.tensor("polar", "angle", angle)
    for n, t in (("abs", abs), ("angle", angle)):
        if t.dtype not in (float32, float64):
            raise TypeError(f"polar(): argument '{n}' must be float32 or float64, but got "
                            f"{t.dtype.name}")
    res = _C.complex(_C.multiply(abs, _C.cos(angle)), _C.multiply(abs, _C.sin(angle)))
    return write_out("polar", out, res)


def logcumsumexp(x: Tensor, axis: int | None = None, dtype: Any = None,
                 name: str | None = None) -> Tensor:
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


def C_dtype(api, d):  # noqa: N802 - mirrors C.tensor/C.integer
    try:
        return convert_dtype(d)
    except TypeError as e:
        raise TypeError(f"{api}(): argument 'dtype': {e}") from None


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
    return write_out("mul", out, _C.multiply(x, y))


def _aliased(fn, api):
    def alias(x: Tensor, y: Tensor, name: str | None = None, *,
              out: Tensor | None = None) -> Tensor:
        return write_out(api, out, fn(x, y))
    alias.__name__ = alias.__qualname__ = api
    alias.__doc__ = f"{api}(x, y): Paddle's alias of {fn.__name__}, as a bool tensor."
    return alias


gt = _aliased(_C.greater_than, "gt")
ge = _aliased(_C.greater_equal, "ge")
lt = _aliased(_C.less_than, "lt")
le = _aliased(_C.less_equal, "le")
eq = _aliased(_C.equal, "eq")
ne = _aliased(_C.not_equal, "ne")
greater = _aliased(_C.greater_than, "greater")
less = _aliased(_C.less_than, "less")
floor_mod = _aliased(_C.remainder, "floor_mod")
mod = _aliased(_C.remainder, "mod")
floor_mod.__doc__ = "floor_mod(x, y): the remainder of floor division (Paddle's remainder)."
mod.__doc__ = "mod(x, y): the remainder of floor division (Paddle's remainder)."


def bitwise_invert(x: Tensor, out: Tensor | None = None, name: str | None = None) -> Tensor:
    """~x bit by bit (Paddle's alias of bitwise_not)."""
    return write_out("bitwise_invert", out, _C.bitwise_not(x))


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


def mv(x: Tensor, vec: Tensor, name: str | None = None) -> Tensor:
    """The product of a matrix x [M, N] and a vector vec [N]."""
    C.tensor("mv", "x", x)
    C.tensor("mv", "vec", vec)
    if x.ndim != 2 or vec.ndim != 1:
        raise ValueError(f"mv(): 'x' must be 2-D and 'vec' 1-D, but got shapes {x.shape} and "
                         f"{vec.shape}")
    return _C.matmul(x, vec)


def inner(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The inner product over the last dimension: shape x.shape[:-1] + y.shape[:-1]
    (a product when either is 0-D)."""
    C.tensor("inner", "x", x)
    C.tensor("inner", "y", y)
    if x.ndim == 0 or y.ndim == 0:
        return _C.multiply(x, y)
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"inner(): the last dimensions of 'x' {x.shape} and 'y' {y.shape} "
                         f"must match")
    n = x.shape[-1]
    out = _C.matmul(C.reshape_exact(x, [-1, n] if x.size else [0, n]),
                    C.reshape_exact(y, [-1, n] if y.size else [0, n]), False, True)
    return C.reshape_exact(out, x.shape[:-1] + y.shape[:-1])


def _addmm(api, ndim, input, x, y, beta, alpha):  # noqa: A002
    for n, t in (("input", input), ("x", x), ("y", y)):
        C.tensor(api, n, t)
    if x.ndim != ndim or y.ndim != ndim:
        raise ValueError(f"{api}(): 'x' and 'y' must be {ndim}-D, but got shapes {x.shape} and "
                         f"{y.shape}")
    b = float(C.number(api, "beta", beta))
    a = float(C.number(api, "alpha", alpha))
    prod = _C.matmul(x, y)
    return _C.add(_C.scale(input, b), _C.scale(prod, a))


def addmm(input: Tensor, x: Tensor, y: Tensor, beta: float = 1.0, alpha: float = 1.0,  # noqa: A002
          name: str | None = None) -> Tensor:
    """beta * input + alpha * (x @ y) for 2-D x and y (input broadcast to the product).

    Examples:
        >>> import oar
        >>> out = oar.addmm(oar.ones([2, 2]), oar.ones([2, 2]), oar.ones([2, 2]), 0.5, 5.0)
        >>> print(out.tolist())
        [[10.5, 10.5], [10.5, 10.5]]
    """
    return _addmm("addmm", 2, input, x, y, beta, alpha)


def baddbmm(input: Tensor, x: Tensor, y: Tensor, beta: float = 1.0,  # noqa: A002
            alpha: float = 1.0, name: str | None = None) -> Tensor:
    """beta * input + alpha * (x @ y) for batches of matrices x [B, N, K] and y [B, K, M]."""
    return _addmm("baddbmm", 3, input, x, y, beta, alpha)


def _tensordot_axes(axes, xd, yd):
    if isinstance(axes, Tensor):
        axes = axes.tolist()
    if isinstance(axes, numbers.Integral) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0 or n > min(xd, yd):
            raise ValueError(f"tensordot(): argument 'axes' ({n}) must be in [0, "
                             f"{min(xd, yd)}]")
        return list(builtins_range(xd - n, xd)), list(builtins_range(n))
    if not isinstance(axes, (list, tuple)):
        raise TypeError(f"tensordot(): argument 'axes' must be an int, a list or a Tensor, but "
                        f"got {type(axes).__name__}")
    axes = list(axes)
    if not axes:
        return [], []
    if all(isinstance(a, numbers.Integral) for a in axes):
        return [int(a) for a in axes], [int(a) for a in axes]
    if len(axes) == 1:
        axes = [axes[0], []]
    if len(axes) != 2:
        raise ValueError(f"tensordot(): argument 'axes' must hold at most two lists, but got "
                         f"{axes}")
    ax, ay = (list(a.tolist() if isinstance(a, Tensor) else a) for a in axes)
    # Paddle's expansion: the shorter list continues with the longer one's entries
    if len(ax) < len(ay):
        ax = ax + ay[len(ax):]
    elif len(ay) < len(ax):
        ay = ay + ax[len(ay):]
    return [int(a) for a in ax], [int(a) for a in ay]


def tensordot(x: Tensor, y: Tensor, axes: Any = 2, name: str | None = None) -> Tensor:
    """The sum of products of x and y over the contracted axes: an int n (x's last n with
    y's first n), a list of axes for both, or two lists (the shorter one continued with the
    longer one's entries). The result has x's free axes, then y's.

    Examples:
        >>> import oar
        >>> x = oar.arange(6, dtype='float64').reshape([2, 3])
        >>> y = oar.arange(12, dtype='float64').reshape([3, 4])
        >>> print(oar.tensordot(x, y, axes=1).tolist())
        [[20.0, 23.0, 26.0, 29.0], [56.0, 68.0, 80.0, 92.0]]
    """
    C.tensor("tensordot", "x", x)
    C.tensor("tensordot", "y", y)
    ax, ay = _tensordot_axes(axes, x.ndim, y.ndim)
    ax = [C.axis("tensordot", "axes", a, max(x.ndim, 1)) for a in ax]
    ay = [C.axis("tensordot", "axes", a, max(y.ndim, 1)) for a in ay]
    if len(set(ax)) != len(ax) or len(set(ay)) != len(ay):
        raise ValueError(f"tensordot(): argument 'axes' repeats an axis: {ax}, {ay}")
    for a, b in zip(ax, ay):
        if x.shape[a] != y.shape[b]:
            raise ValueError(f"tensordot(): x's axis {a} (size {x.shape[a]}) and y's axis {b} "
                             f"(size {y.shape[b]}) cannot be contracted")
    x, y = common("tensordot", x, y)
    fx = [a for a in builtins_range(x.ndim) if a not in ax]
    fy = [b for b in builtins_range(y.ndim) if b not in ay]
    k = math.prod(x.shape[a] for a in ax)
    xm = C.reshape_exact(_C.transpose(x, fx + ax), [math.prod(x.shape[a] for a in fx), k])
    ym = C.reshape_exact(_C.transpose(y, ay + fy), [k, math.prod(y.shape[b] for b in fy)])
    return C.reshape_exact(_C.matmul(xm, ym), [x.shape[a] for a in fx] + [y.shape[b] for b in fy])


# ---- distances and norms --------------------------------------------------------------------
def _pnorm_last(d, p):
    return _C.p_norm(d, float(p), [-1], False)


def cdist(x: Tensor, y: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
          name: str | None = None) -> Tensor:
    """The p-norm distances between the rows of x [..., P, M] and y [..., R, M]:
    [..., P, R]. For p = 2, compute_mode may use the matrix-product form
    |x|^2 + |y|^2 - 2 x.y ('use_mm_for_euclid_dist', or '..._if_necessary' for P or R
    above 25), faster and slightly less exact.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0.0, 0.0], [3.0, 4.0]])
        >>> print(oar.cdist(x, oar.to_tensor([[0.0, 0.0]])).tolist())
        [[0.0], [5.0]]
    """
    C.tensor("cdist", "x", x)
    C.tensor("cdist", "y", y)
    p = float(C.number("cdist", "p", p))
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
             "donot_use_mm_for_euclid_dist")
    if compute_mode not in modes:
        raise ValueError(f"cdist(): argument 'compute_mode' must be one of {modes}, but got "
                         f"{compute_mode!r}")
    if p < 0:
        raise ValueError(f"cdist(): argument 'p' must be >= 0, but got {p}")
    if x.ndim < 2 or y.ndim < 2 or x.shape[-1] != y.shape[-1]:
        raise ValueError(f"cdist(): 'x' [..., P, M] and 'y' [..., R, M] must be at least 2-D "
                         f"with equal last dimensions, but got {x.shape} and {y.shape}")
    x, y = common("cdist", as_float(x), as_float(y))
    big = x.shape[-2] > 25 or y.shape[-2] > 25
    if p == 2.0 and (compute_mode == "use_mm_for_euclid_dist" or (big and compute_mode == modes[0])):
        xx = _C.sum(_C.square(x), [-1], None, True)
        yy = _C.sum(_C.square(y), [-1], None, True)
        d2 = _C.add(_C.subtract(xx, _C.scale(_C.matmul(x, y, False, True), 2.0)),
                    _C.transpose(yy, list(builtins_range(yy.ndim - 2)) + [yy.ndim - 1,
                                                                          yy.ndim - 2]))
        return _C.sqrt(_C.clip(d2, 0.0, math.inf))
    diff_ = _C.subtract(_C.unsqueeze(x, [-2]), _C.unsqueeze(y, [-3]))
    return _pnorm_last(diff_, p)


def pdist(x: Tensor, p: float = 2.0, name: str | None = None) -> Tensor:
    """The p-norm distances between the rows i < j of x [N, M], in row-major order of
    the pairs: N (N - 1) / 2 values."""
    C.tensor("pdist", "x", x)
    p = float(C.number("pdist", "p", p))
    if x.ndim != 2:
        raise ValueError(f"pdist(): argument 'x' must be 2-D, but got shape {x.shape}")
    if p < 0:
        raise ValueError(f"pdist(): argument 'p' must be >= 0, but got {p}")
    n = x.shape[0]
    i, j = np.triu_indices(n, 1)
    xf = as_float(x)
    if i.size == 0:
        return _C.full([0], 0.0, xf.dtype)
    from .framework.dtype import int64 as i64
    a = _C.index_select(xf, _C._from_buffer(i.astype(np.int64), i64), 0)
    b = _C.index_select(xf, _C._from_buffer(j.astype(np.int64), i64), 0)
    return _pnorm_last(_C.subtract(a, b), p)


def dist(x: Tensor, y: Tensor, p: float = 2, name: str | None = None) -> Tensor:
    """The p-norm of x - y (broadcast) over all elements, as a 0-D tensor: p = 0 counts
    the non-zero differences, inf / -inf take the largest / smallest absolute one.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[3.0, 3.0], [3.0, 3.0]])
        >>> y = oar.to_tensor([[3.0, 3.0], [3.0, 1.0]])
        >>> print(oar.dist(x, y, 2).item(), oar.dist(x, y, 0).item())
        2.0 1.0
    """
    C.tensor("dist", "x", x)
    C.tensor("dist", "y", y)
    p = float(C.number("dist", "p", p))
    x, y = common("dist", as_float(x), as_float(y))
    d = _C.reshape(_C.subtract(x, y), [-1])
    return _C.p_norm(d, p, [0], False)


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
    factor = _C.where(over, _C.divide(_C.full_like(norms, max_norm),
                                      _C.scale(norms, 1.0, 1e-7)), _C.full_like(norms, 1.0))
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
            raise ValueError(f"{api}(): 1-D 'x' must have the length {n} of y's axis {a}, but "
                             f"has {x.shape[0]}")
        shape = [1] * y.ndim
        shape[a] = max(n - 1, 0)
        dxs = C.reshape_exact(_C.subtract(_C.slice(x, [0], [1], [max(n, 1)]),
                                          _C.slice(x, [0], [0], [max(n - 1, 0)])), shape)
    else:
        if x.ndim != y.ndim:
            raise ValueError(f"{api}(): 'x' must be 1-D or have y's rank, but has shape "
                             f"{x.shape} against {y.shape}")
        dxs = _C.subtract(_C.slice(x, [a], [1], [max(n, 1)]), _C.slice(x, [a], [0], [max(n - 1, 0)]))
    return _C.multiply(mid, dxs), a


def trapezoid(y: Tensor, x: Tensor | None = None, dx: float | None = None, axis: int = -1,
              name: str | None = None) -> Tensor:
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


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, dx: float | None = None,
                         axis: int = -1, name: str | None = None) -> Tensor:
    """The running trapezoidal integral of y along axis (one element shorter there)."""
    terms, a = _trapezoid_terms("cumulative_trapezoid", y, x, dx, axis)
    return _C.cumsum(terms, a)


def diff(x: Tensor, n: int = 1, axis: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None, name: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
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
            raise ValueError(f"diff(): argument '{nm}' must have x's rank {x.ndim}, but has "
                             f"shape {t.shape}")
        parts.append(t)
    if len(parts) > 1:
        parts = common("diff", *parts)
        x = _C.concat(list(parts), a)
    if x.size == 0:
        # Each difference only shortens the axis by one; with no elements there is nothing
        # to subtract, and n and the axis can both be past what a loop gets through.
        m = x.shape[a]
        return write_out("diff", out, _C.slice(x, [a], [0], [max(m - n, 0)]))
    for _ in builtins_range(n):
        m = x.shape[a]
        if m == 0:
            break
        hi, lo = _C.slice(x, [a], [1], [m]), _C.slice(x, [a], [0], [m - 1])
        x = _C.logical_xor(hi, lo) if x.dtype is bool_ else _C.subtract(hi, lo)
    return write_out("diff", out, x)


def vander(x: Tensor, n: int | None = None, increasing: bool = False,
           name: str | None = None) -> Tensor:
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
    check_fits("vander():", f"argument 'n' ({n}) asks for {n} columns of {m} elements, "
               f"which", 4 * n * m * (8 if x.dtype is bool_ else x.dtype.itemsize))
    col = _C.reshape(x, [m, 1])
    ones = _C.full_like(col, 1)
    if x.dtype.is_complex:  # no complex cumprod: doubling, log2(n) multiplies of blocks
        out = ones
        while out.shape[1] < n:
            k = out.shape[1]
            block = _C.multiply(_C.slice(out, [1], [0], [min(k, n - k)]),
                                _C.slice(out, [1], [k - 1], [k]) * col)
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
        raise ValueError(f"increment(): argument 'x' must have exactly 1 element, but has "
                         f"{x.size}")
    v = like("increment", "value", value, x)
    if v.dtype is not x.dtype:
        v = _C.cast(v, x.dtype)
    return _C.add_(x, v)


# ---- NaN-aware reductions, quantiles ---------------------------------------------------------
def _nan_mask(x):
    return _C.isnan(x) if x.dtype.is_floating_point else None


def nansum(x: Tensor, axis: int | Sequence[int] | None = None, dtype: Any = None,
           keepdim: bool = False, name: str | None = None) -> Tensor:
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


def nanmean(x: Tensor, axis: int | Sequence[int] | None = None, keepdim: bool = False,
            name: str | None = None) -> Tensor:
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
        raise ValueError(f"{api}(): argument 'interpolation' must be one of {_INTERPOLATIONS}, "
                         f"but got {interpolation!r}")
    scalar_q = not isinstance(q, (list, tuple, Tensor)) or (isinstance(q, Tensor) and q.ndim == 0)
    qs = q.tolist() if isinstance(q, Tensor) else q
    qs = [qs] if scalar_q else list(qs)
    if isinstance(q, Tensor) and q.ndim > 1:
        raise ValueError(f"{api}(): argument 'q' must be a number or 1-D, but got shape "
                         f"{q.shape}")
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
        raise ValueError(f"{api}(): cannot take a quantile over an empty axis (x has shape "
                         f"{x.shape})")
    from ._stats import sort
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
        bad = _C.less_equal(valid, _C.full_like(valid, 0.0)) if ignore_nan else \
            _C.greater_than(nan_count, _C.full_like(nan_count, 0))
        v = _C.where(bad, _C.full_like(v, math.nan), v)
        v = C.reshape_exact(v, keep_shape if keepdim else lead)
        outs.append(v)
    if scalar_q:
        return outs[0]
    from ._ops import stack
    return stack(outs, 0)


def quantile(x: Tensor, q: float | Sequence[float] | Tensor,
             axis: int | Sequence[int] | None = None, keepdim: bool = False,
             interpolation: str = "linear", name: str | None = None, *,
             out: Tensor | None = None) -> Tensor:
    """The q-th quantiles of x over axis (None: all elements), interpolating between the
    sorted values as `interpolation` says ('linear', 'lower', 'higher', 'nearest',
    'midpoint'); a NaN in a line gives NaN. A list of q adds a leading dimension.

    Examples:
        >>> import oar
        >>> y = oar.arange(8, dtype='float32').reshape([4, 2])
        >>> print(oar.quantile(y, q=0.5, axis=1).tolist())
        [0.5, 2.5, 4.5, 6.5]
    """
    return write_out("quantile", out,
                     _quantile("quantile", x, q, axis, keepdim, interpolation, False))


def nanquantile(x: Tensor, q: float | Sequence[float] | Tensor,
                axis: int | Sequence[int] | None = None, keepdim: bool = False,
                interpolation: str = "linear") -> Tensor:
    """quantile over the elements that are not NaN (NaN for a line of NaN only)."""
    return _quantile("nanquantile", x, q, axis, keepdim, interpolation, True)


def nanmedian(x: Tensor, axis: int | Sequence[int] | None = None, keepdim: bool = False,
              mode: str = "avg", name: str | None = None) -> Any:
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
        raise ValueError(f"nanmedian(): argument 'mode' must be 'avg' or 'min', but got "
                         f"{mode!r}")
    xf = x if x.dtype.is_floating_point else _C.cast(x, float32)
    lines, ax, lead, keep_shape = _lines("nanmedian", xf, axis)
    n = lines.shape[-1]
    if n == 0:
        raise ValueError(f"nanmedian(): cannot take the median of an empty axis (x has shape "
                         f"{x.shape})")
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


# ---- creation -------------------------------------------------------------------------------
def _scalar_arg(api, name, v):
    return C.number(api, name, v)


def logspace(start: float | Tensor, stop: float | Tensor, num: int | Tensor,
             base: float | Tensor = 10.0, dtype: Any = None, name: str | None = None) -> Tensor:
    """num values base**t for t evenly spaced from start to stop (both included).

    Examples:
        >>> import oar
        >>> print(oar.logspace(0, 10, 5, 2, 'float32').tolist())
        [1.0, 5.656854152679443, 32.0, 181.0193328857422, 1024.0]
    """
    from ._creation import default_float, to_tensor
    s = float(_scalar_arg("logspace", "start", start))
    e = float(_scalar_arg("logspace", "stop", stop))
    k = C.integer("logspace", "num", num)
    b = float(_scalar_arg("logspace", "base", base))
    if k < 0:
        raise ValueError(f"logspace(): argument 'num' must be >= 0, but got {k}")
    d = default_float() if dtype is None else C_dtype("logspace", dtype)
    # float64 exponents, their powers and the result are all held at once.
    check_fits("logspace():", f"argument 'num' ({k}) asks for {k} values, which",
               k * (16 + d.itemsize))
    with np.errstate(over="ignore", invalid="ignore"):
        vals = np.power(b, np.linspace(s, e, k))
    if not (d.is_floating_point or d.is_complex):
        vals = np.trunc(vals)
    return to_tensor(vals, dtype=d)


def range(start: float | Tensor = 0, end: float | Tensor | None = None,  # noqa: A001
          step: float | Tensor = 1, dtype: Any = None, *, out: Tensor | None = None,
          device: Any = None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    """start, start + step, ... up to and including end (Paddle's range, unlike arange,
    includes end), in dtype (default: the default float); range(n) is range(0, n).

    Examples:
        >>> import oar
        >>> print(oar.range(5).tolist(), oar.range(3, 9, 2.0).tolist())
        [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] [3.0, 5.0, 7.0, 9.0]
    """
    from ._creation import default_float, to_tensor
    if end is None:
        start, end = 0, start
    s = _scalar_arg("range", "start", start)
    e = _scalar_arg("range", "end", end)
    st = _scalar_arg("range", "step", step)
    if st == 0:
        raise ValueError("range(): argument 'step' must not be 0")
    if device is not None:
        from .device import _to_place
        _to_place(device, "range")
    d = default_float() if dtype is None else C_dtype("range", dtype)
    count = math.floor((e - s) / st) + 1 if math.isfinite((e - s) / st) else -1
    if count < 0 and math.isfinite((e - s) / st):
        count = 0
    if count < 0:
        raise ValueError(f"range(): the range from {s} to {e} by {st} is not finite")
    # float64 offsets, the values and the result are all held at once.
    check_fits("range():", f"the {count} values from 'start' {s} to 'end' {e} by 'step' {st}",
               count * (16 + d.itemsize))
    vals = s + st * np.arange(count, dtype=np.float64)
    if not (d.is_floating_point or d.is_complex):
        vals = np.trunc(vals)
    t = to_tensor(vals, dtype=d)
    t.stop_gradient = not requires_grad
    return write_out("range", out, t)


# ---- shapes, counts, reductions -------------------------------------------------------------
def rank(input: Tensor) -> Tensor:  # noqa: A002
    """The number of dimensions of input, as a 0-D int32 tensor."""
    C.tensor("rank", "input", input)
    return _zero_d(input.ndim, int32)


def is_empty(x: Tensor, name: str | None = None) -> Tensor:
    """Whether x has no elements, as a 0-D bool tensor."""
    C.tensor("is_empty", "x", x)
    return _zero_d(x.size == 0, bool_)


def numel(x: Tensor, name: str | None = None) -> Tensor:
    """The number of elements of x, as a 0-D int64 tensor (Paddle's numel)."""
    C.tensor("numel", "x", x)
    return _zero_d(x.size, int64)


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
        raise ValueError(f"reduce_as(): x of shape {x.shape} cannot be reduced to the shape "
                         f"{t} of 'target'")
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
        raise TypeError(f"add_n(): argument 'inputs' must be a Tensor or a non-empty list of "
                        f"Tensors, but got {C._kind(inputs)}")
    ts = [C.tensor("add_n", f"inputs[{i}]", t) for i, t in enumerate(inputs)]
    for i, t in enumerate(ts[1:], 1):
        if t.shape != ts[0].shape:
            raise ValueError(f"add_n(): every input must have the shape {ts[0].shape} of the "
                             f"first, but inputs[{i}] has {t.shape}")
    out = ts[0] if len(ts) > 1 else _C.assign(ts[0])
    for t in ts[1:]:
        out = _C.add(out, t)
    return out


def mean(x: Tensor, axis: int | Sequence[int] | None = None, keepdim: bool = False,
         name: str | None = None, *, dtype: Any = None, out: Tensor | None = None) -> Tensor:
    """The mean over axis (None: all elements); dtype casts x first (integer x computes
    in the default float)."""
    C.tensor("mean", "x", x)
    if dtype is not None:
        x = _C.cast(x, C_dtype("mean", dtype))
    ax = None if axis is None else axis
    return write_out("mean", out, _C.mean(x, ax, bool(keepdim)))


def assign(x: Any, output: Tensor | None = None) -> Tensor:
    """A copy of x (a Tensor, a numpy array, a number or nested lists); with output, output
    is made to hold it (taking its shape and dtype) and is returned.

    Examples:
        >>> import oar
        >>> import numpy as np
        >>> out = oar.zeros([3, 3])
        >>> _ = oar.assign(np.array([[1, 2]]), out)
        >>> print(out.shape, out.dtype)
        oar.Size([1, 2]) oar.int64
    """
    if isinstance(x, Tensor):
        res = _C.assign(x)
    else:
        from ._creation import to_tensor
        if isinstance(x, (list, tuple)) and x and all(isinstance(v, Tensor) for v in x):
            from ._ops import stack
            res = stack(list(x), 0)
        else:
            res = to_tensor(x)
    return _out.write_out(output, res, "assign", "output")


# ---- searching ------------------------------------------------------------------------------
def searchsorted(sorted_sequence: Tensor, values: Tensor, out_int32: bool = False,
                 right: bool = False, name: str | None = None, *, side: str | None = None,
                 out: Tensor | None = None, sorter: Tensor | None = None) -> Tensor:
    """For each value, where it goes in the last dimension of sorted_sequence (ascending;
    1-D, or with values' leading dimensions) to keep it sorted: the first such index, or
    the last with right=True (side='right'). sorter: the indices sorting an unsorted
    sequence. int64 results (int32 with out_int32).

    Examples:
        >>> import oar
        >>> seq = oar.to_tensor([1, 3, 5, 7, 9])
        >>> print(oar.searchsorted(seq, oar.to_tensor([3, 6, 9])).tolist())
        [1, 3, 4]
        >>> print(oar.searchsorted(seq, oar.to_tensor([3, 6, 9]), right=True).tolist())
        [2, 3, 5]
    """
    C.tensor("searchsorted", "sorted_sequence", sorted_sequence)
    C.tensor("searchsorted", "values", values)
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted(): argument 'side' must be 'left' or 'right', but "
                             f"got {side!r}")
        if right and side == "left":
            raise ValueError("searchsorted(): right=True contradicts side='left'")
        right = side == "right"
    if sorter is not None:
        C.tensor("searchsorted", "sorter", sorter)
        sorted_sequence = _C.take_along_axis(sorted_sequence, sorter, -1, False)
    seq, vals = common("searchsorted", sorted_sequence, values)
    if seq.dtype is not vals.dtype:  # two floats: the op promotes, but both must match
        seq, vals = (_C.cast(t, float64) if t.dtype is not float64 else t for t in (seq, vals))
    res = _C.searchsorted_index(seq, vals, bool(out_int32), bool(right))
    return write_out("searchsorted", out, res)


def bucketize(x: Tensor, sorted_sequence: Tensor, out_int32: bool = False, right: bool = False,
              name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """The bucket of each element of x among the boundaries of a 1-D sorted_sequence
    (searchsorted with the arguments swapped).

    Examples:
        >>> import oar
        >>> seq = oar.to_tensor([2, 4, 8, 16], dtype='int32')
        >>> print(oar.bucketize(oar.to_tensor([[0, 8], [4, 17]], dtype='int32'), seq).tolist())
        [[0, 2], [1, 4]]
    """
    C.tensor("bucketize", "sorted_sequence", sorted_sequence)
    if sorted_sequence.ndim != 1:
        raise ValueError(f"bucketize(): argument 'sorted_sequence' must be 1-D, but got shape "
                         f"{sorted_sequence.shape}")
    return searchsorted(sorted_sequence, x, out_int32, right, out=out)


def isin(x: Tensor, test_x: Tensor, assume_unique: bool = False, invert: bool = False,
         name: str | None = None) -> Tensor:
    """Whether each element of x occurs in test_x (NaN never does), as a bool tensor of
    x's shape; invert negates it. assume_unique is accepted (the result never depends on it).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-0.0, -2.1, 2.5, 1.0])
        >>> print(oar.isin(x, oar.to_tensor([-2.1, 2.5])).tolist())
        [False, True, True, False]
    """
    C.tensor("isin", "x", x)
    C.tensor("isin", "test_x", test_x)
    x, test_x = common("isin", x, test_x)
    if x.dtype is not test_x.dtype:
        x, test_x = _C.cast(x, float64), _C.cast(test_x, float64)
    flat = _C.reshape(test_x, [-1])
    if flat.size == 0:
        found = _C.full(x.shape, False, bool_)
    else:
        srt = _C.gather(flat, _C.argsort(flat, 0, False, False), 0) if flat.ndim else flat
        pos = _C.searchsorted_index(srt, _C.reshape(x, [-1]) if x.ndim else _C.reshape(x, [1]),
                              False, False)
        pos = _C.clip(pos, 0.0, float(flat.size - 1))
        hit = _C.equal(_C.gather(srt, pos, 0), _C.reshape(x, [-1]) if x.ndim else
                       _C.reshape(x, [1]))
        found = C.reshape_exact(hit, x.shape)
    return _C.logical_not(found) if invert else found


# ---- histograms -----------------------------------------------------------------------------
def histogram_bin_edges(input: Tensor, bins: int = 100, min: float = 0.0,  # noqa: A002
                        max: float = 0.0, name: str | None = None) -> Tensor:
    """The bins + 1 edges evenly spaced over [min, max], or over the data's range when both
    are 0, widened by 0.5 each way when the range is one value. (Paddle's rule: for
    min == max != 0 these are min +- 0.5, while histogram counts over the data's range.)

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1, 2, 1])
        >>> print(oar.histogram_bin_edges(x, bins=4, min=0, max=3).tolist())
        [0.0, 0.75, 1.5, 2.25, 3.0]
    """
    from ._creation import default_float, linspace
    C.tensor("histogram_bin_edges", "input", input)
    bins = C.integer("histogram_bin_edges", "bins", bins)
    if bins < 1:
        raise ValueError(f"histogram_bin_edges(): argument 'bins' must be >= 1, but got {bins}")
    lo = float(C.number("histogram_bin_edges", "min", min))
    hi = float(C.number("histogram_bin_edges", "max", max))
    if lo > hi:
        raise ValueError(f"histogram_bin_edges(): 'max' ({hi}) must be >= 'min' ({lo})")
    if lo == 0 and hi == 0 and input.size:  # unlike histogram's min == max: Paddle's rule
        a = input.numpy().astype(np.float64)
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"histogram_bin_edges(): the range [{lo}, {hi}] is not finite")
    d = input.dtype if input.dtype.is_floating_point else default_float()
    return linspace(lo, hi, bins + 1, d)


def histogramdd(x: Tensor, bins: Tensor | Sequence[int] | int = 10,
                ranges: Sequence[float] | None = None, density: bool = False,
                weights: Tensor | None = None,
                name: str | None = None) -> tuple[Tensor, list[Tensor]]:
    """The D-dimensional histogram of the points x [..., D]: bins per dimension (an int,
    D ints, or D tensors of edges), ranges [lo0, hi0, lo1, hi1, ...] (default: the data's),
    point weights, density normalisation. Returns (hist, [edges per dimension]). Not
    differentiable.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
        >>> hist, edges = oar.histogramdd(x, bins=[3, 3])
        >>> print(hist.tolist())
        [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 1.0]]
    """
    C.tensor("histogramdd", "x", x)
    if x.ndim < 2:
        raise ValueError(f"histogramdd(): argument 'x' must be [..., D] with at least 2 "
                         f"dimensions, but got shape {x.shape}")
    dim = x.shape[-1]
    xf = as_float(x)
    pts = np.asarray(xf.numpy(), dtype=np.float64).reshape(-1, dim)
    specs: list[Any]
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        specs = [int(bins)] * dim
    elif isinstance(bins, Tensor):
        specs = [bins]
    elif isinstance(bins, (list, tuple)):
        specs = list(bins)
    else:
        specs = []
    if len(specs) != dim:
        raise ValueError(f"histogramdd(): argument 'bins' must be an int or one entry per "
                         f"dimension ({dim}), but got {bins!r}")
    if ranges is not None:
        ranges = [float(C.number("histogramdd", "ranges", r)) for r in ranges]
        if len(ranges) != 2 * dim:
            raise ValueError(f"histogramdd(): argument 'ranges' must hold 2 * D = {2 * dim} "
                             f"numbers, but got {len(ranges)}")
    from ._creation import linspace, to_tensor
    edges = []
    for d, b in enumerate(specs):
        if isinstance(b, Tensor):
            e = as_float(b)
            if e.ndim != 1 or e.shape[0] < 2:
                raise ValueError(f"histogramdd(): the edges of dimension {d} must be 1-D with "
                                 f"at least 2 values")
        else:
            b = C.integer("histogramdd", "bins", b)
            if b < 1:
                raise ValueError(f"histogramdd(): argument 'bins' must be >= 1, but got {b}")
            if ranges is not None:
                lo, hi = ranges[2 * d], ranges[2 * d + 1]
            elif pts.shape[0]:
                lo, hi = float(pts[:, d].min()), float(pts[:, d].max())
            else:
                lo, hi = 0.0, 1.0
            if lo > hi:
                raise ValueError(f"histogramdd(): the range of dimension {d} is empty: "
                                 f"[{lo}, {hi}]")
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            e = linspace(lo, hi, b + 1, xf.dtype)
        edges.append(e)
    w = None
    if weights is not None:
        C.tensor("histogramdd", "weights", weights)
        w = np.asarray(as_float(weights).numpy(), dtype=np.float64).reshape(-1)
        if w.size != pts.shape[0]:
            raise ValueError(f"histogramdd(): argument 'weights' must have one value per point "
                             f"({pts.shape[0]}), but has {w.size}")
    np_edges = [np.asarray(e.numpy(), dtype=np.float64) for e in edges]
    hist, _ = np.histogramdd(pts, bins=np_edges, weights=w, density=bool(density))
    return to_tensor(hist, dtype=xf.dtype), edges


def broadcast_shape(x_shape: Sequence[int], y_shape: Sequence[int]) -> list[int]:
    """The shape x and y broadcast to (ValueError when they do not broadcast).

    Examples:
        >>> import oar
        >>> oar.broadcast_shape([2, 1, 3], [1, 3, 1])
        [2, 3, 3]
    """
    return broadcast_shapes(x_shape, y_shape)


def broadcast_shapes(*shapes: Sequence[int]) -> list[int]:
    """The shape all the given shapes broadcast to (ValueError when they do not)."""
    from ._manipulation import _broadcast_shape
    lists = []
    for i, s in enumerate(shapes):
        if isinstance(s, Tensor):
            s = s.tolist()
        if not isinstance(s, (list, tuple)):
            raise TypeError(f"broadcast_shapes(): shape {i} must be a list or tuple of ints, "
                            f"but got {type(s).__name__}")
        lists.append([C.integer("broadcast_shapes", f"shapes[{i}]", v) for v in s])
    return _broadcast_shape("broadcast_shapes", lists, [f"shape {i}" for i in
                                                        builtins_range(len(lists))])

