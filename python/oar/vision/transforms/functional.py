"""oar.vision.transforms.functional: Paddle's image functions for PIL images, numpy
arrays (HWC or HW) and oar Tensors (CHW, or NCHW where noted).

PIL images go through PIL, as Paddle's 'pil' backend does. Paddle sends numpy arrays to
OpenCV, which oar does not use: uint8 arrays with 1, 3 or 4 channels go through PIL (so
a numpy image gives the same pixels as the same PIL image), other arrays through numpy.
Tensors use oar ops (flips, crops, padding, resizing, normalising, blending: these keep
gradients); the hue shift and the affine, rotation and perspective warps of numpy and
Tensor images are computed on the host with nearest or bilinear sampling (_warp.py).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar, Union

import numpy as np

from ... import _C
from . import _color, _warp
from ...framework.typing import Tensor
from ...tensor.creation import to_tensor as _tt

if TYPE_CHECKING:  # Pillow is imported when an image needs it
    from PIL import Image

# A PIL image, an HWC (or HW) numpy array or a CHW Tensor; most functions return an
# image of the kind they are given.
_Image = Union["Image.Image", np.ndarray, Tensor]
_ImageT = TypeVar("_ImageT", "Image.Image", np.ndarray, Tensor)

__all__ = [
    "to_tensor",
    "hflip",
    "vflip",
    "resize",
    "pad",
    "affine",
    "rotate",
    "perspective",
    "to_grayscale",
    "crop",
    "center_crop",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_saturation",
    "adjust_hue",
    "normalize",
    "erase",
]


def _pil():
    from PIL import Image  # optional dependency: Pillow

    return Image


def _is_pil_image(img):
    try:
        from PIL import Image  # optional dependency: Pillow
    except ImportError:  # pragma: no cover - PIL is a dependency of oar.vision
        return False
    return isinstance(img, Image.Image)


def _is_tensor_image(img):
    return isinstance(img, _C.Tensor)


def _is_numpy_image(img):
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def _check_image(api, img):
    if not (_is_pil_image(img) or _is_numpy_image(img) or _is_tensor_image(img)):
        what = f"a {img.ndim}-D array" if isinstance(img, np.ndarray) else type(img).__name__
        raise TypeError(
            f"{api}(): argument 'img' must be a PIL image, a Tensor or a 2-D/3-D "
            f"numpy array, but got {what}"
        )


def _check_tensor(api, img):
    if img.ndim < 3:
        raise ValueError(
            f"{api}(): a Tensor image must be CHW (or NCHW), but has shape {img.shape}"
        )


def _image_size(img):
    """(width, height) of any image kind (Tensors are CHW)."""
    if _is_pil_image(img):
        return img.size
    if _is_tensor_image(img):
        return img.shape[-1], img.shape[-2]
    return img.shape[1], img.shape[0]


# ---- numpy arrays through PIL -----------------------------------------------------------
def _pil_able(a):
    return a.dtype == np.uint8 and (a.ndim == 2 or a.shape[2] in (1, 3, 4))


def _via_pil(a, fn):
    """fn applied to uint8 array a as a PIL image; the result keeps a's layout."""
    Image = _pil()
    squeeze = a.ndim == 3 and a.shape[2] == 1
    out = np.asarray(fn(Image.fromarray(a[:, :, 0] if squeeze else a)))
    return out[:, :, None] if squeeze and out.ndim == 2 else out


def _chw(a):
    """A float64 [C, H, W] view of an HWC/HW array, and the function restoring a's layout
    and dtype (rounded and clipped for integer arrays)."""
    hw = a.ndim == 2
    x = (a[None] if hw else np.moveaxis(a, -1, 0)).astype(np.float64)

    def back(y):
        y = y[0] if hw else np.moveaxis(y, 0, -1)
        if np.issubdtype(a.dtype, np.integer):
            info = np.iinfo(a.dtype)
            y = np.clip(np.rint(y), info.min, info.max)
        return np.ascontiguousarray(y.astype(a.dtype))

    return x, back


