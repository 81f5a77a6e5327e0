"""oar.compat: Paddle 3.x's PyTorch-compatible API (paddle.compat).

Functions with PyTorch's names, argument names and results where Paddle's own differ:
`input`/`dim` instead of `x`/`axis`, named tuples of (values, indices), `out=` buffers.
Paddle's argument names (`x=`, `axis=`) are refused with a TypeError naming the
Paddle function that takes them, as Paddle does. `oar.compat.nn` holds the layers and
functions of paddle.compat.nn; `enable_torch_proxy` (oar.enable_compat) makes
`import torch` give oar (docs/compat.md).
"""

from __future__ import annotations

import numpy as np

import builtins
import functools
import os
from typing import Any, Callable, NamedTuple, TypeVar, Union

from ..framework.check import is_int
from .. import _C
from ..framework import check as C
from ..framework.dtype import convert_dtype
from . import nn  # noqa: F401
from ._proxy import disable_torch_proxy, enable_torch_proxy, use_torch_proxy_guard  # noqa: F401
from ._out import _write
from ..tensor.manipulation import unique as _unique
from ..tensor.linalg import slogdet as _slogdet
from ..tensor.random import seed as _seed

Tensor = _C.Tensor

_F = TypeVar("_F", bound=Callable[..., Any])
# out= of a function returning (values, indices): a tuple or list of two Tensors
_OutPair = Union[tuple[Tensor, Tensor], list[Tensor]]

__all__ = [
    "equal",
    "slogdet",
    "sort",
    "split",
    "min",
    "max",
    "unique",
    "median",
    "nanmedian",
    "seed",
]


class MinMaxRetType(NamedTuple):
    values: Tensor
    indices: Tensor


class MedianRetType(NamedTuple):
    values: Tensor
    indices: Tensor


class SortRetType(NamedTuple):
    values: Tensor
    indices: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


def _forbid(api: str, paddle_name: str, keys: set[str]) -> Callable[[_F], _F]:
    """Refuse Paddle's keyword names (x=, axis=, ...) in a PyTorch-style function, as
    paddle.compat does, pointing at the Paddle function that takes them."""

    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            bad = sorted(k for k in kwargs if k in keys)
            if bad:
                raise TypeError(
                    f"{api}() received unexpected keyword argument(s) "
                    f"{', '.join(repr(k) for k in bad)}: it takes PyTorch's "
                    f"argument names; use {paddle_name}() for Paddle's"
                )
            return fn(*args, **kwargs)

        inner.__wrapped__ = fn
        return inner

    return wrap


def _out_pair(api, out):
    if out is None:
        return None
    if (
        not isinstance(out, (tuple, list))
        or len(out) != 2
        or not all(isinstance(t, Tensor) for t in out)
    ):
        raise TypeError(
            f"{api}(): argument 'out' must be a tuple of two Tensors (values, "
            f"indices) when 'dim' is given, but got {type(out).__name__}"
        )
    return out


def _out_single(api, out):
    if out is not None and not isinstance(out, Tensor):
        raise TypeError(
            f"{api}(): argument 'out' must be a Tensor here, but got {type(out).__name__}"
        )
    return out


def _finish_pair(api, ret, out, cls):
    out = _out_pair(api, out)
    if out is None:
        return cls(*ret)
    _write(api, ret[0], out[0], "out[0]")
    _write(api, ret[1], out[1], "out[1]")
    return cls(out[0], out[1])


# ---- comparisons and reductions ---------------------------------------------------------
@_forbid("compat.equal", "oar.equal", {"x", "y"})
def equal(input: Tensor, other: Tensor) -> bool:
    """True if input and other have the same shape and elements (NaN never equals NaN);
    the dtypes are promoted to a common one first. Returns a Python bool."""
    C.tensor("equal", "input", input)
    C.tensor("equal", "other", other)
    if list(input.shape) != list(other.shape):
        return False
    if input.dtype != other.dtype:
        common = _common_dtype(input.dtype, other.dtype)
        input, other = _C.cast(input, common), _C.cast(other, common)
    return bool(_C.equal_all(input, other).item())


