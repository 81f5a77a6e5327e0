"""The learning-rate schedulers added for Paddle's API: against torch.optim.lr_scheduler
where it has the same schedule (MultiplicativeLR, CyclicLR, LinearLR,
CosineAnnealingWarmRestarts, PolynomialLR), else against the formula written out."""
import math

import pytest
import torch

import oar

L = oar.optimizer.lr


def _torch_rates(make, steps, step_args=None):
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=1.0)
    sched = make(opt)
    out = [opt.param_groups[0]["lr"]]
    for k in range(steps):
        opt.step()
        if step_args is None:
            sched.step()
        else:
            sched.step(step_args[k])
        out.append(opt.param_groups[0]["lr"])
    return out


def _oar_rates(sched, steps, step_args=None):
    out = [sched()]
    for k in range(steps):
        sched.step() if step_args is None else sched.step(step_args[k])
        out.append(sched())
    return out


def _close(a, b, rel=1e-12):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x == pytest.approx(y, rel=rel, abs=1e-15)


def test_multiplicative_decay_matches_torch():
    lam = lambda e: 0.9 if e % 2 else 0.95  # noqa: E731
    want = _torch_rates(lambda o: torch.optim.lr_scheduler.MultiplicativeLR(
        o, lr_lambda=lam), 15)
    got = _oar_rates(L.MultiplicativeDecay(1.0, lam), 15)
    _close([g for g in got], want)
    s = L.MultiplicativeDecay(0.5, lambda e: 0.5)
    s.step(4)  # a jump recomputes the product
    assert s() == pytest.approx(0.5 * 0.5 ** 4)


@pytest.mark.parametrize("mode, gamma", [("triangular", 1.0), ("triangular2", 1.0),
                                         ("exp_range", 0.97)])
def test_cyclic_lr_matches_torch(mode, gamma):
    want = _torch_rates(lambda o: torch.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.1, max_lr=1.0, step_size_up=4, step_size_down=3, mode=mode, gamma=gamma,
        cycle_momentum=False), 30)
    got = _oar_rates(L.CyclicLR(0.1, 1.0, 4, 3, mode=mode, exp_gamma=gamma), 30)
    _close(got, want, rel=1e-9)


def test_cyclic_lr_custom_scale_fn():
    s = L.CyclicLR(0.0, 1.0, 2, scale_fn=lambda x: 0.5, scale_mode="iterations")
    assert _oar_rates(s, 4) == pytest.approx([0.0, 0.25, 0.5, 0.25, 0.0])


def test_linear_lr_matches_torch():
    want = _torch_rates(lambda o: torch.optim.lr_scheduler.LinearLR(
        o, start_factor=0.25, end_factor=0.9, total_iters=6), 10)
    got = _oar_rates(L.LinearLR(1.0, 6, start_factor=0.25, end_factor=0.9), 10)
    _close(got, want)


def test_cosine_annealing_warm_restarts_matches_torch():
    make = lambda o: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(  # noqa: E731
        o, T_0=3, T_mult=2, eta_min=0.05)
    _close(_oar_rates(L.CosineAnnealingWarmRestarts(1.0, 3, 2, 0.05), 25),
           _torch_rates(make, 25))
    epochs = [0.5, 1, 4, 9.5, 2, 30]  # explicit (fractional, backwards) epochs
    _close(_oar_rates(L.CosineAnnealingWarmRestarts(1.0, 3, 2, 0.05), 6, epochs),
           _torch_rates(make, 6, epochs))
    one = lambda o: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=4)  # noqa
    _close(_oar_rates(L.CosineAnnealingWarmRestarts(1.0, 4), 6, [5, 7, 8, 1, 12, 13]),
           _torch_rates(one, 6, [5, 7, 8, 1, 12, 13]))


def test_polynomial_decay_matches_torch_and_cycles():
    want = _torch_rates(lambda o: torch.optim.lr_scheduler.PolynomialLR(
        o, total_iters=8, power=2.0), 12)
    _close(_oar_rates(L.PolynomialDecay(1.0, 8, end_lr=0.0, power=2.0), 12), want, rel=1e-9)
    s = L.PolynomialDecay(1.0, 4, end_lr=0.1, power=1.0, cycle=True)
    # cycle: the decay period grows to the next multiple of decay_steps
    want = [1.0] + [(1.0 - 0.1) * (1 - e / (4 * math.ceil(e / 4))) + 0.1 for e in range(1, 10)]
    _close(_oar_rates(s, 9), want)


def test_closed_form_schedulers():
    _close(_oar_rates(L.NaturalExpDecay(0.5, 0.1), 6), [0.5 * math.exp(-0.1 * e)
                                                       for e in range(7)])
    _close(_oar_rates(L.InverseTimeDecay(0.5, 0.1), 6), [0.5 / (1 + 0.1 * e) for e in range(7)])
    noam = [1.0 * 100 ** -0.5 * min(1 if e == 0 else e ** -0.5, e * 10 ** -1.5)
            for e in range(30)]
    _close(_oar_rates(L.NoamDecay(100, 10), 29), noam)
    _close(_oar_rates(L.PiecewiseDecay([2, 4], [0.3, 0.2, 0.1]), 5),
           [0.3, 0.3, 0.2, 0.2, 0.1, 0.1])


def test_verbose_and_optimizer_integration(capsys):
    sched = L.InverseTimeDecay(0.5, 1.0, verbose=True)
    p = oar.nn.Parameter(oar.to_tensor([1.0]))
    opt = oar.optimizer.SGD(sched, parameters=[p])
    sched.step()
    assert opt.get_lr() == 0.25
    assert "Epoch 1: InverseTimeDecay set learning rate to 0.25." in capsys.readouterr().out
    state = sched.state_dict()
    other = L.InverseTimeDecay(0.5, 1.0)
    other.set_state_dict(state)
    assert other() == 0.25 and other.last_epoch == 1


@pytest.mark.parametrize("make, err, match", [
    (lambda: L.NoamDecay(0, 10), ValueError, "d_model"),
    (lambda: L.PiecewiseDecay([1, 2], [0.1]), ValueError, "one more element"),
    (lambda: L.PiecewiseDecay([], [0.1]), ValueError, "must not be empty"),
    (lambda: L.NaturalExpDecay(0.1, 0.0), ValueError, "gamma"),
    (lambda: L.PolynomialDecay(0.1, 0), ValueError, "decay_steps"),
    (lambda: L.MultiplicativeDecay(0.1, 0.9), TypeError, "callable"),
    (lambda: L.CyclicLR(0.1, 1.0, 0), ValueError, "step_size_up"),
    (lambda: L.CyclicLR(0.1, 1.0, 2, mode="sine"), ValueError, "mode"),
    (lambda: L.LinearLR(0.1, 5, start_factor=0.0), ValueError, "start_factor"),
    (lambda: L.CosineAnnealingWarmRestarts(0.1, 0), ValueError, "T_0"),
    (lambda: L.CosineAnnealingWarmRestarts(0.1, 2).step(-1), ValueError, "epoch"),
])
def test_bad_arguments(make, err, match):
    with pytest.raises(err, match=match):
        make()
