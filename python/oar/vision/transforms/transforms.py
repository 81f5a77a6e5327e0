"""oar.vision.transforms: image transform classes with Paddle's names and arguments.

An image is a PIL image, a numpy array (HWC or HW) or a Tensor (CHW); each transform
applies the functions of oar.vision.transforms.functional, so it keeps the kind of its
input (ToTensor and Normalize excepted). Random transforms draw from oar's seeded
generator, so oar.seed(n) makes them reproducible. A transform built with
keys=('image', 'boxes', ...) takes a tuple and applies _apply_<key> to each entry.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

from ... import _C
from ...io.rng import host_rng
from . import functional as F
from ...tensor.creation import to_tensor

__all__ = [
    "BaseTransform",
    "Compose",
    "Resize",
    "RandomResizedCrop",
    "CenterCrop",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "Transpose",
    "Normalize",
    "BrightnessTransform",
    "SaturationTransform",
    "ContrastTransform",
    "HueTransform",
    "ColorJitter",
    "RandomCrop",
    "Pad",
    "RandomAffine",
    "RandomRotation",
    "RandomPerspective",
    "Grayscale",
    "ToTensor",
    "RandomErasing",
]


def _rand():
    return host_rng()


class BaseTransform:
    """Base of the transforms: __call__ takes one input or a tuple of inputs named by
    keys (default ('image',)); _get_params(inputs) runs once per call (its result is
    self.params), then _apply_<key> transforms each input. Inputs past the keys pass
    through unchanged."""

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif isinstance(keys, str) or not isinstance(keys, Sequence):
            raise ValueError(
                f"{type(self).__name__}: argument 'keys' must be a sequence of "
                f"names, but got {keys!r}"
            )
        for k in keys:
            if self._get_apply(k) is None:
                raise NotImplementedError(
                    f"{type(self).__name__}: inputs of kind {k!r} are "
                    f"not supported (no _apply_{k} method)"
                )
        self.keys = keys
        self.params = None

    def _get_params(self, inputs):
        return None

    def _get_apply(self, key):
        return getattr(self, f"_apply_{key}", None)

    def __call__(self, inputs):
        items = inputs if isinstance(inputs, tuple) else (inputs,)
        self.params = self._get_params(items)
        keys = getattr(self, "keys", ("image",))
        outs = [self._get_apply(k)(x) for k, x in zip(keys, items)]
        outs += list(items[len(keys) :])
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _apply_image(self, image):
        raise NotImplementedError(f"{type(self).__name__} does not define _apply_image")

    def _apply_boxes(self, boxes):
        raise NotImplementedError(f"{type(self).__name__} does not define _apply_boxes")

    def _apply_mask(self, mask):
        raise NotImplementedError(f"{type(self).__name__} does not define _apply_mask")

    def _apply_coords(self, coords):
        raise NotImplementedError(f"{type(self).__name__} does not define _apply_coords")

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


def _data_format(who, data_format):
    if data_format not in ("CHW", "HWC"):
        raise ValueError(
            f"{who}: argument 'data_format' must be 'CHW' or 'HWC', got {data_format!r}"
        )
    return data_format


class ToTensor(BaseTransform):
    """PIL image or HWC (HW) array -> Tensor (CHW by default); uint8 becomes float32 in
    [0, 1], other dtypes are kept."""

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = _data_format("ToTensor", data_format)

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Normalize(BaseTransform):
    """(img - mean) / std per channel (a number applies to every channel)."""

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        self.data_format = _data_format("Normalize", data_format)
        mean = [mean] if isinstance(mean, numbers.Number) else list(mean)
        std = [std] if isinstance(std, numbers.Number) else list(std)
        if any(s == 0 for s in std):
            raise ValueError("Normalize: argument 'std' must not contain 0")
        self.mean, self.std, self.to_rgb = mean, std, to_rgb

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Transpose(BaseTransform):
    """Permute the axes of an HWC image (default to CHW); a PIL image becomes an array."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = tuple(order)

    def _apply_image(self, img):
        if F._is_tensor_image(img):
            return _C.transpose(img, list(self.order))
        a = np.asarray(img)
        if a.ndim == 2:
            a = a[..., None]
        return np.ascontiguousarray(a.transpose(self.order))


