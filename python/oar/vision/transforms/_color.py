"""Tensor and float-array kernels of oar.vision.transforms.functional: padding, resizing,
greyscale, blending (brightness, contrast, saturation) and the hue shift.

Tensor images are [..., C, H, W]; float Tensors hold values in [0, 1], integer ones in
[0, 255] (Paddle's convention). The Tensor functions here are oar ops, so they keep
gradients; the hue shift works on numpy arrays.
"""

from __future__ import annotations

import numpy as np

from ... import _C
from ...tensor.creation import to_tensor
from ..._C import index_select
from ...nn.functional import pad as _pad
from ...nn.functional import interpolate

# Paddle's weights for Tensor images (PIL's 'L' conversion uses 0.299/0.587/0.114)
_TENSOR_LUMA = (0.2989, 0.5870, 0.1140)


def _float(img):
    return img if img.dtype.is_floating_point else _C.cast(img, "float32")


def _back(out, img):
    return out if img.dtype == out.dtype else _C.cast(out, img.dtype)


def pad_tensor(img, ltrb, fill, mode):
    left, top, right, bottom = ltrb
    if mode != "constant":
        out = img
        for axis, (before, after) in ((-2, (top, bottom)), (-1, (left, right))):
            n = out.shape[axis]
            if mode == "reflect" and max(before, after) >= n:
                raise ValueError(
                    f"pad(): reflect padding ({max(before, after)}) must be smaller "
                    f"than the image side ({n})"
                )
            idx = np.pad(np.arange(n, dtype=np.int64), (before, after), mode=mode)
            out = index_select(out, to_tensor(idx), axis=out.ndim + axis)
        return out
    fills = np.asarray(fill, np.float64).reshape(-1)
    c = img.shape[-3]
    if fills.size not in (1, c) and fills.size < c:
        raise ValueError(f"pad(): argument 'fill' must be a number or {c} values, but got {fill!r}")
    x = img[None] if img.ndim == 3 else img
    flat = _C.reshape(x, [-1] + list(x.shape[-3:]))
    out = _pad(
        _float(flat) if fills.size > 1 else flat,
        [left, right, top, bottom],
        value=float(fills[0]) if fills.size == 1 else 0.0,
    )
    if fills.size > 1:
        h, w = out.shape[-2:]
        border = np.ones((h, w), np.float64)
        border[top : top + img.shape[-2], left : left + img.shape[-1]] = 0.0
        add = fills[:c].reshape(-1, 1, 1) * border[None]
        out = _back(out + to_tensor(add.astype(np.float32)).astype(out.dtype), img)
    return _C.reshape(out, list(img.shape[:-2]) + list(out.shape[-2:]))


def resize_tensor(img, oh, ow, interpolation):
    if interpolation not in ("nearest", "bilinear", "bicubic"):
        raise ValueError(
            f"resize(): argument 'interpolation' must be nearest, bilinear or "
            f"bicubic for a Tensor image, but got {interpolation!r}"
        )
    x = img[None] if img.ndim == 3 else _C.reshape(img, [-1] + list(img.shape[-3:]))
    out = interpolate(_float(x), size=[oh, ow], mode=interpolation)
    if not img.dtype.is_floating_point:
        out = _C.round(out)
    return _C.reshape(_back(out, img), list(img.shape[:-2]) + [oh, ow])


def grayscale_tensor(img, channels):
    x = _float(img)
    if x.shape[-3] < 3:
        g = x[..., :1, :, :]
    else:
        w = to_tensor(np.asarray(_TENSOR_LUMA, np.float32).reshape(3, 1, 1)).astype(x.dtype)
        g = _C.sum(x[..., :3, :, :] * w, axis=[-3], keepdim=True)
    shape = list(g.shape)
    shape[-3] = channels
    return _back(_C.expand(g, shape), img)


def _degenerate_tensor(x, kind):
    if kind == "brightness":
        return None
    g = grayscale_tensor(x, 1)
    if kind == "contrast":
        return _C.mean(g, axis=[-3, -2, -1], keepdim=True)
    return g


def blend_tensor(img, factor, kind):
    """degenerate + factor * (img - degenerate), clipped to the image's value range."""
    x = _float(img)
    top = 1.0 if img.dtype.is_floating_point else 255.0
    d = _degenerate_tensor(x, kind)
    out = x * float(factor) if d is None else d + (x - d) * float(factor)
    return _back(_C.clip(out, 0.0, top), img)


def luma(x):
    """ITU-R 601-2 luma of a [C >= 3, H, W] float array: [H, W]."""
    return 0.299 * x[0] + 0.587 * x[1] + 0.114 * x[2]


def blend_array(x, factor, kind, top):
    if kind == "brightness":
        out = x * factor
    else:
        g = luma(x) if x.shape[0] >= 3 else x[0]
        d = np.full_like(g, g.mean()) if kind == "contrast" else g
        out = d[None] + (x - d[None]) * factor
    return np.clip(out, 0.0, top)


def shift_hue(x, factor):
    """Hue of a [C, H, W] array in [0, 1] turned by factor (alpha and grey kept)."""
    if x.shape[0] < 3:
        return x
    r, g, b = x[0], x[1], x[2]
    maxc, minc = np.maximum(np.maximum(r, g), b), np.minimum(np.minimum(r, g), b)
    delta = maxc - minc
    safe = np.where(delta > 0, delta, 1.0)
    s = np.where(maxc > 0, delta / np.where(maxc > 0, maxc, 1.0), 0.0)
    h = np.where(
        maxc == r, (g - b) / safe, np.where(maxc == g, 2.0 + (b - r) / safe, 4.0 + (r - g) / safe)
    )
    h = np.where(delta > 0, (h / 6.0) % 1.0, 0.0)
    h = (h + factor) % 1.0
    v = maxc
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    i = i.astype(np.int64) % 6
    choose = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    rgb = [np.select([i == k for k in range(6)], [c[ch] for c in choose]) for ch in range(3)]
    return np.concatenate([np.stack(rgb), x[3:]], axis=0)
