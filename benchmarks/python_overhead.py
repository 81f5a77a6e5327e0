"""Python per-op overhead, oar vs PyTorch, in one process (not a test).

    python benchmarks/python_overhead.py [--number N] [--repeat R]

Cases: `a + b` on 1-element float32 tensors without and with grad recording;
a 100-op chain (y = y * b) forward + backward, per op; `oar.grad` on 2x2
tensors end to end. Each number is the best of R repeats of N calls (timeit),
in ns; the ratio is oar / PyTorch (below 1 means oar is faster).
"""
import argparse
import os
import sys
import timeit

# Benchmarks may unset these for their own process (they pin OpenBLAS's kernel choice).
os.environ.pop("OPENBLAS_CORETYPE", None)
os.environ.pop("OPENBLAS_L2_SIZE", None)

import oar  # noqa: E402
import torch  # noqa: E402


def best_ns(fn, number, repeat, per=1):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number / per * 1e9


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--number", type=int, default=100000)
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args()
    n, r = args.number, args.repeat
    torch.set_num_threads(1)

    a, b = oar.to_tensor([1.0]), oar.to_tensor([2.0])
    ta, tb = torch.tensor([1.0]), torch.tensor([2.0])
    ag = oar.to_tensor([1.0], stop_gradient=False)
    bg = oar.to_tensor([2.0], stop_gradient=False)
    tag = torch.tensor([1.0], requires_grad=True)
    tbg = torch.tensor([2.0], requires_grad=True)

    def oar_chain():
        y = ag
        for _ in range(100):
            y = y * bg
        y.backward()

    def torch_chain():
        y = tag
        for _ in range(100):
            y = y * tbg
        y.backward()

    x2 = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    w2 = oar.to_tensor([[0.5, -1.0], [2.0, 0.25]])
    tx2 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    tw2 = torch.tensor([[0.5, -1.0], [2.0, 0.25]])

    def oar_grad():
        y = (x2 @ w2).tanh().sum()
        return oar.grad([y], [x2])

    def torch_grad():
        y = (tx2 @ tw2).tanh().sum()
        return torch.autograd.grad([y], [tx2])

    cases = [
        ("a + b (no grad)", lambda: a + b, lambda: ta + tb, n, 1),
        ("a + b (with grad)", lambda: ag + bg, lambda: tag + tbg, n, 1),
        ("100-op chain fwd+bwd, per op", oar_chain, torch_chain, max(1, n // 200), 100),
        ("grad() on 2x2, end to end", oar_grad, torch_grad, max(1, n // 20), 1),
    ]
    print(f"oar {oar.__version__} vs torch {torch.__version__}, Python {sys.version.split()[0]}; "
          f"best of {r} repeats")
    print(f"{'case':34s} {'oar ns':>10s} {'torch ns':>10s} {'oar/torch':>10s}")
    for name, fo, ft, number, per in cases:
        to = best_ns(fo, number, r, per)
        tt = best_ns(ft, number, r, per)
        print(f"{name:34s} {to:10.1f} {tt:10.1f} {to / tt:10.2f}")


if __name__ == "__main__":
    main()
