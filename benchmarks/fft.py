"""FFT benchmark: oar vs PyTorch vs PaddlePaddle in one run, as ratios (docs/fft.md).

    python3 benchmarks/fft.py [--paddle-python $PADDLE_PYTHON] [--threads 2]
                              [--repeats 15] [--clock wall|cpu]

Rows: a 1-D transform of 2^20 points and a 2-D transform of 1024 x 1024, complex to
complex (complex64 and complex128) and real to complex (float32), forward; plus the
inverse real transform and the gradient of a 2-D complex transform. Each framework runs
in its own subprocess (two OpenMP runtimes in one process steal each other's cores, see
kernels.py), Paddle under --paddle-python (else $OAR_PADDLE_PYTHON, else skipped).

Each row is the minimum over --repeats calls (after one warm-up call), which is the
robust figure on a shared machine. --clock cpu times the process's CPU time instead of
wall time: with --threads 1 that is the work of one core, undisturbed by other
processes' time slices; with more threads it adds the threads' times up.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from _env import THREADS, UNSET_NOTES  # noqa: E402  (before the frameworks)
import _machine  # noqa: E402

N1 = 1 << 20
N2 = 1024


def rows(fw, np):
    """(name, callable) pairs for a framework module exposing .fft (oar, paddle or torch)."""
    rng = np.random.default_rng(0)
    c1 = (rng.standard_normal(N1) + 1j * rng.standard_normal(N1)).astype(np.complex64)
    c2 = c1.reshape(N2, N2)
    r1 = rng.standard_normal(N1).astype(np.float32)
    r2 = r1.reshape(N2, N2)
    t = fw.to_tensor if hasattr(fw, "to_tensor") else fw.tensor
    a1, a2, b1, b2 = t(c1), t(c2), t(r1), t(r2)
    d1 = t(c1.astype(np.complex128))
    h2 = fw.fft.rfft2(b2)
    F = fw.fft

    def grad2():
        if hasattr(fw, "grad"):  # oar, paddle
            x = t(c2)
            x.stop_gradient = False
            y = F.fft2(x)
            return fw.grad((fw.abs(y) ** 2).sum(), x)
        x = t(c2).requires_grad_()
        return fw.autograd.grad((F.fft2(x).abs() ** 2).sum(), x)

    return [
        ("fft 1-D 2^20 complex64", lambda: F.fft(a1)),
        ("fft 1-D 2^20 complex128", lambda: F.fft(d1)),
        ("rfft 1-D 2^20 float32", lambda: F.rfft(b1)),
        ("fft2 1024^2 complex64", lambda: F.fft2(a2)),
        ("rfft2 1024^2 float32", lambda: F.rfft2(b2)),
        ("irfft2 1024^2 complex64", lambda: F.irfft2(h2)),
        ("fft2 1024^2 complex64 + grad", grad2),
    ]


def best(f, repeats, clock):
    now = time.process_time if clock == "cpu" else time.perf_counter
    f()
    b = float("inf")
    for _ in range(repeats):
        t0 = now()
        f()
        b = min(b, now() - t0)
    return b


def measure(framework, repeats, clock):
    import numpy as np

    if framework == "torch":
        import torch

        torch.set_num_threads(THREADS)
        fw, ver = torch, torch.__version__
    elif framework == "paddle":
        import paddle

        paddle.set_device("cpu")
        fw, ver = paddle, paddle.__version__
    else:
        import oar

        fw, ver = oar, oar.__version__
    return ver, {name: best(f, repeats, clock) for name, f in rows(fw, np)}


def paddle_python(arg):
    return arg or os.environ.get("OAR_PADDLE_PYTHON")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paddle-python", help="interpreter with paddle installed")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    ap.add_argument("--framework", choices=["oar", "torch", "paddle"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.framework:
        ver, times = measure(args.framework, args.repeats, args.clock)
        print(json.dumps({"version": ver, "times": times}))
        return
    print(_machine.describe())
    for note in UNSET_NOTES:
        print(f"# {note}")
    print(f"# {THREADS} threads each; {args.clock} clock, min of {args.repeats} calls; ms")
    print("# load average before the run: %.1f %.1f %.1f" % os.getloadavg())

    def run(framework, py):
        cmd = [py, os.path.abspath(__file__), "--framework", framework, "--repeats",
               str(args.repeats), "--threads", str(THREADS), "--clock", args.clock]
        r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ))
        if r.returncode != 0:
            print(f"# {framework} failed: {r.stderr.strip().splitlines()[-1:]}")
            return {}
        res = json.loads(r.stdout.strip().splitlines()[-1])
        print(f"# {framework} {res['version']} ({py})")
        return res["times"]

    o = run("oar", sys.executable)
    t = run("torch", sys.executable)
    py = paddle_python(args.paddle_python)
    p = run("paddle", py) if py else {}
    if not py:
        print("# Paddle skipped: give --paddle-python or OAR_PADDLE_PYTHON")

    def ms(v):
        return "n/a" if v is None else f"{v * 1e3:.2f}"

    def ratio(a, b):
        return "n/a" if a is None or b is None else f"{a / b:.2f}"

    print()
    print("| row | oar | torch | paddle | oar/torch | oar/paddle | oar/faster peer |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in o or t:
        a, b, c = o.get(name), t.get(name), p.get(name)
        peer = min([v for v in (b, c) if v is not None], default=None)
        print(f"| {name} | {ms(a)} | {ms(b)} | {ms(c)} | {ratio(a, b)} | {ratio(a, c)} | "
              f"{ratio(a, peer)} |")


if __name__ == "__main__":
    main()
