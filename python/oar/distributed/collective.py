"""Process groups and collectives (Paddle's paddle.distributed communication API)."""

from __future__ import annotations

import math
import os
from typing import Sequence

from ..framework.check import is_int
from .. import _C
from ..framework.typing import Tensor
from ..tensor.creation import empty_like
from .._C import concat
from ..tensor.creation import empty

__all__ = []


class ReduceOp:
    """The reductions of all_reduce and reduce_scatter (Paddle's ReduceOp)."""

    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


_OPS = {ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD, ReduceOp.AVG}


class Group:
    """A set of ranks that communicate together (Paddle's Group).

    ``rank`` is this process's rank in the group (-1 if it is not a member),
    ``nranks`` its size, ``ranks`` the members' global ranks.
    """

    def __init__(self, handle, rank, nranks, ranks, gid):
        self.process_group = handle  # None on a non-member
        self.rank = rank
        self.nranks = nranks
        self.ranks = list(ranks)
        self.id = gid

    @property
    def world_size(self):
        return self.nranks

    def is_member(self):
        return self.rank >= 0

    def get_group_rank(self, rank):
        return self.ranks.index(rank) if rank in self.ranks else -1

    def __repr__(self):
        return f"Group(id={self.id}, rank={self.rank}, nranks={self.nranks}, ranks={self.ranks})"


class _State:
    world = None
    groups: dict = {}


def _group_from_handle(handle):
    rank, size, _global_rank, ranks, gid, _timeout = _C._dist_group_info(handle)
    return Group(handle, rank, size, ranks, gid)


def _init_world():
    if _State.world is None:
        handle = _C._dist_init()
        _State.world = _group_from_handle(handle)
        _State.groups = {0: _State.world}
    return _State.world


def is_available() -> bool:
    """Whether this build of oar has the distributed package (Gloo)."""
    return hasattr(_C, "_dist_init")


def is_initialized() -> bool:
    """Whether init_parallel_env() has run in this process."""
    return _State.world is not None


def destroy_process_group(group: Group | None = None) -> None:
    """Forgets ``group`` (all groups if None); their connections close when unused."""
    if group is None or group is _State.world:
        _State.world = None
        _State.groups = {}
    else:
        _State.groups.pop(group.id, None)


def get_group(id: int = 0) -> Group | None:  # noqa: A002 - Paddle's name
    """The group with this id (0: the world), or None."""
    return _State.groups.get(id)


def _env_int(names, default):
    for n in names:
        v = os.environ.get(n)
        if v:
            return int(v)
    return default


def get_rank(group: Group | None = None) -> int:
    """This process's rank in ``group`` (the world by default; the launcher's
    PADDLE_TRAINER_ID before init_parallel_env)."""
    if group is not None:
        return group.rank
    if _State.world is not None:
        return _State.world.rank
    return _env_int(("PADDLE_TRAINER_ID", "RANK"), 0)


def get_world_size(group: Group | None = None) -> int:
    """The number of ranks in ``group`` (the world by default)."""
    if group is not None:
        return group.nranks
    if _State.world is not None:
        return _State.world.nranks
    return _env_int(("PADDLE_TRAINERS_NUM", "WORLD_SIZE"), 1)


class _Task:
    """The handle of an operation issued with sync_op=False. ``then`` (if any) runs
    once, after the operation finished (alltoall copies its result out)."""

    def __init__(self, work, then=None):
        self._work = work
        self._then = then

    def wait(self):
        _C._dist_work_wait(self._work)
        if self._then is not None:
            then, self._then = self._then, None
            then()
        return True

    def is_completed(self):
        return _C._dist_work_done(self._work)


def _group(group, api):
    if group is None:
        if _State.world is None:
            raise RuntimeError(f"{api}(): call oar.distributed.init_parallel_env() first")
        return _State.world
    if not isinstance(group, Group):
        raise TypeError(
            f"{api}(): group must be a Group from new_group(), got {type(group).__name__}"
        )
    return group


def _finish(work, sync_op, then=None):
    task = _Task(work, then)
    if sync_op:
        task.wait()
        return None
    return task


