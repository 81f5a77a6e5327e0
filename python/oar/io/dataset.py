"""Datasets (Paddle's paddle.io): map-style Dataset, IterableDataset, TensorDataset,
ComposeDataset, ChainDataset, Subset and random_split."""

from __future__ import annotations

import bisect
import math
from typing import Any, Sequence

import numpy as np

from .. import _C
from .rng import host_rng

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ComposeDataset",
    "ChainDataset",
    "Subset",
    "random_split",
    "ConcatDataset",
]


class Dataset:
    """A map-style dataset: subclasses define __getitem__(idx) and __len__()."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__")


class IterableDataset(Dataset):
    """A stream of samples: subclasses define __iter__()."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __getitem__(self, idx):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: it has no __getitem__")

    def __len__(self):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: it has no __len__")


class TensorDataset(Dataset):
    """Sample i is (t[i] for t in tensors); every tensor has the same first dimension."""

    def __init__(self, tensors):
        tensors = list(tensors)
        if not tensors:
            raise ValueError("TensorDataset: argument 'tensors' is empty")
        for t in tensors:
            if not isinstance(t, (_C.Tensor, np.ndarray)):
                raise TypeError(
                    f"TensorDataset: expected Tensors or numpy arrays, got {type(t).__name__}"
                )
        n = tensors[0].shape[0] if len(tensors[0].shape) else None
        if n is None or any(len(t.shape) == 0 or t.shape[0] != n for t in tensors):
            raise ValueError(
                f"TensorDataset: the tensors' first dimensions differ (or one is "
                f"0-d): {[list(t.shape) for t in tensors]}"
            )
        self.tensors = tensors

    def __getitem__(self, idx):
        return tuple(t[idx] for t in self.tensors)

    def __getitems__(self, indices):
        """A whole batch at once (the DataLoader's fast path): one gather per tensor."""
        out = []
        for t in self.tensors:
            if isinstance(t, np.ndarray):
                out.append(t[np.asarray(indices)])
            else:
                out.append(_C.index_select(t, _C.Tensor(np.asarray(indices, np.int64)), 0))
        return tuple(out)

    def __len__(self):
        return self.tensors[0].shape[0]


class ComposeDataset(Dataset):
    """Sample i is the concatenation of sample i of each dataset (same lengths)."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets or len({len(d) for d in self.datasets}) != 1:
            raise ValueError("ComposeDataset: the datasets must be non-empty and equally long")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        out = []
        for d in self.datasets:
            s = d[idx]
            out.extend(s if isinstance(s, (tuple, list)) else [s])
        return tuple(out)


class ChainDataset(IterableDataset):
    """The iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)

    def __iter__(self):
        for d in self.datasets:
            yield from d


class ConcatDataset(Dataset):
    """Map-style datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        self.cumulative = np.cumsum([len(d) for d in self.datasets]).tolist()

    def __len__(self):
        return self.cumulative[-1] if self.cumulative else 0

    def __getitem__(self, idx):
        if idx < 0:
            idx += len(self)
        if not 0 <= idx < len(self):
            raise IndexError(f"ConcatDataset: index out of range for {len(self)} samples")
        d = bisect.bisect_right(self.cumulative, idx)
        return self.datasets[d][idx - (self.cumulative[d - 1] if d else 0)]


class Subset(Dataset):
    """The samples of dataset at the given indices."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __getattr__(self, name):
        # The batch fast path of the DataLoader exists only if the dataset has one.
        if name == "__getitems__" and hasattr(self.dataset, "__getitems__"):
            return lambda idx: self.dataset.__getitems__([self.indices[i] for i in idx])
        raise AttributeError(name)

    def __len__(self):
        return len(self.indices)


def random_split(
    dataset: Dataset, lengths: Sequence[int | float], generator: Any = None
) -> list[Subset]:
    """Split dataset into non-overlapping Subsets of the given lengths (ints summing to
    len(dataset), or fractions summing to 1), shuffled with oar's seeded generator."""
    n = len(dataset)
    lengths = list(lengths)
    if lengths and all(isinstance(x, float) for x in lengths) and math.isclose(sum(lengths), 1):
        sizes = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
    if sum(lengths) != n or any(x < 0 for x in lengths):
        raise ValueError(
            f"random_split: the lengths {lengths} must be non-negative and sum to "
            f"the dataset's length {n}"
        )
    perm = host_rng().permutation(n).tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[start : start + length]))
        start += length
    return out
