"""AbsmaxObserver: the running maximum of |x| as the scale."""

from __future__ import annotations

from ... import _C
from ...tensor.creation import zeros_like
from ...framework.grad_mode import no_grad
from ...nn.quant._fake import abs_max, check_bits
from ..base_observer import BaseObserver
from ..factory import ObserverFactory


class AbsmaxObserver(ObserverFactory):
    """Factory of AbsmaxObserverLayer: records the largest |x| seen; scales() is it."""

    def __init__(self, quant_bits=8):
        check_bits("AbsmaxObserver", quant_bits)
        super().__init__(quant_bits=quant_bits)

    def _get_class(self):
        return AbsmaxObserverLayer


class AbsmaxObserverLayer(BaseObserver):
    """Returns its input unchanged and keeps the running max |x| (a 0-d tensor)."""

    INIT_ABS_MAX = 1e-7

    def __init__(self, layer, quant_bits=8):
        super().__init__()
        self._quant_bits = check_bits("AbsmaxObserverLayer", quant_bits)
        self._max = None
        self._scale = None
        self._zero_point = None

    def forward(self, input):
        with no_grad():
            m = abs_max(input).reshape([])
            self._max = m if self._max is None else _C.maximum(m, self._max.astype(m.dtype))
            self._scale = None  # recomputed from the new maximum on demand
        return input

    def cal_thresholds(self):
        if self._scale is None:
            self._scale = self._max
        self._zero_point = None if self._scale is None else zeros_like(self._scale)

    def bit_length(self):
        return self._quant_bits

    def quant_axis(self):
        return -1

    def scales(self):
        if self._scale is None:
            self.cal_thresholds()
        return self._scale

    def zero_points(self):
        if self._zero_point is None:
            self.cal_thresholds()
        return self._zero_point
