"""Shape manipulation (Paddle's paddle/tensor/manipulation.py): cast, reshape-like views,
stack/concat and their h/v/d/column forms, split, chunk, tensor_split and hsplit/vsplit/
dsplit, unbind/unstack, tile, expand/broadcast, flatten/unflatten, moveaxis/permute/
swapaxes, rot90, narrow/crop/slice, masked_fill, unique and unique_consecutive, meshgrid,
block_diag, cartesian_prod, assign, and the helpers the other modules share (index lists,
broadcast shapes)."""

from __future__ import annotations

import inspect
import itertools
import math
import numbers
from typing import Any, Sequence

import numpy as np

from ..framework.check import is_int
from .. import _C
from ..framework import check as C
from ..framework import out as _out
from ..framework.check import _aliases, builtins_range
from ..framework.dtype import _dtype_arg, convert_dtype, int32, int64
from ..framework.memory import check_fits, check_objects
from ..framework.promote import common
from ..framework.typing import AxisLike, DTypeLike, ShapeLike
from .creation import to_tensor
from .search import _index_dtype

Tensor = _C.Tensor

__all__ = [
    "cast",
    "slice",
    "stack",
    "split",
    "gather",
    "flatten",
    "unflatten",
    "chunk",
    "unstack",
    "tile",
    "repeat_interleave",
    "rot90",
    "moveaxis",
    "broadcast_to",
    "expand_as",
    "broadcast_tensors",
    "meshgrid",
    "unfold",
    "masked_fill",
    "masked_fill_",
    "unique",
    "assign",
    "broadcast_shape",
    "broadcast_shapes",
    "tensor_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "hstack",
    "vstack",
    "row_stack",
    "dstack",
    "column_stack",
    "block_diag",
    "cartesian_prod",
    "crop",
    "narrow",
    "permute",
    "ravel",
    "matrix_transpose",
    "unbind",
    "view",
    "view_as",
    "tolist",
    "multiplex",
    "shard_index",
    "unique_consecutive",
    "cat",
    "concatenate",
    "swapaxes",
    "swapdims",
    "reverse",
    "view_as_complex",
    "view_as_real",
]


def cast(x: Tensor, dtype: DTypeLike) -> Tensor:
    return _C.cast(C.tensor("cast", "x", x), _dtype_arg("cast", dtype))


def slice(input: Tensor, axes: Any, starts: Any, ends: Any) -> Tensor:  # noqa: A001 - Paddle's name
    return _C.slice(input, axes, starts, ends)


def stack(x: Sequence[Tensor], axis: int = 0, name: str | None = None) -> Tensor:
    if not isinstance(x, (list, tuple)):
        raise TypeError(
            f"stack(): argument 'x' must be a list or tuple of Tensors, but got {C._kind(x)}"
        )
    if not x:
        raise ValueError("stack(): argument 'x' must hold at least one tensor")
    for i, t in enumerate(x):
        if list(C.tensor("stack", f"x[{i}]", t).shape) != list(x[0].shape):
            raise ValueError(
                f"stack(): all tensors must have the same shape, but x[0] has "
                f"{x[0].shape} and x[{i}] has {t.shape}"
            )
    axis = C.axis("stack", "axis", axis, x[0].ndim + 1, "the result")
    return _C.concat([_C.unsqueeze(t, [axis]) for t in x], axis)


def _section(v, i):
    s = C.integer("split", f"num_or_sections[{i}]", v)
    if s < -1:
        raise ValueError(
            f"split(): argument 'num_or_sections' has a negative section {s} "
            f"(only one -1, meaning 'the rest', is allowed)"
        )
    return s


