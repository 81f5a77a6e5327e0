"""Constructor and forward signatures of oar.nn's layers against Paddle 3.3.1's, and
the arguments that differed: activations' positional name (nn.ReLU(True)), Dropout's
inplace, SmoothL1Loss's is_huber, Upsample's recompute_scale_factor, Embedding's
order and keyword-only arguments, LayerNorm's and GroupNorm's keyword-only affine
switches (and LayerNorm's flat parameters), MaxUnPool's forward output_size; and
mse_loss / l1_loss broadcasting input against label as Paddle does.

The tables were read with inspect.signature on Paddle 3.3.1; the values marked
"measured" were computed there."""
import inspect
import warnings

import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F


def _positional(fn):
    return [
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"
    ]


def _keyword_only(fn):
    return [p.name for p in inspect.signature(fn).parameters.values() if p.kind == p.KEYWORD_ONLY]


# __init__'s positional parameters (and keyword-only ones, where Paddle has any), for
# every paddle.nn layer that takes no *args
PADDLE_INIT = {
    "AdaptiveAvgPool1D": ("output_size, name",),
    "AdaptiveAvgPool1d": ("output_size, name",),
    "AdaptiveAvgPool2D": ("output_size, data_format, name",),
    "AdaptiveAvgPool2d": ("output_size, data_format, name",),
    "AdaptiveAvgPool3D": ("output_size, data_format, name",),
    "AdaptiveAvgPool3d": ("output_size, data_format, name",),
    "AdaptiveLogSoftmaxWithLoss": (
        "in_features, n_classes, cutoffs, weight_attr, bias_attr, div_value, head_bias, name",),
    "AdaptiveMaxPool1D": ("output_size, return_mask, name",),
    "AdaptiveMaxPool1d": ("output_size, return_mask, name",),
    "AdaptiveMaxPool2D": ("output_size, return_mask, name",),
    "AdaptiveMaxPool2d": ("output_size, return_mask, name",),
    "AdaptiveMaxPool3D": ("output_size, return_mask, name",),
    "AdaptiveMaxPool3d": ("output_size, return_mask, name",),
    "AlphaDropout": ("p, name",),
    "AvgPool1D": ("kernel_size, stride, padding, exclusive, ceil_mode, name",),
    "AvgPool2D": (
        "kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format, "
        "name",),
    "AvgPool3D": (
        "kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format, "
        "name",),
    "BCELoss": ("weight, reduction, name",),
    "BCEWithLogitsLoss": ("weight, reduction, pos_weight, name",),
    "BatchNorm": (
        "num_channels, act, is_test, momentum, epsilon, param_attr, bias_attr, dtype, "
        "data_layout, in_place, moving_mean_name, moving_variance_name, "
        "do_model_average_for_mean_and_var, use_global_stats, trainable_statistics",),
    "BatchNorm1D": (
        "num_features, momentum, epsilon, weight_attr, bias_attr, data_format, "
        "use_global_stats, name",),
    "BatchNorm2D": (
        "num_features, momentum, epsilon, weight_attr, bias_attr, data_format, "
        "use_global_stats, name",),
    "BatchNorm3D": (
        "num_features, momentum, epsilon, weight_attr, bias_attr, data_format, "
        "use_global_stats, name",),
    "BiRNN": ("cell_fw, cell_bw, time_major",),
    "Bilinear": ("in1_features, in2_features, out_features, weight_attr, bias_attr, name",),
    "CELU": ("alpha, name",),
    "CTCLoss": ("blank, reduction, zero_infinity",),
    "ChannelShuffle": ("groups, data_format, name",),
    "CircularPad1D": ("padding, data_format, name",),
    "CircularPad1d": ("padding, data_format, name",),
    "CircularPad2D": ("padding, data_format, name",),
    "CircularPad2d": ("padding, data_format, name",),
    "CircularPad3D": ("padding, data_format, name",),
    "CircularPad3d": ("padding, data_format, name",),
    "ConstantPad1D": ("padding, value, data_format, name",),
    "ConstantPad1d": ("padding, value, data_format, name",),
    "ConstantPad2D": ("padding, value, data_format, name",),
    "ConstantPad2d": ("padding, value, data_format, name",),
    "ConstantPad3D": ("padding, value, data_format, name",),
    "ConstantPad3d": ("padding, value, data_format, name",),
    "Conv1D": ("in_channels, out_channels, kernel_size, stride, padding, dilation, groups",
        "bias, padding_mode, device, dtype, weight_attr, bias_attr, data_format"),
    "Conv1DTranspose": (
        "in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, "
        "dilation, weight_attr, bias_attr, data_format",),
    "Conv1d": ("in_channels, out_channels, kernel_size, stride, padding, dilation, groups",
        "bias, padding_mode, device, dtype, weight_attr, bias_attr, data_format"),
    "Conv2D": ("in_channels, out_channels, kernel_size, stride, padding, dilation, groups",
        "bias, padding_mode, device, dtype, weight_attr, bias_attr, data_format"),
    "Conv2DTranspose": (
        "in_channels, out_channels, kernel_size, stride, padding, output_padding, dilation, "
        "groups, weight_attr, bias_attr, data_format",),
    "Conv2d": ("in_channels, out_channels, kernel_size, stride, padding, dilation, groups",
        "bias, padding_mode, device, dtype, weight_attr, bias_attr, data_format"),
    "Conv3D": ("in_channels, out_channels, kernel_size, stride, padding, dilation, groups",
        "bias, padding_mode, device, dtype, weight_attr, bias_attr, data_format"),
    "Conv3DTranspose": (
        "in_channels, out_channels, kernel_size, stride, padding, output_padding, dilation, "
        "groups, weight_attr, bias_attr, data_format",),
    "Conv3d": ("in_channels, out_channels, kernel_size, stride, padding, dilation, groups",
        "bias, padding_mode, device, dtype, weight_attr, bias_attr, data_format"),
    "CosineEmbeddingLoss": ("margin, reduction, name",),
    "CosineSimilarity": ("axis, eps",),
    "CrossEntropyLoss": (
        "weight, ignore_index, reduction, soft_label, axis, use_softmax, label_smoothing, "
        "name",),
    "Dropout": ("p, inplace, axis, mode, name",),
    "Dropout2D": ("p, data_format, name",),
    "Dropout3D": ("p, data_format, name",),
    "ELU": ("alpha, name",),
    "Embedding": ("num_embeddings, embedding_dim, padding_idx, max_norm, norm_type",
        "scale_grad_by_freq, sparse, _weight, _freeze, device, dtype, weight_attr, name"),
    "FeatureAlphaDropout": ("p, name",),
    "Flatten": ("start_axis, stop_axis",),
    "Fold": ("output_sizes, kernel_sizes, dilations, paddings, strides, name",),
    "FractionalMaxPool2D": ("output_size, kernel_size, random_u, return_mask, name",),
    "FractionalMaxPool3D": ("output_size, kernel_size, random_u, return_mask, name",),
    "GELU": ("approximate, name",),
    "GLU": ("axis, name",),
    "GRU": (
        "input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr, "
        "weight_hh_attr, bias_ih_attr, bias_hh_attr, name",),
    "GRUCell": (
        "input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, "
        "name",),
    "GaussianNLLLoss": ("full, epsilon, reduction, name",),
    "GroupNorm": ("num_groups, num_channels, epsilon",
        "affine, device, dtype, weight_attr, bias_attr, data_format, name"),
    "HSigmoidLoss": (
        "feature_size, num_classes, weight_attr, bias_attr, is_custom, is_sparse, name",),
    "Hardshrink": ("threshold, name",),
    "Hardsigmoid": ("name",),
    "Hardswish": ("name",),
    "Hardtanh": ("min, max, name",),
    "HingeEmbeddingLoss": ("margin, reduction, name",),
    "HuberLoss": ("reduction, delta, is_huber, name",),
    "InstanceNorm1D": (
        "num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name",),
    "InstanceNorm2D": (
        "num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name",),
    "InstanceNorm3D": (
        "num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name",),
    "KLDivLoss": ("reduction, log_target",),
    "L1Loss": ("reduction, name",),
    "LPPool1D": ("norm_type, kernel_size, stride, padding, ceil_mode, data_format, name",),
    "LPPool1d": ("norm_type, kernel_size, stride, padding, ceil_mode, data_format, name",),
    "LPPool2D": ("norm_type, kernel_size, stride, padding, ceil_mode, data_format, name",),
    "LPPool2d": ("norm_type, kernel_size, stride, padding, ceil_mode, data_format, name",),
    "LSTM": (
        "input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr, "
        "weight_hh_attr, bias_ih_attr, bias_hh_attr, proj_size, name",),
    "LSTMCell": (
        "input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, "
        "proj_size, name",),
    "Layer": ("name_scope, dtype",),
    "LayerDict": ("sublayers",),
    "LayerList": ("sublayers",),
    "LayerNorm": ("normalized_shape, epsilon",
        "elementwise_affine, bias, device, dtype, weight_attr, bias_attr, name"),
    "LeakyReLU": ("negative_slope, name",),
    "Linear": ("in_features, out_features, weight_attr, bias_attr, name",),
    "LocalResponseNorm": ("size, alpha, beta, k, data_format, name",),
    "LogSigmoid": ("name",),
    "LogSoftmax": ("axis, name",),
    "MSELoss": ("reduction",),
    "MarginRankingLoss": ("margin, reduction, name",),
    "MaxPool1D": ("kernel_size, stride, padding, return_mask, ceil_mode, name",),
    "MaxPool2D": ("kernel_size, stride, padding, return_mask, ceil_mode, data_format, name",),
    "MaxPool3D": ("kernel_size, stride, padding, return_mask, ceil_mode, data_format, name",),
    "MaxUnPool1D": ("kernel_size, stride, padding, data_format, output_size, name",),
    "MaxUnPool2D": ("kernel_size, stride, padding, data_format, output_size, name",),
    "MaxUnPool3D": ("kernel_size, stride, padding, data_format, output_size, name",),
    "MaxUnpool1d": ("kernel_size, stride, padding, data_format, output_size, name",),
    "MaxUnpool2d": ("kernel_size, stride, padding, data_format, output_size, name",),
    "MaxUnpool3d": ("kernel_size, stride, padding, data_format, output_size, name",),
    "Maxout": ("groups, axis, name",),
    "Mish": ("name",),
    "Module": ("name_scope, dtype",),
    "ModuleDict": ("sublayers",),
    "ModuleList": ("sublayers",),
    "MultiHeadAttention": (
        "embed_dim, num_heads, dropout, kdim, vdim, need_weights, weight_attr, bias_attr",),
    "MultiLabelMarginLoss": ("reduction, name",),
    "MultiLabelSoftMarginLoss": ("weight, reduction, name",),
    "MultiMarginLoss": ("p, margin, weight, reduction, name",),
    "NLLLoss": ("weight, ignore_index, reduction, name",),
    "PReLU": ("num_parameters, init, weight_attr, data_format, name",),
    "Pad1D": ("padding, mode, value, data_format, name",),
    "Pad2D": ("padding, mode, value, data_format, name",),
    "Pad3D": ("padding, mode, value, data_format, name",),
    "PairwiseDistance": ("p, epsilon, keepdim, name",),
    "ParameterDict": ("parameters",),
    "ParameterList": ("parameters",),
    "PixelShuffle": ("upscale_factor, data_format, name",),
    "PixelUnshuffle": ("downscale_factor, data_format, name",),
    "PoissonNLLLoss": ("log_input, full, epsilon, reduction, name",),
    "RNN": ("cell, is_reverse, time_major",),
    "RNNCellBase": ("name_scope, dtype",),
    "RNNTLoss": ("blank, fastemit_lambda, reduction, name",),
    "RReLU": ("lower, upper, name",),
    "ReLU": ("name",),
    "ReLU6": ("name",),
    "ReflectionPad1D": ("padding, data_format, name",),
    "ReflectionPad1d": ("padding, data_format, name",),
    "ReflectionPad2D": ("padding, data_format, name",),
    "ReflectionPad2d": ("padding, data_format, name",),
    "ReflectionPad3D": ("padding, data_format, name",),
    "ReflectionPad3d": ("padding, data_format, name",),
    "ReplicationPad1D": ("padding, data_format, name",),
    "ReplicationPad1d": ("padding, data_format, name",),
    "ReplicationPad2D": ("padding, data_format, name",),
    "ReplicationPad2d": ("padding, data_format, name",),
    "ReplicationPad3D": ("padding, data_format, name",),
    "ReplicationPad3d": ("padding, data_format, name",),
    "SELU": ("scale, alpha, name",),
    "SiLU": ("inplace, name",),
    "Sigmoid": ("name",),
    "Silu": ("inplace, name",),
    "SimpleRNN": (
        "input_size, hidden_size, num_layers, direction, time_major, dropout, activation, "
        "weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, name",),
    "SimpleRNNCell": (
        "input_size, hidden_size, activation, weight_ih_attr, weight_hh_attr, bias_ih_attr, "
        "bias_hh_attr, name",),
    "SmoothL1Loss": ("reduction, delta, is_huber, name",),
    "SoftMarginLoss": ("reduction, name",),
    "Softmax": ("axis, name",),
    "Softmax2D": ("name",),
    "Softplus": ("beta, threshold, name",),
    "Softshrink": ("threshold, name",),
    "Softsign": ("name",),
    "SpectralNorm": ("weight_shape, dim, power_iters, eps, dtype",),
    "Swish": ("name",),
    "SyncBatchNorm": (
        "num_features, momentum, epsilon, weight_attr, bias_attr, data_format, name",),
    "Tanh": ("name",),
    "Tanhshrink": ("name",),
    "ThresholdedReLU": ("threshold, value, name",),
    "Transformer": (
        "d_model, nhead, num_encoder_layers, num_decoder_layers, dim_feedforward, dropout, "
        "activation, attn_dropout, act_dropout, normalize_before, weight_attr, bias_attr, "
        "custom_encoder, custom_decoder",),
    "TransformerDecoder": ("decoder_layer, num_layers, norm",),
    "TransformerDecoderLayer": (
        "d_model, nhead, dim_feedforward, dropout, activation, attn_dropout, act_dropout, "
        "normalize_before, weight_attr, bias_attr, layer_norm_eps",),
    "TransformerEncoder": ("encoder_layer, num_layers, norm",),
    "TransformerEncoderLayer": (
        "d_model, nhead, dim_feedforward, dropout, activation, attn_dropout, act_dropout, "
        "normalize_before, weight_attr, bias_attr, layer_norm_eps",),
    "TripletMarginLoss": ("margin, p, epsilon, swap, reduction, name",),
    "TripletMarginWithDistanceLoss": ("distance_function, margin, swap, reduction, name",),
    "Unflatten": ("axis, shape, name",),
    "Unfold": ("kernel_sizes, dilations, paddings, strides, name",),
    "Upsample": (
        "size, scale_factor, mode, align_corners, align_mode, data_format, "
        "recompute_scale_factor, name",),
    "UpsamplingBilinear2D": ("size, scale_factor, data_format, name",),
    "UpsamplingBilinear2d": ("size, scale_factor, data_format, name",),
    "UpsamplingNearest2D": ("size, scale_factor, data_format, name",),
    "UpsamplingNearest2d": ("size, scale_factor, data_format, name",),
    "ZeroPad1D": ("padding, data_format, name",),
    "ZeroPad1d": ("padding, data_format, name",),
    "ZeroPad2D": ("padding, data_format, name",),
    "ZeroPad2d": ("padding, data_format, name",),
    "ZeroPad3D": ("padding, data_format, name",),
    "ZeroPad3d": ("padding, data_format, name",),
}


