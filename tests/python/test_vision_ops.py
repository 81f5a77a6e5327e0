"""oar.vision.ops against slow references written here (loops over boxes, bins and
samples), PyTorch (deform_conv2d through grid_sample) and hand-derived values; gradients
against finite differences or torch autograd."""
import math

import numpy as np
import pytest
import torch

import oar
from oar.vision import ops as O

RNG = np.random.default_rng(11)


def T(a, dtype="float64"):
    return oar.to_tensor(np.asarray(a).astype(dtype))


def _bilinear(plane, y, x):
    h, w = plane.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * plane[y0, x0] + (1 - ly) * lx * plane[y0, x1]
            + ly * (1 - lx) * plane[y1, x0] + ly * lx * plane[y1, x1])


def roi_align_ref(x, boxes, batch, ph, pw, scale, ratio, aligned):
    out = np.zeros((len(boxes), x.shape[1], ph, pw))
    off = 0.5 if aligned else 0.0
    for r, (b, n) in enumerate(zip(boxes, batch)):
        x1, y1, x2, y2 = b * scale - off
        bw, bh = x2 - x1, y2 - y1
        if not aligned:
            bw, bh = max(bw, 1.0), max(bh, 1.0)
        gy = ratio if ratio > 0 else math.ceil(bh / ph)
        gx = ratio if ratio > 0 else math.ceil(bw / pw)
        for c in range(x.shape[1]):
            for i in range(ph):
                for j in range(pw):
                    acc = sum(_bilinear(x[n, c], y1 + i * bh / ph + (sy + 0.5) * bh / ph / gy,
                                        x1 + j * bw / pw + (sx + 0.5) * bw / pw / gx)
                              for sy in range(gy) for sx in range(gx))
                    out[r, c, i, j] = acc / max(gy * gx, 1)
    return out


BOXES = np.array([[1.2, 2.3, 7.9, 9.1], [0.0, 0.0, 3.5, 4.2], [2.5, 1.5, 9.7, 11.3],
                  [4.0, 3.0, 4.4, 3.3]])
BATCH = np.array([0, 1, 1, 1])
NUM = T([1, 3], "int32")


@pytest.mark.parametrize("aligned,ratio", [(True, -1), (False, 2)])
def test_roi_align_against_loops_and_its_gradient(aligned, ratio):
    x = RNG.standard_normal((2, 3, 12, 10))
    got = O.roi_align(T(x), T(BOXES), NUM, (3, 2), 0.9, ratio, aligned).numpy()
    np.testing.assert_allclose(got, roi_align_ref(x, BOXES, BATCH, 3, 2, 0.9, ratio, aligned),
                               rtol=1e-10, atol=1e-12)
    # linear in x: the gradient is the reference applied to unit inputs, contracted with g
    xs = RNG.standard_normal((2, 1, 5, 4))
    g = RNG.standard_normal((4, 1, 2, 2))
    xt = T(xs)
    xt.stop_gradient = False
    (O.roi_align(xt, T(BOXES / 2), NUM, 2, 1.0, ratio, aligned) * T(g)).sum().backward()
    want = np.zeros(xs.size)
    for k in range(xs.size):
        e = np.zeros(xs.size)
        e[k] = 1.0
        want[k] = (roi_align_ref(e.reshape(xs.shape), BOXES / 2, BATCH, 2, 2, 1.0, ratio,
                                 aligned) * g).sum()
    np.testing.assert_allclose(xt.grad.numpy().reshape(-1), want, rtol=1e-10, atol=1e-12)
    assert O.RoIAlign((3, 2), 0.9)(T(x), T(BOXES), NUM).shape == [4, 3, 3, 2]


