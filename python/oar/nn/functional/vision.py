"""oar.nn.functional: pixel_shuffle, pixel_unshuffle, channel_shuffle (reshapes and one
transpose) and affine_grid / grid_sample (Paddle's paddle.nn.functional.vision)."""

from __future__ import annotations

from ... import _C
from ...framework import check as C
from ...framework.typing import Tensor

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "affine_grid", "grid_sample"]


def _nchw(api, x, data_format):
    C.tensor(api, "x", x)
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(
            f"{api}(): argument 'data_format' must be 'NCHW' or 'NHWC', but got {data_format!r}"
        )
    if x.ndim != 4:
        raise ValueError(f"{api}(): argument 'x' must be 4-D, but has shape {x.shape}")
    return _C.transpose(x, [0, 3, 1, 2]) if data_format == "NHWC" else x


def _back(y, data_format):
    return _C.transpose(y, [0, 2, 3, 1]) if data_format == "NHWC" else y


def pixel_shuffle(
    x: Tensor, upscale_factor: int, data_format: str = "NCHW", name: str | None = None
) -> Tensor:
    api = "pixel_shuffle"
    x = _nchw(api, x, data_format)
    r = C.integer(api, "upscale_factor", upscale_factor)
    n, c, h, w = x.shape
    if r <= 0 or c % (r * r) != 0:
        raise ValueError(
            f"{api}(): argument 'upscale_factor' ({r}) squared must divide the channels ({c})"
        )
    oc = c // (r * r)
    y = C.reshape_exact(x, [n, oc, r, r, h, w])
    y = _C.transpose(y, [0, 1, 4, 2, 5, 3])
    return _back(C.reshape_exact(y, [n, oc, h * r, w * r]), data_format)


def pixel_unshuffle(
    x: Tensor, downscale_factor: int, data_format: str = "NCHW", name: str | None = None
) -> Tensor:
    api = "pixel_unshuffle"
    x = _nchw(api, x, data_format)
    r = C.integer(api, "downscale_factor", downscale_factor)
    n, c, h, w = x.shape
    if r <= 0 or h % r or w % r:
        raise ValueError(
            f"{api}(): argument 'downscale_factor' ({r}) must divide the height "
            f"({h}) and width ({w})"
        )
    y = C.reshape_exact(x, [n, c, h // r, r, w // r, r])
    y = _C.transpose(y, [0, 1, 3, 5, 2, 4])
    return _back(C.reshape_exact(y, [n, c * r * r, h // r, w // r]), data_format)


def channel_shuffle(
    x: Tensor, groups: int, data_format: str = "NCHW", name: str | None = None
) -> Tensor:
    """Splits the channels into groups and interleaves them: [N, g * k, H, W] viewed as
    [N, g, k, H, W], transposed to [N, k, g, H, W] and flattened back."""
    api = "channel_shuffle"
    x = _nchw(api, x, data_format)
    g = C.integer(api, "groups", groups)
    n, c, h, w = x.shape
    if g <= 0 or c % g:
        raise ValueError(
            f"{api}(): argument 'groups' ({g}) must be positive and divide the {c} channels"
        )
    y = _C.transpose(C.reshape_exact(x, [n, g, c // g, h, w]), [0, 2, 1, 3, 4])
    return _back(C.reshape_exact(y, [n, c, h, w]), data_format)


from ._grid import affine_grid, grid_sample  # noqa: E402