def _common_dtype(a, b):
    """The dtype two tensors are compared in (Paddle's compat promotion): complex over
    floating over integer and bool, the wider of two floats (bfloat16 and float16 meet
    in float32), numpy's rule for integers."""
    rank = {
        "complex128": 6,
        "complex64": 5,
        "float64": 4,
        "float32": 3,
        "float16": 2,
        "bfloat16": 2,
    }
    names = (a.name, b.name)
    if set(names) == {"float16", "bfloat16"}:
        return convert_dtype("float32")
    if any(n in rank for n in names):
        return convert_dtype(builtins.max(names, key=lambda n: rank.get(n, 0)))
    return convert_dtype(np.promote_types(*names).name)


def _min_max_args(api, args, kwargs):
    """PyTorch's overloads: (), (dim[, keepdim]) or (other); returns (dim_or_other, keepdim)."""
    usage = f"{api}() takes (input), (input, dim: int, keepdim=False) or (input, other: Tensor)"
    kwargs = dict(kwargs)
    if len(args) > 2:
        raise TypeError(f"{usage}, but got {len(args) + 1} positional arguments")
    dim = args[0] if args else None
    keepdim = args[1] if len(args) > 1 else False
    if "dim" in kwargs:
        if args:
            raise TypeError(f"{usage}: 'dim' given twice")
        dim = kwargs.pop("dim")
        if dim is None:
            raise TypeError(f"{usage}: 'dim' cannot be None")
    if "other" in kwargs:
        if args:
            raise TypeError(f"{usage}: 'other' given with a positional argument")
        dim = kwargs.pop("other")
        if not isinstance(dim, Tensor):
            raise TypeError(f"{usage}: 'other' must be a Tensor, but got {type(dim).__name__}")
    if "keepdim" in kwargs:
        if len(args) > 1:
            raise TypeError(f"{usage}: 'keepdim' given twice")
        keepdim = kwargs.pop("keepdim")
        if dim is None:
            raise TypeError(f"{usage}: 'keepdim' needs 'dim'")
    if kwargs:
        raise TypeError(f"{usage}, but got unexpected keyword argument(s) {sorted(kwargs)}")
    if isinstance(dim, Tensor):
        if len(args) > 1:
            raise TypeError(f"{usage}: 'keepdim' does not apply to (input, other)")
        return dim, False
    if dim is not None and not is_int(dim):
        raise TypeError(
            f"{usage}: the second argument must be an int or a Tensor, but got {type(dim).__name__}"
        )
    if not isinstance(keepdim, bool):
        raise TypeError(
            f"{api}(): argument 'keepdim' must be bool, but got {type(keepdim).__name__}"
        )
    return dim, keepdim


def _min_max(api, is_max, input, args, kwargs, out):
    C.tensor(api, "input", input)
    if not input.stop_gradient and input.dtype.name.startswith(("int", "uint", "bool")):
        raise TypeError(
            f"{api}(): an integer tensor ({input.dtype.name}) cannot require a gradient"
        )
    dim, keepdim = _min_max_args(api, args, kwargs)
    if dim is None:
        ret = (_C.max if is_max else _C.min)(input, [], False)
        if out is not None:
            return _write(api, ret, _out_single(api, out))
        return ret
    if isinstance(dim, Tensor):
        ret = (_C.maximum if is_max else _C.minimum)(input, dim)
        if out is not None:
            return _write(api, ret, _out_single(api, out))
        return ret
    if input.ndim == 0:
        C.axis(api, "dim", dim, 1)
        ret = (input, _C.full([], 0, convert_dtype("int64")))
    else:
        a = C.axis(api, "dim", dim, input.ndim)
        # PyTorch's rule: the gradient goes to the one position returned, not split
        # among ties.
        idx = (_C.argmax if is_max else _C.argmin)(input, [a], True, convert_dtype("int64"))
        values = _C.along_axis_gather(input, idx, a)
        if not keepdim:
            values, idx = _C.squeeze(values, [a]), _C.squeeze(idx, [a])
        ret = (values, idx)
    return _finish_pair(api, ret, out, MinMaxRetType)


