"""oar.optimizer.lr against torch.optim.lr_scheduler over 30 epochs."""
import math

import pytest
import torch

import oar

L = oar.optimizer.lr
S = torch.optim.lr_scheduler


def _torch_rates(make, n, metrics=None):
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=0.5)
    s = make(opt)
    out = []
    for i in range(n):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        s.step(metrics[i]) if metrics else s.step()
    return out


def _oar_rates(s, n, metrics=None):
    out = []
    for i in range(n):
        out.append(s())
        s.step(metrics[i]) if metrics else s.step()
    return out


@pytest.mark.parametrize("ours, theirs", [
    (lambda: L.StepDecay(0.5, step_size=4, gamma=0.5), lambda o: S.StepLR(o, 4, 0.5)),
    (lambda: L.MultiStepDecay(0.5, [3, 7, 20], 0.3), lambda o: S.MultiStepLR(o, [3, 7, 20], 0.3)),
    (lambda: L.ExponentialDecay(0.5, 0.9), lambda o: S.ExponentialLR(o, 0.9)),
    (lambda: L.CosineAnnealingDecay(0.5, T_max=7, eta_min=0.01),
     lambda o: S.CosineAnnealingLR(o, T_max=7, eta_min=0.01)),
    (lambda: L.LambdaDecay(0.5, lambda e: 0.95 ** e), lambda o: S.LambdaLR(o, lambda e: 0.95 ** e)),
    (lambda: L.OneCycleLR(0.5, total_steps=31, end_learning_rate=0.5 / 25 / 1e4),
     lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=31, cycle_momentum=False)),
    (lambda: L.OneCycleLR(0.5, total_steps=31, end_learning_rate=0.5 / 25 / 1e4,
                          anneal_strategy="linear", three_phase=True),
     lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=31, cycle_momentum=False,
                            anneal_strategy="linear", three_phase=True)),
])
def test_schedule_matches_torch(ours, theirs):
    a, b = _oar_rates(ours(), 30), _torch_rates(theirs, 30)
    assert a == pytest.approx(b, rel=1e-9, abs=1e-12)


def test_reduce_on_plateau_matches_torch():
    metrics = [1.0, 0.9, 0.9, 0.9, 0.9, 0.95, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8] * 2
    a = _oar_rates(L.ReduceOnPlateau(0.5, patience=2, cooldown=1, factor=0.5), 24, metrics)
    b = _torch_rates(lambda o: S.ReduceLROnPlateau(o, patience=2, cooldown=1, factor=0.5), 24,
                     metrics)
    assert a == pytest.approx(b)


def test_linear_warmup_then_inner_schedule():
    s = L.LinearWarmup(L.StepDecay(0.5, step_size=2), warmup_steps=4, start_lr=0.0, end_lr=0.5)
    rates = _oar_rates(s, 8)
    assert rates[:4] == pytest.approx([0.0, 0.125, 0.25, 0.375])
    assert rates[4:] == pytest.approx([0.5, 0.5, 0.05, 0.05])
    plain = L.LinearWarmup(0.1, warmup_steps=2, start_lr=0.0, end_lr=0.1)
    assert _oar_rates(plain, 4) == pytest.approx([0.0, 0.05, 0.1, 0.1])


def test_state_dict_round_trip():
    s = L.CosineAnnealingDecay(0.5, T_max=10)
    for _ in range(3):
        s.step()
    t = L.CosineAnnealingDecay(0.5, T_max=10)
    t.set_state_dict(s.state_dict())
    s.step()
    t.step()
    assert s() == t() and s.last_epoch == t.last_epoch == 4


@pytest.mark.parametrize("make, match", [
    (lambda: L.StepDecay(0.1, step_size=0), "step_size"),
    (lambda: L.StepDecay(0.1, step_size=2, gamma=2.0), "gamma"),
    (lambda: L.MultiStepDecay(0.1, [5, 3]), "milestones"),
    (lambda: L.CosineAnnealingDecay(0.1, T_max=0), "T_max"),
    (lambda: L.OneCycleLR(0.1, total_steps=10, anneal_strategy="exp"), "anneal_strategy"),
    (lambda: L.ReduceOnPlateau(0.1, mode="up"), "mode"),
    (lambda: L.LambdaDecay(0.1, 3), "lr_lambda"),
    (lambda: L.ExponentialDecay(-0.1, 0.5), "learning_rate"),
])
def test_bad_arguments(make, match):
    with pytest.raises((TypeError, ValueError), match=match):
        make()


def test_optimizer_follows_its_scheduler():
    p = oar.nn.Parameter(oar.to_tensor([1.0]))
    s = L.ExponentialDecay(0.1, 0.5)
    opt = oar.optimizer.SGD(s, parameters=[p])
    for _ in range(3):
        p.sum().backward()
        opt.step()
        opt.clear_grad()
        s.step()
    assert p.item() == pytest.approx(1 - 0.1 * (1 + 0.5 + 0.25))
    assert math.isclose(opt.get_lr(), 0.0125)
