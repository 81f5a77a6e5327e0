"""Pieces the fused layers share: argument checks, the tensor-parallel shard size,
LayerNorm parameter pairs and the repr's name suffix."""

from __future__ import annotations

from ....framework.check import is_int
from ....nn.initializer import Constant


def positive(who, arg, v):
    if not is_int(v) or v <= 0:
        raise ValueError(f"{who}: argument '{arg}' must be a positive int, got {v!r}")


def shard(who, arg, size, nranks, ring_id):
    """size split over nranks tensor-parallel ranks (Paddle's column split). This only
    shapes the parameters as one rank's shard: the communication (ring_id) does not
    exist on one CPU process."""
    positive(who, "nranks", nranks)
    if size % nranks:
        raise ValueError(f"{who}: '{arg}' ({size}) must be divisible by nranks ({nranks})")
    if nranks > 1 and ring_id == -1:
        raise ValueError(f"{who}: nranks > 1 needs a ring_id")
    return size // nranks


def suffix(name):
    return f", name={name}" if name else ""


def norm_pair(layer, size, scale_attr, bias_attr):
    """A LayerNorm's scale (ones) and shift (zeros)."""
    scale = layer.create_parameter(
        [size], attr=scale_attr, is_bias=False, default_initializer=Constant(1.0)
    )
    return scale, layer.create_parameter([size], attr=bias_attr, is_bias=True)
