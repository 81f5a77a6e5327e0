"""Elementwise ops in a loop, oar and PyTorch alternating in one process (not a test).

    python3 benchmarks/loop_in_process.py [--threads 2] [--shape 1000 1000]
                                          [--ops add add_ multiply] [--rounds 6] [--calls 200] [--out FILE]

benchmarks/kernels.py reports each framework's fastest single call, each in its own
process. This one reports what a loop sees: the mean time per call over `--calls`
calls (best of five such loops), oar's and PyTorch's loops alternating in one process,
so both meet the same memory bandwidth and the same minute of a shared machine; each
round prints both and their ratio, and the last lines give each op's median ratio and
its range. Inputs are made by each framework from the same NumPy arrays, in its own
allocator. With --threads above 1 the two thread pools share the process, which costs
both a little; the ratio is the figure to read.

To compare two oar builds, run it once with each on PYTHONPATH: PyTorch is the common
yardstick.
"""

import argparse
import statistics
import time

from _env import THREADS, UNSET_NOTES  # noqa: E402  (before the frameworks)
import _machine  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=THREADS, help="threads per framework (default 2)")
    ap.add_argument("--shape", type=int, nargs="+", default=[1000, 1000])
    ap.add_argument("--ops", nargs="+", default=["add", "add_", "multiply"],
                    choices=["add", "add_", "multiply"])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--out", help="also write the output to this file (a record in "
                                  "benchmarks/results/)")
    args = ap.parse_args()
    if args.out:
        _machine.tee(args.out)

    import numpy as np
    import oar
    import torch

    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal(args.shape, dtype=np.float32) for _ in range(2))
    tensors = {"oar": (oar.to_tensor(x), oar.to_tensor(y)),
               "torch": (torch.from_numpy(x.copy()), torch.from_numpy(y.copy()))}
    ops = {"add": lambda a, b: a + b, "add_": lambda a, b: a.add_(b),
           "multiply": lambda a, b: a * b}

    def loop(fn, a, b):
        for _ in range(20):
            fn(a, b)
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(args.calls):
                fn(a, b)
            best = min(best, (time.perf_counter() - t0) / args.calls)
        return best

    print(_machine.describe())
    print(f"# {time.strftime('%Y-%m-%d')}: {_machine.command('benchmarks/loop_in_process.py')}")
    for note in UNSET_NOTES:
        print(f"# {note}")
    print(f"# oar {oar.__version__}, torch {torch.__version__}; {args.threads} thread(s); "
          f"shape {args.shape} float32; mean of {args.calls} calls, best of 5 loops, us")
    ratios = {op: [] for op in args.ops}
    for r in range(args.rounds):
        for op in args.ops:
            t_oar = loop(ops[op], *tensors["oar"])
            t_torch = loop(ops[op], *tensors["torch"])
            ratios[op].append(t_oar / t_torch)
            print(f"round {r + 1} {op:9s} oar {t_oar * 1e6:8.1f}  torch {t_torch * 1e6:8.1f}  "
                  f"oar/torch {t_oar / t_torch:.2f}")
    for op in args.ops:
        v = ratios[op]
        print(f"{op:9s} oar/torch median {statistics.median(v):.2f}  range {min(v):.2f}-{max(v):.2f}")


if __name__ == "__main__":
    main()
