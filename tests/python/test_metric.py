"""oar.metric.Precision, Recall and Auc (Paddle's semantics) against hand counts and the
rank (Mann-Whitney) form of the ROC area; and their use in oar.Model.fit."""
import numpy as np
import pytest

import oar

M = oar.metric


def test_precision_and_recall_accumulate_over_batches():
    p, r = M.Precision(), M.Recall()
    preds = [np.array([0.1, 0.5, 0.6, 0.7]), np.array([[0.9], [0.2], [0.51]])]
    labels = [np.array([0, 1, 1, 0]), np.array([[1], [1], [0]])]
    for x, y in zip(preds, labels):
        p.update(x, y)
        r.update(oar.to_tensor(x), oar.to_tensor(y))
    # predicted positive (>= 0.5): 0.5, 0.6, 0.7 | 0.9, 0.51 -> tp 3 (0.5, 0.6, 0.9), fp 2
    assert (p.tp, p.fp) == (3, 2) and p.accumulate() == pytest.approx(3 / 5)
    # Recall rounds half to even (as Paddle): 0.5 -> 0, so of the 4 positives 0.6, 0.9
    # are found
    assert (r.tp, r.fn) == (2, 2) and r.accumulate() == pytest.approx(0.5)
    assert p.name() == "precision" and r.name() == "recall"
    p.reset()
    r.reset()
    assert p.accumulate() == 0.0 and r.accumulate() == 0.0


def test_accuracy_function_is_0d_and_update_returns_numpy():
    pred = oar.to_tensor([[0.2, 0.1, 0.4, 0.1, 0.1], [0.2, 0.3, 0.1, 0.15, 0.25]])
    out = M.accuracy(pred, oar.to_tensor([[2], [0]]), k=1)
    assert out.shape == [] and out.dtype == oar.float32 and out.item() == 0.5
    m = M.Accuracy(topk=(1, 2))
    accs = m.update(m.compute(pred, oar.to_tensor([[2], [4]])))  # 4: second best
    assert accs == [0.5, 1.0] and all(isinstance(a, np.float64) for a in accs)


def _rank_auc(scores, labels):
    pos, neg = scores[labels == 1], scores[labels == 0]
    greater = (pos[:, None] > neg[None, :]).sum()
    ties = (pos[:, None] == neg[None, :]).sum()
    return (greater + 0.5 * ties) / (len(pos) * len(neg))


def test_auc_is_the_roc_area_of_the_bucketed_scores():
    rng = np.random.default_rng(0)
    m = M.Auc(num_thresholds=200)
    all_s, all_y = [], []
    for _ in range(3):
        s = rng.random(50)
        y = (rng.random(50) < s).astype(np.int64)  # informative scores
        m.update(np.stack([1 - s, s], 1), y.reshape(-1, 1))
        all_s.append(s)
        all_y.append(y)
    s, y = np.concatenate(all_s), np.concatenate(all_y)
    buckets = (s * 200).astype(np.int64)  # the metric sees only the bucket
    assert m.accumulate() == pytest.approx(_rank_auc(buckets, y), rel=1e-12)
    assert 0.5 < m.accumulate() < 1.0
    assert m.name() == "auc"
    m.reset()
    assert m.accumulate() == 0.0  # no positives and negatives yet


def test_auc_errors():
    m = M.Auc()
    with pytest.raises(ValueError, match=r"\[N, 2\]"):
        m.update(np.array([0.1, 0.2]), np.array([0, 1]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        m.update(np.array([[0.5, 1.5]]), np.array([1]))
    with pytest.raises(TypeError, match="ndarray or a Tensor"):
        m.update([[0.5, 0.5]], [1])
    with pytest.raises(ValueError, match="curve"):
        M.Auc(curve="DET")
    with pytest.raises(ValueError, match="one prediction per label"):
        M.Precision().update(np.array([0.1, 0.9]), np.array([1]))


def test_metrics_in_model_fit(capsys):
    class Data(oar.io.Dataset):
        def __init__(self):
            rng = np.random.default_rng(1)
            self.x = rng.standard_normal((64, 4)).astype("float32")
            self.y = (self.x[:, :1] > 0).astype("float32")

        def __getitem__(self, i):
            return self.x[i], self.y[i]

        def __len__(self):
            return 64

    oar.seed(0)
    model = oar.Model(oar.nn.Sequential(oar.nn.Linear(4, 1), oar.nn.Sigmoid()))
    model.prepare(oar.optimizer.Adam(0.05, parameters=model.parameters()),
                  loss=oar.nn.BCELoss(), metrics=[M.Precision(), M.Recall()])
    model.fit(Data(), batch_size=16, epochs=3, verbose=1)
    out = capsys.readouterr().out
    assert "precision:" in out and "recall:" in out
    logs = model.evaluate(Data(), batch_size=16, verbose=0)
    assert logs["precision"] > 0.8 and logs["recall"] > 0.8
