"""Paddle's top-level functions, Tensor methods and the oar.tensor namespace composed in
Python (python/oar/_math_extra.py, _manip_extra.py, _framework_extra.py, _tensor_extra.py):
values and gradients against torch and numpy, Paddle's argument conventions, the memory
sharing of the views and DLPack, and the typed errors."""
import math

import numpy as np
import pytest
import torch

import oar

NAN, INF = float("nan"), float("inf")


def t(v, dtype="float64", grad=False):
    return oar.to_tensor(np.asarray(v, dtype=dtype), stop_gradient=not grad)


def tt(v, dtype=torch.float64, grad=False):
    return torch.tensor(np.asarray(v), dtype=dtype, requires_grad=grad)


def close(got, want, rtol=1e-10, atol=1e-12):
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    np.testing.assert_allclose(np.asarray(got.numpy()), want, rtol=rtol, atol=atol,
                               equal_nan=True)


def grads_match(fn_oar, fn_torch, *arrays, rtol=1e-9):
    """Values and first-order gradients (upstream: fixed random weights) agree."""
    rng = np.random.default_rng(0)
    xs = [t(a, grad=True) for a in arrays]
    txs = [tt(a, grad=True) for a in arrays]
    out, tout = fn_oar(*xs), fn_torch(*txs)
    close(out, tout, rtol=rtol)
    w = rng.uniform(-1, 1, size=tout.shape)
    (out * t(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    for x, tx in zip(xs, txs):
        close(x.grad, tx.grad, rtol=rtol, atol=1e-10)


R = np.random.default_rng(1)


# ---- splitting and stacking ------------------------------------------------------------------
@pytest.mark.parametrize("spec", [3, [2, 3], [5, 1], [-2]])
def test_tensor_split_matches_torch(spec):
    a = np.arange(24.0).reshape(8, 3)
    got = oar.tensor_split(t(a), spec)
    want = torch.tensor_split(torch.tensor(a), spec)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        close(g, w)
    assert [p.shape for p in oar.hsplit(t(a), 3)] == [[8, 1]] * 3
    assert [p.shape for p in oar.vsplit(t(a), [1, 4])] == [[1, 3], [3, 3], [4, 3]]
    assert [p.shape for p in oar.dsplit(oar.zeros([7, 6, 8]), 2)] == [[7, 6, 4]] * 2


def test_stacks_match_numpy():
    a, b = np.array(1.0), np.array([2.0, 3.0])
    c, d = np.arange(6.0).reshape(2, 3), np.arange(6.0, 12.0).reshape(2, 3)
    close(oar.hstack([t(a), t(b)]), np.hstack([a, b]))
    close(oar.vstack([t(c), t(d[:1])]), np.vstack([c, d[:1]]))
    close(oar.row_stack([t(b), t(b)]), np.vstack([b, b]))
    close(oar.dstack([t(c), t(d)]), np.dstack([c, d]))
    close(oar.column_stack([t(b), t(np.arange(2.0))]), np.column_stack([b, np.arange(2.0)]))
    out = oar.atleast_3d(oar.to_tensor(1), t([1.0]), t(c))
    assert [o.shape for o in out] == [[1, 1, 1], [1, 1, 1], [2, 3, 1]]
    assert oar.atleast_2d(t([1.0, 2.0])).shape == [1, 2]
    # a Tensor stands for the sequence of its rows, as Paddle iterates it (numpy too)
    for f, g in ((oar.hstack, np.hstack), (oar.vstack, np.vstack), (oar.dstack, np.dstack),
                 (oar.column_stack, np.column_stack), (oar.row_stack, np.vstack)):
        close(f(t(c)), g(c))
    assert oar.block_diag(t(c)).shape == [2, 6]
    with pytest.raises(TypeError, match="hstack.*a Tensor of at least one row"):
        oar.hstack(oar.to_tensor(1.0))


def test_block_diag_cartesian_prod_and_combinations_against_torch():
    mats = [np.array([[4], [3], [2]]), np.array([7, 6, 5]), np.array(1), np.array([[5, 4],
                                                                                 [2, 1]])]
    got = oar.block_diag([oar.to_tensor(m) for m in mats])
    want = torch.block_diag(*[torch.tensor(m).reshape(1, -1) if m.ndim < 2 else torch.tensor(m)
                              for m in mats])
    assert got.tolist() == want.tolist()
    a, b = torch.tensor([1, 2, 3]), torch.tensor([5, 6])
    assert oar.cartesian_prod([oar.to_tensor([1, 2, 3]), oar.to_tensor([5, 6])]).tolist() == \
        torch.cartesian_prod(a, b).tolist()
    empty = oar.cartesian_prod([oar.zeros([0]), oar.ones([2])])
    assert empty.shape == [0, 2]
    for r, rep in ((2, False), (3, False), (2, True)):
        assert oar.combinations(oar.to_tensor([1, 2, 3, 4]), r, rep).tolist() == \
            torch.combinations(torch.tensor([1, 2, 3, 4]), r, rep).tolist()


def test_picked_values_keep_their_gradients():
    a = R.normal(size=(3, 4))
    grads_match(lambda x: oar.block_diag([x, x]), lambda x: torch.block_diag(x, x), a)
    grads_match(lambda x: oar.hstack([x, x]), lambda x: torch.hstack([x, x]), a)
    grads_match(lambda x: oar.take(x, oar.to_tensor([[0, 5], [11, 3]])),
                lambda x: torch.take(x, torch.tensor([[0, 5], [11, 3]])), a)


# ---- views ------------------------------------------------------------------------------------
def test_crop_narrow_permute_ravel_and_matrix_transpose():
    x = oar.to_tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert oar.crop(x, [2, -1], [1, 1]).tolist() == [[5, 6], [8, 9]]
    assert oar.narrow(x, 1, -2, 2).tolist() == [[2, 3], [5, 6], [8, 9]]
    assert oar.narrow(x, 0, oar.to_tensor(1), 1).tolist() == [[4, 5, 6]]
    y = oar.zeros([2, 3, 4])
    assert oar.permute(y, 2, 0, 1).shape == [4, 2, 3] == y.permute([2, 0, 1]).shape
    assert oar.ravel(y).shape == [24] and y.mT.shape == [2, 4, 3]
    assert oar.matrix_transpose(y).shape == [2, 4, 3]


def test_view_shares_memory_and_reads_bytes_as_another_dtype():
    x = oar.zeros([2, 4, 6])
    v = oar.view(x, [8, -1])
    v[0, 0] = 3.0
    assert x.tolist()[0][0][0] == 3.0
    b = oar.view(x, "uint8")
    assert b.shape == [2, 4, 24]
    np.testing.assert_array_equal(b.numpy(), x.numpy().view(np.uint8))
    assert oar.view(oar.zeros([2, 4], dtype="uint8"), oar.float32).shape == [2, 1]
    assert oar.view_as(x, oar.zeros([48])).shape == [48]


# ---- picking and scattering --------------------------------------------------------------------
def test_take_modes_and_index_fill_index_sample_multiplex():
    x = oar.arange(12).reshape([3, 4])
    idx = np.arange(-2, 13).reshape(3, 5)
    assert oar.take(x, oar.to_tensor(idx), mode="wrap").numpy().tolist() == \
        np.take(np.arange(12), idx, mode="wrap").tolist()
    assert oar.take(x, oar.to_tensor(idx), mode="clip").numpy().tolist() == \
        np.take(np.arange(12), np.clip(idx, 0, 11)).tolist()
    f = oar.index_fill(x, oar.to_tensor([0, 2], dtype="int32"), 1, -1)
    tf = torch.arange(12).reshape(3, 4).index_fill(1, torch.tensor([0, 2]), -1)
    assert f.tolist() == tf.tolist()
    s = oar.index_sample(t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), oar.to_tensor([[2, 0], [1, 1]]))
    assert s.tolist() == [[3.0, 1.0], [5.0, 5.0]]
    m = oar.multiplex([t([[1.0, 2.0], [3.0, 4.0]]), t([[5.0, 6.0], [7.0, 8.0]])],
                      oar.to_tensor([[1], [0]], dtype="int32"))
    assert m.tolist() == [[5.0, 6.0], [3.0, 4.0]]


def test_masked_select_scatter_family_against_torch():
    a, mask = R.normal(size=(3, 4)), R.random((3, 4)) > 0.5
    src = R.normal(size=12)
    grads_match(lambda x, v: oar.masked_scatter(x, oar.to_tensor(mask), v),
                lambda x, v: x.masked_scatter(torch.tensor(mask), v), a, src)
    grads_match(lambda x, v: oar.select_scatter(x, v, 1, 2),
                lambda x, v: torch.select_scatter(x, v, 1, 2), a, R.normal(size=3))
    grads_match(lambda x, v: oar.slice_scatter(x, v, [1], [0], [4], [2]),
                lambda x, v: torch.slice_scatter(x, v, 1, 0, 4, 2), a, R.normal(size=(3, 2)))
    for off, a1, a2 in ((0, 0, 1), (1, 0, 1), (-1, 1, 0)):
        yshape = torch.diagonal(torch.tensor(a), off, a1, a2).shape
        grads_match(lambda x, y: oar.diagonal_scatter(x, y, off, a1, a2),
                    lambda x, y: torch.diagonal_scatter(x, y, off, a1, a2), a,
                    R.normal(size=yshape))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_torch(reduce, include_self):
    base = R.normal(size=(3, 4))
    src = R.normal(size=(2, 4))
    index = np.array([[0, 1, 0, 2], [0, 0, 2, 2]])
    got = oar.scatter_reduce(t(base), 0, oar.to_tensor(index), t(src), reduce,
                             include_self=include_self)
    want = torch.tensor(base).scatter_reduce(0, torch.tensor(index), torch.tensor(src), reduce,
                                             include_self=include_self)
    close(got, want)
    if reduce in ("sum", "prod", "mean"):
        grads_match(lambda x, s: oar.scatter_reduce(x, 0, oar.to_tensor(index), s, reduce,
                                                    include_self=include_self),
                    lambda x, s: x.scatter_reduce(0, torch.tensor(index), s, reduce,
                                                  include_self=include_self), base, src)


def test_put_along_axis_integer_mean_truncates_and_in_place_works():
    x = oar.to_tensor([[10, 30, 20], [60, 40, 50]])
    idx = oar.zeros([2, 2], dtype="int64")
    v = oar.to_tensor([[1, 2], [3, 4]])
    assert oar.put_along_axis(x, idx, v, 0, "mean", True, False).tolist() == \
        [[4, 12, 20], [60, 40, 50]]
    y = x.clone()
    y.put_along_axis_(idx, v, 0, "mul", True, False)
    assert y.tolist() == [[30, 240, 20], [60, 40, 50]]


def test_unique_consecutive_against_torch():
    x = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    out, inv, cnt = oar.unique_consecutive(oar.to_tensor(x.numpy()), True, True)
    w = torch.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert [out.tolist(), inv.tolist(), cnt.tolist()] == [v.tolist() for v in w]
    m = torch.tensor([[2, 1, 3], [3, 0, 1], [2, 1, 3], [2, 1, 3]])
    assert oar.unique_consecutive(oar.to_tensor(m.numpy()), axis=0).tolist() == \
        torch.unique_consecutive(m, dim=0).tolist()
    assert oar.unique_consecutive(oar.zeros([0])).shape == [0]


def test_isin_shard_index_msort_unbind():
    x = t([-0.0, -2.1, 2.5, 1.0, NAN])
    tx = torch.tensor(x.numpy())
    assert oar.isin(x, t([-2.1, 2.5, NAN])).tolist() == \
        torch.isin(tx, torch.tensor([-2.1, 2.5, NAN], dtype=torch.float64)).tolist()
    assert oar.isin(x, t([2.5]), invert=True).tolist() == [True, True, False, True, True]
    assert oar.shard_index(oar.to_tensor([[16], [1], [19]]), 20, 2, 1).tolist() == \
        [[6], [-1], [9]]
    a = R.normal(size=(3, 2))
    close(oar.msort(t(a)), np.sort(a, axis=0))
    out = oar.zeros([1])
    assert oar.msort(t(a), out=out) is out and out.shape == [3, 2]
    assert [p.shape for p in oar.unbind(oar.zeros([3, 4]), 1)] == [[3]] * 4


# ---- math compositions -------------------------------------------------------------------------
def test_elementwise_compositions_match_torch():
    a = R.normal(size=(2, 3)) * 3
    grads_match(oar.deg2rad, torch.deg2rad, a)
    grads_match(oar.rad2deg, torch.rad2deg, a)
    grads_match(oar.frac, torch.frac, a)
    grads_match(lambda x: oar.stanh(x, 0.5, 2.0), lambda x: 2.0 * torch.tanh(0.5 * x), a)
    grads_match(lambda x, y: oar.fmax(x, y), torch.fmax, a, R.normal(size=(2, 3)))
    grads_match(lambda x: oar.multigammaln(x, 3), lambda x: torch.special.multigammaln(x, 3),
                np.abs(a) + 1.5)
    v = t([1.0, NAN, -INF, INF])
    w = t([NAN, 2.0, 3.0, NAN])
    close(oar.fmin(v, w), torch.fmin(tt(v.numpy()), tt(w.numpy())))
    assert oar.isposinf(v).tolist() == [False, False, False, True]
    assert oar.isneginf(v).tolist() == [False, False, True, False]
    assert oar.isreal(oar.to_tensor([1 + 0j, 2 + 1j])).tolist() == [True, False]
    z = oar.to_tensor([3 + 4j, 0j, -2 + 0j])
    close(oar.sgn(z), torch.sgn(torch.tensor(z.numpy())))
    p = oar.polar(t([1.0, 2.0]), t([math.pi / 2, 5 * math.pi / 4]))
    close(p, torch.polar(tt([1.0, 2.0]), tt([math.pi / 2, 5 * math.pi / 4])))
    assert oar.deg2rad(oar.to_tensor(180)).dtype == oar.float32


def test_products_against_torch():
    a, b = R.normal(size=(2, 3, 4)), R.normal(size=(3, 4, 5))
    grads_match(lambda x, y: oar.tensordot(x, y, [[1, 2], [0, 1]]),
                lambda x, y: torch.tensordot(x, y, ([1, 2], [0, 1])), a, b)
    grads_match(lambda x, y: oar.tensordot(x, y, 0), lambda x, y: torch.tensordot(x, y, 0),
                a[0], b[0])
    grads_match(oar.inner, torch.inner, a, R.normal(size=(5, 4)))
    m, v = R.normal(size=(3, 4)), R.normal(size=4)
    grads_match(oar.mv, torch.mv, m, v)
    grads_match(oar.mm, torch.mm, m, R.normal(size=(4, 2)))
    grads_match(lambda i, x, y: oar.addmm(i, x, y, 0.5, 2.0),
                lambda i, x, y: torch.addmm(i, x, y, beta=0.5, alpha=2.0),
                R.normal(size=(3, 2)), m, R.normal(size=(4, 2)))
    grads_match(lambda i, x, y: oar.baddbmm(i, x, y, 0.5, 2.0),
                lambda i, x, y: torch.baddbmm(i, x, y, beta=0.5, alpha=2.0),
                R.normal(size=(2, 3, 2)), R.normal(size=(2, 3, 4)), R.normal(size=(2, 4, 2)))


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, INF])
def test_distances_match_torch(p):
    x, y = R.normal(size=(4, 3)), R.normal(size=(5, 3))
    if p != 0.0:
        grads_match(lambda a, b: oar.cdist(a, b, p), lambda a, b: torch.cdist(a, b, p), x, y)
        grads_match(lambda a: oar.pdist(a, p), lambda a: torch.pdist(a, p), x)
    else:
        close(oar.cdist(t(x), t(y), p), torch.cdist(tt(x), tt(y), p))
    close(oar.dist(t(x), t(x[::-1].copy()), p), torch.dist(tt(x), tt(x[::-1].copy()), p))


