"""oar.nn.functional: pooling (as Paddle's paddle.nn.functional.pooling).

The rank-generic C++ ops of src/oar/ops/pooling.yaml on channels-first tensors: avg_pool
(its backward avg_pool_grad), and max pooling as max_pool_index (the argmax of each
window, the mask) followed by pool_gather, whose backward scatters the gradient through
the mask. The mask is a flat index into each (n, c) plane of x, int32 as in Paddle.
Without return_mask, where no gradient is wanted (no_grad, or x.stop_gradient), max
pooling is max_pool: the values alone, without an index tensor.
"""

from __future__ import annotations

from typing import Sequence

from ... import _C
from ...framework import check as _check
from ...framework.dtype import convert_dtype
from ...framework.typing import IntsLike, PaddingLike, Tensor
from . import _window as W

__all__ = [
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "lp_pool1d",
    "lp_pool2d",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "fractional_max_pool2d",
    "fractional_max_pool3d",
]


def _pool_args(api, nd, x, kernel_size, stride, padding, ceil_mode, last):
    kernel = W.int_list(api, "kernel_size", kernel_size, nd)
    strides = kernel if stride is None else W.int_list(api, "stride", stride, nd)
    algo, pads = W.padding(api, padding, nd, last)
    if algo == "SAME":
        pads = W.same_padding(W.spatial(x, nd, last), kernel, strides)
    elif algo == "VALID" and ceil_mode:
        raise ValueError(f"{api}(): argument 'ceil_mode' must be False with padding 'VALID'")
    return kernel, strides, pads


def _max_pool(api, nd, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format):
    last = W.channel_last(api, data_format, nd)
    W.check_input(api, x, nd, data_format)
    kernel, strides, pads = _pool_args(api, nd, x, kernel_size, stride, padding, ceil_mode, last)
    if last:
        x = W.to_channels_first(x, nd)
    if not return_mask and (x.stop_gradient or not _C.is_grad_enabled()):
        out = W.call(api, "max_pool", _C.max_pool, x, kernel, strides, pads, bool(ceil_mode), False)
        return W.to_channels_last(out, nd) if last else out
    index = W.call(
        api, "max_pool_index", _C.max_pool_index, x, kernel, strides, pads, bool(ceil_mode), False
    )
    return _finish_max(x, index, nd, return_mask, last)


def _finish_max(x, index, nd, return_mask, last):
    out = _C.pool_gather(x, index)
    if last:
        out = W.to_channels_last(out, nd)
        index = W.to_channels_last(index, nd)
    if return_mask:
        return out, _C.cast(index, convert_dtype("int32"))
    return out


def _avg_pool(
    api, nd, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format
):
    last = W.channel_last(api, data_format, nd)
    W.check_input(api, x, nd, data_format)
    kernel, strides, pads = _pool_args(api, nd, x, kernel_size, stride, padding, ceil_mode, last)
    divisor = 0
    if divisor_override is not None:
        divisor = _check.integer(api, "divisor_override", divisor_override)
        if divisor <= 0:
            raise ValueError(
                f"{api}(): argument 'divisor_override' must be positive, but got {divisor}"
            )
    if last:
        x = W.to_channels_first(x, nd)
    out = W.call(
        api,
        "avg_pool",
        _C.avg_pool,
        x,
        kernel,
        strides,
        pads,
        bool(ceil_mode),
        bool(exclusive),
        divisor,
        False,
    )
    return W.to_channels_last(out, nd) if last else out


def _output_size(api, x, output_size, nd, last):
    """Paddle's output_size: an int, or a list whose None entries keep the input's size."""
    sizes = W.spatial(x, nd, last)
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != nd:
            raise ValueError(
                f"{api}(): argument 'output_size' must be an int or {nd} values, "
                f"but got {output_size!r}"
            )
        output_size = [n if o is None else o for o, n in zip(output_size, sizes)]
    return W.int_list(api, "output_size", output_size, nd)


