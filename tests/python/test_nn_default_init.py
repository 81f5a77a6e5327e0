"""The default initializers of every oar.nn layer with parameters, against Paddle's.

Each case builds a large layer and checks each parameter's distribution: its kind
('uniform': U(-b, b); 'normal': N(0, s); 'const': every element equal) and the
parameter b, s or the constant. The values were measured on Paddle 3.3.1 by building
the same layer and reading max |w| (uniform), the sample std (normal) or the value
(constant); the tolerances are a few sampling standard errors of the oar draw.
"""
import math

import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.initializer as I


def _u(b):
    return ("uniform", b)


def _n(s):
    return ("normal", s)


def _c(v):
    return ("const", v)


ZERO, ONE = _c(0.0), _c(1.0)
RNN_B = _u(0.05774)  # 1 / sqrt(hidden_size = 300)

# name -> (constructor, {parameter: (shape, distribution)}), measured on Paddle 3.3.1
CASES = {
    "Linear": (lambda: nn.Linear(300, 500), {
        "weight": ([300, 500], _u(0.08660)), "bias": ([500], ZERO)}),
    "Bilinear": (lambda: nn.Bilinear(40, 50, 60), {
        "weight": ([60, 40, 50], _u(0.03464)), "bias": ([1, 60], ZERO)}),
    # convolutions: Normal(0, sqrt(2 / (in_channels * k))), in_channels whole when grouped
    "Conv1D": (lambda: nn.Conv1D(64, 128, 5), {
        "weight": ([128, 64, 5], _n(0.07889)), "bias": ([128], ZERO)}),
    "Conv2D": (lambda: nn.Conv2D(64, 128, 3), {
        "weight": ([128, 64, 3, 3], _n(0.05914)), "bias": ([128], ZERO)}),
    "Conv2D_groups": (lambda: nn.Conv2D(64, 128, 3, groups=4), {
        "weight": ([128, 16, 3, 3], _n(0.05853)), "bias": ([128], ZERO)}),
    "Conv3D": (lambda: nn.Conv3D(16, 32, 3), {
        "weight": ([32, 16, 3, 3, 3], _n(0.06790)), "bias": ([32], ZERO)}),
    # transposed: XavierUniform over [in, out / groups, *k]
    "Conv1DTranspose": (lambda: nn.Conv1DTranspose(64, 128, 5), {
        "weight": ([64, 128, 5], _u(0.07905)), "bias": ([128], ZERO)}),
    "Conv2DTranspose": (lambda: nn.Conv2DTranspose(64, 128, 3), {
        "weight": ([64, 128, 3, 3], _u(0.05892)), "bias": ([128], ZERO)}),
    "Conv2DTranspose_groups": (lambda: nn.Conv2DTranspose(64, 128, 3, groups=4), {
        "weight": ([64, 32, 3, 3], _u(0.08333)), "bias": ([128], ZERO)}),
    "Conv2DTranspose_wide": (lambda: nn.Conv2DTranspose(16, 256, 3), {
        "weight": ([16, 256, 3, 3], _u(0.04951)), "bias": ([256], ZERO)}),
    "Conv3DTranspose": (lambda: nn.Conv3DTranspose(16, 32, 3), {
        "weight": ([16, 32, 3, 3, 3], _u(0.06803)), "bias": ([32], ZERO)}),
    **{
        bn: (lambda bn=bn: getattr(nn, bn)(1000), {
            "weight": ([1000], ONE), "bias": ([1000], ZERO),
            "_mean": ([1000], ZERO), "_variance": ([1000], ONE)})
        for bn in ("BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "SyncBatchNorm")
    },
    "LayerNorm": (lambda: nn.LayerNorm(1000), {"weight": ([1000], ONE), "bias": ([1000], ZERO)}),
    "GroupNorm": (lambda: nn.GroupNorm(10, 1000), {
        "weight": ([1000], ONE), "bias": ([1000], ZERO)}),
    **{
        inorm: (lambda inorm=inorm: getattr(nn, inorm)(1000), {
            "scale": ([1000], ONE), "bias": ([1000], ZERO)})
        for inorm in ("InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D")
    },
    "Embedding": (lambda: nn.Embedding(1000, 300), {"weight": ([1000, 300], _u(0.06794))}),
    "PReLU": (lambda: nn.PReLU(), {"_weight": ([1], _c(0.25))}),
    "PReLU_channels": (lambda: nn.PReLU(100, 0.1), {"_weight": ([100], _c(0.1))}),
    # recurrent: Uniform(-1 / sqrt(hidden_size), 1 / sqrt(hidden_size)), biases too
    "SimpleRNNCell": (lambda: nn.SimpleRNNCell(200, 300), {
        "weight_ih": ([300, 200], RNN_B), "weight_hh": ([300, 300], RNN_B),
        "bias_ih": ([300], RNN_B), "bias_hh": ([300], RNN_B)}),
    "LSTMCell": (lambda: nn.LSTMCell(200, 300), {
        "weight_ih": ([1200, 200], RNN_B), "weight_hh": ([1200, 300], RNN_B),
        "bias_ih": ([1200], RNN_B), "bias_hh": ([1200], RNN_B)}),
    "LSTMCell_proj": (lambda: nn.LSTMCell(200, 300, proj_size=100), {
        "weight_ih": ([1200, 200], RNN_B), "weight_hh": ([1200, 100], RNN_B),
        "bias_ih": ([1200], RNN_B), "bias_hh": ([1200], RNN_B),
        "weight_ho": ([300, 100], RNN_B)}),
    "GRUCell": (lambda: nn.GRUCell(200, 300), {
        "weight_ih": ([900, 200], RNN_B), "weight_hh": ([900, 300], RNN_B),
        "bias_ih": ([900], RNN_B), "bias_hh": ([900], RNN_B)}),
    "SimpleRNN": (lambda: nn.SimpleRNN(200, 300, num_layers=2, direction="bidirect"), {
        "weight_ih_l0": ([300, 200], RNN_B), "weight_hh_l1_reverse": ([300, 300], RNN_B),
        "weight_ih_l1": ([300, 600], RNN_B), "bias_hh_l0_reverse": ([300], RNN_B)}),
    "LSTM": (lambda: nn.LSTM(200, 300, num_layers=2), {
        "weight_ih_l0": ([1200, 200], RNN_B), "weight_hh_l1": ([1200, 300], RNN_B),
        "bias_ih_l1": ([1200], RNN_B), "bias_hh_l0": ([1200], RNN_B)}),
    "GRU": (lambda: nn.GRU(200, 300, num_layers=2), {
        "weight_ih_l0": ([900, 200], RNN_B), "weight_hh_l1": ([900, 300], RNN_B),
        "bias_ih_l0": ([900], RNN_B), "bias_hh_l1": ([900], RNN_B)}),
    "RNN": (lambda: nn.RNN(nn.GRUCell(200, 300)), {
        "cell.weight_ih": ([900, 200], RNN_B), "cell.bias_hh": ([900], RNN_B)}),
    "BiRNN": (lambda: nn.BiRNN(nn.GRUCell(200, 300), nn.GRUCell(200, 300)), {
        "cell_fw.weight_hh": ([900, 300], RNN_B), "cell_bw.bias_ih": ([900], RNN_B)}),
    "MultiHeadAttention": (lambda: nn.MultiHeadAttention(256, 8, kdim=128, vdim=64), {
        "q_proj.weight": ([256, 256], _u(0.1083)), "q_proj.bias": ([256], ZERO),
        "k_proj.weight": ([128, 256], _u(0.1250)), "k_proj.bias": ([256], ZERO),
        "v_proj.weight": ([64, 256], _u(0.1369)), "v_proj.bias": ([256], ZERO),
        "out_proj.weight": ([256, 256], _u(0.1083)), "out_proj.bias": ([256], ZERO)}),
    "TransformerEncoderLayer": (lambda: nn.TransformerEncoderLayer(256, 8, 512), {
        "self_attn.q_proj.weight": ([256, 256], _u(0.1083)),
        "self_attn.out_proj.bias": ([256], ZERO),
        "linear1.weight": ([256, 512], _u(0.08839)), "linear1.bias": ([512], ZERO),
        "linear2.weight": ([512, 256], _u(0.08839)), "linear2.bias": ([256], ZERO),
        "norm1.weight": ([256], ONE), "norm2.bias": ([256], ZERO)}),
    "TransformerDecoderLayer": (lambda: nn.TransformerDecoderLayer(256, 8, 512), {
        "self_attn.k_proj.weight": ([256, 256], _u(0.1083)),
        "cross_attn.v_proj.weight": ([256, 256], _u(0.1083)),
        "cross_attn.q_proj.bias": ([256], ZERO),
        "linear2.weight": ([512, 256], _u(0.08839)),
        "norm3.weight": ([256], ONE), "norm3.bias": ([256], ZERO)}),
    "TransformerEncoder": (
        lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(256, 8, 512), 2), {
            "layers.1.self_attn.v_proj.weight": ([256, 256], _u(0.1083)),
            "layers.1.linear1.weight": ([256, 512], _u(0.08839)),
            "layers.0.norm1.weight": ([256], ONE)}),
    "TransformerDecoder": (
        lambda: nn.TransformerDecoder(nn.TransformerDecoderLayer(256, 8, 512), 2), {
            "layers.1.cross_attn.k_proj.weight": ([256, 256], _u(0.1083)),
            "layers.0.linear2.bias": ([256], ZERO)}),
    "Transformer": (lambda: nn.Transformer(256, 8, 1, 1, 512), {
        "encoder.layers.0.self_attn.q_proj.weight": ([256, 256], _u(0.1083)),
        "decoder.layers.0.linear1.weight": ([256, 512], _u(0.08839)),
        "encoder.norm.weight": ([256], ONE), "decoder.norm.bias": ([256], ZERO)}),
    # SpectralNorm's u and v: N(0, 1), not trained
    "SpectralNorm": (lambda: nn.SpectralNorm([3000, 4000]), {
        "weight_u": ([3000], _n(1.0)), "weight_v": ([4000], _n(1.0))}),
    "HSigmoidLoss": (lambda: nn.HSigmoidLoss(300, 1000), {
        "weight": ([999, 300], _u(0.06796)), "bias": ([999, 1], ZERO)}),
    "AdaptiveLogSoftmaxWithLoss": (
        lambda: nn.AdaptiveLogSoftmaxWithLoss(300, 1000, [100, 500], div_value=2.0,
                                              head_bias=True), {
            "head_weight": ([300, 102], _u(0.1222)), "head_bias": ([102], ZERO),
            # Paddle keeps the tail weights out of parameters(); their draws are
            # XavierUniform, as read from its tail_weights
            "tail_0_proj": ([300, 150], _u(0.1155)), "tail_1_out": ([75, 500], _u(0.1021))}),
}


