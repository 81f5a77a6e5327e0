"""oar.nn.functional: activations and softmax (Paddle's paddle.nn.functional.activation).

Each activation is one op of src/oar/ops/activation.yaml (a fused elementwise kernel
with a fused first-order backward), called here with Paddle's signature. Three are
compositions, as fast as an op of their own would be: swish is silu (Paddle's swish
has beta 1), relu6 is hardtanh(x, 0, 6) (the same single kernel), and glu is a split
plus sigmoid and multiply.
"""

from __future__ import annotations

from ... import _C
from ...framework import check as C
from ...framework.dtype import convert_dtype
from ...framework.typing import DTypeLike, Tensor
from ...tensor.manipulation import split

__all__ = [
    "relu",
    "relu_",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "gelu",
    "silu",
    "swish",
    "mish",
    "leaky_relu",
    "elu",
    "selu",
    "celu",
    "softplus",
    "softsign",
    "hardswish",
    "hardsigmoid",
    "hardtanh",
    "hardtanh_",
    "relu6",
    "prelu",
    "glu",
    "log_sigmoid",
    "tanhshrink",
    "softshrink",
    "hardshrink",
    "thresholded_relu",
    "logsigmoid",
    "tanh_",
    "elu_",
    "leaky_relu_",
    "softmax_",
    "thresholded_relu_",
    "maxout",
    "rrelu",
    "gumbel_softmax",
    "swiglu",
]

relu = _C.relu
relu_ = _C.relu_
sigmoid = _C.sigmoid
tanh = _C.tanh
tanh_ = _C.tanh_


def _into(api, x, fn):
    """fn(x) written into x (Paddle's in-place activations without a kernel of their own).
    fn runs on a copy, so the values it saves for its backward are not the ones
    overwritten, and the gradient flows from the new x through fn to the old one."""
    C.tensor(api, "x", x)
    _C.set_value_with_tensor_(x, fn(_C.assign(x)), [], [], [], [])
    return x


def softmax(
    x: Tensor, axis: int = -1, dtype: DTypeLike | None = None, name: str | None = None
) -> Tensor:
    if dtype is not None:
        x = _C.cast(x, convert_dtype(dtype))
    return _C.softmax(x, axis)


def log_softmax(
    x: Tensor, axis: int = -1, dtype: DTypeLike | None = None, name: str | None = None
) -> Tensor:
    if dtype is not None:
        x = _C.cast(x, convert_dtype(dtype))
    return _C.log_softmax(x, axis)


def softmax_(
    x: Tensor, axis: int = -1, dtype: DTypeLike | None = None, name: str | None = None
) -> Tensor:
    """softmax written into x (the in-place variant of softmax); returns x."""
    if dtype is not None and convert_dtype(dtype) != x.dtype:
        raise TypeError(
            f"softmax_(): argument 'dtype' ({dtype}) must be x's dtype "
            f"({x.dtype.name}) to write in place"
        )
    return _into("softmax_", x, lambda t: _C.softmax(t, axis))


def gelu(x: Tensor, approximate: bool | str = False, name: str | None = None) -> Tensor:
    """gelu(x) = x * Phi(x), Phi the standard normal CDF (through erf); with approximate
    (True or "tanh") 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x ** 3))).
    approximate may also be False or "none"."""
    if isinstance(approximate, str):
        if approximate not in ("tanh", "none"):
            raise ValueError(
                f"gelu(): argument 'approximate' must be True, False, 'tanh' or "
                f"'none', but got {approximate!r}"
            )
        approximate = approximate == "tanh"
    return _C.gelu(x, approximate)


def silu(x: Tensor, inplace: bool = False, name: str | None = None) -> Tensor:
    """silu(x) = x * sigmoid(x); with inplace, written into x."""
    if inplace:
        return _into("silu", x, _C.silu)
    return _C.silu(x)


def swish(x: Tensor, name: str | None = None) -> Tensor:
    """swish(x) = x * sigmoid(x) (the silu op)."""
    return _C.silu(x)


