"""Loss layers: each wraps the oar.nn.functional loss with its settings."""

from __future__ import annotations

from .layers import Layer
from .. import functional as F
from ..functional._adaptive_softmax import _full_log_prob
from ..functional._adaptive_softmax import _predict

__all__ = [
    "CrossEntropyLoss",
    "NLLLoss",
    "MSELoss",
    "L1Loss",
    "SmoothL1Loss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "KLDivLoss",
    "MarginRankingLoss",
    "CosineEmbeddingLoss",
    "HuberLoss",
    "HingeEmbeddingLoss",
    "SoftMarginLoss",
    "MultiMarginLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "GaussianNLLLoss",
    "PoissonNLLLoss",
    "CTCLoss",
    "RNNTLoss",
    "HSigmoidLoss",
    "AdaptiveLogSoftmaxWithLoss",
]

_REDUCTIONS = ("mean", "sum", "none")


class _Loss(Layer):
    _fn = ""
    _reductions: tuple[str, ...] = _REDUCTIONS

    def __init__(self, **settings):
        super().__init__()
        r = settings.get("reduction", "mean")
        if r not in self._reductions:
            raise ValueError(
                f"{type(self).__name__}: argument 'reduction' must be one of "
                f"{self._reductions}, got {r!r}"
            )
        self._settings = {k: v for k, v in settings.items() if k != "name"}

    def forward(self, input, label):
        return getattr(F, self._fn)(input, label, **self._settings)


class CrossEntropyLoss(_Loss):
    """softmax + negative log-likelihood; hard (int64) or soft labels."""

    _fn = "cross_entropy"

    def __init__(
        self,
        weight=None,
        ignore_index=-100,
        reduction="mean",
        soft_label=False,
        axis=-1,
        use_softmax=True,
        label_smoothing=0.0,
        name=None,
    ):
        super().__init__(
            weight=weight,
            ignore_index=ignore_index,
            reduction=reduction,
            soft_label=soft_label,
            axis=axis,
            use_softmax=use_softmax,
            label_smoothing=label_smoothing,
        )


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

    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None):
        super().__init__(reduction=reduction, delta=delta, is_huber=is_huber)


class BCELoss(_Loss):
    _fn = "binary_cross_entropy"

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(weight=weight, reduction=reduction)


class BCEWithLogitsLoss(_Loss):
    _fn = "binary_cross_entropy_with_logits"

    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__(weight=weight, reduction=reduction, pos_weight=pos_weight)

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, **self._settings)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence; reduction 'batchmean' divides the sum by the batch size."""

    _fn = "kl_div"
    _reductions = _REDUCTIONS + ("batchmean",)

    def __init__(self, reduction="mean", log_target=False):
        super().__init__(reduction=reduction, log_target=log_target)


class MarginRankingLoss(Layer):
    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__()
        self._margin, self._reduction = margin, reduction

    def forward(self, input, other, label):
        return F.margin_ranking_loss(
            input, other, label, margin=self._margin, reduction=self._reduction
        )


class CosineEmbeddingLoss(Layer):
    def __init__(self, margin=0, reduction="mean", name=None):
        super().__init__()
        self._margin, self._reduction = margin, reduction

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(
            input1, input2, label, margin=self._margin, reduction=self._reduction
        )


# Paddle names SmoothL1Loss (a Huber loss with threshold delta) HuberLoss too
HuberLoss = SmoothL1Loss


class HingeEmbeddingLoss(_Loss):
    """input where label is 1, max(0, margin - input) where it is -1."""

    _fn = "hinge_embedding_loss"

    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__(margin=margin, reduction=reduction)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-label * input)), label in {-1, 1}."""

    _fn = "soft_margin_loss"

    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction=reduction)


class MultiMarginLoss(_Loss):
    """The multi-class hinge loss of input [N, C] against class ids label [N]."""

    _fn = "multi_margin_loss"

    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__(p=p, margin=margin, weight=weight, reduction=reduction)


class MultiLabelMarginLoss(_Loss):
    """The multi-label hinge loss; label [N, C] lists each sample's classes, ended by -1."""

    _fn = "multi_label_margin_loss"

    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction=reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """The per-class logistic loss averaged over the classes."""

    _fn = "multi_label_soft_margin_loss"

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(weight=weight, reduction=reduction)


class _TripletLoss(_Loss):
    def forward(self, input, positive, negative):
        return getattr(F, self._fn)(input, positive, negative, **self._settings)


class TripletMarginLoss(_TripletLoss):
    """max(0, d(input, positive) - d(input, negative) + margin), d the p-norm distance."""

    _fn = "triplet_margin_loss"

    def __init__(self, margin=1.0, p=2.0, epsilon=1e-06, swap=False, reduction="mean", name=None):
        super().__init__(margin=margin, p=p, epsilon=epsilon, swap=swap, reduction=reduction)


class TripletMarginWithDistanceLoss(_TripletLoss):
    """The triplet loss with a distance function of your choice (default pairwise_distance)."""

    _fn = "triplet_margin_with_distance_loss"

    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction="mean", name=None):
        super().__init__(
            distance_function=distance_function, margin=margin, swap=swap, reduction=reduction
        )


