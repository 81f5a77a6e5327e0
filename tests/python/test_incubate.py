"""oar.incubate: LookAhead and ModelAverage against their update rules written out,
autograd.Jacobian/Hessian/jvp/vjp against torch.autograd.functional, the primitive-mode
autograd API (grad, forward_grad and the prim flag) against torch.autograd / torch.func,
minimize_bfgs / minimize_lbfgs on problems with known minimizers, asp masks,
autotune.set_config, identity_loss / softmax_mask_fuse /
softmax_mask_fuse_upper_triangle (values checked against Paddle 3.3.1 on the CPU),
FusedMultiTransformer and fused_multi_transformer against a torch reference written from
Paddle's documented formula (with the key/value cache: decoding step by step equals the
full sequence), and graph_khop_sampler against Paddle 3.3.1's CPU kernel (outputs
recorded from it) and the sampler's invariants."""
import inspect
import json

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

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


A = oar.incubate.autograd


IF = oar.incubate.nn.functional


RNG = np.random.default_rng(11)


def rand(*shape):
    return RNG.standard_normal(shape)


def o(a, grad=False, dtype="float64"):
    t = oar.to_tensor(np.asarray(a), dtype=dtype)
    t.stop_gradient = not grad
    return t


def close(a, b, tol=1e-10):
    a = a.detach().numpy() if isinstance(a, torch.Tensor) else np.asarray(a.numpy())
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b.numpy())
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ---- incubate.autograd: prim flag, grad, forward_grad -----------------------------------
def test_prim_flag_toggles_and_is_exported():
    assert {"enable_prim", "disable_prim", "forward_grad", "grad"} <= set(A.__all__)
    assert A.prim_enabled() is False
    A.enable_prim()
    try:
        assert A.prim_enabled() is True
    finally:
        A.disable_prim()
    assert A.prim_enabled() is False


def _fn(x, w):
    return [(x * x).sum() * w[0] + (x.sin() * w).sum(), x.exp() * w.tanh().sum()]


def test_grad_matches_torch_with_cotangents_and_unused_inputs():
    xa, wa = rand(3), rand(3)
    x, w, unused = o(xa, True), o(wa, True), o(rand(2), True)
    tx, tw = (torch.tensor(a, requires_grad=True) for a in (xa, wa))
    ys, ts = _fn(x, w), _fn(tx, tw)
    va = rand(3)
    got = A.grad(ys, [x, w, unused], [None, o(va)])
    want = torch.autograd.grad(ts, [tx, tw], [torch.tensor(1.0), torch.tensor(va)],
                               retain_graph=True)
    close(got[0], want[0])
    close(got[1], want[1])
    assert got[2] is None  # as Paddle's static gradients: an input nothing depends on
    single = A.grad(ys[0], x)  # a Tensor for a Tensor input
    assert isinstance(single, oar.Tensor)
    close(single, torch.autograd.grad(ts[0], tx, retain_graph=True)[0])
    # the results are differentiable: the Hessian-vector product of the first output
    g = A.grad(ys[0], x)
    hv = A.grad(g, x, o(va))
    tg = torch.autograd.grad(ts[0], tx, create_graph=True)[0]
    close(hv, torch.autograd.grad(tg, tx, torch.tensor(va))[0])


def test_grad_of_outputs_outside_the_graph_is_none():
    x = o(rand(3), True)
    assert A.grad(o(rand(3)), x) is None
    assert A.grad([o(rand(3)), x * 2], [x])[0].numpy().tolist() == [2.0, 2.0, 2.0]


def test_forward_grad_matches_torch_jvp():
    xa, wa, va, ua = rand(3), rand(3), rand(3), rand(3)
    x, w = o(xa, True), o(wa, True)
    ys = _fn(x, w)
    got = A.forward_grad(ys, [x, w], [o(va), o(ua)])
    _, want = torch.func.jvp(lambda a, b: tuple(_fn(a, b)), (torch.tensor(xa), torch.tensor(wa)),
                             (torch.tensor(va), torch.tensor(ua)))
    close(got[0], want[0])
    close(got[1], want[1])
    # default tangents are ones; a single output gives a Tensor
    one = A.forward_grad(ys[1], x)
    _, w1 = torch.func.jvp(lambda a: _fn(a, torch.tensor(wa))[1], (torch.tensor(xa),),
                           (torch.ones(3, dtype=torch.float64),))
    assert isinstance(one, oar.Tensor)
    close(one, w1)
    # an output that depends on none of the inputs has no tangent, a linear one does
    z = o(rand(2), True)
    res = A.forward_grad([z * 3, x * 2], [x])
    assert res[0] is None
    close(res[1], torch.full((3,), 2.0, dtype=torch.float64))


