"""BaseQuanter: the interface of a quanter layer (Paddle's)."""

from __future__ import annotations

import abc

from ..nn import Layer


class BaseQuanter(Layer, metaclass=abc.ABCMeta):
    """A layer that simulates quantization of its input: forward(input), and the
    quantization parameters scales(), zero_points(), quant_axis(), bit_length()."""

    def __init__(self):
        super().__init__()

    @abc.abstractmethod
    def forward(self, input):
        pass

    @abc.abstractmethod
    def scales(self):
        pass

    @abc.abstractmethod
    def zero_points(self):
        pass

    @abc.abstractmethod
    def quant_axis(self):
        pass

    @abc.abstractmethod
    def bit_length(self):
        pass
