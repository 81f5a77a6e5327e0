"""FusedMultiTransformer: a stack of decoder layers over fused_multi_transformer, with
Paddle's per-layer parameter lists, parameter names and shapes (so state_dicts load
either way)."""

from __future__ import annotations

from ....nn.initializer import Constant
from ....nn.layer.layers import Layer
from ..functional import _common as c
from ..functional import fused_multi_transformer
from ..functional.fused_multi_transformer import ACTS, NORMS
from . import _common as lc

__all__ = ["FusedMultiTransformer"]
WHO = "FusedMultiTransformer"


def _attr(attrs, i, n, arg):
    """Layer i's attribute: a list/tuple gives one per layer, anything else is shared."""
    if isinstance(attrs, (list, tuple)):
        if len(attrs) != n:
            raise ValueError(
                f"{WHO}: argument '{arg}' has {len(attrs)} entries, but there are {n} layers"
            )
        return attrs[i]
    return attrs


class FusedMultiTransformer(Layer):
    """num_layers decoder layers (see fused_multi_transformer): per layer ln_scales,
    ln_biases, qkv_weights, qkv_biases, linear_weights, linear_biases, ffn_ln_scales,
    ffn_ln_biases, ffn1_weights, ffn1_biases, ffn2_weights, ffn2_biases, each a list
    with one entry per layer. As in Paddle, a bias exists only when its attribute is
    given (truthy): by default the layers have no biases, and a bias list whose first
    entry is missing becomes None.

    Args:
        embed_dim (int): The model width.
        num_heads (int): Query heads; must divide embed_dim.
        dim_feedforward (int): The feed-forward width (for geglu/swiglu ffn1 has twice
            as many outputs).
        dropout_rate (float, optional): Default: 0.0.
        activation (str, optional): 'gelu', 'relu', 'geglu' or 'swiglu'.
            Default: 'gelu'.
        normalize_before (bool, optional): Pre-norm. Default: True.
        ln_scale_attrs, ln_bias_attrs, qkv_weight_attrs, qkv_bias_attrs,
        linear_weight_attrs, linear_bias_attrs, ffn_ln_scale_attrs, ffn_ln_bias_attrs,
        ffn1_weight_attrs, ffn1_bias_attrs, ffn2_weight_attrs, ffn2_bias_attrs
            (ParamAttr|list|tuple|bool|None, optional): One attribute for all layers
            or one per layer (a list of qkv_weight_attrs sets num_layers). Default:
            None.
        epsilon (float, optional): The norms' epsilon. Default: 1e-5.
        residual_alpha (float, optional): The residual's weight. Default: 1.0.
        num_layers (int, optional): The number of layers, unless qkv_weight_attrs is a
            list. Default: -1.
        nranks (int, optional): Tensor-parallel ranks; heads and dim_feedforward are
            split (one process: the parameters are one rank's shard). Default: 1.
        trans_qkvw (bool, optional): qkv weights [3, heads, head_dim, embed_dim]
            (else [embed_dim, 3, heads, head_dim]). Default: True.
        ring_id (int, optional): Unused on one process. Default: -1.
        norm_type (str, optional): 'layernorm' (norm parameters in float32) or
            'rmsnorm'. Default: 'layernorm'.
        use_neox_rotary_style (bool, optional): See fused_multi_transformer.
            Default: False.
        gqa_group_size (int, optional): > 0: the number of key/value heads.
            Default: -1.
        name (str|None, optional): Default: None.
    """

    def __init__(
        self,
        embed_dim,
        num_heads,
        dim_feedforward,
        dropout_rate=0.0,
        activation="gelu",
        normalize_before=True,
        ln_scale_attrs=None,
        ln_bias_attrs=None,
        qkv_weight_attrs=None,
        qkv_bias_attrs=None,
        linear_weight_attrs=None,
        linear_bias_attrs=None,
        ffn_ln_scale_attrs=None,
        ffn_ln_bias_attrs=None,
        ffn1_weight_attrs=None,
        ffn1_bias_attrs=None,
        ffn2_weight_attrs=None,
        ffn2_bias_attrs=None,
        epsilon=1e-5,
        residual_alpha=1.0,
        num_layers=-1,
        nranks=1,
        trans_qkvw=True,
        ring_id=-1,
        norm_type="layernorm",
        use_neox_rotary_style=False,
        gqa_group_size=-1,
        name=None,
    ):
        super().__init__()
        for arg, v in (
            ("embed_dim", embed_dim),
            ("num_heads", num_heads),
            ("dim_feedforward", dim_feedforward),
        ):
            lc.positive(WHO, arg, v)
        if embed_dim % num_heads:
            raise ValueError(
                f"{WHO}: embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})"
            )
        if activation not in ACTS:
            raise ValueError(
                f"{WHO}: argument 'activation' must be one of {', '.join(ACTS)}, got {activation!r}"
            )
        if norm_type not in NORMS:
            raise ValueError(
                f"{WHO}: argument 'norm_type' must be one of {', '.join(NORMS)}, got {norm_type!r}"
            )
        c.rate(WHO, "dropout_rate", dropout_rate)
        if isinstance(qkv_weight_attrs, (list, tuple)):
            num_layers = len(qkv_weight_attrs)
        lc.positive(WHO, "num_layers", num_layers)
        self.normalize_before = normalize_before
        self._epsilon, self._residual_alpha = epsilon, residual_alpha
        self._trans_qkvw, self._ring_id, self._norm_type = trans_qkvw, ring_id, norm_type
        self._use_neox_rotary_style, self._gqa_group_size = use_neox_rotary_style, gqa_group_size
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        heads = lc.shard(WHO, "num_heads", num_heads, nranks, ring_id)
        dff = lc.shard(WHO, "dim_feedforward", dim_feedforward, nranks, ring_id)
        self._dim_feedforward = dff
        norm_dtype = "float32" if norm_type == "layernorm" else None
        qkv_heads = [3, heads] if gqa_group_size <= 0 else [heads + 2 * gqa_group_size]
        qkv_shape = (
            qkv_heads + [self.head_dim, embed_dim]
            if trans_qkvw
            else [embed_dim] + qkv_heads + [self.head_dim]
        )
        glu = activation.endswith("glu")
        # (list name, attrs argument, its name, shape, is_bias, dtype, ones)
        specs = (
            ("ln_scales", ln_scale_attrs, "ln_scale_attrs", [embed_dim], False, norm_dtype, 1),
            ("ln_biases", ln_bias_attrs, "ln_bias_attrs", [embed_dim], True, norm_dtype, 0),
            ("qkv_weights", qkv_weight_attrs, "qkv_weight_attrs", qkv_shape, False, None, 0),
            (
                "qkv_biases",
                qkv_bias_attrs,
                "qkv_bias_attrs",
                qkv_heads + [self.head_dim],
                True,
                None,
                0,
            ),
            (
                "linear_weights",
                linear_weight_attrs,
                "linear_weight_attrs",
                [heads * self.head_dim, embed_dim],
                False,
                None,
                0,
            ),
            ("linear_biases", linear_bias_attrs, "linear_bias_attrs", [embed_dim], True, None, 0),
            (
                "ffn_ln_scales",
                ffn_ln_scale_attrs,
                "ffn_ln_scale_attrs",
                [embed_dim],
                False,
                norm_dtype,
                1,
            ),
            (
                "ffn_ln_biases",
                ffn_ln_bias_attrs,
                "ffn_ln_bias_attrs",
                [embed_dim],
                True,
                norm_dtype,
                0,
            ),
            (
                "ffn1_weights",
                ffn1_weight_attrs,
                "ffn1_weight_attrs",
                [embed_dim, 2 * dff if glu else dff],
                False,
                None,
                0,
            ),
            (
                "ffn1_biases",
                ffn1_bias_attrs,
                "ffn1_bias_attrs",
                [2 * dff if glu else dff],
                True,
                None,
                0,
            ),
            (
                "ffn2_weights",
                ffn2_weight_attrs,
                "ffn2_weight_attrs",
                [dff, embed_dim],
                False,
                None,
                0,
            ),
            ("ffn2_biases", ffn2_bias_attrs, "ffn2_bias_attrs", [embed_dim], True, None, 0),
        )
        lists = {spec[0]: [] for spec in specs}
        for i in range(num_layers):
            for key, attrs, arg, shape, is_bias, dtype, ones in specs:
                a = _attr(attrs, i, num_layers, arg)
                p = None
                if not is_bias or a:  # Paddle creates a bias only for a truthy attribute
                    p = self.create_parameter(
                        shape,
                        attr=None if a is True else a,
                        dtype=dtype,
                        is_bias=is_bias,
                        default_initializer=Constant(1.0) if ones else None,
                    )
                if p is not None:
                    # registered under the parameter's own name, as Paddle does
                    self._parameters[p.name] = p
                lists[key].append(p)
        for key, ps in lists.items():
            object.__setattr__(self, key, None if ps[0] is None else ps)
        self.dropout_rate = dropout_rate
        self.activation = activation
        self.name = name

    def forward(
        self,
        src,
        attn_mask=None,
        caches=None,
        pre_caches=None,
        rotary_embs=None,
        rotary_emb_dims=0,
        beam_offset=None,
        seq_lens=None,
        time_step=None,
    ):
        """The layers on src [batch_size, seq_len, embed_dim]; with caches (one
        [2, batch_size, kv_heads, max_seq_len, head_dim] per layer, updated in place)
        returns (out, caches). The arguments are fused_multi_transformer's."""
        if caches is not None and (
            not isinstance(caches, (list, tuple)) or len(caches) != len(self.qkv_weights)
        ):
            raise ValueError(
                f"{WHO}.forward(): 'caches' must be a list with one cache per "
                f"layer ({len(self.qkv_weights)})"
            )
        return fused_multi_transformer(
            src,
            self.ln_scales,
            self.ln_biases,
            self.qkv_weights,
            self.qkv_biases,
            self.linear_weights,
            self.linear_biases,
            self.ffn_ln_scales,
            self.ffn_ln_biases,
            self.ffn1_weights,
            self.ffn1_biases,
            self.ffn2_weights,
            self.ffn2_biases,
            pre_layer_norm=self.normalize_before,
            epsilon=self._epsilon,
            residual_alpha=self._residual_alpha,
            cache_kvs=caches,
            beam_offset=beam_offset,
            pre_caches=pre_caches,
            rotary_embs=rotary_embs,
            time_step=time_step,
            seq_lens=seq_lens,
            attn_mask=attn_mask,
            dropout_rate=self.dropout_rate,
            rotary_emb_dims=rotary_emb_dims,
            activation=self.activation,
            training=self.training,
            mode="upscale_in_train",
            trans_qkvw=self._trans_qkvw,
            ring_id=self._ring_id,
            norm_type=self._norm_type,
            use_neox_rotary_style=self._use_neox_rotary_style,
            gqa_group_size=self._gqa_group_size,
            name=self.name,
        )
