"""FusedFeedForward and FusedBiasDropoutResidualLayerNorm: the residual blocks over
fused_feedforward and fused_bias_dropout_residual_layer_norm, with Paddle's parameter
names and shapes (so state_dicts load either way)."""

from __future__ import annotations

from ....nn.layer.layers import Layer, _dtype_text
from ..functional import _common as c
from ..functional import fused_bias_dropout_residual_layer_norm, fused_feedforward
from . import _common as lc

__all__ = ["FusedFeedForward", "FusedBiasDropoutResidualLayerNorm"]


class FusedFeedForward(Layer):
    """The feed-forward block over fused_feedforward: _linear1_weight [d_model,
    dim_feedforward], _linear1_bias, _linear2_weight [dim_feedforward, d_model],
    _linear2_bias, and _ln1_scale/_ln1_bias (normalize_before) or _ln2_scale/_ln2_bias.

    Args:
        d_model (int): The model width.
        dim_feedforward (int): The hidden width.
        dropout_rate (float, optional): Before the residual add. Default: 0.1.
        epsilon (float, optional): The norm's epsilon. Default: 1e-5.
        activation (str, optional): 'relu' or 'gelu'. Default: 'relu'.
        act_dropout_rate (float|None, optional): After the activation; None: dropout_rate.
            Default: None.
        normalize_before (bool, optional): Pre-layer-norm. Default: False.
        linear1_weight_attr, linear1_bias_attr, linear2_weight_attr, linear2_bias_attr,
        ln1_scale_attr, ln1_bias_attr, ln2_scale_attr, ln2_bias_attr
            (ParamAttr|None, optional): The parameters' attributes. Default: None.
        nranks (int, optional): Tensor-parallel ranks; dim_feedforward is split.
            Default: 1.
        ring_id (int, optional): Unused on one process. Default: -1.
        name (str|None, optional): Shown by repr. Default: None.
    """

    def __init__(
        self,
        d_model,
        dim_feedforward,
        dropout_rate=0.1,
        epsilon=1e-05,
        activation="relu",
        act_dropout_rate=None,
        normalize_before=False,
        linear1_weight_attr=None,
        linear1_bias_attr=None,
        linear2_weight_attr=None,
        linear2_bias_attr=None,
        ln1_scale_attr=None,
        ln1_bias_attr=None,
        ln2_scale_attr=None,
        ln2_bias_attr=None,
        nranks=1,
        ring_id=-1,
        name=None,
    ):
        super().__init__()
        who = "FusedFeedForward"
        lc.positive(who, "d_model", d_model)
        lc.positive(who, "dim_feedforward", dim_feedforward)
        if activation not in ("relu", "gelu"):
            raise ValueError(
                f"{who}: argument 'activation' must be 'relu' or 'gelu', got {activation!r}"
            )
        self._d_model = d_model
        dim_feedforward = lc.shard(who, "dim_feedforward", dim_feedforward, nranks, ring_id)
        self._dim_feedforward = dim_feedforward
        c.rate(who, "dropout_rate", dropout_rate)
        self._dropout_rate = dropout_rate
        self._act_dropout_rate = dropout_rate if act_dropout_rate is None else act_dropout_rate
        c.rate(who, "act_dropout_rate", self._act_dropout_rate)
        self._act_method = activation
        self._normalize_before = normalize_before
        self._epsilon = epsilon
        self._ring_id = ring_id
        self._linear1_weight = self.create_parameter(
            [d_model, dim_feedforward], attr=linear1_weight_attr
        )
        self._linear1_bias = self.create_parameter(
            [dim_feedforward], attr=linear1_bias_attr, is_bias=True
        )
        self._linear2_weight = self.create_parameter(
            [dim_feedforward, d_model], attr=linear2_weight_attr
        )
        self._linear2_bias = self.create_parameter([d_model], attr=linear2_bias_attr, is_bias=True)
        if normalize_before:
            self._ln1_scale, self._ln1_bias = lc.norm_pair(
                self, d_model, ln1_scale_attr, ln1_bias_attr
            )
            self._ln2_scale = self._ln2_bias = None
        else:
            self._ln1_scale = self._ln1_bias = None
            self._ln2_scale, self._ln2_bias = lc.norm_pair(
                self, d_model, ln2_scale_attr, ln2_bias_attr
            )
        self.name = name

    def forward(self, src, cache=None):
        return fused_feedforward(
            src,
            self._linear1_weight,
            self._linear2_weight,
            self._linear1_bias,
            self._linear2_bias,
            self._ln1_scale,
            self._ln1_bias,
            self._ln2_scale,
            self._ln2_bias,
            dropout1_rate=self._act_dropout_rate,
            dropout2_rate=self._dropout_rate,
            activation=self._act_method,
            ln1_epsilon=self._epsilon,
            ln2_epsilon=self._epsilon,
            pre_layer_norm=self._normalize_before,
            training=self.training,
            ring_id=self._ring_id,
            name=self.name,
        )

    def extra_repr(self):
        return (
            f"d_model={self._d_model}, dim_feedforward={self._dim_feedforward}, "
            f"dropout_rate={self._dropout_rate}, epsilon={self._epsilon}, "
            f"activation={self._act_method}, act_dropout_rate={self._act_dropout_rate}, "
            f"normalize_before={self._normalize_before}, dtype={_dtype_text(self)}"
            + lc.suffix(self.name)
        )


class FusedBiasDropoutResidualLayerNorm(Layer):
    """forward(x, residual) = layer_norm(residual + dropout(x + linear_bias)).

    Args:
        embed_dim (int): The size of the last axis.
        dropout_rate (float, optional): Default: 0.5.
        weight_attr (ParamAttr|None, optional): The norm scale's attribute. Default: None.
        bias_attr (ParamAttr|bool|None, optional): linear_bias's and the norm shift's.
            Default: None.
        epsilon (float, optional): The norm's epsilon. Default: 1e-5.
        name (str|None, optional): Shown by repr. Default: None.
    """

    def __init__(
        self, embed_dim, dropout_rate=0.5, weight_attr=None, bias_attr=None, epsilon=1e-5, name=None
    ):
        super().__init__()
        who = "FusedBiasDropoutResidualLayerNorm"
        lc.positive(who, "embed_dim", embed_dim)
        c.rate(who, "dropout_rate", dropout_rate)
        self.embed_dim = embed_dim
        self.linear_bias = self.create_parameter([embed_dim], attr=bias_attr, is_bias=True)
        self.ln_scale, self.ln_bias = lc.norm_pair(self, embed_dim, weight_attr, bias_attr)
        self.dropout_rate = dropout_rate
        self._epsilon = epsilon
        self.name = name

    def forward(self, x, residual):
        return fused_bias_dropout_residual_layer_norm(
            x,
            residual,
            bias=self.linear_bias,
            ln_scale=self.ln_scale,
            ln_bias=self.ln_bias,
            dropout_rate=self.dropout_rate,
            ln_epsilon=self._epsilon,
            training=self.training,
            mode="upscale_in_train",
            name=self.name,
        )

    def extra_repr(self):
        return (
            f"embed_dim={self.embed_dim}, dropout_rate={self.dropout_rate}, "
            f"epsilon={self._epsilon}, dtype={_dtype_text(self)}" + lc.suffix(self.name)
        )
