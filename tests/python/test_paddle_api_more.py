"""Paddle 3.3 names added in python/oar/hapi/dynamic_flops.py (oar.flops),
device/_tensor_types.py (oar.FloatTensor, ...), device/_rng.py (oar.Generator),
sparse/_linalg.py (sparse.pca_lowrank) and nn/functional/_margin_ce.py
(margin_cross_entropy): values against counts, numpy and closed forms worked out here,
Paddle's conventions, and the typed errors (docs/paddle_api_extra.md)."""
import math
import re
import types
import warnings

import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F


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


# ---- typed-tensor names -------------------------------------------------------------------
TYPES = [("BFloat16Tensor", "bfloat16"), ("BoolTensor", "bool"), ("ByteTensor", "uint8"),
         ("CharTensor", "int8"), ("DoubleTensor", "float64"), ("FloatTensor", "float32"),
         ("HalfTensor", "float16"), ("IntTensor", "int32"), ("LongTensor", "int64"),
         ("ShortTensor", "int16")]


@pytest.mark.parametrize("name, dtype", TYPES)
def test_typed_tensor_constructors(name, dtype):
    T = getattr(oar, name)
    assert isinstance(T, type) and name in oar.__all__ and T is getattr(oar.device, name)
    e, v, s = T(), T([1, 2]), T(2, 3)
    assert e.dtype.name == v.dtype.name == s.dtype.name == dtype
    assert e.shape == [0] and s.shape == [2, 3] and T(4).shape == [4] and T(0).shape == [0]
    assert v.astype("float64").numpy().tolist() == [1.0, 1.0 if dtype == "bool" else 2.0]
    # Paddle's classes return plain tensors, never their own instances
    assert isinstance(v, oar.Tensor) and not isinstance(v, T) and v.stop_gradient


def test_typed_tensor_conversions_follow_the_dtype():
    assert oar.ByteTensor([300, -1]).numpy().tolist() == \
        np.array([300, -1]).astype(np.uint8).tolist()
    assert oar.CharTensor([200]).numpy().tolist() == np.array([200]).astype(np.int8).tolist()
    assert oar.IntTensor([1.7, -1.7]).numpy().tolist() == [1, -1]
    assert oar.BoolTensor([0, 2]).numpy().tolist() == [False, True]
    assert oar.LongTensor(((1, 2), (3, 4))).numpy().tolist() == [[1, 2], [3, 4]]
    assert oar.FloatTensor([1.5], dtype="float64").dtype == oar.float32  # unused, as Paddle
    a = oar.FloatTensor(np.array([1, 2]))  # Paddle 3.3.1 keeps int64 (docs)
    assert a.dtype == oar.float32 and a.numpy().tolist() == [1.0, 2.0]
    d = oar.DoubleTensor(oar.to_tensor([1, 2]), oar.CPUPlace(), stop_gradient=False)
    assert d.dtype == oar.float64 and not d.stop_gradient
    assert oar.FloatTensor(np.array([1.0]), dtype="float64").dtype == oar.float64


@pytest.mark.parametrize("args, kwargs, err", [
    ((2.5,), {}, ValueError), ((2, 3.0), {}, ValueError), ((np.int64(3),), {}, ValueError),
    ((-1,), {}, ValueError), ((True,), {}, TypeError),
    ((np.array([1.0]),), {"bogus": 1}, TypeError),
    ((np.array([1.0]), None), {"place": None}, TypeError)])
def test_typed_tensor_errors(args, kwargs, err):
    with pytest.raises(err):
        oar.FloatTensor(*args, **kwargs)


def test_typed_tensor_error_names_the_constructor():
    with pytest.raises(ValueError, match=r"LongTensor\(\): the first argument"):
        oar.LongTensor(2.5)


# ---- Generator -----------------------------------------------------------------------------
def test_generator_is_the_default_generator():
    g = oar.Generator()
    assert g is oar.seed(11) and isinstance(g, oar.Generator)
    assert oar.Generator("cpu") is g and oar.Generator(oar.CPUPlace()) is g
    assert oar.Generator(0) is g and oar.Generator(device=None) is g
    assert g.manual_seed(5) is g and g.initial_seed() == 5 == oar.random.initial_seed()
    state = g.get_state()
    a = oar.rand([4]).numpy()
    r1 = g.random()
    g.set_state(state)
    assert (oar.rand([4]).numpy() == a).all() and g.random() == r1 and 0 <= r1 < 2 ** 64
    assert g.random() != r1  # it advances
    s = g.seed()
    assert g.initial_seed() == s and isinstance(s, int)


