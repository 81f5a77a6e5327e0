"""oar.nn layers against PyTorch with copied weights (forward and gradients),
BatchNorm's running statistics and eval mode, dropout's modes, the vision
models, and a short seeded Fashion-MNIST training run with oar.Model."""
import os

import numpy as np
import pytest
import torch

import oar
import oar.nn as nn

TNN = torch.nn


def _copy(dst, src, transpose=False):
    """src: a torch parameter/buffer -> the oar parameter dst, in place."""
    v = src.detach().numpy()
    dst.set_value(v.T if transpose else v) if isinstance(dst, nn.Parameter) else \
        oar.framework.param._set_value(dst, v)


def _close(a, b, tol=1e-4):
    np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def _check(layer, tlayer, x, tol=1e-4, pairs=()):
    """Forward and the gradients of x and of each (oar param, torch param) pair."""
    xo = oar.to_tensor(x, stop_gradient=False)
    xt = torch.tensor(x, requires_grad=True)
    yo, yt = layer(xo), tlayer(xt)
    _close(yo, yt, tol)
    g = np.random.default_rng(1).standard_normal(yt.shape).astype(np.float32)
    (yo * oar.to_tensor(g)).sum().backward()
    (yt * torch.tensor(g)).sum().backward()
    _close(xo.grad, xt.grad, tol)
    for po, pt, tr in pairs:
        np.testing.assert_allclose(po.grad.numpy(), (pt.grad.T if tr else pt.grad).numpy(),
                                   rtol=tol, atol=tol)


def _x(*shape):
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


def test_linear():
    lo, lt = nn.Linear(5, 3), TNN.Linear(5, 3)
    _copy(lo.weight, lt.weight, transpose=True)
    _copy(lo.bias, lt.bias)
    _check(lo, lt, _x(4, 5), pairs=[(lo.weight, lt.weight, True), (lo.bias, lt.bias, False)])


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(padding=2, dilation=2),
                                dict(groups=2, padding=1)])
def test_conv2d(kw):
    co, ct = nn.Conv2D(4, 6, 3, **kw), TNN.Conv2d(4, 6, 3, **kw)
    assert co.weight.shape == list(ct.weight.shape)
    _copy(co.weight, ct.weight)
    _copy(co.bias, ct.bias)
    _check(co, ct, _x(2, 4, 9, 9), pairs=[(co.weight, ct.weight, False),
                                          (co.bias, ct.bias, False)])


def test_conv2d_transpose_and_conv1d():
    co, ct = nn.Conv2DTranspose(4, 3, 3, stride=2, padding=1), \
        TNN.ConvTranspose2d(4, 3, 3, stride=2, padding=1)
    assert co.weight.shape == list(ct.weight.shape)
    _copy(co.weight, ct.weight)
    _copy(co.bias, ct.bias)
    _check(co, ct, _x(2, 4, 5, 5))
    c1, t1 = nn.Conv1D(3, 4, 3, padding=1), TNN.Conv1d(3, 4, 3, padding=1)
    _copy(c1.weight, t1.weight)
    _copy(c1.bias, t1.bias)
    _check(c1, t1, _x(2, 3, 7))


def test_pooling_layers():
    x = _x(2, 3, 8, 8)
    _check(nn.MaxPool2D(2), TNN.MaxPool2d(2), x)
    _check(nn.AvgPool2D(3, stride=2, padding=1), TNN.AvgPool2d(3, 2, 1, count_include_pad=False), x)
    _check(nn.AdaptiveAvgPool2D(3), TNN.AdaptiveAvgPool2d(3), x)


def test_pooling_layer_reprs_are_paddles():
    # Paddle 3.3.1's strings: a printed model reads the same on both
    assert repr(nn.MaxPool2D(2, 2)) == "MaxPool2D(kernel_size=2, stride=2, padding=0)"
    assert repr(nn.AvgPool1D(2)) == "AvgPool1D(kernel_size=2, stride=None, padding=0)"
    assert repr(nn.AdaptiveAvgPool2D(3)) == "AdaptiveAvgPool2D(output_size=3)"
    assert repr(nn.AdaptiveMaxPool1D(2)) == "AdaptiveMaxPool1D(output_size=2, return_mask=False)"
    assert repr(nn.LPPool1D(2, 3)) == "LPPool1D(norm_type=2.0, kernel_size=3, stride=None, padding=0)"
    assert repr(nn.LPPool2D(2, 3)) == "LPPool2D(norm_type=2.0, kernel_size=3, stride=3, padding=0)"
    assert repr(nn.MaxUnPool2D(2)) == "MaxUnPool2D(output_size=None)"


