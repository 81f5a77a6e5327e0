"""oar.vision.transforms: image transforms with Paddle's names and arguments.

Images are PIL images or numpy arrays in HWC (or HW) layout until ToTensor makes
a CHW float32 Tensor. Random transforms draw from oar's seeded generator.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import _C
from ..io.rng import host_rng

__all__ = ["Compose", "ToTensor", "Normalize", "Transpose", "RandomHorizontalFlip",
           "RandomVerticalFlip", "RandomCrop", "Resize", "CenterCrop", "BaseTransform"]


def _to_array(img):
    if isinstance(img, np.ndarray):
        return img
    if isinstance(img, _C.Tensor):
        return img.numpy()
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - PIL ships with matplotlib
        Image = None
    if Image is not None and isinstance(img, Image.Image):
        return np.asarray(img)
    raise TypeError(f"transforms: expected a PIL image, numpy array or Tensor, got "
                    f"{type(img).__name__}")


def _is_pil(img):
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover
        return False
    return isinstance(img, Image.Image)


class BaseTransform:
    """A callable on one image."""

    def __call__(self, img):
        return self._apply_image(img)

    def _apply_image(self, img):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


class Compose:
    """Apply transforms in order."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, data):
        for t in self.transforms:
            data = t(data)
        return data

    def __repr__(self):
        return "Compose(" + ", ".join(map(repr, self.transforms)) + ")"


class ToTensor(BaseTransform):
    """HWC (or HW) image -> CHW float32 Tensor; uint8 values are divided by 255."""

    def __init__(self, data_format="CHW", keys=None):
        if data_format not in ("CHW", "HWC"):
            raise ValueError(f"ToTensor: argument 'data_format' must be 'CHW' or 'HWC', got "
                             f"{data_format!r}")
        self.data_format = data_format

    def _array(self, a, batch):
        a = np.asarray(a)
        scale = a.dtype == np.uint8
        a = a.astype(np.float32)
        if scale:
            a *= np.float32(1 / 255)
        if a.ndim == 2 + batch:
            a = a[..., None]
        if self.data_format == "CHW":
            a = np.moveaxis(a, -1, -3)
        return np.ascontiguousarray(a)

    def _apply_image(self, img):
        from .._creation import to_tensor
        return to_tensor(self._array(_to_array(img), 0))

    def _apply_batch(self, a):
        return self._array(a, 1)


class Normalize(BaseTransform):
    """(img - mean) / std per channel."""

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        if data_format not in ("CHW", "HWC"):
            raise ValueError(f"Normalize: argument 'data_format' must be 'CHW' or 'HWC', got "
                             f"{data_format!r}")
        mean = [mean] if isinstance(mean, numbers.Number) else list(mean)
        std = [std] if isinstance(std, numbers.Number) else list(std)
        if any(s == 0 for s in std):
            raise ValueError("Normalize: argument 'std' must not contain 0")
        self.mean, self.std, self.data_format = mean, std, data_format

    def _shape(self, ndim):
        if self.data_format == "CHW":
            return (-1,) + (1,) * 2
        return (-1,)

    def _apply_array(self, a):
        m = np.asarray(self.mean, np.float32).reshape(self._shape(a.ndim))
        s = np.asarray(self.std, np.float32).reshape(self._shape(a.ndim))
        return ((a - m) / s).astype(np.float32)

    def _apply_image(self, img):
        if isinstance(img, _C.Tensor):
            from .._creation import to_tensor
            return to_tensor(self._apply_array(img.numpy()))
        return self._apply_array(_to_array(img).astype(np.float32))

    def _apply_batch(self, a):
        return self._apply_array(a)


class Transpose(BaseTransform):
    """Permute the axes of an HWC array (default to CHW)."""

    def __init__(self, order=(2, 0, 1), keys=None):
        self.order = tuple(order)

    def _apply_image(self, img):
        a = _to_array(img)
        if a.ndim == 2:
            a = a[..., None]
        return np.ascontiguousarray(a.transpose(self.order))

    def _apply_batch(self, a):
        if a.ndim == 3:
            a = a[..., None]
        return np.ascontiguousarray(a.transpose((0,) + tuple(o + 1 for o in self.order)))


class RandomHorizontalFlip(BaseTransform):
    """Mirror left-right with probability prob."""

    def __init__(self, prob=0.5, keys=None):
        if not 0 <= prob <= 1:
            raise ValueError(f"RandomHorizontalFlip: argument 'prob' must be in [0, 1], got "
                             f"{prob}")
        self.prob = prob

    def _apply_image(self, img):
        if host_rng().random() >= self.prob:
            return img
        if _is_pil(img):
            from PIL import Image
            return img.transpose(Image.FLIP_LEFT_RIGHT)
        a = _to_array(img)
        return np.ascontiguousarray(a[:, ::-1] if a.ndim >= 2 else a)


