"""Paddle's framework-level top-level names: the shape type Size, dtype limits (finfo,
iinfo), the default floating dtype, the random generator's state, DLPack and numpy
exchange, asarray and the `oar.tensor` namespace, and small helpers (is_tensor, batch,
the *_like random creators). Size and set_printoptions are _size.py's and _printing.py's.

Deliberate differences from Paddle 3.3: the CUDA generator
functions answer as Paddle's CPU build does (no CUDA generators: an empty list).
"""
from __future__ import annotations

import math
import sys
import types
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from . import _C
from .framework import check as C
from .framework.dtype import bfloat16, bool_, convert_dtype, float32, float64

Tensor = _C.Tensor

__all__ = ["Size", "finfo", "iinfo", "get_default_dtype", "set_default_dtype",
           "get_rng_state", "set_rng_state", "get_cuda_rng_state", "set_cuda_rng_state",
           "to_dlpack", "from_dlpack", "from_numpy", "asarray", "is_tensor", "batch",
           "set_printoptions", "rand_like", "randn_like", "tensor", "create_tensor",
           "MmapStorage"]


# Size (what Tensor.shape returns) and set_printoptions live with the printing code
from ._printing import set_printoptions  # noqa: E402,F401
from .framework.size import Size  # noqa: E402,F401


# ---- dtype limits --------------------------------------------------------------------------
def _dtype_arg(api, d):
    try:
        return convert_dtype(d)
    except TypeError as e:
        raise TypeError(f"{api}(): argument 'dtype': {e}") from None


def _g(v):
    return f"{v:.6g}"


class finfo:
    """The limits of a floating (or complex: its parts') dtype: min, max, eps,
    resolution, smallest_normal (= tiny), bits and dtype (the name).

    Examples:
        >>> import oar
        >>> f = oar.finfo(oar.float32)
        >>> print(f.bits, f.eps, f.dtype)
        32 1.1920928955078125e-07 float32
    """

    min: float
    max: float
    eps: float
    resolution: float
    smallest_normal: float
    tiny: float
    bits: int
    dtype: str

    def __init__(self, dtype: Any = None) -> None:
        from ._creation import default_float
        d = default_float() if dtype is None else _dtype_arg("finfo", dtype)
        if d.is_complex:
            d = float32 if d.name == "complex64" else float64
        if not d.is_floating_point:
            raise TypeError(f"finfo(): argument 'dtype' must be a floating or complex dtype, "
                            f"but got {d.name} (use oar.iinfo)")
        if d is bfloat16:
            # 8 exponent bits like float32, 7 fraction bits
            self.bits, self.eps, self.resolution = 16, 2.0 ** -7, 0.01
            self.max = float((2 - 2.0 ** -7) * 2.0 ** 127)
            self.smallest_normal = float(np.finfo(np.float32).smallest_normal)
        else:
            f = np.finfo(d.name)
            # resolution 10**-precision as a Python float (1e-06, as Paddle's), not numpy's
            # value in the dtype itself (float32's 1e-06 widens to 9.999999974752427e-07)
            self.bits, self.eps = int(f.bits), float(f.eps)
            self.resolution = 10.0 ** -int(f.precision)
            self.max, self.smallest_normal = float(f.max), float(f.smallest_normal)
        self.min = -self.max
        self.tiny = self.smallest_normal
        self.dtype = d.name

    def __repr__(self) -> str:
        return (f"oar.finfo(min={_g(self.min)}, max={_g(self.max)}, eps={_g(self.eps)}, "
                f"resolution={_g(self.resolution)}, smallest_normal={_g(self.smallest_normal)}, "
                f"tiny={_g(self.tiny)}, bits={self.bits}, dtype={self.dtype})")