def _check(name, w, dist):
    kind, v = dist
    w = np.asarray(w, np.float64).ravel()
    n = w.size
    if kind == "const":
        assert np.all(w == np.float32(v)), (name, w[:5])
        return
    top = np.abs(w).max()
    sd = v / math.sqrt(3) if kind == "uniform" else v
    assert abs(w.mean()) < 6 * sd / math.sqrt(n), (name, w.mean())
    assert abs(w.std() / sd - 1) < 6 / math.sqrt(n), (name, w.std(), sd)
    if kind == "uniform":
        # every draw inside [-b, b] and the extremes close to b
        # (v is Paddle's value to 4 digits: 0.1% either way)
        assert v * (1 - 10 / n - 1e-3) <= top <= v * 1.001, (name, top, v)
    else:
        # a normal, not a uniform (max/std would be sqrt(3)) nor truncated at 2 std
        assert top > 2.2 * sd, (name, top, sd)


@pytest.mark.parametrize("case", sorted(CASES))
def test_default_initializers_match_paddle(case):
    make, expected = CASES[case]
    oar.seed(2024)
    layer = make()
    params = dict(layer.named_parameters())
    params.update(layer.named_buffers())
    for pname, (shape, dist) in expected.items():
        assert pname in params, (case, pname, sorted(params))
        p = params[pname]
        assert list(p.shape) == shape, (case, pname, p.shape)
        _check(f"{case}.{pname}", p.numpy(), dist)