def split(x: Tensor, num_or_sections: Any, axis: Any = 0, name: str | None = None) -> list[Tensor]:
    C.tensor("split", "x", x)
    if x.ndim == 0:
        raise ValueError("split(): argument 'x' must have at least 1 dimension, but it is 0-D")
    axis = C.axis("split", "axis", axis, x.ndim)
    n = x.shape[axis]
    if isinstance(num_or_sections, (list, tuple)):
        sizes = [_section(v, i) for i, v in enumerate(num_or_sections)]
        if sizes.count(-1) > 1:
            raise ValueError(f"split(): argument 'num_or_sections' {sizes} may hold at most one -1")
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = n - sum(s for s in sizes if s != -1)
        if sum(sizes) != n or min(sizes, default=0) < 0:
            raise ValueError(
                f"split(): sections {list(num_or_sections)} do not add up to the "
                f"size {n} of dimension {axis}"
            )
    else:
        num = C.integer("split", "num_or_sections", num_or_sections)
        if num <= 0:  # also keeps `n % num` below from dividing by zero
            raise ValueError(
                f"split(): argument 'num_or_sections' must be a positive int, but got {num}"
            )
        if n % num:
            raise ValueError(
                f"split(): dimension {axis} of size {n} cannot be split into {num} equal parts"
            )
        check_objects("split", "sections", num)
        sizes = [n // num] * num
    out, start = [], 0
    for s in sizes:
        out.append(_C.slice(x, [axis], [start], [start + s]))
        start += s
    return out


def gather(
    x: Tensor, index: Tensor, axis: AxisLike | None = None, name: str | None = None
) -> Tensor:
    axis = 0 if axis is None else C.integer("gather", "axis", axis)
    return _C.gather(x, index, axis)


def flatten(x: Tensor, start_axis: Any = 0, stop_axis: Any = -1, name: str | None = None) -> Tensor:
    C.tensor("flatten", "x", x)
    nd = max(x.ndim, 1)  # a 0-d x flattens to [1]; its axes are 0 and -1 (torch, Paddle)
    s = C.axis("flatten", "start_axis", start_axis, nd)
    e = C.axis("flatten", "stop_axis", stop_axis, nd)
    if s > e:
        raise ValueError(
            f"flatten(): argument 'start_axis' ({start_axis}) must not come after "
            f"'stop_axis' ({stop_axis})"
        )
    if x.ndim == 0:
        return _C.reshape(x, [1])
    shape = x.shape
    merged = 1
    for d in shape[s : e + 1]:
        merged *= d
    # Every entry literal: reshape alone would read a merged 0 as "copy x's dim".
    return C.reshape_exact(x, shape[:s] + [merged] + shape[e + 1 :])


# --- argument helpers ----------------------------------------------------------------------


def _int_list(api, name, v, allow_int=True):
    """A list of Python ints from an int, a list/tuple of ints or a 1-D integer Tensor."""
    if isinstance(v, Tensor):
        if v.dtype.is_floating_point or v.dtype.name == "bool" or v.ndim > 1:
            raise TypeError(
                f"{api}(): argument '{name}' must be a 1-D integer Tensor, but got a "
                f"{v.dtype.name} Tensor of shape {v.shape}"
            )
        return [int(i) for i in v.numpy().reshape(-1)]
    if allow_int and isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return [int(v)]
    if not isinstance(v, (list, tuple)):
        raise TypeError(
            f"{api}(): argument '{name}' must be a list or tuple of int, but got {C._kind(v)}"
        )
    return [C.integer(api, f"{name}[{i}]", e) for i, e in enumerate(v)]


def _tensor_list(api, name, v):
    if not isinstance(v, (list, tuple)):
        raise TypeError(
            f"{api}(): argument '{name}' must be a list or tuple of Tensors, but got {C._kind(v)}"
        )
    return [C.tensor(api, f"{name}[{i}]", e) for i, e in enumerate(v)]


def _broadcast_shape(api, shapes, names):
    out = []
    for shape, nm in zip(shapes, names):
        shape = list(shape)
        n = max(len(out), len(shape))
        a = [1] * (n - len(out)) + out
        b = [1] * (n - len(shape)) + shape
        res = []
        for i, (p, q) in enumerate(zip(a, b)):
            if p != q and p != 1 and q != 1:
                raise ValueError(
                    f"{api}(): the shape {shape} of {nm} cannot be broadcast with "
                    f"{out} (dimension {i}: {q} against {p})"
                )
            res.append(q if p == 1 else p)
        out = res
    return out


# --- splitting and joining -----------------------------------------------------------------


def unflatten(x: Tensor, axis: AxisLike, shape: ShapeLike, name: str | None = None) -> Tensor:
    """Splits dimension axis of x into `shape` (one entry may be -1: inferred)."""
    C.tensor("unflatten", "x", x)
    if x.ndim == 0:
        raise ValueError("unflatten(): argument 'x' must have at least 1 dimension, but it is 0-D")
    a = C.axis("unflatten", "axis", axis, x.ndim)
    sizes = _int_list("unflatten", "shape", shape, allow_int=False)
    if not sizes:
        raise ValueError("unflatten(): argument 'shape' must not be empty")
    n = x.shape[a]
    if sizes.count(-1) > 1:
        raise ValueError(f"unflatten(): argument 'shape' {sizes} may hold at most one -1")
    if any(s < -1 for s in sizes):
        raise ValueError(f"unflatten(): argument 'shape' {sizes} has a negative size")
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if -1 in sizes:
        if known == 0 or n % known:
            raise ValueError(
                f"unflatten(): argument 'shape' {sizes} cannot split dimension {a} of size {n}"
            )
        sizes[sizes.index(-1)] = n // known
    elif known != n:
        raise ValueError(
            f"unflatten(): argument 'shape' {sizes} has {known} elements but "
            f"dimension {a} has size {n}"
        )
    return C.reshape_exact(x, x.shape[:a] + sizes + x.shape[a + 1 :])


def chunk(x: Tensor, chunks: Any, axis: AxisLike = 0, name: str | None = None) -> list[Tensor]:
    """Splits x into `chunks` equal parts along axis (Paddle: the size must divide evenly)."""
    C.tensor("chunk", "x", x)
    n = C.integer("chunk", "chunks", chunks)
    if n <= 0:
        raise ValueError(f"chunk(): argument 'chunks' must be a positive int, but got {n}")
    if x.ndim == 0:
        raise ValueError("chunk(): argument 'x' must have at least 1 dimension, but it is 0-D")
    a = C.axis("chunk", "axis", axis, x.ndim)
    if x.shape[a] % n:
        raise ValueError(
            f"chunk(): dimension {a} of size {x.shape[a]} cannot be split into {n} equal chunks"
        )
    return split(x, n, a)


def unstack(
    x: Tensor, axis: AxisLike = 0, num: int | None = None, name: str | None = None
) -> list[Tensor]:
    """The slices of x along axis, each without that axis."""
    return _unstack("unstack", "x", x, axis, num)


def _unstack(api, xname, x, axis, num):
    """unstack and unbind, with errors naming the function called."""
    C.tensor(api, xname, x)
    if x.ndim == 0:
        raise ValueError(
            f"{api}(): argument '{xname}' must have at least 1 dimension, but it is 0-D"
        )
    a = C.axis(api, "axis", axis, x.ndim)
    n = x.shape[a]
    if num is not None and C.integer(api, "num", num) != n:
        raise ValueError(
            f"{api}(): argument 'num' ({num}) must equal the size {n} of dimension {a}"
        )
    # A dimension next to a 0 ([2**62, 0]) can be any size; each slice is a tensor object.
    check_objects(api, "slices", n)
    return [_C.squeeze(_C.slice(x, [a], [i], [i + 1]), [a]) for i in range(n)]


# --- repetition ----------------------------------------------------------------------------


def tile(x: Tensor, repeat_times: Any, name: str | None = None) -> Tensor:
    """x repeated repeat_times[i] times along dimension i (missing leading entries are 1)."""
    C.tensor("tile", "x", x)
    reps = _int_list("tile", "repeat_times", repeat_times)  # an int too, as Paddle
    if any(r < 0 for r in reps):
        raise ValueError(f"tile(): argument 'repeat_times' {reps} must not be negative")
    d = max(len(reps), x.ndim)
    reps = [1] * (d - len(reps)) + reps
    shape = [1] * (d - x.ndim) + list(x.shape)
    # [s0, s1, ..] -> [1, s0, 1, s1, ..] -> expand to [r0, s0, r1, s1, ..] -> merge pairs.
    y = C.reshape_exact(x, [v for s in shape for v in (1, s)])
    y = _C.expand(y, [v for r, s in zip(reps, shape) for v in (r, s)])
    return C.reshape_exact(y, [r * s for r, s in zip(reps, shape)])


def repeat_interleave(
    x: Tensor, repeats: Any, axis: AxisLike | None = None, name: str | None = None
) -> Tensor:
    """Each element (or slice along axis) of x repeated `repeats` times in place."""
    C.tensor("repeat_interleave", "x", x)
    if axis is None:
        x = flatten(x)
        a = 0
    else:
        if x.ndim == 0:
            x = _C.reshape(x, [1])
        a = C.axis("repeat_interleave", "axis", axis, x.ndim)
    n = x.shape[a]
    if isinstance(repeats, Tensor) and repeats.size != 1:
        reps = _int_list("repeat_interleave", "repeats", repeats)
        if len(reps) != n:
            raise ValueError(
                f"repeat_interleave(): argument 'repeats' has {len(reps)} entries "
                f"but dimension {a} has size {n}"
            )
        if any(r < 0 for r in reps):
            raise ValueError(f"repeat_interleave(): argument 'repeats' {reps} must not be negative")
        total = sum(reps)
        if total > _INT64_MAX:
            raise ValueError(
                f"repeat_interleave(): argument 'repeats' adds up to {total}, "
                f"more than a dimension can hold (int64 max {_INT64_MAX})"
            )
        shape = list(x.shape)
        shape[a] = total
        if x.size == 0:
            return _C.full(shape, 0, x.dtype)
        # The index of every repeated slice is built before the gather.
        check_fits(
            "repeat_interleave():",
            f"argument 'repeats' asks for {total} slices, which",
            total * 8 + _prod(shape) * x.dtype.itemsize,
        )
        index = np.repeat(np.arange(n, dtype=np.int64), reps)
        return _C.index_select(x, _int64_tensor(index), a)
    r = C.integer("repeat_interleave", "repeats", repeats)
    if r < 0:
        raise ValueError(
            f"repeat_interleave(): argument 'repeats' must not be negative, but got {r}"
        )
    shape = list(x.shape)
    y = _C.unsqueeze(x, [a + 1])
    y = _C.expand(y, shape[: a + 1] + [r] + shape[a + 1 :])
    return C.reshape_exact(y, shape[:a] + [n * r] + shape[a + 1 :])


_INT64_MAX = (1 << 63) - 1


def _int64_tensor(values):
    return to_tensor(values, dtype="int64")


# --- reordering ----------------------------------------------------------------------------


def rot90(x: Tensor, k: int = 1, axes: Any = [0, 1], name: str | None = None) -> Tensor:  # noqa: B006 - Paddle's default
    """x rotated by 90 degrees k times in the plane of axes (from axes[0] towards axes[1])."""
    C.tensor("rot90", "x", x)
    ax = _int_list("rot90", "axes", axes, allow_int=False)
    if len(ax) != 2:
        raise ValueError(f"rot90(): argument 'axes' must hold 2 axes, but got {ax}")
    if x.ndim < 2:
        raise ValueError(
            f"rot90(): argument 'x' must have at least 2 dimensions, but has shape {x.shape}"
        )
    a0 = C.axis("rot90", "axes[0]", ax[0], x.ndim)
    a1 = C.axis("rot90", "axes[1]", ax[1], x.ndim)
    if a0 == a1:
        raise ValueError(f"rot90(): argument 'axes' {ax} names the same axis twice")
    k = C.integer("rot90", "k", k) % 4
    perm = list(range(x.ndim))
    perm[a0], perm[a1] = a1, a0
    if k == 0:
        return _C.assign(x)
    if k == 2:
        return _C.flip(x, [a0, a1])
    if k == 1:
        return _C.transpose(_C.flip(x, [a1]), perm)
    return _C.transpose(_C.flip(x, [a0]), perm)


def moveaxis(x: Tensor, source: Any, destination: Any, name: str | None = None) -> Tensor:
    """x with its axes `source` moved to the positions `destination` (a view)."""
    C.tensor("moveaxis", "x", x)
    src = _int_list("moveaxis", "source", source)
    dst = _int_list("moveaxis", "destination", destination)
    if len(src) != len(dst):
        raise ValueError(
            f"moveaxis(): arguments 'source' {src} and 'destination' {dst} must "
            f"have the same length"
        )
    nd = x.ndim
    src = [C.axis("moveaxis", "source", s, nd) for s in src]
    dst = [C.axis("moveaxis", "destination", d, nd) for d in dst]
    if len(set(src)) != len(src):
        raise ValueError(f"moveaxis(): argument 'source' {source} repeats an axis")
    if len(set(dst)) != len(dst):
        raise ValueError(f"moveaxis(): argument 'destination' {destination} repeats an axis")
    perm = [-1] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(a for a in range(nd) if a not in src)
    perm = [p if p >= 0 else next(rest) for p in perm]
    return _C.transpose(x, perm)


# --- broadcasting --------------------------------------------------------------------------


def broadcast_to(x: Tensor, shape: ShapeLike, name: str | None = None) -> Tensor:
    """x broadcast to shape (a view with zero strides)."""
    C.tensor("broadcast_to", "x", x)
    target = _int_list("broadcast_to", "shape", shape, allow_int=False)
    if len(target) < x.ndim:
        raise ValueError(
            f"broadcast_to(): argument 'shape' {target} has fewer dimensions than x {x.shape}"
        )
    lead = len(target) - x.ndim
    for i, s in enumerate(x.shape):
        t_ = target[lead + i]
        if t_ != -1 and s != 1 and s != t_:
            raise ValueError(
                f"broadcast_to(): x of shape {x.shape} cannot be broadcast to "
                f"{target} (dimension {lead + i}: {s} against {t_})"
            )
    return _C.expand(x, target)


def expand_as(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x broadcast to y's shape (a view with zero strides)."""
    C.tensor("expand_as", "x", x)
    C.tensor("expand_as", "y", y)
    try:
        return broadcast_to(x, y.shape)
    except ValueError as e:
        raise ValueError(
            str(e)
            .replace("broadcast_to():", "expand_as():", 1)
            .replace("argument 'shape'", "y's shape")
        ) from None


def broadcast_tensors(
    input: Sequence[Tensor],  # noqa: A002 - Paddle's name
    name: str | None = None,
) -> list[Tensor]:
    """The tensors broadcast against each other to one shape (views)."""
    xs = _tensor_list("broadcast_tensors", "input", input)
    shape = _broadcast_shape(
        "broadcast_tensors", [x.shape for x in xs], [f"input[{i}]" for i in range(len(xs))]
    )
    return [_C.expand(x, shape) for x in xs]


def meshgrid(*args: Any, **kwargs: Any) -> list[Tensor]:
    """Coordinate grids of the 1-D tensors ('ij' indexing): out[i] varies along dimension i."""
    name = kwargs.pop("name", None)  # noqa: F841 - Paddle's argument, unused
    if kwargs:
        raise TypeError(f"meshgrid(): unexpected keyword argument '{next(iter(kwargs))}'")
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    xs = _tensor_list("meshgrid", "args", list(args))
    for i, v in enumerate(xs):
        if v.ndim > 1:
            raise ValueError(
                f"meshgrid(): argument 'args[{i}]' must be 0-D or 1-D, but has shape {v.shape}"
            )
    shape = [v.size for v in xs]
    out = []
    for i, v in enumerate(xs):
        view = [1] * len(xs)
        view[i] = shape[i]
        out.append(_C.expand(C.reshape_exact(v, view), shape))
    return out


def _int32_kept(x):
    """int32 for an int32 x, else None (sum's own dtype rule): Paddle's trace and dot keep
    int32, where its sum gives int64."""
    return x.dtype if x.dtype.name == "int32" else None


def _renamed(api, fn, *args):
    """fn(*args) with the op name in its error messages replaced by `api`."""
    try:
        return fn(*args)
    except (ValueError, IndexError, TypeError) as e:
        msg = str(e)
        head, sep, rest = msg.partition("(): ")
        if sep and head.isidentifier():
            msg = f"{api}(): {rest}"
        raise type(e)(msg) from None


def unfold(x: Tensor, axis: AxisLike, size: Any, step: Any, name: str | None = None) -> Tensor:
    """The windows of `size` elements every `step` along axis, as a new last dim (a view)."""
    C.tensor("unfold", "x", x)
    return _renamed(
        "unfold",
        _C.tensor_unfold,
        x,
        C.integer("unfold", "axis", axis),
        C.integer("unfold", "size", size),
        C.integer("unfold", "step", step),
    )


def _prod(xs):
    p = 1
    for s in xs:
        p *= s
    return p


def _like_x(api, name, x, v):
    """v as a tensor of x's dtype: a number becomes 0-d; a Tensor is cast (differentiably),
    unless the cast would drop a complex v's imaginary part."""
    if isinstance(v, Tensor):
        if v.dtype.is_complex and not x.dtype.is_complex:
            raise TypeError(
                f"{api}(): argument '{name}' is {v.dtype.name} but x is "
                f"{x.dtype.name}: casting it to x's dtype would drop its imaginary "
                f"part; make x complex first"
            )
        return v if v.dtype is x.dtype else _C.cast(v, x.dtype)
    return _C.full([], C.number(api, name, v), x.dtype)


def masked_fill(x: Tensor, mask: Tensor, value: Tensor | float, name: str | None = None) -> Tensor:
    C.tensor("masked_fill", "x", x)
    return _C.masked_fill(x, mask, _like_x("masked_fill", "value", x, value))


def masked_fill_(x: Tensor, mask: Tensor, value: Tensor | float, name: str | None = None) -> Tensor:
    C.tensor("masked_fill_", "x", x)
    return _C.masked_fill_(x, mask, _like_x("masked_fill_", "value", x, value))


def unique(
    x: Tensor,
    return_index: Any = False,
    return_inverse: Any = False,
    return_counts: Any = False,
    axis: AxisLike | None = None,
    dtype: DTypeLike = "int64",
    name: str | None = None,
) -> Tensor | tuple[Tensor, ...]:
    """The distinct elements of x flattened (or slices along axis) in ascending order.

    Also returns, as asked: the position of each one's first occurrence, the number of
    the distinct value of each element (slice), and the count of each."""
    C.tensor("unique", "x", x)
    d = _index_dtype("unique", dtype)
    if axis is None:
        inv = _C.unique_inverse(x, [])
        src, a = _C.reshape(x, [-1]), 0
    else:
        a = C.axis("unique", "axis", axis, x.ndim, "a tensor")
        inv = _C.unique_inverse(x, [a])
        src = x
    counts = _C.bincount(inv, _C.full_like(inv, 1), 0)
    # With a stable order of the group numbers, a group's first member comes first.
    order = _C.argsort(inv, 0, False, True)
    starts = _C.subtract(_C.cumsum(counts, [0], None), counts)
    index = _C.index_select(order, starts, 0)
    out = [_C.index_select(src, index, a)]
    if return_index:
        out.append(_C.cast(index, d))
    if return_inverse:
        out.append(_C.cast(inv, d))
    if return_counts:
        out.append(_C.cast(counts, d))
    return out[0] if len(out) == 1 else tuple(out)


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
        if isinstance(x, (list, tuple)) and x and all(isinstance(v, Tensor) for v in x):
            res = stack(list(x), 0)
        else:
            res = to_tensor(x)
    return _out.write_out(output, res, "assign", "output")


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
    lists = []
    for i, s in enumerate(shapes):
        if isinstance(s, Tensor):
            s = s.tolist()
        if not isinstance(s, (list, tuple)):
            raise TypeError(
                f"broadcast_shapes(): shape {i} must be a list or tuple of ints, "
                f"but got {type(s).__name__}"
            )
        lists.append([C.integer("broadcast_shapes", f"shapes[{i}]", v) for v in s])
    return _broadcast_shape(
        "broadcast_shapes", lists, [f"shape {i}" for i in builtins_range(len(lists))]
    )


def _ints(api, name, v):
    if isinstance(v, Tensor):
        return [int(i) for i in v.numpy().reshape(-1)]
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return [int(v)]
    if not isinstance(v, (list, tuple)):
        raise TypeError(
            f"{api}(): argument '{name}' must be an int or a list of ints, but got {C._kind(v)}"
        )
    return [C.integer(api, name, e) for e in v]


def _index_tensor(values):
    return _C._from_buffer(np.asarray(values, dtype=np.int64).reshape(-1), int64)


# ---- splitting ------------------------------------------------------------------------------
def tensor_split(
    x: Tensor, num_or_indices: int | Sequence[int], axis: int | Tensor = 0, name: str | None = None
) -> list[Tensor]:
    """x split along axis into num_or_indices parts (an int n: sizes differing by at most
    one, the larger first) or at the given indices (parts may be empty).

    Examples:
        >>> import oar
        >>> x = oar.arange(8)
        >>> print([p.shape for p in oar.tensor_split(x, 3)])
        [oar.Size([3]), oar.Size([3]), oar.Size([2])]
        >>> print([p.tolist() for p in oar.tensor_split(x, [2, 3])])
        [[0, 1], [2], [3, 4, 5, 6, 7]]
    """
    return _tensor_split("tensor_split", x, num_or_indices, axis)


def _tensor_split(api, x, num_or_indices, axis):
    """tensor_split for api (tensor_split, hsplit, vsplit or dsplit), whose errors name it."""
    C.tensor(api, "x", x)
    if x.ndim == 0:
        raise ValueError(f"{api}(): argument 'x' must have at least 1 dimension")
    a = C.axis(api, "axis", axis, x.ndim)
    n = x.shape[a]
    if isinstance(num_or_indices, numbers.Integral) and not isinstance(num_or_indices, bool):
        k = int(num_or_indices)
        if k <= 0:
            raise ValueError(f"{api}(): the number of sections must be positive, but got {k}")
        # An empty dimension splits into any number of empty parts, each a tensor object.
        check_objects(api, "sections", k)
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        bounds = list(itertools.accumulate([0] + sizes))
    else:
        idx = _ints(api, "num_or_indices", num_or_indices)
        bounds = [0] + [min(max(i + n if i < 0 else i, 0), n) for i in idx] + [n]
    parts = []
    for s, e in zip(bounds, bounds[1:]):
        e = max(e, s)
        parts.append(_C.slice(x, [a], [s], [e]))
    return parts


def _split_along(api, x, num_or_indices, axis, min_ndim):
    C.tensor(api, "x", x)
    if x.ndim < min_ndim:
        raise ValueError(
            f"{api}(): argument 'x' must have at least {min_ndim} dimensions, but has {x.ndim}"
        )
    return _tensor_split(api, x, num_or_indices, axis)


def hsplit(x: Tensor, num_or_indices: int | Sequence[int], name: str | None = None) -> list[Tensor]:
    """tensor_split along axis 1 (axis 0 for a 1-D x)."""
    C.tensor("hsplit", "x", x)
    return _split_along("hsplit", x, num_or_indices, 1 if x.ndim > 1 else 0, 1)


def vsplit(x: Tensor, num_or_indices: int | Sequence[int], name: str | None = None) -> list[Tensor]:
    """tensor_split along axis 0 of an x with at least 2 dimensions."""
    return _split_along("vsplit", x, num_or_indices, 0, 2)


def dsplit(x: Tensor, num_or_indices: int | Sequence[int], name: str | None = None) -> list[Tensor]:
    """tensor_split along axis 2 of an x with at least 3 dimensions."""
    return _split_along("dsplit", x, num_or_indices, 2, 3)


# ---- stacking -------------------------------------------------------------------------------
def _atleast(api, inputs, nd):
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    outs = []
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            t = to_tensor(t)
        if t.ndim >= nd:
            outs.append(t)
            continue
        s = t.shape
        if nd == 1:
            shape = [1]
        elif nd == 2:
            shape = [1] + s if t.ndim == 1 else [1, 1]
        else:
            shape = [1] + s + [1] if t.ndim == 1 else s + [1] if t.ndim == 2 else [1, 1, 1]
        outs.append(C.reshape_exact(t, shape))
    return outs[0] if len(outs) == 1 else outs


def atleast_1d(*inputs: Any, name: str | None = None) -> Any:
    """Each input with at least 1 dimension (0-D becomes [1]); one input gives a tensor,
    several a list.

    Examples:
        >>> import oar
        >>> print(oar.atleast_1d(oar.to_tensor(3)).shape)
        oar.Size([1])
    """
    return _atleast("atleast_1d", inputs, 1)


def atleast_2d(*inputs: Any, name: str | None = None) -> Any:
    """Each input with at least 2 dimensions (0-D: [1, 1], 1-D [n]: [1, n])."""
    return _atleast("atleast_2d", inputs, 2)


def atleast_3d(*inputs: Any, name: str | None = None) -> Any:
    """Each input with at least 3 dimensions (0-D: [1, 1, 1], [n]: [1, n, 1], [m, n]:
    [m, n, 1])."""
    return _atleast("atleast_3d", inputs, 3)


def _tensors(api, x, rows_of_tensor=False):
    # rows_of_tensor: the stacking functions take a Tensor as the sequence of its slices
    # along axis 0, as Paddle does (it iterates the argument)
    if rows_of_tensor and isinstance(x, Tensor) and x.ndim > 0 and x.shape[0] > 0:
        x = _unstack(api, "x", x, 0, None)
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)) or not x:
        raise TypeError(
            f"{api}(): argument 'x' must be a non-empty list or tuple of Tensors"
            f"{' (or a Tensor of at least one row)' if rows_of_tensor else ''}, "
            f"but got {C._kind(x)}"
        )
    ts = [C.tensor(api, f"x[{i}]", t) for i, t in enumerate(x)]
    return list(common(api, *ts))


