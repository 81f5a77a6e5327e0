"""oar.nn.initializer: Paddle's parameter initializers.

Each draws from oar's seeded generator (oar.seed makes them reproducible) and is
used two ways, as in Paddle: given to a layer (ParamAttr(initializer=...),
weight_attr=..., default_initializer=...), or called on an existing tensor,
init(param), which overwrites it in place.

Fans follow Paddle's rule for a weight of shape s: a 1-D weight has fan_in =
fan_out = s[0]; a 2-D weight (Linear, [in, out]) has fan_in = s[0], fan_out =
s[1]; a convolution weight [out, in, *kernel] has fan_in = s[1] * prod(kernel)
and fan_out = s[0] * prod(kernel).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _C
from ..framework import param as _param
from ..framework.dtype import convert_dtype
from ..framework.param import _set_value
from ..tensor.creation import to_tensor

__all__ = [
    "Initializer",
    "Constant",
    "Normal",
    "TruncatedNormal",
    "Uniform",
    "XavierNormal",
    "XavierUniform",
    "KaimingNormal",
    "KaimingUniform",
    "Orthogonal",
    "Assign",
    "Bilinear",
    "Dirac",
    "calculate_gain",
    "set_global_initializer",
]


def _fans(shape):
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain of an activation (Paddle's paddle.nn.initializer.calculate_gain).

    Args:
        nonlinearity: 'sigmoid', 'linear', 'conv1d', 'conv2d', 'conv3d', 'tanh', 'relu',
            'leaky_relu' or 'selu'.
        param: leaky_relu's negative slope (default 0.01).

    Returns:
        float: the gain.
    """
    gains = {
        "sigmoid": 1.0,
        "linear": 1.0,
        "conv1d": 1.0,
        "conv2d": 1.0,
        "conv3d": 1.0,
        "conv1d_transpose": 1.0,
        "conv2d_transpose": 1.0,
        "conv3d_transpose": 1.0,
        "tanh": 5.0 / 3,
        "relu": math.sqrt(2.0),
        "selu": 3.0 / 4,
    }
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity not in gains:
        raise ValueError(
            f"calculate_gain: argument 'nonlinearity' must be one of "
            f"{sorted(gains) + ['leaky_relu']}, got {nonlinearity!r}"
        )
    return gains[nonlinearity]


class Initializer:
    """Base class: subclasses implement _generate(shape, dtype) -> Tensor."""

    def _generate(self, shape, dtype):
        raise TypeError(f"{type(self).__name__} is an abstract initializer")

    def __call__(self, param, block=None):
        """Overwrite param (an oar.Tensor) in place with fresh values; returns param."""
        if not isinstance(param, _C.Tensor):
            raise TypeError(
                f"{type(self).__name__}: argument 'param' must be a Tensor, got "
                f"{type(param).__name__}"
            )
        _set_value(param, self._generate(list(param.shape), param.dtype))
        return param

    def __repr__(self):
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({attrs})"


def _float_dtype(dtype, who):
    dtype = convert_dtype(dtype)
    if dtype.name not in ("float16", "bfloat16", "float32", "float64"):
        raise TypeError(f"{who}: random initialisation needs a floating dtype, got {dtype.name}")
    return dtype


def _uniform(shape, low, high, dtype):
    # Drawn in float32/float64, then cast: the generator's stream is the same for a
    # float16/bfloat16 parameter as for a float32 one.
    d = convert_dtype(dtype)
    base = d if d.name == "float64" else convert_dtype("float32")
    t = _C.uniform(list(shape), base, float(low), float(high), 0)
    return t if base == d else _C.cast(t, d)


def _normal(shape, mean, std, dtype):
    d = convert_dtype(dtype)
    base = d if d.name == "float64" else convert_dtype("float32")
    t = _C.normal(list(shape), float(mean), float(std), 0, base)
    return t if base == d else _C.cast(t, d)


class Constant(Initializer):
    """Every element = value."""

    def __init__(self, value=0.0):
        self.value = value

    def _generate(self, shape, dtype):
        return _C.full(list(shape), self.value, convert_dtype(dtype))


class Uniform(Initializer):
    """Uniform on [low, high)."""

    def __init__(self, low=-1.0, high=1.0, name=None):
        if not low <= high:
            raise ValueError(f"Uniform: argument 'low' ({low}) must not exceed 'high' ({high})")
        self.low, self.high = float(low), float(high)

    def _generate(self, shape, dtype):
        return _uniform(shape, self.low, self.high, _float_dtype(dtype, "Uniform"))