def _prob(who, prob):
    if not isinstance(prob, numbers.Number) or not 0 <= prob <= 1:
        raise ValueError(f"{who}: argument 'prob' must be in [0, 1], got {prob!r}")
    return prob


class RandomHorizontalFlip(BaseTransform):
    """Mirror left-right with probability prob."""

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = _prob(type(self).__name__, prob)

    def _apply_image(self, img):
        return F.hflip(img) if _rand().random() < self.prob else img


class RandomVerticalFlip(RandomHorizontalFlip):
    """Mirror top-bottom with probability prob."""

    def _apply_image(self, img):
        return F.vflip(img) if _rand().random() < self.prob else img


def _size2(size, who):
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    if not isinstance(size, Sequence) or len(size) != 2:
        raise ValueError(f"{who}: argument 'size' must be an int or (h, w), got {size!r}")
    return int(size[0]), int(size[1])


class Resize(BaseTransform):
    """Resize to size ((h, w), or an int for the shorter side keeping the aspect ratio)."""

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        if not isinstance(size, numbers.Integral):
            size = _size2(size, "Resize")
        F._pil_filter("Resize", interpolation)
        self.size, self.interpolation = size, interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


class CenterCrop(BaseTransform):
    """The central size-h-by-w window."""

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = _size2(size, "CenterCrop")

    def _apply_image(self, img):
        w, h = F._image_size(img)
        if h < self.size[0] or w < self.size[1]:
            raise ValueError(
                f"CenterCrop: the image ({h}x{w}) is smaller than the crop "
                f"({self.size[0]}x{self.size[1]})"
            )
        return F.center_crop(img, self.size)