def _as_list(v):
    return v if isinstance(v, list) else [v]


def hstack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The tensors concatenated along axis 1 (axis 0 when they are 1-D or 0-D).

    Examples:
        >>> import oar
        >>> print(oar.hstack([oar.to_tensor([1.0, 2.0]), oar.to_tensor([3.0])]).tolist())
        [1.0, 2.0, 3.0]
    """
    ts = _as_list(atleast_1d(*_tensors("hstack", x, True)))
    return _C.concat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The tensors (made at least 2-D) concatenated along axis 0."""
    return _C.concat(_as_list(atleast_2d(*_tensors("vstack", x, True))), 0)


def row_stack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """vstack: the tensors (made at least 2-D) concatenated along axis 0."""
    return vstack(x)


def dstack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The tensors (made at least 3-D) concatenated along axis 2."""
    return _C.concat(_as_list(atleast_3d(*_tensors("dstack", x, True))), 2)


def column_stack(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The tensors as columns: 0-D and 1-D ones become [n, 1], then all are concatenated
    along axis 1."""
    ts = _tensors("column_stack", x, True)
    cols = [C.reshape_exact(t, [t.size, 1]) if t.ndim < 2 else t for t in ts]
    return _C.concat(cols, 1)


def block_diag(inputs: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The block-diagonal matrix of the inputs (0-D, 1-D as one row, or 2-D), zeros
    elsewhere.

    Examples:
        >>> import oar
        >>> print(oar.block_diag([oar.to_tensor([[1, 2]]), oar.to_tensor(3)]).tolist())
        [[1, 2, 0], [0, 0, 3]]
    """
    ts = _tensors("block_diag", inputs, True)
    mats = []
    for i, t in enumerate(ts):
        if t.ndim > 2:
            raise ValueError(
                f"block_diag(): inputs[{i}] must have at most 2 dimensions, but has shape {t.shape}"
            )
        mats.append(
            C.reshape_exact(t, [1, t.size])
            if t.ndim == 1
            else C.reshape_exact(t, [1, 1])
            if t.ndim == 0
            else t
        )
    total = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        parts = []
        if left:
            parts.append(_C.full([r, left], 0, m.dtype))
        parts.append(m)
        if total - left - c:
            parts.append(_C.full([r, total - left - c], 0, m.dtype))
        rows.append(_C.concat(parts, 1) if len(parts) > 1 else m)
        left += c
    return _C.concat(rows, 0)


def cartesian_prod(x: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The cartesian product of 1-D tensors, one row per combination ([N1 * N2 * ..., k]);
    one tensor is returned as is.

    Examples:
        >>> import oar
        >>> a, b = oar.to_tensor([1, 2]), oar.to_tensor([5, 6])
        >>> print(oar.cartesian_prod([a, b]).tolist())
        [[1, 5], [1, 6], [2, 5], [2, 6]]
    """
    ts = _tensors("cartesian_prod", x)
    for i, t in enumerate(ts):
        if t.ndim != 1:
            raise ValueError(f"cartesian_prod(): x[{i}] must be 1-D, but has shape {t.shape}")
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts)
    return C.reshape_exact(stack(grids, -1), [math.prod(t.size for t in ts), len(ts)])


