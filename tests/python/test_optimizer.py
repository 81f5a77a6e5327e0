"""oar.optimizer against torch.optim, step by step (float64, 12 steps), and the
optimizer API: groups, set_lr, state_dict round trips, clipping, errors."""
import numpy as np
import pytest
import torch

import oar

O, T = oar.optimizer, torch.optim


def _train(make_oar, make_torch, steps=12, clip=None, dtype="float64"):
    rng = np.random.default_rng(0)
    w0, b0 = rng.standard_normal((5, 3)), rng.standard_normal(3)
    xs = [rng.standard_normal((4, 5)) for _ in range(steps)]
    W = oar.nn.Parameter(oar.to_tensor(w0.astype(dtype)))
    B = oar.nn.Parameter(oar.to_tensor(b0.astype(dtype)))
    tw = torch.tensor(w0.astype(dtype), requires_grad=True)
    tb = torch.tensor(b0.astype(dtype), requires_grad=True)
    o, t = make_oar([W, B]), make_torch([tw, tb])
    for x in xs:
        loss = ((oar.to_tensor(x.astype(dtype)) @ W + B) ** 2).sum()
        loss.backward()
        o.step()
        o.clear_grad()
        tloss = ((torch.tensor(x.astype(dtype)) @ tw + tb) ** 2).sum()
        tloss.backward()
        if clip is not None:
            clip(tw, tb)
        t.step()
        t.zero_grad()
    return W, B, tw, tb


