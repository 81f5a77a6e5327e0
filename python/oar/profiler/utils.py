"""User spans (RecordEvent) and the spans oar's own Python code records
(optimizer steps, DataLoader waits).

Every span asks ``_C._profiler_recording()`` first: with no profiler
recording this thread that is the whole cost (Note [Profiler cost when off]
in src/oar/core/profiler/recorder.h).
"""

from __future__ import annotations

import time

import contextlib
import enum
import functools
import threading

from .. import _C

__all__ = ["RecordEvent", "TracerEventType"]


class TracerEventType(enum.Enum):
    """The kind of a recorded span (its category in the trace). Values are those
    of oar::profiler::EventKind."""

    Operator = 0
    Kernel = 1
    Backward = 2
    Optimization = 3
    Dataloader = 4
    PythonUserDefined = 5
    ProfileStep = 6
    UserDefined = 5  # Paddle's name for C++ user spans; the same category here


_recording = _C._profiler_recording
_now = _C._profiler_now
_record_span = _C._profiler_record_span


class RecordEvent(contextlib.ContextDecorator):
    """A user span, recorded when a profiler records this thread.

    As a context manager, a decorator (each call is one span), or with
    ``begin()``/``end()``::

        with oar.profiler.RecordEvent("forward"):
            y = model(x)

        @oar.profiler.RecordEvent("loss")
        def compute_loss(y): ...

        ev = oar.profiler.RecordEvent("backward"); ev.begin(); loss.backward(); ev.end()

    Args:
        name (str): the span's name in the trace and the summary.
        event_type (TracerEventType, optional): its category; default
            ``TracerEventType.PythonUserDefined``.
    """

    def __init__(self, name, event_type=TracerEventType.PythonUserDefined):
        if not isinstance(name, str):
            raise TypeError(
                f"RecordEvent(): argument 'name' must be a str, got {type(name).__name__}"
            )
        if not isinstance(event_type, TracerEventType):
            raise TypeError(
                f"RecordEvent(): argument 'event_type' must be a TracerEventType, "
                f"got {type(event_type).__name__}"
            )
        self.name = name
        self.event_type = event_type
        # Starts of open spans, per thread: a decorated function may recurse or
        # run in several threads at once.
        self._local = threading.local()

    def _starts(self):
        starts = getattr(self._local, "starts", None)
        if starts is None:
            starts = self._local.starts = []
        return starts

    def begin(self):
        """Starts the span (not recorded when no profiler records this thread)."""
        self._starts().append(_now() if _recording() else None)

    def end(self):
        """Ends the span begun last on this thread."""
        starts = self._starts()
        if not starts:
            raise RuntimeError(f"RecordEvent.end(): span '{self.name}' was not begun")
        start = starts.pop()
        if start is not None:
            _record_span(self.name, self.event_type.value, start, _now())

    def __enter__(self):
        self.begin()
        return self

    def __exit__(self, *exc):
        self.end()
        return False


@contextlib.contextmanager
def _span(name, kind):
    """oar's own spans (optimizer steps): nothing but a check when off."""
    if not _recording():
        yield
        return
    start = _now()
    try:
        yield
    finally:
        _record_span(name, kind.value, start, _now())


def _record_optimizer(step):
    """Wraps Optimizer.step in an Optimization span named after the optimizer."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if not _recording():
            return step(self, *args, **kwargs)
        start = _now()
        try:
            return step(self, *args, **kwargs)
        finally:
            _record_span(
                f"Optimizer.step#{type(self).__name__}",
                TracerEventType.Optimization.value,
                start,
                _now(),
            )

    return wrapper


# Time this thread spent waiting for batches, for Profiler.step_info's
# reader_cost (summed only while some Profiler on this thread times steps).
_reader = threading.local()


def _timing_reader():
    return getattr(_reader, "active", 0) > 0


def _add_reader_time(seconds):
    _reader.seconds = getattr(_reader, "seconds", 0.0) + seconds


def _iter_batches(batches):
    """Yields from the iterator `batches`, recording each wait for the next
    batch as a Dataloader span (and for step_info's reader cost)."""
    while True:
        recording = _recording()
        timing = _timing_reader()
        if not recording and not timing:
            try:
                batch = next(batches)
            except StopIteration:
                return
        else:
            start = _now()
            t0 = time.perf_counter() if timing else 0.0
            try:
                batch = next(batches)
            except StopIteration:
                return
            finally:
                if timing:
                    _add_reader_time(time.perf_counter() - t0)
                if recording:
                    _record_span("DataLoader.next", TracerEventType.Dataloader.value, start, _now())
        yield batch