# ---- views and slices -----------------------------------------------------------------------
def crop(x: Tensor, shape: Any = None, offsets: Any = None, name: str | None = None) -> Tensor:
    """The block of x of the given shape (None: x's; -1: to the end) starting at offsets
    (None: zeros).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        >>> print(oar.crop(x, [2, 2], [0, 1]).tolist())
        [[2, 3], [5, 6]]
    """
    C.tensor("crop", "x", x)
    sizes = list(x.shape) if shape is None else _ints("crop", "shape", shape)
    offs = [0] * x.ndim if offsets is None else _ints("crop", "offsets", offsets)
    if len(sizes) != x.ndim or len(offs) != x.ndim:
        raise ValueError(
            f"crop(): 'shape' {sizes} and 'offsets' {offs} must have one entry per "
            f"dimension of x {x.shape}"
        )
    ends = []
    for d, (n, o, s) in enumerate(zip(x.shape, offs, sizes)):
        if o < 0:
            raise ValueError(f"crop(): argument 'offsets' must be >= 0, but got {offs}")
        s = n - o if s == -1 else s
        if s < 0 or o + s > n:
            raise ValueError(
                f"crop(): the crop of size {s} at offset {o} does not fit dimension {d} of size {n}"
            )
        ends.append(o + s)
    if not x.ndim:
        return x
    return _C.slice(x, list(range(x.ndim)), offs, ends)