def _check_op(op, api):
    if op not in _OPS:
        raise ValueError(f"{api}(): op must be a ReduceOp (SUM, MAX, MIN, PROD, AVG), got {op!r}")


def _check_rank(value, name, api):
    if not is_int(value):
        raise TypeError(f"{api}(): {name} must be an int rank, got {type(value).__name__}")


def all_reduce(
    tensor: Tensor, op: int = ReduceOp.SUM, group: Group | None = None, sync_op: bool = True
) -> _Task | None:
    """Reduces ``tensor`` over the ranks of ``group`` in place with ``op``.

    Returns None, or a task whose wait() joins the operation if ``sync_op`` is False.
    """
    _check_op(op, "all_reduce")
    g = _group(group, "all_reduce")
    if not g.is_member():
        return None
    return _finish(_C._dist_all_reduce(g.process_group, tensor, op), sync_op)


def broadcast(
    tensor: Tensor, src: int, group: Group | None = None, sync_op: bool = True
) -> _Task | None:
    """Copies global rank ``src``'s ``tensor`` into every rank's, in place."""
    _check_rank(src, "src", "broadcast")
    g = _group(group, "broadcast")
    if not g.is_member():
        return None
    return _finish(_C._dist_broadcast(g.process_group, tensor, src), sync_op)


def all_gather(
    tensor_list: list[Tensor], tensor: Tensor, group: Group | None = None, sync_op: bool = True
) -> _Task | None:
    """Gathers every rank's ``tensor`` into ``tensor_list`` (in group-rank order).

    An empty ``tensor_list`` is filled with new tensors (Paddle's behaviour); a
    list of group-size tensors is written in place.
    """
    g = _group(group, "all_gather")
    if not isinstance(tensor_list, list):
        raise TypeError("all_gather(): tensor_list must be a list")
    if not g.is_member():
        return None
    if not tensor_list:
        tensor_list.extend(empty_like(tensor) for _ in range(g.nranks))
    return _finish(_C._dist_all_gather(g.process_group, tensor_list, tensor), sync_op)


def reduce_scatter(
    tensor: Tensor,
    tensor_list: Sequence[Tensor],
    op: int = ReduceOp.SUM,
    group: Group | None = None,
    sync_op: bool = True,
) -> _Task | None:
    """``tensor`` gets the reduction over the ranks of their ``tensor_list[group rank]``."""
    _check_op(op, "reduce_scatter")
    g = _group(group, "reduce_scatter")
    if not isinstance(tensor_list, (list, tuple)):
        raise TypeError("reduce_scatter(): tensor_list must be a list of Tensors")
    if not g.is_member():
        return None
    return _finish(_C._dist_reduce_scatter(g.process_group, tensor, list(tensor_list), op), sync_op)


def reduce(
    tensor: Tensor,
    dst: int,
    op: int = ReduceOp.SUM,
    group: Group | None = None,
    sync_op: bool = True,
) -> _Task | None:
    """Reduces every rank's ``tensor`` with ``op`` into global rank ``dst``'s, in place;
    the other ranks' tensors are left as they were."""
    _check_rank(dst, "dst", "reduce")
    _check_op(op, "reduce")
    g = _group(group, "reduce")
    if not g.is_member():
        return None
    return _finish(_C._dist_reduce(g.process_group, tensor, dst, op), sync_op)


def gather(
    tensor: Tensor,
    gather_list: list[Tensor] | None = None,
    dst: int = 0,
    group: Group | None = None,
    sync_op: bool = True,
) -> _Task | None:
    """Gathers every rank's ``tensor`` into ``gather_list`` on global rank ``dst`` (in
    group-rank order; an empty list is filled with new tensors). The other ranks pass
    nothing (their ``gather_list`` is not read)."""
    _check_rank(dst, "dst", "gather")
    g = _group(group, "gather")
    if not g.is_member():
        return None
    out = []
    if g.rank == g.get_group_rank(dst):
        if not isinstance(gather_list, list):
            raise TypeError(
                f"gather(): gather_list must be a list on the dst rank, got "
                f"{type(gather_list).__name__}"
            )
        if not gather_list:
            gather_list.extend(empty_like(tensor) for _ in range(g.nranks))
        out = gather_list
    return _finish(_C._dist_gather(g.process_group, out, tensor, dst), sync_op)