# forward's positional parameters -> the layers with them
PADDLE_FORWARD = {
    "input": (
        "AdaptiveAvgPool1D AdaptiveAvgPool1d AdaptiveMaxPool1D AdaptiveMaxPool1d AlphaDropout "
        "BatchNorm BatchNorm1D BatchNorm2D BatchNorm3D Dropout Dropout2D Dropout3D "
        "FeatureAlphaDropout Flatten Fold GroupNorm Identity InstanceNorm1D InstanceNorm2D "
        "InstanceNorm3D LayerNorm Linear LocalResponseNorm MaxPool1D Sequential Unflatten "
        "Unfold "
    ).split(),
    "x": (
        "AdaptiveAvgPool2D AdaptiveAvgPool2d AdaptiveAvgPool3D AdaptiveAvgPool3d "
        "AdaptiveMaxPool2D AdaptiveMaxPool2d AdaptiveMaxPool3D AdaptiveMaxPool3d AvgPool1D "
        "AvgPool2D AvgPool3D CELU ChannelShuffle CircularPad1D CircularPad1d CircularPad2D "
        "CircularPad2d CircularPad3D CircularPad3d ConstantPad1D ConstantPad1d ConstantPad2D "
        "ConstantPad2d ConstantPad3D ConstantPad3d Conv1D Conv1d Conv2D Conv2d Conv3D Conv3d "
        "ELU Embedding FractionalMaxPool2D FractionalMaxPool3D GELU GLU Hardshrink "
        "Hardsigmoid Hardswish Hardtanh LPPool1D LPPool1d LPPool2D LPPool2d LeakyReLU "
        "LogSigmoid LogSoftmax MaxPool2D MaxPool3D Maxout Mish PReLU Pad1D Pad2D Pad3D "
        "PixelShuffle PixelUnshuffle RReLU ReLU ReLU6 ReflectionPad1D ReflectionPad1d "
        "ReflectionPad2D ReflectionPad2d ReflectionPad3D ReflectionPad3d ReplicationPad1D "
        "ReplicationPad1d ReplicationPad2D ReplicationPad2d ReplicationPad3D ReplicationPad3d "
        "SELU SiLU Sigmoid Silu Softmax Softmax2D Softplus Softshrink Softsign SpectralNorm "
        "Swish SyncBatchNorm Tanh Tanhshrink ThresholdedReLU Upsample UpsamplingBilinear2D "
        "UpsamplingBilinear2d UpsamplingNearest2D UpsamplingNearest2d ZeroPad1D ZeroPad1d "
        "ZeroPad2D ZeroPad2d ZeroPad3D ZeroPad3d "
    ).split(),
    "input, label": (
        "AdaptiveLogSoftmaxWithLoss BCELoss CrossEntropyLoss HingeEmbeddingLoss HuberLoss "
        "KLDivLoss L1Loss MSELoss MultiLabelMarginLoss MultiLabelSoftMarginLoss "
        "MultiMarginLoss NLLLoss PoissonNLLLoss SmoothL1Loss SoftMarginLoss "
    ).split(),
    "logit, label": (
        "BCEWithLogitsLoss "
    ).split(),
    "inputs, initial_states, sequence_length": (
        "BiRNN GRU LSTM RNN SimpleRNN "
    ).split(),
    "x1, x2": (
        "Bilinear CosineSimilarity "
    ).split(),
    "log_probs, labels, input_lengths, label_lengths, norm_by_times": (
        "CTCLoss "
    ).split(),
    "x, output_size": (
        "Conv1DTranspose Conv2DTranspose Conv3DTranspose "
    ).split(),
    "input1, input2, label": (
        "CosineEmbeddingLoss "
    ).split(),
    "inputs, states": (
        "GRUCell LSTMCell SimpleRNNCell "
    ).split(),
    "input, label, variance": (
        "GaussianNLLLoss "
    ).split(),
    "input, label, path_table, path_code": (
        "HSigmoidLoss "
    ).split(),
    "input, other, label": (
        "MarginRankingLoss "
    ).split(),
    "x, indices, output_size": (
        "MaxUnPool1D MaxUnPool2D MaxUnPool3D MaxUnpool1d MaxUnpool2d MaxUnpool3d "
    ).split(),
    "query, key, value, attn_mask, cache": (
        "MultiHeadAttention "
    ).split(),
    "x, y": (
        "PairwiseDistance "
    ).split(),
    "input, label, input_lengths, label_lengths": (
        "RNNTLoss "
    ).split(),
    "src, tgt, src_mask, tgt_mask, memory_mask": (
        "Transformer "
    ).split(),
    "tgt, memory, tgt_mask, memory_mask, cache": (
        "TransformerDecoder TransformerDecoderLayer "
    ).split(),
    "src, src_mask, cache": (
        "TransformerEncoder TransformerEncoderLayer "
    ).split(),
    "input, positive, negative": (
        "TripletMarginLoss TripletMarginWithDistanceLoss "
    ).split(),
}