@_forbid("compat.max", "oar.max", {"x", "axis"})
def max(  # noqa: A001 - PyTorch's name
    input: Tensor,
    *args: int | Tensor,
    out: Tensor | _OutPair | None = None,
    **kwargs: int | Tensor,
) -> Tensor | MinMaxRetType:
    """PyTorch's max: max(input) over all elements; max(input, dim, keepdim=False) ->
    MinMaxRetType(values, indices) (the gradient goes to the returned position only);
    max(input, other) -> the elementwise maximum."""
    return _min_max("max", True, input, args, kwargs, out)


@_forbid("compat.min", "oar.min", {"x", "axis"})
def min(  # noqa: A001 - PyTorch's name
    input: Tensor,
    *args: int | Tensor,
    out: Tensor | _OutPair | None = None,
    **kwargs: int | Tensor,
) -> Tensor | MinMaxRetType:
    """PyTorch's min: min(input) over all elements; min(input, dim, keepdim=False) ->
    MinMaxRetType(values, indices) (the gradient goes to the returned position only);
    min(input, other) -> the elementwise minimum."""
    return _min_max("min", False, input, args, kwargs, out)


def _lower_median(api, input, dim, keepdim, ignore_nan):
    """(values, int64 indices) of the lower median along dim; NaN sorts last, so with
    ignore_nan the median is taken over the leading non-NaN values of each line."""
    x = input
    if x.ndim == 0:
        C.axis(api, "dim", dim, 1)
        return x, _C.full([], 0, convert_dtype("int64"))
    a = C.axis(api, "dim", dim, x.ndim)
    n = x.shape[a]
    if n == 0:
        raise ValueError(
            f"{api}(): cannot take the median of the empty dim {a} (input has shape {x.shape})"
        )
    order = _C.argsort(x, a, False, True)
    if ignore_nan and x.dtype.is_floating_point:
        k = _C.sum(_C.cast(_C.logical_not(_C.isnan(x)), convert_dtype("int64")), [a], None, True)
        pos = _C.maximum(
            _C.floor_divide(_C.subtract(k, _C.full_like(k, 1)), _C.full_like(k, 2)),
            _C.full_like(k, 0),
        )
    else:
        pos = _C.full(
            [1 if d == a else s for d, s in enumerate(x.shape)],
            (n - 1) // 2,
            convert_dtype("int64"),
        )
        if x.dtype.is_floating_point:  # a NaN in the line is the median, as in PyTorch
            has_nan = _C.any(_C.isnan(x), [a], True)  # NaN sorts last: take the last
            pos = _C.where(has_nan, _C.full_like(pos, n - 1), pos)
    idx = _C.take_along_axis(order, pos, a, True)
    values = _C.along_axis_gather(x, idx, a)
    if not keepdim:
        values, idx = _C.squeeze(values, [a]), _C.squeeze(idx, [a])
    return values, idx


def _median(api, input, dim, keepdim, out, ignore_nan):
    C.tensor(api, "input", input)
    if dim is None:
        flat = _C.reshape(input, [-1])
        if flat.shape[0] == 0:
            raise ValueError(f"{api}(): cannot take the median of an empty tensor")
        value, _ = _lower_median(api, flat, 0, False, ignore_nan)
        if out is not None:
            return _write(api, value, _out_single(api, out))
        return value
    return _finish_pair(
        api, _lower_median(api, input, dim, bool(keepdim), ignore_nan), out, MedianRetType
    )


@_forbid("compat.median", "oar.median", {"x", "axis"})
def median(
    input: Tensor,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    out: Tensor | _OutPair | None = None,
) -> Tensor | MedianRetType:
    """The lower median (PyTorch's): of all elements (dim None, a 0-d tensor), or along
    dim -> MedianRetType(values, indices). A NaN in a line makes its median NaN."""
    return _median("median", input, dim, keepdim, out, False)


@_forbid("compat.nanmedian", "oar.nanmedian", {"x", "axis"})
def nanmedian(
    input: Tensor,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    out: Tensor | _OutPair | None = None,
) -> Tensor | MedianRetType:
    """median() ignoring NaN values; a line of only NaN gives NaN (index 0)."""
    return _median("nanmedian", input, dim, keepdim, out, True)