def _tensor_host(img, fn):
    """fn on a Tensor image's values ([..., C, H, W] float64 numpy); back to its dtype."""
    a = img.numpy()
    lead = a.shape[:-3]
    flat = a.reshape((-1,) + a.shape[-3:]).astype(np.float64)
    outs = [fn(f) for f in flat]
    out = np.stack(outs).reshape(lead + outs[0].shape)
    if not img.dtype.is_floating_point:
        out = np.rint(out)
    return _tt(out.astype(a.dtype))


_PIL_FILTERS = {
    "nearest": "NEAREST",
    "bilinear": "BILINEAR",
    "bicubic": "BICUBIC",
    "box": "BOX",
    "lanczos": "LANCZOS",
    "hamming": "HAMMING",
    "area": "BOX",
}


def _pil_filter(api, interpolation):
    if interpolation not in _PIL_FILTERS:
        raise ValueError(
            f"{api}(): argument 'interpolation' must be one of "
            f"{sorted(_PIL_FILTERS)}, but got {interpolation!r}"
        )
    Image = _pil()
    name = _PIL_FILTERS[interpolation]
    return getattr(getattr(Image, "Resampling", Image), name)


# ---- conversion -------------------------------------------------------------------------
def to_tensor(pic: _Image, data_format: str = "CHW") -> Tensor:
    """A PIL image or HWC/HW array as a Tensor (CHW by default); uint8 becomes float32 in
    [0, 1]; mode 'I'/'I;16' images become int32, mode 'F' float32. A Tensor is returned
    as it is (transposed from CHW for 'HWC')."""
    _check_image("to_tensor", pic)
    if data_format not in ("CHW", "HWC"):
        raise ValueError(
            f"to_tensor(): argument 'data_format' must be 'CHW' or 'HWC', but got {data_format!r}"
        )
    if _is_tensor_image(pic):
        return pic if data_format == "CHW" else _C.transpose(pic, [1, 2, 0])
    if _is_pil_image(pic):
        mode = pic.mode
        kind = {"I": np.int32, "I;16": np.int32, "F": np.float32}.get(mode)
        a = np.asarray(pic, kind) if kind else np.asarray(pic)
        if mode == "1":
            a = a.astype(np.uint8) * 255
        channels = 3 if mode == "YCbCr" else 1 if mode == "I;16" else len(mode)
        a = a.reshape(pic.size[1], pic.size[0], channels)
    else:
        a = pic[:, :, None] if pic.ndim == 2 else pic
    if a.dtype == np.uint8:
        a = a.astype(np.float32) * np.float32(1 / 255)
    if data_format == "CHW":
        a = np.moveaxis(a, -1, 0)
    return _tt(np.ascontiguousarray(a))


# ---- flips, crops, padding, resizing ----------------------------------------------------
def hflip(img: _ImageT) -> _ImageT:
    """Mirror left-right."""
    _check_image("hflip", img)
    if _is_pil_image(img):
        return img.transpose(
            _pil().Transpose.FLIP_LEFT_RIGHT
            if hasattr(_pil(), "Transpose")
            else _pil().FLIP_LEFT_RIGHT
        )
    if _is_tensor_image(img):
        _check_tensor("hflip", img)
        return _C.flip(img, [-1])
    return np.ascontiguousarray(img[:, ::-1])


def vflip(img: _ImageT) -> _ImageT:
    """Mirror top-bottom."""
    _check_image("vflip", img)
    if _is_pil_image(img):
        return img.transpose(
            _pil().Transpose.FLIP_TOP_BOTTOM
            if hasattr(_pil(), "Transpose")
            else _pil().FLIP_TOP_BOTTOM
        )
    if _is_tensor_image(img):
        _check_tensor("vflip", img)
        return _C.flip(img, [-2])
    return np.ascontiguousarray(img[::-1])


def crop(img: _ImageT, top: int, left: int, height: int, width: int) -> _ImageT:
    """The height x width window whose top-left pixel is (top, left)."""
    _check_image("crop", img)
    top, left, height, width = (int(v) for v in (top, left, height, width))
    if _is_pil_image(img):
        return img.crop((left, top, left + width, top + height))
    if _is_tensor_image(img):
        _check_tensor("crop", img)
        return img[..., top : top + height, left : left + width]
    return img[top : top + height, left : left + width]


