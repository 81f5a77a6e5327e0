"""oar.profiler.Profiler: Paddle's profiler API over the C++ profiler
(src/oar/core/profiler/). docs/profiler.md describes what is recorded, the
trace format and the cost."""

from __future__ import annotations

import datetime
import enum
import os
import socket
import time
import warnings
from typing import Callable

from .. import _C
from . import result as _result
from . import utils as _utils

__all__ = [
    "Profiler",
    "ProfilerState",
    "ProfilerTarget",
    "SortedKeys",
    "SummaryView",
    "make_scheduler",
    "export_chrome_tracing",
    "export_protobuf",
]


class ProfilerState(enum.Enum):
    """What the profiler does during a step (the scheduler's answer)."""

    CLOSED = 0  # not recording
    READY = 1  # about to record (oar has nothing to warm up)
    RECORD = 2  # recording
    RECORD_AND_RETURN = 3  # recording the last step of a cycle: on_trace_ready follows


class ProfilerTarget(enum.Enum):
    """Devices to profile. oar runs on the CPU only: CPU and CUSTOM_DEVICE are supported,
    as in Paddle's CPU build (there is no custom device, so it adds nothing); GPU and XPU
    are dropped with a warning."""

    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM_DEVICE = 3


def _supported_targets():
    """The targets this build profiles, as paddle.profiler's _get_supported_targets() on
    Paddle's CPU build."""
    return [ProfilerTarget.CPU, ProfilerTarget.CUSTOM_DEVICE]


class SortedKeys(enum.Enum):
    """The column the summary tables are sorted by (descending)."""

    CPUTotal = 0
    CPUAvg = 1
    CPUMax = 2
    CPUMin = 3
    GPUTotal = 4
    GPUAvg = 5
    GPUMax = 6
    GPUMin = 7


class SummaryView(enum.Enum):
    """The summary views of Paddle's Profiler.summary(views=...). oar's summary prints
    all of its tables whatever views asks, so these only name Paddle's views."""

    DeviceView = 0
    OverView = 1
    ModelView = 2
    DistributedView = 3
    KernelView = 4
    OperatorView = 5
    MemoryView = 6
    MemoryManipulationView = 7
    UDFView = 8


_TIME_UNITS = {"s": 0, "ms": 1, "us": 2, "ns": 3}


