"""oar.compat.nn: paddle.compat.nn, layers with PyTorch's constructor arguments and
parameter layouts (Linear's weight is [out_features, in_features]; MultiheadAttention's
in_proj_weight is [3 * embed_dim, embed_dim])."""

from __future__ import annotations

import numpy as np

import math

from ...framework.check import is_int
from ... import _C
from ...framework import check as C
from ...nn import Layer
from ...nn import initializer as I
from ...nn.functional import dropout as _dropout
from ...nn.functional.pooling import _avg_pool
from . import functional  # noqa: F401
from .functional import linear, softmax, unfold
from ...device import _to_place
from ...tensor.creation import to_tensor

Tensor = _C.Tensor

__all__ = [
    "Unfold",
    "Linear",
    "Softmax",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "MultiheadAttention",
]


def _forbid_kwargs(api, paddle_name, kwargs, keys):
    bad = sorted(k for k in kwargs if k in keys)
    if bad:
        raise TypeError(
            f"{api}() received unexpected keyword argument(s) "
            f"{', '.join(repr(k) for k in bad)}: it takes PyTorch's argument "
            f"names; use {paddle_name} for Paddle's"
        )
    if kwargs:
        raise TypeError(f"{api}() got unexpected keyword argument(s) {sorted(kwargs)}")


class _AvgPoolNd(Layer):
    _nd = 0

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
        **kwargs,
    ):
        name = f"AvgPool{self._nd}D"
        _forbid_kwargs(name, f"oar.nn.{name}", kwargs, {"exclusive", "data_format", "name"})
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        self.ceil_mode = bool(ceil_mode)
        self.count_include_pad = bool(count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input):
        layout = {1: "NCL", 2: "NCHW", 3: "NCDHW"}[self._nd]
        return _avg_pool(
            f"avg_pool{self._nd}d",
            self._nd,
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            not self.count_include_pad,
            self.divisor_override,
            layout,
        )

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1D(_AvgPoolNd):
    """Average pooling of [N, C, L] (PyTorch's AvgPool1d: count_include_pad=True by
    default, i.e. Paddle's exclusive=False)."""

    _nd = 1

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, **kwargs
    ):
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad, None, **kwargs)


class AvgPool2D(_AvgPoolNd):
    """Average pooling of [N, C, H, W] (PyTorch's AvgPool2d)."""

    _nd = 2


class AvgPool3D(_AvgPoolNd):
    """Average pooling of [N, C, D, H, W] (PyTorch's AvgPool3d)."""

    _nd = 3


AvgPool1d, AvgPool2d, AvgPool3d = AvgPool1D, AvgPool2D, AvgPool3D