class iinfo:
    """The limits of an integer (or bool) dtype: min, max, bits and dtype (the name).

    Examples:
        >>> import oar
        >>> print(oar.iinfo(oar.uint8))
        oar.iinfo(min=0, max=255, bits=8, dtype=uint8)
    """

    min: int
    max: int
    bits: int
    dtype: str

    def __init__(self, dtype: Any) -> None:
        d = _dtype_arg("iinfo", dtype)
        if d.is_floating_point or d.is_complex:
            raise TypeError(f"iinfo(): argument 'dtype' must be an integer dtype, but got "
                            f"{d.name} (use oar.finfo)")
        if d is bool_:
            self.min, self.max, self.bits = 0, 1, 8
        else:
            i = np.iinfo(d.name)
            self.min, self.max, self.bits = int(i.min), int(i.max), int(i.bits)
        self.dtype = d.name

    def __repr__(self) -> str:
        return f"oar.iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype})"


# ---- the default dtype ---------------------------------------------------------------------
def get_default_dtype() -> str:
    """The floating dtype Python floats and the creation functions default to, by name.

    Examples:
        >>> import oar
        >>> oar.get_default_dtype()
        'float32'
    """
    from ._creation import default_float
    return default_float().name


def set_default_dtype(d: Any) -> None:
    """Sets the default floating dtype: float16, bfloat16, float32 or float64 (a complex
    default follows: complex128 with float64, else complex64). It applies to to_tensor of
    Python floats and to the creation functions (zeros, ones, full, rand, randn, linspace,
    arange with float arguments, ...); layers keep their own dtype argument.

    Examples:
        >>> import oar
        >>> oar.set_default_dtype('float64')
        >>> print(oar.to_tensor([1.5]).dtype, oar.zeros([2]).dtype)
        oar.float64 oar.float64
        >>> oar.set_default_dtype('float32')
    """
    from . import _creation
    dt = _dtype_arg("set_default_dtype", d)
    if not dt.is_floating_point:
        raise TypeError(f"set_default_dtype(): argument 'd' must be float16, bfloat16, "
                        f"float32 or float64, but got {dt.name}")
    _creation.set_default_float(dt)


# ---- random generator state ----------------------------------------------------------------
# one GeneratorState class for oar.get_rng_state and oar.device.get_rng_state
from .framework.random import GeneratorState  # noqa: E402


def _cpu_device(api, device):
    if device is not None:
        from .device import _to_place
        _to_place(device, api)


def get_rng_state(device: Any = None) -> list[GeneratorState]:
    """The state of the random generator of `device` (only the CPU's), as a one-element list.

    Examples:
        >>> import oar
        >>> state = oar.get_rng_state()
        >>> a = oar.rand([3])
        >>> oar.set_rng_state(state)
        >>> print(bool((oar.rand([3]) == a).all()))
        True
    """
    _cpu_device("get_rng_state", device)
    return [GeneratorState(*_C._get_rng_state())]


def set_rng_state(state_list: Sequence[GeneratorState], device: Any = None) -> None:
    """Restores a state get_rng_state returned."""
    _cpu_device("set_rng_state", device)
    if isinstance(state_list, GeneratorState):
        state_list = [state_list]
    if not isinstance(state_list, (list, tuple)) or len(state_list) != 1 or \
            not isinstance(state_list[0], GeneratorState):
        raise TypeError(f"set_rng_state(): argument 'state_list' must be the one-element list "
                        f"get_rng_state() returns, but got {state_list!r}")
    s = state_list[0]
    _C._set_rng_state(s._seed, s._counter)


def get_cuda_rng_state() -> list[GeneratorState]:
    """The states of the CUDA generators: none in oar (a CPU build), so an empty list, as
    Paddle's CPU build answers."""
    return []


def set_cuda_rng_state(state_list: Sequence[GeneratorState]) -> None:
    """Restores the CUDA generators' states: only the empty list of a CPU build is valid."""
    if not isinstance(state_list, (list, tuple)):
        raise TypeError(f"set_cuda_rng_state(): argument 'state_list' must be a list, but got "
                        f"{type(state_list).__name__}")
    if len(state_list):
        raise ValueError("set_cuda_rng_state(): oar is built for the CPU only and has no CUDA "
                         "generators; the only valid state list is []")


