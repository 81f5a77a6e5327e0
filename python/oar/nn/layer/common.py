"""Common layers: Linear, Identity, Flatten (Paddle's weight layouts and initializers)."""
from __future__ import annotations

from ... import _C
from .layers import Layer

__all__ = ["Linear", "Identity", "Flatten"]


class Linear(Layer):
    """y = x @ weight + bias, weight of shape [in_features, out_features] (Paddle's
    layout: the transpose of PyTorch's).

    Args:
        in_features, out_features: the sizes of the last axis of x and y.
        weight_attr: ParamAttr of the weight (default init: XavierUniform).
        bias_attr: ParamAttr of the bias (default zeros); False for no bias.
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        for arg, v in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"Linear: argument '{arg}' must be a non-negative int, "
                                 f"got {v!r}")
        self._in_features, self._out_features = in_features, out_features
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr)
        self.bias = self.create_parameter([out_features], attr=bias_attr, is_bias=True)
        self.name = name

    def forward(self, input):
        out = _C.matmul(input, self.weight)
        return out if self.bias is None else _C.add(out, self.bias)

    def extra_repr(self):
        return (f"in_features={self._in_features}, out_features={self._out_features}, "
                f"dtype={self._dtype.name}")


class Identity(Layer):
    """Returns its input (a placeholder in a network)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Flatten(Layer):
    """Flattens the axes start_axis..stop_axis into one."""

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        from ... import flatten
        return flatten(input, self.start_axis, self.stop_axis)

    def extra_repr(self):
        return f"start_axis={self.start_axis}, stop_axis={self.stop_axis}"
