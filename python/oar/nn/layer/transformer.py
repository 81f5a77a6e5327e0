"""Attention layers with Paddle's structure and parameter names: MultiHeadAttention
(q_proj / k_proj / v_proj / out_proj Linear sub-layers, incremental and static key/value
caches), TransformerEncoderLayer / TransformerEncoder, TransformerDecoderLayer /
TransformerDecoder and Transformer.

Inputs are batch first, [batch, seq_len, embed_dim]. Attention masks broadcast to
[batch, num_heads, target_len, source_len]: a bool or integer mask keeps the True
(non-zero) positions and adds -1e9 elsewhere (Paddle's conversion, so a fully masked row
is uniform rather than NaN); a float mask is added to the scores.
"""

from __future__ import annotations

from ...framework import check as _check

import numpy as np

import collections
import copy

from ... import _C
from ...framework.param import ParamAttr
from .common import Dropout, Linear
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm
from .. import functional as F
from ...tensor.creation import to_tensor
from ...tensor.creation import zeros
from ..._C import concat

__all__ = [
    "MultiHeadAttention",
    "TransformerEncoderLayer",
    "TransformerEncoder",
    "TransformerDecoderLayer",
    "TransformerDecoder",
    "Transformer",
]

Tensor = _C.Tensor


def _positive(who, name, v):
    if not _check.is_int(v) or v < 1:
        raise ValueError(f"{who}: argument '{name}' must be a positive int, got {v!r}")


def _check_3d(who, name, t, size, size_name):
    if not isinstance(t, Tensor):
        raise TypeError(f"{who}: argument '{name}' must be a Tensor, got {type(t).__name__}")
    if t.ndim != 3 or t.shape[-1] != size:
        raise ValueError(
            f"{who}: argument '{name}' must be 3-D [batch_size, seq_len, "
            f"{size_name}={size}], got shape {t.shape}"
        )


def _convert_attention_mask(attn_mask, dtype):
    """A bool/int mask -> 0 where kept, -1e9 where masked; a float mask cast to dtype."""
    if attn_mask is None or attn_mask.dtype == dtype:
        return attn_mask
    if attn_mask.dtype.name == "bool" or not attn_mask.dtype.is_floating_point:
        return _C.scale(_C.cast(attn_mask, dtype), 1e9, -1e9)
    return _C.cast(attn_mask, dtype)


def _attr_list(attr, n):
    """Paddle's per-sub-layer attributes: a list of n, or one attribute for all (a named
    one gets the suffix _i so the parameters' names stay unique)."""
    if isinstance(attr, (list, tuple)):
        if len(attr) != n:
            raise ValueError(
                f"weight_attr/bias_attr: a list must have {n} entries, got {len(attr)}"
            )
        return [(None if a is True else a) for a in attr]
    if isinstance(attr, bool):
        return [None if attr else False] * n
    attr = ParamAttr._to_attr(attr)
    out = []
    for i in range(n):
        a = copy.deepcopy(attr)
        if attr.name:
            a.name = f"{attr.name}_{i}"
        out.append(a)
    return out


def _activation(who, name):
    fn = getattr(F, name, None) if isinstance(name, str) else None
    if not callable(fn):
        raise ValueError(
            f"{who}: argument 'activation' must name a function of "
            f"oar.nn.functional (e.g. 'relu', 'gelu'), got {name!r}"
        )
    return fn


# Note [An encoder layer runs its ops itself where nothing observes its sub-layers]
# TransformerEncoderLayer's forward calls thirteen sub-layers (two norms, the attention
# and its four projections, the feed-forward linears, four dropouts), each through
# Layer.__call__ (the layer path, hooks) and a functional wrapper that checks its
# arguments again. Where nothing can tell that they ran (no gradient recording, whose
# nodes keep layer paths; no profiler and no capture, whose events and programs keep
# them; no hooks on the sub-layers; the library's own classes; inert dropouts; no cache)
# the layer runs the same ops in the same order itself, so the values are the same bits,
# as PyTorch's encoder layer takes a fused path in inference. The GPT decoder of
# benchmarks/models.py (four layers, d 256, seq 128) at batch 1 took 6.25-6.91 ms a call
# this way against 7.00-7.46 through the sub-layers (PyTorch 7.40-8.15; two threads,
# Xeon with AVX-512, four alternating rounds of its worker).


def _unobserved():
    return not (_C.is_grad_enabled() or _C._profiler_recording() or _C._jit_tracing())


