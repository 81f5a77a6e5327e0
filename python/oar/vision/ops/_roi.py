"""roi_align, roi_pool and psroi_pool as compositions of differentiable oar ops.

RoIAlign and PSRoIPool average over rectangles (bilinear samples or whole pixels), and
both weightings are separable in y and x: a box's output is Ry @ X @ Rx^T, with Ry
(pooled_h x H) and Rx (pooled_w x W) built on the host from the boxes alone. Each image's
boxes are two batched matmuls against its feature map, so the gradient with respect to x
is the matmuls' and every order of derivative works; memory is R x C x pooled_h x W, not
the R x C x H x W of gathering each box's image. RoIPool takes a maximum: its windows'
argmax positions are found on the host, and the values gathered from x with index_select,
whose backward scatters the gradient to those positions (as Paddle's kernel does).
"""

from __future__ import annotations

import math

import numpy as np

from ... import _C, nn
from ...framework.typing import IntsLike, Tensor
from ._common import batch_of_boxes, c_round, host, pair, tensor, to_tensor
from ..._C import concat, index_select, matmul
from ...tensor.creation import zeros
from ..._C import take_along_axis


def _check(api, x, boxes, boxes_num, output_size):
    tensor(api, "x", x)
    tensor(api, "boxes", boxes)
    if x.ndim != 4:
        raise ValueError(f"{api}(): argument 'x' must be 4-D (N, C, H, W), but has shape {x.shape}")
    b = host(api, "boxes", boxes, ndim=2, last=4).astype(np.float64)
    if boxes_num is None:
        raise ValueError(f"{api}(): argument 'boxes_num' (boxes per image) is required")
    return b, batch_of_boxes(api, b, boxes_num, x.shape[0]), pair(api, "output_size", output_size)


def _per_image(x, batch, mats):
    """Stack over boxes of Ry[r] @ x[batch[r]] @ Rx[r]^T: [R, C, ph, pw] in box order."""
    ry, rx = mats
    outs, order = [], []
    for n in range(x.shape[0]):
        idx = np.nonzero(batch == n)[0]
        if idx.size == 0:
            continue
        a = to_tensor(ry[idx][:, None]).astype(x.dtype)  # [r,1,ph,H]
        b = to_tensor(np.swapaxes(rx[idx], 1, 2)[:, None]).astype(x.dtype)
        outs.append(matmul(matmul(a, x[n : n + 1]), b))  # [r,C,ph,pw]
        order.append(idx)
    if not outs:
        return None
    out = concat(outs, axis=0)
    perm = np.argsort(np.concatenate(order))
    return out if np.all(perm == np.arange(perm.size)) else index_select(out, to_tensor(perm))


def _empty(x, r, c, ph, pw):
    return zeros([r, c, ph, pw], dtype=x.dtype)


def _align_weights(start, size, pooled, grid, length):
    """[R, pooled, length] averaging weights of the bilinear samples along one axis: bin p
    of box r averages grid[r] samples at start + (p + (s + 0.5) / grid) * size / pooled."""
    r = start.shape[0]
    g = grid.astype(np.int64)
    gmax = max(int(g.max()), 1)
    s = np.arange(gmax)
    bin_ = (size / pooled)[:, None, None]
    y = (
        start[:, None, None]
        + np.arange(pooled)[None, :, None] * bin_
        + (s[None, None, :] + 0.5) * bin_ / g[:, None, None]
    )
    live = (s[None, None, :] < g[:, None, None]) & (y >= -1.0) & (y <= length)
    y = np.clip(y, 0.0, None)
    lo = np.floor(y).astype(np.int64)
    top = lo >= length - 1  # at the last row: all weight on it
    lo = np.where(top, length - 1, lo)
    frac = np.where(top, 0.0, y - lo)
    share = live / g[:, None, None]
    w = np.zeros((r, pooled, length))
    rows = np.broadcast_to(np.arange(r)[:, None, None], y.shape)
    bins = np.broadcast_to(np.arange(pooled)[None, :, None], y.shape)
    np.add.at(w, (rows, bins, lo), share * (1.0 - frac))
    np.add.at(w, (rows, bins, np.minimum(lo + 1, length - 1)), share * frac)
    return w


