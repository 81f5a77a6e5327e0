"""Data-parallel training of a small MLP regression across processes.

    python -m oar.distributed.launch --nproc_per_node 2 examples/distributed_mlp.py --steps 50

Every rank draws the same synthetic data set, trains on its own slice of each batch
(oar.io.DistributedBatchSampler-style sharding by rank), and DataParallel averages
the gradients, so the ranks' parameters stay identical; rank 0 prints the loss, and
every rank prints a checksum of its parameters at the end (they must agree).
"""
import argparse
import sys

import numpy as np

import oar
import oar.distributed as dist


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--batch", type=int, default=64, help="global batch size")
    a = p.parse_args(argv)
    dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    rng = np.random.RandomState(0)
    w_true = rng.randn(16, 1).astype("float32")
    oar.seed(rank)  # different on purpose: DataParallel copies rank 0's parameters
    net = oar.nn.Sequential(oar.nn.Linear(16, 64), oar.nn.ReLU(), oar.nn.Linear(64, 1))
    model = oar.DataParallel(net)
    opt = oar.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    per_rank = a.batch // world
    first = last = None
    for step in range(a.steps):
        x = rng.randn(a.batch, 16).astype("float32")
        y = x @ w_true + 0.01 * rng.randn(a.batch, 1).astype("float32")
        xs, ys = x[rank * per_rank:(rank + 1) * per_rank], y[rank * per_rank:(rank + 1) * per_rank]
        loss = ((model(oar.to_tensor(xs)) - oar.to_tensor(ys)) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        # The global loss: the mean of the ranks' shard means.
        g = oar.to_tensor([float(loss)])
        dist.all_reduce(g, op=dist.ReduceOp.AVG)
        last = float(g)
        first = last if first is None else first
        if rank == 0 and step % 10 == 0:
            print(f"step {step:3d}  loss {last:.4f}", flush=True)
    checksum = sum(float(p.sum()) for p in net.parameters())
    print(f"rank {rank}/{world}: final loss {last:.4f}, parameter checksum {checksum:.6f}",
          flush=True)
    return 0 if last < 0.5 * first else 1


if __name__ == "__main__":
    sys.exit(main())