def test_cdist_matrix_product_form_and_renorm():
    x, y = R.normal(size=(30, 3)), R.normal(size=(40, 3))
    close(oar.cdist(t(x), t(y)), torch.cdist(tt(x), tt(y)), rtol=1e-7)
    a = R.normal(size=(2, 3, 4)) * 3
    grads_match(lambda v: oar.renorm(v, 2.0, 1, 1.5), lambda v: torch.renorm(v, 2, 1, 1.5), a)


def test_trapezoid_and_diff_against_torch():
    y, x = R.normal(size=(3, 5)), np.sort(R.normal(size=5))
    grads_match(lambda a, b: oar.trapezoid(a, b), lambda a, b: torch.trapezoid(a, b), y, x)
    grads_match(lambda a: oar.trapezoid(a, dx=0.5, axis=0),
                lambda a: torch.trapezoid(a, dx=0.5, dim=0), y)
    grads_match(lambda a, b: oar.cumulative_trapezoid(a, b),
                lambda a, b: torch.cumulative_trapezoid(a, b), y, x)
    grads_match(lambda a: oar.diff(a, 2, 0), lambda a: torch.diff(a, 2, 0), y)
    p, q = R.normal(size=(3, 1)), R.normal(size=(3, 2))
    grads_match(lambda a, b, c: oar.diff(a, 1, 1, b, c),
                lambda a, b, c: torch.diff(a, 1, 1, b, c), y, p, q)
    assert oar.diff(oar.to_tensor([True, True, False])).tolist() == [False, True]


