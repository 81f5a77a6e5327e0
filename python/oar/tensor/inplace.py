"""Paddle's in-place functions (x_: abs_, div_, where_, ...), each the out-of-place function
written back into x, refused on a leaf that requires a gradient (as Paddle does)."""

from __future__ import annotations

import math
import numbers
from typing import Any, Sequence, cast

import numpy as np

from ..framework.check import is_int
from .. import _C
from ..framework import check as C
from ..framework.check import _aliases
from ..framework.dtype import (
    bfloat16,
    bool_,
    convert_dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int32,
    int64,
)
from ..framework.grad_mode import no_grad
from .indexing import index_fill, masked_scatter, put_along_axis_
from .manipulation import broadcast_shape, flatten
from .math import (
    _bound,
    _rounding,
    _scaled,
    addmm,
    baddbmm,
    copysign,
    frac,
    ldexp,
    logit,
    multigammaln,
    renorm,
)
from .math import pow as _pow
from .search import where

Tensor = _C.Tensor

__all__ = [
    # elementwise
    "abs_",
    "neg_",
    "pow_",
    "gammaln_",
    "logit_",
    "frac_",
    "sinc_",
    "polygamma_",
    "multigammaln_",
    "equal_",
    "not_equal_",
    "greater_equal_",
    "greater_than_",
    "less_",
    "less_equal_",
    "less_than_",
    "logical_and_",
    "logical_or_",
    "logical_not_",
    "logical_xor_",
    "floor_mod_",
    "mod_",
    "gcd_",
    "lcm_",
    "hypot_",
    "ldexp_",
    "copysign_",
    "gammainc_",
    "gammaincc_",
    "bitwise_invert_",
    "bitwise_left_shift_",
    "bitwise_right_shift_",
    "where_",
    "div_",
    "sub_",
    # scans, triangles, products, picking, scattering
    "cumsum_",
    "cumprod_",
    "tril_",
    "triu_",
    "renorm_",
    "index_fill_",
    "masked_scatter_",
    "scatter_add_",
    "addmm_",
    "baddbmm_",
    # shape and dtype
    "cast_",
    "flatten_",
    "reshape_",
    "squeeze_",
    "unsqueeze_",
    "transpose_",
    "t_",
    # random fills
    "normal_",
    "bernoulli_",
    "cauchy_",
    "geometric_",
    "log_normal_",
]


# ---- in place -------------------------------------------------------------------------------
def _refuse_leaf(api, arg, x):
    # Checked before anything is computed or written, in the C++ in-place ops' words.
    if _C.is_grad_enabled() and x.is_leaf and not x.stop_gradient:
        raise RuntimeError(
            f"{api}(): '{arg}' is a leaf tensor that requires grad "
            f"(stop_gradient=False); it cannot be modified in place while grad "
            f"mode is on. Update it under no_grad(), or work on a copy"
        )


def _in_place(api, x, fn, *args, arg="x", copy_input=True):
    """x made to hold fn(x, *args) (the module docstring's rules). While autograd records,
    fn reads a copy of x unless copy_input is False (views and casts, whose backward needs
    no values): what fn saves for its backward must not be the memory overwritten here."""
    C.tensor(api, arg, x)
    _refuse_leaf(api, arg, x)
    recording = _C.is_grad_enabled() and any(
        isinstance(t, Tensor) and not t.stop_gradient for t in (x,) + args
    )
    src = x
    if recording and copy_input:
        src = x.clone()
        args = tuple(src if a is x else a for a in args)
    return _hold(x, fn(src, *args), recording)


def _hold(x, new, recording):
    """x holds new from now on: written into x's memory when the shape and dtype agree;
    else x takes new's geometry (new is a view of x) or fresh memory of new's shape and
    dtype (new's own memory stays untouched: its op may have saved it for backward). x
    itself as new (an op that had nothing to do) is written onto itself: cutting its
    history would cut new's."""
    if new is not x and new._is_shared_buffer_with(x):
        fresh = new
    elif list(new.shape) == list(x.shape) and new.dtype is x.dtype:
        fresh = None
    else:
        fresh = _C.empty(list(new.shape), new.dtype)
    if fresh is not None:
        with no_grad():
            _C._replace_data(x, fresh)
        if recording and not x.stop_gradient:
            # x's recorded history has the old shape or dtype; cut it, so that x's gradient
            # goes only through new, which the write below records (new leads back to it).
            x.stop_gradient = True
    _C.set_value_with_tensor_(x, new, [], [], [], [])
    return x


