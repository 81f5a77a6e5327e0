"""oar.nn.initializer: the draws' moments, seeding and bounds, and the Dirac and
Bilinear initializers against torch."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import oar
import oar.nn as nn
import oar.nn.initializer as I
from test_nn_functional import arr


def _draw(init, shape, seed=5):
    oar.seed(seed)
    return init._generate(shape, oar.float32).numpy().astype(np.float64)


@pytest.mark.parametrize("init, shape, mean, std", [
    (I.Normal(1.0, 2.0), [200, 100], 1.0, 2.0),
    (I.Uniform(-3.0, 1.0), [200, 100], -1.0, 4.0 / np.sqrt(12)),
    (I.XavierUniform(), [300, 200], 0.0, np.sqrt(6 / 500) / np.sqrt(3)),
    (I.XavierNormal(), [300, 200], 0.0, np.sqrt(2 / 500)),
    (I.KaimingNormal(), [64, 32, 3, 3], 0.0, np.sqrt(2 / (32 * 9))),
    (I.KaimingUniform(), [64, 32, 3, 3], 0.0, np.sqrt(2 / (32 * 9))),
    # a normal truncated at +-2 std keeps 0.8796 of the variance
    (I.TruncatedNormal(0.0, 1.0), [200, 100], 0.0, np.sqrt(0.7737413)),
])
def test_initializer_moments(init, shape, mean, std):
    v = _draw(init, shape)
    n = v.size
    assert abs(v.mean() - mean) < 5 * std / np.sqrt(n)
    assert abs(v.std() - std) < 0.03 * std


def test_initializers_are_seeded_and_bounded():
    assert np.array_equal(_draw(I.Normal(), [10]), _draw(I.Normal(), [10]))
    assert not np.array_equal(_draw(I.Normal(), [10], 1), _draw(I.Normal(), [10], 2))
    assert np.abs(_draw(I.TruncatedNormal(0, 1), [10000])).max() <= 2.0
    q = _draw(I.Orthogonal(), [6, 4])
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-5)
    np.testing.assert_array_equal(_draw(I.Assign([[1, 2]]), [1, 2]), [[1, 2]])
    p = oar.nn.Parameter(oar.zeros([3]))
    I.Constant(2.0)(p)
    assert np.all(p.numpy() == 2.0)
    # a value of another shape replaces the parameter's shape, as in Paddle
    assert _draw(I.Assign([1, 2, 3]), [2]).tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="at least 2"):
        I.Orthogonal()._generate([3], oar.float32)
    with pytest.raises(ValueError, match="nonlinearity"):
        I.calculate_gain("bogus")
    assert I.calculate_gain("leaky_relu", 0.2) == pytest.approx(np.sqrt(2 / 1.04))


T = torch.tensor


def t(a, grad=False):
    return oar.to_tensor(a, stop_gradient=not grad)


def test_dirac_and_bilinear_initializers():
    attr = oar.ParamAttr(initializer=nn.initializer.Dirac(groups=2))
    conv = nn.Conv2D(4, 6, 3, weight_attr=attr)
    want = torch.empty(6, 4, 3, 3)
    torch.nn.init.dirac_(want, groups=2)
    np.testing.assert_array_equal(conv.weight.numpy(), want.numpy())
    with pytest.raises(ValueError, match="groups"):
        nn.Conv2D(4, 5, 3, weight_attr=oar.ParamAttr(initializer=nn.initializer.Dirac(2)))
    up = nn.Conv2DTranspose(1, 1, 4, stride=2, padding=1, bias_attr=False,
                            weight_attr=oar.ParamAttr(initializer=nn.initializer.Bilinear()))
    x = arr(1, 1, 4, 4).astype(np.float32)
    got = up(t(x)).numpy()
    # inside the border, a factor-2 bilinear kernel is bilinear interpolation
    want = TF.interpolate(T(x), scale_factor=2, mode="bilinear", align_corners=False).numpy()
    np.testing.assert_allclose(got[..., 1:-1, 1:-1], want[..., 1:-1, 1:-1], atol=1e-6)
    with pytest.raises(ValueError, match="square"):
        nn.Conv2DTranspose(1, 1, (3, 2), weight_attr=oar.ParamAttr(
            initializer=nn.initializer.Bilinear()))