def _plain(layer, cls):
    """layer is a cls itself (not a subclass) without forward hooks."""
    if type(layer) is not cls:
        return False
    d = layer.__dict__
    return not d["_forward_pre_hooks"] and not d["_forward_post_hooks"]


def _inert(drop):
    """A plain Dropout that returns its input's values."""
    return _plain(drop, Dropout) and (
        drop.p == 0 or (not drop.training and drop.mode == "upscale_in_train")
    )


def _linear_params(lin):
    """(weight, bias) of a plain Linear whose weight is a parameter, else None."""
    if not _plain(lin, Linear):
        return None
    params = lin.__dict__["_parameters"]
    w = params.get("weight")
    return None if w is None else (w, params.get("bias"))


def _norm_params(norm, features):
    """(weight, bias, epsilon) of a plain LayerNorm over the last dim `features` with
    both parameters, else None."""
    if not _plain(norm, LayerNorm) or norm._shape != [features]:
        return None
    params = norm.__dict__["_parameters"]
    w, b = params.get("weight"), params.get("bias")
    if w is None or b is None or w.shape != [features] or b.shape != [features]:
        return None
    return w, b, float(norm._epsilon)


def _encoder_params(layer, features):
    """What _encode reads of an encoder layer nothing observes the sub-layers of, or
    None (Note [An encoder layer runs its ops itself where nothing observes its
    sub-layers])."""
    if type(layer) is not TransformerEncoderLayer or not _unobserved():
        return None
    subs = layer.__dict__["_sub_layers"]
    attn = subs.get("self_attn")
    if not _plain(attn, MultiHeadAttention) or attn.need_weights:
        return None
    if attn.dropout and attn.training:
        return None
    if not all(_inert(subs.get(n)) for n in ("dropout", "dropout1", "dropout2")):
        return None
    projections = attn.__dict__["_sub_layers"]
    lins = [_linear_params(projections.get(n)) for n in ("q_proj", "k_proj", "v_proj", "out_proj")]
    lins += [_linear_params(subs.get(n)) for n in ("linear1", "linear2")]
    norms = [_norm_params(subs.get(n), features) for n in ("norm1", "norm2")]
    if None in lins or None in norms:
        return None
    return attn, lins, norms


def _linear(x, params):
    return F.linear(x, *params)


