"""oar.nn.functional: activations and softmax (Paddle's paddle.nn.functional.activation)."""
from ... import _C
from ..._dtype import convert_dtype

__all__ = ["relu", "relu_", "sigmoid", "tanh", "softmax", "log_softmax"]

relu = _C.relu
relu_ = _C.relu_
sigmoid = _C.sigmoid
tanh = _C.tanh


def softmax(x, axis=-1, dtype=None, name=None):
    if dtype is not None:
        x = _C.cast(x, convert_dtype(dtype))
    return _C.softmax(x, axis)


def log_softmax(x, axis=-1, dtype=None, name=None):
    if dtype is not None:
        x = _C.cast(x, convert_dtype(dtype))
    return _C.log_softmax(x, axis)