def test_embedding_padding_row_is_zero():
    oar.seed(3)
    e = nn.Embedding(1000, 300, padding_idx=3)
    w = e.weight.numpy()
    assert np.all(w[3] == 0.0)
    _check("Embedding.weight", np.delete(w, 3, axis=0), _u(0.06794))


def test_trainability_of_default_parameters():
    # measured on Paddle 3.3.1: running statistics and SpectralNorm's u, v have
    # stop_gradient=True; everything else trains
    bn = nn.BatchNorm2D(4)
    assert [p.stop_gradient for p in (bn.weight, bn.bias, bn._mean, bn._variance)] == [
        False, False, True, True]
    sn = nn.SpectralNorm([3, 4])
    assert sn.weight_u.stop_gradient and sn.weight_v.stop_gradient


def test_prelu_parameter_is_named_like_paddles():
    p = nn.PReLU(3, init=0.5)
    assert list(p.state_dict()) == ["_weight"]
    assert p.weight is p._weight
    assert np.all(p.weight.numpy() == 0.5)


def test_global_initializer_overrides_layer_defaults():
    # measured on Paddle 3.3.1 after set_global_initializer(Constant(7), Constant(3)):
    # the global initializers replace every layer's default (BatchNorm's ones, the
    # convolutions' Normal, the RNN cells' Uniform, PReLU's 0.25, SpectralNorm's
    # N(0, 1)); an initializer given in the ParamAttr (BatchNorm's running statistics)
    # is kept
    I.set_global_initializer(I.Constant(7.0), I.Constant(3.0))
    try:
        layers = {
            "bn": nn.BatchNorm2D(3), "conv": nn.Conv2D(2, 3, 1),
            "convT": nn.Conv2DTranspose(2, 3, 1), "lin": nn.Linear(2, 3),
            "lstm": nn.LSTMCell(2, 3), "prelu": nn.PReLU(), "ln": nn.LayerNorm(3),
            "emb": nn.Embedding(3, 2), "sn": nn.SpectralNorm([2, 3]),
            "attr": nn.Linear(2, 3, weight_attr=I.Constant(0.5)),
        }
        want = {
            "bn": {"weight": 7, "bias": 3, "_mean": 0, "_variance": 1},
            "conv": {"weight": 7, "bias": 3}, "convT": {"weight": 7, "bias": 3},
            "lin": {"weight": 7, "bias": 3},
            "lstm": {"weight_ih": 7, "weight_hh": 7, "bias_ih": 3, "bias_hh": 3},
            "prelu": {"_weight": 7}, "ln": {"weight": 7, "bias": 3}, "emb": {"weight": 7},
            "sn": {"weight_u": 7, "weight_v": 7}, "attr": {"weight": 0.5, "bias": 3},
        }
        for key, layer in layers.items():
            got = {n: p.numpy() for n, p in layer.named_parameters()}
            assert sorted(got) == sorted(want[key]), key
            for n, v in want[key].items():
                assert np.all(got[n] == v), (key, n, got[n])
    finally:
        I.set_global_initializer(None, None)
    assert np.all(nn.BatchNorm2D(3).weight.numpy() == 1.0)