def _encode(layer, src, mask, attn, lins, norms):
    """TransformerEncoderLayer.forward's ops, in its order, without the sub-layer calls."""
    q_proj, k_proj, v_proj, out_proj, linear1, linear2 = lins
    (w1, b1, eps1), (w2, b2, eps2) = norms
    before = layer.normalize_before
    # Attention: the sub-layers' _attend and MultiHeadAttention.forward.
    x = _C.layer_norm(src, w1, b1, eps1, 2) if before else src
    q, k, v = (attn._heads(_linear(x, p)) for p in (q_proj, k_proj, v_proj))
    scores = _C.matmul(_C.scale(q, attn.head_dim**-0.5), k, False, True)
    if mask is not None:
        scores = scores + _convert_attention_mask(mask, scores.dtype)
    out = _C.transpose(_C.matmul(_C.softmax(scores, -1), v), [0, 2, 1, 3])
    out = _linear(_C.reshape(out, [out.shape[0], out.shape[1], attn.embed_dim]), out_proj)
    x = src + out
    if not before:
        x = _C.layer_norm(x, w1, b1, eps1, 2)
    # The feed-forward block: _ffn.
    y = _C.layer_norm(x, w2, b2, eps2, 2) if before else x
    x = x + _linear(layer.activation(_linear(y, linear1)), linear2)
    return x if before else _C.layer_norm(x, w2, b2, eps2, 2)


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over num_heads heads of embed_dim // num_heads.

    forward(query, key=None, value=None, attn_mask=None, cache=None): key and value
    default to query. Returns out [batch, L, embed_dim], plus the attention weights
    [batch, num_heads, L, S] with need_weights, plus the updated cache when one is given.
    """

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(
        self,
        embed_dim,
        num_heads,
        dropout=0.0,
        kdim=None,
        vdim=None,
        need_weights=False,
        weight_attr=None,
        bias_attr=None,
    ):
        super().__init__()
        who = "MultiHeadAttention"
        _positive(who, "embed_dim", embed_dim)
        _positive(who, "num_heads", num_heads)
        if embed_dim % num_heads:
            raise ValueError(
                f"{who}: argument 'embed_dim' ({embed_dim}) must be divisible by "
                f"num_heads ({num_heads})"
            )
        for name, v in (("kdim", kdim), ("vdim", vdim)):
            if v is not None:
                _positive(who, name, v)
        if (
            isinstance(dropout, bool)
            or not isinstance(dropout, (int, float))
            or not 0 <= dropout <= 1
        ):
            raise ValueError(f"{who}: argument 'dropout' must be in [0, 1], got {dropout!r}")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self.head_dim = embed_dim // num_heads
        self.dropout, self.need_weights = dropout, need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x):
        """[B, L, E] -> [B, H, L, E/H]."""
        b, n = x.shape[0], x.shape[1]
        return _C.transpose(_C.reshape(x, [b, n, self.num_heads, self.head_dim]), [0, 2, 1, 3])

    def compute_kv(self, key, value):
        """The projected key and value, [batch, num_heads, S, head_dim] each."""
        who = "MultiHeadAttention"
        _check_3d(who, "key", key, self.kdim, "kdim")
        _check_3d(who, "value", value, self.vdim, "vdim")
        if key.shape[:2] != value.shape[:2]:
            raise ValueError(
                f"{who}: arguments 'key' and 'value' must have the same batch "
                f"size and length, got shapes {key.shape} and {value.shape}"
            )
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):  # noqa: A002 - Paddle's name
        """StaticCache: key/value projected once (cross attention to a fixed memory).
        Cache with value None: empty keys/values to grow step by step; with value:
        Cache(key, value) as given."""
        if type is MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, key if value is None else value))
        if type is not MultiHeadAttention.Cache:
            raise TypeError(
                "MultiHeadAttention.gen_cache: argument 'type' must be "
                "MultiHeadAttention.Cache or MultiHeadAttention.StaticCache"
            )
        if value is None:
            empty = zeros([key.shape[0], self.num_heads, 0, self.head_dim], key.dtype)
            return self.Cache(empty, empty)
        return self.Cache(key, value)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        who = "MultiHeadAttention"
        key = query if key is None else key
        value = query if value is None else value
        _check_3d(who, "query", query, self.embed_dim, "embed_dim")
        q = self._heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
            if isinstance(cache, self.Cache):
                k, v = concat([cache.k, k], axis=2), concat([cache.v, v], axis=2)
                cache = self.Cache(k, v)
            elif cache is not None:
                raise TypeError(
                    f"{who}: argument 'cache' must be a MultiHeadAttention.Cache "
                    f"or StaticCache, got {type(cache).__name__}"
                )
        if q.shape[0] != k.shape[0]:
            raise ValueError(
                f"{who}: arguments 'query' and 'key' must have the same batch "
                f"size, got {q.shape[0]} and {k.shape[0]}"
            )
        scores = _C.matmul(_C.scale(q, self.head_dim**-0.5), k, False, True)
        if attn_mask is not None:
            if not isinstance(attn_mask, Tensor):
                raise TypeError(
                    f"{who}: argument 'attn_mask' must be a Tensor, got {type(attn_mask).__name__}"
                )
            scores = scores + _convert_attention_mask(attn_mask, scores.dtype)
        weights = _C.softmax(scores, -1)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training)
        out = _C.transpose(_C.matmul(weights, v), [0, 2, 1, 3])
        out = self.out_proj(_C.reshape(out, [out.shape[0], out.shape[1], self.embed_dim]))
        outs = (
            [out]
            + ([weights] if self.need_weights else [])
            + ([cache] if cache is not None else [])
        )
        return out if len(outs) == 1 else tuple(outs)


def _check_sizes(who, d_model, nhead, dim_feedforward):
    _positive(who, "d_model", d_model)
    _positive(who, "nhead", nhead)
    _positive(who, "dim_feedforward", dim_feedforward)
    if d_model % nhead:
        raise ValueError(
            f"{who}: argument 'd_model' ({d_model}) must be divisible by nhead ({nhead})"
        )


def _arguments(ns):
    """A constructor's arguments from its locals() (TransformerEncoder re-calls it)."""
    return {k: v for k, v in ns.items() if k not in ("self", "__class__")}