class Unfold(Layer):
    """Sliding blocks of [N, C, H, W] as columns [N, C * kh * kw, L] (PyTorch's
    nn.Unfold argument names and order)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1, **kwargs):
        _forbid_kwargs(
            "Unfold", "oar.nn.Unfold", kwargs, {"kernel_sizes", "dilations", "paddings", "strides"}
        )
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class Linear(Layer):
    """y = input @ weight.T + bias with PyTorch's layout and initialisation: weight
    [out_features, in_features] Kaiming-uniform (a = sqrt(5)), bias uniform in
    +-1/sqrt(in_features)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None, **kwargs):
        _forbid_kwargs("Linear", "oar.nn.Linear", kwargs, {"weight_attr", "bias_attr", "name"})
        super().__init__()
        for arg, v in (("in_features", in_features), ("out_features", out_features)):
            if not is_int(v) or v < 0:
                raise ValueError(f"Linear: argument '{arg}' must be a non-negative int, got {v!r}")
        if device is not None:
            _to_place(device, "Linear")
        self.in_features, self.out_features = in_features, out_features
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        # kaiming_uniform_(a=sqrt(5)) on [out, in]: gain sqrt(2 / (1 + 5)), fan_in = in.
        self.weight = self.create_parameter(
            [out_features, in_features], dtype=dtype, default_initializer=I.Uniform(-bound, bound)
        )
        self.bias = (
            self.create_parameter(
                [out_features],
                dtype=dtype,
                is_bias=True,
                default_initializer=I.Uniform(-bound, bound),
            )
            if bias
            else None
        )

    def forward(self, input):
        return linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Softmax(Layer):
    """Softmax along dim (None: PyTorch's implicit dim, see functional.softmax)."""

    def __init__(self, dim=None, **kwargs):
        _forbid_kwargs("Softmax", "oar.nn.Softmax", kwargs, {"axis"})
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class MultiheadAttention(Layer):
    """PyTorch's nn.MultiheadAttention: attention over num_heads heads of
    embed_dim // num_heads, inputs [L, N, E] (or [N, L, E] with batch_first, or
    unbatched [L, E]). forward(query, key, value, key_padding_mask=None,
    need_weights=True, attn_mask=None, average_attn_weights=True, is_causal=False)
    returns (attn_output, attn_weights or None). Boolean masks mark the positions NOT
    attended (True = masked), float masks are added to the scores."""

    def __init__(
        self,
        embed_dim,
        num_heads,
        dropout=0.0,
        bias=True,
        add_bias_kv=False,
        add_zero_attn=False,
        kdim=None,
        vdim=None,
        batch_first=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        for arg, v in (("embed_dim", embed_dim), ("num_heads", num_heads)):
            if not is_int(v) or v <= 0:
                raise ValueError(
                    f"MultiheadAttention: argument '{arg}' must be a positive int, got {v!r}"
                )
        if embed_dim % num_heads:
            raise ValueError(
                f"MultiheadAttention: embed_dim ({embed_dim}) must be divisible "
                f"by num_heads ({num_heads})"
            )
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        self.dropout, self.batch_first = float(dropout), bool(batch_first)
        xavier = I.XavierUniform()
        if self._qkv_same_embed_dim:
            self.in_proj_weight = self.create_parameter(
                [3 * embed_dim, embed_dim], dtype=dtype, default_initializer=xavier
            )
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.in_proj_weight = None
            self.q_proj_weight = self.create_parameter(
                [embed_dim, embed_dim], dtype=dtype, default_initializer=xavier
            )
            self.k_proj_weight = self.create_parameter(
                [embed_dim, self.kdim], dtype=dtype, default_initializer=xavier
            )
            self.v_proj_weight = self.create_parameter(
                [embed_dim, self.vdim], dtype=dtype, default_initializer=xavier
            )
        self.in_proj_bias = (
            self.create_parameter([3 * embed_dim], dtype=dtype, is_bias=True) if bias else None
        )
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        if bias:  # PyTorch zeroes the output projection's bias
            I.Constant(0.0)(self.out_proj.bias)
        if add_bias_kv:
            normal = I.XavierNormal()
            self.bias_k = self.create_parameter(
                [1, 1, embed_dim], dtype=dtype, default_initializer=normal
            )
            self.bias_v = self.create_parameter(
                [1, 1, embed_dim], dtype=dtype, default_initializer=normal
            )
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = bool(add_zero_attn)

    def _proj(self, x, i, w):
        b = (
            None
            if self.in_proj_bias is None
            else _C.slice(self.in_proj_bias, [0], [i * self.embed_dim], [(i + 1) * self.embed_dim])
        )
        if self._qkv_same_embed_dim:
            w = _C.slice(self.in_proj_weight, [0], [i * self.embed_dim], [(i + 1) * self.embed_dim])
        return linear(x, w, b)

    def _float_mask(self, mask, dtype, name):
        C.tensor("MultiheadAttention", name, mask)
        if mask.dtype.name == "bool":
            return _C.where(
                mask,
                _C.full(list(mask.shape), float("-inf"), dtype),
                _C.full(list(mask.shape), 0.0, dtype),
            )
        return _C.cast(mask, dtype) if mask.dtype != dtype else mask

    def forward(
        self,
        query,
        key,
        value,
        key_padding_mask=None,
        need_weights=True,
        attn_mask=None,
        average_attn_weights=True,
        is_causal=False,
    ):
        api = "MultiheadAttention"
        for n, t in (("query", query), ("key", key), ("value", value)):
            C.tensor(api, n, t)
        batched = query.ndim == 3
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(
                f"{api}: query, key and value must all be 3-D (batched) or 2-D, "
                f"but have shapes {query.shape}, {key.shape}, {value.shape}"
            )
        if not batched:
            query, key, value = (_C.unsqueeze(t, [0]) for t in (query, key, value))
            if key_padding_mask is not None and key_padding_mask.ndim == 1:
                key_padding_mask = _C.unsqueeze(key_padding_mask, [0])
        elif not self.batch_first:
            query, key, value = (_C.transpose(t, [1, 0, 2]) for t in (query, key, value))
        n, tgt, _ = query.shape
        h, d = self.num_heads, self.head_dim
        q = self._proj(query, 0, self.q_proj_weight)
        k = self._proj(key, 1, self.k_proj_weight)
        v = self._proj(value, 2, self.v_proj_weight)
        src = k.shape[1]
        dtype = q.dtype
        mask = None  # additive, broadcastable to [n, h, tgt, src(+extra)]
        if is_causal and attn_mask is None:
            attn_mask = to_tensor(np.triu(np.ones([tgt, src], dtype=bool), 1))
        if attn_mask is not None:
            m = self._float_mask(attn_mask, dtype, "attn_mask")
            if m.ndim == 3:  # [n * h, tgt, src]
                m = _C.reshape(m, [n, h, tgt, src])
            elif m.ndim != 2:
                raise ValueError(
                    f"{api}: attn_mask must be 2-D [L, S] or 3-D [N * heads, L, "
                    f"S], but has shape {m.shape}"
                )
            mask = m
        if key_padding_mask is not None:
            if list(key_padding_mask.shape) != [n, src]:
                raise ValueError(
                    f"{api}: key_padding_mask must have shape {[n, src]}, but has "
                    f"{key_padding_mask.shape}"
                )
            kp = _C.reshape(
                self._float_mask(key_padding_mask, dtype, "key_padding_mask"), [n, 1, 1, src]
            )
            mask = kp if mask is None else _C.add(mask, kp)
        if self.bias_k is not None:
            k = _C.concat([k, _C.expand(self.bias_k, [n, 1, self.embed_dim])], 1)
            v = _C.concat([v, _C.expand(self.bias_v, [n, 1, self.embed_dim])], 1)
        heads = [0, 2, 1, 3]
        q = _C.transpose(_C.reshape(q, [n, tgt, h, d]), heads)
        k = _C.transpose(_C.reshape(k, [n, k.shape[1], h, d]), heads)
        v = _C.transpose(_C.reshape(v, [n, v.shape[1], h, d]), heads)
        if self.add_zero_attn:
            k = _C.concat([k, _C.full([n, h, 1, d], 0.0, dtype)], 2)
            v = _C.concat([v, _C.full([n, h, 1, d], 0.0, dtype)], 2)
        extra = k.shape[2] - src
        if mask is not None and extra:  # the appended keys are never masked
            zeros = _C.full(list(mask.shape[:-1]) + [extra], 0.0, dtype)
            mask = _C.concat([mask, zeros], mask.ndim - 1)
        scores = _C.scale(_C.matmul(q, k, False, True), 1.0 / math.sqrt(d))
        if mask is not None:
            scores = _C.add(scores, mask)
        weights = _C.softmax(scores, -1)
        if self.dropout > 0.0:
            weights = _dropout(weights, self.dropout, training=self.training)
        out = _C.reshape(_C.transpose(_C.matmul(weights, v), heads), [n, tgt, self.embed_dim])
        out = self.out_proj(out)
        if not batched:
            out = _C.squeeze(out, [0])
        elif not self.batch_first:
            out = _C.transpose(out, [1, 0, 2])
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = _C.mean(weights, [1], False)
        if not batched:
            weights = _C.squeeze(weights, [0])
        return out, weights
