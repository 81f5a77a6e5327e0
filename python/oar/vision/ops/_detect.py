"""Detection post-processing and anchor ops of oar.vision.ops: nms, matrix_nms, box_coder,
prior_box, yolo_box, distribute_fpn_proposals. Box selection is computed on the host
(numpy); box_coder is written in oar ops, so it is differentiable."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

from ... import _C
from ...framework.typing import Tensor
from ._common import host, tensor, to_tensor
from ..._C import exp, log, abs as _abs
from ...tensor.manipulation import stack


def _iou_matrix(a, b, normalized=True):
    """IoU of every box in a [n, 4] with every box in b [m, 4] (x1, y1, x2, y2); boxes in
    pixel units (normalized=False) count both end pixels."""
    one = 0.0 if normalized else 1.0
    area_a = np.clip(a[:, 2] - a[:, 0] + one, 0, None) * np.clip(a[:, 3] - a[:, 1] + one, 0, None)
    area_b = np.clip(b[:, 2] - b[:, 0] + one, 0, None) * np.clip(b[:, 3] - b[:, 1] + one, 0, None)
    iw = np.clip(
        np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0]) + one,
        0,
        None,
    )
    ih = np.clip(
        np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1]) + one,
        0,
        None,
    )
    disjoint = (
        (b[None, :, 0] > a[:, None, 2])
        | (b[None, :, 2] < a[:, None, 0])
        | (b[None, :, 1] > a[:, None, 3])
        | (b[None, :, 3] < a[:, None, 1])
    )
    inter = np.where(disjoint, 0.0, iw * ih)
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)


def _greedy(boxes, order, thresh):
    keep = []
    iou = _iou_matrix(boxes[order], boxes[order])
    dead = np.zeros(order.size, bool)
    for i in range(order.size):
        if dead[i]:
            continue
        keep.append(order[i])
        dead |= iou[i] > thresh
    return np.asarray(keep, np.int64)


def nms(
    boxes: Tensor,
    iou_threshold: float = 0.3,
    scores: Tensor | None = None,
    category_idxs: Tensor | None = None,
    categories: Sequence[int] | None = None,
    top_k: int | None = None,
) -> Tensor:
    """Non-maximum suppression: the int64 indices of the boxes kept. Without scores the
    boxes are taken in their order; with scores, by decreasing score. With category_idxs
    and categories, boxes compete only within their category, and the kept boxes are
    returned by decreasing score (the first top_k)."""
    api = "nms"
    b = host(api, "boxes", tensor(api, "boxes", boxes), ndim=2, last=4).astype(np.float64)
    if scores is None:
        if category_idxs is not None:
            raise ValueError(f"{api}(): category_idxs needs scores")
        return to_tensor(_greedy(b, np.arange(b.shape[0]), iou_threshold))
    s = host(api, "scores", scores).astype(np.float64).reshape(-1)
    if s.size != b.shape[0]:
        raise ValueError(
            f"{api}(): argument 'scores' must have one score per box "
            f"({b.shape[0]}), but has {s.size}"
        )
    if category_idxs is None:
        keep = _greedy(b, np.argsort(-s, kind="stable"), iou_threshold)
    else:
        if categories is None:
            raise ValueError(f"{api}(): categories must be given with category_idxs")
        cat = host(api, "category_idxs", category_idxs).astype(np.int64).reshape(-1)
        kept = [
            idx[_greedy(b[idx], np.argsort(-s[idx], kind="stable"), iou_threshold)]
            for c in categories
            for idx in [np.nonzero(cat == c)[0]]
            if idx.size
        ]
        keep = np.concatenate(kept) if kept else np.zeros(0, np.int64)
        keep = keep[np.argsort(-s[keep], kind="stable")]
    if top_k is not None:
        keep = keep[: int(top_k)]
    return to_tensor(keep.astype(np.int64))


def matrix_nms(
    bboxes: Tensor,
    scores: Tensor,
    score_threshold: float,
    post_threshold: float,
    nms_top_k: int,
    keep_top_k: int,
    use_gaussian: bool = False,
    gaussian_sigma: float = 2.0,
    background_label: int = 0,
    normalized: bool = True,
    return_index: bool = False,
    return_rois_num: bool = True,
    name: str | None = None,
) -> Tensor | tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]:
    """Matrix NMS (Wang et al., SOLOv2): per image and class, each candidate's score is
    decayed by its overlap with higher-scored ones (linear, or gaussian); the survivors
    above post_threshold, best keep_top_k per image. bboxes [N, M, 4], scores [N, C, M].
    Returns out [K, 6] (label, score, x1, y1, x2, y2), then rois_num [N] if
    return_rois_num, then index [K, 1] if return_index (Paddle's order)."""
    api = "matrix_nms"
    b = host(api, "bboxes", tensor(api, "bboxes", bboxes), ndim=3, last=4).astype(np.float64)
    s = host(api, "scores", tensor(api, "scores", scores), ndim=3).astype(np.float64)
    if s.shape[0] != b.shape[0] or s.shape[2] != b.shape[1]:
        raise ValueError(
            f"{api}(): scores {list(s.shape)} must be [N, classes, M] for bboxes {list(b.shape)}"
        )
    rows, index, counts = [], [], []
    for n in range(b.shape[0]):
        found = []
        for c in range(s.shape[1]):
            if c == background_label:
                continue
            cand = np.nonzero(s[n, c] > score_threshold)[0]
            cand = cand[np.argsort(-s[n, c, cand], kind="stable")]
            if nms_top_k > -1:
                cand = cand[:nms_top_k]
            if cand.size == 0:
                continue
            iou = np.triu(_iou_matrix(b[n, cand], b[n, cand], normalized), 1)  # iou[j, i], j < i
            comp = iou.max(axis=0)  # each box's largest overlap with a better one
            if use_gaussian:
                decay = np.exp((comp[:, None] ** 2 - iou**2) * gaussian_sigma)
            else:
                decay = (1.0 - iou) / (1.0 - comp[:, None])
            decay = np.where(np.triu(np.ones_like(iou, bool), 1), decay, 1.0).min(axis=0)
            ds = s[n, c, cand] * decay
            for i in np.nonzero(ds > post_threshold)[0]:
                found.append((ds[i], c, cand[i]))
        found.sort(key=lambda t: -t[0])
        if keep_top_k > -1:
            found = found[:keep_top_k]
        for score, c, m in found:
            rows.append([c, score, *b[n, m]])
            index.append(n * b.shape[1] + m)
        counts.append(len(found))
    out = to_tensor(np.asarray(rows, np.float32).reshape(-1, 6)).astype(bboxes.dtype)
    res = [out]
    if return_rois_num:
        res.append(to_tensor(np.asarray(counts, np.int32)))
    if return_index:
        res.append(to_tensor(np.asarray(index, np.int32).reshape(-1, 1)))
    return res[0] if len(res) == 1 else tuple(res)


def box_coder(
    prior_box: Tensor,
    prior_box_var: Tensor | Sequence[float],
    target_box: Tensor,
    code_type: str = "encode_center_size",
    box_normalized: bool = True,
    axis: int = 0,
    name: str | None = None,
) -> Tensor:
    """Encode target boxes against priors as (dx, dy, dw, dh) / variance, or decode such
    offsets back into boxes. encode: target [N, 4], prior [M, 4] -> [N, M, 4]; decode:
    target [N, M, 4], prior [M, 4] (axis=0) or [N, 4] (axis=1) -> [N, M, 4].
    prior_box_var is a Tensor like prior_box or 4 numbers."""
    api = "box_coder"
    tensor(api, "prior_box", prior_box)
    tensor(api, "target_box", target_box)
    if code_type not in ("encode_center_size", "decode_center_size"):
        raise ValueError(
            f"{api}(): argument 'code_type' must be 'encode_center_size' or "
            f"'decode_center_size', but got {code_type!r}"
        )
    if axis not in (0, 1):
        raise ValueError(f"{api}(): argument 'axis' must be 0 or 1, but got {axis!r}")
    one = 0.0 if box_normalized else 1.0
    pw = prior_box[:, 2] - prior_box[:, 0] + one
    ph = prior_box[:, 3] - prior_box[:, 1] + one
    pcx, pcy = prior_box[:, 0] + pw * 0.5, prior_box[:, 1] + ph * 0.5
    if isinstance(prior_box_var, _C.Tensor):
        var = [prior_box_var[:, i] for i in range(4)]
    else:
        vals = list(prior_box_var)
        if len(vals) != 4 or not all(isinstance(v, numbers.Number) for v in vals):
            raise ValueError(
                f"{api}(): argument 'prior_box_var' must be a Tensor or 4 "
                f"numbers, but got {prior_box_var!r}"
            )
        var = [float(v) for v in vals]
    t = target_box
    if code_type == "encode_center_size":
        tw = (t[:, 2] - t[:, 0] + one)[:, None]
        th = (t[:, 3] - t[:, 1] + one)[:, None]
        # Paddle: the target's centre is the midpoint, the prior's is x1 + width / 2
        tcx, tcy = ((t[:, 0] + t[:, 2]) * 0.5)[:, None], ((t[:, 1] + t[:, 3]) * 0.5)[:, None]
        parts = [
            (tcx - pcx[None]) / pw[None],
            (tcy - pcy[None]) / ph[None],
            log(_abs(tw / pw[None])),
            log(_abs(th / ph[None])),
        ]
        parts = [p / (v[None] if isinstance(v, _C.Tensor) else v) for p, v in zip(parts, var)]
        return stack(parts, axis=-1)
    if t.ndim != 3:
        raise ValueError(f"{api}(): decoding needs a 3-D target_box, but it has shape {t.shape}")

    def along(v):
        return v[None] if axis == 0 else v[:, None]

    vv = [along(v) if isinstance(v, _C.Tensor) else v for v in var]
    cx = vv[0] * t[..., 0] * along(pw) + along(pcx)
    cy = vv[1] * t[..., 1] * along(ph) + along(pcy)
    w = exp(vv[2] * t[..., 2]) * along(pw)
    h = exp(vv[3] * t[..., 3]) * along(ph)
    return stack([cx - w * 0.5, cy - h * 0.5, cx + w * 0.5 - one, cy + h * 0.5 - one], axis=-1)


def _floats(v):
    return [float(e) for e in (v if isinstance(v, (list, tuple)) else [v])]


def prior_box(
    input: Tensor,
    image: Tensor,
    min_sizes: float | list[float] | tuple[float, ...],
    max_sizes: float | list[float] | tuple[float, ...] | None = None,
    aspect_ratios: float | list[float] | tuple[float, ...] = [1.0],  # noqa: A002,B006
    variance: list[float] | tuple[float, ...] = [0.1, 0.1, 0.2, 0.2],
    flip: bool = False,
    clip: bool = False,
    steps: float | list[float] | tuple[float, ...] = [0.0, 0.0],  # noqa: B006
    offset: float = 0.5,
    min_max_aspect_ratios_order: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """SSD prior boxes for each cell of input's feature map (normalised by image's size):
    returns (boxes, variances), both [H, W, num_priors, 4]."""
    api = "prior_box"
    tensor(api, "input", input)
    tensor(api, "image", image)
    mins, maxs = _floats(min_sizes), _floats(max_sizes) if max_sizes is not None else []
    if maxs and len(maxs) != len(mins):
        raise ValueError(f"{api}(): max_sizes must have one entry per min_size")
    ratios = [1.0]
    for ar in _floats(aspect_ratios):
        if all(abs(ar - r) > 1e-6 for r in ratios):
            ratios.append(ar)
            if flip:
                ratios.append(1.0 / ar)
    var = _floats(variance)
    if len(var) != 4:
        raise ValueError(f"{api}(): argument 'variance' must have 4 values, but got {variance}")
    fh, fw = input.shape[2], input.shape[3]
    ih, iw = image.shape[2], image.shape[3]
    st = _floats(steps)
    sw = st[0] if st[0] > 0 else iw / fw
    sh = st[1] if len(st) > 1 and st[1] > 0 else ih / fh
    sizes = []
    for i, m in enumerate(mins):
        square = [(m, m)]
        big = [(math.sqrt(m * maxs[i]),) * 2] if maxs else []
        rest = [(m * math.sqrt(r), m / math.sqrt(r)) for r in ratios if abs(r - 1.0) > 1e-6]
        sizes += (
            square + big + rest
            if min_max_aspect_ratios_order
            else [(m * math.sqrt(r), m / math.sqrt(r)) for r in ratios] + big
        )
    wh = np.asarray(sizes, np.float64) * 0.5  # [P, 2]
    cx = (np.arange(fw) + offset) * sw
    cy = (np.arange(fh) + offset) * sh
    boxes = np.empty((fh, fw, len(sizes), 4))
    boxes[..., 0] = (cx[None, :, None] - wh[None, None, :, 0]) / iw
    boxes[..., 1] = (cy[:, None, None] - wh[None, None, :, 1]) / ih
    boxes[..., 2] = (cx[None, :, None] + wh[None, None, :, 0]) / iw
    boxes[..., 3] = (cy[:, None, None] + wh[None, None, :, 1]) / ih
    if clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    variances = np.broadcast_to(np.asarray(var), boxes.shape)
    return to_tensor(boxes, np.float32), to_tensor(variances, np.float32)


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def yolo_box(
    x: Tensor,
    img_size: Tensor,
    anchors: Sequence[float],
    class_num: int,
    conf_thresh: float,
    downsample_ratio: int,
    clip_bbox: bool = True,
    name: str | None = None,
    scale_x_y: float = 1.0,
    iou_aware: bool = False,
    iou_aware_factor: float = 0.5,
) -> tuple[Tensor, Tensor]:
    """Decode a YOLOv3 head x [N, A * (5 + class_num), H, W] (with iou_aware, A more
    channels first) into boxes [N, A*H*W, 4] (x1, y1, x2, y2 in img_size's pixels) and
    scores [N, A*H*W, class_num]; predictions under conf_thresh are zero."""
    api = "yolo_box"
    a = host(api, "x", tensor(api, "x", x), ndim=4).astype(np.float64)
    sizes = host(api, "img_size", img_size, ndim=2, last=2).astype(np.float64)
    anc = np.asarray(anchors, np.float64).reshape(-1, 2)
    na = anc.shape[0]
    n, c, h, w = a.shape
    need = na * (5 + class_num) + (na if iou_aware else 0)
    if c != need:
        raise ValueError(
            f"{api}(): x must have {need} channels for {na} anchors and "
            f"{class_num} classes, but has {c}"
        )
    ious = _sigmoid(a[:, :na]) if iou_aware else None
    p = a[:, na:] if iou_aware else a
    p = p.reshape(n, na, 5 + class_num, h, w)
    bias = -0.5 * (scale_x_y - 1.0)
    gx, gy = np.arange(w)[None, None, None, :], np.arange(h)[None, None, :, None]
    img_h, img_w = sizes[:, 0][:, None, None, None], sizes[:, 1][:, None, None, None]
    cx = (gx + _sigmoid(p[:, :, 0]) * scale_x_y + bias) * img_w / w
    cy = (gy + _sigmoid(p[:, :, 1]) * scale_x_y + bias) * img_h / h
    bw = np.exp(p[:, :, 2]) * anc[None, :, 0, None, None] * img_w / (downsample_ratio * w)
    bh = np.exp(p[:, :, 3]) * anc[None, :, 1, None, None] * img_h / (downsample_ratio * h)
    conf = _sigmoid(p[:, :, 4])
    if iou_aware:
        conf = conf ** (1.0 - iou_aware_factor) * ious**iou_aware_factor
    keep = conf >= conf_thresh
    box = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=-1)
    if clip_bbox:
        box[..., 0] = np.clip(box[..., 0], 0, None)
        box[..., 1] = np.clip(box[..., 1], 0, None)
        box[..., 2] = np.minimum(box[..., 2], img_w - 1)
        box[..., 3] = np.minimum(box[..., 3], img_h - 1)
    box = box * keep[..., None]
    scores = conf[:, :, None] * _sigmoid(p[:, :, 5:]) * keep[:, :, None]
    scores = np.moveaxis(scores, 2, -1)  # [n, na, h, w, C]
    return (
        to_tensor(box.reshape(n, -1, 4), np.float32).astype(x.dtype),
        to_tensor(scores.reshape(n, -1, class_num), np.float32).astype(x.dtype),
    )


def distribute_fpn_proposals(
    fpn_rois: Tensor,
    min_level: int,
    max_level: int,
    refer_level: int,
    refer_scale: float,
    pixel_offset: bool = False,
    rois_num: Tensor | None = None,
    name: str | None = None,
) -> tuple[list[Tensor], Tensor, list[Tensor] | None]:
    """Assign each RoI to an FPN level floor(refer_level + log2(sqrt(area) / refer_scale)),
    clipped to [min_level, max_level]. Returns (multi_rois: a list of [Ri, 4] per level,
    restore_ind [R, 1] int32 putting the concatenated levels back in the input order,
    rois_num_per_level: a list of [N] int32 counts per image, or None without rois_num)."""
    api = "distribute_fpn_proposals"
    r = host(api, "fpn_rois", tensor(api, "fpn_rois", fpn_rois), ndim=2, last=4)
    if not min_level <= refer_level <= max_level:
        raise ValueError(
            f"{api}(): refer_level ({refer_level}) must lie in [min_level, "
            f"max_level] = [{min_level}, {max_level}]"
        )
    one = 1.0 if pixel_offset else 0.0
    w = np.clip(r[:, 2] - r[:, 0] + one, 0, None)
    h = np.clip(r[:, 3] - r[:, 1] + one, 0, None)
    scale = np.sqrt(w * h)
    lvl = np.floor(np.log2(scale / refer_scale + 1e-8) + refer_level)
    lvl = np.clip(lvl, min_level, max_level).astype(np.int64)
    counts = None
    if rois_num is not None:
        counts = host(api, "rois_num", rois_num).astype(np.int64).reshape(-1)
        if counts.sum() != r.shape[0]:
            raise ValueError(
                f"{api}(): rois_num {counts.tolist()} must add up to the number of "
                f"rois ({r.shape[0]})"
            )
        image = np.repeat(np.arange(counts.size), counts)
    order, multi, per_level = [], [], []
    for level in range(min_level, max_level + 1):
        idx = np.nonzero(lvl == level)[0]
        order.append(idx)
        multi.append(to_tensor(r[idx].reshape(-1, 4), np.float32).astype(fpn_rois.dtype))
        if counts is not None:
            per_level.append(
                to_tensor(np.bincount(image[idx], minlength=counts.size).astype(np.int32))
            )
    restore = np.empty(r.shape[0], np.int32)
    restore[np.concatenate(order)] = np.arange(r.shape[0], dtype=np.int32)
    return multi, to_tensor(restore.reshape(-1, 1)), per_level if counts is not None else None


def _decode_anchors(anchors, deltas, variances, offset):
    aw = anchors[:, 2] - anchors[:, 0] + offset
    ah = anchors[:, 3] - anchors[:, 1] + offset
    acx, acy = anchors[:, 0] + 0.5 * aw, anchors[:, 1] + 0.5 * ah
    clip = math.log(1000.0 / 16.0)  # no box grows more than 1000/16 times its anchor
    cx = variances[:, 0] * deltas[:, 0] * aw + acx
    cy = variances[:, 1] * deltas[:, 1] * ah + acy
    w = np.exp(np.minimum(variances[:, 2] * deltas[:, 2], clip)) * aw
    h = np.exp(np.minimum(variances[:, 3] * deltas[:, 3], clip)) * ah
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - offset, cy + h / 2 - offset], axis=1)