def test_roi_pool_and_psroi_pool_against_loops():
    x = RNG.standard_normal((2, 8, 12, 10))
    got = O.roi_pool(T(x), T(BOXES), NUM, (3, 2), 0.9).numpy()
    s = np.sign(BOXES * 0.9) * np.floor(np.abs(BOXES * 0.9) + 0.5)
    for r, n in enumerate(BATCH):
        x1, y1, x2, y2 = s[r].astype(int)
        bh, bw = max(y2 - y1 + 1, 1) / 3, max(x2 - x1 + 1, 1) / 2
        for i in range(3):
            for j in range(2):
                h0, h1 = [min(max(v + y1, 0), 12)
                          for v in (math.floor(i * bh), math.ceil((i + 1) * bh))]
                w0, w1 = [min(max(v + x1, 0), 10)
                          for v in (math.floor(j * bw), math.ceil((j + 1) * bw))]
                want = x[n, :, h0:h1, w0:w1].max(axis=(1, 2)) if h1 > h0 and w1 > w0 else 0
                np.testing.assert_allclose(got[r, :, i, j], want)
    xt = T(x)
    xt.stop_gradient = False
    O.RoIPool((3, 2), 0.9)(xt, T(BOXES), NUM).sum().backward()
    assert xt.grad.numpy().sum() == pytest.approx(4 * 8 * 6)  # one 1 per output, at its argmax
    ps = O.psroi_pool(T(x), T(BOXES), NUM, 2, 0.9).numpy()
    assert ps.shape == (4, 2, 2, 2)
    r, c, i, j = 2, 1, 1, 0
    rb = np.sign(BOXES[r]) * np.floor(np.abs(BOXES[r]) + 0.5)
    y0, x0 = rb[1] * 0.9, rb[0] * 0.9
    bh, bw = max((rb[3] + 1) * 0.9 - y0, 0.1) / 2, max((rb[2] + 1) * 0.9 - x0, 0.1) / 2
    hs, he = math.floor(y0 + i * bh), math.ceil(y0 + (i + 1) * bh)
    ws, we = math.floor(x0 + j * bw), math.ceil(x0 + (j + 1) * bw)
    np.testing.assert_allclose(ps[r, c, i, j], x[1, (c * 2 + i) * 2 + j, hs:he, ws:we].mean())
    with pytest.raises(ValueError, match="multiple"):
        O.psroi_pool(T(x[:, :6]), T(BOXES), NUM, 2)
    with pytest.raises(ValueError, match="boxes_num"):
        O.roi_align(T(x), T(BOXES), T([2, 3], "int32"), 2)


