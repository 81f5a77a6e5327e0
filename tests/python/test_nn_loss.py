"""Losses of oar.nn.functional and oar.nn: margin and ranking losses, the likelihood
losses, CTC and RNN-T, the hierarchical sigmoid, the adaptive softmax and
margin_cross_entropy. Values and gradients against torch.nn.functional (or a numpy
statement of Paddle's definition where torch has no such loss; for margin_cross_entropy
closed forms and Paddle's documented example), their layer forms, and their typed
errors. cross_entropy, nll_loss, mse/l1 and the binary cross-entropy family:
test_nn_functional.py."""
import re
import types

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import oar
import oar.nn as nn
import oar.nn.functional as F
from test_nn_functional import arr, close, pair, run

REDUCTIONS = ["none", "mean", "sum"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_pairwise_margin_losses(reduction):
    x = arr(4, 5)
    sign = np.where(arr(4, 5) > 0, 1.0, -1.0)
    run(lambda a: F.hinge_embedding_loss(a, oar.to_tensor(sign), 0.7, reduction),
        lambda a: TF.hinge_embedding_loss(a, torch.tensor(sign), 0.7, reduction=reduction), x)
    run(lambda a: F.soft_margin_loss(a, oar.to_tensor(sign.astype(np.int64)), reduction),
        lambda a: TF.soft_margin_loss(a, torch.tensor(sign), reduction=reduction), x)
    w = arr(5, low=0.1, high=1)
    run(lambda a: F.multi_label_soft_margin_loss(a, oar.to_tensor((sign > 0) * 1.0),
                                                 oar.to_tensor(w), reduction),
        lambda a: TF.multilabel_soft_margin_loss(a, torch.tensor((sign > 0) * 1.0),
                                                 torch.tensor(w), reduction=reduction), x)


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multi_margin_loss(p, reduction):
    x, lab, w = arr(5, 4), np.array([0, 3, 1, 1, 2]), arr(4, low=0.1, high=2)
    run(lambda a: F.multi_margin_loss(a, oar.to_tensor(lab), p, 0.8, oar.to_tensor(w),
                                      reduction),
        lambda a: TF.multi_margin_loss(a, torch.tensor(lab), p, 0.8, torch.tensor(w),
                                       reduction=reduction), x, second=False)
    with pytest.raises(IndexError, match="label"):
        F.multi_margin_loss(oar.to_tensor(x), oar.to_tensor(lab + 4))
    with pytest.raises(TypeError, match="label"):
        F.multi_margin_loss(oar.to_tensor(x), oar.to_tensor(lab * 1.0))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multi_label_margin_loss(reduction):
    x = arr(3, 5)
    lab = np.array([[3, 0, -1, 2, 2], [1, 1, 4, 0, 2], [-1, 0, 0, 0, 0]])
    run(lambda a: F.multi_label_margin_loss(a, oar.to_tensor(lab), reduction),
        lambda a: TF.multilabel_margin_loss(a, torch.tensor(lab), reduction=reduction), x,
        second=False)
    with pytest.raises(IndexError, match="label"):
        F.multi_label_margin_loss(oar.to_tensor(x), oar.to_tensor(lab + 9))


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_losses(swap, reduction):
    a, p, n = arr(4, 3), arr(4, 3), arr(4, 3)
    run(lambda x, y, z: F.triplet_margin_loss(x, y, z, 0.5, 1.5, 1e-6, swap, reduction),
        lambda x, y, z: TF.triplet_margin_loss(x, y, z, 0.5, 1.5, 1e-6, swap,
                                               reduction=reduction), a, p, n)
    run(lambda x, y, z: F.triplet_margin_with_distance_loss(x, y, z, margin=0.5, swap=swap,
                                                            reduction=reduction),
        lambda x, y, z: TF.triplet_margin_with_distance_loss(x, y, z, margin=0.5, swap=swap,
                                                             reduction=reduction), a, p, n)
    cos = F.triplet_margin_with_distance_loss(
        oar.to_tensor(a), oar.to_tensor(p), oar.to_tensor(n),
        distance_function=lambda u, v: 1.0 - F.cosine_similarity(u, v, axis=-1),
        reduction=reduction)
    close(cos, TF.triplet_margin_with_distance_loss(
        torch.tensor(a), torch.tensor(p), torch.tensor(n),
        distance_function=lambda u, v: 1.0 - TF.cosine_similarity(u, v, dim=-1),
        reduction=reduction))
    with pytest.raises(ValueError, match="margin"):
        F.triplet_margin_with_distance_loss(oar.to_tensor(a), oar.to_tensor(p),
                                            oar.to_tensor(n), margin=-1.0)


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_losses(full, reduction):
    x, y = arr(4, 3), arr(4, 3)
    var = arr(4, 3, low=0.1, high=2.0)
    var[0, 0] = 1e-9  # below epsilon: clamped, the gradient passes as the identity
    run(lambda a, b, v: F.gaussian_nll_loss(a, b, v, full, 1e-6, reduction),
        lambda a, b, v: TF.gaussian_nll_loss(a, b, v, full, 1e-6, reduction), x, y, var)
    run(lambda a, v: F.gaussian_nll_loss(a, oar.to_tensor(y), v, full, 1e-6, reduction),
        lambda a, v: TF.gaussian_nll_loss(a, torch.tensor(y), v, full, 1e-6, reduction),
        x, var[:, :1])
    counts = np.array([[0.0, 1.0, 3.0], [2.0, 5.0, 0.5], [1.0, 1.0, 4.0], [0.0, 7.0, 2.0]])
    run(lambda a: F.poisson_nll_loss(a, oar.to_tensor(counts), True, full, 1e-8, reduction),
        lambda a: TF.poisson_nll_loss(a, torch.tensor(counts), True, full, eps=1e-8,
                                      reduction=reduction), x)
    rate = arr(4, 3, low=0.2, high=3)
    run(lambda a: F.poisson_nll_loss(a, oar.to_tensor(counts), False, full, 1e-8, reduction),
        lambda a: TF.poisson_nll_loss(a, torch.tensor(counts), False, full, eps=1e-8,
                                      reduction=reduction), rate)
    with pytest.raises(ValueError, match="variance"):
        F.gaussian_nll_loss(oar.to_tensor(x), oar.to_tensor(y), oar.to_tensor(var[:2]))
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(oar.to_tensor(x), oar.to_tensor(y), oar.to_tensor(-var))


def test_elementwise_losses():
    p, y = arr(6, 1, low=0.05, high=0.95), arr(6, 1, low=0, high=1)
    run(lambda a: F.log_loss(a, oar.to_tensor(y)),
        lambda a: -torch.tensor(y) * torch.log(a + 1e-4)
        - (1 - torch.tensor(y)) * torch.log(1 - a + 1e-4), p)
    run(lambda a: F.square_error_cost(a, oar.to_tensor(y)), lambda a: (a - torch.tensor(y)) ** 2,
        p)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_sigmoid_focal_loss(reduction):
    logit, lab = arr(3, 4, low=-3, high=3), (arr(3, 4) > 0) * 1.0
    norm = np.array(2.5)

    def ref(a, label=torch.tensor(lab)):
        p = torch.sigmoid(a)
        ce = TF.binary_cross_entropy_with_logits(a, label, reduction="none")
        p_t = p * label + (1 - p) * (1 - label)
        loss = (0.25 * label + 0.75 * (1 - label)) * ce * (1 - p_t) ** 2.0 / 2.5
        return {"none": loss, "mean": loss.mean(), "sum": loss.sum()}[reduction]
    run(lambda a: F.sigmoid_focal_loss(a, oar.to_tensor(lab), oar.to_tensor(norm),
                                       reduction=reduction), ref, logit)


def test_dice_and_npair_loss():
    probs = np.exp(arr(2, 3, 4, 3))
    probs /= probs.sum(-1, keepdims=True)
    lab = np.random.default_rng(0).integers(0, 3, (2, 3, 4, 1))

    def dice_ref(a):
        oh = TF.one_hot(torch.tensor(lab[..., 0]), 3).double()
        inter = (a * oh).sum([1, 2, 3])
        return (1 - 2 * inter / (a.sum([1, 2, 3]) + oh.sum([1, 2, 3]) + 1e-5)).mean()
    run(lambda a: F.dice_loss(a, oar.to_tensor(lab)), dice_ref, probs)
    anchor, positive = arr(6, 4), arr(6, 4)
    labels = np.array([1.0, 2.0, 1.0, 3.0, 2.0, 1.0])

    def npair_ref(a, p):
        same = torch.tensor((labels[:, None] == labels[None, :]) * 1.0)
        target = same / same.sum(1, keepdim=True)
        ce = -(target * torch.log_softmax(a @ p.T, 1)).sum(1).mean()
        l2 = (a * a).sum(1).mean() + (p * p).sum(1).mean()
        return 0.25 * 0.002 * l2 + ce
    run(lambda a, p: F.npair_loss(a, p, oar.to_tensor(labels)), npair_ref, anchor, positive)
    with pytest.raises(ValueError, match="label"):
        F.dice_loss(oar.to_tensor(probs), oar.to_tensor(lab[..., :2, :]))


def test_ctc_loss_matches_torch():
    rng = np.random.default_rng(7)
    t, b, c = 10, 4, 6
    x = rng.normal(size=(t, b, c))
    lab = rng.integers(1, c, (b, 4))
    lab[0, 1] = lab[0, 0]  # a repeated label needs a blank between
    in_len, lab_len = np.array([10, 8, 6, 3]), np.array([4, 3, 0, 2])
    args = lambda f: (f(lab), f(in_len), f(lab_len))  # noqa: E731
    for reduction in REDUCTIONS:
        run(lambda a: F.ctc_loss(a, *args(oar.to_tensor), reduction=reduction),
            lambda a: TF.ctc_loss(a.log_softmax(-1), *args(torch.tensor), reduction=reduction),
            x, second=False)
    # norm_by_times: the same value, the gradient divided by each input length
    xo = oar.to_tensor(x, stop_gradient=False)
    F.ctc_loss(xo, *args(oar.to_tensor), reduction="sum", norm_by_times=True).backward()
    xt = torch.tensor(x, requires_grad=True)
    TF.ctc_loss(xt.log_softmax(-1), *args(torch.tensor), reduction="sum").backward()
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy() / in_len[None, :, None],
                               atol=1e-12)
    layer = nn.CTCLoss(blank=0, reduction="none")
    close(layer(oar.to_tensor(x), *args(oar.to_tensor)),
          TF.ctc_loss(torch.tensor(x).log_softmax(-1), *args(torch.tensor), reduction="none"))


