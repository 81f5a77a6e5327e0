"""Training-step time: oar against PyTorch 2.13 and PaddlePaddle 3.3.1, same model,
same data, 2 threads each, in one run.

    python3 benchmarks/training.py [--steps 60] [--paddle-python $PADDLE_PYTHON]

Models: the MLP 784-512-512-10 (batch 128) and the demo's CNN
(examples/fashion_mnist_cnn.py: conv 1->32, BN, ReLU, pool, conv 32->64, BN,
ReLU, pool, FC 3136->128, FC 128->10; batch 64), both with Adam, on fixed random
batches (no data loading in the timed loop). A step is forward, loss
(cross-entropy), backward, optimizer step and clearing the gradients. Each
framework runs in its own process with OMP_NUM_THREADS=2 (torch also
set_num_threads(2)); the median step time over --steps steps after 10 warm-up
steps is reported, and the ratios oar/torch and oar/paddle. Paddle runs in its
own interpreter (a venv made with --system-site-packages and `pip install
paddlepaddle`); without one its column is skipped. This script unsets
OPENBLAS_CORETYPE for the processes it starts, so every BLAS picks its kernels
for this CPU.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import _machine

WORKER = r'''
import json, statistics, sys, time
import numpy as np
fw, model, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
# f32; O1: bfloat16 auto-cast of forward and loss (torch.autocast on the CPU);
# O2: oar.amp.decorate (bfloat16 weights, float32 master weights) + auto_cast O2.
mode = sys.argv[4] if len(sys.argv) > 4 else "f32"
rng = np.random.default_rng(0)
if model == "mlp":
    B = 128
    xs = rng.standard_normal((B, 784)).astype(np.float32)
else:
    B = 64
    xs = rng.standard_normal((B, 1, 28, 28)).astype(np.float32)
ys = rng.integers(0, 10, (B,)).astype(np.int64)

if fw == "torch":
    import torch
    torch.set_num_threads(2)
    nn = torch.nn
    if model == "mlp":
        net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                            nn.Linear(512, 10))
    else:
        net = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                            nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64),
                            nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(3136, 128),
                            nn.ReLU(), nn.Linear(128, 10))
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    x, y = torch.tensor(xs), torch.tensor(ys)
    loss_fn = nn.CrossEntropyLoss()
    import contextlib
    ctx = ((lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if mode == "O1"
           else contextlib.nullcontext)
    if mode == "O2":
        raise SystemExit("torch has no O2")
    def step():
        with ctx():
            loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
else:
    P = __import__("paddle" if fw == "paddle" else "oar")
    if fw == "paddle":
        P.set_device("cpu")
    nn = P.nn
    if model == "mlp":
        net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                            nn.Linear(512, 10))
    else:
        net = nn.Sequential(nn.Conv2D(1, 32, 3, padding=1), nn.BatchNorm2D(32), nn.ReLU(),
                            nn.MaxPool2D(2), nn.Conv2D(32, 64, 3, padding=1), nn.BatchNorm2D(64),
                            nn.ReLU(), nn.MaxPool2D(2), nn.Flatten(), nn.Linear(3136, 128),
                            nn.ReLU(), nn.Linear(128, 10))
    opt = P.optimizer.Adam(1e-3, parameters=net.parameters())
    x, y = P.to_tensor(xs), P.to_tensor(ys)
    loss_fn = nn.CrossEntropyLoss()
    import contextlib
    ctx = contextlib.nullcontext
    if mode in ("O1", "O2"):
        if mode == "O2":
            net, opt = P.amp.decorate(net, opt, level="O2", dtype="bfloat16")
        ctx = lambda: P.amp.auto_cast(level=mode, dtype="bfloat16")  # noqa: E731
    def step():
        with ctx():
            loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
for _ in range(10):
    step()
times = []
for _ in range(steps):
    t = time.perf_counter()
    loss = step()
    float(loss)  # the step is done when its loss is readable
    times.append(time.perf_counter() - t)
print(json.dumps({"median": statistics.median(times), "loss": float(loss)}))
'''


def run(python, fw, model, steps, mode="f32"):
    env = dict(os.environ, OMP_NUM_THREADS="2")
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    r = subprocess.run([python, "-c", WORKER, fw, model, str(steps), mode], capture_output=True,
                       text=True, env=env, cwd="/tmp")
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr else "failed"
    return json.loads(r.stdout.strip().splitlines()[-1])["median"], None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--paddle-python", default=os.environ.get("PADDLE_PYTHON"),
                   help="interpreter with paddlepaddle installed (default: $PADDLE_PYTHON)")
    args = p.parse_args()
    print(_machine.describe())
    print(f"# {time.strftime('%Y-%m-%d')}, OMP_NUM_THREADS=2, median of {args.steps} steps; "
          f"OPENBLAS_CORETYPE unset for the measured processes")
    paddle_ok = bool(args.paddle_python) and os.path.exists(args.paddle_python)
    print("| model | oar ms | torch ms | paddle ms | oar/torch | oar/paddle |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for model, label in (("mlp", "MLP 784-512-512-10, batch 128, Adam"),
                         ("cnn", "demo CNN, batch 64, Adam")):
        o, oe = run(sys.executable, "oar", model, args.steps)
        t, te = run(sys.executable, "torch", model, args.steps)
        pd, pe = run(args.paddle_python, "paddle", model, args.steps) if paddle_ok else (None, "no paddle")
        fmt = lambda v: f"{v * 1e3:.2f}" if v else "n/a"  # noqa: E731
        ratio = lambda a, b: f"{a / b:.2f}" if a and b else "n/a"  # noqa: E731
        print(f"| {label} | {fmt(o)} | {fmt(t)} | {fmt(pd)} | {ratio(o, t)} | {ratio(o, pd)} |")
        for name, err in (("oar", oe), ("torch", te), ("paddle", pe)):
            if err and err != "no paddle":
                print(f"#   {name} failed on {model}: {err}")


if __name__ == "__main__":
    main()
