"""oar.amp.auto_cast: which ops run in which dtype at O1 and O2, gradient dtypes,
custom lists, nesting, enable=False, the decorator form and thread-locality;
against PyTorch's CPU autocast where the lists agree, hand-derived where
Paddle's lists (which oar follows) differ. docs/amp.md."""
import threading

import numpy as np
import pytest
import torch

import oar
import oar.nn.functional as F

BF16 = oar.bfloat16


def t(shape, stop_gradient=True, dtype="float32", seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    out = oar.to_tensor(a).astype(dtype)  # a leaf of the dtype asked for
    out.stop_gradient = stop_gradient
    return out


# (name, oar fn, torch fn) over float32 inputs: the ops whose list PyTorch's CPU
# autocast shares with oar's.
AGREE = [
    ("matmul", lambda x, w: oar.matmul(x, w), lambda x, w: torch.matmul(x, w)),
    ("linear", lambda x, w: F.linear(x, w), lambda x, w: torch.nn.functional.linear(x, w.T)),
    ("relu of matmul", lambda x, w: F.relu(oar.matmul(x, w)),
     lambda x, w: torch.relu(torch.matmul(x, w))),
    ("add bf16 + f32", lambda x, w: oar.matmul(x, w) + oar.ones([8]),
     lambda x, w: torch.matmul(x, w) + torch.ones(8)),
    ("mse_loss", lambda x, w: F.mse_loss(oar.matmul(x, w), oar.zeros([4, 8])),
     lambda x, w: torch.nn.functional.mse_loss(torch.matmul(x, w), torch.zeros(4, 8))),
    ("l1_loss", lambda x, w: F.l1_loss(oar.matmul(x, w), oar.zeros([4, 8])),
     lambda x, w: torch.nn.functional.l1_loss(torch.matmul(x, w), torch.zeros(4, 8))),
    ("cross_entropy", lambda x, w: F.cross_entropy(oar.matmul(x, w), oar.to_tensor([1, 2, 3, 0])),
     lambda x, w: torch.nn.functional.cross_entropy(torch.matmul(x, w), torch.tensor([1, 2, 3, 0]))),
    ("prod", lambda x, w: oar.prod(oar.matmul(x, w)), lambda x, w: torch.prod(torch.matmul(x, w))),
]


@pytest.mark.parametrize("name,fo,ft", AGREE, ids=[a[0] for a in AGREE])
def test_o1_agrees_with_torch_autocast(name, fo, ft):
    x, w = t([4, 6]), t([6, 8], seed=1)
    with oar.amp.auto_cast(level="O1", dtype="bfloat16"):
        got = fo(x, w).dtype
    with torch.autocast("cpu", dtype=torch.bfloat16):
        want = ft(torch.tensor(x.numpy()), torch.tensor(w.numpy())).dtype
    assert got.name == str(want).replace("torch.", "")


def test_conv2d_runs_in_bfloat16_like_torch():
    x, k = t([2, 3, 8, 8]), t([4, 3, 3, 3], seed=1)
    with oar.amp.auto_cast():
        assert F.conv2d(x, k, padding=1).dtype == BF16
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert torch.nn.functional.conv2d(torch.tensor(x.numpy()), torch.tensor(k.numpy()),
                                          padding=1).dtype == torch.bfloat16


def test_conv_with_bias_stays_in_bfloat16():
    # The bias belongs to the white-listed convolution (PyTorch casts it too): a float32
    # bias must not promote the activation back to float32 for every op after it.
    conv = oar.nn.Conv2D(3, 4, 3, padding=1)
    x = t([2, 3, 8, 8])
    with oar.amp.auto_cast():
        y = conv(x)
        assert y.dtype == BF16 and oar.nn.BatchNorm2D(4)(y).dtype == BF16
    y.astype("float32").sum().backward()
    assert conv.bias.grad.dtype == oar.float32 and conv.weight.grad.dtype == oar.float32
    # the bias gradient is the sum over batch and positions of the (bfloat16) output grad
    np.testing.assert_allclose(conv.bias.grad.numpy(), np.full([4], 2 * 8 * 8.0))
    with oar.amp.auto_cast(custom_black_list=["conv"]):
        assert conv(x).dtype == oar.float32
    assert conv(x).dtype == oar.float32  # outside auto_cast nothing changes


# Where Paddle's black list (oar's) differs from PyTorch, which lets these follow
# their bfloat16 input: oar computes them in float32.
PADDLE_BLACK = [
    ("exp", lambda y: oar.exp(y)), ("log", lambda y: oar.log(oar.abs(y) + 1)),
    ("pow", lambda y: oar.pow(y, 2.0)), ("square", lambda y: oar.square(y)),
    ("softmax", lambda y: F.softmax(y)), ("log_softmax", lambda y: F.log_softmax(y)),
    ("sum", lambda y: oar.sum(y)), ("mean", lambda y: oar.mean(y)),
    ("layer_norm", lambda y: F.layer_norm(y, [8])),
    ("logsumexp", lambda y: oar.logsumexp(y, axis=1)),
]


@pytest.mark.parametrize("name,fn", PADDLE_BLACK, ids=[a[0] for a in PADDLE_BLACK])
def test_o1_black_list_runs_in_float32(name, fn):
    y = t([4, 8], dtype="bfloat16")
    with oar.amp.auto_cast():
        assert fn(y).dtype == oar.float32
    assert fn(y).dtype == BF16  # without auto_cast it follows its input


def test_o1_gray_ops_follow_their_inputs():
    x = t([4, 8])
    with oar.amp.auto_cast():
        assert F.relu(x).dtype == oar.float32
        assert oar.tanh(x.astype("bfloat16")).dtype == BF16
        assert (x.astype("bfloat16") * x).dtype == oar.float32  # promoted to the widest
        assert oar.matmul(x.astype("float64"), x.astype("float64").T).dtype == oar.float64


def test_o2_runs_everything_low_but_the_black_list():
    x = t([4, 8])
    with oar.amp.auto_cast(level="O2", use_promote=False):
        assert F.relu(x).dtype == BF16
        assert (x + x).dtype == BF16
        assert oar.exp(x).dtype == oar.float32
    with oar.amp.auto_cast(level="O2"):  # use_promote: a float32 input promotes
        assert F.relu(x).dtype == oar.float32
        assert F.relu(x.astype("bfloat16")).dtype == BF16
        assert oar.matmul(x, x.T).dtype == BF16


def test_float16():
    x = t([4, 8])
    with oar.amp.auto_cast(dtype="float16"):
        assert oar.matmul(x, x.T).dtype == oar.float16
        assert oar.exp(x.astype("float16")).dtype == oar.float32


def test_gradients_come_back_in_each_inputs_dtype():
    x = t([4, 6], stop_gradient=False)
    w = t([6, 8], stop_gradient=False, seed=1)
    b = t([8], stop_gradient=False, dtype="bfloat16", seed=2)
    with oar.amp.auto_cast():
        y = oar.matmul(x, w) + b
        loss = oar.exp(y).mean()
        assert y.dtype == BF16 and loss.dtype == oar.float32
        loss.backward()  # inside the block: the backward is not auto-cast again
    assert x.grad.dtype == oar.float32 and w.grad.dtype == oar.float32 and b.grad.dtype == BF16
    # The same gradient as the same casts written out by hand.
    xs, ws = x.detach(), w.detach()
    xs.stop_gradient = ws.stop_gradient = False
    y2 = oar.matmul(xs.astype("bfloat16"), ws.astype("bfloat16")) + b.detach()
    oar.exp(y2.astype("float32")).mean().backward()
    np.testing.assert_array_equal(x.grad.numpy(), xs.grad.numpy())
    np.testing.assert_array_equal(w.grad.numpy(), ws.grad.numpy())


def test_custom_lists_and_paddle_names():
    x = t([4, 8])
    with oar.amp.auto_cast(custom_black_list={"matmul"}):
        assert oar.matmul(x, x.T).dtype == oar.float32
    with oar.amp.auto_cast(custom_black_list=["matmul_v2"]):  # Paddle's name
        assert oar.matmul(x, x.T).dtype == oar.float32
    with oar.amp.auto_cast(custom_white_list={"tanh"}):
        assert oar.tanh(x).dtype == BF16
    with oar.amp.auto_cast(custom_white_list={"exp"}):  # moved off the black list
        assert oar.exp(x).dtype == BF16
    with pytest.raises(ValueError, match="both custom_white_list and custom_black_list"):
        oar.amp.auto_cast(custom_white_list={"exp"}, custom_black_list={"exp"})


def test_nesting_enable_false_and_restoring():
    x = t([4, 8])
    with oar.amp.auto_cast():
        assert oar.matmul(x, x.T).dtype == BF16
        with oar.amp.auto_cast(enable=False):
            assert oar.matmul(x, x.T).dtype == oar.float32
            with oar.amp.auto_cast(level="O2", use_promote=False):
                assert F.relu(x).dtype == BF16
            assert F.relu(x).dtype == oar.float32
        assert oar.matmul(x, x.T).dtype == BF16
    assert oar.matmul(x, x.T).dtype == oar.float32
    assert oar._C._amp_state()[0] == 0


def test_autocast_state_queries_follow_the_blocks():
    # Paddle's is_autocast_enabled / get_autocast_dtype (and the cpu/gpu aliases)
    assert not oar.amp.is_autocast_enabled() and oar.amp.get_autocast_dtype() == "float16"
    with oar.amp.auto_cast(dtype="bfloat16"):
        assert oar.is_autocast_enabled() and oar.get_autocast_dtype() == "bfloat16"
        with oar.amp.auto_cast(enable=False):
            assert not oar.amp.is_autocast_enabled()
            assert oar.amp.get_autocast_cpu_dtype() == "float16"
        with oar.amp.auto_cast(level="O2", dtype="float16"):
            assert oar.amp.get_autocast_gpu_dtype() == "float16"
        assert oar.amp.get_autocast_dtype("cpu") == "bfloat16"
    assert not oar.amp.is_autocast_enabled()
    assert oar.amp.get_autocast_cpu_dtype is oar.amp.get_autocast_dtype


def test_state_is_restored_when_the_block_raises():
    with pytest.raises(RuntimeError):
        with oar.amp.auto_cast():
            raise RuntimeError("boom")
    assert oar._C._amp_state()[0] == 0


def test_decorator():
    @oar.amp.auto_cast(level="O1")
    def f(x):
        return oar.matmul(x, x.T)

    x = t([3, 5])
    assert f(x).dtype == BF16
    assert oar.matmul(x, x.T).dtype == oar.float32


def test_layers_under_auto_cast():
    net = oar.nn.Sequential(oar.nn.Linear(6, 8), oar.nn.ReLU(), oar.nn.Linear(8, 3))
    with oar.amp.auto_cast():
        out = net(t([4, 6]))
        loss = F.cross_entropy(out, oar.to_tensor([0, 1, 2, 0]))
    assert out.dtype == BF16 and loss.dtype == oar.float32
    loss.backward()
    assert all(p.grad is not None and p.grad.dtype == oar.float32 for p in net.parameters())


def test_thread_local():
    x = t([4, 8])
    inside, checked, seen = threading.Event(), threading.Event(), {}

    def other():
        inside.wait()
        seen["other"] = oar.matmul(x, x.T).dtype
        checked.set()

    th = threading.Thread(target=other)
    th.start()
    with oar.amp.auto_cast():
        inside.set()
        checked.wait(10)
        seen["this"] = oar.matmul(x, x.T).dtype
    th.join()
    assert seen == {"other": oar.float32, "this": BF16}


def test_bad_arguments():
    with pytest.raises(ValueError, match="auto_cast: argument 'level'"):
        oar.amp.auto_cast(level="O3")
    with pytest.raises(ValueError, match="auto_cast: argument 'dtype'"):
        oar.amp.auto_cast(dtype="float32")
    with pytest.raises(TypeError, match="auto_cast: argument 'custom_white_list'"):
        oar.amp.auto_cast(custom_white_list="matmul")
    with pytest.raises(TypeError, match="must hold op names"):
        oar.amp.auto_cast(custom_black_list=[3])
