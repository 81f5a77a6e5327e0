"""Large 3x3 stride-1 convolutions run Winograd's algorithm (Note [Winograd's algorithm
in the eager convolution] in src/oar/kernels/cpu/conv_impl.h: oneDNN's on AVX-512, oar's
own F(2x2, 3x3) elsewhere): forward and both gradients stay within the note's bound of
float64, with the flag on (the default) and off, on every ISA."""

import numpy as np
import pytest
import torch

import oar
import oar.nn.functional as F

# 2 x 24 x 24 = 1152 output positions and 64 -> 32 channels: a shape the rule takes.
X, W = (2, 64, 24, 24), (32, 64, 3, 3)


def _norm_error(got, exact):
    return float(np.linalg.norm(got - exact) / np.linalg.norm(exact))


@pytest.fixture
def winograd_flag():
    old = oar.get_flags("conv_winograd")["FLAGS_conv_winograd"]
    yield
    oar.set_flags({"conv_winograd": old})


@pytest.mark.parametrize("on", [True, False])
def test_passes_stay_close_to_float64(on, winograd_flag):
    oar.set_flags({"conv_winograd": on})
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal(X).astype("float32"), rng.standard_normal(W).astype("float32")
    dy = rng.standard_normal((2, 32, 24, 24)).astype("float32")
    ox, ow = oar.to_tensor(x, stop_gradient=False), oar.to_tensor(w, stop_gradient=False)
    oy = F.conv2d(ox, ow, padding=1)
    oy.backward(oar.to_tensor(dy))
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    tw = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    ty = torch.nn.functional.conv2d(tx, tw, padding=1)
    ty.backward(torch.tensor(dy, dtype=torch.float64))
    # Measured with Winograd: 7.9e-7, 6.2e-7, 8.1e-7; direct: 2.2e-7, 2.2e-7, 6.0e-7.
    bound = 1.5e-6 if on else 8e-7
    assert _norm_error(oy.numpy(), ty.detach().numpy()) < bound
    assert _norm_error(ox.grad.numpy(), tx.grad.numpy()) < bound
    assert _norm_error(ow.grad.numpy(), tw.grad.numpy()) < bound


def test_kept_weight_follows_changes():
    # Repeated inference keeps the weight in Winograd's layout (Note [A convolution's
    # weight packed across calls]); a change to the weight reaches the next call.
    rng = np.random.default_rng(4)
    x = oar.to_tensor(rng.standard_normal(X).astype("float32"))
    conv = oar.nn.Conv2D(64, 32, 3, padding=1, bias_attr=False)
    conv.eval()
    with oar.no_grad():
        for _ in range(3):
            conv(x)
        conv.weight.set_value(conv.weight.numpy() * -0.5)
        got = conv(x).numpy()
        # in the same grad mode (Note [A convolution without a graph runs folded])
        fresh = F.conv2d(x, oar.to_tensor(conv.weight.numpy()), padding=1).numpy()
    np.testing.assert_array_equal(got, fresh)
