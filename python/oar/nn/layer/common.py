"""Common layers: Linear, Identity, Flatten (Paddle's weight layouts and initializers)."""

from __future__ import annotations

from ...framework import check as _check

from .layers import Layer, _dtype_text
from .. import functional as F
from ...tensor.manipulation import flatten
from ...tensor.manipulation import unflatten
from ...framework.param import _set_value

__all__ = [
    "Linear",
    "Bilinear",
    "Identity",
    "Flatten",
    "Dropout",
    "Dropout2D",
    "Dropout3D",
    "AlphaDropout",
    "FeatureAlphaDropout",
    "Embedding",
    "Upsample",
    "UpsamplingNearest2D",
    "UpsamplingBilinear2D",
    "PixelShuffle",
    "Unflatten",
    "Unfold",
    "Fold",
    "CosineSimilarity",
    "UpsamplingNearest2d",
    "UpsamplingBilinear2d",
]


def _name_suffix(name):
    """The ", name=..." ending Paddle gives a repr when the layer was named."""
    return f", name={name}" if name else ""


class Linear(Layer):
    """y = x @ weight + bias, weight of shape [in_features, out_features] (Paddle's
    layout: the transpose of PyTorch's).

    Args:
        in_features, out_features: the sizes of the last axis of x and y.
        weight_attr: ParamAttr of the weight (default init: XavierUniform).
        bias_attr: ParamAttr of the bias (default zeros); False for no bias.
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        for arg, v in (("in_features", in_features), ("out_features", out_features)):
            if not _check.is_int(v) or v < 0:
                raise ValueError(f"Linear: argument '{arg}' must be a non-negative int, got {v!r}")
        in_features, out_features = int(in_features), int(out_features)  # np.int64 too
        self._in_features, self._out_features = in_features, out_features
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr)
        self.bias = self.create_parameter([out_features], attr=bias_attr, is_bias=True)
        self.name = name

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in_features={self._in_features}, out_features={self._out_features}, "
            f"dtype={_dtype_text(self)}" + _name_suffix(self.name)
        )


class Bilinear(Layer):
    """out = x1 @ weight[o] @ x2 + bias[o] for each output feature o; weight
    [out_features, in1_features, in2_features] (default init XavierUniform), bias
    [1, out_features] (zeros; bias_attr=False for none)."""

    def __init__(
        self, in1_features, in2_features, out_features, weight_attr=None, bias_attr=None, name=None
    ):
        super().__init__()
        for arg, v in (
            ("in1_features", in1_features),
            ("in2_features", in2_features),
            ("out_features", out_features),
        ):
            if not _check.is_int(v) or v <= 0:
                raise ValueError(f"Bilinear: argument '{arg}' must be a positive int, got {v!r}")
        in1_features, in2_features = int(in1_features), int(in2_features)
        out_features = int(out_features)
        self._in1, self._in2, self._out = in1_features, in2_features, out_features
        self._name = name
        self.weight = self.create_parameter(
            [out_features, in1_features, in2_features], attr=weight_attr
        )
        self.bias = self.create_parameter([1, out_features], attr=bias_attr, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in1_features={self._in1}, in2_features={self._in2}, "
            f"out_features={self._out}, dtype={_dtype_text(self)}" + _name_suffix(self._name)
        )


class Identity(Layer):
    """Paddle's nn.Identity: forward returns its input unchanged, e.g. to switch a block off."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Flatten(Layer):
    """Flattens the axes start_axis..stop_axis into one."""

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        return flatten(input, self.start_axis, self.stop_axis)


class Dropout(Layer):
    """Zero elements with probability p while training (scaling the rest by 1/(1-p) in
    upscale_in_train mode); the identity in eval mode."""

    def __init__(self, p=0.5, inplace=False, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        if not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"Dropout: argument 'p' must be in [0, 1], got {p!r}")
        if mode not in ("upscale_in_train", "downscale_in_infer"):
            raise ValueError(
                f"Dropout: argument 'mode' must be 'upscale_in_train' or "
                f"'downscale_in_infer', got {mode!r}"
            )
        self.p, self.axis, self.mode, self.name = p, axis, mode, name
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(
            input,
            p=self.p,
            axis=self.axis,
            training=self.training,
            inplace=self.inplace,
            mode=self.mode,
        )

    def extra_repr(self):
        return (
            f"p={self.p}, axis={self.axis}, mode={self.mode}{_name_suffix(self.name)}, "
            f"inplace={self.inplace}"
        )