class RandomVerticalFlip(RandomHorizontalFlip):
    """Mirror top-bottom with probability prob."""

    def _apply_image(self, img):
        if host_rng().random() >= self.prob:
            return img
        if _is_pil(img):
            from PIL import Image
            return img.transpose(Image.FLIP_TOP_BOTTOM)
        return np.ascontiguousarray(_to_array(img)[::-1])


def _size2(size, who):
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    if len(size) != 2:
        raise ValueError(f"{who}: argument 'size' must be an int or (h, w), got {size!r}")
    return int(size[0]), int(size[1])


class RandomCrop(BaseTransform):
    """A random size-h-by-w window, after optional padding."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0,
                 padding_mode="constant", keys=None):
        self.size = _size2(size, "RandomCrop")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError(f"RandomCrop: argument 'padding_mode' must be constant, edge, "
                             f"reflect or symmetric, got {padding_mode!r}")
        self.padding, self.pad_if_needed = padding, pad_if_needed
        self.fill, self.padding_mode = fill, padding_mode

    def _pad(self, a, top, bottom, left, right):
        widths = [(top, bottom), (left, right)] + [(0, 0)] * (a.ndim - 2)
        if self.padding_mode == "constant":
            return np.pad(a, widths, mode="constant", constant_values=self.fill)
        return np.pad(a, widths, mode=self.padding_mode)

    def _apply_image(self, img):
        pil = _is_pil(img)
        a = _to_array(img)
        if self.padding is not None:
            p = self.padding
            p = [p] * 4 if isinstance(p, numbers.Integral) else (
                [p[0], p[1], p[0], p[1]] if len(p) == 2 else list(p))
            a = self._pad(a, p[1], p[3], p[0], p[2])  # Paddle order: left, top, right, bottom
        h, w = self.size
        if self.pad_if_needed:
            a = self._pad(a, max(0, h - a.shape[0]), 0, max(0, w - a.shape[1]), 0) \
                if a.shape[0] < h or a.shape[1] < w else a
        if a.shape[0] < h or a.shape[1] < w:
            raise ValueError(f"RandomCrop: the image ({a.shape[0]}x{a.shape[1]}) is smaller "
                             f"than the crop ({h}x{w}); use padding or pad_if_needed")
        rng = host_rng()
        i = int(rng.integers(0, a.shape[0] - h + 1))
        j = int(rng.integers(0, a.shape[1] - w + 1))
        out = np.ascontiguousarray(a[i:i + h, j:j + w])
        if pil:
            from PIL import Image
            return Image.fromarray(out)
        return out


class CenterCrop(BaseTransform):
    """The central size-h-by-w window."""

    def __init__(self, size, keys=None):
        self.size = _size2(size, "CenterCrop")

    def _apply_image(self, img):
        a = _to_array(img)
        h, w = self.size
        if a.shape[0] < h or a.shape[1] < w:
            raise ValueError(f"CenterCrop: the image ({a.shape[0]}x{a.shape[1]}) is smaller "
                             f"than the crop ({h}x{w})")
        i, j = (a.shape[0] - h) // 2, (a.shape[1] - w) // 2
        return np.ascontiguousarray(a[i:i + h, j:j + w])


class Resize(BaseTransform):
    """Resize to size ((h, w), or an int for the shorter side keeping the aspect ratio)
    with PIL's resampling: nearest, bilinear, bicubic, box, lanczos, hamming."""

    _MODES = ("nearest", "bilinear", "bicubic", "box", "lanczos", "hamming")

    def __init__(self, size, interpolation="bilinear", keys=None):
        if interpolation not in self._MODES:
            raise ValueError(f"Resize: argument 'interpolation' must be one of {self._MODES}, "
                             f"got {interpolation!r}")
        if not isinstance(size, numbers.Integral):
            _size2(size, "Resize")
        self.size, self.interpolation = size, interpolation

    def _apply_image(self, img):
        from PIL import Image
        pil = _is_pil(img)
        im = img if pil else Image.fromarray(_to_array(img))
        w, h = im.size
        if isinstance(self.size, numbers.Integral):
            s = int(self.size)
            oh, ow = (s, int(s * w / h)) if h < w else (int(s * h / w), s)
        else:
            oh, ow = self.size
        mode = getattr(Image, self.interpolation.upper()) if hasattr(
            Image, self.interpolation.upper()) else getattr(Image.Resampling,
                                                            self.interpolation.upper())
        out = im.resize((ow, oh), mode)
        return out if pil else np.asarray(out)


def _batch_transform(transform, images):
    """transform applied to a batch of uint8 [N, H, W(, C)] images at once, or None when
    some step has no batch form (a random or PIL-only transform)."""
    steps = transform.transforms if isinstance(transform, Compose) else [transform]
    if not all(hasattr(t, "_apply_batch") for t in steps):
        return None
    a = images
    for t in steps:
        a = t._apply_batch(a)
    return a
