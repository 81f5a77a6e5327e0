"""affine_grid and grid_sample (Paddle's paddle.nn.functional.vision), for 4-D and 5-D
inputs, as compositions of differentiable ops.

affine_grid maps a base grid of normalised coordinates in [-1, 1] through theta with
one batched matmul. grid_sample turns the normalised coordinates of grid into pixel
positions (align_corners decides whether -1 and 1 are the centres or the outer edges
of the corner pixels), applies the padding mode to the positions (border clamps them,
reflection folds them back into the image), and gathers the 2 ** nd neighbours of each
position from the flattened planes of x, weighted linearly (bilinear) or the nearest
one (nearest). The gathers are differentiable in x and the weights in grid; out-of-range
neighbours count as zeros (padding_mode 'zeros').
"""

from __future__ import annotations

import numpy as np

from ... import _C
from ...framework import check as C
from ...framework.typing import ShapeLike, Tensor
from ...tensor.creation import to_tensor
from ...framework.dtype import convert_dtype

__all__ = ["affine_grid", "grid_sample"]


def _base_coords(n, align_corners):
    """The n normalised coordinates of a dim of n pixels."""
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return (np.arange(n) * 2.0 + 1.0) / n - 1.0


def affine_grid(
    theta: Tensor, out_shape: ShapeLike, align_corners: bool = True, name: str | None = None
) -> Tensor:
    """The sampling grid of the affine maps theta ([N, 2, 3] for a 4-D out_shape
    [N, C, H, W], [N, 3, 4] for [N, C, D, H, W]): [N, H, W, 2] ((x, y) per pixel) or
    [N, D, H, W, 3]."""
    api = "affine_grid"
    C.tensor(api, "theta", theta)
    if isinstance(out_shape, _C.Tensor):
        out_shape = [int(v) for v in out_shape.numpy().reshape(-1)]
    if not isinstance(out_shape, (list, tuple)) or len(out_shape) not in (4, 5):
        raise ValueError(
            f"{api}(): argument 'out_shape' must be [N, C, H, W] or "
            f"[N, C, D, H, W], but got {out_shape!r}"
        )
    out_shape = [C.integer(api, "out_shape", v) for v in out_shape]
    if min(out_shape) < 0:
        raise ValueError(
            f"{api}(): argument 'out_shape' must not hold negative sizes, but got {out_shape}"
        )
    nd = len(out_shape) - 2
    n = out_shape[0]
    if list(theta.shape) != [n, nd, nd + 1]:
        raise ValueError(
            f"{api}(): argument 'theta' has shape {theta.shape} but must be "
            f"[{n}, {nd}, {nd + 1}] for out_shape {out_shape}"
        )
    if not theta.dtype.is_floating_point:
        raise TypeError(
            f"{api}(): argument 'theta' must be a floating tensor, but got {theta.dtype.name}"
        )
    sizes = out_shape[2:]  # D, H, W
    if n == 0:  # the base grid (numpy, sizes large as they like) would serve no batch
        return C.reshape_exact(theta, [n] + sizes + [nd])
    # base[..., k] is the coordinate along x (W), y (H), z (D), then 1 for the offset
    axes = [_base_coords(s, align_corners) for s in sizes]
    mesh = np.meshgrid(*axes, indexing="ij")  # each of shape sizes
    base = np.stack([m for m in reversed(mesh)] + [np.ones(sizes)], axis=-1)
    base = to_tensor(base.reshape(1, -1, nd + 1)).astype(theta.dtype)
    grid = _C.matmul(_C.expand(base, [n] + list(base.shape[1:])), theta, False, True)
    return C.reshape_exact(grid, [n] + sizes + [nd])


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return _C.scale(coord, (size - 1) / 2.0, (size - 1) / 2.0)
    return _C.scale(coord, size / 2.0, (size - 1) / 2.0)


def _reflect(pos, low2, high2):
    """pos folded into [low2 / 2, high2 / 2] by reflection at the ends."""
    if low2 == high2:
        return _C.full_like(pos, 0.0)
    lo, span = low2 / 2.0, (high2 - low2) / 2.0
    d = _C.abs(_C.scale(pos, 1.0, -lo))
    flips = _C.floor(_C.scale(d.detach(), 1.0 / span))
    extra = d - _C.scale(flips, span)
    even = _C.equal(_C.remainder(flips, _C.full_like(flips, 2.0)), _C.full_like(flips, 0.0))
    return _C.where(even, _C.scale(extra, 1.0, lo), _C.scale(extra, -1.0, span + lo))


