"""oar.nn layers against PyTorch with copied weights (forward and gradients): linear,
convolution (and transposed), pooling (2-D, 3-D, adaptive, LP, unpooling, fractional),
padding, activation, common, vision and normalisation layers, SpectralNorm and
SyncBatchNorm; BatchNorm's running statistics and eval mode, dropout's modes, the vision
models, and a short seeded Fashion-MNIST training run with oar.Model."""
import os

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import oar
import oar.nn as nn
import oar.nn.functional as F
from test_nn_functional import arr, close

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


T = torch.tensor


def t(a, grad=False):
    return oar.to_tensor(a, stop_gradient=not grad)


def test_pooling_layers_3d_lp_unpool_fractional():
    x = arr(1, 2, 4, 6, 6)
    close(nn.MaxPool3D(2)(t(x)), TF.max_pool3d(T(x), 2))
    close(nn.AvgPool3D(2, stride=1)(t(x)), TF.avg_pool3d(T(x), 2, stride=1))
    close(nn.AdaptiveAvgPool3D(3)(t(x)), TF.adaptive_avg_pool3d(T(x), 3))
    close(nn.AdaptiveMaxPool3D([2, 3, 3])(t(x)), TF.adaptive_max_pool3d(T(x), [2, 3, 3]))
    out, mask = nn.AdaptiveMaxPool1D(3, return_mask=True)(t(x[:, :, 0, 0]))
    assert out.shape == [1, 2, 3] and mask.shape == [1, 2, 3]
    close(nn.LPPool2D(2, 3)(t(x[:, :, 0])), TF.lp_pool2d(T(x[:, :, 0]), 2, 3))
    close(nn.LPPool1D(3, 2)(t(abs(x[:, :, 0, 0]))), TF.lp_pool1d(T(abs(x[:, :, 0, 0])), 3, 2))
    y, m = F.max_pool2d(t(x[:, :, 0]), 2, return_mask=True)
    assert nn.MaxUnPool2D(2)(y, m).shape == [1, 2, 6, 6]
    assert nn.FractionalMaxPool3D(3, return_mask=True)(t(x))[1].shape == [1, 2, 3, 3, 3]
    assert nn.AdaptiveMaxPool2d is nn.AdaptiveMaxPool2D and nn.MaxUnpool1d is nn.MaxUnPool1D


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kind, mode", [("Zero", "constant"), ("Constant", "constant"),
                                        ("Reflection", "reflect"),
                                        ("Replication", "replicate"), ("Circular", "circular")])
def test_padding_layers(nd, kind, mode):
    x = arr(*([1, 2] + [3, 4, 5][-nd:]))
    pad = [1, 2, 0, 1, 2, 1][:2 * nd]
    cls = getattr(nn, f"{kind}Pad{nd}D")
    layer = cls(pad, 0.5) if kind == "Constant" else cls(pad)
    want = TF.pad(T(x), pad, mode=mode, value=0.5 if kind == "Constant" else 0.0)
    close(layer(t(x)), want)
    assert getattr(nn, f"{kind}Pad{nd}d") is cls
    generic = getattr(nn, f"Pad{nd}D")(pad, mode=mode, value=0.5 if kind == "Constant" else 0.0)
    close(generic(t(x)), want)


def test_padding_layer_errors_and_conv_padding_modes():
    with pytest.raises(TypeError, match="padding"):
        nn.ZeroPad2D([1, 2, 3])
    with pytest.raises(ValueError, match="mode"):
        nn.Pad1D(1, mode="edge")
    x = arr(1, 3, 5, 6)
    conv = nn.Conv2D(3, 4, 3, padding=1, padding_mode="circular")
    tc = torch.nn.Conv2d(3, 4, 3, padding=1, padding_mode="circular").double()
    tc.weight.data = T(conv.weight.numpy().astype(np.float64))
    tc.bias.data = T(conv.bias.numpy().astype(np.float64))
    conv.to(dtype="float64")
    close(conv(t(x)), tc(T(x)), rtol=1e-6, atol=1e-7)
    assert nn.Conv1D(2, 3, 3, bias=False).bias is None
    with pytest.raises(ValueError, match="padding_mode"):
        nn.Conv2D(3, 4, 3, padding_mode="mirror")


def test_conv_transpose_layers():
    layer = nn.Conv3DTranspose(2, 4, (3, 2, 2), stride=2, padding=1, output_padding=1,
                               dilation=1, groups=2)
    assert layer.weight.shape == [2, 2, 3, 2, 2]
    x = arr(1, 2, 3, 4, 4).astype(np.float32)
    want = TF.conv_transpose3d(T(x), T(layer.weight.numpy()), T(layer.bias.numpy()), 2, 1, 1, 2)
    close(layer(t(x)), want, rtol=1e-5, atol=1e-6)
    c1 = nn.Conv1DTranspose(2, 1, 2)
    c1.weight.set_value(np.array([[[7.0, 0.0]], [[4.0, 2.0]]], np.float32))
    c1.bias.set_value(np.zeros([1], np.float32))
    out = c1(t(np.array([[[4, 0, 9, 7], [8, 0, 9, 2]]], np.float32)))
    np.testing.assert_array_equal(out.numpy(), [[[60.0, 16.0, 99.0, 75.0, 4.0]]])


