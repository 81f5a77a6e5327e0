"""Padding layers (Paddle keeps them in paddle.nn.layer.common): Pad1D/2D/3D with a
mode, and the fixed-mode ZeroPad, ConstantPad, ReflectionPad, ReplicationPad and
CircularPad of each rank, with PyTorch's ...Pad1d spellings as aliases. Each holds
its padding as the list oar.nn.functional.pad takes for the spatial axes, last axis
first ([left, right, top, bottom, front, back]); an int pads every side."""

from __future__ import annotations

from ... import _C
from .layers import Layer
from .. import functional as F

__all__ = [
    "Pad1D",
    "Pad2D",
    "Pad3D",
    "ZeroPad1D",
    "ZeroPad2D",
    "ZeroPad3D",
    "ConstantPad1D",
    "ConstantPad2D",
    "ConstantPad3D",
    "ReflectionPad1D",
    "ReflectionPad2D",
    "ReflectionPad3D",
    "ReplicationPad1D",
    "ReplicationPad2D",
    "ReplicationPad3D",
    "CircularPad1D",
    "CircularPad2D",
    "CircularPad3D",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
]

_FORMATS = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


def _padding_list(who, padding, nd):
    if isinstance(padding, _C.Tensor):
        padding = [int(v) for v in padding.numpy().reshape(-1)]
    if isinstance(padding, int) and not isinstance(padding, bool):
        return [padding] * (2 * nd)
    if (
        isinstance(padding, (list, tuple))
        and len(padding) == 2 * nd
        and all(isinstance(v, int) and not isinstance(v, bool) for v in padding)
    ):
        return list(padding)
    raise TypeError(f"{who}: argument 'padding' must be an int or {2 * nd} ints, got {padding!r}")


class _PadNd(Layer):
    _nd = 2
    _mode: str | None = None  # fixed by the subclass, or given (PadND)

    def __init__(self, padding, mode="constant", value=0.0, data_format=None, name=None):
        super().__init__()
        who = type(self).__name__
        self._padding = _padding_list(who, padding, self._nd)
        self._pad_mode = self._mode or mode
        if self._pad_mode not in ("constant", "reflect", "replicate", "circular"):
            raise ValueError(
                f"{who}: argument 'mode' must be 'constant', 'reflect', "
                f"'replicate' or 'circular', got {mode!r}"
            )
        self._value = value
        self._data_format = data_format or _FORMATS[self._nd]
        # repr shows a sequence (or Tensor) padding as given, an int one spelled out
        self._shown_padding = (
            padding if isinstance(padding, (list, tuple, _C.Tensor)) else self._padding
        )
        self._name = name

    def forward(self, x):
        return F.pad(
            x, self._padding, mode=self._pad_mode, value=self._value, data_format=self._data_format
        )

    def extra_repr(self):
        return (
            f"padding={self._shown_padding}, mode={self._pad_mode}, value={self._value}, "
            f"data_format={self._data_format}" + (f", name={self._name}" if self._name else "")
        )


class Pad1D(_PadNd):
    """Pads x [N, C, L] by padding = [left, right] in mode (constant, reflect, replicate, circular)."""

    _nd = 1

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_PadNd):
    """Pads x [N, C, H, W] by padding = [left, right, top, bottom] in mode."""

    _nd = 2

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad3D(_PadNd):
    """Pads x [N, C, D, H, W] by padding = [left, right, top, bottom, front, back] in mode."""

    _nd = 3

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class _FixedPad(_PadNd):
    """A pad layer whose mode is fixed by the class (ZeroPad, ReflectionPad, ...)."""

    def __init__(self, padding, data_format=None, name=None):
        super().__init__(padding, self._mode, 0.0, data_format, name)


class _ConstantPad(_PadNd):
    """A constant pad layer with its fill value."""

    def __init__(self, padding, value, data_format=None, name=None):
        super().__init__(padding, "constant", value, data_format, name)


class ZeroPad1D(_FixedPad):
    """Pads x [N, C, L] by [left, right] with zeros."""

    _nd, _mode = 1, "constant"


class ZeroPad2D(_FixedPad):
    """Pads x [N, C, H, W] by [left, right, top, bottom] with zeros."""

    _nd, _mode = 2, "constant"


class ZeroPad3D(_FixedPad):
    """Pads x [N, C, D, H, W] by [left, right, top, bottom, front, back] with zeros."""

    _nd, _mode = 3, "constant"


class ConstantPad1D(_ConstantPad):
    """Pads x [N, C, L] by [left, right] with value."""

    _nd, _mode = 1, "constant"


class ConstantPad2D(_ConstantPad):
    """Pads x [N, C, H, W] by [left, right, top, bottom] with value."""

    _nd, _mode = 2, "constant"


class ConstantPad3D(_ConstantPad):
    """Pads x [N, C, D, H, W] by [left, right, top, bottom, front, back] with value."""

    _nd, _mode = 3, "constant"


class ReflectionPad1D(_FixedPad):
    """Pads x [N, C, L] by [left, right] with the reflection of x."""

    _nd, _mode = 1, "reflect"


class ReflectionPad2D(_FixedPad):
    """Pads x [N, C, H, W] by [left, right, top, bottom] with the reflection of x."""

    _nd, _mode = 2, "reflect"


class ReflectionPad3D(_FixedPad):
    """Pads x [N, C, D, H, W] by [left, right, top, bottom, front, back] with the reflection of x."""

    _nd, _mode = 3, "reflect"


class ReplicationPad1D(_FixedPad):
    """Pads x [N, C, L] by [left, right] with the edge values of x."""

    _nd, _mode = 1, "replicate"


class ReplicationPad2D(_FixedPad):
    """Pads x [N, C, H, W] by [left, right, top, bottom] with the edge values of x."""

    _nd, _mode = 2, "replicate"


class ReplicationPad3D(_FixedPad):
    """Pads x [N, C, D, H, W] by [left, right, top, bottom, front, back] with the edge values of x."""

    _nd, _mode = 3, "replicate"


class CircularPad1D(_FixedPad):
    """Pads x [N, C, L] by [left, right] wrapping around."""

    _nd, _mode = 1, "circular"


class CircularPad2D(_FixedPad):
    """Pads x [N, C, H, W] by [left, right, top, bottom] wrapping around."""

    _nd, _mode = 2, "circular"


class CircularPad3D(_FixedPad):
    """Pads x [N, C, D, H, W] by [left, right, top, bottom, front, back] wrapping around."""

    _nd, _mode = 3, "circular"


# PyTorch's spellings, as Paddle exports them
ZeroPad1d = ZeroPad1D
ZeroPad2d = ZeroPad2D
ZeroPad3d = ZeroPad3D
ConstantPad1d = ConstantPad1D
ConstantPad2d = ConstantPad2D
ConstantPad3d = ConstantPad3D
ReflectionPad1d = ReflectionPad1D
ReflectionPad2d = ReflectionPad2D
ReflectionPad3d = ReflectionPad3D
ReplicationPad1d = ReplicationPad1D
ReplicationPad2d = ReplicationPad2D
ReplicationPad3d = ReplicationPad3D
CircularPad1d = CircularPad1D
CircularPad2d = CircularPad2D
CircularPad3d = CircularPad3D