def _tensor_y(api, y, name="y"):
    if not isinstance(y, Tensor):
        raise TypeError(f"{api}(): argument '{name}' must be Tensor, but got {C._kind(y)}")
    return y


def _keeps_shape(api, x, y):
    """Paddle's check of an elementwise in-place op: y may broadcast to x, not x to y."""
    if isinstance(y, Tensor):
        out = broadcast_shape(list(x.shape), list(y.shape))
        if list(out) != list(x.shape):
            raise ValueError(
                f"{api}(): the shape of broadcast output {list(out)} is different "
                f"from that of inplace tensor {list(x.shape)} in the Inplace "
                f"operation"
            )


def _binary_(api, op, x, y):
    C.tensor(api, "x", x)
    _tensor_y(api, y)
    _keeps_shape(api, x, y)
    return _in_place(api, x, op, y)


@_aliases({"input": "x", "other": "y"}, strict=False)
def div_(
    x: Tensor, y: Tensor, name: str | None = None, *, rounding_mode: str | None = None
) -> Tensor:
    """div in place. y must broadcast to x; an integer x divided without rounding becomes
    floating, as in Paddle."""
    C.tensor("div_", "x", x)
    _refuse_leaf("div_", "x", x)
    _tensor_y("div_", y)
    _keeps_shape("div_", x, y)
    op = _rounding("div_", rounding_mode)
    if rounding_mode == "floor":
        return _C.floor_divide_(x, y)
    if rounding_mode is None and (x.dtype.is_floating_point or x.dtype.is_complex):
        return _C.divide_(x, y)
    return _in_place("div_", x, op, y)


@_aliases({"input": "x", "other": "y"}, strict=False)
def sub_(x: Tensor, y: Tensor, name: str | None = None, *, alpha: float = 1) -> Tensor:
    """x - alpha * y, in place (subtract_); y must broadcast to x."""
    C.tensor("sub_", "x", x)
    _refuse_leaf("sub_", "x", x)
    _tensor_y("sub_", y)
    _keeps_shape("sub_", x, y)
    return _C.subtract_(x, _scaled(y, alpha))


# ---- in place: elementwise ------------------------------------------------------------------
def abs_(x: Tensor, name: str | None = None) -> Tensor:
    """abs, in place."""
    return _in_place("abs_", x, _C.abs)


def neg_(x: Tensor, name: str | None = None) -> Tensor:
    """-x, in place (scale_ by -1, as Paddle); a bool x is left as it is (-True is
    nonzero: True, Paddle's neg_ of bool)."""
    C.tensor("neg_", "x", x)
    _refuse_leaf("neg_", "x", x)
    if x.dtype.name == "bool":
        return x
    return _C.scale_(x, -1.0, 0.0, True)


def pow_(x: Tensor, y: float | Tensor, name: str | None = None) -> Tensor:
    """x ** y for a number y, in place."""
    if not isinstance(y, numbers.Real):
        raise TypeError(f"pow_(): y must be scalar type, but received: {type(y).__name__}")
    return _in_place("pow_", x, _pow, y)


def gammaln_(x: Tensor, name: str | None = None) -> Tensor:
    """log|gamma(x)| (lgamma), in place."""
    return _in_place("gammaln_", x, _C.lgamma)


def logit_(x: Tensor, eps: float | None = None, name: str | None = None) -> Tensor:
    """logit (x clipped to [eps, 1 - eps] when eps is given), in place."""
    return _in_place("logit_", x, logit, eps)


def _dtype_in(api, x, allowed):
    C.tensor(api, "x", x)
    if x.dtype not in allowed:
        raise TypeError(
            f"{api}(): the data type of input must be one of "
            f"{[d.name for d in allowed]}, but got {x.dtype.name}"
        )


def frac_(x: Tensor, name: str | None = None) -> Tensor:
    """x - trunc(x), in place (int32, int64, float16, float32, float64)."""
    _dtype_in("frac_", x, (int32, int64, float16, float32, float64))
    return _in_place("frac_", x, frac)


