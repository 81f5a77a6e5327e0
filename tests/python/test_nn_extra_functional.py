"""The oar.nn.functional additions of the nn area: 3-D and adaptive-max pooling,
LP pooling, max unpooling, fractional max pooling, 1-D/3-D transposed convolution,
zeropad2d, maxout/rrelu/gumbel_softmax/swiglu and the in-place activations, bilinear,
dropout1d/feature_alpha_dropout, label_smooth, class_center_sample, sequence_mask,
gather_tree, temporal_shift, affine_grid/grid_sample, channel_shuffle and
local_response_norm: values and gradients (first and second order) against
torch.nn.functional or a numpy statement of Paddle's definition, and the typed errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import oar
import oar.nn.functional as F
from test_nn_functional_rest import arr, close, grads, pair


def run(o_fn, t_fn, *arrays, second=True, rtol=1e-8, atol=1e-10):
    """o_fn and t_fn on the same float64 inputs: values and gradients agree."""
    pairs = [pair(a) for a in arrays]
    o = o_fn(*[p[0] for p in pairs])
    t = t_fn(*[p[1] for p in pairs])
    close(o, t, rtol, atol)
    grads(o, [p[0] for p in pairs], t, [p[1] for p in pairs], rtol, atol, second=second)
    return o


# ---- pooling -------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=[2, 3, 2], stride=1,
                                                             padding=1),
                                dict(kernel_size=3, stride=2, ceil_mode=True)])
def test_max_and_avg_pool3d(kw):
    x = arr(2, 2, 5, 6, 5)
    tk = dict(kw)
    run(lambda a: F.max_pool3d(a, **kw), lambda a: TF.max_pool3d(a, **tk), x, second=False)
    run(lambda a: F.avg_pool3d(a, **kw, exclusive=False),
        lambda a: TF.avg_pool3d(a, **tk, count_include_pad=True), x)
    o, mask = F.max_pool3d(oar.to_tensor(x), return_mask=True, **kw)
    t, tmask = TF.max_pool3d(torch.tensor(x), return_indices=True, **tk)
    assert mask.dtype == oar.int32 and (mask.numpy() == tmask.numpy()).all()


def test_pool3d_channels_last():
    x = arr(1, 4, 5, 6, 3)
    o = F.avg_pool3d(oar.to_tensor(x), 2, data_format="NDHWC")
    t = TF.avg_pool3d(torch.tensor(x).permute(0, 4, 1, 2, 3), 2).permute(0, 2, 3, 4, 1)
    close(o, t)


def test_adaptive_pools():
    x1, x3 = arr(2, 3, 11), arr(1, 2, 5, 7, 6)
    run(lambda a: F.adaptive_max_pool1d(a, 4), lambda a: TF.adaptive_max_pool1d(a, 4), x1,
        second=False)
    run(lambda a: F.adaptive_max_pool3d(a, [2, 3, None]),
        lambda a: TF.adaptive_max_pool3d(a, [2, 3, 6]), x3, second=False)
    run(lambda a: F.adaptive_avg_pool3d(a, 3), lambda a: TF.adaptive_avg_pool3d(a, 3), x3)
    _, m = F.adaptive_max_pool1d(oar.to_tensor(x1), 4, return_mask=True)
    _, tm = TF.adaptive_max_pool1d(torch.tensor(x1), 4, return_indices=True)
    assert (m.numpy() == tm.numpy()).all()


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_lp_pool(p):
    x = arr(2, 3, 6, 7, low=0.1, high=1.0)
    run(lambda a: F.lp_pool2d(a, p, 2, stride=1), lambda a: TF.lp_pool2d(a, p, 2, stride=1), x)
    run(lambda a: F.lp_pool1d(a[:, :, 0], p, 3), lambda a: TF.lp_pool1d(a[:, :, 0], p, 3), x)
    # Paddle's padding adds nothing to the sum
    o = F.lp_pool1d(oar.to_tensor(x[:, :, 0]), p, 2, padding=1).numpy()
    padded = np.pad(x[:, :, 0], [(0, 0), (0, 0), (1, 1)])
    want = (padded[:, :, :8].reshape(2, 3, 4, 2) ** p).sum(-1) ** (1 / p)
    np.testing.assert_allclose(o, want)
    inf = F.lp_pool1d(oar.to_tensor(x[:, :, 0]), float("inf"), 2)
    close(inf, TF.max_pool1d(torch.tensor(x[:, :, 0]), 2))


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_unpool_inverts_max_pool(nd):
    shape = [2, 3] + [6, 4, 4][:nd]
    x = arr(*shape)
    pool = getattr(F, f"max_pool{nd}d")
    unpool = getattr(F, f"max_unpool{nd}d")
    tunpool = getattr(TF, f"max_unpool{nd}d")
    y, mask = pool(oar.to_tensor(x), 2, return_mask=True)
    ty, tmask = getattr(TF, f"max_pool{nd}d")(torch.tensor(x), 2, return_indices=True)
    yo, yt = pair(y.numpy())
    o = unpool(yo, mask, 2)
    t = tunpool(yt, tmask, 2)
    close(o, t)
    grads(o, [yo], t, [yt])


def test_max_unpool_output_size_and_overlap():
    x = arr(1, 1, 6, 6)
    y, mask = F.max_pool2d(oar.to_tensor(x), 2, return_mask=True)
    assert F.max_unpool2d(y, mask, 2, output_size=[7, 7]).shape == [1, 1, 7, 7]
    assert F.max_unpool2d(y, mask, 2, output_size=[1, 1, 7, 7]).shape == [1, 1, 7, 7]
    # overlapping windows: a position chosen twice holds its value once (not the sum)
    v = oar.to_tensor(np.array([[[1.0, 5.0, 2.0, 0.0]]]))
    p, m = F.max_pool1d(v, 2, stride=1, return_mask=True)
    out = F.max_unpool1d(p, m, 2, stride=1)
    np.testing.assert_array_equal(out.numpy(), [[[0.0, 5.0, 2.0, 0.0]]])
    with pytest.raises(ValueError, match="output_size"):
        F.max_unpool2d(y, mask, 2, output_size=[9, 9])
    with pytest.raises(ValueError, match="data_format"):
        F.max_unpool2d(y, mask, 2, data_format="NHWC")
    with pytest.raises(TypeError, match="indices"):
        F.max_unpool2d(y, mask.astype("float32"), 2)
    with pytest.raises(IndexError, match="index"):
        F.max_unpool2d(y, mask + 100, 2)


def _fractional_windows(n, out, k, u):
    """Paddle's documented pseudo-random windows (float32 arithmetic), written plainly."""
    f = np.float32
    alpha = f(f(n - k) / f(out - (1 if k else 0)))
    if not k:
        base = n // out
        u = f(u * min(f(f(base + 2) / alpha - 1), f(f(n + 1 - base) / alpha - (out - 1))))
    shift = int(f(f(u) * alpha))
    wins = []
    for i in range(out):
        start = int(f(f(f(i) + f(u)) * alpha)) - shift
        end = start + k if k else int(f(f(f(i + 1) + f(u)) * alpha)) - shift
        wins.append((max(start, 0), min(end, n)))
    return wins


