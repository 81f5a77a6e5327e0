"""Paddle's Tensor methods and attributes beyond the generated op methods: the functions
of _math_extra.py and _manip_extra.py as methods; conversion (to, apply, the dtype
conversions float(), long(), byte(), ..., type_as); random fills in place (normal_,
uniform_, exponential_, cauchy_, geometric_, log_normal_, random_, bernoulli_, zero_);
diagonal fills; the memory layout (strides, offset, layout, itemsize, data, set_, resize_,
reconstruct_from_); new_* creators; gradient(), requires_grad, requires_grad_, grad_, mT,
item(*index), copy_, set_value, DLPack; and, as Paddle binds them, the top-level functions
(the aliases and in-place functions of _paddle_aliases.py / _paddle_inplace.py, add_n,
where, stack, ...) and those of oar.linalg and oar.signal whose first argument is a tensor.

In-place fills write through set_value_with_tensor_, so they bump the inplace version and
refuse leaves that require grad, as every in-place op does. The in-place functions bound
as methods are the top-level ones, under the same rules (_paddle_inplace.py).
"""
from __future__ import annotations

import enum
import functools
import math
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from . import _C
from .framework import check as C
from . import _framework_extra as F
from . import _manip_extra as M
from . import _math_extra as X
from . import _paddle_aliases as A
from . import _paddle_inplace as P
from . import linalg, signal
from .framework.dtype import (bfloat16, bool_, complex64, complex128, convert_dtype, float16,
                              float32, float64, int8, int16, int32, int64, uint8)
from ._manipulation import broadcast_tensors
from ._ops import stack, where
from .framework.param import _set_value

Tensor = _C.Tensor


def _write(self, new):
    """new (same shape) written into self in place, cast to self's dtype."""
    if new.dtype is not self.dtype:
        new = _C.cast(new, self.dtype)
    _C.set_value_with_tensor_(self, new, [], [], [], [])
    return self


def _float_self(api, self):
    if not self.dtype.is_floating_point:
        raise TypeError(f"Tensor.{api}(): the tensor must be floating, but it is "
                        f"{self.dtype.name}")


# ---- random fills in place ------------------------------------------------------------------
def _uniform01(self):
    """Uniform (0, 1) samples of self's shape in float64 (0 excluded, so logs are finite)."""
    u = _C.uniform(self.shape, float64, 0.0, 1.0, 0)
    tiny = np.finfo(np.float64).tiny
    return _C.clip(u, tiny, 1.0)


def _normal(api, self, mean, std):
    """N(mean, std**2) samples of self's shape in float64."""
    _float_self(api, self)
    m = float(C.number(api, "mean", mean))
    s = float(C.number(api, "std", std))
    if s < 0:
        raise ValueError(f"Tensor.{api}(): argument 'std' must be >= 0, but got {s}")
    return _C.normal(self.shape, m, s, 0, float64)


def normal_(self, mean: float = 0.0, std: float = 1.0, name: str | None = None) -> Tensor:
    """Fills the tensor with samples of N(mean, std**2), in place."""
    return _write(self, _normal("normal_", self, mean, std))


def uniform_(self, min: float = 0, max: float = 1.0, seed: int = 0,  # noqa: A002
             name: str | None = None) -> Tensor:
    """Fills the tensor with samples of U[min, max), in place (seed 0: the default generator)."""
    _float_self("uniform_", self)
    lo = float(C.number("uniform_", "min", min))
    hi = float(C.number("uniform_", "max", max))
    if lo > hi:
        raise ValueError(f"Tensor.uniform_(): 'min' ({lo}) must be <= 'max' ({hi})")
    return _write(self, _C.uniform(self.shape, float64, lo, hi,
                                   C.integer("uniform_", "seed", seed)))


def exponential_(self, lam: float = 1.0, name: str | None = None) -> Tensor:
    """Fills the tensor with samples of the exponential distribution of rate lam, in place."""
    _float_self("exponential_", self)
    lam = float(C.number("exponential_", "lam", lam))
    if lam <= 0:
        raise ValueError(f"Tensor.exponential_(): argument 'lam' must be > 0, but got {lam}")
    return _write(self, _C.scale(_C.log(_uniform01(self)), -1.0 / lam))


