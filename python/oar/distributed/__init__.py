"""Data-parallel training across processes (Paddle's paddle.distributed) on Gloo.

Start one process per rank with the launcher, which sets the environment that
init_parallel_env() reads (docs/distributed.md)::

    python -m oar.distributed.launch --nproc_per_node 2 train.py

    import oar, oar.distributed as dist
    dist.init_parallel_env()
    model = oar.DataParallel(net)          # gradients averaged over the ranks
    t = oar.to_tensor([dist.get_rank()])
    dist.all_reduce(t)                      # sum over the ranks, in place

Every collective works in place on contiguous CPU tensors of dtype float16,
bfloat16, float32, float64, int32 or int64, and takes global ranks (src, dst) as
Paddle does. A peer that dies or does not answer within OAR_DIST_TIMEOUT seconds
(default 1800) makes the collective raise an error naming it; nothing hangs.
"""
from .collective import (Group, ReduceOp, all_gather, all_reduce, barrier, broadcast,  # noqa: F401
                         destroy_process_group, get_group, get_rank, get_world_size, irecv,
                         is_available, is_initialized, isend, new_group, recv, reduce_scatter,
                         send)
from .parallel import DataParallel, ParallelEnv, init_parallel_env  # noqa: F401

__all__ = [
    "DataParallel", "Group", "ParallelEnv", "ReduceOp", "all_gather", "all_reduce", "barrier",
    "broadcast", "destroy_process_group", "get_group", "get_rank", "get_world_size",
    "init_parallel_env", "irecv", "is_available", "is_initialized", "isend", "new_group",
    "recv", "reduce_scatter", "send",
]
