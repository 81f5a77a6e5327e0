"""oar.static: only InputSpec, which Paddle's high-level API takes to describe the
network's inputs. oar runs eagerly; there is no static graph."""
from __future__ import annotations

__all__ = ["InputSpec"]


class InputSpec:
    """The shape (None or -1 for any size), dtype and name of one input."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        self.shape = [(-1 if d is None else int(d)) for d in shape]
        from .._dtype import convert_dtype
        self.dtype = convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    def __repr__(self):
        return f"InputSpec(shape={tuple(self.shape)}, dtype={self.dtype.name}, name={self.name})"