def narrow(input: Tensor, dim: int, start: int | Tensor, length: int) -> Tensor:  # noqa: A002
    """The length elements of input along dim from start (negative: from the end)."""
    C.tensor("narrow", "input", input)
    if input.ndim == 0:
        raise ValueError("narrow(): argument 'input' must have at least 1 dimension")
    d = C.axis("narrow", "dim", dim, input.ndim)
    s = C.integer("narrow", "start", start)
    n = C.integer("narrow", "length", length)
    size = input.shape[d]
    if s < 0:
        s += size
    if not 0 <= s <= size or n < 0 or s + n > size:
        raise IndexError(
            f"narrow(): start {start} and length {length} do not fit dimension {d} of size {size}"
        )
    return _C.slice(input, [d], [s], [s + n])


def permute(input: Tensor, *dims: Any) -> Tensor:  # noqa: A002
    """input with its dimensions reordered: permute(x, (1, 0, 2)) or permute(x, 1, 0, 2)."""
    C.tensor("permute", "input", input)
    spec: Any = (
        dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple, Tensor)) else list(dims)
    )
    return _C.transpose(input, _ints("permute", "dims", spec))


def ravel(input: Tensor) -> Tensor:  # noqa: A002
    """input flattened to 1-D."""
    C.tensor("ravel", "input", input)
    return _C.reshape(input, [-1]) if input.size else C.reshape_exact(input, [0])