@pytest.mark.parametrize("shape, out, k, u", [((7, 9), (3, 4), 0, 0.3), ((8, 8), (3, 3), 2, 0.7),
                                              ((5, 6, 7), (2, 3, 3), 0, 0.45)])
def test_fractional_max_pool_windows(shape, out, k, u):
    x = arr(2, 2, *shape)
    fn = F.fractional_max_pool2d if len(shape) == 2 else F.fractional_max_pool3d
    xo = oar.to_tensor(x, stop_gradient=False)
    y, mask = fn(xo, list(out), kernel_size=k or None, random_u=u, return_mask=True)
    wins = [_fractional_windows(n, o, k, u) for n, o in zip(shape, out)]
    want = np.zeros((2, 2) + out)
    for pos in np.ndindex(*out):
        sl = tuple(slice(*wins[d][pos[d]]) for d in range(len(shape)))
        want[(Ellipsis,) + pos] = x[(slice(None), slice(None)) + sl].reshape(2, 2, -1).max(-1)
    np.testing.assert_array_equal(y.numpy(), want)
    flat = x.reshape(2, 2, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, mask.numpy().reshape(2, 2, -1)
                                                     .astype(np.int64), 2).reshape(y.shape), want)
    y.sum().backward()  # each maximum gets a gradient of 1
    assert xo.grad.numpy().sum() == np.prod(out) * 4


def test_fractional_max_pool_errors():
    with pytest.raises(ValueError, match="random_u"):
        F.fractional_max_pool2d(oar.rand([1, 1, 8, 8]), 3, random_u=1.5)
    with pytest.raises(ValueError, match="too small"):
        F.fractional_max_pool2d(oar.rand([1, 1, 4, 4]), 6)


# ---- convolution, padding --------------------------------------------------------------

