"""oar.incubate.nn.functional: Paddle's fused functions that make sense on a CPU,
composed from oar ops (differentiable, dropout from the default generator).

- fused_matmul_bias, fused_linear, fused_linear_activation: matmul + bias (+ relu/gelu);
- fused_bias_act: bias + gelu/relu/swiglu/geglu, with int32 dequantisation, smooth-quant
  shift/smooth and int8 output quantisation;
- fused_dropout_add: dropout(x) + y;
- fused_layer_norm, fast_ln, fused_rms_norm, fused_rms_norm_ext, fast_rms_norm: norms of
  x (+ bias + residual), returning the sum and statistics as Paddle;
- fused_rotary_position_embedding: RoPE of q/k/v, both pairings, given or computed
  tables, position ids;
- fused_feedforward, fused_multi_head_attention, fused_bias_dropout_residual_layer_norm:
  the Transformer blocks; fused_multi_transformer: a stack of decoder layers with a
  key/value cache for incremental decoding;
- swiglu: oar.nn.functional.swiglu (Paddle's deprecated incubate alias);
- moe_combine, cal_aux_loss, int_bincount, build_src_rank_and_local_expert_id,
  expand_modality_expert_id: Mixture-of-Experts helpers (_moe.py).

docs/incubate.md lists the differences from Paddle.
"""

from ....nn.functional import swiglu  # noqa: F401
from .fused_bias_act import fused_bias_act  # noqa: F401
from .fused_dropout_add import fused_dropout_add  # noqa: F401
from .fused_layer_norm import fast_ln, fused_layer_norm  # noqa: F401
from .fused_matmul_bias import (
    fused_linear,
    fused_linear_activation,  # noqa: F401
    fused_matmul_bias,
)
from .fused_rms_norm import fast_rms_norm, fused_rms_norm, fused_rms_norm_ext  # noqa: F401
from .fused_rotary_position_embedding import fused_rotary_position_embedding  # noqa: F401
from .fused_attention import fused_multi_head_attention  # noqa: F401
from .fused_feedforward import (
    fused_bias_dropout_residual_layer_norm,  # noqa: F401
    fused_feedforward,
)
from .fused_multi_transformer import fused_multi_transformer  # noqa: F401
from ._moe import (
    build_src_rank_and_local_expert_id,
    cal_aux_loss,  # noqa: F401
    expand_modality_expert_id,
    int_bincount,
    moe_combine,
)

__all__ = [
    "fused_matmul_bias",
    "fused_linear",
    "fused_linear_activation",
    "fused_bias_act",
    "fused_dropout_add",
    "fused_layer_norm",
    "fast_ln",
    "fused_rms_norm",
    "fused_rms_norm_ext",
    "fast_rms_norm",
    "fused_rotary_position_embedding",
    "fused_feedforward",
    "fused_multi_head_attention",
    "fused_bias_dropout_residual_layer_norm",
    "fused_multi_transformer",
    "swiglu",
    "moe_combine",
    "cal_aux_loss",
    "int_bincount",
    "build_src_rank_and_local_expert_id",
    "expand_modality_expert_id",
]
