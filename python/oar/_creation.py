"""Creation functions with Paddle's signatures."""
import math
import numbers

import numpy as np

from . import _C
from .framework import check as C
from .framework.dtype import bool_, complex64, complex128, convert_dtype, float32, float64, int64
from .framework.out import finish, write_out

Tensor = _C.Tensor

# The default floating dtype (oar.set_default_dtype): Python floats and the creation
# functions' float results take it; the default complex dtype follows it.
_DEFAULT_FLOAT = [float32]


def default_float():
    return _DEFAULT_FLOAT[0]


def set_default_float(d):
    _DEFAULT_FLOAT[0] = d


def default_complex():
    return complex128 if _DEFAULT_FLOAT[0] is float64 else complex64


_SUPPORTED_NUMPY = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                    "float64", "complex64", "complex128")
_UNSUPPORTED_NUMPY = "supported dtypes: " + ", ".join(_SUPPORTED_NUMPY)


def _shape(shape, api):
    if isinstance(shape, Tensor):
        return [int(v) for v in shape.numpy().reshape(-1)]
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        return [int(shape)]
    if isinstance(shape, (list, tuple)):
        out = []
        for s in shape:
            if isinstance(s, Tensor):
                s = s.item()
            if not isinstance(s, numbers.Integral) or isinstance(s, bool):
                raise TypeError(f"{api}(): argument 'shape' must be a list of int, but an item is "
                                f"{type(s).__name__}")
            out.append(int(s))
        return out
    raise TypeError(f"{api}(): argument 'shape' must be int, list or tuple of int, or Tensor, "
                    f"but got {type(shape).__name__}")


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
    return isinstance(data, int) and not isinstance(data, bool) and not -2**63 <= data < 2**63


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """A tensor holding a copy of `data` (a scalar, nested lists, a numpy array or a Tensor).

    Python floats become float32, ints int64 and bools bool (Paddle's defaults);
    numpy arrays keep their dtype."""
    if isinstance(data, Tensor):
        from .framework.grad_mode import no_grad
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
                raise OverflowError("to_tensor(): the data holds an integer outside the int64 "
                                    "range")
            raise ValueError("to_tensor(): the data is ragged or holds non-numeric objects; "
                             "nested lists must have equal lengths")
        if arr.dtype.kind in "US":
            raise TypeError("to_tensor(): string data is not supported")
        if dtype is None and not from_numpy and arr.dtype == np.float64:
            dtype = default_float()  # Paddle's default dtype for Python floats
        if dtype is None and not from_numpy and arr.dtype == np.complex128:
            dtype = default_complex()  # ... and for Python complex numbers
        if arr.dtype.name not in _SUPPORTED_NUMPY:
            if arr.dtype.kind in "iu" and dtype is None:
                raise TypeError(f"to_tensor(): numpy dtype {arr.dtype.name} is not supported "
                                f"({_UNSUPPORTED_NUMPY}); convert it first, e.g. "
                                f".astype('int64')")
            arr = arr.astype({"f": np.float64, "c": np.complex128}.get(arr.dtype.kind, np.int64))
        target = _dtype_or(dtype, None)
        t = _C._from_buffer(arr, target)
    t.stop_gradient = stop_gradient
    return t


_C._set_tensor_factory(to_tensor)


def _fill_dtype(value):
    if isinstance(value, bool):
        return bool_
    if isinstance(value, numbers.Integral):
        return int64
    if isinstance(value, complex):
        return complex128  # Paddle: full(shape, 1+2j) is complex128
    return default_float()


# The creation functions take Paddle 3.3's keyword-only arguments out, device,
# requires_grad and pin_memory (_out.finish says what each does on oar).
def full(shape, fill_value, dtype=None, name=None, *, out=None, device=None, requires_grad=False,
         pin_memory=False):
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    t = _C.full(_shape(shape, "full"), fill_value,
                _dtype_or(dtype, _fill_dtype(fill_value), "full"))
    return finish(t, "full", out, device, requires_grad, pin_memory)


def zeros(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False,
          pin_memory=False):
    t = _C.full(_shape(shape, "zeros"), 0.0, _dtype_or(dtype, default_float(), "zeros"))
    return finish(t, "zeros", out, device, requires_grad, pin_memory)


def ones(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False,
         pin_memory=False):
    t = _C.full(_shape(shape, "ones"), 1.0, _dtype_or(dtype, default_float(), "ones"))
    return finish(t, "ones", out, device, requires_grad, pin_memory)


def empty(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False,
          pin_memory=False):
    t = _C.empty(_shape(shape, "empty"), _dtype_or(dtype, default_float(), "empty"))
    return finish(t, "empty", out, device, requires_grad, pin_memory)


def full_like(x, fill_value, dtype=None, name=None, *, device=None, requires_grad=False,
              pin_memory=False):
    if isinstance(fill_value, Tensor):
        fill_value = C.number("full_like", "fill_value", fill_value)
    t = _C.full_like(x, fill_value, _dtype_or(dtype, None, "full_like"))
    return finish(t, "full_like", None, device, requires_grad, pin_memory)


def zeros_like(x, dtype=None, name=None, *, device=None, requires_grad=False, pin_memory=False):
    return full_like(x, 0.0, dtype, device=device, requires_grad=requires_grad,
                     pin_memory=pin_memory)


def ones_like(x, dtype=None, name=None, *, device=None, requires_grad=False, pin_memory=False):
    return full_like(x, 1.0, dtype, device=device, requires_grad=requires_grad,
                     pin_memory=pin_memory)


