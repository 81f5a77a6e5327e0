"""Convolution, pooling and batch normalization layers for sparse COO point clouds:
oar.sparse.nn.Conv2D, Conv3D, SubmConv2D, SubmConv3D, MaxPool3D, BatchNorm,
SyncBatchNorm."""

import math

from ...framework.check import is_int
from ...nn import BatchNorm1D, Layer
from ...nn.initializer import Normal
from . import functional as F
from .._base import check_sparse
from ... import _C
from ... import distributed

__all__ = [
    "Conv2D",
    "Conv3D",
    "SubmConv2D",
    "SubmConv3D",
    "MaxPool3D",
    "BatchNorm",
    "SyncBatchNorm",
]


class _SparseConv(Layer):
    _dims = 3
    _subm = False

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        padding_mode="zeros",
        key=None,
        weight_attr=None,
        bias_attr=None,
        data_format=None,
    ):
        super().__init__()
        who, n = type(self).__name__, self._dims
        for name, v in (("in_channels", in_channels), ("out_channels", out_channels)):
            if not is_int(v) or v < 1:
                raise ValueError(f"{who}: argument '{name}' must be a positive int, got {v!r}")
        if groups != 1:
            raise ValueError(f"{who}: only groups=1 is supported, got {groups}")
        if padding_mode != "zeros":
            raise ValueError(
                f"{who}: argument 'padding_mode' must be 'zeros', got {padding_mode!r}"
            )
        self._kernel = F._conv._ints(who, "kernel_size", kernel_size, n)
        self._in, self._out = in_channels, out_channels
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._data_format = data_format or ("NDHWC" if n == 3 else "NHWC")
        fan_in = in_channels * math.prod(self._kernel)
        # Paddle's default: Normal(0, sqrt(2 / fan_in)); the weight is [*kernel, C_in, C_out].
        self.weight = self.create_parameter(
            [*self._kernel, in_channels, out_channels],
            attr=weight_attr,
            default_initializer=Normal(0.0, math.sqrt(2.0 / fan_in)),
        )
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        name = ("subm_" if self._subm else "") + f"conv{self._dims}d"
        return getattr(F, name)(
            x,
            self.weight,
            self.bias,
            self._stride,
            self._padding,
            self._dilation,
            1,
            self._data_format,
        )

    def extra_repr(self):
        return (
            f"{self._in}, {self._out}, kernel_size={self._kernel}, data_format={self._data_format}"
        )


class Conv3D(_SparseConv):
    """3-D convolution of a sparse COO tensor [N, D, H, W, C]
    (oar.sparse.nn.functional.conv3d), with a learned weight [kD, kH, kW, C, C_out]
    and bias.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 1], [1, 3]],
        ...                                  [[1.], [2.]], [1, 1, 3, 4, 1])
        >>> oar.sparse.nn.Conv3D(1, 1, (1, 3, 3))(x).shape
        oar.Size([1, 1, 1, 2, 1])
    """

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        padding_mode="zeros",
        weight_attr=None,
        bias_attr=None,
        data_format="NDHWC",
    ):
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            padding_mode,
            None,
            weight_attr,
            bias_attr,
            data_format,
        )


class SubmConv3D(_SparseConv):
    """Submanifold 3-D convolution (oar.sparse.nn.functional.subm_conv3d): the output
    keeps the positions of x.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 1], [1, 3]],
        ...                                  [[1.], [2.]], [1, 1, 3, 4, 1])
        >>> oar.sparse.nn.SubmConv3D(1, 1, (1, 3, 3))(x).shape
        oar.Size([1, 1, 3, 4, 1])
    """

    _subm = True

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        padding_mode="zeros",
        key=None,
        weight_attr=None,
        bias_attr=None,
        data_format="NDHWC",
    ):
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            padding_mode,
            key,
            weight_attr,
            bias_attr,
            data_format,
        )


class Conv2D(_SparseConv):
    """2-D convolution of a sparse COO tensor [N, H, W, C]
    (oar.sparse.nn.functional.conv2d).

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 3]], [[1.], [2.]], [1, 3, 4, 1])
        >>> oar.sparse.nn.Conv2D(1, 1, (3, 3))(x).shape
        oar.Size([1, 1, 2, 1])
    """

    _dims = 2

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        padding_mode="zeros",
        weight_attr=None,
        bias_attr=None,
        data_format="NHWC",
    ):
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            padding_mode,
            None,
            weight_attr,
            bias_attr,
            data_format,
        )


class SubmConv2D(_SparseConv):
    """Submanifold 2-D convolution (oar.sparse.nn.functional.subm_conv2d).

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 3]], [[1.], [2.]], [1, 3, 4, 1])
        >>> oar.sparse.nn.SubmConv2D(1, 1, (3, 3))(x).shape
        oar.Size([1, 3, 4, 1])
    """

    _dims = 2
    _subm = True

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        padding_mode="zeros",
        key=None,
        weight_attr=None,
        bias_attr=None,
        data_format="NHWC",
    ):
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            padding_mode,
            key,
            weight_attr,
            bias_attr,
            data_format,
        )