class Normal(Initializer):
    """Normal(mean, std)."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        if std < 0:
            raise ValueError(f"Normal: argument 'std' must be >= 0, got {std}")
        self.mean, self.std = float(mean), float(std)

    def _generate(self, shape, dtype):
        return _normal(shape, self.mean, self.std, _float_dtype(dtype, "Normal"))


class TruncatedNormal(Initializer):
    """Normal(mean, std) restricted to [mean + a*std, mean + b*std]: values outside
    are drawn again (Paddle's a=-2, b=2 by default)."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        if std < 0:
            raise ValueError(f"TruncatedNormal: argument 'std' must be >= 0, got {std}")
        if not a < b:
            raise ValueError(f"TruncatedNormal: argument 'a' ({a}) must be less than 'b' ({b})")
        self.mean, self.std, self.a, self.b = float(mean), float(std), float(a), float(b)

    def _generate(self, shape, dtype):
        d = _float_dtype(dtype, "TruncatedNormal")
        n = math.prod(shape)
        z = _C.normal([n], 0.0, 1.0, 0, convert_dtype("float64")).numpy()
        bad = (z < self.a) | (z > self.b)
        while bad.any():  # each round keeps ~95% of what it redraws (a=-2, b=2)
            z[bad] = _C.normal([int(bad.sum())], 0.0, 1.0, 0, convert_dtype("float64")).numpy()
            bad = (z < self.a) | (z > self.b)
        return _C.cast(to_tensor((self.mean + self.std * z).reshape(shape)), d)


class XavierUniform(Initializer):
    """Uniform(-l, l) with l = gain * sqrt(6 / (fan_in + fan_out)) (Glorot)."""

    def __init__(self, fan_in=None, fan_out=None, name=None, gain=1.0):
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, float(gain)

    def _generate(self, shape, dtype):
        fi, fo = _fans(shape)
        fi = fi if self.fan_in is None else self.fan_in
        fo = fo if self.fan_out is None else self.fan_out
        limit = self.gain * math.sqrt(6.0 / float(fi + fo)) if fi + fo > 0 else 0.0
        return _uniform(shape, -limit, limit, _float_dtype(dtype, "XavierUniform"))


class XavierNormal(Initializer):
    """Normal(0, std) with std = gain * sqrt(2 / (fan_in + fan_out)) (Glorot)."""

    def __init__(self, fan_in=None, fan_out=None, name=None, gain=1.0):
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, float(gain)

    def _generate(self, shape, dtype):
        fi, fo = _fans(shape)
        fi = fi if self.fan_in is None else self.fan_in
        fo = fo if self.fan_out is None else self.fan_out
        std = self.gain * math.sqrt(2.0 / float(fi + fo)) if fi + fo > 0 else 0.0
        return _normal(shape, 0.0, std, _float_dtype(dtype, "XavierNormal"))


class KaimingNormal(Initializer):
    """Normal(0, std) with std = gain / sqrt(fan_in) (He), gain from the nonlinearity."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        self.fan_in, self.negative_slope, self.nonlinearity = fan_in, negative_slope, nonlinearity

    def _std(self, shape):
        fi = _fans(shape)[0] if self.fan_in is None else self.fan_in
        gain = calculate_gain(self.nonlinearity, self.negative_slope)
        return gain / math.sqrt(float(fi)) if fi > 0 else 0.0

    def _generate(self, shape, dtype):
        return _normal(shape, 0.0, self._std(shape), _float_dtype(dtype, "KaimingNormal"))


class KaimingUniform(KaimingNormal):
    """Uniform(-l, l) with l = gain * sqrt(3 / fan_in) (He)."""

    def _generate(self, shape, dtype):
        limit = math.sqrt(3.0) * self._std(shape)
        return _uniform(shape, -limit, limit, _float_dtype(dtype, "KaimingUniform"))


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times gain: rows (or columns) orthonormal over the
    weight flattened to [shape[0], prod(shape[1:])]."""

    def __init__(self, gain=1.0, name=None):
        self.gain = float(gain)

    def _generate(self, shape, dtype):
        d = _float_dtype(dtype, "Orthogonal")
        if len(shape) < 2:
            raise ValueError(
                f"Orthogonal: the parameter must have at least 2 dimensions, got "
                f"shape {list(shape)}"
            )
        rows, cols = shape[0], math.prod(shape[1:])
        a = _C.normal(
            [max(rows, cols), min(rows, cols)], 0.0, 1.0, 0, convert_dtype("float64")
        ).numpy()
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))  # a unique Q: the distribution is uniform (Haar)
        if rows < cols:
            q = q.T
        return _C.cast(to_tensor((self.gain * q).reshape(shape)), d)