def test_prim_api_errors():
    x = o(rand(3), True)
    with pytest.raises(TypeError, match=r"grad\(\): argument 'outputs' must be a Tensor"):
        A.grad(np.ones(3), x)
    with pytest.raises(TypeError, match=r"forward_grad\(\): argument 'inputs'"):
        A.forward_grad(x * 2, [x, 3.0])
    with pytest.raises(ValueError, match=r"grad\(\): argument 'grad_outputs' has 2 tensors"):
        A.grad(x * 2, x, [o(rand(3)), o(rand(3))])
    with pytest.raises(ValueError, match=r"forward_grad\(\): grad_inputs\[0\] has shape \[2\]"):
        A.forward_grad(x * 2, x, o(rand(2)))
    with pytest.raises(TypeError, match=r"grad\(\): argument 'grad_outputs'"):
        A.grad(x * 2, x, "ones")


# ---- fused_multi_transformer: a torch reference of the documented formula -----------------
def _norm_t(h, w, b, eps, kind):
    if kind == "layernorm":
        return TF.layer_norm(h, (h.shape[-1],), w, b, eps)
    out = h / torch.sqrt((h * h).mean(-1, keepdim=True) + eps) * w
    return out if b is None else out + b


def _rope_t(t, cos, sin, dims, neox):
    """Written element by element from the kernels: adjacent pairs, or the halves of
    each of the dims parts of head_dim (neox)."""
    out = torch.empty_like(t)
    d = t.shape[-1]
    if not neox:
        for i in range(0, d, 2):
            out[..., i] = t[..., i] * cos[..., i] - t[..., i + 1] * sin[..., i]
            out[..., i + 1] = t[..., i + 1] * cos[..., i + 1] + t[..., i] * sin[..., i + 1]
        return out
    part = d // dims
    for p0 in range(0, d, part):
        for i in range(part // 2):
            a, b = p0 + i, p0 + i + part // 2
            out[..., a] = t[..., a] * cos[..., a] - t[..., b] * sin[..., a]
            out[..., b] = t[..., b] * cos[..., b] + t[..., a] * sin[..., b]
    return out


def _act_t(f, act):
    if act == "gelu":
        return TF.gelu(f)
    if act == "relu":
        return TF.relu(f)
    a, b = f.chunk(2, -1)
    return (TF.silu(a) if act == "swiglu" else TF.gelu(a)) * b


def ref_fmt(x, P, *, pre=True, eps=1e-5, alpha=1.0, mask=None, act="gelu", trans=True,
            norm="layernorm", gqa=-1, rot=None, dims=0, neox=False, prefix=None):
    """The layers over torch tensors; mask additive [B, 1|H, S, K] or None (causal)."""
    B, S, E = x.shape
    h = x
    for i in range(len(P["qkv_weights"])):
        g = {k: (None if v is None or v[i] is None else v[i]) for k, v in P.items()}
        w = g["qkv_weights"]
        if trans:
            nh = w.shape[0] - 2 * gqa if gqa > 0 else w.shape[1]
            w2 = w.reshape(-1, E).T
        else:
            nh = w.shape[1] - 2 * gqa if gqa > 0 else w.shape[2]
            w2 = w.reshape(E, -1)
        kvh = gqa if gqa > 0 else nh
        hd = w2.shape[1] // (nh + 2 * kvh)
        a = _norm_t(h, g["ln_scales"], g["ln_biases"], eps, norm) if pre else h
        qkv = a @ w2 + (0 if g["qkv_biases"] is None else g["qkv_biases"].reshape(-1))
        qkv = qkv.reshape(B, S, nh + 2 * kvh, hd).permute(0, 2, 1, 3)
        q, k, v = qkv[:, :nh], qkv[:, nh:nh + kvh], qkv[:, nh + kvh:]
        if dims:
            q, k = (_rope_t(t, rot[0], rot[1], dims, neox) for t in (q, k))
        if prefix is not None:
            k, v = torch.cat([prefix[i][0], k], 2), torch.cat([prefix[i][1], v], 2)
        rep = nh // kvh
        k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
        s = q @ k.transpose(-1, -2) / hd ** 0.5
        K = k.shape[2]
        if mask is None:
            causal = torch.arange(K)[None, :] <= torch.arange(S)[:, None] + (K - S)
            s = s.masked_fill(~causal, float("-inf"))
        else:
            s = s + mask
        ctx = (s.softmax(-1) @ v).permute(0, 2, 1, 3).reshape(B, S, nh * hd)
        out = ctx @ g["linear_weights"] + (0 if g["linear_biases"] is None else g["linear_biases"])
        h = alpha * h + out
        if not pre:
            h = _norm_t(h, g["ln_scales"], g["ln_biases"], eps, norm)
        f = _norm_t(h, g["ffn_ln_scales"], g["ffn_ln_biases"], eps, norm) if pre else h
        f = _act_t(f @ g["ffn1_weights"] + (0 if g["ffn1_biases"] is None else g["ffn1_biases"]),
                   act)
        f = f @ g["ffn2_weights"] + (0 if g["ffn2_biases"] is None else g["ffn2_biases"])
        h = alpha * h + f
        if not pre:
            h = _norm_t(h, g["ffn_ln_scales"], g["ffn_ln_biases"], eps, norm)
    return h


def make_params(n, E, H, D, FF, *, trans=True, gqa=-1, act="gelu", biases=True):
    kvh = gqa if gqa > 0 else H
    heads = [3, H] if gqa <= 0 else [H + 2 * gqa]
    qkv = heads + [D, E] if trans else [E] + heads + [D]
    glu = act.endswith("glu")
    shapes = {"ln_scales": [E], "ln_biases": [E], "qkv_weights": qkv, "qkv_biases": heads + [D],
              "linear_weights": [H * D, E], "linear_biases": [E], "ffn_ln_scales": [E],
              "ffn_ln_biases": [E], "ffn1_weights": [E, 2 * FF if glu else FF],
              "ffn1_biases": [2 * FF if glu else FF], "ffn2_weights": [FF, E], "ffn2_biases": [E]}
    P = {}
    for k, s in shapes.items():
        if "biases" in k and not biases:
            P[k] = None
            continue
        scale = 0.3 if "weights" in k else 0.2
        P[k] = [rand(*s) * scale + (1.0 if "scales" in k else 0.0) for _ in range(n)]
    assert kvh
    return P


def both(P):
    to_o = {k: None if v is None else [o(a) for a in v] for k, v in P.items()}
    to_t = {k: None if v is None else [torch.tensor(a) for a in v] for k, v in P.items()}
    return to_o, to_t


@pytest.mark.parametrize("cfg", [
    dict(pre=True, act="gelu"),
    dict(pre=False, act="relu", alpha=0.7, trans=False),
    dict(pre=True, act="swiglu", norm="rmsnorm", gqa=1),
    dict(pre=True, act="geglu", gqa=2, trans=False, biases=False),
])
def test_fused_multi_transformer_matches_the_formula(cfg):
    cfg = dict(cfg)
    biases = cfg.pop("biases", True)
    B, S, E, H, D, FF = 2, 5, 16, 4, 4, 12
    P = make_params(2, E, H, D, FF, trans=cfg.get("trans", True), gqa=cfg.get("gqa", -1),
                    act=cfg["act"], biases=biases)
    Po, Pt = both(P)
    xa = rand(B, S, E)
    got = IF.fused_multi_transformer(
        o(xa), **Po, pre_layer_norm=cfg["pre"], residual_alpha=cfg.get("alpha", 1.0),
        activation=cfg["act"], trans_qkvw=cfg.get("trans", True),
        norm_type=cfg.get("norm", "layernorm"), gqa_group_size=cfg.get("gqa", -1))
    want = ref_fmt(torch.tensor(xa), Pt, **cfg)
    close(got, want, 1e-9)


def test_fused_multi_transformer_mask_rotary_and_gradients():
    B, S, E, H, D, FF = 2, 4, 16, 2, 8, 8
    P = make_params(1, E, H, D, FF)
    Po, Pt = both(P)
    xa, ma = rand(B, S, E), np.where(RNG.random((B, 1, S, S)) < 0.3, -1e9, 0.0)
    ma[..., 0] = 0.0
    rot = rand(2, B, 1, S, D)
    for neox, dims in ((False, 1), (True, 2)):
        x, tx = o(xa, True), torch.tensor(xa, requires_grad=True)
        got = IF.fused_multi_transformer(x, **Po, attn_mask=o(ma), rotary_embs=o(rot),
                                         rotary_emb_dims=dims, use_neox_rotary_style=neox)
        want = ref_fmt(tx, Pt, mask=torch.tensor(ma), rot=torch.tensor(rot), dims=dims,
                       neox=neox)
        close(got, want, 1e-9)
        wa = rand(B, S, E)
        (got * o(wa)).sum().backward()
        (want * torch.tensor(wa)).sum().backward()
        close(x.grad, tx.grad, 1e-9)
    # a bool mask keeps its True positions
    keep = ma == 0
    got = IF.fused_multi_transformer(o(xa), **Po, attn_mask=oar.to_tensor(keep))
    close(got, ref_fmt(torch.tensor(xa), Pt, mask=torch.tensor(ma)), 1e-9)


@pytest.mark.parametrize("gqa", [-1, 2])
def test_cache_decoding_step_by_step_equals_the_full_sequence(gqa):
    B, S, E, H, D, FF, n, MAX = 2, 6, 16, 4, 4, 8, 2, 9
    P = make_params(n, E, H, D, FF, gqa=gqa)
    Po, _ = both(P)
    xa = rand(B, S, E)
    rot = rand(2, B, 1, S, D)
    kw = dict(gqa_group_size=gqa, rotary_emb_dims=1)
    full = IF.fused_multi_transformer(o(xa), **Po, rotary_embs=o(rot), **kw)
    kvh = gqa if gqa > 0 else H
    caches = [oar.zeros([2, B, kvh, MAX, D], dtype="float64") for _ in range(n)]
    ctx, ret = IF.fused_multi_transformer(o(xa[:, :3]), **Po, cache_kvs=caches,
                                          rotary_embs=o(rot[:, :, :, :3]), **kw)
    assert ret is caches
    steps = [ctx]
    for t in range(3, S):
        out, _ = IF.fused_multi_transformer(
            o(xa[:, t:t + 1]), **Po, cache_kvs=caches, rotary_embs=o(rot[:, :, :, t:t + 1]),
            time_step=oar.to_tensor([t], dtype="int32"), **kw)
        steps.append(out)
    close(oar.concat(steps, 1), full, 1e-10)
    # a decoding step differentiates through its own token (the cache is constant)
    x_last = o(xa[:, S - 1:S], True)
    caches_copy = [c_.clone() for c_ in caches]
    for c_ in caches_copy:
        c_[:, :, :, S - 1:] = 0.0
    out, _ = IF.fused_multi_transformer(x_last, **Po, cache_kvs=caches_copy,
                                        rotary_embs=o(rot[:, :, :, S - 1:]),
                                        time_step=S - 1, **kw)
    out.sum().backward()
    x_full = o(xa, True)
    IF.fused_multi_transformer(x_full, **Po, rotary_embs=o(rot), **kw)[:, S - 1].sum().backward()
    close(x_last.grad, x_full.grad[:, S - 1:], 1e-10)
    c0 = caches[0].numpy()
    assert np.abs(c0[:, :, :, :S]).min() > 0 and not c0[:, :, :, S:].any()


def test_seq_lens_pad_and_pre_caches():
    B, S, E, H, D, FF = 2, 5, 8, 2, 4, 8
    P = make_params(1, E, H, D, FF)
    Po, Pt = both(P)
    xa = rand(B, S, E)
    lens = [5, 3]
    caches = [oar.zeros([2, B, H, 8, D], dtype="float64")]
    out, _ = IF.fused_multi_transformer(o(xa), **Po, cache_kvs=caches,
                                        seq_lens=oar.to_tensor(lens, dtype="int32"))
    for b, n in enumerate(lens):  # each sequence as if alone; padding rows are zero
        alone = ref_fmt(torch.tensor(xa[b:b + 1, :n]), Pt)
        close(out[b:b + 1, :n], alone, 1e-10)
        assert not out.numpy()[b, n:].any()
        assert not caches[0].numpy()[:, b, :, n:].any()
    # a prefix of keys/values: visible to every token, stored first in the cache
    pre = rand(2, B, H, 3, D)
    caches = [oar.zeros([2, B, H, 8, D], dtype="float64")]
    out, _ = IF.fused_multi_transformer(o(xa), **Po, pre_caches=[o(pre)], cache_kvs=caches)
    close(out, ref_fmt(torch.tensor(xa), Pt, prefix=[torch.tensor(pre)]), 1e-10)
    np.testing.assert_array_equal(caches[0].numpy()[:, :, :, :3], pre)


def test_fused_multi_transformer_layer_names_and_forward():
    oar.seed(3)
    m = oar.incubate.nn.FusedMultiTransformer(16, 2, 32, num_layers=2)
    # Paddle 3.3.1's names and shapes (recorded from paddle.incubate.nn.FusedMultiTransformer)
    names = list(m.state_dict())
    prefix = names[0].rsplit(".", 1)[0]
    assert [n.rsplit(".", 1)[1] for n in names] == [f"w_{i}" for i in range(12)]
    assert all(n.startswith(prefix + ".") for n in names)
    assert [list(v.shape) for v in m.state_dict().values()][:6] == [
        [16], [3, 2, 8, 16], [16, 16], [16], [16, 32], [32, 16]]
    assert m.ln_biases is None and m.qkv_biases is None and len(m.qkv_weights) == 2
    m2 = oar.incubate.nn.FusedMultiTransformer(
        16, 2, 32, num_layers=1, qkv_bias_attrs=oar.ParamAttr(), ln_bias_attrs=True,
        activation="swiglu", gqa_group_size=1, trans_qkvw=False, normalize_before=False)
    assert [(n.rsplit(".", 1)[1], list(v.shape)) for n, v in m2.state_dict().items()] == [
        ("w_0", [16]), ("b_0", [16]), ("w_1", [16, 4, 8]), ("b_1", [4, 8]), ("w_2", [16, 16]),
        ("w_3", [16]), ("w_4", [16, 64]), ("w_5", [32, 16])]
    m2.eval()
    x = oar.randn([2, 3, 16])
    P = {k: getattr(m2, k) for k in ("ln_scales", "ln_biases", "qkv_weights", "qkv_biases",
                                     "linear_weights", "linear_biases", "ffn_ln_scales",
                                     "ffn_ln_biases", "ffn1_weights", "ffn1_biases",
                                     "ffn2_weights", "ffn2_biases")}
    want = IF.fused_multi_transformer(x, **P, pre_layer_norm=False, activation="swiglu",
                                      trans_qkvw=False, gqa_group_size=1)
    close(m2(x), want, 1e-6)
    caches = [oar.zeros([2, 2, 1, 4, 8])]
    out, ret = m2(x, caches=caches)
    assert ret is caches and caches[0].numpy()[:, :, :, :3].any()


def test_fused_multi_transformer_errors():
    B, S, E, H, D, FF = 1, 3, 8, 2, 4, 8
    Po, _ = both(make_params(1, E, H, D, FF))
    x = o(rand(B, S, E))
    F = IF.fused_multi_transformer
    with pytest.raises(ValueError, match=r"fused_multi_transformer\(\): 'x' must be"):
        F(o(rand(S, E)), **Po)
    with pytest.raises(ValueError, match=r"argument 'activation' must be one of"):
        F(x, **Po, activation="tanh")
    with pytest.raises(ValueError, match=r"argument 'ffn1_biases' has 2 entries"):
        F(x, **{**Po, "ffn1_biases": Po["ffn1_biases"] * 2})
    with pytest.raises(TypeError, match=r"argument 'ln_scales' must be a list"):
        F(x, **{**Po, "ln_scales": Po["ln_scales"][0]})
    with pytest.raises(ValueError, match=r"qkv_weights\[0\] must be \[embed_dim, 3"):
        F(x, **Po, trans_qkvw=False)
    with pytest.raises(ValueError, match=r"'linear_weights\[0\]' must have shape \[8, 8\]"):
        F(x, **{**Po, "linear_weights": [o(rand(4, 8))]})
    with pytest.raises(ValueError, match=r"'time_step' \(the decoding stage\) needs"):
        F(x[:, :1], **Po, time_step=2)
    caches = [oar.zeros([2, B, H, 4, D], dtype="float64")]
    with pytest.raises(ValueError, match=r"seq_len must be 1"):
        F(x, **Po, cache_kvs=caches, time_step=2)
    with pytest.raises(ValueError, match=r"time step 4 is past the 4 positions"):
        F(x[:, :1], **Po, cache_kvs=caches, time_step=4)
    with pytest.raises(TypeError, match=r"cache_kvs\[0\] \(float32\) must have x's dtype"):
        F(x, **Po, cache_kvs=[oar.zeros([2, B, H, 4, D])])
    with pytest.raises(ValueError, match=r"rotary_emb_dims=1 needs 'rotary_embs'"):
        F(x, **Po, rotary_emb_dims=1)
    with pytest.raises(ValueError, match=r"'attn_mask' \[1, 1, 3, 2\] must broadcast"):
        F(x, **Po, attn_mask=o(np.zeros((1, 1, 3, 2))))
    with pytest.raises(NotImplementedError, match=r"'beam_offset'"):
        F(x, **Po, beam_offset=o(np.zeros((1, 1, 4))))
    with pytest.raises(ValueError, match=r"FusedMultiTransformer: argument 'num_layers'"):
        oar.incubate.nn.FusedMultiTransformer(8, 2, 8)
    with pytest.raises(ValueError, match=r"FusedMultiTransformer: embed_dim \(8\) must be"):
        oar.incubate.nn.FusedMultiTransformer(8, 3, 8, num_layers=1)


# ---- graph_khop_sampler -------------------------------------------------------------------
DOC_ROW = [3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7]


DOC_COLPTR = [0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13]


def ring():
    """Node i's in-neighbours: the next 1, 2 or 3 nodes of an 8-cycle."""
    row, colptr = [], [0]
    for i in range(8):
        row += [(i + 1) % 8, (i + 2) % 8, (i + 3) % 8][:1 + i % 3]
        colptr.append(len(row))
    return row, colptr


def flat(ts):
    return [t.numpy().ravel().tolist() for t in ts]


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_graph_khop_sampler_equals_paddle_when_taking_all_neighbours(dtype):
    r, c = oar.to_tensor(DOC_ROW, dtype=dtype), oar.to_tensor(DOC_COLPTR, dtype=dtype)
    n = oar.to_tensor([0, 8, 1, 2], dtype=dtype)
    eids = oar.arange(13, dtype=dtype) * 10
    out = oar.incubate.graph_khop_sampler(r, c, n, [100], sorted_eids=eids, return_eids=True)
    # paddle.incubate.graph_khop_sampler(..., [100], sorted_eids, True) on Paddle 3.3.1 CPU
    assert flat(out) == [[4, 5, 6, 5, 0, 6, 2], [0, 0, 1, 1, 2, 2, 3], [0, 8, 1, 2, 3, 7, 9],
                         [0, 1, 2, 3], [0, 10, 110, 120, 20, 30, 40]]
    assert [list(t.shape) for t in out] == [[7, 1], [7, 1], [7], [4], [7]]
    assert all(t.dtype.name == dtype for t in out)
    assert flat(oar.incubate.graph_khop_sampler(r, c, n, [-1])) == flat(out)[:4]
    # two hops (Paddle's CPU kernel is right when both frontiers have equal size)
    row, colptr = ring()
    out = oar.incubate.graph_khop_sampler(oar.to_tensor(row), oar.to_tensor(colptr),
                                          oar.to_tensor([0, 1]), [5, 5],
                                          sorted_eids=oar.arange(len(row)) * 10,
                                          return_eids=True)
    assert flat(out) == [[1, 2, 3, 3, 4, 5, 4], [0, 1, 1, 2, 2, 2, 3], [0, 1, 2, 3, 4, 5],
                         [0, 1], [0, 10, 20, 30, 40, 50, 60]]
    # the second frontier is sorted: node 1's neighbour 4 before node 0's neighbour 5
    out = oar.incubate.graph_khop_sampler(oar.to_tensor([5, 4, 0, 1, 2, 3, 3]),
                                          oar.to_tensor([0, 1, 2, 3, 4, 6, 7]),
                                          oar.to_tensor([0, 1]), [5, 5],
                                          sorted_eids=oar.arange(7) * 10, return_eids=True)
    assert flat(out) == [[3, 2, 4, 5, 5], [0, 1, 2, 2, 3], [0, 1, 4, 5, 2, 3], [0, 1],
                         [0, 10, 40, 50, 60]]


def test_graph_khop_sampler_sampling_invariants_and_seed():
    row, colptr = ring()
    adj = {v: set(row[colptr[v]:colptr[v + 1]]) for v in range(8)}
    args = (oar.to_tensor(row), oar.to_tensor(colptr), oar.to_tensor([0, 5, 2]), [2, 1, 1])
    oar.seed(5)
    first = flat(oar.incubate.graph_khop_sampler(*args, oar.arange(len(row)), True))
    oar.seed(5)
    again = flat(oar.incubate.graph_khop_sampler(*args, oar.arange(len(row)), True))
    assert first == again
    for _ in range(5):
        src, dst, nodes, reindex, eids = flat(
            oar.incubate.graph_khop_sampler(*args, oar.arange(len(row)), True))
        assert len(set(nodes)) == len(nodes) and [nodes[i] for i in reindex] == [0, 5, 2]
        per_dst = {}
        for s, d, e in zip(src, dst, eids):
            assert nodes[s] in adj[nodes[d]]  # a real edge, in the original numbering
            assert row[e] == nodes[s]          # and its id names it
            per_dst[d] = per_dst.get(d, 0) + 1
        assert per_dst[0] == 1 and per_dst[1] == 2 and per_dst[2] == 2  # min(k=2, degree)
        assert all(v <= 2 for v in per_dst.values())
        assert len(set(zip(src, dst))) == len(src)  # without replacement


def test_graph_khop_sampler_errors():
    r, c, n = oar.to_tensor(DOC_ROW), oar.to_tensor(DOC_COLPTR), oar.to_tensor([0, 1])
    G = oar.incubate.graph_khop_sampler
    with pytest.raises(ValueError, match=r"graph_khop_sampler\(\): argument 'sample_sizes' must"):
        G(r, c, n, [])
    with pytest.raises(TypeError, match=r"argument 'sample_sizes' must be a list"):
        G(r, c, n, [1.5])
    with pytest.raises(ValueError, match=r"return_eids=True needs 'sorted_eids'"):
        G(r, c, n, [2], return_eids=True)
    with pytest.raises(TypeError, match=r"argument 'input_nodes' must be an int32 or int64"):
        G(r, c, oar.to_tensor([0.5]), [2])
    with pytest.raises(TypeError, match=r"'colptr' \(int32\) must have the dtype of 'row'"):
        G(r, oar.to_tensor(DOC_COLPTR, dtype="int32"), n, [2])
    with pytest.raises(ValueError, match=r"none of the input nodes has a sampled neighbour"):
        G(r, c, n, [0])
    with pytest.raises(ValueError, match=r"'sorted_eids' has 3 entries"):
        G(r, c, n, [2], sorted_eids=oar.to_tensor([1, 2, 3]), return_eids=True)


def test_incubate_signatures():
    def plain(f):  # the parameters' names, kinds and defaults, without annotations
        sig = inspect.signature(f)
        params = [p.replace(annotation=p.empty) for p in sig.parameters.values()]
        return str(sig.replace(parameters=params, return_annotation=sig.empty))

    I = oar.incubate
    assert plain(I.identity_loss) == "(x, reduction='none')"
    assert plain(I.softmax_mask_fuse) == "(x, mask, name=None)"
    assert plain(I.softmax_mask_fuse_upper_triangle) == "(x)"


@pytest.mark.parametrize("reduction,shape,value,grad", [
    ("none", [2, 3], [[0, 1, 2], [3, 4, 5]], 1.0),
    (2, [2, 3], [[0, 1, 2], [3, 4, 5]], 1.0),
    ("mean", [], 2.5, 1 / 6),
    ("MEAN", [], 2.5, 1 / 6),
    (1, [], 2.5, 1 / 6),
    ("sum", [], 15.0, 1.0),
    (0, [], 15.0, 1.0),
])
def test_identity_loss(reduction, shape, value, grad):
    x = oar.to_tensor(np.arange(6, dtype="float32").reshape(2, 3), stop_gradient=False)
    out = oar.incubate.identity_loss(x, reduction)
    assert list(out.shape) == shape and out.dtype == x.dtype
    np.testing.assert_allclose(out.numpy(), value)
    (out if out.ndim == 0 else out.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), grad), rtol=1e-6)


