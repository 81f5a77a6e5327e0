"""oar.special, oar.utils.dlpack and oar.nn's PyTorch container names (Paddle 3.3's
paddle.special, paddle.utils.dlpack, paddle.nn.Module/ModuleDict/ModuleList). Values
were checked against Paddle 3.3.1 on the CPU."""
import numpy as np
import pytest

import oar

X = [[0.5, 1.0, 2.0], [3.0, -1.0, 0.0]]


# ---- oar.special --------------------------------------------------------------------------
def test_special_names():
    assert sorted(oar.special.__all__) == ["expm1", "logsumexp", "softmax"]
    assert oar.special.softmax is oar.compat.nn.functional.softmax


@pytest.mark.parametrize("call", [lambda x: oar.special.expm1(x),
                                  lambda x: oar.special.expm1(x=x),
                                  lambda x: oar.special.expm1(input=x),
                                  lambda x: oar.special.expm1(x, None)])
def test_special_expm1(call):
    got = call(oar.to_tensor(X))
    assert got.dtype == oar.float32
    np.testing.assert_allclose(got.numpy(), np.expm1(np.array(X, "float32")), rtol=1e-6)


def test_special_expm1_int_and_out():
    np.testing.assert_allclose(oar.special.expm1(oar.to_tensor([1, 2])).numpy(),
                               [1.7182817, 6.389056], rtol=1e-6)
    assert oar.special.expm1(oar.to_tensor([1, 2])).dtype == oar.float32
    out = oar.zeros([2])
    r = oar.special.expm1(oar.to_tensor([0.0, 1.0]), out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), [0.0, 1.7182817], rtol=1e-6)


def test_special_logsumexp():
    x = oar.to_tensor(X)
    assert oar.special.logsumexp(x).shape == []
    np.testing.assert_allclose(oar.special.logsumexp(x).numpy(), 3.502835, rtol=1e-5)
    for r in (oar.special.logsumexp(x, 1), oar.special.logsumexp(x, axis=1),
              oar.special.logsumexp(x, dim=1), oar.special.logsumexp(input=x, dim=1)):
        np.testing.assert_allclose(r.numpy(), [2.464369, 3.065884], rtol=1e-5)
    np.testing.assert_allclose(oar.special.logsumexp(x, [0, 1]).numpy(), 3.502835, rtol=1e-5)
    kept = oar.special.logsumexp(x, 1, keepdim=True)
    assert list(kept.shape) == [2, 1]
    out = oar.zeros([2])
    assert oar.special.logsumexp(x, 1, out=out) is out
    np.testing.assert_allclose(out.numpy(), [2.464369, 3.065884], rtol=1e-5)
    i = oar.special.logsumexp(oar.to_tensor([1, 2]))
    assert i.dtype == oar.float32
    np.testing.assert_allclose(i.numpy(), 2.3132617, rtol=1e-6)
    with pytest.raises(TypeError, match="both"):
        oar.special.logsumexp(x, axis=1, dim=1)


def test_special_softmax_implicit_dim():
    x = oar.to_tensor(X)
    # dim=None: PyTorch's implicit dim, 1 for 2-D input, 0 for 0/1/3-D input
    np.testing.assert_allclose(oar.special.softmax(x).numpy(),
                               [[0.14024438, 0.2312239, 0.6285317],
                                [0.93623954, 0.01714783, 0.04661262]], rtol=1e-5)
    np.testing.assert_allclose(oar.special.softmax(x, 0).numpy(),
                               [[0.07585818, 0.880797, 0.880797],
                                [0.9241418, 0.11920292, 0.11920292]], rtol=1e-5)
    np.testing.assert_allclose(oar.special.softmax(oar.to_tensor([1.0, 2.0])).numpy(),
                               [0.26894143, 0.7310586], rtol=1e-6)
    assert oar.special.softmax(x, dim=1, dtype="float64").dtype == oar.float64
    with pytest.raises(TypeError):
        oar.special.softmax(x, axis=1)  # Paddle's names are refused, as in Paddle


# ---- oar.utils.dlpack ---------------------------------------------------------------------
def test_utils_dlpack_is_the_top_level_pair():
    from oar.utils import dlpack
    assert dlpack.to_dlpack is oar.to_dlpack and dlpack.from_dlpack is oar.from_dlpack
    assert sorted(dlpack.__all__) == ["from_dlpack", "to_dlpack"]


def test_utils_dlpack_round_trip_shares_memory():
    import oar.utils.dlpack as U
    x = oar.to_tensor([1.0, 2.0])
    cap = U.to_dlpack(x)
    assert type(cap).__name__ == "PyCapsule" and '"dltensor"' in repr(cap)
    y = U.from_dlpack(cap)
    y[0] = 5.0
    assert x.tolist() == [5.0, 2.0]
    a = np.array([1.0, 2.0])
    t = U.from_dlpack(a)
    t[1] = 7.0
    assert a.tolist() == [1.0, 7.0] and t.dtype == oar.float64
    with pytest.raises(TypeError):
        U.to_dlpack([1])


# ---- oar.nn.Module / ModuleDict / ModuleList ----------------------------------------------
def test_module_names_are_the_layer_classes():
    assert oar.nn.Module is oar.nn.Layer
    assert oar.nn.ModuleDict is oar.nn.LayerDict
    assert oar.nn.ModuleList is oar.nn.LayerList


def test_module_subclass_trains_like_a_layer():
    class Net(oar.nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = oar.nn.ModuleList([oar.nn.Linear(2, 2), oar.nn.Linear(2, 1)])
            self.heads = oar.nn.ModuleDict({"a": oar.nn.Linear(1, 1)})

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return self.heads["a"](x)

    net = Net()
    assert isinstance(net, oar.nn.Layer)
    assert len(net.parameters()) == 6
    y = net(oar.ones([3, 2]))
    assert list(y.shape) == [3, 1]
    y.sum().backward()
    assert net.blocks[0].weight.grad is not None