# ---- sorting, splitting, unique -----------------------------------------------------------
@_forbid("compat.sort", "oar.sort", {"x", "axis"})
def sort(
    input: Tensor,
    dim: int = -1,
    descending: bool = False,
    stable: bool = False,
    out: _OutPair | None = None,
) -> SortRetType:
    """SortRetType(values, indices) of input sorted along dim (NaN last, or first when
    descending); values are differentiable."""
    C.tensor("sort", "input", input)
    if input.ndim == 0:
        C.axis("sort", "dim", dim, 1)
        ret = (input, _C.full([], 0, convert_dtype("int64")))
    else:
        a = C.axis("sort", "dim", dim, input.ndim)
        idx = _C.argsort(input, a, bool(descending), bool(stable))
        ret = (_C.along_axis_gather(input, idx, a), idx)
    return _finish_pair("sort", ret, out, SortRetType)


@_forbid("compat.split", "oar.split", {"x", "num_or_sections", "axis", "name"})
def split(
    tensor: Tensor,
    split_size_or_sections: int | list[int] | tuple[int, ...],
    dim: int | Tensor = 0,
) -> tuple[Tensor, ...]:
    """PyTorch's split: an int gives chunks of that size (the last one smaller when the
    size does not divide), a list gives chunks of those sizes. Returns a tuple."""
    C.tensor("split", "tensor", tensor)
    if isinstance(dim, Tensor):
        dim = C.integer("split", "dim", dim)
    if tensor.ndim == 0:
        raise ValueError("split(): argument 'tensor' must have at least 1 dimension, but it is 0-D")
    a = C.axis("split", "dim", dim, tensor.ndim)
    n = tensor.shape[a]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [
            C.integer("split", f"split_size_or_sections[{i}]", s)
            for i, s in enumerate(split_size_or_sections)
        ]
        if any(s < 0 for s in sizes):
            raise ValueError(f"split(): split sizes must be non-negative, but got {sizes}")
        if sum(sizes) != n:
            raise ValueError(
                f"split(): split sizes {sizes} do not add up to the size {n} of dim {a}"
            )
    else:
        size = C.integer("split", "split_size_or_sections", split_size_or_sections)
        if size <= 0:
            raise ValueError(
                f"split(): argument 'split_size_or_sections' must be positive, but got {size}"
            )
        sizes = [size] * (n // size) + ([n % size] if n % size else [])
        if not sizes:
            sizes = [0]
    out, start = [], 0
    for s in sizes:
        out.append(_C.slice(tensor, [a], [start], [start + s]))
        start += s
    return tuple(out)


@_forbid("compat.unique", "oar.unique", {"x", "axis"})
def unique(
    input: Tensor,
    sorted: bool = True,  # noqa: A002
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Tensor | tuple[Tensor, ...]:
    """The distinct elements (or slices along dim) of input in ascending order, and as
    asked the inverse indices (shaped like input, or its dim) and the counts; sorted is
    accepted and ignored (always sorted, as in PyTorch on the CPU)."""
    C.tensor("unique", "input", input)
    res = _unique(
        input, return_inverse=bool(return_inverse), return_counts=bool(return_counts), axis=dim
    )
    if not (return_inverse or return_counts):
        return res
    res = list(res)
    if return_inverse and dim is None:
        res[1] = _C.reshape(res[1], list(input.shape))
    return tuple(res)


# ---- linear algebra, random -------------------------------------------------------------
def slogdet(x: Tensor, out: _OutPair | None = None) -> SlogdetResult:
    """SlogdetResult(sign, logabsdet) of each square matrix of x (PyTorch's layout, two
    tensors; oar.linalg.slogdet keeps Paddle's stacked [2, ...] tensor)."""
    both = _slogdet(x)
    sign, logabs = both[0], both[1]
    if out is None:
        return SlogdetResult(sign, logabs)
    return _finish_pair("slogdet", (sign, logabs), out, SlogdetResult)


def seed() -> int:
    """Seeds the default generator with a fresh non-deterministic 63-bit number and
    returns it (PyTorch's torch.seed)."""
    s = int.from_bytes(os.urandom(8), "little") >> 1
    _seed(s)
    return s
