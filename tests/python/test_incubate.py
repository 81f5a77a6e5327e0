"""oar.incubate: LookAhead and ModelAverage against their update rules written out,
autograd.Jacobian/Hessian/jvp/vjp against torch.autograd.functional, minimize_bfgs /
minimize_lbfgs on problems with known minimizers, asp masks, autotune.set_config."""
import json

import numpy as np
import pytest
import torch

import oar

I = oar.incubate


# ---- LookAhead / ModelAverage -------------------------------------------------------------
def test_lookahead_pulls_fast_weights_back_every_k_steps():
    p = oar.nn.Parameter(oar.to_tensor(np.array([1.0, -1.0])))
    la = I.LookAhead(oar.optimizer.SGD(0.1, parameters=[p]), alpha=0.3, k=3)
    w = np.array([1.0, -1.0])
    slow = None
    for step in range(1, 8):
        (p ** 2).sum().backward()
        la.step()
        la.clear_grad()
        w = w - 0.1 * 2 * w  # the inner SGD step
        if step == 1:
            slow = w.copy()
        if step % 3 == 0:
            slow = slow + 0.3 * (w - slow)
            w = slow.copy()
        np.testing.assert_allclose(p.numpy(), w, rtol=1e-12)


def test_lookahead_minimize_returns_the_inner_result():
    p = oar.nn.Parameter(oar.to_tensor([2.0]))
    la = I.LookAhead(oar.optimizer.SGD(0.5, parameters=[p]), alpha=0.5, k=1)
    loss = (p * p).sum()
    loss.backward()
    ops, pg = la.minimize(loss)
    assert ops == [] and len(pg) == 1
    # inner: 2 - 0.5 * 4 = 0; k = 1: slow is the first fast value, so p stays 0
    assert p.item() == pytest.approx(0.0)
    with pytest.raises(ValueError, match="alpha"):
        I.LookAhead(oar.optimizer.SGD(0.1, parameters=[p]), alpha=2.0)
    with pytest.raises(TypeError, match="inner_optimizer"):
        I.LookAhead(None)


def _model_average(values, rate, lo, hi):
    """The sliding-window sums written out: (sum_1 + sum_2 + sum_3) / (n + old_n)."""
    s1 = s3 = 0.0
    n = old = updates = 0
    for v in values:
        updates += 1
        n += 1
        s1 = s1 + v
        if n >= lo and n >= min(hi, updates * rate):
            s3, s1, old, n = s1, 0.0, n, 0
    return (s1 + s3) / (n + old)


def test_model_average_apply_and_restore():
    p = oar.nn.Parameter(oar.to_tensor(np.array([0.0, 10.0])))
    sgd = oar.optimizer.SGD(0.1, parameters=[p])
    ma = I.ModelAverage(0.5, parameters=[p], min_average_window=2, max_average_window=3)
    seen = []
    for _ in range(7):
        (p * oar.to_tensor(np.array([1.0, -2.0]))).sum().backward()
        sgd.step()
        ma.step()
        sgd.clear_grad()
        seen.append(p.numpy().copy())
    trained = p.numpy().copy()
    with ma.apply():
        np.testing.assert_allclose(p.numpy(), _model_average(seen, 0.5, 2, 3), rtol=1e-12)
    np.testing.assert_array_equal(p.numpy(), trained)
    with ma.apply(need_restore=False):
        pass
    assert not np.array_equal(p.numpy(), trained)
    ma.restore()
    np.testing.assert_array_equal(p.numpy(), trained)
    with pytest.raises(ValueError, match="min_average_window"):
        I.ModelAverage(0.1, parameters=[p], min_average_window=5, max_average_window=2)


# ---- autograd ----------------------------------------------------------------------------
def _f(x, y):
    return oar.matmul(x, y).tanh()


def _tf(x, y):
    return torch.matmul(x, y).tanh()


