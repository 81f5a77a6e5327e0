"""Creating tensors (Paddle's paddle/tensor/creation.py): to_tensor and its factory for
Tensor(data), zeros/ones/full/empty and their *_like, arange, linspace, logspace, range,
eye, diag, diagflat, triu_indices, polar, clone, from_numpy, asarray, as_tensor,
create_tensor and paddle.tensor(...)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .. import _C
from ..framework import check as C
from ..framework.check import C_dtype, _cpu_device
from ..framework.dtype import (
    _dtype_arg,
    bool_,
    complex128,
    convert_dtype,
    default_complex,
    default_float,
    float32,
    float64,
    int64,
)
from ..framework.grad_mode import no_grad
from ..framework.memory import check_fits
from ..framework.out import api_write_out, finish
from ..framework.place import _to_place
from ..framework.typing import DTypeLike, PlaceLike, ShapeLike, TensorLike

Tensor = _C.Tensor

__all__ = [
    "to_tensor",
    "full",
    "zeros",
    "ones",
    "empty",
    "full_like",
    "zeros_like",
    "ones_like",
    "empty_like",
    "arange",
    "linspace",
    "eye",
    "clone",
    "diag",
    "triu_indices",
    "polar",
    "logspace",
    "range",
    "diagflat",
    "from_numpy",
    "asarray",
    "create_tensor",
    "as_tensor",
]


_SUPPORTED_NUMPY = (
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)


_UNSUPPORTED_NUMPY = "supported dtypes: " + ", ".join(_SUPPORTED_NUMPY)


def _shape(shape, api):
    if isinstance(shape, Tensor):
        return [int(v) for v in np.asarray(shape).reshape(-1)]
    if isinstance(shape, np.ndarray):  # Paddle takes an integer array as the shape
        if shape.dtype.kind not in "iu" or shape.ndim > 1:
            raise TypeError(
                f"{api}(): argument 'shape' must be a 1-D integer array, but got a "
                f"{shape.dtype} array of shape {list(shape.shape)}"
            )
        return [int(v) for v in shape.reshape(-1)]
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        return [int(shape)]
    if isinstance(shape, (list, tuple)):
        out = []
        for s in shape:
            if isinstance(s, Tensor):
                s = s.item()
            if not isinstance(s, numbers.Integral) or isinstance(s, bool):
                raise TypeError(
                    f"{api}(): argument 'shape' must be a list of int, but an item is "
                    f"{type(s).__name__}"
                )
            out.append(int(s))
        return out
    raise TypeError(
        f"{api}(): argument 'shape' must be int, list or tuple of int, or Tensor, "
        f"but got {type(shape).__name__}"
    )


def _dtype_or(dtype, default, api="to_tensor"):
    if dtype is None:
        return default
    try:
        return convert_dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{api}(): argument 'dtype': {e}") from None


def _has_big_int(data):
    if isinstance(data, (list, tuple)):
        return any(_has_big_int(d) for d in data)
    return isinstance(data, int) and not isinstance(data, bool) and not -(2**63) <= data < 2**63


def to_tensor(
    data: TensorLike,
    dtype: DTypeLike | None = None,
    place: PlaceLike | None = None,
    stop_gradient: bool = True,
) -> Tensor:
    """A tensor holding a copy of `data` (a scalar, nested lists, a numpy array or a Tensor).

    Python floats become float32, ints int64 and bools bool (Paddle's defaults);
    numpy arrays keep their dtype."""
    if isinstance(data, Tensor):
        with no_grad():
            t = _C.assign(data)
        if dtype is not None:
            t = _C.cast(t, _dtype_or(dtype, None))
    else:
        from_numpy = isinstance(data, (np.ndarray, np.generic))
        try:
            arr = np.asarray(data)
        except ValueError as e:
            raise ValueError(f"to_tensor(): cannot convert the data: {e}") from None
        if arr.dtype == object:
            if _has_big_int(data):
                raise OverflowError(
                    "to_tensor(): the data holds an integer outside the int64 range"
                )
            raise ValueError(
                "to_tensor(): the data is ragged or holds non-numeric objects; "
                "nested lists must have equal lengths"
            )
        if arr.dtype.kind in "US":
            raise TypeError("to_tensor(): string data is not supported")
        if dtype is None and not from_numpy and arr.dtype == np.float64:
            dtype = default_float()  # Paddle's default dtype for Python floats
        if dtype is None and not from_numpy and arr.dtype == np.complex128:
            dtype = default_complex()  # ... and for Python complex numbers
        if arr.dtype.name not in _SUPPORTED_NUMPY:
            if arr.dtype.kind in "iu" and dtype is None:
                raise TypeError(
                    f"to_tensor(): numpy dtype {arr.dtype.name} is not supported "
                    f"({_UNSUPPORTED_NUMPY}); convert it first, e.g. "
                    f".astype('int64')"
                )
            arr = arr.astype({"f": np.float64, "c": np.complex128}.get(arr.dtype.kind, np.int64))
        target = _dtype_or(dtype, None)
        t = _C._from_buffer(arr, target)
    t.stop_gradient = stop_gradient
    return t


_C._set_tensor_factory(to_tensor)


def _fill_dtype(value):
    """full's dtype when none is given, as Paddle 3.3.1's (and its documentation): bool
    for a Python bool, complex128 for a Python complex, else the default float (an int
    fill too: full([2], 3) is float32)."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, complex):
        return complex128  # Paddle: full(shape, 1+2j) is complex128
    return default_float()


# The creation functions take Paddle 3.3's keyword-only arguments out, device,
# requires_grad and pin_memory (_out.finish says what each does on oar).
def full(
    shape: ShapeLike,
    fill_value: Any,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    out: Tensor | None = None,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    # a Tensor fill_value gives the default float too (Paddle), whatever its dtype
    fill_dtype = default_float() if isinstance(fill_value, Tensor) else _fill_dtype(fill_value)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    t = _C.full(_shape(shape, "full"), fill_value, _dtype_or(dtype, fill_dtype, "full"))
    return finish(t, "full", out, device, requires_grad, pin_memory)


def zeros(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    out: Tensor | None = None,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    t = _C.full(_shape(shape, "zeros"), 0.0, _dtype_or(dtype, default_float(), "zeros"))
    return finish(t, "zeros", out, device, requires_grad, pin_memory)


def ones(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    out: Tensor | None = None,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    t = _C.full(_shape(shape, "ones"), 1.0, _dtype_or(dtype, default_float(), "ones"))
    return finish(t, "ones", out, device, requires_grad, pin_memory)


def empty(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    out: Tensor | None = None,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    t = _C.empty(_shape(shape, "empty"), _dtype_or(dtype, default_float(), "empty"))
    return finish(t, "empty", out, device, requires_grad, pin_memory)


def full_like(
    x: Tensor,
    fill_value: Any,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = C.number("full_like", "fill_value", fill_value)
    t = _C.full_like(x, fill_value, _dtype_or(dtype, None, "full_like"))
    return finish(t, "full_like", None, device, requires_grad, pin_memory)


def zeros_like(
    x: Tensor,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    return full_like(
        x, 0.0, dtype, device=device, requires_grad=requires_grad, pin_memory=pin_memory
    )


def ones_like(
    x: Tensor,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    return full_like(
        x, 1.0, dtype, device=device, requires_grad=requires_grad, pin_memory=pin_memory
    )


def empty_like(
    x: Tensor,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    t = _C.empty_like(x, _dtype_or(dtype, None, "empty_like"))
    return finish(t, "empty_like", None, device, requires_grad, pin_memory)


def arange(
    start: Any = 0,
    end: Any = None,
    step: Any = 1,
    dtype: Any = None,
    *,
    out: Tensor | None = None,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    name: str | None = None,
) -> Tensor:
    if end is None:
        start, end = 0, start
    vals = [C.number("arange", n, v) for n, v in (("start", start), ("end", end), ("step", step))]
    if dtype is None:
        dtype = int64 if all(isinstance(v, numbers.Integral) for v in vals) else default_float()
    dtype = _dtype_or(dtype, None, "arange")
    if not dtype.is_floating_point:
        # Paddle casts start, end and step to an integer dtype first (toward zero, as a
        # C++ cast), then counts: arange(0.5, -4.5, -1, 'int64') is arange(0, -4, -1),
        # 4 values (torch agrees for int64).
        vals = [_to_int("arange", n, v, dtype) for n, v in zip(("start", "end", "step"), vals)]
        if vals[2] == 0:
            raise ValueError(
                f"arange(): argument 'step' ({step}) is 0 once cast to "
                f"{dtype.name}; use a float dtype for a fractional step"
            )
    t = _C.arange(vals[0], vals[1], vals[2], dtype)
    return finish(t, "arange", out, device, requires_grad, pin_memory)


_INT_RANGE = {
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "bool": (0, 1),
    "uint8": (0, 255),
    "int8": (-128, 127),
    "int16": (-(2**15), 2**15 - 1),
}


def _to_int(api, name, v, dtype):
    """v cast to an integer dtype as C++ does (toward zero); an error where C++ is undefined."""
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError(f"{api}(): argument '{name}' ({v}) cannot be converted to {dtype.name}")
    i = int(v)
    lo, hi = _INT_RANGE.get(dtype.name, _INT_RANGE["int64"])
    if not lo <= i <= hi:
        raise ValueError(f"{api}(): argument '{name}' ({v}) does not fit in {dtype.name}")
    return i


def linspace(
    start: Any,
    stop: Any,
    num: int,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    out: Tensor | None = None,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """num evenly spaced values from start to stop, both included.

    Finite ends and a float or complex dtype: numpy's values (within an ulp of torch's and
    Paddle's; Paddle has no complex linspace, torch's spaces the ends on the real axis).
    Otherwise the formula of the torch and Paddle kernels: the first half start + step*i,
    the second stop - step*(num-1-i), step = (stop-start)/(num-1). An integer dtype
    casts start and stop to it first (toward zero), keeps step in float64 and truncates
    each value; a non-finite end gives what the formula gives (NaN from inf - inf or
    0 * inf), where numpy's would, e.g., still end a NaN start's row in stop."""
    return finish(_linspace(start, stop, num, dtype), "linspace", out, device, requires_grad)


def _linspace(start, stop, num, dtype):
    start = C.number("linspace", "start", start)
    stop = C.number("linspace", "stop", stop)
    num = C.integral("linspace", "num", num)  # 5.0 too, as Paddle
    if num < 0:
        raise ValueError(f"linspace(): argument 'num' must be a non-negative int, got {num}")
    dtype = _dtype_or(dtype, default_float(), "linspace")
    if dtype is bool_:
        raise TypeError(
            "linspace(): argument 'dtype' must be a floating, complex or integer "
            "dtype, but got bool"
        )
    if dtype.is_complex:
        # the ends on the real axis (torch's complex linspace; Paddle has none), each
        # part spaced apart, so an infinite real end leaves the imaginary parts 0
        s, e = float(start), float(stop)
        values = _linspace_values(s, e, num) + 0j
        return to_tensor(values, dtype=dtype)
    if dtype.is_floating_point:
        s, e = float(start), float(stop)
    else:
        s, e = (
            float(_to_int("linspace", n, v, dtype)) for n, v in (("start", start), ("stop", stop))
        )
    values = _linspace_values(s, e, num)
    if not dtype.is_floating_point:
        values = np.trunc(values).astype(np.int64)
    return to_tensor(values, dtype=dtype)


def _linspace_values(s, e, num):
    """float64 values from s to e: numpy's for finite ends, else the kernels' formula."""
    if math.isfinite(s) and math.isfinite(e):
        return np.linspace(s, e, num)
    i = np.arange(num, dtype=np.float64)
    half = num // 2
    with np.errstate(invalid="ignore"):
        step = (e - s) / max(num - 1, 1)
        values = np.concatenate([s + step * i[:half], e - step * (num - 1 - i[half:])])
    if num == 1:
        values[0] = s  # torch and Paddle: [start]
    return values


def eye(
    num_rows: Any,
    num_columns: Any = None,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    out: Tensor | None = None,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    n = C.integer("eye", "num_rows", num_rows)
    m = n if num_columns is None else C.integer("eye", "num_columns", num_columns)
    if n < 0 or m < 0:
        raise ValueError(f"eye(): num_rows ({n}) and num_columns ({m}) must be non-negative")
    t = _C.eye(n, m, _dtype_or(dtype, default_float(), "eye"))
    return finish(t, "eye", out, device, requires_grad, pin_memory)


def clone(x: Tensor) -> Tensor:
    return _C.assign(C.tensor("clone", "x", x))


# --- diagonals -----------------------------------------------------------------------------


def diag(x: Tensor, offset: int = 0, padding_value: Any = 0, name: str | None = None) -> Tensor:
    """1-D x: a square matrix with x on diagonal `offset`, padding_value elsewhere.
    2-D x: its diagonal `offset` (a copy)."""
    C.tensor("diag", "x", x)
    off = C.integer("diag", "offset", offset)
    pad = C.number("diag", "padding_value", padding_value)
    if x.ndim == 1:
        out = _C.diag_embed(x, off, 0, 1)
        if pad == 0:
            return out
        mask = _C.diag_embed(_C.full_like(x, True, "bool"), off, 0, 1)
        return _C.where(mask, out, _C.full_like(out, pad))
    if x.ndim == 2:
        return _C.assign(_C.diagonal(x, off, 0, 1))
    raise ValueError(f"diag(): argument 'x' must be 1-D or 2-D, but has shape {x.shape}")


def triu_indices(
    row: Any, col: Any = None, offset: int = 0, dtype: DTypeLike = "int64", name: str | None = None
) -> Tensor:
    """The [2, N] (row, column) coordinates of the upper triangle (col - row >= offset) of a
    row x col matrix (col defaults to row)."""
    row = C.integer("triu_indices", "row", row)
    col = row if col is None else C.integer("triu_indices", "col", col)
    return _C.triu_indices(
        row, col, C.integer("triu_indices", "offset", offset), convert_dtype(dtype)
    )


def polar(
    abs: Tensor,
    angle: Tensor,
    name: str | None = None,
    *,  # noqa: A002
    out: Tensor | None = None,
) -> Tensor:
    """The complex numbers abs * (cos(angle) + i sin(angle)) (float32 or float64 inputs)."""
    C.tensor("polar", "abs", abs)
    C.tensor("polar", "angle", angle)
    for n, t in (("abs", abs), ("angle", angle)):
        if t.dtype not in (float32, float64):
            raise TypeError(
                f"polar(): argument '{n}' must be float32 or float64, but got {t.dtype.name}"
            )
    res = _C.complex(_C.multiply(abs, _C.cos(angle)), _C.multiply(abs, _C.sin(angle)))
    return api_write_out("polar", out, res)


# ---- creation -------------------------------------------------------------------------------
def _scalar_arg(api, name, v):
    return C.number(api, name, v)


def logspace(
    start: float | Tensor,
    stop: float | Tensor,
    num: int | Tensor,
    base: float | Tensor = 10.0,
    dtype: Any = None,
    name: str | None = None,
) -> Tensor:
    """num values base**t for t evenly spaced from start to stop (both included).

    Examples:
        >>> import oar
        >>> print(oar.logspace(0, 10, 5, 2, 'float32').tolist())
        [1.0, 5.656854152679443, 32.0, 181.0193328857422, 1024.0]
    """
    s = float(_scalar_arg("logspace", "start", start))
    e = float(_scalar_arg("logspace", "stop", stop))
    k = C.integral("logspace", "num", num)  # 5.0 too, as Paddle
    b = float(_scalar_arg("logspace", "base", base))
    if k < 0:
        raise ValueError(f"logspace(): argument 'num' must be >= 0, but got {k}")
    d = default_float() if dtype is None else C_dtype("logspace", dtype)
    # float64 exponents, their powers and the result are all held at once.
    check_fits(
        "logspace():", f"argument 'num' ({k}) asks for {k} values, which", k * (16 + d.itemsize)
    )
    with np.errstate(over="ignore", invalid="ignore"):
        vals = np.power(b, np.linspace(s, e, k))
    if not (d.is_floating_point or d.is_complex):
        vals = np.trunc(vals)
    return to_tensor(vals, dtype=d)


def range(
    start: float | Tensor = 0,
    end: float | Tensor | None = None,  # noqa: A001
    step: float | Tensor = 1,
    dtype: Any = None,
    *,
    out: Tensor | None = None,
    device: Any = None,
    requires_grad: bool = False,
    name: str | None = None,
) -> Tensor:
    """start, start + step, ... up to and including end (Paddle's range, unlike arange,
    includes end), in dtype (default: the default float); range(n) is range(0, n).

    Examples:
        >>> import oar
        >>> print(oar.range(5).tolist(), oar.range(3, 9, 2.0).tolist())
        [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] [3.0, 5.0, 7.0, 9.0]
    """
    if end is None:
        start, end = 0, start
    s = _scalar_arg("range", "start", start)
    e = _scalar_arg("range", "end", end)
    st = _scalar_arg("range", "step", step)
    if st == 0:
        raise ValueError("range(): argument 'step' must not be 0")
    if device is not None:
        _to_place(device, "range")
    d = default_float() if dtype is None else C_dtype("range", dtype)
    count = math.floor((e - s) / st) + 1 if math.isfinite((e - s) / st) else -1
    if count < 0 and math.isfinite((e - s) / st):
        count = 0
    if count < 0:
        raise ValueError(f"range(): the range from {s} to {e} by {st} is not finite")
    # float64 offsets, the values and the result are all held at once.
    check_fits(
        "range():",
        f"the {count} values from 'start' {s} to 'end' {e} by 'step' {st}",
        count * (16 + d.itemsize),
    )
    vals = s + st * np.arange(count, dtype=np.float64)
    if not (d.is_floating_point or d.is_complex):
        vals = np.trunc(vals)
    t = to_tensor(vals, dtype=d)
    t.stop_gradient = not requires_grad
    return api_write_out("range", out, t)


def diagflat(x: Tensor, offset: int = 0, name: str | None = None) -> Tensor:
    """The 2-D matrix with x flattened on its offset-th diagonal.

    Examples:
        >>> import oar
        >>> print(oar.diagflat(oar.to_tensor([[1, 2], [3, 4]])).tolist())
        [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 4]]
    """
    C.tensor("diagflat", "x", x)
    return diag(_C.reshape(x, [-1]), C.integer("diagflat", "offset", offset))


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor holding a copy of a numpy array, with its dtype (Paddle copies too).

    Examples:
        >>> import oar
        >>> import numpy as np
        >>> print(oar.from_numpy(np.array([1, 2, 3])))
        Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
               [1, 2, 3])
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(
            f"from_numpy(): argument 'ndarray' must be a numpy.ndarray, but got "
            f"{type(ndarray).__name__}"
        )
    return to_tensor(ndarray)


def asarray(
    obj: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: bool | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of obj (data, a numpy array, a tensor); a tensor of the same dtype is
    returned as is unless copy=True (its stop_gradient then follows requires_grad).

    Examples:
        >>> import oar
        >>> print(oar.asarray([[1, 2]], dtype='float32'))
        Tensor(shape=[1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1., 2.]])
    """
    _cpu_device("asarray", device)
    if isinstance(obj, Tensor) and copy is not True:
        want = None if dtype is None else _dtype_arg("asarray", dtype)
        if want is None or want is obj.dtype:
            t = obj.detach() if copy is None else obj
            if copy is None:
                t.stop_gradient = not requires_grad
            return t
        if copy is False:
            raise ValueError(
                f"asarray(): copy=False, but the dtype {want.name} differs from "
                f"the tensor's {obj.dtype.name}"
            )
    return to_tensor(obj, dtype=dtype, stop_gradient=not requires_grad)


# ---- oar.tensor: Paddle's callable namespace ------------------------------------------------
def create_tensor(dtype: Any, name: str | None = None, persistable: bool = False) -> Tensor:
    """An empty (shape [0]) tensor of dtype, to be filled later (Paddle's create_tensor).

    Examples:
        >>> import oar
        >>> print(oar.create_tensor('float32').shape)
        oar.Size([0])
    """
    return _C.full([0], 0, _dtype_arg("create_tensor", dtype))


def _tensor_fn(
    data: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor holding a copy of data (Paddle's paddle.tensor(...), torch-style):
    requires_grad sets stop_gradient = not requires_grad."""
    _cpu_device("tensor", device)
    return to_tensor(data, dtype=dtype, stop_gradient=not requires_grad)


def as_tensor(
    data: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor from data (Paddle's paddle.tensor, the same as oar.tensor(...))."""
    return _tensor_fn(data, dtype, device, requires_grad, pin_memory)
