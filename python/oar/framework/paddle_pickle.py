"""Paddle's pickled checkpoints: read without running code from the file, and written
so that paddle.load reads them.

Note [Reading Paddle's pickles]
paddle.save writes a Python pickle (protocol 2 to 4): a state dict (Layer.state_dict(),
Optimizer.state_dict(), the .pdparams and .pdopt files) as a dict of numpy arrays plus a
table "StructuredToParameterName@@" of the tensors' names; any other object with each
tensor reduced to a (name, array) tuple (and a bare DenseTensor to
eval('data', {'data': array})). Paddle reads it back with pickle.load, which calls
whatever global the file names -- a file whose __reduce__ names os.system runs a command.
oar unpickles with find_class restricted to what those files hold: numpy's array, dtype
and scalar reconstruction, collections.OrderedDict, the builtin containers and numbers,
and two narrow forms checked by their arguments (codecs.encode of a latin-1 str, which
protocol 2 writes for bytes, and Paddle's eval('data', {'data': array}), answered
without calling eval). Any other global raises UnsafeCheckpointError naming it before
anything is called; object arrays are refused, and BUILD (setting an object's state)
applies only to numpy arrays and dtypes, in the plain forms numpy writes (numpy applies
a dtype's state unchecked: a fuzzed one crashed it); a truncated or corrupt pickle
raises CheckpointError. Every length field is read from what the source holds, so a
claimed length never allocates more than the file.
"""

from __future__ import annotations

import collections
import io
import math
import pickle
import struct
from typing import IO, Any, Callable

import numpy as np

from .. import _C
from .checkpoint_error import CheckpointError, UnsafeCheckpointError
from .dtype import bfloat16_from_bits

__all__ = ["is_pickle", "load_paddle", "save_paddle"]

Tensor = _C.Tensor

NAME_TABLE = "StructuredToParameterName@@"
UNPACK_INFO = "UnpackBigParamInfor@@"  # Paddle's spelling
PROTOCOLS = (2, 3, 4, 5)  # read; paddle.save writes 2 to 4


def is_pickle(head: bytes) -> bool:
    """Whether `head` (the first bytes of a file) starts a pickle of protocol 2 to 5."""
    return len(head) >= 3 and head[0] == 0x80 and head[1] in PROTOCOLS


# ---- the restricted unpickler -----------------------------------------------------------
# numpy's own reconstruction functions, as its arrays, dtypes and scalars reduce to them
# (the module is numpy.core in numpy 1, numpy._core in numpy 2: both are accepted).
_RECONSTRUCT = np.ndarray.__reduce__(np.empty(0))[0]
_SCALAR = np.float32(0).__reduce__()[0]
_FROMBUFFER = np.arange(2).__reduce_ex__(5)[0]


def _no_objects(label, d):
    if np.dtype(d).hasobject:
        raise UnsafeCheckpointError(label, "a numpy object array", "its elements are objects")
    return d


def _safe_callables(label: str) -> dict[tuple[str, str], Callable[..., Any]]:
    def reconstruct(subtype, shape, dtype):
        # numpy writes _reconstruct(ndarray, (0,), b'b') and then the state (BUILD)
        if subtype is not np.ndarray or shape != (0,):
            raise UnsafeCheckpointError(
                label, f"numpy _reconstruct of {subtype!r} with shape {shape!r:.40}"
            )
        return _RECONSTRUCT(subtype, shape, dtype)

    def dtype(obj, align=False, copy=False):
        if not isinstance(obj, str) or type(align) is not bool or type(copy) is not bool:
            raise UnsafeCheckpointError(
                label, "numpy.dtype", f"only of a type string, got {obj!r:.40}"
            )
        d = _no_objects(label, np.dtype(obj, align, copy))
        if d.kind not in "biufc" or d.subdtype is not None:
            raise CheckpointError(f"oar.load: {label!r}: numpy dtype {d} is not a tensor dtype")
        return d

    def scalar(d, data=None):
        _no_objects(label, d)
        return _SCALAR(d, data) if data is not None else _SCALAR(d)

    def frombuffer(buf, d, shape, order):
        _no_objects(label, d)
        return _FROMBUFFER(buf, d, shape, order)

    def encode(text, encoding="utf-8"):  # protocol 2's bytes: codecs.encode(str, 'latin1')
        if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
            raise UnsafeCheckpointError(label, "_codecs.encode", "only of a str to latin-1")
        return text.encode("latin1")

    def bytearray_(text=b"", encoding=None):  # protocol 2's bytearray(str, 'latin-1')
        if isinstance(text, str) and encoding in ("latin1", "latin-1"):
            return bytearray(text.encode("latin1"))
        if isinstance(text, (bytes, bytearray)) and encoding is None:
            return bytearray(text)
        raise UnsafeCheckpointError(label, "builtins.bytearray", "only of bytes or a str")

    def paddle_dense_tensor(expr, env=None, *rest):
        # Paddle reduces a DenseTensor to eval('data', {'data': array}): the array is the
        # answer; eval itself is never called.
        if (
            expr == "data"
            and not rest
            and isinstance(env, dict)
            and list(env) == ["data"]
            and isinstance(env["data"], np.ndarray)
        ):
            return env["data"]
        raise UnsafeCheckpointError(
            label, "builtins.eval", "only Paddle's eval('data', {'data': array}) is read"
        )

    allowed: dict[tuple[str, str], Callable[..., Any]] = {
        ("collections", "OrderedDict"): collections.OrderedDict,
        ("numpy", "ndarray"): np.ndarray,
        ("numpy", "dtype"): dtype,
        ("_codecs", "encode"): encode,
        ("codecs", "encode"): encode,
    }
    for core in ("numpy.core", "numpy._core"):
        allowed[(f"{core}.multiarray", "_reconstruct")] = reconstruct
        allowed[(f"{core}.multiarray", "scalar")] = scalar
        allowed[(f"{core}.numeric", "_frombuffer")] = frombuffer
    for builtins in ("builtins", "__builtin__"):  # __builtin__: Python 2's pickles
        for t in (tuple, list, dict, set, frozenset, complex, int, float, bool, str):
            allowed[(builtins, t.__name__)] = t
        allowed[(builtins, "bytearray")] = bytearray_
        allowed[(builtins, "eval")] = paddle_dense_tensor
    return allowed


