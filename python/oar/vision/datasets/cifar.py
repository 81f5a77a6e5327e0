"""oar.vision.datasets.cifar: CIFAR-10 and CIFAR-100 from the python-version archives
(cifar-10-python.tar.gz, cifar-100-python.tar.gz) on disk."""

from __future__ import annotations

import codecs

import pickle
import tarfile

import numpy as np

from ...io.dataset import Dataset
from ._common import _backend, _cast, _default_dtype, _local_file, _mode

__all__ = ["Cifar10", "Cifar100"]

_URL = "https://dataset.bj.bcebos.com/cifar/"


def _numpy_global(module, name):
    # numpy 2 moved numpy.core to numpy._core; pickles name either, by the numpy that wrote
    # them (the official batches were written by Python 2's numpy 1.x).
    for mod in ("numpy._core." + module, "numpy.core." + module):
        try:
            return getattr(__import__(mod, fromlist=[name]), name)
        except (ImportError, AttributeError):
            continue
    raise pickle.UnpicklingError(f"numpy has no {module}.{name}")


class _BatchUnpickler(pickle.Unpickler):
    """An unpickler that builds only what a CIFAR batch holds (dicts, lists, bytes, numbers
    and numpy arrays): unpickling may call any global it names, so an archive from
    elsewhere must not be able to run code."""

    _NUMPY = {("multiarray", "_reconstruct"), ("multiarray", "scalar"), ("numeric", "_frombuffer")}

    def find_class(self, module, name):
        if module == "numpy" and name in ("ndarray", "dtype"):
            return getattr(np, name)
        for prefix in ("numpy.core.", "numpy._core."):
            if module.startswith(prefix) and (module[len(prefix) :], name) in self._NUMPY:
                return _numpy_global(module[len(prefix) :], name)
        if (module, name) == ("_codecs", "encode"):  # how protocol 2 spells bytes in Python 3
            return codecs.encode
        raise pickle.UnpicklingError(
            f"a CIFAR batch holds no {module}.{name}; refusing to build it"
        )


def _field(batch, *keys):
    # The official batches are Python 2 pickles, read with encoding='bytes' so their keys
    # are bytes; a batch re-pickled by Python 3 has str keys.
    for key in keys:
        for k in (key.encode(), key):
            if k in batch:
                return batch[k]
    return None


class Cifar10(Dataset):
    """CIFAR-10: 32x32 colour images in 10 classes, 50,000 train and 10,000 test (Paddle's
    paddle.vision.datasets.Cifar10), read from the python-version archive.

    Sample i is (image, label). image: a PIL RGB image ('pil') or an HWC uint8 array
    ('cv2'), then through `transform`; with 'cv2' the result is cast to the default float
    dtype (oar.get_default_dtype()), as Paddle does. label: a 0-d int64 array (Paddle's
    shape; a batch of them is [N]).

    Args:
        data_file: the local cifar-10-python.tar.gz (any tar compression). None is an
            error: oar downloads nothing.
        mode: 'train' (the data_batch_* members) or 'test' (test_batch).
        transform: applied to each image, or None.
        download: ignored; data_file must be given.
        backend: 'pil' or 'cv2'; None takes oar.vision.get_image_backend().

    Attributes:
        images: uint8 [N, 32, 32, 3], the batches in the order of their sorted member names.
        labels: int64 [N].
    """

    NAME = "Cifar10"
    URL = _URL + "cifar-10-python.tar.gz"
    FLAGS = {"train": "data_batch", "test": "test_batch"}

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        self.mode = _mode(self.NAME, mode, ("train", "test"))
        self.backend = _backend(self.NAME, backend)
        self.data_file = _local_file(self.NAME, data_file, self.URL)
        self.transform = transform
        self.flag = self.FLAGS[self.mode]
        self.images, self.labels = self._load()
        self.dtype = _default_dtype()

    def _load(self):
        """Every batch whose member name holds the mode's flag, in sorted name order (as
        Paddle reads them), as one images array and one labels array.

        Returns:
            tuple: (uint8 [N, 32, 32, 3] images, int64 [N] labels).
        """
        images, labels = [], []
        with tarfile.open(self.data_file) as tar:
            members = sorted(
                (m for m in tar.getmembers() if m.isfile() and self.flag in m.name),
                key=lambda m: m.name,
            )
            if not members:
                raise ValueError(
                    f"{self.NAME}: {self.data_file!r} has no {self.flag} batch "
                    f"(is it {self.URL.rsplit('/', 1)[1]}?)"
                )
            for m in members:
                try:
                    batch = _BatchUnpickler(tar.extractfile(m), encoding="bytes").load()
                except Exception as e:
                    raise ValueError(
                        f"{self.NAME}: {m.name} in {self.data_file!r} is not a CIFAR batch: {e}"
                    ) from e
                if not isinstance(batch, dict):
                    raise ValueError(
                        f"{self.NAME}: {m.name} in {self.data_file!r} is not a CIFAR batch (a dict)"
                    )
                # Paddle takes 'labels' (CIFAR-10) or else 'fine_labels' (CIFAR-100) in both.
                data, lab = _field(batch, "data"), _field(batch, "labels", "fine_labels")
                if data is None or lab is None:
                    raise ValueError(
                        f"{self.NAME}: {m.name} in {self.data_file!r} has no "
                        f"'data' or no 'labels'/'fine_labels'"
                    )
                data, lab = np.asarray(data), np.asarray(lab, np.int64).reshape(-1)
                if data.ndim != 2 or data.shape[1] != 3 * 32 * 32 or len(data) != len(lab):
                    raise ValueError(
                        f"{self.NAME}: {m.name} in {self.data_file!r} holds data "
                        f"{data.shape} and {len(lab)} labels, not [N, 3072] "
                        f"and N"
                    )
                images.append(data.astype(np.uint8, copy=False))
                labels.append(lab)
        # Rows are channel planes (R, G, B), each 32 rows of 32; stored HWC once, not per item.
        images = np.ascontiguousarray(
            np.concatenate(images).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        )
        return images, np.concatenate(labels)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        image = self.images[idx]
        if self.backend == "pil":
            from PIL import Image  # optional dependency: Pillow

            image = Image.fromarray(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2":
            image = _cast(image)
        return image, np.asarray(self.labels[idx])


class Cifar100(Cifar10):
    """CIFAR-100: as Cifar10 with 100 classes (the fine labels), read from
    cifar-100-python.tar.gz; 'train' reads its train member, 'test' its test member."""

    NAME = "Cifar100"
    URL = _URL + "cifar-100-python.tar.gz"
    FLAGS = {"train": "train", "test": "test"}

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        super().__init__(data_file, mode, transform, download, backend)
