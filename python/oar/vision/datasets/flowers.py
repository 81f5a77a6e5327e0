"""oar.vision.datasets.flowers: Oxford 102 Flowers from 102flowers.tgz, imagelabels.mat and
setid.mat on disk."""

from __future__ import annotations

import os
import posixpath
import shutil
import tarfile
import uuid

import numpy as np

from ...io.dataset import Dataset
from ._common import _backend, _cast, _local_file, _mode, _open_image
from ._mat import loadmat

__all__ = ["Flowers"]

_URL = "http://paddlemodels.bj.bcebos.com/flowers/"
# The dataset's readme calls tstid the test split and trnid the train split, but tstid is
# the larger (6,149 images against 1,020): Paddle swaps them, and so does oar.
_FLAGS = {"train": "tstid", "test": "trnid", "valid": "valid"}


def _extract_dir(data_file):
    """Where the archive's images are unpacked: beside it, named as it without the
    extension (Paddle's 102flowers.tgz -> 102flowers/), so a tree Paddle unpacked is used."""
    for ext in (".tgz", ".tar.gz", ".tar"):
        if data_file.endswith(ext):
            return data_file[: -len(ext)]
    return data_file + ".d"


def _unpack_jpg(name, data_file, dest):
    """The archive's jpg/ files unpacked into dest/jpg. They land in a fresh directory
    first, renamed to jpg only once complete, so an interrupted unpacking is redone rather
    than taken for the whole set; members outside jpg/ and any that are not plain files
    (links, absolute or '..' paths) are skipped, so an archive writes nowhere else."""
    os.makedirs(dest, exist_ok=True)
    final = os.path.join(dest, "jpg")
    partial = os.path.join(dest, f".jpg.partial-{os.getpid()}-{uuid.uuid4().hex}")
    os.mkdir(partial)
    count = 0
    try:
        with tarfile.open(data_file) as tar:
            for m in tar:
                rel = posixpath.normpath(m.name.lstrip("/"))
                parts = rel.split("/")
                if not m.isfile() or parts[0] != "jpg" or len(parts) < 2 or ".." in parts:
                    continue
                target = os.path.join(partial, *parts[1:])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with tar.extractfile(m) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                count += 1
        if count == 0:
            raise ValueError(f"{name}: {data_file!r} has no jpg/ images (is it 102flowers.tgz?)")
        try:
            os.rename(partial, final)
        except OSError:
            if not os.path.isdir(final):  # not merely another process finishing first
                raise
    finally:
        if os.path.isdir(partial):
            shutil.rmtree(partial, ignore_errors=True)


def _first_row(name, path, key):
    """Row 0 of the 1 x N matrix key in the .mat file path (what Paddle indexes)."""
    try:
        mat = loadmat(path)
    except Exception as e:
        raise ValueError(f"{name}: cannot read {path!r} as a MATLAB .mat file: {e}") from e
    if key not in mat:
        raise ValueError(
            f"{name}: {path!r} has no variable {key!r} (it has "
            f"{sorted(k for k in mat if not k.startswith('__'))})"
        )
    arr = np.asarray(mat[key])
    if arr.ndim != 2 or arr.shape[0] < 1 or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(
            f"{name}: {key!r} in {path!r} is not a 1 x N numeric matrix "
            f"(shape {list(arr.shape)}, {arr.dtype})"
        )
    return arr[0]


class Flowers(Dataset):
    """Oxford 102 Flowers: 8,189 photographs of 102 kinds of flower (Paddle's
    paddle.vision.datasets.Flowers), read from the three files Paddle downloads.

    The images are unpacked from data_file on first use, as Paddle does, into the
    directory beside it named as it without '.tgz' (102flowers/jpg/); a tree already there
    (one Paddle unpacked) is used as it is.

    Sample i is (image, label). image: image_NNNNN.jpg of the split's i-th index, as a PIL
    image ('pil', in the file's own mode) or an HWC uint8 array ('cv2'), then through
    `transform`; with 'cv2' the result is cast to oar.get_default_dtype(), as Paddle does.
    label: an int64 array of shape [1], the image's class (1-102).

    Args:
        data_file: the local 102flowers.tgz.
        label_file: the local imagelabels.mat (variable 'labels').
        setid_file: the local setid.mat (variables 'trnid', 'valid', 'tstid').
        mode: 'train' (tstid, 6,149 images), 'valid' (valid, 1,020) or 'test' (trnid,
            1,020), Paddle's assignment.
        transform: applied to each image, or None.
        download: ignored; a file not given is an error, as oar downloads nothing.
        backend: 'pil' or 'cv2'; None takes oar.vision.get_image_backend().

    Attributes:
        labels: every image's class, from imagelabels.mat (image k is labels[k - 1]).
        indexes: the split's 1-based image numbers, from setid.mat.
        data_path: the directory holding jpg/.
    """

    NAME = "Flowers"

    def __init__(
        self,
        data_file=None,
        label_file=None,
        setid_file=None,
        mode="train",
        transform=None,
        download=True,
        backend=None,
    ):
        mode = _mode(self.NAME, mode, ("train", "valid", "test"))
        self.backend = _backend(self.NAME, backend)
        data_file = _local_file(self.NAME, data_file, _URL + "102flowers.tgz", "data_file")
        label_file = _local_file(self.NAME, label_file, _URL + "imagelabels.mat", "label_file")
        setid_file = _local_file(self.NAME, setid_file, _URL + "setid.mat", "setid_file")
        self.transform = transform
        self.flag = _FLAGS[mode]
        self.labels = _first_row(self.NAME, label_file, "labels")
        self.indexes = _first_row(self.NAME, setid_file, self.flag)
        bad = (self.indexes < 1) | (self.indexes > len(self.labels))
        if bad.any():
            raise ValueError(
                f"{self.NAME}: {self.flag} in {setid_file!r} numbers image "
                f"{int(self.indexes[bad][0])}, outside 1..{len(self.labels)} "
                f"(the images {label_file!r} labels)"
            )
        # With a trailing separator, as Paddle's data_path has.
        self.data_path = os.path.join(_extract_dir(data_file), "")
        if not os.path.isdir(os.path.join(self.data_path, "jpg")):
            _unpack_jpg(self.NAME, data_file, self.data_path)

    def __len__(self):
        return len(self.indexes)

    def __getitem__(self, idx):
        index = int(self.indexes[idx])
        label = np.array([self.labels[index - 1]]).astype(np.int64)
        image = _open_image(os.path.join(self.data_path, "jpg", f"image_{index:05d}.jpg"))
        if self.backend == "cv2":
            image = np.array(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2":
            image = _cast(image)
        return image, label
