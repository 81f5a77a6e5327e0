"""oar.vision.datasets.voc2012: PASCAL VOC 2012 semantic segmentation pairs from
VOCtrainval_11-May-2012.tar on disk."""

from __future__ import annotations

import tarfile
import threading

import numpy as np

from ...io.dataset import Dataset
from ._common import _backend, _cast, _default_dtype, _local_file, _mode, _open_image

__all__ = ["VOC2012"]

_URL = "https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar"
_ROOT = "VOCdevkit/VOC2012/"
_SET_FILE = _ROOT + "ImageSets/Segmentation/{}.txt"
_IMAGE = _ROOT + "JPEGImages/{}.jpg"
_LABEL = _ROOT + "SegmentationClass/{}.png"
# Paddle's assignment: its train split is the whole trainval list, its test split the train list.
_FLAGS = {"train": "trainval", "test": "train", "valid": "val"}


class VOC2012(Dataset):
    """PASCAL VOC 2012 segmentation: photographs and their per-pixel class maps (Paddle's
    paddle.vision.datasets.VOC2012), read from the archive without unpacking it.

    Sample i is (image, label) for the i-th name of the split's list
    (ImageSets/Segmentation/<list>.txt): image is JPEGImages/<name>.jpg and label
    SegmentationClass/<name>.png. With 'pil' both are PIL images (the label in its
    palette mode 'P': class numbers 0-20, 255 on borders); with 'cv2' both are numpy arrays
    (image HWC) cast to oar.get_default_dtype(), as Paddle does. `transform` applies to the
    image only.

    Args:
        data_file: the local VOCtrainval_11-May-2012.tar. None is an error: oar downloads
            nothing.
        mode: 'train' (the trainval list, 2,913 pairs), 'valid' (val, 1,449) or 'test'
            (train, 1,464), Paddle's assignment.
        transform: applied to each image, or None.
        download: ignored; data_file must be given.
        backend: 'pil' or 'cv2'; None takes oar.vision.get_image_backend().

    Attributes:
        data, labels: the archive member names of the split's images and label maps.
    """

    NAME = "VOC2012"

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        mode = _mode(self.NAME, mode, ("train", "valid", "test"))
        self.backend = _backend(self.NAME, backend)
        self.data_file = _local_file(self.NAME, data_file, _URL)
        self.transform = transform
        self.flag = _FLAGS[mode]
        self.dtype = _default_dtype()
        self._lock = threading.Lock()
        self._tar = tarfile.open(self.data_file)
        try:
            self._index()
        except BaseException:
            self.close()
            raise

    def _index(self):
        """The archive's files, and the member names of the split's pairs, each checked to
        be there (Paddle finds a missing one only when reading it)."""
        self._members = {m.name: m for m in self._tar.getmembers() if m.isfile()}
        set_file = _SET_FILE.format(self.flag)
        if set_file not in self._members:
            raise ValueError(
                f"{self.NAME}: {self.data_file!r} has no {set_file} (is it "
                f"VOCtrainval_11-May-2012.tar?)"
            )
        names = [line.strip().decode("utf-8") for line in self._read(set_file).splitlines()]
        names = [n for n in names if n]
        self.data = [_IMAGE.format(n) for n in names]
        self.labels = [_LABEL.format(n) for n in names]
        missing = [
            m for pair in zip(self.data, self.labels) for m in pair if m not in self._members
        ]
        if missing:
            raise ValueError(
                f"{self.NAME}: {self.data_file!r} lacks {len(missing)} file(s) "
                f"that {set_file} lists, e.g. {missing[0]}"
            )

    def _read(self, name):
        # One archive handle serves every read, and oar's DataLoader reads from worker
        # threads: its position is shared state, so reads take turns.
        with self._lock:
            if self._tar is None:
                self._tar = tarfile.open(self.data_file)
            return self._tar.extractfile(self._members[name]).read()

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        image = _open_image(self._read(self.data[idx]))
        label = _open_image(self._read(self.labels[idx]))
        if self.backend == "cv2":
            image, label = np.array(image), np.array(label)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2":
            return _cast(image), _cast(label)
        return image, label

    def __getstate__(self):
        # An open file and a lock do not pickle or copy; a copy reopens the archive.
        state = dict(self.__dict__)
        state["_tar"], state["_lock"] = None, None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def close(self):
        """Close the archive (a later read reopens it)."""
        with self._lock:
            if self._tar is not None:
                self._tar.close()
                self._tar = None

    def __del__(self):
        tar = getattr(self, "_tar", None)
        if tar is not None:
            tar.close()