def test_vander_logcumsumexp_and_logspace_match_references():
    v = R.normal(size=4)
    # (torch.vander's own backward fails in torch 2.13: the reference is built of powers)
    grads_match(lambda x: oar.vander(x, 3),
                lambda x: torch.stack([x ** 2, x, torch.ones_like(x)], 1), v)
    grads_match(lambda x: oar.vander(x, increasing=True),
                lambda x: torch.stack([x ** k for k in range(4)], 1), v)
    close(oar.logspace(0, 10, 5, 2, "float64"), np.logspace(0, 10, 5, base=2))
    assert oar.range(5).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert oar.range(10, 1, -3, "int64").tolist() == [10, 7, 4, 1]


@pytest.mark.parametrize("axis", [None, 0, 1, [0, 1]])
def test_nan_reductions_match_numpy(axis):
    a = R.normal(size=(3, 4))
    a[0, 1] = a[2, 3] = NAN
    ax = tuple(axis) if isinstance(axis, list) else axis
    close(oar.nansum(t(a), axis), np.nansum(a, axis=ax))
    close(oar.nanmean(t(a), axis, keepdim=True), np.nanmean(a, axis=ax, keepdims=True))
    close(oar.nanquantile(t(a), [0.2, 0.9], axis),
          np.nanquantile(a, [0.2, 0.9], axis=ax))
    close(oar.nanmedian(t(a), axis), np.nanmedian(a, axis=ax))


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "nearest", "midpoint"])
def test_quantile_matches_torch_with_gradients(interpolation):
    a = R.normal(size=(4, 5))
    grads_match(lambda x: oar.quantile(x, [0.25, 0.6], axis=1, interpolation=interpolation),
                lambda x: torch.quantile(x, torch.tensor([0.25, 0.6], dtype=torch.float64),
                                         dim=1, interpolation=interpolation), a)
    b = a.copy()
    b[1, 2] = NAN
    close(oar.quantile(t(b), 0.5, axis=1, keepdim=True),
          torch.quantile(tt(b), 0.5, dim=1, keepdim=True))


