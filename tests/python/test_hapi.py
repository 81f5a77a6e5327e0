"""The high-level API's helpers: oar.flops (python/oar/hapi/dynamic_flops.py: totals,
per-layer rules, custom ops, the table) against counts worked out here, and the
callbacks ReduceLROnPlateau, VisualDL and WandbCallback (values checked against Paddle
3.3.1 on the CPU, the writers' packages stubbed)."""
import inspect
import math
import re
import sys
import types
import warnings

import numpy as np
import pytest

import oar
import oar.nn as nn
from oar.callbacks import ReduceLROnPlateau, VisualDL, WandbCallback


# ---- flops ---------------------------------------------------------------------------------
class LeNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))

    def forward(self, x):
        return self.fc(oar.flatten(self.features(x), 1))


def conv_flops(out_numel, cin, groups, kernel, bias=True):
    return out_numel * (cin // groups * math.prod(kernel) + (1 if bias else 0))


def test_flops_lenet_total_notices_and_table(capsys):
    got = oar.flops(LeNet(), [1, 1, 28, 28], print_detail=True)
    want = (conv_flops(6 * 28 * 28, 1, 1, [3, 3]) + conv_flops(16 * 10 * 10, 6, 1, [5, 5])
            + 400 * 120 + 120 * 84 + 84 * 10)
    params = (6 * 9 + 6) + (16 * 6 * 25 + 16) + (400 * 120 + 120) + (120 * 84 + 84) + (84 * 10 + 10)
    assert got == want and isinstance(got, int)
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[:4] == [
        "<class 'oar.nn.layer.conv.Conv2D'>'s flops has been counted",
        "<class 'oar.nn.layer.activation.ReLU'>'s flops has been counted",
        "Cannot find suitable count function for <class 'oar.nn.layer.pooling.MaxPool2D'>. "
        "Treat it as zero FLOPs.",
        "<class 'oar.nn.layer.common.Linear'>'s flops has been counted"]
    assert lines[-1] == f"Total Flops: {want}     Total Params: {params}"
    # Paddle's table: shelves, a header and one row per leaf layer that ran
    table = lines[4:-1]
    assert len(table) == 3 + 9 + 1 and table[0] == table[2] == table[-1]
    assert re.fullmatch(r"(\+-+)+\+", table[0])
    assert [c.strip() for c in table[1].split("|")[1:-1]] == [
        "Layer Name", "Input Shape", "Output Shape", "Params", "Flops"]
    first = [c.strip() for c in table[3].split("|")[1:-1]]
    assert re.fullmatch(r"conv2d_\d+", first[0])
    assert first[1:] == ["[1, 1, 28, 28]", "[1, 6, 28, 28]", "60", str(6 * 28 * 28 * 10)]
    assert all(len(r) == len(table[0]) for r in table)


def test_flops_counting_rules_of_each_type(capsys):
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2D(3, 8, 3, padding=1)
            self.bn = nn.BatchNorm2D(8)
            self.act = nn.ReLU()
            self.pool = nn.AvgPool2D(2)
            self.c2 = nn.Conv2D(8, 8, 3, groups=4, bias_attr=False)
            self.ap = nn.AdaptiveAvgPool2D(2)
            self.drop = nn.Dropout(0.5)
            self.fc = nn.Linear(32, 5)
            self.lr = nn.LeakyReLU()
            self.bn1 = nn.BatchNorm1D(5)  # not in Paddle's table: zero

        def forward(self, x):
            x = self.pool(self.act(self.bn(self.c1(x))))
            x = self.ap(self.c2(x))
            return self.bn1(self.lr(self.fc(self.drop(oar.flatten(x, 1)))))

    b = 2
    got = oar.flops(Net(), [b, 3, 16, 16])
    want = (conv_flops(b * 8 * 16 * 16, 3, 1, [3, 3])  # c1
            + 2 * b * 8 * 16 * 16                       # bn: 2 per input element
            + b * 8 * 8 * 8                             # avg pool: per output element
            + conv_flops(b * 8 * 6 * 6, 8, 4, [3, 3], bias=False)
            + b * 8 * 2 * 2 * ((6 // 2) * (6 // 2) + 1)  # adaptive: ratio product + 1
            + b * 5 * 32                                # linear: out elements x in
            + b * 5)                                    # leaky relu: input elements
    assert got == want
    assert "Cannot find suitable count function for <class 'oar.nn.layer.norm.BatchNorm1D'>" \
        in capsys.readouterr().out


def test_flops_transposed_1d_3d_and_shared_layers():
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv1D(2, 4, 3, padding=1)
            self.a1 = nn.AdaptiveAvgPool1D(3)
            self.t1 = nn.Conv1DTranspose(4, 2, 3, stride=2)
            self.shared = nn.Linear(7, 7)
            self.c3 = nn.Conv3D(1, 2, 2)
            self.t3 = nn.Conv3DTranspose(2, 2, 2, bias_attr=False)

        def forward(self, xv):  # one argument: the pair dynamic_flops passes on
            x, v = xv
            y = self.shared(self.shared(self.t1(self.a1(self.c1(x)))))  # [1, 2, 7]
            return y, self.t3(self.c3(v))

    inputs = (oar.randn([1, 2, 8]), oar.randn([1, 1, 3, 3, 3]))
    got = oar.hapi.dynamic_flops.dynamic_flops(Net(), inputs)
    want = (conv_flops(4 * 8, 2, 1, [3])
            + 4 * 3 * ((8 // 3) + 1)
            + conv_flops(2 * 7, 4, 1, [3])  # transposed: output x (in / groups x k + 1)
            + 2 * (2 * 7 * 7)               # the shared Linear runs twice
            + conv_flops(2 * 2 * 2 * 2, 1, 1, [2, 2, 2])
            + conv_flops(2 * 3 * 3 * 3, 2, 1, [2, 2, 2], bias=False))
    assert got == want


def test_flops_custom_ops_override_and_extend(capsys):
    class MyAct(nn.Layer):
        def forward(self, x):
            return x * 2

    class MyLinear(nn.Linear):  # an exact-type table: a subclass counts zero
        pass

    def three_per_element(m, x, y):
        m.total_ops += int(x[0].numel()) * 3

    def one_per_output(m, x, y):
        m.total_ops += int(y.numel())

    net = nn.Sequential(nn.Linear(10, 6), nn.LeakyReLU(), MyAct(), MyLinear(6, 2))
    got = oar.flops(net, [1, 10], custom_ops={nn.LeakyReLU: three_per_element,
                                              MyAct: one_per_output})
    assert got == 10 * 6 + 3 * 6 + 6
    out = capsys.readouterr().out
    assert "Customize Function has been applied to <class 'oar.nn.layer.activation." \
           "LeakyReLU'>" in out
    assert re.search(r"Cannot find suitable count function for <class '.*MyLinear'>", out)


def test_flops_leaves_the_network_as_it_was():
    net = LeNet()
    net.train()
    keys = list(net.state_dict())
    oar.flops(net, [1, 1, 28, 28])
    assert net.training and list(net.state_dict()) == keys
    assert all(not m._forward_post_hooks for m in net.sublayers(include_self=True))

    class Broken(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)

        def forward(self, x):
            self.fc(x)
            raise RuntimeError("boom")

    b = Broken()
    with pytest.raises(RuntimeError, match="boom"):
        oar.flops(b, [1, 3])
    assert b.training and list(b.state_dict()) == ["fc.weight", "fc.bias"]
    assert not b.fc._forward_post_hooks


def test_flops_of_a_leaf_network_a_non_layer_and_bad_custom_ops(capsys):
    assert oar.flops(nn.Linear(4, 3), [1, 4]) == 4 * 3  # Paddle reports 0 here
    assert capsys.readouterr().out.endswith("Total Flops: 12     Total Params: 15\n")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert oar.flops(lambda x: x, [1, 4]) == -1
    assert "flops(): argument 'net'" in str(w[0].message)
    with pytest.raises(TypeError, match=r"flops\(\): argument 'custom_ops'"):
        oar.flops(nn.Linear(4, 3), [1, 4], custom_ops=[nn.Linear])
    assert oar.hapi.flops is oar.flops and "flops" in oar.__all__


def test_flops_table_layout():
    t = oar.hapi.dynamic_flops.Table(["a", "bb"])
    t.add_row([123, "x"])
    import io
    import contextlib
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        t.print_table()
    assert buf.getvalue().splitlines() == [
        "+-----+----+", "|  a  | bb |", "+-----+----+", "| 123 | x  |", "+-----+----+"]
    with pytest.raises(ValueError, match="add_row"):
        t.add_row([1])


class _Holder:
    """The part of a Model the callback touches: its optimizer."""


def _plateau(seq, lr=1.0, **kw):
    holder = _Holder()
    lin = nn.Linear(2, 2)
    holder._optimizer = oar.optimizer.SGD(learning_rate=lr, parameters=lin.parameters())
    cb = ReduceLROnPlateau(verbose=0, **kw)
    cb.set_model(holder)
    cb.on_train_begin()
    lrs = []
    for v in seq:
        cb.on_eval_end({kw.get("monitor", "loss"): [v]})
        lrs.append(holder._optimizer.get_lr())
    return lrs, cb.wait, cb.cooldown_counter, cb.epoch, float(cb.best)


def test_reduce_lr_signature():
    sig = inspect.signature(ReduceLROnPlateau)
    assert [(p.name, p.default) for p in sig.parameters.values()] == [
        ("monitor", "loss"), ("factor", 0.1), ("patience", 10), ("verbose", 1),
        ("mode", "auto"), ("min_delta", 1e-4), ("cooldown", 0), ("min_lr", 0)]
    assert issubclass(ReduceLROnPlateau, oar.callbacks.Callback)
    assert oar.callbacks.ReduceLROnPlateau is oar.hapi.callbacks.ReduceLROnPlateau


# (sequence of evaluation values, arguments) -> (lrs after each, wait, cooldown_counter,
# epoch, best), as Paddle 3.3.1 gives them.
_PLATEAU_CASES = [
    ([5, 4, 4, 4, 4, 4, 3, 3, 3], dict(patience=2),
     ([1.0, 1.0, 1.0, 0.1, 0.1, 0.01, 0.01, 0.01, 0.001], 0, 0, 9, 3.0)),
    ([5, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3], dict(patience=2, cooldown=2),
     ([1.0, 1.0, 1.0, 0.1, 0.1, 0.1, 0.1, 0.1, 0.01, 0.01, 0.01, 0.001], 0, 2, 12, 3.0)),
    ([0.1, 0.2, 0.2, 0.2, 0.2, 0.2, 0.3], dict(monitor="acc", patience=1, factor=0.5),
     ([1.0, 1.0, 0.5, 0.25, 0.125, 0.0625, 0.0625], 0, 0, 7, 0.3)),
    ([1, 1, 1, 1, 1, 1], dict(patience=1, factor=0.5, min_lr=0.3),
     ([1.0, 0.5, 0.3, 0.3, 0.3, 0.3], 3, 0, 6, 1.0)),
    ([1, 0.99995, 0.9999, 0.99], dict(patience=1, factor=0.5),
     ([1.0, 0.5, 0.25, 0.25], 0, 0, 4, 0.99)),
    ([1, 2, 3], dict(patience=1, factor=0.5, mode="max"), ([1.0, 1.0, 1.0], 0, 0, 3, 3.0)),
    ([1, 2, 3], dict(patience=1, factor=0.5, mode="min", min_delta=0),
     ([1.0, 0.5, 0.25], 0, 0, 3, 1.0)),
]


@pytest.mark.parametrize("seq,kw,expected", _PLATEAU_CASES)
def test_reduce_lr_sequences(seq, kw, expected):
    lrs, *rest = _plateau(seq, **kw)
    np.testing.assert_allclose(lrs, expected[0], rtol=1e-12)
    assert tuple(rest) == expected[1:]


def test_reduce_lr_unknown_mode_warns_and_uses_auto():
    with pytest.warns(UserWarning, match="Learning rate reduction mode xx is unknown"):
        lrs, *_ = _plateau([1, 2, 3], patience=1, factor=0.5, mode="xx")
    assert lrs == [1.0, 0.5, 0.25]


def test_reduce_lr_bad_factor():
    with pytest.raises(ValueError, match="factor >= 1.0"):
        ReduceLROnPlateau(factor=1.0)


def test_reduce_lr_leaves_scheduler_and_missing_monitor_alone():
    holder = _Holder()
    lin = nn.Linear(2, 2)
    sched = oar.optimizer.lr.StepDecay(1.0, 2)
    holder._optimizer = oar.optimizer.SGD(learning_rate=sched, parameters=lin.parameters())
    cb = ReduceLROnPlateau(patience=0)
    cb.set_model(holder)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        cb.on_eval_end({"loss": [1.0]})
        cb.on_eval_end({"acc": [1.0]})
    msgs = [str(x.message) for x in w]
    assert msgs[0].startswith("Expected learning_rate be float")
    assert msgs[1] == "Monitor of ReduceLROnPlateau should be loss or metric name."
    assert cb.epoch == 0 and holder._optimizer.get_lr() == 1.0


def test_reduce_lr_number_log_and_message(capsys):
    holder = _Holder()
    holder._optimizer = oar.optimizer.SGD(learning_rate=1.0,
                                          parameters=nn.Linear(2, 2).parameters())
    cb = ReduceLROnPlateau(patience=1)
    cb.set_model(holder)
    cb.on_eval_end({"loss": 2.0})
    cb.on_eval_end({"loss": 3.0})
    assert holder._optimizer.get_lr() == pytest.approx(0.1)
    assert "Epoch 2: ReduceLROnPlateau reducing learning rate to 0.1." in capsys.readouterr().out
    # Neither a number nor a list: ignored, and the epoch is not counted.
    cb.on_eval_end({"loss": np.array([5.0])})
    assert (cb.epoch, cb.wait) == (2, 0)


class _Pairs(oar.io.Dataset):
    def __init__(self, n=16):
        rng = np.random.default_rng(0)
        self.x = rng.standard_normal((n, 3)).astype("float32")
        self.y = (self.x @ np.array([[1.0], [-2.0], [0.5]], "float32")).astype("float32")

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def test_reduce_lr_in_model_fit():
    oar.seed(3)
    net = nn.Linear(3, 1)
    opt = oar.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    model = oar.Model(net)
    model.prepare(opt, nn.MSELoss())
    # A min_delta no change can beat: the first evaluation sets the best, every later
    # one is a plateau, so with patience 1 each of them halves the rate.
    cb = ReduceLROnPlateau(patience=1, factor=0.5, min_delta=1e6, verbose=0)
    seen = []

    class _Spy(oar.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            seen.append(self.model._optimizer.get_lr())

    model.fit(_Pairs(), _Pairs(8), batch_size=4, epochs=4, verbose=0, shuffle=False,
              callbacks=[cb, _Spy()])
    assert seen == pytest.approx([0.1, 0.1, 0.05, 0.025])
    assert opt.get_lr() == pytest.approx(0.0125)
    assert isinstance(opt._learning_rate, float)
    # The reduced rate is the one the optimizer steps with: one SGD step on MSE.
    w0, b0 = net.weight.numpy().copy(), net.bias.numpy().copy()
    xb, yb = _Pairs().x[:4], _Pairs().y[:4]
    model.train_batch([oar.to_tensor(xb)], [oar.to_tensor(yb)])
    grad_w = 2.0 / len(xb) * xb.T @ (xb @ w0 + b0 - yb)
    np.testing.assert_allclose(net.weight.numpy(), w0 - 0.0125 * grad_w, rtol=1e-5,
                               atol=1e-7)


def test_visualdl_and_wandb_signatures():
    assert list(inspect.signature(VisualDL).parameters) == ["log_dir"]
    ps = inspect.signature(WandbCallback).parameters
    assert [(p.name, p.default) for p in ps.values() if p.kind != p.VAR_KEYWORD] == [
        ("project", None), ("entity", None), ("name", None), ("dir", None), ("mode", None),
        ("job_type", None)]
    assert "kwargs" in ps


def _fit_with(cb):
    oar.seed(0)
    net = nn.Linear(3, 1)
    model = oar.Model(net)
    model.prepare(oar.optimizer.SGD(learning_rate=0.01, parameters=net.parameters()),
                  nn.MSELoss())
    model.fit(_Pairs(8), _Pairs(4), batch_size=4, epochs=2, verbose=0, shuffle=False,
              callbacks=[cb])


def test_visualdl_without_package_fails_at_first_write(monkeypatch):
    monkeypatch.setitem(sys.modules, "visualdl", None)  # makes `import visualdl` fail
    cb = VisualDL("/tmp/oar_vdl_unused")  # as Paddle: constructing needs no visualdl
    with pytest.raises(ImportError, match="pip install visualdl"):
        _fit_with(cb)


def test_visualdl_writes_scalars(monkeypatch):
    written, closed = [], []

    class LogWriter:
        def __init__(self, logdir):
            self.logdir = logdir

        def add_scalar(self, tag, step, value):
            written.append((tag, step, float(value)))

        def close(self):
            closed.append(self.logdir)

    monkeypatch.setitem(sys.modules, "visualdl", types.SimpleNamespace(LogWriter=LogWriter))
    _fit_with(VisualDL("/tmp/oar_vdl"))
    assert [(t, s) for t, s, _ in written] == [
        ("train/loss", 1), ("train/loss", 2), ("eval/loss", 0),
        ("train/loss", 3), ("train/loss", 4), ("eval/loss", 1)]
    assert closed == ["/tmp/oar_vdl"]


def test_wandb_without_package_fails_at_construction(monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)
    with pytest.raises(ImportError, match="You want to use `wandb` which is not installed "
                                          "yet install it with `pip install wandb`"):
        WandbCallback(project="x")


def test_wandb_logs(monkeypatch):
    calls = []

    class Run:
        def define_metric(self, name, step_metric=None):
            calls.append(("define", name, step_metric))

        def log(self, d):
            calls.append(("log", dict(d)))

        def finish(self):
            calls.append(("finish",))

    def init(**kw):
        calls.append(("init", kw))
        return Run()

    monkeypatch.setitem(sys.modules, "wandb", types.SimpleNamespace(run=None, init=init))
    _fit_with(WandbCallback(project="p", mode="offline", tags=["a"]))
    assert calls[0] == ("init", {"project": "p", "name": None, "entity": None, "dir": None,
                                 "mode": "offline", "job_type": None, "tags": ["a"]})
    logs = [c[1] for c in calls if c[0] == "log"]
    assert [sorted(d) for d in logs] == [["train/loss", "train/step"]] * 2 + [
        ["epoch", "eval/loss"]] + [["train/loss", "train/step"]] * 2 + [["epoch", "eval/loss"]]
    assert [d.get("train/step", d.get("epoch")) for d in logs] == [1, 2, 0, 3, 4, 1]
    assert calls[-1] == ("finish",)


# ---- Model on numpy arrays ---------------------------------------------------------------
_W = (np.arange(12, dtype=np.float32).reshape(4, 3) / 10 - 0.5).astype(np.float32)
_B = np.array([0.1, -0.2, 0.3], np.float32)
_X = (np.arange(40, dtype=np.float32).reshape(10, 4) / 40).astype(np.float32)
_Y = (np.arange(10) % 3).astype(np.int64).reshape(10, 1)


def _linear():
    net = nn.Linear(4, 3)
    net.weight.set_value(_W)
    net.bias.set_value(_B)
    return net


class _NumpyPairs(oar.io.Dataset):  # samples are numpy arrays
    def __getitem__(self, i):
        return _X[i], _Y[i]

    def __len__(self):
        return 10


class _TwoOutputs(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = _linear()

    def forward(self, x):
        y = self.fc(x)
        return y, y.sum(-1)


def _model(train=True):
    net = _linear()
    m = oar.Model(net)
    m.prepare(oar.optimizer.SGD(0.1, parameters=net.parameters()) if train else None,
              nn.CrossEntropyLoss())
    return m, net


def _shapes(r):
    return [(type(o).__name__, [a.shape for a in o]) for o in r]


def test_model_predict_on_numpy_arrays():
    # Measured on Paddle 3.3.1: any iterable that is not a Dataset is the batches themselves
    # (a list or tuple of arrays, a numpy array row by row, a generator); the result is a
    # list with one tuple per output of per-batch float32 arrays.
    m, _ = _model(train=False)
    r = m.predict([_X[:6], _X[6:]], verbose=0)
    assert _shapes(r) == [("tuple", [(6, 3), (4, 3)])] and r[0][0].dtype == np.float32
    np.testing.assert_allclose(np.concatenate(r[0]), _X @ _W + _B, rtol=1e-6, atol=1e-7)
    assert _shapes(m.predict((_X,), verbose=0)) == [("tuple", [(10, 3)])]
    assert _shapes(m.predict([(_X[:5], _Y[:5]), (_X[5:], _Y[5:])], verbose=0)) == [
        ("tuple", [(5, 3), (5, 3)])]  # the label field is not fed to the network
    assert _shapes(m.predict((x for x in [_X[:3], _X[3:]]), verbose=0)) == [
        ("tuple", [(3, 3), (7, 3)])]
    assert _shapes(m.predict(_NumpyPairs(), batch_size=4, verbose=0)) == [
        ("tuple", [(4, 3), (4, 3), (2, 3)])]
    assert [a.shape for a in m.predict(_X, verbose=0, stack_outputs=True)] == [(10, 3)]
    stacked = m.predict([_X[:6], _X[6:]], verbose=0, stack_outputs=True)
    assert [a.shape for a in stacked] == [(10, 3)]
    two = oar.Model(_TwoOutputs())
    two.prepare()
    # Paddle np.vstack-s each output's batches: 1-D outputs of a list of batches give
    # [batches, batch_size] ...
    assert [a.shape for a in two.predict([_X[:5], _X[5:]], verbose=0, stack_outputs=True)] == [
        (10, 3), (2, 5)]
    # ... and so do a Dataset's in Paddle ([(10, 3), (2, 5)]), where oar gives the documented
    # [N] (Paddle's vstack fails when the last batch is shorter).
    assert [a.shape for a in two.predict(_NumpyPairs(), batch_size=4, verbose=0,
                                         stack_outputs=True)] == [(10, 3), (10,)]
    with pytest.raises(TypeError, match="iterable of batches"):
        m.predict(5)


def test_model_evaluate_and_fit_on_numpy_arrays():
    m, net = _model(train=False)
    # One batch: Paddle 3.3.1 gives {'loss': [1.1626733541488647]}.
    r = m.evaluate([[_X, _Y]], verbose=0)
    assert list(r) == ["loss"] and r["loss"][0] == pytest.approx(1.1626733541488647, rel=1e-6)
    # Two batches (losses 1.1077901 and 1.2449981): oar gives the mean over the samples, the
    # loss "on input dataset" Paddle's docstring describes; Paddle 3.3.1 returns the last
    # batch's, 1.2449980974197388.
    r = m.evaluate([(_X[:6], _Y[:6]), (_X[6:], _Y[6:])], verbose=0)
    assert r["loss"][0] == pytest.approx((6 * 1.1077901124954224 + 4 * 1.2449980974197388) / 10,
                                         rel=1e-6)
    assert m.evaluate(_NumpyPairs(), batch_size=4, verbose=0)["loss"][0] == pytest.approx(
        1.1626733541488647, rel=1e-6)
    with pytest.raises(TypeError):  # no label field: the loss has no label, as in Paddle
        m.evaluate([_X], verbose=0)
    # fit on a list of (x, y) numpy batches, accumulating 2: the last batch of the epoch
    # applies its partial accumulation. Weights measured on Paddle 3.3.1.
    m, net = _model()
    m.fit([(_X[:4], _Y[:4]), (_X[4:8], _Y[4:8]), (_X[8:], _Y[8:])], epochs=1, verbose=0,
          accumulate_grad_batches=2)
    np.testing.assert_allclose(net.weight.numpy(), [[-0.4709617, -0.40893793, -0.3201004],
                                                    [-0.16984573, -0.10893247, -0.02122177],
                                                    [0.1312702, 0.19107296, 0.27765688],
                                                    [0.4323861, 0.49107844, 0.57653546]],
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(net.bias.numpy(), [0.1446375, -0.19978233, 0.25514483],
                               rtol=1e-6, atol=1e-7)
    m, net = _model()  # a Dataset of numpy samples, batches of 4, two epochs
    m.fit(_NumpyPairs(), batch_size=4, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(net.weight.numpy(), [[-0.44865248, -0.41771245, -0.33363506],
                                                    [-0.14671107, -0.11769716, -0.03559176],
                                                    [0.15523033, 0.18231812, 0.26245153],
                                                    [0.45717168, 0.48233342, 0.5604949]],
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(net.bias.numpy(), [0.17765614, -0.19938825, 0.2217321],
                               rtol=1e-6, atol=1e-7)
    # Nested batches ([inputs], [labels]) are flattened, as paddle.utils.flatten does.
    m, _ = _model(train=False)
    r = m.evaluate([([_X], [_Y])], verbose=0)
    assert r["loss"][0] == pytest.approx(1.1626733541488647, rel=1e-6)
