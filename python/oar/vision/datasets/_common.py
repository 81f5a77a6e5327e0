"""Helpers shared by the readers of oar.vision.datasets: argument checks, local files only,
image decoding and the default float dtype of the 'cv2' backend."""

from __future__ import annotations

import io

from ...io._local_data import check_mode as _mode, local_file as _local_file  # noqa: F401
from ...framework.dtype import get_default_dtype
from ..image import get_image_backend


def _backend(name, backend):
    """The image backend a dataset returns: backend, or oar.vision.get_image_backend() when
    None (as Paddle); only 'pil' and 'cv2' are datasets' backends.

    Args:
        name: the dataset's name, for the message.
        backend: 'pil', 'cv2' or None.

    Returns:
        str: 'pil' or 'cv2'.
    """
    if backend is None:
        backend = get_image_backend()
    if backend not in ("pil", "cv2"):
        raise ValueError(f"{name}: argument 'backend' must be 'pil' or 'cv2', but got {backend!r}")
    return backend


def _open_image(source):
    """A PIL image decoded now from a path or bytes, so no file handle stays open.

    Args:
        source: a path or the file's bytes.

    Returns:
        PIL.Image.Image: the image, in the mode the file stores.
    """
    from PIL import Image  # optional dependency: Pillow

    img = Image.open(io.BytesIO(source) if isinstance(source, bytes) else source)
    img.load()
    return img


def _default_dtype():
    return get_default_dtype()


def _cast(x):
    """x (a numpy array or Tensor) as the default float dtype: what Paddle's 'cv2' backend
    returns for images, transformed or not."""
    return x.astype(_default_dtype())