def test_nanmedian_min_mode_returns_positions():
    x = t([[NAN, 2.0, 3.0], [0.0, 1.0, 2.0], [NAN, NAN, NAN]])
    v, i = oar.nanmedian(x, 1, mode="min")
    assert v.numpy()[:2].tolist() == [2.0, 1.0] and math.isnan(v.numpy()[2])
    assert i.tolist() == [1, 1, -1]


def test_aliases_and_small_functions():
    x, y = oar.to_tensor([1, 2, 3]), oar.to_tensor([1, 3, 2])
    assert oar.gt(x, y).tolist() == [False, False, True] == oar.greater(x, y).tolist()
    assert oar.le(x, y).tolist() == [True, True, False]
    assert oar.mod(oar.to_tensor([7, -7]), oar.to_tensor([3, 3])).tolist() == [1, 2]
    assert oar.floor_mod(oar.to_tensor([7]), oar.to_tensor([-3])).tolist() == [-2]
    assert oar.mul(x, y).tolist() == [1, 6, 6] and oar.negative(x).tolist() == [-1, -2, -3]
    assert oar.positive(x) is x
    assert oar.add_n([x, y, x]).tolist() == [3, 7, 8]
    assert oar.reduce_as(oar.ones([2, 3, 4]), oar.ones([3, 1])).tolist() == [[8.0]] * 3
    assert oar.rank(oar.zeros([2, 3])).item() == 2
    assert oar.is_empty(oar.zeros([0, 3])).item() is True
    c = oar.zeros([1])
    assert oar.increment(c, 2.5) is c and c.tolist() == [2.5]
    assert math.isclose(oar.gammaln(t([3.0])).item(), math.lgamma(3.0), rel_tol=1e-14)
    assert oar.broadcast_shape([2, 1, 3], [1, 3, 1]) == [2, 3, 3]
    assert oar.histogram_bin_edges(oar.to_tensor([1, 2, 1]), 4, 0, 3).tolist() == \
        [0.0, 0.75, 1.5, 2.25, 3.0]


