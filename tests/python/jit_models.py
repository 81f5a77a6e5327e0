"""The models the capture, serving and ONNX tests run: the demo's CNN, ResNet-18,
MobileNetV2, an LSTM language model, a Transformer encoder and a small GPT-style
decoder, each with an input spec whose batch dimension is open and a function making
inputs of a given batch size."""

import os
import sys

import numpy as np

import oar
import oar.nn as nn
from oar.static import InputSpec

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
from fashion_mnist_cnn import CNN as DemoCNN  # noqa: E402  the demo's own model


class LSTMLM(nn.Layer):
    def __init__(self, vocab=100, emb=16, hidden=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=2, dropout=0.1)
        self.fc = nn.Linear(hidden, vocab)

    def forward(self, ids):
        h, _ = self.lstm(self.emb(ids))
        return self.fc(h)


class Encoder(nn.Layer):
    def __init__(self, d=32):
        super().__init__()
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 4, 2 * d, dropout=0.1), 2)

    def forward(self, x):
        return self.enc(x)


class GPT(nn.Layer):
    """Token and position embeddings, pre-norm blocks under a causal mask, a head."""

    def __init__(self, vocab=50, d=32, heads=4, layers=2, seq=12):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.blocks = nn.LayerList([
            nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.1, activation="gelu",
                                       normalize_before=True)
            for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        n = ids.shape[1]
        h = self.tok(ids) + self.pos(oar.arange(n).unsqueeze(0))
        mask = oar.triu(oar.full([n, n], float("-inf")), 1)
        for block in self.blocks:
            h = block(h, mask)
        return self.head(self.ln(h))


def _floats(*shape):
    def make(batch, seed=0):
        rng = np.random.default_rng(seed + batch)
        return [oar.to_tensor(rng.standard_normal((batch, *shape)).astype("float32"))]
    return make


def _ids(vocab, seq):
    def make(batch, seed=0):
        rng = np.random.default_rng(seed + batch)
        return [oar.to_tensor(rng.integers(0, vocab, (batch, seq)))]
    return make


# name: (make the layer, input spec, make inputs of a batch size)
MODELS = {
    "demo_cnn": (DemoCNN, [InputSpec([None, 1, 28, 28], name="image")], _floats(1, 28, 28)),
    "resnet18": (lambda: oar.vision.models.resnet18(num_classes=10),
                 [InputSpec([None, 3, 64, 64], name="image")], _floats(3, 64, 64)),
    "mobilenet_v2": (lambda: oar.vision.models.mobilenet_v2(num_classes=10),
                     [InputSpec([None, 3, 64, 64], name="image")], _floats(3, 64, 64)),
    "lstm": (LSTMLM, [InputSpec([None, 7], "int64", name="ids")], _ids(100, 7)),
    "transformer": (Encoder, [InputSpec([None, 10, 32], name="x")], _floats(10, 32)),
    "gpt": (GPT, [InputSpec([None, 12], "int64", name="ids")], _ids(50, 12)),
}


def make_pair(name, seed=0):
    """Two copies of model name with the same weights."""
    make = MODELS[name][0]
    oar.seed(seed)
    a = make()
    b = make()
    b.set_state_dict(a.state_dict())
    return a, b
