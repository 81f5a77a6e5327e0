"""Fractional max pooling (Paddle's fractional_max_pool2d/3d; Graham, Fractional
Max-Pooling, 2014).

The windows of each spatial dim follow Paddle's pseudo-random sequence: with
alpha = (n - k) / (out - 1) for a kernel k, or n / out without one (then u is scaled
into the range that keeps every window inside the input), window i starts at
int((i + u) * alpha) - int(u * alpha) and is k long, or ends where window i + 1
starts. The arithmetic is float32, as Paddle's kernel, so the same u gives the same
windows. One u serves every dim and every plane.

The windows are irregular, so the pooling is written with gathers: every window is
padded to the longest by repeating its last element, the values are gathered flat
from each (n, c) plane, the argmax picks the flat position, and pool_gather reads the
output through it (its backward scatters the gradient to the maxima, to any order).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ... import _C
from ...framework import check as _check
from ...framework.typing import Tensor
from ...tensor.creation import to_tensor
from ...framework.dtype import convert_dtype, float32
from . import _window as W

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]


def _sizes(api, name, v, nd, x_sizes):
    """Paddle's output_size/kernel_size: an int or nd entries (None keeps the input's size)."""
    if isinstance(v, (list, tuple)):
        if len(v) != nd:
            raise ValueError(
                f"{api}(): argument '{name}' must be an int or {nd} values, but got {v!r}"
            )
        v = [n if e is None else e for e, n in zip(v, x_sizes)]
    return W.int_list(api, name, v, nd)


def _windows(n, out, k, u):
    """(start, end) arrays of the out windows over a dim of size n."""
    f = np.float32
    alpha = f(0.0)
    denom = out - (1 if k > 0 else 0)
    if denom > 0:
        alpha = f(f(n - k) / f(denom))
    if k == 0 and alpha > 0:
        base = n // out
        u_max = min(f(f(base + 2) / alpha - f(1)), f(f(n + 1 - base) / alpha - f(out - 1)))
        u = f(f(u) * u_max)
    else:
        u = f(u)
    i = np.arange(out, dtype=np.float32)
    shift = int(f(u * alpha))
    start = ((i + u) * alpha).astype(np.int64) - shift
    if k > 0:
        end = start + k
    else:
        end = ((i + f(1) + u) * alpha).astype(np.int64) - shift
    return np.maximum(start, 0), np.minimum(end, n)


def _fractional(api, nd, x, output_size, kernel_size, random_u, return_mask):
    W.check_input(api, x, nd, W._FORMATS[nd][0])
    spatial = list(x.shape[2:])
    out = _sizes(api, "output_size", output_size, nd, spatial)
    kernel = (
        [0] * nd if kernel_size is None else _sizes(api, "kernel_size", kernel_size, nd, spatial)
    )
    for d, (n, o, k) in enumerate(zip(spatial, out, kernel)):
        if n < o - 1 + k or (k == 0 and o > n):
            raise ValueError(
                f"{api}(): the input size {n} of spatial dim {d} is too small for "
                f"output size {o}" + (f" and kernel size {k}" if k else "")
            )
    if random_u is None or random_u == 0:  # Paddle: 0 also means "draw one"
        u = float(_C.uniform([1], float32, 0.0, 1.0, 0).item())
    else:
        u = float(_check.number(api, "random_u", random_u))
        if not 0.0 < u < 1.0:
            raise ValueError(f"{api}(): argument 'random_u' must be in (0, 1), but got {u}")
    # per dim: the positions each window reads, padded with its last one
    taps = []
    for n, o, k in zip(spatial, out, kernel):
        start, end = _windows(n, o, k, u)
        width = int(max((end - start).max(), 1))
        j = np.arange(width)
        taps.append(np.minimum(start[:, None] + j[None, :], np.maximum(end - 1, start)[:, None]))
    # flat positions in the plane: [prod(out), prod(widths)]
    flat = np.zeros([1, 1], dtype=np.int64)
    for d, t in enumerate(taps):
        stride = int(np.prod(spatial[d + 1 :], dtype=np.int64))
        flat = (flat[:, None, :, None] + t[None, :, None, :] * stride).reshape(
            flat.shape[0] * t.shape[0], flat.shape[1] * t.shape[1]
        )
    n_, c_ = x.shape[0], x.shape[1]
    positions, width = flat.shape
    idx = _C.expand(to_tensor(flat.reshape(1, 1, positions * width)), [n_, c_, positions * width])
    planes = _check.reshape_exact(x, [n_, c_, int(np.prod(spatial, dtype=np.int64))])
    values = _check.reshape_exact(_C.take_along_axis(planes, idx, 2), [n_, c_, positions, width])
    best = _C.unsqueeze(_C.argmax(values, -1, False, convert_dtype("int64")), [3])
    index = _C.take_along_axis(_check.reshape_exact(idx, [n_, c_, positions, width]), best, 3)
    index = _check.reshape_exact(index, [n_, c_] + out)
    y = _C.pool_gather(x, index)
    if return_mask:
        return y, _C.cast(index, convert_dtype("int32"))
    return y


def fractional_max_pool2d(
    x: Tensor,
    output_size: int | Sequence[int | None],
    kernel_size: int | Sequence[int | None] | None = None,
    random_u: float | None = None,
    return_mask: bool = False,
    name: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """2-D fractional max pooling of x [N, C, H, W] to output_size; random_u in (0, 1) fixes the windows."""
    return _fractional(
        "fractional_max_pool2d", 2, x, output_size, kernel_size, random_u, return_mask
    )


def fractional_max_pool3d(
    x: Tensor,
    output_size: int | Sequence[int | None],
    kernel_size: int | Sequence[int | None] | None = None,
    random_u: float | None = None,
    return_mask: bool = False,
    name: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """3-D fractional max pooling of x [N, C, D, H, W] to output_size; random_u in (0, 1) fixes the windows."""
    return _fractional(
        "fractional_max_pool3d", 3, x, output_size, kernel_size, random_u, return_mask
    )