class MaxPool3D(Layer):
    """3-D max pooling of a sparse COO tensor (oar.sparse.nn.functional.max_pool3d).

    Args:
        kernel_size (int|list): the window per spatial dimension.
        stride (int|list, optional): the stride (default: kernel_size).
        padding (int|list, optional): zeros added per side. Default: 0.
        return_mask (bool, optional): must be False.
        ceil_mode (bool, optional): must be False.
        data_format (str, optional): "NDHWC".

    Examples:
        >>> import oar
        >>> x = oar.randn([2, 3, 6, 6, 3]).to_sparse_coo(4)
        >>> oar.sparse.nn.MaxPool3D(kernel_size=3)(x).shape
        oar.Size([2, 1, 2, 2, 3])
    """

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        return_mask=False,
        ceil_mode=False,
        data_format="NDHWC",
        name=None,
    ):
        super().__init__()
        if return_mask:
            raise ValueError("MaxPool3D: return_mask=True is not supported")
        self._kernel, self._stride, self._padding = kernel_size, stride, padding
        self._ceil_mode, self._data_format = ceil_mode, data_format

    def forward(self, x):
        return F.max_pool3d(
            x, self._kernel, self._stride, self._padding, self._ceil_mode, self._data_format
        )

    def extra_repr(self):
        return f"kernel_size={self._kernel}, stride={self._stride}, padding={self._padding}"


class BatchNorm(BatchNorm1D):
    """Batch normalization of a sparse COO tensor's channels: BatchNorm1D over its
    values [nnz, C] (every stored entry is a sample), the positions kept.

    Args:
        num_features (int): the channels C.
        momentum (float, optional): of the running statistics. Default: 0.9.
        epsilon (float, optional): added to the variance. Default: 1e-05.
        weight_attr, bias_attr (ParamAttr, optional): of the scale and shift.
        data_format (str, optional): "NDHWC" or "NHWC" (channel-last).
        use_global_stats (bool, optional): normalize with the running statistics.

    Examples:
        >>> import oar
        >>> x = oar.randn([1, 6, 6, 6, 3]).to_sparse_coo(4)
        >>> oar.sparse.nn.BatchNorm(3)(x).shape
        oar.Size([1, 6, 6, 6, 3])
    """

    def __init__(
        self,
        num_features,
        momentum=0.9,
        epsilon=1e-05,
        weight_attr=None,
        bias_attr=None,
        data_format="NDHWC",
        use_global_stats=None,
        name=None,
    ):
        if data_format not in ("NDHWC", "NHWC"):
            raise ValueError(
                f"BatchNorm: argument 'data_format' must be 'NDHWC' or 'NHWC', got {data_format!r}"
            )
        super().__init__(
            num_features, momentum, epsilon, weight_attr, bias_attr, "NC", use_global_stats, name
        )
        self._sparse_format = data_format

    def forward(self, x):
        check_sparse("BatchNorm", "x", x)
        return _C.sparse_with_values(x, super().forward(_C.sparse_values(x)))

    def extra_repr(self):
        return (
            f"num_features={self._num_features}, momentum={self._momentum}, "
            f"epsilon={self._epsilon}, data_format={self._sparse_format}"
        )


class SyncBatchNorm(BatchNorm):
    """BatchNorm whose statistics would be shared by the processes of a data-parallel
    group. In one process (no group, or a group of one) it is BatchNorm; across
    several processes oar does not yet all-reduce the statistics, and forward raises
    NotImplementedError instead of normalizing each process alone.

    Examples:
        >>> import oar
        >>> model = oar.nn.Sequential(oar.sparse.nn.Conv3D(3, 5, 3), oar.sparse.nn.BatchNorm(5))
        >>> type(oar.sparse.nn.SyncBatchNorm.convert_sync_batchnorm(model)[1]).__name__
        'SyncBatchNorm'
    """

    def forward(self, x):
        if self.training and distributed.is_initialized() and distributed.get_world_size() > 1:
            raise NotImplementedError(
                "SyncBatchNorm: statistics shared across processes are not implemented; use "
                "BatchNorm (each process normalizes its own batch)"
            )
        return super().forward(x)

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """layer with every oar.sparse.nn.BatchNorm in it replaced by a SyncBatchNorm
        holding the same parameters and statistics (layer itself when it is one)."""
        if isinstance(layer, BatchNorm) and not isinstance(layer, SyncBatchNorm):
            out = cls(
                layer._num_features,
                layer._momentum,
                layer._epsilon,
                data_format=layer._sparse_format,
                use_global_stats=layer._use_global_stats,
            )
            for name in ("weight", "bias", "_mean", "_variance"):
                setattr(out, name, getattr(layer, name))
            out.training = layer.training
            return out
        for name, sub in list(layer.named_children()):
            converted = cls.convert_sync_batchnorm(sub)
            if converted is not sub:
                setattr(layer, name, converted)
        return layer
