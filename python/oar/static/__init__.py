"""oar.static: only InputSpec, which Paddle's high-level API takes to describe the
network's inputs. oar runs eagerly; there is no static graph."""
from __future__ import annotations

import numbers

__all__ = ["InputSpec"]


class InputSpec:
    """The shape (None or -1 for any size), dtype and name of one input.

    Args:
        shape (list|tuple): The sizes; None (or anything below -1) means any size, -1.
        dtype (str|dtype, optional): The element type. Default: 'float32'.
        name (str|None, optional): The input's name. Default: None.
        stop_gradient (bool, optional): Whether the input needs no gradient. Default: False.

    Examples:
        >>> import oar
        >>> spec = oar.static.InputSpec([None, 784], "float32", "x")
        >>> print(spec)
        InputSpec(shape=(-1, 784), dtype=oar.float32, name=x, stop_gradient=False)
        >>> print(spec.batch(16).shape, spec.unbatch().shape)
        (16, -1, 784) (-1, 784)
    """

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        from .._dtype import convert_dtype
        self.shape = self._verify(shape)
        self.dtype = convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @staticmethod
    def _verify(shape):
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"InputSpec: argument 'shape' must be a list or tuple, got "
                            f"{type(shape).__name__}")
        out = []
        for i, d in enumerate(shape):
            if d is not None and (isinstance(d, bool) or not isinstance(d, numbers.Integral)):
                raise ValueError(f"InputSpec: shape[{i}] must be an int or None, got "
                                 f"{type(d).__name__} {d!r}")
            out.append(-1 if d is None or d < -1 else int(d))
        return tuple(out)

    def __repr__(self):
        return (f"{type(self).__name__}(shape={self.shape}, dtype={self.dtype}, "
                f"name={self.name}, stop_gradient={self.stop_gradient})")

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of a tensor: its shape and dtype, and `name` or else the tensor's."""
        from .. import _C
        if not isinstance(tensor, _C.Tensor):
            raise ValueError(f"InputSpec.from_tensor: argument 'tensor' must be a Tensor, got "
                             f"{type(tensor).__name__}")
        return cls(tensor.shape, tensor.dtype, name or tensor.name)

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        """The spec of a numpy array: its shape and dtype."""
        return cls(ndarray.shape, ndarray.dtype.name, name)

    def batch(self, batch_size):
        """Puts batch_size (an int, or a list or tuple of one) in front of the shape, in
        place; returns this spec."""
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError(f"InputSpec.batch: argument 'batch_size' as a sequence must "
                                 f"hold one int, got {batch_size!r}")
            batch_size = batch_size[0]
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral):
            raise TypeError(f"InputSpec.batch: argument 'batch_size' must be an int, got "
                            f"{type(batch_size).__name__}")
        self.shape = (int(batch_size), *self.shape)
        return self

    def unbatch(self):
        """Removes the first size of the shape, in place; returns this spec."""
        if not self.shape:
            raise ValueError("InputSpec.unbatch: the shape is empty")
        self.shape = self._verify(self.shape[1:])
        return self

    def __hash__(self):
        # the name is left out (as Paddle): specs that differ only by name are alike
        return hash((self.shape, self.dtype, self.stop_gradient))

    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return (self.shape, self.dtype, self.name, self.stop_gradient) == (
            other.shape, other.dtype, other.name, other.stop_gradient)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq
