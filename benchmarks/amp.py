"""Mixed-precision kernels: bfloat16 against float32, oar vs PyTorch, 2 threads each.

    python benchmarks/amp.py [--repeats N] [--stat median|min] [--threads 2] [--only ROW ...]

Rows (docs/amp_kernels.md holds a run with its numbers):
  gemm N        square N x N matmul, GFLOP/s (higher is better), N = 512, 1024, 2048;
  conv ...      conv2d forward + gradients of input and weight (grad with an
                all-ones output gradient), batch 64, 3x3, pad 1, at the shapes of
                the small Fashion-MNIST CNN (1->32 channels 28x28, 32->64 14x14), ms;
  <op> 1000^2   elementwise ops on a 1000 x 1000 tensor (exp, add, relu,
                softmax on the last axis, sum), ms.
Each is timed in float32 and bfloat16; the table prints bf16/f32 per framework
and oar/torch per dtype.

A second table (skip it with --no-training) times a training step of the MLP
784-512-512-10 (batch 128) and of the demo CNN (batch 64), both with Adam, as
benchmarks/training.py does (median of --steps steps, each framework in its own
process, OMP_NUM_THREADS=2; --rounds runs of each configuration, interleaved): oar in float32, under auto_cast O1 and under O2
(decorate: bfloat16 weights, float32 master weights), PyTorch in float32 and
under its CPU autocast (bfloat16).

As benchmarks/kernels.py: each framework runs in its own subprocess (two OpenMP
runtimes in one process steal the cores from each other), with the same thread
count (OMP_NUM_THREADS, MKL_NUM_THREADS, OPENBLAS_NUM_THREADS and
torch.set_num_threads). A row is the median over --repeats samples of ~20 ms
each, or with --stat min the fastest single call (robust on a loaded machine).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


from _env import THREADS  # noqa: E402  (before the frameworks)
import _machine  # noqa: E402

GEMM_SIZES = (512, 1024, 2048)
CONVS = {"conv 1->32 28x28": (64, 1, 32, 28), "conv 32->64 14x14": (64, 32, 64, 14)}
ELEMENTWISE = ("exp", "add", "relu", "softmax", "sum")
DTYPES = ("float32", "bfloat16")


def rows():
    """(name, kind, make) where make(fw, dtype) returns a no-argument callable."""
    out = []
    for n in GEMM_SIZES:
        out.append((f"gemm {n}", "gflops", lambda fw, dt, n=n: fw.gemm(n, dt)))
    for name, shape in CONVS.items():
        out.append((name, "ms", lambda fw, dt, s=shape: fw.conv(*s, dt)))
    for op in ELEMENTWISE:
        out.append((f"{op} 1000^2", "ms", lambda fw, dt, op=op: fw.elementwise(op, dt)))
    return out


def flops(name):
    n = int(name.split()[1])
    return 2.0 * n * n * n


class Oar:
    def __init__(self):
        import numpy as np
        import oar

        self.m, self.np = oar, np
        self.rng = np.random.default_rng(0)

    def rand(self, shape, dtype, grad=False):
        t = self.m.to_tensor(self.rng.standard_normal(shape).astype("float32")).astype(dtype)
        t.stop_gradient = not grad
        return t

    def gemm(self, n, dtype):
        a, b = self.rand((n, n), dtype), self.rand((n, n), dtype)
        return lambda: self.m.matmul(a, b)

    def conv(self, batch, cin, cout, hw, dtype):
        x = self.rand((batch, cin, hw, hw), dtype, grad=True)
        w = self.rand((cout, cin, 3, 3), dtype, grad=True)
        F = self.m.nn.functional

        def run():
            y = F.conv2d(x, w, padding=1)
            return self.m.grad([y], [x, w], [self.m.ones_like(y)])

        return run

    def elementwise(self, op, dtype):
        x, y = self.rand((1000, 1000), dtype), self.rand((1000, 1000), dtype)
        F = self.m.nn.functional
        return {
            "exp": lambda: self.m.exp(x),
            "add": lambda: self.m.add(x, y),
            "relu": lambda: F.relu(x),
            "softmax": lambda: F.softmax(x, axis=-1),
            "sum": lambda: self.m.sum(x),
        }[op]


class Torch:
    def __init__(self):
        import torch

        torch.set_num_threads(THREADS)
        self.t = torch
        self.g = torch.Generator().manual_seed(0)

    def rand(self, shape, dtype, grad=False):
        x = self.t.randn(shape, generator=self.g).to(getattr(self.t, dtype))
        return x.requires_grad_(grad)

    def gemm(self, n, dtype):
        a, b = self.rand((n, n), dtype), self.rand((n, n), dtype)
        return lambda: self.t.matmul(a, b)

    def conv(self, batch, cin, cout, hw, dtype):
        x = self.rand((batch, cin, hw, hw), dtype, grad=True)
        w = self.rand((cout, cin, 3, 3), dtype, grad=True)
        F = self.t.nn.functional

        def run():
            y = F.conv2d(x, w, padding=1)
            return self.t.autograd.grad([y], [x, w], [self.t.ones_like(y)])

        return run

    def elementwise(self, op, dtype):
        x, y = self.rand((1000, 1000), dtype), self.rand((1000, 1000), dtype)
        return {
            "exp": lambda: self.t.exp(x),
            "add": lambda: self.t.add(x, y),
            "relu": lambda: self.t.relu(x),
            "softmax": lambda: self.t.softmax(x, -1),
            "sum": lambda: self.t.sum(x),
        }[op]


def time_call(f, repeats, stat):
    f()  # warm-up: first-call allocations, oneDNN primitive creation
    t0 = time.perf_counter()
    f()
    one = max(time.perf_counter() - t0, 1e-6)
    inner = max(1, int(0.02 / one))
    if stat == "min":
        samples = []
        for _ in range(repeats * max(inner, 5)):
            t0 = time.perf_counter()
            f()
            samples.append(time.perf_counter() - t0)
        return min(samples)
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            f()
        samples.append((time.perf_counter() - t0) / inner)
    samples.sort()
    return samples[len(samples) // 2]


def measure(fw, repeats, only, stat):
    out = {}
    for name, _, make in rows():
        if only and not any(o in name for o in only):
            continue
        for dt in DTYPES:
            try:
                out[f"{name}|{dt}"] = time_call(make(fw, dt), repeats, stat)
            except (AttributeError, TypeError, NotImplementedError, RuntimeError, ValueError) as e:
                out[f"{name}|{dt}"] = None
                print(f"{name} {dt}: {e}", file=sys.stderr)
    return out


def fmt(v, kind):
    if v is None:
        return "n/a"
    return f"{v:.1f}" if kind == "gflops" else f"{v * 1e3:.3f}"


def ratio(a, b):
    return "n/a" if a is None or b is None else f"{a / b:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=11)
    ap.add_argument("--threads", type=int, default=2, help="threads per framework (default 2)")
    ap.add_argument("--stat", choices=["median", "min"], default="median")
    ap.add_argument("--only", nargs="*", help="rows whose name contains one of these")
    ap.add_argument("--framework", choices=["oar", "torch"], help=argparse.SUPPRESS)
    ap.add_argument("--no-training", action="store_true", help="skip the training-step table")
    ap.add_argument("--steps", type=int, default=40, help="training steps timed per run")
    ap.add_argument("--rounds", type=int, default=3,
                    help="training runs per configuration, interleaved (default 3)")
    args = ap.parse_args()

    if args.framework:  # a subprocess: print the version and JSON times, nothing else
        fw = Oar() if args.framework == "oar" else Torch()
        ver = getattr(fw.m if args.framework == "oar" else fw.t, "__version__", "?")
        print(json.dumps({"version": ver, "times": measure(fw, args.repeats, args.only, args.stat)}))
        return

    print(_machine.describe())

    def run(framework):
        cmd = [sys.executable, os.path.abspath(__file__), "--framework", framework, "--repeats",
               str(args.repeats), "--threads", str(THREADS), "--stat", args.stat]
        if args.only:
            cmd += ["--only", *args.only]
        r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ))
        if r.returncode != 0:
            print(f"# {framework} failed: {r.stderr.strip().splitlines()[-1:]}")
            return {}
        res = json.loads(r.stdout.strip().splitlines()[-1])
        print(f"# {framework} {res['version']}")
        return res["times"]

    print(f"# {THREADS} threads each; {args.stat} of {args.repeats} samples")
    print("# load average before the run: %.1f %.1f %.1f" % os.getloadavg())
    o, t = run("oar"), run("torch")
    print()
    print("| row | unit | oar f32 | oar bf16 | oar bf16/f32 | torch f32 | torch bf16 | torch bf16/f32 "
          "| oar/torch f32 | oar/torch bf16 |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, kind, _ in rows():
        if args.only and not any(s in name for s in args.only):
            continue
        vals = {}
        for fw, times in (("oar", o), ("torch", t)):
            for dt in DTYPES:
                v = times.get(f"{name}|{dt}")
                vals[fw, dt] = (flops(name) / v / 1e9) if (v and kind == "gflops") else v
        # Ratios read "how many times better": GFLOP/s divide as they are, times inverted.
        better = (lambda a, b: ratio(a, b)) if kind == "gflops" else (lambda a, b: ratio(b, a))
        unit = "GFLOP/s" if kind == "gflops" else "ms"
        print(f"| {name} | {unit} | {fmt(vals['oar', 'float32'], kind)} | {fmt(vals['oar', 'bfloat16'], kind)} "
              f"| {better(vals['oar', 'bfloat16'], vals['oar', 'float32'])} "
              f"| {fmt(vals['torch', 'float32'], kind)} | {fmt(vals['torch', 'bfloat16'], kind)} "
              f"| {better(vals['torch', 'bfloat16'], vals['torch', 'float32'])} "
              f"| {better(vals['oar', 'float32'], vals['torch', 'float32'])} "
              f"| {better(vals['oar', 'bfloat16'], vals['torch', 'bfloat16'])} |")
    print()
    print("# ratios are speed-ups (>1: the first is faster): bf16/f32 is bf16's speed over float32's,")
    print("# oar/torch is oar's speed over PyTorch's for that dtype")
    if not args.no_training:
        training_table(args.steps, args.rounds)


def training_table(steps, rounds):
    """Each configuration runs `rounds` times, the configurations interleaved (round 1
    of all five, then round 2, ...), so a slow phase of a shared machine spreads over
    all of them; the table gives the median of each configuration's per-run medians,
    the speed-ups of those, and the range of the speed-ups within the rounds."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from training import run  # noqa: E402  (the same worker as benchmarks/training.py)
    print()
    print(f"# training step, ms: median over {rounds} interleaved runs of each run's median "
          f"of {steps} steps; speed-ups over oar float32 and over torch.autocast (in brackets: "
          f"their range over the rounds)")
    print("| model | oar f32 | oar O1 | oar O2 | torch f32 | torch autocast | O1 speed-up | "
          "O2 speed-up | O1 vs torch autocast | O2 vs torch autocast |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    configs = (("oar", "f32"), ("oar", "O1"), ("oar", "O2"), ("torch", "f32"), ("torch", "O1"))
    for model, label in (("mlp", "MLP 784-512-512-10, batch 128"), ("cnn", "demo CNN, batch 64")):
        runs = {c: [] for c in configs}
        for _ in range(max(rounds, 1)):
            for fw, mode in configs:
                runs[fw, mode].append(run(sys.executable, fw, model, steps, mode)[0])
        t = {c: statistics.median(v) if all(v) else None for c, v in runs.items()}

        def up(a, b):
            if not (t[a] and t[b]):
                return "n/a"
            per_round = [y / x for x, y in zip(runs[a], runs[b])]
            return f"{t[b] / t[a]:.2f} [{min(per_round):.2f}-{max(per_round):.2f}]"

        ms = lambda v: f"{v * 1e3:.2f}" if v else "n/a"  # noqa: E731
        print(f"| {label} | {ms(t['oar', 'f32'])} | {ms(t['oar', 'O1'])} | {ms(t['oar', 'O2'])} "
              f"| {ms(t['torch', 'f32'])} | {ms(t['torch', 'O1'])} "
              f"| {up(('oar', 'O1'), ('oar', 'f32'))} | {up(('oar', 'O2'), ('oar', 'f32'))} "
              f"| {up(('oar', 'O1'), ('torch', 'O1'))} | {up(('oar', 'O2'), ('torch', 'O1'))} |")

if __name__ == "__main__":
    main()