@pytest.mark.parametrize("name", sorted(PADDLE_INIT))
def test_constructor_signatures_match_paddle(name):
    pos, *kw = PADDLE_INIT[name]
    init = getattr(nn, name).__init__
    assert _positional(init) == pos.split(", "), name
    if kw:
        assert _keyword_only(init) == kw[0].split(", "), name
    else:
        assert _keyword_only(init) == [], name


@pytest.mark.parametrize(
    "pos, name", [(pos, n) for pos, names in PADDLE_FORWARD.items() for n in names]
)
def test_forward_signatures_match_paddle(pos, name):
    got = _positional(getattr(nn, name).forward)
    # oar's convolutions share forward with the transposed ones: output_size follows
    assert got[: len(pos.split(", "))] == pos.split(", "), (name, got)
    assert len(got) == len(pos.split(", ")) or name.lower().startswith("conv"), (name, got)


def test_activations_take_name_positionally():
    # measured: paddle.nn.ReLU(True) is ReLU(name=True) and computes relu
    r = nn.ReLU(True)
    assert repr(r) == "ReLU(name=True)"
    np.testing.assert_array_equal(r(oar.to_tensor([-1.0, 2.0])).numpy(), [0.0, 2.0])
    assert repr(nn.LeakyReLU(0.2, "lr")) == "LeakyReLU(negative_slope=0.2, name=lr)"
    h = nn.Hardtanh(-2.0, 2.0, "h")
    np.testing.assert_array_equal(h(oar.to_tensor([-3.0, 3.0])).numpy(), [-2.0, 2.0])
    assert h._name == "h"
    with pytest.raises(TypeError, match="ReLU"):
        nn.ReLU(None, None)
    with pytest.raises(TypeError, match="beta"):
        nn.ELU(beta=1.0)


