"""The math functions Paddle has at the top level that oar composes in Python
(python/oar/tensor/math.py): elementwise compositions, products, distances, cdist,
trapezoid/diff, vander/logcumsumexp/logspace, the nan-reductions, quantile, nanmedian,
histogramdd and the small aliases: values and gradients against torch and numpy with
Paddle's argument conventions; and the typed errors of the Python-composed functions
(math, manipulation, framework and Tensor methods)."""
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