def _deform_torch(x, off, w, mask, stride, pad, dg, groups):
    n, c, h, wd = x.shape
    cout, cg, kh, kw = w.shape
    ho, wo = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    k = kh * kw
    ty, tx = torch.meshgrid(torch.arange(kh), torch.arange(kw), indexing="ij")
    oy = torch.arange(ho) * stride - pad
    ox = torch.arange(wo) * stride - pad
    base_y = (oy[None, :, None] + ty.reshape(k, 1, 1)).double()
    base_x = (ox[None, None, :] + tx.reshape(k, 1, 1)).double()
    off = off.reshape(n, dg, k, 2, ho, wo)
    py, px = base_y + off[:, :, :, 0], base_x + off[:, :, :, 1]       # [n, dg, k, ho, wo]
    grid = torch.stack([2 * px / (wd - 1) - 1, 2 * py / (h - 1) - 1], -1)
    xg = x.reshape(n * dg, c // dg, h, wd)
    samp = torch.nn.functional.grid_sample(xg, grid.reshape(n * dg, k * ho, wo, 2),
                                           align_corners=True, padding_mode="zeros")
    samp = samp.reshape(n, dg, c // dg, k, ho, wo)
    if mask is not None:
        samp = samp * mask.reshape(n, dg, 1, k, ho, wo)
    cols = samp.reshape(n, groups, cg * k, ho * wo)
    out = torch.matmul(w.reshape(1, groups, cout // groups, cg * k), cols)
    return out.reshape(n, cout, ho, wo)


@pytest.mark.parametrize("v2", [True, False])
def test_deform_conv2d_against_torch_values_and_gradients(v2):
    x = RNG.standard_normal((2, 4, 7, 6))
    off = RNG.standard_normal((2, 2 * 2 * 9, 4, 3)) * 1.5
    mask = RNG.random((2, 2 * 9, 4, 3)) if v2 else None
    w = RNG.standard_normal((6, 2, 3, 3))
    ins = [T(a) for a in (x, off, w)] + ([T(mask)] if v2 else [])
    for t in ins:
        t.stop_gradient = False
    y = O.deform_conv2d(ins[0], ins[1], ins[2], None, stride=2, padding=1,
                        deformable_groups=2, groups=2, mask=ins[3] if v2 else None)
    tins = [torch.tensor(a, requires_grad=True) for a in (x, off, w)] + \
        ([torch.tensor(mask, requires_grad=True)] if v2 else [])
    ty = _deform_torch(tins[0], tins[1], tins[2], tins[3] if v2 else None, 2, 1, 2, 2)
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-10)
    g = RNG.standard_normal(ty.shape)
    (y * T(g)).sum().backward()
    ty.backward(torch.tensor(g))
    for a, b in zip(ins, tins):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-9)
    layer = O.DeformConv2D(4, 5, 3, padding=1)
    assert layer(T(x).astype("float32"), T(RNG.random((2, 18, 7, 6))).astype("float32")).shape \
        == [2, 5, 7, 6]
    with pytest.raises(ValueError, match="offset"):
        O.deform_conv2d(T(x), T(off[:, :4]), T(w), groups=2)


def _greedy_ref(boxes, order, thr):
    keep = []
    for i in order:
        ok = True
        for j in keep:
            b, k = boxes[i], boxes[j]
            iw = max(0, min(b[2], k[2]) - max(b[0], k[0]))
            ih = max(0, min(b[3], k[3]) - max(b[1], k[1]))
            inter = iw * ih
            union = (b[2] - b[0]) * (b[3] - b[1]) + (k[2] - k[0]) * (k[3] - k[1]) - inter
            ok &= inter / union <= thr
        if ok:
            keep.append(i)
    return keep


def test_nms_and_matrix_nms():
    b = RNG.random((12, 4))
    b[:, 2:] += b[:, :2]
    s = RNG.random(12)
    assert O.nms(T(b), 0.2).numpy().tolist() == _greedy_ref(b, range(12), 0.2)
    assert O.nms(T(b), 0.3, T(s)).numpy().tolist() == _greedy_ref(b, np.argsort(-s), 0.3)
    cats = RNG.integers(0, 2, 12)
    got = O.nms(T(b), 0.3, T(s), T(cats, "int64"), [0, 1], 4).numpy().tolist()
    per = [j for c in (0, 1) for j in np.nonzero(cats == c)[0][_greedy_ref(
        b[cats == c], np.argsort(-s[cats == c]), 0.3)]]
    assert got == sorted(per, key=lambda j: -s[j])[:4]
    # matrix NMS: two boxes of IoU 1/3, linear decay of the second by (1 - 1/3)
    boxes = T([[[0, 0, 2, 1], [1, 0, 3, 1], [5, 5, 6, 6]]])
    scores = T([[[0.0, 0.0, 0.0], [0.9, 0.8, 0.1]]])
    out, num = O.matrix_nms(boxes, scores, 0.05, 0.05, -1, -1)
    np.testing.assert_allclose(out.numpy()[:, 1], [0.9, 0.8 * 2 / 3, 0.1], rtol=1e-6)
    assert num.numpy().tolist() == [3]
    out, num, idx = O.matrix_nms(boxes, scores, 0.05, 0.05, -1, 2, use_gaussian=True,
                                 return_index=True)
    np.testing.assert_allclose(out.numpy()[1, 1], 0.8 * math.exp(-(1 / 9) * 2.0), rtol=1e-6)
    assert idx.numpy().reshape(-1).tolist() == [0, 1]


def test_box_coder_prior_box_yolo_box_fpn():
    prior = RNG.random((5, 4))
    prior[:, 2:] += prior[:, :2] + 0.1
    var = RNG.random((5, 4)) + 0.1
    tgt = RNG.random((3, 4))
    tgt[:, 2:] += tgt[:, :2] + 0.1
    enc = O.box_coder(T(prior), T(var), T(tgt), "encode_center_size")
    dec = O.box_coder(T(prior), T(var), enc, "decode_center_size")
    np.testing.assert_allclose(dec.numpy(), np.broadcast_to(tgt[:, None], (3, 5, 4)), rtol=1e-10)
    e = O.box_coder(T([[0, 0, 9, 9]]), [1, 1, 1, 1], T([[2, 2, 5, 7]]), box_normalized=False)
    np.testing.assert_allclose(e.numpy()[0, 0], [(3.5 - 5) / 10, (4.5 - 5) / 10,
                                                 math.log(0.4), math.log(0.6)], rtol=1e-10)
    boxes, var_ = O.prior_box(T(np.zeros((1, 1, 2, 3))), T(np.zeros((1, 1, 8, 12))), [2.0],
                              max_sizes=[8.0], aspect_ratios=[2.0], flip=True)
    assert boxes.shape == [2, 3, 4, 4] and var_.numpy()[0, 0, 0].tolist() == pytest.approx(
        [0.1, 0.1, 0.2, 0.2])
    cx, cy = 1.5 * 4, 0.5 * 4   # cell (0, 1): step 4 both ways, offset 0.5
    want = [[cx - 1, cy - 1, cx + 1, cy + 1], [cx - math.sqrt(2), cy - 1 / math.sqrt(2),
                                               cx + math.sqrt(2), cy + 1 / math.sqrt(2)]]
    np.testing.assert_allclose(boxes.numpy()[0, 1, :2] * [12, 8, 12, 8], want, rtol=1e-5)
    np.testing.assert_allclose(boxes.numpy()[0, 1, 3] * [12, 8, 12, 8],
                               [cx - 2, cy - 2, cx + 2, cy + 2], rtol=1e-5)
    x = np.zeros((1, 7, 2, 2))
    x[0, 4] = 5.0    # objectness logit
    x[0, 2, 1, 0] = math.log(2.0)
    b, s = O.yolo_box(T(x), T([[64, 64]], "int32"), [8, 8], 2, 0.5, 32, clip_bbox=False)
    sig5 = 1 / (1 + math.exp(-5))
    np.testing.assert_allclose(s.numpy()[0, 0], [sig5 * 0.5] * 2, rtol=1e-6)
    # cell (row 1, col 0): centre (0.5 * 32, 1.5 * 32), width 2 * 8 * 64 / 64 = 16
    np.testing.assert_allclose(b.numpy()[0, 2], [16 - 8, 48 - 4, 16 + 8, 48 + 4], rtol=1e-6)
    rois = np.array([[0, 0, 10, 10], [0, 0, 100, 100], [0, 0, 300, 300], [0, 0, 30, 60]], float)
    multi, restore, per = O.distribute_fpn_proposals(T(rois), 2, 5, 4, 224,
                                                     rois_num=T([3, 1], "int32"))
    levels = np.clip(np.floor(np.log2(np.sqrt(rois[:, 2] * rois[:, 3]) / 224 + 1e-8) + 4), 2, 5)
    assert [m.shape[0] for m in multi] == [int((levels == k).sum()) for k in range(2, 6)]
    cat = np.concatenate([m.numpy() for m in multi])
    np.testing.assert_array_equal(cat[restore.numpy().reshape(-1)], rois)
    assert sum(p.numpy() for p in per).tolist() == [3, 1]


def test_yolo_loss_hand_case_and_gradient():
    # one image, 2x2 grid, one anchor (mask [0]), one class, one box in cell (row 0, col 1)
    x = RNG.standard_normal((1, 6, 2, 2)) * 0.5
    gt = np.array([[[0.7, 0.3, 0.25, 0.5]]])
    size = 2 * 16
    loss = O.yolo_loss(T(x), T(gt), T([[0]], "int32"), [8, 16], [0], 1, 1.0, 16,
                       use_label_smooth=False)

    def sce(v, t):
        return max(v, 0) - v * t + math.log1p(math.exp(-abs(v)))
    scale = 2 - 0.25 * 0.5
    p = x[0, :, 0, 1]
    want = scale * (sce(p[0], 0.7 * 2 - 1) + sce(p[1], 0.3 * 2 - 0) +
                    abs(p[2] - math.log(0.25 * size / 8)) + abs(p[3] - math.log(0.5 * size / 16)))
    want += sce(p[4], 1.0) + sce(p[5], 1.0)
    want += sum(sce(x[0, 4, i, j], 0.0) for i in range(2) for j in range(2) if (i, j) != (0, 1))
    np.testing.assert_allclose(loss.numpy(), [want], rtol=1e-10)
    xt = T(x)
    xt.stop_gradient = False
    f = O.yolo_loss(xt, T(gt), T([[0]], "int32"), [8, 16], [0], 1, 1.0, 16)
    f.sum().backward()
    eps, k = 1e-6, (0, 5, 1, 1)
    xp, xm = x.copy(), x.copy()
    xp[k] += eps
    xm[k] -= eps
    num = (O.yolo_loss(T(xp), T(gt), T([[0]], "int32"), [8, 16], [0], 1, 1.0, 16).numpy()
           - O.yolo_loss(T(xm), T(gt), T([[0]], "int32"), [8, 16], [0], 1, 1.0, 16).numpy())
    assert xt.grad.numpy()[k] == pytest.approx(num[0] / (2 * eps), rel=1e-5)
    with pytest.raises(ValueError, match="channels"):
        O.yolo_loss(T(x[:, :5]), T(gt), T([[0]], "int32"), [8, 16], [0], 1, 0.5, 16)


def test_read_file_and_decode_jpeg(tmp_path):
    from PIL import Image
    img = RNG.integers(0, 256, (5, 6, 3), dtype=np.uint8)
    path = str(tmp_path / "a.jpg")
    Image.fromarray(img).save(path, quality=95)
    data = O.read_file(path)
    assert data.dtype == oar.uint8 and data.ndim == 1
    assert O.decode_jpeg(data).shape == [3, 5, 6]
    assert O.decode_jpeg(data, mode="gray").shape == [1, 5, 6]
    with pytest.raises(ValueError, match="not a decodable image"):
        O.decode_jpeg(oar.to_tensor(np.arange(10, dtype=np.uint8)))


def test_generate_proposals_hand_case():
    # 1x1 feature map, 3 anchors: two overlapping (NMS keeps the better), one too small
    anchors = T([[[[10, 10, 40, 40], [12, 12, 42, 42], [0, 0, 0.5, 0.5]]]])
    var = T(np.ones((1, 1, 3, 4)))
    scores = T([[[[0.5]], [[0.9]], [[0.99]]]])
    deltas = T(np.zeros((1, 12, 1, 1)))
    rois, probs, num = O.generate_proposals(scores, deltas, T([[30, 100]]), anchors, var,
                                            nms_thresh=0.5, min_size=1.0, return_rois_num=True)
    np.testing.assert_allclose(rois.numpy(), [[12, 12, 42, 30]])   # clipped to the height
    np.testing.assert_allclose(probs.numpy(), [[0.9]])
    assert num.numpy().tolist() == [1]
    rois, probs = O.generate_proposals(scores, deltas, T([[30, 100]]), anchors, var,
                                       min_size=100.0)
    assert rois.numpy().tolist() == [[0, 0, 0, 0]] and probs.numpy().tolist() == [[0]]
    with pytest.raises(ValueError, match="anchors and variances"):
        O.generate_proposals(scores, deltas, T([[30, 100]]), anchors[:, :, :2], var)