def test_conv1d_and_conv3d_transpose():
    x, w, b = arr(2, 4, 5), arr(4, 3, 3), arr(6)
    run(lambda a, c, d: F.conv1d_transpose(a, c, d, stride=2, padding=1, output_padding=1,
                                           groups=2),
        lambda a, c, d: TF.conv_transpose1d(a, c, d, stride=2, padding=1, output_padding=1,
                                            groups=2), x, w, b)
    x, w = arr(1, 2, 3, 4, 3), arr(2, 2, 2, 3, 2)
    run(lambda a, c: F.conv3d_transpose(a, c, stride=[1, 2, 1], padding=[0, 1, 1], dilation=2),
        lambda a, c: TF.conv_transpose3d(a, c, stride=[1, 2, 1], padding=[0, 1, 1], dilation=2),
        x, w)
    o = F.conv1d_transpose(oar.to_tensor(x[:, :, 0, 0]), oar.to_tensor(w[:, :, 0, 0]),
                           stride=2, output_size=[7])
    assert o.shape == [1, 2, 7]
    with pytest.raises(ValueError, match="weight"):
        F.conv3d_transpose(oar.rand([1, 2, 3, 3, 3]), oar.rand([2, 2, 3, 3]))


def test_zeropad2d():
    x = arr(1, 2, 3, 4)
    run(lambda a: F.zeropad2d(a, [1, 2, 0, 3]), lambda a: TF.pad(a, [1, 2, 0, 3]), x)
    close(F.zeropad2d(oar.to_tensor(x), 1), TF.pad(torch.tensor(x), [1, 1, 1, 1]))
    with pytest.raises(ValueError, match="padding"):
        F.zeropad2d(oar.to_tensor(x), [1, 2])


# ---- activations ---------------------------------------------------------------------------

def test_maxout():
    x = arr(2, 6, 3, 2)
    want = x.reshape(2, 3, 2, 3, 2).max(2)
    np.testing.assert_array_equal(F.maxout(oar.to_tensor(x), 2).numpy(), want)
    last = F.maxout(oar.to_tensor(x.transpose(0, 2, 3, 1)), 3, axis=-1)
    np.testing.assert_array_equal(last.numpy(), x.transpose(0, 2, 3, 1).reshape(2, 3, 2, 2, 3)
                                  .max(-1))
    with pytest.raises(ValueError, match="groups"):
        F.maxout(oar.to_tensor(x), 4)
    with pytest.raises(ValueError, match="axis"):
        F.maxout(oar.to_tensor(x), 2, axis=2)


def test_rrelu():
    x = arr(4, 50)
    run(lambda a: F.rrelu(a, 0.1, 0.3, training=False),
        lambda a: TF.rrelu(a, 0.1, 0.3, training=False), x)
    y = F.rrelu(oar.to_tensor(x), 0.1, 0.3).numpy()
    neg = x < 0
    slope = y[neg] / x[neg]
    assert (slope >= 0.1).all() and (slope <= 0.3).all() and slope.std() > 0.01
    np.testing.assert_array_equal(y[~neg], x[~neg])
    with pytest.raises(ValueError, match="lower"):
        F.rrelu(oar.to_tensor(x), 0.5, 0.2)


def test_gumbel_softmax():
    oar.seed(3)
    x = oar.to_tensor(arr(5, 7), stop_gradient=False)
    y = F.gumbel_softmax(x, 0.5)
    np.testing.assert_allclose(y.numpy().sum(-1), 1.0)
    hard = F.gumbel_softmax(x, 0.5, hard=True, axis=0)
    h = hard.numpy()
    assert set(np.unique(h)) == {0.0, 1.0} and (h.sum(0) == 1).all()
    (hard * oar.to_tensor(arr(5, 7))).sum().backward()  # straight-through: a soft gradient
    assert np.abs(x.grad.numpy()).sum() > 0
    with pytest.raises(ValueError, match="temperature"):
        F.gumbel_softmax(x, 0.0)


def test_swiglu_and_inplace_activations():
    x, y = arr(3, 4), arr(3, 4)
    run(lambda a, b: F.swiglu(a, b), lambda a, b: TF.silu(a) * b, x, y)
    run(lambda a: F.swiglu(a), lambda a: TF.silu(a[:, :2]) * a[:, 2:], x)
    for fn, tfn in [(F.elu_, lambda t: TF.elu(t, 1.0)),
                    (F.leaky_relu_, lambda t: TF.leaky_relu(t, 0.01)),
                    (F.softmax_, lambda t: TF.softmax(t, -1)),
                    (F.thresholded_relu_, lambda t: TF.threshold(t, 1.0, 0.0)),
                    (F.tanh_, torch.tanh)]:
        o, t = pair(x)
        o2 = o * 1.0
        out = fn(o2)
        assert out is o2
        close(o2, tfn(t))
        o2.sum().backward()
        tfn(t).sum().backward()
        close(o.grad, t.grad)
    close(F.logsigmoid(oar.to_tensor(x)), TF.logsigmoid(torch.tensor(x)))


