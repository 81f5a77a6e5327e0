"""Paddle's behaviour where a Paddle program relies on it (checked against what Paddle
3.3.1 does): file objects for save/load, callable DataLoader, out=/output= and the
creation keywords, summary's table, version strings, gradients that require grad, and a
few results (median's NaN index, randint_like to bool, complex randn). Flags, InputSpec
and require_version: tests/python/test_compat.py."""
import io
import math

import numpy as np
import pytest

import oar


# ---- save / load with file objects ------------------------------------------------------
def test_save_and_load_through_bytesio():
    lin = oar.nn.Linear(3, 2)
    buf = io.BytesIO()
    oar.save(lin.state_dict(), buf)
    oar.save(oar.to_tensor([1.0, 2.0]), buf)  # a second object after the first
    oar.save({"step": 3, "note": None}, buf)
    buf.seek(0)
    state = oar.load(buf)
    assert sorted(state) == ["bias", "weight"]
    np.testing.assert_array_equal(state["weight"].numpy(), lin.weight.numpy())
    np.testing.assert_array_equal(oar.load(buf).numpy(), [1.0, 2.0])
    assert oar.load(buf) == {"step": 3, "note": None}
    with pytest.raises(oar.framework.io.CheckpointError, match="the header length: expected 8"):
        oar.load(buf)  # at the end


def test_load_rejects_a_truncated_or_text_stream():
    buf = io.BytesIO()
    oar.save(oar.ones([100]), buf)
    with pytest.raises(oar.framework.io.CheckpointError, match="tensor data: expected 400 bytes"):
        oar.load(io.BytesIO(buf.getvalue()[:-8]))
    with pytest.raises(TypeError, match="binary mode"):
        oar.load(io.StringIO("text"))
    with pytest.raises(TypeError, match="a str, a path or a binary file object, got int"):
        oar.save(oar.ones([1]), 3)


# ---- DataLoader ---------------------------------------------------------------------
def test_dataloader_is_callable():
    class Squares(oar.io.Dataset):
        def __getitem__(self, i):
            return np.array([i * i], dtype="float32")

        def __len__(self):
            return 5

    loader = oar.io.DataLoader(Squares(), batch_size=2)
    got = [b.numpy().reshape(-1).tolist() for b in loader()]
    assert got == [[0.0, 1.0], [4.0, 9.0], [16.0]]
    assert got == [b.numpy().reshape(-1).tolist() for b in loader]


# ---- out= / output= and the creation keywords ------------------------------------------
def test_assign_into_output_takes_its_shape_and_dtype():
    out = oar.zeros([3, 3])
    r = oar.assign(np.array([[1, 1], [3, 4]], dtype=np.int64), out)
    assert r is out and out.shape == [2, 2] and out.dtype == oar.int64
    np.testing.assert_array_equal(out.numpy(), [[1, 1], [3, 4]])
    np.testing.assert_array_equal(oar.assign([2.5, 1.0]).numpy(), [2.5, 1.0])


def test_output_with_gradients_is_an_inplace_copy():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    out = oar.zeros([2])
    oar.assign(x * 3, out)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    with pytest.raises(ValueError, match=r"assign\(\): argument 'output' has shape \[3\]"):
        oar.assign(x, oar.zeros([3]))
    with pytest.raises(TypeError, match="'output' must be a Tensor or None, got list"):
        oar.assign(x, [0, 0])


def test_creation_keywords():
    t = oar.linspace(0, 10, 5, device="cpu", requires_grad=True)
    assert not t.stop_gradient
    out = oar.ones([1])
    assert oar.arange(4, out=out) is out and out.numpy().tolist() == [0, 1, 2, 3]
    assert oar.zeros_like(out, device=oar.CPUPlace(), requires_grad=True).stop_gradient is False
    assert oar.eye(2, out=out) is out and out.shape == [2, 2]
    with pytest.raises(ValueError, match="CPU only"):
        oar.zeros([2], device="gpu:0")
    with pytest.raises(ValueError, match="pin_memory=True"):
        oar.ones([2], pin_memory=True)
    with pytest.raises(TypeError, match="'requires_grad' must be a bool"):
        oar.rand([2], requires_grad=1)


def test_uniform_defaults_to_zero_one():
    x = oar.uniform([2000]).numpy()
    assert 0.0 <= x.min() and x.max() < 1.0 and x.min() < 0.01


def test_mean_with_a_dtype():
    m = oar.mean(oar.to_tensor([1, 2, 4]), dtype="float64")
    assert m.dtype == oar.float64 and math.isclose(m.item(), 7 / 3)


# ---- results ----------------------------------------------------------------------------
def test_median_min_mode_points_at_the_first_nan():
    nan = float("nan")
    x = oar.to_tensor(np.array([[1, nan, 3, nan], [1, 2, 3, 4], [nan, 1, 2, 3]]))
    v, i = oar.median(x, axis=1, keepdim=True, mode="min")
    assert np.isnan(v.numpy()[[0, 2]]).all() and v.numpy()[1, 0] == 2
    assert i.numpy().reshape(-1).tolist() == [1, 1, 0]


