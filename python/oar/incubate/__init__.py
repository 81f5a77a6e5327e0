"""oar.incubate: Paddle's incubating APIs that oar implements.

- LookAhead, ModelAverage (also in oar.incubate.optimizer), and
  oar.incubate.optimizer.LBFGS and .functional.minimize_bfgs / minimize_lbfgs;
- oar.incubate.autograd: Jacobian, Hessian (lazy, row by row), jvp, vjp, and the
  primitive-mode API (grad, forward_grad, enable_prim, ...) in eager mode;
- oar.incubate.asp: 2:4 (n:m) structured sparsity masks, calculate_density;
- oar.incubate.autotune.set_config: recorded only (no kernel tuning on the CPU);
- identity_loss, softmax_mask_fuse, softmax_mask_fuse_upper_triangle: composed from
  oar ops (fused_ops.py);
- segment_sum/mean/max/min, graph_send_recv, graph_sample_neighbors, graph_reindex:
  oar.geometric under Paddle's older names (graph.py); graph_khop_sampler composed
  from them (graph_khop.py);
- oar.incubate.nn: the fused layers (FusedLinear, FusedFeedForward,
  FusedMultiHeadAttention, FusedTransformerEncoderLayer, ...) and nn.functional's fused
  functions (fused_linear, fused_bias_act, fused_layer_norm, fused_rms_norm,
  fused_rotary_position_embedding, fused_feedforward, ...), composed from oar ops.

docs/incubate.md lists what is left out.
"""

from . import asp, autograd, autotune, nn, optimizer  # noqa: F401
from .fused_ops import (
    identity_loss,
    softmax_mask_fuse,  # noqa: F401
    softmax_mask_fuse_upper_triangle,
)
from .graph import graph_reindex, graph_sample_neighbors, graph_send_recv  # noqa: F401
from .graph import segment_max, segment_mean, segment_min, segment_sum  # noqa: F401
from .graph_khop import graph_khop_sampler  # noqa: F401
from .optimizer import LookAhead, ModelAverage  # noqa: F401

__all__ = [
    "LookAhead",
    "ModelAverage",
    "graph_send_recv",
    "graph_sample_neighbors",
    "graph_reindex",
    "graph_khop_sampler",
    "segment_sum",
    "segment_mean",
    "segment_max",
    "segment_min",
    "identity_loss",
    "softmax_mask_fuse",
    "softmax_mask_fuse_upper_triangle",
]
