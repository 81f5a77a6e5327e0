"""QAT: quantization-aware training."""

from __future__ import annotations

import copy

from .quantize import Quantization


class QAT(Quantization):
    """QAT(config).quantize(model) returns a copy of a training-mode model (or the model,
    inplace=True) whose configured Linear/Conv2D/Stub layers are replaced by quantized
    ones and whose leaf layers with an activation quanter are wrapped in ObserveWrapper.
    Training it learns weights that survive quantization; convert() freezes it."""

    def quantize(self, model, inplace=False):
        self._check_model(model)
        if not model.training:
            raise ValueError(
                "QAT.quantize: the model is in eval mode; quantization-aware "
                "training works on a training model (call model.train())"
            )
        return self._rewrite(model if inplace else copy.deepcopy(model))
