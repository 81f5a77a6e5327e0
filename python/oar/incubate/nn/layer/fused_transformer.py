"""FusedTransformerEncoderLayer: FusedMultiHeadAttention then FusedFeedForward, with
Paddle's sub-layer names (fused_attn, ffn)."""

from __future__ import annotations

from ....nn.layer.layers import Layer
from ....nn.layer.transformer import _attr_list, _convert_attention_mask
from . import _common as lc
from .fused_attention import FusedMultiHeadAttention
from .fused_feedforward import FusedFeedForward

__all__ = ["FusedTransformerEncoderLayer"]


class FusedTransformerEncoderLayer(Layer):
    """A Transformer encoder layer: fused_attn (FusedMultiHeadAttention) then ffn
    (FusedFeedForward), post- or pre-layer-norm.

    Args:
        d_model (int): The model width.
        nhead (int): The number of heads.
        dim_feedforward (int): The feed-forward hidden width.
        dropout_rate (float, optional): The residual dropouts. Default: 0.1.
        activation (str, optional): 'relu' or 'gelu'. Default: 'relu'.
        attn_dropout_rate (float|None, optional): None: dropout_rate. Default: None.
        act_dropout_rate (float|None, optional): None: dropout_rate. Default: None.
        normalize_before (bool, optional): Pre-layer-norm. Default: False.
        weight_attr (ParamAttr|list|None, optional): One for both sub-layers, or a list
            of two (attention, feed-forward). Default: None.
        bias_attr (ParamAttr|bool|list|None, optional): Likewise. Default: None.
    """

    def __init__(
        self,
        d_model,
        nhead,
        dim_feedforward,
        dropout_rate=0.1,
        activation="relu",
        attn_dropout_rate=None,
        act_dropout_rate=None,
        normalize_before=False,
        weight_attr=None,
        bias_attr=None,
    ):
        super().__init__()
        who = "FusedTransformerEncoderLayer"
        for arg, v in (
            ("d_model", d_model),
            ("nhead", nhead),
            ("dim_feedforward", dim_feedforward),
        ):
            lc.positive(who, arg, v)
        attn_dropout_rate = dropout_rate if attn_dropout_rate is None else attn_dropout_rate
        act_dropout_rate = dropout_rate if act_dropout_rate is None else act_dropout_rate
        self.normalize_before = normalize_before
        w, b = _attr_list(weight_attr, 2), _attr_list(bias_attr, 2)
        # Paddle gives each sub-layer's weight (bias) attribute to all its weights
        # (biases), the norms' included.
        self.fused_attn = FusedMultiHeadAttention(
            d_model,
            nhead,
            dropout_rate=dropout_rate,
            attn_dropout_rate=attn_dropout_rate,
            normalize_before=normalize_before,
            qkv_weight_attr=w[0],
            qkv_bias_attr=b[0],
            linear_weight_attr=w[0],
            linear_bias_attr=b[0],
            pre_ln_scale_attr=w[0],
            pre_ln_bias_attr=b[0],
            ln_scale_attr=w[0],
            ln_bias_attr=b[0],
        )
        self.ffn = FusedFeedForward(
            d_model,
            dim_feedforward,
            dropout_rate=dropout_rate,
            activation=activation,
            act_dropout_rate=act_dropout_rate,
            normalize_before=normalize_before,
            linear1_weight_attr=w[1],
            linear1_bias_attr=b[1],
            linear2_weight_attr=w[1],
            linear2_bias_attr=b[1],
        )

    def forward(self, src, src_mask=None, cache=None):
        """src [batch, seq_len, d_model]; src_mask broadcast to [batch, nhead, seq_len,
        key_len] (bool/int: keep True/non-zero); cache: a key/value tensor as
        FusedMultiHeadAttention's, then (out, new_cache) is returned."""
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        if cache is None:
            return self.ffn(self.fused_attn(src, attn_mask=src_mask))
        attn_out, new_cache = self.fused_attn(src, attn_mask=src_mask, cache=cache)
        return self.ffn(attn_out), new_cache
