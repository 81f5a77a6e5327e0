"""PyTorch's legacy typed-tensor constructors (torch.FloatTensor, ...) as Paddle 3.3 has
them in paddle.device and at the top level (the same objects in both): callables that
build a tensor of one dtype. They are factories, not tensor types, so
isinstance(t, FloatTensor) is False, as in Paddle.
"""

from __future__ import annotations

import numpy as np
from .. import _C
from ..tensor.creation import _tensor_fn
from ..tensor.creation import empty
from ..tensor.creation import to_tensor

__all__ = [
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "BFloat16Tensor",
    "ByteTensor",
    "CharTensor",
    "ShortTensor",
    "IntTensor",
    "LongTensor",
    "BoolTensor",
]


# Paddle's Tensor(value, place, persistable, zero_copy, name, stop_gradient, ...): the
# positional order of the array form
_TENSOR_ARGS = (
    "place",
    "persistable",
    "zero_copy",
    "name",
    "stop_gradient",
    "dims",
    "dtype",
    "type",
)


def _from_data(api, dtype, args, kwargs):
    """The array form: Paddle hands it to its Tensor constructor, which takes a numpy
    array or a Tensor (ValueError otherwise) and Tensor's own arguments."""

    data = args[0]
    if not isinstance(data, (np.ndarray, _C.Tensor)):
        raise ValueError(
            f"{api}(): the first argument must be a list, a tuple, ints (a "
            f"shape), a numpy array or a Tensor, but got {type(data).__name__}"
        )
    if len(args) - 1 > len(_TENSOR_ARGS):
        raise TypeError(
            f"{api}(): takes at most {len(_TENSOR_ARGS) + 1} positional "
            f"arguments ({len(args)} given)"
        )
    opts = dict(zip(_TENSOR_ARGS, args[1:]))
    for k, v in kwargs.items():
        if k not in _TENSOR_ARGS:
            raise TypeError(f"{api}(): got an unexpected keyword argument {k!r}")
        if k in opts:
            raise TypeError(f"{api}(): got multiple values for argument {k!r}")
        opts[k] = v
    # Paddle 3.3.1's Tensor drops the dtype it is given here (FloatTensor(np.array([1, 2]))
    # is int64 there); oar converts to the class's dtype, as the name says
    d = opts.get("dtype")
    return to_tensor(
        data,
        dtype=dtype if d is None else d,
        place=opts.get("place"),
        stop_gradient=opts.get("stop_gradient", True),
    )


def _factory(name, dtype):
    def __new__(cls, *args, **kwargs):
        # Paddle's dispatch: no argument is an empty 1-D tensor, one list/tuple is data,
        # ints are a shape (uninitialised memory, like empty); the class's dtype wins in
        # these forms and the keyword arguments go unused, as in Paddle.
        if not args:
            return empty([0], dtype=dtype)
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            return _tensor_fn(args[0], dtype=dtype)
        if all(isinstance(a, int) for a in args):
            return empty(list(args), dtype=dtype)
        return _from_data(name, dtype, args, kwargs)

    doc = f"""Builds a {dtype} tensor, PyTorch's legacy torch.{name}.

    {name}() is an empty 1-D tensor; {name}(data) with a list or tuple converts the data
    to {dtype}; {name}(d0, d1, ...) with ints is an uninitialised tensor of that shape (as
    oar.empty); {name}(array_or_tensor, place=None, ..., stop_gradient=True) converts a
    numpy array or a Tensor (Paddle's Tensor constructor arguments). Other first arguments
    raise ValueError. The result is an oar.Tensor, not an instance of {name}.

    Args:
        *args: nothing, a list/tuple of data, ints (a shape), or an array or tensor
            followed by Paddle's Tensor arguments (place, persistable, zero_copy, name,
            stop_gradient, dims, dtype, type).
        **kwargs: those Tensor arguments by name (the array form only).

    Returns:
        Tensor: a new tensor.
    """
    return type(name, (), {"__new__": __new__, "__doc__": doc, "__module__": "oar.device"})


FloatTensor = _factory("FloatTensor", "float32")
DoubleTensor = _factory("DoubleTensor", "float64")
HalfTensor = _factory("HalfTensor", "float16")
BFloat16Tensor = _factory("BFloat16Tensor", "bfloat16")
ByteTensor = _factory("ByteTensor", "uint8")
CharTensor = _factory("CharTensor", "int8")
ShortTensor = _factory("ShortTensor", "int16")
IntTensor = _factory("IntTensor", "int32")
LongTensor = _factory("LongTensor", "int64")
BoolTensor = _factory("BoolTensor", "bool")
