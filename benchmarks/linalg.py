"""oar.linalg against PyTorch in one run: median time per call and the ratio oar/torch
(< 1: oar faster). float32 inputs: single matrices of 64 and 512 (and --sizes), and a
batch of 64 matrices of 32x32.

  python3 benchmarks/linalg.py [--threads 2] [--sizes 64,512] [--reps 20]
"""
import argparse
import time

import _env  # noqa: F401 - sets the thread counts before the frameworks load
import numpy as np
import torch

import oar


def median_time(f, reps):
    f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sizes", default="64,512")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    shapes = [(n,) for n in map(int, args.sizes.split(","))] + [(64, 32)]
    print(f"threads={args.threads}; {'; '.join(_env.UNSET_NOTES)}")
    print(f"{'op':10s} {'shape':>12s} {'oar ms':>9s} {'torch ms':>9s} {'oar/torch':>9s}")
    for shp in shapes:
        n = shp[-1]
        lead = [shp[0]] if len(shp) == 2 else []
        a = rng.standard_normal(lead + [n, n]).astype(np.float32)
        spd = a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=np.float32)
        b = rng.standard_normal(lead + [n, 4]).astype(np.float32)
        oa, ospd, ob = oar.to_tensor(a), oar.to_tensor(spd), oar.to_tensor(b)
        ta, tspd, tb = torch.tensor(a), torch.tensor(spd), torch.tensor(b)
        cases = {
            "inv": (lambda: oar.linalg.inv(oa), lambda: torch.linalg.inv(ta)),
            "solve": (lambda: oar.linalg.solve(oa, ob), lambda: torch.linalg.solve(ta, tb)),
            "cholesky": (lambda: oar.linalg.cholesky(ospd), lambda: torch.linalg.cholesky(tspd)),
            "svd": (lambda: oar.linalg.svd(oa), lambda: torch.linalg.svd(ta, full_matrices=False)),
            "eigh": (lambda: oar.linalg.eigh(ospd), lambda: torch.linalg.eigh(tspd)),
        }
        label = "x".join(map(str, lead + [n, n]))
        for name, (fo, ft) in cases.items():
            to, tt = median_time(fo, args.reps), median_time(ft, args.reps)
            print(f"{name:10s} {label:>12s} {to * 1e3:9.3f} {tt * 1e3:9.3f} {to / tt:9.2f}")


if __name__ == "__main__":
    main()
