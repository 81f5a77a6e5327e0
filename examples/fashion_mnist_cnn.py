"""The README's main job: a small CNN trained on the full Fashion-MNIST with
oar.Model.fit and a progress bar, evaluated each epoch, saved, reloaded and
checked, and its training curve written as a PNG.

    python examples/fashion_mnist_cnn.py [--epochs 4] [--out-dir oar_demo]
                                         [--train-subset N] [--min-accuracy 0.91]

The data comes from Debian's dataset-fashion-mnist package (scripts/setup.sh
installs it); nothing is downloaded. Exits non-zero if the test accuracy is below
--min-accuracy or the reloaded model predicts differently.
"""
import argparse
import os
import sys
import time

import numpy as np

import oar
import oar.nn as nn
from oar.vision import datasets, transforms as T


class CNN(nn.Layer):
    """conv(1->32) - BN - ReLU - pool - conv(32->64) - BN - ReLU - pool - FC(128) - FC(10)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(1, 32, 3, padding=1), nn.BatchNorm2D(32), nn.ReLU(), nn.MaxPool2D(2),
            nn.Conv2D(32, 64, 3, padding=1), nn.BatchNorm2D(64), nn.ReLU(), nn.MaxPool2D(2))
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Dropout(0.25),
            nn.Linear(128, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


class LossCurve(oar.callbacks.Callback):
    """Collects the training loss of every step and the test accuracy of every epoch."""

    def __init__(self):
        super().__init__()
        self.steps, self.losses, self.epoch_acc = [], [], []
        self._step = 0

    def on_train_batch_end(self, step, logs=None):
        self._step += 1
        self.steps.append(self._step)
        self.losses.append(logs["loss"])

    def on_eval_end(self, logs=None):
        if logs and "acc" in logs:
            self.epoch_acc.append((self._step, logs["acc"]))


def plot(curve, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    k = 20  # a running mean over k steps
    smooth = np.convolve(curve.losses, np.ones(k) / k, mode="valid")
    ax.plot(curve.steps, curve.losses, color="0.8", lw=0.6, label="loss per step")
    ax.plot(curve.steps[k - 1:], smooth, color="C0", label=f"loss, mean of {k} steps")
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax2 = ax.twinx()
    if curve.epoch_acc:
        s, a = zip(*curve.epoch_acc)
        ax2.plot(s, a, "o-", color="C3", label="test accuracy")
    ax2.set_ylabel("test accuracy")
    ax.set_title("oar: a small CNN on Fashion-MNIST")
    fig.legend(loc="upper center", bbox_to_anchor=(0.5, 0.82))  # clear of both axes
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--out-dir", default="oar_demo")
    p.add_argument("--train-subset", type=int, default=0, help="train on the first N images")
    p.add_argument("--min-accuracy", type=float, default=0.91)
    p.add_argument("--verbose", type=int, default=1, help="1: progress bar, 2: lines")
    p.add_argument("--amp", choices=["O0", "O1", "O2"], default="O0",
                   help="mixed precision in bfloat16: O1 auto_cast, O2 also a bfloat16 model "
                        "with float32 master weights (docs/amp.md)")
    args = p.parse_args()

    oar.seed(2026)
    tf = T.Compose([T.ToTensor(), T.Normalize([0.2860], [0.3530])])
    train = datasets.FashionMNIST(mode="train", transform=tf)
    test = datasets.FashionMNIST(mode="test", transform=tf)
    if args.train_subset:
        train = oar.io.Subset(train, range(args.train_subset))
    print(f"Fashion-MNIST: {len(train)} training and {len(test)} test images", flush=True)

    net = CNN()
    steps_per_epoch = len(train) // args.batch_size
    sched = oar.optimizer.lr.OneCycleLR(args.lr, total_steps=args.epochs * steps_per_epoch + 1)
    model = oar.Model(net, inputs=[oar.static.InputSpec([None, 1, 28, 28], "float32", "image")],
                      labels=[oar.static.InputSpec([None, 1], "int64", "label")])
    amp = None if args.amp == "O0" else args.amp
    model.prepare(oar.optimizer.AdamW(sched, parameters=net.parameters(), weight_decay=1e-4),
                  nn.CrossEntropyLoss(), oar.metric.Accuracy(), amp_configs=amp)
    oar.summary(net, (1, 1, 28, 28))
    curve = LossCurve()
    t0 = time.perf_counter()
    model.fit(train, test, batch_size=args.batch_size, epochs=args.epochs, drop_last=True,
              verbose=args.verbose, log_freq=50,
              callbacks=[curve, oar.callbacks.LRScheduler(by_step=True)])
    train_time = time.perf_counter() - t0
    result = model.evaluate(test, batch_size=256, verbose=0)
    acc = result["acc"]
    print(f"trained {args.epochs} epochs in {train_time:.0f} s; test loss "
          f"{result['loss'][0]:.4f}, test accuracy {acc:.4f}", flush=True)

    os.makedirs(args.out_dir, exist_ok=True)
    ckpt = os.path.join(args.out_dir, "cnn")
    model.save(ckpt)
    again = oar.Model(CNN())
    again.prepare(loss=nn.CrossEntropyLoss(), metrics=oar.metric.Accuracy(), amp_configs=amp)
    again.load(ckpt)
    acc2 = again.evaluate(test, batch_size=256, verbose=0)["acc"]
    print(f"reloaded {ckpt}.pdparams: test accuracy {acc2:.4f}", flush=True)
    png = os.path.join(args.out_dir, "training_curve.png")
    plot(curve, png)
    print(f"training curve: {png}", flush=True)
    if acc2 != acc:
        print("FAIL: the reloaded model's accuracy differs", file=sys.stderr)
        return 1
    if acc < args.min_accuracy:
        print(f"FAIL: test accuracy {acc:.4f} is below {args.min_accuracy}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
