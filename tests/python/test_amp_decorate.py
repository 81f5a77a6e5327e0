"""oar.amp.decorate: O2 casting (normalization layers and excluded layers stay
float32), float32 master weights in the optimizers, their state dict, save_dtype,
O1 as a no-op, argument errors."""
import numpy as np
import pytest

import oar
from oar.amp.decorate import decorate
from oar.amp.grad_scaler import GradScaler


class Net(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = oar.nn.Linear(4, 8)
        self.bn = oar.nn.BatchNorm1D(8)
        self.ln = oar.nn.LayerNorm(8)
        self.gn = oar.nn.GroupNorm(2, 8)
        self.fc2 = oar.nn.Linear(8, 2)

    def forward(self, x):
        h = self.ln(self.bn(self.fc1(x)))
        return self.fc2(self.gn(h.reshape([-1, 8, 1, 1])).reshape([-1, 8]))


def _f32(t):
    return t.astype("float32").numpy()


def test_o2_bfloat16_casts_linear_and_keeps_normalization_float32():
    oar.seed(0)
    net = Net()
    w_before = net.fc1.weight.numpy().copy()
    opt = oar.optimizer.Adam(1e-3, parameters=net.parameters())
    m, o = decorate(net, opt, level="O2", dtype="bfloat16")
    assert m is net and o is opt
    for name, p in m.named_parameters():
        want = "bfloat16" if name.startswith("fc") else "float32"
        assert p.dtype.name == want, name
    for layer in (m.bn, m.ln, m.gn):
        assert all(p.dtype == oar.float32 for p in layer.parameters())
    assert m.bn._mean.dtype == oar.float32 and m.bn._variance.dtype == oar.float32
    np.testing.assert_allclose(_f32(m.fc1.weight), w_before, rtol=2 ** -8)
    # the optimizer now updates the model's (new) parameters
    assert [id(p) for p in o._parameter_list] == [id(p) for p in m.parameters()]
    assert o._multi_precision
    # and a training step runs end to end (with a loss scaler)
    x = oar.randn([6, 4]).astype("bfloat16")
    sc = GradScaler(init_loss_scaling=128.0)
    sc.scale(m(x).astype("float32").mean()).backward()
    sc.step(o)
    sc.update()
    assert m.fc1.weight.dtype == oar.bfloat16
    master = o.state_dict()["master_weights"][m.fc1.weight.name]
    assert master.dtype == oar.float32
    np.testing.assert_array_equal(_f32(m.fc1.weight), _f32(master.astype("bfloat16")))


def test_o2_float16_and_excluded_layers():
    oar.seed(0)
    net = Net()
    m = decorate(net, level="O2", dtype="float16", excluded_layers=[net.fc2])
    assert m.fc1.weight.dtype == oar.float16 and m.fc2.weight.dtype == oar.float32
    net2 = Net()
    m2 = decorate([net2], level="O2", dtype="bfloat16", excluded_layers=oar.nn.Linear)
    assert isinstance(m2, list) and m2[0] is net2
    assert all(p.dtype == oar.float32 for p in net2.parameters())


def test_shared_parameter_becomes_one_parameter():
    a = oar.nn.Linear(3, 3)
    seq = oar.nn.Sequential(a, oar.nn.ReLU())
    seq.add_sublayer("again", a)
    opt = oar.optimizer.SGD(0.1, parameters=seq.parameters())
    decorate(seq, opt, level="O2", dtype="bfloat16")
    assert len(opt._parameter_list) == 2
    assert seq[0].weight is a.weight and a.weight.dtype == oar.bfloat16


def _one_layer(multi_precision_run, opt_cls, steps, lr):
    """Linear(4, 3) with weights exactly 1.0 and loss sum(W^T x) with x = ones: the
    weight gradient is exactly 1, so SGD moves each weight by lr per step and Adam by
    about lr. Returns (initial bf16 weight, final bf16 weight, master or None)."""
    lin = oar.nn.Linear(4, 3)
    lin.weight.set_value(np.ones((4, 3), np.float32))
    lin.bias.set_value(np.zeros(3, np.float32))
    opt = opt_cls(learning_rate=lr, parameters=lin.parameters())
    lin, opt = decorate(lin, opt, level="O2", dtype="bfloat16",
                        master_weight=multi_precision_run)
    w0 = _f32(lin.weight).copy()
    x = oar.ones([1, 4]).astype("bfloat16")
    for _ in range(steps):
        lin(x).sum().backward()
        opt.step()
        opt.clear_grad()
    sd = opt.state_dict()
    master = sd["master_weights"][lin.weight.name].numpy() if "master_weights" in sd else None
    return w0, _f32(lin.weight), master


@pytest.mark.parametrize("opt_cls", [oar.optimizer.SGD, oar.optimizer.Adam])
def test_master_weights_accumulate_updates_below_bfloat16_resolution(opt_cls):
    lr, steps = 1e-4, 50
    # a single update (1e-4) is far below half a bfloat16 ulp just under 1.0 (2**-9)
    assert lr < 2.0 ** -9
    # without master weights every update rounds back to 1.0: the weights never move
    w0, w, master = _one_layer(False, opt_cls, steps, lr)
    assert master is None
    np.testing.assert_array_equal(w0, np.ones((4, 3), np.float32))
    np.testing.assert_array_equal(w, w0)
    # with them, the float32 master moves by steps * lr and the bf16 weight follows it
    w0, w, master = _one_layer(True, opt_cls, steps, lr)
    assert master.dtype == np.float32
    np.testing.assert_allclose(master, 1.0 - steps * lr, rtol=1e-4)
    np.testing.assert_array_equal(w, _f32(oar.to_tensor(master).astype("bfloat16")))
    assert (w < w0).all()


def test_optimizer_state_dict_round_trip_with_master_weights():
    def build():
        oar.seed(3)
        net = oar.nn.Sequential(oar.nn.Linear(4, 5), oar.nn.LayerNorm(5), oar.nn.Linear(5, 1))
        opt = oar.optimizer.AdamW(1e-3, parameters=net.parameters())
        return decorate(net, opt, level="O2", dtype="bfloat16")

    rng = np.random.default_rng(0)
    xs = [oar.to_tensor(rng.standard_normal((3, 4)).astype("float32")).astype("bfloat16")
          for _ in range(4)]

    def train(net, opt, batches):
        for x in batches:
            net(x).astype("float32").pow(2).mean().backward()
            opt.step()
            opt.clear_grad()

    net, opt = build()
    train(net, opt, xs[:2])
    sd = opt.state_dict()
    masters = sd["master_weights"]
    assert set(masters) == {p.name for p in net.parameters() if p.dtype == oar.bfloat16}
    assert all(m.dtype == oar.float32 for m in masters.values())
    assert sd[f"{net[0].weight.name}_moment1_0"].dtype == oar.float32
    model_sd = {k: v.numpy().copy() if v.dtype != oar.bfloat16 else v for k, v in
                net.state_dict().items()}

    net2, opt2 = build()  # fresh parameters (new names): matched by position
    net2.set_state_dict(model_sd)
    opt2.set_state_dict(sd)
    m2 = list(opt2.state_dict()["master_weights"].values())
    for a, b in zip(masters.values(), m2):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    train(net, opt, xs[2:])
    train(net2, opt2, xs[2:])
    for p, q in zip(net.parameters(), net2.parameters()):
        np.testing.assert_array_equal(_f32(p), _f32(q))
    for a, b in zip(opt.state_dict()["master_weights"].values(),
                    opt2.state_dict()["master_weights"].values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_optimizer_multi_precision_without_decorate():
    lin = oar.nn.Linear(4, 3)
    lin.weight.set_value(np.ones((4, 3), np.float32))
    lin.bfloat16()  # built after the cast: the master starts from the bfloat16 value
    opt = oar.optimizer.SGD(1e-4, parameters=lin.parameters(), multi_precision=True)
    x = oar.ones([1, 4]).astype("bfloat16")
    for _ in range(30):
        lin(x).sum().backward()
        opt.step()
        opt.clear_grad()
    master = opt.state_dict()["master_weights"][lin.weight.name].numpy()
    np.testing.assert_allclose(master, 1.0 - 30 * 1e-4, rtol=1e-5)
    plain = oar.nn.Linear(4, 3)
    plain.weight.set_value(np.ones((4, 3), np.float32))
    plain.bfloat16()
    opt2 = oar.optimizer.SGD(1e-4, parameters=plain.parameters())  # no master weights
    for _ in range(30):
        plain(x).sum().backward()
        opt2.step()
        opt2.clear_grad()
    assert "master_weights" not in opt2.state_dict()
    np.testing.assert_array_equal(_f32(plain.weight), np.ones((4, 3), np.float32))


def test_master_weight_false_keeps_no_masters():
    lin = oar.nn.Linear(2, 2)
    opt = oar.optimizer.Momentum(0.1, parameters=lin.parameters())
    lin, opt = decorate(lin, opt, level="O2", dtype="bfloat16", master_weight=False)
    lin(oar.ones([1, 2]).astype("bfloat16")).sum().backward()
    opt.step()
    assert not opt._multi_precision and "master_weights" not in opt.state_dict()
    assert opt.state_dict()[f"{lin.weight.name}_velocity_0"].dtype == oar.float32


def test_grad_clip_sees_float32_gradients_of_bf16_parameters():
    lin = oar.nn.Linear(4, 3)
    lin.weight.set_value(np.ones((4, 3), np.float32))
    lin.bias.set_value(np.zeros(3, np.float32))
    opt = oar.optimizer.SGD(1.0, parameters=lin.parameters(),
                            grad_clip=oar.nn.ClipGradByGlobalNorm(1e-3))
    lin, opt = decorate(lin, opt, level="O2", dtype="bfloat16")
    lin(oar.ones([1, 4]).astype("bfloat16")).sum().backward()
    opt.step()
    master = opt.state_dict()["master_weights"][lin.weight.name].numpy()
    # all 15 gradient entries are 1: clipped to a global norm of 1e-3
    np.testing.assert_allclose(master, 1.0 - 1e-3 / np.sqrt(15), rtol=1e-6)


def test_save_dtype_float32_state_dict():
    net = Net()
    decorate(net, level="O2", dtype="bfloat16", save_dtype="float32")
    assert net.fc1.weight.dtype == oar.bfloat16
    sd = net.state_dict()
    assert all(v.dtype == oar.float32 for v in sd.values())
    assert sd["fc1.weight"].name == net.fc1.weight.name
    np.testing.assert_array_equal(sd["fc1.weight"].numpy(), _f32(net.fc1.weight))
    assert net.fc1.weight.dtype == oar.bfloat16  # the layer's own tensors are unchanged
    net2 = Net()
    decorate(net2, level="O2", dtype="bfloat16", save_dtype="bfloat16")
    assert net2.state_dict()["bn._mean"].dtype == oar.bfloat16
    assert net2.bn._mean.dtype == oar.float32


def test_o1_leaves_everything_alone():
    net = Net()
    params = net.parameters()
    opt = oar.optimizer.SGD(0.1, parameters=params)
    m, o = decorate(net, opt, level="O1", dtype="bfloat16", save_dtype="float16")
    assert m is net and o is opt
    assert all(p is q for p, q in zip(net.parameters(), params))
    assert all(p.dtype == oar.float32 for p in net.parameters())
    assert all(v.dtype == oar.float32 for v in net.state_dict().values())
    assert decorate(net) is net  # Paddle's defaults: level "O1"
    assert decorate([net], [opt], level="O1") == ([net], [opt])


def test_returns_mirror_what_was_passed():
    a, b = oar.nn.Linear(2, 2), oar.nn.Linear(2, 2)
    oa = oar.optimizer.SGD(0.1, parameters=a.parameters())
    ob = oar.optimizer.SGD(0.1, parameters=b.parameters())
    ms, os_ = decorate([a, b], [oa, ob], level="O2", dtype="bfloat16")
    assert ms == [a, b] and os_ == [oa, ob]
    c = oar.nn.Linear(2, 2)
    oc = oar.optimizer.SGD(0.1, parameters=c.parameters())
    m, o = decorate([c], oc, level="O2", dtype="bfloat16")
    assert m == [c] and o is oc


def test_bad_arguments():
    net = oar.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="decorate: argument 'level' must be 'O1' or 'O2'"):
        decorate(net, level="O3")
    with pytest.raises(TypeError, match="'level'"):
        decorate(net, level=2)
    with pytest.raises(ValueError, match="argument 'dtype'"):
        decorate(net, level="O2", dtype="float32")
    with pytest.raises(TypeError, match="argument 'dtype'"):
        decorate(net, level="O2", dtype=3.5)
    with pytest.raises(ValueError, match="argument 'save_dtype'"):
        decorate(net, level="O2", dtype="bfloat16", save_dtype="int32")
    with pytest.raises(TypeError, match="argument 'models'"):
        decorate("net", level="O2")
    with pytest.raises(TypeError, match="argument 'optimizers'"):
        decorate(net, optimizers=object(), level="O2")
    with pytest.raises(TypeError, match="argument 'master_weight'"):
        decorate(net, level="O2", master_weight="yes")
    with pytest.raises(TypeError, match="argument 'master_grad'"):
        decorate(net, level="O2", master_grad=None)
    with pytest.raises(TypeError, match="argument 'excluded_layers'"):
        decorate(net, level="O2", excluded_layers=["fc"])
    assert net.weight.dtype == oar.float32  # nothing was cast by the failed calls
    assert decorate(net, level="O2", dtype=oar.bfloat16).weight.dtype == oar.bfloat16


# ---- is_bfloat16_supported / is_float16_supported ---------------------------------------------
def _flags_from_cpuinfo():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.split(":")[0].strip().lower() in ("flags", "features"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def test_support_checks_tell_the_truth_about_this_cpu():
    from oar.amp.support import is_bfloat16_supported, is_float16_supported
    flags = _flags_from_cpuinfo()
    # Under a cap on dispatch (OAR_MAX_CPU_ISA) below the CPU's level, oar uses none
    # of the 16-bit instructions above it.
    capped = oar.device.cpu_isa().dispatched != oar.device.cpu_isa().detected
    bf16 = bool(flags & {"avx512_bf16", "amx_bf16", "bf16"}) and not capped
    fp16 = bool(flags & {"avx512_fp16", "amx_fp16", "fphp", "asimdhp"}) and not capped
    assert is_bfloat16_supported() is bf16
    assert is_float16_supported() is fp16
    for dev in ("cpu", oar.CPUPlace(), oar.ones([1]).place):
        assert is_bfloat16_supported(dev) is bf16
        assert is_float16_supported(dev) is fp16
    assert is_bfloat16_supported("gpu:0") is False and is_float16_supported("gpu") is False
    with pytest.raises(ValueError, match="is_bfloat16_supported: argument 'device'"):
        is_bfloat16_supported("tpu")
    with pytest.raises(TypeError, match="is_float16_supported: argument 'device'"):
        is_float16_supported(3)


def test_support_flag_parsing(tmp_path):
    from oar.device import support
    x86 = tmp_path / "x86"
    x86.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx512f avx512_bf16\n\n"
                   "processor\t: 1\nflags\t\t: fpu sse2 avx512f avx512_bf16\n")
    arm = tmp_path / "arm"
    arm.write_text("processor\t: 0\nFeatures\t: fp asimd fphp asimdhp\n")
    assert support._read_flags(str(x86)) & support._BF16_FLAGS
    assert not support._read_flags(str(x86)) & support._FP16_FLAGS
    assert support._read_flags(str(arm)) & support._FP16_FLAGS
    assert not support._read_flags(str(arm)) & support._BF16_FLAGS
    assert support._read_flags(str(tmp_path / "missing")) == frozenset()


def test_defaults_are_o2_bfloat16():
    # oar's defaults (the CPU's fast low dtype); Paddle's are O1 / float16.
    net = oar.nn.Sequential(oar.nn.Linear(4, 4), oar.nn.LayerNorm(4))
    opt = oar.optimizer.SGD(0.1, parameters=net.parameters())
    net, opt = decorate(net, opt)
    assert net[0].weight.dtype == oar.bfloat16 and net[1].weight.dtype == oar.float32
