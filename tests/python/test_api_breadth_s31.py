"""Paddle 3.3.1 names added in one batch: oar.callbacks.ReduceLROnPlateau / VisualDL /
WandbCallback, oar.autograd.Function, oar.incubate.identity_loss / softmax_mask_fuse /
softmax_mask_fuse_upper_triangle, oar.nn.attention (SDPBackend, sdpa_kernel) and
oar.profiler.SummaryView. Expected values were checked against Paddle 3.3.1 on the CPU
and are hard-coded here."""
import inspect
import sys
import types
import warnings

import numpy as np
import pytest

import oar
import oar.nn as nn
from oar.callbacks import ReduceLROnPlateau, VisualDL, WandbCallback


# ---- ReduceLROnPlateau ----------------------------------------------------------------

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


# ---- VisualDL / WandbCallback ---------------------------------------------------------

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


# ---- autograd.Function ----------------------------------------------------------------

def test_autograd_function_is_pylayer():
    assert oar.autograd.Function is oar.autograd.PyLayer

    class Cube(oar.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            return g * 3 * x ** 2

    x = oar.to_tensor([1.0, -2.0, 0.5], stop_gradient=False)
    y = Cube.apply(x)
    y.sum().backward()
    np.testing.assert_allclose(y.numpy(), [1.0, -8.0, 0.125])
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 12.0, 0.75])


# ---- incubate -------------------------------------------------------------------------

def test_incubate_signatures():
    I = oar.incubate
    assert str(inspect.signature(I.identity_loss)) == "(x, reduction='none')"
    assert str(inspect.signature(I.softmax_mask_fuse)) == "(x, mask, name=None)"
    assert str(inspect.signature(I.softmax_mask_fuse_upper_triangle)) == "(x)"


@pytest.mark.parametrize("reduction,shape,value,grad", [
    ("none", [2, 3], [[0, 1, 2], [3, 4, 5]], 1.0),
    (2, [2, 3], [[0, 1, 2], [3, 4, 5]], 1.0),
    ("mean", [], 2.5, 1 / 6),
    ("MEAN", [], 2.5, 1 / 6),
    (1, [], 2.5, 1 / 6),
    ("sum", [], 15.0, 1.0),
    (0, [], 15.0, 1.0),
])
def test_identity_loss(reduction, shape, value, grad):
    x = oar.to_tensor(np.arange(6, dtype="float32").reshape(2, 3), stop_gradient=False)
    out = oar.incubate.identity_loss(x, reduction)
    assert list(out.shape) == shape and out.dtype == x.dtype
    np.testing.assert_allclose(out.numpy(), value)
    (out if out.ndim == 0 else out.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), grad), rtol=1e-6)


def test_identity_loss_none_is_a_copy_and_errors():
    x = oar.to_tensor([1.0, 2.0], dtype="float64")
    out = oar.incubate.identity_loss(x)
    assert out is not x and out.dtype == oar.float64
    with pytest.raises(TypeError, match="Unsupported reduction type"):
        oar.incubate.identity_loss(x, "foo")
    for bad in (3, -1):
        with pytest.raises(ValueError, match=f"reduction should be 0, 1 and 2. But get {bad}"):
            oar.incubate.identity_loss(x, bad)
    with pytest.raises(TypeError, match="float32 or float64"):
        oar.incubate.identity_loss(oar.to_tensor([1, 2]), "mean")


def _softmax(t):
    e = np.exp(t - t.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_mask_fuse(dtype):
    rng = np.random.default_rng(0)
    xa = rng.random((2, 3, 4, 5)).astype(dtype)
    ma = (rng.integers(0, 2, (2, 1, 4, 5)) * -10000).astype(dtype)
    x = oar.to_tensor(xa, stop_gradient=False)
    m = oar.to_tensor(ma, stop_gradient=False)
    out = oar.incubate.softmax_mask_fuse(x, m)
    ref = _softmax(xa + ma)
    assert out.dtype == x.dtype and list(out.shape) == [2, 3, 4, 5]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-7)
    w = rng.random(ref.shape).astype(dtype)
    (out * oar.to_tensor(w)).sum().backward()
    gref = ref * (w - (w * ref).sum(-1, keepdims=True))
    np.testing.assert_allclose(x.grad.numpy(), gref, rtol=1e-5, atol=1e-6)
    assert m.grad is None  # Paddle's fused op gives the mask no gradient


@pytest.mark.parametrize("xs,ms,match", [
    ([2, 3, 4, 5], [2, 3, 4, 5], "mask's second dim must be 1"),
    ([2, 3, 4, 5], [1, 1, 4, 5], "0th dim of x is 2, while the 0th dim of mask is 1"),
    ([3, 4, 5], [3, 4, 5], "Input x must be in 4D"),
    ([2, 3, 4, 5], [2, 1, 1, 5], "2th dim of x is 4, while the 2th dim of mask is 1"),
    ([2, 3, 4, 5], [2, 1, 4, 6], "3th dim of x is 5, while the 3th dim of mask is 6"),
    ([2, 3, 4, 5], [5], "Input mask must be in 4D"),
])
def test_softmax_mask_fuse_shape_errors(xs, ms, match):
    with pytest.raises(ValueError, match=match):
        oar.incubate.softmax_mask_fuse(oar.rand(xs), oar.rand(ms))


