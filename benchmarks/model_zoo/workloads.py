"""The workloads of benchmarks/models.py: which model, training step or inference, the
batch, the optimizer, and the fixed random data (numpy, seed 0), the same for every
framework. Imported by the driver and by each worker process (also Paddle's
interpreter), so it needs nothing but numpy."""

from collections import namedtuple

import numpy as np

Row = namedtuple("Row", "model mode batch opt label")

IMAGE = (3, 224, 224)
GPT = dict(vocab=1000, d_model=256, heads=4, layers=4, seq=128)
LSTM = dict(vocab=10000, emb=256, hidden=512, layers=2, seq=35)

# Training rows first, then inference rows: the order of the tables.
ROWS = {
    "resnet18_train": Row(
        "resnet18", "train", 8, "momentum", "ResNet-18, 224x224, batch 8, momentum SGD"
    ),
    "gpt_train": Row(
        "gpt",
        "train",
        8,
        "adamw",
        "GPT decoder (4 pre-norm blocks, d 256, 4 heads), seq 128, batch 8, AdamW",
    ),
    "lstm_train": Row(
        "lstm",
        "train",
        20,
        "sgd",
        "2-layer LSTM LM (emb 256, hidden 512, vocab 10k), seq 35, batch 20, SGD",
    ),
    "cnn_train": Row("cnn", "train", 64, "adam", "demo CNN, 28x28, batch 64, Adam"),
    "mobilenetv2_train": Row(
        "mobilenetv2", "train", 8, "momentum", "MobileNetV2, 224x224, batch 8, momentum SGD"
    ),
    "resnet18_infer_b1": Row("resnet18", "infer", 1, None, "ResNet-18, 224x224, batch 1"),
    "resnet18_infer_b16": Row("resnet18", "infer", 16, None, "ResNet-18, 224x224, batch 16"),
    "gpt_infer_b1": Row("gpt", "infer", 1, None, "GPT decoder, seq 128, batch 1"),
}


def rows_named(only, error):
    """The rows a comma list of names gives (every row for None or ''), in the tables'
    order; an unknown name is passed to `error` (argparse's parser.error) in a message."""
    if not only:
        return list(ROWS)
    wanted = [r.strip() for r in only.split(",") if r.strip()]
    unknown = [r for r in wanted if r not in ROWS]
    if unknown:
        error(f"unknown rows {unknown}; the rows are {', '.join(ROWS)}")
    return [r for r in ROWS if r in wanted]


# Learning rates and the like: the same in every framework (they do not change the time).
OPT = dict(
    momentum=dict(lr=0.01, momentum=0.9),
    adamw=dict(lr=3e-4, weight_decay=0.01),
    sgd=dict(lr=0.1),
    adam=dict(lr=1e-3),
)


def data(model, batch):
    """(input, target) numpy arrays: images (float32) and class labels, or token ids and
    next-token targets (int64)."""
    rng = np.random.default_rng(0)
    if model in ("resnet18", "mobilenetv2"):
        x = rng.standard_normal((batch, *IMAGE)).astype(np.float32)
        return x, rng.integers(0, 1000, (batch,)).astype(np.int64)
    if model == "cnn":
        x = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)
        return x, rng.integers(0, 10, (batch,)).astype(np.int64)
    cfg = GPT if model == "gpt" else LSTM
    ids = rng.integers(0, cfg["vocab"], (batch, cfg["seq"] + 1)).astype(np.int64)
    return ids[:, :-1].copy(), ids[:, 1:].copy()
