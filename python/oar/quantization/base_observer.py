"""BaseObserver: a quanter that only watches values (for PTQ calibration)."""

from __future__ import annotations

import abc

from .base_quanter import BaseQuanter


class BaseObserver(BaseQuanter, metaclass=abc.ABCMeta):
    """An observer returns its input unchanged and collects statistics;
    cal_thresholds() turns them into scales."""

    def __init__(self):
        super().__init__()

    @abc.abstractmethod
    def cal_thresholds(self):
        pass
