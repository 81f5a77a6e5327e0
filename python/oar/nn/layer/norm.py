"""Normalization layers with Paddle's parameter names: BatchNorm's weight, bias and
running statistics `_mean` / `_variance` (non-trainable parameters, so a Paddle
state dict loads key by key), LayerNorm, GroupNorm, InstanceNorm, RMSNorm."""

from __future__ import annotations

import math

from ..initializer import Constant
from .layers import Layer
from ...framework import collective
from ... import _C
from ...framework.param import ParamAttr
from .. import functional as F
from ..functional import norm as fnorm
from ..functional._sync_batch_norm import sync_batch_norm
from ..initializer import Normal
from ...framework import check as _check
from ...framework.grad_mode import no_grad

__all__ = [
    "BatchNorm",
    "BatchNorm1D",
    "BatchNorm2D",
    "BatchNorm3D",
    "SyncBatchNorm",
    "LayerNorm",
    "GroupNorm",
    "InstanceNorm1D",
    "InstanceNorm2D",
    "InstanceNorm3D",
    "RMSNorm",
    "LocalResponseNorm",
    "SpectralNorm",
]


def _positive(who, name, v):
    if not _check.is_int(v) or v < 1:
        raise ValueError(f"{who}: argument '{name}' must be a positive int, got {v!r}")


# data_format -> the 2-D layout Paddle's batch norm layers keep after a forward
_FORWARD_FORMATS = {"NC": "NCHW", "NCL": "NCHW", "NLC": "NHWC", "NCDHW": "NCHW", "NDHWC": "NHWC"}


class _BatchNormBase(Layer):
    _formats: tuple[str, ...] = ("NCHW", "NHWC")

    def __init__(
        self,
        num_features,
        momentum=0.9,
        epsilon=1e-05,
        weight_attr=None,
        bias_attr=None,
        data_format="NCHW",
        use_global_stats=None,
        name=None,
    ):
        super().__init__()
        who = type(self).__name__
        _positive(who, "num_features", num_features)
        if data_format not in self._formats:
            raise ValueError(
                f"{who}: argument 'data_format' must be one of {self._formats}, got {data_format!r}"
            )
        self._num_features, self._momentum, self._epsilon = num_features, momentum, epsilon
        self._data_format, self._use_global_stats = data_format, use_global_stats
        self._name = name
        # the data_format repr shows: as given until the first forward, then the 2-D
        # layout Paddle's forward rewrites its attribute to
        self._shown_format = data_format
        self.weight = self.create_parameter(
            [num_features], attr=weight_attr, default_initializer=Constant(1.0)
        )
        self.bias = self.create_parameter([num_features], attr=bias_attr, is_bias=True)
        self._mean = self.create_parameter(
            [num_features], attr=ParamAttr(initializer=Constant(0.0), trainable=False)
        )
        self._variance = self.create_parameter(
            [num_features], attr=ParamAttr(initializer=Constant(1.0), trainable=False)
        )

    def _format(self):
        return {"NCL": "NCHW", "NLC": "NHWC", "NCDHW": "NCHW", "NDHWC": "NHWC"}.get(
            self._data_format, self._data_format
        )

    def _note_forward(self):
        self._shown_format = _FORWARD_FORMATS.get(self._data_format, self._data_format)

    def forward(self, input):
        x = input
        self._note_forward()
        return F.batch_norm(
            x,
            self._mean,
            self._variance,
            weight=self.weight,
            bias=self.bias,
            training=self.training,
            momentum=self._momentum,
            epsilon=self._epsilon,
            data_format=self._data_format,
            use_global_stats=self._use_global_stats,
        )

    def extra_repr(self):
        s = f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"
        if self._shown_format != "NCHW":
            s += f", data_format={self._shown_format}"
        return s if self._name is None else s + f", name={self._name}"


class BatchNorm1D(_BatchNormBase):
    """Batch normalization over [N, C] or [N, C, L] (NCL) / [N, L, C] (NLC)."""

    _formats = ("NC", "NCL", "NLC")

    def __init__(
        self,
        num_features,
        momentum=0.9,
        epsilon=1e-05,
        weight_attr=None,
        bias_attr=None,
        data_format="NCL",
        use_global_stats=None,
        name=None,
    ):
        super().__init__(
            num_features,
            momentum,
            epsilon,
            weight_attr,
            bias_attr,
            data_format,
            use_global_stats,
            name,
        )


