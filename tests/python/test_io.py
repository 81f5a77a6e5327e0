"""oar.io and oar.vision: batching, samplers, seeded shuffling, worker threads,
errors naming the failing sample; IDX reading and transforms."""
import gzip
import os
import threading

import numpy as np
import pytest

import oar
from oar.io import (BatchSampler, DataLoader, Dataset, DistributedBatchSampler,
                    IterableDataset, RandomSampler, Subset, TensorDataset, get_worker_info,
                    random_split)
from oar.vision import transforms as T
from oar.vision.datasets import FASHION_MNIST_DIR, MNIST, FashionMNIST, read_idx


class Squares(Dataset):
    def __init__(self, n, bad=None):
        self.n, self.bad = n, bad

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.bad:
            raise ValueError("corrupt record")
        return np.full([2], i, np.float32), i * i


@pytest.mark.parametrize("workers", [0, 2])
def test_batches_in_order_with_drop_last(workers):
    dl = DataLoader(Squares(10), batch_size=4, num_workers=workers)
    batches = list(dl)
    assert len(dl) == 3 and len(batches) == 3
    x, y = batches[-1]
    assert x.shape == [2, 2] and y.dtype == oar.int64 and y.numpy().tolist() == [64, 81]
    assert len(list(DataLoader(Squares(10), batch_size=4, drop_last=True))) == 2


def test_shuffle_is_seeded():
    def order(seed):
        oar.seed(seed)
        return [b[1].numpy().tolist() for b in DataLoader(Squares(20), batch_size=5,
                                                          shuffle=True)]
    assert order(1) == order(1) and order(1) != order(2)
    flat = sorted(v for b in order(3) for v in b)
    assert flat == [i * i for i in range(20)]


@pytest.mark.parametrize("workers", [0, 2])
def test_a_failing_sample_is_named(workers):
    dl = DataLoader(Squares(10, bad=6), batch_size=4, num_workers=workers)
    with pytest.raises(RuntimeError, match="sample 6 of Squares raised ValueError: corrupt"):
        list(dl)


def test_workers_are_threads_with_worker_info():
    seen = set()

    class Probe(Squares):
        def __getitem__(self, i):
            info = get_worker_info()
            seen.add((threading.current_thread().name.startswith("oar-dataloader"),
                      info.num_workers if info else None))
            return super().__getitem__(i)

    list(DataLoader(Probe(16), batch_size=2, num_workers=2))
    assert seen == {(True, 2)}
    assert get_worker_info() is None


def test_iterable_dataset_with_and_without_a_worker():
    class Stream(IterableDataset):
        def __iter__(self):
            for i in range(7):
                yield np.float32(i)

    for w in (0, 1):
        out = [b.numpy().tolist() for b in DataLoader(Stream(), batch_size=3, num_workers=w)]
        assert out == [[0, 1, 2], [3, 4, 5], [6]]
    with pytest.raises(ValueError, match="shuffled"):
        DataLoader(Stream(), shuffle=True)


def test_tensor_dataset_subset_and_random_split():
    x = oar.arange(12).reshape([6, 2])
    ds = TensorDataset([x, np.arange(6)])
    a, b = ds[2]
    assert a.numpy().tolist() == [4, 5] and b == 2
    xb, yb = next(iter(DataLoader(ds, batch_size=4)))
    assert xb.shape == [4, 2] and yb.numpy().tolist() == [0, 1, 2, 3]
    oar.seed(0)
    p, q = random_split(ds, [4, 2])
    assert sorted(p.indices + q.indices) == list(range(6))
    assert len(Subset(ds, [5, 0])) == 2
    with pytest.raises(ValueError, match="sum"):
        random_split(ds, [4, 4])
    with pytest.raises(ValueError, match="first dimensions"):
        TensorDataset([x, np.arange(5)])


