"""oar.nn.functional: normalisations (Paddle's paddle.nn.functional.norm).

layer_norm and rms_norm run fused kernels (one pass per row, forward and backward), and
batch_norm fused kernels per channel (batch_norm with the batch's statistics,
batch_norm_infer with the running ones); the others are compositions of reductions and
elementwise ops.
"""

from __future__ import annotations

import numbers
from typing import Sequence

from ... import _C
from ...framework import check as C
from ...framework.grad_mode import no_grad
from ...framework.typing import Tensor

__all__ = [
    "layer_norm",
    "rms_norm",
    "batch_norm",
    "instance_norm",
    "group_norm",
    "normalize",
    "local_response_norm",
]


def _normalized_shape(api, x, normalized_shape):
    if isinstance(normalized_shape, numbers.Integral) and not isinstance(normalized_shape, bool):
        normalized_shape = [int(normalized_shape)]
    try:
        shape = [int(s) for s in normalized_shape]
    except TypeError:
        raise TypeError(
            f"{api}(): argument 'normalized_shape' must be an int or a list of "
            f"ints, but got {type(normalized_shape).__name__}"
        ) from None
    if not shape or len(shape) > x.ndim or list(x.shape[x.ndim - len(shape) :]) != shape:
        raise ValueError(
            f"{api}(): argument 'normalized_shape' {shape} does not match the "
            f"trailing dims of x {x.shape}"
        )
    return shape, x.ndim - len(shape)


def _floating(api, x):
    C.tensor(api, "x", x)
    if not x.dtype.is_floating_point:
        raise TypeError(f"{api}(): argument 'x' must be a floating tensor, but got {x.dtype.name}")
    return x


def _param(api, name, p, shape, like):
    """A weight/bias as a Tensor of `shape`; ones/zeros (no gradient) when None."""
    if p is None:
        return None
    C.tensor(api, name, p)
    numel = 1
    for s in shape:
        numel *= s
    if p.size != numel:
        raise ValueError(
            f"{api}(): argument '{name}' has shape {p.shape} but the normalized shape is {shape}"
        )
    return p


def layer_norm(
    x: Tensor,
    normalized_shape: int | Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    epsilon: float = 1e-05,
    name: str | None = None,
) -> Tensor:
    api = "layer_norm"
    _floating(api, x)
    shape, begin = _normalized_shape(api, x, normalized_shape)
    w = _param(api, "weight", weight, shape, x)
    b = _param(api, "bias", bias, shape, x)
    if w is None:
        w = _C.full(shape, 1.0, x.dtype)
    if b is None:
        b = _C.full(shape, 0.0, x.dtype)
    return _C.layer_norm(x, w, b, float(epsilon), begin)


def rms_norm(
    x: Tensor,
    normalized_shape: int | Sequence[int],
    weight: Tensor | None = None,
    epsilon: float = 1e-05,
    name: str | None = None,
    eps: float | None = None,
) -> Tensor:
    # Paddle's docs name the last argument epsilon (zh) and eps (en); both are taken.
    api = "rms_norm"
    _floating(api, x)
    if eps is not None:
        epsilon = eps
    shape, begin = _normalized_shape(api, x, normalized_shape)
    w = _param(api, "weight", weight, shape, x)
    if w is None:
        w = _C.full(shape, 1.0, x.dtype)
    return _C.rms_norm(x, w, float(epsilon), begin)


_FORMATS = {"NC": 2, "NCL": 3, "NCHW": 4, "NCDHW": 5, "NLC": 3, "NHWC": 4, "NDHWC": 5}


def _channel_axis(api, x, data_format, formats=None):
    formats = formats or _FORMATS
    if data_format not in formats:
        raise ValueError(
            f"{api}(): argument 'data_format' must be one of "
            f"{', '.join(repr(f) for f in formats)}, but got {data_format!r}"
        )
    rank = formats[data_format]
    if x.ndim != rank and not (data_format in ("NC", "NCL") and x.ndim in (2, 3)):
        raise ValueError(
            f"{api}(): argument 'x' must be {rank}-D for data_format "
            f"{data_format!r}, but has shape {x.shape}"
        )
    return 1 if data_format.startswith("NC") else x.ndim - 1


def _along(t, ndim, axis):
    """A per-channel [C] tensor shaped to broadcast along `axis` of a rank-ndim tensor."""
    shape = [1] * ndim
    shape[axis] = t.shape[0]
    return _C.reshape(t, shape)


def _channel_param(api, name, p, channels):
    if p is None:
        return None
    C.tensor(api, name, p)
    if p.ndim != 1 or p.shape[0] != channels:
        raise ValueError(
            f"{api}(): argument '{name}' has shape {p.shape} but must be "
            f"[{channels}] (one value per channel)"
        )
    return p