def test_randint_like_to_bool_and_complex_randn():
    b = oar.randint_like(oar.zeros([1000]), low=-5, high=5, dtype="bool")
    assert b.dtype == oar.bool and 0.8 < b.numpy().mean() < 0.99  # 0 is 1 value in 10
    z = oar.randn([20000], dtype="complex64")
    assert z.dtype == oar.complex64
    re, im = z.numpy().real, z.numpy().imag
    assert abs(re.var() - 0.5) < 0.03 and abs(im.var() - 0.5) < 0.03


def test_geometric_rsample():
    g = oar.distribution.Geometric(oar.to_tensor([0.5], stop_gradient=False))
    s = g.rsample([4000])
    assert (s.numpy() == np.floor(s.numpy())).all() and abs(s.numpy().mean() - 1.0) < 0.15
    s.sum().backward()  # recorded; the floor's gradient is zero
    assert float(g.probs.grad.abs().sum()) == 0.0


def test_accuracy_is_0d_and_fills_correct_and_total():
    pred = oar.to_tensor([[0.2, 0.1, 0.4, 0.1, 0.1], [0.2, 0.3, 0.1, 0.15, 0.25]])
    label = oar.to_tensor([[2], [0]])
    correct, total = oar.zeros([1]), oar.zeros([1])
    acc = oar.metric.accuracy(pred, label, k=1, correct=correct, total=total)
    assert acc.shape == [] and acc.item() == 0.5
    assert (correct.dtype, correct.item(), total.item()) == (oar.int32, 1, 2)
    m = oar.metric.Accuracy()
    r = m.update(m.compute(pred, label))
    assert type(r) is np.float64 and r == 0.5 and type(m.accumulate()) is np.float64


def test_saved_tensor_hooks_see_stop_gradient():
    seen = []
    a = oar.ones([2])
    a.stop_gradient = False
    with oar.autograd.saved_tensors_hooks(lambda t: seen.append(t.stop_gradient) or t.numpy(),
                                          lambda p: oar.to_tensor(p)):
        y = a * a
    y.sum().backward()
    assert seen == [False, False] and a.grad.numpy().tolist() == [2.0, 2.0]


