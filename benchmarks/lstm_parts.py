"""The LSTM language model of benchmarks/models.py part by part, oar vs PyTorch (not a
test): where its training step spends its time in each framework.

    python3 benchmarks/lstm_parts.py [--rounds 5] [--steps 15] [--out benchmarks/results/<record>.md]

Parts, at the model's shapes (batch 20, seq 35, embedding 256, hidden 512, vocab 10000,
batch-first, float32):
  lstm forward      the 2-layer nn.LSTM on an input that needs a gradient
  lstm backward     its backward from a fixed random output gradient
  head forward      linear [20, 35, 512] x [512, 10000] + bias
  head backward     the two products of its backward (input and weight gradients)
  loss fwd+bwd      cross-entropy of the [700, 10000] logits and its backward
Each framework runs in a process of its own with 2 threads (OMP_NUM_THREADS=2,
torch.set_num_threads(2)), the two in turn in every round; a part's figure is the
median over --steps timed runs after 3 untimed ones, in ms, and the table shows each
framework's median over the rounds, with oar/torch in every round (below 1: oar is
faster). OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for the workers
(benchmarks/_env.py). The output also goes to --out when given.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import _env  # thread counts and OpenBLAS overrides, before the frameworks
import _machine

B, T, E, H, V = 20, 35, 256, 512, 10000
PARTS = ["lstm forward", "lstm backward", "head forward", "head backward", "loss fwd+bwd"]


def _data():
    import numpy as np

    rng = np.random.default_rng(0)
    f = lambda *s: rng.standard_normal(s, dtype=np.float32)  # noqa: E731
    return dict(
        x=f(B, T, E),
        gy=f(B, T, H),
        h=f(B, T, H),
        w=f(V, H) * 0.05,
        b=f(V),
        gl=f(B, T, V),
        logits=f(B * T, V),
        labels=rng.integers(0, V, B * T),
    )


def _table(lstm, x, gy, head, gl, loss):
    """Each part: (the timed call, or the untimed forward, and then the timed backward)."""
    return {
        "lstm forward": (lambda: lstm(x)[0], None),
        "lstm backward": (lambda: lstm(x)[0], lambda y: y.backward(gy)),
        "head forward": (head, None),
        "head backward": (head, lambda y: y.backward(gl)),
        "loss fwd+bwd": (loss, None),
    }


def _oar_parts(d):
    import oar
    import oar.nn.functional as F

    lstm = oar.nn.LSTM(E, H, num_layers=2)
    x = oar.to_tensor(d["x"], stop_gradient=False)
    gy = oar.to_tensor(d["gy"])
    h = oar.to_tensor(d["h"], stop_gradient=False)
    w = oar.to_tensor(d["w"].T.copy(), stop_gradient=False)  # Paddle's [in, out]
    b = oar.to_tensor(d["b"], stop_gradient=False)
    gl = oar.to_tensor(d["gl"])
    logits = oar.to_tensor(d["logits"], stop_gradient=False)
    labels = oar.to_tensor(d["labels"])

    def clear():
        for t in (x, h, w, b, logits, *lstm.parameters()):
            t.clear_grad()

    loss = lambda: F.cross_entropy(logits, labels).backward()  # noqa: E731
    return _table(lstm, x, gy, lambda: F.linear(h, w, b), gl, loss), clear


def _torch_parts(d):
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(2)
    lstm = torch.nn.LSTM(E, H, num_layers=2, batch_first=True)
    t = lambda a, grad=False: torch.from_numpy(a).requires_grad_(grad)  # noqa: E731
    x, gy, h = t(d["x"], True), t(d["gy"]), t(d["h"], True)
    w, b, gl = t(d["w"], True), t(d["b"], True), t(d["gl"])
    logits, labels = t(d["logits"], True), torch.from_numpy(d["labels"])

    def clear():
        for p in (x, h, w, b, logits, *lstm.parameters()):
            p.grad = None

    loss = lambda: F.cross_entropy(logits, labels).backward()  # noqa: E731
    return _table(lstm, x, gy, lambda: F.linear(h, w, b), gl, loss), clear


def worker(fw, steps):
    """One framework's medians, ms, as a JSON line. A backward part times only the
    backward; its forward runs untimed before it."""
    parts, clear = (_oar_parts if fw == "oar" else _torch_parts)(_data())
    out = {}
    for name in PARTS:
        fwd, bwd = parts[name]
        times = []
        for i in range(3 + steps):
            clear()
            if bwd is None:
                t0 = time.perf_counter()
                fwd()
            else:
                y = fwd()
                t0 = time.perf_counter()
                bwd(y)
            if i >= 3:
                times.append(time.perf_counter() - t0)
        out[name] = statistics.median(times) * 1e3
    print(json.dumps(out))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=15)
    p.add_argument(
        "--out", help="also write the output to this file (a record in benchmarks/results/)"
    )
    p.add_argument("--worker", choices=["oar", "torch"], help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.worker, args.steps)
        return
    if args.out:
        _machine.tee(args.out)
        print(f"# {time.strftime('%Y-%m-%d')}: {_machine.command('benchmarks/lstm_parts.py')}")
    print(_machine.describe())
    for note in _env.UNSET_NOTES:
        print(f"# {note}")
    runs = {"oar": [], "torch": []}
    for _ in range(args.rounds):
        for fw in runs:
            cmd = [sys.executable, __file__, "--worker", fw, "--steps", str(args.steps)]
            res = subprocess.run(cmd, capture_output=True, text=True, check=True)
            runs[fw].append(json.loads(res.stdout.strip().splitlines()[-1]))
    print(f"2 threads each; median of {args.steps} runs per round, {args.rounds} rounds; ms\n")
    print("| part | oar ms | torch ms | oar/torch | oar/torch by round |")
    print("| --- | ---: | ---: | ---: | --- |")
    for name in PARTS:
        o = [r[name] for r in runs["oar"]]
        t = [r[name] for r in runs["torch"]]
        by_round = " ".join(f"{a / b:.2f}" for a, b in zip(o, t))
        mo, mt = statistics.median(o), statistics.median(t)
        print(f"| {name} | {mo:.2f} | {mt:.2f} | {mo / mt:.2f} | {by_round} |")


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    main()
