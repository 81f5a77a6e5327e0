"""init_parallel_env, ParallelEnv and DataParallel (Paddle's paddle.distributed.parallel)."""

from __future__ import annotations

import contextlib
import os

from .. import _C
from ..nn import Layer
from . import collective

__all__ = []


def init_parallel_env() -> collective.Group:
    """Joins the job the launcher started: reads the rank, world size and master
    address from the environment (PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM,
    PADDLE_MASTER / PADDLE_TRAINER_ENDPOINTS, or RANK, WORLD_SIZE, MASTER_ADDR,
    MASTER_PORT), and connects every rank to every other through Gloo. Blocks until
    all ranks joined (or OAR_DIST_TIMEOUT seconds passed). Returns the world Group.
    """
    if not collective.is_available():
        raise RuntimeError(
            "init_parallel_env(): this oar was built without Gloo (install libgloo-dev and rebuild)"
        )
    return collective._init_world()


class ParallelMode:
    """The kinds of parallelism (Paddle's ParallelMode constants); oar runs data
    parallelism (DataParallel)."""

    DATA_PARALLEL = 0
    TENSOR_PARALLEL = 1
    PIPELINE_PARALLEL = 2
    SHARDING_PARALLEL = 3
    SEGMENT_PARALLEL = 4


class ParallelEnv:
    """The launcher's view of this process (Paddle's ParallelEnv)."""

    @property
    def rank(self):
        return collective.get_rank()

    @property
    def world_size(self):
        return collective.get_world_size()

    @property
    def local_rank(self):
        return int(os.environ.get("PADDLE_LOCAL_RANK", os.environ.get("LOCAL_RANK", "0")))

    @property
    def nranks(self):
        return self.world_size

    @property
    def trainer_endpoints(self):
        v = os.environ.get("PADDLE_TRAINER_ENDPOINTS", "")
        return v.split(",") if v else []

    @property
    def current_endpoint(self):
        return os.environ.get("PADDLE_CURRENT_ENDPOINT", "")

    @property
    def dev_id(self):
        return 0  # CPU only

    @property
    def local_size(self):
        return int(os.environ.get("PADDLE_LOCAL_SIZE", "1"))


class DataParallel(Layer):
    """Runs ``layers`` data-parallel across the ranks of ``group`` (Paddle's DataParallel).

    At construction every rank copies the parameters and buffers of the group's first
    rank. During backward, each parameter's gradient goes into a bucket (in reverse
    registration order; the first bucket holds at most ``last_comm_buffer_size`` MB,
    the others ``comm_buffer_size`` MB) whose all-reduce starts as soon as the bucket
    is complete, while backward goes on; when backward returns, ``.grad`` holds the
    average over the ranks. Feed each rank its own shard of the batch.

    Args:
        layers (Layer): the model.
        strategy: unused (Paddle's legacy argument).
        comm_buffer_size (float): bucket size in MB.
        last_comm_buffer_size (float): size of the first bucket to be reduced, in MB.
        find_unused_parameters (bool): allow parameters that get no gradient in a step
            (they contribute zeros); without it such a step raises an error naming them.
        group (Group): the ranks to average over (the world by default).
    """

    def __init__(
        self,
        layers,
        strategy=None,
        comm_buffer_size=25,
        last_comm_buffer_size=1,
        find_unused_parameters=False,
        group=None,
    ):
        super().__init__()
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel(): layers must be a Layer, got {type(layers).__name__}")
        for name, v in (
            ("comm_buffer_size", comm_buffer_size),
            ("last_comm_buffer_size", last_comm_buffer_size),
        ):
            if not isinstance(v, (int, float)) or v <= 0:
                raise ValueError(
                    f"DataParallel(): {name} must be a positive number of MB, got {v!r}"
                )
        self._layers = layers
        self.find_unused_parameters = find_unused_parameters
        self._reducer = None
        if group is None and not collective.is_initialized():
            if collective.get_world_size() > 1:
                raise RuntimeError("DataParallel(): call oar.distributed.init_parallel_env() first")
            return  # one process: nothing to synchronise (Paddle's behaviour)
        g = collective._group(group, "DataParallel")
        if not g.is_member():
            raise ValueError(f"DataParallel(): this rank is not in {g}")
        self._group = g
        tasks = [
            collective.broadcast(t, g.ranks[0], g, sync_op=False)
            for t in layers.state_dict().values()
        ]
        for t in tasks:
            t.wait()
        params = [p for p in layers.parameters() if not p.stop_gradient]
        self._reducer = _C._dist_reducer_new(
            g.process_group,
            params,
            int(comm_buffer_size * (1 << 20)),
            int(last_comm_buffer_size * (1 << 20)),
            bool(find_unused_parameters),
        )

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes inside accumulate ``.grad`` locally without communicating;
        the next backward outside reduces the accumulated gradients."""
        if self._reducer is None:
            yield
            return
        prev = _C._dist_reducer_set_sync(self._reducer, False)
        try:
            yield
        finally:
            _C._dist_reducer_set_sync(self._reducer, prev)

    def scale_loss(self, loss):
        """Paddle's legacy API: the reducer averages, so the loss is unchanged."""
        return loss

    def apply_collective_grads(self):
        """Paddle's legacy API: gradients are reduced during backward already."""

    def state_dict(self, *args, **kwargs):
        return self._layers.state_dict(*args, **kwargs)

    def set_state_dict(self, *args, **kwargs):
        return self._layers.set_state_dict(*args, **kwargs)

    set_dict = set_state_dict
    load_dict = set_state_dict

    def _bucket_params(self):
        """Parameter indices per bucket, in launch order (for tests)."""
        return [] if self._reducer is None else _C._dist_reducer_buckets(self._reducer)

    def _last_backward_times(self):
        """Profiler-clock timestamps of the last synced backward (for tests)."""
        return None if self._reducer is None else _C._dist_reducer_times(self._reducer)