def _pad_positions(pos, size, padding_mode, align_corners):
    if padding_mode == "border":
        return _C.clip(pos, 0.0, float(size - 1))
    if padding_mode == "reflection":
        if align_corners:
            pos = _reflect(pos, 0.0, 2.0 * (size - 1))
        else:
            pos = _reflect(pos, -1.0, 2.0 * size - 1.0)
        return _C.clip(pos, 0.0, float(size - 1))
    return pos


def grid_sample(
    x: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool = True,
    name: str | None = None,
) -> Tensor:
    """Samples x [N, C, H, W] at the normalised positions grid [N, Ho, Wo, 2] ((x, y) in
    [-1, 1]), or x [N, C, D, H, W] at grid [N, Do, Ho, Wo, 3]; returns [N, C, Ho, Wo]
    (or [N, C, Do, Ho, Wo])."""
    api = "grid_sample"
    C.tensor(api, "x", x)
    C.tensor(api, "grid", grid)
    if mode not in ("bilinear", "nearest"):
        raise ValueError(
            f"{api}(): argument 'mode' must be 'bilinear' or 'nearest', but got {mode!r}"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            f"{api}(): argument 'padding_mode' must be 'zeros', 'border' or "
            f"'reflection', but got {padding_mode!r}"
        )
    if x.ndim not in (4, 5):
        raise ValueError(f"{api}(): argument 'x' must be 4-D or 5-D, but has shape {x.shape}")
    nd = x.ndim - 2
    if grid.ndim != x.ndim or grid.shape[0] != x.shape[0] or grid.shape[-1] != nd:
        raise ValueError(
            f"{api}(): argument 'grid' has shape {grid.shape} but must be "
            f"[{x.shape[0]}, *out_spatial, {nd}] for x of shape {x.shape}"
        )
    if grid.dtype != x.dtype:
        grid = _C.cast(grid, x.dtype)
    n, c = x.shape[0], x.shape[1]
    sizes = list(x.shape[2:])  # D, H, W
    out_spatial = list(grid.shape[1:-1])
    m = int(np.prod(out_spatial, dtype=np.int64))
    g = C.reshape_exact(grid, [n, m, nd])
    # positions along W, H, D (the grid's x, y, z), each [N, M]
    pos = []
    for k in range(nd):
        size = sizes[nd - 1 - k]
        coord = _C.squeeze(_C.slice(g, [2], [k], [k + 1]), [2])
        pos.append(
            _pad_positions(
                _unnormalize(coord, size, align_corners), size, padding_mode, align_corners
            )
        )
    strides = [int(np.prod(sizes[nd - k :], dtype=np.int64)) for k in range(nd)]  # W:1, H:W, D:HW
    planes = C.reshape_exact(x, [n, c, int(np.prod(sizes, dtype=np.int64))])
    if mode == "nearest":
        taps = [[(_C.round(p.detach()), None)] for p in pos]
    else:
        taps = []
        for p in pos:
            lo = _C.floor(p.detach())
            frac = p - lo
            taps.append([(lo, _C.scale(frac, -1.0, 1.0)), (_C.scale(lo, 1.0, 1.0), frac)])
    out = None
    for corner in range(2**nd if mode == "bilinear" else 1):
        index, weight, inside = None, None, None
        for k in range(nd):
            where, w = taps[k][(corner >> k) & 1] if mode == "bilinear" else taps[k][0]
            size = sizes[nd - 1 - k]
            ok = _C.logical_and(
                _C.greater_equal(where, _C.full_like(where, 0.0)),
                _C.less_equal(where, _C.full_like(where, float(size - 1))),
            )
            inside = ok if inside is None else _C.logical_and(inside, ok)
            term = _C.scale(_C.clip(where, 0.0, float(size - 1)), float(strides[k]))
            index = term if index is None else index + term
            if w is not None:
                weight = w if weight is None else weight * w
        index = _C.expand(_C.unsqueeze(_C.cast(index, _int64()), [1]), [n, c, m])
        value = _C.take_along_axis(planes, index, 2)
        keep = _C.unsqueeze(_C.cast(inside, x.dtype), [1])
        if weight is not None:
            keep = keep * _C.unsqueeze(weight, [1])
        term = value * keep
        out = term if out is None else out + term
    return C.reshape_exact(out, [n, c] + out_spatial)


def _int64():
    return convert_dtype("int64")