def center_crop(img: _ImageT, output_size: int | Sequence[int]) -> _ImageT:
    """The central window of output_size (an int or (h, w))."""
    _check_image("center_crop", img)
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    th, tw = (int(v) for v in output_size)
    w, h = _image_size(img)
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def _padding4(api, padding):
    """(left, top, right, bottom) from an int, (lr, tb) or (l, t, r, b)."""
    if isinstance(padding, numbers.Integral):
        return (int(padding),) * 4
    if isinstance(padding, Sequence) and len(padding) == 2:
        return int(padding[0]), int(padding[1]), int(padding[0]), int(padding[1])
    if isinstance(padding, Sequence) and len(padding) == 4:
        return tuple(int(v) for v in padding)
    raise ValueError(
        f"{api}(): argument 'padding' must be an int or a sequence of 2 or 4 "
        f"ints, but got {padding!r}"
    )


_PAD_MODES = ("constant", "edge", "reflect", "symmetric")


def pad(
    img: _ImageT,
    padding: int | Sequence[int],
    fill: float | Sequence[float] = 0,
    padding_mode: str = "constant",
) -> _ImageT:
    """Pad the borders: padding is an int (all sides), (left/right, top/bottom) or (left,
    top, right, bottom); padding_mode constant (with fill), edge, reflect or symmetric."""
    _check_image("pad", img)
    left, top, right, bottom = _padding4("pad", padding)
    if padding_mode not in _PAD_MODES:
        raise ValueError(
            f"pad(): argument 'padding_mode' must be one of {_PAD_MODES}, but got {padding_mode!r}"
        )
    if min(left, top, right, bottom) < 0:
        raise ValueError(f"pad(): argument 'padding' must be non-negative, but got {padding!r}")
    if _is_tensor_image(img):
        _check_tensor("pad", img)
        return _color.pad_tensor(img, (left, top, right, bottom), fill, padding_mode)
    if _is_pil_image(img):
        Image = _pil()
        a = np.asarray(img)
        out = _pad_array(a, (left, top, right, bottom), fill, padding_mode)
        res = Image.fromarray(out, img.mode if img.mode in ("L", "RGB", "RGBA", "P") else None)
        if img.mode == "P":
            res.putpalette(img.getpalette())
        return res
    return _pad_array(img, (left, top, right, bottom), fill, padding_mode)


def _pad_array(a, ltrb, fill, mode):
    left, top, right, bottom = ltrb
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (a.ndim - 2)
    if mode != "constant":
        return np.pad(a, widths, mode=mode)
    fill = np.asarray(fill).reshape(-1)
    if fill.size == 1 or a.ndim == 2:
        return np.pad(a, widths, mode="constant", constant_values=fill[0].item())
    out = np.empty((a.shape[0] + top + bottom, a.shape[1] + left + right, a.shape[2]), a.dtype)
    out[...] = fill[: a.shape[2]] if fill.size >= a.shape[2] else fill[0]
    out[top : top + a.shape[0], left : left + a.shape[1]] = a
    return out


def resize(img: _ImageT, size: int | Sequence[int], interpolation: str = "bilinear") -> _ImageT:
    """Resize to size = (h, w), or an int: the shorter side becomes size, the aspect ratio
    is kept. PIL/numpy: nearest, bilinear, bicubic, box, lanczos, hamming (and OpenCV's
    'area', as box); Tensors: nearest, bilinear, bicubic."""
    _check_image("resize", img)
    if not (isinstance(size, numbers.Integral) or (isinstance(size, Sequence) and len(size) == 2)):
        raise TypeError(f"resize(): argument 'size' must be an int or (h, w), but got {size!r}")
    w, h = _image_size(img)
    if isinstance(size, numbers.Integral):
        s = int(size)
        if (w <= h and w == s) or (h <= w and h == s):
            return img
        oh, ow = (int(s * h / w), s) if w < h else (s, int(s * w / h))
    else:
        oh, ow = int(size[0]), int(size[1])
    if _is_tensor_image(img):
        _check_tensor("resize", img)
        return _color.resize_tensor(img, oh, ow, interpolation)
    flt = _pil_filter("resize", interpolation)
    if _is_pil_image(img):
        return img.resize((ow, oh), flt)
    if _pil_able(img):
        return _via_pil(img, lambda im: im.resize((ow, oh), flt))
    x, back = _chw(img)
    Image = _pil()
    chans = [
        np.asarray(Image.fromarray(c.astype(np.float32), "F").resize((ow, oh), flt)) for c in x
    ]
    return back(np.stack(chans).astype(np.float64))


