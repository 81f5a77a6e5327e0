"""Activation layers: each wraps the oar.nn.functional function of the same name
with its settings fixed at construction (Paddle's paddle.nn.ReLU, GELU, ...)."""

from __future__ import annotations

import inspect

from .layers import Layer, _dtype_text
from .. import functional as F
from ..initializer import Constant
from ... import _C
from ...framework import check as _check
from ..functional.activation import _into

__all__ = [
    "ReLU",
    "ReLU6",
    "Sigmoid",
    "Tanh",
    "Softmax",
    "LogSoftmax",
    "GELU",
    "SiLU",
    "Swish",
    "Mish",
    "LeakyReLU",
    "ELU",
    "SELU",
    "CELU",
    "Softplus",
    "Softsign",
    "Hardswish",
    "Hardsigmoid",
    "Hardtanh",
    "GLU",
    "LogSigmoid",
    "Tanhshrink",
    "Softshrink",
    "Hardshrink",
    "ThresholdedReLU",
    "PReLU",
    "Silu",
    "Softmax2D",
    "RReLU",
    "Maxout",
]


def _name_suffix(name, first=False):
    """Paddle's ", name=..." ending of an activation's repr (nothing when name is empty);
    first: the name is the only setting shown, so no leading comma."""
    if not name:
        return ""
    return f"name={name}" if first else f", name={name}"


def _activation(cls_name, fn_name, params, spec=""):
    """A Layer class calling F.<fn_name>(x, **settings); params: [(name, default)];
    spec: the format spec repr uses for the settings' values. The constructor's
    signature is Paddle's: the settings, then name, all positional or keyword (so
    ReLU(True) is ReLU(name=True), as in Paddle)."""
    sig = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [
            inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d)
            for p, d in params
        ]
        + [inspect.Parameter("name", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)]
    )

    def __init__(self, *args, **kwargs):
        try:
            bound = sig.bind(self, *args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{cls_name}(): {e}") from None
        bound.apply_defaults()
        Layer.__init__(self)
        values = dict(bound.arguments)
        del values["self"]
        self._name = values.pop("name")
        self._settings = values

    __init__.__signature__ = sig

    def forward(self, x):
        return getattr(F, fn_name)(x, **self._settings)

    def extra_repr(self):
        shown = ", ".join(f"{k}={v:{spec}}" for k, v in self._settings.items())
        return shown + _name_suffix(self._name, first=not shown)

    return type(
        cls_name,
        (Layer,),
        {
            "__init__": __init__,
            "forward": forward,
            "extra_repr": extra_repr,
            "__doc__": f"Layer form of oar.nn.functional.{fn_name}.",
        },
    )


ReLU = _activation("ReLU", "relu", [])
ReLU6 = _activation("ReLU6", "relu6", [])
Sigmoid = _activation("Sigmoid", "sigmoid", [])
Tanh = _activation("Tanh", "tanh", [])
Softmax = _activation("Softmax", "softmax", [("axis", -1)])
LogSoftmax = _activation("LogSoftmax", "log_softmax", [("axis", -1)])
GELU = _activation("GELU", "gelu", [("approximate", False)])
Swish = _activation("Swish", "swish", [])
Mish = _activation("Mish", "mish", [])
LeakyReLU = _activation("LeakyReLU", "leaky_relu", [("negative_slope", 0.01)])
ELU = _activation("ELU", "elu", [("alpha", 1.0)])
SELU = _activation(
    "SELU",
    "selu",
    [("scale", 1.0507009873554804934193349852946), ("alpha", 1.6732632423543772848170429916717)],
    ".16f",
)
CELU = _activation("CELU", "celu", [("alpha", 1.0)])
Softplus = _activation("Softplus", "softplus", [("beta", 1), ("threshold", 20)])
Softsign = _activation("Softsign", "softsign", [])
Hardswish = _activation("Hardswish", "hardswish", [])
Hardsigmoid = _activation("Hardsigmoid", "hardsigmoid", [])
Hardtanh = _activation("Hardtanh", "hardtanh", [("min", -1.0), ("max", 1.0)])
GLU = _activation("GLU", "glu", [("axis", -1)])
LogSigmoid = _activation("LogSigmoid", "log_sigmoid", [])
Tanhshrink = _activation("Tanhshrink", "tanhshrink", [])
Softshrink = _activation("Softshrink", "softshrink", [("threshold", 0.5)])
Hardshrink = _activation("Hardshrink", "hardshrink", [("threshold", 0.5)])
ThresholdedReLU = _activation(
    "ThresholdedReLU", "thresholded_relu", [("threshold", 1.0), ("value", 0.0)]
)


class PReLU(Layer):
    """prelu with a learnable weight: one slope (num_parameters=1) or one per channel.

    Args:
        num_parameters: 1 or the number of channels.
        init: the initial slope (0.25).
        weight_attr: ParamAttr of the weight (the parameter _weight, as Paddle names it).
        data_format: "NCHW" (channels on axis 1) or "NHWC" (last axis).
    """

    def __init__(
        self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW", name=None
    ):
        super().__init__()
        if not _check.is_int(num_parameters) or num_parameters < 1:
            raise ValueError(
                f"PReLU: argument 'num_parameters' must be a positive int, got {num_parameters!r}"
            )
        num_parameters = int(num_parameters)
        self._data_format = data_format
        self._num_parameters, self._init, self._name = num_parameters, init, name
        # Paddle's parameter (and state_dict key) is "_weight"
        self._weight = self.create_parameter(
            [num_parameters], attr=weight_attr, default_initializer=Constant(init)
        )

    @property
    def weight(self):
        """The slopes (an alias of Paddle's parameter name, _weight)."""
        return self._weight

    @weight.setter
    def weight(self, value):
        self._weight = value

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self):
        return (
            f"num_parameters={self._num_parameters}, data_format={self._data_format}, "
            f"init={self._init}, dtype={_dtype_text(self)}" + _name_suffix(self._name)
        )