_LITTLE = ("<", "|", "=") if np.little_endian else ("|",)


def _check_dtype_state(label, state):
    """numpy's state of a plain dtype, (3, byteorder, None, None, None, -1, -1, flags):
    numpy applies a dtype's state without checking it (a fuzzed one crashed it), so
    only this form is accepted, and it changes nothing a plain dtype has already."""
    if not (
        isinstance(state, tuple)
        and len(state) == 8
        and state[0] == 3
        and state[1] in _LITTLE
        and state[2:5] == (None, None, None)
        and state[5:7] == (-1, -1)
        and type(state[7]) is int
    ):
        raise CheckpointError(
            f"oar.load: {label!r}: a numpy dtype state oar does not read ({state!r:.80}): "
            f"only plain little-endian dtypes, as Paddle writes them"
        )


def _check_array_state(label, state):
    """numpy's state of an array, (1, shape, dtype, is_fortran, raw bytes)."""
    ok = (
        isinstance(state, tuple)
        and len(state) == 5
        and state[0] == 1
        and isinstance(state[1], tuple)
        and all(type(d) is int and d >= 0 for d in state[1])
        and isinstance(state[2], np.dtype)
        and not state[2].hasobject
        and type(state[3]) is bool
        and isinstance(state[4], (bytes, bytearray))
    )
    if not ok:
        raise CheckpointError(
            f"oar.load: {label!r}: a numpy array state oar does not read ({state!r:.80})"
        )


