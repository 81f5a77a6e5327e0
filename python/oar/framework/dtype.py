"""dtype objects: oar.float32 ... (Paddle's paddle.float32)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .. import _C


def api_name() -> str:
    """The name dtypes and sizes print under: 'paddle' while this package is what
    `import paddle` gives (a Paddle program run on oar through an import alias, which
    then prints `paddle.float32` as on Paddle), else 'oar'."""
    alias = sys.modules.get("paddle")
    return (
        "paddle"
        if alias is not None and alias is sys.modules.get(__name__.partition(".")[0])
        else "oar"
    )


class dtype:
    """An element type. Compares equal to itself and to its name ('float32')."""

    __slots__ = ("name", "itemsize", "is_floating_point", "is_complex")

    def __init__(self, name, itemsize, is_floating_point, is_complex=False):
        self.name = name
        self.itemsize = itemsize
        self.is_floating_point = is_floating_point
        self.is_complex = is_complex

    def __repr__(self):
        return f"{api_name()}.{self.name}"

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self is other
        try:
            return convert_dtype(other) is self
        except (TypeError, ValueError):
            return False

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return (convert_dtype, (self.name,))


bool_ = dtype("bool", 1, False)
int32 = dtype("int32", 4, False)
int64 = dtype("int64", 8, False)
float16 = dtype("float16", 2, True)
bfloat16 = dtype("bfloat16", 2, True)
float32 = dtype("float32", 4, True)
float64 = dtype("float64", 8, True)
uint8 = dtype("uint8", 1, False)
int8 = dtype("int8", 1, False)
int16 = dtype("int16", 2, False)
complex64 = dtype("complex64", 8, False, True)
complex128 = dtype("complex128", 16, False, True)
# Storage only (src/oar/core/float8.h): casts to and from them, printing, numpy as raw
# int8; no arithmetic.
float8_e4m3fn = dtype("float8_e4m3fn", 1, True)
float8_e5m2 = dtype("float8_e5m2", 1, True)

# Paddle's uint16 is its bfloat16 (paddle.uint16 prints paddle.bfloat16; astype('uint16')
# makes a bfloat16 tensor). Its uint32 and uint64 are dtypes whose tensors Paddle's CPU
# build cannot make (to_tensor and astype raise): oar has the names and refuses them too.
uint16 = bfloat16
uint32 = dtype("uint32", 4, False)
uint64 = dtype("uint64", 8, False)
_NO_TENSORS = {"uint32": uint32, "uint64": uint64}

# In the C++ DType enum order (src/oar/core/dtype.h).
ALL = (
    bool_,
    int32,
    int64,
    float16,
    bfloat16,
    float32,
    float64,
    uint8,
    int8,
    int16,
    complex64,
    complex128,
    float8_e4m3fn,
    float8_e5m2,
)
_BY_NAME = {d.name: d for d in ALL}
_NAMES = (
    "bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, "
    "complex64, complex128, float8_e4m3fn, float8_e5m2"
)
_ALIASES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "int": "int64",
    "long": "int64",
    "fp16": "float16",
    "fp32": "float32",
    "fp64": "float64",
    "bf16": "bfloat16",
    "uint16": "bfloat16",
}
_C._set_dtype_objects(ALL)


class Place:
    """Where a tensor's memory lives (Paddle's Place). Only the CPU exists today."""

    __slots__ = ("kind", "device")

    def __init__(self, kind="cpu", device=0):
        self.kind = kind
        self.device = device

    def __repr__(self):
        return "Place(cpu)" if self.kind == "cpu" else f"Place({self.kind}:{self.device})"

    def __eq__(self, other):
        if isinstance(other, str):
            return repr(self) == other
        return isinstance(other, Place) and (self.kind, self.device) == (other.kind, other.device)

    def __hash__(self):
        return hash((self.kind, self.device))

    def is_cpu_place(self):
        return self.kind == "cpu"

    def is_gpu_place(self):
        return self.kind == "gpu"


def CPUPlace() -> Place:
    return Place("cpu")


def _refuse(name):
    raise TypeError(
        f"oar has no {name} tensors (nor has Paddle's CPU build); expected one of {_NAMES}"
    )


def convert_dtype(d: dtype | str | np.dtype | type) -> dtype:  # typing.DTypeLike
    """oar dtype from a dtype object, a name ('float32', 'paddle.float32') or a numpy dtype."""
    if isinstance(d, dtype):
        if d.name in _NO_TENSORS:
            _refuse(d.name)
        return d
    if isinstance(d, str):
        name = d.split(".")[-1]
        name = _ALIASES.get(name, name)
        if name in _BY_NAME:
            return _BY_NAME[name]
        if name in _NO_TENSORS:
            _refuse(name)
        raise TypeError(f"unknown dtype '{d}': expected one of {_NAMES}")
    if d is float:
        return float32
    if d is int:
        return int64
    if d is bool:
        return bool_
    if d is complex:
        return complex64
    try:
        name = np.dtype(d).name
    except (TypeError, ValueError):  # ValueError: e.g. a Tensor, which numpy tries to convert
        raise TypeError(
            f"expected a dtype (oar.float32, 'float32', a numpy dtype), got {d!r}"
        ) from None
    if name in _BY_NAME:
        return _BY_NAME[name]
    raise TypeError(f"numpy dtype {name} has no oar equivalent")


# The default floating dtype (oar.set_default_dtype): Python floats and the creation
# functions' float results take it; the default complex dtype follows it.
_DEFAULT_FLOAT = [float32]


def default_float() -> dtype:
    return _DEFAULT_FLOAT[0]


def set_default_float(d: dtype) -> None:
    _DEFAULT_FLOAT[0] = d


def default_complex() -> dtype:
    return complex128 if _DEFAULT_FLOAT[0] is float64 else complex64


def _dtype_arg(api, dtype):
    try:
        return convert_dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{api}(): argument 'dtype': {e}") from None


# ---- dtype limits --------------------------------------------------------------------------


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
        d = default_float() if dtype is None else _dtype_arg("finfo", dtype)
        if d.is_complex:
            d = float32 if d.name == "complex64" else float64
        if not d.is_floating_point:
            raise TypeError(
                f"finfo(): argument 'dtype' must be a floating or complex dtype, "
                f"but got {d.name} (use oar.iinfo)"
            )
        if d is bfloat16:
            # 8 exponent bits like float32, 7 fraction bits
            self.bits, self.eps, self.resolution = 16, 2.0**-7, 0.01
            self.max = float((2 - 2.0**-7) * 2.0**127)
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
        return (
            f"oar.finfo(min={_g(self.min)}, max={_g(self.max)}, eps={_g(self.eps)}, "
            f"resolution={_g(self.resolution)}, smallest_normal={_g(self.smallest_normal)}, "
            f"tiny={_g(self.tiny)}, bits={self.bits}, dtype={self.dtype})"
        )


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
            raise TypeError(
                f"iinfo(): argument 'dtype' must be an integer dtype, but got "
                f"{d.name} (use oar.finfo)"
            )
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
    dt = _dtype_arg("set_default_dtype", d)
    if not dt.is_floating_point:
        raise TypeError(
            f"set_default_dtype(): argument 'd' must be float16, bfloat16, "
            f"float32 or float64, but got {dt.name}"
        )
    set_default_float(dt)


def bfloat16_from_bits(bits: np.ndarray) -> Any:
    """A bfloat16 tensor from an array of its uint16 bit patterns (how safetensors, Paddle's
    checkpoints and numpy hold bfloat16): through float32, which holds every bfloat16
    exactly (the high 16 bits), so the bits come back unchanged."""
    f32 = (np.ascontiguousarray(bits).astype(np.uint32) << 16).view(np.float32)
    return _C.cast(_C.Tensor(f32), bfloat16)
