"""Mixture-of-Experts helpers: oar.nn.functional.moe_permute/moe_unpermute and
oar.incubate.nn.functional's moe_combine, cal_aux_loss, int_bincount,
build_src_rank_and_local_expert_id, expand_modality_expert_id, against numpy
references written from Paddle's documented semantics (GPU-only kernels there)."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
import oar.incubate.nn.functional as IF


def _routing(rng, seq, topk, experts):
    rm = np.full((seq, topk), -1, np.int32)
    pr = np.zeros((seq, topk), np.float32)
    for s in range(seq):
        n = rng.integers(1, min(topk, experts) + 1)
        slots = rng.choice(topk, n, replace=False)
        rm[s, slots] = rng.choice(experts, n, replace=False)
        pr[s, slots] = rng.random(n) + 0.1
    counts = np.bincount(rm[rm >= 0], minlength=experts).tolist()
    return rm, pr, counts


def _ref_permute(x, rm, pr, experts, counts, align):
    """Loop reference: expert blocks rounded up to `align`, tokens in order inside."""
    seq, topk = rm.shape
    rows = sum(-(-c // align) * align for c in counts)
    xo = np.zeros((rows, x.shape[1]), x.dtype)
    po = np.zeros(rows, np.float32)
    eo = np.full(rows, -1, np.int32)
    rmap = np.full((seq, experts), -1, np.int32)
    r0 = 0
    for e in range(experts):
        r = r0
        for s in range(seq):
            for k in range(topk):
                if rm[s, k] == e:
                    xo[r], po[r], eo[r], rmap[s, e] = x[s], pr[s, k], e, r
                    r += 1
        r0 += -(-counts[e] // align) * align
    return xo, rmap, po, eo


@pytest.mark.parametrize("align", [1, 4, 16])
def test_moe_permute_values(align):
    rng = np.random.default_rng(align)
    seq, dim, topk, E = 13, 5, 4, 6
    rm, pr, counts = _routing(rng, seq, topk, E)
    x = rng.standard_normal((seq, dim)).astype(np.float32)
    sc = rng.standard_normal((seq, 2)).astype(np.float32)
    xo, rmap, po, so, eo = F.moe_permute(
        oar.to_tensor(x), oar.to_tensor(sc), oar.to_tensor(rm), oar.to_tensor(pr), E, counts,
        align, return_expert_indices=True)
    rx, rrmap, rpo, reo = _ref_permute(x, rm, pr, E, counts, align)
    np.testing.assert_array_equal(xo.numpy(), rx)
    np.testing.assert_array_equal(rmap.numpy(), rrmap)
    np.testing.assert_array_equal(po.numpy(), rpo)
    np.testing.assert_array_equal(eo.numpy(), reo)
    assert rmap.dtype == oar.int32 and po.dtype == oar.float32 and eo.dtype == oar.int32
    ref_s = np.zeros((len(rx), 2), np.float32)
    for s in range(seq):
        for r in rrmap[s][rrmap[s] >= 0]:
            ref_s[r] = sc[s]
    np.testing.assert_array_equal(so.numpy(), ref_s)
    # four-output form without scale; no gather leaves zeros but the same maps
    out = F.moe_permute(oar.to_tensor(x), None, oar.to_tensor(rm), oar.to_tensor(pr), E,
                        counts, align, do_gather=False)
    assert len(out) == 4 and list(out[3].shape) == [len(rx), 0]
    assert not out[0].numpy().any()
    np.testing.assert_array_equal(out[1].numpy(), rrmap)
    np.testing.assert_array_equal(out[2].numpy(), rpo)
    big = F.moe_permute(oar.to_tensor(x), None, oar.to_tensor(rm), oar.to_tensor(pr), E,
                        counts, align, override_buffer_size=len(rx) + 3)[0]
    assert big.shape[0] == len(rx) + 3 and not big.numpy()[len(rx):].any()


def test_moe_permute_unpermute_roundtrip_and_grad():
    rng = np.random.default_rng(0)
    seq, dim, topk, E = 9, 3, 3, 4
    rm, pr, counts = _routing(rng, seq, topk, E)
    pr = pr / pr.sum(1, keepdims=True)
    x64 = rng.standard_normal((seq, dim))
    x = oar.to_tensor(x64)
    x.stop_gradient = False
    p = oar.to_tensor(pr.astype(np.float64))
    p.stop_gradient = False
    xo, rmap, po, _ = F.moe_permute(x, None, oar.to_tensor(rm), p, E, counts, 8)
    tok, ptk = F.moe_unpermute(xo * po.astype("float64").unsqueeze(-1), rmap,
                               oar.to_tensor(rm), po, seq, E)
    np.testing.assert_allclose(tok.numpy(), x64, atol=1e-6)
    np.testing.assert_array_equal(ptk.numpy(), pr.astype(np.float32))
    w = rng.standard_normal((seq, dim))
    (tok * oar.to_tensor(w)).sum().backward()
    # d/dx sum(w * x * sum_k p) = w * sum_k p (probs are float32 inside, as Paddle's)
    np.testing.assert_allclose(x.grad.numpy(), w * pr.astype(np.float32).sum(1, keepdims=True),
                               rtol=1e-6)
    # d/dp[s, k] = sum_d w[s] * x[s] for each routed slot
    ref = np.where(rm >= 0, (w * x64).sum(1, keepdims=True), 0.0)
    np.testing.assert_allclose(p.grad.numpy(), ref, rtol=1e-5, atol=1e-6)


def test_moe_unpermute_weighted_and_bf16():
    rng = np.random.default_rng(1)
    seq, dim, topk, E = 7, 4, 2, 3
    rm, pr, counts = _routing(rng, seq, topk, E)
    x = rng.standard_normal((seq, dim)).astype(np.float32)
    xo, rmap, po, _ = F.moe_permute(oar.to_tensor(x), None, oar.to_tensor(rm),
                                    oar.to_tensor(pr), E, counts, 2)
    tok, _ = F.moe_unpermute(xo, rmap, oar.to_tensor(rm), po, seq, E,
                             using_weighted_combine=True)
    np.testing.assert_allclose(tok.numpy(), x * pr.sum(1, keepdims=True), rtol=1e-6)
    tb, _ = F.moe_unpermute(xo.astype("bfloat16"), rmap, oar.to_tensor(rm), po, seq, E)
    assert tb.dtype == oar.bfloat16
    n = (rm >= 0).sum(1, keepdims=True)
    np.testing.assert_allclose(tb.astype("float32").numpy(), x * n, rtol=2e-2, atol=2e-2)


def test_moe_permute_errors():
    x = oar.zeros([2, 3])
    rm = oar.to_tensor([[0, -1], [1, 0]], dtype="int32")
    pr = oar.ones([2, 2])
    with pytest.raises(ValueError, match="moe_permute.*tokens_per_expert"):
        F.moe_permute(x, None, rm, pr, 2, [1, 2], 4)
    with pytest.raises(ValueError, match="moe_permute.*tokens_per_expert"):
        F.moe_permute(x, None, rm, pr, 3, [2, 1], 4)
    with pytest.raises(TypeError, match="moe_permute.*expert_routemap_topk"):
        F.moe_permute(x, None, rm.astype("float32"), pr, 2, [2, 1], 4)
    with pytest.raises(ValueError, match="moe_permute.*padding_alignment"):
        F.moe_permute(x, None, rm, pr, 2, [2, 1], 0)
    with pytest.raises(ValueError, match="moe_permute.*expert_routemap_topk"):
        F.moe_permute(x, None, oar.to_tensor([[0, 0], [1, -1]], dtype="int32"), pr, 2,
                      [2, 1], 4)
    with pytest.raises(ValueError, match="moe_permute.*override_buffer_size"):
        F.moe_permute(x, None, rm, pr, 2, [2, 1], 4, override_buffer_size=3)
    with pytest.raises(TypeError, match="moe_unpermute.*hidden_states_unzipped"):
        F.moe_unpermute(rm, rm, rm, pr, 2, 2)
    with pytest.raises(ValueError, match="moe_unpermute.*zipped_expertwise_rowmap"):
        F.moe_unpermute(oar.zeros([8, 3]), rm, rm, oar.zeros([8]), 3, 2)


def test_int_bincount():
    rng = np.random.default_rng(2)
    x = rng.integers(-2, 12, (4, 6))
    out = IF.int_bincount(oar.to_tensor(x), 1, 9, "int32")
    ref = np.array([(x == v).sum() for v in range(1, 9)])
    np.testing.assert_array_equal(out.numpy(), ref)
    assert out.dtype == oar.int32
    assert IF.int_bincount(oar.to_tensor(x), 0, 3).dtype == oar.int64
    with pytest.raises(ValueError, match="int_bincount.*high"):
        IF.int_bincount(oar.to_tensor(x), 3, 3)
    with pytest.raises(TypeError, match="int_bincount.*dtype"):
        IF.int_bincount(oar.to_tensor(x), 0, 3, "float32")
    with pytest.raises(TypeError, match="int_bincount.*'x'"):
        IF.int_bincount(oar.ones([3]), 0, 3)


def test_build_src_rank_and_local_expert_id():
    counts = [2, 0, 3, 1, 1, 2]
    rank, local = IF.build_src_rank_and_local_expert_id(oar.to_tensor(counts), counts, 2)
    ref_e = [e for e, c in enumerate(counts) for _ in range(c)]
    np.testing.assert_array_equal(rank.numpy(), [e // 2 for e in ref_e])
    np.testing.assert_array_equal(local.numpy(), [e % 2 for e in ref_e])
    assert rank.dtype == oar.int32 and local.dtype == oar.int32
    with pytest.raises(ValueError, match="build_src_rank_and_local_expert_id"):
        IF.build_src_rank_and_local_expert_id(oar.to_tensor(counts), [1, 2], 2)
    with pytest.raises(ValueError, match="num_local_experts"):
        IF.build_src_rank_and_local_expert_id(oar.to_tensor(counts), counts, 0)


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("n", [0, 4])
def test_expand_modality_expert_id(grouped, n):
    rng = np.random.default_rng(3)
    e = rng.integers(0, 8, (5, 3))
    out = IF.expand_modality_expert_id(oar.to_tensor(e), n, 8, 1, grouped)
    ref = np.empty_like(e)
    for s in range(5):
        for k in range(3):
            v = e[s, k] + (k * 8 if grouped else 0)
            ref[s, k] = v if n <= 0 else (v // n) * 2 * n + v % n + n
    np.testing.assert_array_equal(out.numpy(), ref)
    assert out.dtype == oar.int64
    with pytest.raises(ValueError, match="expand_modality_expert_id.*expert_id"):
        IF.expand_modality_expert_id(oar.to_tensor([1, 2]), n, 8, 1, grouped)


def test_moe_combine():
    rng = np.random.default_rng(4)
    x64 = rng.standard_normal((6, 3))
    w64 = rng.random((4, 2))
    idx = rng.integers(0, 6, (2, 4)).astype(np.int32)
    x = oar.to_tensor(x64)
    w = oar.to_tensor(w64)
    x.stop_gradient = w.stop_gradient = False
    y = IF.moe_combine(x, w, oar.to_tensor(idx))
    ref = sum(w64[:, k:k + 1] * x64[idx[k]] for k in range(2))
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-12)
    g = rng.standard_normal((4, 3))
    (y * oar.to_tensor(g)).sum().backward()
    gx = np.zeros_like(x64)
    for k in range(2):
        np.add.at(gx, idx[k], w64[:, k:k + 1] * g)
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-12)
    gw = np.stack([(g * x64[idx[k]]).sum(1) for k in range(2)], 1)
    np.testing.assert_allclose(w.grad.numpy(), gw, rtol=1e-12)
    with pytest.raises(ValueError, match="moe_combine.*scatter_index"):
        IF.moe_combine(x, w, oar.to_tensor(idx.T.copy()))
    with pytest.raises(TypeError, match="moe_combine.*combine_weights"):
        IF.moe_combine(x, w.astype("float32"), oar.to_tensor(idx))


def _ref_aux(gp, dm, tm, dtm, E, use_group, k, clip):
    scale = None
    if dtm is not None:
        L = dtm.sum()
        if tm is not None and gp.shape[0] != dtm.shape[0]:
            scale = L / max(tm.sum(), clip)
    elif tm is not None:
        L = tm.sum()
    else:
        L = gp.size / E
    L = max(L, clip)
    if dm.ndim == 2:
        dm = dm.sum(0)
    ce = dm / L
    loss = (gp.sum(0) / L * ce).sum() * E / (k if use_group else 1)
    grad = np.broadcast_to(ce * E / (k if use_group else 1) / L, gp.shape)
    return loss * (scale if scale is not None else 1.0), L, ce, grad


@pytest.mark.parametrize("case", ["plain", "tokens", "dispatch_scaled", "group2d"])
def test_cal_aux_loss(case):
    rng = np.random.default_rng(5)
    S, E = 10, 4
    gp = rng.random((S, E))
    dm = rng.integers(0, 5, E).astype(np.float64)
    tm = dtm = None
    use_group, k = False, 2
    if case == "tokens":
        tm = (rng.random(S) > 0.3).astype(np.float64)
    if case == "dispatch_scaled":
        tm = (rng.random(S) > 0.3).astype(np.float64)
        dtm = (rng.random(S + 6) > 0.5).astype(np.float64)
    if case == "group2d":
        dm = (rng.random((S, E)) > 0.5).astype(np.int64)
        use_group = True
    g = oar.to_tensor(gp)
    g.stop_gradient = False
    t = lambda a: None if a is None else oar.to_tensor(a)  # noqa: E731
    loss, L, ce = IF.cal_aux_loss(g, t(dm), t(tm), t(dtm), E, use_group, k, 1.0)
    rl, rL, rce, rgrad = _ref_aux(gp, dm, tm, dtm, E, use_group, k, 1.0)
    np.testing.assert_allclose(loss.numpy(), rl, rtol=1e-12)
    np.testing.assert_allclose(L.numpy(), rL, rtol=1e-12)
    np.testing.assert_allclose(ce.numpy(), rce, rtol=1e-12)
    assert loss.shape == [] or list(loss.shape) == []
    loss.backward()
    np.testing.assert_allclose(g.grad.numpy(), rgrad, rtol=1e-12)


def test_cal_aux_loss_errors():
    g = oar.ones([3, 2])
    with pytest.raises(TypeError, match="cal_aux_loss.*gate_prob"):
        IF.cal_aux_loss(oar.ones([3, 2], dtype="int64"), oar.ones([2]), None, None, 2, False,
                        1, 1.0)
    with pytest.raises(ValueError, match="cal_aux_loss.*dispatch_mask"):
        IF.cal_aux_loss(g, oar.ones([3]), None, None, 2, False, 1, 1.0)
    with pytest.raises(TypeError, match="cal_aux_loss.*use_group"):
        IF.cal_aux_loss(g, oar.ones([2]), None, None, 2, 1, 1, 1.0)