class _Unpickler(pickle._Unpickler):
    """Python's own unpickler (pickle._Unpickler) with find_class and BUILD restricted.
    Not the C one: its memo is an array sized by the largest index a PUT names, so a
    4-byte LONG_BINPUT index allocates gigabytes; this one keeps a dict. Every length
    field is read through read(n), which returns only what the source holds."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, file: IO[bytes], label: str) -> None:
        # latin1: how Paddle reads (numpy arrays of Python 2's pickles hold str bytes)
        super().__init__(file, encoding="latin1")
        self.label = label
        self.allowed = _safe_callables(label)

    def find_class(self, module: str, name: str) -> Any:
        fn = self.allowed.get((module, name))
        if fn is None:
            raise UnsafeCheckpointError(self.label, f"{module}.{name}")
        return fn

    def persistent_load(self, pid: Any) -> Any:
        raise UnsafeCheckpointError(self.label, "a persistent id", "torch.save's format")

    def load_build(self) -> None:
        # BUILD sets an object's state: only numpy's arrays and dtypes have one here
        state, target = self.stack[-1], self.stack[-2]
        if type(target) is np.dtype or isinstance(target, np.dtype):
            _check_dtype_state(self.label, state)
            self.stack.pop()  # the dtype numpy made already is that dtype
            return
        if type(target) is not np.ndarray:
            raise UnsafeCheckpointError(
                self.label, f"the state of {type(target).__name__} {target!r:.40}", "BUILD"
            )
        _check_array_state(self.label, state)
        super().load_build()

    dispatch[pickle.BUILD[0]] = load_build

    def load_bytearray8(self) -> None:
        # pickle._Unpickler allocates the length the file claims before reading it
        (n,) = struct.unpack("<Q", self.read(8))
        data = self.read(n)
        if len(data) != n:
            raise pickle.UnpicklingError(f"BYTEARRAY8 of {n} bytes, the file has {len(data)}")
        self.append(bytearray(data))

    dispatch[pickle.BYTEARRAY8[0]] = load_bytearray8


class _Bounded:
    """A stream read in pieces, so a length field in the pickle allocates only what the
    stream really holds, and never past what the pickle asks for (what follows it in
    the stream stays there); `head` (bytes already read) comes first."""

    def __init__(self, head: bytes, f: IO[bytes]) -> None:
        self.head, self.f = head, f

    def read(self, n: int = -1) -> bytes:
        parts, got = [], 0
        if self.head:
            k = len(self.head) if n < 0 else min(n, len(self.head))
            parts.append(self.head[:k])
            self.head, got = self.head[k:], k
        while n < 0 or got < n:
            piece = self.f.read(1 << 24 if n < 0 else min(n - got, 1 << 24))
            if not isinstance(piece, (bytes, bytearray)):
                raise TypeError(
                    f"the stream must be opened in binary mode (read() gave {type(piece).__name__})"
                )
            if not piece:
                break
            parts.append(piece)
            got += len(piece)
        return b"".join(parts)

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def readline(self) -> bytes:
        out = bytearray()
        while not out.endswith(b"\n"):
            c = self.read(1)
            if not c:
                break
            out += c
        return bytes(out)


def unpickle(label: str, source: bytes | memoryview | IO[bytes], head: bytes = b"") -> Any:
    """The object pickled in `source` (a buffer, or a stream after `head`), restricted."""
    f: Any = (
        io.BytesIO(source) if isinstance(source, (bytes, memoryview)) else _Bounded(head, source)
    )
    try:
        return _Unpickler(f, label).load()
    except CheckpointError:
        raise
    except Exception as e:  # anything else the unpickler meets is a corrupt file
        raise CheckpointError(
            f"oar.load: {label!r} is not a valid Paddle checkpoint: the pickle is "
            f"truncated or corrupt ({type(e).__name__}: {e})"
        ) from None


# ---- Paddle's layout -> oar's objects ----------------------------------------------------
def _tensor(label, arr, name=None):
    if arr.dtype.hasobject:
        raise UnsafeCheckpointError(label, "a numpy object array", "its elements are objects")
    if arr.dtype == np.uint16:  # Paddle keeps bfloat16 as its uint16 bits
        t = bfloat16_from_bits(arr)
    else:
        try:
            t = Tensor(np.ascontiguousarray(arr))
        except (TypeError, ValueError) as e:
            raise CheckpointError(
                f"oar.load: {label!r}: an array of dtype {arr.dtype} cannot become a tensor ({e})"
            ) from None
    if name:
        t.name = name
    return t


def _is_named_array(obj):  # how paddle.save pickles a Tensor outside a state dict
    return (
        isinstance(obj, tuple)
        and len(obj) == 2
        and isinstance(obj[0], str)
        and isinstance(obj[1], np.ndarray)
    )


def _contains(obj, pred, depth=0):
    if pred(obj):
        return True
    if depth > 500:
        return False
    if isinstance(obj, dict):
        return any(_contains(v, pred, depth + 1) for v in obj.values())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return any(_contains(v, pred, depth + 1) for v in obj)
    return False


def _convert(obj, pred, fn):
    if pred(obj):
        return fn(obj)
    if isinstance(obj, dict):  # OrderedDict stays one
        for k in list(obj):
            obj[k] = _convert(obj[k], pred, fn)
        return obj
    if isinstance(obj, list):
        return [_convert(v, pred, fn) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_convert(v, pred, fn) for v in obj)
    return obj


def _pack_big_arrays(label, d):
    """Paddle splits arrays over 1 GiB into slices under protocol 2 and 3."""
    info = d.pop(UNPACK_INFO, None)
    if info is None:
        return d
    try:
        for key, value in info.items():
            parts = [d.pop(p) for p in value["slices"]]
            d[key] = np.concatenate(parts).reshape(value["OriginShape"])
    except (KeyError, TypeError, ValueError) as e:
        raise CheckpointError(
            f"oar.load: {label!r}: the split arrays table {UNPACK_INFO} is corrupt ({e})"
        ) from None
    return d


def from_paddle(label: str, obj: Any, return_numpy: bool = False, keep_name_table: bool = False):
    """What paddle.load returns for the unpickled `obj`, with oar tensors."""
    if isinstance(obj, dict):
        obj = _pack_big_arrays(label, obj)
        table = obj.get(NAME_TABLE)
        if isinstance(table, dict):
            for key, name in table.items():
                if isinstance(obj.get(key), np.ndarray) and not return_numpy:
                    obj[key] = _tensor(label, obj[key], name if isinstance(name, str) else None)
            if not keep_name_table:
                del obj[NAME_TABLE]
            return obj
    if _contains(obj, _is_named_array):
        fn = (lambda p: p[1]) if return_numpy else (lambda p: _tensor(label, p[1], p[0]))
        return _convert(obj, _is_named_array, fn)
    if return_numpy:
        return obj
    return _convert(obj, lambda a: isinstance(a, np.ndarray), lambda a: _tensor(label, a))


def load_paddle(label: str, source: Any, head: bytes = b"", **configs: Any) -> Any:
    """paddle.load of a pickled checkpoint, restricted (Note [Reading Paddle's pickles]).
    configs: return_numpy (arrays, not tensors), keep_name_table (a state dict keeps
    Paddle's "StructuredToParameterName@@" table)."""
    obj = unpickle(label, source, head)
    try:
        return from_paddle(
            label,
            obj,
            bool(configs.get("return_numpy", False)),
            bool(configs.get("keep_name_table", False)),
        )
    except RecursionError:
        raise CheckpointError(f"oar.load: {label!r}: the object is nested too deeply") from None


# ---- oar -> Paddle's pickle ----------------------------------------------------------------
def _array(t):
    t = t.detach().contiguous()
    if t.dtype.name == "bfloat16":  # as Paddle writes it: the uint16 bits
        return np.array(np.asarray(t._readonly_buffer()).view(np.uint16))
    return t.numpy()  # a copy


def _is_state_dict(obj):
    """paddle.save's test: a dict whose values are tensors, or dicts holding no tensor."""
    if not isinstance(obj, dict):
        return False
    for v in obj.values():
        if isinstance(v, dict):
            if _contains(v, lambda x: isinstance(x, Tensor)):
                return False
        elif not isinstance(v, Tensor):
            return False
    return True


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, Tensor):  # paddle.save's form: (name, array)
            return tuple, ((obj.name, _array(obj)),)
        return NotImplemented


def _split_big_arrays(d, protocol):
    """Paddle's split of arrays over 1 GiB for protocols 2 and 3 (their 4 GiB limit)."""
    if protocol >= 4:
        return d
    out, info = {}, {}
    for key, value in d.items():
        if isinstance(value, np.ndarray):
            limit = (2**30 - 1) // value.dtype.itemsize
            if value.size > limit:
                flat = value.reshape(-1)
                info[key] = {"OriginShape": value.shape, "slices": []}
                for i in range(math.ceil(value.size / limit)):
                    part = f"{key}@@.{i}"
                    info[key]["slices"].append(part)
                    out[part] = flat[i * limit : (i + 1) * limit]
                continue
        out[key] = value
    if info:
        out[UNPACK_INFO] = info
    return out


def save_paddle(obj: Any, f: IO[bytes], protocol: int = 4) -> None:
    """Writes obj as paddle.save does, for paddle.load: a state dict as a dict of numpy
    arrays with Paddle's name table, anything else pickled with tensors as (name, array)
    tuples. Only numpy arrays, tensors, containers and plain values are accepted."""
    if not isinstance(protocol, int) or isinstance(protocol, bool) or not 2 <= protocol <= 4:
        raise ValueError(
            f"oar.save: argument 'protocol' must be 2, 3 or 4 for format='paddle' (what "
            f"paddle.load reads), got {protocol!r}"
        )
    _check_plain(obj, "<root>")
    if _is_state_dict(obj):
        saved: dict[Any, Any] = {}
        names = {}
        for key, value in obj.items():
            if isinstance(value, Tensor):
                saved[key] = _array(value)
                names[key] = value.name
            else:
                saved[key] = value
        saved = _split_big_arrays(saved, protocol)
        saved[NAME_TABLE] = names
        pickle.dump(saved, f, protocol=protocol)
        return
    _Pickler(f, protocol).dump(obj)


def _check_plain(obj, where, depth=0):
    if depth > 200:
        raise ValueError(f"oar.save: the object is nested too deeply (at {where})")
    if isinstance(obj, (Tensor, np.ndarray, np.generic)) or obj is None:
        return
    if isinstance(obj, (bool, int, float, complex, str, bytes)):
        return
    if isinstance(obj, dict):
        for k, v in obj.items():
            _check_plain(k, where, depth + 1)
            _check_plain(v, f"{where}.{k}", depth + 1)
        return
    if isinstance(obj, (list, tuple, set, frozenset)):
        for i, v in enumerate(obj):
            _check_plain(v, f"{where}.{i}", depth + 1)
        return
    raise TypeError(
        f"oar.save: cannot save a {type(obj).__name__} (at {where}) in Paddle's format: "
        f"tensors, numpy arrays, dicts, lists, tuples, sets and plain values only (what "
        f"oar.load reads back without running code)"
    )