def test_dropout_inplace():
    d = nn.Dropout(0.5, True)  # Paddle's second positional: inplace
    assert d.inplace and repr(d) == "Dropout(p=0.5, axis=None, mode=upscale_in_train, inplace=True)"
    oar.seed(7)
    x = oar.ones([64, 64])
    y = d(x)
    assert y is x
    v = x.numpy()
    assert set(np.unique(v)) <= {0.0, 2.0} and 0.4 < (v == 0).mean() < 0.6
    # F.dropout(x, p, axis, training, inplace, mode): into x, gradient through the mask
    a = oar.ones([8, 8], dtype="float64")
    a.stop_gradient = False
    b = a * 1.0
    out = F.dropout(b, 0.5, None, True, True)
    assert out is b
    out.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), b.numpy())
    d.eval()
    z = oar.ones([3])
    assert d(z) is z and np.all(z.numpy() == 1.0)
    down = oar.ones([3])
    F.dropout(down, 0.25, training=False, inplace=True, mode="downscale_in_infer")
    np.testing.assert_allclose(down.numpy(), 0.75)


def test_smooth_l1_is_huber():
    x, y = oar.to_tensor([0.5, 3.0]), oar.to_tensor([0.0, 0.0])
    # measured: is_huber=True gives [0.125, 4.0], is_huber=False [0.0625, 2.0] (delta 2)
    np.testing.assert_allclose(F.smooth_l1_loss(x, y, "none", 2.0).numpy(), [0.125, 4.0])
    np.testing.assert_allclose(F.smooth_l1_loss(x, y, "none", 2.0, False).numpy(), [0.0625, 2.0])
    np.testing.assert_allclose(nn.SmoothL1Loss("sum", 2.0, False)(x, y).numpy(), 2.0625)
    np.testing.assert_allclose(nn.HuberLoss("mean", 2.0, True)(x, y).numpy(), 2.0625)