def mish(x: Tensor, name: str | None = None) -> Tensor:
    """mish(x) = x * tanh(softplus(x))."""
    return _C.mish(x)


def leaky_relu(x: Tensor, negative_slope: float = 0.01, name: str | None = None) -> Tensor:
    """leaky_relu(x) = x where x > 0, else negative_slope * x."""
    return _C.leaky_relu(x, negative_slope)


def elu(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    """elu(x) = x where x > 0, else alpha * (e ** x - 1)."""
    return _C.elu(x, alpha)


def elu_(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    """elu written into x (the in-place variant of elu); returns x."""
    return _into("elu_", x, lambda t: _C.elu(t, alpha))


def leaky_relu_(x: Tensor, negative_slope: float = 0.01, name: str | None = None) -> Tensor:
    """leaky_relu written into x (the in-place variant of leaky_relu); returns x."""
    return _into("leaky_relu_", x, lambda t: _C.leaky_relu(t, negative_slope))


def selu(
    x: Tensor,
    scale: float = 1.0507009873554805,
    alpha: float = 1.6732632423543772,
    name: str | None = None,
) -> Tensor:
    """selu(x) = scale * (x where x > 0, else alpha * (e ** x - 1)); scale > 1, alpha >= 0."""
    return _C.selu(x, scale, alpha)


def celu(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    """celu(x) = max(0, x) + min(0, alpha * (e ** (x / alpha) - 1)); alpha must not be 0."""
    return _C.celu(x, alpha)


def softplus(x: Tensor, beta: float = 1, threshold: float = 20, name: str | None = None) -> Tensor:
    """softplus(x) = log(1 + e ** (beta * x)) / beta, and x where beta * x > threshold."""
    return _C.softplus(x, beta, threshold)


def softsign(x: Tensor, name: str | None = None) -> Tensor:
    """softsign(x) = x / (1 + |x|)."""
    return _C.softsign(x)


def hardswish(x: Tensor, name: str | None = None) -> Tensor:
    """hardswish(x) = x * min(max(x + 3, 0), 6) / 6."""
    return _C.hardswish(x)


def hardsigmoid(
    x: Tensor, slope: float = 0.1666667, offset: float = 0.5, name: str | None = None
) -> Tensor:
    """hardsigmoid(x) = min(max(slope * x + offset, 0), 1)."""
    return _C.hardsigmoid(x, slope, offset)


def hardtanh(
    x: Tensor,
    min: float = -1.0,
    max: float = 1.0,  # noqa: A002 - Paddle's names
    name: str | None = None,
) -> Tensor:
    """hardtanh(x) = min(max(x, min), max)."""
    return _C.hardtanh(x, min, max)


def hardtanh_(
    x: Tensor,
    min: float = -1.0,
    max: float = 1.0,  # noqa: A002 - Paddle's names
    name: str | None = None,
) -> Tensor:
    """hardtanh written into x (the in-place variant of hardtanh); returns x."""
    return _C.hardtanh_(x, min, max)


def relu6(x: Tensor, name: str | None = None) -> Tensor:
    """relu6(x) = min(max(x, 0), 6) (the hardtanh op)."""
    return _C.hardtanh(x, 0.0, 6.0)


def log_sigmoid(x: Tensor, name: str | None = None) -> Tensor:
    """log_sigmoid(x) = log(1 / (1 + e ** -x)), without overflow."""
    return _C.log_sigmoid(x)


logsigmoid = log_sigmoid


def tanhshrink(x: Tensor, name: str | None = None) -> Tensor:
    """tanhshrink(x) = x - tanh(x)."""
    return _C.tanhshrink(x)


def softshrink(x: Tensor, threshold: float = 0.5, name: str | None = None) -> Tensor:
    """softshrink(x) = x - threshold where x > threshold, x + threshold where
    x < -threshold, else 0; threshold >= 0."""
    return _C.softshrink(x, threshold)


def hardshrink(x: Tensor, threshold: float = 0.5, name: str | None = None) -> Tensor:
    """hardshrink(x) = x where |x| > threshold, else 0."""
    return _C.hardshrink(x, threshold)


def thresholded_relu(
    x: Tensor, threshold: float = 1.0, value: float = 0.0, name: str | None = None
) -> Tensor:
    """thresholded_relu(x) = x where x > threshold, else value."""
    return _C.thresholded_relu(x, threshold, value)


def thresholded_relu_(
    x: Tensor, threshold: float = 1.0, value: float = 0.0, name: str | None = None
) -> Tensor:
    """thresholded_relu written into x (the in-place variant); returns x."""
    return _into("thresholded_relu_", x, lambda t: _C.thresholded_relu(t, threshold, value))


# data_format -> whether the channels are the last axis (else axis 1).
_PRELU_FORMATS = {
    "NC": False,
    "NCL": False,
    "NCHW": False,
    "NCDHW": False,
    "NLC": True,
    "NHWC": True,
    "NDHWC": True,
}


def prelu(x: Tensor, weight: Tensor, data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """prelu(x) = max(0, x) + weight * min(0, x). weight has one element (shape [], [1])
    shared by all of x, or one per channel (shape [C]); the channels are axis 1 for
    "NC", "NCL", "NCHW", "NCDHW" and the last axis for "NLC", "NHWC", "NDHWC"."""
    C.tensor("prelu", "x", x)
    C.tensor("prelu", "weight", weight)
    if not isinstance(data_format, str) or data_format not in _PRELU_FORMATS:
        raise ValueError(
            f"prelu(): argument 'data_format' must be one of "
            f"{', '.join(_PRELU_FORMATS)}, but got {data_format!r}"
        )
    if weight.ndim > 1:
        raise ValueError(
            f"prelu(): argument 'weight' must be 0-D or 1-D, but got shape {weight.shape}"
        )
    if weight.size == 1:
        return _C.prelu(x, _C.reshape(weight, []))
    channel_last = _PRELU_FORMATS[data_format]
    if x.ndim < 2:
        raise ValueError(
            f"prelu(): a per-channel argument 'weight' (shape {weight.shape}) "
            f"needs 'x' with at least 2 dimensions, but got shape {x.shape}"
        )
    axis = x.ndim - 1 if channel_last else 1
    if weight.size != x.shape[axis]:
        raise ValueError(
            f"prelu(): argument 'weight' has {weight.size} elements but 'x' of "
            f"shape {x.shape} has {x.shape[axis]} channels (axis {axis}, "
            f"data_format {data_format!r}); expected 1 or {x.shape[axis]}"
        )
    if not channel_last:
        weight = _C.reshape(weight, [weight.size] + [1] * (x.ndim - 2))
    return _C.prelu(x, weight)


def glu(x: Tensor, axis: int = -1, name: str | None = None) -> Tensor:
    """glu(x) = a * sigmoid(b), a and b the halves of x along axis."""
    C.tensor("glu", "x", x)
    if x.ndim == 0:
        raise ValueError("glu(): argument 'x' must have at least 1 dimension, but it is 0-D")
    a = C.axis("glu", "axis", axis, x.ndim)
    if x.shape[a] % 2:
        raise ValueError(
            f"glu(): the size of 'x' along argument 'axis' ({axis}) must be even, "
            f"but got {x.shape[a]} (shape {x.shape})"
        )
    first, second = split(x, 2, a)
    return _C.multiply(first, _C.sigmoid(second))


def maxout(x: Tensor, groups: int, axis: int = 1, name: str | None = None) -> Tensor:
    """The max over each run of `groups` consecutive channels: channel i of the result is
    max(x[:, i * groups:(i + 1) * groups]) along axis (1, or -1/last for channels-last)."""
    api = "maxout"
    C.tensor(api, "x", x)
    g = C.integer(api, "groups", groups)
    a = C.axis(api, "axis", axis, x.ndim)
    if a not in (1, x.ndim - 1):
        raise ValueError(
            f"{api}(): argument 'axis' must be 1 or the last axis ({x.ndim - 1} or "
            f"-1), but got {axis}"
        )
    if g <= 0 or x.shape[a] % g:
        raise ValueError(
            f"{api}(): argument 'groups' ({g}) must be positive and divide the "
            f"{x.shape[a]} channels of x (axis {a})"
        )
    shape = list(x.shape)
    shape[a : a + 1] = [shape[a] // g, g]
    return _C.max(C.reshape_exact(x, shape), [a + 1], False)


def rrelu(
    x: Tensor,
    lower: float = 1.0 / 8.0,
    upper: float = 1.0 / 3.0,
    training: bool = True,
    name: str | None = None,
) -> Tensor:
    """Randomized leaky ReLU: x where x >= 0, else a * x, a drawn uniformly from [lower, upper]
    per element in training (from the default generator), (lower + upper) / 2 otherwise."""
    api = "rrelu"
    C.tensor(api, "x", x)
    lo = float(C.number(api, "lower", lower))
    hi = float(C.number(api, "upper", upper))
    if not 0.0 <= lo <= hi <= 1.0:
        raise ValueError(
            f"{api}(): arguments 'lower' ({lo}) and 'upper' ({hi}) must satisfy "
            f"0 <= lower <= upper <= 1"
        )
    if not x.dtype.is_floating_point:
        raise TypeError(f"{api}(): argument 'x' must be a floating tensor, but got {x.dtype.name}")
    if not training:
        return _C.leaky_relu(x, (lo + hi) / 2.0)
    slope = (
        _C.uniform(list(x.shape), x.dtype, lo, hi, 0)
        if hi > lo
        else _C.full(list(x.shape), lo, x.dtype)
    )
    neg = _C.less_than(x, _C.full_like(x, 0.0))
    return _C.where(neg, x * slope, x)


def gumbel_softmax(
    x: Tensor, temperature: float = 1.0, hard: bool = False, axis: int = -1, name: str | None = None
) -> Tensor:
    """softmax((x + g) / temperature) along axis, g standard Gumbel noise from the default
    generator; with hard, the one-hot of its argmax in the forward pass and the soft
    sample's gradient in the backward (straight-through)."""
    api = "gumbel_softmax"
    C.tensor(api, "x", x)
    t = float(C.number(api, "temperature", temperature))
    if t <= 0:
        raise ValueError(f"{api}(): argument 'temperature' must be positive, but got {t}")
    a = C.axis(api, "axis", axis, max(x.ndim, 1))
    tiny = 1e-20  # keeps log(0) out of -log(-log(u)) for a draw of exactly 0
    u = _C.uniform(list(x.shape), x.dtype, 0.0, 1.0, 0)
    g = _C.neg(_C.log(_C.scale(_C.neg(_C.log(_C.scale(u, 1.0, tiny))), 1.0, tiny)))
    y = _C.softmax(_C.scale(x + g, 1.0 / t), a)
    if not hard:
        return y
    idx = _C.unsqueeze(_C.argmax(y, a, False, convert_dtype("int64")), [a])
    one_hot = _C.scatter_along_axis(
        _C.full_like(y, 0.0), idx, _C.full_like(idx, 1).astype(y.dtype), a, 0, True, True
    )
    return one_hot - y.detach() + y


def swiglu(x: Tensor, y: Tensor | None = None, name: str | None = None) -> Tensor:
    """silu(x) * y; with y None, x is split in halves along the last axis: silu(first) * second."""
    api = "swiglu"
    C.tensor(api, "x", x)
    if y is None:
        if x.ndim == 0 or x.shape[-1] % 2:
            raise ValueError(
                f"{api}(): without y, the last dim of x must be even, but x has shape {x.shape}"
            )
        x, y = split(x, 2, x.ndim - 1)
    else:
        C.tensor(api, "y", y)
    return _C.multiply(_C.silu(x), y)