def cauchy_(self, loc: float = 0, scale: float = 1, name: str | None = None) -> Tensor:
    """Fills the tensor with samples of the Cauchy distribution, in place."""
    _float_self("cauchy_", self)
    loc = float(C.number("cauchy_", "loc", loc))
    sc = float(C.number("cauchy_", "scale", scale))
    if sc <= 0:
        raise ValueError(f"Tensor.cauchy_(): argument 'scale' must be > 0, but got {sc}")
    t = _C.tan(_C.scale(_uniform01(self), math.pi, -math.pi / 2))
    return _write(self, _C.scale(t, sc, loc))


def geometric_(self, probs: float | Tensor, name: str | None = None) -> Tensor:
    """Fills the tensor with samples of the geometric distribution (the number of Bernoulli
    trials up to the first success, 1, 2, ...), in place. Paddle fills with the continuous
    log(u) / log(1 - probs) instead; oar's values are the whole numbers of the distribution
    (that value rounded up)."""
    _float_self("geometric_", self)
    p = probs if isinstance(probs, Tensor) else _C.full([], C.number("geometric_", "probs",
                                                                     probs), float64)
    p = _C.cast(p, float64)
    pv = np.asarray(p.numpy())
    if pv.size and not ((pv > 0) & (pv <= 1)).all():
        raise ValueError("Tensor.geometric_(): argument 'probs' must be in (0, 1]")
    k = _C.ceil(_C.divide(_C.log(_uniform01(self)), _C.log1p(_C.neg(p))))
    return _write(self, _C.clip(k, 1.0, math.inf))


def log_normal_(self, mean: float = 1.0, std: float = 2.0, name: str | None = None) -> Tensor:
    """Fills the tensor with exp of N(mean, std**2) samples, in place."""
    return _write(self, _C.exp(_normal("log_normal_", self, mean, std)))


def random_(self, from_: int = 0, to: int | None = None, *, generator: Any = None) -> Tensor:
    """Fills the tensor with integers uniform in [from_, to), in place; to None: up to the
    dtype's largest integer (2**mantissa bits for floats)."""
    lo = C.integer("random_", "from_", from_)
    if to is None:
        d = self.dtype
        if d.is_floating_point:
            digits = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[d.name]
            hi = 2 ** digits + 1
        elif d is bool_:
            hi = 2
        else:
            hi = int(np.iinfo(d.name).max)
    else:
        hi = C.integer("random_", "to", to)
    if hi <= lo:
        raise ValueError(f"Tensor.random_(): 'to' ({hi}) must be greater than 'from_' ({lo})")
    dt = int64 if not self.dtype.is_floating_point else self.dtype
    return _write(self, _C.randint_like(self, lo, hi, dt))


def bernoulli_(self, p: float | Tensor = 0.5, name: str | None = None) -> Tensor:
    """Fills the tensor with 1 where a uniform [0, 1) sample falls below p (a number or a
    tensor broadcast to the tensor), else 0, in place: probability p, with p below 0
    giving 0 and above 1 giving 1 (Paddle's reading; no error)."""
    u = _C.uniform(self.shape, float64, 0.0, 1.0, 0)
    if isinstance(p, Tensor):
        probs = _C.cast(p, float64)
    else:
        probs = _C.full([], float(C.number("bernoulli_", "p", p)), float64)
    return _write(self, _C.less_than(u, probs))


def zero_(self) -> Tensor:
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
            raise ValueError(f"Tensor.fill_diagonal_(): a tensor of more than 2 dimensions must "
                             f"have equal dimensions, but got {shape}")
        cols = shape[-1]
        step = sum(cols ** k for k in range(len(shape)))
        end = numel
    m = np.zeros(numel, dtype=bool)
    for i in range(0, end, step):
        j = i % cols + offset
        if 0 <= j < cols and i + offset < numel:
            m[i + offset] = True
    return m.reshape(shape)


