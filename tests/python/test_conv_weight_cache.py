"""The eager convolution keeps its weight packed across inference calls (Note [A
convolution's weight packed across calls] in src/oar/kernels/cpu/conv_weight_cache.h),
and with grad mode off a folded convolution under the same rules (Note [A convolution
without a graph runs folded] in src/oar/kernels/cpu/conv_no_grad.h): whatever changes
the weight between calls, the next call uses the new values, equal to a convolution
with a copy of them in the same grad mode. Each test runs in both modes."""

import numpy as np
import pytest

import oar
import oar.nn.functional as F


def _model():
    oar.seed(0)
    rng = np.random.default_rng(0)
    x = oar.to_tensor(rng.standard_normal((1, 16, 8, 8)).astype("float32"))
    conv = oar.nn.Conv2D(16, 16, 3, padding=1, bias_attr=False)
    conv.eval()
    return x, conv


@pytest.fixture(params=["no_grad", "enable_grad"])
def mode(request):
    return getattr(oar, request.param)


def _with_copy(x, w, mode):
    with mode():
        return F.conv2d(x, oar.to_tensor(np.array(w.numpy())), padding=1).numpy()


def _set_value(conv, x):
    conv.weight.set_value(conv.weight.numpy() * -2.0)


def _in_place(conv, x):
    with oar.no_grad():
        conv.weight.add_(oar.ones_like(conv.weight))


def _optimizer_step(conv, x):
    conv.train()
    opt = oar.optimizer.SGD(learning_rate=0.5, parameters=conv.parameters())
    conv(x).square().sum().backward()
    opt.step()
    conv.eval()


def _state_dict(conv, x):
    conv.set_state_dict({"weight": oar.to_tensor(conv.weight.numpy() + 1.0)})


def _numpy_view(conv, x):
    conv.weight.stop_gradient = True  # a frozen weight: np.asarray views it writable
    view = np.asarray(conv.weight)
    view *= -1.0


def _dlpack_export(conv, x):
    torch = pytest.importorskip("torch")
    torch.from_dlpack(conv.weight.detach()).mul_(-1.0)


def _slice_write(conv, x):
    with oar.no_grad():
        conv.weight[0] = oar.zeros_like(conv.weight[0])


CHANGES = [
    _set_value,
    _in_place,
    _optimizer_step,
    _state_dict,
    _numpy_view,
    _dlpack_export,
    _slice_write,
]


@pytest.mark.parametrize("change", CHANGES, ids=lambda f: f.__name__.strip("_"))
def test_a_changed_weight_is_the_one_used(change, mode):
    x, conv = _model()
    with mode():
        before = conv(x).numpy()
        for _ in range(3):  # the second call keeps the packed copy, the third reads it
            np.testing.assert_array_equal(conv(x).numpy(), before)
    change(conv, x)
    with mode():
        after = conv(x).numpy()
        again = conv(x).numpy()
    assert not np.array_equal(after, before)
    np.testing.assert_array_equal(after, _with_copy(x, conv.weight, mode))
    np.testing.assert_array_equal(again, after)


def test_memory_shared_with_numpy_follows_its_writes(mode):
    x, _ = _model()
    a = np.random.default_rng(1).standard_normal((16, 16, 3, 3)).astype("float32")
    w = oar.from_dlpack(a)  # oar's tensor over numpy's memory
    with mode():
        before = [F.conv2d(x, w, padding=1).numpy() for _ in range(3)]
        a *= 3.0
        after = F.conv2d(x, w, padding=1).numpy()
    np.testing.assert_array_equal(before[2], before[0])
    assert not np.array_equal(after, before[0])
    np.testing.assert_array_equal(after, _with_copy(x, w, mode))


def test_numpy_copies_leave_a_weight_writable_only_by_oar(mode):
    # numpy() and printing copy or read the memory: they hand out no writable view,
    # so the weight stays one that only oar's ops write.
    x, conv = _model()
    conv.weight.stop_gradient = True
    conv.weight.numpy()
    str(conv.weight)
    assert not np.asarray(conv.weight._readonly_buffer()).flags.writeable
    with mode():
        before = conv(x).numpy()
        conv(x)
        conv.weight.add_(oar.ones_like(conv.weight))
        after = conv(x).numpy()
    assert not np.array_equal(after, before)
    np.testing.assert_array_equal(after, _with_copy(x, conv.weight, mode))


def test_a_write_through_data_ptr_counts_once_bumped(mode):
    import ctypes

    x, conv = _model()
    with mode():
        before = conv(x).numpy()
        conv(x)
    w = conv.weight
    values = (ctypes.c_float * int(w.numel())).from_address(w.data_ptr())
    values[:] = [-v for v in values]
    w._bump_inplace_version()  # what an in-place op does after its write
    with mode():
        after = conv(x).numpy()
    assert not np.array_equal(after, before)
    np.testing.assert_array_equal(after, _with_copy(x, w, mode))
