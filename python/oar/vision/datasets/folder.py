"""oar.vision.datasets.folder: datasets from directory trees of files — DatasetFolder (one
subdirectory per class) and ImageFolder (unlabelled files) — and their loaders."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from ...io.dataset import Dataset
from ._common import _default_dtype
from ..image import get_image_backend

if TYPE_CHECKING:  # Pillow is imported when an image is read
    from PIL import Image

__all__ = [
    "DatasetFolder",
    "ImageFolder",
    "IMG_EXTENSIONS",
    "has_valid_extension",
    "make_dataset",
    "pil_loader",
    "cv2_loader",
    "default_loader",
]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_valid_extension(filename: str, extensions: list[str] | tuple[str, ...]) -> bool:
    """Whether filename ends with one of extensions, ignoring case.

    Args:
        filename: a file name or path.
        extensions: a list or tuple of endings such as '.jpg'.

    Returns:
        bool: True when it ends with one of them.
    """
    if not isinstance(extensions, (list, tuple)):
        raise TypeError(
            f"has_valid_extension: argument 'extensions' must be a list or tuple, "
            f"but got {type(extensions).__name__}"
        )
    return filename.lower().endswith(tuple(e.lower() for e in extensions))


def _walk_files(top):
    """Every file under top (symbolic links to directories followed), directories in
    sorted path order and files sorted within each, the order Paddle lists them in."""
    for root, _, fnames in sorted(os.walk(top, followlinks=True), key=lambda w: w[0]):
        for fname in sorted(fnames):
            yield os.path.join(root, fname)


def _file_test(name, extensions, is_valid_file):
    """The test a file must pass, and the extensions attribute to keep.

    Paddle documents that extensions and is_valid_file are alternatives, but its code
    always filters by extension (IMG_EXTENSIONS when none are given) and never calls
    is_valid_file; oar calls is_valid_file when it is given, and refuses both at once.

    Returns:
        tuple: (callable path -> bool, the extensions or None).
    """
    if is_valid_file is not None:
        if extensions is not None:
            raise ValueError(f"{name}: give 'extensions' or 'is_valid_file', not both")
        if not callable(is_valid_file):
            raise TypeError(
                f"{name}: argument 'is_valid_file' must be callable, but got "
                f"{type(is_valid_file).__name__}"
            )
        return is_valid_file, None
    extensions = IMG_EXTENSIONS if extensions is None else extensions
    if not isinstance(extensions, (list, tuple)):
        raise TypeError(
            f"{name}: argument 'extensions' must be a list or tuple, but got "
            f"{type(extensions).__name__}"
        )
    return (lambda path: has_valid_extension(path, extensions)), extensions


def make_dataset(
    dir: str | os.PathLike[str],
    class_to_idx: Mapping[str, int],
    extensions: list[str] | tuple[str, ...] | None = None,
    is_valid_file: Callable[[str], bool] | None = None,
) -> list[tuple[str, int]]:
    """The (path, class index) samples of a class-per-subdirectory tree.

    Args:
        dir: the root directory ('~' expanded).
        class_to_idx: subdirectory name -> class index; classes are visited in sorted
            name order, each subtree in _walk_files order.
        extensions: endings a file must have (IMG_EXTENSIONS when None and no
            is_valid_file).
        is_valid_file: a test path -> bool, instead of extensions.

    Returns:
        list: (path, class index) tuples.
    """
    test, _ = _file_test("make_dataset", extensions, is_valid_file)
    dir = os.path.expanduser(dir)
    samples = []
    for target in sorted(class_to_idx):
        d = os.path.join(dir, target)
        if os.path.isdir(d):
            samples.extend((p, class_to_idx[target]) for p in _walk_files(d) if test(p))
    return samples


def pil_loader(path: str | os.PathLike[str]) -> Image.Image:
    """The image file at path as an RGB PIL image."""
    from PIL import Image  # optional dependency: Pillow

    with open(path, "rb") as f:
        return Image.open(f).convert("RGB")


def cv2_loader(path: str | os.PathLike[str]) -> np.ndarray:
    """The image file at path as an RGB uint8 HWC array: what Paddle's OpenCV loader gives
    (cv2.imread then BGR -> RGB), decoded by PIL since oar does not use OpenCV."""
    return np.asarray(pil_loader(path))


def default_loader(path: str | os.PathLike[str]) -> Image.Image | np.ndarray:
    """cv2_loader when oar.vision.get_image_backend() is 'cv2', otherwise pil_loader (as
    Paddle, which treats 'tensor' as 'pil' here)."""
    return cv2_loader(path) if get_image_backend() == "cv2" else pil_loader(path)


def _root(name, root):
    if not isinstance(root, (str, os.PathLike)):
        raise TypeError(f"{name}: argument 'root' must be a path, but got {type(root).__name__}")
    path = os.path.expanduser(os.fspath(root))
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{name}: no directory {os.fspath(root)!r}")
    return path


def _found_none(kind, root, extensions):
    wanted = (
        "Supported extensions are: " + ",".join(extensions)
        if extensions is not None
        else "No file passed is_valid_file"
    )
    return RuntimeError(f"Found 0 {kind} in subfolders of: {root}\n{wanted}")


class DatasetFolder(Dataset):
    """Samples from a tree with one subdirectory per class (Paddle's
    paddle.vision.datasets.DatasetFolder)::

        root/class_a/1.ext
        root/class_a/sub/2.ext
        root/class_b/3.ext

    Classes are the subdirectories of root in sorted order, numbered from 0; each class's
    files are every file of its subtree that passes the test, directories in sorted path
    order and files sorted within each. Files directly in root belong to no class and are
    left out. Sample i is (loader(path), class index as a Python int), the sample through
    `transform`.

    Args:
        root: the root directory.
        loader: path -> sample; default default_loader (an RGB PIL image, or an RGB uint8
            array when oar.vision.get_image_backend() is 'cv2').
        extensions: a list or tuple of endings a file must have (case ignored); default
            IMG_EXTENSIONS.
        transform: applied to each sample, or None.
        is_valid_file: a test path -> bool used instead of extensions (not with them).

    Attributes:
        classes: the class names. class_to_idx: name -> index.
        samples: (path, class index) tuples. targets: the class index of each sample.
        extensions: the endings used (None when is_valid_file decides).
    """

    NAME = "DatasetFolder"

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        self.transform = transform
        path = _root(self.NAME, root)
        test, self.extensions = _file_test(self.NAME, extensions, is_valid_file)
        self.classes, self.class_to_idx = self._find_classes(path)
        self.samples = make_dataset(path, self.class_to_idx, is_valid_file=test)
        if not self.samples:
            raise _found_none("directories", root, self.extensions)
        self.loader = default_loader if loader is None else loader
        self.targets = [s[1] for s in self.samples]
        self.dtype = _default_dtype()

    def _find_classes(self, dir):
        """The class names (subdirectories of dir, sorted) and their indices.

        Args:
            dir: the root directory.

        Returns:
            tuple: (list of names, dict name -> index).
        """
        classes = sorted(d.name for d in os.scandir(dir) if d.is_dir())
        return classes, {c: i for i, c in enumerate(classes)}

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target


class ImageFolder(Dataset):
    """Unlabelled samples: every file under root that passes the test (Paddle's
    paddle.vision.datasets.ImageFolder), directories in sorted path order and files
    sorted within each. Sample i is a one-element list [loader(path)], the sample through
    `transform`, as in Paddle.

    Args:
        root: the root directory.
        loader: path -> sample; default default_loader (see DatasetFolder).
        extensions: a list or tuple of endings a file must have (case ignored); default
            IMG_EXTENSIONS.
        transform: applied to each sample, or None.
        is_valid_file: a test path -> bool used instead of extensions (not with them).

    Attributes:
        samples: the paths. extensions: the endings used (None when is_valid_file decides).
    """

    NAME = "ImageFolder"

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        path = _root(self.NAME, root)
        test, self.extensions = _file_test(self.NAME, extensions, is_valid_file)
        self.samples = [p for p in _walk_files(path) if test(p)]
        if not self.samples:
            raise _found_none("files", root, self.extensions)
        self.loader = default_loader if loader is None else loader
        self.transform = transform

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]
