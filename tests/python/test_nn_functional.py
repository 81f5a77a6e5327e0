"""oar.nn.functional beyond activations and 2-D convolution/pooling: the Python wrappers
(losses with weights, reductions, ignore_index and label smoothing; norms from
normalized_shape; batch/instance/group norm; dropout; embedding; distances; interpolate,
pixel_shuffle, unfold/fold, attention), 3-D and adaptive-max pooling, LP pooling, max
unpooling, fractional max pooling, 1-D/3-D transposed convolution, zeropad2d,
maxout/rrelu/gumbel_softmax/swiglu and the in-place activations, bilinear,
dropout1d/feature_alpha_dropout, label_smooth, class_center_sample, sequence_mask,
gather_tree, temporal_shift, affine_grid/grid_sample, channel_shuffle and
local_response_norm, and Paddle's behaviours (embedding with sparse / max_norm /
scale_grad_by_freq, cross_entropy with smoothed float labels, KLDivLoss 'batchmean',
instance norm of any rank): values and gradients (first and second order) against
torch.nn.functional, or a numpy statement of Paddle's definition, with Paddle's layouts
and conventions, and the typed errors. The fused ops underneath are checked case by case
by the op registry (tests/op_cases/{norm,loss,nn}.yaml)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import oar
import oar.nn as nn
import oar.nn.functional as F

RNG = np.random.default_rng(1234)


def arr(*shape, low=-1.0, high=1.0, dtype=np.float64):
    return RNG.uniform(low, high, size=shape).astype(dtype)


def pair(a, stop_gradient=False):
    """The same values as an oar tensor and a torch leaf (both requiring grad)."""
    t = torch.tensor(a, requires_grad=not stop_gradient)
    return oar.to_tensor(a, stop_gradient=stop_gradient), t


def labels(values, dtype=np.int64):
    v = np.asarray(values, dtype=dtype)
    return oar.to_tensor(v), torch.tensor(v.astype(np.int64))


def close(o, t, rtol=1e-9, atol=1e-11):
    """oar vs torch values; None (an unused input) on either side reads as zeros."""
    if o is None and t is None:
        return
    ov = np.zeros(list(t.shape)) if o is None else o.numpy()
    tv = np.zeros(ov.shape) if t is None else t.detach().numpy(force=True)
    np.testing.assert_allclose(ov, tv, rtol=rtol, atol=atol)


def grads(o_out, o_ins, t_out, t_ins, rtol=1e-8, atol=1e-10, second=True):
    """First (and second, through a random projection) order gradients agree."""
    go = arr(*o_out.shape) if o_out.ndim else np.array(1.0)
    og = oar.grad([o_out], o_ins, [oar.to_tensor(go)], create_graph=second)
    tg = torch.autograd.grad([t_out], t_ins, [torch.tensor(go)], create_graph=second)
    for a, b in zip(og, tg):
        close(a, b, rtol, atol)
    if not second:
        return
    ws = [arr(*g.shape) for g in og]
    o_s = sum((g * oar.to_tensor(w)).sum() for g, w in zip(og, ws))
    t_s = sum((g * torch.tensor(w)).sum() for g, w in zip(tg, ws))
    if not t_s.requires_grad:  # the first gradients are constant: nothing to compare
        return
    og2 = oar.grad([o_s], o_ins, allow_unused=True)
    tg2 = torch.autograd.grad([t_s], t_ins, allow_unused=True)
    for a, b, i in zip(og2, tg2, t_ins):
        close(a, torch.zeros_like(i) if b is None else b, rtol, atol)


# ---- cross_entropy ----------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_hard_weight_ignore(reduction):
    x, tx = pair(arr(6, 5))
    lab, tlab = labels([0, 4, -100, 2, 1, 4])
    w, tw = pair(arr(5, low=0.2, high=2.0), stop_gradient=True)
    o = F.cross_entropy(x, lab, weight=w, reduction=reduction)
    t = TF.cross_entropy(tx, tlab, weight=tw, reduction=reduction)
    close(o, t)
    grads(o, [x], t, [tx])


def test_cross_entropy_label_shape_n1_keeps_dim_and_axis():
    x, tx = pair(arr(2, 4, 3))
    lab, tlab = labels([[[0, 1, 3]], [[2, 2, 0]]])  # [2, 1, 3], classes on axis 1
    o = F.cross_entropy(x, lab, axis=1, reduction="none")
    assert o.shape == [2, 1, 3]
    t = TF.cross_entropy(tx, tlab.squeeze(1), reduction="none").unsqueeze(1)
    close(o, t)
    o = F.cross_entropy(x, lab, axis=1)
    t = TF.cross_entropy(tx, tlab.squeeze(1))
    close(o, t)
    grads(o, [x], t, [tx])


def test_cross_entropy_int32_labels_and_squeezed_none_shape():
    x, tx = pair(arr(4, 3))
    lab, tlab = labels([0, 2, 1, 1], np.int32)
    o = F.cross_entropy(x, lab, reduction="none")
    assert o.shape == [4]
    close(o, TF.cross_entropy(tx, tlab, reduction="none"))


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_cross_entropy_label_smoothing(reduction):
    x, tx = pair(arr(5, 4))
    lab, tlab = labels([0, 3, -100, 2, 1])
    o = F.cross_entropy(x, lab, label_smoothing=0.1, reduction=reduction)
    t = TF.cross_entropy(tx, tlab, label_smoothing=0.1, reduction=reduction)
    close(o, t)
    grads(o, [x], t, [tx])


def test_cross_entropy_label_smoothing_with_weight_paddle_semantics():
    # Paddle turns the label into (1 - eps) one_hot + eps / C and weights each sample
    # by sum_c w_c label_c; 'mean' divides by the sum of those weights.
    x, tx = pair(arr(4, 3))
    lab, tlab = labels([0, 2, 1, 1])
    wv = np.array([0.5, 1.0, 2.0])
    eps = 0.2
    o = F.cross_entropy(x, lab, weight=oar.to_tensor(wv), label_smoothing=eps)
    q = (1 - eps) * TF.one_hot(tlab, 3).double() + eps / 3
    per = -(q * torch.log_softmax(tx, -1)).sum(-1)
    sw = (q * torch.tensor(wv)).sum(-1)
    t = (per * sw).sum() / sw.sum()
    close(o, t)
    grads(o, [x], t, [tx])


def test_cross_entropy_is_not_clipped_at_64_like_paddles_cpu_kernel():
    # Paddle 3.3.1's CPU softmax clips each shifted logit x - max(x) at -64 before the
    # exponential (ValueClip in its softmax functor), so the hard-label loss of one
    # sample stops at 64 (+ log of the number of maxima): measured per row below.
    # Its documentation states loss = -x[label] + log(sum(exp(x))) with no such bound;
    # oar computes the documented value. Where the shift stays above -64 the two agree,
    # and the gradients (softmax - one_hot) agree everywhere.
    rows = [[0.0, 60.0], [0.0, 63.0], [0.0, 70.0], [0.0, 100.0]]
    x = oar.to_tensor(np.array(rows, np.float32), stop_gradient=False)
    lab = oar.to_tensor(np.zeros([4, 1], np.int64))
    loss = F.cross_entropy(x, lab, reduction="none")
    paddle_loss = np.array([60.0, 63.0, 64.0, 64.0])  # measured on Paddle 3.3.1
    np.testing.assert_allclose(loss.numpy().ravel(), [60.0, 63.0, 70.0, 100.0], rtol=1e-6)
    np.testing.assert_allclose(loss.numpy().ravel()[:2], paddle_loss[:2], rtol=1e-6)
    loss.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-1.0, 1.0]] * 4, atol=1e-6)  # as Paddle
    # the layer and the other label forms follow the same formula (Paddle 3.3.1: 64.0,
    # soft label 64.0, label_smoothing=0.1 60.8 = 0.95 * 64)
    x1 = oar.to_tensor(np.array([[0.0, 100.0]], np.float32))
    assert float(nn.CrossEntropyLoss()(x1, oar.to_tensor([0]))) == pytest.approx(100.0)
    soft = F.cross_entropy(x1, oar.to_tensor([[1.0, 0.0]]), soft_label=True, reduction="none")
    assert float(soft) == pytest.approx(100.0)
    smooth = F.cross_entropy(x1, oar.to_tensor([0]), label_smoothing=0.1, reduction="none")
    assert float(smooth) == pytest.approx(95.0)


def test_cross_entropy_soft_labels_and_weight():
    x, tx = pair(arr(4, 5))
    q = np.abs(arr(4, 5))
    q /= q.sum(-1, keepdims=True)
    ql, tq = pair(q)
    o = F.cross_entropy(x, ql, soft_label=True)
    t = TF.cross_entropy(tx, tq)
    close(o, t)
    grads(o, [x, ql], t, [tx, tq])
    wv = arr(5, low=0.5, high=1.5)
    o = F.cross_entropy(x, ql, weight=oar.to_tensor(wv), soft_label=True)
    per = -(tq * torch.log_softmax(tx, -1)).sum(-1)
    sw = (tq * torch.tensor(wv)).sum(-1)
    close(o, (per * sw).sum() / sw.sum())


def test_cross_entropy_use_softmax_false():
    p = np.abs(arr(3, 4)) + 0.1
    p /= p.sum(-1, keepdims=True)
    x, tx = pair(p)
    lab, tlab = labels([1, 0, 3])
    o = F.cross_entropy(x, lab, use_softmax=False)
    t = TF.nll_loss(torch.log(tx), tlab)
    close(o, t)
    grads(o, [x], t, [tx])


def test_cross_entropy_empty_batch():
    x, tx = pair(arr(0, 4))
    lab, tlab = labels(np.zeros([0], np.int64))
    assert F.cross_entropy(x, lab, reduction="none").shape == [0]
    assert float(F.cross_entropy(x, lab, reduction="sum")) == 0.0
    assert np.isnan(float(F.cross_entropy(x, lab)))  # 0 / 0, as torch
    assert np.isnan(float(TF.cross_entropy(tx, tlab).detach()))


def test_softmax_with_cross_entropy():
    x, tx = pair(arr(3, 4))
    lab, tlab = labels([[1], [0], [3]])
    loss, sm = F.softmax_with_cross_entropy(x, lab, return_softmax=True)
    assert loss.shape == [3, 1]
    close(loss, TF.cross_entropy(tx, tlab.squeeze(1), reduction="none").unsqueeze(1))
    close(sm, torch.softmax(tx, -1))


def test_cross_entropy_errors():
    x = oar.to_tensor(arr(3, 4))
    with pytest.raises(IndexError, match=r"cross_entropy_hard\(\): argument 'label' holds 7"):
        F.cross_entropy(x, oar.to_tensor(np.array([0, 7, 1])))
    with pytest.raises(TypeError, match=r"cross_entropy\(\): argument 'label' must be an int32 "
                                        r"or int64"):
        F.cross_entropy(x, oar.to_tensor(np.array([0.0, 1.0, 1.0])))
    with pytest.raises(ValueError, match=r"cross_entropy\(\): argument 'reduction' must be one "
                                         r"of 'mean', 'sum', 'none', but got 'avg'"):
        F.cross_entropy(x, oar.to_tensor(np.array([0, 1, 1])), reduction="avg")
    with pytest.raises(ValueError, match=r"cross_entropy\(\): argument 'label' has shape \[2\]"):
        F.cross_entropy(x, oar.to_tensor(np.array([0, 1])))
    with pytest.raises(ValueError, match=r"cross_entropy\(\): argument 'weight' has shape"):
        F.cross_entropy(x, oar.to_tensor(np.array([0, 1, 1])), weight=oar.ones([3]))
    with pytest.raises(IndexError, match=r"cross_entropy\(\): argument 'axis' \(2\)"):
        F.cross_entropy(x, oar.to_tensor(np.array([0, 1, 1])), axis=2)


# ---- nll_loss, mse, l1, and the composed losses -----------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss(reduction):
    x, tx = pair(arr(2, 4, 3))  # [N, C, d]
    lab, tlab = labels([[0, 3, -100], [2, 1, 1]])
    w, tw = pair(arr(4, low=0.5, high=1.5), stop_gradient=True)
    o = F.nll_loss(x, lab, weight=w, reduction=reduction)
    t = TF.nll_loss(tx, tlab, weight=tw, reduction=reduction)
    close(o, t)
    grads(o, [x], t, [tx])
    o = F.nll_loss(x, lab, reduction=reduction)
    close(o, TF.nll_loss(tx, tlab, reduction=reduction))


def test_nll_loss_errors():
    with pytest.raises(ValueError, match=r"nll_loss\(\): argument 'input' must have at least 2"):
        F.nll_loss(oar.ones([3]), oar.to_tensor(np.array([0])))
    with pytest.raises(ValueError, match=r"nll_loss\(\): argument 'reduction'"):
        F.nll_loss(oar.ones([2, 3]), oar.to_tensor(np.array([0, 1])), reduction="max")


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_l1(name, reduction):
    a, ta = pair(arr(3, 4))
    b, tb = pair(arr(3, 4))
    o = getattr(F, name)(a, b, reduction=reduction)
    t = getattr(TF, name)(ta, tb, reduction=reduction)
    close(o, t)
    grads(o, [a, b], t, [ta, tb])


def test_loss_shape_mismatch_error():
    with pytest.raises(ValueError, match=r"mse_loss\(\): arguments 'input' \[2, 3\] and 'label'"):
        F.mse_loss(oar.ones([2, 3]), oar.ones([3, 2]))


@pytest.mark.parametrize("delta", [1.0, 0.5])
def test_smooth_l1_is_huber(delta):
    a, ta = pair(arr(4, 5, low=-2, high=2))
    b, tb = pair(arr(4, 5))
    o = F.smooth_l1_loss(a, b, delta=delta)
    t = TF.huber_loss(ta, tb, delta=delta)
    close(o, t)
    grads(o, [a], t, [ta], second=False)


def test_binary_cross_entropy_family():
    p, tp = pair(arr(3, 4, low=0.05, high=0.95))
    y, ty = pair(arr(3, 4, low=0.0, high=1.0), stop_gradient=True)
    w, tw = pair(arr(3, 4, low=0.5, high=1.5), stop_gradient=True)
    o = F.binary_cross_entropy(p, y, weight=w)
    t = TF.binary_cross_entropy(tp, ty, weight=tw)
    close(o, t)
    grads(o, [p], t, [tp])
    x, tx = pair(arr(3, 4, low=-30, high=30))
    pw, tpw = pair(arr(4, low=0.5, high=3.0), stop_gradient=True)
    for kw, tkw in [({}, {}), ({"pos_weight": pw}, {"pos_weight": tpw}),
                    ({"weight": w, "reduction": "sum"}, {"weight": tw, "reduction": "sum"})]:
        o = F.binary_cross_entropy_with_logits(x, y, **kw)
        t = TF.binary_cross_entropy_with_logits(tx, ty, **tkw)
        close(o, t)
        grads(o, [x], t, [tx])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none", "batchmean"])
def test_kl_div(reduction):
    x, tx = pair(np.log(arr(3, 4, low=0.1, high=1.0)))
    yv = arr(3, 4, low=0.0, high=1.0)
    yv[0, 1] = 0.0
    y, ty = pair(yv, stop_gradient=True)
    o = F.kl_div(x, y, reduction=reduction)
    t = TF.kl_div(tx, ty, reduction=reduction)
    close(o, t)
    grads(o, [x], t, [tx])
    o = F.kl_div(x, oar.log(y + 0.5), reduction=reduction, log_target=True)
    close(o, TF.kl_div(tx, torch.log(ty + 0.5), reduction=reduction, log_target=True))


def test_margin_ranking_and_cosine_embedding():
    a, ta = pair(arr(6))
    b, tb = pair(arr(6))
    lab, tlab = pair(np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0]), stop_gradient=True)
    o = F.margin_ranking_loss(a, b, lab, margin=0.1)
    t = TF.margin_ranking_loss(ta, tb, tlab, margin=0.1)
    close(o, t)
    grads(o, [a, b], t, [ta, tb], second=False)
    u, tu = pair(arr(4, 5))
    v, tv = pair(arr(4, 5))
    lab, tlab = pair(np.array([1.0, -1.0, 1.0, -1.0]), stop_gradient=True)
    o = F.cosine_embedding_loss(u, v, lab, margin=-0.2, reduction="none")
    t = TF.cosine_embedding_loss(tu, tv, tlab, margin=-0.2, reduction="none")
    close(o, t, rtol=1e-7, atol=1e-9)  # eps inside the norms differs (1e-12 vs torch's)


# ---- norms ------------------------------------------------------------------------------


def test_layer_norm_normalized_shape_and_optional_affine():
    x, tx = pair(arr(2, 3, 4))
    w, tw = pair(arr(3, 4))
    b, tb = pair(arr(3, 4))
    o = F.layer_norm(x, [3, 4], w, b, epsilon=1e-5)
    t = TF.layer_norm(tx, [3, 4], tw, tb, eps=1e-5)
    close(o, t)
    grads(o, [x, w, b], t, [tx, tw, tb])
    o = F.layer_norm(x, 4)
    t = TF.layer_norm(tx, [4])
    close(o, t)
    grads(o, [x], t, [tx])


def test_rms_norm():
    x, tx = pair(arr(3, 6))
    w, tw = pair(arr(6))
    o = F.rms_norm(x, [6], w, epsilon=1e-6)
    t = TF.rms_norm(tx, [6], tw, eps=1e-6)
    close(o, t)
    grads(o, [x, w], t, [tx, tw])
    close(F.rms_norm(x, 6, eps=1e-3), TF.rms_norm(tx, [6], eps=1e-3))


def test_norm_errors():
    x = oar.ones([2, 3, 4])
    with pytest.raises(ValueError, match=r"layer_norm\(\): argument 'normalized_shape' \[3\] "
                                         r"does not match"):
        F.layer_norm(x, [3])
    with pytest.raises(ValueError, match=r"layer_norm\(\): argument 'weight' has shape \[5\]"):
        F.layer_norm(x, [4], weight=oar.ones([5]))
    with pytest.raises(ValueError, match=r"rms_norm\(\): argument 'normalized_shape'"):
        F.rms_norm(x, [2, 4])
    with pytest.raises(ValueError, match=r"layer_norm\(\): argument 'weight' has shape \[5\] "
                                         r"but the normalized shape"):
        oar._C.layer_norm(x, oar.ones([5]), oar.ones([4]), 1e-5, 2)
    with pytest.raises(ValueError, match=r"layer_norm\(\): argument 'begin_norm_axis' \(3\)"):
        oar._C.layer_norm(x, oar.ones([4]), oar.ones([4]), 1e-5, 3)
    with pytest.raises(TypeError, match=r"layer_norm\(\): argument 'x' must be a floating "
                                        r"tensor, but got int64"):
        F.layer_norm(oar.to_tensor(np.ones([2, 4], np.int64)), [4])
    with pytest.raises(TypeError, match=r"layer_norm\(\): the kernel 'layer_norm' is not "
                                        r"registered for int64"):
        i4 = oar.to_tensor(np.ones([4], np.int64))
        oar._C.layer_norm(oar.to_tensor(np.ones([2, 4], np.int64)), i4, i4, 1e-5, 1)
    with pytest.raises(ValueError, match=r"batch_norm\(\): argument 'data_format' must be one "
                                         r"of"):
        F.batch_norm(oar.ones([2, 3, 4, 4]), oar.zeros([3]), oar.ones([3]), data_format="CHWN")
    with pytest.raises(ValueError, match=r"group_norm\(\): argument 'num_groups' \(4\)"):
        F.group_norm(oar.ones([2, 6, 3]), 4, data_format="NCL")


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_batch_norm_training_updates_running_stats(data_format):
    xv_t = arr(4, 3, 2, 5)  # NCHW values
    nhwc = data_format == "NHWC"
    xv = np.ascontiguousarray(xv_t.transpose(0, 2, 3, 1)) if nhwc else xv_t
    x, tx = pair(xv)
    tx_nchw = tx.permute(0, 3, 1, 2) if nhwc else tx
    w, tw = pair(arr(3, low=0.5, high=1.5))
    b, tb = pair(arr(3))
    rm0, rv0 = arr(3), arr(3, low=0.5, high=1.5)
    rm, rv = oar.to_tensor(rm0), oar.to_tensor(rv0)
    trm, trv = torch.tensor(rm0), torch.tensor(rv0)
    o = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.9, data_format=data_format)
    t = TF.batch_norm(tx_nchw, trm, trv, tw, tb, training=True, momentum=0.1)
    if data_format == "NHWC":
        t = t.permute(0, 2, 3, 1)
    close(o, t)
    grads(o, [x, w, b], t, [tx, tw, tb])
    close(rm, trm)  # Paddle's momentum 0.9 is torch's 0.1
    # Paddle updates the running variance with the biased batch variance
    batch_var = xv_t.transpose(1, 0, 2, 3).reshape(3, -1).var(axis=1)
    np.testing.assert_allclose(rv.numpy(), 0.9 * rv0 + 0.1 * batch_var, rtol=1e-12)
    # inference uses the running statistics
    o = F.batch_norm(x, rm, rv, w, b, training=False, data_format=data_format)
    t = TF.batch_norm(tx_nchw, torch.tensor(rm.numpy()), torch.tensor(rv.numpy()), tw, tb,
                      training=False)
    if data_format == "NHWC":
        t = t.permute(0, 2, 3, 1)
    close(o, t)


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC", "NC"])
def test_batch_norm_eval_is_one_op_differentiable_in_every_input(data_format):
    # eval batch norm is batch_norm_infer, one op; its gradients (x, weight, bias and
    # running statistics that require them) match torch's of the same formula, twice.
    shape = {"NCHW": (3, 4, 2, 5), "NHWC": (3, 2, 5, 4), "NC": (6, 4)}[data_format]
    ax = 3 if data_format == "NHWC" else 1
    x, tx = pair(arr(*shape))
    w, tw = pair(arr(4, low=0.5, high=1.5))
    b, tb = pair(arr(4))
    rm, trm = pair(arr(4))
    rv, trv = pair(arr(4, low=0.5, high=1.5))
    o = F.batch_norm(x, rm, rv, w, b, training=False, epsilon=1e-3, data_format=data_format)
    assert o.grad_fn.forward_op == "batch_norm_infer"
    # straight from the leaves: no reshape or arithmetic on the [C] tensors in between
    assert {n.name() for n, _ in o.grad_fn.next_functions} == {"GradNodeAccumulation"}
    sh = [1] * len(shape)
    sh[ax] = 4
    t = (tx - trm.reshape(sh)) / (trv.reshape(sh) + 1e-3).sqrt() * tw.reshape(sh) + tb.reshape(sh)
    close(o, t)
    grads(o, [x, w, b, rm, rv], t, [tx, tw, tb, trm, trv])
    # without weight and bias, and with use_global_stats in training
    o = F.batch_norm(x, rm, rv, training=True, use_global_stats=True, data_format=data_format)
    close(o, (tx - trm.reshape(sh)) / (trv.reshape(sh) + 1e-5).sqrt())


def test_batch_norm_eval_under_auto_cast_runs_in_float32():
    x = oar.to_tensor(arr(2, 3, 4, 4, dtype=np.float32)).astype("bfloat16")
    rm = oar.to_tensor(arr(3, dtype=np.float32))
    rv = oar.to_tensor(arr(3, low=0.5, high=1.5, dtype=np.float32))
    with oar.amp.auto_cast(dtype="bfloat16"):
        o = F.batch_norm(x, rm, rv, training=False)
    assert o.dtype == oar.float32
    xv = x.astype("float32").numpy()
    want = (xv - rm.numpy().reshape(1, 3, 1, 1)) / np.sqrt(rv.numpy().reshape(1, 3, 1, 1) + 1e-5)
    np.testing.assert_allclose(o.numpy(), want, rtol=1e-6, atol=1e-6)
    # outside auto_cast: the promoted dtype of x and the statistics (float32 here)
    assert F.batch_norm(x, rm, rv, training=False).dtype == oar.float32
    xb = x
    rmb, rvb = rm.astype("bfloat16"), rv.astype("bfloat16")
    assert F.batch_norm(xb, rmb, rvb, training=False).dtype == oar.bfloat16


def test_max_pool_without_gradient_is_the_values_op():
    # without a gradient wanted, max pooling is max_pool (no index tensor): the same
    # values as the index path, NaN taking over its window
    xv = arr(2, 3, 9, 8)
    xv[0, 1, 4, 4] = np.nan
    x, tx = pair(xv)
    for kw in [dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=2),
               dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)]:
        with oar.no_grad():
            o = F.max_pool2d(x, **kw)
        t = TF.max_pool2d(tx, **kw)
        close(o, t)
        close(F.max_pool2d(x, **kw), t)
    o = F.max_pool2d(oar.to_tensor(xv), 3, 2, 1)  # stop_gradient: max_pool
    close(o, TF.max_pool2d(tx, 3, 2, 1))
    # max_pool itself is differentiable (its backward recomputes the index)
    xd, txd = pair(arr(1, 2, 7, 6))
    o = oar._C.max_pool(xd, [3, 3], [2, 2], [1, 1, 1, 1], False, False)
    grads(o, [xd], TF.max_pool2d(txd, 3, 2, 1), [txd])


def test_instance_and_group_norm():
    x, tx = pair(arr(2, 6, 3, 4))
    w, tw = pair(arr(6))
    b, tb = pair(arr(6))
    o = F.instance_norm(x, weight=w, bias=b)
    t = TF.instance_norm(tx, weight=tw, bias=tb)
    close(o, t)
    grads(o, [x, w, b], t, [tx, tw, tb])
    o = F.group_norm(x, 3, weight=w, bias=b)
    t = TF.group_norm(tx, 3, tw, tb)
    close(o, t)
    grads(o, [x, w, b], t, [tx, tw, tb])
    xl = oar.to_tensor(np.ascontiguousarray(x.numpy().transpose(0, 2, 3, 1)))
    o = F.group_norm(xl, 2, data_format="NHWC")
    close(o, TF.group_norm(tx, 2).permute(0, 2, 3, 1))


@pytest.mark.parametrize("p", [1, 2, 3])
def test_normalize_cosine_pairwise(p):
    x, tx = pair(arr(3, 4))
    y, ty = pair(arr(3, 4))
    o = F.normalize(x, p=p, axis=1)
    t = TF.normalize(tx, p=p, dim=1)
    close(o, t)
    grads(o, [x], t, [tx])
    o = F.pairwise_distance(x, y, p=p)
    t = TF.pairwise_distance(tx, ty, p=p)
    close(o, t)
    grads(o, [x, y], t, [tx, ty])
    o = F.cosine_similarity(x, y, axis=1)
    t = TF.cosine_similarity(tx, ty, dim=1)
    close(o, t)
    grads(o, [x, y], t, [tx, ty])


# ---- linear, embedding, one_hot ---------------------------------------------------------


def test_linear_paddle_layout_with_and_without_bias():
    x, tx = pair(arr(2, 3, 4))
    w, tw = pair(arr(4, 5))
    b, tb = pair(arr(5))
    o = F.linear(x, w, b)
    t = TF.linear(tx, tw.T, tb)
    close(o, t)
    grads(o, [x, w, b], t, [tx, tw, tb])
    close(F.linear(x, w), TF.linear(tx, tw.T))
    xf = oar.to_tensor(arr(64, 32, dtype=np.float32))
    wf = oar.to_tensor(arr(32, 16, dtype=np.float32))
    bf = oar.to_tensor(arr(16, dtype=np.float32))
    np.testing.assert_allclose(F.linear(xf, wf, bf).numpy(),
                               xf.numpy() @ wf.numpy() + bf.numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"linear\(\): argument 'weight' has shape \[3, 5\] "
                                         r"but x has 4 input features"):
        F.linear(x, oar.ones([3, 5], "float64"), oar.ones([5], "float64"))
    with pytest.raises(ValueError, match=r"linear\(\): argument 'bias' has shape \[4\]"):
        F.linear(x, w, oar.ones([4], "float64"))


def test_embedding_padding_idx():
    wv = arr(5, 3)
    w, tw = pair(wv)
    ids, tids = labels([[0, 2, 4], [2, 1, 2]])
    o = F.embedding(ids, w, padding_idx=2)
    assert np.all(o.numpy()[0, 1] == 0)  # Paddle: zeros at padding_idx
    t = TF.embedding(tids, tw) * (tids != 2).unsqueeze(-1)
    close(o, t)
    grads(o, [w], t, [tw])
    (g,) = oar.grad([o.sum()], [w])
    assert np.all(g.numpy()[2] == 0)
    close(F.embedding(ids, w, padding_idx=-3), t)  # -3 wraps to 2
    with pytest.raises(IndexError, match=r"embedding\(\): argument 'x' holds id 5"):
        F.embedding(oar.to_tensor(np.array([5])), w)
    with pytest.raises(TypeError, match=r"embedding\(\): argument 'x' must be an int32 or int64"):
        F.embedding(oar.ones([2]), w)
    with pytest.raises(ValueError, match=r"embedding\(\): argument 'padding_idx' \(5\)"):
        F.embedding(ids, w, padding_idx=5)


def test_one_hot():
    ids = oar.to_tensor(np.array([[0, 2], [1, 1]]))
    o = F.one_hot(ids, 3)
    assert o.dtype == oar.float32 and o.shape == [2, 2, 3]
    np.testing.assert_array_equal(o.numpy(), np.eye(3, dtype=np.float32)[ids.numpy()])
    with pytest.raises(IndexError, match=r"one_hot\(\): argument 'x' holds 2, out of range \[0, 2\)"):
        F.one_hot(ids, 2)
    with pytest.raises(ValueError, match=r"one_hot\(\): argument 'num_classes' \(0\)"):
        F.one_hot(ids, 0)
    with pytest.raises(TypeError, match=r"one_hot\(\): argument 'x' must be an int32 or int64"):
        F.one_hot(oar.ones([2]), 3)


# ---- dropout ----------------------------------------------------------------------------


def test_dropout_statistics_scale_and_seed():
    x = oar.ones([200, 500])
    oar.seed(7)
    a = F.dropout(x, p=0.3)
    v = a.numpy()
    kept = (v != 0).mean()
    # 100000 Bernoulli(0.7) draws: sd of the fraction is 0.0014; 5 sd
    assert abs(kept - 0.7) < 0.0075
    np.testing.assert_allclose(v[v != 0], 1.0 / 0.7, rtol=1e-6)
    oar.seed(7)
    np.testing.assert_array_equal(F.dropout(x, p=0.3).numpy(), v)
    assert not np.array_equal(F.dropout(x, p=0.3).numpy(), v)


def test_dropout_modes_axis_and_gradient():
    x, _ = pair(arr(50, 40) + 3.0)
    assert F.dropout(x, p=0.4, training=False) is x
    np.testing.assert_allclose(F.dropout(x, 0.4, training=False, mode="downscale_in_infer").numpy(),
                               x.numpy() * 0.6)
    y = F.dropout(x, 0.4, mode="downscale_in_infer")
    m = y.numpy() != 0
    np.testing.assert_allclose(y.numpy()[m], x.numpy()[m])
    (g,) = oar.grad([y.sum()], [x])
    np.testing.assert_array_equal(g.numpy(), m.astype(np.float64))
    z = F.dropout(x, 0.5, axis=0).numpy()
    rows = (z != 0)
    assert np.all(rows.all(1) | (~rows).all(1))  # whole rows kept or dropped
    assert np.all(F.dropout(x, 1.0).numpy() == 0)
    c = F.dropout2d(oar.ones([8, 16, 3, 3]), 0.5).numpy()
    per_channel = c.reshape(8, 16, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1))


def test_alpha_dropout_keeps_mean_and_variance():
    oar.seed(3)
    x = oar.to_tensor(np.random.default_rng(0).standard_normal(200000))
    y = F.alpha_dropout(x, p=0.2).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1.0) < 0.02
    assert F.alpha_dropout(x, 0.2, training=False) is x


def test_dropout_errors():
    x = oar.ones([2, 3])
    with pytest.raises(ValueError, match=r"dropout\(\): argument 'p' \(1.5\) must be in \[0, 1\]"):
        F.dropout(x, 1.5)
    with pytest.raises(ValueError, match=r"dropout\(\): argument 'mode' must be"):
        F.dropout(x, 0.5, mode="scale")
    with pytest.raises(ValueError, match=r"dropout2d\(\): argument 'data_format' must be one of"):
        F.dropout2d(oar.ones([1, 2, 3, 3]), data_format="NCL")
    with pytest.raises(ValueError, match=r"dropout2d\(\): argument 'x' must be 4-D"):
        F.dropout2d(x)


# ---- interpolate, pixel_shuffle, unfold / fold, attention -------------------------------


@pytest.mark.parametrize("mode,shape,size,align", [
    ("nearest", (2, 3, 4, 5), (7, 3), False),
    ("bilinear", (2, 3, 4, 5), (7, 3), False),
    ("bilinear", (1, 2, 4, 5), (8, 9), True),
    ("bicubic", (1, 2, 4, 5), (7, 8), False),
    ("bicubic", (1, 2, 4, 5), (3, 9), True),
    ("linear", (2, 3, 6), (11,), False),
    ("trilinear", (1, 2, 3, 4, 5), (5, 3, 7), True),
    ("nearest", (2, 3, 6), (13,), False),
    ("area", (2, 3, 7, 5), (3, 2), False),
    ("area", (1, 2, 4, 6), (4, 3), False),
    ("area", (1, 2, 5), (3,), False),
])
def test_interpolate_size(mode, shape, size, align):
    x, tx = pair(arr(*shape))
    kw = {} if mode in ("nearest", "area") else {"align_corners": align}
    o = F.interpolate(x, size=list(size), mode=mode, **kw)
    t = TF.interpolate(tx, size=size, mode=mode, **kw)
    close(o, t)
    grads(o, [x], t, [tx], second=False)


def test_interpolate_scale_factor_and_channels_last():
    x, tx = pair(arr(1, 2, 4, 6))
    o = F.interpolate(x, scale_factor=1.5, mode="bilinear")
    t = TF.interpolate(tx, scale_factor=1.5, mode="bilinear")
    close(o, t)
    o = F.upsample(x, scale_factor=[2, 0.5], mode="nearest")
    close(o, TF.interpolate(tx, scale_factor=(2, 0.5), mode="nearest"))
    xl = oar.to_tensor(np.ascontiguousarray(x.numpy().transpose(0, 2, 3, 1)))
    o = F.interpolate(xl, size=[5, 7], mode="bilinear", data_format="NHWC")
    close(o, TF.interpolate(tx, size=(5, 7), mode="bilinear").permute(0, 2, 3, 1))


def test_interpolate_errors():
    x = oar.ones([1, 2, 4, 4])
    with pytest.raises(ValueError, match=r"interpolate\(\): argument 'mode' must be one of"):
        F.interpolate(x, size=[2, 2], mode="cubic")
    with pytest.raises(ValueError, match=r"interpolate\(\): argument 'data_format' must be one "
                                         r"of 'NCHW', 'NHWC'"):
        F.interpolate(x, size=[2, 2], data_format="NCW")
    with pytest.raises(ValueError, match=r"interpolate\(\): exactly one of 'size' and "
                                         r"'scale_factor'"):
        F.interpolate(x)
    with pytest.raises(ValueError, match=r"interpolate\(\): mode 'trilinear' takes a 5-D x"):
        F.interpolate(x, size=[2, 2], mode="trilinear")


def test_pixel_shuffle_roundtrip():
    x, tx = pair(arr(2, 8, 3, 4))
    o = F.pixel_shuffle(x, 2)
    t = TF.pixel_shuffle(tx, 2)
    close(o, t)
    grads(o, [x], t, [tx], second=False)
    close(F.pixel_unshuffle(o, 2), tx)
    xl = oar.to_tensor(np.ascontiguousarray(x.numpy().transpose(0, 2, 3, 1)))
    close(F.pixel_shuffle(xl, 2, data_format="NHWC"), t.permute(0, 2, 3, 1))
    with pytest.raises(ValueError, match=r"pixel_shuffle\(\): argument 'upscale_factor' \(3\)"):
        F.pixel_shuffle(x, 3)


@pytest.mark.parametrize("k,s,p,d", [(2, 1, 0, 1), ([3, 2], [2, 1], [1, 0], [1, 2]),
                                     (3, 2, [1, 2, 0, 1], 1)])
def test_unfold_fold(k, s, p, d):
    x, tx = pair(arr(2, 3, 7, 6))
    o = F.unfold(x, k, s, p, d)
    tp = p
    if isinstance(p, list) and len(p) == 4:  # torch pads symmetrically only: pad first
        tx_in = TF.pad(tx, (p[1], p[3], p[0], p[2]))
        tp = 0
    else:
        tx_in = tx
    t = TF.unfold(tx_in, k, dilation=d, padding=tp, stride=s)
    close(o, t)
    grads(o, [x], t, [tx], second=False)
    if not (isinstance(p, list) and len(p) == 4):
        y, ty = pair(t.detach().numpy())
        o2 = F.fold(y, [7, 6], k, s, p, d)
        t2 = TF.fold(ty, (7, 6), k, dilation=d, padding=p, stride=s)
        close(o2, t2)
        grads(o2, [y], t2, [ty], second=False)


@pytest.mark.parametrize("causal", [False, True])
def test_scaled_dot_product_attention_paddle_layout(causal):
    q, tq = pair(arr(2, 5, 3, 4))  # [batch, seq, heads, dim]
    k, tk = pair(arr(2, 6, 3, 4))
    v, tv = pair(arr(2, 6, 3, 4))
    o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    t = TF.scaled_dot_product_attention(tq.transpose(1, 2), tk.transpose(1, 2),
                                        tv.transpose(1, 2), is_causal=causal).transpose(1, 2)
    close(o, t)
    grads(o, [q, k, v], t, [tq, tk, tv], second=False)  # torch: no double grad here
    mask = arr(5, 6)
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=oar.to_tensor(mask))
    t = TF.scaled_dot_product_attention(tq.transpose(1, 2), tk.transpose(1, 2),
                                        tv.transpose(1, 2),
                                        attn_mask=torch.tensor(mask)).transpose(1, 2)
    close(o, t)
    bmask = mask > -0.5
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=oar.to_tensor(bmask))
    t = TF.scaled_dot_product_attention(tq.transpose(1, 2), tk.transpose(1, 2),
                                        tv.transpose(1, 2),
                                        attn_mask=torch.tensor(bmask)).transpose(1, 2)
    close(o, t)
    with pytest.raises(ValueError, match=r"scaled_dot_product_attention\(\): incompatible "
                                         r"shapes"):
        F.scaled_dot_product_attention(q, oar.ones([2, 6, 3, 5], "float64"), v)


def run(o_fn, t_fn, *arrays, second=True, rtol=1e-8, atol=1e-10):
    """o_fn and t_fn on the same float64 inputs: values and gradients agree."""
    pairs = [pair(a) for a in arrays]
    o = o_fn(*[p[0] for p in pairs])
    t = t_fn(*[p[1] for p in pairs])
    close(o, t, rtol, atol)
    grads(o, [p[0] for p in pairs], t, [p[1] for p in pairs], rtol, atol, second=second)
    return o


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


T = torch.tensor


def t(a, grad=False):
    return oar.to_tensor(a, stop_gradient=not grad)


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