def max_pool1d(
    x: Tensor,
    kernel_size: IntsLike,
    stride: IntsLike | None = None,
    padding: PaddingLike = 0,
    return_mask: bool = False,
    ceil_mode: bool = False,
    name: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """1-D max pooling of x [N, C, L]; with return_mask also the argmax positions."""
    return _max_pool(
        "max_pool1d", 1, x, kernel_size, stride, padding, return_mask, ceil_mode, "NCL"
    )


def max_pool2d(
    x: Tensor,
    kernel_size: IntsLike,
    stride: IntsLike | None = None,
    padding: PaddingLike = 0,
    return_mask: bool = False,
    ceil_mode: bool = False,
    data_format: str = "NCHW",
    name: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """2-D max pooling of x [N, C, H, W]; with return_mask also the argmax positions (flat in H * W)."""
    return _max_pool(
        "max_pool2d", 2, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format
    )


def avg_pool1d(
    x: Tensor,
    kernel_size: IntsLike,
    stride: IntsLike | None = None,
    padding: PaddingLike = 0,
    exclusive: bool = True,
    ceil_mode: bool = False,
    name: str | None = None,
) -> Tensor:
    """1-D average pooling of x [N, C, L]; exclusive leaves the padding out of the count."""
    return _avg_pool(
        "avg_pool1d", 1, x, kernel_size, stride, padding, ceil_mode, exclusive, None, "NCL"
    )


def avg_pool2d(
    x: Tensor,
    kernel_size: IntsLike,
    stride: IntsLike | None = None,
    padding: PaddingLike = 0,
    ceil_mode: bool = False,
    exclusive: bool = True,
    divisor_override: int | None = None,
    data_format: str = "NCHW",
    name: str | None = None,
) -> Tensor:
    """2-D average pooling of x [N, C, H, W]; exclusive leaves the padding out of the count."""
    return _avg_pool(
        "avg_pool2d",
        2,
        x,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        exclusive,
        divisor_override,
        data_format,
    )


def max_pool3d(
    x: Tensor,
    kernel_size: IntsLike,
    stride: IntsLike | None = None,
    padding: PaddingLike = 0,
    return_mask: bool = False,
    ceil_mode: bool = False,
    data_format: str = "NCDHW",
    name: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """3-D max pooling of x [N, C, D, H, W]; with return_mask also the argmax positions (flat in D * H * W)."""
    return _max_pool(
        "max_pool3d", 3, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format
    )


def avg_pool3d(
    x: Tensor,
    kernel_size: IntsLike,
    stride: IntsLike | None = None,
    padding: PaddingLike = 0,
    ceil_mode: bool = False,
    exclusive: bool = True,
    divisor_override: int | None = None,
    data_format: str = "NCDHW",
    name: str | None = None,
) -> Tensor:
    """3-D average pooling of x [N, C, D, H, W]; exclusive leaves the padding out of the count."""
    return _avg_pool(
        "avg_pool3d",
        3,
        x,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        exclusive,
        divisor_override,
        data_format,
    )


def _adaptive_avg(api, nd, x, output_size, data_format):
    last = W.channel_last(api, data_format, nd)
    W.check_input(api, x, nd, data_format)
    sizes = _output_size(api, x, output_size, nd, last)
    if last:
        x = W.to_channels_first(x, nd)
    out = W.call(
        api, "avg_pool", _C.avg_pool, x, sizes, [1] * nd, [0] * (2 * nd), False, True, 0, True
    )
    return W.to_channels_last(out, nd) if last else out


def _adaptive_max(api, nd, x, output_size, return_mask):
    W.check_input(api, x, nd, W._FORMATS[nd][0])
    sizes = _output_size(api, x, output_size, nd, False)
    index = W.call(
        api, "max_pool_index", _C.max_pool_index, x, sizes, [1] * nd, [0] * (2 * nd), False, True
    )
    return _finish_max(x, index, nd, return_mask, False)


def adaptive_avg_pool1d(
    x: Tensor, output_size: int | Sequence[int | None], name: str | None = None
) -> Tensor:
    """Average pooling of x [N, C, L] into output_size windows."""
    return _adaptive_avg("adaptive_avg_pool1d", 1, x, output_size, "NCL")


def adaptive_avg_pool2d(
    x: Tensor,
    output_size: int | Sequence[int | None],
    data_format: str = "NCHW",
    name: str | None = None,
) -> Tensor:
    """Average pooling of x [N, C, H, W] into output_size windows."""
    return _adaptive_avg("adaptive_avg_pool2d", 2, x, output_size, data_format)


def adaptive_avg_pool3d(
    x: Tensor,
    output_size: int | Sequence[int | None],
    data_format: str = "NCDHW",
    name: str | None = None,
) -> Tensor:
    """Average pooling of x [N, C, D, H, W] into output_size windows."""
    return _adaptive_avg("adaptive_avg_pool3d", 3, x, output_size, data_format)


def adaptive_max_pool1d(
    x: Tensor,
    output_size: int | Sequence[int | None],
    return_mask: bool = False,
    name: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """Max pooling of x [N, C, L] into output_size windows; with return_mask also the argmax."""
    return _adaptive_max("adaptive_max_pool1d", 1, x, output_size, return_mask)


def adaptive_max_pool2d(
    x: Tensor,
    output_size: int | Sequence[int | None],
    return_mask: bool = False,
    name: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """Max pooling of x [N, C, H, W] into output_size windows; with return_mask also the argmax."""
    return _adaptive_max("adaptive_max_pool2d", 2, x, output_size, return_mask)


def adaptive_max_pool3d(
    x: Tensor,
    output_size: int | Sequence[int | None],
    return_mask: bool = False,
    name: str | None = None,
) -> Tensor | tuple[Tensor, Tensor]:
    """Max pooling of x [N, C, D, H, W] into output_size windows; with return_mask also the argmax."""
    return _adaptive_max("adaptive_max_pool3d", 3, x, output_size, return_mask)


# ---- power-average (LP) pooling ------------------------------------------------------------


def _lp_pool(api, nd, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format):
    """(sum of x ** p over each window) ** (1 / p), as Paddle computes it: padding adds
    nothing to the sum, and a negative sum under a fractional root is NaN. p = inf is
    max pooling."""
    p = float(_check.number(api, "norm_type", norm_type))
    if p == 0 or p != p:
        raise ValueError(f"{api}(): argument 'norm_type' must be non-zero, but got {norm_type}")
    if p == float("inf"):
        return _max_pool(api, nd, x, kernel_size, stride, padding, False, ceil_mode, data_format)
    last = W.channel_last(api, data_format, nd)
    W.check_input(api, x, nd, data_format)
    kernel, strides, pads = _pool_args(api, nd, x, kernel_size, stride, padding, ceil_mode, last)
    if last:
        x = W.to_channels_first(x, nd)
    xp = x if p == 1 else _C.pow(x, p)
    # divisor 1: the plain sum of each window
    total = W.call(
        api, "avg_pool", _C.avg_pool, xp, kernel, strides, pads, bool(ceil_mode), True, 1, False
    )
    out = total if p == 1 else _C.pow(total, 1.0 / p)
    return W.to_channels_last(out, nd) if last else out


def lp_pool1d(
    x: Tensor,
    norm_type: float,
    kernel_size: IntsLike,
    stride: IntsLike | None = None,
    padding: PaddingLike = 0,
    ceil_mode: bool = False,
    data_format: str = "NCL",
    name: str | None = None,
) -> Tensor:
    """1-D power-average pooling of x [N, C, L]: (sum of x ** norm_type) ** (1 / norm_type) per window."""
    return _lp_pool(
        "lp_pool1d", 1, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format
    )


def lp_pool2d(
    x: Tensor,
    norm_type: float,
    kernel_size: IntsLike,
    stride: IntsLike | None = None,
    padding: PaddingLike = 0,
    ceil_mode: bool = False,
    data_format: str = "NCHW",
    name: str | None = None,
) -> Tensor:
    """2-D power-average pooling of x [N, C, H, W]: (sum of x ** norm_type) ** (1 / norm_type) per window."""
    return _lp_pool(
        "lp_pool2d", 2, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format
    )


# ---- max unpooling ---------------------------------------------------------------------------


def _max_unpool(api, nd, x, indices, kernel_size, stride, padding, data_format, output_size):
    first = W._FORMATS[nd][0]
    if data_format != first:
        raise ValueError(
            f"{api}(): argument 'data_format' must be '{first}', but got {data_format!r}"
        )
    W.check_input(api, x, nd, data_format)
    _check.tensor(api, "indices", indices)
    if list(indices.shape) != list(x.shape):
        raise ValueError(
            f"{api}(): argument 'indices' has shape {list(indices.shape)} but must "
            f"have the shape of x {list(x.shape)}"
        )
    if indices.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument 'indices' must be an int32 or int64 tensor, but got "
            f"{indices.dtype.name}"
        )
    kernel = W.int_list(api, "kernel_size", kernel_size, nd)
    strides = kernel if stride is None else W.int_list(api, "stride", stride, nd)
    pads = W.int_list(api, "padding", padding, nd, minimum=0)
    default = [(n - 1) * s + k - 2 * p for n, s, k, p in zip(x.shape[2:], strides, kernel, pads)]
    if output_size is None:
        sizes = default
    else:
        if isinstance(output_size, _C.Tensor):
            output_size = [int(v) for v in output_size.numpy().reshape(-1)]
        if not isinstance(output_size, (list, tuple)):
            raise TypeError(
                f"{api}(): argument 'output_size' must be a list or tuple, but got "
                f"{type(output_size).__name__}"
            )
        sizes = [_check.integer(api, "output_size", v) for v in output_size]
        if len(sizes) == nd + 2:
            sizes = sizes[2:]
        if len(sizes) != nd:
            raise ValueError(
                f"{api}(): argument 'output_size' must have {nd} or {nd + 2} "
                f"entries, but has {len(sizes)}"
            )
        for d, (o, n, s) in enumerate(zip(sizes, default, strides)):
            if not n - s < o < n + s:
                raise ValueError(
                    f"{api}(): argument 'output_size' {sizes} is invalid: dim {d} "
                    f"must be between {n - s} and {n + s} (exclusive)"
                )
    if any(o <= 0 for o in sizes):
        raise ValueError(f"{api}(): the output size {sizes} must be positive")
    idx = indices if indices.dtype.name == "int64" else _C.cast(indices, convert_dtype("int64"))
    return W.call(api, "max_unpool", _C.max_unpool, x, idx, sizes)


def max_unpool1d(
    x: Tensor,
    indices: Tensor,
    kernel_size: IntsLike,
    stride: IntsLike | None = None,
    padding: IntsLike = 0,
    data_format: str = "NCL",
    output_size: IntsLike | None = None,
    name: str | None = None,
) -> Tensor:
    """The partial inverse of max_pool1d: x [N, C, L] placed at indices (from return_mask), zeros elsewhere."""
    return _max_unpool(
        "max_unpool1d", 1, x, indices, kernel_size, stride, padding, data_format, output_size
    )


def max_unpool2d(
    x: Tensor,
    indices: Tensor,
    kernel_size: IntsLike,
    stride: IntsLike | None = None,
    padding: IntsLike = 0,
    data_format: str = "NCHW",
    output_size: IntsLike | None = None,
    name: str | None = None,
) -> Tensor:
    """The partial inverse of max_pool2d: x [N, C, H, W] placed at indices (from return_mask), zeros elsewhere."""
    return _max_unpool(
        "max_unpool2d", 2, x, indices, kernel_size, stride, padding, data_format, output_size
    )


def max_unpool3d(
    x: Tensor,
    indices: Tensor,
    kernel_size: IntsLike,
    stride: IntsLike | None = None,
    padding: IntsLike = 0,
    data_format: str = "NCDHW",
    output_size: IntsLike | None = None,
    name: str | None = None,
) -> Tensor:
    """The partial inverse of max_pool3d: x [N, C, D, H, W] placed at indices (from return_mask), zeros elsewhere."""
    return _max_unpool(
        "max_unpool3d", 3, x, indices, kernel_size, stride, padding, data_format, output_size
    )


from ._fractional import fractional_max_pool2d, fractional_max_pool3d  # noqa: E402
