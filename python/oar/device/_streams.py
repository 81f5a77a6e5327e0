"""Paddle's stream and event API on a CPU build.

A stream is a queue of asynchronous device work and an event a marker in one; both exist
on a GPU, XPU or custom device. Paddle's CPU build has none: it cannot create a Stream or
an Event, current_stream() raises a TypeError, and a stream_guard(None) is the one stream
context that enters. oar, which runs every op synchronously on the CPU, answers the same
way rather than hand out stream objects that order nothing.
"""

from __future__ import annotations

from typing import NoReturn

from ..framework.dtype import Place
from ..framework.place import _to_place
from ..framework.typing import PlaceLike

__all__ = [
    "Stream",
    "Event",
    "current_stream",
    "set_stream",
    "stream_guard",
    "StreamContext",
    "get_stream_from_external",
    "is_current_stream_capturing",
]


def _no_streams(api):
    return (
        f"{api}: oar is built for the CPU only and runs every op synchronously; "
        f"streams and events exist only on a GPU, XPU or custom device"
    )


def _check_device(device, api):
    # Paddle first turns a device name into a place, so 'gpu' fails there (ValueError)
    # before the stream lookup fails for the CPU place.
    if isinstance(device, (str, Place)):
        _to_place(device, api)


class Stream:
    """A device stream (Paddle's paddle.device.Stream). Cannot be created in oar, as on
    Paddle's CPU build: there is no device queue to wrap.

    Args:
        device (str | Place | int | None, optional): the device of the stream.
        priority (int, optional): the stream priority (1 or -1 high, 0 or 2 low). Default 2.
        stream_base (object, optional): an existing native stream to wrap.

    Raises:
        ValueError: always; the message says oar is a CPU build.
    """

    def __init__(self, device=None, priority=2, stream_base=None):
        _check_device(device, "Stream()")
        raise ValueError(_no_streams("Stream()"))


class Event:
    """A device event (Paddle's paddle.device.Event). Cannot be created in oar, as on
    Paddle's CPU build: there is no device stream to record it in.

    Args:
        enable_timing (bool, optional): whether the event measures time. Default False.
        blocking (bool, optional): whether synchronize() blocks. Default False.
        interprocess (bool, optional): whether processes can share it. Default False.

    Raises:
        ValueError: always; the message says oar is a CPU build.
    """

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        raise ValueError(_no_streams("Event()"))


def current_stream(device: PlaceLike | None = None) -> NoReturn:
    """The current stream of device. The CPU has none: raises TypeError, as Paddle's CPU
    build does ('gpu' and other non-CPU names raise ValueError, as there).

    Args:
        device (str | Place | None, optional): the device; None is the current one, the CPU.

    Returns:
        Stream: never; see Raises.

    Raises:
        TypeError: for the CPU. ValueError: for a device name oar does not have.
    """
    _check_device(device, "current_stream()")
    raise TypeError(_no_streams("current_stream() of the CPU"))


def set_stream(stream: Stream) -> NoReturn:
    """Makes stream the current one and returns the previous one. No Stream can exist in
    oar, so any argument is refused.

    Args:
        stream (Stream): the stream to make current.

    Returns:
        Stream: never; see Raises.

    Raises:
        TypeError: stream is not a Stream (none can be created on a CPU build).
    """
    raise TypeError(
        _no_streams(
            f"set_stream(): argument 'stream' must be a Stream, got "
            f"{type(stream).__name__}, and none can be made"
        )
    )


class stream_guard:  # noqa: N801 - Paddle's name
    """A context that makes stream current inside it. With None (the only value a CPU
    build can pass) it does nothing, as in Paddle; any other value is refused on entry.

    Args:
        stream (Stream | None, optional): the stream to make current. Default None.
    """

    def __init__(self, stream=None):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            set_stream(self.stream)

    def __exit__(self, exc_type, exc_value, traceback):
        return None


StreamContext = stream_guard


def get_stream_from_external(data_ptr: int, device: PlaceLike | None = None) -> NoReturn:
    """Wraps a CUDA stream handle made by another library. There is no CUDA in oar.

    Args:
        data_ptr (int): the cudaStream_t handle, as an int.
        device (str | Place | None, optional): the GPU the stream belongs to.

    Returns:
        Stream: never; see Raises.

    Raises:
        ValueError: always; the message says oar is a CPU build.
    """
    raise ValueError(_no_streams("get_stream_from_external()"))


def is_current_stream_capturing() -> bool:
    """Whether the current stream is capturing a CUDA graph: never in oar (Paddle's CPU
    build: False).

    Returns:
        bool: False.
    """
    return False
