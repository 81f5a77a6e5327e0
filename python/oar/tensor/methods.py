"""The Tensor methods written in Python, and the one place that binds them to Tensor
(bind_methods; oar.sparse and oar.signal bind theirs through it when imported). The
methods that are the functions of the other oar.tensor modules are bound here too."""

from __future__ import annotations

import enum
import functools
import math
import numbers
import warnings
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .. import _C
from ..framework import check as C
from ..framework.dlpack import _tensor_dlpack, _tensor_dlpack_device
from ..framework.dtype import (
    Place,
    bfloat16,
    bool_,
    complex64,
    complex128,
    convert_dtype,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from ..framework.param import _set_value
from ..framework.place import _to_place
from ..framework.typing import DTypeLike
from . import (
    attribute,
    creation,
    indexing,
    inplace,
    linalg,
    logic,
    manipulation,
    search,
    stat,
)
from . import math as _tmath
from .attribute import is_complex, is_floating_point, is_integer
from .conversion import __array__, _view, numpy, tolist
from .creation import diag
from .indexing import (
    __getitem__,
    __setitem__,
    index_put,
    index_put_,
    put_along_axis,
    put_along_axis_,
)
from .inplace import _write
from .linalg import (
    bincount,
    bmm,
    cholesky_solve,
    cond,
    corrcoef,
    cov,
    cross,
    dot,
    eigvalsh,
    histogram,
    lstsq,
    lu,
    lu_unpack,
    matrix_power,
    multi_dot,
    norm,
    pinv,
    qr,
    slogdet,
    solve,
    t,
)
from .logic import is_tensor
from .manipulation import (
    broadcast_tensors,
    broadcast_to,
    chunk,
    expand_as,
    flatten,
    masked_fill,
    masked_fill_,
    moveaxis,
    permute,
    repeat_interleave,
    rot90,
    split,
    stack,
    tile,
    unflatten,
    unfold,
    unique,
    unstack,
)
from .math import (
    clip,
    clip_,
    cummax,
    cummin,
    kron,
    lerp,
    lerp_,
    nan_to_num,
    nan_to_num_,
    outer,
    pow,
    trace,
)
from .random import (
    bernoulli,
    bernoulli_,
    cauchy_,
    exponential_,
    geometric_,
    log_normal_,
    normal_,
    random_,
    uniform_,
)
from .search import kthvalue, mode, sort, topk, where
from .stat import median
from .to_string import __format__, __repr__

Tensor = _C.Tensor


def bind_methods(methods: Any, *, keep_existing: Any = False) -> None:
    """Sets the methods (name -> function, property or value) on Tensor: the one place
    Python code adds to Tensor (oar.sparse and oar.signal bind theirs through it when
    they are imported). keep_existing leaves a name Tensor already has (a C method)."""
    for name, fn in methods.items():
        if keep_existing and hasattr(Tensor, name):
            continue
        setattr(Tensor, name, fn)


__all__ = ["bind_methods"]


_item = Tensor.item


def item(self: Tensor, *args: int) -> Any:
    """The element as a Python scalar (bool, int, float or complex, by the dtype): the
    only one, or the one at flat index ``item(i)`` or at ``item(i, j, ...)`` (one index
    per dimension)."""
    if not args:
        return _item(self)
    try:
        return __array__(self).item(*args)
    except (IndexError, ValueError, TypeError) as e:
        raise type(e)(f"Tensor.item(): {e} (the tensor has shape {list(self.shape)})") from None


def _numel(self: Tensor) -> Tensor:
    """The number of elements, as a 0-D int64 tensor (Paddle's Tensor.numel())."""
    return _C._from_buffer(np.asarray(self.size, dtype=np.int64), int64)


def __iter__(self: Tensor) -> Iterator[Tensor]:
    if self.ndim == 0:
        raise TypeError("iteration over a 0-D tensor")
    for i in range(self.shape[0]):
        yield self[i]


def _t(self: Tensor) -> Tensor:
    return _C.transpose(self, list(range(self.ndim))[::-1])


def _pow_method(self: Tensor, y: float | Tensor, name: str | None = None) -> Tensor:
    return pow(self, y)


def _astype(self: Tensor, dtype: DTypeLike) -> Tensor:
    try:
        d = convert_dtype(dtype)
    except TypeError as e:
        raise TypeError(f"astype(): argument 'dtype': {e}") from None
    return _C.cast(self, d)


def _cpu(self: Tensor) -> Tensor:
    return self


_PLACES = {"Place(cpu)": Place("cpu")}


_place_name = Tensor.place  # the C getter: "Place(cpu)", "Place(gpu:0)"


def _place(self: Tensor) -> Place:
    name = _place_name.__get__(self)
    p = _PLACES.get(name)
    if p is None:
        kind, _, dev = name[6:-1].partition(":")
        p = _PLACES[name] = Place(kind, int(dev or 0))
    return p


_PATCHES = {
    "numpy": numpy,
    "__array__": __array__,
    "tolist": tolist,
    "__repr__": __repr__,
    "__str__": __repr__,
    "__format__": __format__,
    "__getitem__": __getitem__,
    "__setitem__": __setitem__,
    "__iter__": __iter__,
    "pow": _pow_method,
    "astype": _astype,
    "cpu": _cpu,
    "T": property(_t),
    "__array_priority__": 100,
    "place": property(_place),
    "item": item,
    "numel": _numel,
}


bind_methods(_PATCHES)


def _is_complex(self: Tensor) -> bool:
    return is_complex(self)


def _is_floating_point(self: Tensor) -> bool:
    return is_floating_point(self)


def _is_integer(self: Tensor) -> bool:
    return is_integer(self)


bind_methods(
    {"is_complex": _is_complex, "is_floating_point": _is_floating_point, "is_integer": _is_integer}
)


# --- Tensor methods (Paddle's) -------------------------------------------------------------


def _install_methods():
    methods = {
        "flatten": flatten,
        "unflatten": unflatten,
        "split": split,
        "chunk": chunk,
        "unstack": unstack,
        "tile": tile,
        "repeat_interleave": repeat_interleave,
        "rot90": rot90,
        "moveaxis": moveaxis,
        "broadcast_to": broadcast_to,
        "expand_as": expand_as,
        "diag": diag,
        "trace": trace,
        "bmm": bmm,
        "outer": outer,
        "kron": kron,
        "cross": cross,
        "dot": dot,
        "t": t,
        "unfold": unfold,
    }
    bind_methods(methods, keep_existing=True)


_install_methods()


# Tensor methods: Paddle's signatures with the tensor as self.
def _put_along_axis_method(
    self: Tensor,
    indices: Tensor,
    values: float | Tensor,
    axis: int,
    reduce: str = "assign",
    include_self: bool = True,
    broadcast: bool = True,
    name: str | None = None,
) -> Tensor:
    return put_along_axis(self, indices, values, axis, reduce, include_self, broadcast)


def _put_along_axis_method_(
    self: Tensor,
    indices: Tensor,
    values: float | Tensor,
    axis: int,
    reduce: str = "assign",
    include_self: bool = True,
    broadcast: bool = True,
    name: str | None = None,
) -> Tensor:
    return put_along_axis_(self, indices, values, axis, reduce, include_self, broadcast)


def _index_put_method(
    self: Tensor,
    indices: Sequence[Tensor],
    value: float | Tensor,
    accumulate: bool = False,
    name: str | None = None,
) -> Tensor:
    return index_put(self, indices, value, accumulate)


def _index_put_method_(
    self: Tensor,
    indices: Sequence[Tensor],
    value: float | Tensor,
    accumulate: bool = False,
    name: str | None = None,
) -> Tensor:
    return index_put_(self, indices, value, accumulate)


bind_methods(
    {
        "put_along_axis": _put_along_axis_method,
        "put_along_axis_": _put_along_axis_method_,
        "index_put": _index_put_method,
        "index_put_": _index_put_method_,
    }
)


# ---- operators ------------------------------------------------------------------------
def _scalar_kind(v):
    if isinstance(v, (bool,)) or type(v).__name__ == "bool_":
        return "bool"
    if isinstance(v, numbers.Integral):
        return "int"
    if isinstance(v, numbers.Real):
        return "float"
    return None


def _operands(x, other):
    """(x, other) as tensors, or None when other is neither a Tensor nor a real number.
    With a Python number, the dtype is Paddle's (as for + - * /): a float tensor keeps
    its dtype, a float number makes an integer or bool tensor float32, an int number
    makes a bool tensor int64."""
    if isinstance(other, Tensor):
        return x, other
    kind = _scalar_kind(other)
    if kind is None:
        return None
    dt = x.dtype
    if not dt.is_floating_point:
        if kind == "float":
            dt = float32
        elif dt is bool_ and kind == "int":
            dt = int64
    xc = x if dt is x.dtype else _C.cast(x, dt)
    return xc, _C.full([], other, dt)


def _binary(op, reflected=False):
    def method(self: Tensor, other: Tensor | float) -> Tensor:
        pair = _operands(self, other)
        if pair is None:
            return NotImplemented
        a, b = pair
        return op(b, a) if reflected else op(a, b)

    return method


def _inplace(op_, name):
    def method(self: Tensor, other: Tensor | float) -> Tensor:
        pair = _operands(self, other)
        if pair is None:
            return NotImplemented
        a, b = pair
        if a is not self:
            raise TypeError(
                f"{name}: the result of dtype {a.dtype.name} cannot be written in "
                f"place into a tensor of dtype {self.dtype.name}"
            )
        return op_(self, b)

    return method


def _invert(self: Tensor) -> Tensor:
    return _C.bitwise_not(self)


_OPERATORS = {
    "__floordiv__": _binary(_C.floor_divide),
    "__rfloordiv__": _binary(_C.floor_divide, True),
    "__ifloordiv__": _inplace(_C.floor_divide_, "//="),
    "__mod__": _binary(_C.remainder),
    "__rmod__": _binary(_C.remainder, True),
    "__imod__": _inplace(_C.remainder_, "%="),
    "__and__": _binary(_C.bitwise_and),
    "__rand__": _binary(_C.bitwise_and, True),
    "__iand__": _inplace(_C.bitwise_and_, "&="),
    "__or__": _binary(_C.bitwise_or),
    "__ror__": _binary(_C.bitwise_or, True),
    "__ior__": _inplace(_C.bitwise_or_, "|="),
    "__xor__": _binary(_C.bitwise_xor),
    "__rxor__": _binary(_C.bitwise_xor, True),
    "__ixor__": _inplace(_C.bitwise_xor_, "^="),
    "__invert__": _invert,
}


# The Tensor methods: the functions with x as self (Tensor methods name it self).
def _clip_method(
    self: Tensor,
    min: float | Tensor | None = None,  # noqa: A002
    max: float | Tensor | None = None,  # noqa: A002
    name: str | None = None,
) -> Tensor:
    return clip(self, min, max)


def _clip__method(
    self: Tensor,
    min: float | Tensor | None = None,  # noqa: A002
    max: float | Tensor | None = None,  # noqa: A002
    name: str | None = None,
) -> Tensor:
    return clip_(self, min, max)


def _nan_to_num_method(
    self: Tensor,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
    name: str | None = None,
) -> Tensor:
    return nan_to_num(self, nan, posinf, neginf)


def _nan_to_num__method(
    self: Tensor,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
    name: str | None = None,
) -> Tensor:
    return nan_to_num_(self, nan, posinf, neginf)


def _lerp_method(
    self: Tensor, y: Tensor, weight: float | Tensor, name: str | None = None
) -> Tensor:
    return lerp(self, y, weight)


def _lerp__method(
    self: Tensor, y: Tensor, weight: float | Tensor, name: str | None = None
) -> Tensor:
    return lerp_(self, y, weight)


def _masked_fill_method(
    self: Tensor, mask: Tensor, value: float | Tensor, name: str | None = None
) -> Tensor:
    return masked_fill(self, mask, value)


def _masked_fill__method(
    self: Tensor, mask: Tensor, value: float | Tensor, name: str | None = None
) -> Tensor:
    return masked_fill_(self, mask, value)


_WRAPPER_METHODS: dict[str, Any] = {}


for _f in (
    _clip_method,
    _clip__method,
    _nan_to_num_method,
    _nan_to_num__method,
    _lerp_method,
    _lerp__method,
    _masked_fill_method,
    _masked_fill__method,
):
    _name = _f.__name__[1 : -len("_method")]
    _f.__name__ = _f.__qualname__ = _name
    _f.__doc__ = getattr(Tensor, _name).__doc__  # the generated method's docstring
    _WRAPPER_METHODS[_name] = _f


bind_methods({**_OPERATORS, **_WRAPPER_METHODS})


_STAT_METHODS: dict[str, Any] = {
    "topk": topk,
    "sort": sort,
    "kthvalue": kthvalue,
    "mode": mode,
    "median": median,
    "unique": unique,
    "bincount": bincount,
    "histogram": histogram,
    "cummax": cummax,
    "cummin": cummin,
    "norm": norm,
    "bernoulli": bernoulli,
}


bind_methods(_STAT_METHODS)


# Paddle's Tensor methods for these (Tensor.inverse and Tensor.cholesky are the ops').
_LINALG_METHODS: dict[str, Any] = {
    "slogdet": slogdet,
    "qr": qr,
    "pinv": pinv,
    "lstsq": lstsq,
    "matrix_power": matrix_power,
    "cov": cov,
    "corrcoef": corrcoef,
    "cholesky_solve": cholesky_solve,
    "lu": lu,
    "lu_unpack": lu_unpack,
    "multi_dot": multi_dot,
    "cond": cond,
    "solve": solve,
    "eigvalsh": eigvalsh,
}
bind_methods(_LINALG_METHODS)


def zero_(self: Tensor) -> Tensor:
    """Sets every element to 0, in place."""
    return _write(self, _C.full_like(self, 0))


# ---- diagonal fills -------------------------------------------------------------------------
def _diagonal_mask(shape, offset, wrap):
    """Paddle's fill_diagonal_ positions: every (C + 1)-th element of the flattened matrix
    (the sum of the strides for an N-D cube), up to C*C elements unless wrap, each moved
    by offset within its row."""
    numel = math.prod(shape)
    if len(shape) == 2:
        cols = shape[1]
        step = cols + 1
        end = numel if wrap else min(numel, cols * cols)
    else:
        if len(set(shape)) != 1:
            raise ValueError(
                f"Tensor.fill_diagonal_(): a tensor of more than 2 dimensions must "
                f"have equal dimensions, but got {shape}"
            )
        cols = shape[-1]
        step = sum(cols**k for k in range(len(shape)))
        end = numel
    m = np.zeros(numel, dtype=bool)
    for i in range(0, end, step):
        j = i % cols + offset
        if 0 <= j < cols and i + offset < numel:
            m[i + offset] = True
    return m.reshape(shape)


def fill_diagonal_(
    self: Tensor, value: float, offset: int = 0, wrap: bool = False, name: str | None = None
) -> Tensor:
    """Fills the diagonal (shifted by offset; wrapping around for tall matrices with wrap)
    with value, in place. The tensor must be 2-D, or N-D with equal dimensions."""
    if self.ndim < 2:
        raise ValueError(
            f"Tensor.fill_diagonal_(): the tensor must have at least 2 dimensions, "
            f"but has shape {self.shape}"
        )
    off = C.integer("fill_diagonal_", "offset", offset)
    v = C.number("fill_diagonal_", "value", value)
    mask = _C._from_buffer(_diagonal_mask(self.shape, off, bool(wrap)), bool_)
    return _write(self, _C.where(mask, _C.full_like(self, v), self))


def fill_diagonal_tensor(
    self: Tensor, y: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1, name: str | None = None
) -> Tensor:
    """The tensor with its diagonal (offset, dim1, dim2) replaced by y."""
    return indexing.diagonal_scatter(self, y, offset, dim1, dim2)


def fill_diagonal_tensor_(
    self: Tensor, y: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1, name: str | None = None
) -> Tensor:
    """fill_diagonal_tensor, in place."""
    return _write(self, indexing.diagonal_scatter(self, y, offset, dim1, dim2))


# ---- conversion -----------------------------------------------------------------------------
_BLOCKING = ("blocking", "non_blocking")


def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """The tensor converted: to(dtype), to(device, dtype=None), to(other) (other's dtype);
    blocking is accepted. The device must be the CPU. The tensor itself is returned when
    nothing changes, else a converted copy (differentiable)."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    for k in _BLOCKING + ("copy",):
        kwargs.pop(k, None)
    if kwargs:
        raise TypeError(f"Tensor.to(): unexpected keyword arguments {sorted(kwargs)}")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        dtype = dtype or rest.pop(0).dtype
    while rest:
        a = rest.pop(0)
        if isinstance(a, bool) or a is None:
            continue  # blocking
        try:
            d = convert_dtype(a)
        except TypeError:
            d = None
        if d is not None and dtype is None and not (isinstance(a, str) and ":" in a):
            dtype = d
        elif device is None:
            device = a
        else:
            raise TypeError(f"Tensor.to(): cannot read argument {a!r}")
    if device is not None:
        _to_place(device, "Tensor.to")
    if dtype is None:
        return self
    d = convert_dtype(dtype)
    return self if d is self.dtype else _C.cast(self, d)


def apply(self: Tensor, func: Callable[[Tensor], Tensor]) -> Tensor:
    """func(tensor), for a tensor that does not require grad (a Python function applied
    outside autograd)."""
    if not self.stop_gradient:
        raise RuntimeError("Tensor.apply(): cannot apply a function to a tensor that requires grad")
    out = func(self)
    if not isinstance(out, Tensor):
        raise TypeError(
            f"Tensor.apply(): the function must return a Tensor, but returned {type(out).__name__}"
        )
    return out


def apply_(self: Tensor, func: Callable[[Tensor], Tensor]) -> Tensor:
    """Tensor.apply, with the result written into the tensor (same shape), in place."""
    out = apply(self, func)
    if out.shape != self.shape:
        raise ValueError(
            f"Tensor.apply_(): the function returned shape {out.shape}, the tensor has {self.shape}"
        )
    return _write(self, out)


# ---- memory layout --------------------------------------------------------------------------
def _meta(self):
    return _C._tensor_meta(self)


def get_strides(self: Tensor) -> list[int]:
    """The strides in elements, one per dimension."""
    return _meta(self)[0]


def stride(self: Tensor, dim: int | None = None) -> Any:
    """The strides in elements (or the stride of dimension dim)."""
    s = _meta(self)[0]
    if dim is None:
        return s
    return s[C.axis("stride", "dim", dim, max(self.ndim, 1))]


def _offset(self) -> int:
    return _meta(self)[1] * self.element_size()


def _layout(self) -> str:
    return _meta(self)[2]


def _is_shared_buffer_with(self, other: Tensor) -> bool:
    """Whether both tensors use the same memory block."""

    def base(t):
        strides, off, _, _ = _C._tensor_meta(t)
        return t.data_ptr() - off * t.element_size()

    return isinstance(other, Tensor) and base(self) == base(other)


def _get_data(self) -> Tensor:
    return self.detach()


def _set_data(self, value: Tensor) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"Tensor.data must be set to a Tensor, but got {type(value).__name__}")
    _C._set_tensor_impl(self, value)


def set_(
    self: Tensor,
    source: Tensor | None = None,
    shape: Sequence[int] | None = None,
    stride: Sequence[int] | None = None,
    offset: int = 0,
    name: str | None = None,
) -> Tensor:
    """The tensor made to use source's memory (None: an empty tensor of its dtype), with
    shape (default: source's), stride (default: contiguous for shape, or source's) and
    offset (in bytes, from source's first element), in place."""
    if source is None:
        _C._set_tensor_impl(self, _C.full([0], 0, self.dtype))
        return self
    C.tensor("set_", "source", source)
    if source.dtype is not self.dtype:
        raise TypeError(
            f"Tensor.set_(): the source's dtype {source.dtype.name} differs from "
            f"the tensor's {self.dtype.name}"
        )
    sizes = source.shape if shape is None else manipulation._ints("set_", "shape", shape)
    if stride is None:
        strides = (
            get_strides(source)
            if shape is None
            else [math.prod(sizes[i + 1 :]) for i in range(len(sizes))]
        )
    else:
        strides = manipulation._ints("set_", "stride", stride)
    off = C.integer("set_", "offset", offset)
    item = source.element_size()
    if off < 0 or off % item:
        raise ValueError(
            f"Tensor.set_(): argument 'offset' ({off} bytes) must be a "
            f"non-negative multiple of the element size {item}"
        )
    start = _C._tensor_meta(source)[1] + off // item
    _C._set_tensor_impl(self, _C._strided_view(source, sizes, strides, start))
    return self


def resize_(
    self: Tensor, shape: Sequence[int], fill_zero: bool = False, name: str | None = None
) -> Tensor:
    """The tensor given a new shape in place, keeping its leading elements (row-major); new
    elements are zeros (with or without fill_zero)."""
    sizes = manipulation._ints("resize_", "shape", shape)
    if any(s < 0 for s in sizes):
        raise ValueError(f"Tensor.resize_(): argument 'shape' {sizes} has a negative size")
    n = math.prod(sizes)
    flat = _view(self).reshape(-1)
    data = np.zeros(n, dtype=flat.dtype)
    k = min(n, flat.size)
    data[:k] = flat[:k]
    _C._set_tensor_impl(self, _C._from_buffer(data.reshape(sizes), self.dtype))
    return self


def reconstruct_from_(self: Tensor, other: Tensor) -> None:
    """The tensor made to use other's memory, shape and dtype, and its stop_gradient
    (returns None, as Paddle)."""
    C.tensor("reconstruct_from_", "other", other)
    _C._set_tensor_impl(self, other)
    self.stop_gradient = other.stop_gradient


class _DenseTensor:
    """What get_tensor() returns: the tensor's data without its autograd metadata, printed
    as Paddle prints a DenseTensor."""

    def __init__(self, t):
        self._t = t

    def shape(self) -> list[int]:
        return self._t.shape

    def _dtype(self):
        return self._t.dtype

    def numpy(self) -> np.ndarray:
        return self._t.numpy()

    def __array__(self, dtype=None, copy=None):
        return self._t.__array__(dtype, copy)

    def __str__(self) -> str:
        t = self._t
        data = _view(t).reshape(-1)
        return (
            f"  - shape: {t.shape}\n  - layout: {_layout(t)}\n  - place: {t.place}\n"
            f"  - dtype: {t.dtype.name}\n  - data: [{' '.join(str(v) for v in data.tolist())}]"
        )

    __repr__ = __str__


def get_tensor(self: Tensor) -> _DenseTensor:
    """The tensor's data as a plain dense tensor (no autograd)."""
    return _DenseTensor(self.detach())


class VarType(enum.Enum):
    """Paddle's variable types; every oar tensor is a dense tensor."""

    DENSE_TENSOR = 7


# ---- new_* creators -------------------------------------------------------------------------
def _size(api, size):
    if len(size) == 1 and isinstance(size[0], (list, tuple, Tensor)):
        size = size[0]
    return manipulation._ints(api, "size", list(size) if not isinstance(size, Tensor) else size)


def _new(self, api, size, value, dtype, device, requires_grad):
    if device is not None:
        _to_place(device, f"Tensor.{api}")
    d = self.dtype if dtype is None else convert_dtype(dtype)
    out = _C.full(size, value, d)
    out.stop_gradient = not requires_grad
    return out


def new_empty(
    self: Tensor,
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor of the given size, with this tensor's dtype unless given (zeros)."""
    return _new(self, "new_empty", _size("new_empty", size), 0, dtype, device, requires_grad)


def new_zeros(
    self: Tensor,
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor of zeros of the given size, with this tensor's dtype unless given."""
    return _new(self, "new_zeros", _size("new_zeros", size), 0, dtype, device, requires_grad)


def new_ones(
    self: Tensor,
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor of ones of the given size, with this tensor's dtype unless given."""
    return _new(self, "new_ones", _size("new_ones", size), 1, dtype, device, requires_grad)


def new_full(
    self: Tensor,
    size: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor of the given size filled with fill_value, with this tensor's dtype
    unless given."""
    v = C.number("new_full", "fill_value", fill_value)
    return _new(self, "new_full", _size("new_full", (size,)), v, dtype, device, requires_grad)


# ---- small methods --------------------------------------------------------------------------
def gradient(self: Tensor) -> Any:
    """The gradient as a numpy array, or None when there is none. A sparse gradient (an
    Embedding's with sparse=True) comes as Paddle gives its row-sparse one: the tuple
    (values of the stored rows, their row numbers), coalesced."""
    g = self.grad
    if g is None:
        return None
    if g.is_sparse_coo() and g.sparse_dim() == 1:
        g = g.coalesce()
        return g.values().numpy(), g.indices().numpy()[0]
    if g.is_sparse():
        g = g.to_dense()
    return g.numpy()


def _requires_grad(self) -> bool:
    return not self.stop_gradient


def _set_requires_grad(self, value: bool) -> None:
    self.stop_gradient = not bool(value)


def repeat(self: Tensor, *repeats: Any) -> Tensor:
    """The tensor repeated repeats[i] times along dimension i (PyTorch's repeat: oar.tile);
    repeats as one list or as several ints."""
    if len(repeats) == 1 and isinstance(repeats[0], (list, tuple, Tensor)):
        reps = repeats[0]
    else:
        reps = list(repeats)
    return tile(self, reps)


def split_with_sizes(self: Tensor, split_sizes: list[int], dim: int = 0) -> list[Tensor]:
    """The tensor split along dim into parts of the given sizes (summing to its length)."""
    sizes = manipulation._ints("split_with_sizes", "split_sizes", split_sizes)
    if self.ndim == 0:
        raise ValueError("Tensor.split_with_sizes(): a 0-D tensor cannot be split")
    a = C.axis("split_with_sizes", "dim", dim, self.ndim)
    if sum(sizes) != self.shape[a] or any(s < 0 for s in sizes):
        raise ValueError(
            f"Tensor.split_with_sizes(): the sizes {sizes} must be >= 0 and sum to "
            f"the length {self.shape[a]} of dimension {a}"
        )
    return split(self, sizes, a)


def is_dist(self: Tensor) -> bool:
    """False: oar tensors are not distributed tensors."""
    return False


def _mT(self) -> Tensor:  # noqa: N802 - Paddle's name
    return manipulation.matrix_transpose(self)


# ---- Paddle's dtype conversions -------------------------------------------------------------
def _astype_to(self, d):
    """self cast to d (differentiable), or self itself when it has that dtype already, as
    Paddle's astype answers."""
    return self if self.dtype is d else _C.cast(self, d)


def _conversion(method, d):
    def convert(self: Tensor) -> Tensor:
        return _astype_to(self, d)

    convert.__name__ = method
    convert.__qualname__ = f"Tensor.{method}"
    convert.__doc__ = (
        f"The tensor cast to {d.name}, or the tensor itself when it is {d.name} already."
    )
    return convert


# Paddle's names for them (PyTorch's, and the dtypes' own); byte and uint8 below.
_CONVERSIONS = {
    "float": float32,
    "float32": float32,
    "double": float64,
    "float64": float64,
    "half": float16,
    "float16": float16,
    "bfloat16": bfloat16,
    "char": int8,
    "int8": int8,
    "short": int16,
    "int16": int16,
    "int": int32,
    "int32": int32,
    "long": int64,
    "int64": int64,
    "bool": bool_,
    "cfloat": complex64,
    "complex64": complex64,
    "cdouble": complex128,
    "complex128": complex128,
}


def byte(self: Tensor) -> Tensor:
    """The tensor cast to uint8, or the tensor itself when it is uint8 already. Floating
    values go through int8 and complex ones lose their imaginary part (with a warning),
    the route Paddle's byte() takes, so out-of-range values wrap as Paddle's do."""
    if self.dtype is uint8:
        return self
    t = self
    if t.dtype.is_complex:
        warnings.warn(
            "Tensor.byte(): casting complex values to real discards the imaginary part",
            stacklevel=2,
        )
        t = _C.real(t)
    if t.dtype.is_floating_point:
        t = _C.cast(t, int8)
    return _C.cast(t, uint8)


def type_as(self: Tensor, other: Tensor) -> Tensor:
    """The tensor cast to other's dtype, or the tensor itself when the dtypes agree."""
    C.tensor("type_as", "other", other)
    return _astype_to(self, other.dtype)


# ---- autograd, copies and devices -----------------------------------------------------------
def requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    """Sets whether the tensor requires grad (stop_gradient = not requires_grad); returns
    the tensor."""
    if not isinstance(requires_grad, bool):
        raise TypeError(
            f"Tensor.requires_grad_(): argument 'requires_grad' must be a bool, "
            f"but got {type(requires_grad).__name__}"
        )
    self.stop_gradient = not requires_grad
    return self


def _get_grad(self: Tensor) -> Tensor | None:
    return self.grad


def _set_grad(self: Tensor, value: Tensor | None) -> None:
    self.grad = value


def _copied(x, other):
    # other itself is written into x, unless it shares x's memory: then its values must
    # be taken before the write overwrites them.
    return _C.assign(other) if other._is_shared_buffer_with(x) else other


def copy_(self: Tensor, other: Tensor, blocking: bool = True, non_blocking: bool = False) -> Tensor:
    """other's values written into the tensor, which takes other's shape as in Paddle;
    the dtypes must agree. blocking and non_blocking are accepted (the CPU copies at
    once). oar's in-place rules hold (where Paddle copies outside autograd): the version
    is bumped, a leaf that requires grad is refused while grad mode is on, and the
    gradient flows through the write to other."""
    C.tensor("copy_", "other", other)
    if other.dtype is not self.dtype:
        raise TypeError(
            f"Tensor.copy_(): the tensor has dtype {self.dtype.name} and 'other' "
            f"{other.dtype.name}; a copy needs equal dtypes (cast one first)"
        )
    return inplace._in_place("copy_", self, _copied, other, copy_input=False)


def set_value(self: Tensor, value: Any) -> None:
    """Sets the tensor's values from value (a Tensor or an array of the tensor's shape,
    cast to its dtype) without recording a gradient, so a leaf that requires grad (a
    parameter) can be set; returns None, as Paddle."""
    _set_value(self, value)


def ndimension(self: Tensor) -> int:
    """The number of dimensions (ndim)."""
    return self.ndim


def get_device(self: Tensor) -> int:
    """The device id of the tensor: -1, a CPU tensor's (GPU tensors give their GPU's)."""
    return -1


def value(self: Tensor) -> Tensor:
    """The tensor itself (Paddle's value() of a dense tensor)."""
    return self


def pin_memory(self: Tensor, blocking: bool = True) -> Tensor:
    """Raises, as Paddle's CPU build does: pinned memory is page-locked host memory for
    copies to a GPU (oar.CUDAPinnedPlace() and pin_memory=True refuse it the same way)."""
    raise ValueError(
        "Tensor.pin_memory(): pinned memory is for copies to a GPU, and oar is "
        "built for the CPU only"
    )


def cuda(self: Tensor, device_id: int | None = None, blocking: bool = True) -> Tensor:
    """Raises, as Paddle's CPU build does ("No available device found."): oar has no GPU,
    so a tensor cannot be copied to one; oar.device.cuda.device_count() is 0."""
    raise ValueError(
        "Tensor.cuda(): no available device found: oar is built for the CPU "
        "only (oar.device.cuda.device_count() is 0)"
    )


def _as_method(fn):
    """A C function as a method: as a class attribute it would not receive the tensor.
    The signature shown is the function's (through __wrapped__)."""

    @functools.wraps(fn)
    def method(*args, **kwargs):
        return fn(*args, **kwargs)

    return method


# ---- installation ---------------------------------------------------------------------------
# The functions Paddle also has as Tensor methods, with the tensor as self: the first argument
# is the tensor, whatever it means to the function (where's condition, stack's list of
# tensors: a tensor there raises, in Paddle as here; add_n's and block_diag's inputs).
_FUNCTION_METHODS = {
    _tmath: (
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
        "mul",
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
        "nanmean",
        "nansum",
        "reduce_as",
        "floor_mod",
        "mod",
        "fmax",
        "fmin",
        "combinations",
        "add_n",
        "clamp",
        "div",
        "sub",
        "true_divide",
    ),
    creation: ("polar", "diagflat"),
    linalg: (
        "mv",
        "tensordot",
        "cdist",
        "dist",
        "histogram_bin_edges",
        "histogramdd",
        "cholesky_inverse",
        "eig",
        "eigvals",
        "householder_product",
        "ormqr",
        "pca_lowrank",
        "svd_lowrank",
    ),
    stat: ("quantile", "nanquantile", "nanmedian", "mean", "var", "std"),
    attribute: ("rank",),
    logic: (
        "is_empty",
        "gt",
        "ge",
        "lt",
        "le",
        "eq",
        "ne",
        "greater",
        "less",
        "bitwise_invert",
        "isin",
    ),
    search: ("bucketize", "msort", "index_sample", "argwhere"),
    manipulation: (
        "tensor_split",
        "hsplit",
        "vsplit",
        "dsplit",
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
        "narrow",
        "ravel",
        "matrix_transpose",
        "unbind",
        "shard_index",
        "unique_consecutive",
        "view",
        "view_as",
        "broadcast_shape",
        "broadcast_shapes",
        "block_diag",
        "multiplex",
        "swapaxes",
        "swapdims",
        "reverse",
        "view_as_complex",
        "view_as_real",
    ),
    indexing: (
        "take",
        "index_fill",
        "masked_scatter",
        "select_scatter",
        "slice_scatter",
        "diagonal_scatter",
        "scatter_add",
        "scatter_reduce",
        "take_along_dim",
    ),
    inplace: (
        "abs_",
        "neg_",
        "pow_",
        "gammaln_",
        "logit_",
        "frac_",
        "sinc_",
        "polygamma_",
        "multigammaln_",
        "floor_",
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
        "cast_",
        "flatten_",
        "reshape_",
        "squeeze_",
        "unsqueeze_",
        "transpose_",
        "t_",
        "mul_",
        "clamp_",
    ),
}


def _itemsize(self: Tensor) -> int:
    return self.element_size()


def _type(self: Tensor) -> VarType:
    return VarType.DENSE_TENSOR


def _device(self: Tensor) -> str:
    return "cpu"


def _is_cuda(self: Tensor) -> bool:
    return False


_METHODS: dict[str, Any] = {
    "normal_": normal_,
    "uniform_": uniform_,
    "exponential_": exponential_,
    "cauchy_": cauchy_,
    "geometric_": geometric_,
    "log_normal_": log_normal_,
    "random_": random_,
    "bernoulli_": bernoulli_,
    "zero_": zero_,
    "fill_diagonal_": fill_diagonal_,
    "fill_diagonal_tensor": fill_diagonal_tensor,
    "fill_diagonal_tensor_": fill_diagonal_tensor_,
    "to": to,
    "apply": apply,
    "apply_": apply_,
    "get_strides": get_strides,
    "stride": stride,
    "set_": set_,
    "resize_": resize_,
    "reconstruct_from_": reconstruct_from_,
    "get_tensor": get_tensor,
    "new_empty": new_empty,
    "new_zeros": new_zeros,
    "new_ones": new_ones,
    "new_full": new_full,
    "gradient": gradient,
    "repeat": repeat,
    "split_with_sizes": split_with_sizes,
    "is_dist": is_dist,
    "permute": permute,
    "_is_shared_buffer_with": _is_shared_buffer_with,
    "__dlpack__": _tensor_dlpack,
    "__dlpack_device__": _tensor_dlpack_device,
    "strides": property(get_strides, doc="The strides in elements, one per dimension."),
    "offset": property(
        _offset, doc="The offset of the first element in its memory block, in bytes."
    ),
    "layout": property(_layout, doc="The data layout, 'NCHW' for dense tensors."),
    "itemsize": property(_itemsize, doc="Bytes per element."),
    "data": property(
        _get_data,
        _set_data,
        doc="The tensor's data (detached); setting it makes "
        "the tensor use another tensor's memory.",
    ),
    "requires_grad": property(
        _requires_grad, _set_requires_grad, doc="not stop_gradient (PyTorch's name)."
    ),
    "mT": property(_mT, doc="The tensor with its last two dimensions swapped."),
    "type": property(_type, doc="VarType.DENSE_TENSOR."),
    "device": property(_device, doc="The device the tensor lives on: 'cpu'."),
}


_METHODS.update(
    {
        "byte": byte,
        "uint8": byte,
        "type_as": type_as,
        "requires_grad_": requires_grad_,
        "copy_": copy_,
        "set_value": set_value,
        "ndimension": ndimension,
        "get_device": get_device,
        "value": value,
        "pin_memory": pin_memory,
        "cuda": cuda,
        "is_tensor": is_tensor,
        "where": where,
        "stack": stack,
        "broadcast_tensors": broadcast_tensors,
        "atan2": _as_method(_C.atan2),
        "concat": _as_method(_C.concat),
        "multinomial": _as_method(_C.multinomial),
        "scatter_nd": _as_method(_C.scatter_nd),
        "is_cuda": property(_is_cuda, doc="False: oar tensors live on the CPU."),
        "grad_": property(_get_grad, _set_grad, doc="The gradient (grad, by Paddle's other name)."),
    }
)


_METHODS.update({_k: _conversion(_k, _d) for _k, _d in _CONVERSIONS.items()})


for _module, _names in _FUNCTION_METHODS.items():
    for _name in _names:
        _METHODS.setdefault(_name, getattr(_module, _name))
bind_methods(_METHODS)
