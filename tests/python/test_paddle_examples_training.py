"""Paddle's own documented examples of the high-level API, run with
`import oar as paddle`: the paddle.Model example that trains LeNet with InputSpec,
Adam, CrossEntropyLoss and Accuracy(topk=(1, 2)), and the ProgBarLogger example.
The only change: the dataset is Fashion-MNIST (a 640-image subset, to keep the
suite fast), since MNIST reads IDX files from paths the user gives and nothing is
downloaded."""
import os

import pytest

import oar as paddle

pytestmark = pytest.mark.skipif(not os.path.isdir("/usr/share/datasets/fashion-mnist"),
                                reason="dataset-fashion-mnist")


def _dataset(transform):
    full = paddle.vision.datasets.FashionMNIST(mode="train", transform=transform)
    return paddle.io.Subset(full, range(640))


def test_model_fit_example(tmp_path, capsys):
    # from the paddle.Model / Model.fit documentation
    from oar.static import InputSpec
    from oar.vision.models import LeNet
    from oar.vision.transforms import ToTensor

    train_dataset = _dataset(ToTensor())
    input = InputSpec([None, 1, 28, 28], 'float32', 'image')
    label = InputSpec([None, 1], 'int64', 'label')
    model = paddle.Model(LeNet(), input, label)
    optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    model.prepare(optim, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy(topk=(1, 2)))
    model.fit(train_dataset, epochs=2, batch_size=64,
              save_dir=str(tmp_path / 'mnist_checkpoint'))
    out = capsys.readouterr().out
    assert "Epoch 2/2" in out and "acc_top2" in out
    assert os.path.exists(tmp_path / "mnist_checkpoint" / "final.pdparams")


def test_progbar_logger_example(capsys):
    # from the paddle.callbacks.ProgBarLogger documentation
    import oar.vision.transforms as T
    from oar.static import InputSpec

    inputs = [InputSpec([-1, 1, 28, 28], 'float32', 'image')]
    labels = [InputSpec([None, 1], 'int64', 'label')]
    transform = T.Compose([
        T.Transpose(),
        T.Normalize([127.5], [127.5])
    ])
    train_dataset = _dataset(transform)
    lenet = paddle.vision.models.LeNet()
    model = paddle.Model(lenet, inputs, labels)
    optim = paddle.optimizer.Adam(0.001, parameters=lenet.parameters())
    model.prepare(optimizer=optim,
                  loss=paddle.nn.CrossEntropyLoss(),
                  metrics=paddle.metric.Accuracy())
    callback = paddle.callbacks.ProgBarLogger(log_freq=10)
    model.fit(train_dataset, batch_size=64, callbacks=callback)
    out = capsys.readouterr().out
    assert "step 10/10" in out and "loss" in out and "acc" in out
