"""Saved profiling results: export_protobuf / Profiler.export(format="pb") write the
recorded cycle to a file, load_profiler_result reads it back as a ProfilerResult with
Paddle's accessors (get_data: the span tree of each thread, get_extra_info,
get_span_index, get_version, save).

Paddle's file is a protobuf of its C++ event tree. oar's is JSON: the Chrome trace of
the cycle (so the same file opens in chrome://tracing or Perfetto) with one extra
top-level key, "oarProfilerResult", holding the format version and the span index.
The tree is rebuilt from the spans' nesting when the file is read."""

from __future__ import annotations

import json
import os

from .utils import TracerEventType

__all__ = ["ProfilerResult", "load_profiler_result"]

KEY = "oarProfilerResult"
VERSION = "1.0"
ROOT_END_NS = 2**64 - 1  # Paddle's root node spans the whole clock
_KINDS = {
    "Operator": TracerEventType.Operator,
    "Kernel": TracerEventType.Kernel,
    "Backward": TracerEventType.Backward,
    "Optimizer": TracerEventType.Optimization,
    "Dataloader": TracerEventType.Dataloader,
    "UserDefined": TracerEventType.PythonUserDefined,
    "ProfileStep": TracerEventType.ProfileStep,
}


class HostNode:
    """One recorded span (Paddle's HostPythonNode): name, type (TracerEventType),
    start_ns/end_ns (from the profiler's first start), process_id, thread_id, the
    spans nested in it (children_node), input_shapes/dtypes (record_shapes: input i
    under the key str(i)) and the span's other args (attributes: sequence_nr, layer,
    flops). runtime_node, device_node and mem_node stay empty: oar records no
    device activity or allocations per span."""

    def __init__(self, name, kind, start_ns, end_ns, process_id, thread_id, args=None):
        args = dict(args or {})
        self.name, self.type = name, kind
        self.start_ns, self.end_ns = start_ns, end_ns
        self.process_id, self.thread_id = process_id, thread_id
        self.children_node, self.runtime_node, self.device_node, self.mem_node = [], [], [], []
        shapes, dtypes = args.pop("input_shapes", []), args.pop("input_dtypes", [])
        self.input_shapes = {str(i): [s] for i, s in enumerate(shapes)}
        self.dtypes = {str(i): [d] for i, d in enumerate(dtypes)}
        self.callstack = ""
        self.attributes = args
        self.op_id = args.get("sequence_nr", 0)
        self.correlation_id = 0

    def __repr__(self):
        return (
            f"HostNode(name={self.name!r}, type={self.type.name}, start_ns={self.start_ns}, "
            f"end_ns={self.end_ns}, children={len(self.children_node)})"
        )


def _tree(events, pid, tid):
    """The spans of one thread nested by containment under a root node."""
    root = HostNode("root node", TracerEventType.UserDefined, 0, ROOT_END_NS, pid, tid)
    spans = []
    for n, e in enumerate(events):
        start = round(e["ts"] * 1000)
        spans.append((start, -(start + round(e.get("dur", 0) * 1000)), n, e))
    stack = [root]
    for start, neg_end, _, e in sorted(spans, key=lambda s: s[:3]):
        node = HostNode(
            e["name"],
            _KINDS.get(e.get("cat"), TracerEventType.UserDefined),
            start,
            -neg_end,
            e.get("pid", pid),
            e.get("tid", tid),
            e.get("args"),
        )
        while len(stack) > 1 and not (
            start >= stack[-1].start_ns and node.end_ns <= stack[-1].end_ns
        ):
            stack.pop()
        stack[-1].children_node.append(node)
        stack.append(node)
    return root


class ProfilerResult:
    """A loaded profiling result (Paddle's _ProfilerResult)."""

    def __init__(self, trace):
        self._trace = trace
        head = trace[KEY]
        self._version = str(head.get("version", VERSION))
        self._span_index = int(head.get("span_index", 0))
        events = trace.get("traceEvents", [])
        self._extra = {
            str(e["tid"]): e.get("args", {}).get("name", "")
            for e in events
            if e.get("ph") == "M" and e.get("name") == "thread_name"
        }
        by_thread = {}
        for e in events:
            if e.get("ph") == "X":
                by_thread.setdefault((e.get("pid", 0), e.get("tid", 0)), []).append(e)
        self._data = {tid: _tree(evs, pid, tid) for (pid, tid), evs in sorted(by_thread.items())}

    def get_data(self):
        """{thread id: root HostNode}: each thread's spans as a tree."""
        return self._data

    def get_extra_info(self):
        """{thread id as str: thread name}."""
        return dict(self._extra)

    def get_span_index(self):
        """Which recorded cycle of its profiler this is (0: the first)."""
        return self._span_index

    def get_version(self):
        """The version of oar's result format."""
        return self._version

    def save(self, path, format="json"):
        """Writes the result again: "json" the Chrome trace alone, "pb" oar's result
        file (which load_profiler_result reads)."""
        _check_path("ProfilerResult.save", "path", path)
        if format not in ("json", "pb"):
            raise ValueError(
                f"ProfilerResult.save(): argument 'format' must be 'json' or 'pb', got {format!r}"
            )
        trace = (
            self._trace if format == "pb" else {k: v for k, v in self._trace.items() if k != KEY}
        )
        _write(path, trace)


def _check_path(api, arg, path):
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise TypeError(f"{api}(): argument '{arg}' must be a non-empty str or path, got {path!r}")


def _write(path, trace):
    with open(os.fspath(path), "w") as f:
        json.dump(trace, f)


def write_result(path, trace_json, span_index):
    """Writes a recorded cycle (its Chrome trace, as a str) as a result file."""
    trace = json.loads(trace_json)
    trace[KEY] = {"version": VERSION, "span_index": span_index}
    _write(path, trace)


def load_profiler_result(filename: str | os.PathLike[str]) -> ProfilerResult:
    """Reads a file written by export_protobuf (or Profiler.export(path, "pb")).

    Args:
        filename (str): The file.

    Returns:
        ProfilerResult: get_data(), get_extra_info(), get_span_index(), get_version(),
        save(path, format).

    Raises:
        TypeError: filename not a str or path.
        FileNotFoundError: no such file.
        ValueError: not an oar result file (Paddle's protobuf files among them).
    """
    _check_path("load_profiler_result", "filename", filename)
    path = os.fspath(filename)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"load_profiler_result(): no file {path!r}")
    try:
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
    except (UnicodeDecodeError, json.JSONDecodeError):
        trace = None
    if not isinstance(trace, dict) or not isinstance(trace.get(KEY), dict):
        raise ValueError(
            f"load_profiler_result(): {path!r} is not an oar profiler result "
            f"(export_protobuf's JSON); Paddle's protobuf files cannot be read"
        )
    return ProfilerResult(trace)