def test_ctc_loss_second_order_matches_finite_differences():
    # the recursion is made of differentiable ops: the gradient has a gradient
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4, 1, 3))
    lab, il, ll = (oar.to_tensor(np.array(v)) for v in ([[1, 2]], [4], [2]))
    v = rng.normal(size=x.shape)

    def directional(values):
        xo = oar.to_tensor(values, stop_gradient=False)
        (g,) = oar.grad([F.ctc_loss(xo, lab, il, ll, reduction="sum")], [xo], create_graph=True)
        return (g * oar.to_tensor(v)).sum(), xo
    d, xo = directional(x)
    (h,) = oar.grad([d], [xo])
    eps = 1e-5
    for idx in [(0, 0, 0), (1, 0, 2), (3, 0, 1)]:
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        num = (directional(hi)[0].item() - directional(lo)[0].item()) / (2 * eps)
        assert abs(num - h.numpy()[idx]) < 1e-7


def test_ctc_loss_impossible_and_errors():
    x = oar.to_tensor(np.zeros((2, 1, 4)))
    lab, il = oar.to_tensor(np.array([[1, 1, 2]])), oar.to_tensor(np.array([2]))
    ll = oar.to_tensor(np.array([3]))
    assert np.isinf(F.ctc_loss(x, lab, il, ll, reduction="none").numpy()).all()
    assert F.ctc_loss(x, lab, il, ll, reduction="sum", zero_infinity=True).item() == 0.0
    with pytest.raises(ValueError, match="blank"):
        F.ctc_loss(x, lab, il, ll, blank=4)
    with pytest.raises(ValueError, match="labels"):
        F.ctc_loss(x, oar.to_tensor(np.array([[0, 1, 2]])), il, ll)
    with pytest.raises(ValueError, match="input_lengths"):
        F.ctc_loss(x, lab, oar.to_tensor(np.array([3])), ll)