def scatter(
    tensor: Tensor,
    tensor_list: Sequence[Tensor] | None = None,
    src: int = 0,
    group: Group | None = None,
    sync_op: bool = True,
) -> _Task | None:
    """``tensor`` gets ``tensor_list[group rank]`` of global rank ``src``; only ``src``
    passes ``tensor_list`` (one tensor per rank, each like ``tensor``)."""
    _check_rank(src, "src", "scatter")
    g = _group(group, "scatter")
    if not g.is_member():
        return None
    inputs = []
    if g.rank == g.get_group_rank(src):
        if not isinstance(tensor_list, (list, tuple)):
            raise TypeError(
                f"scatter(): tensor_list must be a list of Tensors on the src rank, "
                f"got {type(tensor_list).__name__}"
            )
        inputs = list(tensor_list)
    return _finish(_C._dist_scatter(g.process_group, tensor, inputs, src), sync_op)


def _split_counts(t, sizes, name, arg, nranks):
    """Elements per rank of ``t`` split along dim 0 into ``sizes`` rows (equal parts if
    None)."""
    rows = t.shape[0] if t.ndim else 1
    per_row = math.prod(t.shape[1:]) if t.ndim else 1
    if sizes is None:
        if rows % nranks:
            raise ValueError(
                f"alltoall_single(): {name}'s first dim {rows} does not split "
                f"evenly over the group's {nranks} ranks; pass {arg}"
            )
        sizes = [rows // nranks] * nranks
    if not isinstance(sizes, (list, tuple)) or not all(is_int(v) for v in sizes):
        raise TypeError(f"alltoall_single(): {arg} must be a list of ints, got {sizes!r}")
    return [v * per_row for v in sizes]


def alltoall_single(
    out_tensor: Tensor,
    in_tensor: Tensor,
    in_split_sizes: Sequence[int] | None = None,
    out_split_sizes: Sequence[int] | None = None,
    group: Group | None = None,
    sync_op: bool = True,
) -> _Task | None:
    """Splits ``in_tensor`` along dim 0 into ``in_split_sizes`` (equal parts if None) and
    sends part r to group rank r; ``out_tensor`` gets, in group-rank order, the parts
    every rank sent this one, ``out_split_sizes`` rows each (the sizes must agree
    pairwise)."""
    g = _group(group, "alltoall_single")
    if not g.is_member():
        return None
    out_counts = _split_counts(
        out_tensor, out_split_sizes, "out_tensor", "out_split_sizes", g.nranks
    )
    in_counts = _split_counts(in_tensor, in_split_sizes, "in_tensor", "in_split_sizes", g.nranks)
    return _finish(
        _C._dist_alltoall(g.process_group, out_tensor, out_counts, in_tensor, in_counts), sync_op
    )


def alltoall(
    out_tensor_list: list[Tensor],
    in_tensor_list: Sequence[Tensor],
    group: Group | None = None,
    sync_op: bool = True,
) -> _Task | None:
    """Sends ``in_tensor_list[r]`` to group rank r; ``out_tensor_list[r]`` gets what rank r
    sent this one (an empty list is filled with tensors shaped like the inputs)."""
    g = _group(group, "alltoall")
    if not isinstance(in_tensor_list, (list, tuple)) or not isinstance(out_tensor_list, list):
        raise TypeError("alltoall(): in_tensor_list and out_tensor_list must be lists of Tensors")
    if not g.is_member():
        return None
    if len(in_tensor_list) != g.nranks:
        raise ValueError(
            f"alltoall(): in_tensor_list must hold {g.nranks} tensors (the group "
            f"size), got {len(in_tensor_list)}"
        )
    if not out_tensor_list:
        out_tensor_list.extend(empty_like(t) for t in in_tensor_list)
    if len(out_tensor_list) != g.nranks:
        raise ValueError(
            f"alltoall(): out_tensor_list must hold {g.nranks} tensors (the group "
            f"size), got {len(out_tensor_list)}"
        )
    dtype = in_tensor_list[0].dtype
    if any(t.dtype != dtype for t in list(in_tensor_list) + out_tensor_list):
        raise TypeError(
            f"alltoall(): every tensor must have one dtype, got "
            f"{sorted({str(t.dtype) for t in list(in_tensor_list) + out_tensor_list})}"
        )
    flat_in = concat([t.reshape([-1]) for t in in_tensor_list])
    out_counts = [math.prod(t.shape) for t in out_tensor_list]
    flat_out = empty([sum(out_counts)], dtype=dtype)

    def copy_out():
        start = 0
        for t, n in zip(out_tensor_list, out_counts):
            t.copy_(flat_out[start : start + n].reshape(t.shape))
            start += n

    work = _C._dist_alltoall(
        g.process_group, flat_out, out_counts, flat_in, [math.prod(t.shape) for t in in_tensor_list]
    )
    return _finish(work, sync_op, copy_out)


def get_backend(group: Group | None = None) -> str:
    """The name of ``group``'s communication engine: 'GLOO' (Paddle's name for it)."""
    g = _group(group, "get_backend")
    if not g.is_member():
        raise RuntimeError("get_backend(): this rank is not a member of the group")
    return "GLOO"


def send(
    tensor: Tensor, dst: int = 0, group: Group | None = None, sync_op: bool = True
) -> _Task | None:
    """Sends ``tensor`` to global rank ``dst`` (which must call recv)."""
    _check_rank(dst, "dst", "send")
    g = _group(group, "send")
    if not g.is_member():
        return None
    return _finish(_C._dist_send(g.process_group, tensor, dst), sync_op)


def recv(
    tensor: Tensor, src: int = 0, group: Group | None = None, sync_op: bool = True
) -> _Task | None:
    """Receives into ``tensor`` what global rank ``src`` sends."""
    _check_rank(src, "src", "recv")
    g = _group(group, "recv")
    if not g.is_member():
        return None
    return _finish(_C._dist_recv(g.process_group, tensor, src), sync_op)


def isend(tensor: Tensor, dst: int, group: Group | None = None) -> _Task | None:
    """send(..., sync_op=False): returns a task."""
    return send(tensor, dst, group, sync_op=False)


def irecv(tensor: Tensor, src: int | None = None, group: Group | None = None) -> _Task | None:
    """recv(..., sync_op=False): returns a task."""
    return recv(tensor, 0 if src is None else src, group, sync_op=False)


def barrier(group: Group | None = None) -> None:
    """Blocks until every rank of ``group`` reached it."""
    g = _group(group, "barrier")
    if g.is_member():
        _C._dist_work_wait(_C._dist_barrier(g.process_group))


def wait(tensor: Tensor, group: Group | None = None, use_calc_stream: bool = True) -> None:
    """Blocks until every operation issued on ``group`` before this call has run (oar
    has no streams to synchronise: ops run on the CPU in order, collectives on the
    group's worker thread). ``tensor`` and ``use_calc_stream`` are Paddle's and do not
    change what is waited for."""
    if not isinstance(tensor, _C.Tensor):
        raise TypeError(f"wait(): tensor must be a Tensor, got {type(tensor).__name__}")
    g = _group(group, "wait")
    if g.is_member():
        _C._dist_work_wait(_C._dist_fence(g.process_group))


def shutdown_process_group(group: Group | None = None) -> None:
    """Paddle's name for destroy_process_group: forgets ``group`` (all groups if None);
    their connections close when unused."""
    destroy_process_group(group)


def new_group(ranks: Sequence[int] | None = None, backend: str | None = None) -> Group:
    """A group of the given global ranks (all if None). Every rank must call it,
    members or not, in the same order; a non-member gets a group with rank -1."""
    world = _group(None, "new_group")
    if backend not in (None, "gloo"):
        raise ValueError(f"new_group(): backend must be 'gloo' (oar's engine), got {backend!r}")
    ranks = list(range(world.nranks)) if ranks is None else sorted(set(int(r) for r in ranks))
    handle = _C._dist_new_group(world.process_group, ranks)
    if handle is None:
        gid = max(_State.groups) + 1
        g = Group(None, -1, len(ranks), ranks, gid)
    else:
        g = _group_from_handle(handle)
    _State.groups[g.id] = g
    return g
