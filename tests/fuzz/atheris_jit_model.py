#!/usr/bin/env python3
"""An atheris (libFuzzer) target for saved models: oar.jit.load's reading of
path.oarmodel and path.safetensors (src/oar/jit/module.cc, program.cc), and running
what loads (the replay of a program: src/oar/jit/replay.cc) on an input of the first
input's spec.

    pip install atheris
    cd /tmp && python3 "$REPO"/tests/fuzz/atheris_jit_model.py --iterations 20000
    cd /tmp && python3 "$REPO"/tests/fuzz/atheris_jit_model.py -max_total_time=600 corpus_dir/

The corpus starts from models jit.save wrote (a CNN with batch norm and dropout, an
LSTM). A result or a clean typed error (fuzz_errors.unclear) is fine; any other
exception, a crash, a hang over 10 s or more than 2 GiB resident is a finding (replay:
run this script with the input file libFuzzer writes).
"""
import json
import os
import sys
import tempfile

import atheris

with atheris.instrument_imports():
    import numpy as np

    import oar
    import oar.nn as nn
    from oar.static import InputSpec

from fuzz_errors import libfuzzer_argv, unclear  # noqa: E402

SCRATCH = tempfile.mkdtemp(prefix="oar-fuzz-jit-")
MODEL = os.path.join(SCRATCH, "m")


def seeds():
    class CNN(nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2D(1, 2, 3)
            self.bn = nn.BatchNorm2D(2)
            self.fc = nn.Linear(2 * 4 * 4, 3)
            self.drop = nn.Dropout(0.5)

        def forward(self, x):
            h = self.bn(self.conv(x)).relu()
            return self.fc(self.drop(h.reshape([x.shape[0], -1])))

    class LM(nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 4)
            self.lstm = nn.LSTM(4, 4)

        def forward(self, ids):
            return self.lstm(self.emb(ids))[0]

    out = []
    for layer, spec in ((CNN(), InputSpec([None, 1, 6, 6])), (LM(), InputSpec([None, 3], "int64"))):
        oar.jit.save(layer, MODEL, input_spec=[spec])
        model = open(MODEL + ".oarmodel", "rb").read()
        weights = open(MODEL + ".safetensors", "rb").read()
        out.append((model, weights))
    return out


def _input(spec):
    shape = [2 if d < 0 else min(d, 64) for d in spec["shape"]]
    return oar.to_tensor(np.zeros(shape, dtype="float32")).astype(spec["dtype"])


def test_one_input(data):
    # the first byte splits the input into the model file and the weights file
    cut = int.from_bytes(data[:2], "little") if len(data) >= 2 else 0
    body = data[2:]
    cut = min(cut, len(body))
    with open(MODEL + ".oarmodel", "wb") as f:
        f.write(body[:cut])
    with open(MODEL + ".safetensors", "wb") as f:
        f.write(body[cut:])
    try:
        layer = oar.jit.load(MODEL)
        spec = json.loads(body[:cut])["programs"]["eval"]["inputs"]
        layer.eval()
        with oar.no_grad():
            layer(*[_input(s) for s in spec])
    except Exception as e:  # noqa: BLE001 — sorted into clean and not by unclear()
        why = unclear(e)
        if why is not None and not isinstance(e, (FileNotFoundError, json.JSONDecodeError, KeyError)):
            raise


def main():
    corpus = [len(model).to_bytes(2, "little") + model + weights for model, weights in seeds()]
    argv = libfuzzer_argv(sys.argv, 2048, os.path.join(SCRATCH, "corpus"), corpus)
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
