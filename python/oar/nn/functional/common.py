"""oar.nn.functional: linear, dropout, cosine_similarity (Paddle's
paddle.nn.functional.common).

linear runs one fused op (GEMM with the bias as its accumulator). The dropouts are
compositions: a uniform draw from the default generator (so oar.seed makes them
reproducible), a comparison and a multiply.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Sequence, cast

import numpy as np

from ... import _C
from ...framework import check as C
from ...framework.typing import IntsLike, Tensor
from ...tensor.creation import to_tensor
from ...framework.dtype import convert_dtype, float32
from ...framework.memory import check_fits

__all__ = [
    "linear",
    "bilinear",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "alpha_dropout",
    "feature_alpha_dropout",
    "cosine_similarity",
    "interpolate",
    "upsample",
    "unfold",
    "fold",
    "label_smooth",
    "class_center_sample",
]


def linear(
    x: Tensor, weight: Tensor, bias: Tensor | None = None, name: str | None = None
) -> Tensor:
    api = "linear"
    C.tensor(api, "x", x)
    C.tensor(api, "weight", weight)
    if weight.ndim not in (1, 2):
        raise ValueError(
            f"{api}(): argument 'weight' must be 2-D [in_features, out_features] (or 1-D "
            f"[in_features], a matrix-vector product as in Paddle), but has shape {weight.shape}"
        )
    if bias is not None:
        C.tensor(api, "bias", bias)
    if weight.ndim == 1 or bias is None:  # Paddle's matmul(x, weight) + bias
        out = _C.matmul(x, weight)
        return out if bias is None else _C.add(out, bias)
    return _C.linear(x, weight, bias)


def bilinear(
    x1: Tensor, x2: Tensor, weight: Tensor, bias: Tensor | None = None, name: str | None = None
) -> Tensor:
    """out[n, o] = x1[n] @ weight[o] @ x2[n] + bias[0, o]; x1 [N, in1], x2 [N, in2],
    weight [out, in1, in2], bias [1, out]."""
    api = "bilinear"
    C.tensor(api, "x1", x1)
    C.tensor(api, "x2", x2)
    C.tensor(api, "weight", weight)
    if x1.ndim != 2 or x2.ndim != 2 or x1.shape[0] != x2.shape[0]:
        raise ValueError(
            f"{api}(): arguments 'x1' {x1.shape} and 'x2' {x2.shape} must be 2-D "
            f"with the same batch size"
        )
    if weight.ndim != 3 or weight.shape[1] != x1.shape[1] or weight.shape[2] != x2.shape[1]:
        raise ValueError(
            f"{api}(): argument 'weight' has shape {weight.shape} but must be "
            f"[out_features, {x1.shape[1]}, {x2.shape[1]}]"
        )
    n, (o, i1, i2) = x1.shape[0], weight.shape
    # x1 @ [in1, out * in2], then each [out, in2] block dotted with x2
    w = C.reshape_exact(_C.transpose(weight, [1, 0, 2]), [i1, o * i2])
    t = C.reshape_exact(_C.matmul(x1, w), [n, o, i2])
    out = _C.sum(t * _C.unsqueeze(x2, [1]), [2])
    if bias is not None:
        C.tensor(api, "bias", bias)
        if bias.size != o:
            raise ValueError(
                f"{api}(): argument 'bias' has shape {bias.shape} but must be [1, {o}]"
            )
        out = out + C.reshape_exact(bias, [1, o])
    return out


def _probability(api, p):
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"{api}(): argument 'p' must be a float, but got {type(p).__name__}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{api}(): argument 'p' ({p}) must be in [0, 1]")
    return float(p)


def _keep_mask(x, p, shape):
    """1.0 with probability 1 - p, else 0.0, in x's dtype, of `shape`."""
    dtype = x.dtype if x.dtype.is_floating_point else float32
    u = _C.uniform(shape, dtype, 0.0, 1.0, 0)
    return _C.cast(_C.greater_equal(u, _C.full_like(u, p)), x.dtype)


