"""oar.profiler: a profiled training step gives a Chrome trace with ops, their
kernels, grad nodes linked to their ops, optimizer steps, DataLoader waits,
user spans, layer paths, shapes, memory and FLOPs; the scheduler, the summary,
threads and the errors of the API."""
import json
import re
import threading

import numpy as np
import pytest

import oar
from oar import _C
from oar.profiler import (Profiler, ProfilerState, ProfilerTarget, RecordEvent, SortedKeys,
                          export_chrome_tracing, make_scheduler)


class Net(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = oar.nn.Linear(4, 8)
        self.fc2 = oar.nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(oar.nn.functional.relu(self.fc1(x)))


def _loader():
    rng = np.random.default_rng(0)
    xs = oar.to_tensor(rng.standard_normal((8, 4)).astype("float32"))
    ys = oar.to_tensor(rng.standard_normal((8, 2)).astype("float32"))
    return oar.io.DataLoader(oar.io.TensorDataset([xs, ys]), batch_size=4)


def _train(prof, steps=None):
    """Runs the training loop under `prof` (started and stopped here)."""
    model = Net()
    opt = oar.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    prof.start()
    for i, (x, y) in enumerate(_loader()):
        with RecordEvent("forward"):
            out = model(x)
        loss = oar.nn.functional.mse_loss(out, y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        prof.step(num_samples=x.shape[0])
        if steps is not None and i + 1 >= steps:
            break
    prof.stop()


def _trace(tmp_path, **kwargs):
    prof = Profiler(on_trace_ready=lambda p: None, **kwargs)
    _train(prof)
    path = tmp_path / "trace.json"
    prof.export(str(path), format="json")
    with open(path) as f:
        trace = json.load(f)
    return prof, trace["traceEvents"]


def _spans(events, cat=None, name=None):
    return [e for e in events if e["ph"] == "X" and (cat is None or e["cat"] == cat)
            and (name is None or e["name"] == name)]


def _contains(outer, inner):
    # ts/dur are microseconds with three decimals: compare in whole nanoseconds.
    o0, o1 = round(outer["ts"] * 1000), round((outer["ts"] + outer["dur"]) * 1000)
    i0, i1 = round(inner["ts"] * 1000), round((inner["ts"] + inner["dur"]) * 1000)
    return outer["tid"] == inner["tid"] and o0 <= i0 and i1 <= o1 + 1


def test_training_step_trace_has_every_kind_of_event(tmp_path):
    _, events = _trace(tmp_path)
    cats = {e["cat"] for e in _spans(events)}
    assert {"Operator", "Kernel", "Backward", "Optimizer", "Dataloader", "UserDefined",
            "ProfileStep"} <= cats
    for e in _spans(events):
        assert isinstance(e["ts"], float) and isinstance(e["dur"], float)
        assert {"name", "cat", "pid", "tid", "args"} <= set(e)
    # Two training steps, then the tail from the last step() to stop() (the
    # loader's exhausted next()), as Paddle records it.
    assert [e["name"] for e in _spans(events, "ProfileStep")] == [
        "ProfileStep#0", "ProfileStep#1", "ProfileStep#2"]
    assert {e["name"] for e in _spans(events, "Optimizer")} == {"Optimizer.step#SGD"}
    assert len(_spans(events, "Dataloader")) >= 2


def test_user_spans_contain_the_forward_ops(tmp_path):
    _, events = _trace(tmp_path)
    forwards = _spans(events, "UserDefined", "forward")
    assert len(forwards) == 2
    for fwd in forwards:
        inside = [e["name"] for e in _spans(events, "Operator") if _contains(fwd, e)]
        assert inside.count("linear") == 2 and "relu" in inside


def test_kernels_nest_in_their_op_on_the_same_thread(tmp_path):
    _, events = _trace(tmp_path)
    ops = _spans(events, "Operator")
    kernels = _spans(events, "Kernel")
    assert ops and kernels
    for op in ops:  # every op's kernel runs inside the op's span
        assert [k for k in kernels if k["name"] == op["name"] + " kernel" and _contains(op, k)], op
    for k in kernels:  # and a kernel inside an op belongs to the innermost one
        around = [o for o in ops if _contains(o, k)]
        if around:  # (the engine calls some kernels directly, e.g. zeros for missing grads)
            innermost = max(around, key=lambda o: o["ts"])
            assert innermost["name"] + " kernel" == k["name"], k


def test_backward_nodes_pair_with_forward_ops_by_sequence_number(tmp_path):
    _, events = _trace(tmp_path)
    forward = {}
    for e in _spans(events, "Operator"):
        if "sequence_nr" in e["args"]:
            forward[(e["tid"], e["args"]["sequence_nr"])] = e
    nodes = [e for e in _spans(events, "Backward") if e["name"] != "GradNodeAccumulation"]
    assert nodes and {"LinearGradNode", "ReluGradNode"} <= {e["name"] for e in nodes}
    for node in nodes:
        assert (node["tid"], node["args"]["sequence_nr"]) in forward, node
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "f"}
    assert set(starts) == set(ends) and len(ends) == len(nodes)
    for fid, end in ends.items():
        assert starts[fid]["bp"] == end["bp"] == "e"
        node = next(n for n in nodes if n["ts"] == end["ts"] and n["tid"] == end["tid"])
        op = forward[(node["tid"], node["args"]["sequence_nr"])]
        assert starts[fid]["ts"] == op["ts"] and starts[fid]["tid"] == op["tid"]


def test_layer_paths(tmp_path):
    _, events = _trace(tmp_path)
    linear_layers = {e["args"].get("layer") for e in _spans(events, "Operator", "linear")}
    assert linear_layers == {"Net.fc1", "Net.fc2"}
    node_layers = {e["args"].get("layer") for e in _spans(events, "Backward", "LinearGradNode")}
    assert node_layers == {"Net.fc1", "Net.fc2"}


def test_record_shapes(tmp_path):
    _, events = _trace(tmp_path, record_shapes=True)
    fc1 = [e for e in _spans(events, "Operator", "linear") if e["args"]["layer"] == "Net.fc1"]
    assert fc1[0]["args"]["input_shapes"] == [[4, 4], [4, 8], [8]]
    assert fc1[0]["args"]["input_dtypes"] == ["float32"] * 3
    _, plain = _trace(tmp_path)
    assert all("input_shapes" not in e["args"] for e in _spans(plain))


def test_profile_memory_counters(tmp_path):
    _, events = _trace(tmp_path, profile_memory=True)
    counters = [e for e in events if e["ph"] == "C"]
    assert len(counters) >= len(_spans(events, "Operator"))
    assert all(e["name"] == "bytes_in_use" and e["args"]["bytes_in_use"] > 0 for e in counters)
    _, plain = _trace(tmp_path)
    assert not [e for e in plain if e["ph"] == "C"]


def test_flops_of_matmul_and_linear(capsys):
    x = oar.ones([3, 4])
    w = oar.ones([4, 5])
    b = oar.ones([5])
    prof = Profiler(on_trace_ready=lambda p: None, with_flops=True)
    with prof:
        oar.matmul(x, w)
        oar.nn.functional.linear(x, w, b)
        oar.add(x, x)
    events = json.loads(prof._trace_json())["traceEvents"]
    assert _spans(events, "Operator", "matmul")[0]["args"]["flops"] == 2 * 3 * 5 * 4
    assert _spans(events, "Operator", "linear")[0]["args"]["flops"] == 2 * 3 * 5 * 4
    assert "flops" not in _spans(events, "Operator", "add")[0]["args"]
    prof.summary()
    assert "GFLOPs" in capsys.readouterr().out


def test_scheduler_records_only_the_steps_it_is_told_to():
    traces = []
    prof = Profiler(scheduler=make_scheduler(closed=1, ready=1, record=2),
                    on_trace_ready=lambda p: traces.append(json.loads(p._trace_json())))
    prof.start()
    for i in range(5):  # steps 0-4: closed, ready, record, record-and-return, closed
        with RecordEvent(f"step{i}"):
            oar.add(oar.ones([2]), oar.ones([2]))
        prof.step()
    prof.stop()
    assert len(traces) == 1
    spans = _spans(traces[0]["traceEvents"])
    assert sorted(e["name"] for e in spans if e["cat"] == "UserDefined") == ["step2", "step3"]
    assert [e["name"] for e in spans if e["cat"] == "ProfileStep"] == ["ProfileStep#2",
                                                                       "ProfileStep#3"]
    assert len([e for e in spans if e["name"] == "add"]) == 2
    assert not [e for e in traces[0]["traceEvents"] if e["ph"] == "X" and e["name"].startswith("step")
                and e["name"] not in ("step2", "step3")]


def test_scheduler_states():
    s = make_scheduler(closed=1, ready=1, record=2, repeat=1, skip_first=1)
    assert [s(i) for i in range(7)] == [
        ProfilerState.CLOSED, ProfilerState.CLOSED, ProfilerState.READY, ProfilerState.RECORD,
        ProfilerState.RECORD_AND_RETURN, ProfilerState.CLOSED, ProfilerState.CLOSED]
    traces = []
    prof = Profiler(scheduler=(1, 3), on_trace_ready=lambda p: traces.append(p._trace_json()))
    prof.start()
    for i in range(5):
        with RecordEvent(f"s{i}"):
            pass
        prof.step()
    prof.stop()
    assert len(traces) == 1
    names = {e["name"] for e in json.loads(traces[0])["traceEvents"]}
    assert {"s1", "s2"} <= names and not {"s0", "s3", "s4"} & names


def _summary_rows(text, title):
    """{name: (calls, total)} of one summary table."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    rows = {}
    for line in lines[start + 4:]:
        if not line.strip() or line.startswith("-"):
            break
        parts = line.split()
        rows[parts[0]] = (int(parts[1]), float(parts[2]))
    return rows


def test_summary_totals_match_the_trace(tmp_path, capsys):
    prof, events = _trace(tmp_path)
    prof.summary(time_unit="ns", op_detail=False)
    rows = _summary_rows(capsys.readouterr().out, "Operator Summary")
    by_name = {}
    for e in _spans(events, "Operator"):
        calls, total = by_name.get(e["name"], (0, 0.0))
        by_name[e["name"]] = (calls + 1, total + e["dur"] * 1000)
    assert set(rows) == set(by_name)
    for name, (calls, total) in by_name.items():
        assert rows[name][0] == calls
        assert rows[name][1] == pytest.approx(total, abs=0.5 * calls)
    # Sorted by total, descending.
    totals = [t for _, t in rows.values()]
    assert totals == sorted(totals, reverse=True)
    prof.summary(sorted_by=SortedKeys.CPUMax, thread_sep=True, time_unit="us")
    out = capsys.readouterr().out
    for title in ("Overview Summary", "Operator Summary", "Layer Summary", "Backward Summary",
                  "Optimizer Summary", "Dataloader Summary", "UserDefined Summary", "Thread"):
        assert title in out
    assert "Net.fc1 (forward)" in out and "LinearGradNode" in out and "  linear kernel" in out


def test_nothing_recorded_after_stop():
    prof = Profiler(on_trace_ready=lambda p: None)
    with prof:
        assert _C._profiler_recording()
        oar.add(oar.ones([1]), oar.ones([1]))
    assert not _C._profiler_recording()
    before = prof._trace_json()
    with RecordEvent("late"):
        oar.add(oar.ones([1]), oar.ones([1]))
    assert prof._trace_json() == before
    assert len(_spans(json.loads(before)["traceEvents"], "Operator", "add")) == 1
    assert "late" not in before


@pytest.mark.parametrize("all_threads", [False, True])
def test_other_threads_only_when_asked(all_threads):
    started, done = threading.Event(), threading.Event()
    result = {}

    def profile():
        prof = Profiler(on_trace_ready=lambda p: None, all_threads=all_threads)
        prof.start()
        started.set()
        done.wait(10)
        prof.stop()
        result["events"] = json.loads(prof._trace_json())["traceEvents"]

    t = threading.Thread(target=profile)
    t.start()
    started.wait(10)
    with RecordEvent("main thread"):
        oar.exp(oar.ones([2]))
    done.set()
    t.join()
    names = {e["name"] for e in _spans(result["events"])}
    assert ("exp" in names and "main thread" in names) == all_threads
    assert not names & {"exp", "main thread"} or all_threads


def test_record_event_forms():
    ev = RecordEvent("manual")

    @RecordEvent("decorated")
    def f(x):
        return oar.tanh(x)

    prof = Profiler(on_trace_ready=lambda p: None)
    with prof:
        f(oar.ones([2]))
        f(oar.ones([2]))
        with RecordEvent("ctx"):
            pass
        ev.begin()
        ev.end()
    events = json.loads(prof._trace_json())["traceEvents"]
    assert len(_spans(events, "UserDefined", "decorated")) == 2
    assert len(_spans(events, "UserDefined", "ctx")) == 1
    assert len(_spans(events, "UserDefined", "manual")) == 1
    tanh = _spans(events, "Operator", "tanh")
    assert all(any(_contains(d, t) for d in _spans(events, "UserDefined", "decorated"))
               for t in tanh)
    with pytest.raises(RuntimeError, match=r"RecordEvent.end\(\).*'manual'"):
        ev.end()


def test_timer_only_reports_step_time_and_traces_nothing():
    traces = []
    prof = Profiler(timer_only=True, on_trace_ready=traces.append)
    _train(prof)
    info = prof.step_info(unit="images")
    assert re.fullmatch(r"reader_cost: \d+\.\d{5} s batch_cost: \d+\.\d{5} s ips: \d+\.\d{3} "
                        r"images/s", info), info
    assert not traces
    assert not _C._profiler_recording()


# The text Paddle 3.3.1's CPU build warns with (a UserWarning) for each target it drops.
_NOT_SUPPORTED = "Profiling ProfilerTarget.{} is not supported in current context."


def test_gpu_target_on_the_cpu_build_profiles_the_cpu_and_warns_once(tmp_path):
    # As Paddle's CPU build: the GPU is dropped with one warning, the CPU is profiled.
    with pytest.warns(UserWarning) as caught:
        prof, events = _trace(tmp_path, targets=[ProfilerTarget.CPU, ProfilerTarget.GPU])
    assert [str(w.message) for w in caught] == [_NOT_SUPPORTED.format("GPU")]
    assert caught[0].filename == __file__  # points at the caller
    assert prof.targets == {ProfilerTarget.CPU}
    assert {"Operator", "Kernel", "ProfileStep"} <= {e["cat"] for e in _spans(events)}


def test_targets_as_paddles_cpu_build():
    with pytest.warns(UserWarning) as caught:
        prof = Profiler(targets=[ProfilerTarget.XPU, ProfilerTarget.CPU, ProfilerTarget.GPU,
                                 ProfilerTarget.CUSTOM_DEVICE, ProfilerTarget.GPU])
    assert [str(w.message) for w in caught] == [_NOT_SUPPORTED.format("XPU"),
                                                _NOT_SUPPORTED.format("GPU")]
    assert prof.targets == {ProfilerTarget.CPU, ProfilerTarget.CUSTOM_DEVICE}
    # None or empty: every supported target, a list (Paddle's _get_supported_targets()).
    for targets in (None, []):
        assert Profiler(targets=targets).targets == [ProfilerTarget.CPU,
                                                     ProfilerTarget.CUSTOM_DEVICE]


@pytest.mark.filterwarnings("ignore:Profiling ProfilerTarget.GPU")
@pytest.mark.parametrize("target", [ProfilerTarget.GPU, ProfilerTarget.CUSTOM_DEVICE])
def test_without_the_cpu_target_nothing_is_recorded(tmp_path, target):
    # Paddle's CPU build records no event then (its trace holds only its metadata record),
    # but runs the scheduler and on_trace_ready as usual.
    traces = []
    prof = Profiler(targets=[target], on_trace_ready=traces.append)
    _train(prof)
    assert traces == [prof] and not _C._profiler_recording()
    path = tmp_path / "t.json"
    prof.export(str(path))
    with open(path) as f:
        assert _spans(json.load(f)["traceEvents"]) == []


def test_export_chrome_tracing_writes_a_file(tmp_path):
    prof = Profiler(on_trace_ready=export_chrome_tracing(str(tmp_path / "log"), "worker"))
    _train(prof, steps=1)
    assert prof.last_trace_path.startswith(str(tmp_path / "log" / "worker_time_"))
    with open(prof.last_trace_path) as f:
        assert json.load(f)["traceEvents"]


def test_bad_arguments_raise_typed_errors():
    with pytest.raises(ValueError, match=r"make_scheduler\(\): argument 'closed' must be a non-negative int, got -1"):
        make_scheduler(closed=-1, ready=1, record=1)
    with pytest.raises(ValueError, match=r"make_scheduler\(\): argument 'record'"):
        make_scheduler(closed=0, ready=0, record=0)
    with pytest.raises(TypeError, match=r"make_scheduler\(\): argument 'ready' must be an int"):
        make_scheduler(closed=0, ready=1.5, record=1)
    prof = Profiler(on_trace_ready=lambda p: None)
    with pytest.raises(ValueError, match=r"Profiler.export\(\): argument 'format' must be "
                                         r"'json' or 'pb', got 'xml'"):
        prof.export("x.xml", format="xml")
    with pytest.raises(ValueError, match=r"Profiler.summary\(\): argument 'time_unit' .* got 'weeks'"):
        prof.summary(time_unit="weeks")
    with pytest.raises(ValueError, match=r"Profiler.summary\(\): argument 'sorted_by' .* no GPU"):
        prof.summary(sorted_by=SortedKeys.GPUTotal)
    with pytest.raises(TypeError, match=r"Profiler.summary\(\): argument 'sorted_by'"):
        prof.summary(sorted_by="total")
    with pytest.raises(TypeError, match=r"Profiler\(\): argument 'targets' must hold"):
        Profiler(targets=["cpu"])
    with pytest.raises(TypeError, match=r"Profiler\(\): argument 'record_shapes' must be a bool"):
        Profiler(record_shapes=1)
    with pytest.raises(ValueError, match=r"Profiler\(\): argument 'scheduler'"):
        Profiler(scheduler=(3, 1))
    with pytest.raises(RuntimeError, match=r"Profiler.stop\(\): the profiler is not running"):
        prof.stop()
    with pytest.raises(TypeError, match=r"RecordEvent\(\): argument 'name' must be a str"):
        RecordEvent(3)
    with pytest.raises(TypeError, match=r"export_chrome_tracing\(\): argument 'dir_name'"):
        export_chrome_tracing(None)


def test_profile_training_example(tmp_path, capsys, monkeypatch):
    """examples/profile_training.py, whose output docs/profiler.md shows."""
    import importlib.util
    import os
    import sys
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "profile_training.py")
    spec = importlib.util.spec_from_file_location("profile_training", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(sys, "argv", ["profile_training.py", "--steps", "4",
                                      "--trace-dir", str(tmp_path / "log")])
    mod.main()
    out = capsys.readouterr().out
    assert "in 3 profiled step(s)" in out and "ConvGradNode" in out and "Optimizer.step#Adam" in out
    (trace,) = (tmp_path / "log").iterdir()
    events = json.loads(trace.read_text())["traceEvents"]
    assert [e["name"] for e in _spans(events, "ProfileStep")] == [
        "ProfileStep#1", "ProfileStep#2", "ProfileStep#3"]
