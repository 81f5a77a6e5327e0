"""oar.sparse.nn: layers for sparse tensors (Paddle's paddle.sparse.nn)."""
from . import functional  # noqa: F401
from ._layers import LeakyReLU, ReLU, ReLU6, Softmax  # noqa: F401

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "functional"]
