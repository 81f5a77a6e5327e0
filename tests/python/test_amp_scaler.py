"""oar.amp.GradScaler / AmpScaler: loss scaling, the fused unscale + inf/NaN check,
skipped steps, Paddle's dynamic-scaling counters, the state dict, and a few steps
against torch.amp.GradScaler on the same problem."""
import numpy as np
import pytest

import oar
from oar.amp.grad_scaler import AmpScaler, GradScaler, OptimizerState

INF = float("inf")


def _model(seed=0, dtype=None):
    oar.seed(seed)
    lin = oar.nn.Linear(3, 2)
    if dtype is not None:
        lin.to(dtype=dtype)
    return lin


def _data():
    rng = np.random.default_rng(1)
    return (oar.to_tensor(rng.standard_normal((8, 3)).astype("float32")),
            oar.to_tensor(rng.standard_normal((8, 2)).astype("float32")))


def _backward(scaler, lin, inject=None):
    """Scaled backward of an MSE loss; inject: a value written into bias.grad[0]."""
    x, y = _data()
    loss = ((lin(x) - y) ** 2).mean()
    scaler.scale(loss).backward()
    if inject is not None:
        with oar.no_grad():  # a gradient requires grad (Paddle's): written under no_grad
            lin.bias.grad[0] = inject
    return loss


def _params(lin):
    return [p.numpy().copy() for p in lin.parameters()]


def _scale(scaler):
    return float(scaler.get_loss_scaling().numpy()[0])


# ---- skipping and dynamic scaling ----------------------------------------------------------
@pytest.mark.parametrize("bad", [INF, -INF, float("nan")])
def test_inf_or_nan_skips_step_and_halves_scale(bad):
    lin = _model()
    opt = oar.optimizer.SGD(0.1, parameters=lin.parameters())
    sc = GradScaler(init_loss_scaling=1024.0)
    before = _params(lin)
    _backward(sc, lin, inject=bad)
    sc.step(opt)
    sc.update()
    for a, b in zip(before, _params(lin)):
        np.testing.assert_array_equal(a, b)
    assert _scale(sc) == 512.0
    # the next, clean step does update
    opt.clear_grad()
    _backward(sc, lin)
    sc.step(opt)
    sc.update()
    assert not np.array_equal(before[0], _params(lin)[0])
    assert _scale(sc) == 512.0