def fill_diagonal_(self, value: float, offset: int = 0, wrap: bool = False,
                   name: str | None = None) -> Tensor:
    """Fills the diagonal (shifted by offset; wrapping around for tall matrices with wrap)
    with value, in place. The tensor must be 2-D, or N-D with equal dimensions."""
    if self.ndim < 2:
        raise ValueError(f"Tensor.fill_diagonal_(): the tensor must have at least 2 dimensions, "
                         f"but has shape {self.shape}")
    off = C.integer("fill_diagonal_", "offset", offset)
    v = C.number("fill_diagonal_", "value", value)
    mask = _C._from_buffer(_diagonal_mask(self.shape, off, bool(wrap)), bool_)
    return _write(self, _C.where(mask, _C.full_like(self, v), self))


def fill_diagonal_tensor(self, y: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1,
                         name: str | None = None) -> Tensor:
    """The tensor with its diagonal (offset, dim1, dim2) replaced by y."""
    return M.diagonal_scatter(self, y, offset, dim1, dim2)


def fill_diagonal_tensor_(self, y: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1,
                          name: str | None = None) -> Tensor:
    """fill_diagonal_tensor, in place."""
    return _write(self, M.diagonal_scatter(self, y, offset, dim1, dim2))


# ---- conversion -----------------------------------------------------------------------------
_BLOCKING = ("blocking", "non_blocking")


def to(self, *args: Any, **kwargs: Any) -> Tensor:
    """The tensor converted: to(dtype), to(device, dtype=None), to(other) (other's dtype);
    blocking is accepted. The device must be the CPU. The tensor itself is returned when
    nothing changes, else a converted copy (differentiable)."""
    from .device import _to_place
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


def apply(self, func: Callable[[Tensor], Tensor]) -> Tensor:
    """func(tensor), for a tensor that does not require grad (a Python function applied
    outside autograd)."""
    if not self.stop_gradient:
        raise RuntimeError("Tensor.apply(): cannot apply a function to a tensor that requires "
                           "grad")
    out = func(self)
    if not isinstance(out, Tensor):
        raise TypeError(f"Tensor.apply(): the function must return a Tensor, but returned "
                        f"{type(out).__name__}")
    return out


def apply_(self, func: Callable[[Tensor], Tensor]) -> Tensor:
    """Tensor.apply, with the result written into the tensor (same shape), in place."""
    out = apply(self, func)
    if out.shape != self.shape:
        raise ValueError(f"Tensor.apply_(): the function returned shape {out.shape}, the "
                         f"tensor has {self.shape}")
    return _write(self, out)


# ---- memory layout --------------------------------------------------------------------------
def _meta(self):
    return _C._tensor_meta(self)


def get_strides(self) -> list[int]:
    """The strides in elements, one per dimension."""
    return _meta(self)[0]


def stride(self, dim: int | None = None) -> Any:
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


def set_(self, source: Tensor | None = None, shape: Sequence[int] | None = None,
         stride: Sequence[int] | None = None, offset: int = 0,
         name: str | None = None) -> Tensor:
    """The tensor made to use source's memory (None: an empty tensor of its dtype), with
    shape (default: source's), stride (default: contiguous for shape, or source's) and
    offset (in bytes, from source's first element), in place."""
    if source is None:
        _C._set_tensor_impl(self, _C.full([0], 0, self.dtype))
        return self
    C.tensor("set_", "source", source)
    if source.dtype is not self.dtype:
        raise TypeError(f"Tensor.set_(): the source's dtype {source.dtype.name} differs from "
                        f"the tensor's {self.dtype.name}")
    sizes = source.shape if shape is None else M._ints("set_", "shape", shape)
    if stride is None:
        strides = get_strides(source) if shape is None else \
            [math.prod(sizes[i + 1:]) for i in range(len(sizes))]
    else:
        strides = M._ints("set_", "stride", stride)
    off = C.integer("set_", "offset", offset)
    item = source.element_size()
    if off < 0 or off % item:
        raise ValueError(f"Tensor.set_(): argument 'offset' ({off} bytes) must be a "
                         f"non-negative multiple of the element size {item}")
    start = _C._tensor_meta(source)[1] + off // item
    _C._set_tensor_impl(self, _C._strided_view(source, sizes, strides, start))
    return self