# ---- DLPack and numpy ----------------------------------------------------------------------
_KDLCPU = 1


def _tensor_dlpack(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: Any = None) -> Any:
    """A DLPack capsule of this tensor's memory (the data is shared, not copied)."""
    if stream is not None:
        raise ValueError("__dlpack__(): argument 'stream' must be None for a CPU tensor")
    if copy:
        return _C._to_dlpack(_C.assign(self.detach()))
    return _C._to_dlpack(self.detach())


def _tensor_dlpack_device(self) -> tuple[int, int]:
    """(kDLCPU, 0): oar tensors live in CPU memory."""
    return (_KDLCPU, 0)


def to_dlpack(x: Tensor) -> Any:
    """A DLPack capsule ("dltensor") sharing x's memory; from_dlpack (in oar, numpy, torch,
    ...) turns it back into a tensor without a copy, once.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 2.0])
        >>> y = oar.from_dlpack(oar.to_dlpack(x))
        >>> y[0] = 5.0
        >>> print(x.tolist())
        [5.0, 2.0]
    """
    C.tensor("to_dlpack", "x", x)
    return _C._to_dlpack(x.detach())


def from_dlpack(dlpack: Any, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """A tensor sharing the memory of a DLPack capsule or of an object with __dlpack__ and
    __dlpack_device__ (a numpy array, a torch CPU tensor, an oar tensor). copy=True copies.

    Examples:
        >>> import oar
        >>> import numpy as np
        >>> a = np.array([1.0, 2.0])
        >>> t = oar.from_dlpack(a)
        >>> t[1] = 7.0
        >>> print(a)
        [1. 7.]
    """
    _cpu_device("from_dlpack", device)
    if isinstance(dlpack, Tensor):
        return _C.assign(dlpack) if copy else dlpack.detach()
    if type(dlpack).__name__ == "PyCapsule":
        capsule = dlpack
    elif hasattr(dlpack, "__dlpack__") and hasattr(dlpack, "__dlpack_device__"):
        dev = dlpack.__dlpack_device__()
        if int(dev[0]) != _KDLCPU:
            raise ValueError(f"from_dlpack(): the data lives on device {tuple(dev)}; oar is "
                             f"built for the CPU only (kDLCPU = 1)")
        try:
            capsule = dlpack.__dlpack__()
        except BufferError as e:  # e.g. a read-only numpy array
            raise TypeError(f"from_dlpack(): the object cannot export its data: {e}") from None
    else:
        raise TypeError(f"from_dlpack(): argument 'dlpack' must be a DLPack capsule or an "
                        f"object with __dlpack__ and __dlpack_device__, but got "
                        f"{type(dlpack).__name__}")
    t = _C._from_dlpack(capsule)
    return _C.assign(t) if copy else t


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
        raise TypeError(f"from_numpy(): argument 'ndarray' must be a numpy.ndarray, but got "
                        f"{type(ndarray).__name__}")
    from ._creation import to_tensor
    return to_tensor(ndarray)


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool = False) -> Tensor:
    """A tensor of obj (data, a numpy array, a tensor); a tensor of the same dtype is
    returned as is unless copy=True (its stop_gradient then follows requires_grad).

    Examples:
        >>> import oar
        >>> print(oar.asarray([[1, 2]], dtype='float32'))
        Tensor(shape=[1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1., 2.]])
    """
    from ._creation import to_tensor
    _cpu_device("asarray", device)
    if isinstance(obj, Tensor) and copy is not True:
        want = None if dtype is None else _dtype_arg("asarray", dtype)
        if want is None or want is obj.dtype:
            t = obj.detach() if copy is None else obj
            if copy is None:
                t.stop_gradient = not requires_grad
            return t
        if copy is False:
            raise ValueError(f"asarray(): copy=False, but the dtype {want.name} differs from "
                             f"the tensor's {obj.dtype.name}")
    return to_tensor(obj, dtype=dtype, stop_gradient=not requires_grad)


