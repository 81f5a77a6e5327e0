"""oar.regularizer.L1Decay in the optimizers (given to the optimizer or to one parameter
through ParamAttr, which takes precedence), checked against a hand computation of
Paddle's rule."""
import numpy as np
import pytest

import oar

L1Decay, L2Decay = oar.regularizer.L1Decay, oar.regularizer.L2Decay

# ---- L1Decay ----------------------------------------------------------------------------
# loss = sum(C * p) + |p|^2 / 2, so grad = C + p. P0's zero entry has C = 0 there: its
# gradient stays 0 and, as sign(0) = 0, L1 decay must leave it at exactly 0.
P0 = np.array([[0.5, -0.25, 0.0], [1.0, -2.0, 0.125]])
C = np.array([[0.3, 0.1, 0.0], [-0.2, 0.4, 0.6]])
LR, MU, STEPS = 0.1, 0.9, 4


def _hand(rule, l1=0.0, l2=0.0):
    """Paddle's update: the decay is added to the gradient before the rule (L1:
    coeff * sign(param), L2: coeff * param)."""
    p, v = P0.copy(), np.zeros_like(P0)
    for _ in range(STEPS):
        g = C + p + l1 * np.sign(p) + l2 * p
        if rule == "sgd":
            p = p - LR * g
        else:
            v = MU * v + g
            p = p - LR * (g + MU * v if rule == "nesterov" else v)
    return p


def _optimizer(rule, params, weight_decay):
    if rule == "sgd":
        return oar.optimizer.SGD(LR, parameters=params, weight_decay=weight_decay)
    return oar.optimizer.Momentum(LR, MU, parameters=params, use_nesterov=rule == "nesterov",
                                  weight_decay=weight_decay)


def _train(opt, params):
    for _ in range(STEPS):
        loss = sum((oar.to_tensor(C) * p).sum() + (p * p).sum() / 2 for p in params)
        loss.backward()
        opt.step()
        opt.clear_grad()


def _param(attr=None):
    p = oar.create_parameter([2, 3], "float64", attr=attr)
    p.set_value(oar.to_tensor(P0))
    return p


@pytest.mark.parametrize("rule", ["sgd", "momentum", "nesterov"])
def test_l1decay_given_to_the_optimizer(rule):
    p = _param()
    _train(_optimizer(rule, [p], L1Decay(0.3)), [p])
    np.testing.assert_allclose(p.numpy(), _hand(rule, l1=0.3), rtol=1e-12, atol=1e-15)
    assert p.numpy()[0, 2] == 0.0
    # the decay is not L2's: the same coefficient as L2Decay gives another result
    assert not np.allclose(_hand(rule, l1=0.3), _hand(rule, l2=0.3))


@pytest.mark.parametrize("rule", ["sgd", "momentum", "nesterov"])
@pytest.mark.parametrize("optimizer_decay", [None, 0.7, L2Decay(0.7), L1Decay(0.05)])
def test_param_attr_regularizer_takes_precedence(rule, optimizer_decay):
    # As Paddle (it logs that the optimizer's weight_decay "will not take effect" for such
    # a parameter): the ParamAttr's L1Decay replaces the optimizer's decay for that
    # parameter, and the parameters without one keep the optimizer's.
    own = _param(oar.ParamAttr(regularizer=L1Decay(0.3)))
    other = _param()
    _train(_optimizer(rule, [own, other], optimizer_decay), [own, other])
    np.testing.assert_allclose(own.numpy(), _hand(rule, l1=0.3), rtol=1e-12, atol=1e-15)
    if optimizer_decay is None:
        want = _hand(rule)
    elif isinstance(optimizer_decay, L1Decay):
        want = _hand(rule, l1=0.05)
    else:  # a float is an L2 coefficient, as in Paddle
        want = _hand(rule, l2=0.7)
    np.testing.assert_allclose(other.numpy(), want, rtol=1e-12, atol=1e-15)


def test_layer_attr_shorthand_regularizer():
    # Paddle's shorthand weight_attr=L1Decay(...) is ParamAttr(regularizer=...); an
    # L2Decay of the parameter also beats an L1Decay of the optimizer
    lin = oar.nn.Linear(2, 3, weight_attr=L1Decay(0.3), bias_attr=L2Decay(0.2))
    lin.to(dtype="float64")
    lin.weight.set_value(oar.to_tensor(P0))
    lin.bias.set_value(oar.to_tensor(P0[1]))
    opt = oar.optimizer.SGD(LR, parameters=lin.parameters(), weight_decay=L1Decay(5.0))
    for _ in range(STEPS):
        loss = (oar.to_tensor(C) * lin.weight).sum() + (lin.weight * lin.weight).sum() / 2
        loss = loss + (oar.to_tensor(C[1]) * lin.bias).sum() + (lin.bias * lin.bias).sum() / 2
        loss.backward()
        opt.step()
        opt.clear_grad()
    np.testing.assert_allclose(lin.weight.numpy(), _hand("sgd", l1=0.3), rtol=1e-12)
    np.testing.assert_allclose(lin.bias.numpy(), _hand("sgd", l2=0.2)[1], rtol=1e-12)