def test_upsample_recompute_scale_factor():
    up = nn.Upsample(None, 1.5, "nearest", False, 0, "NCHW", True, "u")
    assert up._name == "u" and up._settings["recompute_scale_factor"] is True
    assert up(oar.ones([1, 1, 4, 4])).shape == [1, 1, 6, 6]


def test_embedding_paddle_3_arguments():
    # Paddle 3.3: Embedding(num, dim, padding_idx, max_norm, norm_type, *, ...)
    e = nn.Embedding(6, 3, 1, 1.0, 2.0)
    assert e._padding_idx == 1 and e._max_norm == 1.0 and e._norm_type == 2.0
    w = oar.to_tensor(np.arange(15, dtype=np.float32).reshape(5, 3))
    e = nn.Embedding(5, 3, padding_idx=1, _weight=w)
    # measured: a plain tensor is kept as the table (not a parameter, not in state_dict),
    # trainable unless _freeze, its padding row zeroed
    assert e.weight is w and not w.stop_gradient
    assert [n for n, _ in e.named_parameters()] == [] and list(e.state_dict()) == []
    np.testing.assert_array_equal(w.numpy()[1], 0.0)
    e = nn.Embedding(5, 3, _freeze=True, dtype="float64")
    assert e.weight.stop_gradient and e.weight.dtype == oar.float64
    with pytest.raises(ValueError, match="_weight"):
        nn.Embedding(5, 3, _weight=oar.ones([4, 3]))
    with pytest.raises(TypeError):
        nn.Embedding(5, 3, None, None, 2.0, True)  # sparse is keyword-only