class Silu(Layer):
    """silu(x) = x * sigmoid(x); with inplace, the result is written into x (PyTorch's
    SiLU(inplace)). oar.nn.SiLU is the same class."""

    def __init__(self, inplace=False, name=None):
        super().__init__()
        self._inplace = bool(inplace)
        self._name = name

    def forward(self, x):
        if self._inplace:
            return _into("Silu", x, _C.silu)
        return _C.silu(x)

    def extra_repr(self):
        return f"inplace={self._inplace}" + _name_suffix(self._name)


SiLU = Silu


class Softmax2D(Layer):
    """softmax over the channels of [N, C, H, W] (or [C, H, W]) at every position."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        _check.tensor("Softmax2D", "x", x)
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2D: argument 'x' must be 3-D or 4-D, but has shape {x.shape}")
        return _C.softmax(x, -3)

    def extra_repr(self):
        return _name_suffix(self._name, first=True)


class RReLU(Layer):
    """Randomized leaky ReLU: negative slopes drawn from [lower, upper] in training, their
    mean in eval mode."""

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x):
        return F.rrelu(x, self._lower, self._upper, training=self.training)

    def extra_repr(self):
        return (
            f"lower={self._lower}, upper={self._upper}, training={self.training}, "
            f"dtype={_dtype_text(self)}" + _name_suffix(self._name)
        )


class Maxout(Layer):
    """The max over each run of `groups` consecutive channels (axis 1 or the last)."""

    def __init__(self, groups, axis=1, name=None):
        super().__init__()
        self._groups, self._axis, self._name = groups, axis, name

    def forward(self, x):
        return F.maxout(x, self._groups, self._axis)

    def extra_repr(self):
        return f"groups={self._groups}, axis={self._axis}" + _name_suffix(self._name)