# ---- the high-level API ----------------------------------------------------------------
class _Net(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = oar.nn.Linear(4, 3)
        self.act = oar.nn.ReLU()
        self.fc2 = oar.nn.Linear(3, 2, bias_attr=False)
        self.fc2.weight.stop_gradient = True

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def _n(layer):
    return int(layer._full_name.rsplit("_", 1)[1]) + 1


def test_summary_prints_paddles_table(capsys):
    net = _Net()
    info = oar.summary(net, (-1, 4))
    # each cell centred in its column (15, 20, 20 and 15 wide), one space between
    rows = [f"{name:^15} {i:^20} {o:^20} {n:^15}" for name, i, o, n in [
        (f"Linear-{_n(net.fc1)}", "[[1, 4]]", "[1, 3]", "15"),
        (f"ReLU-{_n(net.act)}", "[[1, 3]]", "[1, 3]", "0"),
        (f"Linear-{_n(net.fc2)}", "[[1, 3]]", "[1, 2]", "6")]]
    # (Paddle, in a fresh process: "   Linear-1           [[1, 4]]              [1, 3]  ...")
    want = ["-" * 75,
            " Layer (type)       Input Shape          Output Shape         Param #    ",
            "=" * 75, *rows, "=" * 75,
            "Total params: 21", "Trainable params: 15", "Non-trainable params: 6", "-" * 75,
            "Input size (MB): 0.00", "Forward/backward pass size (MB): 0.00",
            "Params size (MB): 0.00", "Estimated Total Size (MB): 0.00", "-" * 75, "", ""]
    assert capsys.readouterr().out.split("\n") == want
    assert info == {"total_params": 21, "trainable_params": 15}


def test_summary_passes_a_list_input_as_one_argument(capsys):
    class Two(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = oar.nn.Linear(4, 2)

        def forward(self, xs):
            return self.fc(xs[0] + xs[1])

    info = oar.summary(Two(), input=[oar.ones([2, 4]), oar.ones([2, 4])])
    assert info == {"total_params": 10, "trainable_params": 10}
    assert "[[2, 4]]              [2, 2]              10" in capsys.readouterr().out


def test_layer_names_are_paddles():
    assert oar.nn.Conv2D(1, 1, 1).full_name().startswith("conv2d_")
    assert oar.nn.ReLU().full_name().startswith("re_lu_")
    assert oar.nn.LSTM(2, 2).full_name().startswith("lstm_")
    assert oar.nn.BatchNorm2D(2).full_name().startswith("batch_norm2d_")


def test_bias_attr_true_means_the_default():
    assert oar.nn.Linear(2, 3, bias_attr=True).bias.shape == [3]


def test_version_strings():
    v = oar.version
    assert (v.cuda(), v.cudnn(), v.nccl(), v.xpu(), v.tensorrt()) == (
        "False", "False", "0", "False", "None")
    assert repr(v.cuda) == "CudaVersion('False')" and v.cuda_archs() == []


def test_gradients_require_grad_as_in_paddle():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    g = x.grad
    assert g.stop_gradient is False and g.is_leaf
    (g * 3).sum().backward()  # recorded: the gradient gets a gradient of its own
    assert x.grad.grad.numpy().tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        x.grad[0] = 5.0
    with oar.no_grad():
        x.grad[0] = 5.0
    assert x.grad.numpy().tolist() == [5.0, 4.0]
    x.clear_grad()
    assert x.grad.numpy().tolist() == [0.0, 0.0] and x.grad.stop_gradient is False
    x.grad.stop_gradient = True  # the user's choice stays
    assert x.grad.stop_gradient is True
    (gx,) = oar.grad([(x * x).sum()], [x])  # oar.grad's results: plain tensors, as Paddle's
    assert gx.stop_gradient is True


def test_tensor_hooks_see_a_gradient_that_requires_grad():
    seen = []
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    x.register_hook(lambda g: seen.append(g.stop_gradient) or g * 2)
    (x * 3).sum().backward()
    assert seen == [False] and x.grad.numpy().tolist() == [6.0, 6.0]


# ---- small namespaces and argument forms Paddle's examples use --------------------------
def test_random_initial_seed_is_the_last_seed():
    oar.seed(1234)
    assert oar.random.initial_seed() == 1234
    oar.rand([3])  # drawing does not change the seed
    assert oar.random.initial_seed() == 1234


def test_seed_returns_the_generator():
    # Paddle's seed returns its Generator; its methods act on the default generator
    g = oar.seed(2024)
    assert g.initial_seed() == 2024 and repr(g) == "oar.Generator(initial_seed=2024)"
    state = g.get_state()
    a = oar.rand([4]).numpy()
    g.set_state(state)
    np.testing.assert_array_equal(oar.rand([4]).numpy(), a)
    assert g.manual_seed(5) is g and oar.random.initial_seed() == 5
    r1 = g.random()
    g.manual_seed(5)
    assert g.random() == r1 and 0 <= r1 < 2 ** 64
    fresh = g.seed()
    assert g.initial_seed() == fresh
    with pytest.raises(TypeError, match="Generator.set_state"):
        g.set_state(123)


def test_lazy_guard_builds_initialised_parameters():
    oar.seed(7)
    with oar.LazyGuard():
        lazy = oar.nn.Linear(4, 3)
    oar.seed(7)
    eager = oar.nn.Linear(4, 3)
    for p, q in zip(lazy.parameters(), eager.parameters()):
        assert p.initialize() is p
        np.testing.assert_array_equal(p.numpy(), q.numpy())


def test_nll_loss_takes_labels_with_a_class_axis_of_one():
    logp = oar.nn.functional.log_softmax(oar.to_tensor([[0.2, 1.0, -1.0], [0.5, 0.1, 0.3]]))
    a = oar.nn.functional.nll_loss(logp, oar.to_tensor([2, 0]))
    b = oar.nn.functional.nll_loss(logp, oar.to_tensor([[2], [0]]))
    np.testing.assert_allclose(a.numpy(), b.numpy())
    with pytest.raises(ValueError, match=r"nll_loss\(\): argument 'label' has shape \[2, 2\]"):
        oar.nn.functional.nll_loss(logp, oar.to_tensor([[2, 0], [0, 1]]))


def test_gradient_of_a_sparse_embedding_is_rows_and_values():
    emb = oar.nn.Embedding(6, 2, sparse=True)
    out = emb(oar.to_tensor([[4, 1, 4]]))
    (out * oar.to_tensor([[[1.0, 2.0]], [[3.0, 4.0]], [[5.0, 6.0]]]).reshape([1, 3, 2])).sum().backward()
    values, rows = emb.weight.gradient()
    assert rows.tolist() == [1, 4]
    np.testing.assert_allclose(values, [[3.0, 4.0], [6.0, 8.0]])


def test_graph_reindex_with_concatenated_edge_types():
    x = oar.to_tensor([10, 20], dtype="int64")
    n1 = oar.to_tensor([30, 10, 40], dtype="int64")  # type 1: counts [2, 1]
    n2 = oar.to_tensor([40, 50], dtype="int64")       # type 2: counts [0, 2]
    c1 = oar.to_tensor([2, 1], dtype="int32")
    c2 = oar.to_tensor([0, 2], dtype="int32")
    src, dst, nodes = oar.incubate.graph_reindex(x, oar.concat([n1, n2]), oar.concat([c1, c2]))
    # one numbering for both types: 10 -> 0, 20 -> 1, then 30, 40, 50 in order of appearance
    assert src.tolist() == [2, 0, 3, 3, 4]
    assert dst.tolist() == [0, 0, 1, 1, 1]
    assert nodes.tolist() == [10, 20, 30, 40, 50]