def test_identity_loss_none_is_a_copy_and_errors():
    x = oar.to_tensor([1.0, 2.0], dtype="float64")
    out = oar.incubate.identity_loss(x)
    assert out is not x and out.dtype == oar.float64
    with pytest.raises(TypeError, match="Unsupported reduction type"):
        oar.incubate.identity_loss(x, "foo")
    for bad in (3, -1):
        with pytest.raises(ValueError, match=f"reduction should be 0, 1 and 2. But get {bad}"):
            oar.incubate.identity_loss(x, bad)
    with pytest.raises(TypeError, match="float32 or float64"):
        oar.incubate.identity_loss(oar.to_tensor([1, 2]), "mean")


def _softmax(t):
    e = np.exp(t - t.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_mask_fuse(dtype):
    rng = np.random.default_rng(0)
    xa = rng.random((2, 3, 4, 5)).astype(dtype)
    ma = (rng.integers(0, 2, (2, 1, 4, 5)) * -10000).astype(dtype)
    x = oar.to_tensor(xa, stop_gradient=False)
    m = oar.to_tensor(ma, stop_gradient=False)
    out = oar.incubate.softmax_mask_fuse(x, m)
    ref = _softmax(xa + ma)
    assert out.dtype == x.dtype and list(out.shape) == [2, 3, 4, 5]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-7)
    w = rng.random(ref.shape).astype(dtype)
    (out * oar.to_tensor(w)).sum().backward()
    gref = ref * (w - (w * ref).sum(-1, keepdims=True))
    np.testing.assert_allclose(x.grad.numpy(), gref, rtol=1e-5, atol=1e-6)
    assert m.grad is None  # Paddle's fused op gives the mask no gradient


