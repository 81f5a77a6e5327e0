"""FusedMultiHeadAttention: self-attention over fused_multi_head_attention, with
Paddle's parameter names and shapes (so state_dicts load either way)."""

from __future__ import annotations

from ....nn.layer.layers import Layer, _dtype_text
from ....nn.layer.transformer import _convert_attention_mask
from ..functional import _common as c
from ..functional import fused_multi_head_attention
from . import _common as lc

__all__ = ["FusedMultiHeadAttention"]


class FusedMultiHeadAttention(Layer):
    """Self-attention over fused_multi_head_attention: qkv_weight [3, num_heads,
    head_dim, embed_dim] (or [embed_dim, 3 * embed_dim] with transpose_qkv_wb), qkv_bias,
    linear_weight [embed_dim, embed_dim], linear_bias, and pre_ln_scale/pre_ln_bias
    (normalize_before) or ln_scale/ln_bias.

    Args:
        embed_dim (int): The model width.
        num_heads (int): The number of heads; must divide embed_dim.
        dropout_rate (float, optional): Before the residual add. Default: 0.5.
        attn_dropout_rate (float, optional): On the attention weights. Default: 0.5.
        kdim (int|None, optional): Unused (self-attention only), as Paddle.
            Default: None.
        vdim (int|None, optional): Unused, as Paddle. Default: None.
        normalize_before (bool, optional): Pre-layer-norm. Default: False.
        need_weights (bool, optional): Must be False, as Paddle. Default: False.
        qkv_weight_attr, qkv_bias_attr, linear_weight_attr, linear_bias_attr,
        pre_ln_scale_attr, pre_ln_bias_attr, ln_scale_attr, ln_bias_attr
            (ParamAttr|None, optional): The parameters' attributes. Default: None.
        epsilon (float, optional): Both norms' epsilon. Default: 1e-5.
        nranks (int, optional): Tensor-parallel ranks; the heads are split. Default: 1.
        ring_id (int, optional): Unused on one process. Default: -1.
        transpose_qkv_wb (bool, optional): The 2-D qkv_weight layout. Default: False.
        name (str|None, optional): Shown by repr. Default: None.
    """

    def __init__(
        self,
        embed_dim,
        num_heads,
        dropout_rate=0.5,
        attn_dropout_rate=0.5,
        kdim=None,
        vdim=None,
        normalize_before=False,
        need_weights=False,
        qkv_weight_attr=None,
        qkv_bias_attr=None,
        linear_weight_attr=None,
        linear_bias_attr=None,
        pre_ln_scale_attr=None,
        pre_ln_bias_attr=None,
        ln_scale_attr=None,
        ln_bias_attr=None,
        epsilon=1e-5,
        nranks=1,
        ring_id=-1,
        transpose_qkv_wb=False,
        name=None,
    ):
        super().__init__()
        who = "FusedMultiHeadAttention"
        lc.positive(who, "embed_dim", embed_dim)
        lc.positive(who, "num_heads", num_heads)
        if embed_dim % num_heads:
            raise ValueError(
                f"{who}: embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})"
            )
        if need_weights:
            raise ValueError(f"{who}: only need_weights=False is supported, as in Paddle")
        c.rate(who, "dropout_rate", dropout_rate)
        c.rate(who, "attn_dropout_rate", attn_dropout_rate)
        self.normalize_before = normalize_before
        self._epsilon = epsilon
        self._ring_id = ring_id
        self.embed_dim = embed_dim
        self.head_dim = embed_dim // num_heads
        self.num_heads = lc.shard(who, "num_heads", num_heads, nranks, ring_id)
        self.kdim, self.vdim = kdim, vdim
        self.need_weights = need_weights
        self.transpose_qkv_wb = transpose_qkv_wb
        width = self.num_heads * self.head_dim
        if transpose_qkv_wb:
            qkv_shape, qkv_bias_shape = [embed_dim, 3 * width], [3 * width]
        else:
            qkv_shape = [3, self.num_heads, self.head_dim, embed_dim]
            qkv_bias_shape = [3, self.num_heads, self.head_dim]
        self.qkv_weight = self.create_parameter(qkv_shape, attr=qkv_weight_attr)
        self.qkv_bias = self.create_parameter(qkv_bias_shape, attr=qkv_bias_attr, is_bias=True)
        self.linear_weight = self.create_parameter([width, embed_dim], attr=linear_weight_attr)
        self.linear_bias = self.create_parameter([embed_dim], attr=linear_bias_attr, is_bias=True)
        if normalize_before:
            self.pre_ln_scale, self.pre_ln_bias = lc.norm_pair(
                self, embed_dim, pre_ln_scale_attr, pre_ln_bias_attr
            )
            self.ln_scale = self.ln_bias = None
        else:
            self.pre_ln_scale = self.pre_ln_bias = None
            self.ln_scale, self.ln_bias = lc.norm_pair(self, embed_dim, ln_scale_attr, ln_bias_attr)
        self.dropout_rate = dropout_rate
        self.attn_dropout_rate = attn_dropout_rate
        self.name = name

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        """Self-attention of query ([batch, seq_len, embed_dim]); key and value are
        ignored, as in Paddle. cache: a [2, batch, num_heads, len, head_dim] key/value
        cache; then (out, new_cache) is returned."""
        if attn_mask is not None:
            attn_mask = _convert_attention_mask(attn_mask, query.dtype)
        return fused_multi_head_attention(
            x=query,
            qkv_weight=self.qkv_weight,
            linear_weight=self.linear_weight,
            pre_layer_norm=self.normalize_before,
            pre_ln_scale=self.pre_ln_scale,
            pre_ln_bias=self.pre_ln_bias,
            ln_scale=self.ln_scale,
            ln_bias=self.ln_bias,
            pre_ln_epsilon=self._epsilon,
            qkv_bias=self.qkv_bias,
            linear_bias=self.linear_bias,
            cache_kv=cache,
            attn_mask=attn_mask,
            dropout_rate=self.dropout_rate,
            attn_dropout_rate=self.attn_dropout_rate,
            ln_epsilon=self._epsilon,
            training=self.training,
            ring_id=self._ring_id,
            num_heads=self.num_heads,
            transpose_qkv_wb=self.transpose_qkv_wb,
            name=self.name,
        )

    def extra_repr(self):
        return (
            f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
            f"dropout_rate={self.dropout_rate}, "
            f"attn_dropout_rate={self.attn_dropout_rate}, epsilon={self._epsilon}, "
            f"kdim={self.kdim}, vdim={self.vdim}, "
            f"normalize_before={self.normalize_before}, "
            f"need_weights={self.need_weights}, dtype={_dtype_text(self)}" + lc.suffix(self.name)
        )
