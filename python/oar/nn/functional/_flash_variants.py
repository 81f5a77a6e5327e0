"""oar.nn.functional: Paddle's GPU attention kernels on the CPU: flash_attn_qkvpacked,
flash_attn_varlen_qkvpacked, flash_attention_v3_varlen, flashmask_attention and
sparse_attention.

Each is the math path of scaled_dot_product_attention (a GEMM, a softmax, a GEMM, the
scores materialised) with the kernel's masking written out as a boolean mask: causal,
sliding windows, FlashMask's column-wise row ranges, the CSR pattern of
sparse_attention, and the sequence boundaries of the packed (varlen) layouts. Gradients
flow to q, k and v (to qkv for the packed forms) through ordinary oar ops.

Conventions of the FlashAttention kernels kept here: the causal diagonal is aligned to the
bottom-right corner when a sequence has more keys than queries; a query row with no key
to attend to gives 0; grouped-query attention maps query head h to key/value head
h // (num_heads / num_heads_k). Dropout draws its mask from a Philox stream keyed by
(seed, offset): `fixed_seed_offset` gives the pair, otherwise the seed comes from oar's
default generator (so oar.seed makes it reproducible).
"""

from ._flash_common import flash_attn_qkvpacked
from ._flash_varlen import flash_attention_v3_varlen, flash_attn_varlen_qkvpacked
from ._flashmask import flashmask_attention
from ._sparse_attention import sparse_attention

__all__ = [
    "flash_attn_qkvpacked",
    "flash_attn_varlen_qkvpacked",
    "flash_attention_v3_varlen",
    "flashmask_attention",
    "sparse_attention",
]