@pytest.mark.parametrize("xs,ms,match", [
    ([2, 3, 4, 5], [2, 3, 4, 5], "mask's second dim must be 1"),
    ([2, 3, 4, 5], [1, 1, 4, 5], "0th dim of x is 2, while the 0th dim of mask is 1"),
    ([3, 4, 5], [3, 4, 5], "Input x must be in 4D"),
    ([2, 3, 4, 5], [2, 1, 1, 5], "2th dim of x is 4, while the 2th dim of mask is 1"),
    ([2, 3, 4, 5], [2, 1, 4, 6], "3th dim of x is 5, while the 3th dim of mask is 6"),
    ([2, 3, 4, 5], [5], "Input mask must be in 4D"),
])
def test_softmax_mask_fuse_shape_errors(xs, ms, match):
    with pytest.raises(ValueError, match=match):
        oar.incubate.softmax_mask_fuse(oar.rand(xs), oar.rand(ms))


def test_softmax_mask_fuse_dtype_errors():
    with pytest.raises(TypeError, match="dtype of x"):
        oar.incubate.softmax_mask_fuse(oar.rand([2, 3, 4, 5]),
                                       oar.rand([2, 1, 4, 5]).astype("float64"))
    with pytest.raises(TypeError, match="float32 or float64"):
        oar.incubate.softmax_mask_fuse(oar.rand([2, 3, 4, 5]).astype("float16"),
                                       oar.rand([2, 1, 4, 5]).astype("float16"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_mask_fuse_upper_triangle(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    xa = rng.standard_normal((2, 2, 5, 5)).astype(dtype)
    w = rng.standard_normal(xa.shape).astype(dtype)
    x = oar.to_tensor(xa, stop_gradient=False)
    out = oar.incubate.softmax_mask_fuse_upper_triangle(x)
    (out * oar.to_tensor(w)).sum().backward()

    tx = torch.tensor(xa, requires_grad=True)
    causal = torch.triu(torch.ones(5, 5, dtype=torch.bool), 1)
    tout = torch.softmax(tx.masked_fill(causal, float("-inf")), -1)
    (tout * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert out.numpy()[0, 0, 0, 0] == 1.0 and np.all(np.triu(out.numpy()[1, 1], 1) == 0)


def test_softmax_mask_fuse_upper_triangle_errors():
    with pytest.raises(ValueError, match="4D"):
        oar.incubate.softmax_mask_fuse_upper_triangle(oar.rand([3, 4, 4]))
    with pytest.raises(ValueError, match="Key seq len must be equal with query seq len"):
        oar.incubate.softmax_mask_fuse_upper_triangle(oar.rand([2, 3, 4, 5]))