def test_jacobian_matches_torch_rows_columns_and_blocks():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    J = I.autograd.Jacobian(_f, [oar.to_tensor(a), oar.to_tensor(b)])
    ta, tb = torch.tensor(a), torch.tensor(b)
    ja, jb = torch.autograd.functional.jacobian(_tf, (ta, tb))
    want = torch.cat([ja.reshape(4, -1), jb.reshape(4, -1)], 1).numpy()
    assert J.shape == [4, 12]
    np.testing.assert_allclose(J[:].numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(J[1].numpy(), want[1], rtol=1e-12)
    np.testing.assert_allclose(J[:, 5].numpy(), want[:, 5], rtol=1e-12)
    np.testing.assert_allclose(J[1:3, 2:7].numpy(), want[1:3, 2:7], rtol=1e-12)
    np.testing.assert_allclose(J[-1, -1].numpy(), want[-1, -1], rtol=1e-12)
    with pytest.raises(IndexError, match="out of range"):
        J[4]


def test_batched_jacobian_and_hessian():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 2))
    J = I.autograd.Jacobian(lambda t: (t ** 3).sum(1, keepdim=True) * t, oar.to_tensor(x),
                            is_batched=True)
    tx = torch.tensor(x)
    want = np.stack([torch.autograd.functional.jacobian(
        lambda t: (t ** 3).sum() * t, tx[i]).numpy() for i in range(3)])
    assert J.shape == [3, 2, 2]
    np.testing.assert_allclose(J[:].numpy(), want, rtol=1e-12)
    H = I.autograd.Hessian(lambda t: (t.sin() * t.sum()).sum(), oar.to_tensor(x.reshape(-1)))
    want = torch.autograd.functional.hessian(lambda t: (t.sin() * t.sum()).sum(),
                                             tx.reshape(-1)).numpy()
    np.testing.assert_allclose(H[:].numpy(), want, rtol=1e-12)
    with pytest.raises(ValueError, match="one element"):
        I.autograd.Hessian(lambda t: t * 2, oar.to_tensor(x))[:]


def test_jvp_vjp_match_torch():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    va, vb, u = rng.standard_normal((2, 3)), rng.standard_normal((3, 2)), \
        rng.standard_normal((2, 2))
    xs = [oar.to_tensor(a), oar.to_tensor(b)]
    txs = (torch.tensor(a), torch.tensor(b))
    ys, (ga, gb) = I.autograd.vjp(_f, xs, oar.to_tensor(u))
    _, (tga, tgb) = torch.autograd.functional.vjp(_tf, txs, torch.tensor(u))
    np.testing.assert_allclose(ga.numpy(), tga.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gb.numpy(), tgb.numpy(), rtol=1e-12)
    ys, jv = I.autograd.jvp(_f, xs, [oar.to_tensor(va), oar.to_tensor(vb)])
    _, tjv = torch.autograd.functional.jvp(_tf, txs, (torch.tensor(va), torch.tensor(vb)))
    np.testing.assert_allclose(jv.numpy(), tjv.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ys.numpy(), _tf(*txs).numpy(), rtol=1e-12)
    # v defaults to ones; a single input gives a single result; the results are
    # differentiable (create_graph)
    x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    _, g = I.autograd.vjp(lambda t: oar.matmul(t, t), x)
    np.testing.assert_allclose(g.numpy(), [[7.0, 11.0], [9.0, 13.0]])  # 1 X^T + X^T 1
    assert not g.stop_gradient
    with pytest.raises(ValueError, match="shape"):
        I.autograd.vjp(lambda t: t * 2, x, oar.ones([3]))
    with pytest.raises(TypeError, match="callable"):
        I.autograd.jvp(None, x)


# ---- functional BFGS / L-BFGS ---------------------------------------------------------------
def _quadratic():
    rng = np.random.default_rng(3)
    q = rng.standard_normal((4, 4))
    a = q @ q.T + 4 * np.eye(4)
    b = rng.standard_normal(4)
    return a, b, np.linalg.solve(a, b)


@pytest.mark.parametrize("method", ["bfgs", "lbfgs"])
def test_quasi_newton_minimizes_a_quadratic(method):
    a, b, xmin = _quadratic()
    A, B = oar.to_tensor(a), oar.to_tensor(b)

    def f(x):
        return 0.5 * (x * oar.matmul(A, x)).sum() - (B * x).sum()

    fn = getattr(I.optimizer.functional, "minimize_" + method)
    out = fn(f, oar.zeros([4], dtype="float64"), dtype="float64", tolerance_grad=1e-10)
    converged, calls, x, value, grad = out[:5]
    assert bool(converged.item()) and int(calls.item()) > 1
    np.testing.assert_allclose(x.numpy(), xmin, rtol=1e-7, atol=1e-9)
    assert value.item() == pytest.approx(-0.5 * b @ xmin, rel=1e-10)
    assert np.abs(grad.numpy()).max() < 1e-8
    if method == "bfgs":  # the inverse-Hessian estimate approaches A^-1
        np.testing.assert_allclose(out[5].numpy(), np.linalg.inv(a), atol=1e-3)