def is_tensor(x: Any) -> bool:
    """Whether x is an oar Tensor.

    Examples:
        >>> import oar
        >>> print(oar.is_tensor(oar.ones([2])), oar.is_tensor([1, 2]))
        True False
    """
    return isinstance(x, Tensor)


def batch(reader: Callable[[], Iterator[Any]], batch_size: int,
          drop_last: bool = False) -> Callable[[], Iterator[list[Any]]]:
    """A reader that yields lists of batch_size items of `reader`'s (the last one shorter
    unless drop_last).

    Examples:
        >>> import oar
        >>> reader = oar.batch(lambda: iter(range(5)), 2)
        >>> print(list(reader()))
        [[0, 1], [2, 3], [4]]
    """
    batch_size = C.integer("batch", "batch_size", batch_size)
    if batch_size <= 0:
        raise ValueError(f"batch(): argument 'batch_size' must be a positive int, but got "
                         f"{batch_size}")
    if not callable(reader):
        raise TypeError(f"batch(): argument 'reader' must be callable, but got "
                        f"{type(reader).__name__}")

    def batch_reader():
        b = []
        for item in reader():
            b.append(item)
            if len(b) == batch_size:
                yield b
                b = []
        if b and not drop_last:
            yield b
    return batch_reader


class MmapStorage:
    """A file mapped into memory, nbytes long; get_slice reads a run of its elements as a
    1-D tensor that shares the mapped memory (writes go to the file).

    Examples:
        >>> import oar, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "a.bin")
        >>> oar.arange(6, dtype="float32").numpy().tofile(path)
        >>> m = oar.MmapStorage(path, 24)
        >>> print(m.get_slice(oar.float32, 2, 5).tolist())
        [2.0, 3.0, 4.0]
    """

    def __init__(self, filename: str, nbytes: int) -> None:
        import os
        nbytes = C.integer("MmapStorage", "nbytes", nbytes)
        if not isinstance(filename, (str, os.PathLike)):
            raise TypeError(f"MmapStorage(): argument 'filename' must be a str or path, but got "
                            f"{type(filename).__name__}")
        if nbytes <= 0:
            raise ValueError(f"MmapStorage(): argument 'nbytes' must be positive, but got {nbytes}")
        size = os.path.getsize(filename)
        if nbytes > size:
            raise ValueError(f"MmapStorage(): the file has {size} bytes, fewer than nbytes "
                             f"({nbytes})")
        self._map = np.memmap(filename, dtype=np.uint8, mode="r+", shape=(nbytes,))

    def get_slice(self, dtype: Any, start: int, stop: int, step: int = 1) -> Tensor:
        """Elements start..stop (by step) of the file read as dtype, sharing its memory."""
        d = _dtype_arg("get_slice", dtype)
        if d is bfloat16:
            raise TypeError("MmapStorage.get_slice(): bfloat16 has no numpy view; read the "
                            "raw uint16 and convert")
        items = self._map.view(np.dtype(d.name)) if self._map.size % d.itemsize == 0 else \
            self._map[:self._map.size - self._map.size % d.itemsize].view(np.dtype(d.name))
        for n, v in (("start", start), ("stop", stop), ("step", step)):
            C.integer("get_slice", n, v)
        if not 0 <= start <= stop <= items.size or step <= 0:
            raise IndexError(f"MmapStorage.get_slice(): [{start}:{stop}:{step}] is outside the "
                             f"{items.size} elements of {d.name}")
        return _C._from_buffer(items[start:stop:step], None, False)


