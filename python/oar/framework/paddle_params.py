"""The weights file of a paddle.jit.save model (`.pdiparams`): Paddle's stream of
serialized tensors, read with every length checked against the file before use.

Each tensor, in the order of its variable name, is: uint32 version (0); uint64 LoD
level, then per level a uint64 byte count and that many bytes of offsets; uint32
tensor version (0); int32 size of a TensorDesc protobuf, the message (field 1: data
type, Paddle's VarType enum; field 2: dims, int64s), then the little-endian data. The
names are the parameters of the program saved beside it (`<prefix>.json`, Paddle's PIR
program); without it the tensors come back as a list in file order.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

import numpy as np

from .. import _C
from .checkpoint_error import CheckpointError
from .dtype import bfloat16_from_bits

__all__ = ["is_param_stream", "load_params"]

Tensor = _C.Tensor

# Paddle's VarType.Type codes (framework.proto) -> numpy dtype of the bytes, oar dtype
_TYPES = {
    0: (np.bool_, "bool"),
    1: (np.int16, "int16"),
    2: (np.int32, "int32"),
    3: (np.int64, "int64"),
    4: (np.float16, "float16"),
    5: (np.float32, "float32"),
    6: (np.float64, "float64"),
    20: (np.uint8, "uint8"),
    21: (np.int8, "int8"),
    22: (np.uint16, "bfloat16"),
    23: (np.complex64, "complex64"),
    24: (np.complex128, "complex128"),
}
_MAX_DESC = 1 << 20  # a TensorDesc is a few bytes; more is not Paddle's stream


def is_param_stream(head: bytes) -> bool:
    """Whether `head` may start Paddle's tensor stream: versions 0, LoD level small."""
    if len(head) < 16:
        return False
    version, lod_level, tensor_version = struct.unpack_from("<IQI", head)
    return version == 0 and lod_level < 16 and tensor_version == 0


class _Reader:
    def __init__(self, label: str, buf: memoryview) -> None:
        self.label, self.buf, self.pos = label, buf, 0

    def fail(self, what: str) -> None:
        raise CheckpointError(
            f"oar.load: {self.label!r} is not a valid Paddle parameter file: {what} "
            f"(at byte {self.pos})"
        )

    def take(self, n: int, what: str) -> memoryview:
        if n < 0 or n > len(self.buf) - self.pos:
            self.fail(f"{what} needs {n} bytes, the file has {len(self.buf) - self.pos} left")
        out = self.buf[self.pos : self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str, what: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what))[0]


def _varint(r: _Reader, desc: memoryview, i: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        if i >= len(desc) or shift > 63:
            r.fail("a truncated varint in the tensor description")
        b = desc[i]
        value |= (b & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if not b & 0x80:
            return value, i


def _desc(r: _Reader, desc: memoryview) -> tuple[int, list[int]]:
    """(data type, dims) of a TensorDesc message."""
    dtype, dims, i = None, [], 0
    while i < len(desc):
        key, i = _varint(r, desc, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, i = _varint(r, desc, i)
            if field == 1:
                dtype = v
            elif field == 2:
                dims.append(v - (1 << 64) if v >= 1 << 63 else v)
        elif wire == 2:
            n, i = _varint(r, desc, i)
            if i + n > len(desc):
                r.fail("a truncated field in the tensor description")
            if field == 2:  # packed dims
                j = i
                while j < i + n:
                    v, j = _varint(r, desc, j)
                    dims.append(v - (1 << 64) if v >= 1 << 63 else v)
            i += n
        elif wire in (1, 5):
            i += 8 if wire == 1 else 4
        else:
            r.fail(f"protobuf wire type {wire} in the tensor description")
    if dtype is None:
        r.fail("the tensor description has no data type")
    return dtype, dims


def _tensor(r: _Reader, return_numpy: bool) -> Any:
    if r.unpack("<I", "the version") != 0:
        r.fail("version is not 0")
    for _ in range(r.unpack("<Q", "the LoD level")):
        r.take(r.unpack("<Q", "a LoD level's size"), "a LoD level")
    if r.unpack("<I", "the tensor version") != 0:
        r.fail("tensor version is not 0")
    size = r.unpack("<i", "the tensor description's size")
    if not 0 < size <= _MAX_DESC:
        r.fail(f"a tensor description of {size} bytes")
    code, dims = _desc(r, r.take(size, "the tensor description"))
    if code not in _TYPES:
        r.fail(f"data type code {code}, which oar does not read")
    if any(d < 0 for d in dims):
        r.fail(f"negative dims {dims}")
    npd, name = _TYPES[code]
    count = 1
    for d in dims:
        count *= d
    data = r.take(count * np.dtype(npd).itemsize, f"a tensor of shape {dims}")
    try:
        arr = np.frombuffer(data, dtype=np.dtype(npd).newbyteorder("<")).reshape(dims).copy()
        if return_numpy:
            return arr
        if name == "bfloat16":
            return bfloat16_from_bits(arr)
        return Tensor(arr)
    except (ValueError, TypeError) as e:  # more dims than numpy or oar hold, ...
        r.fail(f"a tensor of shape {dims} and type {name}: {e}")


def _program_params(path: str) -> list[tuple[str, list[int]]] | None:
    """(name, shape) of the parameters of the PIR program next to a .pdiparams file."""
    prefix = path[: -len(".pdiparams")] if path.endswith(".pdiparams") else path
    program = prefix + ".json"
    if not os.path.isfile(program):
        return None
    try:
        with open(program) as f:
            doc = json.load(f)
        out = []
        for region in doc["program"]["regions"]:
            for block in region["blocks"]:
                for op in block["ops"]:
                    if op.get("#") == "p":  # a parameter: its name is the last attribute
                        shape = op["O"]["TT"]["D"][1]
                        out.append((op["A"][-1], list(shape)))
        return sorted(out)
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        raise CheckpointError(
            f"oar.load: {program!r}, the program beside {path!r}, cannot be read for "
            f"the parameter names ({type(e).__name__}: {e})"
        ) from None


def load_params(path: str, buf: memoryview, **configs: Any) -> Any:
    """The tensors of a .pdiparams file: {name: Tensor} named from the program beside
    it (Paddle's variable names, e.g. "linear_0.w_0"), else a list in file order."""
    # a copy: a view into the caller's memory map must not outlive it in an error's frames
    r = _Reader(path, memoryview(bytes(buf)))
    tensors = []
    while r.pos < len(r.buf):
        tensors.append(_tensor(r, bool(configs.get("return_numpy", False))))
    params = _program_params(path)
    if params is None:
        return tensors
    if len(params) != len(tensors):
        r.fail(f"{len(tensors)} tensors, but the program beside it has {len(params)} parameters")
    out = {}
    for (name, shape), t in zip(params, tensors):
        if list(t.shape) != shape:
            r.fail(f"parameter {name!r} has shape {list(t.shape)}, the program says {shape}")
        if isinstance(t, Tensor):
            t.name = name
        out[name] = t
    return out
