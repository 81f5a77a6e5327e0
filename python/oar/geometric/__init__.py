"""oar.geometric: Paddle's paddle.geometric, graph learning on oar.

Segment reductions (segment_sum/mean/max/min) and message passing (send_u_recv,
send_ue_recv, send_uv) are the differentiable ops of src/oar/ops/geometric.yaml, so
gradients of every order flow through them; graph reindexing and neighbour sampling
(reindex_graph, reindex_heter_graph, sample_neighbors, weighted_sample_neighbors) build
integer index tensors (docs/geometric.md)."""

from .math import segment_max, segment_mean, segment_min, segment_sum  # noqa: F401
from .message_passing import send_u_recv, send_ue_recv, send_uv  # noqa: F401
from .reindex import reindex_graph, reindex_heter_graph  # noqa: F401
from .sampling import sample_neighbors, weighted_sample_neighbors  # noqa: F401

__all__ = [
    "send_u_recv",
    "send_ue_recv",
    "send_uv",
    "segment_sum",
    "segment_mean",
    "segment_min",
    "segment_max",
    "reindex_graph",
    "reindex_heter_graph",
    "sample_neighbors",
    "weighted_sample_neighbors",
]