def matrix_transpose(x: Tensor, name: str | None = None) -> Tensor:
    """x with its last two dimensions swapped (x.mT)."""
    C.tensor("matrix_transpose", "x", x)
    if x.ndim < 2:
        raise ValueError(
            f"matrix_transpose(): argument 'x' must have at least 2 dimensions, "
            f"but has shape {x.shape}"
        )
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _C.transpose(x, perm)


def unbind(input: Tensor, axis: int = 0) -> list[Tensor]:  # noqa: A002
    """The slices of input along axis, each without that axis."""
    return _unstack("unbind", "input", input, axis, None)


def view(x: Tensor, shape_or_dtype: Any, name: str | None = None) -> Tensor:
    """x's memory seen with another shape (one -1 allowed; x must be contiguous), or its
    bytes read as another dtype (the last dimension scaled by the size ratio).

    Examples:
        >>> import oar
        >>> x = oar.zeros([2, 4, 6])
        >>> print(oar.view(x, [8, -1]).shape, oar.view(x, 'uint8').shape)
        oar.Size([8, 6]) oar.Size([2, 4, 24])
    """
    C.tensor("view", "x", x)
    if isinstance(shape_or_dtype, (list, tuple, Tensor)) and not (
        isinstance(shape_or_dtype, Tensor) and shape_or_dtype.ndim == 0
    ):
        shape = _ints("view", "shape_or_dtype", shape_or_dtype)
        if not x.is_contiguous():
            raise ValueError(
                "view(): argument 'x' must be contiguous to be viewed with another "
                "shape; use reshape()"
            )
        return _C.reshape(x, shape) if x.size else C.reshape_exact(x, shape)
    try:
        d = convert_dtype(shape_or_dtype)
    except TypeError:
        raise TypeError(
            f"view(): argument 'shape_or_dtype' must be a shape or a dtype, but got "
            f"{shape_or_dtype!r}"
        ) from None
    return _C._view_dtype(x, d)


