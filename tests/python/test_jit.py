"""oar.jit.to_static (capture, guards, graph breaks, replay with gradients) and
jit.save / jit.load (docs/jit.md)."""

import json
import os
import warnings

import numpy as np
import pytest

import oar
import oar.nn as nn
from oar.static import InputSpec

from jit_models import MODELS, make_pair


def _rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b)) / (np.max(np.abs(a)) + 1e-12))


# ---- capture and replay ---------------------------------------------------------------------
@pytest.mark.parametrize("name", list(MODELS))
def test_capture_equals_eager_for_two_batch_sizes(name):
    ref, st = make_pair(name)
    ref.eval()
    st.eval()
    st = oar.jit.to_static(st, input_spec=MODELS[name][1])
    make_inputs = MODELS[name][2]
    with oar.no_grad():
        for batch in (2, 5, 2):
            xs = make_inputs(batch)
            assert _rel(ref(*xs), st(*xs)) <= 1e-5
    assert st.forward.captures == 1  # the None batch dimension stays open
    assert len(st.forward.concrete_programs()) == 1


@pytest.mark.parametrize("name", ["demo_cnn", "lstm", "gpt"])
def test_twenty_training_steps_equal_eager(name):
    def run(static):
        oar.seed(7)
        net = MODELS[name][0]()
        if static:
            net = oar.jit.to_static(net, input_spec=MODELS[name][1])
        opt = oar.optimizer.AdamW(parameters=net.parameters(), learning_rate=1e-3)
        losses = []
        for step in range(20):
            xs = MODELS[name][2](4, seed=step)
            out = net(*xs)
            loss = (out * out).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        return losses, net

    eager, _ = run(False)
    static, net = run(True)
    np.testing.assert_allclose(static, eager, rtol=1e-5)
    assert net.forward.captures == 1


def test_replay_records_gradients_and_parameter_hooks():
    oar.seed(0)
    lin = nn.Linear(4, 3)
    st = oar.jit.to_static(lambda x: oar.tanh(lin(x)).sum())
    seen = []
    lin.weight.register_hook(lambda g: seen.append(g.shape))
    x = oar.randn([2, 4])
    for _ in range(2):  # capture, then replay
        x.stop_gradient = False
        out = st(x)
        (gx,) = oar.grad(out, x, create_graph=True)
        x_e = x.detach()
        x_e.stop_gradient = False
        (ge,) = oar.grad(oar.tanh(lin(x_e)).sum(), x_e)
        np.testing.assert_allclose(gx.numpy(), ge.numpy(), rtol=1e-6)
        out.backward()
    assert st.captures == 1 and [list(s) for s in seen] == [[4, 3], [4, 3]]


def test_auto_cast_under_capture_equals_eager():
    ref, st = make_pair("demo_cnn")
    ref.eval()
    st.eval()
    st = oar.jit.to_static(st, input_spec=MODELS["demo_cnn"][1])
    x = MODELS["demo_cnn"][2](3)[0]
    with oar.amp.auto_cast(level="O1", dtype="bfloat16"):
        for _ in range(2):
            a, b = ref(x), st(x)
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a.astype("float32").numpy(), b.astype("float32").numpy())
    assert st.forward.captures == 1
    st(x)  # outside auto_cast: another signature
    assert st.forward.captures == 2


# ---- guards ---------------------------------------------------------------------------------
def test_guards_capture_again_on_dtype_rank_and_mode_not_batch():
    net = oar.jit.to_static(nn.Linear(4, 2), input_spec=[InputSpec([None, 4])])
    f = net.forward
    net(oar.randn([3, 4]))
    net(oar.randn([6, 4]))
    assert f.captures == 1
    net(oar.randn([3, 4]).astype("float64").astype("float32"))  # same signature
    assert f.captures == 1
    net(oar.randn([2, 3, 4]))  # another rank
    assert f.captures == 2
    net.eval()
    net(oar.randn([3, 4]))
    assert f.captures == 3


def test_a_fixed_dimension_captures_per_size():
    st = oar.jit.to_static(lambda x: x.reshape([x.shape[0] * x.shape[1]]) * 2)
    for n in (2, 3, 2):
        x = oar.randn([n, 4])
        np.testing.assert_allclose(st(x).numpy(), x.numpy().reshape(-1) * 2, rtol=1e-6)
    assert st.captures == 2


def test_dtype_of_input_is_a_guard():
    st = oar.jit.to_static(lambda x: x + 1)
    st(oar.ones([2], dtype="float32"))
    y = st(oar.ones([2], dtype="int64"))
    assert y.dtype == oar.int64 and st.captures == 2