def _affine(y, weight, bias, axis):
    if weight is not None:
        y = y * _along(weight, y.ndim, axis)
    if bias is not None:
        y = y + _along(bias, y.ndim, axis)
    return y


def batch_norm(
    x: Tensor,
    running_mean: Tensor,
    running_var: Tensor,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.9,
    epsilon: float = 1e-05,
    data_format: str = "NCHW",
    use_global_stats: bool | None = None,
    name: str | None = None,
) -> Tensor:
    """Paddle's convention: running = momentum * running + (1 - momentum) * batch,
    updated in place in training, the running variance from the biased batch variance
    (as Paddle's kernels do; PyTorch uses the unbiased one there)."""
    api = "batch_norm"
    C.tensor(api, "x", x)
    ax = _channel_axis(api, x, data_format)
    ch = x.shape[ax]
    C.tensor(api, "running_mean", running_mean)
    C.tensor(api, "running_var", running_var)
    _channel_param(api, "running_mean", running_mean, ch)
    _channel_param(api, "running_var", running_var, ch)
    _channel_param(api, "weight", weight, ch)
    _channel_param(api, "bias", bias, ch)
    global_stats = (not training) if use_global_stats is None else bool(use_global_stats)
    if global_stats:
        # One pass over x (batch_norm_infer): x * scale + shift per channel, scale and
        # shift from the running statistics, weight, bias and epsilon. Under auto_cast it
        # runs in float32 (its `amp: black`); otherwise in the promoted dtype of x and
        # the [C] tensors.
        pdt = running_mean.dtype
        w = weight if weight is not None else _C.full([ch], 1.0, pdt)
        b = bias if bias is not None else _C.full([ch], 0.0, pdt)
        return _C.batch_norm_infer(x, running_mean, running_var, w, b, float(epsilon), ax)
    # The fused kernel (src/oar/ops/batch_norm.yaml) reads a low-precision x as it is
    # and keeps its statistics in float32.
    pdt = (
        weight.dtype
        if weight is not None
        else (bias.dtype if bias is not None else running_mean.dtype)
    )
    w = weight if weight is not None else _C.full([ch], 1.0, pdt)
    b = bias if bias is not None else _C.full([ch], 0.0, pdt)
    y = _C.batch_norm(x, w, b, float(epsilon), ax)
    if training:
        with no_grad():
            stats = _C.batch_norm_stats(x, ax)
            _update_running_stats(running_mean, running_var, stats[0], stats[1], momentum)
    return y


def _update_running_stats(running_mean, running_var, mean, var, momentum):
    """running = momentum * running + (1 - momentum) * batch, in place, for both."""
    m = float(momentum)
    with no_grad():
        for running, batch in ((running_mean, mean), (running_var, var)):
            new = running * m + batch.astype(running.dtype) * (1.0 - m)
            _C.set_value_with_tensor_(running, new, [], [], [], [])


def _norm_per_channel(api, x, groups, epsilon, ax):
    """x normalised over each group of channels (groups == C: instance norm) and the
    spatial dims, by the fused layer_norm kernel on an [N, groups, rest] view."""
    n = x.shape[0]
    if ax != 1:  # channels last: move them next to N
        perm = [0, ax] + [d for d in range(1, x.ndim) if d != ax]
        xt = _C.transpose(x, perm)
    else:
        xt = x
    rest = 1
    for s in xt.shape[1:]:
        rest *= s
    rest //= max(groups, 1)
    flat = C.reshape_exact(xt, [n, groups, rest])
    y = _C.layer_norm(
        flat, _C.full([rest], 1.0, x.dtype), _C.full([rest], 0.0, x.dtype), float(epsilon), 2
    )
    y = C.reshape_exact(y, list(xt.shape))
    if ax != 1:
        y = _C.transpose(y, [0] + list(range(2, x.ndim)) + [1])
    return y


def instance_norm(
    x: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.9,
    eps: float = 1e-05,
    data_format: str = "NCHW",
    name: str | None = None,
) -> Tensor:
    api = "instance_norm"
    C.tensor(api, "x", x)
    formats = {"NCL": 3, "NCHW": 4, "NCDHW": 5, "NLC": 3, "NHWC": 4, "NDHWC": 5}
    if data_format in formats and data_format.startswith("NC") and x.ndim >= 3:
        # Paddle's kernel normalises over every dim after the first two whatever the
        # channels-first data_format says (InstanceNorm1D/3D inputs under "NCHW")
        ax = 1
        data_format = {3: "NCL", 4: "NCHW", 5: "NCDHW"}.get(x.ndim, data_format)
    else:
        ax = _channel_axis(api, x, data_format, formats)
    ch = x.shape[ax]
    _channel_param(api, "weight", weight, ch)
    _channel_param(api, "bias", bias, ch)
    if not use_input_stats:
        # None running statistics: batch_norm raises its TypeError
        return batch_norm(
            x,
            running_mean,
            running_var,
            weight,
            bias,  # type: ignore[arg-type]
            training=False,
            epsilon=eps,
            data_format=data_format,
        )
    y = _norm_per_channel(api, x, ch, eps, ax)
    return _affine(y, weight, bias, ax)