def view_as(x: Tensor, other: Tensor, name: str | None = None) -> Tensor:
    """view(x, other.shape)."""
    C.tensor("view_as", "other", other)
    return view(x, other.shape)


def tolist(x: Tensor) -> Any:
    """The elements of x as nested Python lists (a number for a 0-D x)."""
    return C.tensor("tolist", "x", x).tolist()


def multiplex(inputs: Sequence[Tensor], index: Tensor, name: str | None = None) -> Tensor:
    """Row i of the result is row i of inputs[index[i]] (inputs of one shape [M, ...],
    index [M, 1]).

    Examples:
        >>> import oar
        >>> a = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> b = oar.to_tensor([[5.0, 6.0], [7.0, 8.0]])
        >>> print(oar.multiplex([a, b], oar.to_tensor([[1], [0]])).tolist())
        [[5.0, 6.0], [3.0, 4.0]]
    """
    ts = _tensors("multiplex", inputs)
    C.tensor("multiplex", "index", index)
    for i, t in enumerate(ts):
        if t.shape != ts[0].shape or t.ndim == 0:
            raise ValueError(
                f"multiplex(): every input must have the shape {ts[0].shape} (at "
                f"least 1-D), but inputs[{i}] has {t.shape}"
            )
    m = ts[0].shape[0]
    idx = np.asarray(index, dtype=np.int64).reshape(-1)
    if idx.size != m:
        raise ValueError(
            f"multiplex(): argument 'index' must hold one entry per row ({m}), but has {idx.size}"
        )
    bad = idx[(idx < 0) | (idx >= len(ts))]
    if bad.size:
        raise IndexError(f"multiplex(): index {int(bad[0])} is out of range for {len(ts)} inputs")
    coords = np.stack([idx, np.arange(m)], -1)
    return _C.gather_nd(stack(ts, 0), _C._from_buffer(coords.astype(np.int64), int64))


def shard_index(
    input: Tensor,
    index_num: int,
    nshards: int,
    shard_id: int,  # noqa: A002
    ignore_value: int = -1,
) -> Tensor:
    """Each label of input (integers in [0, index_num)) as an index within shard shard_id
    of nshards equal shards, or ignore_value when it belongs to another shard.

    Examples:
        >>> import oar
        >>> label = oar.to_tensor([[16], [1]])
        >>> print(oar.shard_index(label, 20, 2, 0).tolist())
        [[-1], [1]]
    """
    C.tensor("shard_index", "input", input)
    if input.dtype not in (int32, int64):
        raise TypeError(
            f"shard_index(): argument 'input' must be int32 or int64, but got {input.dtype.name}"
        )
    index_num = C.integer("shard_index", "index_num", index_num)
    nshards = C.integer("shard_index", "nshards", nshards)
    shard_id = C.integer("shard_index", "shard_id", shard_id)
    ignore_value = C.integer("shard_index", "ignore_value", ignore_value)
    if nshards <= 0 or index_num <= 0:
        raise ValueError(
            f"shard_index(): 'index_num' ({index_num}) and 'nshards' ({nshards}) must be positive"
        )
    if not 0 <= shard_id < nshards:
        raise ValueError(f"shard_index(): 'shard_id' ({shard_id}) must be in [0, {nshards})")
    size = (index_num + nshards - 1) // nshards
    lab = _C.cast(input, int64)
    shard = _C.floor_divide(lab, _C.full_like(lab, size))
    local = _C.remainder(lab, _C.full_like(lab, size))
    out = _C.where(
        _C.equal(shard, _C.full_like(shard, shard_id)), local, _C.full_like(local, ignore_value)
    )
    return out if input.dtype is int64 else _C.cast(out, input.dtype)


