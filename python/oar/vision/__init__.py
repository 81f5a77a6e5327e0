"""oar.vision: Paddle's paddle.vision — datasets, image transforms, models, detection ops
and the image backend. As in Paddle, the datasets, models and transforms are also names of
oar.vision itself (oar.vision.DatasetFolder is oar.vision.datasets.DatasetFolder)."""

from . import datasets, models, ops, transforms  # noqa: F401
from .datasets import (  # noqa: F401
    MNIST,
    VOC2012,
    Cifar10,
    Cifar100,
    DatasetFolder,
    FashionMNIST,
    Flowers,
    ImageFolder,
)
from .image import get_image_backend, image_load, set_image_backend  # noqa: F401
from .models import *  # noqa: F401,F403
from .transforms import (
    BaseTransform,
    BrightnessTransform,
    CenterCrop,  # noqa: F401
    ColorJitter,
    Compose,
    ContrastTransform,
    Grayscale,
    HueTransform,
    Normalize,
    Pad,
    RandomCrop,
    RandomHorizontalFlip,
    RandomResizedCrop,
    RandomRotation,
    RandomVerticalFlip,
    Resize,
    SaturationTransform,
    ToTensor,
    Transpose,
    adjust_brightness,
    adjust_contrast,
    adjust_hue,
    center_crop,
    crop,
    hflip,
    normalize,
    pad,
    resize,
    rotate,
    to_grayscale,
    to_tensor,
    vflip,
)

__all__ = ["set_image_backend", "get_image_backend", "image_load"]
