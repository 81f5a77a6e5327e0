"""Numeric arrays from MATLAB .mat files (level 5, the format MATLAB writes with -v6/-v7),
for Flowers' imagelabels.mat and setid.mat.

scipy.io.loadmat reads them when scipy is installed (what Paddle uses); oar does not
depend on scipy, so without it a small reader of the level-5 format takes over. It
returns what loadmat returns by default for numeric matrices: each variable as an array
of the dtype it is stored with, at least 2-D, in MATLAB's shape. Variables of other
classes (cells, structs, chars, sparse) are left out: Flowers needs none of them.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

__all__ = ["loadmat"]

_MI_TYPES = {
    1: "i1",
    2: "u1",
    3: "i2",
    4: "u2",
    5: "i4",
    6: "u4",
    7: "f4",
    9: "f8",
    12: "i8",
    13: "u8",
}
_MI_MATRIX, _MI_COMPRESSED = 14, 15
_NUMERIC_CLASSES = range(6, 16)  # mxDOUBLE .. mxUINT64
_COMPLEX = 0x800


def loadmat(path):
    """The variables of a .mat file.

    Args:
        path: the file.

    Returns:
        dict: name -> numpy array (scipy.io.loadmat's result when scipy is installed;
        otherwise the numeric variables, as loadmat gives them).
    """
    try:
        import scipy.io  # type: ignore[import-untyped]  # optional dependency: scipy
    except ImportError:
        return read_mat5(path)
    return scipy.io.loadmat(path)


def read_mat5(path):
    """The numeric variables of a level-5 .mat file, without scipy.

    Args:
        path: the file.

    Returns:
        dict: name -> numpy array (of its stored dtype, as loadmat's default: a logical
        array stays uint8; complex when the variable is).
    """
    with open(path, "rb") as f:
        data = f.read()
    mark = data[126:128] if len(data) >= 128 else b""
    if mark not in (b"IM", b"MI"):
        raise ValueError(
            f"{path!r} is not a level-5 MATLAB .mat file (no 128-byte header "
            f"with an endian mark; level 4 and non-MATLAB files have none): "
            f"save it with MATLAB's -v7 or -v6, or install scipy"
        )
    order = "<" if mark == b"IM" else ">"
    version = struct.unpack(order + "H", data[124:126])[0]
    if version != 0x0100:
        raise ValueError(
            f"{path!r} is a MATLAB .mat file of version {version:#06x} (0x0200 is "
            f"-v7.3, HDF5); only level 5 (-v7, -v6) is read without scipy"
        )
    out = {}
    pos = 128
    while pos + 8 <= len(data):
        mtype, body, pos = _element(data, pos, order, path)
        if mtype == _MI_COMPRESSED:
            try:
                body = zlib.decompress(body)
            except zlib.error as e:
                raise ValueError(f"{path!r}: a compressed variable does not inflate: {e}") from e
            mtype, body, _ = _element(body, 0, order, path)
        if mtype == _MI_MATRIX and body:
            var = _matrix(body, order, path)
            if var is not None:
                out[var[0]] = var[1]
    return out


def _element(buf, pos, order, path):
    """One data element at pos: (type, body bytes, position of the next element)."""
    if pos + 8 > len(buf):
        raise ValueError(f"{path!r} is truncated (an element's tag)")
    first, second = struct.unpack(order + "II", buf[pos : pos + 8])
    if first >> 16:  # small element: type and size share the first word, data the second
        size = first >> 16
        if size > 4:
            raise ValueError(f"{path!r} is corrupt (a small element of {size} bytes)")
        return first & 0xFFFF, buf[pos + 4 : pos + 4 + size], pos + 8
    start, end = pos + 8, pos + 8 + second
    if end > len(buf):
        raise ValueError(f"{path!r} is truncated (an element of {second} bytes)")
    # Elements are padded to 8 bytes, except compressed ones, which end where their stream does.
    nxt = end if first == _MI_COMPRESSED else start + (second + 7) // 8 * 8
    return first, buf[start:end], nxt


def _matrix(body, order, path):
    """(name, array) of a matrix element's body, or None for a class that is not numeric."""
    sub = []
    pos = 0
    while pos < len(body) and len(sub) < 5:
        mtype, data, pos = _element(body, pos, order, path)
        sub.append((mtype, data))
    if len(sub) < 3:
        raise ValueError(f"{path!r} is corrupt (a matrix without flags, dimensions or name)")
    flags = struct.unpack(order + "I", sub[0][1][:4])[0]
    mclass = flags & 0xFF
    dims = tuple(int(d) for d in _numbers(sub[1], order, path))
    name = bytes(sub[2][1]).decode("latin-1")
    if mclass not in _NUMERIC_CLASSES:
        return None
    if len(sub) < 4:
        raise ValueError(f"{path!r}: variable {name!r} has no data")
    values = _numbers(sub[3], order, path)
    if flags & _COMPLEX:
        if len(sub) < 5:
            raise ValueError(f"{path!r}: complex variable {name!r} has no imaginary part")
        values = values + 1j * _numbers(sub[4], order, path)
    if values.size != int(np.prod(dims)):
        raise ValueError(
            f"{path!r}: variable {name!r} holds {values.size} values for dimensions {list(dims)}"
        )
    return name, values.reshape(dims, order="F")


def _numbers(element, order, path):
    """A numeric element's values as a 1-D array of its stored type, in native byte order."""
    mtype, data = element
    if mtype not in _MI_TYPES:
        raise ValueError(f"{path!r}: unexpected element type {mtype} where numbers belong")
    dtype = np.dtype(order + _MI_TYPES[mtype])
    if len(data) % dtype.itemsize:
        raise ValueError(
            f"{path!r}: an element of {len(data)} bytes does not hold whole {dtype} values"
        )
    return np.frombuffer(data, dtype).astype(dtype.newbyteorder("="))
