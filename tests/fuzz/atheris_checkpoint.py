#!/usr/bin/env python3
"""An atheris (libFuzzer) target for oar.load's readers: the restricted unpickler of
Paddle's checkpoints (oar/framework/paddle_pickle.py), Paddle's .pdiparams tensor stream
(paddle_params.py) and safetensors (io.py), over bytes and over a stream.

    pip install atheris
    cd /tmp && python3 "$REPO"/tests/fuzz/atheris_checkpoint.py --iterations 20000
    cd /tmp && python3 "$REPO"/tests/fuzz/atheris_checkpoint.py -max_total_time=600 corpus_dir/

The corpus starts from the Paddle-written files of tests/python/fixtures/paddle_checkpoints
and an oar.save file. A result or a CheckpointError is fine; any other exception, a
crash, a hang over 10 s or more than 2 GiB resident is a finding (replay: run this script
with the input file libFuzzer writes).
"""
import glob
import io
import os
import sys
import tempfile

import atheris

with atheris.instrument_imports():
    import oar
    from oar.framework.io import CheckpointError

from fuzz_errors import libfuzzer_argv  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "python", "fixtures", "paddle_checkpoints")
SCRATCH = tempfile.mkdtemp(prefix="oar-fuzz-checkpoint-")


def seeds():
    out = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(FIXTURES, "*.pd*")))]
    buf = io.BytesIO()
    oar.save({"w": oar.ones([2, 2]), "n": [1, "a"]}, buf)
    return out + [buf.getvalue()]


def test_one_input(data):
    # the first byte picks the surface: a stream, or a file named like each format
    how, body = (data[0] % 3, data[1:]) if data else (0, b"")
    try:
        if how == 0:
            oar.load(io.BytesIO(body))
        else:
            path = os.path.join(SCRATCH, "x.pdiparams" if how == 2 else "x.pdparams")
            with open(path, "wb") as f:
                f.write(body)
            oar.load(path)
    except CheckpointError:
        pass


def main():
    corpus = [bytes([how]) + s for s in seeds() for how in range(3)]
    # A few-KB input that makes the readers hold gigabytes is a finding: RSS over 2 GiB
    # stops the run (the address space cap makes a larger request a MemoryError).
    argv = libfuzzer_argv(sys.argv, 2048, os.path.join(SCRATCH, "corpus"), corpus)
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