def roi_align(
    x: Tensor,
    boxes: Tensor,
    boxes_num: Tensor,
    output_size: IntsLike,
    spatial_scale: float = 1.0,
    sampling_ratio: int = -1,
    aligned: bool = True,
    name: str | None = None,
) -> Tensor:
    """RoIAlign (He et al., Mask R-CNN): each box (x1, y1, x2, y2, in input pixels times
    spatial_scale) is split into output_size bins, each the mean of sampling_ratio^2
    bilinear samples (adaptive: ceil(box size / bins) per axis when <= 0); aligned shifts
    the box by half a pixel. Returns [num_boxes, C, out_h, out_w]."""
    api = "roi_align"
    b, batch, (ph, pw) = _check(api, x, boxes, boxes_num, output_size)
    if b.shape[0] == 0:
        return _empty(x, 0, x.shape[1], ph, pw)
    off = 0.5 if aligned else 0.0
    x1, y1 = b[:, 0] * spatial_scale - off, b[:, 1] * spatial_scale - off
    w, h = b[:, 2] * spatial_scale - off - x1, b[:, 3] * spatial_scale - off - y1
    if not aligned:
        w, h = np.maximum(w, 1.0), np.maximum(h, 1.0)
    gy = np.full(h.shape, sampling_ratio) if sampling_ratio > 0 else np.ceil(h / ph)
    gx = np.full(w.shape, sampling_ratio) if sampling_ratio > 0 else np.ceil(w / pw)
    _, _, hh, ww = x.shape
    ry = _align_weights(y1, h, ph, np.maximum(gy, 1), hh) * (gy > 0)[:, None, None]
    rx = _align_weights(x1, w, pw, np.maximum(gx, 1), ww) * (gx > 0)[:, None, None]
    return _per_image(x, batch, (ry, rx))


def _ps_weights(start, size, pooled, length):
    """[R, pooled, length]: 1 / count over each bin's whole pixels (psroi_pool)."""
    r = start.shape[0]
    w = np.zeros((r, pooled, length))
    for i in range(r):
        bin_ = size[i] / pooled
        for p in range(pooled):
            lo = min(max(int(math.floor(bin_ * p + start[i])), 0), length)
            hi = min(max(int(math.ceil(bin_ * (p + 1) + start[i])), 0), length)
            if hi > lo:
                w[i, p, lo:hi] = 1.0 / (hi - lo)
    return w


def psroi_pool(
    x: Tensor,
    boxes: Tensor,
    boxes_num: Tensor,
    output_size: IntsLike,
    spatial_scale: float = 1.0,
    name: str | None = None,
) -> Tensor:
    """Position-sensitive RoI pooling (Dai et al., R-FCN): x has C = out_c * out_h * out_w
    channels; bin (i, j) of output channel c averages input channel
    (c * out_h + i) * out_w + j over the bin. Returns [num_boxes, out_c, out_h, out_w]."""
    api = "psroi_pool"
    b, batch, (ph, pw) = _check(api, x, boxes, boxes_num, output_size)
    c = x.shape[1]
    if c % (ph * pw):
        raise ValueError(
            f"{api}(): the channels of x ({c}) must be a multiple of output_size's area ({ph}x{pw})"
        )
    oc = c // (ph * pw)
    if b.shape[0] == 0:
        return _empty(x, 0, oc, ph, pw)
    x1, y1 = c_round(b[:, 0]) * spatial_scale, c_round(b[:, 1]) * spatial_scale
    x2, y2 = (c_round(b[:, 2]) + 1.0) * spatial_scale, (c_round(b[:, 3]) + 1.0) * spatial_scale
    h, w = np.maximum(y2 - y1, 0.1), np.maximum(x2 - x1, 0.1)
    full = _per_image(
        x, batch, (_ps_weights(y1, h, ph, x.shape[2]), _ps_weights(x1, w, pw, x.shape[3]))
    )  # [R, C, ph, pw]
    r = full.shape[0]
    chan = (np.arange(oc)[:, None, None] * ph + np.arange(ph)[None, :, None]) * pw + np.arange(pw)[
        None, None, :
    ]  # [oc, ph, pw]
    flat = _C.reshape(full, [r, c, ph * pw])
    pick = np.broadcast_to(chan.reshape(1, oc, ph * pw), (r, oc, ph * pw))
    spot = np.broadcast_to(np.arange(ph * pw), (r, oc, ph * pw))
    gathered = take_along_axis(flat, to_tensor(pick.astype(np.int64)), 1)  # [r, oc, ph*pw]
    out = take_along_axis(gathered, to_tensor(np.ascontiguousarray(spot).astype(np.int64)), 2)
    return _C.reshape(out, [r, oc, ph, pw])


