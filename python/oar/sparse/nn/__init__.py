"""oar.sparse.nn: layers for sparse tensors (Paddle's paddle.sparse.nn)."""

from . import functional  # noqa: F401
from ._conv_layers import (
    BatchNorm,
    Conv2D,
    Conv3D,
    MaxPool3D,
    SubmConv2D,  # noqa: F401
    SubmConv3D,
    SyncBatchNorm,
)
from ._layers import LeakyReLU, ReLU, ReLU6, Softmax  # noqa: F401

__all__ = [
    "ReLU",
    "ReLU6",
    "LeakyReLU",
    "Softmax",
    "Conv2D",
    "Conv3D",
    "SubmConv2D",
    "SubmConv3D",
    "MaxPool3D",
    "BatchNorm",
    "SyncBatchNorm",
    "functional",
]
