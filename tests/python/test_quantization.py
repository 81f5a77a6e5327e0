"""oar.quantization and oar.nn.quant: fake quantization (values, halves away from zero,
per-channel scales, straight-through gradients), the quanters' moving-average scales,
QuantConfig/QAT/PTQ model rewriting, quantization-aware training, convert(), and the
imperative quant_layers."""
import numpy as np
import pytest

import oar
from oar.nn.quant import Stub, quant_layers
from oar.quantization import PTQ, QAT, QuantConfig, quanter, BaseQuanter
from oar.quantization.observers import AbsmaxObserver
from oar.quantization.quanters import FakeQuanterWithAbsMaxObserver

FQ = oar._C.fake_quantize_dequantize


def _ref(x, s, bits, axis=None):
    """round(clip(x, -s, s) * q / s) * s / q with halves away from zero."""
    q = 2.0 ** (bits - 1) - 1
    if axis is not None:
        shape = [1] * x.ndim
        shape[axis] = -1
        s = s.reshape(shape)
    v = np.clip(x, -s, s) * q / s
    return np.sign(v) * np.floor(np.abs(v) + 0.5) * s / q


def test_values_and_halves_away_from_zero():
    x = np.array([0.5, 2.5, -0.5, -2.5, 1.5, 3.0, 7.0, -9.0])  # scale 3, 3 bits: q = 3
    out = FQ(oar.to_tensor(x), oar.to_tensor([3.0]), 3).numpy()
    np.testing.assert_array_equal(out, [1.0, 3.0, -1.0, -3.0, 2.0, 3.0, 3.0, -3.0])
    rng = np.random.default_rng(0)
    y = rng.standard_normal((4, 5))
    for dtype in ("float32", "float64"):
        got = FQ(oar.to_tensor(y.astype(dtype)), oar.to_tensor([0.7]), 8).numpy()
        np.testing.assert_allclose(got, _ref(y.astype(dtype), np.float64(0.7), 8), rtol=1e-6)
    s = np.array([0.5, 1.0, 2.0, 0.25, 4.0])
    got = FQ(oar.to_tensor(y), oar.to_tensor(s), 4, 1).numpy()
    np.testing.assert_allclose(got, _ref(y, s, 4, axis=1), rtol=1e-12)
    # a bfloat16 input keeps its dtype; a zero scale maps everything to 0
    b = FQ(oar.to_tensor(y).astype("bfloat16"), oar.to_tensor([1.0]), 8)
    assert b.dtype == oar.bfloat16
    np.testing.assert_array_equal(FQ(oar.to_tensor(y), oar.to_tensor([0.0]), 8).numpy(), 0 * y)


def test_fake_quantize_errors():
    x = oar.ones([2, 3])
    with pytest.raises(ValueError, match="bit_length"):
        FQ(x, oar.to_tensor([1.0]), 1)
    with pytest.raises(ValueError, match="one per slice along axis 1"):
        FQ(x, oar.to_tensor([1.0, 1.0]), 8, 1)
    with pytest.raises(IndexError, match="quant_axis"):
        FQ(x, oar.to_tensor([1.0, 1.0]), 8, 2)
    with pytest.raises(TypeError, match="int64"):
        FQ(oar.to_tensor([1, 2]), oar.to_tensor([1.0]), 8)


def test_straight_through_gradient_to_every_order():
    from oar.nn.quant._fake import fake_quant
    x = oar.to_tensor(np.array([0.3, -1.7, 2.2]), stop_gradient=False)
    y = fake_quant(x, oar.to_tensor([2.0]), 4)
    np.testing.assert_array_equal(y.numpy(), _ref(np.array([0.3, -1.7, 2.2]), 2.0, 4))
    w = oar.to_tensor(np.array([1.0, 2.0, 3.0]))
    (g,) = oar.grad([(y * w).sum()], [x], create_graph=True)
    np.testing.assert_array_equal(g.numpy(), [1.0, 2.0, 3.0])  # clipped 2.2 too (STE)
    (gg,) = oar.grad([(g * g).sum()], [x], allow_unused=True)
    assert gg is None or not np.any(gg.numpy())