def test_generator_numbered_states():
    g = oar.Generator()
    assert g.get_state_index() == 0
    g.manual_seed(1)
    fresh = g.get_state()
    first = oar.rand([3]).numpy()  # index 0 has drawn once
    i = g.register_state_index(fresh)
    try:
        assert i >= 1 and g.get_state_index() == i  # registering switches to it
        assert (oar.rand([3]).numpy() == first).all()  # index i starts at `fresh`
        second = oar.rand([3]).numpy()
        g.set_state_index(0)
        after_first = oar.rand([3]).numpy()
        assert (after_first == second).all()  # index 0 resumed after its one draw
        g.set_state_index(i)
        third = oar.rand([3]).numpy()
        g.set_state(fresh)
        oar.rand([3]), oar.rand([3])
        assert (oar.rand([3]).numpy() == third).all()
    finally:
        g.set_state_index(0)


@pytest.mark.parametrize("device, err", [("gpu", ValueError), ("gpu:0", ValueError),
                                         ("foo", ValueError), (3, ValueError),
                                         (1.5, TypeError)])
def test_generator_device_errors(device, err):
    with pytest.raises(err, match="Generator"):
        oar.Generator(device)


def test_generator_state_index_errors():
    g = oar.Generator()
    with pytest.raises(ValueError, match=r"set_state_index\(\): argument 'index'"):
        g.set_state_index(10 ** 6)
    with pytest.raises(TypeError, match=r"set_state_index\(\): argument 'index'"):
        g.set_state_index("1")
    with pytest.raises(TypeError, match=r"register_state_index\(\): argument 'state'"):
        g.register_state_index(3)
    assert g.get_state_index() == 0


# ---- sparse.pca_lowrank ------------------------------------------------------------------
def sparse_matrix(shape, seed, density=0.45):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) * (rng.random(shape) < density)


@pytest.mark.parametrize("shape", [(9, 5), (5, 9), (6, 6)])
@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_sparse_pca_lowrank_is_the_svd_of_the_centred_matrix(shape, center, fmt):
    d = sparse_matrix(shape, sum(shape))
    t = oar.to_tensor(d)
    x = t.to_sparse_coo(2) if fmt == "coo" else t.to_sparse_csr()
    q = min(shape)
    u, s, v = oar.sparse.pca_lowrank(x, q=q, center=center)
    a = d - d.mean(0) if center else d
    assert u.shape == [shape[0], q] and s.shape == [q] and v.shape == [shape[1], q]
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False), atol=1e-10)
    np.testing.assert_allclose(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, a, atol=1e-10)
    np.testing.assert_allclose(u.numpy().T @ u.numpy(), np.eye(q), atol=1e-10)
    np.testing.assert_allclose(v.numpy().T @ v.numpy(), np.eye(q), atol=1e-10)


def test_sparse_pca_lowrank_defaults_batches_and_low_rank():
    d = np.zeros((12, 9))
    d[:, 0] = np.arange(12.0) % 3
    d[:, 4] = 2 * d[:, 0]
    d[2:5, 6] = 1.0
    d[7, 8] = 3.0
    x = oar.to_tensor(d).to_sparse_coo(2)
    u, s, v = oar.sparse.pca_lowrank(x)  # q = min(6, m, n)
    a = d - d.mean(0)
    ref = np.linalg.svd(a, compute_uv=False)
    assert s.shape == [6]
    np.testing.assert_allclose(s.numpy(), ref[:6], atol=1e-10)  # rank 3: exact
    np.testing.assert_allclose(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, a, atol=1e-10)
    b = np.stack([sparse_matrix((6, 4), 1), sparse_matrix((6, 4), 2)]).astype(np.float32)
    ub, sb, vb = oar.sparse.pca_lowrank(oar.to_tensor(b).to_sparse_coo(3), q=4)
    assert sb.dtype == oar.float32 and ub.shape == [2, 6, 4] and vb.shape == [2, 4, 4]
    ref = np.linalg.svd(b - b.mean(1, keepdims=True), compute_uv=False)
    np.testing.assert_allclose(sb.numpy(), ref, atol=1e-5)
    ints = oar.to_tensor([[1, 0], [0, 2], [3, 0]]).to_sparse_coo(2)
    assert oar.sparse.pca_lowrank(ints, center=False)[1].dtype == oar.float32


def test_sparse_pca_lowrank_gradient_is_the_nuclear_norm_gradient():
    d = sparse_matrix((7, 4), 3, density=0.6)
    x = oar.to_tensor(d).to_sparse_coo(2)
    x.stop_gradient = False
    u, s, v = oar.sparse.pca_lowrank(x, q=4)
    s.sum().backward()
    # sum(S) is the nuclear norm of (I - 11^T/m) X: its gradient is (I - 11^T/m) U V^T
    a = d - d.mean(0)
    ua, _, vha = np.linalg.svd(a, full_matrices=False)
    m = d.shape[0]
    want = (np.eye(m) - np.ones((m, m)) / m) @ ua @ vha
    g = x.grad
    assert g.is_sparse()
    np.testing.assert_allclose(g.to_dense().numpy(), want * (d != 0), atol=1e-9)


