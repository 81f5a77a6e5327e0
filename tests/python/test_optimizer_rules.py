"""The optimizers added for Paddle's API beyond test_optimizer.py: Adadelta, NAdam, RAdam,
Rprop against torch.optim step by step (float64, 12 steps, to 1e-9), ASGD (Paddle's
stochastic average gradient, which torch does not have) against a numpy transcription
of its formula, LBFGS against torch.optim.LBFGS, Tensor hyperparameters, and
Optimizer.backward / apply_gradients."""
import numpy as np
import pytest
import torch

import oar

O, T = oar.optimizer, torch.optim


def _data(steps=12):
    rng = np.random.default_rng(0)
    return rng.standard_normal((5, 3)), rng.standard_normal(3), [
        rng.standard_normal((4, 5)) for _ in range(steps)]


def _train(make_oar, make_torch, steps=12):
    # torch keeps scalar state (NAdam's mu_product, the step) in the default dtype:
    # float64 here, as oar keeps it in the parameter's
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        return _train64(make_oar, make_torch, steps)
    finally:
        torch.set_default_dtype(before)


def _train64(make_oar, make_torch, steps):
    w0, b0, xs = _data(steps)
    W, B = oar.nn.Parameter(oar.to_tensor(w0)), oar.nn.Parameter(oar.to_tensor(b0))
    tw = torch.tensor(w0, requires_grad=True)
    tb = torch.tensor(b0, requires_grad=True)
    o, t = make_oar([W, B]), make_torch([tw, tb])
    for x in xs:
        ((oar.to_tensor(x) @ W + B) ** 2).sum().backward()
        o.step()
        o.clear_grad()
        ((torch.tensor(x) @ tw + tb) ** 2).sum().backward()
        t.step()
        t.zero_grad()
    return W, B, tw, tb


