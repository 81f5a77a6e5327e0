"""Data-parallel training across processes (Paddle's paddle.distributed) on Gloo.

Start one process per rank with the launcher, which sets the environment that
init_parallel_env() reads (docs/distributed.md)::

    python -m oar.distributed.launch --nproc_per_node 2 train.py

    import oar, oar.distributed as dist
    dist.init_parallel_env()
    model = oar.DataParallel(net)          # gradients averaged over the ranks
    t = oar.to_tensor([dist.get_rank()])
    dist.all_reduce(t)                      # sum over the ranks, in place

Every collective works in place on contiguous CPU tensors and takes global ranks
(src, dst) as Paddle does. The ones that reduce (all_reduce, reduce, reduce_scatter)
take float16, bfloat16, float32, float64, int32 or int64; the ones that move data take
any dtype. spawn() starts the ranks of a function from Python instead of the launcher.
A peer that dies or does not answer within OAR_DIST_TIMEOUT seconds (default 1800) makes
the collective raise an error naming it; nothing hangs.
"""

import sys as _sys

from ..framework import collective as _framework_collective
from .collective import (
    Group,
    ReduceOp,
    all_gather,
    all_reduce,
    alltoall,  # noqa: F401
    alltoall_single,
    barrier,
    broadcast,
    destroy_process_group,
    gather,
    get_backend,
    get_group,
    get_rank,
    get_world_size,
    irecv,
    is_available,
    is_initialized,
    isend,
    new_group,
    recv,
    reduce,
    reduce_scatter,
    scatter,
    send,
    shutdown_process_group,
    wait,
)
from .object_collective import (
    all_gather_object,
    broadcast_object_list,  # noqa: F401
    recv_object_list,
    scatter_object_list,
    send_object_list,
)
from .parallel import DataParallel, ParallelEnv, ParallelMode, init_parallel_env  # noqa: F401
from .spawn import gloo_barrier, gloo_init_parallel_env, gloo_release, spawn  # noqa: F401

__all__ = [
    "DataParallel",
    "Group",
    "ParallelEnv",
    "ParallelMode",
    "ReduceOp",
    "all_gather",
    "all_gather_object",
    "all_reduce",
    "alltoall",
    "alltoall_single",
    "barrier",
    "broadcast",
    "broadcast_object_list",
    "destroy_process_group",
    "gather",
    "get_backend",
    "get_group",
    "get_rank",
    "get_world_size",
    "gloo_barrier",
    "gloo_init_parallel_env",
    "gloo_release",
    "init_parallel_env",
    "irecv",
    "is_available",
    "is_initialized",
    "isend",
    "new_group",
    "recv",
    "recv_object_list",
    "reduce",
    "reduce_scatter",
    "scatter",
    "scatter_object_list",
    "send",
    "send_object_list",
    "shutdown_process_group",
    "spawn",
    "wait",
]

# oar.nn's collectives (synchronized batch norm, sharded losses) reach this module
# through oar.framework.collective (oar.nn is below it)
_framework_collective.register(_sys.modules[__name__])