def test_batch_norm_training_running_stats_and_eval():
    bo, bt = nn.BatchNorm2D(3), TNN.BatchNorm2d(3, momentum=0.1)  # Paddle 0.9 == torch 0.1
    assert [n for n, _ in bo.named_parameters()] == ["weight", "bias", "_mean", "_variance"]
    x0 = _x(4, 3, 5, 5) * 2 + 1
    _check(bo, bt, x0)
    np.testing.assert_allclose(bo._mean.numpy(), bt.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    # Paddle updates the running variance with the biased batch variance (torch: unbiased)
    biased = x0.transpose(1, 0, 2, 3).reshape(3, -1).var(axis=1)
    np.testing.assert_allclose(bo._variance.numpy(), 0.9 + 0.1 * biased, rtol=1e-5)
    bo.eval()
    bt.eval()
    with torch.no_grad():
        bt.running_var.copy_(torch.tensor(bo._variance.numpy()))
    x = _x(2, 3, 5, 5)
    _close(bo(oar.to_tensor(x)), bt(torch.tensor(x)))


def test_layer_group_norm_and_embedding():
    lo, lt = nn.LayerNorm(6), TNN.LayerNorm(6)
    _check(lo, lt, _x(3, 4, 6), pairs=[(lo.weight, lt.weight, False)])
    go, gt = nn.GroupNorm(2, 4), TNN.GroupNorm(2, 4)
    _check(go, gt, _x(2, 4, 3, 3))
    eo, et = nn.Embedding(10, 4, padding_idx=0), TNN.Embedding(10, 4, padding_idx=0)
    assert float(eo.weight.numpy()[0].sum()) == 0.0
    _copy(eo.weight, et.weight)
    idx = np.array([[1, 0, 3], [9, 9, 2]])
    yo, yt = eo(oar.to_tensor(idx)), et(torch.tensor(idx))
    _close(yo, yt)
    yo.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(eo.weight.grad.numpy(), et.weight.grad.numpy())


def test_dropout_modes():
    d = nn.Dropout(0.5)
    x = oar.ones([1000])
    oar.seed(0)
    y = d(x).numpy()
    kept = y != 0
    assert 0.4 < kept.mean() < 0.6 and np.allclose(y[kept], 2.0)
    d.eval()
    np.testing.assert_array_equal(d(x).numpy(), x.numpy())


def test_losses():
    logits, label = _x(6, 5), np.array([0, 4, 2, 2, 1, 3])
    lo = nn.CrossEntropyLoss()(oar.to_tensor(logits), oar.to_tensor(label))
    lt = TNN.CrossEntropyLoss()(torch.tensor(logits), torch.tensor(label))
    _close(lo, lt)
    a, b = _x(4, 3), _x(4, 3) + 0.5
    _close(nn.MSELoss()(oar.to_tensor(a), oar.to_tensor(b)),
           TNN.MSELoss()(torch.tensor(a), torch.tensor(b)))
    _close(nn.L1Loss(reduction="sum")(oar.to_tensor(a), oar.to_tensor(b)),
           TNN.L1Loss(reduction="sum")(torch.tensor(a), torch.tensor(b)))
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="avg")


def test_vision_models_build_and_run():
    from oar.vision.models import LeNet, mobilenet_v2, resnet18
    assert LeNet()(oar.randn([2, 1, 28, 28])).shape == [2, 10]
    r = resnet18(num_classes=7)
    assert r(oar.randn([1, 3, 32, 32])).shape == [1, 7]
    assert "layer1.0.bn1._mean" in r.state_dict()
    assert mobilenet_v2(num_classes=5, scale=0.5)(oar.randn([1, 3, 32, 32])).shape == [1, 5]
    with pytest.raises(ValueError, match="downloads|fetches"):
        resnet18(pretrained=True)


@pytest.mark.skipif(not os.path.isdir("/usr/share/datasets/fashion-mnist"),
                    reason="dataset-fashion-mnist")
def test_model_fit_on_a_fashion_mnist_subset_is_seeded_and_learns(tmp_path):
    from oar.vision import datasets, transforms as T

    def run():
        oar.seed(7)
        tf = T.Compose([T.ToTensor(), T.Normalize([0.286], [0.353])])
        train = oar.io.Subset(datasets.FashionMNIST(mode="train", transform=tf), range(2048))
        net = nn.Sequential(nn.Conv2D(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2),
                            nn.Flatten(), nn.Linear(8 * 14 * 14, 10))
        m = oar.Model(net)
        m.prepare(oar.optimizer.Adam(2e-3, parameters=net.parameters()), nn.CrossEntropyLoss(),
                  oar.metric.Accuracy())
        h = m.fit(train, batch_size=64, epochs=2, verbose=0)
        return h, net

    h1, n1 = run()
    h2, n2 = run()
    assert h1["loss"][-1] < 0.8, h1  # from ~2.3 at the start
    np.testing.assert_array_equal(n1[0].weight.numpy(), n2[0].weight.numpy())  # bit-reproducible