def test_symbolic_reshape_follows_the_batch():
    def f(x):
        return x.reshape([x.shape[0], 2, -1]).sum(axis=1)

    st = oar.jit.to_static(f, input_spec=[InputSpec([None, 6])])
    for n in (1, 4, 9):
        x = oar.randn([n, 6])
        np.testing.assert_allclose(st(x).numpy(), f(x).numpy(), rtol=1e-6)
    assert st.captures == 1
    (prog,) = st.concrete_programs()
    assert prog.program["symbolic_attrs"][0]["attr"] == "shape"


# ---- graph breaks ---------------------------------------------------------------------------
def _branchy(x):
    if x.sum() > 0:  # needs the value: a graph break
        return x * 2
    return x - 1


def test_graph_break_is_reported_and_runs_eagerly():
    st = oar.jit.to_static(_branchy)
    with pytest.warns(UserWarning, match="graph break"):
        st(oar.ones([3]))
    assert len(st.graph_breaks) == 1
    assert "test_jit.py:" in st.graph_breaks[0] and "bool()" in st.graph_breaks[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(st(-oar.ones([3])).numpy(), [-2, -2, -2])
        np.testing.assert_allclose(st(oar.ones([3])).numpy(), [2, 2, 2])
    assert st.concrete_programs() == []


def test_full_graph_error_names_the_line():
    st = oar.jit.to_static(_branchy, full_graph=True)
    line = _branchy.__code__.co_firstlineno + 1
    with pytest.raises(oar.jit.GraphBreakError, match=rf"test_jit.py:{line}\b"):
        st(oar.ones([3]))


@pytest.mark.parametrize(
    "body,what",
    [
        (lambda x: x * float(x.mean()), "float()"),
        (lambda x: x * x.numpy().sum(), "numpy()"),
        (lambda x: x * x.max().item(), "item()"),
    ],
)
def test_value_reads_break(body, what):
    st = oar.jit.to_static(body, full_graph=True)
    with pytest.raises(oar.jit.GraphBreakError, match=rf"{what.replace('(', '[(]').replace(')', '[)]')}"):
        st(oar.ones([3]))


def test_constants_and_python_scalars_are_captured():
    table = oar.to_tensor(np.arange(6, dtype="float32"))
    st = oar.jit.to_static(lambda x, k: x * table + k)
    x = oar.ones([6])
    np.testing.assert_allclose(st(x, 2).numpy(), np.arange(6) + 2)
    np.testing.assert_allclose(st(x, 3).numpy(), np.arange(6) + 3)  # a new scalar: a new capture
    assert st.captures == 2


def test_detach_inside_capture_stops_the_gradient():
    st = oar.jit.to_static(lambda x: (x * x.detach()).sum())
    for _ in range(2):
        x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
        st(x).backward()
        np.testing.assert_allclose(x.grad.numpy(), [1, 2, 3])


def test_not_to_static_and_enable_to_static():
    calls = []

    @oar.jit.not_to_static
    def eager(x):
        calls.append(1)
        return x + 1

    st = oar.jit.to_static(eager)
    st(oar.ones([1]))
    st(oar.ones([1]))
    assert len(calls) == 2 and st.captures == 0
    oar.jit.enable_to_static(False)
    try:
        f = oar.jit.to_static(lambda x: x * 3)
        f(oar.ones([1]))
        assert f.captures == 0
    finally:
        oar.jit.enable_to_static(True)


def test_decorated_method_binds_per_instance():
    class Net(nn.Layer):
        def __init__(self, k):
            super().__init__()
            self.k = k

        @oar.jit.to_static
        def forward(self, x):
            return x * self.k

    a, b = Net(2), Net(3)
    np.testing.assert_allclose(a(oar.ones([2])).numpy(), [2, 2])
    np.testing.assert_allclose(b(oar.ones([2])).numpy(), [3, 3])


def test_to_static_argument_errors():
    with pytest.raises(TypeError, match="full_graph"):
        oar.jit.to_static(lambda x: x, full_graph=1)
    with pytest.raises(TypeError, match="input_spec"):
        oar.jit.to_static(lambda x: x, input_spec=InputSpec([1]))
    with pytest.raises(TypeError, match="function"):
        oar.jit.to_static(3)


# ---- save / load ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(MODELS))
def test_save_load_round_trip(tmp_path, name):
    ref, _ = make_pair(name)
    ref.eval()
    path = str(tmp_path / name)
    oar.jit.save(ref, path, input_spec=MODELS[name][1])
    loaded = oar.jit.load(path)
    assert isinstance(loaded, oar.jit.TranslatedLayer)
    loaded.eval()
    assert sorted(loaded.state_dict()) == sorted(ref.state_dict())
    with oar.no_grad():
        for batch in (1, 3):
            xs = MODELS[name][2](batch, seed=5)
            assert _rel(ref(*xs), loaded(*xs)) <= 1e-5


def test_loaded_model_fine_tunes_like_the_original(tmp_path):
    ref, _ = make_pair("demo_cnn")
    oar.jit.save(ref, str(tmp_path / "m"), input_spec=MODELS["demo_cnn"][1])
    loaded = oar.jit.load(str(tmp_path / "m"))
    with open(tmp_path / "m.oarmodel") as f:
        assert sorted(json.load(f)["programs"]) == ["eval", "train"]  # dropout, batch norm
    for net in (ref, loaded):
        net.train()
    nets = []
    for net in (ref, loaded):
        oar.seed(11)
        opt = oar.optimizer.SGD(parameters=net.parameters(), learning_rate=0.05)
        losses = []
        for step in range(3):
            x = MODELS["demo_cnn"][2](4, seed=step)[0]
            loss = (net(x) ** 2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        nets.append(losses)
    np.testing.assert_allclose(nets[1], nets[0], rtol=1e-5)
    sd_ref, sd_loaded = ref.state_dict(), loaded.state_dict()
    for k in sd_ref:
        np.testing.assert_allclose(sd_loaded[k].numpy(), sd_ref[k].numpy(), rtol=1e-5, atol=1e-7)


def test_save_uses_the_to_static_input_spec_and_keeps_outputs_structure(tmp_path):
    class Two(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        def forward(self, x):
            y = self.fc(x)
            return {"logits": y, "extra": (y.sum(), None, 4)}

    net = oar.jit.to_static(Two(), input_spec=[InputSpec([None, 3])])
    oar.jit.save(net, str(tmp_path / "two"))
    out = oar.jit.load(str(tmp_path / "two"))(oar.ones([5, 3]))
    assert set(out) == {"logits", "extra"} and out["logits"].shape == [5, 2]
    assert out["extra"][1] is None and out["extra"][2] == 4


def test_save_errors(tmp_path):
    with pytest.raises(ValueError, match="input_spec"):
        oar.jit.save(nn.Linear(2, 2), str(tmp_path / "a"))
    with pytest.raises(TypeError, match="input_spec"):
        oar.jit.save(nn.Linear(2, 2), str(tmp_path / "a"), input_spec=[3])

    class Breaks(nn.Layer):
        def forward(self, x):
            return x * 2 if x.sum() > 0 else x

    with pytest.raises(oar.jit.GraphBreakError, match="test_jit.py"):
        oar.jit.save(Breaks(), str(tmp_path / "b"), input_spec=[InputSpec([2])])
    assert not os.path.exists(tmp_path / "b.oarmodel")


# ---- damaged files --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    d = tmp_path_factory.mktemp("jit")
    oar.seed(0)
    oar.jit.save(nn.Linear(3, 2), str(d / "lin"), input_spec=[InputSpec([None, 3])])
    return d


def _variant(saved, tmp_path, edit_model=None, model_bytes=None, weights=True):
    src = saved / "lin"
    dst = tmp_path / "v"
    text = (src.with_suffix(".oarmodel")).read_bytes()
    if edit_model is not None:
        m = json.loads(text)
        edit_model(m)
        text = json.dumps(m).encode()
    if model_bytes is not None:
        text = model_bytes(text)
    (tmp_path / "v.oarmodel").write_bytes(text)
    if weights:
        (tmp_path / "v.safetensors").write_bytes(src.with_suffix(".safetensors").read_bytes())
    return str(dst)


@pytest.mark.parametrize(
    "kind,exc,match",
    [
        ("truncated", ValueError, "not valid JSON"),
        ("empty", ValueError, "empty"),
        ("foreign", ValueError, "format"),
        ("newer", NotImplementedError, "newer oar"),
        ("unknown_op", ValueError, "an op this build declares"),
        ("bad_value_id", ValueError, "values defined before"),
        ("bad_attr", ValueError, "attrs"),
        ("no_weights", FileNotFoundError, "safetensors"),
        ("wrong_weight", ValueError, "weight"),
        ("missing_model", FileNotFoundError, "oarmodel"),
    ],
)
def test_damaged_model_files_give_typed_errors(saved, tmp_path, kind, exc, match):
    def op0(m):
        return m["programs"]["eval"]["ops"][0]

    edits = {
        "foreign": lambda m: m.update(format="something.else"),
        "newer": lambda m: m.update(version=99),
        "unknown_op": lambda m: op0(m).update(type="no_such_op"),
        "bad_value_id": lambda m: op0(m).update(inputs=[[7], [1], [2]]),
        "bad_attr": lambda m: op0(m)["attrs"].update(bogus=1),
        "wrong_weight": lambda m: m["programs"]["eval"]["params"][0].update(shape=[9, 9]),
    }
    if kind == "missing_model":
        path = str(tmp_path / "nothing")
    else:
        path = _variant(
            saved,
            tmp_path,
            edit_model=edits.get(kind),
            model_bytes={"truncated": lambda t: t[: len(t) // 2], "empty": lambda t: b""}.get(kind),
            weights=kind != "no_weights",
        )
    with pytest.raises(exc, match=match):
        oar.jit.load(path)


def test_a_shape_that_depends_on_values_stops_the_replay():
    def f(x):
        idx = oar.nonzero(x > 0)
        return idx.reshape([idx.shape[0]]) * 2  # the row count, read by Python

    st = oar.jit.to_static(f)
    a = oar.to_tensor([1.0, -1.0, 2.0, -3.0])
    b = oar.to_tensor([1.0, 1.0, 2.0, -3.0])
    np.testing.assert_array_equal(st(a).numpy(), [0, 4])
    np.testing.assert_array_equal(st(a).numpy(), [0, 4])  # replayed
    np.testing.assert_array_equal(st(b).numpy(), [0, 2, 4])  # gives way to eager
    assert "depends on tensor values" in st.graph_breaks[0]
    assert "nonzero" in st.graph_breaks[0]


def test_symbolic_output_shapes_are_checked_per_size():
    st = oar.jit.to_static(lambda x: x.sum(axis=1), input_spec=[InputSpec([None, 3])])
    for n in (2, 4, 7):
        assert st(oar.ones([n, 3])).shape == [n]
    assert st.captures == 1
    (prog,) = st.concrete_programs()
    assert prog.program["symbolic_shapes"] and not st.graph_breaks


def test_replayed_grad_nodes_carry_their_layer_paths():
    ref, st = make_pair("demo_cnn")
    st = oar.jit.to_static(st, input_spec=MODELS["demo_cnn"][1])
    x = MODELS["demo_cnn"][2](2)[0]
    paths = []
    for net in (ref, st, st):  # eager, capture, replay
        paths.append(net(x).grad_fn.layer_path)
    assert paths[0] == paths[1] == paths[2] and "classifier" in paths[0]


def test_fused_elementwise_chains_give_the_eager_bits():
    def f(x, y):
        h = oar.sigmoid(oar.tanh(oar.exp(x * 0.5 - 1.0)))
        return oar.nn.functional.relu(h * y / y) - (y + y)

    rng = np.random.default_rng(3)
    x = oar.to_tensor(rng.standard_normal((3, 1500)).astype("float32"))
    y = oar.to_tensor(rng.standard_normal((3, 1500)).astype("float32") + 3)
    st = oar.jit.to_static(f)
    want = f(x, y).numpy()
    with oar.no_grad():
        st(x, y)
        for fuse in (True, False):
            oar.set_flags({"FLAGS_jit_fuse_elementwise": fuse})
            try:
                np.testing.assert_array_equal(st(x, y).numpy(), want)
            finally:
                oar.set_flags({"FLAGS_jit_fuse_elementwise": True})
    # with a gradient to record the chain runs op by op, through the grad nodes
    x.stop_gradient = False
    st(x, y).sum().backward()
    x2 = x.detach()
    x2.stop_gradient = False
    f(x2, y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), x2.grad.numpy())


def test_a_loaded_model_called_inside_a_capture_is_recorded(tmp_path):
    class Chain(nn.Layer):
        def forward(self, x):
            return oar.nn.functional.relu(x * 2 + 1) - x

    oar.jit.save(Chain(), str(tmp_path / "c"), input_spec=[InputSpec([None, 8])])
    inner = oar.jit.load(str(tmp_path / "c"))
    outer = oar.jit.to_static(lambda x: inner(x) * 3)
    with oar.no_grad():
        for seed in range(3):  # capture, then replays
            x = oar.to_tensor(np.random.default_rng(seed).standard_normal((4, 8)).astype("float32"))
            want = (np.maximum(x.numpy() * 2 + 1, 0) - x.numpy()) * 3
            np.testing.assert_allclose(outer(x).numpy(), want, rtol=1e-6)
    assert outer.captures == 1
