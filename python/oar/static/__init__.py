"""oar.static: only InputSpec, which Paddle's high-level API takes to describe the
network's inputs. oar runs eagerly; there is no static graph."""

from __future__ import annotations

import numpy as np
from ..framework.check import is_int
from ..framework.dtype import convert_dtype
from .. import _C

__all__ = ["InputSpec"]


class InputSpec:
    """The shape (None or -1 for any size), dtype and name of one input."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        self.shape = self._dims(shape)
        self.dtype = convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @staticmethod
    def _dims(shape):
        if isinstance(shape, int):
            shape = [shape]
        if not isinstance(shape, (list, tuple)):
            raise TypeError(
                f"InputSpec: argument 'shape' must be a list or tuple of int (or "
                f"None), but got {type(shape).__name__}"
            )
        dims = []
        for i, d in enumerate(shape):
            if d is None:
                dims.append(-1)
            elif isinstance(d, bool) or not isinstance(d, int) and not hasattr(d, "__index__"):
                raise TypeError(
                    f"InputSpec: shape[{i}] must be an int or None, but got {type(d).__name__}"
                )
            else:
                dims.append(int(d))
        return dims

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of an existing Tensor: its shape and dtype, and name (default: the
        tensor's name)."""
        if not isinstance(tensor, _C.Tensor):
            raise TypeError(
                f"InputSpec.from_tensor(): argument 'tensor' must be a Tensor, but "
                f"got {type(tensor).__name__}"
            )
        return cls(tensor.shape, tensor.dtype, name or getattr(tensor, "name", None))

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        """The spec of a numpy array: its shape and dtype."""
        if not isinstance(ndarray, np.ndarray):
            raise TypeError(
                f"InputSpec.from_numpy(): argument 'ndarray' must be a numpy "
                f"array, but got {type(ndarray).__name__}"
            )
        return cls(ndarray.shape, ndarray.dtype.name, name)

    def batch(self, batch_size):
        """Prepends the batch dim batch_size (an int, or a list/tuple holding one) to the
        shape, in place; returns self."""
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError(
                    f"InputSpec.batch(): a list batch_size must hold one int, but "
                    f"got {list(batch_size)}"
                )
            batch_size = batch_size[0]
        if not is_int(batch_size):
            raise TypeError(
                f"InputSpec.batch(): argument 'batch_size' must be an int, but got "
                f"{type(batch_size).__name__}"
            )
        self.shape = [batch_size] + self.shape
        return self

    def unbatch(self):
        """Removes the first (batch) dim of the shape, in place; returns self."""
        if not self.shape:
            raise ValueError(
                "InputSpec.unbatch(): the shape is empty: there is no batch dim to remove"
            )
        self.shape = self.shape[1:]
        return self

    def __repr__(self):
        return (
            f"InputSpec(shape={tuple(self.shape)}, dtype={self.dtype!r}, name={self.name}, "
            f"stop_gradient={self.stop_gradient})"
        )

    def __eq__(self, other):
        return isinstance(other, InputSpec) and (
            self.shape,
            self.dtype,
            self.name,
            self.stop_gradient,
        ) == (other.shape, other.dtype, other.name, other.stop_gradient)

    def __hash__(self):
        return hash((tuple(self.shape), self.dtype.name, self.name, self.stop_gradient))