def dropout(
    x: Tensor,
    p: float = 0.5,
    axis: int | Sequence[int] | None = None,
    training: bool = True,
    inplace: bool = False,
    mode: str = "upscale_in_train",
    name: str | None = None,
) -> Tensor:
    api = "dropout"
    C.tensor(api, "x", x)
    p = _probability(api, p)
    if inplace:
        # computed on a copy and written into x (the gradient flows from the new x to
        # the old one); Paddle's in-place kernel covers only axis=None, oar any axis
        out = dropout(_C.assign(x), p, axis, training, False, mode)
        _C.set_value_with_tensor_(x, out, [], [], [], [])
        return x
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ValueError(
            f"{api}(): argument 'mode' must be 'upscale_in_train' or "
            f"'downscale_in_infer', but got {mode!r}"
        )
    if not training:
        return x if mode == "upscale_in_train" else _C.scale(x, 1.0 - p)
    if p == 0.0:
        return x
    shape = list(x.shape)
    if axis is not None:
        given = [axis] if isinstance(axis, numbers.Integral) else list(cast(Sequence[int], axis))
        axes = {C.axis(api, "axis", a, x.ndim) for a in given}
        shape = [s if d in axes else 1 for d, s in enumerate(shape)]
    if p == 1.0:
        return x * _C.full(shape, 0.0, x.dtype)
    keep = _keep_mask(x, p, shape)
    if mode == "upscale_in_train":
        keep = _C.scale(keep, 1.0 / (1.0 - p))
    return x * keep


def _channel_dropout(api, x, p, training, data_format, rank, formats):
    C.tensor(api, "x", x)
    if data_format not in formats:
        raise ValueError(
            f"{api}(): argument 'data_format' must be one of "
            f"{', '.join(repr(f) for f in formats)}, but got {data_format!r}"
        )
    if x.ndim != rank:
        raise ValueError(f"{api}(): argument 'x' must be {rank}-D, but has shape {x.shape}")
    channel = 1 if data_format.startswith("NC") else rank - 1
    return dropout(x, p, axis=[0, channel], training=training)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zeroes whole channels of input [N, C, L] (or [C, L]) with probability p, scaling the
    kept ones by 1 / (1 - p) in training; inplace writes the result into input."""
    api = "dropout1d"
    C.tensor(api, "input", input)
    if input.ndim not in (2, 3):
        raise ValueError(
            f"{api}(): argument 'input' must be 2-D [C, L] or 3-D [N, C, L], but "
            f"has shape {input.shape}"
        )
    axes = [0] if input.ndim == 2 else [0, 1]
    out = dropout(input, p, axis=axes, training=training)
    if inplace and out is not input:
        _C.set_value_with_tensor_(input, out, [], [], [], [])
        return input
    return out


def dropout2d(
    x: Tensor,
    p: float = 0.5,
    training: bool = True,
    data_format: str = "NCHW",
    name: str | None = None,
) -> Tensor:
    return _channel_dropout("dropout2d", x, p, training, data_format, 4, ("NCHW", "NHWC"))


def dropout3d(
    x: Tensor,
    p: float = 0.5,
    training: bool = True,
    data_format: str = "NCDHW",
    name: str | None = None,
) -> Tensor:
    return _channel_dropout("dropout3d", x, p, training, data_format, 5, ("NCDHW", "NDHWC"))


# SELU's negative saturation value -scale * alpha; alpha_dropout drops to it.
_SELU_NEG = -1.0507009873554805 * 1.6732632423543772


def alpha_dropout(
    x: Tensor, p: float = 0.5, training: bool = True, name: str | None = None
) -> Tensor:
    api = "alpha_dropout"
    C.tensor(api, "x", x)
    p = _probability(api, p)
    if not training or p == 0.0:
        return x
    return _alpha_drop(x, p, list(x.shape))


def _alpha_drop(x, p, mask_shape):
    """Dropped units (a mask of mask_shape, broadcast) are set to SELU's saturation
    value, then an affine map a * y + b restores zero mean and unit variance for
    standard-normal inputs."""
    if p == 1.0:
        return x * _C.full(list(x.shape), 0.0, x.dtype)
    a = ((1.0 - p) * (1.0 + p * _SELU_NEG**2)) ** -0.5
    b = -a * _SELU_NEG * p
    keep = _keep_mask(x, p, mask_shape)
    y = x * keep + _C.scale(keep, -_SELU_NEG, _SELU_NEG)  # alpha where dropped
    return _C.scale(y, a, b)


def feature_alpha_dropout(
    x: Tensor, p: float = 0.5, training: bool = True, name: str | None = None
) -> Tensor:
    """alpha_dropout that drops whole channels (axis 1) instead of single elements."""
    api = "feature_alpha_dropout"
    C.tensor(api, "x", x)
    p = _probability(api, p)
    if not training or p == 0.0:
        return x
    if x.ndim < 2:
        raise ValueError(
            f"{api}(): argument 'x' must have at least 2 dimensions [N, C, ...], "
            f"but has shape {x.shape}"
        )
    return _alpha_drop(x, p, list(x.shape[:2]) + [1] * (x.ndim - 2))


def cosine_similarity(x1: Tensor, x2: Tensor, axis: int = 1, eps: float = 1e-8) -> Tensor:
    api = "cosine_similarity"
    C.tensor(api, "x1", x1)
    C.tensor(api, "x2", x2)
    nd = max(x1.ndim, x2.ndim)
    a = C.axis(api, "axis", axis, nd)
    w12 = _C.sum(x1 * x2, [a])
    w1 = _C.sum(x1 * x1, [a])
    w2 = _C.sum(x2 * x2, [a])
    n12 = _C.sqrt(_C.maximum(w1 * w2, _C.full_like(w12, eps * eps)))
    return w12 / n12


# ---- interpolate: separable, one gather-and-weight pass per spatial axis -----------------
# Each output position along an axis reads a few input positions (taps) with weights;
# index_select gathers them (differentiable through its scatter-add backward), so every
# mode is sum_k index_select(x, idx_k, axis) * w_k.

_MODES = ("nearest", "linear", "bilinear", "trilinear", "bicubic", "area")
_RANK_OF_MODE = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}
_CUBIC_A = -0.75


def _cubic(t):
    """The 4 cubic-convolution weights of taps -1, 0, 1, 2 at fraction t."""
    a = _CUBIC_A

    def near(d):  # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):  # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _taps(mode, n_in, n_out, ratio, align_corners, align_mode):
    """(indices, weights) lists, each entry an array of length n_out."""
    dst = np.arange(n_out, dtype=np.float64)
    if mode == "area":
        # adaptive average pooling: output i averages [floor(i in/out), ceil((i+1) in/out))
        start = np.floor(dst * n_in / n_out).astype(np.int64)
        end = np.ceil((dst + 1) * n_in / n_out).astype(np.int64)
        width = end - start
        idx, ws = [], []
        for k in range(int(width.max())):
            inside = k < width
            idx.append(np.where(inside, np.minimum(start + k, n_in - 1), 0))
            ws.append(np.where(inside, 1.0 / width, 0.0))
        return idx, ws
    if mode == "nearest":
        if align_corners:
            r = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
            idx = np.floor(dst * r + 0.5)
        else:
            idx = np.floor(dst * ratio)
        return [np.minimum(idx, n_in - 1).astype(np.int64)], [np.ones(n_out)]
    if align_corners:
        src = dst * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    elif mode != "bicubic" and align_mode == 1:
        src = dst * ratio
    else:
        src = (dst + 0.5) * ratio - 0.5
    if mode == "bicubic":
        i0 = np.floor(src)
        t = src - i0
        ws = _cubic(t)
        idx = [np.clip(i0 + k, 0, n_in - 1).astype(np.int64) for k in (-1, 0, 1, 2)]
        return idx, ws
    src = np.maximum(src, 0.0)
    i0 = np.minimum(np.floor(src), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    lam = src - i0
    return [i0.astype(np.int64), i1.astype(np.int64)], [1.0 - lam, lam]


def _resample_axis(x, axis, taps):
    idxs, ws = taps
    out = None
    for idx, w in zip(idxs, ws):
        g = _C.index_select(x, to_tensor(idx), axis)
        if not np.all(w == 1.0):
            shape = [1] * x.ndim
            shape[axis] = len(w)
            g = g * to_tensor(w.reshape(shape).astype(np.float64)).astype(x.dtype)
        out = g if out is None else out + g
    return out


def _as_list(api, name, v, n):
    if isinstance(v, (list, tuple)):
        if len(v) != n:
            raise ValueError(f"{api}(): argument '{name}' must have {n} entries, but got {v}")
        return list(v)
    return [v] * n


def interpolate(
    x: Tensor,
    size: int | Sequence[int | Tensor] | Tensor | None = None,
    scale_factor: float | Sequence[float] | Tensor | None = None,
    mode: str = "nearest",
    align_corners: bool = False,
    align_mode: int = 0,
    data_format: str | None = None,
    recompute_scale_factor: bool | None = None,
    name: str | None = None,
) -> Tensor:
    api = "interpolate"
    C.tensor(api, "x", x)
    mode = mode.lower() if isinstance(mode, str) else mode
    if mode not in _MODES:
        raise ValueError(
            f"{api}(): argument 'mode' must be one of "
            f"{', '.join(repr(m) for m in _MODES)}, but got {mode!r}"
        )
    if x.ndim not in (3, 4, 5):
        raise ValueError(f"{api}(): argument 'x' must be 3-D, 4-D or 5-D, but has shape {x.shape}")
    if mode in _RANK_OF_MODE and x.ndim != _RANK_OF_MODE[mode]:
        raise ValueError(
            f"{api}(): mode {mode!r} takes a {_RANK_OF_MODE[mode]}-D x, but x has shape {x.shape}"
        )
    formats = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}[x.ndim]
    if data_format is None:
        data_format = formats[0]
    if data_format not in formats:
        raise ValueError(
            f"{api}(): argument 'data_format' must be one of "
            f"{', '.join(repr(f) for f in formats)} for a {x.ndim}-D x, but got "
            f"{data_format!r}"
        )
    if align_corners and mode == "nearest":
        pass  # Paddle allows it: rounds dst * (in - 1) / (out - 1)
    nsp = x.ndim - 2
    axes = list(range(2, x.ndim)) if data_format.startswith("NC") else list(range(1, x.ndim - 1))
    n_in = [x.shape[a] for a in axes]
    if 0 in n_in:
        # nothing to sample from: area mode would average no taps, the others index nothing
        raise ValueError(
            f"{api}(): argument 'x' has shape {x.shape}: every input spatial size must be positive"
        )
    if (size is None) == (scale_factor is None):
        raise ValueError(f"{api}(): exactly one of 'size' and 'scale_factor' must be given")
    if size is not None:
        if isinstance(size, C.Tensor):
            size = [int(v) for v in size.numpy().reshape(-1)]
        n_out = [
            int(s.item()) if isinstance(s, C.Tensor) else int(s)
            for s in _as_list(api, "size", size, nsp)
        ]
        ratios = [i / o if o > 0 else 0.0 for i, o in zip(n_in, n_out)]
    else:
        if isinstance(scale_factor, C.Tensor):
            scale_factor = [float(v) for v in scale_factor.numpy().reshape(-1)]
        sf = [float(s) for s in _as_list(api, "scale_factor", scale_factor, nsp)]
        if not all(math.isfinite(s) and s > 0 for s in sf):
            raise ValueError(
                f"{api}(): argument 'scale_factor' must be positive and finite, "
                f"but got {scale_factor}"
            )
        n_out = [int(math.floor(i * s)) for i, s in zip(n_in, sf)]
        ratios = (
            [i / o if o > 0 else 0.0 for i, o in zip(n_in, n_out)]
            if recompute_scale_factor
            else [1.0 / s for s in sf]
        )
    if any(o <= 0 for o in n_out):
        raise ValueError(f"{api}(): the output size {n_out} must be positive")
    shape = list(x.shape)
    for a, o in zip(axes, n_out):
        shape[a] = o
    given = (
        f"argument 'size' ({n_out})"
        if size is not None
        else f"argument 'scale_factor' ({scale_factor})"
    )
    if x.size == 0:
        # a batch or channel count of 0: the taps (numpy arrays as long as the output
        # sizes) would be built for nothing
        if math.prod(d for d in shape if d) >= 2**63:
            raise ValueError(
                f"{api}(): {given} gives an output of shape {shape}, whose dims "
                f"other than 0 multiply past 2^63"
            )
        return C.reshape_exact(x, shape)
    # Refused before the taps (numpy arrays as long as each output size) are built: the
    # output, a gathered copy and a weighted copy are held at once.
    check_fits(
        f"{api}():",
        f"{given} asks for an output of shape {shape}, which",
        3 * math.prod(shape) * x.dtype.itemsize + 64 * sum(n_out),
    )
    y = x
    for a, i, o, r in zip(axes, n_in, n_out, ratios):
        if i == o and mode in ("nearest", "area") and not align_corners:
            continue
        y = _resample_axis(y, a, _taps(mode, i, o, r, align_corners, align_mode))
    return y


def upsample(
    x: Tensor,
    size: int | Sequence[int | Tensor] | Tensor | None = None,
    scale_factor: float | Sequence[float] | Tensor | None = None,
    mode: str = "nearest",
    align_corners: bool = False,
    align_mode: int = 0,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


# ---- unfold / fold: one strided slice per kernel offset ----------------------------------


def _pair2(api, name, v):
    v = _as_list(api, name, v, 2) if not isinstance(v, (list, tuple)) or len(v) == 2 else v
    out = [C.integer(api, name, e) for e in v]
    if len(out) != 2:
        raise ValueError(f"{api}(): argument '{name}' must be an int or 2 ints, but got {v}")
    return out


def _paddings(api, v):
    """[top, left, bottom, right] from an int, 2 ints (h, w) or 4 ints."""
    if isinstance(v, (list, tuple)) and len(v) == 4:
        p = [C.integer(api, "paddings", e) for e in v]
    else:
        ph, pw = _pair2(api, "paddings", v)
        p = [ph, pw, ph, pw]
    if any(e < 0 for e in p):
        raise ValueError(f"{api}(): argument 'paddings' must be non-negative, but got {v}")
    return p


def _pad_zeros(x, axis, before, after):
    if before == 0 and after == 0:
        return x
    parts = []
    if before:
        s = list(x.shape)
        s[axis] = before
        parts.append(_C.full(s, 0.0, x.dtype))
    parts.append(x)
    if after:
        s = list(x.shape)
        s[axis] = after
        parts.append(_C.full(s, 0.0, x.dtype))
    return _C.concat(parts, axis)


def _grid(api, h, w, k, s, p, d):
    oh = (h + p[0] + p[2] - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
    ow = (w + p[1] + p[3] - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    if oh <= 0 or ow <= 0:
        raise ValueError(
            f"{api}(): the kernel {k} with dilations {d} does not fit the padded "
            f"input [{h + p[0] + p[2]}, {w + p[1] + p[3]}]"
        )
    return oh, ow


def unfold(
    x: Tensor,
    kernel_sizes: IntsLike,
    strides: IntsLike = 1,
    paddings: IntsLike = 0,
    dilations: IntsLike = 1,
    name: str | None = None,
) -> Tensor:
    api = "unfold"
    C.tensor(api, "x", x)
    if x.ndim != 4:
        raise ValueError(f"{api}(): argument 'x' must be 4-D [N, C, H, W], but has shape {x.shape}")
    k = _pair2(api, "kernel_sizes", kernel_sizes)
    s = _pair2(api, "strides", strides)
    d = _pair2(api, "dilations", dilations)
    p = _paddings(api, paddings)
    if min(k + s + d) <= 0:
        raise ValueError(f"{api}(): kernel_sizes, strides and dilations must be positive")
    n, c, h, w = x.shape
    oh, ow = _grid(api, h, w, k, s, p, d)
    if n * c == 0:  # skip the kh * kw slices: the kernel can be huge when x is empty
        return C.reshape_exact(x, [n, c * k[0] * k[1], oh * ow])
    xp = _pad_zeros(_pad_zeros(x, 2, p[0], p[2]), 3, p[1], p[3])
    blocks = []
    for i in range(k[0]):
        for j in range(k[1]):
            b = _C.strided_slice(
                xp,
                [2, 3],
                [i * d[0], j * d[1]],
                [i * d[0] + (oh - 1) * s[0] + 1, j * d[1] + (ow - 1) * s[1] + 1],
                s,
            )
            blocks.append(_C.unsqueeze(b, [2]))
    y = _C.concat(blocks, 2)  # [N, C, kh*kw, oh, ow]
    return C.reshape_exact(y, [n, c * k[0] * k[1], oh * ow])


def fold(
    x: Tensor,
    output_sizes: IntsLike,
    kernel_sizes: IntsLike,
    strides: IntsLike = 1,
    paddings: IntsLike = 0,
    dilations: IntsLike = 1,
    name: str | None = None,
) -> Tensor:
    api = "fold"
    C.tensor(api, "x", x)
    k = _pair2(api, "kernel_sizes", kernel_sizes)
    s = _pair2(api, "strides", strides)
    d = _pair2(api, "dilations", dilations)
    p = _paddings(api, paddings)
    h, w = _pair2(api, "output_sizes", output_sizes)
    if x.ndim != 3:
        raise ValueError(
            f"{api}(): argument 'x' must be 3-D [N, C*kh*kw, L], but has shape {x.shape}"
        )
    n, ck, length = x.shape
    oh, ow = _grid(api, h, w, k, s, p, d)
    if ck % (k[0] * k[1]) or length != oh * ow:
        raise ValueError(
            f"{api}(): argument 'x' of shape {x.shape} does not match kernel "
            f"{k} and the {oh}x{ow} blocks of output_sizes {[h, w]}"
        )
    c = ck // (k[0] * k[1])
    if n * c == 0:  # skip the kh * kw placements: the kernel can be huge when x is empty
        return C.reshape_exact(x, [n, c, h, w])
    y = C.reshape_exact(x, [n, c, k[0] * k[1], oh, ow])
    hp, wp = h + p[0] + p[2], w + p[1] + p[3]
    canvas = _C.full([n, c, hp, wp], 0.0, x.dtype)
    out: Any = None  # a Tensor after the first placement
    for i in range(k[0]):
        for j in range(k[1]):
            b = _C.squeeze(_C.slice(y, [2], [i * k[1] + j], [i * k[1] + j + 1]), [2])
            placed = _C.strided_slice_grad(
                canvas,
                b,
                [2, 3],
                [i * d[0], j * d[1]],
                [i * d[0] + (oh - 1) * s[0] + 1, j * d[1] + (ow - 1) * s[1] + 1],
                s,
            )
            out = placed if out is None else out + placed
    return _C.slice(out, [2, 3], [p[0], p[1]], [p[0] + h, p[1] + w])


def label_smooth(
    label: Tensor, prior_dist: Tensor | None = None, epsilon: float = 0.1, name: str | None = None
) -> Tensor:
    """(1 - epsilon) * label + epsilon * prior_dist; prior_dist [1, C] (default uniform 1 / C,
    C the last dim of label)."""
    api = "label_smooth"
    C.tensor(api, "label", label)
    eps = float(C.number(api, "epsilon", epsilon))
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"{api}(): argument 'epsilon' must be in [0, 1], but got {eps}")
    if label.ndim == 0 or not label.dtype.is_floating_point:
        raise TypeError(
            f"{api}(): argument 'label' must be a floating tensor with a class "
            f"dim, but got a {label.dtype.name} tensor of shape {label.shape}"
        )
    if prior_dist is None:
        return _C.scale(label, 1.0 - eps, eps / label.shape[-1])
    C.tensor(api, "prior_dist", prior_dist)
    if prior_dist.size != label.shape[-1]:
        raise ValueError(
            f"{api}(): argument 'prior_dist' has shape {prior_dist.shape} but must "
            f"be [1, {label.shape[-1]}]"
        )
    return _C.scale(label, 1.0 - eps) + _C.scale(prior_dist, eps)


def class_center_sample(
    label: Tensor, num_classes: int, num_samples: int, group: Any = None
) -> tuple[Tensor, Tensor]:
    """Samples class centers for a partial-FC softmax (one process): every class in label
    (ascending), then random other classes (from the default generator) until there are
    num_samples. Returns (label remapped to positions in the sample, the sampled classes)."""
    api = "class_center_sample"
    C.tensor(api, "label", label)
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument 'label' must be an int32 or int64 tensor, but got "
            f"{label.dtype.name}"
        )
    if label.ndim != 1 or label.shape[0] < 1:
        raise ValueError(
            f"{api}(): argument 'label' must be 1-D and non-empty, but has shape {label.shape}"
        )
    n = C.integer(api, "num_classes", num_classes)
    k = C.integer(api, "num_samples", num_samples)
    if not 0 < k <= n:
        raise ValueError(f"{api}(): argument 'num_samples' ({k}) must be in [1, num_classes ({n})]")
    if group not in (None, False) and getattr(group, "nranks", 1) != 1:
        raise NotImplementedError(
            f"{api}(): sampling across a group of processes is not "
            f"supported; call it without group on each process"
        )
    values = label.numpy()
    if values.min() < 0 or values.max() >= n:
        raise ValueError(f"{api}(): argument 'label' holds values outside [0, {n})")
    positive = np.unique(values)
    sampled = positive
    if len(positive) < k:
        rest = np.setdiff1d(np.arange(n), positive)
        order = _C.randperm(len(rest), convert_dtype("int64")).numpy()
        sampled = np.concatenate([positive, rest[order[: k - len(positive)]]])
    remapped = np.searchsorted(positive, values)
    dtype = label.dtype
    return (
        _C.cast(to_tensor(remapped.astype(np.int64)), dtype),
        _C.cast(to_tensor(sampled.astype(np.int64)), dtype),
    )
