"""Neighbour sampling on a graph stored in CSC form (row, colptr): the neighbours of node
v are row[colptr[v]:colptr[v + 1]] (Paddle's paddle.geometric.sample_neighbors and
weighted_sample_neighbors). The random draws come from oar's generator, so oar.seed
makes them reproducible."""

from __future__ import annotations

import numpy as np

from .. import _C
from ..framework import check as C
from ..framework.typing import Tensor
from ..tensor.creation import to_tensor
from ..framework.dtype import convert_dtype
from ._common import index

__all__ = ["sample_neighbors", "weighted_sample_neighbors"]


def _graph(api, row, colptr, input_nodes, sample_size, eids, return_eids):
    index(api, "row", row)
    index(api, "colptr", colptr)
    index(api, "input_nodes", input_nodes)
    if colptr.dtype != row.dtype or input_nodes.dtype != row.dtype:
        raise TypeError(
            f"{api}(): row, colptr and input_nodes must have the same dtype, but "
            f"got {row.dtype.name}, {colptr.dtype.name}, {input_nodes.dtype.name}"
        )
    k = C.integer(api, "sample_size", sample_size)
    if k < -1:
        raise ValueError(f"{api}(): argument 'sample_size' must be -1 (all) or >= 0, but got {k}")
    if return_eids:
        if eids is None:
            raise ValueError(f"{api}(): return_eids=True needs 'eids' (one id per edge)")
        index(api, "eids", eids)
        if eids.shape != row.shape:
            raise ValueError(
                f"{api}(): 'eids' {eids.shape} must have one entry per edge of 'row' {row.shape}"
            )
    ptr = colptr.numpy().astype(np.int64)
    nodes = input_nodes.numpy().astype(np.int64)
    n = ptr.size - 1
    if n < 0 or (ptr.size and (ptr[0] != 0 or ptr[-1] != row.shape[0] or (np.diff(ptr) < 0).any())):
        raise ValueError(
            f"{api}(): 'colptr' must rise from 0 to the {row.shape[0]} edges of "
            f"'row' (one more entry than nodes)"
        )
    bad = np.flatnonzero((nodes < 0) | (nodes >= n))
    if bad.size:
        raise IndexError(
            f"{api}(): input_nodes[{int(bad[0])}] = {int(nodes[bad[0]])} is not a "
            f"node of the graph (0 .. {n - 1})"
        )
    return ptr, nodes, k


def _sample(row, ptr, nodes, k, keys, eids, return_eids):
    """For each node, the positions of the k edges with the largest keys (all when the
    degree is at most k, or k is -1), kept in edge order."""
    picked, counts = [], np.zeros(nodes.size, np.int32)
    for i, v in enumerate(nodes):
        b, e = int(ptr[v]), int(ptr[v + 1])
        if k == -1 or e - b <= k:
            pos = np.arange(b, e)
        else:
            pos = b + np.sort(np.argsort(-keys[b:e], kind="stable")[:k])
        picked.append(pos)
        counts[i] = pos.size
    pos = np.concatenate(picked) if picked else np.zeros(0, np.int64)
    out = [to_tensor(row.numpy()[pos]), to_tensor(counts)]
    if return_eids:
        out.append(to_tensor(eids.numpy()[pos]))
    return tuple(out)


def _uniform(n):
    return _C.uniform([n], convert_dtype("float64"), 0.0, 1.0, 0).numpy() if n else np.zeros(0)


def sample_neighbors(
    row: Tensor,
    colptr: Tensor,
    input_nodes: Tensor,
    sample_size: int = -1,
    eids: Tensor | None = None,
    return_eids: bool = False,
    perm_buffer: Tensor | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]:
    """Samples up to sample_size neighbours of each input node uniformly without
    replacement (all of them when the node has fewer, or sample_size is -1).

    Args:
        row, colptr: the graph in CSC form, int32/int64.
        input_nodes: the nodes to sample for, row's dtype.
        sample_size: neighbours per node; -1 for all.
        eids, return_eids: with return_eids, also return eids (one id per edge) of the
            sampled edges.
        perm_buffer: Paddle's GPU buffer, accepted and unused.

    Returns:
        (out_neighbors in row's dtype, out_count int32 per input node[, out_eids]).
    """
    api = "sample_neighbors"
    ptr, nodes, k = _graph(api, row, colptr, input_nodes, sample_size, eids, return_eids)
    if perm_buffer is not None:
        C.tensor(api, "perm_buffer", perm_buffer)
    return _sample(row, ptr, nodes, k, _uniform(row.shape[0]), eids, return_eids)


def weighted_sample_neighbors(
    row: Tensor,
    colptr: Tensor,
    edge_weight: Tensor,
    input_nodes: Tensor,
    sample_size: int = -1,
    eids: Tensor | None = None,
    return_eids: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor] | tuple[Tensor, Tensor, Tensor]:
    """Samples up to sample_size neighbours of each input node without replacement, each
    draw with probability proportional to edge_weight (Efraimidis-Spirakis: the k
    largest u^(1/w), u uniform); zero-weight edges are picked only when the node has
    too few others. Arguments and results as sample_neighbors; edge_weight is a 1-D float
    tensor with a non-negative weight per edge (entries past the last edge are ignored,
    as in Paddle)."""
    api = "weighted_sample_neighbors"
    ptr, nodes, k = _graph(api, row, colptr, input_nodes, sample_size, eids, return_eids)
    C.tensor(api, "edge_weight", edge_weight)
    if (
        edge_weight.ndim != 1
        or edge_weight.shape[0] < row.shape[0]
        or not edge_weight.dtype.is_floating_point
    ):
        raise ValueError(
            f"{api}(): 'edge_weight' must be a 1-D float tensor with a weight for "
            f"each of the {row.shape[0]} edges, but is {edge_weight.dtype.name} "
            f"{edge_weight.shape}"
        )
    # Entries past the edges are ignored, as Paddle's kernel does.
    w = edge_weight.numpy()[: row.shape[0]].astype(np.float64)
    if (w < 0).any() or not np.isfinite(w).all():
        raise ValueError(f"{api}(): edge weights must be finite and non-negative")
    u = _uniform(row.shape[0])
    with np.errstate(divide="ignore"):
        keys = np.where(w > 0, np.log(np.maximum(u, 1e-300)) / np.where(w > 0, w, 1.0), -np.inf)
    return _sample(row, ptr, nodes, k, keys, eids, return_eids)