def unique_consecutive(
    x: Tensor,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    dtype: Any = "int64",
    name: str | None = None,
) -> Any:
    """x with each run of equal consecutive elements (slices along axis; None: x
    flattened) kept once; with return_inverse the run number of every element, with
    return_counts the length of every run (in dtype).

    Examples:
        >>> import oar
        >>> out, counts = oar.unique_consecutive(oar.to_tensor([1, 1, 2, 2, 3, 1]),
        ...                                      return_counts=True)
        >>> print(out.tolist(), counts.tolist())
        [1, 2, 3, 1] [2, 2, 1, 1]
    """
    C.tensor("unique_consecutive", "x", x)
    d = convert_dtype(dtype)
    if d not in (int32, int64):
        raise TypeError(
            f"unique_consecutive(): argument 'dtype' must be int32 or int64, but got {d.name}"
        )
    if axis is None:
        lines = _C.reshape(x, [-1]) if x.size else C.reshape_exact(x, [0])
        a = 0
    else:
        if x.ndim == 0:
            raise ValueError("unique_consecutive(): a 0-D tensor has no axis")
        a = C.axis("unique_consecutive", "axis", axis, x.ndim)
        lines = x
    n = lines.shape[a]
    if lines.size == 0 and n:
        return _unique_empty_slices(lines, a, n, d, return_inverse, return_counts)
    change = np.ones(n, dtype=bool)
    if n:
        arr = np.moveaxis(np.asarray(lines), a, 0).reshape(n, -1)
        change[1:] = np.any(arr[1:] != arr[:-1], axis=1)
    starts = np.flatnonzero(change)
    out = _C.index_select(lines, _index_tensor(starts), a)
    if not (return_inverse or return_counts):
        return out
    res = [out]
    if return_inverse:
        res.append(_unique_ints(np.cumsum(change) - 1, d, counts=False))
    if return_counts:
        res.append(_unique_ints(np.diff(np.append(starts, n)), d, counts=True))
    return tuple(res)


def _past_int32(top, *, counts):
    """The error for a run number (counts False) or run length (counts True) of top that
    dtype int32 cannot hold."""
    if counts:
        return ValueError(
            f"unique_consecutive(): the run of {top} slices cannot be counted "
            f"in argument 'dtype' int32"
        )
    return ValueError(
        f"unique_consecutive(): the run number {top} cannot be held in argument 'dtype' int32"
    )


def _unique_ints(values, d, *, counts):
    """unique_consecutive's run numbers (counts False) or lengths (counts True), counted in
    int64, as a tensor of d, refusing rather than wrapping one past int32 when d is int32."""
    values = np.asarray(values, dtype=np.int64)
    top = int(values.max()) if values.size else 0
    if d is int32 and top > np.iinfo(np.int32).max:
        raise _past_int32(top, counts=counts)
    t = _C._from_buffer(values, int64)
    return t if d is int64 else _C.cast(t, d)


def _unique_empty_slices(lines, a, n, d, return_inverse, return_counts):
    """unique_consecutive of n empty slices (a 0 in another dimension): all are equal, so
    one run of length n, found without the per-slice arrays n (up to 2**62) would need."""
    out = _C.slice(lines, [a], [0], [1])
    if not (return_inverse or return_counts):
        return out
    res = [out]
    if return_inverse:
        check_fits("unique_consecutive():", f"the inverse of {n} slices", n * d.itemsize)
        res.append(_C.full([n], 0, d))
    if return_counts:
        if d is int32 and n > np.iinfo(np.int32).max:
            raise _past_int32(n, counts=True)
        res.append(_C.full([1], n, d))
    return tuple(res)


# ---- aliases --------------------------------------------------------------------------------
@_aliases({"tensors": "x", "dim": "axis"}, strict=True)
def cat(
    x: Sequence[Tensor],
    axis: int | Tensor = 0,
    name: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """Joins the tensors along axis (concat; `tensors`/`dim` are accepted for x/axis)."""
    a = C.integer("cat", "axis", axis)
    return _out.write_out(out, _C.concat(x, a), "cat")


concatenate = cat


# Paddle's swapaxes and swapdims are transpose under its transpose_decorator: this is
# the signature they show; dim0/dim1 (axis0/axis1) arrive positionally or as keywords.
_P = inspect.Parameter


_SWAP_SIGNATURE = inspect.Signature(
    [
        _P("x", _P.POSITIONAL_OR_KEYWORD, annotation="Tensor"),
        _P("perm", _P.POSITIONAL_OR_KEYWORD, annotation="Sequence[int]"),
        _P("name", _P.POSITIONAL_OR_KEYWORD, default=None, annotation="str | None"),
    ],
    return_annotation="Tensor",
)


def swapaxes(*args: Any, **kwargs: Any) -> Tensor:
    """transpose(x, perm); swapaxes(x, dim0, dim1) (keywords dim0/dim1 or axis0/axis1,
    input for x) exchanges two axes, as PyTorch's."""
    if "input" in kwargs and "x" not in kwargs:
        kwargs["x"] = kwargs.pop("input")
    d0 = kwargs.pop("dim0", kwargs.pop("axis0", None))
    d1 = kwargs.pop("dim1", kwargs.pop("axis1", None))
    if d0 is None and len(args) > 1 and isinstance(args[1], int):
        d0 = args[1]
    if d1 is None and len(args) > 2 and isinstance(args[2], int):
        d1 = args[2]
    if d0 is not None and d1 is not None:
        x = C.tensor("swapaxes", "x", kwargs["x"] if "x" in kwargs else args[0] if args else None)
        perm = list(range(x.ndim))
        d0 = C.axis("swapaxes", "dim0", d0, x.ndim)
        d1 = C.axis("swapaxes", "dim1", d1, x.ndim)
        perm[d0], perm[d1] = perm[d1], perm[d0]
        kwargs["perm"] = perm
        args = args[:1]
    try:
        bound = _SWAP_SIGNATURE.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"swapaxes(): {exc}") from None
    return _C.transpose(bound.arguments["x"], bound.arguments["perm"])


swapaxes.__signature__ = _SWAP_SIGNATURE  # type: ignore[attr-defined]


swapdims = swapaxes


def reverse(x: Tensor, axis: Sequence[int] | int, name: str | None = None) -> Tensor:
    """x with the order of its elements reversed along axis (flip)."""
    return _C.flip(x, [axis] if is_int(axis) else axis)


def view_as_complex(input: Tensor) -> Tensor:  # noqa: A002 - Paddle's name
    """The complex tensor whose last dimension of 2 holds (real, imag) (as_complex)."""
    return _C.as_complex(input)


def view_as_real(input: Tensor) -> Tensor:  # noqa: A002
    """The real tensor with a last dimension of 2 holding (real, imag) (as_real)."""
    return _C.as_real(input)
