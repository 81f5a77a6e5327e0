"""Segment reductions: row s of the result reduces the rows i of data with
segment_ids[i] == s (Paddle's paddle.geometric.segment_*)."""

from __future__ import annotations

import numpy as np

from .. import _C
from ..framework import check as C
from ._common import index
from ..framework.typing import Tensor

__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min"]


def _segment(api, data, segment_ids, reduce):
    C.tensor(api, "data", data)
    index(api, "segment_ids", segment_ids)
    if data.ndim == 0:
        raise ValueError(f"{api}(): argument 'data' must have at least 1 dim, but is 0-D")
    ids = segment_ids.numpy()
    if ids.size:
        if ids[0] < 0:
            raise IndexError(
                f"{api}(): segment ids must be non-negative, but the first is {int(ids[0])}"
            )
        down = np.flatnonzero(ids[1:] < ids[:-1])
        if down.size:
            i = int(down[0])
            raise ValueError(
                f"{api}(): segment_ids must be sorted, but segment_ids[{i}] = "
                f"{int(ids[i])} > segment_ids[{i + 1}] = {int(ids[i + 1])}"
            )
    num = int(ids[-1]) + 1 if ids.size else 0
    return _C.segment_pool(data, segment_ids, num, reduce)


def segment_sum(data: Tensor, segment_ids: Tensor, name: str | None = None) -> Tensor:
    """The sum of the rows of data in each segment: out[s] = sum of data[i] with
    segment_ids[i] == s. segment_ids (int32/int64, one per row of data) must be sorted;
    out has segment_ids[-1] + 1 rows, a segment with no rows gives 0."""
    return _segment("segment_sum", data, segment_ids, 0)


def segment_mean(data: Tensor, segment_ids: Tensor, name: str | None = None) -> Tensor:
    """The mean of the rows of data in each segment (0 for an empty segment); see
    segment_sum."""
    return _segment("segment_mean", data, segment_ids, 1)


def segment_max(data: Tensor, segment_ids: Tensor, name: str | None = None) -> Tensor:
    """The elementwise maximum of the rows of data in each segment (0 for an empty one);
    tied rows all receive the gradient. See segment_sum."""
    return _segment("segment_max", data, segment_ids, 2)


def segment_min(data: Tensor, segment_ids: Tensor, name: str | None = None) -> Tensor:
    """The elementwise minimum of the rows of data in each segment (0 for an empty one);
    tied rows all receive the gradient. See segment_sum."""
    return _segment("segment_min", data, segment_ids, 3)