def test_moving_average_quanter_scale():
    layer = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)._instance(None)
    x = oar.to_tensor(np.array([-1.27, -0.5, 0.005, 0.3, 1.27], "float32"))
    y = layer(x)
    # state = 0.9 * 1 + 1, accum = 0.9 * 1 + 1.27, scale = accum / state
    assert layer._state.item() == pytest.approx(1.9)
    assert layer._accum.item() == pytest.approx(2.17)
    scale = 2.17 / 1.9
    assert layer.scales().item() == pytest.approx(scale, rel=1e-6)
    np.testing.assert_allclose(y.numpy(), _ref(x.numpy(), np.float32(scale), 8), rtol=1e-6)
    layer(oar.to_tensor([3.0, -0.5]))
    assert layer.scales().item() == pytest.approx((0.9 * 2.17 + 3.0) / (0.9 * 1.9 + 1),
                                                  rel=1e-6)
    layer.eval()
    before = layer.scales().item()
    layer(oar.to_tensor([100.0]))
    assert layer.scales().item() == before  # eval uses the learned scale
    assert layer.bit_length() == 8 and layer.quant_axis() == -1


def test_quant_config_printing_and_rules():
    q = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
    assert str(QuantConfig(activation=q, weight=q)) == (
        "Global config:\nactivation: FakeQuanterWithAbsMaxObserver(name=None,moving_rate=0.9,"
        "bit_length=8,dtype=float32)\nweight: FakeQuanterWithAbsMaxObserver(name=None,"
        "moving_rate=0.9,bit_length=8,dtype=float32)\n")
    cfg = QuantConfig(activation=None, weight=None)
    lin = oar.nn.Linear(3, 3)
    cfg.add_layer_config([lin], activation=q, weight=q)
    cfg.add_type_config(oar.nn.Conv2D, weight=q)
    text = str(cfg)
    assert "Global config:\nNone" in text and lin.full_name() in text and "Conv2D" in text
    with pytest.raises(TypeError, match="Layer subclass"):
        cfg.add_type_config(3)
    with pytest.raises(TypeError, match="factory"):
        QuantConfig(activation=0.9, weight=None)


class _Net(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = oar.nn.Conv2D(1, 2, 3, padding=1)
        self.relu = oar.nn.ReLU()
        self.quant = Stub()
        self.fc = oar.nn.Linear(8, 3)

    def forward(self, x):
        x = self.quant(self.relu(self.conv(x)))
        return self.fc(x.reshape([x.shape[0], -1]))


def test_qat_rewrites_the_model_and_trains():
    q = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
    oar.seed(0)
    model = _Net()
    qm = QAT(QuantConfig(activation=q, weight=q)).quantize(model)
    assert type(model.conv).__name__ == "Conv2D"  # not inplace: the original is kept
    text = repr(qm)
    assert "(conv): QuantedConv2D(" in text and "(weight_quanter): FakeQuanterWith" in text
    assert "(relu): ObserveWrapper(" in text and "(quant): QuanterStub(" in text
    assert "(fc): QuantedLinear(" in text
    x = oar.randn([4, 1, 2, 2])
    target = oar.randn([4, 3])
    opt = oar.optimizer.Adam(0.05, parameters=qm.parameters())
    losses = []
    for _ in range(15):
        loss = ((qm(x) - target) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    # the quantized weight the layer computes with lies on the 8-bit grid of its scale
    wq = qm.fc.weight_quanter(qm.fc.weight)
    s = qm.fc.weight_quanter.scales().item()
    np.testing.assert_allclose(wq.numpy() * 127 / s, np.round(wq.numpy() * 127 / s), atol=1e-3)
    with pytest.raises(ValueError, match="eval mode"):
        QAT(QuantConfig(activation=q, weight=q)).quantize(model.eval())


def test_convert_freezes_quanters_into_fixed_fake_quantization():
    q = FakeQuanterWithAbsMaxObserver(moving_rate=0.5)
    oar.seed(1)
    qm = QAT(QuantConfig(activation=q, weight=q)).quantize(_Net())
    x = oar.randn([2, 1, 2, 2])
    qm(x)
    qm.eval()
    want = qm(x).numpy()
    frozen = qm.__class__  # convert keeps the model class
    cm = QAT(QuantConfig(activation=q, weight=q)).convert(qm)
    assert isinstance(cm, frozen) and cm.fc.converted
    np.testing.assert_allclose(cm(x).numpy(), want, rtol=1e-5, atol=1e-6)


def test_ptq_observes_and_calibrates():
    oar.seed(2)
    model = _Net()
    model.eval()
    pm = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver())).quantize(model)
    assert "AbsmaxObserverLayer()" in repr(pm)
    x = oar.randn([3, 1, 2, 2])
    np.testing.assert_allclose(pm(x).numpy(), model(x).numpy(), rtol=1e-6)  # observers only
    conv_in = pm.conv.activation_quanter
    assert conv_in.scales().item() == pytest.approx(np.abs(x.numpy()).max(), rel=1e-6)
    assert conv_in.zero_points().item() == 0.0
    with pytest.raises(ValueError, match="training mode"):
        PTQ(QuantConfig(activation=AbsmaxObserver(), weight=None)).quantize(_Net())


