"""Normalization layers with Paddle's parameter names: BatchNorm's weight, bias and
running statistics `_mean` / `_variance` (non-trainable parameters, so a Paddle
state dict loads key by key), LayerNorm, GroupNorm, InstanceNorm, RMSNorm."""
from __future__ import annotations

from ..initializer import Constant
from .layers import Layer

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "LayerNorm", "GroupNorm",
           "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D", "RMSNorm"]


def _positive(who, name, v):
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise ValueError(f"{who}: argument '{name}' must be a positive int, got {v!r}")


class _BatchNormBase(Layer):
    _formats: tuple[str, ...] = ("NCHW", "NHWC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", use_global_stats=None, name=None):
        super().__init__()
        who = type(self).__name__
        _positive(who, "num_features", num_features)
        if data_format not in self._formats:
            raise ValueError(f"{who}: argument 'data_format' must be one of {self._formats}, "
                             f"got {data_format!r}")
        self._num_features, self._momentum, self._epsilon = num_features, momentum, epsilon
        self._data_format, self._use_global_stats = data_format, use_global_stats
        self.weight = self.create_parameter([num_features], attr=weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_features], attr=bias_attr, is_bias=True)
        from ...framework.param import ParamAttr
        self._mean = self.create_parameter([num_features], attr=ParamAttr(
            initializer=Constant(0.0), trainable=False))
        self._variance = self.create_parameter([num_features], attr=ParamAttr(
            initializer=Constant(1.0), trainable=False))

    def _format(self):
        return {"NCL": "NCHW", "NLC": "NHWC", "NCDHW": "NCHW", "NDHWC": "NHWC"}.get(
            self._data_format, self._data_format)

    def forward(self, x):
        from .. import functional as F
        return F.batch_norm(x, self._mean, self._variance, weight=self.weight, bias=self.bias,
                            training=self.training, momentum=self._momentum,
                            epsilon=self._epsilon, data_format=self._data_format,
                            use_global_stats=self._use_global_stats)

    def extra_repr(self):
        return (f"num_features={self._num_features}, momentum={self._momentum}, "
                f"epsilon={self._epsilon}, data_format={self._data_format}")


class BatchNorm1D(_BatchNormBase):
    """Batch normalization over [N, C] or [N, C, L] (NCL) / [N, L, C] (NLC)."""
    _formats = ("NC", "NCL", "NLC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm2D(_BatchNormBase):
    """Batch normalization over [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC)."""


class BatchNorm3D(_BatchNormBase):
    """Batch normalization over [N, C, D, H, W] (NCDHW) or NDHWC."""
    _formats = ("NCDHW", "NDHWC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm(_BatchNormBase):
    """Paddle's older BatchNorm(num_channels, act=None, ...)."""
    _formats = ("NCHW", "NHWC", "NC", "NCL", "NLC", "NCDHW", "NDHWC")

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout,
                         use_global_stats or None)
        self._act = act

    def forward(self, x):
        y = super().forward(x)
        if self._act:
            from .. import functional as F
            y = getattr(F, self._act)(y)
        return y


class LayerNorm(Layer):
    """Normalization over the trailing normalized_shape axes, with elementwise weight
    (ones) and bias (zeros)."""

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 name=None):
        super().__init__()
        shape = [normalized_shape] if isinstance(normalized_shape, int) else \
            list(normalized_shape)
        for d in shape:
            _positive("LayerNorm", "normalized_shape", d)
        self._shape, self._epsilon = shape, epsilon
        self.weight = self.create_parameter(shape, attr=weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter(shape, attr=bias_attr, is_bias=True)

    def forward(self, x):
        from .. import functional as F
        return F.layer_norm(x, self._shape, weight=self.weight, bias=self.bias,
                            epsilon=self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._shape}, epsilon={self._epsilon}"


class RMSNorm(Layer):
    """x / sqrt(mean(x^2) + epsilon) * weight over the trailing normalized_shape axes."""

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, name=None):
        super().__init__()
        shape = [normalized_shape] if isinstance(normalized_shape, int) else \
            list(normalized_shape)
        self._shape, self._epsilon = shape, epsilon
        self.weight = self.create_parameter(shape, attr=weight_attr,
                                            default_initializer=Constant(1.0))

    def forward(self, x):
        from .. import functional as F
        return F.rms_norm(x, self._shape, weight=self.weight, epsilon=self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Normalization over groups of channels."""

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        _positive("GroupNorm", "num_groups", num_groups)
        _positive("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self._groups, self._epsilon, self._data_format = num_groups, epsilon, data_format
        self.weight = self.create_parameter([num_channels], attr=weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        from .. import functional as F
        return F.group_norm(x, self._groups, epsilon=self._epsilon, weight=self.weight,
                            bias=self.bias, data_format=self._data_format)

    def extra_repr(self):
        return f"num_groups={self._groups}, epsilon={self._epsilon}"


class _InstanceNorm(Layer):
    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        _positive(type(self).__name__, "num_features", num_features)
        self._epsilon, self._data_format = epsilon, data_format
        self.scale = self.create_parameter([num_features], attr=weight_attr,
                                           default_initializer=Constant(1.0)) \
            if weight_attr is not False else None
        self.bias = self.create_parameter([num_features], attr=bias_attr, is_bias=True) \
            if bias_attr is not False else None

    def forward(self, x):
        from .. import functional as F
        return F.instance_norm(x, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               data_format=self._data_format)


class InstanceNorm1D(_InstanceNorm):
    """Instance normalization over [N, C, L]."""


class InstanceNorm2D(_InstanceNorm):
    """Instance normalization over [N, C, H, W]; Paddle names its weight `scale`."""


class InstanceNorm3D(_InstanceNorm):
    """Instance normalization over [N, C, D, H, W]."""
