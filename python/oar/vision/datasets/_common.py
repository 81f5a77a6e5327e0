"""Helpers shared by the readers of oar.vision.datasets: argument checks, local files only,
image decoding and the default float dtype of the 'cv2' backend."""
from __future__ import annotations

import io
import os


def _mode(name, mode, allowed):
    """mode lower-cased (Paddle accepts 'TRAIN'), or ValueError naming the choices.

    Args:
        name: the dataset's name, for the message.
        mode: what the caller passed.
        allowed: the lower-case choices.

    Returns:
        str: the lower-cased mode.
    """
    if not isinstance(mode, str) or mode.lower() not in allowed:
        choices = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
        raise ValueError(f"{name}: argument 'mode' must be {choices}, but got {mode!r}")
    return mode.lower()


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
        from ..image import get_image_backend
        backend = get_image_backend()
    if backend not in ("pil", "cv2"):
        raise ValueError(f"{name}: argument 'backend' must be 'pil' or 'cv2', but got "
                         f"{backend!r}")
    return backend


def _local_file(name, path, paddle_url, arg="data_file"):
    """path checked to be an existing file; where Paddle would download (path None or
    empty), a ValueError naming the file Paddle fetches, so the caller can fetch it once.

    Args:
        name: the dataset's name, for the message.
        path: what the caller passed.
        paddle_url: where Paddle downloads the file from.
        arg: the argument's name, for the message.

    Returns:
        str: the path.
    """
    if path is None or (isinstance(path, str) and not path):
        raise ValueError(f"{name}: give {arg}, the local copy of {paddle_url} (what Paddle "
                         f"downloads); oar downloads nothing")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name}: argument '{arg}' must be a path, but got "
                        f"{type(path).__name__}")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{name}: no file {os.fspath(path)!r} (argument '{arg}')")
    return os.fspath(path)


def _open_image(source):
    """A PIL image decoded now from a path or bytes, so no file handle stays open.

    Args:
        source: a path or the file's bytes.

    Returns:
        PIL.Image.Image: the image, in the mode the file stores.
    """
    from PIL import Image
    img = Image.open(io.BytesIO(source) if isinstance(source, bytes) else source)
    img.load()
    return img


def _default_dtype():
    from ... import get_default_dtype
    return get_default_dtype()


def _cast(x):
    """x (a numpy array or Tensor) as the default float dtype: what Paddle's 'cv2' backend
    returns for images, transformed or not."""
    return x.astype(_default_dtype())
