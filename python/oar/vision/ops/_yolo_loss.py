"""YOLOv3 loss (Redmon & Farhadi 2018) as Paddle computes it, written in oar ops: the
targets (which anchor and cell answer for each ground-truth box, and which predictions
overlap a box enough to be ignored) are found on the host; the loss is a weighted sum of
sigmoid cross-entropies and L1 terms over x, differentiable to any order."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...framework.typing import Tensor
from ._common import host, tensor, to_tensor
from ..._C import abs as _abs, log1p, exp, relu, sum as _sum


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _iou_cxcywh(a, b):
    """IoU of boxes a [..., 4] and b [..., 4] given as (cx, cy, w, h)."""
    ax1, ay1, ax2, ay2 = (
        a[..., 0] - a[..., 2] / 2,
        a[..., 1] - a[..., 3] / 2,
        a[..., 0] + a[..., 2] / 2,
        a[..., 1] + a[..., 3] / 2,
    )
    bx1, by1, bx2, by2 = (
        b[..., 0] - b[..., 2] / 2,
        b[..., 1] - b[..., 3] / 2,
        b[..., 0] + b[..., 2] / 2,
        b[..., 1] + b[..., 3] / 2,
    )
    iw = np.clip(np.minimum(ax2, bx2) - np.maximum(ax1, bx1), 0, None)
    ih = np.clip(np.minimum(ay2, by2) - np.maximum(ay1, by1), 0, None)
    inter = iw * ih
    union = a[..., 2] * a[..., 3] + b[..., 2] * b[..., 3] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)


def yolo_loss(
    x: Tensor,
    gt_box: Tensor,
    gt_label: Tensor,
    anchors: Sequence[float],
    anchor_mask: Sequence[int],
    class_num: int,
    ignore_thresh: float,
    downsample_ratio: int,
    gt_score: Tensor | None = None,
    use_label_smooth: bool = True,
    name: str | None = None,
    scale_x_y: float = 1.0,
) -> Tensor:
    """The YOLOv3 loss of each image ([N]) for a head x [N, len(anchor_mask) * (5 +
    class_num), H, W], ground-truth boxes gt_box [N, B, 4] (cx, cy, w, h relative to the
    image; w or h <= 0 marks padding), labels gt_label [N, B] and optional gt_score."""
    api = "yolo_loss"
    tensor(api, "x", x)
    xa = host(api, "x", x, ndim=4).astype(np.float64)
    gt = host(api, "gt_box", gt_box, ndim=3, last=4).astype(np.float64)
    lab = host(api, "gt_label", gt_label, ndim=2).astype(np.int64)
    n, c, h, w = xa.shape
    anc = np.asarray(anchors, np.float64).reshape(-1, 2)
    mask = [int(m) for m in anchor_mask]
    na = len(mask)
    if c != na * (5 + class_num):
        raise ValueError(
            f"{api}(): x must have {na * (5 + class_num)} channels for "
            f"{na} masked anchors and {class_num} classes, but has {c}"
        )
    if gt.shape[:2] != lab.shape or gt.shape[0] != n:
        raise ValueError(
            f"{api}(): gt_box {list(gt.shape)} and gt_label {list(lab.shape)} "
            f"must be [N, B, 4] and [N, B] with N = {n}"
        )
    score = (
        np.ones(lab.shape)
        if gt_score is None
        else host(api, "gt_score", gt_score, ndim=2).astype(np.float64)
    )
    size = downsample_ratio * h
    p = xa.reshape(n, na, 5 + class_num, h, w)
    bias = -0.5 * (scale_x_y - 1.0)
    # predicted boxes (relative cx, cy, w, h) and their best IoU with any ground truth
    col, row = np.arange(w)[None, None, None, :], np.arange(h)[None, None, :, None]
    pred = np.stack(
        [
            (col + _sigmoid(p[:, :, 0]) * scale_x_y + bias) / w,
            (row + _sigmoid(p[:, :, 1]) * scale_x_y + bias) / h,
            np.exp(p[:, :, 2]) * anc[mask, 0][None, :, None, None] / size,
            np.exp(p[:, :, 3]) * anc[mask, 1][None, :, None, None] / size,
        ],
        axis=-1,
    )
    valid = (gt[..., 2] > 0) & (gt[..., 3] > 0)
    best = np.zeros((n, na, h, w))
    for i in range(n):
        g = gt[i][valid[i]]
        if g.size:
            best[i] = _iou_cxcywh(pred[i][..., None, :], g[None, None, None]).max(-1)
    obj = np.where(best > ignore_thresh, -1.0, 0.0)  # -1: ignored
    # weights and targets of each entry of x: sigmoid cross-entropy and L1 parts
    w_sce, t_sce = np.zeros(p.shape), np.zeros(p.shape)
    w_l1, t_l1 = np.zeros(p.shape), np.zeros(p.shape)
    smooth = min(1.0 / class_num, 1.0 / 40) if use_label_smooth else 0.0
    shapes = np.concatenate([np.zeros((anc.shape[0], 2)), anc / size], axis=1)
    for i in range(n):
        for b in np.nonzero(valid[i])[0]:
            cx, cy, gw, gh = gt[i, b]
            a_best = int(np.argmax(_iou_cxcywh(np.array([0.0, 0.0, gw, gh]), shapes)))
            if a_best not in mask:
                continue
            m = mask.index(a_best)
            gi, gj = int(cx * w), int(cy * h)
            if not (0 <= gi < w and 0 <= gj < h):
                continue
            sc = score[i, b]
            scale = (2.0 - gw * gh) * sc
            w_sce[i, m, 0, gj, gi], t_sce[i, m, 0, gj, gi] = scale, cx * w - gi
            w_sce[i, m, 1, gj, gi], t_sce[i, m, 1, gj, gi] = scale, cy * h - gj
            w_l1[i, m, 2, gj, gi], t_l1[i, m, 2, gj, gi] = scale, np.log(gw * size / anc[a_best, 0])
            w_l1[i, m, 3, gj, gi], t_l1[i, m, 3, gj, gi] = scale, np.log(gh * size / anc[a_best, 1])
            cls_t = np.full(class_num, smooth)
            cls_t[lab[i, b]] = 1.0 - smooth
            w_sce[i, m, 5:, gj, gi], t_sce[i, m, 5:, gj, gi] = sc, cls_t
            obj[i, m, gj, gi] = sc
    pos = obj > 1e-5
    w_sce[:, :, 4] = np.where(pos, obj, np.where(obj > -0.5, 1.0, 0.0))
    t_sce[:, :, 4] = np.where(pos, 1.0, 0.0)
    shape = list(x.shape)

    def t(a):
        return to_tensor(a.reshape(shape)).astype(x.dtype)

    sce = relu(x) - x * t(t_sce) + log1p(exp(-_abs(x)))
    loss = sce * t(w_sce) + _abs(x - t(t_l1)) * t(w_l1)
    return _sum(loss, axis=[1, 2, 3])
