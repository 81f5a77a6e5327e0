"""Collectives of picklable Python objects (Paddle's all_gather_object,
broadcast_object_list, scatter_object_list, send_object_list, recv_object_list): each
object travels as the uint8 tensor of its pickle, after the sizes."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np

from .collective import Group, _group, all_gather, broadcast, get_rank, recv, scatter, send
from ..tensor.creation import to_tensor
from .._C import concat
from ..tensor.creation import zeros
from ..tensor.creation import empty


def _to_tensor(obj):
    return to_tensor(np.frombuffer(pickle.dumps(obj), dtype=np.uint8).copy())


def _to_object(t, size):
    return pickle.loads(np.asarray(t)[:size].tobytes())


def _sizes(values):
    return to_tensor(np.asarray(values, dtype=np.int64).reshape(-1))


def _member(object_list, api, arg, group):
    """The group, or None if this rank is not in it; ``object_list`` must be a list."""
    if not isinstance(object_list, list):
        raise TypeError(f"{api}(): {arg} must be a list, got {type(object_list).__name__}")
    g = _group(group, api)
    return g if g.is_member() else None


def _fill(object_list, data, counts):
    """object_list[i] = the i-th of the pickles laid end to end in ``data``."""
    start = 0
    for i, n in enumerate(counts):
        object_list[i] = _to_object(data[start : start + n], n)
        start += n


def _padded(t, size):
    n = t.shape[0]
    return t if n == size else concat([t, zeros([size - n], dtype="uint8")])


def all_gather_object(object_list: list[Any], obj: Any, group: Group | None = None) -> None:
    """Appends every rank's ``obj`` to ``object_list``, in group-rank order."""
    g = _member(object_list, "all_gather_object", "object_list", group)
    if g is None:
        return
    t = _to_tensor(obj)
    sizes = []
    all_gather(sizes, _sizes([t.shape[0]]), group=g)
    sizes = [int(s.numpy()[0]) for s in sizes]
    parts = []
    all_gather(parts, _padded(t, max(sizes)), group=g)
    object_list.extend(_to_object(p, n) for p, n in zip(parts, sizes))


def broadcast_object_list(object_list: list[Any], src: int, group: Group | None = None) -> None:
    """Replaces the objects of every rank's ``object_list`` with global rank ``src``'s
    (the lists must have the same length on every rank)."""
    g = _member(object_list, "broadcast_object_list", "object_list", group)
    if g is None:
        return
    mine = get_rank() == src
    tensors = [_to_tensor(o) for o in object_list] if mine else []
    sizes = (
        _sizes([t.shape[0] for t in tensors]) if mine else zeros([len(object_list)], dtype="int64")
    )
    broadcast(sizes, src, group=g)
    counts = [int(v) for v in sizes.numpy()]
    if not counts:
        return
    data = concat(tensors) if mine else empty([sum(counts)], dtype="uint8")
    broadcast(data, src, group=g)
    _fill(object_list, data, counts)


def scatter_object_list(
    out_object_list: list[Any],
    in_object_list: list[Any] | tuple[Any, ...] | None = None,
    src: int = 0,
    group: Group | None = None,
) -> None:
    """``out_object_list`` becomes ``[in_object_list[group rank]]`` of global rank ``src``
    (which passes one object per rank)."""
    g = _member(out_object_list, "scatter_object_list", "out_object_list", group)
    if g is None:
        return
    mine = get_rank() == src
    if mine:
        if not isinstance(in_object_list, (list, tuple)) or len(in_object_list) != g.nranks:
            raise ValueError(
                f"scatter_object_list(): in_object_list must hold {g.nranks} "
                f"objects (the group size) on the src rank"
            )
        tensors = [_to_tensor(o) for o in in_object_list]
        longest = _sizes([max(t.shape[0] for t in tensors)])
    else:
        longest = empty([1], dtype="int64")
    broadcast(longest, src, group=g)
    size = int(longest.numpy()[0])
    out = empty([size], dtype="uint8")
    scatter(out, [_padded(t, size) for t in tensors] if mine else None, src, group=g)
    n = empty([1], dtype="int64")
    scatter(n, [_sizes([t.shape[0]]) for t in tensors] if mine else None, src, group=g)
    out_object_list.clear()
    out_object_list.append(_to_object(out, int(n.numpy()[0])))


def _peer(rank, rank_in_group, g, api, arg):
    if rank_in_group is not None:
        if rank is not None:
            raise ValueError(f"{api}(): pass {arg} or {arg}_in_group, not both")
        if not 0 <= rank_in_group < g.nranks:
            raise ValueError(
                f"{api}(): {arg}_in_group {rank_in_group} is not a rank of the "
                f"group (size {g.nranks})"
            )
        return g.ranks[rank_in_group]
    return 0 if rank is None else rank


def send_object_list(
    object_list: list[Any] | tuple[Any, ...],
    dst: int | None = None,
    group: Group | None = None,
    dst_in_group: int | None = None,
) -> None:
    """Sends the objects of ``object_list`` to global rank ``dst`` (or group rank
    ``dst_in_group``), whose recv_object_list receives them."""
    if not isinstance(object_list, (list, tuple)) or not object_list:
        raise ValueError("send_object_list(): object_list must be a non-empty list")
    g = _group(group, "send_object_list")
    if not g.is_member():
        return
    dst = _peer(dst, dst_in_group, g, "send_object_list", "dst")
    tensors = [_to_tensor(o) for o in object_list]
    send(_sizes([t.shape[0] for t in tensors]), dst=dst, group=g)
    send(concat(tensors), dst=dst, group=g)


def recv_object_list(
    object_list: list[Any],
    src: int | None = None,
    group: Group | None = None,
    src_in_group: int | None = None,
) -> None:
    """Fills ``object_list`` (as many entries as the sender sends) with the objects
    global rank ``src`` (or group rank ``src_in_group``) sends with send_object_list."""
    if not isinstance(object_list, list) or not object_list:
        raise ValueError(
            "recv_object_list(): object_list must be a non-empty list, one entry "
            "per object to receive"
        )
    g = _group(group, "recv_object_list")
    if not g.is_member():
        return
    src = _peer(src, src_in_group, g, "recv_object_list", "src")
    sizes = empty([len(object_list)], dtype="int64")
    recv(sizes, src=src, group=g)
    counts = [int(v) for v in sizes.numpy()]
    data = empty([sum(counts)], dtype="uint8")
    recv(data, src=src, group=g)
    _fill(object_list, data, counts)