class _ResidualLayer(Layer):
    """What the encoder and decoder layers share: n_attn attention blocks (self, then
    cross) and the feed-forward block, each residual with dropout and a LayerNorm.
    Sub-layers are created in Paddle's order so state_dict() keys match."""

    def __init__(self, config, n_attn):
        super().__init__()
        self._config = config
        who = type(self).__name__
        c = config
        d_model, dropout = c["d_model"], c["dropout"]
        _check_sizes(who, d_model, c["nhead"], c["dim_feedforward"])
        attn_dropout = dropout if c["attn_dropout"] is None else c["attn_dropout"]
        act_dropout = dropout if c["act_dropout"] is None else c["act_dropout"]
        self.normalize_before = c["normalize_before"]
        w = _attr_list(c["weight_attr"], n_attn + 1)
        b = _attr_list(c["bias_attr"], n_attn + 1)
        for i, name in enumerate(("self_attn", "cross_attn")[:n_attn]):
            setattr(
                self,
                name,
                MultiHeadAttention(
                    d_model, c["nhead"], dropout=attn_dropout, weight_attr=w[i], bias_attr=b[i]
                ),
            )
        self.linear1 = Linear(d_model, c["dim_feedforward"], w[-1], bias_attr=b[-1])
        self.dropout = Dropout(act_dropout)
        self.linear2 = Linear(c["dim_feedforward"], d_model, w[-1], bias_attr=b[-1])
        for i in range(1, n_attn + 2):
            setattr(self, f"norm{i}", LayerNorm(d_model, c["layer_norm_eps"]))
        for i in range(1, n_attn + 2):
            setattr(self, f"dropout{i}", Dropout(dropout))
        self.activation = _activation(who, c["activation"])

    def _attend(self, attn, x, memory, mask, norm, drop, cache):
        residual = x
        if self.normalize_before:
            x = norm(x)
        kv = x if memory is None else memory
        if cache is None:
            x = attn(x, kv, kv, mask)
        else:
            x, cache = attn(x, kv, kv, mask, cache)
        x = residual + drop(x)
        return (x if self.normalize_before else norm(x)), cache

    def _ffn(self, x, norm, drop):
        residual = x
        if self.normalize_before:
            x = norm(x)
        x = residual + drop(self.linear2(self.dropout(self.activation(self.linear1(x)))))
        return x if self.normalize_before else norm(x)


class TransformerEncoderLayer(_ResidualLayer):
    """Self attention then a feed-forward block (linear1, activation, linear2), each in a
    residual with dropout and LayerNorm: after the residual (post-norm), or on the block's
    input with normalize_before. forward(src, src_mask=None, cache=None)."""

    def __init__(
        self,
        d_model,
        nhead,
        dim_feedforward,
        dropout=0.1,
        activation="relu",
        attn_dropout=None,
        act_dropout=None,
        normalize_before=False,
        weight_attr=None,
        bias_attr=None,
        layer_norm_eps=1e-5,
    ):
        super().__init__(_arguments(locals()), 1)

    def forward(self, src, src_mask=None, cache=None):
        _check_3d(type(self).__name__, "src", src, self.self_attn.embed_dim, "d_model")
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        if cache is None:
            params = _encoder_params(self, self.self_attn.embed_dim)
            if params is not None:
                return _encode(self, src, src_mask, *params)
        x, new = self._attend(self.self_attn, src, None, src_mask, self.norm1, self.dropout1, cache)
        x = self._ffn(x, self.norm2, self.dropout2)
        return x if cache is None else (x, new)

    def gen_cache(self, src):
        """An empty incremental cache for the self attention."""
        return self.self_attn.gen_cache(src, type=MultiHeadAttention.Cache)


def _clones(who, layer, cls, num_layers):
    """Paddle's stacking: the given layer first, then fresh layers built from its
    constructor arguments (new random weights, not copies)."""
    if not isinstance(layer, cls):
        raise TypeError(f"{who}: expected a {cls.__name__}, got {type(layer).__name__}")
    _positive(who, "num_layers", num_layers)
    return LayerList([layer] + [type(layer)(**layer._config) for _ in range(num_layers - 1)])