def group_norm(
    x: Tensor,
    num_groups: int,
    epsilon: float = 1e-05,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    data_format: str = "NCHW",
    name: str | None = None,
) -> Tensor:
    api = "group_norm"
    C.tensor(api, "x", x)
    formats = {"NCL": 3, "NCHW": 4, "NCDHW": 5, "NLC": 3, "NHWC": 4, "NDHWC": 5, "NC": 2}
    ax = _channel_axis(api, x, data_format, formats)
    ch = x.shape[ax]
    g = C.integer(api, "num_groups", num_groups)
    if g <= 0 or ch % g != 0:
        raise ValueError(
            f"{api}(): argument 'num_groups' ({g}) must be positive and divide "
            f"the number of channels ({ch})"
        )
    _channel_param(api, "weight", weight, ch)
    _channel_param(api, "bias", bias, ch)
    y = _norm_per_channel(api, x, g, epsilon, ax)
    return _affine(y, weight, bias, ax)


def _p_norm(x, p, axis, keepdim):
    if p == 2:
        return _C.sqrt(_C.sum(x * x, [axis], keepdim=keepdim))
    if p == 1:
        return _C.sum(_C.abs(x), [axis], keepdim=keepdim)
    if p == float("inf"):
        return _C.max(_C.abs(x), [axis], keepdim)
    if p == float("-inf"):
        return _C.min(_C.abs(x), [axis], keepdim)
    return _C.pow(_C.sum(_C.pow(_C.abs(x), float(p)), [axis], keepdim=keepdim), 1.0 / p)


def normalize(
    x: Tensor, p: float = 2, axis: int = 1, epsilon: float = 1e-12, name: str | None = None
) -> Tensor:
    api = "normalize"
    C.tensor(api, "x", x)
    p = float(C.number(api, "p", p))
    a = C.axis(api, "axis", axis, max(x.ndim, 1))
    if x.ndim == 0:
        raise ValueError(f"{api}(): argument 'x' must have at least 1 dimension")
    n = _p_norm(x, p, a, True)
    return x / _C.maximum(n, _C.full_like(n, float(epsilon)))


def local_response_norm(
    x: Tensor,
    size: int,
    alpha: float = 0.0001,
    beta: float = 0.75,
    k: float = 1.0,
    data_format: str = "NCHW",
    name: str | None = None,
) -> Tensor:
    """x / (k + alpha * mean of x ** 2 over `size` neighbouring channels) ** beta; the
    window of channel c is [c - size // 2, c + (size - 1) // 2], zeros beyond the ends."""
    api = "local_response_norm"
    C.tensor(api, "x", x)
    if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError(
            f"{api}(): argument 'data_format' must be one of 'NCL', 'NCHW', "
            f"'NCDHW', 'NLC', 'NHWC', 'NDHWC', but got {data_format!r}"
        )
    if x.ndim not in (3, 4, 5):
        raise ValueError(f"{api}(): argument 'x' must be 3-D, 4-D or 5-D, but has shape {x.shape}")
    # as Paddle: the format says only where the channels are
    ax = 1 if data_format.startswith("NC") else x.ndim - 1
    n = C.integer(api, "size", size)
    if n <= 0:
        raise ValueError(f"{api}(): argument 'size' must be positive, but got {n}")
    if not x.dtype.is_floating_point:
        raise TypeError(f"{api}(): argument 'x' must be a floating tensor, but got {x.dtype.name}")
    xc = x if ax == 1 else _C.transpose(x, [0, x.ndim - 1] + list(range(1, x.ndim - 1)))
    shape = list(xc.shape)
    rest = 1
    for s in shape[2:]:
        rest *= s
    sq = C.reshape_exact(xc * xc, [shape[0], 1, shape[1], rest])
    # the window sum / size: a (size, 1) average pool with zero padding counted
    mean = _C.avg_pool(sq, [n, 1], [1, 1], [n // 2, (n - 1) // 2, 0, 0], False, False, n, False)
    div = _C.pow(_C.scale(mean, float(alpha), float(k)), float(beta))
    y = xc / C.reshape_exact(div, shape)
    if ax != 1:
        y = _C.transpose(y, [0] + list(range(2, x.ndim)) + [1])
    return y
