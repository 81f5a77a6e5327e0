"""oar.io.DataLoader: batches from a dataset, optionally prepared by worker threads
ahead of the training step.

Workers are threads, not processes (docs/training.md, benchmarks/dataloader.py):
oar's ops and the training step release the GIL for their C++ work, so a worker
thread prepares the next batches while the step runs, with no fork of a process
holding OpenMP threads, no shared memory to run out of, and no pickling of
batches. Batches come out in sampler order; an exception in a worker names the
sample that raised it.
"""

from __future__ import annotations

import collections
import concurrent.futures
import threading

from ..framework.check import is_int
from ..profiler.utils import _iter_batches
from .collate import default_collate_fn, default_convert_fn
from .dataset import IterableDataset
from .sampler import BatchSampler

__all__ = ["DataLoader", "get_worker_info", "WorkerInfo"]

_worker_info = threading.local()


class WorkerInfo:
    """What get_worker_info() returns inside a worker: id, num_workers, dataset."""

    def __init__(self, id, num_workers, dataset):
        self.id, self.num_workers, self.dataset = id, num_workers, dataset


def get_worker_info() -> WorkerInfo | None:
    """The WorkerInfo of the calling worker thread, or None in the main thread."""
    return getattr(_worker_info, "info", None)


class DataLoader:
    """Iterate over batches of a dataset (Paddle's paddle.io.DataLoader).

    Args:
        dataset: a Dataset (map-style) or IterableDataset.
        batch_sampler: yields lists of indices (then batch_size, shuffle and drop_last
            must stay at their defaults).
        batch_size: samples per batch (None: no batching, samples as they are).
        shuffle: a new random order each epoch (oar's seeded generator).
        drop_last: drop a last batch smaller than batch_size.
        collate_fn: list of samples -> batch (default_collate_fn).
        num_workers: worker threads preparing batches ahead (0: in the caller).
        prefetch_factor: batches prepared ahead per worker.
        timeout: seconds to wait for a batch (0: no limit); a RuntimeError after.
        worker_init_fn: called with the worker id in each worker thread first.
        return_list, places, feed_list, use_buffer_reader, use_shared_memory,
        persistent_workers: accepted for Paddle compatibility.
    """

    def __init__(
        self,
        dataset,
        feed_list=None,
        places=None,
        return_list=True,
        batch_sampler=None,
        batch_size=1,
        shuffle=False,
        drop_last=False,
        collate_fn=None,
        num_workers=0,
        use_buffer_reader=True,
        prefetch_factor=2,
        use_shared_memory=True,
        timeout=0,
        worker_init_fn=None,
        persistent_workers=False,
    ):
        if not is_int(num_workers) or num_workers < 0:
            raise ValueError(
                f"DataLoader: argument 'num_workers' must be an int >= 0, got {num_workers!r}"
            )
        if not is_int(prefetch_factor) or prefetch_factor < 1:
            raise ValueError(
                f"DataLoader: argument 'prefetch_factor' must be an int >= 1, "
                f"got {prefetch_factor!r}"
            )
        if timeout < 0:
            raise ValueError(f"DataLoader: argument 'timeout' must be >= 0, got {timeout}")
        self.dataset = dataset
        self.num_workers, self.prefetch_factor = num_workers, prefetch_factor
        self.timeout = timeout or None
        self.worker_init_fn = worker_init_fn
        self.collate_fn = collate_fn
        self.return_list = return_list
        self._iterable = isinstance(dataset, IterableDataset)
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError(
                    "DataLoader: with 'batch_sampler', leave batch_size, shuffle "
                    "and drop_last at their defaults"
                )
            self.batch_sampler = batch_sampler
        elif self._iterable:
            if shuffle:
                raise ValueError("DataLoader: an IterableDataset cannot be shuffled")
            self.batch_sampler = None
        elif batch_size is None:
            self.batch_sampler = None
        else:
            self.batch_sampler = BatchSampler(
                dataset=dataset, shuffle=shuffle, batch_size=batch_size, drop_last=drop_last
            )
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __len__(self):
        if self._iterable:
            raise TypeError("DataLoader over an IterableDataset has no length")
        return len(self.batch_sampler) if self.batch_sampler is not None else len(self.dataset)

    # ---- fetching -----------------------------------------------------------------------
    def _sample(self, i):
        try:
            return self.dataset[i]
        except Exception as e:
            raise RuntimeError(
                f"DataLoader: sample {i} of {type(self.dataset).__name__} raised "
                f"{type(e).__name__}: {e}"
            ) from e

    def _fetch(self, indices):
        if self.batch_sampler is None:  # no batching
            return default_convert_fn(self._sample(indices))
        if self.collate_fn is None and hasattr(self.dataset, "__getitems__"):
            try:
                batch = self.dataset.__getitems__(indices)
            except Exception as e:
                raise RuntimeError(
                    f"DataLoader: samples {indices[:8]}... of "
                    f"{type(self.dataset).__name__} raised "
                    f"{type(e).__name__}: {e}"
                ) from e
            return default_convert_fn(batch)
        samples = [self._sample(i) for i in indices]
        return (self.collate_fn or default_collate_fn)(samples)

    def _iter_iterable(self):
        batch = []
        for s in self.dataset:
            if self.batch_size is None:
                yield default_convert_fn(s)
                continue
            batch.append(s)
            if len(batch) == self.batch_size:
                yield (self.collate_fn or default_collate_fn)(batch)
                batch = []
        if batch and not self.drop_last and self.batch_size is not None:
            yield (self.collate_fn or default_collate_fn)(batch)

    def _keys(self):
        if self.batch_sampler is not None:
            return iter(self.batch_sampler)
        return iter(range(len(self.dataset)))

    def __iter__(self):
        # Each wait for the next batch is a Dataloader span when profiled (oar.profiler).
        return _iter_batches(self._batches())

    def __call__(self):
        """An iterator over the batches, as iter(loader) (Paddle's `for b in loader():`)."""
        return self.__iter__()

    def _batches(self):
        if self._iterable:
            source = self._iter_iterable()
            if self.num_workers == 0:
                yield from source
                return
            yield from self._prefetch_stream(source)
            return
        if self.num_workers == 0:
            for key in self._keys():
                yield self._fetch(key)
            return
        yield from self._parallel(self._keys())

    def _init_worker(self, counter, lock):
        with lock:
            wid = counter[0]
            counter[0] += 1
        _worker_info.info = WorkerInfo(wid, self.num_workers, self.dataset)
        if self.worker_init_fn is not None:
            self.worker_init_fn(wid)

    def _result(self, future):
        try:
            return future.result(timeout=self.timeout)
        except concurrent.futures.TimeoutError:
            raise RuntimeError(f"DataLoader: no batch within timeout={self.timeout} s") from None

    def _parallel(self, keys):
        counter, lock = [0], threading.Lock()
        pool = concurrent.futures.ThreadPoolExecutor(
            self.num_workers,
            thread_name_prefix="oar-dataloader",
            initializer=self._init_worker,
            initargs=(counter, lock),
        )
        pending = collections.deque()
        try:
            for key in keys:
                pending.append(pool.submit(self._fetch, key))
                if len(pending) >= self.num_workers * self.prefetch_factor:
                    yield self._result(pending.popleft())
            while pending:
                yield self._result(pending.popleft())
        finally:
            for f in pending:
                f.cancel()
            pool.shutdown(wait=True, cancel_futures=True)

    def _prefetch_stream(self, source):
        """An IterableDataset's batches made by one background thread, in order (the
        stream cannot be split between workers without duplicating it)."""
        pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="oar-dataloader")
        done = object()
        pending = collections.deque()
        try:
            for _ in range(self.prefetch_factor):
                pending.append(pool.submit(next, source, done))
            while True:
                item = self._result(pending.popleft())
                if item is done:
                    return
                pending.append(pool.submit(next, source, done))
                yield item
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
