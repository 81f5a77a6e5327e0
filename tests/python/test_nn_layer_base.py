"""oar.nn.Layer with Paddle's semantics: registration, traversal (named_sublayers with
remove_duplicate), state dicts (and to_static_state_dict), hooks, modes, conversion, repr;
containers (ParameterDict, Sequential.insert/extend, ...); ParamAttr and its shorthand
forms."""
import collections

import numpy as np
import pytest
import torch

import oar
import oar.nn as nn
import oar.nn.initializer as I


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 2, bias_attr=False)
        self.register_buffer("steps", oar.zeros([1]))
        self.register_buffer("scratch", oar.zeros([2]), persistable=False)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def test_registration_and_structured_names():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["fc1.weight", "fc1.bias", "fc2.weight"]
    assert list(net.state_dict()) == ["steps", "fc1.weight", "fc1.bias", "fc2.weight"]
    assert [n for n, _ in net.named_sublayers()] == ["fc1", "act", "fc2"]
    assert len(list(net.children())) == 3 and len(net.buffers()) == 2
    assert net.fc1.weight.shape == [4, 8]  # Paddle's [in, out]
    assert net.fc1.weight.name.endswith(".w_0") and net.fc1.bias.name.endswith(".b_0")
    assert not net.fc1.weight.stop_gradient and net.fc1.weight.persistable
    assert isinstance(net.fc1.weight, oar.Tensor)


def test_linear_matches_torch_forward_and_backward():
    lin = nn.Linear(3, 2)
    t = torch.nn.Linear(3, 2).double()
    with torch.no_grad():
        t.weight.copy_(torch.tensor(lin.weight.numpy().T.astype(np.float64)))
        t.bias.copy_(torch.tensor(lin.bias.numpy().astype(np.float64)))
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    y = lin(oar.to_tensor(x))
    ty = t(torch.tensor(x, dtype=torch.float64))
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), t.weight.grad.numpy().T, rtol=1e-5)
    np.testing.assert_allclose(lin.bias.grad.numpy(), t.bias.grad.numpy(), rtol=1e-5)


def test_set_state_dict_copies_in_place_and_reports_keys():
    a, b = Net(), Net()
    w = b.fc1.weight
    missing, unexpected = b.set_state_dict({**a.state_dict(), "extra": oar.zeros([1])})
    assert missing == [] and unexpected == ["extra"]
    assert b.fc1.weight is w  # the same Parameter, new values
    np.testing.assert_array_equal(b.fc1.weight.numpy(), a.fc1.weight.numpy())
    missing, _ = b.set_state_dict({"fc1.weight": a.fc1.weight.numpy()})
    assert "fc2.weight" in missing
    with pytest.raises(ValueError, match="shape"):
        b.set_state_dict({"fc1.weight": oar.zeros([2, 2])})


def test_forward_hooks_and_their_removal():
    net = Net()
    x = oar.randn([3, 4])
    base = net(x).numpy()
    calls = []
    pre = net.register_forward_pre_hook(lambda layer, inp: calls.append("pre"))
    post = net.register_forward_post_hook(lambda layer, inp, out: out * 2)
    np.testing.assert_allclose(net(x).numpy(), 2 * base, rtol=1e-6)
    assert calls == ["pre"]
    pre.remove()
    post.remove()
    np.testing.assert_allclose(net(x).numpy(), base, rtol=1e-6)
    assert calls == ["pre"]
    h = net.register_forward_pre_hook(lambda layer, inp: (inp[0] * 0,))
    np.testing.assert_allclose(net(x).numpy(), net.fc2(net.fc1(oar.zeros([3, 4])).relu())
                               .numpy(), rtol=1e-6)
    h.remove()


def test_train_eval_apply_and_clear_gradients():
    net = Net()
    net.eval()
    assert not net.training and not net.fc1.training
    net.train()
    assert all(l.training for l in net.sublayers(include_self=True))
    seen = []
    net.apply(lambda l: seen.append(type(l).__name__))
    assert seen == ["Linear", "ReLU", "Linear", "Net"]
    net(oar.randn([2, 4])).sum().backward()
    assert net.fc1.weight.grad is not None
    net.clear_gradients()
    assert float(net.fc1.weight.grad.abs().sum()) == 0.0


def test_to_dtype_keeps_the_parameter_objects_usable():
    net = Net()
    net.to(dtype="float64")
    assert net.fc1.weight.dtype == oar.float64 and net.steps.dtype == oar.float64
    assert isinstance(net.fc1.weight, nn.Parameter)
    assert net(oar.randn([2, 4], dtype="float64")).dtype == oar.float64
    with pytest.raises(ValueError, match="device"):
        net.to(device="gpu")


def test_repr_shows_the_tree():
    r = repr(Net())
    assert r.splitlines()[0] == "Net("
    assert "(fc1): Linear(in_features=4, out_features=8, dtype=float32)" in r
    assert "(act): ReLU()" in r


