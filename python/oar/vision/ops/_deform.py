"""Deformable convolution v1/v2 (Dai et al. 2017, Zhu et al. 2019) as a composition of
differentiable oar ops: each kernel tap reads x bilinearly at its offset position (four
gathers whose weights are differentiable in the offsets), the mask scales the taps (v2),
and one grouped matmul with the weight finishes. Gradients reach x, offset, mask, weight
and bias, to any order."""

from __future__ import annotations

import numpy as np

from ... import _C, nn
from ...framework.typing import IntsLike, Tensor
from ._common import pair, tensor, to_tensor
from ..._C import floor, matmul, take_along_axis


def _out_len(n, k, s, p, d):
    return (n + 2 * p - (d * (k - 1) + 1)) // s + 1


def deform_conv2d(
    x: Tensor,
    offset: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntsLike = 1,
    padding: IntsLike = 0,
    dilation: IntsLike = 1,
    deformable_groups: int = 1,
    groups: int = 1,
    mask: Tensor | None = None,
    name: str | None = None,
) -> Tensor:
    """Deformable 2-D convolution. x [N, C, H, W]; offset [N, 2 * dg * kh * kw, Ho, Wo]
    (a (dy, dx) pair per deformable group and tap); weight [Cout, C / groups, kh, kw];
    mask [N, dg * kh * kw, Ho, Wo] (v2) or None (v1). Samples outside x read 0."""
    api = "deform_conv2d"
    for nm, v in (("x", x), ("offset", offset), ("weight", weight)):
        tensor(api, nm, v)
    if x.ndim != 4 or weight.ndim != 4 or offset.ndim != 4:
        raise ValueError(
            f"{api}(): x, offset and weight must be 4-D, but have shapes "
            f"{x.shape}, {offset.shape}, {weight.shape}"
        )
    n, c, h, w = x.shape
    cout, cg, kh, kw = weight.shape
    (sh, sw), (ph, pw), (dh, dw) = (
        pair(api, "stride", stride),
        pair(api, "padding", padding),
        pair(api, "dilation", dilation),
    )
    dg = int(deformable_groups)
    if groups < 1 or c % groups or cout % groups or cg * groups != c:
        raise ValueError(
            f"{api}(): weight {weight.shape} does not fit x's {c} channels in {groups} groups"
        )
    if dg < 1 or c % dg:
        raise ValueError(f"{api}(): deformable_groups ({dg}) must divide the channels ({c})")
    ho, wo = _out_len(h, kh, sh, ph, dh), _out_len(w, kw, sw, pw, dw)
    k = kh * kw
    if list(offset.shape) != [n, 2 * dg * k, ho, wo]:
        raise ValueError(
            f"{api}(): argument 'offset' must have shape "
            f"{[n, 2 * dg * k, ho, wo]}, but has {offset.shape}"
        )
    if mask is not None and list(tensor(api, "mask", mask).shape) != [n, dg * k, ho, wo]:
        raise ValueError(
            f"{api}(): argument 'mask' must have shape {[n, dg * k, ho, wo]}, but has {mask.shape}"
        )
    dt = x.dtype
    off = _C.reshape(offset, [n, dg, k, 2, ho * wo])
    oy, ox = off[:, :, :, 0, :], off[:, :, :, 1, :]  # [n, dg, k, L]
    ty, tx = np.divmod(np.arange(k), kw)
    base_y = (np.arange(ho) * sh - ph)[None, :, None] + (ty * dh)[:, None, None]
    base_x = (np.arange(wo) * sw - pw)[None, None, :] + (tx * dw)[:, None, None]
    base_y = np.broadcast_to(base_y, (k, ho, wo)).reshape(k, ho * wo)
    base_x = np.broadcast_to(base_x, (k, ho, wo)).reshape(k, ho * wo)
    py = oy + to_tensor(base_y.astype(np.float32)).astype(dt)
    px = ox + to_tensor(base_x.astype(np.float32)).astype(dt)
    y0, x0 = floor(py), floor(px)
    fy, fx = py - y0, px - x0
    y0n, x0n = y0.numpy().astype(np.int64), x0.numpy().astype(np.int64)
    pyn, pxn = py.numpy(), px.numpy()
    inside = (pyn > -1) & (pxn > -1) & (pyn < h) & (pxn < w)
    xg = _C.reshape(x, [n, dg, c // dg, h * w])
    cols = None
    for dy, wy in ((0, 1.0 - fy), (1, fy)):
        for dx, wx in ((0, 1.0 - fx), (1, fx)):
            yy, xx = y0n + dy, x0n + dx
            ok = inside & (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
            flat = np.clip(yy, 0, h - 1) * w + np.clip(xx, 0, w - 1)
            flat = flat.reshape(n, dg, 1, k * ho * wo)
            vals = take_along_axis(xg, to_tensor(flat), 3)  # [n, dg, cg', kL]
            wgt = wy * wx * to_tensor(ok.astype(np.float32)).astype(dt)  # [n, dg, k, L]
            term = vals * _C.reshape(wgt, [n, dg, 1, k * ho * wo])
            cols = term if cols is None else cols + term
    if mask is not None:
        cols = cols * _C.reshape(mask, [n, dg, 1, k * ho * wo])
    cols = _C.reshape(cols, [n, groups, cg * k, ho * wo])  # (c, k) order
    wmat = _C.reshape(weight, [1, groups, cout // groups, cg * k])
    out = _C.reshape(matmul(wmat, cols), [n, cout, ho, wo])
    if bias is not None:
        out = out + _C.reshape(tensor(api, "bias", bias), [1, cout, 1, 1])
    return out


class DeformConv2D(nn.Layer):
    """deform_conv2d as a layer with weight [out, in / groups, kh, kw] and bias [out];
    forward(x, offset, mask=None)."""

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        deformable_groups=1,
        groups=1,
        weight_attr=None,
        bias_attr=None,
    ):
        super().__init__()
        kh, kw = pair("DeformConv2D", "kernel_size", kernel_size)
        if in_channels % groups:
            raise ValueError(
                f"DeformConv2D: in_channels ({in_channels}) must be divisible by groups ({groups})"
            )
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._deformable_groups, self._groups = deformable_groups, groups
        fan_in = in_channels // groups * kh * kw
        std = (2.0 / fan_in) ** 0.5
        self.weight = self.create_parameter(
            [out_channels, in_channels // groups, kh, kw],
            attr=weight_attr,
            default_initializer=nn.initializer.Normal(0.0, std),
        )
        self.bias = (
            None
            if bias_attr is False
            else self.create_parameter([out_channels], attr=bias_attr, is_bias=True)
        )

    def forward(self, x, offset, mask=None):
        return deform_conv2d(
            x,
            offset,
            self.weight,
            self.bias,
            self._stride,
            self._padding,
            self._dilation,
            self._deformable_groups,
            self._groups,
            mask,
        )