def test_histogramdd_against_numpy():
    pts = R.normal(size=(50, 2))
    w = R.random(50)
    hist, edges = oar.histogramdd(t(pts), bins=[3, 4], weights=t(w), density=True)
    want, wedges = np.histogramdd(pts, bins=[3, 4], weights=w, density=True)
    close(hist, want, rtol=1e-9)
    for e, we in zip(edges, wedges):
        close(e, we, rtol=1e-12)


# ---- behaviour of existing functions with Paddle's arguments ----------------------------------
def test_linspace_mean_assign_numel_randint_like_arguments():
    d = oar.linspace(0, 10, 5, device="cpu", requires_grad=True)
    assert d.stop_gradient is False and d.tolist() == [0.0, 2.5, 5.0, 7.5, 10.0]
    out = oar.zeros([7])
    assert oar.linspace(0, 1, 3, out=out) is out and out.shape == [3]
    assert oar.mean(t([[1.0, 2.0]], "float32"), dtype="float64").dtype == oar.float64
    assert oar.mean(t([[1.0, 2.0], [3.0, 5.0]]), axis=0).tolist() == [2.0, 3.5]
    res = oar.zeros([3, 3])
    assert oar.assign(np.array([[1, 1], [3, 4]]), res) is res
    assert res.dtype == oar.int64 and res.tolist() == [[1, 1], [3, 4]]
    assert oar.numel(oar.zeros([4, 5])).numpy() == 20
    r = oar.randint_like(oar.zeros([50]), -5, 5, dtype="bool")
    assert r.dtype == oar.bool
    assert oar.randint_like(oar.zeros([2], dtype="bool"), -5, 5, dtype="int64").dtype == oar.int64


# ---- framework ---------------------------------------------------------------------------------
def test_size_finfo_iinfo():
    s = oar.Size([2, 3, 4])
    assert isinstance(s, list) and s == [2, 3, 4] and s.numel() == 24
    assert oar.Size([]).numel() == 1 and repr(s) == "oar.Size([2, 3, 4])"
    for d, nd in (("float32", np.float32), ("float64", np.float64), ("float16", np.float16)):
        f = oar.finfo(d)
        assert (f.max, f.eps, f.tiny, f.bits) == (float(np.finfo(nd).max), float(
            np.finfo(nd).eps), float(np.finfo(nd).tiny), np.finfo(nd).bits)
        assert f.dtype == d
    # 10**-precision as Paddle prints it, not float32's 1e-06 widened
    assert [oar.finfo(d).resolution for d in ("float16", "float32", "float64")] == [1e-3, 1e-6,
                                                                                   1e-15]
    bf = oar.finfo(oar.bfloat16)
    assert (bf.bits, bf.eps, bf.max) == (16, 2.0 ** -7, float(torch.finfo(torch.bfloat16).max))
    assert oar.finfo(oar.complex64).dtype == "float32"
    i = oar.iinfo("int16")
    assert (i.min, i.max, i.bits, i.dtype) == (-32768, 32767, 16, "int16")


def test_default_dtype_applies_to_creation_and_python_floats():
    assert oar.get_default_dtype() == "float32"
    oar.set_default_dtype("float64")
    try:
        assert oar.get_default_dtype() == "float64"
        assert oar.to_tensor([1.5]).dtype == oar.float64
        assert oar.to_tensor([1 + 2j]).dtype == oar.complex128
        assert oar.ones([2]).dtype == oar.float64 and oar.rand([2]).dtype == oar.float64
        assert oar.full([1], 1.5).dtype == oar.float64 and oar.arange(0.5, 2).dtype == \
            oar.float64
        assert oar.to_tensor([1]).dtype == oar.int64  # integers keep theirs
    finally:
        oar.set_default_dtype("float32")
    assert oar.to_tensor([1.5]).dtype == oar.float32


def test_rng_state_replays_the_draws():
    state = oar.get_rng_state()
    a = oar.randn([4]).tolist()
    oar.set_rng_state(state)
    assert oar.randn([4]).tolist() == a
    assert state[0].current_seed() == oar.get_rng_state()[0].current_seed()
    assert oar.get_cuda_rng_state() == []
    oar.set_cuda_rng_state([])


