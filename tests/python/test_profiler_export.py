"""oar.profiler.export_protobuf and load_profiler_result: the saved cycle read back as
Paddle's ProfilerResult (span trees per thread) equals the recorded Chrome trace span
for span, with the nesting of ops, kernels and user spans; file names, span indices,
re-saving, and the typed errors; oar.profiler.SummaryView's members."""
import json
import os
import re

import pytest

import oar
from oar import profiler as P


def _run(prof, steps=1):
    with prof:
        for _ in range(steps):
            x = oar.rand([8, 8])
            x.stop_gradient = False
            with P.RecordEvent("forward"):
                y = oar.matmul(x, x).tanh().sum()
            y.backward()
            prof.step()


def _walk(node, parent=None, out=None):
    out = [] if out is None else out
    for child in node.children_node:
        out.append((child, parent))
        _walk(child, child, out)
    return out


def test_round_trip_equals_the_chrome_trace(tmp_path):
    prof = P.Profiler(on_trace_ready=P.export_protobuf(str(tmp_path / "log"), "worker"),
                      record_shapes=True)
    _run(prof)
    path = prof.last_trace_path
    assert re.fullmatch(r"worker_time_\d{4}(_\d+){6}\.oar_trace\.pb", os.path.basename(path))
    assert os.listdir(tmp_path / "log") == [os.path.basename(path)]
    result = P.load_profiler_result(path)
    trace = json.loads(prof._trace_json())
    spans = sorted((e["name"], round(e["ts"] * 1000), round(e["dur"] * 1000))
                   for e in trace["traceEvents"] if e["ph"] == "X")
    data = result.get_data()
    tid = os.getpid() if os.getpid() in data else next(iter(data))
    assert list(data) == [tid]
    root = data[tid]
    assert root.name == "root node" and root.start_ns == 0 and root.end_ns == 2 ** 64 - 1
    nodes = _walk(root)
    assert sorted((n.name, n.start_ns, n.end_ns - n.start_ns) for n, _ in nodes) == spans
    parents = {n.name: (p.name if p else None) for n, p in nodes}
    assert parents["matmul kernel"] == "matmul" and parents["tanh"] == "forward"
    assert parents["forward"] == "ProfileStep#0" and parents["ProfileStep#0"] is None
    kinds = {n.name: n.type for n, _ in nodes}
    assert kinds["matmul"] is P.TracerEventType.Operator
    assert kinds["matmul kernel"] is P.TracerEventType.Kernel
    assert kinds["forward"] is P.TracerEventType.PythonUserDefined
    assert kinds["ProfileStep#0"] is P.TracerEventType.ProfileStep
    assert kinds["TanhGradNode"] is P.TracerEventType.Backward
    matmul = next(n for n, _ in nodes if n.name == "matmul")
    assert matmul.input_shapes == {"0": [[8, 8]], "1": [[8, 8]]}
    assert matmul.dtypes == {"0": ["float32"], "1": ["float32"]}
    assert "sequence_nr" in matmul.attributes and matmul.thread_id == tid
    for n, p in nodes:  # every span lies inside its parent
        assert p is None or p.start_ns <= n.start_ns <= n.end_ns <= p.end_ns
    assert result.get_extra_info() == {str(tid): f"thread {tid} (main)"}
    assert result.get_span_index() == 0 and result.get_version() == "1.0"
    # the file is a Chrome trace as well
    with open(path) as f:
        assert "traceEvents" in json.load(f)


def test_cycles_resaving_and_export_pb(tmp_path):
    sched = P.make_scheduler(closed=0, ready=0, record=1, repeat=2)
    prof = P.Profiler(scheduler=sched, on_trace_ready=P.export_protobuf(str(tmp_path)))
    _run(prof, steps=3)
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 2 and all(f.startswith("host_") for f in files)
    indices = sorted(P.load_profiler_result(str(tmp_path / f)).get_span_index() for f in files)
    assert indices == [0, 1]
    result = P.load_profiler_result(str(tmp_path / files[1]))
    result.save(str(tmp_path / "again.pb"), format="pb")
    again = P.load_profiler_result(str(tmp_path / "again.pb"))
    names = [n.name for n, _ in _walk(next(iter(result.get_data().values())))]
    assert names == [n.name for n, _ in _walk(next(iter(again.get_data().values())))]
    assert "ProfileStep#1" in names and "ProfileStep#0" not in names
    result.save(str(tmp_path / "trace.json"), format="json")
    with open(tmp_path / "trace.json") as f:
        plain = json.load(f)
    assert "oarProfilerResult" not in plain and plain["traceEvents"]
    # Profiler.export(format="pb") writes the same kind of file
    prof.export(str(tmp_path / "direct.pb"), format="pb")
    direct = P.load_profiler_result(str(tmp_path / "direct.pb"))
    assert direct.get_span_index() == 1


def test_errors(tmp_path):
    with pytest.raises(TypeError, match=r"export_protobuf\(\): argument 'dir_name' must be a str"):
        P.export_protobuf(None)
    with pytest.raises(TypeError, match=r"export_protobuf\(\): argument 'worker_name'"):
        P.export_protobuf(str(tmp_path), worker_name=3)
    with pytest.raises(TypeError, match=r"load_profiler_result\(\): argument 'filename'"):
        P.load_profiler_result(7)
    with pytest.raises(FileNotFoundError, match=r"load_profiler_result\(\): no file"):
        P.load_profiler_result(str(tmp_path / "missing.pb"))
    bad = tmp_path / "paddle.pb"
    bad.write_bytes(b"\x0a\x05\x08\x01\x12\x01\xff")  # protobuf bytes, not oar's JSON
    with pytest.raises(ValueError, match=r"is not an oar profiler result"):
        P.load_profiler_result(str(bad))
    chrome = tmp_path / "chrome.json"
    chrome.write_text('{"traceEvents": []}')
    with pytest.raises(ValueError, match=r"is not an oar profiler result"):
        P.load_profiler_result(str(chrome))
    prof = P.Profiler(on_trace_ready=lambda p: None)
    _run(prof)
    prof.export(str(tmp_path / "r.pb"), format="pb")
    with pytest.raises(ValueError, match=r"ProfilerResult.save\(\): argument 'format'"):
        P.load_profiler_result(str(tmp_path / "r.pb")).save(str(tmp_path / "x"), format="xml")


def test_summary_view():
    V = oar.profiler.SummaryView
    assert [(v.name, v.value) for v in V] == [
        ("DeviceView", 0), ("OverView", 1), ("ModelView", 2), ("DistributedView", 3),
        ("KernelView", 4), ("OperatorView", 5), ("MemoryView", 6),
        ("MemoryManipulationView", 7), ("UDFView", 8)]
    assert "SummaryView" in oar.profiler.__all__
