"""Refusing, before the work starts, counts whose objects or arrays cannot fit in memory.

Counts that come from shapes with a 0 elsewhere (a [2**62, 0] tensor), from sizes of
results (vander's n) or from combinatorics can be far past anything memory holds; the
loops and numpy calls that would build them either run for hours or fail with numpy's
own message. Checking first turns both into one typed error that says what was asked.
"""

from __future__ import annotations

import os
from typing import Any
import numpy as np
from . import check as C
from .. import _C
from .dtype import _dtype_arg
from .dtype import bfloat16

Tensor = _C.Tensor

# A Python tensor object is about 320 bytes (measured: a million empty sections of split
# took 323 MB): the cost of each slice or section a call returns.
SECTION_BYTES = 320

# Below this no count can exhaust memory, so the common case skips reading /proc/meminfo.
_SMALL_BYTES = 1 << 26


def memory_available() -> int:
    """Bytes of memory available now: MemAvailable from /proc/meminfo, else the physical
    memory, else the 2**63 bytes no array (and no int64 size) can exceed."""
    try:
        with open("/proc/meminfo") as f:
            return next(
                int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:")
            )
    except (OSError, StopIteration, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return 1 << 63


def check_fits(where: str, what: str, nbytes: int) -> None:
    """Raises MemoryError naming `where` (e.g. "unstack():") unless nbytes fit in memory."""
    if nbytes <= _SMALL_BYTES:
        return
    avail = memory_available()
    if nbytes > avail:
        raise MemoryError(
            f"{where} {what} need about {nbytes} bytes, more than the {avail} "
            f"bytes of memory available"
        )


def check_objects(api: str, what: str, count: int) -> None:
    """check_fits for `count` tensor objects (split's sections, unbind's slices)."""
    check_fits(f"{api}():", f"{count} {what}", count * SECTION_BYTES)


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
        nbytes = C.integer("MmapStorage", "nbytes", nbytes)
        if not isinstance(filename, (str, os.PathLike)):
            raise TypeError(
                f"MmapStorage(): argument 'filename' must be a str or path, but got "
                f"{type(filename).__name__}"
            )
        if nbytes <= 0:
            raise ValueError(f"MmapStorage(): argument 'nbytes' must be positive, but got {nbytes}")
        size = os.path.getsize(filename)
        if nbytes > size:
            raise ValueError(
                f"MmapStorage(): the file has {size} bytes, fewer than nbytes ({nbytes})"
            )
        self._map = np.memmap(filename, dtype=np.uint8, mode="r+", shape=(nbytes,))

    def get_slice(self, dtype: Any, start: int, stop: int, step: int = 1) -> Tensor:
        """Elements start..stop (by step) of the file read as dtype, sharing its memory."""
        d = _dtype_arg("get_slice", dtype)
        if d is bfloat16:
            raise TypeError(
                "MmapStorage.get_slice(): bfloat16 has no numpy view; read the "
                "raw uint16 and convert"
            )
        items = (
            self._map.view(np.dtype(d.name))
            if self._map.size % d.itemsize == 0
            else self._map[: self._map.size - self._map.size % d.itemsize].view(np.dtype(d.name))
        )
        for n, v in (("start", start), ("stop", stop), ("step", step)):
            C.integer("get_slice", n, v)
        if not 0 <= start <= stop <= items.size or step <= 0:
            raise IndexError(
                f"MmapStorage.get_slice(): [{start}:{stop}:{step}] is outside the "
                f"{items.size} elements of {d.name}"
            )
        return _C._from_buffer(items[start:stop:step], None, False)
