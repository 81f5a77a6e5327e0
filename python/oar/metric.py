"""oar.metric: Paddle's Metric interface, Accuracy, Precision, Recall and Auc."""

from __future__ import annotations

import numpy as np

from . import _C
from .framework.out import write_out
from .framework.typing import Tensor

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]


def _np(x):
    """x as a numpy array to read: a Tensor's memory without a copy (np.asarray, which
    gives bfloat16 as float32 values where Tensor.numpy() gives its bits)."""
    return np.asarray(x)


class Metric:
    """reset() / update(...) / accumulate() / name(); compute(pred, label) turns a batch
    into what update() takes (run on the batch's outputs)."""

    def reset(self):
        raise NotImplementedError

    def update(self, *args):
        raise NotImplementedError

    def accumulate(self):
        raise NotImplementedError

    def name(self):
        raise NotImplementedError

    def compute(self, *args):
        return args


class Accuracy(Metric):
    """Top-k accuracy for each k in topk (a label is right when among the k largest
    predictions). Labels are class indices of shape [N] or [N, 1], or one-hot [N, C]."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        self.topk = (topk,) if isinstance(topk, int) else tuple(topk)
        if not self.topk or any(not isinstance(k, int) or k < 1 for k in self.topk):
            raise ValueError(f"Accuracy: argument 'topk' must be positive ints, got {topk!r}")
        self.maxk = max(self.topk)
        self._name = (
            [name]
            if isinstance(name, str)
            else (list(name) if name else ["acc" if k == 1 else f"acc_top{k}" for k in self.topk])
        )
        if len(self.topk) > 1 and not name:
            self._name = [f"acc_top{k}" for k in self.topk]
        self.reset()

    def compute(self, pred, label, *args):
        """[N, maxk] booleans: whether the i-th best prediction of each sample is right."""
        p, y = _np(pred), _np(label)
        if p.ndim < 2:
            raise ValueError(f"Accuracy.compute: 'pred' must be [N, C], got shape {p.shape}")
        if y.ndim == p.ndim and y.shape[-1] == p.shape[-1] and y.shape[-1] != 1:
            y = y.argmax(-1)
        y = y.reshape(-1)
        p = p.reshape(-1, p.shape[-1])
        if len(y) != len(p):
            raise ValueError(f"Accuracy.compute: {len(p)} predictions but {len(y)} labels")
        k = min(self.maxk, p.shape[-1])
        top = np.argsort(-p, axis=-1, kind="stable")[:, :k]
        return (top == y[:, None]).astype(np.float32)

    def update(self, correct, *args):
        """Adds a batch's [..., maxk] correctness to the totals; returns the batch's
        accuracy (numpy float64s, as Paddle: one, or one per k)."""
        c = _np(correct)
        n = np.prod(np.array(c.shape[:-1]))  # every position but the last axis is a sample
        accs = []
        for i, k in enumerate(self.topk):
            right = c[..., :k].sum()
            self.total[i] += right
            self.count[i] += n
            accs.append(np.float64(right) / n if n else np.float64(0.0))
        return accs[0] if len(accs) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [np.float64(t) / c if c else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(res) == 1 else res

    def name(self):
        return self._name


def _binary_inputs(who, preds, labels):
    """preds and labels of one batch of a binary metric as flat numpy arrays."""
    for name, v in (("preds", preds), ("labels", labels)):
        if not isinstance(v, (_C.Tensor, np.ndarray)):
            raise TypeError(
                f"{who}.update: argument '{name}' must be a numpy ndarray or a "
                f"Tensor, got {type(v).__name__}"
            )
    p, y = _np(preds).reshape(-1), _np(labels).reshape(-1)
    if p.shape != y.shape:
        raise ValueError(
            f"{who}.update: 'preds' has {p.size} values but 'labels' {y.size}; "
            f"expected one prediction per label"
        )
    return p, y


class Precision(Metric):
    """Binary precision tp / (tp + fp) over all batches. update(preds, labels) takes
    probabilities of the positive class ([N] or [N, 1], rounded at 0.5, halves up) and
    labels in {0, 1}."""

    def __init__(self, name="precision", *args, **kwargs):
        self._name = name
        self.reset()

    def update(self, preds, labels):
        p, y = _binary_inputs("Precision", preds, labels)
        positive = np.floor(p + 0.5).astype(np.int64) == 1
        self.tp += int(np.count_nonzero(positive & (y == 1)))
        self.fp += int(np.count_nonzero(positive & (y != 1)))

    def reset(self):
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        n = self.tp + self.fp
        return float(self.tp) / n if n else 0.0

    def name(self):
        return self._name


class Recall(Metric):
    """Binary recall tp / (tp + fn) over all batches. update(preds, labels) as Precision,
    except that predictions are rounded half to even (as Paddle's Recall)."""

    def __init__(self, name="recall", *args, **kwargs):
        self._name = name
        self.reset()

    def update(self, preds, labels):
        p, y = _binary_inputs("Recall", preds, labels)
        actual = y == 1
        right = np.rint(p).astype(np.int64) == 1
        self.tp += int(np.count_nonzero(actual & right))
        self.fn += int(np.count_nonzero(actual & ~right))

    def reset(self):
        self.tp = 0
        self.fn = 0

    def accumulate(self):
        n = self.tp + self.fn
        return float(self.tp) / n if n else 0.0

    def name(self):
        return self._name


class Auc(Metric):
    """Area under the ROC curve from histograms of the positive-class probability:
    update(preds [N, 2], labels [N] or [N, 1]) puts preds[:, 1] into num_thresholds + 1
    buckets per label; accumulate() integrates the curve by trapezoids. As in Paddle,
    curve='PR' is accepted and gives the same ROC area."""

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Auc: argument 'curve' must be 'ROC' or 'PR', got {curve!r}")
        if (
            isinstance(num_thresholds, bool)
            or not isinstance(num_thresholds, int)
            or num_thresholds < 1
        ):
            raise ValueError(
                f"Auc: argument 'num_thresholds' must be a positive int, got {num_thresholds!r}"
            )
        self._curve = curve
        self._num_thresholds = num_thresholds
        self._name = name
        self.reset()

    def update(self, preds, labels):
        for n, v in (("preds", preds), ("labels", labels)):
            if not isinstance(v, (_C.Tensor, np.ndarray)):
                raise TypeError(
                    f"Auc.update: argument '{n}' must be a numpy ndarray or a "
                    f"Tensor, got {type(v).__name__}"
                )
        p, y = _np(preds), _np(labels).reshape(-1)
        if p.ndim != 2 or p.shape[1] < 2 or p.shape[0] != y.size:
            raise ValueError(
                f"Auc.update: 'preds' must be [N, 2] (class probabilities) for "
                f"{y.size} labels, got shape {p.shape}"
            )
        score = p[:, 1].astype(np.float64)
        if score.size and not (np.all(score >= 0) and np.all(score <= 1)):
            raise ValueError(
                "Auc.update: the positive-class probabilities preds[:, 1] must lie in [0, 1]"
            )
        bins = (score * self._num_thresholds).astype(np.int64)
        size = self._num_thresholds + 1
        pos = y.astype(bool)
        self._stat_pos += np.bincount(bins[pos], minlength=size)
        self._stat_neg += np.bincount(bins[~pos], minlength=size)

    def reset(self):
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def accumulate(self):
        # from the highest threshold down: the cumulative counts are the curve's points
        pos = np.cumsum(self._stat_pos[::-1])
        neg = np.cumsum(self._stat_neg[::-1])
        tot_pos, tot_neg = pos[-1], neg[-1]
        if tot_pos <= 0 or tot_neg <= 0:
            return 0.0
        prev_pos = np.concatenate(([0.0], pos[:-1]))
        prev_neg = np.concatenate(([0.0], neg[:-1]))
        area = np.sum(np.abs(neg - prev_neg) * (pos + prev_pos) / 2.0)
        return float(area / tot_pos / tot_neg)

    def name(self):
        return self._name


def accuracy(
    input: Tensor,
    label: Tensor,
    k: int = 1,
    correct: Tensor | None = None,
    total: Tensor | None = None,
    name: str | None = None,
) -> Tensor:
    """Top-k accuracy of one batch as a 0-D float32 Tensor. Given tensors `correct` and
    `total` receive the batch's counts (0-D int32 tensors, as Paddle writes them)."""
    m = Accuracy(topk=(k,))
    c = m.compute(input, label)
    acc = m.update(c)
    if correct is not None:
        write_out(correct, _C.full([], int(m.total[0]), "int32"), "accuracy", "correct")
    if total is not None:
        write_out(total, _C.full([], int(m.count[0]), "int32"), "accuracy", "total")
    return _C.full([], float(acc), "float32")
