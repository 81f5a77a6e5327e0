"""Creation functions with Paddle's signatures."""
import numbers

import numpy as np

from . import _C
from ._dtype import bool_, convert_dtype, float32, float64, int64

Tensor = _C.Tensor

_UNSUPPORTED_NUMPY = "supported dtypes: bool, int32, int64, float16, float32, float64"


def _shape(shape, api):
    if isinstance(shape, Tensor):
        return [int(v) for v in shape.numpy().reshape(-1)]
    if isinstance(shape, numbers.Integral):
        return [int(shape)]
    if isinstance(shape, (list, tuple)):
        out = []
        for s in shape:
            if isinstance(s, Tensor):
                s = s.item()
            if not isinstance(s, numbers.Integral):
                raise TypeError(f"{api}(): argument 'shape' must be a list of int, but an item is "
                                f"{type(s).__name__}")
            out.append(int(s))
        return out
    raise TypeError(f"{api}(): argument 'shape' must be int, list or tuple of int, or Tensor, "
                    f"but got {type(shape).__name__}")


def _dtype_or(dtype, default):
    return default if dtype is None else convert_dtype(dtype)


def _has_big_int(data):
    if isinstance(data, (list, tuple)):
        return any(_has_big_int(d) for d in data)
    return isinstance(data, int) and not isinstance(data, bool) and not -2**63 <= data < 2**63


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """A tensor holding a copy of `data` (a scalar, nested lists, a numpy array or a Tensor).

    Python floats become float32, ints int64 and bools bool (Paddle's defaults);
    numpy arrays keep their dtype."""
    if isinstance(data, Tensor):
        from ._grad_mode import no_grad
        with no_grad():
            t = _C.assign(data)
        if dtype is not None:
            t = _C.cast(t, convert_dtype(dtype))
    else:
        from_numpy = isinstance(data, (np.ndarray, np.generic))
        try:
            arr = np.asarray(data)
        except ValueError as e:
            raise ValueError(f"to_tensor(): cannot convert the data: {e}") from None
        if arr.dtype == object:
            if _has_big_int(data):
                raise OverflowError("to_tensor(): the data holds an integer outside the int64 "
                                    "range")
            raise ValueError("to_tensor(): the data is ragged or holds non-numeric objects; "
                             "nested lists must have equal lengths")
        if arr.dtype.kind == "c":
            raise TypeError("to_tensor(): complex data is not supported")
        if arr.dtype.kind in "US":
            raise TypeError("to_tensor(): string data is not supported")
        if dtype is None and not from_numpy and arr.dtype == np.float64:
            arr = arr.astype(np.float32)  # Paddle's default dtype for Python floats
        if arr.dtype.name not in ("bool", "int32", "int64", "float16", "float32", "float64"):
            if arr.dtype.kind in "iu" and dtype is None:
                raise TypeError(f"to_tensor(): numpy dtype {arr.dtype.name} is not supported "
                                f"({_UNSUPPORTED_NUMPY}); convert it first, e.g. "
                                f".astype('int64')")
            arr = arr.astype(np.float64 if arr.dtype.kind == "f" else np.int64)
        target = None if dtype is None else convert_dtype(dtype)
        t = _C._from_buffer(arr, target)
    t.stop_gradient = stop_gradient
    return t


_C._set_tensor_factory(to_tensor)


def _fill_dtype(value):
    if isinstance(value, bool):
        return bool_
    if isinstance(value, numbers.Integral):
        return int64
    return float32


def full(shape, fill_value, dtype=None, name=None):
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _C.full(_shape(shape, "full"), fill_value, _dtype_or(dtype, _fill_dtype(fill_value)))


def zeros(shape, dtype=None, name=None):
    return _C.full(_shape(shape, "zeros"), 0.0, _dtype_or(dtype, float32))


def ones(shape, dtype=None, name=None):
    return _C.full(_shape(shape, "ones"), 1.0, _dtype_or(dtype, float32))


def empty(shape, dtype=None, name=None):
    return zeros(shape, dtype)


def full_like(x, fill_value, dtype=None, name=None):
    return _C.full_like(x, fill_value, None if dtype is None else convert_dtype(dtype))


def zeros_like(x, dtype=None, name=None):
    return full_like(x, 0.0, dtype)


def ones_like(x, dtype=None, name=None):
    return full_like(x, 1.0, dtype)


def empty_like(x, dtype=None, name=None):
    return zeros_like(x, dtype)


def arange(start=0, end=None, step=1, dtype=None, name=None):
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        dtype = int64 if all(isinstance(v, numbers.Integral) for v in vals) else float32
    return _C.arange(vals[0], vals[1], vals[2], convert_dtype(dtype))


def linspace(start, stop, num, dtype=None, name=None):
    if isinstance(num, Tensor):
        num = num.item()
    if not isinstance(num, numbers.Integral) or num < 0:
        raise ValueError(f"linspace(): argument 'num' must be a non-negative int, got {num!r}")
    values = np.linspace(float(start), float(stop), int(num))
    return to_tensor(values, dtype=_dtype_or(dtype, float32))


def eye(num_rows, num_columns=None, dtype=None, name=None):
    return to_tensor(np.eye(int(num_rows), None if num_columns is None else int(num_columns)),
                     dtype=_dtype_or(dtype, float32))


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):
    return _C.uniform(_shape(shape, "uniform"), _dtype_or(dtype, float32), min, max, seed)


def rand(shape, dtype=None, name=None):
    return uniform(shape, dtype, 0.0, 1.0)


def normal(mean=0.0, std=1.0, shape=None, name=None):
    return _C.normal(_shape([1] if shape is None else shape, "normal"), float(mean), float(std), 0,
                     float32)


def randn(shape, dtype=None, name=None):
    return _C.normal(_shape(shape, "randn"), 0.0, 1.0, 0, _dtype_or(dtype, float32))


def standard_normal(shape, dtype=None, name=None):
    return randn(shape, dtype)


def randint(low=0, high=None, shape=(1,), dtype=None, name=None):
    if high is None:
        low, high = 0, low
    if high <= low:
        raise ValueError(f"randint(): high ({high}) must be greater than low ({low})")
    u = _C.uniform(_shape(shape, "randint"), float64, float(low), float(high), 0)
    return _C.cast(_C.floor(u), _dtype_or(dtype, int64))


seed = _C.seed
