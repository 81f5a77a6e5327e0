"""PyTorch's legacy typed-tensor constructors (torch.FloatTensor, ...) as Paddle 3.3 has
them in paddle.device: callables that build a tensor of one dtype. They are factories,
not tensor types, so isinstance(t, FloatTensor) is False, as in Paddle.
"""
from __future__ import annotations

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
           "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]


def _factory(name, dtype):
    def __new__(cls, *args, **kwargs):
        # Paddle's dispatch: no argument is an empty 1-D tensor, one list/tuple is data,
        # ints are a shape (uninitialised memory, like empty); the class's dtype wins in
        # these forms, as in Paddle. Anything else is handed to the Tensor constructor.
        import oar
        if not args:
            return oar.empty([0], dtype=dtype)
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            return oar.tensor(args[0], dtype=dtype)
        if all(isinstance(a, int) for a in args):
            return oar.empty(list(args), dtype=dtype)
        kwargs.setdefault("dtype", dtype)
        return oar.Tensor(*args, **kwargs)

    doc = (f"""Builds a {dtype} tensor, PyTorch's legacy torch.{name}.

    {name}() is an empty 1-D tensor; {name}(data) with a list or tuple converts the data
    to {dtype}; {name}(d0, d1, ...) with ints is an uninitialised tensor of that shape (as
    oar.empty); anything else goes to oar.Tensor(*args, dtype={dtype!r}, **kwargs).

    Args:
        *args: nothing, a list/tuple of data, ints (a shape), or oar.Tensor's arguments.
        **kwargs: oar.Tensor's keyword arguments (the last form only).

    Returns:
        Tensor: a new tensor.
    """)
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