@pytest.mark.parametrize("make, kwargs, err, what", [
    (lambda: oar.ones([3, 3]), {}, ValueError, "argument 'x' must be sparse"),
    (lambda: np.ones((3, 3)), {}, ValueError, "argument 'x' must be a sparse Tensor"),
    (lambda: oar.ones([3]).to_sparse_coo(1), {}, ValueError, "argument 'x' must be a matrix"),
    (lambda: oar.ones([3, 2]).to_sparse_coo(2), {"q": 3}, ValueError, "argument 'q'"),
    (lambda: oar.ones([3, 2]).to_sparse_coo(2), {"q": -1}, ValueError, "argument 'q'"),
    (lambda: oar.ones([3, 2]).to_sparse_coo(2), {"niter": -1}, ValueError, "argument 'niter'"),
    (lambda: oar.ones([3, 2]).to_sparse_coo(2), {"q": 1.5}, TypeError, "q")])
def test_sparse_pca_lowrank_errors(make, kwargs, err, what):
    with pytest.raises(err, match=re.escape("sparse.pca_lowrank(): ") + ".*" + re.escape(what)):
        oar.sparse.pca_lowrank(make(), **kwargs)


# ---- margin_cross_entropy ------------------------------------------------------------------
def f32(v):
    return float(np.float32(v))


def margin_reference(lg, lb, m1, m2, m3, s):
    """Loss per row, softmax, and Paddle's closed-form gradient of sum(loss) (its GPU
    kernel's formula), in numpy, with the margins rounded to float32 as Paddle's attrs."""
    m1, m2, m3, s = f32(m1), f32(m2), f32(m3), f32(s)
    rows = np.arange(len(lb))
    x = lg[rows, lb]
    active = abs(m1 - 1) > 1e-8 or abs(m2) > 1e-8
    tgt = np.cos(m1 * np.arccos(x) + m2) if active else x.copy()
    z = lg.copy()
    z[rows, lb] = tgt - m3
    z *= s
    z -= z.max(1, keepdims=True)
    sm = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    loss = -np.log(sm[rows, lb])
    grad = sm.copy()
    grad[rows, lb] -= 1
    if active:
        grad[rows, lb] *= m1 * np.sin(m1 * np.arccos(x) + m2) / np.sqrt(1 - x * x)
    return loss[:, None], sm, grad * s


def cosines(n, c, seed):
    rng = np.random.default_rng(seed)
    f, w = rng.standard_normal((n, 5)), rng.standard_normal((5, c))
    return (f / np.linalg.norm(f, axis=1, keepdims=True)) @ (w / np.linalg.norm(w, axis=0))


def test_margin_cross_entropy_matches_paddles_documented_example():
    # Paddle's docstring example (GPU, float64), logits printed to 8 decimals
    lg = oar.to_tensor([[-0.59561850, 0.32797505, 0.80279214, 0.00144975],
                        [-0.16265212, 0.84155098, 0.62008629, 0.79126072]], dtype="float64")
    loss, sm = F.margin_cross_entropy(lg, oar.to_tensor([1, 0]), return_softmax=True,
                                      reduction=None)
    np.testing.assert_allclose(loss.numpy(), [[61.94391901], [93.30853839]], atol=1e-5)
    np.testing.assert_allclose(sm.numpy(), [[0, 0, 1, 0],
                                            [0, 0.96152676, 0.00000067, 0.03847257]],
                               atol=1e-7)


