"""Batching samples into tensors (Paddle's default_collate_fn / default_convert_fn)."""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

from .. import _C
from ..framework.typing import Tensor
from ..tensor.creation import to_tensor
from ..tensor.manipulation import stack

__all__ = ["default_collate_fn", "default_convert_fn"]


def _to_tensor(a):
    a = np.ascontiguousarray(a)
    if a.dtype == np.float64:  # Paddle's rule: Python floats batch to float32
        pass
    return to_tensor(a)


def default_collate_fn(batch: Sequence[Any]) -> Tensor | list[Any] | dict[Any, Any]:
    """Stack a list of samples: arrays and tensors along a new axis 0, numbers into a
    1-D tensor (ints int64, floats float32), strings into a list, and dicts and
    sequences field by field (a sequence gives a list, as in Paddle)."""
    first = batch[0]
    if isinstance(first, _C.Tensor):
        return stack(list(batch), 0)
    if isinstance(first, np.ndarray):
        return _to_tensor(np.stack(batch))
    if isinstance(first, (bool, np.bool_)):
        return _to_tensor(np.asarray(batch, dtype=np.bool_))
    if isinstance(first, numbers.Integral):
        return _to_tensor(np.asarray(batch, dtype=np.int64))
    if isinstance(first, numbers.Real):
        return _to_tensor(np.asarray(batch, dtype=np.float32))
    if isinstance(first, (str, bytes)):
        return list(batch)
    if isinstance(first, dict):
        return {k: default_collate_fn([s[k] for s in batch]) for k in first}
    if isinstance(first, (list, tuple)):
        n = len(first)
        if any(len(s) != n for s in batch):
            raise ValueError(
                f"default_collate_fn: the samples have different numbers of "
                f"fields ({sorted({len(s) for s in batch})})"
            )
        return [default_collate_fn([s[i] for s in batch]) for i in range(n)]
    raise TypeError(
        f"default_collate_fn: cannot batch samples of type {type(first).__name__} "
        f"(arrays, tensors, numbers, str, dicts and sequences of them)"
    )


def default_convert_fn(batch: Any) -> Any:
    """Convert an already-batched structure (numpy arrays) to tensors."""
    if isinstance(batch, np.ndarray):
        return _to_tensor(batch)
    if isinstance(batch, dict):
        return {k: default_convert_fn(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [default_convert_fn(v) for v in batch]
    return batch
