"""oar.linalg against PyTorch and Paddle in one run: median time per call and the ratios
oar/torch and oar/paddle (< 1: oar faster). float32 inputs: single matrices of 256 and
1024 (--sizes) and a batch of 64 matrices of 32x32. Each callable is first run for
0.25 s (warm-up by time, see median_time).

Paddle is measured when it imports (run with the interpreter of a venv
made with --system-site-packages and paddlepaddle installed, so it also sees oar and torch); otherwise its columns are left out.

  python3 benchmarks/linalg.py [--threads 2] [--sizes 256,1024] [--reps 20] [--ops inv,solve]
                               [--out benchmarks/results/<record>.md]

oar's LAPACK routines run on OpenBLAS; the header names the core OpenBLAS runs (Note
[OpenBLAS's core on a CPU it does not know]). --out also writes the output, as printed,
to a record in benchmarks/results/.
"""
import argparse
import ctypes
import time

import _env  # noqa: F401 - sets the thread counts before the frameworks load
import _machine  # noqa: E402
import numpy as np
import torch

import oar

try:
    import paddle
except ImportError:  # measured only where Paddle is installed
    paddle = None


def median_time(f, reps, warm_s=0.25):
    # Warm up for a fixed time, not a fixed count: this VM's cores run slower for the
    # first ~0.1 s of load (a frequency ramp), which fell on whichever framework was
    # measured first (oar's eigh 256 timed 2.2 ms first and 1.45 ms after torch).
    t_end = time.perf_counter() + warm_s
    f()
    while time.perf_counter() < t_end:
        f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def cases(a, spd, b):
    oa, ospd, ob = oar.to_tensor(a), oar.to_tensor(spd), oar.to_tensor(b)
    ta, tspd, tb = torch.tensor(a), torch.tensor(spd), torch.tensor(b)
    out = {
        "inv": [lambda: oar.linalg.inv(oa), lambda: torch.linalg.inv(ta)],
        "solve": [lambda: oar.linalg.solve(oa, ob), lambda: torch.linalg.solve(ta, tb)],
        "cholesky": [lambda: oar.linalg.cholesky(ospd), lambda: torch.linalg.cholesky(tspd)],
        "svd": [lambda: oar.linalg.svd(oa), lambda: torch.linalg.svd(ta, full_matrices=False)],
        "eigh": [lambda: oar.linalg.eigh(ospd), lambda: torch.linalg.eigh(tspd)],
    }
    if paddle is not None:
        pa, pspd, pb = paddle.to_tensor(a), paddle.to_tensor(spd), paddle.to_tensor(b)
        out["inv"].append(lambda: paddle.linalg.inv(pa))
        out["solve"].append(lambda: paddle.linalg.solve(pa, pb))
        out["cholesky"].append(lambda: paddle.linalg.cholesky(pspd))
        out["svd"].append(lambda: paddle.linalg.svd(pa, full_matrices=False))
        out["eigh"].append(lambda: paddle.linalg.eigh(pspd))
    return out


def _openblas_core():
    """The kernels OpenBLAS runs in this process (liboar loaded it), or n/a."""
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return lib.openblas_get_corename().decode()
    except (OSError, AttributeError):
        return "n/a"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sizes", default="256,1024")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--ops", default="inv,solve,cholesky,svd,eigh")
    ap.add_argument("--out", help="also write the output to this file (a record in "
                                  "benchmarks/results/)")
    args = ap.parse_args()
    if args.out:
        _machine.tee(args.out)
        print(f"# {time.strftime('%Y-%m-%d')}: {_machine.command('benchmarks/linalg.py')}")
    torch.set_num_threads(args.threads)
    if paddle is not None:
        paddle.set_device("cpu")
    rng = np.random.default_rng(0)
    shapes = [(n,) for n in map(int, args.sizes.split(","))] + [(64, 32)]
    ops = args.ops.split(",")
    print(_machine.describe())
    print(f"threads={args.threads}; paddle: {paddle.__version__ if paddle else 'not found'}; "
          f"{'; '.join(_env.UNSET_NOTES)}; OpenBLAS core: {_openblas_core()}")
    head = f"{'op':10s} {'shape':>12s} {'oar ms':>9s} {'torch ms':>9s}"
    head += f" {'paddle ms':>9s}" if paddle else ""
    head += f" {'oar/torch':>9s}" + (f" {'oar/paddle':>10s}" if paddle else "")
    print(head)
    for shp in shapes:
        n = shp[-1]
        lead = [shp[0]] if len(shp) == 2 else []
        a = rng.standard_normal(lead + [n, n]).astype(np.float32)
        spd = a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=np.float32)
        b = rng.standard_normal(lead + [n, 4]).astype(np.float32)
        label = "x".join(map(str, lead + [n, n]))
        for name, fs in cases(a, spd, b).items():
            if name not in ops:
                continue
            ts = [median_time(f, args.reps) for f in fs]
            row = f"{name:10s} {label:>12s}" + "".join(f" {t * 1e3:9.3f}" for t in ts)
            row += f" {ts[0] / ts[1]:9.2f}" + (f" {ts[0] / ts[2]:10.2f}" if len(ts) > 2 else "")
            print(row, flush=True)


if __name__ == "__main__":
    main()
