"""Paddle's device-memory counters on a CPU build.

Paddle's CPU build refuses the allocation counters of paddle.device with a ValueError
("not supported in CPU PaddlePaddle"): they count GPU/XPU allocator memory. oar raises
the same error type, naming oar.memory_stats() and oar.reset_peak_memory(), which count
oar's CPU allocator. empty_cache is a no-op there (as paddle.device.cuda.empty_cache is
on Paddle's CPU build) and in oar: freed blocks go straight back to the allocator, so
there is no cache to empty. ipc_collect raises RuntimeError, as on Paddle's CPU build.
"""

from __future__ import annotations

from typing import NoReturn

from ..framework.typing import PlaceLike

__all__ = [
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "reset_max_memory_allocated",
    "reset_max_memory_reserved",
    "reset_peak_memory_stats",
    "empty_cache",
    "ipc_collect",
]


def _unsupported(api):
    return ValueError(
        f"oar.device.{api}() is not supported in oar, which is a CPU build: it counts the "
        f"memory of a GPU, XPU or custom device allocator. oar.memory_stats() and "
        f"oar.reset_peak_memory() count the CPU allocator's memory."
    )


def max_memory_allocated(device: PlaceLike | int | None = None) -> NoReturn:
    """Peak bytes allocated on a GPU/XPU/custom device; refused on a CPU build.

    Args:
        device (str | Place | int | None, optional): the device.

    Returns:
        int: never; see Raises.

    Raises:
        ValueError: always (as in Paddle's CPU build); use oar.memory_stats()["peak_bytes"].
    """
    raise _unsupported("max_memory_allocated")


def max_memory_reserved(device: PlaceLike | int | None = None) -> NoReturn:
    """Peak bytes reserved by a GPU/XPU/custom device allocator; refused on a CPU build.

    Args:
        device (str | Place | int | None, optional): the device.

    Returns:
        int: never; see Raises.

    Raises:
        ValueError: always (as in Paddle's CPU build).
    """
    raise _unsupported("max_memory_reserved")


def memory_allocated(device: PlaceLike | int | None = None) -> NoReturn:
    """Bytes allocated now on a GPU/XPU/custom device; refused on a CPU build.

    Args:
        device (str | Place | int | None, optional): the device.

    Returns:
        int: never; see Raises.

    Raises:
        ValueError: always (as paddle.device.cuda.memory_allocated on Paddle's CPU
            build); use oar.memory_stats()["bytes_in_use"].
    """
    raise _unsupported("memory_allocated")


def memory_reserved(device: PlaceLike | int | None = None) -> NoReturn:
    """Bytes reserved now by a GPU/XPU/custom device allocator; refused on a CPU build.

    Args:
        device (str | Place | int | None, optional): the device.

    Returns:
        int: never; see Raises.

    Raises:
        ValueError: always (as paddle.device.cuda.memory_reserved on Paddle's CPU build).
    """
    raise _unsupported("memory_reserved")


def reset_max_memory_allocated(device: PlaceLike | int | None = None) -> NoReturn:
    """Resets the device's peak allocated bytes; refused on a CPU build.

    Args:
        device (str | Place | int | None, optional): the device.

    Raises:
        ValueError: always (as in Paddle's CPU build); use oar.reset_peak_memory().
    """
    raise _unsupported("reset_max_memory_allocated")


def reset_max_memory_reserved(device: PlaceLike | int | None = None) -> NoReturn:
    """Resets the device's peak reserved bytes; refused on a CPU build.

    Args:
        device (str | Place | int | None, optional): the device.

    Raises:
        ValueError: always (as in Paddle's CPU build).
    """
    raise _unsupported("reset_max_memory_reserved")


def reset_peak_memory_stats(device: PlaceLike | int | None = None) -> NoReturn:
    """Resets the device's peak memory statistics; refused on a CPU build (Paddle's CPU
    build raises the ValueError of reset_max_memory_allocated, which it calls).

    Args:
        device (str | Place | int | None, optional): the device.

    Raises:
        ValueError: always; use oar.reset_peak_memory().
    """
    raise _unsupported("reset_peak_memory_stats")


def empty_cache() -> None:
    """Releases the device allocator's cached free blocks. oar's CPU allocator keeps no
    such cache (a freed block is returned at once), so there is nothing to release.

    Returns:
        None
    """
    return None


def ipc_collect() -> NoReturn:
    """Frees GPU memory released by CUDA inter-process sharing: there is none in oar.

    Raises:
        RuntimeError: always, as on Paddle's CPU build.
    """
    raise RuntimeError(
        "ipc_collect(): oar is built for the CPU only; it collects memory "
        "shared between processes through CUDA IPC, which needs a GPU"
    )