def test_layer_norm_and_group_norm_switches():
    # measured: LayerNorm([3, 4]) has weight and bias of shape [12]
    ln = nn.LayerNorm([3, 4])
    assert ln.weight.shape == [12] and ln.bias.shape == [12]
    x = oar.to_tensor(np.random.default_rng(0).normal(size=[2, 3, 4]).astype(np.float32))
    np.testing.assert_allclose(
        ln(x).numpy(), F.layer_norm(x, [3, 4]).numpy(), rtol=1e-6, atol=1e-6
    )
    ln = nn.LayerNorm(4, elementwise_affine=False)
    assert ln.weight is None and ln.bias is None and list(ln.state_dict()) == []
    ln = nn.LayerNorm(4, bias=False)
    assert ln.bias is None and list(ln.state_dict()) == ["weight"]
    assert nn.LayerNorm(4, dtype="float64").weight.dtype == oar.float64
    g = nn.GroupNorm(2, 4, affine=False)
    assert g.weight is None and g.bias is None
    assert g(oar.ones([1, 4, 2, 2])).shape == [1, 4, 2, 2]
    assert nn.GroupNorm(2, 4, dtype="float64").bias.dtype == oar.float64
    with pytest.raises(TypeError):
        nn.LayerNorm(4, 1e-5, None)  # weight_attr is keyword-only


