"""oar.metric: Paddle's Metric interface and Accuracy."""
from __future__ import annotations

import numpy as np

from . import _C

__all__ = ["Metric", "Accuracy", "accuracy"]


def _np(x):
    if isinstance(x, _C.Tensor):
        # numpy has no bfloat16: Tensor.numpy() gives its bits as uint16 (as Paddle's).
        return (x.astype("float32") if x.dtype.name == "bfloat16" else x).numpy()
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
        self._name = [name] if isinstance(name, str) else (
            list(name) if name else ["acc" if k == 1 else f"acc_top{k}" for k in self.topk])
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


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Top-k accuracy of one batch as a 0-D float32 Tensor. Given tensors `correct` and
    `total` receive the batch's counts (0-D int32 tensors, as Paddle writes them)."""
    from ._out import write_out
    m = Accuracy(topk=(k,))
    c = m.compute(input, label)
    acc = m.update(c)
    if correct is not None:
        write_out(correct, _C.full([], int(m.total[0]), "int32"), "accuracy", "correct")
    if total is not None:
        write_out(total, _C.full([], int(m.count[0]), "int32"), "accuracy", "total")
    return _C.full([], float(acc), "float32")