class RandomResizedCrop(BaseTransform):
    """A random window of scale (fraction of the area) and ratio (width / height)
    ranges, resized to size; after 10 misses, the central crop of the clamped ratio."""

    def __init__(
        self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3), interpolation="bilinear", keys=None
    ):
        super().__init__(keys)
        self.size = _size2(size, "RandomResizedCrop")
        for name, r in (("scale", scale), ("ratio", ratio)):
            if len(r) != 2 or r[0] > r[1] or r[0] <= 0:
                raise ValueError(
                    f"RandomResizedCrop: argument '{name}' must be (min, max) "
                    f"with 0 < min <= max, got {r!r}"
                )
        self.scale, self.ratio, self.interpolation = tuple(scale), tuple(ratio), interpolation

    def _window(self, width, height, rng):
        area = width * height
        log_lo, log_hi = math.log(self.ratio[0]), math.log(self.ratio[1])
        for _ in range(10):
            target = rng.uniform(*self.scale) * area
            aspect = math.exp(rng.uniform(log_lo, log_hi))
            w = int(round(math.sqrt(target * aspect)))
            h = int(round(math.sqrt(target / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return (
                    int(rng.integers(0, height - h + 1)),
                    int(rng.integers(0, width - w + 1)),
                    h,
                    w,
                )
        in_ratio = width / height
        w, h = width, height
        if in_ratio < self.ratio[0]:
            h = int(round(width / self.ratio[0]))
        elif in_ratio > self.ratio[1]:
            w = int(round(height * self.ratio[1]))
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img):
        i, j, h, w = self._window(*F._image_size(img), _rand())
        return F.resize(F.crop(img, i, j, h, w), self.size, self.interpolation)


def _check_fill(who, fill):
    if not isinstance(fill, (numbers.Number, str, list, tuple)):
        raise TypeError(
            f"{who}: argument 'fill' must be a number or a sequence, got {type(fill).__name__}"
        )
    return tuple(fill) if isinstance(fill, list) else fill


def _check_padding_mode(who, padding_mode):
    if padding_mode not in F._PAD_MODES:
        raise ValueError(
            f"{who}: argument 'padding_mode' must be one of {F._PAD_MODES}, got {padding_mode!r}"
        )
    return padding_mode


class RandomCrop(BaseTransform):
    """A random size-h-by-w window, after optional padding (an int, (lr, tb) or (l, t, r,
    b)); pad_if_needed pads an image smaller than the window."""

    def __init__(
        self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant", keys=None
    ):
        super().__init__(keys)
        self.size = _size2(size, "RandomCrop")
        if padding is not None:
            F._padding4("RandomCrop", padding)
        self.padding, self.pad_if_needed = padding, pad_if_needed
        self.fill = _check_fill("RandomCrop", fill)
        self.padding_mode = _check_padding_mode("RandomCrop", padding_mode)

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        th, tw = self.size
        w, h = F._image_size(img)
        if self.pad_if_needed and w < tw:
            img = F.pad(img, (tw - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < th:
            img = F.pad(img, (0, th - h), self.fill, self.padding_mode)
        w, h = F._image_size(img)
        if h < th or w < tw:
            raise ValueError(
                f"RandomCrop: the image ({h}x{w}) is smaller than the crop "
                f"({th}x{tw}); use padding or pad_if_needed"
            )
        rng = _rand()
        i = int(rng.integers(0, h - th + 1))
        j = int(rng.integers(0, w - tw + 1))
        return F.crop(img, i, j, th, tw)


class Pad(BaseTransform):
    """Pad the borders (see functional.pad)."""

    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        F._padding4("Pad", padding)
        self.padding = tuple(padding) if isinstance(padding, list) else padding
        self.fill = _check_fill("Pad", fill)
        self.padding_mode = _check_padding_mode("Pad", padding_mode)

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


def _factor_range(who, value, center=1.0, bound=(0.0, float("inf")), clip_at_zero=True):
    """Paddle's value -> [center - value, center + value] (clipped at 0), or None when
    that range is the single point center (the transform is the identity)."""
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"{who}: the value must be non-negative, got {value!r}")
        lo, hi = center - value, center + value
        if clip_at_zero:
            lo = max(lo, 0.0)
    elif isinstance(value, Sequence) and len(value) == 2:
        lo, hi = float(value[0]), float(value[1])
    else:
        raise TypeError(f"{who}: the value must be a number or (min, max), got {value!r}")
    if not bound[0] <= lo <= hi <= bound[1]:
        raise ValueError(f"{who}: the range ({lo}, {hi}) must lie in {bound}")
    return None if lo == hi == center else (lo, hi)


class _FactorTransform(BaseTransform):
    """A colour adjustment by a factor drawn uniformly from self.value (None: identity)."""

    def _adjust(self, img, factor):
        raise NotImplementedError

    def _apply_image(self, img):
        if self.value is None:
            return img
        return self._adjust(img, float(_rand().uniform(*self.value)))


class BrightnessTransform(_FactorTransform):
    """adjust_brightness by a factor drawn from [max(0, 1 - value), 1 + value]."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _factor_range(type(self).__name__, value)

    def _adjust(self, img, factor):
        return F.adjust_brightness(img, factor)


class ContrastTransform(BrightnessTransform):
    """adjust_contrast by a factor drawn from [max(0, 1 - value), 1 + value]."""

    def _adjust(self, img, factor):
        return F.adjust_contrast(img, factor)


class SaturationTransform(BrightnessTransform):
    """adjust_saturation by a factor drawn from [max(0, 1 - value), 1 + value]."""

    def _adjust(self, img, factor):
        return F.adjust_saturation(img, factor)


class HueTransform(_FactorTransform):
    """adjust_hue by a factor drawn from [-value, value] (value <= 0.5)."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _factor_range("HueTransform", value, 0.0, (-0.5, 0.5), False)

    def _adjust(self, img, factor):
        return F.adjust_hue(img, factor)


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter, in a random order per call."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness, self.contrast = brightness, contrast
        self.saturation, self.hue = saturation, hue
        self._parts = [
            BrightnessTransform(brightness, keys),
            ContrastTransform(contrast, keys),
            SaturationTransform(saturation, keys),
            HueTransform(hue, keys),
        ]

    def _apply_image(self, img):
        for k in _rand().permutation(len(self._parts)):
            img = self._parts[k]._apply_image(img)
        return img


def _angle_range(who, name, value, sizes=(2,)):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"{who}: a single number '{name}' must be non-negative, got {value!r}")
        return [-float(value), float(value)]
    if not isinstance(value, Sequence) or len(value) not in sizes:
        raise ValueError(
            f"{who}: argument '{name}' must be a number or a sequence of "
            f"{' or '.join(map(str, sizes))} numbers, got {value!r}"
        )
    return [float(v) for v in value]


def _pair(who, name, value, check):
    if value is None:
        return None
    if not isinstance(value, Sequence) or len(value) != 2:
        raise ValueError(f"{who}: argument '{name}' must be a sequence of 2 numbers, got {value!r}")
    if not all(check(v) for v in value):
        raise ValueError(f"{who}: argument '{name}' has a value out of range: {value!r}")
    return tuple(value)


class RandomAffine(BaseTransform):
    """affine with an angle from degrees, a translation up to translate (fractions of the
    width and height), a scale from scale and shear angles from shear (a number: x in
    [-s, s]; 2 numbers: x range; 4 numbers: x and y ranges)."""

    def __init__(
        self,
        degrees,
        translate=None,
        scale=None,
        shear=None,
        interpolation="nearest",
        fill=0,
        center=None,
        keys=None,
    ):
        super().__init__(keys)
        who = "RandomAffine"
        self.degrees = _angle_range(who, "degrees", degrees)
        self.translate = _pair(who, "translate", translate, lambda t: 0.0 <= t <= 1.0)
        self.scale = _pair(who, "scale", scale, lambda s: s > 0)
        self.shear = None if shear is None else _angle_range(who, "shear", shear, (2, 4))
        if interpolation not in ("nearest", "bilinear", "bicubic"):
            raise ValueError(
                f"{who}: argument 'interpolation' must be nearest, bilinear or "
                f"bicubic, got {interpolation!r}"
            )
        self.interpolation = interpolation
        self.fill = _check_fill(who, 0 if fill is None else fill)
        self.center = _pair(who, "center", center, lambda c: True)

    def _params(self, width, height, rng):
        angle = float(rng.uniform(*self.degrees))
        tx = ty = 0
        if self.translate is not None:
            dx, dy = self.translate[0] * width, self.translate[1] * height
            tx, ty = int(rng.uniform(-dx, dx)), int(rng.uniform(-dy, dy))
        scale = 1.0 if self.scale is None else float(rng.uniform(*self.scale))
        sx = sy = 0.0
        if self.shear is not None:
            sx = float(rng.uniform(self.shear[0], self.shear[1]))
            if len(self.shear) == 4:
                sy = float(rng.uniform(self.shear[2], self.shear[3]))
        return angle, (tx, ty), scale, (sx, sy)

    def _apply_image(self, img):
        angle, translate, scale, shear = self._params(*F._image_size(img), _rand())
        return F.affine(
            img, angle, translate, scale, shear, self.interpolation, self.fill, self.center
        )


class RandomRotation(BaseTransform):
    """rotate by an angle drawn from degrees (a number d: [-d, d])."""

    def __init__(
        self, degrees, interpolation="nearest", expand=False, center=None, fill=0, keys=None
    ):
        super().__init__(keys)
        self.degrees = _angle_range("RandomRotation", "degrees", degrees)
        self.interpolation, self.expand, self.center = interpolation, expand, center
        self.fill = _check_fill("RandomRotation", fill)

    def _apply_image(self, img):
        angle = float(_rand().uniform(*self.degrees))
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class RandomPerspective(BaseTransform):
    """With probability prob, a perspective warp moving each corner inwards by up to
    distortion_scale of half the width and height."""

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0, keys=None):
        super().__init__(keys)
        self.prob = _prob("RandomPerspective", prob)
        if not 0 <= distortion_scale <= 1:
            raise ValueError(
                f"RandomPerspective: argument 'distortion_scale' must be in [0, 1], "
                f"got {distortion_scale!r}"
            )
        if interpolation not in ("nearest", "bilinear", "bicubic"):
            raise ValueError(
                f"RandomPerspective: argument 'interpolation' must be nearest, "
                f"bilinear or bicubic, got {interpolation!r}"
            )
        self.distortion_scale, self.interpolation = distortion_scale, interpolation
        self.fill = _check_fill("RandomPerspective", fill)

    def get_params(self, width, height, distortion_scale, rng=None):
        """(startpoints, endpoints): the corners and where they move to."""
        rng = rng or _rand()
        dw = int(distortion_scale * (width // 2))
        dh = int(distortion_scale * (height // 2))

        def near(lo_edge, d, size):
            return int(rng.uniform(0, d + 1)) if lo_edge else int(rng.uniform(size - d - 1, size))

        ends = [
            [near(True, dw, width), near(True, dh, height)],
            [near(False, dw, width), near(True, dh, height)],
            [near(False, dw, width), near(False, dh, height)],
            [near(True, dw, width), near(False, dh, height)],
        ]
        starts = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return starts, ends

    def _apply_image(self, img):
        rng = _rand()
        if rng.random() >= self.prob:
            return img
        starts, ends = self.get_params(*F._image_size(img), self.distortion_scale, rng)
        return F.perspective(img, starts, ends, self.interpolation, self.fill)


class Grayscale(BaseTransform):
    """to_grayscale with 1 or 3 output channels."""

    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        if num_output_channels not in (1, 3):
            raise ValueError(
                f"Grayscale: argument 'num_output_channels' must be 1 or 3, got "
                f"{num_output_channels!r}"
            )
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)


class RandomErasing(BaseTransform):
    """With probability prob, set a random window (area fraction from scale, aspect
    ratio h / w from ratio) to value: a number, one value per channel, or 'random'
    (standard normal noise)."""

    def __init__(
        self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, keys=None
    ):
        super().__init__(keys)
        who = "RandomErasing"
        self.prob = _prob(who, prob)
        if not isinstance(scale, (tuple, list)) or not 0 <= scale[0] <= scale[1] <= 1:
            raise ValueError(f"{who}: argument 'scale' must be (min, max) in [0, 1], got {scale!r}")
        if not isinstance(ratio, (tuple, list)) or not 0 < ratio[0] <= ratio[1]:
            raise ValueError(
                f"{who}: argument 'ratio' must be (min, max) with 0 < min, got {ratio!r}"
            )
        if isinstance(value, str) and value != "random":
            raise ValueError(f"{who}: a string 'value' must be 'random', got {value!r}")
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError(
                f"{who}: argument 'value' must be a number, a sequence or "
                f"'random', got {type(value).__name__}"
            )
        self.scale, self.ratio, self.value, self.inplace = scale, ratio, value, inplace

    def _window(self, img, rng):
        if F._is_tensor_image(img):
            c, h, w = img.shape[-3:]
        else:
            a = np.asarray(img)
            h, w = a.shape[:2]
            c = a.shape[2] if a.ndim == 3 else 1
        log_ratio = np.log(self.ratio)
        for _ in range(10):
            area = rng.uniform(*self.scale) * h * w
            aspect = math.exp(rng.uniform(*log_ratio))
            eh, ew = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
            if eh < h and ew < w:
                return int(rng.integers(0, h - eh + 1)), int(rng.integers(0, w - ew + 1)), eh, ew, c
        return None

    def _fill(self, img, c, eh, ew, rng):
        if self.value == "random":
            noise = rng.standard_normal((c, eh, ew))
            if F._is_tensor_image(img):
                return to_tensor(noise.astype(np.float32)).astype(img.dtype)
            return np.clip(np.moveaxis(noise, 0, -1) * 255, 0, 255)
        v = np.asarray(self.value, np.float64).reshape(-1)
        if F._is_tensor_image(img):
            return to_tensor(v.reshape(-1, 1, 1).astype(np.float32)).astype(img.dtype)
        return v.reshape(1, 1, -1) if v.size > 1 else v[0]

    def _apply_image(self, img):
        rng = _rand()
        if rng.random() >= self.prob:
            return img
        win = self._window(img, rng)
        if win is None:
            return img
        i, j, eh, ew, c = win
        return F.erase(img, i, j, eh, ew, self._fill(img, c, eh, ew, rng), self.inplace)


def _flat_steps(transform):
    """The transforms a Compose (nested ones too) applies in order; None when one is not a
    plain Compose / ToTensor / Normalize / Transpose acting on the image (a subclass may
    override what the batch form below reproduces)."""
    if type(transform) is Compose:
        out = []
        for t in transform.transforms:
            inner = _flat_steps(t)
            if inner is None:
                return None
            out += inner
        return out
    if type(transform) in (ToTensor, Normalize, Transpose) and transform.keys[:1] == ("image",):
        return [transform]
    return None


def _pad_to(a, ndim):
    """Batch a ([N, *S]) reshaped so each sample has at least ndim axes, leading 1s added:
    how numpy broadcasts a sample of fewer axes against an ndim-axis operand."""
    k = a.ndim - 1
    return a.reshape(a.shape[:1] + (1,) * (ndim - k) + a.shape[1:]) if k < ndim else a


def _batch_transform(transform, images, kind):
    """transform applied to a whole batch at once, giving exactly np.stack of what it gives
    each image; None when that cannot be promised (the caller then goes sample by sample).

    Args:
        transform: the dataset's transform.
        images (np.ndarray): [N, ...], images[i] being what the transform gets for sample i
            (for kind 'pil': the pixels of a mode 'L' PIL image).
        kind (str): what each sample is: 'pil' (a PIL image), 'array' (a numpy array).

    Returns:
        tuple[np.ndarray, str] | None: the batch and what each transformed sample is
        ('array' or 'tensor'), or None.
    """
    steps = _flat_steps(transform)
    if not steps:
        return None
    a = images
    if kind == "pil" and not (a.dtype == np.uint8 and a.ndim == 3):
        return None  # only mode 'L' images: the pixels alone do not say another mode
    for t in steps:
        k = a.ndim - 1  # the axes of one sample
        if type(t) is ToTensor:  # F.to_tensor
            if kind == "tensor":
                if t.data_format == "HWC":
                    if k != 3:
                        return None
                    a = a.transpose(0, 2, 3, 1)
                continue
            if k not in (2, 3):
                return None  # to_tensor raises for one sample: let it
            if k == 2:
                a = a[..., None]
            if a.dtype == np.uint8:
                a = a.astype(np.float32) * np.float32(1 / 255)
            if t.data_format == "CHW":
                a = np.moveaxis(a, -1, 1)
            a, kind = np.ascontiguousarray(a), "tensor"
        elif type(t) is Normalize:  # F.normalize
            shape = (-1, 1, 1) if t.data_format == "CHW" else (1, 1, -1)
            mean = np.asarray(t.mean, np.float32).reshape(shape)
            std = np.asarray(t.std, np.float32).reshape(shape)
            if kind == "tensor":
                if a.dtype not in (np.float32, np.float64):
                    return None  # a Tensor of another dtype: its own arithmetic
                a = (_pad_to(a, 3) - mean[None].astype(a.dtype)) / std[None].astype(a.dtype)
                continue
            if kind == "pil":
                a = a.astype(np.float32)
            if t.to_rgb:
                a = a[..., ::-1]
            a = ((_pad_to(a, 3) - mean[None]) / std[None]).astype(np.float32)
            kind = "array"
        else:  # Transpose
            if kind != "tensor" and k == 2:
                a = a[..., None]
            if len(t.order) != a.ndim - 1 or sorted(t.order) != list(range(a.ndim - 1)):
                return None
            a = np.ascontiguousarray(a.transpose((0,) + tuple(o + 1 for o in t.order)))
            kind = "array" if kind == "pil" else kind
    return a, kind