# ---- warps --------------------------------------------------------------------------------
def _warp_image(api, img, matrix_or_coeffs, kind, out_size, interpolation, fill):
    """img warped by an inverse map (an affine (2, 3) matrix or perspective coefficients)
    into out_size = (w, h)."""
    ow, oh = out_size
    points = _warp.affine_points if kind == "affine" else _warp.perspective_points

    def run(chw, tensor=False):
        u, v = points(matrix_or_coeffs, ow, oh)
        return _warp.sample(chw, u, v, interpolation, fill, grid_sample_fill=tensor)

    if _is_tensor_image(img):
        _check_tensor(api, img)
        return _tensor_host(img, lambda chw: run(chw, True))
    x, back = _chw(img)
    return back(run(x))


def _pil_fill(img, fill):
    if isinstance(fill, numbers.Number):
        return fill if len(img.getbands()) == 1 else tuple([fill] * len(img.getbands()))
    return tuple(fill)


def affine(
    img: _ImageT,
    angle: float,
    translate: Sequence[float],
    scale: float,
    shear: float | Sequence[float],
    interpolation: str = "nearest",
    fill: float | Sequence[float] = 0,
    center: Sequence[float] | None = None,
) -> _ImageT:
    """Turn by angle degrees (clockwise), move by translate = (dx, dy) pixels, scale, and
    shear by shear degrees (a number: along x; (sx, sy)), about center (default the
    image centre); the output keeps the input size, uncovered pixels take fill."""
    _check_image("affine", img)
    if not isinstance(angle, numbers.Number):
        raise TypeError(f"affine(): argument 'angle' must be a number, but got {angle!r}")
    if not isinstance(translate, Sequence) or len(translate) != 2:
        raise ValueError(
            f"affine(): argument 'translate' must be a sequence of 2 numbers, but got {translate!r}"
        )
    if not isinstance(scale, numbers.Number) or scale <= 0:
        raise ValueError(f"affine(): argument 'scale' must be a positive number, but got {scale!r}")
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    if not isinstance(shear, Sequence) or len(shear) not in (1, 2):
        raise ValueError(
            f"affine(): argument 'shear' must be a number or a sequence of 1 or 2 "
            f"numbers, but got {shear!r}"
        )
    shear = [shear[0], shear[0]] if len(shear) == 1 else list(shear)
    w, h = _image_size(img)
    center = (w * 0.5, h * 0.5) if center is None else tuple(center)
    m = _warp.affine_inverse(center, float(angle), translate, float(scale), shear)
    if _is_pil_image(img):
        Image = _pil()
        return img.transform(
            img.size,
            Image.AFFINE,
            tuple(m.reshape(-1)),
            _pil_filter("affine", interpolation),
            fillcolor=_pil_fill(img, fill),
        )
    if _is_numpy_image(img) and _pil_able(img) and interpolation not in _warp.MODES:
        return _via_pil(
            img, lambda im: affine(im, angle, translate, scale, shear, interpolation, fill, center)
        )
    return _warp_image("affine", img, m, "affine", (w, h), interpolation, fill)


def rotate(
    img: _ImageT,
    angle: float,
    interpolation: str = "nearest",
    expand: bool = False,
    center: Sequence[float] | None = None,
    fill: float | Sequence[float] = 0,
) -> _ImageT:
    """Turn counter-clockwise by angle degrees about center (default the image centre);
    expand enlarges the output to hold the whole turned image."""
    _check_image("rotate", img)
    if not isinstance(angle, numbers.Number):
        raise TypeError(f"rotate(): argument 'angle' must be a number, but got {angle!r}")
    if _is_pil_image(img):
        return img.rotate(
            float(angle),
            _pil_filter("rotate", interpolation),
            expand,
            None if center is None else tuple(center),
            fillcolor=_pil_fill(img, fill),
        )
    if _is_numpy_image(img) and _pil_able(img) and interpolation not in _warp.MODES:
        return _via_pil(img, lambda im: rotate(im, angle, interpolation, expand, center, fill))
    m, size = _warp.rotate_inverse(float(angle), _image_size(img), center, expand)
    return _warp_image("rotate", img, m, "affine", size, interpolation, fill)


