"""PTQ: post-training quantization (calibration with observers)."""

from __future__ import annotations

import copy

from .quantize import Quantization


class PTQ(Quantization):
    """PTQ(config).quantize(model) returns a copy of an eval-mode model (or the model,
    inplace=True) instrumented with the configured observers (e.g. AbsmaxObserver): run
    calibration batches through it, then convert() uses the observed ranges as scales."""

    def quantize(self, model, inplace=False):
        self._check_model(model)
        if model.training:
            raise ValueError(
                "PTQ.quantize: the model is in training mode; post-training "
                "quantization works on an eval model (call model.eval())"
            )
        return self._rewrite(model if inplace else copy.deepcopy(model))