def test_dlpack_shares_memory_both_ways():
    x = t([[0.2, 0.3], [0.1, 0.5]], "float32")
    cap = oar.to_dlpack(x)
    assert "dltensor" in repr(cap)
    y = oar.from_dlpack(cap)
    assert "used_dltensor" in repr(cap)
    y[0, 0] = 10.0
    assert x.tolist()[0][0] == 10.0
    a = np.array([[0.2, 0.3], [0.1, 0.5]])
    z = oar.from_dlpack(a)
    z[0, 0] = 7.0
    assert a[0, 0] == 7.0
    tz = torch.from_dlpack(x)  # oar's __dlpack__ / __dlpack_device__
    tz[1, 1] = -1.0
    assert x.tolist()[1][1] == -1.0
    assert oar.from_dlpack(torch.arange(3)).tolist() == [0, 1, 2]
    assert x.__dlpack_device__() == (1, 0)
    copied = oar.from_dlpack(a, copy=True)
    copied[0, 0] = 0.0
    assert a[0, 0] == 7.0
    bf = oar.to_tensor([1.5, -2.0], dtype="bfloat16")
    tb = torch.from_dlpack(bf)
    assert tb.dtype == torch.bfloat16 and tb.tolist() == [1.5, -2.0]
    assert oar.from_dlpack(tb).dtype == oar.bfloat16
    rev = np.arange(4.0)[::-2]  # a negative stride
    back = oar.from_dlpack(rev)
    assert back.tolist() == [3.0, 1.0]
    back[0] = 100.0
    assert rev[0] == 100.0
    frozen = np.ones(2)
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match="from_dlpack.*cannot export"):
        oar.from_dlpack(frozen)
    cap = oar.to_dlpack(x)
    oar.from_dlpack(cap)
    with pytest.raises(TypeError, match="unconsumed DLPack capsule"):
        oar.from_dlpack(cap)


def test_from_numpy_asarray_and_the_tensor_namespace():
    a = np.array([1, 2, 3])
    f = oar.from_numpy(a)
    a[0] = 100
    assert f.tolist() == [1, 2, 3]  # a copy, as Paddle
    x = oar.asarray(1, requires_grad=True)
    assert x.stop_gradient is False and x.dtype == oar.int64
    y = oar.asarray([[1 + 1j, 2]], dtype="complex64")
    assert y.dtype == oar.complex64
    assert oar.asarray(x) is not x and oar.asarray(x).stop_gradient
    assert isinstance(oar.tensor(1), oar.Tensor)
    assert oar.tensor([0.1], requires_grad=True).stop_gradient is False
    assert oar.tensor.triu is oar.triu and oar.tensor.math.frexp is oar.frexp
    assert oar.tensor.search.argwhere(oar.to_tensor([[1.0, 0.0], [0.0, 2.0]])).tolist() == \
        [[0, 0], [1, 1]]
    import oar.tensor.creation as creation
    assert creation.create_tensor("float32").shape == [0]


def test_set_printoptions_summarises_and_rounds():
    try:
        oar.set_printoptions(4, 100, 2)
        s = repr(oar.ones([10, 20]) / 3)
        assert "0.3333" in s and "0.33333" not in s and "..." in s
    finally:
        oar.set_printoptions(precision=8, threshold=1000, edgeitems=3)
    assert "0.33333334" in repr(oar.ones([2]) / 3)


def test_batch_drops_the_last_short_batch_on_request():
    r = oar.batch(lambda: iter(range(5)), 2, drop_last=True)
    assert list(r()) == [[0, 1], [2, 3]]


def test_rand_like_randn_like():
    x = oar.zeros([3, 2], dtype="float64")
    assert oar.rand_like(x).dtype == oar.float64
    assert oar.randn_like(x, dtype="float32", requires_grad=True).stop_gradient is False


# ---- Tensor methods ----------------------------------------------------------------------------
def test_strides_offset_layout_and_shared_memory():
    x = oar.to_tensor([[1, 2, 3], [4, 5, 6]])
    assert x.get_strides() == x.strides == x.stride() == [3, 1] and x.stride(-1) == 1
    y = x[1]
    assert y.offset == 24 and y.get_strides() == [1]
    assert x.layout == "NCHW" and x.itemsize == 8
    assert y._is_shared_buffer_with(x) and not oar.ones([2])._is_shared_buffer_with(x)
    assert x.is_dense() and not x.is_dist() and str(x.type) == "VarType.DENSE_TENSOR"


def test_set_resize_reconstruct_and_data():
    src = t([11.0, 22.0, 33.0, 44.0, 55.0, 66.0], "float32")
    x = t([1.0, 2.0], "float32")
    x.set_(src, shape=[3], stride=[2])
    assert x.tolist() == [11.0, 33.0, 55.0] and x._is_shared_buffer_with(src)
    x.set_(src, shape=[5], offset=4)
    assert x.tolist() == [22.0, 33.0, 44.0, 55.0, 66.0]
    x.set_()
    assert x.shape == [0]
    r = t([1.0, 2.0, 3.0], "float32")
    r.resize_([2, 3], fill_zero=True)
    assert r.tolist() == [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]
    a, b = oar.to_tensor([1.0], stop_gradient=False), oar.to_tensor([2.0, 3.0])
    a.reconstruct_from_(b)
    assert a.tolist() == [2.0, 3.0] and a.stop_gradient
    d = oar.to_tensor(1.0)
    d.data = oar.to_tensor(2.0)
    assert d.item() == 2.0 and d.data.item() == 2.0