RULES = {
    "adadelta": (lambda p: O.Adadelta(0.5, epsilon=1e-6, rho=0.9, parameters=p),
                 lambda p: T.Adadelta(p, 0.5, rho=0.9, eps=1e-6)),
    "adadelta_l2": (lambda p: O.Adadelta(1.0, parameters=p, weight_decay=0.1),
                    lambda p: T.Adadelta(p, 1.0, rho=0.95, eps=1e-6, weight_decay=0.1)),
    "nadam": (lambda p: O.NAdam(0.01, parameters=p), lambda p: T.NAdam(p, 0.01)),
    "nadam_decay_l2": (
        lambda p: O.NAdam(0.02, 0.8, 0.99, 1e-7, momentum_decay=0.01, parameters=p,
                          weight_decay=0.05),
        lambda p: T.NAdam(p, 0.02, (0.8, 0.99), 1e-7, weight_decay=0.05, momentum_decay=0.01)),
    # 12 steps with beta2 = 0.999 stay below rho_t = 5 (plain momentum); beta2 = 0.9
    # switches the rectified adaptive step on after a few steps
    "radam": (lambda p: O.RAdam(0.01, parameters=p), lambda p: T.RAdam(p, 0.01)),
    "radam_rectified_l2": (lambda p: O.RAdam(0.01, 0.9, 0.9, parameters=p, weight_decay=0.1),
                           lambda p: T.RAdam(p, 0.01, (0.9, 0.9), weight_decay=0.1)),
    "rprop": (lambda p: O.Rprop(0.01, parameters=p, learning_rate_range=(1e-6, 50)),
              lambda p: T.Rprop(p, 0.01)),
    "rprop_ranges": (lambda p: O.Rprop(0.05, learning_rate_range=(1e-3, 0.08),
                                       etas=(0.4, 1.3), parameters=p),
                     lambda p: T.Rprop(p, 0.05, etas=(0.4, 1.3), step_sizes=(1e-3, 0.08))),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_matches_torch_step_by_step(rule):
    W, B, tw, tb = _train(*RULES[rule])
    np.testing.assert_allclose(W.numpy(), tw.detach().numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(B.numpy(), tb.detach().numpy(), rtol=1e-9, atol=1e-12)


def test_radam_switches_to_the_rectified_step():
    # the case above must exercise both branches: rho_t > 5 from step 5 on with beta2 0.9
    rho_inf = 2 / (1 - 0.9) - 1
    rho = [rho_inf - 2 * t * 0.9 ** t / (1 - 0.9 ** t) for t in range(1, 13)]
    assert min(rho) <= 5 < max(rho)


def _sag(w0, xs, lr, n, wd=0.0):
    """Paddle's ASGD: keep the last n gradients y_i and their sum d; step by d / min(m, n)."""
    w, d, ys, m = w0.copy(), np.zeros_like(w0), np.zeros((n,) + w0.shape), 0
    for x in xs:
        g = 2 * x.T @ (x @ w) + wd * w
        i = m % n
        d = d - ys[i] + g
        ys[i] = g
        m += 1
        w = w - lr * d / min(m, n)
    return w


@pytest.mark.parametrize("batch_num, wd", [(1, None), (3, None), (3, 0.1)])
def test_asgd_is_the_stochastic_average_gradient(batch_num, wd):
    w0, _, xs = _data()
    W = oar.nn.Parameter(oar.to_tensor(w0))
    opt = O.ASGD(0.01, batch_num=batch_num, parameters=[W], weight_decay=wd)
    for x in xs:
        ((oar.to_tensor(x) @ W) ** 2).sum().backward()
        opt.step()
        opt.clear_grad()
    np.testing.assert_allclose(W.numpy(), _sag(w0, xs, 0.01, batch_num, wd or 0.0),
                               rtol=1e-12, atol=1e-12)


def test_float32_parameters_and_groups():
    a = oar.nn.Parameter(oar.to_tensor(np.ones(3, np.float32)))
    b = oar.nn.Parameter(oar.to_tensor(np.ones(2, np.float32)))
    ta = torch.ones(3, requires_grad=True)
    tb = torch.ones(2, requires_grad=True)
    opt = O.NAdam(0.1, parameters=[{"params": [a]}, {"params": [b], "learning_rate": 0.5,
                                                     "beta1": 0.8}])
    topt = T.NAdam([{"params": [ta]}, {"params": [tb], "lr": 0.05, "betas": (0.8, 0.999)}],
                   lr=0.1)
    for k in range(4):
        ((a * (k + 1)) ** 2).sum().backward()
        (b ** 3).sum().backward()
        opt.step()
        opt.clear_grad()
        ((ta * (k + 1)) ** 2).sum().backward()
        (tb ** 3).sum().backward()
        topt.step()
        topt.zero_grad()
    np.testing.assert_allclose(a.numpy(), ta.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(b.numpy(), tb.detach().numpy(), rtol=1e-5)


@pytest.mark.parametrize("make", [
    lambda ps: O.ASGD(0.05, batch_num=2, parameters=ps),
    lambda ps: O.NAdam(0.05, parameters=ps),
    lambda ps: O.Rprop(0.05, parameters=ps),
])
def test_state_dict_round_trip_resumes_identically(make):
    def fresh():
        oar.seed(5)
        lin = oar.nn.Linear(3, 2)
        return lin, make(lin.parameters())

    x = oar.randn([4, 3])
    lin, opt = fresh()
    for _ in range(3):
        (lin(x) ** 2).mean().backward()
        opt.step()
        opt.clear_grad()
    model_state = {k: v.clone() for k, v in lin.state_dict().items()}
    opt_state = {k: (v.clone() if hasattr(v, "clone") else v)
                 for k, v in opt.state_dict().items()}
    (lin(x) ** 2).mean().backward()
    opt.step()
    want = lin.weight.numpy().copy()

    lin2, opt2 = fresh()
    lin2.set_state_dict(model_state)
    opt2.set_state_dict(opt_state)
    (lin2(x) ** 2).mean().backward()
    opt2.step()
    np.testing.assert_array_equal(lin2.weight.numpy(), want)


def test_adam_takes_tensor_hyperparameters_read_at_each_step():
    p = oar.nn.Parameter(oar.to_tensor([1.0, -2.0]))
    tp = torch.tensor([1.0, -2.0], requires_grad=True)
    beta1 = oar.to_tensor([0.8])
    opt = O.AdamW(0.1, beta1=beta1, beta2=oar.to_tensor([0.99]), parameters=[p],
                  weight_decay=0.01)
    topt = T.AdamW([tp], 0.1, betas=(0.8, 0.99), weight_decay=0.01)
    for _ in range(3):
        (p ** 2).sum().backward()
        opt.step()
        opt.clear_grad()
        (tp ** 2).sum().backward()
        topt.step()
        topt.zero_grad()
    np.testing.assert_allclose(p.numpy(), tp.detach().numpy(), rtol=1e-5)
    with pytest.raises(TypeError, match="1-element float Tensor"):
        O.Adam(0.1, beta1=oar.to_tensor([0.9, 0.8]), parameters=[p])
    with pytest.raises(ValueError, match="beta2"):
        O.Adam(0.1, beta2=oar.to_tensor([1.5]), parameters=[p])


def test_backward_collects_and_apply_gradients_updates_only_those():
    a = oar.nn.Parameter(oar.to_tensor([1.0]))
    b = oar.nn.Parameter(oar.to_tensor([1.0]))
    opt = O.SGD(0.5, parameters=[a, b])
    loss = (a * 2 + b * 3).sum()
    assert opt.backward(loss) == []  # as Paddle's eager backward: no gradients yet
    loss.backward()
    pairs = opt.backward(loss)
    assert [p is q for (p, _), q in zip(pairs, [a, b])] == [True, True]
    assert opt.apply_gradients([(a, oar.to_tensor([4.0]))]) == []
    assert a.item() == pytest.approx(1.0 - 0.5 * 4.0) and b.item() == 1.0
    assert b.grad.item() == 3.0  # kept for a later step
    with pytest.raises(ValueError, match="not a parameter"):
        opt.apply_gradients([(oar.nn.Parameter(oar.to_tensor([1.0])), oar.to_tensor([1.0]))])
    out, pg = opt.minimize(loss, parameters=[b])
    assert out == [] and len(pg) == 1 and b.item() == pytest.approx(1.0 - 0.5 * 3.0)


# ---- LBFGS ------------------------------------------------------------------------------
def _rosenbrock(x, y):
    return (1 - x) ** 2 + 100 * (y - x * x) ** 2


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_matches_torch(line_search):
    x = oar.nn.Parameter(oar.to_tensor(np.array([-1.2])))
    y = oar.nn.Parameter(oar.to_tensor(np.array([1.0])))
    tx = torch.tensor([-1.2], dtype=torch.float64, requires_grad=True)
    ty = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
    opt = O.LBFGS(learning_rate=0.5 if line_search is None else 1, max_iter=5, history_size=4,
                  line_search_fn=line_search, parameters=[x, y])
    topt = T.LBFGS([tx, ty], lr=0.5 if line_search is None else 1, max_iter=5, history_size=4,
                   line_search_fn=line_search)

    def closure():
        opt.clear_grad()
        loss = _rosenbrock(x, y).sum()
        loss.backward()
        return loss

    def tclosure():
        topt.zero_grad()
        loss = _rosenbrock(tx, ty).sum()
        loss.backward()
        return loss

    for _ in range(6):
        first = opt.step(closure)
        tfirst = topt.step(tclosure)
        assert first.item() == pytest.approx(tfirst.item(), rel=1e-9)
    np.testing.assert_allclose([x.item(), y.item()], [tx.item(), ty.item()], rtol=1e-9)
    st = opt.state_dict()["state"]
    assert st["func_evals"] == topt.state[tx]["func_evals"]
    assert st["n_iter"] == topt.state[tx]["n_iter"]
    if line_search:  # from 24.2 at the start, on its way to 0 at (1, 1)
        assert _rosenbrock(x, y).item() < 0.25


def test_lbfgs_errors():
    p = oar.nn.Parameter(oar.to_tensor([1.0]))
    with pytest.raises(ValueError, match="line_search_fn"):
        O.LBFGS(parameters=[p], line_search_fn="armijo")
    with pytest.raises(ValueError, match="weight_decay"):
        O.LBFGS(parameters=[p], weight_decay=0.1)
    opt = O.LBFGS(parameters=[p])
    with pytest.raises(TypeError, match="callable"):
        opt.step()
    with pytest.raises(TypeError, match="1-element"):
        opt.step(lambda: None)
    with pytest.raises(NotImplementedError, match="closure"):
        opt.minimize(p.sum())


@pytest.mark.parametrize("make, match", [
    (lambda p: O.Rprop(0.1, etas=(1.5, 1.2), parameters=p), "etas"),
    (lambda p: O.Rprop(0.1, learning_rate_range=(1.0, 0.1), parameters=p),
     "learning_rate_range"),
    (lambda p: O.ASGD(0.1, batch_num=0, parameters=p), "batch_num"),
    (lambda p: O.NAdam(0.1, beta1=1.5, parameters=p), "beta1"),
    (lambda p: O.Adadelta(0.1, rho=2.0, parameters=p), "rho"),
    (lambda p: O.RAdam(0.1, epsilon=-1.0, parameters=p), "epsilon"),
])
def test_bad_arguments(make, match):
    with pytest.raises((TypeError, ValueError), match=match):
        make([oar.nn.Parameter(oar.to_tensor([1.0]))])


def test_fused_step_checks_state_shapes():
    p = oar.nn.Parameter(oar.to_tensor(np.array([1.0, 2.0])))
    p.grad = oar.to_tensor(np.array([1.0, 1.0]))
    steps = oar.zeros([1], dtype="int64")
    bad = [[oar.zeros([2], dtype="float64"), oar.zeros([3, 2], dtype="float64")]]
    with pytest.raises(ValueError, match="state 1 of parameter 0"):
        oar._C._optimizer_step("asgd", [p], bad, 0.1, steps, batch_num=2)
    with pytest.raises(ValueError, match="batch_num"):
        oar._C._optimizer_step("asgd", [p], bad, 0.1, steps, batch_num=0)
    with pytest.raises(ValueError, match="unknown rule 'sag'"):
        oar._C._optimizer_step("sag", [p], bad, 0.1, steps)