class BatchNorm2D(_BatchNormBase):
    """Batch normalization over [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC)."""


class BatchNorm3D(_BatchNormBase):
    """Batch normalization over [N, C, D, H, W] (NCDHW) or NDHWC."""

    _formats = ("NCDHW", "NDHWC")

    def __init__(
        self,
        num_features,
        momentum=0.9,
        epsilon=1e-05,
        weight_attr=None,
        bias_attr=None,
        data_format="NCDHW",
        use_global_stats=None,
        name=None,
    ):
        super().__init__(
            num_features,
            momentum,
            epsilon,
            weight_attr,
            bias_attr,
            data_format,
            use_global_stats,
            name,
        )


class BatchNorm(_BatchNormBase):
    """Paddle's older BatchNorm(num_channels, act=None, ...)."""

    _formats = ("NCHW", "NHWC", "NC", "NCL", "NLC", "NCDHW", "NDHWC")

    def __init__(
        self,
        num_channels,
        act=None,
        is_test=False,
        momentum=0.9,
        epsilon=1e-05,
        param_attr=None,
        bias_attr=None,
        dtype="float32",
        data_layout="NCHW",
        in_place=False,
        moving_mean_name=None,
        moving_variance_name=None,
        do_model_average_for_mean_and_var=True,
        use_global_stats=False,
        trainable_statistics=False,
    ):
        super().__init__(
            num_channels,
            momentum,
            epsilon,
            param_attr,
            bias_attr,
            data_layout,
            use_global_stats or None,
        )
        self._act = act

    def forward(self, input):
        y = super().forward(input)
        if self._act:
            y = getattr(F, self._act)(y)
        return y

    def extra_repr(self):
        return ""


class LayerNorm(Layer):
    """Normalization over the trailing normalized_shape axes, with elementwise weight
    (ones) and bias (zeros), each of Paddle's shape [prod(normalized_shape)].
    elementwise_affine=False drops both, bias=False the bias (as weight_attr=False /
    bias_attr=False); dtype is the parameters' dtype, device is accepted."""

    def __init__(
        self,
        normalized_shape,
        epsilon=1e-05,
        *,
        elementwise_affine=True,
        bias=True,
        device=None,
        dtype=None,
        weight_attr=None,
        bias_attr=None,
        name=None,
    ):
        super().__init__(dtype=dtype or "float32")
        shape = [normalized_shape] if _check.is_int(normalized_shape) else list(normalized_shape)
        for d in shape:
            _positive("LayerNorm", "normalized_shape", d)
        self._shape, self._epsilon = shape, epsilon
        if not elementwise_affine:
            weight_attr = bias_attr = False
        elif not bias:
            bias_attr = False
        flat = [math.prod(shape)]
        self.weight = self.create_parameter(
            flat, attr=weight_attr, default_initializer=Constant(1.0)
        )
        self.bias = self.create_parameter(flat, attr=bias_attr, is_bias=True)

    def forward(self, input):
        return F.layer_norm(
            input, self._shape, weight=self.weight, bias=self.bias, epsilon=self._epsilon
        )

    def extra_repr(self):
        return f"normalized_shape={self._shape}, epsilon={self._epsilon}"