def test_bfgs_on_rosenbrock_and_errors():
    def rosen(x):
        return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2

    conv, _, x, _, _, _ = I.optimizer.functional.minimize_bfgs(
        rosen, oar.to_tensor([-1.2, 1.0], dtype="float64"), max_iters=200, dtype="float64")
    assert bool(conv.item())
    np.testing.assert_allclose(x.numpy(), [1.0, 1.0], atol=1e-5)
    with pytest.raises(ValueError, match="1-D"):
        I.optimizer.functional.minimize_bfgs(rosen, oar.zeros([2, 2]))
    with pytest.raises(ValueError, match="strong_wolfe"):
        I.optimizer.functional.minimize_lbfgs(rosen, oar.zeros([2]), line_search_fn="hz")


# ---- asp ---------------------------------------------------------------------------------
def test_asp_masks_and_density():
    A = I.asp
    x = np.array([[0, 1, 3, 0], [1, 1, 0, 1]])
    assert A.calculate_density(x) == 0.625
    rng = np.random.default_rng(4)
    w = rng.standard_normal((6, 10))
    m = A.get_mask_1d(w, 2, 4)
    assert m.shape == w.shape and A.check_mask_1d(w * m, 2, 4)
    # in every full group of 4 the two largest magnitudes survive
    groups = np.abs(w[:, :8]).reshape(-1, 4)
    kept = (m[:, :8].reshape(-1, 4) == 1)
    assert np.all(np.sort(groups, 1)[:, 2:] == np.sort(np.where(kept, groups, -1), 1)[:, 2:])
    for algo in (A.MaskAlgo.MASK_2D_GREEDY, A.MaskAlgo.MASK_2D_BEST):
        m2 = A.create_mask(w, algo, 2, 4)
        assert A.check_sparsity(w * m2, A.CheckMethod.get_checking_method(algo), 2, 4)
    best = A.get_mask_2d_best(w[:4, :4], 2, 4)
    greedy = A.get_mask_2d_greedy(w[:4, :4], 2, 4)
    assert np.abs(w[:4, :4] * best).sum() >= np.abs(w[:4, :4] * greedy).sum() - 1e-12


def test_asp_prune_model_and_decorate():
    A = I.asp
    oar.seed(0)
    net = oar.nn.Sequential(oar.nn.Linear(8, 4), oar.nn.ReLU(), oar.nn.Linear(4, 2))
    masks = A.prune_model(net, n=2, m=4)
    w = net[0].weight.numpy()
    assert A.calculate_density(w) == 0.5 and A.check_sparsity(w.T, n=2, m=4)
    assert net[0].weight.name in masks
    opt = A.decorate(oar.optimizer.SGD(0.1, parameters=net.parameters()))
    net(oar.randn([3, 8])).sum().backward()
    opt.step()
    assert A.calculate_density(net[0].weight.numpy()) == 0.5  # pruned weights stay 0
    with pytest.raises(ValueError, match="mask_algo"):
        A.prune_model(net, mask_algo="mask_3d")


def test_autotune_set_config(tmp_path):
    cfg = {"kernel": {"enable": True, "tuning_range": [1, 5]}, "layout": {"enable": True}}
    I.autotune.set_config(cfg)
    assert I.autotune.get_config()["kernel"] == {"enable": True, "tuning_range": [1, 5]}
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"dataloader": {"enable": True}}))
    I.autotune.set_config(str(path))
    assert I.autotune.get_config()["dataloader"]["enable"] is True
    with pytest.raises(ValueError, match="tuning_range"):
        I.autotune.set_config({"kernel": {"tuning_range": [5, 1]}})
    with pytest.raises(ValueError, match="JSON"):
        I.autotune.set_config(str(tmp_path / "missing.json"))
    with pytest.warns(UserWarning, match="unknown key"):
        I.autotune.set_config({"cudnn": {}})