def perspective(
    img: _ImageT,
    startpoints: Sequence[Sequence[float]],
    endpoints: Sequence[Sequence[float]],
    interpolation: str = "nearest",
    fill: float | Sequence[float] = 0,
) -> _ImageT:
    """The perspective warp taking the four startpoints ([x, y], the input's corners) to
    the four endpoints; the output keeps the input size."""
    _check_image("perspective", img)
    for name, pts in (("startpoints", startpoints), ("endpoints", endpoints)):
        if len(pts) != 4 or any(len(p) != 2 for p in pts):
            raise ValueError(
                f"perspective(): argument '{name}' must be 4 points [x, y], but got {pts!r}"
            )
    coeffs = _warp.perspective_coeffs(startpoints, endpoints)
    if _is_pil_image(img):
        Image = _pil()
        return img.transform(
            img.size,
            Image.PERSPECTIVE,
            coeffs,
            _pil_filter("perspective", interpolation),
            fillcolor=_pil_fill(img, fill),
        )
    return _warp_image(
        "perspective", img, coeffs, "perspective", _image_size(img), interpolation, fill
    )


# ---- colour -------------------------------------------------------------------------------
def to_grayscale(img: _ImageT, num_output_channels: int = 1) -> _ImageT:
    """Luma (ITU-R 601-2: 0.299 R + 0.587 G + 0.114 B) in 1 or 3 channels."""
    _check_image("to_grayscale", img)
    if num_output_channels not in (1, 3):
        raise ValueError(
            f"to_grayscale(): argument 'num_output_channels' must be 1 or 3, but "
            f"got {num_output_channels!r}"
        )
    if _is_pil_image(img):
        g = img.convert("L")
        return g if num_output_channels == 1 else _pil().merge("RGB", (g, g, g))
    if _is_tensor_image(img):
        _check_tensor("to_grayscale", img)
        return _color.grayscale_tensor(img, num_output_channels)
    if _pil_able(img) and img.ndim == 3:
        g = np.asarray(_pil().fromarray(img).convert("L"))[:, :, None]
    else:
        x, back = _chw(img)
        g = back(_color.luma(x)[None] if x.shape[0] >= 3 else x[:1])
        g = g if g.ndim == 3 else g[:, :, None]
    return g if num_output_channels == 1 else np.ascontiguousarray(np.repeat(g, 3, axis=2))


def _enhance(api, img, factor, kind):
    if not isinstance(factor, numbers.Number) or factor < 0:
        raise ValueError(f"{api}(): the factor must be a non-negative number, but got {factor!r}")
    _check_image(api, img)
    if _is_pil_image(img):
        from PIL import ImageEnhance  # optional dependency: Pillow

        cls = {
            "brightness": ImageEnhance.Brightness,
            "contrast": ImageEnhance.Contrast,
            "saturation": ImageEnhance.Color,
        }[kind]
        return cls(img).enhance(factor)
    if _is_tensor_image(img):
        _check_tensor(api, img)
        return _color.blend_tensor(img, factor, kind)
    if _pil_able(img):
        return _via_pil(img, lambda im: _enhance(api, im, factor, kind))
    x, back = _chw(img)
    top = 1.0 if img.dtype.kind == "f" else 255.0
    return back(_color.blend_array(x, factor, kind, top))


def adjust_brightness(img: _ImageT, brightness_factor: float) -> _ImageT:
    """Multiply by brightness_factor (0: black, 1: unchanged)."""
    return _enhance("adjust_brightness", img, brightness_factor, "brightness")


def adjust_contrast(img: _ImageT, contrast_factor: float) -> _ImageT:
    """Blend with the mean grey level (0: flat grey, 1: unchanged)."""
    return _enhance("adjust_contrast", img, contrast_factor, "contrast")