RULES = {
    "sgd": (lambda p: O.SGD(0.01, parameters=p), lambda p: T.SGD(p, 0.01)),
    "sgd_l2": (lambda p: O.SGD(0.01, parameters=p, weight_decay=0.1),
               lambda p: T.SGD(p, 0.01, weight_decay=0.1)),
    "momentum": (lambda p: O.Momentum(0.01, 0.9, parameters=p),
                 lambda p: T.SGD(p, 0.01, momentum=0.9)),
    "nesterov_l2": (lambda p: O.Momentum(0.01, 0.8, parameters=p, use_nesterov=True,
                                         weight_decay=oar.regularizer.L2Decay(0.01)),
                    lambda p: T.SGD(p, 0.01, momentum=0.8, nesterov=True, weight_decay=0.01)),
    "adam": (lambda p: O.Adam(0.01, parameters=p), lambda p: T.Adam(p, 0.01)),
    "adam_betas_l2": (lambda p: O.Adam(0.02, 0.8, 0.99, 1e-6, parameters=p, weight_decay=0.1),
                      lambda p: T.Adam(p, 0.02, (0.8, 0.99), 1e-6, weight_decay=0.1)),
    "amsgrad": (lambda p: O.Adam(0.01, parameters=p, amsgrad=True),
                lambda p: T.Adam(p, 0.01, amsgrad=True)),
    "adamw": (lambda p: O.AdamW(0.01, parameters=p, weight_decay=0.05),
              lambda p: T.AdamW(p, 0.01, weight_decay=0.05)),
    "adagrad": (lambda p: O.Adagrad(0.1, parameters=p, epsilon=1e-10),
                lambda p: T.Adagrad(p, 0.1, eps=1e-10)),
    "adagrad_init": (lambda p: O.Adagrad(0.1, parameters=p, epsilon=1e-10,
                                         initial_accumulator_value=0.5),
                     lambda p: T.Adagrad(p, 0.1, eps=1e-10, initial_accumulator_value=0.5)),
    # Paddle puts Adamax's epsilon inside the max and RMSProp's inside the square root:
    # with a negligible epsilon the rules coincide with PyTorch's.
    "adamax": (lambda p: O.Adamax(0.01, parameters=p, epsilon=1e-12),
               lambda p: T.Adamax(p, 0.01, eps=1e-12)),
    "rmsprop": (lambda p: O.RMSProp(0.01, rho=0.9, epsilon=1e-12, parameters=p),
                lambda p: T.RMSprop(p, 0.01, alpha=0.9, eps=1e-12)),
    "rmsprop_centered_momentum": (
        lambda p: O.RMSProp(0.01, rho=0.9, epsilon=1e-12, momentum=0.5, centered=True,
                            parameters=p),
        lambda p: T.RMSprop(p, 0.01, alpha=0.9, eps=1e-12, momentum=0.5, centered=True)),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_matches_torch_step_by_step(rule):
    W, B, tw, tb = _train(*RULES[rule])
    np.testing.assert_allclose(W.numpy(), tw.detach().numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(B.numpy(), tb.detach().numpy(), rtol=1e-9, atol=1e-12)


def test_float32_matches_torch_to_1e5():
    W, B, tw, tb = _train(*RULES["adam"], dtype="float32")
    np.testing.assert_allclose(W.numpy(), tw.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_global_norm_clipping_matches_torch():
    clip = lambda *ps: torch.nn.utils.clip_grad_norm_(ps, 1.0)  # noqa: E731
    W, B, tw, tb = _train(lambda p: O.SGD(0.01, parameters=p,
                                          grad_clip=oar.nn.ClipGradByGlobalNorm(1.0)),
                          lambda p: T.SGD(p, 0.01), clip=clip)
    # torch divides by (norm + 1e-6), Paddle (and oar) by max(norm, clip_norm)
    np.testing.assert_allclose(W.numpy(), tw.detach().numpy(), rtol=1e-7, atol=1e-8)


def test_value_and_norm_clipping():
    p = oar.nn.Parameter(oar.to_tensor([1.0, 2.0, 3.0]))
    (p * oar.to_tensor([10.0, -10.0, 0.5])).sum().backward()
    oar.nn.ClipGradByValue(1.0)._clip([p])
    np.testing.assert_allclose(p.grad.numpy(), [1.0, -1.0, 0.5])
    oar.nn.ClipGradByNorm(0.5)._clip([p])
    assert np.linalg.norm(p.grad.numpy()) == pytest.approx(0.5)


def test_lamb_matches_a_reference():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((4, 3))
    p = oar.nn.Parameter(oar.to_tensor(w))
    opt = O.Lamb(0.01, lamb_weight_decay=0.01, parameters=[p])
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, 6):
        g = rng.standard_normal(w.shape)
        p.grad = oar.to_tensor(g)
        opt.step()
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        r = (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-6) + 0.01 * w
        w = w - 0.01 * np.linalg.norm(w) / np.linalg.norm(r) * r
    np.testing.assert_allclose(p.numpy(), w, rtol=1e-10)


def test_parameter_groups_and_learning_rate_factor():
    a = oar.nn.Parameter(oar.to_tensor([1.0]))
    b = oar.nn.Parameter(oar.to_tensor([1.0]))
    opt = O.SGD(0.1, parameters=[{"params": [a]}, {"params": [b], "learning_rate": 0.5}])
    (a + b).sum().backward()
    opt.step()
    np.testing.assert_allclose([a.item(), b.item()], [0.9, 0.95])


def test_set_lr_and_get_lr():
    p = oar.nn.Parameter(oar.to_tensor([1.0]))
    opt = O.SGD(0.1, parameters=[p])
    opt.set_lr(0.5)
    assert opt.get_lr() == 0.5
    p.sum().backward()
    opt.step()
    assert p.item() == pytest.approx(0.5)
    sched = O.lr.StepDecay(0.1, step_size=1)
    opt2 = O.SGD(sched, parameters=[p])
    with pytest.raises(RuntimeError, match="LRScheduler"):
        opt2.set_lr(0.2)
    sched.step()
    assert opt2.get_lr() == pytest.approx(0.01)


def test_parameters_without_gradient_are_skipped():
    a = oar.nn.Parameter(oar.to_tensor([1.0]))
    b = oar.nn.Parameter(oar.to_tensor([1.0]))
    opt = O.Adam(0.1, parameters=[a, b])
    a.sum().backward()
    opt.step()
    assert b.item() == 1.0 and a.item() != 1.0


def test_state_dict_round_trip_resumes_identically(tmp_path):
    def make():
        oar.seed(3)
        lin = oar.nn.Linear(4, 2)
        return lin, O.Adam(0.01, parameters=lin.parameters())

    x = oar.randn([8, 4])
    lin, opt = make()
    for _ in range(3):
        (lin(x) ** 2).mean().backward()
        opt.step()
        opt.clear_grad()
    oar.save({"model": lin.state_dict(), "opt": opt.state_dict()}, tmp_path / "ck.oar")
    keys = opt.state_dict().keys()
    assert any(k.endswith("_moment1_0") for k in keys)
    assert any(k.endswith("_beta1_pow_acc_0") for k in keys)
    (lin(x) ** 2).mean().backward()
    opt.step()
    expected = lin.weight.numpy().copy()

    lin2, opt2 = make()
    ck = oar.load(tmp_path / "ck.oar")
    lin2.set_state_dict(ck["model"])
    opt2.set_state_dict(ck["opt"])
    (lin2(x) ** 2).mean().backward()
    opt2.step()
    np.testing.assert_array_equal(lin2.weight.numpy(), expected)


def test_minimize_applies_stored_gradients():
    p = oar.nn.Parameter(oar.to_tensor([2.0]))
    opt = O.SGD(0.5, parameters=[p])
    loss = (p * p).sum()
    loss.backward()
    _, pg = opt.minimize(loss)
    assert p.item() == pytest.approx(0.0) and len(pg) == 1


@pytest.mark.parametrize("make, match", [
    (lambda p: O.SGD(-0.1, parameters=p), "learning_rate"),
    (lambda p: O.Adam(0.1, beta1=1.5, parameters=p), "beta1"),
    (lambda p: O.SGD(0.1), "parameters"),
    (lambda p: O.SGD(0.1, parameters=[]), "parameters"),
    (lambda p: O.SGD(0.1, parameters=p, grad_clip=3), "grad_clip"),
    (lambda p: O.SGD(0.1, parameters=p + p), "more than one group"),
    (lambda p: O.SGD(0.1, parameters=[1.0]), "Tensors"),
])
def test_bad_arguments_raise_typed_errors(make, match):
    p = [oar.nn.Parameter(oar.to_tensor([1.0]))]
    with pytest.raises((TypeError, ValueError), match=match):
        make(p)


def test_integer_parameter_is_a_typed_error():
    p = oar.to_tensor([1, 2])
    p.stop_gradient = True
    opt = O.SGD(0.1, parameters=[p])
    p.grad = oar.to_tensor([1, 1])
    with pytest.raises(TypeError, match="float32 and float64"):
        opt.step()


@pytest.mark.parametrize("cls,offset", [("Adam", 1), ("AdamW", 1), ("Adamax", 1), ("Lamb", 1),
                                        ("RAdam", 0)])
def test_saved_bias_correction_powers_are_paddles(cls, offset):
    # Paddle's Adam, AdamW, Adamax and Lamb save beta**(t+1) after t steps, its RAdam
    # beta**t; a state without oar's step entry (Paddle's) resumes at the same step
    def run(opt, layer, steps):
        for _ in range(steps):
            layer(oar.ones([1, 2])).sum().backward()
            opt.step()
            opt.clear_grad()

    oar.seed(0)
    layer = oar.nn.Linear(2, 1)
    opt = getattr(O, cls)(parameters=layer.parameters())
    run(opt, layer, 2)
    sd = opt.state_dict()
    w = layer.weight.name
    key = f"{w}_beta1_pow_acc_0" if offset else f"{w}_beta1_pow_0"
    assert sd[key].item() == pytest.approx(0.9 ** (2 + offset), rel=1e-6)
    paddles = {k: v for k, v in sd.items() if not k.endswith("_step_0")}
    again = oar.nn.Linear(2, 1)
    again.set_state_dict(layer.state_dict())
    resumed = getattr(O, cls)(parameters=again.parameters())
    resumed.set_state_dict(paddles)
    run(opt, layer, 1)
    run(resumed, again, 1)
    np.testing.assert_allclose(again.weight.numpy(), layer.weight.numpy(), rtol=1e-6)