def test_attribute_errors_are_typed():
    net = Net()
    with pytest.raises(TypeError, match="parameter 'fc1'|sub-layer 'fc1'"):
        net.fc1 = 3
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        net.nope
    with pytest.raises(KeyError):
        net.add_parameter("a.b", None)
    with pytest.raises(TypeError):
        net.add_sublayer("x", 3)
    with pytest.raises(ValueError, match="in_features"):
        nn.Linear(-1, 2)


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[1], nn.ReLU) and len(seq.parameters()) == 4
    assert seq(oar.randn([5, 2])).shape == [5, 1]
    named = nn.Sequential(("a", nn.Linear(2, 2)), ("b", nn.ReLU()))
    assert list(named.state_dict()) == ["a.weight", "a.bias"]
    od = nn.Sequential(collections.OrderedDict([("x", nn.Identity())]))
    assert od.x is od[0]
    ll = nn.LayerList([nn.Linear(2, 2) for _ in range(3)])
    ll.append(nn.Linear(2, 2))
    assert len(ll) == 4 and list(ll.state_dict())[-1] == "3.bias"
    with pytest.raises(IndexError):
        ll[7]
    ld = nn.LayerDict({"a": nn.Linear(1, 1)})
    ld["b"] = nn.ReLU()
    assert list(ld.keys()) == ["a", "b"] and "a" in ld
    pl = nn.ParameterList([oar.create_parameter([2], "float32") for _ in range(2)])
    assert len(pl.parameters()) == 2
    with pytest.raises(TypeError):
        pl.append(oar.zeros([1]))


def test_param_attr_forms():
    lin = nn.Linear(2, 2, weight_attr=nn.ParamAttr(initializer=I.Constant(0.5),
                                                   learning_rate=0.1, trainable=False),
                    bias_attr=I.Constant(1.0))
    assert np.all(lin.weight.numpy() == 0.5) and np.all(lin.bias.numpy() == 1.0)
    assert lin.weight.stop_gradient and lin.weight.optimize_attr["learning_rate"] == 0.1
    named = nn.Linear(2, 2, weight_attr="my_w")
    assert named.weight.name == "my_w"


def t(a, grad=False):
    return oar.to_tensor(a, stop_gradient=not grad)


def test_containers_and_layer_traversal():
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.params = nn.ParameterDict({f"t{i}": oar.create_parameter([2, 2], "float32")
                                            for i in range(3)})

        def forward(self, x):
            for key in self.params:
                x = oar.matmul(x, self.params[key])
            return x
    net = Net()
    assert len(net.params) == 3 and len(net.parameters()) == 3
    net.params["t3"] = oar.create_parameter([2, 3], "float32")
    assert net(oar.rand([5, 2])).shape == [5, 3] and "params.t3" in net.state_dict()
    with pytest.raises(TypeError, match="Parameter"):
        net.params["x"] = oar.rand([2])
    seq = nn.Sequential(nn.Linear(20, 30))
    seq.insert(0, nn.Linear(10, 20))
    seq.extend([nn.ReLU(), nn.Linear(30, 2)])
    assert [k for k, _ in seq.named_children()] == ["0", "1", "2", "3"]
    assert seq(oar.rand([4, 10])).shape == [4, 2]
    seq.insert(-1, nn.Identity())
    assert isinstance(seq[3], nn.Identity) and len(seq) == 5
    with pytest.raises(IndexError):
        seq.insert(9, nn.ReLU())
    lin = nn.Linear(2, 2)
    dup = nn.Sequential(lin, lin)
    assert [n for n, _ in dup.named_sublayers(include_self=True)] == ["", "0"]
    assert [n for n, _ in dup.named_sublayers(remove_duplicate=False)] == ["0", "1"]
    holder = nn.Linear(3, 2)
    holder.extra = oar.ones([1])  # a tensor attribute is a non-persistable buffer (Paddle)
    wrapped = nn.Sequential(holder)
    assert [n for n, _ in wrapped.named_buffers()] == ["0.extra"]
    assert "0.extra" not in wrapped.state_dict()
    emb = nn.Embedding(10, 3)
    emb.register_buffer("scratch", oar.zeros([2]), persistable=False)
    assert set(emb.to_static_state_dict()) == {"weight", "scratch"}
    assert set(emb.state_dict()) == {"weight"}


def test_param_attr_bool_and_regularizer_forms():
    assert nn.Linear(2, 3, bias_attr=True).bias is not None
    assert nn.Linear(2, 3, bias_attr=False).bias is None
    from oar.regularizer import L2Decay
    lin = nn.Linear(2, 3, weight_attr=L2Decay(0.1))
    assert isinstance(lin.weight.regularizer, L2Decay)
    with pytest.raises(TypeError, match="ParamAttr"):
        nn.Linear(2, 3, weight_attr=3)
