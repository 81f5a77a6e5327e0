"""oar.nn.functional convolutions and pools (python/oar/nn/functional/conv.py and
pooling.py) against torch.nn.functional: Paddle's argument forms (padding as int,
list, per-side list, pairs, 'SAME'/'VALID'; channels-last formats; output_size;
return_mask; exclusive; divisor_override), values, gradients (bias included), the
double gradient of a gradient penalty, and the error messages naming the function
and the argument. The C++ ops themselves are covered by tests/op_cases/conv.yaml and
pooling.yaml."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import oar
import oar.nn.functional as F

RNG = np.random.default_rng(0)


def pair(shape, grad=True):
    a = RNG.uniform(-1, 1, size=shape)
    t = torch.tensor(a, requires_grad=grad)
    o = oar.to_tensor(a)
    o.stop_gradient = not grad
    return o, t


def close(o, t, tol=1e-10):
    np.testing.assert_allclose(o.numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def torch_pad(x, pads):
    """pads: (before, after) per spatial dim, first dim first (oar's order)."""
    nd = len(pads) // 2
    return TF.pad(x, [p for i in reversed(range(nd)) for p in pads[2 * i:2 * i + 2]])


# ---- convolutions ----------------------------------------------------------------------
@pytest.mark.parametrize("padding,pads", [
    (1, [1, 1, 1, 1]),
    ([1, 2], [1, 1, 2, 2]),
    ([1, 0, 2, 1], [1, 0, 2, 1]),
    ([[0, 0], [0, 0], [2, 1], [0, 1]], [2, 1, 0, 1]),
    ("VALID", [0, 0, 0, 0]),
    ("valid", [0, 0, 0, 0]),
])
def test_conv2d_padding_forms(padding, pads):
    xo, xt = pair([2, 4, 7, 6])
    wo, wt = pair([6, 2, 3, 2])
    bo, bt = pair([6])
    out = F.conv2d(xo, wo, bo, stride=[2, 1], padding=padding, dilation=[1, 2], groups=2)
    ref = TF.conv2d(torch_pad(xt, pads), wt, bt, stride=[2, 1], dilation=[1, 2], groups=2)
    close(out, ref)
    g = RNG.uniform(-1, 1, size=ref.shape)
    grads = oar.grad([out], [xo, wo, bo], grad_outputs=[oar.to_tensor(g)])
    tgrads = torch.autograd.grad(ref, [xt, wt, bt], torch.tensor(g))
    for a, b in zip(grads, tgrads):
        close(a, b)


@pytest.mark.parametrize("shape,stride", [([1, 2, 7, 6], 1), ([1, 2, 7, 6], 2), ([1, 2, 8, 5], 3)])
def test_conv2d_same(shape, stride):
    xo, xt = pair(shape)
    wo, wt = pair([3, 2, 3, 4])
    out = F.conv2d(xo, wo, stride=stride, padding="SAME", dilation=2)  # SAME ignores dilation
    h, w = shape[2:]
    assert list(out.shape) == [1, 3, -(-h // stride), -(-w // stride)]
    pads = []
    for n, k in zip((h, w), (3, 4)):
        total = max((-(-n // stride) - 1) * stride + k - n, 0)
        pads += [total // 2, total - total // 2]
    close(out, TF.conv2d(torch_pad(xt, pads), wt, stride=stride))


def test_conv_channels_last_and_ranks():
    xo, xt = pair([2, 5, 6, 4])  # NHWC
    wo, wt = pair([3, 4, 3, 3])
    bo, bt = pair([3])
    out = F.conv2d(xo, wo, bo, padding=1, data_format="NHWC")
    close(out, TF.conv2d(xt.permute(0, 3, 1, 2), wt, bt, padding=1).permute(0, 2, 3, 1))
    xo, xt = pair([2, 9, 3])  # NLC
    wo, wt = pair([4, 3, 3])
    close(F.conv1d(xo, wo, stride=2, padding=[1, 0], data_format="NLC"),
          TF.conv1d(TF.pad(xt.permute(0, 2, 1), [1, 0]), wt, stride=2).permute(0, 2, 1))
    xo, xt = pair([1, 4, 3, 4, 5])
    wo, wt = pair([2, 2, 2, 2, 3])
    close(F.conv3d(xo, wo, padding=1, dilation=[1, 2, 1], groups=2),
          TF.conv3d(xt, wt, padding=1, dilation=[1, 2, 1], groups=2))
    xo, xt = pair([1, 3, 4, 5, 2])  # NDHWC
    wo, wt = pair([2, 2, 1, 2, 2])
    close(F.conv3d(xo, wo, stride=[1, 2, 1], data_format="NDHWC"),
          TF.conv3d(xt.permute(0, 4, 1, 2, 3), wt, stride=[1, 2, 1]).permute(0, 2, 3, 4, 1))


def test_conv2d_gradient_penalty_double_grad():
    # The second derivative a gradient penalty needs: d/dw of |d(out)/dx|^2.
    xo, xt = pair([2, 2, 5, 5])
    wo, wt = pair([3, 2, 3, 3])
    out = F.conv2d(xo, wo, padding=1, stride=2)
    (gx,) = oar.grad([oar.sum(oar.tanh(out))], [xo], create_graph=True)
    (gw,) = oar.grad([oar.sum(gx * gx)], [wo])
    ref = TF.conv2d(xt, wt, padding=1, stride=2)
    (tgx,) = torch.autograd.grad(torch.tanh(ref).sum(), [xt], create_graph=True)
    (tgw,) = torch.autograd.grad((tgx * tgx).sum(), [wt])
    close(gw, tgw, 1e-9)


@pytest.mark.parametrize("kw,torch_kw", [
    ({}, {}),
    ({"stride": 2, "padding": 1, "output_padding": 1}, {"stride": 2, "padding": 1, "output_padding": 1}),
    ({"stride": [2, 3], "output_size": [10, 9]}, {"stride": [2, 3], "output_padding": [1, 1]}),
    ({"groups": 2, "dilation": 2, "padding": [1, 0]}, {"groups": 2, "dilation": 2, "padding": [1, 0]}),
])
def test_conv2d_transpose(kw, torch_kw):
    xo, xt = pair([2, 4, 4, 3])
    wo, wt = pair([4, 3, 3, 2])
    bo, bt = pair([3 * (2 if kw.get("groups") else 1)])
    out = F.conv2d_transpose(xo, wo, bo, **kw)
    ref = TF.conv_transpose2d(xt, wt, bt, **torch_kw)
    close(out, ref)
    g = RNG.uniform(-1, 1, size=ref.shape)
    grads = oar.grad([out], [xo, wo, bo], grad_outputs=[oar.to_tensor(g)])
    for a, b in zip(grads, torch.autograd.grad(ref, [xt, wt, bt], torch.tensor(g))):
        close(a, b)


def test_conv2d_transpose_nhwc():
    xo, xt = pair([1, 3, 4, 2])
    wo, wt = pair([2, 3, 2, 2])
    close(F.conv2d_transpose(xo, wo, stride=2, data_format="NHWC"),
          TF.conv_transpose2d(xt.permute(0, 3, 1, 2), wt, stride=2).permute(0, 2, 3, 1))


def test_conv_float32_both_engines_agree_with_torch():
    # float32 runs on the engine conv::Choose picks; the shapes cover a 1x1 and a stride.
    for xs, ws, kw in [([4, 3, 9, 9], [8, 3, 3, 3], {"padding": 1}),
                       ([4, 8, 6, 6], [8, 8, 1, 1], {}),
                       ([4, 8, 9, 9], [4, 8, 3, 3], {"stride": 2, "padding": 1})]:
        x, w = RNG.uniform(-1, 1, size=xs).astype("float32"), RNG.uniform(-1, 1, size=ws).astype("float32")
        out = F.conv2d(oar.to_tensor(x), oar.to_tensor(w), **kw)
        np.testing.assert_allclose(out.numpy(), TF.conv2d(torch.tensor(x), torch.tensor(w), **kw).numpy(),
                                   rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("call,err,match", [
    (lambda x, w: F.conv2d(x, oar.zeros([4, 4, 3, 3]), groups=2), ValueError,
     r"conv2d\(\): argument 'x' has 4 channels, but weight \[4, 4, 3, 3\] with groups=2 "
     r"expects 8 \(weight.shape\[1\] \* groups\)"),
    (lambda x, w: F.conv2d(x, w, groups=2), ValueError,
     r"conv2d\(\): argument 'groups' \(2\) must divide the output channels"),
    (lambda x, w: F.conv2d(x[:, :, :2, :2], w), ValueError,
     r"conv2d\(\): argument 'weight' \[3, 4, 3, 3\]: the kernel spans 3 along spatial dim 0, "
     r"more than the padded input \(2\)"),
    (lambda x, w: F.conv2d(x, w, data_format="NCWH"), ValueError,
     r"conv2d\(\): argument 'data_format' must be 'NCHW' or 'NHWC', but got 'NCWH'"),
    (lambda x, w: F.conv2d(x, w, padding="FULL"), ValueError,
     r"conv2d\(\): argument 'padding' must be 'SAME', 'VALID'"),
    (lambda x, w: F.conv2d(x, w, padding=[1, 2, 3]), ValueError, r"conv2d\(\): argument 'padding'"),
    (lambda x, w: F.conv2d(x, w, padding=-1), ValueError, r"conv2d\(\): argument 'padding' must not be negative"),
    (lambda x, w: F.conv2d(x, w, stride=0), ValueError, r"conv2d\(\): argument 'stride' must hold values >= 1"),
    (lambda x, w: F.conv2d(x, w, stride=[1, 1, 1]), ValueError, r"conv2d\(\): argument 'stride'"),
    (lambda x, w: F.conv2d(x[0], w), ValueError, r"conv2d\(\): argument 'x' must be 4-D"),
    (lambda x, w: F.conv2d(x, w[0]), ValueError, r"conv2d\(\): argument 'weight' must be 4-D"),
    (lambda x, w: F.conv2d(x, w, bias=oar.zeros([2])), ValueError, r"conv2d\(\): argument 'bias' must be 1-D with 3"),
    (lambda x, w: F.conv2d(x, "w"), TypeError, r"conv2d\(\): argument 'weight' must be Tensor"),
    (lambda x, w: F.conv1d(x, w), ValueError, r"conv1d\(\): argument 'x' must be 3-D"),
    (lambda x, w: F.conv2d(oar.cast(x, "int64"), oar.cast(w, "int64")), TypeError, r"conv2d\(\)"),
    (lambda x, w: F.conv2d_transpose(x, w, groups=2), ValueError, r"conv2d_transpose\(\): argument 'groups' \(2\) must divide"),
    (lambda x, w: F.conv2d_transpose(x, oar.zeros([3, 2, 3, 3])), ValueError,
     r"conv2d_transpose\(\): argument 'x' has 4 channels, but weight \[3, 2, 3, 3\] expects"),
    (lambda x, w: F.conv2d_transpose(x, oar.zeros([4, 2, 3, 3]), stride=2, output_padding=2), ValueError,
     r"conv2d_transpose\(\): argument 'output_padding' \[2, 2\] must be smaller than the stride or the dilation"),
    (lambda x, w: F.conv2d_transpose(x, oar.zeros([4, 2, 3, 3]), output_size=[9, 9]), ValueError,
     r"conv2d_transpose\(\): argument 'output_size' \[9, 9\] is not reachable"),
])
def test_conv_errors(call, err, match):
    x, w = oar.zeros([2, 4, 5, 5]), oar.zeros([3, 4, 3, 3])
    with pytest.raises(err, match=match):
        call(x, w)


# ---- pools -------------------------------------------------------------------------------
def distinct(shape):
    a = RNG.permutation(int(np.prod(shape))).reshape(shape) / 10.0
    t = torch.tensor(a, requires_grad=True)
    o = oar.to_tensor(a)
    o.stop_gradient = False
    return o, t


@pytest.mark.parametrize("kw", [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": [3, 2], "stride": [1, 2], "padding": [1, 1]},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
])
def test_max_pool2d_mask_and_grad(kw):
    xo, xt = distinct([2, 3, 7, 6])
    out, mask = F.max_pool2d(xo, return_mask=True, **kw)
    ref, idx = TF.max_pool2d(xt, return_indices=True, **kw)
    close(out, ref)
    assert mask.dtype == oar.int32
    np.testing.assert_array_equal(mask.numpy(), idx.numpy())
    g = RNG.uniform(-1, 1, size=ref.shape)
    (gx,) = oar.grad([out], [xo], grad_outputs=[oar.to_tensor(g)])
    close(gx, torch.autograd.grad(ref, [xt], torch.tensor(g))[0])


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("hw", [(2, 2), (5, 3), (28, 28), (14, 14), (9, 33), (4, 66)])
def test_max_pool2x2_low_precision_and_float_paths_agree_with_float64(dtype, hw):
    # 2x2 stride-2 pools take a SIMD path (funcs/max_pool_2x2.h): float32/16 and
    # bfloat16 with AVX-512, float32 with AVX2; float64 keeps the generic loop. Few distinct
    # values (ties keep the first element in row-major order) and NaNs (which win).
    a = RNG.integers(-3, 4, size=(2, 3) + hw).astype("float64")
    a[RNG.random(a.shape) < 0.05] = np.nan
    out, mask = F.max_pool2d(oar.to_tensor(a).astype(dtype), 2, return_mask=True)
    ref, ref_mask = F.max_pool2d(oar.to_tensor(a), 2, return_mask=True)
    np.testing.assert_array_equal(mask.numpy(), ref_mask.numpy())
    np.testing.assert_array_equal(out.astype("float64").numpy(), ref.numpy())


@pytest.mark.parametrize("padding,ceil_mode", [(1, False), (0, False), (1, True), (0, True)])
@pytest.mark.parametrize("hw", [(3, 3), (5, 4), (7, 9), (12, 17), (9, 35), (112, 112), (4, 40)])
def test_max_pool3x3_stride2_float_path_agrees_with_float64(hw, padding, ceil_mode):
    # Full 3-wide windows at column stride 2 take a SIMD run in float32 with AVX2, for the
    # argmax and for the values alone (funcs/max_pool_3x3.h; the clipped edge windows and
    # float64 keep the generic loop), eight outputs a step and a masked tail. Few distinct
    # values (ties keep the first element in row-major order) and NaNs (which win, the
    # last of several).
    a = RNG.integers(-3, 4, size=(2, 3) + hw).astype("float64")
    a[RNG.random(a.shape) < 0.05] = np.nan
    kw = dict(kernel_size=3, stride=2, padding=padding, ceil_mode=ceil_mode, return_mask=True)
    out, mask = F.max_pool2d(oar.to_tensor(a).astype("float32"), **kw)
    ref, ref_mask = F.max_pool2d(oar.to_tensor(a), **kw)
    np.testing.assert_array_equal(mask.numpy(), ref_mask.numpy())
    np.testing.assert_array_equal(out.astype("float64").numpy(), ref.numpy())
    # Without a mask or a gradient: the values alone (the max_pool op), the same run.
    del kw["return_mask"]
    values = F.max_pool2d(oar.to_tensor(a).astype("float32"), **kw)
    np.testing.assert_array_equal(values.astype("float64").numpy(), ref.numpy())
    kw["return_mask"] = True
    out1, mask1 = F.max_pool1d(oar.to_tensor(a[0]).astype("float32"), **kw)
    ref1, ref_mask1 = F.max_pool1d(oar.to_tensor(a[0]), **kw)
    np.testing.assert_array_equal(mask1.numpy(), ref_mask1.numpy())
    np.testing.assert_array_equal(out1.astype("float64").numpy(), ref1.numpy())


def test_max_pool_forms():
    xo, xt = distinct([2, 3, 9])
    out, mask = F.max_pool1d(xo, 3, 2, padding=1, return_mask=True)
    ref, idx = TF.max_pool1d(xt, 3, 2, padding=1, return_indices=True)
    close(out, ref)
    np.testing.assert_array_equal(mask.numpy(), idx.numpy())
    xo, xt = distinct([1, 5, 6, 2])  # NHWC
    close(F.max_pool2d(xo, 2, data_format="NHWC"),
          TF.max_pool2d(xt.permute(0, 3, 1, 2), 2).permute(0, 2, 3, 1))
    # asymmetric padding: torch pads with -inf explicitly
    xo, xt = distinct([1, 2, 5, 5])
    close(F.max_pool2d(xo, 2, 2, padding=[1, 0, 0, 1]),
          TF.max_pool2d(TF.pad(xt, [0, 1, 1, 0], value=-np.inf), 2, 2))
    xo, xt = distinct([1, 2, 5, 7])
    out = F.max_pool2d(xo, 3, 2, padding="SAME")
    assert list(out.shape) == [1, 2, 3, 4]
    close(out, TF.max_pool2d(TF.pad(xt, [1, 1, 1, 1], value=-np.inf), 3, 2))


def test_max_pool_double_grad():
    xo, xt = distinct([1, 2, 4, 4])
    out = F.max_pool2d(xo, 2)
    (gx,) = oar.grad([oar.sum(out * out)], [xo], create_graph=True)
    (ggx,) = oar.grad([oar.sum(gx * gx)], [xo])
    ref = TF.max_pool2d(xt, 2)
    (tgx,) = torch.autograd.grad((ref * ref).sum(), [xt], create_graph=True)
    close(ggx, torch.autograd.grad((tgx * tgx).sum(), [xt])[0])


@pytest.mark.parametrize("kw,torch_kw", [
    ({"kernel_size": 2}, {"kernel_size": 2}),
    ({"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
     {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}),
    ({"kernel_size": 3, "stride": 2, "padding": 1, "exclusive": False},
     {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": True}),
    ({"kernel_size": [2, 3], "padding": [1, 1], "divisor_override": 4},
     {"kernel_size": [2, 3], "padding": [1, 1], "divisor_override": 4}),
])
def test_avg_pool2d(kw, torch_kw):
    xo, xt = pair([2, 3, 7, 6])
    out = F.avg_pool2d(xo, **kw)
    ref = TF.avg_pool2d(xt, **torch_kw)
    close(out, ref)
    g = RNG.uniform(-1, 1, size=ref.shape)
    (gx,) = oar.grad([out], [xo], grad_outputs=[oar.to_tensor(g)])
    close(gx, torch.autograd.grad(ref, [xt], torch.tensor(g))[0])


def test_avg_pool_forms():
    xo, xt = pair([2, 3, 9])
    close(F.avg_pool1d(xo, 3, 2, padding=1), TF.avg_pool1d(xt, 3, 2, padding=1, count_include_pad=False))
    close(F.avg_pool1d(xo, 3, 2, padding=1, exclusive=False), TF.avg_pool1d(xt, 3, 2, padding=1))
    xo, xt = pair([1, 6, 4, 3])  # NHWC
    close(F.avg_pool2d(xo, 2, data_format="NHWC"),
          TF.avg_pool2d(xt.permute(0, 3, 1, 2), 2).permute(0, 2, 3, 1))
    # asymmetric padding, exclusive: sums over the padded input / counts of real elements
    xo, xt = pair([1, 2, 5, 5])
    sums = TF.avg_pool2d(TF.pad(xt, [0, 1, 1, 0]), 2, 2, divisor_override=1)
    counts = TF.avg_pool2d(TF.pad(torch.ones_like(xt), [0, 1, 1, 0]), 2, 2, divisor_override=1)
    close(F.avg_pool2d(xo, 2, 2, padding=[1, 0, 0, 1]), sums / counts)


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("float64", 1e-12)])
def test_avg_pool_reads_a_channels_last_view_in_place(dtype, tol):
    """Note [Average pooling sums a block of planes side by side]: an input whose channels
    are adjacent (an NHWC array transposed, as a folded convolution's output) is pooled
    where it is, sixteen planes side by side: the contiguous input's bits and torch's
    values, for channel counts below, at and across a block of sixteen."""
    cases2d = [
        (lambda x: F.avg_pool2d(x, 3, 2, 1),
         lambda t: TF.avg_pool2d(t, 3, 2, 1, count_include_pad=False)),
        (lambda x: F.avg_pool2d(x, 3, 2, 1, exclusive=False, ceil_mode=True),
         lambda t: TF.avg_pool2d(t, 3, 2, 1, ceil_mode=True)),
        (lambda x: F.avg_pool2d(x, [2, 3], divisor_override=4),
         lambda t: TF.avg_pool2d(t, [2, 3], divisor_override=4)),
        (lambda x: F.adaptive_avg_pool2d(x, 1), lambda t: TF.adaptive_avg_pool2d(t, 1)),
        (lambda x: F.adaptive_avg_pool2d(x, [3, 5]), lambda t: TF.adaptive_avg_pool2d(t, [3, 5])),
    ]
    cases3d = [(lambda x: F.avg_pool3d(x, 2, 2), lambda t: TF.avg_pool3d(t, 2, 2))]
    for channels in (3, 16, 35):
        for spatial, cases in (([9, 7], cases2d), ([4, 5, 6], cases3d)):
            a = RNG.uniform(-10, 10, size=[2, *spatial, channels]).astype(dtype)
            order = [0, len(spatial) + 1, *range(1, len(spatial) + 1)]
            view = oar.transpose(oar.to_tensor(a), order)
            assert not view.is_contiguous()
            plain = oar.to_tensor(np.ascontiguousarray(a.transpose(order)))
            t = torch.tensor(a).permute(order)
            for f, tf in cases:
                got = f(view).numpy()
                assert got.tobytes() == f(plain).numpy().tobytes()
                np.testing.assert_allclose(got, tf(t).numpy(), rtol=tol, atol=tol)


def test_avg_pool_of_few_large_planes():
    """Note [Average pooling sums a block of planes side by side]: three planes split over
    the threads by output rows; torch's values."""
    a = RNG.uniform(-1, 1, size=[1, 3, 96, 128])
    for kw in ({"kernel_size": 3, "stride": 1, "padding": 1}, {"kernel_size": 2}):
        ref = TF.avg_pool2d(torch.tensor(a), **kw, count_include_pad=False)  # Paddle's exclusive
        close(F.avg_pool2d(oar.to_tensor(a), **kw), ref)


def test_avg_pool_double_grad():
    xo, xt = pair([1, 2, 5, 5])
    out = F.avg_pool2d(xo, 3, 2, padding=1)
    (gx,) = oar.grad([oar.sum(oar.tanh(out))], [xo], create_graph=True)
    (ggx,) = oar.grad([oar.sum(gx * gx)], [xo])
    ref = TF.avg_pool2d(xt, 3, 2, padding=1, count_include_pad=False)
    (tgx,) = torch.autograd.grad(torch.tanh(ref).sum(), [xt], create_graph=True)
    close(ggx, torch.autograd.grad((tgx * tgx).sum(), [xt])[0])


def test_adaptive_pools():
    xo, xt = pair([2, 3, 7, 5])
    close(F.adaptive_avg_pool2d(xo, 3), TF.adaptive_avg_pool2d(xt, 3))
    close(F.adaptive_avg_pool2d(xo, [4, None]), TF.adaptive_avg_pool2d(xt, [4, None]))
    close(F.adaptive_avg_pool2d(oar.transpose(xo, [0, 2, 3, 1]), [2, 3], data_format="NHWC"),
          TF.adaptive_avg_pool2d(xt, [2, 3]).permute(0, 2, 3, 1))
    xo1, xt1 = pair([2, 3, 10])
    close(F.adaptive_avg_pool1d(xo1, 4), TF.adaptive_avg_pool1d(xt1, 4))
    xo, xt = distinct([2, 3, 7, 5])
    out, mask = F.adaptive_max_pool2d(xo, [3, 2], return_mask=True)
    ref, idx = TF.adaptive_max_pool2d(xt, [3, 2], return_indices=True)
    close(out, ref)
    np.testing.assert_array_equal(mask.numpy(), idx.numpy())
    g = RNG.uniform(-1, 1, size=ref.shape)
    (gx,) = oar.grad([out], [xo], grad_outputs=[oar.to_tensor(g)])
    close(gx, torch.autograd.grad(ref, [xt], torch.tensor(g))[0])


@pytest.mark.parametrize("call,err,match", [
    (lambda x: F.max_pool2d(x, 6), ValueError,
     r"max_pool2d\(\): argument 'kernel_size' \[6, 6\] is larger than the padded input"),
    (lambda x: F.max_pool2d(x, 2, padding=2), ValueError,
     r"max_pool2d\(\): argument 'paddings' \[2, 2, 2, 2\] must be at most half of kernel_size"),
    (lambda x: F.max_pool2d(x, 2, padding="HALF"), ValueError, r"max_pool2d\(\): argument 'padding' must be 'SAME'"),
    (lambda x: F.max_pool2d(x, 2, padding="VALID", ceil_mode=True), ValueError,
     r"max_pool2d\(\): argument 'ceil_mode' must be False with padding 'VALID'"),
    (lambda x: F.max_pool2d(x, 2, data_format="HWNC"), ValueError,
     r"max_pool2d\(\): argument 'data_format' must be 'NCHW' or 'NHWC', but got 'HWNC'"),
    (lambda x: F.max_pool1d(x, 2), ValueError, r"max_pool1d\(\): argument 'x' must be 3-D"),
    (lambda x: F.avg_pool2d(x, 0), ValueError, r"avg_pool2d\(\): argument 'kernel_size' must hold values >= 1"),
    (lambda x: F.avg_pool2d(x, 2, divisor_override=0), ValueError,
     r"avg_pool2d\(\): argument 'divisor_override' must be positive"),
    (lambda x: F.avg_pool2d(x, [2, 2, 2]), ValueError, r"avg_pool2d\(\): argument 'kernel_size'"),
    (lambda x: F.adaptive_avg_pool2d(x, 0), ValueError,
     r"adaptive_avg_pool2d\(\): argument 'output_size' must hold values >= 1"),
    (lambda x: F.adaptive_max_pool2d(x, [1, 2, 3]), ValueError, r"adaptive_max_pool2d\(\): argument 'output_size'"),
    (lambda x: F.avg_pool2d("x", 2), TypeError, r"avg_pool2d\(\): argument 'x' must be Tensor"),
])
def test_pool_errors(call, err, match):
    with pytest.raises(err, match=match):
        call(oar.zeros([1, 2, 5, 5]))
