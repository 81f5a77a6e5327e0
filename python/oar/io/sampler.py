"""Samplers: which indices, in which order and batches (Paddle's paddle.io)."""

from __future__ import annotations

import os

import math

import numpy as np

from ..framework.check import is_int
from .rng import host_rng

__all__ = [
    "Sampler",
    "SequenceSampler",
    "RandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
    "DistributedBatchSampler",
    "SubsetRandomSampler",
]


class Sampler:
    """Yields dataset indices."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        return len(self.data_source)


class SequenceSampler(Sampler):
    """0, 1, ..., len - 1."""

    def __iter__(self):
        return iter(range(len(self.data_source)))


class RandomSampler(Sampler):
    """A random permutation per epoch (or num_samples draws with replacement),
    from oar's seeded generator."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        super().__init__(data_source)
        self.replacement = replacement
        self._num_samples = num_samples
        if num_samples is not None and not replacement:
            raise ValueError("RandomSampler: num_samples is only allowed with replacement=True")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        rng = host_rng()
        n = len(self.data_source)
        if self.replacement:
            return iter(rng.integers(0, n, self.num_samples).tolist())
        return iter(rng.permutation(n).tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices):
        super().__init__(list(indices))

    def __iter__(self):
        idx = self.data_source
        return iter([idx[i] for i in host_rng().permutation(len(idx))])


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probability proportional to weights."""

    def __init__(self, weights, num_samples, replacement=True):
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 1 or (w < 0).any() or w.sum() <= 0:
            raise ValueError(
                "WeightedRandomSampler: argument 'weights' must be a 1-D list of "
                "non-negative numbers with a positive sum"
            )
        if not replacement and num_samples > (w > 0).sum():
            raise ValueError(
                "WeightedRandomSampler: num_samples exceeds the non-zero weights "
                "without replacement"
            )
        super().__init__(None)
        self.weights, self.num_samples, self.replacement = w / w.sum(), num_samples, replacement

    def __iter__(self):
        return iter(
            host_rng()
            .choice(len(self.weights), self.num_samples, self.replacement, self.weights)
            .tolist()
        )

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of batch_size indices from a sampler (or from the dataset, in order or
    shuffled); drop_last drops a last, smaller batch."""

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        if (dataset is None) == (sampler is None):
            raise ValueError("BatchSampler: give exactly one of 'dataset' and 'sampler'")
        if not is_int(batch_size) or batch_size < 1:
            raise ValueError(
                f"BatchSampler: argument 'batch_size' must be a positive int, got {batch_size!r}"
            )
        if sampler is None:
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        elif shuffle:
            raise ValueError("BatchSampler: 'shuffle' must be False when a sampler is given")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)


class DistributedBatchSampler(BatchSampler):
    """The share of rank `rank` of `num_replicas` processes: the (shuffled, if asked)
    indices padded to a multiple of num_replicas, every num_replicas-th taken, then
    batched. set_epoch(e) changes the shuffle each epoch, the same on every rank."""

    def __init__(
        self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False, drop_last=False
    ):
        if num_replicas is None:
            num_replicas = int(
                os.environ.get("PADDLE_TRAINERS_NUM", os.environ.get("WORLD_SIZE", 1))
            )
        if rank is None:
            rank = int(os.environ.get("PADDLE_TRAINER_ID", os.environ.get("RANK", 0)))
        if not 0 <= rank < num_replicas:
            raise ValueError(f"DistributedBatchSampler: rank {rank} is outside [0, {num_replicas})")
        if not is_int(batch_size) or batch_size < 1:
            raise ValueError(
                f"DistributedBatchSampler: argument 'batch_size' must be a "
                f"positive int, got {batch_size!r}"
            )
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.nranks, self.local_rank, self.shuffle = num_replicas, rank, shuffle
        self.epoch = 0
        self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def set_epoch(self, epoch):
        self.epoch = int(epoch)

    def __iter__(self):
        n = len(self.dataset)
        idx = np.arange(n)
        if self.shuffle:  # seeded by the epoch alone: every rank draws the same order
            idx = np.random.default_rng(self.epoch).permutation(n)
        idx = np.concatenate([idx, idx[: self.total_size - n]]) if n else idx
        mine = idx[self.local_rank : self.total_size : self.nranks].tolist()
        for b in range(0, len(mine), self.batch_size):
            batch = mine[b : b + self.batch_size]
            if len(batch) == self.batch_size or not self.drop_last:
                yield batch

    def __len__(self):
        if self.drop_last:
            return self.num_samples // self.batch_size
        return math.ceil(self.num_samples / self.batch_size)