def _rnnt_ref(lp, labels, t_len, u_len, blank=0):
    alpha = np.full((t_len, u_len + 1), -np.inf)
    alpha[0, 0] = 0.0
    for t in range(t_len):
        for u in range(u_len + 1):
            terms = []
            if t > 0:
                terms.append(alpha[t - 1, u] + lp[t - 1, u, blank])
            if u > 0:
                terms.append(alpha[t, u - 1] + lp[t, u - 1, labels[u - 1]])
            if terms:
                alpha[t, u] = np.logaddexp.reduce(terms)
    return -(alpha[t_len - 1, u_len] + lp[t_len - 1, u_len, blank])


def test_rnnt_loss():
    rng = np.random.default_rng(3)
    b, t, u, v = 3, 5, 3, 5
    x = rng.normal(size=(b, t, u + 1, v))
    lab = rng.integers(1, v, (b, u)).astype(np.int32)
    in_len, lab_len = np.array([5, 3, 1], np.int32), np.array([3, 1, 0], np.int32)
    xo = oar.to_tensor(x, stop_gradient=False)
    loss = F.rnnt_loss(xo, oar.to_tensor(lab), oar.to_tensor(in_len), oar.to_tensor(lab_len),
                       fastemit_lambda=0.0, reduction="none")
    want = [_rnnt_ref(x[i], lab[i], in_len[i], lab_len[i]) for i in range(b)]
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-12)
    loss.sum().backward()
    eps, g = 1e-6, xo.grad.numpy()
    for idx in [(0, 0, 0, 0), (0, 1, 1, lab[0, 1]), (1, 2, 1, 0), (2, 0, 0, 0), (0, 4, 3, 0)]:
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        num = sum(_rnnt_ref(hi[i], lab[i], in_len[i], lab_len[i]) -
                  _rnnt_ref(lo[i], lab[i], in_len[i], lab_len[i]) for i in range(b)) / (2 * eps)
        assert abs(num - g[idx]) < 1e-7
    # FastEmit: the same value, the label emissions' gradient times 1 + lambda
    xo2 = oar.to_tensor(x, stop_gradient=False)
    fast = F.rnnt_loss(xo2, oar.to_tensor(lab), oar.to_tensor(in_len), oar.to_tensor(lab_len),
                       fastemit_lambda=0.5, reduction="sum")
    np.testing.assert_allclose(fast.item(), sum(want))
    fast.backward()
    emit_pos = (0, 1, 1, lab[0, 1])
    np.testing.assert_allclose(xo2.grad.numpy()[emit_pos], 1.5 * g[emit_pos])
    np.testing.assert_allclose(xo2.grad.numpy()[0, :, :, 0], g[0, :, :, 0])
    layer = nn.RNNTLoss(fastemit_lambda=0.0)
    np.testing.assert_allclose(layer(oar.to_tensor(x), oar.to_tensor(lab),
                                     oar.to_tensor(in_len), oar.to_tensor(lab_len)).item(),
                               sum(want) / b)
    with pytest.raises(ValueError, match="label_lengths"):
        F.rnnt_loss(oar.to_tensor(x), oar.to_tensor(lab), oar.to_tensor(in_len),
                    oar.to_tensor(np.array([4, 1, 0], np.int32)))