def resize_(self, shape: Sequence[int], fill_zero: bool = False,
            name: str | None = None) -> Tensor:
    """The tensor given a new shape in place, keeping its leading elements (row-major); new
    elements are zeros (with or without fill_zero)."""
    sizes = M._ints("resize_", "shape", shape)
    if any(s < 0 for s in sizes):
        raise ValueError(f"Tensor.resize_(): argument 'shape' {sizes} has a negative size")
    n = math.prod(sizes)
    flat = np.asarray(self.detach().numpy()).reshape(-1)
    data = np.zeros(n, dtype=flat.dtype)
    k = min(n, flat.size)
    data[:k] = flat[:k]
    _C._set_tensor_impl(self, _C._from_buffer(data.reshape(sizes), self.dtype))
    return self


def reconstruct_from_(self, other: Tensor) -> None:
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
        data = np.asarray(t.numpy()).reshape(-1)
        return (f"  - shape: {t.shape}\n  - layout: {_layout(t)}\n  - place: {t.place}\n"
                f"  - dtype: {t.dtype.name}\n  - data: [{' '.join(str(v) for v in data.tolist())}]")

    __repr__ = __str__


def get_tensor(self) -> _DenseTensor:
    """The tensor's data as a plain dense tensor (no autograd)."""
    return _DenseTensor(self.detach())


class VarType(enum.Enum):
    """Paddle's variable types; every oar tensor is a dense tensor."""
    DENSE_TENSOR = 7


# ---- new_* creators -------------------------------------------------------------------------
def _size(api, size):
    if len(size) == 1 and isinstance(size[0], (list, tuple, Tensor)):
        size = size[0]
    return M._ints(api, "size", list(size) if not isinstance(size, Tensor) else size)


def _new(self, api, size, value, dtype, device, requires_grad):
    if device is not None:
        from .device import _to_place
        _to_place(device, f"Tensor.{api}")
    d = self.dtype if dtype is None else convert_dtype(dtype)
    out = _C.full(size, value, d)
    out.stop_gradient = not requires_grad
    return out