def _adaptive_nms(boxes, thresh, eta, normalized):
    keep, iou = [], _iou_matrix(boxes, boxes, normalized)
    alive = np.ones(len(boxes), bool)
    for i in range(len(boxes)):
        if not alive[i]:
            continue
        if any(iou[i, k] > thresh for k in keep):
            continue
        keep.append(i)
        if eta < 1.0 and thresh > 0.5:
            thresh *= eta
    return np.asarray(keep, np.int64)


def generate_proposals(
    scores: Tensor,
    bbox_deltas: Tensor,
    img_size: Tensor,
    anchors: Tensor,
    variances: Tensor,
    pre_nms_top_n: int = 6000,
    post_nms_top_n: int = 1000,
    nms_thresh: float = 0.5,
    min_size: float = 0.1,
    eta: float = 1.0,
    pixel_offset: bool = False,
    return_rois_num: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]:
    """RPN proposals (Faster R-CNN): per image, the pre_nms_top_n best-scored anchors
    (scores [N, A, H, W]) are moved by bbox_deltas [N, 4A, H, W] scaled by variances
    ([H, W, A, 4], like anchors), clipped to img_size [N, 2] (h, w), boxes smaller than
    min_size dropped, then NMS (eta < 1 lowers the threshold after each kept box while
    it is above 0.5) and the post_nms_top_n best kept. Returns (rois [R, 4], probs [R, 1],
    rois_num [N] int32), rois_num only with return_rois_num. An image with no box left
    gives one zero box of score 0, as Paddle does."""
    api = "generate_proposals"
    s = host(api, "scores", tensor(api, "scores", scores), ndim=4).astype(np.float64)
    d = host(api, "bbox_deltas", tensor(api, "bbox_deltas", bbox_deltas), ndim=4)
    n, a, h, w = s.shape
    if list(d.shape) != [n, 4 * a, h, w]:
        raise ValueError(
            f"{api}(): bbox_deltas must have shape {[n, 4 * a, h, w]}, but has {list(d.shape)}"
        )
    anc = host(api, "anchors", anchors, last=4).astype(np.float64)
    var = host(api, "variances", variances, last=4).astype(np.float64)
    if anc.size != h * w * a * 4 or var.size != anc.size:
        raise ValueError(
            f"{api}(): anchors and variances must be [H, W, A, 4] = "
            f"{[h, w, a, 4]}, but have shapes {list(anc.shape)} and "
            f"{list(var.shape)}"
        )
    anc, var = anc.reshape(-1, 4), var.reshape(-1, 4)
    sizes = host(api, "img_size", img_size, ndim=2, last=2).astype(np.float64)
    offset = 1.0 if pixel_offset else 0.0
    rois, probs, counts = [], [], []
    for i in range(n):
        sc = s[i].transpose(1, 2, 0).reshape(-1)  # (h, w, a) order
        dl = d[i].reshape(a, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4)
        order = np.argsort(-sc, kind="stable")
        if 0 < pre_nms_top_n < order.size:
            order = order[: int(pre_nms_top_n)]
        box = _decode_anchors(anc[order], dl[order], var[order], offset)
        ih, iw = sizes[i]
        box[:, 0::2] = np.clip(box[:, 0::2], 0, iw - offset)
        box[:, 1::2] = np.clip(box[:, 1::2], 0, ih - offset)
        bw, bh = box[:, 2] - box[:, 0] + offset, box[:, 3] - box[:, 1] + offset
        ok = (bw >= max(min_size, 1.0)) & (bh >= max(min_size, 1.0))
        if pixel_offset:
            ok &= (box[:, 0] + bw / 2 <= iw) & (box[:, 1] + bh / 2 <= ih)
        box, sc_kept = box[ok], sc[order][ok]
        if box.shape[0] == 0:
            box, sc_kept = np.zeros((1, 4)), np.zeros(1)
        else:
            keep = _adaptive_nms(box, nms_thresh, eta, not pixel_offset)
            if post_nms_top_n > 0:
                keep = keep[: int(post_nms_top_n)]
            box, sc_kept = box[keep], sc_kept[keep]
        rois.append(box)
        probs.append(sc_kept.reshape(-1, 1))
        counts.append(box.shape[0])
    dt = scores.dtype
    out = (
        to_tensor(np.concatenate(rois), np.float32).astype(dt),
        to_tensor(np.concatenate(probs), np.float32).astype(dt),
    )
    return out + (to_tensor(np.asarray(counts, np.int32)),) if return_rois_num else out
