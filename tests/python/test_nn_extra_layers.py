"""The oar.nn additions of the nn area: the new layers (pooling, padding, activation,
common, vision and normalisation layers, SpectralNorm, SyncBatchNorm), containers
(ParameterDict, Sequential.insert/extend), Layer.named_sublayers(remove_duplicate) and
to_static_state_dict, oar.nn.utils, the Bilinear/Dirac initializers, beam search with
dynamic_decode, and the behaviour fixes (ParamAttr(True), embedding with sparse /
max_norm / scale_grad_by_freq, cross_entropy with smoothed float labels, KLDivLoss
'batchmean', instance norm of any rank), against torch where it has the same thing."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import oar
import oar.nn as nn
import oar.nn.functional as F
from test_nn_functional_rest import arr, close

T = torch.tensor


def t(a, grad=False):
    return oar.to_tensor(a, stop_gradient=not grad)


def test_pooling_layers():
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


def test_containers_and_layer_traversal():
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.params = nn.ParameterDict({f"t{i}": oar.create_parameter([2, 2], "float32")
                                            for i in range(3)})

        def forward(self, x):
            for key in self.params:
                x = oar.matmul(x, self.params[key])
            return x
    net = Net()
    assert len(net.params) == 3 and len(net.parameters()) == 3
    net.params["t3"] = oar.create_parameter([2, 3], "float32")
    assert net(oar.rand([5, 2])).shape == [5, 3] and "params.t3" in net.state_dict()
    with pytest.raises(TypeError, match="Parameter"):
        net.params["x"] = oar.rand([2])
    seq = nn.Sequential(nn.Linear(20, 30))
    seq.insert(0, nn.Linear(10, 20))
    seq.extend([nn.ReLU(), nn.Linear(30, 2)])
    assert [k for k, _ in seq.named_children()] == ["0", "1", "2", "3"]
    assert seq(oar.rand([4, 10])).shape == [4, 2]
    seq.insert(-1, nn.Identity())
    assert isinstance(seq[3], nn.Identity) and len(seq) == 5
    with pytest.raises(IndexError):
        seq.insert(9, nn.ReLU())
    lin = nn.Linear(2, 2)
    dup = nn.Sequential(lin, lin)
    assert [n for n, _ in dup.named_sublayers(include_self=True)] == ["", "0"]
    assert [n for n, _ in dup.named_sublayers(remove_duplicate=False)] == ["0", "1"]
    holder = nn.Linear(3, 2)
    holder.extra = oar.ones([1])  # a tensor attribute is a non-persistable buffer (Paddle)
    wrapped = nn.Sequential(holder)
    assert [n for n, _ in wrapped.named_buffers()] == ["0.extra"]
    assert "0.extra" not in wrapped.state_dict()
    emb = nn.Embedding(10, 3)
    emb.register_buffer("scratch", oar.zeros([2]), persistable=False)
    assert set(emb.to_static_state_dict()) == {"weight", "scratch"}
    assert set(emb.state_dict()) == {"weight"}


def test_param_attr_forms():
    assert nn.Linear(2, 3, bias_attr=True).bias is not None
    assert nn.Linear(2, 3, bias_attr=False).bias is None
    from oar.regularizer import L2Decay
    lin = nn.Linear(2, 3, weight_attr=L2Decay(0.1))
    assert isinstance(lin.weight.regularizer, L2Decay)
    with pytest.raises(TypeError, match="ParamAttr"):
        nn.Linear(2, 3, weight_attr=3)


def test_nn_utils_match_torch():
    lin, tl = nn.Linear(4, 3), torch.nn.Linear(4, 3).double()
    tl.weight.data = T(lin.weight.numpy().T.astype(np.float64))
    tl.bias.data = T(lin.bias.numpy().astype(np.float64))
    lin.to(dtype="float64")
    vec = nn.utils.parameters_to_vector(lin.parameters())
    assert vec.shape == [15]
    other = nn.Linear(4, 3)
    other.to(dtype="float64")
    nn.utils.vector_to_parameters(vec, other.parameters())
    np.testing.assert_array_equal(other.weight.numpy(), lin.weight.numpy())
    x = arr(5, 4)
    for norm_type in (2.0, 1.0, float("inf")):
        for m in (lin, tl):
            for p in m.parameters():
                p.grad = None
        (lin(t(x)) ** 2).sum().backward()
        (tl(T(x)) ** 2).sum().backward()
        total = nn.utils.clip_grad_norm_(lin.parameters(), 0.5, norm_type)
        ttotal = torch.nn.utils.clip_grad_norm_(tl.parameters(), 0.5, norm_type)
        np.testing.assert_allclose(total.item(), ttotal.item())
        close(lin.weight.grad, tl.weight.grad.T)
    nn.utils.clip_grad_value_(lin.parameters(), 0.01)
    torch.nn.utils.clip_grad_value_(tl.parameters(), 0.01)
    close(lin.bias.grad, tl.bias.grad)
    with oar.no_grad():  # a gradient requires grad (Paddle's): written under no_grad
        lin.weight.grad[0, 0] = float("nan")
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_(lin.parameters(), 1.0, error_if_nonfinite=True)
    with pytest.raises(ValueError, match="vec"):
        nn.utils.vector_to_parameters(oar.rand([3]), lin.parameters())


def test_weight_norm_and_spectral_norm_hooks():
    conv = nn.Conv2D(3, 5, 3)
    x = oar.rand([1, 3, 6, 6])
    before = conv(x).numpy()
    nn.utils.weight_norm(conv)
    assert conv.weight_g.shape == [5] and conv.weight_v.shape == [5, 3, 3, 3]
    assert repr(conv) == "Conv2D(3, 5, kernel_size=[3, 3], data_format=NCHW)"
    assert [n for n, _ in conv.named_parameters()] == ["bias", "weight_v", "weight_g"]
    np.testing.assert_allclose(conv(x).numpy(), before, rtol=1e-5, atol=1e-6)
    conv(x).sum().backward()
    assert conv.weight_g.grad is not None and conv.weight_v.grad is not None
    with pytest.raises(RuntimeError, match="already"):
        nn.utils.weight_norm(conv)
    nn.utils.remove_weight_norm(conv)
    assert [n for n, _ in conv.named_parameters()] == ["bias", "weight"]
    np.testing.assert_allclose(conv(x).numpy(), before, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="weight_norm"):
        nn.utils.remove_weight_norm(conv)
    lin = nn.Linear(3, 4)
    nn.utils.weight_norm(lin, dim=None)
    assert lin.weight_g.shape == []
    # Seeded, and enough power iterations for any draw: with 20, 14 of 200 seeds
    # had too small a gap between the top two singular values to converge to 1e-4,
    # so the test failed or passed by which tests ran before it.
    oar.seed(0)
    sn = nn.utils.spectral_norm(nn.Linear(5, 4), n_power_iterations=200)
    assert set(sn.state_dict()) == {"bias", "weight_orig", "weight_u", "weight_v"}
    sn(oar.rand([2, 5]))
    w = sn.weight_orig.numpy()
    np.testing.assert_allclose(sn.weight.numpy(), w / np.linalg.svd(w)[1][0], rtol=1e-4)
    u = sn.weight_u.numpy().copy()
    sn.eval()
    sn(oar.rand([2, 5]))
    np.testing.assert_array_equal(sn.weight_u.numpy(), u)  # eval: no power iteration
    assert nn.utils.spectral_norm(nn.Conv2DTranspose(2, 6, 3)).weight_u.shape == [6]


def test_dirac_and_bilinear_initializers():
    attr = oar.ParamAttr(initializer=nn.initializer.Dirac(groups=2))
    conv = nn.Conv2D(4, 6, 3, weight_attr=attr)
    want = torch.empty(6, 4, 3, 3)
    torch.nn.init.dirac_(want, groups=2)
    np.testing.assert_array_equal(conv.weight.numpy(), want.numpy())
    with pytest.raises(ValueError, match="groups"):
        nn.Conv2D(4, 5, 3, weight_attr=oar.ParamAttr(initializer=nn.initializer.Dirac(2)))
    up = nn.Conv2DTranspose(1, 1, 4, stride=2, padding=1, bias_attr=False,
                            weight_attr=oar.ParamAttr(initializer=nn.initializer.Bilinear()))
    x = arr(1, 1, 4, 4).astype(np.float32)
    got = up(t(x)).numpy()
    # inside the border, a factor-2 bilinear kernel is bilinear interpolation
    want = TF.interpolate(T(x), scale_factor=2, mode="bilinear", align_corners=False).numpy()
    np.testing.assert_allclose(got[..., 1:-1, 1:-1], want[..., 1:-1, 1:-1], atol=1e-6)
    with pytest.raises(ValueError, match="square"):
        nn.Conv2DTranspose(1, 1, (3, 2), weight_attr=oar.ParamAttr(
            initializer=nn.initializer.Bilinear()))


def test_beam_search_decode():
    oar.seed(1)
    emb, out = nn.Embedding(12, 8), nn.Linear(8, 12)
    cell = nn.GRUCell(8, 8)
    dec = nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=3,
                               embedding_fn=emb, output_fn=out)
    init = cell.get_initial_states(oar.ones([2, 5, 8]))
    ids, states, lengths = nn.dynamic_decode(dec, init, max_step_num=6, return_length=True)
    steps = ids.shape[1]
    assert ids.shape == [2, steps, 3] and 1 <= steps <= 7
    assert lengths.shape == [2, 3] and int(lengths.max().item()) <= steps
    # the beams are sorted best first: the kept log-probabilities do not increase
    lp = states.log_probs.numpy()
    assert (np.diff(lp, axis=1) <= 1e-6).all()
    # beam_size 1 is greedy decoding: replay the cell with the argmax token
    dec1 = nn.BeamSearchDecoder(cell, 0, 1, 1, emb, out)
    ids1, _ = nn.dynamic_decode(dec1, init, max_step_num=3)
    h, tok = init, oar.zeros([2], dtype="int64")
    for s in range(ids1.shape[1]):
        o, h = cell(emb(tok), h)
        tok = oar.argmax(F.log_softmax(out(o), -1), -1)
        done = ids1.numpy()[:, :s, 0] == 1
        np.testing.assert_array_equal(ids1.numpy()[:, s, 0][~done.any(1)],
                                      tok.numpy()[~done.any(1)])
    x = oar.rand([2, 3])
    np.testing.assert_array_equal(nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 2).numpy(),
                                  np.repeat(x.numpy(), 2, 0))
    with pytest.raises(ValueError, match="beam_size"):
        nn.BeamSearchDecoder(cell, 0, 1, 0)
    with pytest.raises(TypeError, match="Decoder"):
        nn.dynamic_decode(object())


def test_behaviour_fixes():
    # embedding: sparse (a sparse COO gradient of weight), max_norm, scale_grad_by_freq
    ids = np.array([[0, 2, 2], [3, 2, 0]])
    w = arr(5, 3) * 3
    wo, wt = oar.to_tensor(w, stop_gradient=False), T(w, requires_grad=True)
    o = F.embedding(oar.to_tensor(ids), wo, sparse=True, scale_grad_by_freq=True)
    tt = TF.embedding(T(ids), wt, scale_grad_by_freq=True)
    close(o, tt)
    g = arr(2, 3, 3)
    (o * oar.to_tensor(g)).sum().backward()
    (tt * T(g)).sum().backward()
    assert wo.grad.is_sparse_coo()
    close(wo.grad.to_dense(), wt.grad)
    w2, tw2 = oar.to_tensor(w.copy()), T(w.copy())
    close(F.embedding(oar.to_tensor(ids), w2, max_norm=1.0),
          TF.embedding(T(ids), tw2, max_norm=1.0))
    close(w2, tw2)  # the rows used were renormalised in place
    layer = nn.Embedding(4, 3, sparse=True)
    layer(oar.to_tensor(np.array([[0], [1]]))).sum().backward()
    assert layer.weight.grad.shape == [4, 3]
    # cross_entropy: a float label shaped like input, with label smoothing, is a soft label
    logits, lab = arr(4, 3), np.array([0, 2, 1, 2])
    one_hot = np.eye(3)[lab]
    a = F.cross_entropy(t(logits), t(one_hot.astype(np.float32)), label_smoothing=0.4)
    b = F.cross_entropy(t(logits), t(lab), label_smoothing=0.4)
    np.testing.assert_allclose(a.item(), b.item(), rtol=1e-7)
    close(a, TF.cross_entropy(T(logits), T(lab), label_smoothing=0.4))
    # KLDivLoss accepts 'batchmean'
    x, y = arr(4, 5), arr(4, 5, low=0.1, high=1)
    close(nn.KLDivLoss("batchmean")(t(x), t(y)), TF.kl_div(T(x), T(y), reduction="batchmean"))