def test_in_place_random_fills_are_in_range_and_reproducible():
    x = oar.zeros([2000])
    oar.seed(5)
    x.uniform_(-2.0, 3.0)
    v = x.numpy().copy()
    assert v.min() >= -2.0 and v.max() < 3.0 and abs(v.mean() - 0.5) < 0.15
    oar.seed(5)
    assert np.array_equal(x.uniform_(-2.0, 3.0).numpy(), v)
    assert abs(x.normal_(1.0, 2.0).numpy().std() - 2.0) < 0.15
    assert abs(x.exponential_(2.0).numpy().mean() - 0.5) < 0.05
    g = x.geometric_(0.25).numpy()
    assert g.min() >= 1 and np.all(g == np.round(g)) and abs(g.mean() - 4.0) < 0.4
    assert x.log_normal_(0.0, 0.5).numpy().min() > 0
    assert np.isfinite(x.cauchy_(1.0, 2.0).numpy()).all()
    b = x.bernoulli_(0.3).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.05
    i = oar.zeros([500], dtype="int32").random_(3, 7).numpy()
    assert i.min() >= 3 and i.max() <= 6
    assert x.zero_().numpy().max() == 0.0
    leaf = oar.zeros([2], dtype="float32")
    leaf.stop_gradient = False
    with pytest.raises(RuntimeError, match="leaf"):
        leaf.normal_()


def test_fill_diagonal_matches_paddles_positions():
    x = oar.ones([5, 3])
    x.fill_diagonal_(2.0, wrap=True)
    assert np.argwhere(x.numpy() == 2).tolist() == [[0, 0], [1, 1], [2, 2], [4, 0]]
    y = oar.ones([4, 3])
    y.fill_diagonal_(2.0, offset=-1)
    assert np.argwhere(y.numpy() == 2).tolist() == [[1, 0], [2, 1]]
    z = oar.ones([2, 2, 2])
    z.fill_diagonal_(2.0)
    assert np.argwhere(z.numpy() == 2).tolist() == [[0, 0, 0], [1, 1, 1]]
    w = oar.ones([4, 3]) * 2
    assert w.fill_diagonal_tensor(oar.ones([3])).numpy().trace() == 3.0
    w.fill_diagonal_tensor_(oar.zeros([2]), offset=1)
    assert w.numpy()[0, 1] == 0.0 and w.numpy()[1, 2] == 0.0


def test_to_apply_new_and_small_methods():
    x = oar.to_tensor([1, 2, 3])
    assert x.to("float32").dtype == oar.float32 and x.to("cpu") is x
    assert x.to("cpu", "float64").dtype == oar.float64
    assert x.to(t([1.0])).dtype == oar.float64 and x.to(dtype="int32").dtype == oar.int32
    f = t([0.5, 1.0])
    assert f.apply(lambda v: v * 2).tolist() == [1.0, 2.0]
    assert f.apply_(lambda v: v + 1) is f and f.tolist() == [1.5, 2.0]
    o = oar.ones([2, 2])
    assert o.new_empty(3, 3).shape == [3, 3] and o.new_zeros([2]).tolist() == [0.0, 0.0]
    assert o.new_full([2], 5.0, dtype="int64").tolist() == [5, 5]
    assert o.new_ones((1, 2), requires_grad=True).stop_gradient is False
    g = oar.to_tensor(5.0, stop_gradient=False)
    (g * g).backward()
    assert g.gradient() == 10.0 and oar.ones([1]).gradient() is None
    r = oar.randn([2])
    assert r.requires_grad is False
    r.requires_grad = True
    assert r.stop_gradient is False
    m = oar.to_tensor([[1.1, 2.2, 3.3]])
    assert m.item(2) == m.item(0, 2) == float(np.float32(3.3))
    assert oar.to_tensor([[1, 2], [3, 4]]).repeat(2, 1).shape == [4, 2]
    assert [p.shape for p in oar.ones([3, 2]).split_with_sizes([1, 2])] == [[1, 2], [2, 2]]
    assert o.is_same_shape(oar.zeros([2, 2])) and not o.is_same_shape(oar.zeros([2]))
    assert oar.to_tensor([-5, -1, 1]).bitwise_invert().tolist() == [4, 0, -2]
    assert "data: [1.0]" in str(oar.to_tensor([1.0]).get_tensor())