def test_create_parameter_takes_the_global_initializer_as_paddle():
    # measured on Paddle 3.3.1: the global initializer beats default_initializer, an
    # attr's initializer beats both
    I.set_global_initializer(I.Constant(3.0), I.Constant(4.0))
    try:
        p = oar.create_parameter([2], "float32", default_initializer=I.Constant(1.0))
        b = oar.create_parameter([2], "float32", is_bias=True)
        a = oar.create_parameter([2], "float32", attr=oar.ParamAttr(initializer=I.Constant(7.0)))
    finally:
        I.set_global_initializer(None)
    assert p.numpy().tolist() == [3.0, 3.0] and b.numpy().tolist() == [4.0, 4.0]
    assert a.numpy().tolist() == [7.0, 7.0]


def test_assign_of_another_shape_replaces_the_parameter_as_paddle():
    # Paddle 3.3.1's documented example: Assign([2, 2]) on a Linear(2, 2) weight gives
    # the weight shape [2] and the layer's output [6.] for ones([1, 2])
    w = oar.ParamAttr(initializer=I.Assign(np.array([2, 2])))
    b = oar.ParamAttr(initializer=I.Assign([2]))
    lin = nn.Linear(2, 2, weight_attr=w, bias_attr=b)
    assert lin.weight.shape == [2] and lin.weight.numpy().tolist() == [2.0, 2.0]
    assert lin(oar.ones([1, 2])).numpy().tolist() == [6.0]
    p = oar.create_parameter([2, 2], "float32")
    I.Assign(oar.full([3], 5.0))(p)  # called on an existing parameter: the same rule
    assert p.shape == [3] and p.numpy().tolist() == [5.0, 5.0, 5.0]


@pytest.mark.parametrize("make", [
    lambda n: nn.Linear(n, n), lambda n: nn.Bilinear(n, n, n), lambda n: nn.Embedding(n, n),
    lambda n: nn.Conv2D(n, n, n), lambda n: nn.Conv2DTranspose(n, n, n), lambda n: nn.PReLU(n),
    lambda n: nn.LayerNorm(n), lambda n: nn.BatchNorm1D(n), lambda n: nn.LSTM(n, n),
    lambda n: nn.GRU(n, n), lambda n: nn.TransformerEncoderLayer(n * 2, 2, n),
])
def test_layer_sizes_take_numpy_integers_as_paddle(make):
    # Paddle's layers take np.int64 sizes (a size computed with numpy)
    a, b = make(np.int64(3)), make(3)
    assert [list(p.shape) for p in a.parameters()] == [list(p.shape) for p in b.parameters()]
    assert all(type(d) is int for p in a.parameters() for d in p.shape)