def new_empty(self, *size: Any, dtype: Any = None, device: Any = None,
              requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor of the given size, with this tensor's dtype unless given (zeros)."""
    return _new(self, "new_empty", _size("new_empty", size), 0, dtype, device, requires_grad)


def new_zeros(self, *size: Any, dtype: Any = None, device: Any = None,
              requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor of zeros of the given size, with this tensor's dtype unless given."""
    return _new(self, "new_zeros", _size("new_zeros", size), 0, dtype, device, requires_grad)


def new_ones(self, *size: Any, dtype: Any = None, device: Any = None,
             requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor of ones of the given size, with this tensor's dtype unless given."""
    return _new(self, "new_ones", _size("new_ones", size), 1, dtype, device, requires_grad)


def new_full(self, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor of the given size filled with fill_value, with this tensor's dtype
    unless given."""
    v = C.number("new_full", "fill_value", fill_value)
    return _new(self, "new_full", _size("new_full", (size,)), v, dtype, device, requires_grad)


# ---- small methods --------------------------------------------------------------------------
def gradient(self) -> Any:
    """The gradient as a numpy array, or None when there is none. A sparse gradient (an
    Embedding's with sparse=True) comes as Paddle gives its row-sparse one: the tuple
    (values of the stored rows, their row numbers), coalesced."""
    g = self.grad
    if g is None:
        return None
    if g.is_sparse_coo() and g.sparse_dim() == 1:
        g = g.coalesce()
        return np.array(g.values().numpy()), np.array(g.indices().numpy()[0])
    if g.is_sparse():
        g = g.to_dense()
    return np.array(g.numpy())


def _requires_grad(self) -> bool:
    return not self.stop_gradient


def _set_requires_grad(self, value: bool) -> None:
    self.stop_gradient = not bool(value)


def repeat(self, *repeats: Any) -> Tensor:
    """The tensor repeated repeats[i] times along dimension i (PyTorch's repeat: oar.tile);
    repeats as one list or as several ints."""
    from ._manipulation import tile
    if len(repeats) == 1 and isinstance(repeats[0], (list, tuple, Tensor)):
        reps = repeats[0]
    else:
        reps = list(repeats)
    return tile(self, reps)


def split_with_sizes(self, split_sizes: list[int], dim: int = 0) -> list[Tensor]:
    """The tensor split along dim into parts of the given sizes (summing to its length)."""
    from ._ops import split
    sizes = M._ints("split_with_sizes", "split_sizes", split_sizes)
    if self.ndim == 0:
        raise ValueError("Tensor.split_with_sizes(): a 0-D tensor cannot be split")
    a = C.axis("split_with_sizes", "dim", dim, self.ndim)
    if sum(sizes) != self.shape[a] or any(s < 0 for s in sizes):
        raise ValueError(f"Tensor.split_with_sizes(): the sizes {sizes} must be >= 0 and sum to "
                         f"the length {self.shape[a]} of dimension {a}")
    return split(self, sizes, a)


def is_dist(self) -> bool:
    """False: oar tensors are not distributed tensors."""
    return False


def _mT(self) -> Tensor:  # noqa: N802 - Paddle's name
    return M.matrix_transpose(self)


# ---- Paddle's dtype conversions -------------------------------------------------------------
def _astype(self, d):
    """self cast to d (differentiable), or self itself when it has that dtype already, as
    Paddle's astype answers."""
    return self if self.dtype is d else _C.cast(self, d)


def _conversion(method, d):
    def convert(self):
        return _astype(self, d)
    convert.__name__ = method
    convert.__qualname__ = f"Tensor.{method}"
    convert.__doc__ = (f"The tensor cast to {d.name}, or the tensor itself when it is "
                       f"{d.name} already.")
    return convert


# Paddle's names for them (PyTorch's, and the dtypes' own); byte and uint8 below.
_CONVERSIONS = {
    "float": float32, "float32": float32, "double": float64, "float64": float64,
    "half": float16, "float16": float16, "bfloat16": bfloat16, "char": int8, "int8": int8,
    "short": int16, "int16": int16, "int": int32, "int32": int32, "long": int64,
    "int64": int64, "bool": bool_, "cfloat": complex64, "complex64": complex64,
    "cdouble": complex128, "complex128": complex128,
}


def byte(self) -> Tensor:
    """The tensor cast to uint8, or the tensor itself when it is uint8 already. Floating
    values go through int8 and complex ones lose their imaginary part (with a warning),
    the route Paddle's byte() takes, so out-of-range values wrap as Paddle's do."""
    if self.dtype is uint8:
        return self
    t = self
    if t.dtype.is_complex:
        warnings.warn("Tensor.byte(): casting complex values to real discards the imaginary "
                      "part", stacklevel=2)
        t = _C.real(t)
    if t.dtype.is_floating_point:
        t = _C.cast(t, int8)
    return _C.cast(t, uint8)


def type_as(self, other: Tensor) -> Tensor:
    """The tensor cast to other's dtype, or the tensor itself when the dtypes agree."""
    C.tensor("type_as", "other", other)
    return _astype(self, other.dtype)


# ---- autograd, copies and devices -----------------------------------------------------------
def requires_grad_(self, requires_grad: bool = True) -> Tensor:
    """Sets whether the tensor requires grad (stop_gradient = not requires_grad); returns
    the tensor."""
    if not isinstance(requires_grad, bool):
        raise TypeError(f"Tensor.requires_grad_(): argument 'requires_grad' must be a bool, "
                        f"but got {type(requires_grad).__name__}")
    self.stop_gradient = not requires_grad
    return self


def _get_grad(self):
    return self.grad


def _set_grad(self, value):
    self.grad = value


def _copied(x, other):
    # other itself is written into x, unless it shares x's memory: then its values must
    # be taken before the write overwrites them.
    return _C.assign(other) if other._is_shared_buffer_with(x) else other


def copy_(self, other: Tensor, blocking: bool = True, non_blocking: bool = False) -> Tensor:
    """other's values written into the tensor, which takes other's shape as in Paddle;
    the dtypes must agree. blocking and non_blocking are accepted (the CPU copies at
    once). oar's in-place rules hold (where Paddle copies outside autograd): the version
    is bumped, a leaf that requires grad is refused while grad mode is on, and the
    gradient flows through the write to other."""
    C.tensor("copy_", "other", other)
    if other.dtype is not self.dtype:
        raise TypeError(f"Tensor.copy_(): the tensor has dtype {self.dtype.name} and 'other' "
                        f"{other.dtype.name}; a copy needs equal dtypes (cast one first)")
    return P._in_place("copy_", self, _copied, other, copy_input=False)


def set_value(self, value: Any) -> None:
    """Sets the tensor's values from value (a Tensor or an array of the tensor's shape,
    cast to its dtype) without recording a gradient, so a leaf that requires grad (a
    parameter) can be set; returns None, as Paddle."""
    _set_value(self, value)


def ndimension(self) -> int:
    """The number of dimensions (ndim)."""
    return self.ndim


def get_device(self) -> int:
    """The device id of the tensor: -1, a CPU tensor's (GPU tensors give their GPU's)."""
    return -1


def value(self) -> Tensor:
    """The tensor itself (Paddle's value() of a dense tensor)."""
    return self


def pin_memory(self, blocking: bool = True) -> Tensor:
    """Raises, as Paddle's CPU build does: pinned memory is page-locked host memory for
    copies to a GPU (oar.CUDAPinnedPlace() and pin_memory=True refuse it the same way)."""
    raise ValueError("Tensor.pin_memory(): pinned memory is for copies to a GPU, and oar is "
                     "built for the CPU only")


def cuda(self, device_id: int | None = None, blocking: bool = True) -> Tensor:
    """Raises, as Paddle's CPU build does ("No available device found."): oar has no GPU,
    so a tensor cannot be copied to one; oar.device.cuda.device_count() is 0."""
    raise ValueError("Tensor.cuda(): no available device found: oar is built for the CPU "
                     "only (oar.device.cuda.device_count() is 0)")


def _as_method(fn):
    """A C function as a method: as a class attribute it would not receive the tensor.
    The signature shown is the function's (through __wrapped__)."""
    @functools.wraps(fn)
    def method(*args, **kwargs):
        return fn(*args, **kwargs)
    return method


# ---- installation ---------------------------------------------------------------------------
# The functions of _math_extra / _manip_extra that Paddle also has as Tensor methods, with
# the tensor as self.
_FUNCTION_METHODS = (
    "copysign", "logit", "ldexp", "frexp", "deg2rad", "rad2deg", "frac", "sgn", "stanh",
    "isposinf", "isneginf", "isreal", "gammaln", "multigammaln", "polar", "logcumsumexp",
    "negative", "mul", "mm", "mv", "inner", "addmm", "baddbmm", "tensordot", "cdist", "dist",
    "renorm", "trapezoid", "cumulative_trapezoid", "diff", "vander", "increment", "nanmean",
    "nansum", "quantile", "nanquantile", "nanmedian", "rank", "reduce_as", "is_empty", "gt",
    "ge", "lt", "le", "eq", "ne", "greater", "less", "floor_mod", "mod", "fmax", "fmin",
    "bitwise_invert", "bucketize", "isin", "histogram_bin_edges", "histogramdd",
    "tensor_split", "hsplit", "vsplit", "dsplit", "atleast_1d", "atleast_2d", "atleast_3d",
    "combinations", "diagflat", "narrow", "ravel", "matrix_transpose", "unbind", "msort",
    "take", "index_fill", "index_sample", "masked_scatter", "select_scatter", "slice_scatter",
    "diagonal_scatter", "scatter_add", "scatter_reduce", "shard_index", "unique_consecutive",
    "view", "view_as", "argwhere", "add_n", "broadcast_shape", "broadcast_shapes",
    "block_diag", "multiplex",
)

# Paddle binds these functions as Tensor methods too; the first argument is the tensor,
# whatever it means to the function (where's condition, stack's list of tensors: a tensor
# there raises, in Paddle as here; add_n's and block_diag's inputs).
_BOUND_FUNCTIONS = {
    A: ("clamp", "div", "sub", "true_divide", "swapaxes", "swapdims", "take_along_dim",
        "reverse", "view_as_complex", "view_as_real"),
    P: ("abs_", "cos_", "sin_", "log_", "neg_", "pow_", "digamma_", "lgamma_", "gammaln_",
        "i0_", "logit_", "frac_", "sinc_", "polygamma_", "multigammaln_", "floor_", "equal_",
        "not_equal_", "greater_equal_", "greater_than_", "less_", "less_equal_", "less_than_",
        "logical_and_", "logical_or_", "logical_not_", "logical_xor_", "floor_mod_", "mod_",
        "gcd_", "lcm_", "hypot_", "ldexp_", "copysign_", "gammainc_", "gammaincc_",
        "bitwise_invert_", "bitwise_left_shift_", "bitwise_right_shift_", "where_", "div_",
        "sub_", "cumsum_", "cumprod_", "tril_", "triu_", "renorm_", "index_fill_",
        "masked_scatter_", "scatter_add_", "addmm_", "baddbmm_", "cast_", "flatten_",
        "reshape_", "squeeze_", "unsqueeze_", "transpose_", "t_", "mul_", "clamp_"),
    linalg: ("cholesky_inverse", "eig", "eigvals", "householder_product", "ormqr",
             "pca_lowrank", "svd_lowrank"),
    signal: ("stft", "istft"),
}

_METHODS = {
    "normal_": normal_, "uniform_": uniform_, "exponential_": exponential_,
    "cauchy_": cauchy_, "geometric_": geometric_, "log_normal_": log_normal_,
    "random_": random_, "bernoulli_": bernoulli_, "zero_": zero_,
    "fill_diagonal_": fill_diagonal_, "fill_diagonal_tensor": fill_diagonal_tensor,
    "fill_diagonal_tensor_": fill_diagonal_tensor_, "to": to, "apply": apply, "apply_": apply_,
    "get_strides": get_strides, "stride": stride, "set_": set_, "resize_": resize_,
    "reconstruct_from_": reconstruct_from_, "get_tensor": get_tensor, "new_empty": new_empty,
    "new_zeros": new_zeros, "new_ones": new_ones, "new_full": new_full, "gradient": gradient,
    "repeat": repeat, "split_with_sizes": split_with_sizes,
    "is_dist": is_dist, "permute": M.permute,
    "_is_shared_buffer_with": _is_shared_buffer_with, "__dlpack__": F._tensor_dlpack,
    "__dlpack_device__": F._tensor_dlpack_device,
    "strides": property(get_strides, doc="The strides in elements, one per dimension."),
    "offset": property(_offset, doc="The offset of the first element in its memory block, in "
                                    "bytes."),
    "layout": property(_layout, doc="The data layout, 'NCHW' for dense tensors."),
    "itemsize": property(lambda self: self.element_size(), doc="Bytes per element."),
    "data": property(_get_data, _set_data, doc="The tensor's data (detached); setting it makes "
                                               "the tensor use another tensor's memory."),
    "requires_grad": property(_requires_grad, _set_requires_grad,
                              doc="not stop_gradient (PyTorch's name)."),
    "mT": property(_mT, doc="The tensor with its last two dimensions swapped."),
    "type": property(lambda self: VarType.DENSE_TENSOR, doc="VarType.DENSE_TENSOR."),
    "device": property(lambda self: "cpu", doc="The device the tensor lives on: 'cpu'."),
}

_METHODS.update({
    "byte": byte, "uint8": byte, "type_as": type_as, "requires_grad_": requires_grad_,
    "copy_": copy_, "set_value": set_value, "ndimension": ndimension,
    "get_device": get_device, "value": value, "pin_memory": pin_memory, "cuda": cuda,
    "is_tensor": F.is_tensor, "where": where, "stack": stack,
    "broadcast_tensors": broadcast_tensors, "atan2": _as_method(_C.atan2),
    "concat": _as_method(_C.concat), "multinomial": _as_method(_C.multinomial),
    "scatter_nd": _as_method(_C.scatter_nd),
    "is_cuda": property(lambda self: False, doc="False: oar tensors live on the CPU."),
    "grad_": property(_get_grad, _set_grad, doc="The gradient (grad, by Paddle's other name)."),
})
_METHODS.update({_k: _conversion(_k, _d) for _k, _d in _CONVERSIONS.items()})
for _name in _FUNCTION_METHODS:
    _METHODS.setdefault(_name, getattr(X, _name, None) or getattr(M, _name))
for _module, _names in _BOUND_FUNCTIONS.items():
    for _name in _names:
        _METHODS.setdefault(_name, getattr(_module, _name))
for _k, _v in _METHODS.items():
    setattr(Tensor, _k, _v)