class GaussianNLLLoss(_Loss):
    """The Gaussian negative log-likelihood; forward(input, label, variance)."""

    _fn = "gaussian_nll_loss"

    def __init__(self, full=False, epsilon=1e-6, reduction="mean", name=None):
        super().__init__(full=full, epsilon=epsilon, reduction=reduction)

    def forward(self, input, label, variance):
        return F.gaussian_nll_loss(input, label, variance, **self._settings)


class PoissonNLLLoss(_Loss):
    """The Poisson negative log-likelihood of input (a log rate with log_input) given label."""

    _fn = "poisson_nll_loss"

    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
        super().__init__(log_input=log_input, full=full, epsilon=epsilon, reduction=reduction)


class CTCLoss(_Loss):
    """The CTC loss; forward(log_probs, labels, input_lengths, label_lengths,
    norm_by_times=False)."""

    _fn = "ctc_loss"

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(blank=blank, reduction=reduction, zero_infinity=zero_infinity)

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(
            log_probs,
            labels,
            input_lengths,
            label_lengths,
            norm_by_times=norm_by_times,
            **self._settings,
        )


class RNNTLoss(_Loss):
    """The RNN-T loss; forward(input, label, input_lengths, label_lengths)."""

    _fn = "rnnt_loss"

    def __init__(self, blank=0, fastemit_lambda=0.001, reduction="mean", name=None):
        super().__init__(blank=blank, fastemit_lambda=fastemit_lambda, reduction=reduction)

    def forward(self, input, label, input_lengths, label_lengths):
        return F.rnnt_loss(input, label, input_lengths, label_lengths, **self._settings)


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid over num_classes: weight [num_classes - 1, feature_size]
    (num_classes rows with is_custom), bias [rows, 1]; forward(input, label,
    path_table=None, path_code=None) -> [N, 1]. is_sparse is accepted; the gradient of
    weight is dense."""

    def __init__(
        self,
        feature_size,
        num_classes,
        weight_attr=None,
        bias_attr=None,
        is_custom=False,
        is_sparse=False,
        name=None,
    ):
        super().__init__()
        if (
            not isinstance(num_classes, int)
            or isinstance(num_classes, bool)
            or num_classes < (1 if is_custom else 2)
        ):
            raise ValueError(
                f"HSigmoidLoss: argument 'num_classes' must be an int >= "
                f"{1 if is_custom else 2}, got {num_classes!r}"
            )
        if not isinstance(feature_size, int) or isinstance(feature_size, bool) or feature_size < 1:
            raise ValueError(
                f"HSigmoidLoss: argument 'feature_size' must be a positive int, "
                f"got {feature_size!r}"
            )
        self._num_classes, self._is_custom = num_classes, is_custom
        rows = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([rows, feature_size], attr=weight_attr)
        self.bias = self.create_parameter([rows, 1], attr=bias_attr, is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        if self._is_custom and (path_table is None or path_code is None):
            raise ValueError(
                "HSigmoidLoss: a custom tree (is_custom=True) needs path_table and path_code"
            )
        return F.hsigmoid_loss(
            input, label, self._num_classes, self.weight, self.bias, path_table, path_code
        )


class AdaptiveLogSoftmaxWithLoss(Layer):
    """The adaptive softmax of Grave et al.: a head over the shortlist (classes below
    cutoffs[0]) and the clusters, and per cluster a projection to in_features /
    div_value ** (i + 1) then to the cluster's classes. forward(input, label) returns
    (log-probability of each label, mean loss); log_prob(input) all log-probabilities;
    predict(input) the most likely class (float32, as Paddle)."""

    def __init__(
        self,
        in_features,
        n_classes,
        cutoffs,
        weight_attr=None,
        bias_attr=None,
        div_value=4.0,
        head_bias=False,
        name=None,
    ):
        super().__init__()
        cutoffs = list(cutoffs)
        if (
            not cutoffs
            or cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "AdaptiveLogSoftmaxWithLoss: argument 'cutoffs' must be unique "
                "positive ints in increasing order, each between 1 and "
                f"n_classes - 1 ({n_classes - 1}), got {cutoffs}"
            )
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = [int(c) for c in cutoffs] + [n_classes]
        self.div_value = div_value
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head_weight = self.create_parameter([in_features, self.head_size], attr=weight_attr)
        self.head_bias = (
            self.create_parameter([self.head_size], attr=bias_attr, is_bias=True)
            if head_bias
            else None
        )
        self.tail_weights = []
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            proj = self.create_parameter([in_features, hsz], attr=weight_attr)
            out = self.create_parameter([hsz, osz], attr=weight_attr)
            self.add_parameter(f"tail_{i}_proj", proj)
            self.add_parameter(f"tail_{i}_out", out)
            self.tail_weights.append([proj, out])

    def forward(self, input, label):
        return F.adaptive_log_softmax_with_loss(
            input, label, self.head_weight, self.tail_weights, self.cutoffs, self.head_bias
        )

    def log_prob(self, input):
        return _full_log_prob(
            input, self.head_weight, self.head_bias, self.tail_weights, self.cutoffs
        )

    def predict(self, input):
        return _predict(self.log_prob(input))