@pytest.mark.parametrize("margins", [(1.0, 0.5, 0.0, 64.0), (1.0, 0.0, 0.35, 30.0),
                                     (1.35, 0.0, 0.0, 16.0), (0.9, 0.3, 0.05, 5.0)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none", None])
def test_margin_cross_entropy_values_and_gradient(margins, reduction):
    lg = cosines(6, 9, 7)
    lb = np.random.default_rng(8).integers(0, 9, 6)
    rl, rs, rg = margin_reference(lg, lb, *margins)
    x = oar.to_tensor(lg, stop_gradient=False)
    loss, sm = F.margin_cross_entropy(x, oar.to_tensor(lb), *margins, return_softmax=True,
                                      reduction=reduction)
    want = {"mean": rl.mean(), "sum": rl.sum()}.get(reduction, rl)
    assert loss.shape == ([] if reduction in ("mean", "sum") else [6, 1])
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(sm.numpy(), rs, atol=1e-13)
    loss.sum().backward()
    scale = 1.0 / 6 if reduction == "mean" else 1.0
    np.testing.assert_allclose(x.grad.numpy(), rg * scale, rtol=1e-9, atol=1e-12)


def test_margin_cross_entropy_rounds_the_margins_like_paddle():
    lg, lb = cosines(4, 5, 3), np.array([0, 4, 2, 2])
    got = F.margin_cross_entropy(oar.to_tensor(lg), oar.to_tensor(lb), margin2=0.35,
                                 reduction=None).numpy()
    np.testing.assert_allclose(got, margin_reference(lg, lb, 1.0, 0.35, 0.0, 64.0)[0],
                               rtol=1e-13)
    rows = np.arange(4)
    exact = lg.copy()
    exact[rows, lb] = np.cos(np.arccos(lg[rows, lb]) + 0.35)  # 0.35 not rounded
    z = 64 * exact
    exact_loss = np.log(np.exp(z).sum(1)) - z[rows, lb]
    assert np.abs(got[:, 0] - exact_loss).max() > 1e-8


def test_margin_cross_entropy_label_shapes_dtypes_and_groups():
    lg = oar.to_tensor(cosines(4, 3, 1).astype(np.float32))
    lb = [2, 0, 1, 1]
    base = F.margin_cross_entropy(lg, oar.to_tensor(lb)).numpy()
    col = F.margin_cross_entropy(lg, oar.to_tensor([[v] for v in lb], dtype="int32"))
    assert np.allclose(col.numpy(), base)
    half, sm = F.margin_cross_entropy(lg.astype("float16"), oar.to_tensor(lb),
                                      return_softmax=True)
    assert half.dtype == oar.float16 and sm.dtype == oar.float16
    assert abs(float(half.astype("float32")) - float(base)) < 1e-2 * abs(float(base))
    one_rank = types.SimpleNamespace(is_member=lambda: True, nranks=1)
    outsider = types.SimpleNamespace(is_member=lambda: False, nranks=2)
    for group in (False, one_rank):
        assert np.allclose(F.margin_cross_entropy(lg, oar.to_tensor(lb), group=group).numpy(),
                           base)
    assert F.margin_cross_entropy(lg, oar.to_tensor(lb), group=outsider) is None


@pytest.mark.parametrize("kwargs, err, what", [
    ({"reduction": "avg"}, ValueError, "argument 'reduction'"),
    ({"label": [1, 0]}, TypeError, "argument 'label'"),
    ({"label": np.array([1.0, 0.0])}, TypeError, "argument 'label'"),
    ({"label": np.array([1, 3])}, ValueError, "argument 'label' holds 3"),
    ({"label": np.array([-1, 0])}, ValueError, "argument 'label' holds -1"),
    ({"label": np.array([1, 0, 1])}, ValueError, "argument 'label' must have shape"),
    ({"logits": np.array([[1, 0], [0, 1]])}, TypeError, "argument 'logits'"),
    ({"logits": np.zeros((2, 0))}, ValueError, "argument 'logits'"),
    ({"margin1": "1"}, TypeError, "argument 'margin1'"),
    ({"group": "world"}, ValueError, "argument 'group'"),
    ({"group": types.SimpleNamespace(is_member=lambda: True, nranks=2)},
     NotImplementedError, "2 processes")])
def test_margin_cross_entropy_errors(kwargs, err, what):
    args = {"logits": oar.to_tensor([[0.6, 0.8], [1.0, 0.0]]), "label": oar.to_tensor([1, 0])}
    for k in ("logits", "label"):
        if isinstance(kwargs.get(k), np.ndarray):
            kwargs = {**kwargs, k: oar.to_tensor(kwargs[k])}
    args.update(kwargs)
    with pytest.raises(err, match=re.escape("margin_cross_entropy(): ") + ".*" + re.escape(what)):
        F.margin_cross_entropy(**args)


# ---- Tensor.detach_ ------------------------------------------------------------------------
def test_detach_inplace_cuts_the_graph_and_keeps_the_storage():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 3
    assert y.detach_() is y
    assert y.stop_gradient and y.is_leaf and y.grad_fn is None
    (y * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 6.0])  # y is a constant now
    assert y.grad is None
    p = oar.to_tensor([1.0], stop_gradient=False)
    p.detach_()
    assert p.stop_gradient


def test_detach_inplace_keeps_inplace_safety():
    # The storage (and its version counter) is shared with what the graph saved, so a
    # write through the detached tensor still invalidates the saved input.
    a = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    b = a * 2
    c = b * b
    b.detach_()
    b.add_(oar.to_tensor([1.0, 1.0]))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()
