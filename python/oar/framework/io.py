"""oar.save / oar.load: checkpoints as safetensors files; Paddle's pickled checkpoints
are read (and written on request) by .paddle_pickle without running code from the file.

The file is a standard safetensors file (docs/checkpoints.md): an 8-byte
little-endian header length, a JSON header naming every tensor (dtype, shape,
byte range), then the raw little-endian bytes. Each tensor is stored under its
flattened path in the saved object ("fc.weight", "opt.state.3.moment1"), so the
`safetensors` package and any other reader see plain named weights. What is not
a tensor (the nesting of dicts, lists and tuples; ints, floats, strings, bools,
None) is kept in the header's __metadata__ as JSON, with a format name and
version. Loading reads the header, checks every field against the file size
before touching data, and copies each tensor out of a read-only memory map: a
corrupt, truncated or hostile file raises CheckpointError and never allocates
more than the file holds, and nothing in the file is ever executed.
"""

from __future__ import annotations

import json
import math
import mmap
import os
import struct
from typing import IO, Any, cast

import numpy as np

from .. import _C
from .checkpoint_error import CheckpointError, UnsafeCheckpointError
from .dtype import bfloat16_from_bits
from .paddle_params import is_param_stream, load_params
from .paddle_pickle import is_pickle, load_paddle, save_paddle

__all__ = ["save", "load", "CheckpointError", "UnsafeCheckpointError"]

Tensor = _C.Tensor

FORMAT = "oar.checkpoint"
VERSION = 1
_MAX_HEADER = 100 * 1024 * 1024  # as the safetensors package: headers above this are refused

# oar dtype name -> (safetensors code, numpy dtype of the raw bytes)
_CODES = {
    "bool": ("BOOL", np.bool_),
    "int32": ("I32", np.int32),
    "int64": ("I64", np.int64),
    "float16": ("F16", np.float16),
    "bfloat16": ("BF16", np.uint16),
    "float32": ("F32", np.float32),
    "float64": ("F64", np.float64),
    "uint8": ("U8", np.uint8),
    "int8": ("I8", np.int8),
    "int16": ("I16", np.int16),
    "complex64": ("C64", np.complex64),
    # safetensors has no complex128 code: C128 is oar's own, only oar reads it
    "complex128": ("C128", np.complex128),
    "float8_e4m3fn": ("F8_E4M3", np.uint8),
    "float8_e5m2": ("F8_E5M2", np.uint8),
}
# Dtypes whose bytes numpy holds as another dtype: a numpy array of that dtype is not one
# of them.
_RAW_BITS = ("bfloat16", "float8_e4m3fn", "float8_e5m2")
_FROM_CODE = {code: (name, npd) for name, (code, npd) in _CODES.items()}
# Foreign files (written by other frameworks) may hold these: loaded as the nearest oar dtype.
_FOREIGN = {"U16": ("int32", np.uint16), "U32": ("int64", np.uint32)}


# ---- save -----------------------------------------------------------------------------
def _raw(t):
    """A tensor's bytes as a numpy array (bfloat16 as its raw uint16 bits, float8 as
    uint8)."""
    t = t.detach().contiguous()
    if t.dtype.name in _RAW_BITS:
        return np.asarray(t._readonly_buffer()).view(_CODES[t.dtype.name][1])
    return np.asarray(t._readonly_buffer())  # no copy: t is contiguous


def _encode(obj, path, tensors, seen_names):
    """The JSON structure of obj; tensors (and numpy arrays) go to `tensors`."""
    if isinstance(obj, (Tensor, np.ndarray)):
        name = path or "tensor"
        k = 1
        while name in seen_names:  # two different paths may flatten alike: "a.b" vs ("a", "b")
            name = f"{path}#{k}"
            k += 1
        seen_names.add(name)
        tensors[name] = obj
        return {"n" if isinstance(obj, np.ndarray) else "t": name}
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return {"v": obj}
    if isinstance(obj, int):
        return {"i": str(obj)}  # JSON numbers lose ints beyond 2**53
    if isinstance(obj, float):
        return {"f": repr(obj)}  # nan, inf and every bit of the value
    if isinstance(obj, dict):
        items = []
        for key, value in obj.items():
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise TypeError(
                    f"oar.save: dict keys must be str, int, float, bool or None, "
                    f"got {type(key).__name__} at {path or '<root>'}"
                )
            items.append(
                [
                    _encode(key, "", {}, set()),
                    _encode(value, f"{path}.{key}" if path else str(key), tensors, seen_names),
                ]
            )
        return {"d": items}
    if isinstance(obj, (list, tuple)):
        enc = [
            _encode(v, f"{path}.{i}" if path else str(i), tensors, seen_names)
            for i, v in enumerate(obj)
        ]
        return {"l" if isinstance(obj, list) else "u": enc}
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return _encode(obj.item(), path, tensors, seen_names)
    raise TypeError(
        f"oar.save: cannot save a {type(obj).__name__} (at {path or '<root>'}): "
        f"tensors, numpy arrays, dicts, lists, tuples, str, int, float, bool and "
        f"None only — no pickle"
    )


