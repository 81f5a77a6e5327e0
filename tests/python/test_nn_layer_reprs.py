"""print(layer) gives Paddle 3.3.1's text for the oar.nn layers: each row builds a layer
and holds what Paddle prints for the same call (taken from Paddle; this test does not
import it)."""
import pytest

import oar
import oar.nn as nn


def _forwarded(layer, shape):
    """layer after one forward (Paddle's batch norm layers print another data_format
    from then on)."""
    layer.eval()
    layer(oar.ones(shape))
    return layer


CASES = [
    (lambda: nn.Conv2D(2, 3, 3, stride=2, padding=1),
     "Conv2D(2, 3, kernel_size=[3, 3], stride=[2, 2], padding=1, data_format=NCHW)"),
    (lambda: nn.Conv2D(2, 3, (3, 5), stride=(2, 1), padding=(1, 2)),
     "Conv2D(2, 3, kernel_size=[3, 5], stride=[2, 1], padding=(1, 2), data_format=NCHW)"),
    (lambda: nn.Conv2D(4, 4, 3, groups=2, dilation=2, bias_attr=False),
     "Conv2D(4, 4, kernel_size=[3, 3], dilation=[2, 2], groups=2, data_format=NCHW)"),
    (lambda: nn.Conv2D(2, 3, 3, padding='same'),
     "Conv2D(2, 3, kernel_size=[3, 3], padding=same, data_format=NCHW)"),
    (lambda: nn.Conv1D(2, 3, 3, stride=2, padding=1, padding_mode='reflect'),
     "Conv1D(2, 3, kernel_size=[3], stride=[2], padding=1, padding_mode=reflect, "
     "data_format=NCL)"),
    (lambda: nn.Conv3D(2, 3, 3, stride=2, padding=1, dilation=2),
     "Conv3D(2, 3, kernel_size=[3, 3, 3], stride=[2, 2, 2], padding=1, dilation=[2, 2, 2], "
     "data_format=NCDHW)"),
    (lambda: nn.Conv1DTranspose(2, 3, 3, stride=2, dilation=2),
     "Conv1DTranspose(2, 3, kernel_size=[3], stride=[2], dilation=[2], data_format=NCL)"),
    (lambda: nn.Conv2DTranspose(2, 3, 3, output_padding=1, stride=2),
     "Conv2DTranspose(2, 3, kernel_size=[3, 3], stride=[2, 2], output_padding=1, "
     "data_format=NCHW)"),
    (lambda: nn.Conv3DTranspose(2, 3, (1, 2, 3), stride=(1, 2, 1), output_padding=[0, 1, 0]),
     "Conv3DTranspose(2, 3, kernel_size=[1, 2, 3], stride=[1, 2, 1], "
     "output_padding=[0, 1, 0], data_format=NCDHW)"),
    (lambda: nn.BatchNorm1D(4),
     "BatchNorm1D(num_features=4, momentum=0.9, epsilon=1e-05, data_format=NCL)"),
    (lambda: nn.BatchNorm1D(4, data_format='NLC'),
     "BatchNorm1D(num_features=4, momentum=0.9, epsilon=1e-05, data_format=NLC)"),
    (lambda: nn.BatchNorm2D(4), "BatchNorm2D(num_features=4, momentum=0.9, epsilon=1e-05)"),
    (lambda: nn.BatchNorm2D(4, data_format='NHWC', epsilon=1e-3),
     "BatchNorm2D(num_features=4, momentum=0.9, epsilon=0.001, data_format=NHWC)"),
    (lambda: nn.BatchNorm2D(4, name='bn'),
     "BatchNorm2D(num_features=4, momentum=0.9, epsilon=1e-05, name=bn)"),
    (lambda: nn.BatchNorm3D(4),
     "BatchNorm3D(num_features=4, momentum=0.9, epsilon=1e-05, data_format=NCDHW)"),
    (lambda: _forwarded(nn.BatchNorm1D(4), [2, 4, 3]),
     "BatchNorm1D(num_features=4, momentum=0.9, epsilon=1e-05)"),
    (lambda: _forwarded(nn.BatchNorm3D(2, data_format='NDHWC'), [1, 2, 2, 2, 2]),
     "BatchNorm3D(num_features=2, momentum=0.9, epsilon=1e-05, data_format=NHWC)"),
    (lambda: nn.BatchNorm(4), "BatchNorm()"),
    (lambda: nn.SyncBatchNorm(4, data_format='NHWC'),
     "SyncBatchNorm(num_features=4, momentum=0.9, epsilon=1e-05, data_format=NHWC)"),
    (lambda: nn.GroupNorm(2, 4), "GroupNorm(num_groups=2, num_channels=4, epsilon=1e-05)"),
    (lambda: nn.InstanceNorm1D(4), "InstanceNorm1D(num_features=4, epsilon=1e-05)"),
    (lambda: nn.InstanceNorm2D(4), "InstanceNorm2D(num_features=4, epsilon=1e-05)"),
    (lambda: nn.InstanceNorm3D(4, epsilon=1e-3), "InstanceNorm3D(num_features=4, epsilon=0.001)"),
    (lambda: nn.LocalResponseNorm(3), "LocalResponseNorm(size=3, alpha=0.0001, beta=0.75, k=1.0)"),
    (lambda: nn.LocalResponseNorm(5, alpha=1e-3, beta=0.5, k=2, data_format='NHWC', name='lrn'),
     "LocalResponseNorm(size=5, alpha=0.001, beta=0.5, k=2, data_format=NHWC, name=lrn)"),
    (lambda: nn.SpectralNorm([3, 4]), "SpectralNorm()"),
    (lambda: nn.Embedding(10, 3), "Embedding(10, 3, sparse=False, scale_grad_by_freq=False)"),
    (lambda: nn.Embedding(10, 3, padding_idx=-1, sparse=True),
     "Embedding(10, 3, padding_idx=-1, sparse=True, scale_grad_by_freq=False)"),
    (lambda: nn.Embedding(10, 3, scale_grad_by_freq=True, name='emb'),
     "Embedding(10, 3, sparse=False, scale_grad_by_freq=True, name=emb)"),
    (lambda: nn.Dropout(0.3), "Dropout(p=0.3, axis=None, mode=upscale_in_train, inplace=False)"),
    (lambda: nn.Dropout(0.3, axis=1, mode='downscale_in_infer', name='d'),
     "Dropout(p=0.3, axis=1, mode=downscale_in_infer, name=d, inplace=False)"),
    (lambda: nn.Dropout2D(0.2), "Dropout2D(p=0.2, data_format=NCHW)"),
    (lambda: nn.Dropout3D(0.2, name='d3'), "Dropout3D(p=0.2, data_format=NCDHW, name=d3)"),
    (lambda: nn.AlphaDropout(0.2), "AlphaDropout(p=0.2)"),
    (lambda: nn.FeatureAlphaDropout(0.2, name='fa'), "FeatureAlphaDropout(p=0.2, name=fa)"),
    (lambda: nn.ReLU(name='r'), "ReLU(name=r)"),
    (lambda: nn.LeakyReLU(0.2, name='lr'), "LeakyReLU(negative_slope=0.2, name=lr)"),
    (lambda: nn.SELU(1.5, 2), "SELU(scale=1.5000000000000000, alpha=2.0000000000000000)"),
    (lambda: nn.PReLU(), "PReLU(num_parameters=1, data_format=NCHW, init=0.25, dtype=float32)"),
    (lambda: nn.PReLU().to(dtype='float64'),
     "PReLU(num_parameters=1, data_format=NCHW, init=0.25, dtype=float64)"),
    (lambda: nn.PReLU(3, init=0.1, data_format='NHWC', name='p'),
     "PReLU(num_parameters=3, data_format=NHWC, init=0.1, dtype=float32, name=p)"),
    (lambda: nn.Silu(), "Silu(inplace=False)"),
    (lambda: nn.Softplus(), "Softplus(beta=1, threshold=20)"),
    (lambda: nn.Softplus(2.0, 10.0), "Softplus(beta=2.0, threshold=10.0)"),
    (lambda: nn.RReLU(),
     "RReLU(lower=0.125, upper=0.3333333333333333, training=True, dtype=float32)"),
    (lambda: nn.Maxout(2, name='m'), "Maxout(groups=2, axis=1, name=m)"),
    (lambda: nn.Softmax2D(name='s2'), "Softmax2D(name=s2)"),
    (lambda: nn.Flatten(0, 2), "Flatten()"),
    (lambda: nn.Upsample(scale_factor=2),
     "Upsample(scale_factor=2, mode=nearest, align_corners=False, align_mode=0, "
     "data_format=None)"),
    (lambda: nn.Upsample(size=(4, 4), mode='BILINEAR', data_format='NHWC', name='up'),
     "Upsample(size=(4, 4), mode=bilinear, align_corners=False, align_mode=0, "
     "data_format=NHWC, name=up)"),
    (lambda: nn.UpsamplingNearest2D(size=4), "UpsamplingNearest2D(size=[4, 4], data_format=NCHW)"),
    (lambda: nn.UpsamplingBilinear2D(scale_factor=2, name='ub'),
     "UpsamplingBilinear2D(scale_factor=2, data_format=NCHW, name=ub)"),
    (lambda: nn.PixelShuffle(2), "PixelShuffle(upscale_factor=2)"),
    (lambda: nn.PixelShuffle(2, 'NHWC', name='ps'),
     "PixelShuffle(upscale_factor=2, data_format=NHWC, name=ps)"),
    (lambda: nn.PixelUnshuffle(2), "PixelUnshuffle(downscale_factor=2)"),
    (lambda: nn.ChannelShuffle(2), "ChannelShuffle(groups=2)"),
    (lambda: nn.Unflatten(1, [2, 2]), "Unflatten(axis=1, shape=[2, 2])"),
    (lambda: nn.Unflatten(-1, (2, 3), name='uf'), "Unflatten(axis=-1, shape=(2, 3), name=uf)"),
    (lambda: nn.Unfold(2), "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"),
    (lambda: nn.Fold((5, 5), [2, 2], dilations=(1, 1), paddings=1, strides=2, name='f'),
     "Fold(kernel_size=[2, 2], dilation=(1, 1), padding=1, stride=2, name=f)"),
    (lambda: nn.PairwiseDistance(), "PairwiseDistance(p=2.0)"),
    (lambda: nn.PairwiseDistance(1.0, 1e-5, True, name='pd'),
     "PairwiseDistance(p=1.0, epsilon=1e-05, keepdim=True, name=pd)"),
    (lambda: nn.Bilinear(2, 3, 4),
     "Bilinear(in1_features=2, in2_features=3, out_features=4, dtype=float32)"),
    (lambda: nn.Linear(3, 4, name='fc'),
     "Linear(in_features=3, out_features=4, dtype=float32, name=fc)"),
    (lambda: nn.Linear(2, 2).to(dtype='float16'),
     "Linear(in_features=2, out_features=2, dtype=float16)"),
    (lambda: nn.ZeroPad2D((1, 1, 2, 2)),
     "ZeroPad2D(padding=(1, 1, 2, 2), mode=constant, value=0.0, data_format=NCHW)"),
    (lambda: nn.Pad1D(1, value=1.0, name='pad'),
     "Pad1D(padding=[1, 1], mode=constant, value=1.0, data_format=NCL, name=pad)"),
    (lambda: nn.CrossEntropyLoss(), "CrossEntropyLoss()"),
    (lambda: nn.MSELoss(), "MSELoss()"),
    (lambda: nn.L1Loss(), "L1Loss()"),
    (lambda: nn.BCELoss(), "BCELoss()"),
    (lambda: nn.BCEWithLogitsLoss(), "BCEWithLogitsLoss()"),
    (lambda: nn.KLDivLoss(), "KLDivLoss()"),
    (lambda: nn.NLLLoss(), "NLLLoss()"),
    (lambda: nn.SmoothL1Loss(), "SmoothL1Loss()"),
    (lambda: nn.CTCLoss(), "CTCLoss()"),
    (lambda: nn.HingeEmbeddingLoss(), "HingeEmbeddingLoss()"),
    (lambda: nn.TripletMarginLoss(), "TripletMarginLoss()"),
    (lambda: nn.MultiMarginLoss(), "MultiMarginLoss()"),
    (lambda: nn.GaussianNLLLoss(), "GaussianNLLLoss()"),
    (lambda: nn.PoissonNLLLoss(), "PoissonNLLLoss()"),
    (lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4]), "AdaptiveLogSoftmaxWithLoss()"),
    (lambda: nn.GRU(3, 4, dropout=0.1, time_major=True),
     "GRU(3, 4, time_major=True, dropout=0.1\n"
     "  (0): RNN(\n"
     "    (cell): GRUCell(3, 4)\n"
     "  )\n"
     ")"),
    (lambda: nn.LSTM(3, 4, num_layers=2),
     "LSTM(3, 4, num_layers=2\n"
     "  (0): RNN(\n"
     "    (cell): LSTMCell(3, 4)\n"
     "  )\n"
     "  (1): RNN(\n"
     "    (cell): LSTMCell(4, 4)\n"
     "  )\n"
     ")"),
    (lambda: nn.MultiHeadAttention(8, 2),
     "MultiHeadAttention(\n"
     "  (q_proj): Linear(in_features=8, out_features=8, dtype=float32)\n"
     "  (k_proj): Linear(in_features=8, out_features=8, dtype=float32)\n"
     "  (v_proj): Linear(in_features=8, out_features=8, dtype=float32)\n"
     "  (out_proj): Linear(in_features=8, out_features=8, dtype=float32)\n"
     ")"),
]


@pytest.mark.parametrize("make, want", CASES, ids=[w.split("(")[0] for _, w in CASES])
def test_layer_repr_is_paddles(make, want):
    assert repr(make()) == want
