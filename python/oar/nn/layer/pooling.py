"""Pooling layers: each wraps the oar.nn.functional function with its settings."""

from __future__ import annotations

import warnings

from .layers import Layer
from .. import functional as F

__all__ = [
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "AdaptiveAvgPool1D",
    "AdaptiveAvgPool2D",
    "AdaptiveAvgPool3D",
    "AdaptiveMaxPool1D",
    "AdaptiveMaxPool2D",
    "AdaptiveMaxPool3D",
    "LPPool1D",
    "LPPool2D",
    "MaxUnPool1D",
    "MaxUnPool2D",
    "MaxUnPool3D",
    "FractionalMaxPool2D",
    "FractionalMaxPool3D",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]


class _Pool(Layer):
    _fn = ""
    # The settings the layer's repr shows, Paddle's choice per class (None: all).
    _shown: tuple[str, ...] | None = ("kernel_size", "stride", "padding")

    def __init__(self, **settings):
        super().__init__()
        self._settings = {k: v for k, v in settings.items() if k != "name"}

    def forward(self, x):
        return getattr(F, self._fn)(x, **self._settings)

    _shows_kernel_as_stride = False  # a stride of None shown as the kernel size it means

    def _shown_settings(self):
        keys = self._settings if self._shown is None else self._shown
        shown = {k: self._settings[k] for k in keys}
        if "norm_type" in shown:
            shown["norm_type"] = float(shown["norm_type"])
        if self._shows_kernel_as_stride and shown.get("stride") is None:
            shown["stride"] = shown["kernel_size"]
        return shown

    def extra_repr(self):
        return ", ".join(f"{k}={v}" for k, v in self._shown_settings().items())


class _Pool1DInput(_Pool):
    """The 1-D pools whose forward argument Paddle names input."""

    def forward(self, input):
        return getattr(F, self._fn)(input, **self._settings)


class MaxPool1D(_Pool1DInput):
    _fn = "max_pool1d"

    def __init__(
        self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            return_mask=return_mask,
            ceil_mode=ceil_mode,
        )


class MaxPool2D(_Pool):
    _fn = "max_pool2d"

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        return_mask=False,
        ceil_mode=False,
        data_format="NCHW",
        name=None,
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            return_mask=return_mask,
            ceil_mode=ceil_mode,
            data_format=data_format,
        )


class AvgPool1D(_Pool):
    _fn = "avg_pool1d"

    def __init__(
        self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            exclusive=exclusive,
            ceil_mode=ceil_mode,
        )


class AvgPool2D(_Pool):
    _fn = "avg_pool2d"

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        exclusive=True,
        divisor_override=None,
        data_format="NCHW",
        name=None,
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            ceil_mode=ceil_mode,
            exclusive=exclusive,
            divisor_override=divisor_override,
            data_format=data_format,
        )


class AdaptiveAvgPool1D(_Pool1DInput):
    _fn = "adaptive_avg_pool1d"
    _shown = ("output_size",)

    def __init__(self, output_size, name=None):
        super().__init__(output_size=output_size)


class AdaptiveAvgPool2D(_Pool):
    _fn = "adaptive_avg_pool2d"
    _shown = ("output_size",)

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size=output_size, data_format=data_format)


class AdaptiveMaxPool2D(_Pool):
    _fn = "adaptive_max_pool2d"
    _shown = ("output_size", "return_mask")

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size=output_size, return_mask=return_mask)


class MaxPool3D(_Pool):
    _fn = "max_pool3d"

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        return_mask=False,
        ceil_mode=False,
        data_format="NCDHW",
        name=None,
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            return_mask=return_mask,
            ceil_mode=ceil_mode,
            data_format=data_format,
        )


class AvgPool3D(_Pool):
    _fn = "avg_pool3d"

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        exclusive=True,
        divisor_override=None,
        data_format="NCDHW",
        name=None,
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            ceil_mode=ceil_mode,
            exclusive=exclusive,
            divisor_override=divisor_override,
            data_format=data_format,
        )


class AdaptiveAvgPool3D(_Pool):
    _fn = "adaptive_avg_pool3d"
    _shown = ("output_size",)

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size=output_size, data_format=data_format)


