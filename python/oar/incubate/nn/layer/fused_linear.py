"""FusedLinear: a Linear layer computed by fused_linear, with Paddle's optional
transposed weight layout."""

from __future__ import annotations

from ....framework.check import is_int
from ....nn.layer.layers import Layer
from ..functional import fused_linear

__all__ = ["FusedLinear"]


class FusedLinear(Layer):
    """y = x @ weight + bias; weight [in_features, out_features], or [out_features,
    in_features] with transpose_weight (default init XavierUniform), bias
    [out_features] (zeros; bias_attr=False for none).

    Args:
        in_features (int): The size of x's last axis.
        out_features (int): The size of y's last axis.
        weight_attr (ParamAttr|None, optional): The weight's attribute. Default: None.
        bias_attr (ParamAttr|bool|None, optional): The bias's attribute; False: no bias.
            Default: None.
        transpose_weight (bool, optional): Store the weight transposed. Default: False.
        name (str|None, optional): Unused, for Paddle compatibility. Default: None.
    """

    def __init__(
        self,
        in_features,
        out_features,
        weight_attr=None,
        bias_attr=None,
        transpose_weight=False,
        name=None,
    ):
        super().__init__()
        for arg, v in (("in_features", in_features), ("out_features", out_features)):
            if not is_int(v) or v <= 0:
                raise ValueError(f"FusedLinear: argument '{arg}' must be a positive int, got {v!r}")
        shape = [in_features, out_features]
        if transpose_weight:
            shape.reverse()
        self.weight = self.create_parameter(shape, attr=weight_attr, is_bias=False)
        self.bias = self.create_parameter([out_features], attr=bias_attr, is_bias=True)
        self.transpose_weight = bool(transpose_weight)
        self.name = name

    def forward(self, input):
        return fused_linear(input, self.weight, self.bias, self.transpose_weight, self.name)