def _hsigmoid_ref(x, lab, k, w, b):
    """Paddle's kernel: heap paths, pre-activations clipped to [-40, 40], softplus summed
    over all code_length slots (unused slots add log 2), minus the branch-bit terms."""
    length = (k - 1).bit_length()
    out = []
    for n, c in enumerate(lab):
        code = int(c) + k
        pre = np.zeros(length)
        bits = np.zeros(length)
        for j in range(code.bit_length() - 1):
            node = (code >> (j + 1)) - 1
            pre[j] = np.clip(x[n] @ w[node] + b[node, 0], -40, 40)
            bits[j] = (code >> j) & 1
        out.append(np.log1p(np.exp(pre)).sum() - (bits * pre).sum())
    return np.array(out)[:, None]


def test_hsigmoid_loss():
    x, w, b = arr(4, 3), arr(5, 3), arr(5, 1)
    lab = np.array([0, 1, 4, 5])
    o = F.hsigmoid_loss(oar.to_tensor(x), oar.to_tensor(lab), 6, oar.to_tensor(w),
                        oar.to_tensor(b))
    np.testing.assert_allclose(o.numpy(), _hsigmoid_ref(x, lab, 6, w, b), rtol=1e-12)
    # gradient: torch autograd through the same formula
    tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (x, w, b))
    ox, ow, ob = (oar.to_tensor(v, stop_gradient=False) for v in (x, w, b))
    F.hsigmoid_loss(ox, oar.to_tensor(lab), 6, ow, ob).sum().backward()
    total = 0
    for n, c in enumerate(lab):
        code = int(c) + 6
        for j in range(code.bit_length() - 1):
            node = (code >> (j + 1)) - 1
            pre = tx[n] @ tw[node] + tb[node, 0]
            total = total + TF.softplus(pre) - ((code >> j) & 1) * pre
    total.backward()
    for a, t in ((ox, tx), (ow, tw), (ob, tb)):
        close(a.grad, t.grad)
    # a custom tree: the node ids and bits of each sample's path, -1 ending it
    table = np.array([[0, 2, -1], [1, -1, -1], [0, 1, 2], [2, 0, -1]])
    code = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 1], [1, 1, 0]])
    layer = nn.HSigmoidLoss(3, 3, is_custom=True)
    got = layer(oar.to_tensor(x), oar.to_tensor(lab), oar.to_tensor(table), oar.to_tensor(code))
    wl, bl = layer.weight.numpy(), layer.bias.numpy()
    want = []
    for n in range(4):
        pre = np.array([x[n] @ wl[i] + bl[i, 0] if i >= 0 else 0.0 for i in table[n]])
        want.append(np.log1p(np.exp(pre)).sum() - (code[n] * (table[n] >= 0) * pre).sum())
    np.testing.assert_allclose(got.numpy()[:, 0], want, rtol=1e-6)