def empty_like(x, dtype=None, name=None, *, device=None, requires_grad=False, pin_memory=False):
    t = _C.empty_like(x, _dtype_or(dtype, None, "empty_like"))
    return finish(t, "empty_like", None, device, requires_grad, pin_memory)


def arange(start=0, end=None, step=1, dtype=None, *, out=None, device=None, requires_grad=False,
           pin_memory=False, name=None):
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
            raise ValueError(f"arange(): argument 'step' ({step}) is 0 once cast to "
                             f"{dtype.name}; use a float dtype for a fractional step")
    t = _C.arange(vals[0], vals[1], vals[2], dtype)
    return finish(t, "arange", out, device, requires_grad, pin_memory)


_INT_RANGE = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1), "bool": (0, 1),
              "uint8": (0, 255), "int8": (-128, 127), "int16": (-2**15, 2**15 - 1)}


def _to_int(api, name, v, dtype):
    """v cast to an integer dtype as C++ does (toward zero); an error where C++ is undefined."""
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError(f"{api}(): argument '{name}' ({v}) cannot be converted to {dtype.name}")
    i = int(v)
    lo, hi = _INT_RANGE.get(dtype.name, _INT_RANGE["int64"])
    if not lo <= i <= hi:
        raise ValueError(f"{api}(): argument '{name}' ({v}) does not fit in {dtype.name}")
    return i


def linspace(start, stop, num, dtype=None, name=None, *, out=None, device=None,
             requires_grad=False):
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
    num = C.integer("linspace", "num", num)
    if num < 0:
        raise ValueError(f"linspace(): argument 'num' must be a non-negative int, got {num}")
    dtype = _dtype_or(dtype, default_float(), "linspace")
    if dtype is bool_:
        raise TypeError("linspace(): argument 'dtype' must be a floating, complex or integer "
                        "dtype, but got bool")
    if dtype.is_complex:
        # the ends on the real axis (torch's complex linspace; Paddle has none), each
        # part spaced apart, so an infinite real end leaves the imaginary parts 0
        s, e = float(start), float(stop)
        values = _linspace_values(s, e, num) + 0j
        return to_tensor(values, dtype=dtype)
    if dtype.is_floating_point:
        s, e = float(start), float(stop)
    else:
        s, e = (float(_to_int("linspace", n, v, dtype)) for n, v in (("start", start),
                                                                       ("stop", stop)))
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


def eye(num_rows, num_columns=None, dtype=None, name=None, *, out=None, device=None,
        requires_grad=False, pin_memory=False):
    n = C.integer("eye", "num_rows", num_rows)
    m = n if num_columns is None else C.integer("eye", "num_columns", num_columns)
    if n < 0 or m < 0:
        raise ValueError(f"eye(): num_rows ({n}) and num_columns ({m}) must be non-negative")
    t = _C.eye(n, m, _dtype_or(dtype, default_float(), "eye"))
    return finish(t, "eye", out, device, requires_grad, pin_memory)


def uniform(shape, dtype=None, min=0.0, max=1.0, seed=0, name=None, *, out=None, device=None,
            requires_grad=False):
    """Values drawn uniformly from [min, max); Paddle 3.3's default range is [0, 1)."""
    t = _C.uniform(_shape(shape, "uniform"), _dtype_or(dtype, default_float(), "uniform"), min,
                   max, seed)
    return finish(t, "uniform", out, device, requires_grad)


def rand(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False,
         pin_memory=False):
    t = _C.uniform(_shape(shape, "rand"), _dtype_or(dtype, default_float(), "rand"), 0.0, 1.0, 0)
    return finish(t, "rand", out, device, requires_grad, pin_memory)


def normal(mean=0.0, std=1.0, shape=None, name=None, *, out=None):
    t = _C.normal(_shape([1] if shape is None else shape, "normal"),
                  float(C.number("normal", "mean", mean)), float(C.number("normal", "std", std)),
                  0, default_float())
    return write_out(out, t, "normal")


def _standard_normal(shape, dtype, api):
    shape, dtype = _shape(shape, api), _dtype_or(dtype, default_float(), api)
    if dtype.is_complex:
        # Paddle: a complex standard normal has variance 1, half in each part.
        part = float32 if dtype.name == "complex64" else float64
        re, im = (_C.normal(shape, 0.0, math.sqrt(0.5), 0, part) for _ in range(2))
        return _C.complex(re, im)
    return _C.normal(shape, 0.0, 1.0, 0, dtype)


def randn(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False,
          pin_memory=False):
    t = _standard_normal(shape, dtype, "randn")
    return finish(t, "randn", out, device, requires_grad, pin_memory)


def standard_normal(shape, dtype=None, name=None, *, out=None, device=None,
                    requires_grad=False):
    t = _standard_normal(shape, dtype, "standard_normal")
    return finish(t, "standard_normal", out, device, requires_grad)


def randint(low=0, high=None, shape=(1,), dtype=None, name=None):
    if high is None:
        low, high = 0, low
    low, high = C.integer("randint", "low", low), C.integer("randint", "high", high)
    if high <= low:
        raise ValueError(f"randint(): high ({high}) must be greater than low ({low})")
    u = _C.uniform(_shape(shape, "randint"), float64, float(low), float(high), 0)
    return _C.cast(_C.floor(u), _dtype_or(dtype, int64, "randint"))


def seed(seed):
    """Seeds the default random generator (every random op draws from it) and returns it,
    a Generator, as Paddle does.

    Examples:
        >>> import oar
        >>> g = oar.seed(102)
        >>> print(g.initial_seed())
        102
    """
    from .framework.random import DEFAULT_GENERATOR
    return DEFAULT_GENERATOR.manual_seed(seed)
