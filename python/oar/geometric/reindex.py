"""Graph reindexing: the nodes of a sampled subgraph renumbered from 0 (Paddle's
paddle.geometric.reindex_graph / reindex_heter_graph)."""

from __future__ import annotations

import numpy as np

from ..framework import check as C
from ..framework.typing import Tensor
from ..tensor.creation import to_tensor
from ._common import index

__all__ = ["reindex_graph", "reindex_heter_graph"]


def _check_buffers(api, value_buffer, index_buffer):
    # Paddle's GPU hash-table buffers; the CPU path (and oar) has no use for them.
    for n, b in (("value_buffer", value_buffer), ("index_buffer", index_buffer)):
        if b is not None:
            C.tensor(api, n, b)


def _reindex(api, x, neighbor_lists, count_lists):
    xs = x.numpy()
    out_nodes = list(dict.fromkeys(xs.tolist()))  # first occurrence order
    if len(out_nodes) != xs.size:
        raise ValueError(f"{api}(): the input nodes x must be distinct")
    number = {v: i for i, v in enumerate(out_nodes)}
    srcs, dsts = [], []
    for k, (nb, cnt) in enumerate(zip(neighbor_lists, count_lists)):
        suffix = f"[{k}]" if len(neighbor_lists) > 1 else ""
        index(api, f"neighbors{suffix}", nb)
        index(api, f"count{suffix}", cnt)
        if nb.dtype != x.dtype:
            raise TypeError(
                f"{api}(): neighbors{suffix} ({nb.dtype.name}) must have x's dtype ({x.dtype.name})"
            )
        counts = cnt.numpy().astype(np.int64)
        if counts.size != xs.size:
            raise ValueError(
                f"{api}(): count{suffix} has {counts.size} entries, one per node "
                f"of x ({xs.size}) expected"
            )
        if (counts < 0).any() or counts.sum() != nb.shape[0]:
            raise ValueError(
                f"{api}(): count{suffix} must be non-negative and add up to the "
                f"{nb.shape[0]} neighbors, but sums to {int(counts.sum())}"
            )
        for v in nb.numpy().tolist():
            if v not in number:
                number[v] = len(out_nodes)
                out_nodes.append(v)
            srcs.append(number[v])
        dsts.append(np.repeat(np.arange(xs.size), counts))
    dt = xs.dtype
    src = np.asarray(srcs, dtype=dt)
    dst = np.concatenate(dsts).astype(dt) if dsts else np.zeros(0, dt)
    return to_tensor(src), to_tensor(dst), to_tensor(np.asarray(out_nodes, dtype=dt))


def reindex_graph(
    x: Tensor,
    neighbors: Tensor,
    count: Tensor,
    value_buffer: Tensor | None = None,
    index_buffer: Tensor | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """Renumbers a sampled subgraph: the input nodes x get 0 .. len(x) - 1 and each new
    node among neighbors the next number, in order of first appearance.

    Args:
        x: the (distinct) input nodes, int32/int64 [n].
        neighbors: the sampled neighbors of all input nodes, concatenated, x's dtype.
        count: int32 [n], the number of neighbors of each input node.
        value_buffer, index_buffer: Paddle's GPU hash buffers, accepted and unused.

    Returns:
        (reindex_src: each neighbor's new number, reindex_dst: its input node's new
        number, out_nodes: the original id of each new number), all in x's dtype.
    """
    api = "reindex_graph"
    index(api, "x", x)
    _check_buffers(api, value_buffer, index_buffer)
    return _reindex(api, x, [neighbors], [count])


def reindex_heter_graph(
    x: Tensor,
    neighbors: list[Tensor] | tuple[Tensor, ...],
    count: list[Tensor] | tuple[Tensor, ...],
    value_buffer: Tensor | None = None,
    index_buffer: Tensor | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """reindex_graph for a heterogeneous graph: neighbors and count are lists (one
    entry per edge type); the numbering runs through them in order and the edges of all
    types are concatenated."""
    api = "reindex_heter_graph"
    index(api, "x", x)
    _check_buffers(api, value_buffer, index_buffer)
    if not isinstance(neighbors, (list, tuple)) or not isinstance(count, (list, tuple)):
        raise TypeError(f"{api}(): arguments 'neighbors' and 'count' must be lists of tensors")
    if len(neighbors) != len(count):
        raise ValueError(
            f"{api}(): 'neighbors' has {len(neighbors)} tensors but 'count' has {len(count)}"
        )
    return _reindex(api, x, list(neighbors), list(count))