def test_hsigmoid_loss_labels_from_num_classes_up():
    # Paddle 3.3.1's documented example: num_classes 5 (weight [4, 3]) and label 5,
    # whose default-tree path names node 4, past the weight. Its docstring prints the
    # values below, which the kernel gives when that node counts as a pre-activation of
    # 0 (log 2); measured there too, with the same gradients as oar's (Paddle's backward
    # then writes past the weight's gradient and aborts the process).
    x = np.array([[0.73167229, 0.04029441, -0.48078126],
                  [0.81050646, -0.15199822, -0.18717426],
                  [0.94041789, 0.48874724, 0.03570259],
                  [0.46585739, 0.95573163, -0.91368192]], np.float32)
    w = np.array([[-0.14721161, 0.43916738, -0.58377075],
                  [-0.60536981, -0.23151302, -0.70793629],
                  [-0.54572451, -0.10784978, -0.56684279],
                  [0.35370791, -0.07079649, 0.84765708]], np.float32)
    ox, ow = oar.to_tensor(x, stop_gradient=False), oar.to_tensor(w, stop_gradient=False)
    out = F.hsigmoid_loss(ox, oar.to_tensor([0, 1, 4, 5]), 5, ow)
    np.testing.assert_allclose(
        out.numpy()[:, 0], [2.23681736, 1.97140026, 1.66425037, 2.54727197], rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(ow.grad.numpy(), [  # measured on Paddle 3.3.1
        [0.7927326, 1.0285423, -0.7943795], [-0.29208902, -0.3035633, 0.68971956],
        [0.34099558, -0.06394856, -0.07874779], [-0.3937111, -0.2046167, -0.01494708]],
        rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ox.grad.numpy(), [
        [0.2390011, 0.36267874, 0.05412617], [-0.1531658, -0.2733862, 0.06460693],
        [-0.42355776, 0.17887673, -0.8885295], [0.17680675, 0.41828728, -0.0845634]],
        rtol=1e-5, atol=1e-6)
    # the rule in general: a node past the weight's rows adds log 2, with no weight or
    # bias; the rest of the path is used as for any label
    b = np.array([[0.1], [0.2], [0.3], [0.4]], np.float32)
    lab = np.array([5, 6, 9, 10])
    got = F.hsigmoid_loss(oar.to_tensor(x), oar.to_tensor(lab), 5, oar.to_tensor(w),
                          oar.to_tensor(b)).numpy()[:, 0]
    want = []
    for n, c in enumerate(lab + 5):
        total = 0.0
        for j in range(3):  # code_length of 5 classes
            node = (c >> (j + 1)) - 1
            pre = x[n] @ w[node] + b[node, 0] if j < int(c).bit_length() - 1 and node < 4 else 0
            total += np.log1p(np.exp(pre)) - ((c >> j) & 1) * pre
        want.append(total)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    # from 2 ** (code_length + 1) - num_classes on, a path is longer than code_length
    # (Paddle's kernel writes past its buffers): an error
    with pytest.raises(IndexError, match=r"outside \[0, 11\)"):
        F.hsigmoid_loss(oar.to_tensor(x), oar.to_tensor([0, 1, 4, 11]), 5, oar.to_tensor(w))
    with pytest.raises(IndexError, match="label"):
        F.hsigmoid_loss(oar.to_tensor(x), oar.to_tensor([0, 1, 4, -1]), 5, oar.to_tensor(w))
    # the layer follows the function
    layer = nn.HSigmoidLoss(3, 5)
    layer.weight.set_value(w)
    np.testing.assert_allclose(
        layer(oar.to_tensor(x), oar.to_tensor([0, 1, 4, 5])).numpy()[:, 0],
        [2.23681736, 1.97140026, 1.66425037, 2.54727197], rtol=1e-6)


def test_adaptive_log_softmax_matches_torch():
    torch.manual_seed(0)
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(6, 10, [3, 6], div_value=2.0, head_bias=True)
    t.double()
    layer = nn.AdaptiveLogSoftmaxWithLoss(6, 10, [3, 6], div_value=2.0, head_bias=True)
    with oar.no_grad():
        layer.head_weight.set_value(t.head.weight.detach().numpy().T)
        layer.head_bias.set_value(t.head.bias.detach().numpy())
        for (proj, out), tail in zip(layer.tail_weights, t.tail):
            proj.set_value(tail[0].weight.detach().numpy().T)
            out.set_value(tail[1].weight.detach().numpy().T)
    layer.to(dtype="float64")
    x = arr(7, 6)
    lab = np.array([0, 4, 9, 2, 6, 3, 8])
    xo, xt = pair(x)
    out, loss = layer(xo, oar.to_tensor(lab))
    tout = t(xt, torch.tensor(lab))
    close(out, tout.output)
    close(loss, tout.loss)
    loss.backward()
    tout.loss.backward()
    close(xo.grad, xt.grad)
    close(layer.head_weight.grad, t.head.weight.grad.T)
    close(layer.log_prob(oar.to_tensor(x)), t.log_prob(torch.tensor(x)))
    np.testing.assert_array_equal(layer.predict(oar.to_tensor(x)).numpy(),
                                  t.predict(torch.tensor(x)).numpy())
    with pytest.raises(ValueError, match="cutoffs"):
        nn.AdaptiveLogSoftmaxWithLoss(6, 10, [6, 3])


def test_loss_layers_wrap_the_functions():
    x, y = arr(3, 4), np.where(arr(3, 4) > 0, 1.0, -1.0)
    pairs = [(nn.HingeEmbeddingLoss(0.5, "sum"), F.hinge_embedding_loss, dict(margin=0.5,
                                                                              reduction="sum")),
             (nn.SoftMarginLoss("none"), F.soft_margin_loss, dict(reduction="none")),
             (nn.MultiLabelSoftMarginLoss(), F.multi_label_soft_margin_loss, {}),
             (nn.PoissonNLLLoss(full=True), F.poisson_nll_loss, dict(full=True))]
    for layer, fn, kw in pairs:
        np.testing.assert_allclose(layer(oar.to_tensor(x), oar.to_tensor(y)).numpy(),
                                   fn(oar.to_tensor(x), oar.to_tensor(y), **kw).numpy())
    assert nn.layer.loss.PoissonNLLLoss is nn.PoissonNLLLoss
    assert nn.HuberLoss is nn.SmoothL1Loss
    v = oar.to_tensor(arr(3, 4, low=0.5, high=1))
    np.testing.assert_allclose(
        nn.GaussianNLLLoss()(oar.to_tensor(x), oar.to_tensor(y), v).numpy(),
        F.gaussian_nll_loss(oar.to_tensor(x), oar.to_tensor(y), v).numpy())
    trip = [arr(3, 4) for _ in range(3)]
    close(nn.TripletMarginLoss(margin=0.3, swap=True)(*map(oar.to_tensor, trip)),
          TF.triplet_margin_loss(*map(torch.tensor, trip), margin=0.3, swap=True))
    with pytest.raises(ValueError, match="reduction"):
        nn.MultiMarginLoss(reduction="batchmean")


# ---- margin_cross_entropy ------------------------------------------------------------------
def f32(v):
    return float(np.float32(v))


def margin_reference(lg, lb, m1, m2, m3, s):
    """Loss per row, softmax, and Paddle's closed-form gradient of sum(loss) (its GPU
    kernel's formula), in numpy, with the margins rounded to float32 as Paddle's attrs."""
    m1, m2, m3, s = f32(m1), f32(m2), f32(m3), f32(s)
    rows = np.arange(len(lb))
    x = lg[rows, lb]
    active = abs(m1 - 1) > 1e-8 or abs(m2) > 1e-8
    tgt = np.cos(m1 * np.arccos(x) + m2) if active else x.copy()
    z = lg.copy()
    z[rows, lb] = tgt - m3
    z *= s
    z -= z.max(1, keepdims=True)
    sm = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    loss = -np.log(sm[rows, lb])
    grad = sm.copy()
    grad[rows, lb] -= 1
    if active:
        grad[rows, lb] *= m1 * np.sin(m1 * np.arccos(x) + m2) / np.sqrt(1 - x * x)
    return loss[:, None], sm, grad * s


def cosines(n, c, seed):
    rng = np.random.default_rng(seed)
    f, w = rng.standard_normal((n, 5)), rng.standard_normal((5, c))
    return (f / np.linalg.norm(f, axis=1, keepdims=True)) @ (w / np.linalg.norm(w, axis=0))


def test_margin_cross_entropy_matches_paddles_documented_example():
    # Paddle's docstring example (GPU, float64), logits printed to 8 decimals
    lg = oar.to_tensor([[-0.59561850, 0.32797505, 0.80279214, 0.00144975],
                        [-0.16265212, 0.84155098, 0.62008629, 0.79126072]], dtype="float64")
    loss, sm = F.margin_cross_entropy(lg, oar.to_tensor([1, 0]), return_softmax=True,
                                      reduction=None)
    np.testing.assert_allclose(loss.numpy(), [[61.94391901], [93.30853839]], atol=1e-5)
    np.testing.assert_allclose(sm.numpy(), [[0, 0, 1, 0],
                                            [0, 0.96152676, 0.00000067, 0.03847257]],
                               atol=1e-7)


@pytest.mark.parametrize("margins", [(1.0, 0.5, 0.0, 64.0), (1.0, 0.0, 0.35, 30.0),
                                     (1.35, 0.0, 0.0, 16.0), (0.9, 0.3, 0.05, 5.0)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none", None])
def test_margin_cross_entropy_values_and_gradient(margins, reduction):
    lg = cosines(6, 9, 7)
    lb = np.random.default_rng(8).integers(0, 9, 6)
    rl, rs, rg = margin_reference(lg, lb, *margins)
    x = oar.to_tensor(lg, stop_gradient=False)
    loss, sm = F.margin_cross_entropy(x, oar.to_tensor(lb), *margins, return_softmax=True,
                                      reduction=reduction)
    want = {"mean": rl.mean(), "sum": rl.sum()}.get(reduction, rl)
    assert loss.shape == ([] if reduction in ("mean", "sum") else [6, 1])
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(sm.numpy(), rs, atol=1e-13)
    loss.sum().backward()
    scale = 1.0 / 6 if reduction == "mean" else 1.0
    np.testing.assert_allclose(x.grad.numpy(), rg * scale, rtol=1e-9, atol=1e-12)


def test_margin_cross_entropy_rounds_the_margins_like_paddle():
    lg, lb = cosines(4, 5, 3), np.array([0, 4, 2, 2])
    got = F.margin_cross_entropy(oar.to_tensor(lg), oar.to_tensor(lb), margin2=0.35,
                                 reduction=None).numpy()
    np.testing.assert_allclose(got, margin_reference(lg, lb, 1.0, 0.35, 0.0, 64.0)[0],
                               rtol=1e-13)
    rows = np.arange(4)
    exact = lg.copy()
    exact[rows, lb] = np.cos(np.arccos(lg[rows, lb]) + 0.35)  # 0.35 not rounded
    z = 64 * exact
    exact_loss = np.log(np.exp(z).sum(1)) - z[rows, lb]
    assert np.abs(got[:, 0] - exact_loss).max() > 1e-8


def test_margin_cross_entropy_label_shapes_dtypes_and_groups():
    lg = oar.to_tensor(cosines(4, 3, 1).astype(np.float32))
    lb = [2, 0, 1, 1]
    base = F.margin_cross_entropy(lg, oar.to_tensor(lb)).numpy()
    col = F.margin_cross_entropy(lg, oar.to_tensor([[v] for v in lb], dtype="int32"))
    assert np.allclose(col.numpy(), base)
    half, sm = F.margin_cross_entropy(lg.astype("float16"), oar.to_tensor(lb),
                                      return_softmax=True)
    assert half.dtype == oar.float16 and sm.dtype == oar.float16
    assert abs(float(half.astype("float32")) - float(base)) < 1e-2 * abs(float(base))
    one_rank = types.SimpleNamespace(is_member=lambda: True, nranks=1)
    outsider = types.SimpleNamespace(is_member=lambda: False, nranks=2)
    for group in (False, one_rank):
        assert np.allclose(F.margin_cross_entropy(lg, oar.to_tensor(lb), group=group).numpy(),
                           base)
    assert F.margin_cross_entropy(lg, oar.to_tensor(lb), group=outsider) is None


@pytest.mark.parametrize("kwargs, err, what", [
    ({"reduction": "avg"}, ValueError, "argument 'reduction'"),
    ({"label": [1, 0]}, TypeError, "argument 'label'"),
    ({"label": np.array([1.0, 0.0])}, TypeError, "argument 'label'"),
    ({"label": np.array([1, 3])}, ValueError, "argument 'label' holds 3"),
    ({"label": np.array([-1, 0])}, ValueError, "argument 'label' holds -1"),
    ({"label": np.array([1, 0, 1])}, ValueError, "argument 'label' must have shape"),
    ({"logits": np.array([[1, 0], [0, 1]])}, TypeError, "argument 'logits'"),
    ({"logits": np.zeros((2, 0))}, ValueError, "argument 'logits'"),
    ({"margin1": "1"}, TypeError, "argument 'margin1'"),
    ({"group": "world"}, ValueError, "argument 'group'"),
    ({"group": types.SimpleNamespace(is_member=lambda: True, nranks=2)},
     NotImplementedError, "2 processes")])
def test_margin_cross_entropy_errors(kwargs, err, what):
    args = {"logits": oar.to_tensor([[0.6, 0.8], [1.0, 0.0]]), "label": oar.to_tensor([1, 0])}
    for k in ("logits", "label"):
        if isinstance(kwargs.get(k), np.ndarray):
            kwargs = {**kwargs, k: oar.to_tensor(kwargs[k])}
    args.update(kwargs)
    with pytest.raises(err, match=re.escape("margin_cross_entropy(): ") + ".*" + re.escape(what)):
        F.margin_cross_entropy(**args)
