"""Geometric resampling of channels-first numpy images for oar.vision.transforms.

Coordinates are continuous pixel coordinates with pixel (i, j) covering [j, j + 1) x
[i, i + 1), so its centre is (j + 0.5, i + 0.5): the convention of PIL's
Image.transform and of Paddle's grid_sample-based tensor transforms (align_corners=False).
Every warp is an inverse map: each output pixel centre is mapped back into the input and
sampled there (nearest or bilinear), points outside the input take `fill`.
"""

from __future__ import annotations

import math

import numpy as np

MODES = ("nearest", "bilinear")


def _rotation(deg):
    """The matrix turning image coordinates (y down) clockwise on screen by deg."""
    t = math.radians(deg)
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def affine_inverse(center, angle, translate, scale, shear):
    """(2, 3) matrix mapping output to input coordinates for Paddle's affine: the image is
    scaled by `scale`, sheared by shear = (sx, sy) degrees, turned by `angle` degrees
    clockwise about `center` and moved by `translate` pixels."""
    sx, sy = (math.radians(s) for s in shear)
    shear_x = np.array([[1.0, -math.tan(sx)], [0.0, 1.0]])
    shear_y = np.array([[1.0, 0.0], [-math.tan(sy), 1.0]])
    forward = scale * _rotation(angle) @ shear_y @ shear_x
    inv = np.linalg.inv(forward)
    c = np.asarray(center, np.float64)
    shift = c - inv @ (c + np.asarray(translate, np.float64))
    return np.concatenate([inv, shift[:, None]], axis=1)


def rotate_inverse(angle, in_size, center=None, expand=False):
    """(matrix, (out_w, out_h)) of a counter-clockwise turn by angle degrees about center
    (default: the image centre); expand grows the output to hold the whole turned image."""
    w, h = in_size
    c = np.array([w * 0.5, h * 0.5]) if center is None else np.asarray(center, np.float64)
    inv = _rotation(angle)  # output -> input turns clockwise, the inverse of the turn
    ow, oh = w, h
    if expand:
        corners = np.array([[-w, -h], [-w, h], [w, h], [w, -h]], np.float64) * 0.5
        turned = corners @ _rotation(-angle).T
        lo, hi = np.floor(turned.min(0) + 1e-9), np.ceil(turned.max(0) - 1e-9)
        ow, oh = int(hi[0] - lo[0]), int(hi[1] - lo[1])
    out_c = np.array([ow * 0.5, oh * 0.5]) + (c - np.array([w * 0.5, h * 0.5]))
    shift = c - inv @ out_c
    return np.concatenate([inv, shift[:, None]], axis=1), (ow, oh)


def perspective_coeffs(startpoints, endpoints):
    """The 8 coefficients (a..h) of the map output -> input taking each endpoint to its
    startpoint: u = (a x + b y + c) / (g x + h y + 1), v = (d x + e y + f) / (g x + h y + 1)."""
    rows, rhs = [], []
    for (sx, sy), (ex, ey) in zip(startpoints, endpoints):
        rows.append([ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey])
        rhs.append(sx)
        rows.append([0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey])
        rhs.append(sy)
    sol = np.linalg.lstsq(np.asarray(rows, np.float64), np.asarray(rhs, np.float64), rcond=None)[0]
    return [float(v) for v in sol]


def _grid(out_w, out_h):
    x = np.arange(out_w, dtype=np.float64) + 0.5
    y = np.arange(out_h, dtype=np.float64) + 0.5
    return np.meshgrid(x, y)


def affine_points(matrix, out_w, out_h):
    m = np.asarray(matrix, np.float64).reshape(2, 3)
    x, y = _grid(out_w, out_h)
    return m[0, 0] * x + m[0, 1] * y + m[0, 2], m[1, 0] * x + m[1, 1] * y + m[1, 2]


def perspective_points(coeffs, out_w, out_h):
    a, b, c, d, e, f, g, h = coeffs
    x, y = _grid(out_w, out_h)
    den = g * x + h * y + 1.0
    return (a * x + b * y + c) / den, (d * x + e * y + f) / den


def sample(img, u, v, mode, fill, grid_sample_fill=False):
    """img [C, H, W] (float) read at input coordinates (u, v) [oh, ow]: [C, oh, ow].

    Bilinear samples partly outside the image blend their in-image part with fill:
    sample + (1 - coverage) * fill, as OpenCV's constant border does; with
    grid_sample_fill, sample * coverage + (1 - coverage) * fill, as Paddle's (and
    torchvision's) Tensor path does with grid_sample's coverage mask."""
    if mode not in MODES:
        raise ValueError(
            f"interpolation must be one of {MODES} for numpy and Tensor images "
            f"(bicubic and the others are PIL's: pass a PIL image), got {mode!r}"
        )
    c, h, w = img.shape
    fill = np.asarray(fill, np.float64).reshape(-1)
    if fill.size != 1 and fill.size < c:
        raise ValueError(
            f"fill must be a number or one value per channel ({c}), got {fill.size} values"
        )
    fill = (fill if fill.size == 1 else fill[:c]).reshape(-1, 1, 1)
    px, py = u - 0.5, v - 0.5
    if mode == "nearest":
        ix, iy = np.rint(px).astype(np.int64), np.rint(py).astype(np.int64)
        ok = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        out = img[:, np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)]
        return np.where(ok[None], out, fill)
    x0, y0 = np.floor(px).astype(np.int64), np.floor(py).astype(np.int64)
    fx, fy = px - x0, py - y0
    out = np.zeros((c,) + u.shape, np.float64)
    covered = np.zeros(u.shape, np.float64)
    for dy, wy in ((0, 1.0 - fy), (1, fy)):
        for dx, wx in ((0, 1.0 - fx), (1, fx)):
            xi, yi = x0 + dx, y0 + dy
            ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
            wgt = np.where(ok, wx * wy, 0.0)
            out += img[:, np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)] * wgt[None]
            covered += wgt
    if grid_sample_fill:
        out = out * covered[None]
    return out + (1.0 - covered)[None] * fill