def test_custom_quanter_decorator_defines_the_factory():
    @quanter("MyQuanter")
    class MyQuanterLayer(BaseQuanter):
        def __init__(self, layer, bits=4):
            super().__init__()
            self.bits = bits

        def forward(self, x):
            return x

        def scales(self):
            return None

        def zero_points(self):
            return None

        def quant_axis(self):
            return -1

        def bit_length(self):
            return self.bits

    factory = globals()["MyQuanter"](bits=3)
    assert str(factory) == "MyQuanter(bits=3)"
    assert factory._instance(None).bit_length() == 3


def test_quantized_conv2d_transpose_is_conv_on_quantized_operands():
    oar.seed(3)
    conv = oar.nn.Conv2DTranspose(4, 6, 3)
    qconv = quant_layers.QuantizedConv2DTranspose(conv)
    x = oar.uniform([2, 4, 5, 5], min=-1.0, max=1.0)
    y = qconv(x)
    assert y.shape == conv(x).shape == [2, 6, 7, 7]
    xs, ws = np.abs(x.numpy()).max(), np.abs(conv.weight.numpy()).max()
    xq = oar.to_tensor(_ref(x.numpy(), np.float32(xs), 8).astype("float32"))
    wq = oar.to_tensor(_ref(conv.weight.numpy(), np.float32(ws), 8).astype("float32"))
    want = oar.nn.functional.conv2d_transpose(xq, wq, conv.bias)
    np.testing.assert_allclose(y.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    y.sum().backward()
    assert conv.weight.grad is not None  # straight through to the shared weight


def test_channel_wise_and_moving_average_quant_layers():
    w = oar.to_tensor(np.arange(-6, 6, dtype="float32").reshape(3, 4))
    cw = quant_layers.FakeQuantChannelWiseAbsMax(channel_num=3, quant_bits=4, quant_axis=0,
                                                 quant_on_weight=True)
    np.testing.assert_allclose(cw(w).numpy(),
                               _ref(w.numpy(), np.abs(w.numpy()).max(1), 4, axis=0), rtol=1e-6)
    np.testing.assert_allclose(cw._scale.numpy(), [6.0, 2.0, 5.0])
    lin = quant_layers.QuantizedLinear(oar.nn.Linear(4, 2),
                                       weight_quantize_type="channel_wise_abs_max",
                                       activation_quantize_type="moving_average_abs_max")
    assert lin(oar.ones([1, 4])).shape == [1, 2]
    stub = quant_layers.QuantStub()
    out = stub(oar.to_tensor([-2.0, 1.0]))
    np.testing.assert_array_equal(out.numpy(), [-2.0, 1.0])
    assert stub._scale.item() == pytest.approx(2.0)  # (0.9 * 0 + 2) / (0.9 * 0 + 1)
    with pytest.raises(ValueError, match="weights only"):
        quant_layers.FakeQuantChannelWiseAbsMax(channel_num=3)
    with pytest.raises(ValueError, match="quantize type"):
        quant_layers.QuantizedLinear(oar.nn.Linear(2, 2), weight_quantize_type="lsq_weight")