def sinc_(x: Tensor, name: str | None = None) -> Tensor:
    """sin(pi x) / (pi x) (1 at 0), in place (floating x only)."""
    _dtype_in("sinc_", x, (bfloat16, float16, float32, float64))
    return _in_place("sinc_", x, _C.sinc)


def polygamma_(x: Tensor, n: int, name: str | None = None) -> Tensor:
    """The n-th derivative of digamma, in place (n an int >= 0)."""
    if not is_int(n):
        raise TypeError(
            f"polygamma_(): the input of n must be int type, but received: {type(n).__name__}"
        )
    if n < 0:
        raise ValueError(
            f"polygamma_(): the input of n must be greater than or equal to 0, but received n = {n}"
        )
    return _in_place("polygamma_", x, _C.polygamma, n)


def multigammaln_(x: Tensor, p: int, name: str | None = None) -> Tensor:
    """The log of the multivariate gamma function of dimension p, in place."""
    return _in_place("multigammaln_", x, multigammaln, p)


def equal_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x == y in place: x becomes a bool tensor, as in Paddle."""
    return _binary_("equal_", _C.equal, x, y)


def greater_equal_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x >= y in place (x becomes bool)."""
    return _binary_("greater_equal_", _C.greater_equal, x, y)


def greater_than_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x > y in place (x becomes bool)."""
    return _binary_("greater_than_", _C.greater_than, x, y)


def less_than_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x < y in place (x becomes bool)."""
    return _binary_("less_than_", _C.less_than, x, y)


def less_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x < y in place (less_than_; x becomes bool)."""
    return _binary_("less_", _C.less_than, x, y)


def less_equal_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x <= y in place (x becomes bool)."""
    return _binary_("less_equal_", _C.less_equal, x, y)


def logical_and_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x and y elementwise, in place (x becomes bool)."""
    return _binary_("logical_and_", _C.logical_and, x, y)


def logical_or_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x or y elementwise, in place (x becomes bool)."""
    return _binary_("logical_or_", _C.logical_or, x, y)


def logical_not_(x: Tensor, name: str | None = None) -> Tensor:
    """not x elementwise, in place (x becomes bool)."""
    return _in_place("logical_not_", x, _C.logical_not)


def logical_xor_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x xor y elementwise, in place (x becomes bool)."""
    return _binary_("logical_xor_", _C.logical_xor, x, y)


def not_equal_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x != y in place (x becomes bool)."""
    return _binary_("not_equal_", _C.not_equal, x, y)


def floor_(x: Tensor, name: str | None = None) -> Tensor:
    """The largest integer not above each element, in place."""
    return _in_place("floor_", x, _C.floor)