def _check_count(fn, name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{fn}(): argument '{name}' must be an int, got {type(value).__name__}")
    if value < minimum:
        kind = "a non-negative int" if minimum == 0 else f"an int >= {minimum}"
        raise ValueError(f"{fn}(): argument '{name}' must be {kind}, got {value}")


def make_scheduler(
    *, closed: int, ready: int, record: int, repeat: int = 0, skip_first: int = 0
) -> Callable[[int], ProfilerState]:
    """A scheduler for Profiler: after ``skip_first`` steps, cycles of ``closed``
    steps not recorded, ``ready`` steps not recorded, and ``record`` steps
    recorded (the last of them RECORD_AND_RETURN, after which on_trace_ready
    runs); ``repeat`` cycles, or forever when 0.

    Returns:
        Callable[[int], ProfilerState]: the state of each step number.

    Example: ``make_scheduler(closed=1, ready=1, record=2)`` records steps 2 and 3,
    6 and 7, ...
    """
    _check_count("make_scheduler", "closed", closed, 0)
    _check_count("make_scheduler", "ready", ready, 0)
    _check_count("make_scheduler", "record", record, 1)
    _check_count("make_scheduler", "repeat", repeat, 0)
    _check_count("make_scheduler", "skip_first", skip_first, 0)

    # Paddle's name for the returned function (its repr shows it)
    def getScheduleState(step):  # noqa: N802
        _check_count("scheduler", "step", step, 0)
        if step < skip_first:
            return ProfilerState.CLOSED
        step -= skip_first
        period = closed + ready + record
        if repeat > 0 and step // period >= repeat:
            return ProfilerState.CLOSED
        mod = step % period
        if mod < closed:
            return ProfilerState.CLOSED
        if mod < closed + ready:
            return ProfilerState.READY
        return ProfilerState.RECORD if mod < period - 1 else ProfilerState.RECORD_AND_RETURN

    return getScheduleState


def _default_scheduler(step):
    return ProfilerState.RECORD


def _exporter(api, dir_name, worker_name, suffix, fmt):
    """An on_trace_ready callback writing each recorded cycle to
    {dir_name}/{worker_name}_time_{timestamp}{suffix}."""
    if not isinstance(dir_name, (str, os.PathLike)):
        raise TypeError(
            f"{api}(): argument 'dir_name' must be a str, got {type(dir_name).__name__}"
        )
    if worker_name is not None and not isinstance(worker_name, str):
        raise TypeError(
            f"{api}(): argument 'worker_name' must be a str or None, "
            f"got {type(worker_name).__name__}"
        )

    def handle_fn(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"host_{socket.gethostname()}pid_{os.getpid()}"
        stamp = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S_%f")
        path = os.path.join(dir_name, f"{name}_time_{stamp}{suffix}")
        prof.export(path, format=fmt)
        prof.last_trace_path = path

    return handle_fn


def export_chrome_tracing(
    dir_name: str | os.PathLike[str], worker_name: str | None = None
) -> Callable[[Profiler], None]:
    """An on_trace_ready callback writing each recorded cycle as a Chrome trace
    ``{dir_name}/{worker_name}_time_{timestamp}.oar_trace.json`` (the directory
    is created when the first trace is written). Open it in chrome://tracing or
    https://ui.perfetto.dev.

    Args:
        dir_name (str): the directory for the traces.
        worker_name (str, optional): the file name prefix; default
            ``host_{hostname}pid_{pid}``.
    """
    return _exporter("export_chrome_tracing", dir_name, worker_name, ".oar_trace.json", "json")


def export_protobuf(
    dir_name: str | os.PathLike[str], worker_name: str | None = None
) -> Callable[[Profiler], None]:
    """An on_trace_ready callback writing each recorded cycle as a result file
    ``{dir_name}/{worker_name}_time_{timestamp}.oar_trace.pb`` (the directory is
    created when the first file is written), which load_profiler_result reads back.
    Paddle writes a protobuf there; oar writes JSON (the Chrome trace plus a header,
    see oar/profiler/result.py), so the file also opens in chrome://tracing.

    Args:
        dir_name (str): the directory for the files.
        worker_name (str, optional): the file name prefix; default
            ``host_{hostname}pid_{pid}``.
    """
    return _exporter("export_protobuf", dir_name, worker_name, ".oar_trace.pb", "pb")


class Profiler:
    """Records where each training step's time goes (Paddle's paddle.profiler.Profiler).

    Records, on the thread that starts it: every forward op (with its kernel
    nested inside), every grad node the backward engine runs (joined to its
    forward op by a flow arrow), optimizer steps, DataLoader waits, RecordEvent
    spans and one ``ProfileStep#N`` span per step; see docs/profiler.md.

    Args:
        targets (list[ProfilerTarget], optional): the devices to profile. As Paddle's
            CPU build, a GPU or XPU target is dropped with a UserWarning ("Profiling
            ProfilerTarget.GPU is not supported in current context.") and the CPU is
            profiled if asked for; without the CPU nothing is recorded. Default (None or
            empty): ``[ProfilerTarget.CPU, ProfilerTarget.CUSTOM_DEVICE]``.
        scheduler (Callable[[int], ProfilerState] | tuple[int, int], optional):
            the state of each step: ``make_scheduler(...)``, or ``(start, end)``
            to record steps start..end-1 once. Default: record every step.
        on_trace_ready (Callable[[Profiler], None], optional): called after each
            recorded cycle. Default ``export_chrome_tracing("./profiler_log/")``.
        record_shapes (bool): input shapes and dtypes in each op's args.
        profile_memory (bool): allocator bytes in use after each op, as a counter track.
        timer_only (bool): time steps only (``step_info()``); record no events.
        with_flops (bool): FLOPs of matmul, linear and convolution in their args and the summary.
        all_threads (bool): oar extension: record every thread, not only the one
            that started the profiler.
    """

    def __init__(
        self,
        *,
        targets=None,
        scheduler=None,
        on_trace_ready=None,
        record_shapes=False,
        profile_memory=False,
        timer_only=False,
        with_flops=False,
        all_threads=False,
    ):
        try:
            targets = list(targets) if targets is not None else []
        except TypeError:
            raise TypeError(
                f"Profiler(): argument 'targets' must be a list of ProfilerTarget, "
                f"got {type(targets).__name__}"
            ) from None
        for t in targets:
            if not isinstance(t, ProfilerTarget):
                raise TypeError(
                    f"Profiler(): argument 'targets' must hold ProfilerTarget values, got {t!r}"
                )
        supported = _supported_targets()
        if targets:  # as Paddle: a set of the supported ones, a warning per other target
            self.targets = set(targets)
            for t in dict.fromkeys(targets):
                if t not in supported:
                    self.targets.remove(t)
                    warnings.warn(
                        f"Profiling {t} is not supported in current context.", stacklevel=2
                    )
        else:
            self.targets = supported
        self._record = ProfilerTarget.CPU in self.targets  # no CPU: record nothing
        if scheduler is None:
            scheduler = _default_scheduler
        elif isinstance(scheduler, (tuple, list)):
            if (
                len(scheduler) != 2
                or not all(isinstance(s, int) and not isinstance(s, bool) for s in scheduler)
                or scheduler[1] <= max(scheduler[0], 0)
            ):
                raise ValueError(
                    f"Profiler(): argument 'scheduler' as a (start, end) pair needs "
                    f"two ints with end > start >= 0, got {scheduler!r}"
                )
            start, end = max(scheduler[0], 0), scheduler[1]
            scheduler = make_scheduler(
                closed=max(start - 1, 0), ready=1 if start >= 1 else 0, record=end - start, repeat=1
            )
        elif not callable(scheduler):
            raise TypeError(
                f"Profiler(): argument 'scheduler' must be callable, a (start, end) "
                f"pair or None, got {type(scheduler).__name__}"
            )
        self.scheduler = scheduler
        if on_trace_ready is None:
            on_trace_ready = export_chrome_tracing("./profiler_log/")
        elif not callable(on_trace_ready):
            raise TypeError(
                f"Profiler(): argument 'on_trace_ready' must be callable, "
                f"got {type(on_trace_ready).__name__}"
            )
        self.on_trace_ready = on_trace_ready
        for name, value in (
            ("record_shapes", record_shapes),
            ("profile_memory", profile_memory),
            ("timer_only", timer_only),
            ("with_flops", with_flops),
            ("all_threads", all_threads),
        ):
            if not isinstance(value, bool):
                raise TypeError(
                    f"Profiler(): argument '{name}' must be a bool, got {type(value).__name__}"
                )
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.timer_only = timer_only
        self.with_flops = with_flops
        self.all_threads = all_threads
        self._handle = _C._profiler_new(record_shapes, profile_memory, with_flops, all_threads)
        self.step_num = 0
        self.current_state = ProfilerState.CLOSED
        self.previous_state = ProfilerState.CLOSED
        self.last_trace_path = None
        self._span_index = -1  # the number of the cycle recorded last
        self._running = False
        self._recording = False
        self._step_start_ns = None
        self._timer = _StepTimer()

    # -------------------------------------------------------------- lifecycle
    def start(self):
        """Starts profiling; the scheduler decides from step 0 on whether to record."""
        if self._running:
            raise RuntimeError("Profiler.start(): the profiler is already running")
        self._running = True
        self._timer.start()
        if self.timer_only:
            return
        self.previous_state = ProfilerState.CLOSED
        self.current_state = self.scheduler(self.step_num)
        self._transition(ProfilerState.CLOSED, self.current_state)

    def stop(self):
        """Stops profiling; a cycle being recorded ends and on_trace_ready runs."""
        if not self._running:
            raise RuntimeError("Profiler.stop(): the profiler is not running; call start() first")
        self._running = False
        self._timer.stop()
        if self.timer_only:
            return
        if self._recording:
            self._end_step_span()
            self._stop_recording()
            self.on_trace_ready(self)
        self.current_state = ProfilerState.CLOSED

    def step(self, num_samples=None):
        """Marks the end of a training step (and the start of the next).

        Args:
            num_samples (int, optional): samples in the step that ended, for
                step_info's samples/s.
        """
        if num_samples is not None:
            _check_count("Profiler.step", "num_samples", num_samples, 0)
        if not self._running:
            raise RuntimeError("Profiler.step(): the profiler is not running; call start() first")
        self._timer.step(num_samples)
        if self.timer_only:
            return
        if self._recording:
            self._end_step_span()
        self.previous_state = self.current_state
        self.step_num += 1
        self.current_state = self.scheduler(self.step_num)
        self._transition(self.previous_state, self.current_state)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def _transition(self, prev, cur):
        S = ProfilerState
        recording = (S.RECORD, S.RECORD_AND_RETURN)
        if prev in recording and (cur not in recording or prev is S.RECORD_AND_RETURN):
            self._stop_recording()
            self.on_trace_ready(self)
        if cur in recording and not self._recording:
            _C._profiler_clear(self._handle)  # each cycle is its own trace
            self._start_recording()
        if self._recording:
            self._step_start_ns = _C._profiler_now()

    def _start_recording(self):
        if self._record:
            _C._profiler_start(self._handle)
        self._recording = True
        self._span_index += 1

    def _stop_recording(self):
        if self._recording:
            if self._record:
                _C._profiler_stop(self._handle)
            self._recording = False

    def _end_step_span(self):
        if self._step_start_ns is not None:
            if self._record:
                _C._profiler_record_span(
                    f"ProfileStep#{self.step_num}",
                    _utils.TracerEventType.ProfileStep.value,
                    self._step_start_ns,
                    _C._profiler_now(),
                )
            self._step_start_ns = None

    # ----------------------------------------------------------------- output
    def export(self, path="", format="json"):
        """Writes the last recorded cycle to `path`.

        Args:
            path (str): the file to write.
            format (str): "json": a Chrome trace; "pb": the result file
                load_profiler_result reads (JSON too in oar, not Paddle's protobuf).
        """
        if not isinstance(format, str):
            raise TypeError(
                f"Profiler.export(): argument 'format' must be a str, got {type(format).__name__}"
            )
        if format not in ("json", "pb"):
            raise ValueError(
                f"Profiler.export(): argument 'format' must be 'json' or 'pb', got {format!r}"
            )
        if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
            raise ValueError(
                f"Profiler.export(): argument 'path' must be a non-empty path, got {path!r}"
            )
        if format == "pb":
            _result.write_result(path, self._trace_json(), max(self._span_index, 0))
        else:
            _C._profiler_export(self._handle, os.fspath(path))

    def _trace_json(self):
        """The last recorded cycle's Chrome trace as a str."""
        return _C._profiler_trace(self._handle)

    def summary(
        self,
        sorted_by=SortedKeys.CPUTotal,
        op_detail=True,
        thread_sep=False,
        time_unit="ms",
        views=None,
    ):
        """Prints the summary tables of the last recorded cycle: per category,
        per op (with its kernels when op_detail), per layer, per grad node,
        optimizer, DataLoader and user spans: calls, total, average, max, min
        and share of the recorded time.

        Args:
            sorted_by (SortedKeys): the column rows are sorted by (CPU keys only).
            op_detail (bool): list each op's kernels under it.
            thread_sep (bool): one set of tables per thread.
            time_unit (str): "s", "ms", "us" or "ns".
            views: accepted for Paddle compatibility; every table is printed.
        """
        if not isinstance(sorted_by, SortedKeys):
            raise TypeError(
                f"Profiler.summary(): argument 'sorted_by' must be a SortedKeys, got {sorted_by!r}"
            )
        if sorted_by.value >= SortedKeys.GPUTotal.value:
            raise ValueError(
                f"Profiler.summary(): argument 'sorted_by' is {sorted_by}, but oar "
                f"has no GPU; use a CPU key"
            )
        if not isinstance(time_unit, str) or time_unit not in _TIME_UNITS:
            raise ValueError(
                f"Profiler.summary(): argument 'time_unit' must be one of "
                f"'s', 'ms', 'us', 'ns', got {time_unit!r}"
            )
        print(
            _C._profiler_summary(
                self._handle,
                sorted_by.value,
                bool(op_detail),
                bool(thread_sep),
                _TIME_UNITS[time_unit],
            )
        )

    def step_info(self, unit=None):
        """The average reader cost (waiting for batches), batch cost (step time)
        and throughput of the steps since the last call, as a str:
        ``reader_cost: 0.00012 s batch_cost: 0.00345 s ips: 2898.551 samples/s``.

        Args:
            unit (str, optional): the name of a sample in the throughput
                ("images"); default "samples" (or "steps" when step() got no num_samples).
        """
        if unit is not None and not isinstance(unit, str):
            raise TypeError(
                f"Profiler.step_info(): argument 'unit' must be a str or None, "
                f"got {type(unit).__name__}"
            )
        return self._timer.info(unit)


class _StepTimer:
    """Step times and DataLoader waits for step_info (Paddle's benchmark timer)."""

    def __init__(self):
        self._on = False
        self._reset()

    def _reset(self):
        self.steps = 0
        self.batch_seconds = 0.0
        self.reader_seconds = 0.0
        self.samples = 0
        self.has_samples = False

    def start(self):
        self._on = True
        self._reset()
        self._last = time.perf_counter()
        _utils._reader.active = getattr(_utils._reader, "active", 0) + 1
        _utils._reader.seconds = 0.0

    def stop(self):
        if self._on:
            self._on = False
            _utils._reader.active -= 1

    def step(self, num_samples):
        now = time.perf_counter()
        self.batch_seconds += now - self._last
        self._last = now
        self.reader_seconds += getattr(_utils._reader, "seconds", 0.0)
        _utils._reader.seconds = 0.0
        self.steps += 1
        if num_samples is not None:
            self.samples += num_samples
            self.has_samples = True

    def info(self, unit):
        n = max(self.steps, 1)
        batch = self.batch_seconds / n
        reader = self.reader_seconds / n
        if self.has_samples:
            ips = self.samples / self.batch_seconds if self.batch_seconds > 0 else 0.0
            speed = f"{unit or 'samples'}/s"
        else:
            ips = self.steps / self.batch_seconds if self.batch_seconds > 0 else 0.0
            speed = "steps/s"
        self._reset()
        return f"reader_cost: {reader:.5f} s batch_cost: {batch:.5f} s ips: {ips:.3f} {speed}"
