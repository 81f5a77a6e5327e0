"""Paddle's older incubate names for graph learning, on oar.geometric (docs/geometric.md):
segment_sum/mean/max/min are the same functions; graph_send_recv, graph_sample_neighbors
and graph_reindex take the argument names Paddle's incubate versions take."""

from __future__ import annotations

from .. import _C
from ..framework.typing import Tensor
from ..geometric import reindex_graph, reindex_heter_graph, sample_neighbors, send_u_recv
from ..geometric import segment_max, segment_mean, segment_min, segment_sum  # noqa: F401


def graph_send_recv(
    x: Tensor,
    src_index: Tensor,
    dst_index: Tensor,
    pool_type: str = "sum",
    out_size: int | Tensor | None = None,
    name: str | None = None,
) -> Tensor:
    """Gathers x's rows at src_index and reduces them into dst_index's rows
    (`pool_type`: "sum", "mean", "max" or "min"); `oar.geometric.send_u_recv` by its
    older name. Returns a Tensor of x's dtype with `out_size` rows (default: x's)."""
    return send_u_recv(x, src_index, dst_index, reduce_op=pool_type, out_size=out_size)


def graph_sample_neighbors(
    row: Tensor,
    colptr: Tensor,
    input_nodes: Tensor,
    eids: Tensor | None = None,
    perm_buffer: Tensor | None = None,
    sample_size: int = -1,
    return_eids: bool = False,
    flag_perm_buffer: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]:
    """Samples up to `sample_size` neighbours of each input node of a CSC graph
    (`oar.geometric.sample_neighbors` by its older name; `perm_buffer` and
    `flag_perm_buffer` only speed Paddle's GPU kernel up and are accepted).
    Returns (neighbors, count) and, with return_eids, the edge ids."""
    return sample_neighbors(
        row,
        colptr,
        input_nodes,
        sample_size=sample_size,
        eids=eids,
        return_eids=return_eids,
        perm_buffer=perm_buffer,
    )


def graph_reindex(
    x: Tensor,
    neighbors: Tensor,
    count: Tensor,
    value_buffer: Tensor | None = None,
    index_buffer: Tensor | None = None,
    flag_buffer_hashtable: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """Renumbers the nodes of x and their sampled neighbours from 0
    (`oar.geometric.reindex_graph` by its older name). Returns (reindex_src,
    reindex_dst, out_nodes).

    As in Paddle, several edge types may come concatenated: neighbors of every type one
    after the other and count holding len(x) entries per type; they share one numbering
    (`oar.geometric.reindex_heter_graph` of the split lists)."""
    Tensor = _C.Tensor
    n = x.shape[0] if isinstance(x, Tensor) and x.ndim == 1 else None
    if (
        n
        and isinstance(count, Tensor)
        and count.ndim == 1
        and count.shape[0] > n
        and count.shape[0] % n == 0
        and isinstance(neighbors, Tensor)
    ):
        counts = [count[i * n : (i + 1) * n] for i in range(count.shape[0] // n)]
        sizes = [int(c.sum()) for c in counts]
        if sum(sizes) == neighbors.shape[0]:
            starts = [sum(sizes[:i]) for i in range(len(sizes))]
            parts = [neighbors[b : b + m] for b, m in zip(starts, sizes)]
            return reindex_heter_graph(x, parts, counts)
    return reindex_graph(x, neighbors, count, value_buffer=value_buffer, index_buffer=index_buffer)