class RMSNorm(Layer):
    """x / sqrt(mean(x^2) + epsilon) * weight over the trailing normalized_shape axes."""

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, name=None):
        super().__init__()
        shape = [normalized_shape] if _check.is_int(normalized_shape) else list(normalized_shape)
        self._shape, self._epsilon = shape, epsilon
        self.weight = self.create_parameter(
            shape, attr=weight_attr, default_initializer=Constant(1.0)
        )

    def forward(self, x):
        return F.rms_norm(x, self._shape, weight=self.weight, epsilon=self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Normalization over groups of channels."""

    def __init__(
        self,
        num_groups,
        num_channels,
        epsilon=1e-05,
        *,
        affine=True,
        device=None,
        dtype=None,
        weight_attr=None,
        bias_attr=None,
        data_format="NCHW",
        name=None,
    ):
        super().__init__(dtype=dtype or "float32")
        if not affine:
            weight_attr = bias_attr = False
        _positive("GroupNorm", "num_groups", num_groups)
        _positive("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(
                f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                f"num_groups ({num_groups})"
            )
        self._groups, self._epsilon, self._data_format = num_groups, epsilon, data_format
        self._num_channels = num_channels
        self.weight = self.create_parameter(
            [num_channels], attr=weight_attr, default_initializer=Constant(1.0)
        )
        self.bias = self.create_parameter([num_channels], attr=bias_attr, is_bias=True)

    def forward(self, input):
        return F.group_norm(
            input,
            self._groups,
            epsilon=self._epsilon,
            weight=self.weight,
            bias=self.bias,
            data_format=self._data_format,
        )

    def extra_repr(self):
        return (
            f"num_groups={self._groups}, num_channels={self._num_channels}, epsilon={self._epsilon}"
        )


class _InstanceNorm(Layer):
    def __init__(
        self,
        num_features,
        epsilon=1e-05,
        momentum=0.9,
        weight_attr=None,
        bias_attr=None,
        data_format="NCHW",
        name=None,
    ):
        super().__init__()
        _positive(type(self).__name__, "num_features", num_features)
        self._epsilon, self._data_format = epsilon, data_format
        self._num_features = num_features
        self.scale = (
            self.create_parameter(
                [num_features], attr=weight_attr, default_initializer=Constant(1.0)
            )
            if weight_attr is not False
            else None
        )
        self.bias = (
            self.create_parameter([num_features], attr=bias_attr, is_bias=True)
            if bias_attr is not False
            else None
        )

    def forward(self, input):
        return F.instance_norm(
            input,
            weight=self.scale,
            bias=self.bias,
            eps=self._epsilon,
            data_format=self._data_format,
        )

    def extra_repr(self):
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNorm):
    """Instance normalization over [N, C, L]."""

    def __init__(
        self,
        num_features,
        epsilon=1e-05,
        momentum=0.9,
        weight_attr=None,
        bias_attr=None,
        data_format="NCL",
        name=None,
    ):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format)


class InstanceNorm2D(_InstanceNorm):
    """Instance normalization over [N, C, H, W]; Paddle names its weight `scale`."""


class InstanceNorm3D(_InstanceNorm):
    """Instance normalization over [N, C, D, H, W]."""

    def __init__(
        self,
        num_features,
        epsilon=1e-05,
        momentum=0.9,
        weight_attr=None,
        bias_attr=None,
        data_format="NCDHW",
        name=None,
    ):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format)


class SyncBatchNorm(_BatchNormBase):
    """Batch normalization with the statistics of the whole batch of data-parallel
    training: in training, when oar.distributed is initialised with more than one
    process, the per-channel mean and variance are taken over every process's part of
    the batch (two all_reduce calls forward, one backward;
    nn/functional/_sync_batch_norm.py), and so are the running statistics. On one
    process, and in evaluation, it is BatchNorm (any rank, channels on axis 1 for the
    NC* formats). convert_sync_batchnorm turns the BatchNorm layers of a model into
    SyncBatchNorm."""

    _formats = ("NCHW", "NHWC", "NC", "NCL", "NLC", "NCDHW", "NDHWC")

    def __init__(
        self,
        num_features,
        momentum=0.9,
        epsilon=1e-05,
        weight_attr=None,
        bias_attr=None,
        data_format="NCHW",
        name=None,
    ):
        super().__init__(
            num_features, momentum, epsilon, weight_attr, bias_attr, data_format, name=name
        )

    def forward(self, x):
        dist = collective.distributed()
        self._note_forward()
        fmt = self._data_format
        if fmt.startswith("NC") and x.ndim in (2, 3, 4, 5):
            fmt = {2: "NC", 3: "NCL", 4: "NCHW", 5: "NCDHW"}[x.ndim]
        if self.training and dist.is_initialized() and dist.get_world_size() > 1:
            return self._synced(x, fmt)
        return F.batch_norm(
            x,
            self._mean,
            self._variance,
            weight=self.weight,
            bias=self.bias,
            training=self.training,
            momentum=self._momentum,
            epsilon=self._epsilon,
            data_format=fmt,
        )

    def _synced(self, x, fmt):
        axis = fnorm._channel_axis("SyncBatchNorm", x, fmt)
        ch = x.shape[axis]
        if ch != self._num_features:
            raise ValueError(
                f"SyncBatchNorm: argument 'x' has {ch} channels on axis {axis}, "
                f"expected num_features = {self._num_features}"
            )
        pdt = self._mean.dtype
        w = self.weight if self.weight is not None else _C.full([ch], 1.0, pdt)
        b = self.bias if self.bias is not None else _C.full([ch], 0.0, pdt)
        y, mean, var = sync_batch_norm(x, w, b, axis, float(self._epsilon))
        fnorm._update_running_stats(self._mean, self._variance, mean, var, self._momentum)
        return y

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """layer with every BatchNorm1D/2D/3D (and BatchNorm) inside it replaced by a
        SyncBatchNorm holding the same parameters and statistics; returns the result."""
        out = layer
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, SyncBatchNorm):
            fmt = layer._data_format
            if fmt not in cls._formats:
                fmt = "NCHW"
            out = cls(
                layer._num_features,
                layer._momentum,
                layer._epsilon,
                data_format=fmt,
                name=layer._name,
            )
            out._shown_format = layer._shown_format
            for name in ("weight", "bias", "_mean", "_variance"):
                setattr(out, name, getattr(layer, name))
            out.training = layer.training
        for name, sub in list(layer._sub_layers.items()):
            if sub is not None:
                out.add_sublayer(name, cls.convert_sync_batchnorm(sub))
        return out


class LocalResponseNorm(Layer):
    """x / (k + alpha * mean of x ** 2 over size neighbouring channels) ** beta."""

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self._settings = dict(size=size, alpha=alpha, beta=beta, k=k, data_format=data_format)
        self._name = name

    def forward(self, input):
        return F.local_response_norm(input, **self._settings)

    def extra_repr(self):
        st = self._settings
        s = f"size={st['size']}, alpha={st['alpha']}, beta={st['beta']}, k={st['k']}"
        if st["data_format"] != "NCHW":
            s += f", data_format={st['data_format']}"
        return s if self._name is None else s + f", name={self._name}"


class SpectralNorm(Layer):
    """weight / sigma, sigma the largest singular value of weight viewed as a matrix
    [weight_shape[dim], -1], estimated by power_iters steps of power iteration from the
    vectors weight_u and weight_v (fixed, non-trainable parameters drawn from N(0, 1); each
    call starts from them, as Paddle's kernel). forward(weight) takes the tensor to
    normalise; the gradient treats u and v as constants."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__(dtype=dtype)
        who = "SpectralNorm"
        self._shape = [int(s) for s in weight_shape]
        if not -len(self._shape) <= dim < len(self._shape):
            raise ValueError(
                f"{who}: argument 'dim' ({dim}) must be in "
                f"[{-len(self._shape)}, {len(self._shape)})"
            )
        _positive(who, "power_iters", power_iters)
        self._dim, self._power_iters, self._eps = dim % len(self._shape), power_iters, eps
        h = self._shape[self._dim]
        w = 1
        for i, s in enumerate(self._shape):
            if i != self._dim:
                w *= s
        # N(0, 1) as Paddle's default_initializer (a global initializer overrides it)
        fixed = ParamAttr(trainable=False)
        self.weight_u = self.create_parameter([h], attr=fixed, default_initializer=Normal(0.0, 1.0))
        self.weight_v = self.create_parameter([w], attr=fixed, default_initializer=Normal(0.0, 1.0))

    def forward(self, x):
        _check.tensor("SpectralNorm", "x", x)
        if list(x.shape) != self._shape:
            raise ValueError(
                f"SpectralNorm: argument 'x' has shape {list(x.shape)} but the "
                f"layer was built for weight_shape {self._shape}"
            )
        d = self._dim
        mat = x if d == 0 else _C.transpose(x, [d] + [i for i in range(x.ndim) if i != d])
        mat = _C.reshape(mat, [self._shape[d], -1])
        with no_grad():
            u, v = self.weight_u.detach(), self.weight_v.detach()
            for _ in range(self._power_iters):
                v = _unit(_C.matmul(u, mat), self._eps)
                u = _unit(_C.matmul(mat, v), self._eps)
        sigma = _C.sum(u * _C.matmul(mat, v))
        return x / sigma


def _unit(t, eps):
    return _C.scale(t, 1.0) / _C.scale(_C.sqrt(_C.sum(t * t)), 1.0, eps)