class TransformerEncoder(Layer):
    """num_layers encoder layers in sequence, then norm (if given).
    forward(src, src_mask=None, cache=None); cache: a list with one entry per layer."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(
            "TransformerEncoder", encoder_layer, TransformerEncoderLayer, num_layers
        )
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        if src_mask is not None and isinstance(src, Tensor):
            src_mask = _convert_attention_mask(src_mask, src.dtype)
        out, new_caches = src, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, src_mask=src_mask)
            else:
                out, c = layer(out, src_mask=src_mask, cache=cache[i])
                new_caches.append(c)
        if self.norm is not None:
            out = self.norm(out)
        return out if cache is None else (out, new_caches)

    def gen_cache(self, src):
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(_ResidualLayer):
    """Self attention on tgt, cross attention to memory, then the feed-forward block,
    each residual with dropout and LayerNorm (norm1..3).
    forward(tgt, memory, tgt_mask=None, memory_mask=None, cache=None); cache is the
    (Cache, StaticCache) pair of gen_cache(memory)."""

    def __init__(
        self,
        d_model,
        nhead,
        dim_feedforward,
        dropout=0.1,
        activation="relu",
        attn_dropout=None,
        act_dropout=None,
        normalize_before=False,
        weight_attr=None,
        bias_attr=None,
        layer_norm_eps=1e-5,
    ):
        super().__init__(_arguments(locals()), 2)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        who = type(self).__name__
        d = self.self_attn.embed_dim
        _check_3d(who, "tgt", tgt, d, "d_model")
        _check_3d(who, "memory", memory, d, "d_model")
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        if cache is not None and (not isinstance(cache, (tuple, list)) or len(cache) != 2):
            raise TypeError(
                f"{who}: argument 'cache' must be the (Cache, StaticCache) pair of gen_cache"
            )
        c0, c1 = (None, None) if cache is None else cache
        x, c0 = self._attend(self.self_attn, tgt, None, tgt_mask, self.norm1, self.dropout1, c0)
        x, c1 = self._attend(self.cross_attn, x, memory, memory_mask, self.norm2, self.dropout2, c1)
        x = self._ffn(x, self.norm3, self.dropout3)
        return x if cache is None else (x, (c0, c1))

    def gen_cache(self, memory):
        """(an empty incremental Cache for the self attention, the StaticCache of memory
        for the cross attention)."""
        return (
            self.self_attn.gen_cache(memory, type=MultiHeadAttention.Cache),
            self.cross_attn.gen_cache(memory, memory, type=MultiHeadAttention.StaticCache),
        )


class TransformerDecoder(Layer):
    """num_layers decoder layers in sequence, then norm (if given).
    forward(tgt, memory, tgt_mask=None, memory_mask=None, cache=None)."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(
            "TransformerDecoder", decoder_layer, TransformerDecoderLayer, num_layers
        )
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        if tgt_mask is not None and isinstance(tgt, Tensor):
            tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        if memory_mask is not None and isinstance(memory, Tensor):
            memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        out, new_caches = tgt, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)
            else:
                out, c = layer(
                    out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=cache[i]
                )
                new_caches.append(c)
        if self.norm is not None:
            out = self.norm(out)
        return out if cache is None else (out, new_caches)

    def gen_cache(self, memory, do_zip=False):
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attr(who, attr):
    """Transformer's weight_attr/bias_attr -> (encoder's 2, decoder's 3)."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return list(attr), [attr[0], attr[0], attr[1]]
    if len(attr) == 3:
        return [attr[0], attr[2]], list(attr)
    raise ValueError(
        f"{who}: weight_attr/bias_attr as a list must have 1, 2 or 3 entries, got {len(attr)}"
    )


class Transformer(Layer):
    """Encoder (num_encoder_layers layers + LayerNorm) and decoder (num_decoder_layers +
    LayerNorm), or custom_encoder / custom_decoder.
    forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None)."""

    def __init__(
        self,
        d_model=512,
        nhead=8,
        num_encoder_layers=6,
        num_decoder_layers=6,
        dim_feedforward=2048,
        dropout=0.1,
        activation="relu",
        attn_dropout=None,
        act_dropout=None,
        normalize_before=False,
        weight_attr=None,
        bias_attr=None,
        custom_encoder=None,
        custom_decoder=None,
    ):
        super().__init__()
        who = "Transformer"
        _check_sizes(who, d_model, nhead, dim_feedforward)
        enc_w, dec_w = _split_attr(who, weight_attr)
        enc_b, dec_b = _split_attr(who, bias_attr)
        common = (
            d_model,
            nhead,
            dim_feedforward,
            dropout,
            activation,
            attn_dropout,
            act_dropout,
            normalize_before,
        )
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*common, enc_w, enc_b),
                num_encoder_layers,
                LayerNorm(d_model),
            )
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*common, dec_w, dec_b),
                num_decoder_layers,
                LayerNorm(d_model),
            )
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        memory = self.encoder(src, src_mask=src_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length):
        """[length, length] float mask: 0 on and below the diagonal, -inf above."""
        if isinstance(length, Tensor):
            length = int(length.item())
        _positive("Transformer.generate_square_subsequent_mask", "length", length)
        m = np.triu(np.full([length, length], -np.inf, dtype=np.float32), 1)
        return to_tensor(m)