class AdaptiveMaxPool1D(_Pool1DInput):
    _fn = "adaptive_max_pool1d"
    _shown = ("output_size", "return_mask")

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size=output_size, return_mask=return_mask)


class AdaptiveMaxPool3D(_Pool):
    _fn = "adaptive_max_pool3d"
    _shown = ("output_size", "return_mask")

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size=output_size, return_mask=return_mask)


class LPPool1D(_Pool):
    """Power-average pooling of [N, C, L]: (sum of x ** norm_type) ** (1 / norm_type)."""

    _fn = "lp_pool1d"
    _shown = ("norm_type", "kernel_size", "stride", "padding")

    def __init__(
        self,
        norm_type,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        data_format="NCL",
        name=None,
    ):
        super().__init__(
            norm_type=norm_type,
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            ceil_mode=ceil_mode,
            data_format=data_format,
        )


class LPPool2D(_Pool):
    """Power-average pooling of [N, C, H, W]: (sum of x ** norm_type) ** (1 / norm_type)."""

    _fn = "lp_pool2d"
    _shown = ("norm_type", "kernel_size", "stride", "padding")
    _shows_kernel_as_stride = True

    def __init__(
        self,
        norm_type,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        data_format="NCHW",
        name=None,
    ):
        super().__init__(
            norm_type=norm_type,
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            ceil_mode=ceil_mode,
            data_format=data_format,
        )


class _Unpool(_Pool):
    def forward(self, x, indices, output_size=None):
        settings = self._settings
        if output_size:
            # Paddle's rule and warning: forward's output_size wins over the constructor's
            warnings.warn(
                "output_size in forward overrides output_size in __init__. "
                "The output_size parameter in forward has higher priority.",
                stacklevel=2,
            )
            settings = {**settings, "output_size": output_size}
        return getattr(F, self._fn)(x, indices, **settings)


class MaxUnPool1D(_Unpool):
    """The partial inverse of MaxPool1D: forward(x, indices) with the pool's mask."""

    _fn = "max_unpool1d"
    _shown = ("output_size",)

    def __init__(
        self, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None, name=None
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            data_format=data_format,
            output_size=output_size,
        )


class MaxUnPool2D(_Unpool):
    """The partial inverse of MaxPool2D: forward(x, indices) with the pool's mask."""

    _fn = "max_unpool2d"
    _shown = ("output_size",)

    def __init__(
        self, kernel_size, stride=None, padding=0, data_format="NCHW", output_size=None, name=None
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            data_format=data_format,
            output_size=output_size,
        )


class MaxUnPool3D(_Unpool):
    """The partial inverse of MaxPool3D: forward(x, indices) with the pool's mask."""

    _fn = "max_unpool3d"
    _shown = ("output_size",)

    def __init__(
        self, kernel_size, stride=None, padding=0, data_format="NCDHW", output_size=None, name=None
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            data_format=data_format,
            output_size=output_size,
        )


class FractionalMaxPool2D(_Pool):
    """Fractional max pooling of [N, C, H, W] to output_size (pseudo-random windows)."""

    _fn = "fractional_max_pool2d"
    _shown = ("output_size", "return_mask")

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
        super().__init__(
            output_size=output_size,
            kernel_size=kernel_size,
            random_u=random_u,
            return_mask=return_mask,
        )


class FractionalMaxPool3D(_Pool):
    """Fractional max pooling of [N, C, D, H, W] to output_size (pseudo-random windows)."""

    _fn = "fractional_max_pool3d"
    _shown = ("output_size", "return_mask")

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
        super().__init__(
            output_size=output_size,
            kernel_size=kernel_size,
            random_u=random_u,
            return_mask=return_mask,
        )


# PyTorch's spellings, as Paddle exports them
AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d = (
    AdaptiveAvgPool1D,
    AdaptiveAvgPool2D,
    AdaptiveAvgPool3D,
)
AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = (
    AdaptiveMaxPool1D,
    AdaptiveMaxPool2D,
    AdaptiveMaxPool3D,
)
LPPool1d, LPPool2d = LPPool1D, LPPool2D
MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = MaxUnPool1D, MaxUnPool2D, MaxUnPool3D
