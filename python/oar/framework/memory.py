"""Refusing, before the work starts, counts whose objects or arrays cannot fit in memory.

Counts that come from shapes with a 0 elsewhere (a [2**62, 0] tensor), from sizes of
results (vander's n) or from combinatorics can be far past anything memory holds; the
loops and numpy calls that would build them either run for hours or fail with numpy's
own message. Checking first turns both into one typed error that says what was asked.
"""
import os

# A Python tensor object is about 320 bytes (measured: a million empty sections of split
# took 323 MB): the cost of each slice or section a call returns.
SECTION_BYTES = 320

# Below this no count can exhaust memory, so the common case skips reading /proc/meminfo.
_SMALL_BYTES = 1 << 26


def memory_available():
    """Bytes of memory available now: MemAvailable from /proc/meminfo, else the physical
    memory, else the 2**63 bytes no array (and no int64 size) can exceed."""
    try:
        with open("/proc/meminfo") as f:
            return next(int(line.split()[1]) * 1024 for line in f
                        if line.startswith("MemAvailable:"))
    except (OSError, StopIteration, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return 1 << 63


def check_fits(where, what, nbytes):
    """Raises MemoryError naming `where` (e.g. "unstack():") unless nbytes fit in memory."""
    if nbytes <= _SMALL_BYTES:
        return
    avail = memory_available()
    if nbytes > avail:
        raise MemoryError(f"{where} {what} need about {nbytes} bytes, more than the {avail} "
                          f"bytes of memory available")


def check_objects(api, what, count):
    """check_fits for `count` tensor objects (split's sections, unbind's slices)."""
    check_fits(f"{api}():", f"{count} {what}", count * SECTION_BYTES)