# ---- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, err, match", [
    (lambda: oar.tensor_split(oar.to_tensor(1.0), 2), ValueError, "tensor_split.*at least 1"),
    (lambda: oar.tensor_split(oar.ones([4]), 0), ValueError, "number of sections must be pos"),
    (lambda: oar.vsplit(oar.ones([4]), 2), ValueError, "vsplit.*at least 2 dimensions"),
    (lambda: oar.hstack([]), TypeError, "hstack.*non-empty list"),
    (lambda: oar.block_diag([oar.ones([2, 2, 2])]), ValueError, "block_diag.*at most 2"),
    (lambda: oar.combinations(oar.ones([2, 2])), ValueError, "combinations.*1-D"),
    (lambda: oar.crop(oar.ones([3, 3]), [2, 2], [2, 0]), ValueError, "crop.*does not fit"),
    (lambda: oar.narrow(oar.ones([3]), 0, 2, 2), IndexError, "narrow.*do not fit"),
    (lambda: oar.take(oar.ones([3]), oar.to_tensor([3])), IndexError, "take.*index 3 is out"),
    (lambda: oar.take(oar.ones([3]), oar.to_tensor([1.0])), TypeError, "take.*int32 or int64"),
    (lambda: oar.index_fill(oar.ones([3]), oar.to_tensor([5]), 0, 1.0), IndexError,
     "index_fill.*index 5"),
    (lambda: oar.multiplex([oar.ones([2, 2])], oar.to_tensor([[1], [0]])), IndexError,
     "multiplex.*out of range"),
    (lambda: oar.masked_scatter(oar.ones([3]), oar.to_tensor([True, True, True]),
                                oar.ones([2])), ValueError, "masked_scatter.*selects 3"),
    (lambda: oar.select_scatter(oar.ones([2, 3]), oar.ones([3]), 1, 1), ValueError,
     "select_scatter.*slice's shape"),
    (lambda: oar.diagonal_scatter(oar.ones([2, 3]), oar.ones([3])), ValueError,
     "diagonal_scatter.*diagonal's shape"),
    (lambda: oar.scatter_reduce(oar.ones([2]), 0, oar.to_tensor([0]), oar.ones([1]), "max"),
     ValueError, "scatter_reduce.*'reduce'"),
    (lambda: oar.put_along_axis(oar.ones([2]), oar.to_tensor([5]), oar.ones([1]), 0, "mul"),
     IndexError, "put_along_axis.*index 5 is out of bounds"),
    (lambda: oar.mv(oar.ones([2]), oar.ones([2])), ValueError, "mv.*2-D"),
    (lambda: oar.tensordot(oar.ones([2, 3]), oar.ones([2, 3]), 1), ValueError,
     "tensordot.*cannot be contracted"),
    (lambda: oar.cdist(oar.ones([2, 3]), oar.ones([2, 4])), ValueError, "cdist.*last dim"),
    (lambda: oar.cdist(oar.ones([2, 3]), oar.ones([2, 3]), compute_mode="x"), ValueError,
     "compute_mode"),
    (lambda: oar.renorm(oar.ones([2, 2]), -1.0, 0, 1.0), ValueError, "renorm.*'p' must be"),
    (lambda: oar.quantile(oar.ones([3]), 1.5), ValueError, "quantile.*'q' must be in"),
    (lambda: oar.quantile(oar.ones([3]), 0.5, interpolation="cubic"), ValueError,
     "interpolation"),
    (lambda: oar.nanmedian(oar.ones([3]), mode="max"), ValueError, "nanmedian.*'mode'"),
    (lambda: oar.multigammaln(oar.to_tensor([0.2]), 2), ValueError, "multigammaln.*greater"),
    (lambda: oar.diff(oar.ones([3]), n=-1), ValueError, "diff.*'n' must be >= 0"),
    (lambda: oar.vander(oar.ones([2, 2])), ValueError, "vander.*1-D"),
    (lambda: oar.increment(oar.ones([2])), ValueError, "increment.*exactly 1 element"),
    (lambda: oar.range(0, 5, 0), ValueError, "range.*'step' must not be 0"),
    (lambda: oar.broadcast_shape([2, 3], [4, 3]), ValueError, "broadcast_shapes.*cannot be"),
    (lambda: oar.add_n([oar.ones([2]), oar.ones([3])]), ValueError, "add_n.*shape"),
    (lambda: oar.positive(oar.to_tensor([True])), TypeError, "positive.*bool"),
    (lambda: oar.view(oar.ones([3, 2]).t(), [6]), ValueError, "view.*contiguous"),
    (lambda: oar.view(oar.ones([3]), "float64"), ValueError, "view.*whole number"),
    (lambda: oar.finfo("int32"), TypeError, "finfo.*floating"),
    (lambda: oar.iinfo("float32"), TypeError, "iinfo.*integer"),
    (lambda: oar.set_default_dtype("int32"), TypeError, "set_default_dtype"),
    (lambda: oar.set_rng_state(["x"]), TypeError, "set_rng_state"),
    (lambda: oar.set_cuda_rng_state([1]), ValueError, "CPU only"),
    (lambda: oar.from_dlpack([1, 2]), TypeError, "from_dlpack.*DLPack capsule"),
    (lambda: oar.from_numpy([1]), TypeError, "from_numpy.*ndarray"),
    (lambda: oar.batch(lambda: iter([]), 0), ValueError, "batch.*positive"),
    (lambda: oar.ones([2]).to("gpu"), ValueError, "CPU only"),
    (lambda: oar.ones([2]).item(5), IndexError, "item"),
    (lambda: oar.ones([2]).set_(oar.ones([2], dtype="float64")), TypeError, "set_.*dtype"),
    (lambda: oar.ones([2]).set_(oar.ones([2]), offset=3), ValueError, "set_.*offset"),
    (lambda: oar.ones([2]).set_(oar.ones([2]), shape=[3]), IndexError, "does not fit"),
    (lambda: oar.ones([2]).exponential_(0.0), ValueError, "exponential_.*'lam'"),
    (lambda: oar.ones([2], dtype="int64").normal_(), TypeError, "normal_.*floating"),
    (lambda: oar.ones([2]).fill_diagonal_(1.0), ValueError, "fill_diagonal_.*2 dimensions"),
    (lambda: oar.ones([2, 3, 2]).fill_diagonal_(1.0), ValueError, "equal dimensions"),
    (lambda: oar.ones([2]).split_with_sizes([1, 2]), ValueError, "split_with_sizes.*sum"),
])
def test_errors_are_typed_and_name_the_function(call, err, match):
    with pytest.raises(err, match=match):
        call()
