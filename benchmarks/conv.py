"""conv2d and max_pool2d, oar vs PyTorch, in one process, 2 threads each (not a test).

    OMP_NUM_THREADS=2 python benchmarks/conv.py [--repeat R]

Shapes: a small Fashion-MNIST CNN (batch 64: 1->32 channels at 28x28 and 32->64 at
14x14, 3x3, padding 1), a 1x1 and a strided 3x3 convolution, and the CNN's 2x2 max
pool. Each row times the forward alone and forward + backward (gradients of x and
weight) in float32, alternating oar and PyTorch call by call; the figure is the best
of R calls, in ms (the best, not the mean: on a shared machine it is the one least
disturbed by other processes). The ratio is oar / PyTorch (below 1: oar is faster).
benchmarks/conv.cc compares oar's two convolution engines on the same shapes.
"""
import argparse
import os
import time

import _machine

os.environ.pop("OPENBLAS_CORETYPE", None)
os.environ.pop("OPENBLAS_L2_SIZE", None)

import numpy as np  # noqa: E402
import oar  # noqa: E402
import oar.nn.functional as F  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402

CONVS = [
    ("conv 64x1x28x28 -> 32, 3x3 p1", [64, 1, 28, 28], [32, 1, 3, 3], dict(padding=1)),
    ("conv 64x32x14x14 -> 64, 3x3 p1", [64, 32, 14, 14], [64, 32, 3, 3], dict(padding=1)),
    ("conv 64x64x14x14 -> 64, 1x1", [64, 64, 14, 14], [64, 64, 1, 1], {}),
    ("conv 64x32x28x28 -> 64, 3x3 s2 p1", [64, 32, 28, 28], [64, 32, 3, 3],
     dict(stride=2, padding=1)),
]


def best_ms(fns, repeat):
    """Best time of each fn over `repeat` interleaved calls (after two warm-up calls)."""
    best = [float("inf")] * len(fns)
    for f in fns:
        f()
        f()
    for _ in range(repeat):
        for i, f in enumerate(fns):
            t0 = time.perf_counter()
            f()
            best[i] = min(best[i], time.perf_counter() - t0)
    return [b * 1e3 for b in best]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=30)
    args = p.parse_args()
    torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    print(_machine.describe())
    print(f"oar vs PyTorch {torch.__version__}, float32, OMP_NUM_THREADS="
          f"{os.environ.get('OMP_NUM_THREADS', '<unset>')}, torch threads "
          f"{torch.get_num_threads()}, best of {args.repeat} (ms)")
    print(f"{'case':36s} {'pass':10s} {'oar':>8s} {'torch':>8s} {'ratio':>6s}")
    rows = []
    for name, xs, ws, kw in CONVS:
        xa = rng.uniform(-1, 1, xs).astype("float32")
        wa = rng.uniform(-1, 1, ws).astype("float32")
        xo, wo = oar.to_tensor(xa), oar.to_tensor(wa)
        xo.stop_gradient = wo.stop_gradient = False
        xt = torch.tensor(xa, requires_grad=True)
        wt = torch.tensor(wa, requires_grad=True)

        def oar_fwd():
            with oar.no_grad():
                F.conv2d(xo, wo, **kw)

        def torch_fwd():
            with torch.no_grad():
                TF.conv2d(xt, wt, **kw)

        def oar_fb():
            out = F.conv2d(xo, wo, **kw)
            oar.grad([out], [xo, wo], grad_outputs=[oar.ones_like(out)])

        def torch_fb():
            out = TF.conv2d(xt, wt, **kw)
            torch.autograd.grad(out, [xt, wt], torch.ones_like(out))

        rows.append((name, "forward", *best_ms([oar_fwd, torch_fwd], args.repeat)))
        rows.append((name, "fwd+bwd", *best_ms([oar_fb, torch_fb], args.repeat)))
        print("\n".join(f"{r[0]:36s} {r[1]:10s} {r[2]:8.3f} {r[3]:8.3f} {r[2] / r[3]:6.2f}"
                        for r in rows[-2:]), flush=True)

    xa = rng.uniform(-1, 1, [64, 32, 28, 28]).astype("float32")
    xo = oar.to_tensor(xa)
    xo.stop_gradient = False
    xt = torch.tensor(xa, requires_grad=True)

    def oar_pool():
        out = F.max_pool2d(xo, 2)
        oar.grad([out], [xo], grad_outputs=[oar.ones_like(out)])

    def torch_pool():
        out = TF.max_pool2d(xt, 2)
        torch.autograd.grad(out, [xt], torch.ones_like(out))

    o, t = best_ms([oar_pool, torch_pool], args.repeat)
    print(f"{'max_pool2d 64x32x28x28, 2x2':36s} {'fwd+bwd':10s} {o:8.3f} {t:8.3f} {o / t:6.2f}")


if __name__ == "__main__":
    main()