def roi_pool(
    x: Tensor,
    boxes: Tensor,
    boxes_num: Tensor,
    output_size: IntsLike,
    spatial_scale: float = 1.0,
    name: str | None = None,
) -> Tensor:
    """RoI max pooling (Girshick, Fast R-CNN): each box (rounded to whole pixels after
    spatial_scale) is split into output_size bins and each bin keeps its maximum; empty
    bins are 0. Returns [num_boxes, C, out_h, out_w]."""
    api = "roi_pool"
    b, batch, (ph, pw) = _check(api, x, boxes, boxes_num, output_size)
    n, c, hh, ww = x.shape
    r = b.shape[0]
    if r == 0:
        return _empty(x, 0, c, ph, pw)
    xs = x.numpy()
    idx = np.zeros((r, c, ph, pw), np.int64)
    valid = np.zeros((r, 1, ph, pw), bool)
    s = c_round(b * spatial_scale).astype(np.int64)
    for i in range(r):
        x1, y1, x2, y2 = s[i]
        bh, bw = max(y2 - y1 + 1, 1) / ph, max(x2 - x1 + 1, 1) / pw
        plane = xs[batch[i]]
        for p in range(ph):
            h0 = min(max(int(math.floor(p * bh)) + y1, 0), hh)
            h1 = min(max(int(math.ceil((p + 1) * bh)) + y1, 0), hh)
            for q in range(pw):
                w0 = min(max(int(math.floor(q * bw)) + x1, 0), ww)
                w1 = min(max(int(math.ceil((q + 1) * bw)) + x1, 0), ww)
                if h1 <= h0 or w1 <= w0:
                    continue
                win = plane[:, h0:h1, w0:w1].reshape(c, -1)
                k = np.argmax(win, axis=1)
                rows, cols = h0 + k // (w1 - w0), w0 + k % (w1 - w0)
                idx[i, :, p, q] = ((batch[i] * c + np.arange(c)) * hh + rows) * ww + cols
                valid[i, 0, p, q] = True
    vals = index_select(_C.reshape(x, [-1]), to_tensor(idx.reshape(-1)))
    out = _C.reshape(vals, [r, c, ph, pw])
    return out if valid.all() else out * to_tensor(valid.astype(np.float32)).astype(x.dtype)


class RoIAlign(nn.Layer):
    """roi_align as a layer: forward(x, boxes, boxes_num, aligned=True)."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(
            x, boxes, boxes_num, self._output_size, self._spatial_scale, aligned=aligned
        )


class RoIPool(nn.Layer):
    """roi_pool as a layer: forward(x, boxes, boxes_num)."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


class PSRoIPool(nn.Layer):
    """psroi_pool as a layer: forward(x, boxes, boxes_num)."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self.output_size, self.spatial_scale)