def test_max_unpool_forward_output_size():
    pool = nn.MaxPool2D(2, return_mask=True)
    x = oar.to_tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    y, mask = pool(x)
    unpool = nn.MaxUnPool2D(2)
    assert unpool(y, mask).shape == [1, 1, 4, 4]
    # Paddle's rule: forward's output_size wins, with its UserWarning
    with pytest.warns(UserWarning, match="output_size in forward overrides"):
        out = unpool(y, mask, [5, 5])
    assert out.shape == [1, 1, 5, 5]


def test_mse_and_l1_loss_broadcast_like_paddle():
    x = oar.to_tensor(np.array([[1.0], [2.0], [3.0]], np.float32), stop_gradient=False)
    y = oar.to_tensor(np.array([0.0, 1.0, 5.0], np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # measured: Paddle warns about nothing here
        none = F.mse_loss(x, y, reduction="none")
        mean = nn.MSELoss()(x, y)
    # measured on Paddle 3.3.1: shape [3, 3], mean 5.3333335, sum 48.0, the gradient of
    # the mean [-0.6666667, 0, 0.66666675]; l1_loss mean 2.0
    assert none.shape == [3, 3]
    np.testing.assert_array_equal(
        none.numpy(), [[1.0, 0.0, 16.0], [4.0, 1.0, 9.0], [9.0, 4.0, 4.0]]
    )
    np.testing.assert_allclose(mean.numpy(), 5.3333335, rtol=1e-6)
    np.testing.assert_allclose(F.mse_loss(x, y, reduction="sum").numpy(), 48.0)
    mean.backward()
    np.testing.assert_allclose(x.grad.numpy().ravel(), [-2 / 3, 0.0, 2 / 3], rtol=1e-6)
    np.testing.assert_allclose(F.l1_loss(x, y).numpy(), 2.0)
    np.testing.assert_allclose(nn.L1Loss("sum")(y, x).numpy(), 18.0)
    # shapes that do not broadcast are an error, as in Paddle
    with pytest.raises(ValueError, match="broadcast"):
        F.mse_loss(oar.ones([3, 2]), oar.ones([3]))
    with pytest.raises(ValueError, match="broadcast"):
        F.l1_loss(oar.ones([3, 2]), oar.ones([4]))


def test_other_pointwise_losses_need_equal_shapes_as_in_paddle():
    # measured: Paddle 3.3.1 raises for [3, 1] against [3] in each of these;
    # square_error_cost broadcasts ([3, 3])
    a, b = oar.to_tensor([[0.2], [0.5], [0.9]]), oar.to_tensor([0.0, 1.0, 1.0])
    for fn in (F.smooth_l1_loss, F.binary_cross_entropy, F.binary_cross_entropy_with_logits,
               F.kl_div, F.log_loss, F.soft_margin_loss):
        with pytest.raises(ValueError):
            fn(a, b)
    assert F.square_error_cost(a, b).shape == [3, 3]
