"""oar.incubate.nn: Paddle's fused layers and functions (paddle.incubate.nn) that make
sense on a CPU, composed from oar ops.

- layers: FusedLinear, FusedDropoutAdd, FusedFeedForward, FusedMultiHeadAttention,
  FusedBiasDropoutResidualLayerNorm, FusedTransformerEncoderLayer, FusedMultiTransformer
  (Paddle's parameter names and shapes);
- functional: the fused functions (see oar.incubate.nn.functional).

docs/incubate.md lists what is left out and the differences from Paddle.
"""

from . import functional  # noqa: F401
from .layer import (
    FusedBiasDropoutResidualLayerNorm,
    FusedDropoutAdd,  # noqa: F401
    FusedFeedForward,
    FusedLinear,
    FusedMultiHeadAttention,
    FusedMultiTransformer,
    FusedTransformerEncoderLayer,
)

__all__ = [
    "FusedMultiHeadAttention",
    "FusedFeedForward",
    "FusedTransformerEncoderLayer",
    "FusedLinear",
    "FusedBiasDropoutResidualLayerNorm",
    "FusedDropoutAdd",
    "FusedMultiTransformer",
]