def adjust_saturation(img: _ImageT, saturation_factor: float) -> _ImageT:
    """Blend with the greyscale image (0: grey, 1: unchanged, 2: twice as saturated)."""
    return _enhance("adjust_saturation", img, saturation_factor, "saturation")


def adjust_hue(img: _ImageT, hue_factor: float) -> _ImageT:
    """Rotate the hue by hue_factor turns (in [-0.5, 0.5])."""
    _check_image("adjust_hue", img)
    if not isinstance(hue_factor, numbers.Number) or not -0.5 <= hue_factor <= 0.5:
        raise ValueError(
            f"adjust_hue(): argument 'hue_factor' must be in [-0.5, 0.5], but got {hue_factor!r}"
        )
    if _is_pil_image(img):
        if img.mode in ("L", "1", "I", "F"):
            return img
        Image = _pil()
        h, s, v = img.convert("HSV").split()
        shifted = ((np.asarray(h, np.int16) + int(hue_factor * 255)) % 256).astype(np.uint8)
        return Image.merge("HSV", (Image.fromarray(shifted, "L"), s, v)).convert(img.mode)
    if _is_numpy_image(img) and _pil_able(img):
        if img.ndim == 2 or img.shape[2] == 1:
            return img
        return _via_pil(img, lambda im: adjust_hue(im, hue_factor))
    if _is_tensor_image(img):
        _check_tensor("adjust_hue", img)
        top = 1.0 if img.dtype.is_floating_point else 255.0
        return _tensor_host(img, lambda x: _color.shift_hue(x / top, hue_factor) * top)
    x, back = _chw(img)
    top = 1.0 if img.dtype.kind == "f" else 255.0
    return back(_color.shift_hue(x / top, hue_factor) * top)


def normalize(
    img: _Image,
    mean: float | Sequence[float],
    std: float | Sequence[float],
    data_format: str = "CHW",
    to_rgb: bool = False,
) -> np.ndarray | Tensor:
    """(img - mean) / std per channel. A Tensor stays a Tensor; a PIL image or array
    becomes a float32 array (to_rgb reverses its channels first, BGR -> RGB)."""
    if data_format not in ("CHW", "HWC"):
        raise ValueError(
            f"normalize(): argument 'data_format' must be 'CHW' or 'HWC', but got {data_format!r}"
        )
    std_a = np.asarray(std, np.float32).reshape(-1)
    if np.any(std_a == 0):
        raise ValueError(f"normalize(): argument 'std' must not contain 0, but got {std!r}")
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    mean_a = np.asarray(mean, np.float32).reshape(shape)
    std_a = std_a.reshape(shape)
    if _is_tensor_image(img):
        dt = img.dtype if img.dtype.is_floating_point else "float32"
        x = img if img.dtype.is_floating_point else _C.cast(img, "float32")
        return (x - _tt(mean_a).astype(dt)) / _tt(std_a).astype(dt)
    if _is_pil_image(img):
        img = np.asarray(img).astype(np.float32)
    if not isinstance(img, np.ndarray):
        raise TypeError(
            f"normalize(): argument 'img' must be a PIL image, a Tensor or a numpy "
            f"array, but got {type(img).__name__}"
        )
    if to_rgb:
        img = img[..., ::-1]
    return ((img - mean_a) / std_a).astype(np.float32)


def erase(
    img: _ImageT,
    i: int,
    j: int,
    h: int,
    w: int,
    v: float | np.ndarray | Tensor,
    inplace: bool = False,
) -> _ImageT:
    """Set the h x w window at row i, column j to v (a number, array or Tensor that
    broadcasts against the window: [C, h, w] for Tensors, [h, w, C] for arrays)."""
    _check_image("erase", img)
    i, j, h, w = (int(t) for t in (i, j, h, w))
    if _is_tensor_image(img):
        _check_tensor("erase", img)
        out = img if inplace else img.clone()
        out[..., i : i + h, j : j + w] = v
        return out
    if _is_pil_image(img):
        a = np.array(img)
        a[i : i + h, j : j + w, ...] = np.asarray(v)
        return _pil().fromarray(a, img.mode)
    out = img if inplace else img.copy()
    out[i : i + h, j : j + w, ...] = np.asarray(v.numpy() if isinstance(v, _C.Tensor) else v)
    return out