def test_samplers():
    bs = BatchSampler(sampler=RandomSampler(range(10)), batch_size=3, drop_last=True)
    assert len(bs) == 3 and all(len(b) == 3 for b in bs)
    shares = [list(DistributedBatchSampler(range(10), 2, num_replicas=3, rank=r, shuffle=True))
              for r in range(3)]
    flat = [i for s in shares for b in s for i in b]
    assert len(flat) == 12 and set(flat) == set(range(10))  # padded to 4 per rank
    with pytest.raises(ValueError, match="rank"):
        DistributedBatchSampler(range(10), 2, num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="batch_size"):
        BatchSampler(range(3), batch_size=0)


def test_collate_errors_are_typed():
    class Odd(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return object()

    with pytest.raises(TypeError, match="cannot batch"):
        list(DataLoader(Odd(), batch_size=2))
    with pytest.raises(ValueError, match="num_workers"):
        DataLoader(Squares(2), num_workers=-1)


def _write_idx(path, arr, code):
    header = bytes([0, 0, code, arr.ndim]) + b"".join(d.to_bytes(4, "big") for d in arr.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + arr.astype(arr.dtype.newbyteorder(">")).tobytes())


def test_idx_reader_and_mnist_from_given_paths(tmp_path):
    imgs = np.random.default_rng(0).integers(0, 256, (5, 28, 28)).astype(np.uint8)
    labels = np.array([3, 1, 4, 1, 5], np.uint8)
    _write_idx(tmp_path / "i.gz", imgs, 0x08)
    _write_idx(tmp_path / "l.gz", labels, 0x08)
    np.testing.assert_array_equal(read_idx(tmp_path / "i.gz"), imgs)
    ds = MNIST(str(tmp_path / "i.gz"), str(tmp_path / "l.gz"), transform=T.ToTensor())
    img, lab = ds[2]
    assert img.shape == [1, 28, 28] and lab.tolist() == [4]
    np.testing.assert_allclose(img.numpy()[0], imgs[2] / 255.0, rtol=1e-6)
    x, y = next(iter(DataLoader(ds, batch_size=5)))  # the batch fast path
    np.testing.assert_allclose(x.numpy()[:, 0], imgs / 255.0, rtol=1e-6)
    assert y.shape == [5, 1]
    with gzip.open(tmp_path / "bad.gz", "wb") as f:
        f.write(b"\x00\x00\x08\x01\x00\x00\x00\x09abc")
    with pytest.raises(ValueError, match="needs"):
        read_idx(tmp_path / "bad.gz")
    with pytest.raises(ValueError, match="downloads nothing"):
        MNIST()
    with pytest.raises(FileNotFoundError, match="no file"):
        MNIST(str(tmp_path / "nope"), str(tmp_path / "l.gz"))


@pytest.mark.skipif(not os.path.isdir(FASHION_MNIST_DIR), reason="dataset-fashion-mnist")
def test_fashion_mnist_from_the_debian_package():
    ds = FashionMNIST(mode="test", backend="cv2")
    assert len(ds) == 10000
    img, lab = ds[0]
    assert img.shape == (28, 28) and img.dtype == np.float32 and lab.dtype == np.int64
    assert sorted(set(ds.labels.tolist())) == list(range(10))


def test_transforms():
    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(3, 3, 2)
    t = T.ToTensor()(img)
    assert t.shape == [2, 3, 3] and abs(float(t.numpy().max()) - 17 / 255) < 1e-6
    n = T.Normalize([0.5, 0.5], [0.5, 0.25])(t)
    np.testing.assert_allclose(n.numpy()[1], (t.numpy()[1] - 0.5) / 0.25, rtol=1e-6)
    assert T.Transpose()(img).shape == (2, 3, 3)
    oar.seed(0)
    flips = [T.RandomHorizontalFlip(0.5)(img)[0, 0, 0] for _ in range(40)]
    assert {int(v) for v in flips} == {0, 4}  # both outcomes happen
    crop = T.RandomCrop(2, padding=1)(img)
    assert crop.shape == (2, 2, 2)
    assert T.Resize((6, 4))(np.zeros((3, 3), np.uint8)).shape == (6, 4)
    with pytest.raises(ValueError, match="smaller"):
        T.RandomCrop(5)(img)
    with pytest.raises(ValueError, match="std"):
        T.Normalize(0.0, 0.0)