class Assign(Initializer):
    """The given values (a numpy array, list or Tensor). Of another shape than the
    parameter's, they replace it, shape and all, as Paddle 3.3.1's Assign does (its
    documented example assigns [2, 2] to a Linear(2, 2)'s weight, which becomes [2])."""

    def __init__(self, value, name=None):
        self.value = value

    def _value(self, dtype):
        v = self.value if isinstance(self.value, _C.Tensor) else to_tensor(np.asarray(self.value))
        return _C.cast(v, convert_dtype(dtype))

    def _generate(self, shape, dtype):
        return self._value(dtype)  # a new parameter takes the value's shape

    def __call__(self, param, block=None):
        if isinstance(param, _C.Tensor):
            v = self._value(param.dtype)
            if list(v.shape) != list(param.shape):
                _C._set_tensor_impl(param, _C.assign(v.detach()))
                return param
        return super().__call__(param, block)


class Bilinear(Initializer):
    """The kernel of bilinear upsampling, for a Conv2DTranspose weight [C_in, C_out, K, K]
    with stride factor and K = 2 * factor - factor % 2: every [K, K] slice is the outer
    product of the 1-D tent (1 - |x / f - c|), f = ceil(K / 2), c = (2f - 1 - f % 2) / 2f.
    (Paddle's own divides the row index with /, which bends its rows; this is the intended
    separable kernel.)"""

    def _generate(self, shape, dtype):
        if len(shape) != 4 or shape[2] != shape[3]:
            raise ValueError(
                f"Bilinear: the parameter must be 4-D with a square kernel "
                f"[C_in, C_out, K, K], but has shape {list(shape)}"
            )
        size = shape[3]
        f = math.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        tent = 1.0 - np.abs(np.arange(size) / f - c)
        kernel = np.outer(tent, tent)
        weight = np.broadcast_to(kernel, shape).astype(np.float32)
        return _C.cast(to_tensor(np.ascontiguousarray(weight)), convert_dtype(dtype))


class Dirac(Initializer):
    """The identity convolution: a 3-D/4-D/5-D weight [out, in, *kernel] that is zero except
    a 1 at the kernel's centre for out channel g * (out / groups) + i and in channel i, for
    each group g and i < min(out / groups, in), so a convolution passes channels through."""

    def __init__(self, groups=1, name=None):
        if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
            raise ValueError(f"Dirac: argument 'groups' must be a positive int, got {groups!r}")
        self.groups = groups

    def _generate(self, shape, dtype):
        if len(shape) not in (3, 4, 5):
            raise ValueError(
                f"Dirac: the parameter must be 3-D, 4-D or 5-D [out, in, *kernel], "
                f"but has shape {list(shape)}"
            )
        if shape[0] % self.groups:
            raise ValueError(
                f"Dirac: the {shape[0]} output channels must be divisible by groups ({self.groups})"
            )
        weight = np.zeros(shape, dtype=np.float32)
        per_group = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for i in range(min(per_group, shape[1])):
                weight[(g * per_group + i, i) + centre] = 1.0
        return _C.cast(to_tensor(weight), convert_dtype(dtype))


# set_global_initializer's choice, read by Layer.create_parameter and oar.create_parameter
_global: dict[str, Initializer | None] = _param.GLOBAL_INITIALIZERS


def set_global_initializer(
    weight_init: Initializer | None, bias_init: Initializer | None = None
) -> None:
    """Replace the default initializers of every layer created afterwards (None restores
    Paddle's: XavierUniform for weights, Constant(0) for biases)."""
    _global["weight"], _global["bias"] = weight_init, bias_init


# oar.create_parameter's defaults (oar.framework.param, below oar.nn, names them here)
_param.DEFAULT_INITIALIZERS.update(weight=XavierUniform, bias=lambda: Constant(0.0))
