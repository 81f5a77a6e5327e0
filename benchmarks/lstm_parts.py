"""The LSTM language model of benchmarks/models.py part by part, oar vs PyTorch (not a
test): where its training step spends its time in each framework.

    python3 benchmarks/lstm_parts.py [--rounds 5] [--steps 15] [--out benchmarks/results/<record>.md]
    python3 benchmarks/lstm_parts.py --lockstep [--blocks 15] [--timed 3] [--out ...]

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
faster). With --lockstep the two workers are alive at once and take turns instead
(benchmarks/_lockstep.py): a block runs every part once untimed and --timed times timed,
the blocks go oar, PyTorch, PyTorch, oar, ..., and a part's row gives each framework's
median over all its timed runs and the median and quartiles of oar/torch over the
--blocks pairs of adjacent blocks, so a slow phase of a shared machine falls on both.
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for the workers (benchmarks/_env.py).
The output also goes to --out when given.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import _env  # thread counts and OpenBLAS overrides, before the frameworks
import _lockstep
import _machine

# Where the command ran: --out is read from there, though the run moves to this directory.
LAUNCH_DIR = os.getcwd()
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


def _timed(part, clear):
    """One run of a part, in seconds. A backward part times only the backward; its
    forward runs untimed before it."""
    fwd, bwd = part
    clear()
    if bwd is None:
        t0 = time.perf_counter()
        fwd()
    else:
        y = fwd()
        t0 = time.perf_counter()
        bwd(y)
    return time.perf_counter() - t0


def worker(fw, steps):
    """One framework's medians, ms, as a JSON line."""
    parts, clear = (_oar_parts if fw == "oar" else _torch_parts)(_data())
    out = {}
    for name in PARTS:
        times = [_timed(parts[name], clear) for _ in range(3 + steps)][3:]
        out[name] = statistics.median(times) * 1e3
    print(json.dumps(out))


def lockstep_worker(fw):
    """The worker side of _lockstep's protocol: a block runs every part once untimed and
    N times timed, and replies {part: [seconds]}."""
    parts, clear = (_oar_parts if fw == "oar" else _torch_parts)(_data())
    for name in PARTS:
        for _ in range(3):
            _timed(parts[name], clear)
    print(json.dumps({}), flush=True)
    for line in sys.stdin:
        if line.strip() == "end":
            break
        reply = {}
        for name in PARTS:
            _timed(parts[name], clear)
            reply[name] = [_timed(parts[name], clear) for _ in range(int(line))]
        print(json.dumps(reply), flush=True)
    print(json.dumps({}), flush=True)


def lockstep_table(blocks, timed):
    """The parts with oar and PyTorch in lockstep (_lockstep.py): each part's median over
    all timed runs, and the median and quartiles of oar/torch over the pairs of blocks."""
    argvs = {fw: [__file__, "--worker", fw, "--lockstep"] for fw in ("oar", "torch")}
    pairs, _ = _lockstep.run_pairs(argvs, blocks, timed, dict)
    print(
        f"2 threads each; {blocks} pairs of blocks, a block: every part once untimed and "
        f"{timed} times timed; ms\n"
    )
    print("| part | oar ms | torch ms | oar/torch (median of pairs) | quartiles |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in PARTS:
        o = [t for p in pairs for t in p["oar"][name]]
        t = [t for p in pairs for t in p["torch"][name]]
        r = [statistics.median(p["oar"][name]) / statistics.median(p["torch"][name]) for p in pairs]
        q = statistics.quantiles(r, n=4, method="inclusive") if len(r) > 1 else [r[0]] * 3
        print(
            f"| {name} | {statistics.median(o) * 1e3:.2f} | {statistics.median(t) * 1e3:.2f} "
            f"| {statistics.median(r):.2f} | {q[0]:.2f}-{q[2]:.2f} |"
        )


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=15)
    p.add_argument(
        "--out", help="also write the output to this file (a record in benchmarks/results/)"
    )
    p.add_argument(
        "--lockstep",
        action="store_true",
        help="oar and PyTorch in lockstep (_lockstep.py) instead of rounds",
    )
    p.add_argument("--blocks", type=int, default=15, help="--lockstep: pairs of blocks")
    p.add_argument("--timed", type=int, default=3, help="--lockstep: timed runs a block")
    p.add_argument("--worker", choices=["oar", "torch"], help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        if args.lockstep:
            lockstep_worker(args.worker)
        else:
            worker(args.worker, args.steps)
        return
    if args.out:
        _machine.tee(os.path.join(LAUNCH_DIR, args.out))
        print(f"# {time.strftime('%Y-%m-%d')}: {_machine.command('benchmarks/lstm_parts.py')}")
    print(_machine.describe())
    for note in _env.UNSET_NOTES:
        print(f"# {note}")
    if args.lockstep:
        lockstep_table(args.blocks, args.timed)
        return
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
