"""Loss layers: each wraps the oar.nn.functional loss with its settings."""
from __future__ import annotations

from .layers import Layer

__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "BCELoss",
           "BCEWithLogitsLoss", "KLDivLoss", "MarginRankingLoss", "CosineEmbeddingLoss",
           "HuberLoss"]

_REDUCTIONS = ("mean", "sum", "none")


class _Loss(Layer):
    _fn = ""

    def __init__(self, **settings):
        super().__init__()
        r = settings.get("reduction", "mean")
        if r not in _REDUCTIONS:
            raise ValueError(f"{type(self).__name__}: argument 'reduction' must be one of "
                             f"{_REDUCTIONS}, got {r!r}")
        self._settings = {k: v for k, v in settings.items() if k != "name"}

    def forward(self, input, label):
        from .. import functional as F
        return getattr(F, self._fn)(input, label, **self._settings)

    def extra_repr(self):
        return ", ".join(f"{k}={v}" for k, v in self._settings.items()
                         if not hasattr(v, "shape"))


class CrossEntropyLoss(_Loss):
    """softmax + negative log-likelihood; hard (int64) or soft labels."""
    _fn = "cross_entropy"

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False,
                 axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__(weight=weight, ignore_index=ignore_index, reduction=reduction,
                         soft_label=soft_label, axis=axis, use_softmax=use_softmax,
                         label_smoothing=label_smoothing)


class NLLLoss(_Loss):
    _fn = "nll_loss"

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__(weight=weight, ignore_index=ignore_index, reduction=reduction)


class MSELoss(_Loss):
    _fn = "mse_loss"

    def __init__(self, reduction="mean"):
        super().__init__(reduction=reduction)


class L1Loss(_Loss):
    _fn = "l1_loss"

    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction=reduction)


class SmoothL1Loss(_Loss):
    _fn = "smooth_l1_loss"

    def __init__(self, reduction="mean", delta=1.0, name=None):
        super().__init__(reduction=reduction, delta=delta)


class HuberLoss(_Loss):
    _fn = "huber_loss"

    def __init__(self, reduction="mean", delta=1.0, name=None):
        super().__init__(reduction=reduction, delta=delta)


class BCELoss(_Loss):
    _fn = "binary_cross_entropy"

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(weight=weight, reduction=reduction)


class BCEWithLogitsLoss(_Loss):
    _fn = "binary_cross_entropy_with_logits"

    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__(weight=weight, reduction=reduction, pos_weight=pos_weight)


class KLDivLoss(_Loss):
    _fn = "kl_div"

    def __init__(self, reduction="mean", log_target=False):
        super().__init__(reduction=reduction, log_target=log_target)


class MarginRankingLoss(Layer):
    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__()
        self._margin, self._reduction = margin, reduction

    def forward(self, input, other, label):
        from .. import functional as F
        return F.margin_ranking_loss(input, other, label, margin=self._margin,
                                     reduction=self._reduction)


class CosineEmbeddingLoss(Layer):
    def __init__(self, margin=0, reduction="mean", name=None):
        super().__init__()
        self._margin, self._reduction = margin, reduction

    def forward(self, input1, input2, label):
        from .. import functional as F
        return F.cosine_embedding_loss(input1, input2, label, margin=self._margin,
                                       reduction=self._reduction)
