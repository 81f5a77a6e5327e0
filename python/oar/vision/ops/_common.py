"""Argument checks and conversions shared by oar.vision.ops."""

from __future__ import annotations

import numbers

import numpy as np

from ... import _C
from ...tensor.creation import to_tensor as _tt


def tensor(api, name, v):
    if not isinstance(v, _C.Tensor):
        raise TypeError(f"{api}(): argument '{name}' must be a Tensor, but got {type(v).__name__}")
    return v


def host(api, name, v, ndim=None, last=None):
    """A Tensor (or array-like) argument's values as a float64 numpy array."""
    a = v.numpy() if isinstance(v, _C.Tensor) else np.asarray(v)
    if ndim is not None and a.ndim != ndim:
        raise ValueError(
            f"{api}(): argument '{name}' must be {ndim}-D, but has shape {list(a.shape)}"
        )
    if last is not None and (a.ndim == 0 or a.shape[-1] != last):
        raise ValueError(
            f"{api}(): argument '{name}' must have {last} values in its last "
            f"dimension, but has shape {list(a.shape)}"
        )
    return a


def pair(api, name, v):
    if isinstance(v, numbers.Integral):
        return int(v), int(v)
    if (
        isinstance(v, (list, tuple))
        and len(v) == 2
        and all(isinstance(e, numbers.Integral) for e in v)
    ):
        return int(v[0]), int(v[1])
    raise ValueError(f"{api}(): argument '{name}' must be an int or a pair of ints, but got {v!r}")


def batch_of_boxes(api, boxes, boxes_num, n_images):
    """The image index of each box, from boxes_num (boxes per image, in order)."""
    counts = host(api, "boxes_num", boxes_num).astype(np.int64).reshape(-1)
    if counts.size != n_images:
        raise ValueError(
            f"{api}(): argument 'boxes_num' must have one count per image "
            f"({n_images}), but has {counts.size}"
        )
    if np.any(counts < 0) or counts.sum() != boxes.shape[0]:
        raise ValueError(
            f"{api}(): argument 'boxes_num' must be non-negative counts adding up "
            f"to the number of boxes ({boxes.shape[0]}), but got "
            f"{counts.tolist()}"
        )
    return np.repeat(np.arange(n_images), counts)


def c_round(v):
    """C's round(): halves away from zero (numpy rounds halves to even)."""
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def to_tensor(a, dtype=None):
    return _tt(np.ascontiguousarray(a if dtype is None else a.astype(dtype)))
