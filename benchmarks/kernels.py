"""Kernel benchmark: oar vs PyTorch vs PaddlePaddle, 2 threads each, one table.

    python benchmarks/kernels.py [--paddle-python PATH] [--repeats N] [--only ROW ...] [--threads 2]

Each framework is timed in its own subprocess running this file (two OpenMP
runtimes in one process, oar's and PyTorch's, leave spinning threads that steal
the cores from each other). oar and PyTorch run under this interpreter, Paddle
under --paddle-python, else $OAR_PADDLE_PYTHON, else this interpreter if it can
`import paddle`; without one Paddle is skipped with a note. Every framework
gets the same number of threads (--threads, default 2: OMP_NUM_THREADS,
MKL_NUM_THREADS, OPENBLAS_NUM_THREADS and torch.set_num_threads).

Each row is timed as the median over --repeats samples; a sample runs the
operation enough times to take about 20 ms and reports the time per call.
--stat min reports the fastest single call out of as many, which is the robust
figure on a loaded machine.
"backward" rows time forward and the gradients of every input together
(`grad` with an all-ones output gradient). A row whose op does not exist in a
framework prints n/a. Run nothing else meanwhile: the numbers are only
meaningful on an idle machine.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


from _env import THREADS, UNSET_NOTES as _UNSET_NOTES  # noqa: E402  (before the frameworks)
import _machine  # noqa: E402


class Unavailable(Exception):
    """The framework has no such op (or refuses these arguments)."""


def rows():
    """(name, fn(fw) -> callable) pairs; fw is a Framework adapter."""
    n = 1000

    def unary(op, positive=False):
        def make(fw):
            x = fw.rand([n, n], positive=positive)
            f = fw.op(op)
            return lambda: f(x)

        return make

    def binary(shape_b):
        def make(fw):
            a, b = fw.rand([n, n]), fw.rand(shape_b)
            f = fw.op("multiply" if shape_b != [n, n] else "add")
            return lambda: f(a, b)

        return make

    def reduce(op, axis):
        def make(fw):
            x = fw.rand([n, n])
            return fw.reduction(op, x, axis)

        return make

    def softmax(op):
        def make(fw):
            x = fw.rand([n, n])
            f = fw.op(op)
            return lambda: f(x, -1)

        return make

    def layer_norm(fw):
        x, w, b = fw.rand([256, 1024], grad=True), fw.rand([1024], grad=True), fw.rand([1024], grad=True)
        f = fw.op("layer_norm")
        return fw.fwd_bwd(lambda: f(x, [1024], w, b), [x, w, b])

    def cross_entropy(fw):
        x = fw.rand([512, 1000], grad=True)
        label = fw.labels(512, 1000)
        f = fw.op("cross_entropy")
        return fw.fwd_bwd(lambda: f(x, label), [x])

    def conv(cin, cout, hw):
        def make(fw):
            x = fw.rand([64, cin, hw, hw], grad=True)
            w = fw.rand([cout, cin, 3, 3], grad=True)
            f = fw.op("conv2d")
            return fw.fwd_bwd(lambda: f(x, w, padding=1), [x, w])

        return make

    def max_pool(fw):
        x = fw.rand([64, 32, 28, 28], grad=True)
        f = fw.op("max_pool2d")
        return fw.fwd_bwd(lambda: f(x, 2, 2), [x])

    def batch_norm(fw):
        # Training mode (batch statistics, running statistics updated), as in the demo CNN.
        x = fw.rand([64, 32, 28, 28], grad=True)
        w, b = fw.rand([32], grad=True), fw.rand([32], grad=True)
        mean, var = fw.rand([32]), fw.rand([32], positive=True)
        f = fw.op("batch_norm")
        return fw.fwd_bwd(lambda: f(x, mean, var, w, b, True), [x, w, b])

    def gemm(fw):
        a, b = fw.rand([1024, 1024]), fw.rand([1024, 1024])
        f = fw.op("matmul")
        return lambda: f(a, b)

    return [
        ("exp", unary("exp")),
        ("tanh", unary("tanh")),
        ("sigmoid", unary("sigmoid")),
        ("log", unary("log", positive=True)),
        ("gelu", unary("gelu")),
        ("add", binary([n, n])),
        ("broadcast multiply [n,n]*[n]", binary([n])),
        ("full sum", reduce("sum", None)),
        ("sum axis 0", reduce("sum", 0)),
        ("sum axis 1", reduce("sum", 1)),
        ("max axis 0", reduce("max", 0)),
        ("max axis 1", reduce("max", 1)),
        ("softmax", softmax("softmax")),
        ("log_softmax", softmax("log_softmax")),
        ("layer_norm fwd+bwd 256x1024", layer_norm),
        ("cross_entropy fwd+bwd 512x1000", cross_entropy),
        ("conv2d fwd+bwd 64x1->32 28x28", conv(1, 32, 28)),
        ("conv2d fwd+bwd 64x32->64 14x14", conv(32, 64, 14)),
        ("max_pool2d fwd+bwd 64x32x28x28", max_pool),
        ("batch_norm fwd+bwd 64x32x28x28", batch_norm),
        ("GEMM 1024", gemm),
    ]


class PaddleLike:
    """oar and Paddle share the API (oar follows Paddle's names and arguments)."""

    def __init__(self, mod):
        self.m = mod
        import numpy as np

        self.np = np
        self.rng = np.random.default_rng(0)

    def rand(self, shape, positive=False, grad=False):
        x = self.rng.standard_normal(shape).astype("float32")
        if positive:
            x = abs(x) + 0.1
        t = self.m.to_tensor(x)
        t.stop_gradient = not grad
        return t

    def labels(self, n, classes):
        return self.m.to_tensor(self.rng.integers(0, classes, n).astype("int64"))

    def op(self, name):
        fn = self.m.nn.functional
        if name in ("exp", "tanh", "log", "add", "multiply", "matmul"):
            f = getattr(self.m, name, None)
        else:
            f = getattr(fn, name, None) or getattr(self.m, name, None)
        if f is None:
            raise Unavailable(name)
        if name in ("softmax", "log_softmax"):
            return lambda x, axis: f(x, axis=axis)
        if name == "max_pool2d":
            return lambda x, k, s: f(x, kernel_size=k, stride=s)
        return f

    def reduction(self, op, x, axis):
        f = getattr(self.m, op, None)
        if f is None:
            raise Unavailable(op)
        return lambda: f(x, axis=axis)

    def fwd_bwd(self, forward, inputs):
        grad = getattr(self.m, "grad", None)
        if grad is None:
            raise Unavailable("grad")

        def run():
            y = forward()
            return grad([y], inputs, [self.m.ones_like(y)])

        return run


class Torch:
    def __init__(self):
        import torch

        torch.set_num_threads(THREADS)
        self.t = torch
        self.g = torch.Generator().manual_seed(0)

    def rand(self, shape, positive=False, grad=False):
        x = self.t.randn(shape, generator=self.g)
        if positive:
            x = x.abs() + 0.1
        return x.requires_grad_(grad)

    def labels(self, n, classes):
        return self.t.randint(0, classes, (n,), generator=self.g)

    def op(self, name):
        F = self.t.nn.functional
        table = {
            "exp": self.t.exp,
            "tanh": self.t.tanh,
            "log": self.t.log,
            "sigmoid": self.t.sigmoid,
            "gelu": F.gelu,
            "add": self.t.add,
            "multiply": self.t.mul,
            "matmul": self.t.matmul,
            "softmax": lambda x, axis: self.t.softmax(x, axis),
            "log_softmax": lambda x, axis: self.t.log_softmax(x, axis),
            "layer_norm": F.layer_norm,
            "cross_entropy": F.cross_entropy,
            "conv2d": F.conv2d,
            "max_pool2d": F.max_pool2d,
            "batch_norm": F.batch_norm,
        }
        return table[name]

    def reduction(self, op, x, axis):
        if op == "sum":
            return (lambda: self.t.sum(x)) if axis is None else (lambda: self.t.sum(x, axis))
        return lambda: self.t.amax(x, axis)  # values only, as oar.max / paddle.max

    def fwd_bwd(self, forward, inputs):
        def run():
            y = forward()
            return self.t.autograd.grad([y], inputs, [self.t.ones_like(y)])

        return run


def time_call(f, repeats, stat="median"):
    f()  # warm-up: first-call allocations, lazy initialisation
    t0 = time.perf_counter()
    f()
    one = max(time.perf_counter() - t0, 1e-6)
    inner = max(1, int(0.02 / one))
    samples = []
    if stat == "min":
        # The fastest single call: on a loaded machine every ~20 ms sample
        # contains preemptions, single calls of a few ms often do not.
        for _ in range(repeats * max(inner, 20)):
            t0 = time.perf_counter()
            f()
            samples.append(time.perf_counter() - t0)
        return min(samples)
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            f()
        samples.append((time.perf_counter() - t0) / inner)
    return min(samples) if stat == "min" else statistics.median(samples)


def measure(fw, repeats, only, stat="median"):
    out = {}
    for name, make in rows():
        if only and not any(o in name for o in only):
            continue
        try:
            f = make(fw)
            f()
        except (Unavailable, AttributeError, TypeError, NotImplementedError) as e:
            out[name] = None
            continue
        out[name] = time_call(f, repeats, stat)
    return out


def paddle_python(arg):
    if arg:
        return arg
    if os.environ.get("OAR_PADDLE_PYTHON"):
        return os.environ["OAR_PADDLE_PYTHON"]
    try:
        import importlib.util

        if importlib.util.find_spec("paddle") is not None:
            return sys.executable
    except ImportError:
        pass
    return None


def fmt_ms(t):
    return "n/a" if t is None else f"{t * 1e3:.3f}"


def fmt_ratio(a, b):
    return "n/a" if a is None or b is None else f"{a / b:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paddle-python", help="interpreter with paddle installed")
    ap.add_argument("--repeats", type=int, default=11)
    ap.add_argument("--threads", type=int, default=2, help="threads per framework (default 2)")
    ap.add_argument("--stat", choices=["median", "min"], default="median",
                    help="median of ~20 ms samples, or the fastest single call (robust under load)")
    ap.add_argument("--only", nargs="*", help="rows whose name contains one of these")
    ap.add_argument("--rounds", type=int, default=1,
                    help="runs of each framework, interleaved (oar, torch, paddle, oar, ...); each "
                         "row takes the best (--stat min) or the median of its rounds")
    ap.add_argument("--framework", choices=["oar", "torch", "paddle"], help=argparse.SUPPRESS)
    ap.add_argument("--out", help="also write the output to this file (a record in "
                                  "benchmarks/results/)")
    args = ap.parse_args()

    if args.framework:  # a subprocess: print the version and JSON times, nothing else
        if args.framework == "paddle":
            import paddle

            paddle.set_device("cpu")
            fw, ver = PaddleLike(paddle), paddle.__version__
        elif args.framework == "oar":
            import oar

            fw, ver = PaddleLike(oar), getattr(oar, "__version__", "?")
        else:
            fw = Torch()
            ver = fw.t.__version__
        print(json.dumps({"version": ver, "times": measure(fw, args.repeats, args.only, args.stat)}))
        return

    if args.out:
        _machine.tee(args.out)
    print(_machine.describe())
    print(f"# {time.strftime('%Y-%m-%d')}: {_machine.command('benchmarks/kernels.py')}")
    for note in _UNSET_NOTES:
        print(f"# {note}")
    print(f"# {THREADS} threads each (OMP_NUM_THREADS={THREADS}, torch.set_num_threads({THREADS}))")
    print(f"# {args.stat} of {args.repeats} samples; times in ms")
    print("# load average before the run: %.1f %.1f %.1f (above the CPU count, every number is suspect)"
          % os.getloadavg())

    def run(framework, py):
        cmd = [py, os.path.abspath(__file__), "--framework", framework, "--repeats", str(args.repeats),
               "--threads", str(THREADS), "--stat", args.stat]
        if args.only:
            cmd += ["--only", *args.only]
        r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ))
        if r.returncode != 0:
            return None, f"{framework} run failed ({py}): {r.stderr.strip().splitlines()[-1:]}"
        res = json.loads(r.stdout.strip().splitlines()[-1])
        return res["times"], f"{framework} {res['version']} ({py})"

    py = paddle_python(args.paddle_python)
    # Rounds interleave the frameworks, so a slow minute of a shared machine is spread
    # over all of them instead of landing on one framework's whole run.
    rounds = {"oar": [], "torch": [], "paddle": []}
    notes = {}
    for _ in range(max(args.rounds, 1)):
        for framework, interpreter in (("oar", sys.executable), ("torch", sys.executable),
                                       ("paddle", py)):
            if interpreter is None:
                notes[framework] = ("Paddle skipped: no interpreter with paddle (use "
                                    "--paddle-python or OAR_PADDLE_PYTHON)")
                continue
            times, notes[framework] = run(framework, interpreter)
            if times:
                rounds[framework].append(times)

    def combine(runs):
        pick = min if args.stat == "min" else statistics.median
        names = {n for r in runs for n in r if r[n] is not None}
        return {n: pick([r[n] for r in runs if r.get(n) is not None]) for n in names}

    oar_times, torch_times, paddle_times = (combine(rounds[f]) for f in ("oar", "torch", "paddle"))
    oar_note, torch_note, paddle_note = (notes.get(f) for f in ("oar", "torch", "paddle"))
    if args.rounds > 1:
        print(f"# {args.rounds} interleaved rounds per framework")
    for note in (oar_note, torch_note, paddle_note):
        print(f"# {note}")
    oar_times, torch_times, paddle_times = oar_times or {}, torch_times or {}, paddle_times or {}
    print()
    print("| row | oar | torch | paddle | oar/torch | oar/paddle | oar/min |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, _ in rows():
        if args.only and not any(o in name for o in args.only):
            continue
        o, t, p = oar_times.get(name), torch_times.get(name), paddle_times.get(name)
        best = min([v for v in (t, p) if v is not None], default=None)
        print(f"| {name} | {fmt_ms(o)} | {fmt_ms(t)} | {fmt_ms(p)} | {fmt_ratio(o, t)} | "
              f"{fmt_ratio(o, p)} | {fmt_ratio(o, best)} |")


if __name__ == "__main__":
    main()
