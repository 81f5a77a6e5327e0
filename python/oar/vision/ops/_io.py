"""read_file and decode_jpeg (Paddle decodes on the GPU with nvjpeg; oar with PIL)."""

from __future__ import annotations

import io
import os

import numpy as np

from ...framework.typing import Tensor
from ._common import tensor, to_tensor


def read_file(filename: str | os.PathLike[str], name: str | None = None) -> Tensor:
    """The bytes of a file as a 1-D uint8 Tensor."""
    with open(filename, "rb") as f:
        data = f.read()
    return to_tensor(np.frombuffer(data, np.uint8).copy())


def decode_jpeg(x: Tensor, mode: str = "unchanged", name: str | None = None) -> Tensor:
    """Decode the JPEG bytes in a 1-D uint8 Tensor (read_file's result) into a uint8
    [C, H, W] Tensor; mode 'gray' gives one channel, 'rgb' three, 'unchanged' the file's."""
    tensor("decode_jpeg", "x", x)
    if mode not in ("unchanged", "gray", "rgb"):
        raise ValueError(
            f"decode_jpeg(): argument 'mode' must be 'unchanged', 'gray' or 'rgb', but got {mode!r}"
        )
    from PIL import Image, UnidentifiedImageError  # optional dependency: Pillow

    try:
        img = Image.open(io.BytesIO(x.numpy().astype(np.uint8).tobytes()))
        img.load()
    except (UnidentifiedImageError, OSError) as e:
        raise ValueError(f"decode_jpeg(): the bytes are not a decodable image: {e}") from None
    if mode == "gray":
        img = img.convert("L")
    elif mode == "rgb":
        img = img.convert("RGB")
    a = np.asarray(img)
    a = a[:, :, None] if a.ndim == 2 else a
    return to_tensor(np.moveaxis(a, -1, 0).astype(np.uint8))
