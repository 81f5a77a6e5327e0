"""Training under mixed precision reaches float32's accuracy: a small MLP on a
Fashion-MNIST subset through oar.Model with amp_configs "O1" (auto_cast) and
"O2" (decorate: bfloat16 weights, float32 master weights), against the same run
in float32. The bound (2 points here, on 2,000 test images after a short run)
is the short form of the demo's (docs/amp.md: within 1 point after 4 epochs)."""
import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.vision.transforms as T
from oar.vision import datasets


def _data():
    tf = T.Compose([T.ToTensor(), T.Normalize([0.2860], [0.3530])])
    train = oar.io.Subset(datasets.FashionMNIST(mode="train", transform=tf), range(6000))
    test = oar.io.Subset(datasets.FashionMNIST(mode="test", transform=tf), range(2000))
    return train, test


def _run(amp_configs):
    oar.seed(7)
    net = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    model = oar.Model(net)
    model.prepare(oar.optimizer.Adam(1e-3, parameters=net.parameters()),
                  nn.CrossEntropyLoss(), oar.metric.Accuracy(), amp_configs=amp_configs)
    train, test = _data()
    model.fit(train, batch_size=64, epochs=2, verbose=0, shuffle=False)
    return model, model.evaluate(test, batch_size=500, verbose=0)["acc"]


@pytest.fixture(scope="module")
def float32_accuracy():
    return _run(None)[1]


@pytest.mark.parametrize("level", ["O1", "O2"])
def test_accuracy_within_two_points_of_float32(level, float32_accuracy):
    model, acc = _run(level)
    assert float32_accuracy > 0.75  # the run learned something
    assert abs(acc - float32_accuracy) <= 0.02, (level, acc, float32_accuracy)
    w = model.network[1].weight
    assert w.dtype == (oar.bfloat16 if level == "O2" else oar.float32)


def test_o2_keeps_float32_master_weights():
    model, _ = _run({"level": "O2", "dtype": "bfloat16"})
    masters = model._optimizer.state_dict()["master_weights"]
    assert masters and all(v.dtype == oar.float32 for v in masters.values())
    w = model.network[1].weight
    m = masters[w.name]
    np.testing.assert_array_equal(m.astype("bfloat16").numpy().astype(np.float32),
                                  w.numpy().astype(np.float32))


def test_float16_uses_a_grad_scaler():
    oar.seed(7)
    net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
    model = oar.Model(net)
    model.prepare(oar.optimizer.SGD(0.1, parameters=net.parameters()), nn.CrossEntropyLoss(),
                  amp_configs={"level": "O1", "dtype": "float16", "init_loss_scaling": 1024.0})
    assert model._amp.scaler is not None and model._amp.scaler.get_loss_scaling().item() == 1024
    x = oar.randn([8, 1, 28, 28])
    y = oar.to_tensor(np.arange(8, dtype=np.int64).reshape(8, 1) % 10)
    before = net[1].weight.numpy().copy()
    model.train_batch([x], [y])
    assert not np.array_equal(before, net[1].weight.numpy())


def test_bad_amp_configs():
    model = oar.Model(nn.Linear(2, 2))
    with pytest.raises(ValueError, match="amp_configs\\['level'\\]"):
        model.prepare(amp_configs="O3")
    with pytest.raises(ValueError, match="unknown keys"):
        model.prepare(amp_configs={"level": "O1", "lvl": 2})
    with pytest.raises(TypeError, match="amp_configs"):
        model.prepare(amp_configs=3)
