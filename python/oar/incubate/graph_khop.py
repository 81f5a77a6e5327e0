"""graph_khop_sampler: Paddle's k-hop neighbour sampler on a CSC graph, composed from
oar.geometric's sample_neighbors (one call per hop) and reindex_graph."""

from __future__ import annotations

import numbers

import numpy as np

from .. import _C
from ..framework.check import _kind
from ..tensor.creation import to_tensor
from ..geometric import reindex_graph, sample_neighbors
from ..framework.typing import Tensor

__all__ = ["graph_khop_sampler"]
API = "graph_khop_sampler"


def _ids(arg, t, dtype=None):
    """A 1-D int32/int64 tensor; Paddle's [n, 1] column is accepted too."""
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"{API}(): argument '{arg}' must be a Tensor, but got {_kind(t)}")
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{API}(): argument '{arg}' must be an int32 or int64 Tensor, but got "
            f"dtype {t.dtype.name}"
        )
    if dtype is not None and t.dtype != dtype:
        raise TypeError(
            f"{API}(): argument '{arg}' ({t.dtype.name}) must have the dtype of "
            f"'row' ({dtype.name})"
        )
    if t.ndim == 2 and t.shape[1] == 1:
        t = t.reshape([-1])
    if t.ndim != 1:
        raise ValueError(
            f"{API}(): argument '{arg}' must be 1-D (or [n, 1]), but has shape {list(t.shape)}"
        )
    return t


def _sizes(sample_sizes):
    if isinstance(sample_sizes, numbers.Integral) and not isinstance(sample_sizes, bool):
        sample_sizes = [sample_sizes]  # Paddle's binding takes a bare int as one hop
    if not isinstance(sample_sizes, (list, tuple)) or not all(
        isinstance(k, numbers.Integral) and not isinstance(k, bool) for k in sample_sizes
    ):
        raise TypeError(
            f"{API}(): argument 'sample_sizes' must be a list or tuple of ints, "
            f"but got {_kind(sample_sizes)}"
        )
    if not sample_sizes:
        raise ValueError(f"{API}(): argument 'sample_sizes' must not be empty (one entry per hop)")
    bad = [k for k in sample_sizes if k < -1]
    if bad:
        raise ValueError(
            f"{API}(): argument 'sample_sizes' holds {bad[0]}; each entry must be "
            f"-1 (all neighbours) or >= 0"
        )
    return [int(k) for k in sample_sizes]


def graph_khop_sampler(
    row: Tensor,
    colptr: Tensor,
    input_nodes: Tensor,
    sample_sizes: int | list[int] | tuple[int, ...],
    sorted_eids: Tensor | None = None,
    return_eids: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor] | tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """Samples a k-hop subgraph around input_nodes of a CSC graph (the in-neighbours
    of node v are row[colptr[v]:colptr[v + 1]]) and renumbers its nodes from 0.

    Hop i samples up to sample_sizes[i] neighbours (-1: all) of every node of its
    frontier, uniformly without replacement. The first frontier is input_nodes (first
    occurrences); the next one is the sorted new nodes the hop reached, leaving out
    every node already expanded. Nodes are numbered frontier by frontier, then the
    remaining sampled nodes in order of appearance. The draws come from oar's
    generator, so oar.seed makes them reproducible.

    Args:
        row (Tensor): int32/int64 [num_edges] (or [num_edges, 1]): edge sources.
        colptr (Tensor): row's dtype, [num_nodes + 1] (or [num_nodes + 1, 1]).
        input_nodes (Tensor): row's dtype, the nodes to start from.
        sample_sizes (list[int]|tuple[int]): Neighbours per node for each hop.
        sorted_eids (Tensor|None, optional): row's dtype, one id per edge (in row's
            order); needed with return_eids. Default: None.
        return_eids (bool, optional): Also return the sampled edges' ids.
            Default: False.
        name (str|None, optional): Unused, for Paddle compatibility. Default: None.

    Returns:
        tuple: (edge_src [E, 1], edge_dst [E, 1]: the sampled edges in the new
        numbering, hop by hop and node by node; sample_index [N]: the original id of
        each new number; reindex_nodes [len(input_nodes)]: the new number of each input
        node) and edge_eids [E] with return_eids; all in row's dtype.

    Raises:
        TypeError: non-Tensor or non-integer row/colptr/input_nodes/sorted_eids, dtypes
            unlike row's, sample_sizes not a list of ints.
        ValueError: empty sample_sizes or an entry below -1, return_eids without
            sorted_eids, a malformed colptr, sorted_eids not one per edge, no sampled
            neighbour in the first hop (as Paddle).
        IndexError: an input node outside the graph.
    """
    row = _ids("row", row)
    colptr = _ids("colptr", colptr, row.dtype)
    nodes = _ids("input_nodes", input_nodes, row.dtype)
    sizes = _sizes(sample_sizes)
    if not isinstance(return_eids, (bool, np.bool_)):
        raise TypeError(
            f"{API}(): argument 'return_eids' must be a bool, but got {_kind(return_eids)}"
        )
    if return_eids:
        if sorted_eids is None:
            raise ValueError(f"{API}(): return_eids=True needs 'sorted_eids' (one id per edge)")
        sorted_eids = _ids("sorted_eids", sorted_eids, row.dtype)
        if sorted_eids.shape[0] != row.shape[0]:
            raise ValueError(
                f"{API}(): 'sorted_eids' has {sorted_eids.shape[0]} entries, one "
                f"per edge of 'row' ({row.shape[0]}) expected"
            )
    dt = nodes.numpy().dtype
    frontier = np.asarray(list(dict.fromkeys(nodes.numpy().tolist())), dtype=dt)
    seen = set(frontier.tolist())
    dsts, neighbors, counts, eids = [], [], [], []
    for hop, k in enumerate(sizes):
        if frontier.size == 0:
            break
        out = sample_neighbors(
            row,
            colptr,
            to_tensor(frontier),
            sample_size=k,
            eids=sorted_eids if return_eids else None,
            return_eids=bool(return_eids),
        )
        nb = out[0].numpy()
        if hop == 0 and nb.size == 0:
            raise ValueError(
                f"{API}(): none of the input nodes has a sampled neighbour (sample_sizes[0] = {k})"
            )
        dsts.append(frontier)
        neighbors.append(nb)
        counts.append(out[1].numpy())
        if return_eids:
            eids.append(out[2].numpy())
        fresh = [v for v in np.unique(nb).tolist() if v not in seen]
        seen.update(fresh)
        frontier = np.asarray(fresh, dtype=dt)
    src, dst, sample_index = reindex_graph(
        to_tensor(np.concatenate(dsts)),
        to_tensor(np.concatenate(neighbors).astype(dt)),
        to_tensor(np.concatenate(counts).astype(np.int32)),
    )
    number = {v: i for i, v in enumerate(sample_index.numpy().tolist())}
    reindex = to_tensor(np.asarray([number[v] for v in nodes.numpy().tolist()], dtype=dt))
    result = (src.reshape([-1, 1]), dst.reshape([-1, 1]), sample_index, reindex)
    if return_eids:
        result += (to_tensor(np.concatenate(eids).astype(dt)),)
    return result