class Dropout2D(Layer):
    """Zero whole channels with probability p while training."""

    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__()
        self.p, self.data_format, self.name = p, data_format, name

    def forward(self, input):
        return F.dropout2d(input, p=self.p, training=self.training, data_format=self.data_format)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}" + _name_suffix(self.name)


class Dropout3D(Layer):
    """Zero whole channels of [N, C, D, H, W] with probability p while training."""

    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__()
        self.p, self.data_format, self.name = p, data_format, name

    def forward(self, input):
        return F.dropout3d(input, p=self.p, training=self.training, data_format=self.data_format)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}" + _name_suffix(self.name)


class FeatureAlphaDropout(Layer):
    """AlphaDropout of whole channels (axis 1) while training."""

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self.name = p, name

    def forward(self, input):
        return F.feature_alpha_dropout(input, p=self.p, training=self.training)

    def extra_repr(self):
        return f"p={self.p}" + _name_suffix(self.name)


class AlphaDropout(Layer):
    """Dropout that keeps SELU's self-normalizing mean and variance."""

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self.name = p, name

    def forward(self, input):
        return F.alpha_dropout(input, p=self.p, training=self.training)

    def extra_repr(self):
        return f"p={self.p}" + _name_suffix(self.name)


class Embedding(Layer):
    """A lookup table [num_embeddings, embedding_dim] (XavierUniform); the row of
    padding_idx starts at zero and gets no gradient. sparse=True is accepted and
    computes a dense gradient (oar has no sparse gradients); max_norm, norm_type and
    scale_grad_by_freq as oar.nn.functional.embedding.

    Paddle 3.3's signature: after norm_type every argument is keyword-only. _weight
    (a tensor [num_embeddings, embedding_dim]) is used as the table instead of a new
    parameter (a Parameter is registered as one; a plain tensor is kept as an
    attribute, as Paddle), _freeze=True makes the table not trainable, dtype is the
    new table's dtype and device is accepted (oar runs on the CPU)."""

    def __init__(
        self,
        num_embeddings,
        embedding_dim,
        padding_idx=None,
        max_norm=None,
        norm_type=2.0,
        *,
        scale_grad_by_freq=False,
        sparse=False,
        _weight=None,
        _freeze=False,
        device=None,
        dtype=None,
        weight_attr=None,
        name=None,
    ):
        super().__init__(dtype=dtype or "float32")
        self._max_norm, self._norm_type = max_norm, norm_type
        # repr shows padding_idx as given (a negative one is not wrapped) and the name
        self._shown_padding_idx, self._name = padding_idx, name
        self._scale_grad_by_freq = scale_grad_by_freq
        for arg, v in (("num_embeddings", num_embeddings), ("embedding_dim", embedding_dim)):
            if not _check.is_int(v) or v < 1:
                raise ValueError(f"Embedding: argument '{arg}' must be a positive int, got {v!r}")
        num_embeddings, embedding_dim = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(
                    f"Embedding: argument 'padding_idx' must be in "
                    f"[-{num_embeddings}, {num_embeddings}), got {padding_idx}"
                )
            padding_idx %= num_embeddings
        self._num_embeddings, self._embedding_dim = num_embeddings, embedding_dim
        self._padding_idx, self._sparse = padding_idx, sparse
        if _weight is not None:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ValueError(
                    f"Embedding: argument '_weight' must have shape "
                    f"[{num_embeddings}, {embedding_dim}], got {list(_weight.shape)}"
                )
            self.weight = _weight
            self.weight.stop_gradient = bool(_freeze)
        else:
            self.weight = self.create_parameter([num_embeddings, embedding_dim], attr=weight_attr)
            if weight_attr is None:
                self.weight.stop_gradient = bool(_freeze)
        if padding_idx is not None:
            w = self.weight.numpy().copy()
            w[padding_idx] = 0
            _set_value(self.weight, w)

    def forward(self, x):
        return F.embedding(
            x,
            self.weight,
            padding_idx=self._padding_idx,
            max_norm=self._max_norm,
            norm_type=self._norm_type,
            sparse=self._sparse,
            scale_grad_by_freq=self._scale_grad_by_freq,
        )

    def extra_repr(self):
        s = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._shown_padding_idx is not None:
            s += f", padding_idx={self._shown_padding_idx}"
        s += f", sparse={self._sparse}, scale_grad_by_freq={self._scale_grad_by_freq}"
        return s if self._name is None else s + f", name={self._name}"