def _is_stream(f, method):
    return not isinstance(f, (str, bytes, os.PathLike)) and callable(getattr(f, method, None))


def save(
    obj: Any, path: str | os.PathLike[str] | IO[bytes], protocol: int = 4, **configs: Any
) -> None:
    """Save obj — a Tensor, a state dict (Layer.state_dict(), Optimizer.state_dict()) or
    nested dicts/lists/tuples of tensors, numpy arrays and plain values — to a
    safetensors file at path (written to a temporary file, then renamed into place), or
    with ``format="paddle"`` to the pickle paddle.save writes, for paddle.load.

    Args:
        obj: what to save.
        path: the file name (directories are created), or a binary file object such as
            io.BytesIO (Paddle's "save to memory"): the checkpoint is written at its
            position, so several objects can follow one another.
        protocol: the pickle protocol of ``format="paddle"`` (2, 3 or 4, as Paddle);
            unused by safetensors.
        format: ``"safetensors"`` (the default) or ``"paddle"``.

    Examples:
        >>> import io, oar
        >>> layer = oar.nn.Linear(2, 2)
        >>> buf = io.BytesIO()
        >>> oar.save(layer.state_dict(), buf, format="paddle")  # what paddle.load reads
        >>> _ = buf.seek(0)
        >>> sorted(oar.load(buf))
        ['bias', 'weight']
    """
    stream = _is_stream(path, "write")
    if not stream and not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"oar.save: argument 'path' must be a str, a path or a binary file "
            f"object, got {type(path).__name__}"
        )
    fmt = configs.get("format", "safetensors")
    if fmt not in ("safetensors", "paddle"):
        raise ValueError(
            f"oar.save: argument 'format' must be 'safetensors' or 'paddle', got {fmt!r}"
        )
    if fmt == "paddle":
        if stream:
            save_paddle(obj, path, protocol)
            return
        _write_file(path, lambda f: save_paddle(obj, f, protocol))
        return
    tensors: dict[str, Any] = {}
    structure = _encode(obj, "", tensors, set())
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        if isinstance(t, np.ndarray):
            arr = np.ascontiguousarray(t)
            key = {np.dtype(v[1]): n for n, v in _CODES.items() if n not in _RAW_BITS}.get(
                arr.dtype
            )
            if key is None:
                raise TypeError(
                    f"oar.save: numpy dtype {arr.dtype} of {name!r} is not "
                    f"supported (bool, int32, int64, float16/32/64)"
                )
            dtype = key
        else:
            arr, dtype = _raw(t), t.dtype.name
        data = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {
            "dtype": _CODES[dtype][0],
            "shape": list(arr.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {
        "format": FORMAT,
        "version": str(VERSION),
        "structure": json.dumps(structure, separators=(",", ":")),
    }
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned

    def write(f):
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)

    if stream:
        write(path)
        return
    _write_file(path, write)


def _write_file(path, write):
    """Writes through write(f) to a temporary file renamed into place: a failed save
    leaves no partial file."""
    path = os.fspath(cast("str | os.PathLike[str]", path))  # not a stream here
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            write(f)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    os.replace(tmp, path)


# ---- load -----------------------------------------------------------------------------
def _fail(path, what):
    raise CheckpointError(f"oar.load: {path!r} is not a valid checkpoint: {what}")


def _read_header(path, buf):
    if len(buf) < 8:
        _fail(
            path,
            f"the file has {len(buf)} bytes, fewer than the 8-byte header length "
            f"(empty or truncated)",
        )
    (n,) = struct.unpack("<Q", buf[:8])
    if n > _MAX_HEADER or n > len(buf) - 8:
        _fail(
            path,
            f"the header claims {n} bytes but the file has {len(buf) - 8} after the "
            f"length (truncated, or not a safetensors file)",
        )
    try:
        header = json.loads(bytes(buf[8 : 8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        _fail(path, f"the header is not JSON ({e})")
    if not isinstance(header, dict):
        _fail(path, "the header is not a JSON object")
    return header, 8 + n


def _check_entry(path, name, e, data_len):
    if not isinstance(e, dict) or set(e) != {"dtype", "shape", "data_offsets"}:
        _fail(path, f"tensor {name!r}: expected the keys dtype, shape, data_offsets")
    code, shape, offs = e["dtype"], e["shape"], e["data_offsets"]
    if code not in _FROM_CODE and code not in _FOREIGN:
        _fail(path, f"tensor {name!r}: unsupported dtype {code!r}")
    if not isinstance(shape, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
    ):
        _fail(path, f"tensor {name!r}: shape must be a list of non-negative ints, got {shape!r}")
    if (
        not isinstance(offs, list)
        or len(offs) != 2
        or not all(isinstance(o, int) and not isinstance(o, bool) for o in offs)
        or not 0 <= offs[0] <= offs[1] <= data_len
    ):
        _fail(path, f"tensor {name!r}: data_offsets {offs!r} outside the {data_len} data bytes")
    npd = (_FROM_CODE.get(code) or _FOREIGN[code])[1]
    want = math.prod(shape) * np.dtype(npd).itemsize  # Python ints: no overflow
    if offs[1] - offs[0] != want:
        _fail(
            path,
            f"tensor {name!r}: shape {shape} of {code} needs {want} bytes, the file "
            f"gives {offs[1] - offs[0]}",
        )


def _to_tensor(arr, code):
    if code == "BF16":
        return bfloat16_from_bits(arr)
    if code in ("F8_E4M3", "F8_E5M2"):  # the bits, reinterpreted
        return Tensor(np.array(arr)).view(_FROM_CODE[code][0])
    if code in _FOREIGN:
        return Tensor(arr.astype(_FOREIGN[code][0]))
    return Tensor(
        np.array(arr)
    )  # a copy (Tensor(data) is oar.to_tensor, _C's tensor factory): the tensor must not point into the map


def _decode(path, s, tensors):
    if not isinstance(s, dict) or len(s) != 1:
        _fail(path, f"bad structure node {s!r:.80}")
    ((kind, v),) = s.items()
    if kind in ("t", "n"):
        if not isinstance(v, str) or v not in tensors:
            _fail(path, f"the structure names tensor {v!r}, which the file does not hold")
        t = tensors[v]
        # the loaded tensor is a fresh copy that nothing else holds: its memory, no copy
        return np.asarray(t._buffer()) if kind == "n" else t
    if kind == "v":
        if not (v is None or isinstance(v, (str, bool))):
            _fail(path, f"bad value {v!r:.80}")
        return v
    if kind == "i":
        try:
            return int(v)
        except (TypeError, ValueError):
            _fail(path, f"bad int {v!r:.80}")
    if kind == "f":
        try:
            return float(v)
        except (TypeError, ValueError):
            _fail(path, f"bad float {v!r:.80}")
    if kind == "d":
        if not isinstance(v, list) or not all(isinstance(p, list) and len(p) == 2 for p in v):
            _fail(path, "a dict node must be a list of [key, value] pairs")
        out = {}
        for k, val in v:
            key = _decode(path, k, tensors)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                _fail(path, f"bad dict key {key!r:.80}")
            out[key] = _decode(path, val, tensors)
        return out
    if kind in ("l", "u"):
        if not isinstance(v, list):
            _fail(path, "a list node must hold a list")
        items = [_decode(path, x, tensors) for x in v]
        return items if kind == "l" else tuple(items)
    _fail(path, f"unknown structure node kind {kind!r}")


def load(path: str | os.PathLike[str] | IO[bytes], **configs: Any) -> Any:
    """Load what oar.save wrote, any safetensors file (then a dict {name: Tensor}), a
    checkpoint paddle.save wrote (.pdparams, .pdopt, any paddle.save pickle), read as
    paddle.load reads it but without running code from the file: only numpy arrays,
    dtypes and scalars, OrderedDict and builtin containers and numbers are unpickled
    (Note [Reading Paddle's pickles] in oar/framework/paddle_pickle.py), or the
    weights of a paddle.jit.save model (<prefix>.pdiparams: {Paddle's parameter name:
    Tensor}, named from <prefix>.json).

    Args:
        path: the file name, or a binary file object (io.BytesIO) positioned at a
            checkpoint: exactly that checkpoint is read, leaving the position after it.
            A paddle.jit.save prefix reads <prefix>.pdiparams.
        return_numpy: Paddle's config for its pickles: numpy arrays instead of tensors.
        keep_name_table: Paddle's config: a pickled state dict keeps its
            "StructuredToParameterName@@" table.

    Returns:
        The saved object, with Tensors for the tensors.

    Raises:
        FileNotFoundError: no such file.
        CheckpointError: the file is not a valid checkpoint (a ValueError).
        UnsafeCheckpointError: a pickle names a global that is not data (a
            CheckpointError); nothing in it was called.
    """
    unknown = set(configs) - {"return_numpy", "keep_name_table"}
    if unknown:
        raise TypeError(
            f"oar.load: unexpected keyword argument {sorted(unknown)[0]!r} (configs: "
            f"return_numpy, keep_name_table)"
        )
    if _is_stream(path, "read"):
        label = f"<{type(path).__name__}>"
        head = _read_exactly(label, path, 8, "the header length")
        if is_pickle(head):
            return load_paddle(label, path, head, **configs)
        return _load_buffer(label, memoryview(_read_one(label, path, head)))
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"oar.load: argument 'path' must be a str, a path or a binary file "
            f"object, got {type(path).__name__}"
        )
    path = os.fspath(path)
    if not os.path.isfile(path) and os.path.isfile(path + ".pdiparams"):
        path += ".pdiparams"  # a paddle.jit.save prefix, as paddle.load takes it
    if not os.path.isfile(path):
        raise FileNotFoundError(f"oar.load: no checkpoint file {path!r}")
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            _fail(path, "the file is empty")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            buf = memoryview(mm)
            try:
                if not _is_safetensors(buf):
                    if is_pickle(bytes(buf[:3])):
                        return load_paddle(path, bytes(buf), **configs)
                    if path.endswith(".pdiparams") or is_param_stream(bytes(buf[:16])):
                        return load_params(path, buf, **configs)
                return _load_buffer(path, buf)
            finally:
                buf.release()


def _is_safetensors(buf):
    """An 8-byte length that fits the file, then a JSON object."""
    if len(buf) < 9:
        return False
    (n,) = struct.unpack("<Q", buf[:8])
    return 0 < n <= len(buf) - 8 and buf[8] == ord("{")


def _read_exactly(label, f, n, what):
    # In pieces, so a header claiming more than the stream holds allocates only what is
    # there (read(n) may allocate n bytes up front).
    parts, got = [], 0
    while got < n:
        piece = f.read(min(n - got, 1 << 24))
        if not isinstance(piece, (bytes, bytearray)):
            raise TypeError(
                f"oar.load: {label} must be opened in binary mode (read() gave "
                f"{type(piece).__name__})"
            )
        if not piece:
            _fail(label, f"{what}: expected {n} bytes, the stream has {got} (truncated)")
        parts.append(piece)
        got += len(piece)
    return b"".join(parts)


def _read_one(label, f, head):
    """The bytes of the one checkpoint at the stream's position (its header says how long
    the data is; `head`, its first 8 bytes, is read already), read without going past
    it."""
    (n,) = struct.unpack("<Q", head)
    if n > _MAX_HEADER:
        _fail(label, f"the header claims {n} bytes (not a safetensors stream)")
    text = _read_exactly(label, f, n, "the header")
    header, _ = _read_header(label, memoryview(head + text))
    ends = [
        e["data_offsets"][1]
        for k, e in header.items()
        if k != "__metadata__"
        and isinstance(e, dict)
        and isinstance(e.get("data_offsets"), list)
        and len(e["data_offsets"]) == 2
        and isinstance(e["data_offsets"][1], int)
    ]
    return head + text + _read_exactly(label, f, max(ends, default=0), "the tensor data")


def _load_buffer(path, buf):
    size = len(buf)
    header, start = _read_header(path, buf)
    meta = header.pop("__metadata__", None)
    data_len = size - start
    spans = []
    for name, e in header.items():
        _check_entry(path, name, e, data_len)
        spans.append((e["data_offsets"][0], e["data_offsets"][1], name))
    spans.sort()
    end = 0
    for b, e, name in spans:
        if b < end:
            _fail(path, f"tensor {name!r} overlaps another tensor's bytes")
        end = e
    tensors = {}
    for name, e in header.items():
        b, end_ = e["data_offsets"]
        npd = (_FROM_CODE.get(e["dtype"]) or _FOREIGN[e["dtype"]])[1]
        arr = np.frombuffer(
            buf[start + b : start + end_], dtype=np.dtype(npd).newbyteorder("<")
        ).reshape(e["shape"])
        tensors[name] = _to_tensor(arr, e["dtype"])
        del arr
    if meta is None or not isinstance(meta, dict) or meta.get("format") != FORMAT:
        return tensors  # a plain safetensors file from elsewhere
    if meta.get("version") != str(VERSION):
        _fail(path, f"format version {meta.get('version')!r}; this oar reads version {VERSION}")
    try:
        structure = json.loads(meta.get("structure", ""))
    except json.JSONDecodeError as e:
        _fail(path, f"the structure metadata is not JSON ({e})")
    return _decode(path, structure, tensors)