def test_softmax_mask_fuse_dtype_errors():
    with pytest.raises(TypeError, match="dtype of x"):
        oar.incubate.softmax_mask_fuse(oar.rand([2, 3, 4, 5]),
                                       oar.rand([2, 1, 4, 5]).astype("float64"))
    with pytest.raises(TypeError, match="float32 or float64"):
        oar.incubate.softmax_mask_fuse(oar.rand([2, 3, 4, 5]).astype("float16"),
                                       oar.rand([2, 1, 4, 5]).astype("float16"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_mask_fuse_upper_triangle(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    xa = rng.standard_normal((2, 2, 5, 5)).astype(dtype)
    w = rng.standard_normal(xa.shape).astype(dtype)
    x = oar.to_tensor(xa, stop_gradient=False)
    out = oar.incubate.softmax_mask_fuse_upper_triangle(x)
    (out * oar.to_tensor(w)).sum().backward()

    tx = torch.tensor(xa, requires_grad=True)
    causal = torch.triu(torch.ones(5, 5, dtype=torch.bool), 1)
    tout = torch.softmax(tx.masked_fill(causal, float("-inf")), -1)
    (tout * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert out.numpy()[0, 0, 0, 0] == 1.0 and np.all(np.triu(out.numpy()[1, 1], 1) == 0)


def test_softmax_mask_fuse_upper_triangle_errors():
    with pytest.raises(ValueError, match="4D"):
        oar.incubate.softmax_mask_fuse_upper_triangle(oar.rand([3, 4, 4]))
    with pytest.raises(ValueError, match="Key seq len must be equal with query seq len"):
        oar.incubate.softmax_mask_fuse_upper_triangle(oar.rand([2, 3, 4, 5]))


# ---- nn.attention ---------------------------------------------------------------------

def test_sdp_backend_enum():
    from oar.nn.attention import SDPBackend
    assert [(b.name, int(b)) for b in SDPBackend] == [
        ("ERROR", -1), ("MATH", 0), ("FLASH_ATTENTION", 1), ("EFFICIENT_ATTENTION", 2)]
    assert oar.nn.attention.__all__ == ["SDPBackend", "sdpa_kernel"]
    assert str(inspect.signature(oar.nn.attention.sdpa_kernel)) == \
        "(backends, set_priority=False)"


def test_sdpa_kernel_select_and_restore():
    from oar.nn.attention import SDPBackend as B, _cur_sdpa_kernel_backends as cur, sdpa_kernel
    from oar.nn.attention import sdpa as S
    assert cur() == [B.MATH]  # the CPU has the math backend only
    with sdpa_kernel(B.FLASH_ATTENTION) as ctx:
        assert ctx == {} and cur() == [B.FLASH_ATTENTION]
    assert cur() == [B.MATH]
    with sdpa_kernel([B.MATH, B.FLASH_ATTENTION, B.MATH]):
        assert cur() == [B.MATH, B.FLASH_ATTENTION]
    with sdpa_kernel([B.EFFICIENT_ATTENTION, B.MATH], set_priority=True):
        assert S._current_priority == [B.EFFICIENT_ATTENTION, B.MATH, B.FLASH_ATTENTION]
        assert cur(True) == [B.EFFICIENT_ATTENTION, B.MATH]
    assert cur() == [B.MATH]
    assert S._current_priority == [B.FLASH_ATTENTION, B.EFFICIENT_ATTENTION, B.MATH]
    with sdpa_kernel(B.ERROR):
        assert cur() == []
    assert cur() == [B.MATH]
    with pytest.raises(KeyError):
        with sdpa_kernel(B.MATH):
            raise KeyError("inside")
    assert cur() == [B.MATH]
    q = oar.rand([2, 8, 4, 16])
    with sdpa_kernel(B.MATH):
        out = nn.functional.scaled_dot_product_attention(q, q, q)
    assert list(out.shape) == [2, 8, 4, 16]


@pytest.mark.parametrize("bad,exc,match", [
    ((0,), AssertionError, "Backend must be an instance of SDPBackend"),
    ("MATH", AssertionError, "Backend must be an instance of SDPBackend"),
    (0, AssertionError, "Backend must be an instance of SDPBackend"),
    ([], ValueError, "At least one backend must be specified"),
    ([0], TypeError, "All backends must be SDPBackend instances, got <class 'int'>"),
])
def test_sdpa_kernel_errors(bad, exc, match):
    from oar.nn.attention import sdpa_kernel
    if bad == (0,):
        from oar.nn.attention import SDPBackend
        bad = (SDPBackend.MATH,)
    with pytest.raises(exc, match=match):
        with sdpa_kernel(bad):
            pass


# ---- profiler.SummaryView -------------------------------------------------------------

def test_summary_view():
    V = oar.profiler.SummaryView
    assert [(v.name, v.value) for v in V] == [
        ("DeviceView", 0), ("OverView", 1), ("ModelView", 2), ("DistributedView", 3),
        ("KernelView", 4), ("OperatorView", 5), ("MemoryView", 6),
        ("MemoryManipulationView", 7), ("UDFView", 8)]
    assert "SummaryView" in oar.profiler.__all__