class Upsample(Layer):
    """oar.nn.functional.interpolate with fixed settings."""

    def __init__(
        self,
        size=None,
        scale_factor=None,
        mode="nearest",
        align_corners=False,
        align_mode=0,
        data_format=None,
        recompute_scale_factor=None,
        name=None,
    ):
        super().__init__()
        self._settings = dict(
            size=size,
            scale_factor=scale_factor,
            mode=mode,
            align_corners=align_corners,
            align_mode=align_mode,
            data_format=data_format,
            recompute_scale_factor=recompute_scale_factor,
        )
        self._name = name

    def forward(self, x):
        return F.interpolate(x, **self._settings)

    def extra_repr(self):
        st = self._settings
        s = _size_or_scale(st["size"], st["scale_factor"])
        mode = st["mode"].lower() if isinstance(st["mode"], str) else st["mode"]
        return (
            f"{s}, mode={mode}, align_corners={st['align_corners']}, "
            f"align_mode={st['align_mode']}, data_format={st['data_format']}"
            + _name_suffix(self._name)
        )


def _size_or_scale(size, scale_factor):
    """Paddle's first setting in the repr of the upsampling layers."""
    return f"scale_factor={scale_factor}" if scale_factor is not None else f"size={size}"


class UpsamplingNearest2D(Layer):
    """Nearest-neighbour upsampling of [N, C, H, W] to size or by scale_factor."""

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__()
        self._settings = dict(size=size, scale_factor=scale_factor, data_format=data_format)
        self._name = name

    def forward(self, x):
        return F.interpolate(x, mode="nearest", **self._settings)

    def extra_repr(self):
        st = self._settings
        size = [st["size"]] * 2 if isinstance(st["size"], int) else st["size"]
        return (
            f"{_size_or_scale(size, st['scale_factor'])}, data_format={st['data_format']}"
            + _name_suffix(self._name)
        )


class UpsamplingBilinear2D(UpsamplingNearest2D):
    """Bilinear upsampling of [N, C, H, W] with aligned corners, to size or by scale_factor."""

    def forward(self, x):
        return F.interpolate(x, mode="bilinear", align_corners=True, align_mode=0, **self._settings)


class PixelShuffle(Layer):
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r]."""

    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._factor, self._data_format = upscale_factor, data_format
        self._name = name

    def forward(self, x):
        return F.pixel_shuffle(x, self._factor, self._data_format)

    def extra_repr(self):
        return _factor_repr("upscale_factor", self._factor, self._data_format, self._name)


def _factor_repr(what, factor, data_format, name):
    """Paddle's repr of PixelShuffle, PixelUnshuffle and ChannelShuffle: the factor, then
    data_format unless NCHW and name unless None."""
    s = f"{what}={factor}"
    if data_format != "NCHW":
        s += f", data_format={data_format}"
    return s if name is None else s + f", name={name}"


class Unflatten(Layer):
    """Split axis into shape."""

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape = axis, list(shape)
        self._shown_shape, self.name = shape, name

    def forward(self, input):
        return unflatten(input, self.axis, self.shape)

    def extra_repr(self):
        return f"axis={self.axis}, shape={self._shown_shape}" + _name_suffix(self.name)


class Unfold(Layer):
    """Sliding blocks of [N, C, H, W] as columns [N, C * kh * kw, L] (im2col)."""

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self._settings = dict(
            kernel_sizes=kernel_sizes, strides=strides, paddings=paddings, dilations=dilations
        )
        self.name = name

    def forward(self, input):
        return F.unfold(input, **self._settings)

    def extra_repr(self):
        return _window_repr(self._settings, self.name)


class Fold(Layer):
    """Columns [N, C * kh * kw, L] summed back into [N, C, *output_sizes] (col2im)."""

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self._settings = dict(
            output_sizes=output_sizes,
            kernel_sizes=kernel_sizes,
            strides=strides,
            paddings=paddings,
            dilations=dilations,
        )
        self.name = name

    def forward(self, input):
        return F.fold(input, **self._settings)

    def extra_repr(self):
        return _window_repr(self._settings, self.name)


def _window_repr(settings, name):
    """Paddle's repr of Unfold and Fold (output_sizes not shown)."""
    st = settings
    return (
        f"kernel_size={st['kernel_sizes']}, dilation={st['dilations']}, "
        f"padding={st['paddings']}, stride={st['strides']}" + _name_suffix(name)
    )


class CosineSimilarity(Layer):
    """The cosine similarity of x1 and x2 along axis (eps guards zero vectors)."""

    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self):
        return f"axis={self._axis}, eps={self._eps}"


# PyTorch's spellings, as Paddle exports them
UpsamplingNearest2d, UpsamplingBilinear2d = UpsamplingNearest2D, UpsamplingBilinear2D
