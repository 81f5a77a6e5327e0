"""oar.vision's image backend: which kind of image the datasets and image_load return."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from ..framework.typing import Tensor
from .transforms.functional import to_tensor

if TYPE_CHECKING:  # Pillow is imported when an image is read
    from PIL import Image

_BACKENDS = ("pil", "cv2", "tensor")
_state = {"backend": "pil"}


def set_image_backend(backend: str) -> None:
    """Choose 'pil' (PIL images), 'cv2' (numpy HWC arrays, as OpenCV returns them; read
    with PIL, in RGB order unlike OpenCV's BGR) or 'tensor' (oar Tensors, CHW)."""
    if backend not in _BACKENDS:
        raise ValueError(
            f"set_image_backend(): argument 'backend' must be one of {_BACKENDS}, "
            f"but got {backend!r}"
        )
    _state["backend"] = backend


def get_image_backend() -> str:
    """The current image backend: 'pil' (the default), 'cv2' or 'tensor'."""
    return _state["backend"]


def image_load(
    path: str | os.PathLike[str], backend: str | None = None
) -> Image.Image | np.ndarray | Tensor:
    """Read an image file with the given backend (default: get_image_backend())."""
    backend = get_image_backend() if backend is None else backend
    if backend not in _BACKENDS:
        raise ValueError(
            f"image_load(): argument 'backend' must be one of {_BACKENDS}, but got {backend!r}"
        )
    from PIL import Image  # optional dependency: Pillow

    with Image.open(path) as im:
        im.load()
        img = im.copy()
    if backend == "pil":
        return img
    arr = np.asarray(img.convert("RGB") if img.mode not in ("L", "RGB") else img)
    if backend == "cv2":
        return arr
    return to_tensor(arr)
