"""The layers of oar.incubate.nn (Paddle's paddle.incubate.nn.layer)."""

from .fused_attention import FusedMultiHeadAttention  # noqa: F401
from .fused_dropout_add import FusedDropoutAdd  # noqa: F401
from .fused_feedforward import FusedBiasDropoutResidualLayerNorm, FusedFeedForward  # noqa: F401
from .fused_linear import FusedLinear  # noqa: F401
from .fused_multi_transformer import FusedMultiTransformer  # noqa: F401
from .fused_transformer import FusedTransformerEncoderLayer  # noqa: F401