def mul_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x * y in place (Paddle's Tensor.mul_, its multiply_); y must broadcast to x, and x
    takes the promoted dtype of two floating dtypes, as in Paddle."""
    return _binary_("mul_", _C.multiply, x, y)


def clamp_(
    x: Tensor,
    min: float | Tensor | None = None,  # noqa: A002 - Paddle's names
    max: float | Tensor | None = None,
    name: str | None = None,
) -> Tensor:  # noqa: A002
    """x limited to [min, max] in place (Paddle's Tensor.clamp_, its clip_; a None bound is
    no bound, as oar.clip)."""
    lo = _bound("clamp_", "min", min, -math.inf)
    hi = _bound("clamp_", "max", max, math.inf)
    return _in_place("clamp_", x, lambda t: _C.clip(t, lo, hi))


def floor_mod_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The remainder of floor division (y's sign), in place (remainder_)."""
    C.tensor("floor_mod_", "x", x)
    _refuse_leaf("floor_mod_", "x", x)
    _tensor_y("floor_mod_", y)
    _keeps_shape("floor_mod_", x, y)
    return _C.remainder_(x, y)


def mod_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The remainder of floor division (y's sign), in place (remainder_)."""
    C.tensor("mod_", "x", x)
    _refuse_leaf("mod_", "x", x)
    _tensor_y("mod_", y)
    _keeps_shape("mod_", x, y)
    return _C.remainder_(x, y)


@_aliases({"input": "x", "other": "y"}, strict=False)
def gcd_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The greatest common divisor of |x| and |y|, in place."""
    return _binary_("gcd_", _C.gcd, x, y)


@_aliases({"input": "x", "other": "y"}, strict=False)
def lcm_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The least common multiple of |x| and |y|, in place."""
    return _binary_("lcm_", _C.lcm, x, y)


def hypot_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """sqrt(x**2 + y**2), in place."""
    return _binary_("hypot_", _C.hypot, x, y)


def ldexp_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x * 2**y for an integer tensor y, in place; x becomes float64 if x or y is, else
    the default dtype (Paddle's rule)."""
    C.tensor("ldexp_", "x", x)
    _tensor_y("ldexp_", y)
    _keeps_shape("ldexp_", x, y)
    to = float64 if float64 in (x.dtype, y.dtype) else convert_dtype(get_default_dtype())
    return _in_place("ldexp_", x, lambda t, y: ldexp(t if t.dtype is to else _C.cast(t, to), y), y)


def copysign_(x: Tensor, y: Tensor | float, name: str | None = None) -> Tensor:
    """|x| with the sign of y (a tensor broadcasting to x, or a number), in place."""
    C.tensor("copysign_", "x", x)
    if isinstance(y, numbers.Real) and not isinstance(y, Tensor):
        y = _C.full([], y, x.dtype)
    _keeps_shape("copysign_", x, y)
    return _in_place("copysign_", x, copysign, y)


def gammainc_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The regularized lower incomplete gamma function P(x, y), in place."""
    return _binary_("gammainc_", _C.gammainc, x, y)


def gammaincc_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The regularized upper incomplete gamma function Q(x, y), in place."""
    return _binary_("gammaincc_", _C.gammaincc, x, y)


def bitwise_invert_(x: Tensor, name: str | None = None) -> Tensor:
    """~x, in place (bitwise_not_)."""
    C.tensor("bitwise_invert_", "x", x)
    _refuse_leaf("bitwise_invert_", "x", x)
    return _C.bitwise_not_(x)


def bitwise_left_shift_(
    x: Tensor,
    y: Tensor,
    is_arithmetic: bool = True,
    out: Tensor | None = None,
    name: str | None = None,
) -> Tensor:
    """x << y, in place. out is not used, as in Paddle (x is the result)."""
    return _binary_(
        "bitwise_left_shift_", lambda t, y: _C.bitwise_left_shift(t, y, bool(is_arithmetic)), x, y
    )


def bitwise_right_shift_(
    x: Tensor,
    y: Tensor,
    is_arithmetic: bool = True,
    out: Tensor | None = None,
    name: str | None = None,
) -> Tensor:
    """x >> y (arithmetic, or logical with is_arithmetic=False), in place. out is not
    used, as in Paddle (x is the result)."""
    return _binary_(
        "bitwise_right_shift_", lambda t, y: _C.bitwise_right_shift(t, y, bool(is_arithmetic)), x, y
    )


def where_(
    condition: Tensor,
    x: Tensor | float | None = None,
    y: Tensor | float | None = None,
    name: str | None = None,
) -> Tensor:
    """x where condition holds, else y, written into x. As in Paddle, when x itself must
    broadcast to the result's shape, the result is a new tensor and x is left unchanged."""
    if np.isscalar(x) or np.isscalar(y) or x is None or y is None:
        raise ValueError("where_(): either both or neither of x and y should be given, as Tensors")
    C.tensor("where_", "condition", condition)
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        raise TypeError(
            f"where_(): arguments 'x' and 'y' must be Tensors, but got "
            f"{C._kind(x)} and {C._kind(y)}"
        )
    if condition.dtype is not bool_:
        raise ValueError(
            f"where_(): the `condition` is expected to be a boolean Tensor, but "
            f"got a Tensor with dtype {condition.dtype.name}"
        )
    out = broadcast_shape(broadcast_shape(list(x.shape), list(y.shape)), list(condition.shape))
    if list(out) != list(x.shape):
        return cast(Tensor, where(condition, x, y))  # x and y given: a Tensor
    return _in_place("where_", x, lambda t, c, y: _C.where(c, t, y), condition, y)


# ---- in place: scans, triangles, products, picking, scattering ------------------------------
def cumsum_(
    x: Tensor, axis: int | None = None, dtype: Any = None, name: str | None = None
) -> Tensor:
    """The cumulative sum along axis, in place; axis None flattens x, dtype casts it."""
    return _in_place("cumsum_", x, lambda t: _C.cumsum(t, axis, dtype))


def cumprod_(
    x: Tensor, dim: int | None = None, dtype: Any = None, name: str | None = None
) -> Tensor:
    """The cumulative product along dim, in place; dim None flattens x, dtype casts it."""
    return _in_place("cumprod_", x, lambda t: _C.cumprod(t, dim, dtype))


def tril_(x: Tensor, diagonal: int = 0, name: str | None = None) -> Tensor:
    """The lower triangle (below diagonal kept), in place."""
    return _in_place("tril_", x, lambda t: _C.tril(t, diagonal), copy_input=False)


def triu_(x: Tensor, diagonal: int = 0, name: str | None = None) -> Tensor:
    """The upper triangle (above diagonal kept), in place."""
    return _in_place("triu_", x, lambda t: _C.triu(t, diagonal), copy_input=False)


def renorm_(x: Tensor, p: float, axis: int, max_norm: float) -> Tensor:
    """renorm in place: each slice along axis rescaled to a p-norm of at most max_norm."""
    C.tensor("renorm_", "x", x)
    n = x.ndim
    a = C.integer("renorm_", "axis", axis)
    if not a < n:
        raise ValueError(
            f"renorm_(): the axis:{a} should be less then the shape's size {n}:{list(x.shape)}"
        )
    if a < -n:
        raise ValueError(
            f"renorm_(): the axis:{a} should not be less than -1 * length of input_shape:{-n}"
        )
    return _in_place("renorm_", x, renorm, p, a % n, max_norm)


def index_fill_(
    x: Tensor, index: Tensor, axis: int, value: float | Tensor, name: str | None = None
) -> Tensor:
    """index_fill in place: the slices at index along axis set to value."""
    return _in_place("index_fill_", x, index_fill, index, axis, value)


def masked_scatter_(x: Tensor, mask: Tensor, value: Tensor, name: str | None = None) -> Tensor:
    """masked_scatter in place: value's first elements written where mask is True."""
    return _in_place("masked_scatter_", x, masked_scatter, mask, value)


def scatter_add_(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:  # noqa: A002
    """src added into input at index along dim, in place (put_along_axis_ with 'add')."""
    C.tensor("scatter_add_", "input", input)
    _refuse_leaf("scatter_add_", "input", input)
    return put_along_axis_(input, index, src, dim, "add", include_self=True, broadcast=False)


def _check_addmm(api, input, x, y):  # noqa: A002
    """Paddle's shape checks of addmm_: 2-D x and y that multiply, an input that
    broadcasts to their product (1-D or 2-D)."""
    for n, t in (("input", input), ("x", x), ("y", y)):
        C.tensor(api, n, t)
    i, xs, ys = list(input.shape), list(x.shape), list(y.shape)
    if not len(xs) == len(ys) == 2:
        raise ValueError(
            f"{api}(): the dimension of x, y should be 2 but receive x's shape: "
            f"{xs}, y's shape: {ys}"
        )
    if xs[1] != ys[0]:
        raise ValueError(
            f"{api}(): x's width must be equal with y's height, but received "
            f"x's shape = {xs}, y's shape = {ys}"
        )
    if len(i) == 2:
        if i[0] != xs[0] and i[0] != 1:
            raise ValueError(
                f"{api}(): when x's dimension[0] is not equal with input's "
                f"dimension[0], input's dimension[0] must be 1 but got {i[0]}"
            )
        if i[1] != ys[1] and i[1] != 1:
            raise ValueError(
                f"{api}(): when y's dimension[1] is not equal with input's "
                f"dimension[1], input's dimension[1] must be 1 but got {i[1]}"
            )
    elif len(i) == 1:
        if i[0] not in (ys[1], 1):
            raise ValueError(
                f"{api}(): the input's shape: {i} is not broadcastable with "
                f"[x.shape[0], y.shape[1]]: [{xs[0]},{ys[1]}]"
            )
    else:
        raise ValueError(
            f"{api}(): the dimension of input should be 2 or 1 but receive input's shape: {i}"
        )


def addmm_(
    input: Tensor,
    x: Tensor,
    y: Tensor,
    beta: float = 1.0,
    alpha: float = 1.0,  # noqa: A002
    name: str | None = None,
) -> Tensor:
    """beta * input + alpha * (x @ y), written into input (which takes the product's shape
    when it broadcast to it)."""
    _check_addmm("addmm_", input, x, y)
    return _in_place("addmm_", input, addmm, x, y, beta, alpha, arg="input")


def _check_baddbmm(api, input, x, y):  # noqa: A002
    """Paddle's shape checks of baddbmm_: 3-D x and y that batch-multiply, an input that
    broadcasts to their product (2-D or 3-D)."""
    for n, t in (("input", input), ("x", x), ("y", y)):
        C.tensor(api, n, t)
    i, xs, ys = list(input.shape), list(x.shape), list(y.shape)
    if not len(xs) == len(ys) == 3:
        raise ValueError(
            f"{api}(): the dimension of x, y should be 3 but receive x's shape: "
            f"{xs}, y's shape: {ys}"
        )
    if xs[2] != ys[1]:
        raise ValueError(
            f"{api}(): x's width must be equal with y's height, but received "
            f"x's shape = {xs}, y's shape = {ys}"
        )
    want = [xs[0], xs[1], ys[2]]
    if len(i) == 3:
        for d in range(3):
            if i[d] != want[d] and i[d] != 1:
                raise ValueError(
                    f"{api}(): input's dimension[{d}] must be {want[d]} or 1, "
                    f"but received input's shape = {i}, x's shape = {xs}, y's "
                    f"shape = {ys}"
                )
    elif len(i) == 2:
        if i[0] != xs[0]:
            raise ValueError(
                f"{api}(): the batch size of input must be equal to the batch "
                f"size of x, but received input's batch size = {i[0]}, x's batch "
                f"size = {xs[0]}"
            )
        if i[1] not in (ys[2], 1):
            raise ValueError(
                f"{api}(): the input's shape: {i} is not broadcastable with "
                f"[x.shape[0], x.shape[1], y.shape[2]]: {want}"
            )
    else:
        raise ValueError(
            f"{api}(): the dimension of input should be 3 or 2 but received input's shape: {i}"
        )


def baddbmm_(
    input: Tensor,
    x: Tensor,
    y: Tensor,
    beta: float = 1.0,  # noqa: A002
    alpha: float = 1.0,
    name: str | None = None,
) -> Tensor:
    """beta * input + alpha * (x @ y) batched, written into input (which takes the
    product's shape when it broadcast to it)."""
    _check_baddbmm("baddbmm_", input, x, y)
    return _in_place("baddbmm_", input, baddbmm, x, y, beta, alpha, arg="input")


# ---- in place: shape and dtype --------------------------------------------------------------
def cast_(x: Tensor, dtype: Any) -> Tensor:
    """x converted to dtype in place: x itself, of the new dtype."""
    d = convert_dtype(dtype)
    return _in_place("cast_", x, lambda t: _C.cast(t, d), copy_input=False)


def flatten_(
    x: Tensor, start_axis: int = 0, stop_axis: int = -1, name: str | None = None
) -> Tensor:
    """flatten in place: the axes start_axis..stop_axis merged into one."""
    if not isinstance(x, Tensor):
        raise ValueError("flatten_(): the input x should be a Tensor")
    n = x.ndim
    for label, a in (("start_axis", start_axis), ("stop_axis", stop_axis)):
        if not is_int(a) or a > n - 1 or a < -n:
            raise ValueError(
                f"flatten_(): the {label} should be a int, and in range [-rank(x), rank(x))"
            )
    s, t = start_axis % n, stop_axis % n
    if s > t:
        raise ValueError("flatten_(): the stop_axis should be larger than start_axis")
    return _in_place("flatten_", x, lambda v: flatten(v, s, t), copy_input=False)


def reshape_(x: Tensor, shape: Sequence[int] | Tensor, name: str | None = None) -> Tensor:
    """reshape in place (x keeps its memory when it is contiguous); x itself, untouched,
    when shape is already x's."""
    C.tensor("reshape_", "x", x)
    if isinstance(shape, (list, tuple)):
        shape = [int(s.item()) if isinstance(s, Tensor) else s for s in shape]
        if shape == list(x.shape):
            return x
    elif isinstance(shape, Tensor):
        shape = [int(s) for s in np.asarray(shape).reshape(-1)]
    else:
        raise ValueError(
            f"reshape_(): shape must be an instance of `list`, `tuple` or "
            f"`Tensor`, got '{type(shape).__name__}'"
        )
    return _in_place("reshape_", x, lambda t: _C.reshape(t, shape), copy_input=False)


def squeeze_(x: Tensor, axis: int | Sequence[int] | None = None, name: str | None = None) -> Tensor:
    """squeeze in place: the size-1 axes (of axis, if given) removed."""
    axes = [] if axis is None else [axis] if is_int(axis) else list(axis)
    return _in_place("squeeze_", x, lambda t: _C.squeeze(t, axes), copy_input=False)


def unsqueeze_(x: Tensor, axis: int | Sequence[int] | Tensor, name: str | None = None) -> Tensor:
    """unsqueeze in place: size-1 axes inserted at axis."""
    if is_int(axis):
        axes = [axis]
    elif isinstance(axis, Tensor):
        axes = [int(a) for a in np.asarray(axis).reshape(-1)]
    else:
        axes = [int(a.item()) if isinstance(a, Tensor) else a for a in axis]
    return _in_place("unsqueeze_", x, lambda t: _C.unsqueeze(t, axes), copy_input=False)


def transpose_(x: Tensor, perm: Any, name: str | None = None) -> Tensor:
    """transpose in place: x's axes permuted by perm (x keeps its memory)."""
    return _in_place("transpose_", x, lambda t: _C.transpose(t, perm), copy_input=False)


def t_(input: Tensor, name: str | None = None) -> Tensor:  # noqa: A002
    """The transpose of a 2-D tensor, in place; a 0-D or 1-D tensor is returned as is."""
    C.tensor("t_", "input", input)
    if input.ndim > 2:
        raise ValueError(
            f"t_(): input only supports N-D (N<=2) tensors, but received a "
            f"tensor of {input.ndim} dimensions; use transpose_ instead"
        )
    if input.ndim <= 1:
        return input
    return _in_place("t_", input, lambda t: _C.transpose(t, [1, 0]), arg="input", copy_input=False)


# ---- in place: random fills (the Tensor methods) --------------------------------------------
def _fill(api, x):
    C.tensor(api, "x", x)
    _refuse_leaf(api, "x", x)
    return x


def normal_(x: Tensor, mean: complex = 0.0, std: float = 1.0, name: str | None = None) -> Tensor:
    """x filled with samples of N(mean, std**2), in place."""
    return _fill("normal_", x).normal_(mean, std)


def bernoulli_(x: Tensor, p: float | Tensor = 0.5, name: str | None = None) -> Tensor:
    """x filled with 1 with probability p, else 0, in place."""
    return _fill("bernoulli_", x).bernoulli_(p)


def cauchy_(x: Tensor, loc: float = 0, scale: float = 1, name: str | None = None) -> Tensor:
    """x filled with samples of the Cauchy distribution, in place."""
    return _fill("cauchy_", x).cauchy_(loc, scale)


def geometric_(x: Tensor, probs: float | Tensor, name: str | None = None) -> Tensor:
    """x filled with samples of the geometric distribution (Tensor.geometric_: the whole
    numbers 1, 2, ...), in place."""
    return _fill("geometric_", x).geometric_(probs)


def log_normal_(x: Tensor, mean: float = 1.0, std: float = 2.0, name: str | None = None) -> Tensor:
    """x filled with exp of N(mean, std**2) samples, in place."""
    return _fill("log_normal_", x).log_normal_(mean, std)


def _write(self, new):
    """new (same shape) written into self in place, cast to self's dtype."""
    if new.dtype is not self.dtype:
        new = _C.cast(new, self.dtype)
    _C.set_value_with_tensor_(self, new, [], [], [], [])
    return self