def test_activation_and_common_layers():
    x = arr(2, 4, 3, 2)
    close(nn.Softmax2D()(t(x)), TF.softmax(T(x), -3))
    close(nn.Maxout(2)(t(x)), T(x.reshape(2, 2, 2, 3, 2).max(2)))
    rr = nn.RReLU(0.1, 0.3)
    rr.eval()
    close(rr(t(x)), TF.leaky_relu(T(x), 0.2))
    assert nn.SiLU is nn.Silu
    z = t(x) * 1.0
    assert F.silu(z, True) is z
    close(z, TF.silu(T(x)))
    y = t(x) * 1.0
    assert nn.Silu(inplace=True)(y) is y
    close(y, TF.silu(T(x)))
    close(nn.CosineSimilarity(axis=0)(t(x), t(x[::-1].copy())),
          TF.cosine_similarity(T(x), T(x[::-1].copy()), dim=0))
    close(nn.PairwiseDistance(p=1.0, keepdim=True)(t(x), t(x * 2)),
          TF.pairwise_distance(T(x), T(x * 2), p=1.0, keepdim=True))
    img = arr(1, 2, 4, 6)
    close(nn.PixelUnshuffle(2)(t(img)), TF.pixel_unshuffle(T(img), 2))
    assert nn.ChannelShuffle(2)(t(x)).shape == [2, 4, 3, 2]
    bl = nn.Bilinear(3, 4, 5)
    assert bl.weight.shape == [5, 3, 4] and bl.bias.shape == [1, 5]
    assert bl(oar.rand([2, 3]), oar.rand([2, 4])).shape == [2, 5]
    img, cols = arr(1, 2, 4, 5), arr(1, 8, 12)
    close(nn.Unfold([2, 3], strides=1)(t(img)), TF.unfold(T(img), [2, 3]))
    close(nn.Fold([4, 5], 2)(t(cols)), TF.fold(T(cols), [4, 5], 2))
    up = nn.UpsamplingBilinear2D(size=[5, 7])(t(x))
    close(up, TF.interpolate(T(x), size=[5, 7], mode="bilinear", align_corners=True))
    close(nn.UpsamplingNearest2D(scale_factor=2)(t(x)), TF.interpolate(T(x), scale_factor=2))
    drop = nn.Dropout3D(0.5)
    drop.eval()
    assert drop(t(arr(1, 2, 2, 2, 2))).shape == [1, 2, 2, 2, 2]
    fad = nn.FeatureAlphaDropout(0.5)
    fad.eval()
    close(fad(t(x)), T(x))


def test_norm_layers():
    x = arr(2, 3, 4, 5)
    close(nn.LocalResponseNorm(3)(t(x)), TF.local_response_norm(T(x), 3))
    for shape, cls in (((2, 3, 5), nn.InstanceNorm1D), ((2, 3, 2, 2, 3), nn.InstanceNorm3D)):
        v = arr(*shape)
        close(cls(3)(t(v)), TF.instance_norm(T(v)), rtol=1e-6, atol=1e-8)
    v = arr(2, 3, 5)
    close(F.instance_norm(t(v), data_format="NCHW"), TF.instance_norm(T(v)), rtol=1e-6,
          atol=1e-8)
    model = nn.Sequential(nn.Conv2D(3, 5, 3), nn.BatchNorm2D(5), nn.Sequential(nn.BatchNorm1D(5)))
    sync = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert isinstance(sync[1], nn.SyncBatchNorm) and isinstance(sync[2][0], nn.SyncBatchNorm)
    assert sync[1].weight is model[1].weight and sync[1]._mean is model[1]._mean
    bn = nn.BatchNorm2D(3)
    s = nn.SyncBatchNorm(3)
    s.weight.set_value(bn.weight.numpy())
    xf = t(x.astype(np.float32))
    np.testing.assert_allclose(s(xf).numpy(), bn(xf).numpy(), rtol=1e-6)
    np.testing.assert_allclose(s._mean.numpy(), bn._mean.numpy(), rtol=1e-6)
    assert s(t(arr(4, 3).astype(np.float32))).shape == [4, 3]


def test_spectral_norm_layer():
    # a weight whose matrix (dim 1 first) has singular values 3, 1, 0.5: power iteration
    # converges by a factor 9 per step
    q1, _ = np.linalg.qr(arr(3, 3))
    q2, _ = np.linalg.qr(arr(8, 3))
    mat = q1 @ np.diag([3.0, 1.0, 0.5]) @ q2.T
    w = np.moveaxis(mat.reshape(3, 4, 2), 0, 1)
    layer = nn.SpectralNorm([4, 3, 2], dim=1, power_iters=30, dtype="float64")
    wo = oar.to_tensor(w, stop_gradient=False)
    out = layer(wo)
    np.testing.assert_allclose(out.numpy(), w / 3.0, rtol=1e-10)
    # the gradient treats u and v as constants: w / (u^T W v)
    u, v = layer.weight_u.detach(), layer.weight_v.detach()
    out.sum().backward()
    assert wo.grad.shape == [4, 3, 2] and layer.weight_u.grad is None
    assert not layer.weight_u.trainable and u.shape == [3] and v.shape == [8]
    with pytest.raises(ValueError, match="weight_shape"):
        layer(oar.rand([4, 3]))