# ---- common ------------------------------------------------------------------------------

def test_bilinear():
    x1, x2, w, b = arr(4, 3), arr(4, 5), arr(6, 3, 5), arr(1, 6)
    run(lambda a, c, d, e: F.bilinear(a, c, d, e),
        lambda a, c, d, e: TF.bilinear(a, c, d, e[0]), x1, x2, w, b)
    with pytest.raises(ValueError, match="weight"):
        F.bilinear(oar.to_tensor(x1), oar.to_tensor(x2), oar.to_tensor(w[:, :2]))


def test_channel_dropouts():
    oar.seed(5)
    x = oar.ones([8, 16, 10])
    y = F.dropout1d(x, 0.5).numpy()
    per_channel = y.reshape(8 * 16, 10)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(1) == per_channel.max(1)).all()  # whole channels
    assert F.dropout1d(x, 0.5, training=False) is x
    z = oar.ones([3, 10]) * 1.0
    assert F.dropout1d(z, 0.5, inplace=True) is z
    a = F.feature_alpha_dropout(oar.ones([6, 8, 5]), 0.4).numpy().reshape(48, 5)
    assert (a.min(1) == a.max(1)).all() and len(np.unique(a)) == 2
    with pytest.raises(ValueError, match="input"):
        F.dropout1d(oar.ones([2, 3, 4, 5]))


def test_label_smooth():
    lab = arr(2, 3, 4, low=0, high=1)
    run(lambda a: F.label_smooth(a, epsilon=0.2), lambda a: a * 0.8 + 0.2 / 4, lab)
    prior = arr(1, 4, low=0, high=1)
    run(lambda a, p: F.label_smooth(a, p, 0.3), lambda a, p: a * 0.7 + 0.3 * p, lab, prior)
    with pytest.raises(ValueError, match="epsilon"):
        F.label_smooth(oar.to_tensor(lab), epsilon=2.0)


def test_class_center_sample():
    oar.seed(11)
    label = oar.to_tensor(np.array([17, 10, 5, 18, 8, 8, 19, 14, 10, 14]))
    remapped, sampled = F.class_center_sample(label, 20, 6)
    np.testing.assert_array_equal(sampled.numpy(), [5, 8, 10, 14, 17, 18, 19])
    np.testing.assert_array_equal(remapped.numpy(), [4, 2, 0, 5, 1, 1, 6, 3, 2, 3])
    remapped, sampled = F.class_center_sample(oar.to_tensor(np.array([3, 1, 3])), 10, 5)
    s = sampled.numpy()
    assert list(s[:2]) == [1, 3] and len(set(s)) == 5 and s.max() < 10
    np.testing.assert_array_equal(s[remapped.numpy()], [3, 1, 3])
    with pytest.raises(ValueError, match="num_samples"):
        F.class_center_sample(label, 20, 21)


# ---- extension -----------------------------------------------------------------------------

def test_sequence_mask_and_gather_tree():
    m = F.sequence_mask(oar.to_tensor(np.array([[2, 3], [1, 0]])), maxlen=4, dtype="bool")
    np.testing.assert_array_equal(m.numpy(), np.arange(4) < np.array([[2, 3], [1, 0]])[..., None])
    assert F.sequence_mask(oar.to_tensor(np.array([3, 1]))).shape == [2, 3]
    ids = np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]])
    parents = np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]])
    out = F.gather_tree(oar.to_tensor(ids), oar.to_tensor(parents)).numpy()
    want = np.zeros_like(ids)
    for b in range(2):
        for k in range(2):
            p = k
            for t in range(2, -1, -1):
                want[t, b, k] = ids[t, b, p]
                p = parents[t, b, p]
    np.testing.assert_array_equal(out, want)
    with pytest.raises(IndexError, match="parents"):
        F.gather_tree(oar.to_tensor(ids), oar.to_tensor(parents + 2))


