"""oar.vision.datasets.mnist: MNIST and Fashion-MNIST from IDX files on disk.

Nothing is downloaded. FashionMNIST reads the files Debian's
`dataset-fashion-mnist` package installs under /usr/share/datasets/fashion-mnist/;
MNIST reads the IDX files whose paths the caller gives. A missing file is a clear
FileNotFoundError saying what to install or pass.
"""

from __future__ import annotations

import gzip
import os

import numpy as np

from ...io.dataset import Dataset
from ..transforms import _batch_transform
from ...io.collate import default_collate_fn
from ._common import _backend, _default_dtype

__all__ = ["MNIST", "FashionMNIST", "read_idx"]

FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"
_FILES = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}
_IDX_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path: str | os.PathLike[str]) -> np.ndarray:
    """An IDX file (optionally gzip-compressed) as a numpy array, checked against its
    own header (magic number, dtype code, dimensions, size)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _IDX_TYPES:
        raise ValueError(f"read_idx: {path!r} is not an IDX file (bad magic number)")
    ndim = data[3]
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError(f"read_idx: {path!r} is truncated (header)")
    dims = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim)]
    dtype = np.dtype(_IDX_TYPES[data[2]])
    need = int(np.prod(dims)) * dtype.itemsize
    if len(data) - header != need:
        raise ValueError(
            f"read_idx: {path!r} holds {len(data) - header} data bytes, its header "
            f"{dims} of {dtype} needs {need}"
        )
    return np.frombuffer(data, dtype, offset=header).reshape(dims).astype(dtype.newbyteorder("="))


class MNIST(Dataset):
    """Handwritten digits, 28x28 grey images with labels 0-9 (Paddle's
    paddle.vision.datasets.MNIST). Sample i is (image, label): image as the backend
    gives it — a mode 'L' PIL image ('pil') or a float32 [28, 28] array of 0..255
    ('cv2') — then through `transform` and, with 'cv2', cast to the default float dtype
    of construction time (as Paddle); label an int64 array of shape [1].

    Args:
        image_path, label_path: the IDX files (.gz or not). MNIST has no default: oar
            downloads nothing.
        mode: "train" or "test" (which default files FashionMNIST reads).
        transform: applied to each image (e.g. oar.vision.transforms.ToTensor()).
        download: ignored; a missing file is an error.
        backend: "pil", "cv2" or None (oar.vision.get_image_backend(): 'pil' unless
            set otherwise), as Paddle.
    """

    NAME = "MNIST"
    DEFAULT_DIR: str | None = None
    PACKAGE: str | None = None

    def __init__(
        self,
        image_path=None,
        label_path=None,
        mode="train",
        transform=None,
        download=True,
        backend=None,
    ):
        if mode not in ("train", "test"):
            raise ValueError(
                f"{self.NAME}: argument 'mode' must be 'train' or 'test', got {mode!r}"
            )
        backend = _backend(self.NAME, backend)
        self.mode, self.transform, self.backend = mode, transform, backend
        self.dtype = _default_dtype()
        if image_path is None or label_path is None:
            if self.DEFAULT_DIR is None:
                raise ValueError(
                    f"{self.NAME}: give image_path and label_path (IDX files); "
                    f"oar downloads nothing"
                )
            image_path = image_path or os.path.join(self.DEFAULT_DIR, _FILES[mode][0])
            label_path = label_path or os.path.join(self.DEFAULT_DIR, _FILES[mode][1])
        for p in (image_path, label_path):
            if not os.path.isfile(p):
                hint = (
                    f"install the Debian package {self.PACKAGE} (apt-get install {self.PACKAGE})"
                    if self.PACKAGE and str(p).startswith(self.DEFAULT_DIR or "\0")
                    else "check the path"
                )
                raise FileNotFoundError(
                    f"{self.NAME}: no file {p!r}: {hint}; oar downloads nothing"
                )
        self.images = read_idx(image_path)
        self.labels = read_idx(label_path).astype(np.int64)
        if self.images.ndim != 3 or self.labels.ndim != 1 or len(self.images) != len(self.labels):
            raise ValueError(
                f"{self.NAME}: {image_path!r} and {label_path!r} do not hold "
                f"matching [N, H, W] images and [N] labels"
            )

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        image = self.images[idx]
        if self.backend == "pil":
            from PIL import Image  # optional dependency: Pillow

            image = Image.fromarray(image, mode="L")
        else:
            image = image.astype(np.float32)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2":  # as Paddle: the default float dtype of __init__ time
            image = image.astype(self.dtype)
        return image, self.labels[idx : idx + 1] if idx >= 0 else np.array([self.labels[idx]])

    def __getitems__(self, indices):
        """The samples at indices, batched: what default_collate_fn makes of
        [self[i] for i in indices], computed in a few numpy operations when the transform
        is None or a Compose of ToTensor / Normalize / Transpose (the DataLoader's fast
        path); otherwise sample by sample."""
        idx = np.asarray(indices, np.int64)
        labels = self.labels[idx][:, None]
        images = self.images[idx]
        kind = "pil" if self.backend == "pil" else "array"
        if kind == "array":
            images = images.astype(np.float32)
        batched = images if self.transform is None else None
        if self.transform is not None:
            done = _batch_transform(self.transform, images, kind)
            if done is not None:
                batched, kind = done
        cv2 = self.backend == "cv2"
        if batched is None or kind == "pil" or (cv2 and self.dtype not in ("float32", "float64")):
            return default_collate_fn([self[int(i)] for i in idx])
        return (batched.astype(self.dtype) if cv2 else batched), labels


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST (the same format as MNIST: 60,000 train and 10,000 test
    28x28 grey images, 10 classes), read from Debian's dataset-fashion-mnist package
    by default."""

    NAME = "FashionMNIST"
    DEFAULT_DIR = FASHION_MNIST_DIR
    PACKAGE = "dataset-fashion-mnist"
