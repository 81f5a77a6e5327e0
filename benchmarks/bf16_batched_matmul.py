"""A batch of activations times a 2-D weight in bfloat16 (a linear layer on a
sequence): oar folds the batch into one product and packs the weight (Note
[Packing bfloat16 weights for oneDNN], src/oar/kernels/cpu/matmul_onednn.cc).
Times, in one process and alternating, oar's `matmul(x, w)`, the same product
with the weight given a batch dim of 1 (`w.unsqueeze(0)`, which keeps oneDNN's
batched call: the route before folding), and PyTorch's bfloat16 `x @ w`.

    python benchmarks/bf16_batched_matmul.py [--threads 2] [--rounds 3]

Prints GFLOP/s, the best of 30 calls after 0.3 s of warm-up, per round.
"""
import argparse
import time

import _env  # noqa: F401  (threads, OpenBLAS overrides; before the frameworks)
import _machine  # noqa: E402
import torch

import oar

SHAPES = [((8, 256, 1024), 1024), ((16, 128, 768), 3072), ((4, 512, 512), 2048)]


def best(f):
    start = time.time()
    while time.time() - start < 0.3:
        f()
    t_best = float("inf")
    for _ in range(30):
        t = time.perf_counter()
        f()
        t_best = min(t_best, time.perf_counter() - t)
    return t_best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    print(_machine.describe())
    torch.set_num_threads(args.threads)
    for note in _env.UNSET_NOTES:
        print("#", note)
    print("| x @ w | round | oar folded | oar batched | torch | folded/batched | oar/torch |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for shape, n in SHAPES:
        k = shape[-1]
        x = oar.randn(list(shape)).astype("bfloat16")
        w = oar.randn([k, n]).astype("bfloat16")
        w3 = w.unsqueeze(0)
        xt = torch.from_numpy(x.astype("float32").numpy()).bfloat16()
        wt = torch.from_numpy(w.astype("float32").numpy()).bfloat16()
        flop = 2.0 * shape[0] * shape[1] * k * n
        for r in range(args.rounds):
            folded = flop / best(lambda: oar.matmul(x, w)) / 1e9
            batched = flop / best(lambda: oar.matmul(x, w3)) / 1e9
            tor = flop / best(lambda: xt @ wt) / 1e9
            print(f"| {list(shape)} @ [{k}, {n}] | {r + 1} | {folded:.0f} | {batched:.0f} | "
                  f"{tor:.0f} | {folded / batched:.2f} | {folded / tor:.2f} |")


if __name__ == "__main__":
    main()