# ---- random tensors like another ------------------------------------------------------------
def _like(api, x, dtype, device, requires_grad):
    C.tensor(api, "x", x)
    _cpu_device(api, device)
    d = x.dtype if dtype is None else _dtype_arg(api, dtype)
    if not d.is_floating_point:
        raise TypeError(f"{api}(): the result's dtype must be floating, but it is {d.name}")
    return d


def rand_like(input: Tensor, name: str | None = None, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """Uniform random numbers in [0, 1) with input's shape (and dtype, unless given).

    Examples:
        >>> import oar
        >>> r = oar.rand_like(oar.zeros([2, 3], dtype='float64'))
        >>> print(r.shape, r.dtype, bool(((r >= 0) & (r < 1)).all()))
        oar.Size([2, 3]) oar.float64 True
    """
    d = _like("rand_like", input, dtype, device, requires_grad)
    out = _C.uniform(input.shape, d, 0.0, 1.0, 0)
    out.stop_gradient = not requires_grad
    return out


def randn_like(x: Tensor, dtype: Any = None, name: str | None = None, *, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    """Standard normal random numbers with x's shape (and dtype, unless given).

    Examples:
        >>> import oar
        >>> r = oar.randn_like(oar.zeros([2, 3]))
        >>> print(r.shape, r.dtype)
        oar.Size([2, 3]) oar.float32
    """
    d = _like("randn_like", x, dtype, device, requires_grad)
    out = _C.normal(x.shape, 0.0, 1.0, 0, d)
    out.stop_gradient = not requires_grad
    return out


# ---- oar.tensor: Paddle's callable namespace ------------------------------------------------
def create_tensor(dtype: Any, name: str | None = None, persistable: bool = False) -> Tensor:
    """An empty (shape [0]) tensor of dtype, to be filled later (Paddle's create_tensor).

    Examples:
        >>> import oar
        >>> print(oar.create_tensor('float32').shape)
        oar.Size([0])
    """
    return _C.full([0], 0, _dtype_arg("create_tensor", dtype))


def _tensor_fn(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of data (Paddle's paddle.tensor(...), torch-style):
    requires_grad sets stop_gradient = not requires_grad."""
    from ._creation import to_tensor
    _cpu_device("tensor", device)
    return to_tensor(data, dtype=dtype, stop_gradient=not requires_grad)


# The submodules of Paddle's paddle.tensor and the names each holds (those oar has).
_TENSOR_SUBMODULES = {
    "creation": ["to_tensor", "zeros", "ones", "full", "empty", "arange", "linspace",
                 "logspace", "eye", "zeros_like", "ones_like", "full_like", "empty_like",
                 "diag", "diagflat", "diag_embed", "tril", "triu", "tril_indices",
                 "triu_indices", "meshgrid", "assign", "clone", "complex", "polar",
                 "cartesian_prod", "create_tensor", "range", "from_dlpack", "asarray"],
    "math": ["abs", "add", "add_n", "subtract", "multiply", "divide", "floor_divide",
             "remainder", "mod", "floor_mod", "pow", "exp", "log", "log2", "log10", "log1p",
             "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "sum", "nansum",
             "mean", "nanmean", "prod", "max", "min", "amax", "amin", "maximum", "minimum",
             "fmax", "fmin", "cumsum", "cumprod", "logcumsumexp", "logsumexp", "clip",
             "trunc", "frac", "round", "sign", "sgn", "lerp", "erf", "erfinv", "lgamma",
             "digamma", "polygamma", "gammaln", "gammainc", "gammaincc", "multigammaln",
             "i0", "i0e", "i1", "i1e", "sinc", "logit", "logaddexp", "hypot", "copysign",
             "nextafter", "ldexp", "frexp", "gcd", "lcm", "diff", "trapezoid",
             "cumulative_trapezoid", "deg2rad", "rad2deg", "heaviside", "increment",
             "renorm", "inner", "outer", "kron", "trace", "isfinite", "isinf", "isnan",
             "isposinf", "isneginf", "isreal", "signbit", "stanh", "neg", "negative",
             "positive", "mm", "addmm", "baddbmm", "mul", "reduce_as", "vander", "count_nonzero",
             "take", "scale", "reciprocal", "square", "atan2", "nan_to_num"],
    "manipulation": ["reshape", "flatten", "squeeze", "unsqueeze", "transpose", "concat",
                     "stack", "split", "tensor_split", "hsplit", "vsplit", "dsplit", "chunk",
                     "unbind", "unstack", "tile", "expand", "expand_as", "broadcast_to",
                     "broadcast_tensors", "flip", "roll", "rot90", "gather", "gather_nd",
                     "scatter", "scatter_nd", "scatter_nd_add", "put_along_axis",
                     "take_along_axis", "index_select", "index_put", "index_add", "index_fill",
                     "masked_fill", "masked_scatter", "slice", "strided_slice", "crop",
                     "narrow", "moveaxis", "permute", "ravel", "view", "view_as", "as_strided",
                     "unfold", "unflatten", "atleast_1d", "atleast_2d", "atleast_3d",
                     "hstack", "vstack", "dstack", "column_stack", "row_stack", "block_diag",
                     "select_scatter", "slice_scatter", "diagonal_scatter", "scatter_add",
                     "scatter_reduce", "repeat_interleave", "shard_index", "cast", "tolist",
                     "matrix_transpose", "unique_consecutive", "unique"],
    "search": ["argmax", "argmin", "argsort", "sort", "msort", "topk", "kthvalue", "mode",
               "nonzero", "argwhere", "where", "masked_select", "index_sample", "searchsorted",
               "bucketize", "isin"],
    "stat": ["mean", "std", "var", "median", "nanmedian", "quantile", "nanquantile", "numel"],
    "logic": ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
              "logical_and", "logical_or", "logical_not", "logical_xor", "bitwise_and",
              "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert",
              "bitwise_left_shift", "bitwise_right_shift", "allclose", "isclose", "equal_all",
              "is_empty", "is_tensor", "gt", "ge", "lt", "le", "eq", "ne"],
    "random": ["rand", "randn", "randint", "randint_like", "randperm", "uniform", "normal",
               "standard_normal", "bernoulli", "binomial", "poisson", "multinomial",
               "rand_like", "randn_like"],
    "linalg": ["matmul", "bmm", "dot", "mv", "cross", "cdist", "pdist", "dist", "norm",
               "tensordot", "cholesky", "inverse", "histogram", "histogramdd",
               "histogram_bin_edges", "bincount"],
    "attribute": ["rank", "shape", "real", "imag", "is_complex", "is_floating_point",
                  "is_integer"],
    "einsum": ["einsum"],
}


class _TensorNamespace(types.ModuleType):
    """oar.tensor: callable like Paddle's paddle.tensor(data, ...) (a new tensor) and a
    namespace of the tensor functions, by Paddle's submodules (oar.tensor.math.frexp,
    oar.tensor.search.argwhere, oar.tensor.triu, ...)."""

    def __call__(self, data: Any, dtype: Any = None, device: Any = None,
                 requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
        return _tensor_fn(data, dtype, device, requires_grad, pin_memory)


tensor = _TensorNamespace("oar.tensor", _TensorNamespace.__doc__)  # filled by oar/__init__.py


def _build_tensor_namespace(oar_module):
    """Fills oar.tensor from the finished oar module (called at the end of its import)."""
    ns = tensor
    for sub, names in _TENSOR_SUBMODULES.items():
        m = types.ModuleType(f"oar.tensor.{sub}")
        for n in names:
            if hasattr(oar_module, n):
                setattr(m, n, getattr(oar_module, n))
                setattr(ns, n, getattr(oar_module, n))
        setattr(ns, sub, m)
        sys.modules[f"oar.tensor.{sub}"] = m
    ns.create_tensor = create_tensor
    sys.modules["oar.tensor"] = ns
    return ns