def test_good_step_applies_unscaled_gradients():
    lin, ref = _model(), _model()
    opt = oar.optimizer.SGD(0.1, parameters=lin.parameters())
    ref_opt = oar.optimizer.SGD(0.1, parameters=ref.parameters())
    sc = GradScaler(init_loss_scaling=2.0 ** 12)
    _backward(sc, lin)
    _backward(GradScaler(enable=False), ref)
    sc.step(opt)
    sc.update()
    ref_opt.step()
    for a, b in zip(_params(lin), _params(ref)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_incr_every_n_steps_doubles_after_consecutive_good_steps():
    lin = _model()
    opt = oar.optimizer.SGD(0.01, parameters=lin.parameters())
    sc = GradScaler(init_loss_scaling=8.0, incr_every_n_steps=3)
    seen = []
    for _ in range(7):
        _backward(sc, lin)
        sc.step(opt)
        sc.update()
        opt.clear_grad()
        seen.append(_scale(sc))
    assert seen == [8, 8, 16, 16, 16, 32, 32]
    # a bad step resets the run of good steps
    _backward(sc, lin, inject=INF)
    sc.step(opt)
    sc.update()
    opt.clear_grad()
    assert _scale(sc) == 16
    for i in range(3):
        _backward(sc, lin)
        sc.step(opt)
        sc.update()
        opt.clear_grad()
        assert _scale(sc) == (32 if i == 2 else 16)


def test_decr_every_n_nan_or_inf_needs_that_many_bad_steps():
    lin = _model()
    opt = oar.optimizer.SGD(0.01, parameters=lin.parameters())
    sc = GradScaler(init_loss_scaling=64.0, decr_every_n_nan_or_inf=2, incr_every_n_steps=100)

    def one(bad):
        _backward(sc, lin, inject=INF if bad else None)
        sc.step(opt)
        sc.update()
        opt.clear_grad()
        return _scale(sc)

    assert one(True) == 64  # one bad step: not yet
    assert one(True) == 32  # second: halved, count restarts
    assert one(True) == 32
    assert one(False) == 32  # a good step resets the bad-step count
    assert one(True) == 32
    assert one(True) == 16
    sd = sc.state_dict()
    assert sd["decr_count"] == 0 and sd["incr_count"] == 0


def test_use_dynamic_loss_scaling_false_keeps_scale_but_still_skips():
    lin = _model()
    opt = oar.optimizer.SGD(0.1, parameters=lin.parameters())
    sc = GradScaler(init_loss_scaling=128.0, incr_every_n_steps=1,
                    use_dynamic_loss_scaling=False)
    assert not sc.is_use_dynamic_loss_scaling()
    before = _params(lin)
    _backward(sc, lin, inject=INF)
    sc.step(opt)
    sc.update()
    opt.clear_grad()
    assert _params(lin)[0].tolist() == before[0].tolist()
    for _ in range(3):
        _backward(sc, lin)
        sc.step(opt)  # no update() needed between steps with a fixed scale
        opt.clear_grad()
    assert _scale(sc) == 128.0
    assert not np.array_equal(_params(lin)[0], before[0])


def test_enable_false_is_a_pass_through():
    lin, ref = _model(), _model()
    opt = oar.optimizer.SGD(0.1, parameters=lin.parameters())
    ref_opt = oar.optimizer.SGD(0.1, parameters=ref.parameters())
    sc = GradScaler(enable=False)
    assert not sc.is_enable() and not sc.is_use_dynamic_loss_scaling()
    assert sc.get_init_loss_scaling() == 1.0
    x, y = _data()
    loss = ((lin(x) - y) ** 2).mean()
    assert sc.scale(loss) is loss
    loss.backward()
    sc.unscale_(opt)  # nothing to do
    sc.step(opt)
    sc.update()
    ((ref(x) - y) ** 2).mean().backward()
    ref_opt.step()
    for a, b in zip(_params(lin), _params(ref)):
        np.testing.assert_array_equal(a, b)
    assert sc.state_dict() == {}
    sc.load_state_dict({})  # disabled: a no-op


# ---- unscale_, clipping, minimize ------------------------------------------------------------
def test_unscale_gives_true_gradients_and_step_does_not_unscale_again():
    lin, ref = _model(), _model()
    clip = oar.nn.ClipGradByGlobalNorm(0.05)
    opt = oar.optimizer.SGD(0.5, parameters=lin.parameters(), grad_clip=clip)
    ref_opt = oar.optimizer.SGD(0.5, parameters=ref.parameters(),
                                grad_clip=oar.nn.ClipGradByGlobalNorm(0.05))
    sc = GradScaler(init_loss_scaling=2.0 ** 10)
    _backward(sc, lin)
    _backward(GradScaler(enable=False), ref)
    sc.unscale_(opt)
    for p, q in zip(lin.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=1e-8)
    # the clip in step acts on the unscaled gradients (the norm is above 0.05)
    assert oar._C._grad_global_norm(lin.parameters()) > 0.05
    sc.step(opt)
    sc.update()
    ref_opt.step()
    for a, b in zip(_params(lin), _params(ref)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_unscale_then_external_clip():
    lin, ref = _model(), _model()
    opt = oar.optimizer.SGD(0.5, parameters=lin.parameters())
    sc = GradScaler(init_loss_scaling=2.0 ** 10)
    _backward(sc, lin)
    _backward(GradScaler(enable=False), ref)
    sc.unscale_(opt)
    oar.nn.ClipGradByGlobalNorm(0.01)._clip(lin.parameters())
    oar.nn.ClipGradByGlobalNorm(0.01)._clip(ref.parameters())
    assert oar._C._grad_global_norm(lin.parameters()) == pytest.approx(0.01, rel=1e-5)
    sc.step(opt)
    sc.update()
    oar.optimizer.SGD(0.5, parameters=ref.parameters()).step()
    for a, b in zip(_params(lin), _params(ref)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_minimize_steps_and_updates():
    lin = _model()
    opt = oar.optimizer.SGD(0.1, parameters=lin.parameters())
    sc = GradScaler(init_loss_scaling=16.0, incr_every_n_steps=1)
    before = _params(lin)
    x, y = _data()
    scaled = sc.scale(((lin(x) - y) ** 2).mean())
    scaled.backward()
    _, params_grads = sc.minimize(opt, scaled)
    assert len(params_grads) == 2
    assert not np.array_equal(_params(lin)[0], before[0])
    assert _scale(sc) == 32.0  # incr_every_n_steps=1: doubled by the update in minimize
    opt.clear_grad()
    # a bad step: skipped, halved, (None, None) returned
    after = _params(lin)
    loss = _backward(sc, lin, inject=float("nan"))
    assert sc.minimize(opt, loss) == (None, None)
    assert _params(lin)[0].tolist() == after[0].tolist()
    assert _scale(sc) == 16.0
    # minimize starts a new iteration: unscale_ is allowed again
    opt.clear_grad()
    _backward(sc, lin)
    sc.unscale_(opt)


def test_call_order_errors():
    lin = _model()
    opt = oar.optimizer.SGD(0.1, parameters=lin.parameters())
    sc = GradScaler()
    _backward(sc, lin)
    sc.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_.*already been called"):
        sc.unscale_(opt)
    sc.step(opt)
    with pytest.raises(RuntimeError, match="step.*already been called"):
        sc.step(opt)
    with pytest.raises(RuntimeError, match="after step"):
        sc.unscale_(opt)
    sc.update()
    sc.unscale_(opt)  # a new iteration
    with pytest.raises(TypeError, match="optimizer"):
        sc.unscale_(object())
    with pytest.raises(TypeError, match="'var'"):
        sc.scale(1.0)
    assert sc._state(opt)["state"] is OptimizerState.UNSCALED


def test_update_without_step_counts_nothing():
    sc = GradScaler(init_loss_scaling=4.0, incr_every_n_steps=1)
    sc.update()
    sc.update()
    assert _scale(sc) == 4.0 and sc.state_dict()["incr_count"] == 0


def test_bfloat16_gradients_are_unscaled_and_checked():
    lin = _model(dtype="bfloat16")
    opt = oar.optimizer.SGD(0.1, parameters=lin.parameters())
    x, _ = _data()
    sc = GradScaler(init_loss_scaling=256.0)
    sc.scale(lin(x.astype("bfloat16")).sum()).backward()
    g = lin.weight.grad.astype("float32").numpy().copy()
    sc.unscale_(opt)
    np.testing.assert_array_equal(lin.weight.grad.astype("float32").numpy() * 256.0, g)
    assert sc._state(opt)["found_inf"] is False
    sc.update()
    opt.clear_grad()
    before = lin.weight.astype("float32").numpy().copy()
    sc.scale(lin(x.astype("bfloat16")).sum()).backward()
    with oar.no_grad():
        lin.weight.grad[0, 0] = float("inf")
    sc.step(opt)
    sc.update()
    np.testing.assert_array_equal(lin.weight.astype("float32").numpy(), before)
    assert _scale(sc) == 128.0


# ---- settings and state ------------------------------------------------------------------
def test_getters_setters_and_bad_values():
    sc = GradScaler(init_loss_scaling=1024, incr_ratio=3.0, decr_ratio=0.25,
                    incr_every_n_steps=10, decr_every_n_nan_or_inf=2)
    assert sc.is_enable() and sc.is_use_dynamic_loss_scaling()
    assert sc.get_init_loss_scaling() == 1024
    assert (sc.get_incr_ratio(), sc.get_decr_ratio()) == (3.0, 0.25)
    assert (sc.get_incr_every_n_steps(), sc.get_decr_every_n_nan_or_inf()) == (10, 2)
    t = sc.get_loss_scaling()
    assert isinstance(t, oar.Tensor) and t.shape == [1] and t.dtype == oar.float32
    sc.set_init_loss_scaling(100.0)
    assert sc.get_init_loss_scaling() == 100.0 and _scale(sc) == 100.0
    sc.set_incr_ratio(4.0)
    sc.set_decr_ratio(0.1)
    sc.set_incr_every_n_steps(7)
    sc.set_decr_every_n_nan_or_inf(3)
    assert (sc.get_incr_ratio(), sc.get_decr_ratio()) == (4.0, 0.1)
    assert (sc.get_incr_every_n_steps(), sc.get_decr_every_n_nan_or_inf()) == (7, 3)

    with pytest.raises(ValueError, match="GradScaler: argument 'incr_ratio' must be .*> 1"):
        GradScaler(incr_ratio=1.0)
    for bad in (0.0, 1.0, 1.5, -0.5):
        with pytest.raises(ValueError, match="'decr_ratio'"):
            GradScaler(decr_ratio=bad)
    with pytest.raises(ValueError, match="'init_loss_scaling'"):
        GradScaler(init_loss_scaling=0)
    with pytest.raises(ValueError, match="'init_loss_scaling'"):
        GradScaler(init_loss_scaling=INF)
    with pytest.raises(TypeError, match="'incr_every_n_steps'"):
        GradScaler(incr_every_n_steps=2.5)
    with pytest.raises(ValueError, match="'decr_every_n_nan_or_inf'"):
        GradScaler(decr_every_n_nan_or_inf=0)
    with pytest.raises(TypeError, match="'incr_ratio'"):
        GradScaler(incr_ratio="2")
    with pytest.raises(TypeError, match="'enable'"):
        GradScaler(enable=1)
    with pytest.raises(ValueError, match="set_incr_ratio: argument 'new_incr_ratio'"):
        sc.set_incr_ratio(0.5)
    with pytest.raises(ValueError, match="set_decr_ratio: argument 'new_decr_ratio'"):
        sc.set_decr_ratio(2.0)
    with pytest.raises(ValueError, match="set_incr_every_n_steps"):
        sc.set_incr_every_n_steps(0)
    with pytest.raises(ValueError, match="set_init_loss_scaling"):
        sc.set_init_loss_scaling(-1.0)


def test_amp_scaler_is_the_base_with_paddles_defaults():
    a = AmpScaler()
    assert isinstance(GradScaler(), AmpScaler)
    assert a.get_init_loss_scaling() == 2.0 ** 15 and a.get_incr_every_n_steps() == 1000
    g = GradScaler()
    assert g.get_init_loss_scaling() == 65536.0 and g.get_incr_every_n_steps() == 2000
    assert g.get_decr_every_n_nan_or_inf() == 1
    assert not hasattr(a, "step") and not hasattr(a, "unscale_")
    # AmpScaler's own training entry: minimize
    lin = _model()
    opt = oar.optimizer.SGD(0.1, parameters=lin.parameters())
    loss = _backward(a, lin)
    a.minimize(opt, loss)
    assert a.state_dict()["incr_count"] == 1


def test_state_dict_round_trip_continues_the_same_trajectory():
    def run(sc, lin, opt, pattern):
        out = []
        for bad in pattern:
            _backward(sc, lin, inject=INF if bad else None)
            sc.step(opt)
            sc.update()
            opt.clear_grad()
            out.append(_scale(sc))
        return out

    lin = _model()
    opt = oar.optimizer.SGD(0.01, parameters=lin.parameters())
    sc = GradScaler(init_loss_scaling=256.0, incr_every_n_steps=3, decr_every_n_nan_or_inf=2,
                    decr_ratio=0.25)
    run(sc, lin, opt, [False, True, False, False])
    sd = sc.state_dict()
    assert set(sd) == {"scale", "incr_ratio", "decr_ratio", "incr_every_n_steps",
                       "decr_every_n_nan_or_inf", "incr_count", "decr_count",
                       "use_dynamic_loss_scaling"}
    assert sd["incr_count"] == 2 and sd["decr_count"] == 0
    assert sd["scale"].dtype == np.float32 and sd["scale"].shape == (1,)
    other = GradScaler()
    other.load_state_dict(sd)
    assert other.state_dict()["scale"].tolist() == sd["scale"].tolist()
    assert other.get_decr_ratio() == 0.25 and other.get_incr_every_n_steps() == 3
    pattern = [False, True, True, False, False, False]
    lin2 = _model()
    opt2 = oar.optimizer.SGD(0.01, parameters=lin2.parameters())
    assert run(other, lin2, opt2, pattern) == run(sc, lin, opt, pattern)
    with pytest.raises(RuntimeError, match="empty"):
        GradScaler().load_state_dict({})
    with pytest.raises(ValueError, match="lacks"):
        GradScaler().load_state_dict({"scale": np.array([2.0], np.float32)})


# ---- against PyTorch --------------------------------------------------------------------------
def test_matches_torch_grad_scaler():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    w0 = rng.standard_normal((2, 3)).astype("float32")
    b0 = rng.standard_normal(2).astype("float32")
    xs = rng.standard_normal((8, 6, 3)).astype("float32")
    ys = rng.standard_normal((8, 6, 2)).astype("float32")
    bad_steps = {2, 3}

    lin = oar.nn.Linear(3, 2)
    lin.weight.set_value(w0.T)  # oar/Paddle Linear weight is [in, out]
    lin.bias.set_value(b0)
    opt = oar.optimizer.SGD(0.05, parameters=lin.parameters())
    sc = GradScaler(init_loss_scaling=2.0 ** 10, incr_ratio=2.0, decr_ratio=0.5,
                    incr_every_n_steps=2, decr_every_n_nan_or_inf=1)

    tl = torch.nn.Linear(3, 2)
    with torch.no_grad():
        tl.weight.copy_(torch.from_numpy(w0))
        tl.bias.copy_(torch.from_numpy(b0))
    topt = torch.optim.SGD(tl.parameters(), lr=0.05)
    tsc = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_factor=2.0,
                               backoff_factor=0.5, growth_interval=2)

    oar_scales, torch_scales = [], []
    for step in range(8):
        x, y = oar.to_tensor(xs[step]), oar.to_tensor(ys[step])
        sc.scale(((lin(x) - y) ** 2).mean()).backward()
        if step in bad_steps:
            with oar.no_grad():
                lin.weight.grad[1, 0] = INF
        sc.step(opt)
        sc.update()
        opt.clear_grad()
        oar_scales.append(_scale(sc))

        tx, ty = torch.from_numpy(xs[step]), torch.from_numpy(ys[step])
        tsc.scale(((tl(tx) - ty) ** 2).mean()).backward()
        if step in bad_steps:
            with torch.no_grad():
                tl.weight.grad[0, 1] = INF
        tsc.step(topt)
        tsc.update()
        topt.zero_grad()
        torch_scales.append(float(tsc.get_scale()))

        np.testing.assert_allclose(lin.weight.numpy(), tl.weight.detach().numpy().T,
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(lin.bias.numpy(), tl.bias.detach().numpy(),
                                   rtol=1e-5, atol=1e-6)
    assert oar_scales == torch_scales
    assert oar_scales == [1024, 2048, 1024, 512, 512, 1024, 1024, 2048]