def test_temporal_shift():
    x = arr(6, 8, 2, 3)
    xo = oar.to_tensor(x, stop_gradient=False)
    y = F.temporal_shift(xo, 3, 0.25).numpy().reshape(2, 3, 8, 2, 3)
    v = x.reshape(2, 3, 8, 2, 3)
    want = np.zeros_like(v)
    want[:, 1:, :2] = v[:, :-1, :2]
    want[:, :-1, 2:4] = v[:, 1:, 2:4]
    want[:, :, 4:] = v[:, :, 4:]
    np.testing.assert_array_equal(y, want)
    last = F.temporal_shift(oar.to_tensor(x.transpose(0, 2, 3, 1)), 3, 0.25, data_format="NHWC")
    np.testing.assert_array_equal(last.numpy().transpose(0, 3, 1, 2).reshape(y.shape), want)
    # linear: the gradient is the shift backwards
    w = arr(6, 8, 2, 3)
    (F.temporal_shift(xo, 3, 0.25) * oar.to_tensor(w)).sum().backward()
    v = w.reshape(2, 3, 8, 2, 3)
    back = np.zeros_like(v)
    back[:, :-1, :2] = v[:, 1:, :2]
    back[:, 1:, 2:4] = v[:, :-1, 2:4]
    back[:, :, 4:] = v[:, :, 4:]
    np.testing.assert_array_equal(xo.grad.numpy(), back.reshape(x.shape))
    with pytest.raises(ValueError, match="seg_num"):
        F.temporal_shift(xo, 4)


# ---- vision ----------------------------------------------------------------------------------

@pytest.mark.parametrize("align", [True, False])
def test_affine_grid(align):
    run(lambda t: F.affine_grid(t, [2, 1, 3, 4], align),
        lambda t: TF.affine_grid(t, [2, 1, 3, 4], align), arr(2, 2, 3))
    run(lambda t: F.affine_grid(t, [1, 1, 2, 3, 4], align),
        lambda t: TF.affine_grid(t, [1, 1, 2, 3, 4], align), arr(1, 3, 4))


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [True, False])
def test_grid_sample(mode, padding_mode, align):
    x, g = arr(2, 2, 4, 5), arr(2, 3, 4, 2, low=-1.3, high=1.3)
    if mode == "bilinear":
        run(lambda a, b: F.grid_sample(a, b, mode, padding_mode, align),
            lambda a, b: TF.grid_sample(a, b, mode, padding_mode, align), x, g, second=False)
    else:  # nearest: no gradient for the grid
        run(lambda a: F.grid_sample(a, oar.to_tensor(g), mode, padding_mode, align),
            lambda a: TF.grid_sample(a, torch.tensor(g), mode, padding_mode, align), x)
    x3, g3 = arr(1, 2, 3, 4, 3), arr(1, 2, 2, 3, 3, low=-1.2, high=1.2)
    close(F.grid_sample(oar.to_tensor(x3), oar.to_tensor(g3), mode, padding_mode, align),
          TF.grid_sample(torch.tensor(x3), torch.tensor(g3), mode, padding_mode, align))


def test_grid_errors_and_channel_shuffle():
    with pytest.raises(ValueError, match="theta"):
        F.affine_grid(oar.rand([1, 2, 3]), [1, 1, 2, 2, 2])
    with pytest.raises(ValueError, match="mode"):
        F.grid_sample(oar.rand([1, 1, 2, 2]), oar.rand([1, 2, 2, 2]), mode="bicubic")
    x = arr(2, 6, 2, 3)
    y = F.channel_shuffle(oar.to_tensor(x), 3).numpy()
    np.testing.assert_array_equal(y, x.reshape(2, 3, 2, 2, 3).transpose(0, 2, 1, 3, 4)
                                  .reshape(2, 6, 2, 3))
    nhwc = F.channel_shuffle(oar.to_tensor(x.transpose(0, 2, 3, 1)), 3, "NHWC").numpy()
    np.testing.assert_array_equal(nhwc.transpose(0, 3, 1, 2), y)
    with pytest.raises(ValueError, match="groups"):
        F.channel_shuffle(oar.to_tensor(x), 4)


def test_local_response_norm():
    x = arr(2, 7, 3, 4)
    run(lambda a: F.local_response_norm(a, 3, 1e-2, 0.7, 2.0),
        lambda a: TF.local_response_norm(a, 3, 1e-2, 0.7, 2.0), x)
    close(F.local_response_norm(oar.to_tensor(x[..., 0]), 4),
          TF.local_response_norm(torch.tensor(x[..., 0]), 4))
    close(F.local_response_norm(oar.to_tensor(x.transpose(0, 2, 3, 1)), 5,
                                data_format="NHWC"),
          TF.local_response_norm(torch.tensor(x), 5).permute(0, 2, 3, 1))
    with pytest.raises(ValueError, match="size"):
        F.local_response_norm(oar.to_tensor(x), 0)
