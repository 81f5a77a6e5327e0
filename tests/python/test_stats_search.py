"""The statistics, search and scan functions written in Python (python/oar/tensor/stat.py and search.py:
topk, sort, kthvalue, mode, median, unique, bincount, histogram, cummax, cummin, norm)
against PyTorch: values, positions, gradients of orders 1 and 2 and the error paths.
The declared ops under them are in the op registry (tests/op_cases/)."""
import math

import numpy as np
import pytest
import torch

import oar

DTYPES = ["float32", "float64"]


def distinct(shape, seed=0, dtype="float64"):
    n = int(np.prod(shape)) if shape else 1
    v = (np.random.default_rng(seed).permutation(n) + 0.5) / max(n, 1) * 2 - 1
    return v.reshape(shape).astype(dtype)


def pair(a, requires_grad=True):
    return (oar.to_tensor(a, stop_gradient=not requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def close(o, t, rtol=1e-6, atol=1e-7):
    t = t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else np.asarray(t)
    o = o.numpy() if isinstance(o, oar.Tensor) else np.asarray(o)
    assert list(o.shape) == list(t.shape), (o.shape, t.shape)
    np.testing.assert_allclose(o, t, rtol=rtol, atol=atol)


def check_grads(o_out, t_out, ox, tx, seed=1):
    """First and second order gradients of sum(out * g) against torch's."""
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(t_out.shape).astype(np.float64)
    v = rng.standard_normal(tx.shape).astype(np.float64)
    (og,) = oar.grad([o_out], [ox], [oar.to_tensor(g).astype(o_out.dtype)], create_graph=True)
    tg = None
    if t_out.requires_grad:
        (tg,) = torch.autograd.grad(t_out, tx, torch.tensor(g, dtype=t_out.dtype),
                                    create_graph=True, allow_unused=True)
    if tg is None:  # a piecewise constant result (p = 0 norms)
        assert not np.any(og.numpy())
        return
    close(og, tg)
    (ogg,) = oar.grad([(og * oar.to_tensor(v).astype(og.dtype)).sum()], [ox], allow_unused=True)
    s = (tg * torch.tensor(v, dtype=tg.dtype)).sum()
    tgg = torch.autograd.grad(s, tx, allow_unused=True)[0] if s.requires_grad else None
    if tgg is None:
        tgg = torch.zeros_like(tx)
    close(ogg if ogg is not None else np.zeros(tx.shape), tgg)


# ---- topk / sort / kthvalue / mode / median ----------------------------------------------
@pytest.mark.parametrize("shape,k,axis,largest", [
    ([7], 3, None, True), ([3, 5], 2, -1, False), ([4, 3, 5], 4, 0, True), ([2, 6], 6, 1, True),
    ([3, 4], 0, 1, True), ([], 1, None, True)])
def test_topk(shape, k, axis, largest):
    a = distinct(shape)
    ox, tx = pair(a)
    ov, oi = oar.topk(ox, k, axis=axis, largest=largest)
    tv, ti = torch.topk(tx, k, dim=-1 if axis is None else axis, largest=largest)
    close(ov, tv)
    close(oi, ti)
    assert oi.dtype == oar.int64
    check_grads(ov, tv, ox, tx)
    # the method, and sorted=False (the same set of values)
    ov2, _ = ox.topk(k, axis=axis, largest=largest, sorted=False)
    if shape:
        close(np.sort(ov2.numpy(), axis=-1), np.sort(tv.detach().numpy(), axis=-1))


def test_topk_views_and_int():
    a = distinct([5, 4])
    ov, oi = oar.topk(oar.transpose(oar.to_tensor(a), [1, 0]), 2)
    tv, ti = torch.topk(torch.tensor(a).t(), 2)
    close(ov, tv)
    close(oi, ti)
    x = oar.to_tensor([[3, 9, 1], [7, 2, 8]])
    v, i = oar.topk(x, 1)
    assert v.dtype == oar.int64 and v.numpy().tolist() == [[9], [8]] and i.numpy().tolist() == [[1], [2]]


@pytest.mark.parametrize("axis,descending", [(-1, False), (0, True), (1, False)])
def test_sort(axis, descending):
    a = distinct([3, 4, 2])
    ox, tx = pair(a)
    out = oar.sort(ox, axis=axis, descending=descending)
    ref = torch.sort(tx, dim=axis, descending=descending).values
    close(out, ref)
    check_grads(out, ref, ox, tx)
    close(ox.sort(axis=axis, descending=descending), ref)
    close(oar.argsort(ox, axis=axis, descending=descending),
          torch.argsort(tx, dim=axis, descending=descending))


def test_sort_nan_and_ties():
    x = oar.to_tensor([2.0, math.nan, 1.0, 2.0, -math.inf])
    np.testing.assert_array_equal(oar.sort(x).numpy(), [-math.inf, 1.0, 2.0, 2.0, math.nan])
    np.testing.assert_array_equal(oar.argsort(x).numpy(), [4, 2, 0, 3, 1])
    np.testing.assert_array_equal(oar.argsort(x, descending=True).numpy(), [1, 0, 3, 2, 4])


@pytest.mark.parametrize("k,axis,keepdim", [(2, None, False), (1, 0, True), (4, 1, False)])
def test_kthvalue(k, axis, keepdim):
    a = distinct([3, 4])
    ox, tx = pair(a)
    ov, oi = oar.kthvalue(ox, k, axis=axis, keepdim=keepdim)
    tv, ti = torch.kthvalue(tx, k, dim=-1 if axis is None else axis, keepdim=keepdim)
    close(ov, tv)
    close(oi, ti)
    check_grads(ov, tv, ox, tx)
    close(ox.kthvalue(k, axis=axis, keepdim=keepdim)[0], tv)


def test_mode():
    a = np.array([[3.0, 1.0, 3.0, 2.0, 1.0, 5.0], [4.0, 4.0, 0.0, 4.0, 0.0, 0.0]])
    ox, tx = pair(a)
    ov, oi = oar.mode(ox)
    tv, ti = torch.mode(tx)
    close(ov, tv)
    close(oi, ti)
    check_grads(ov, tv, ox, tx)
    ov, oi = ox.mode(axis=0, keepdim=True)
    tv, ti = torch.mode(tx, dim=0, keepdim=True)
    close(ov, tv)
    np.testing.assert_array_equal(np.take_along_axis(a, oi.numpy(), 0), ov.numpy())


@pytest.mark.parametrize("shape,axis,keepdim", [([7], None, False), ([3, 4], None, True),
                                                ([3, 4], 1, False), ([5, 3], 0, True)])
def test_median_avg(shape, axis, keepdim):
    a = distinct(shape)
    ox, tx = pair(a)
    out = oar.median(ox, axis=axis, keepdim=keepdim)
    # torch.median takes the lower middle; 'avg' (Paddle's default) is numpy's median
    ref = np.median(a, axis=axis, keepdims=keepdim)
    close(out, ref)
    # the gradient: half to each middle value for an even count
    if axis is None:
        tref = torch.quantile(tx, 0.5, keepdim=False).reshape(out.shape)
    else:
        tref = torch.quantile(tx, 0.5, dim=axis, keepdim=keepdim)
    check_grads(out, tref, ox, tx)


def test_median_paddle_examples_and_modes():
    x = oar.arange(12).reshape([3, 4])
    m = oar.median(x)
    assert m.dtype == oar.float32 and m.shape == [] and m.item() == 5.5
    np.testing.assert_array_equal(oar.median(x, axis=1).numpy(), [1.5, 5.5, 9.5])
    assert oar.median(x, axis=0, keepdim=True).shape == [1, 4]
    v, i = oar.median(x, axis=1, mode="min")
    assert v.dtype == oar.int64 and v.numpy().tolist() == [1, 5, 9] and i.numpy().tolist() == [1, 1, 1]
    assert oar.median(x, mode="min").item() == 5
    assert oar.median(oar.to_tensor([1.0, 2.0], dtype="float64")).dtype == oar.float64
    assert math.isnan(oar.median(oar.to_tensor([1.0, math.nan, 0.0])).item())
    assert x.median().item() == 5.5


# ---- unique / bincount / histogram -----------------------------------------------------
def test_unique_paddle_example():
    x = oar.to_tensor([2, 3, 3, 1, 5, 3])
    assert oar.unique(x).numpy().tolist() == [1, 2, 3, 5]
    out, index, inverse, counts = oar.unique(x, return_index=True, return_inverse=True,
                                             return_counts=True)
    assert index.numpy().tolist() == [3, 0, 1, 4]
    assert inverse.numpy().tolist() == [1, 2, 2, 0, 3, 2]
    assert counts.numpy().tolist() == [1, 1, 3, 1]
    x = oar.to_tensor([[2, 1, 3], [3, 0, 1], [2, 1, 3]])
    assert oar.unique(x).numpy().tolist() == [0, 1, 2, 3]
    assert oar.unique(x, axis=0).numpy().tolist() == [[2, 1, 3], [3, 0, 1]]
    assert oar.unique(x, axis=1).numpy().tolist() == [[1, 2, 3], [0, 3, 1], [1, 2, 3]]


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_unique_against_torch(axis):
    a = np.random.default_rng(3).integers(-2, 3, size=(6, 3)).astype(np.float64)
    a[4] = a[1]
    o = oar.unique(oar.to_tensor(a), return_inverse=True, return_counts=True, axis=axis,
                   dtype="int32")
    t = torch.unique(torch.tensor(a), return_inverse=True, return_counts=True, dim=axis)
    close(o[0], t[0])
    close(o[1], t[1].reshape(-1))
    close(o[2], t[2])
    assert o[1].dtype == oar.int32 and o[2].dtype == oar.int32
    _, index = oar.unique(oar.to_tensor(a), return_index=True, axis=axis)
    _, np_index = np.unique(a, return_index=True, axis=axis)
    close(index, np_index)


def test_unique_empty():
    out, counts = oar.unique(oar.zeros([0, 3]), return_counts=True)
    assert out.shape == [0] and counts.shape == [0]


def test_bincount():
    x = oar.to_tensor([1, 1, 4, 0, 1])
    assert oar.bincount(x).numpy().tolist() == [1, 3, 0, 0, 1]
    assert oar.bincount(x).dtype == oar.int64
    w = oar.to_tensor([0.5, 1.0, 2.0, 0.25, 1.0], dtype="float64")
    close(oar.bincount(x, weights=w, minlength=7),
          torch.bincount(torch.tensor([1, 1, 4, 0, 1]), torch.tensor(w.numpy()), 7))
    assert oar.bincount(oar.to_tensor(np.zeros([0], np.int64)), minlength=3).numpy().tolist() == [0, 0, 0]
    assert x.bincount().shape == [5]


def test_histogram():
    assert oar.histogram(oar.to_tensor([1, 2, 1]), bins=4, min=0, max=3).numpy().tolist() == [0, 2, 1, 0]
    a = np.random.default_rng(5).uniform(-2, 2, 200)
    h = oar.histogram(oar.to_tensor(a), bins=7)
    close(h, torch.histc(torch.tensor(a), 7).long())
    assert h.dtype == oar.int64
    w = np.random.default_rng(6).uniform(0, 1, 200)
    hw = oar.histogram(oar.to_tensor(a), bins=5, min=-1.0, max=1.0, weight=oar.to_tensor(w))
    close(hw, torch.histogram(torch.tensor(a), 5, range=(-1.0, 1.0), weight=torch.tensor(w)).hist)
    d = oar.histogram(oar.to_tensor(a), bins=5, min=-2.0, max=2.0, density=True)
    close(d, torch.histogram(torch.tensor(a), 5, range=(-2.0, 2.0), density=True).hist.float(),
          rtol=1e-6)
    assert d.dtype == oar.float32
    # one value: the range widens by 1 on each side
    assert oar.histogram(oar.to_tensor([2.0, 2.0]), bins=2).numpy().tolist() == [0, 2]


def test_histogram_min_equal_to_max_takes_the_data_range_as_paddle():
    # Paddle 3.3.1's values (its kernel reads min == max as "the data's range"; torch's
    # range=(3, 3) would be [2.5, 3.5]); its histogram_bin_edges keeps min +- 0.5 instead
    x = oar.to_tensor([-1.0, 0.2, 0.5, 2.7, 3.0, 3.2])
    w = oar.to_tensor([1.0, 2, 3, 4, 5, 6])
    assert oar.histogram(x, bins=3, min=3, max=3).numpy().tolist() == [2, 1, 3]
    assert oar.histogram(x, bins=3, min=3, max=3, weight=w).numpy().tolist() == [3, 3, 15]
    close(oar.histogram(x, bins=3, min=3, max=3, density=True),
          np.array([0.23809524, 0.11904762, 0.35714287], np.float32), rtol=1e-6)
    assert oar.histogram(oar.to_tensor([2.0, 2.0]), bins=2, min=3, max=3).numpy().tolist() == [0, 2]
    close(oar.histogram_bin_edges(x, bins=3, min=3, max=3),
          np.array([2.5, 2.8333333, 3.1666667, 3.5], np.float32), rtol=1e-6)
    close(oar.histogram_bin_edges(oar.to_tensor([2.0, 2.0]), bins=2),
          np.array([1.5, 2.0, 2.5], np.float32))


# ---- cummax / cummin ---------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["cummax", "cummin"])
@pytest.mark.parametrize("shape,axis", [([6], None), ([3, 4], None), ([3, 4], 1), ([2, 3, 4], 0)])
def test_cummax_cummin(fn, shape, axis):
    a = distinct(shape, seed=4)
    ox, tx = pair(a)
    ov, oi = getattr(oar, fn)(ox, axis=axis)
    ts, dim = (tx.reshape(-1), 0) if axis is None else (tx, axis)
    tv, ti = getattr(torch, fn)(ts, dim)
    close(ov, tv)
    close(oi, ti)
    check_grads(ov, tv, ox, tx)
    _, oi32 = getattr(ox, fn)(axis=axis, dtype="int32")
    assert oi32.dtype == oar.int32


# ---- norm --------------------------------------------------------------------------------
NORM_CASES = [
    (None, None, False), (None, -1, False), ("fro", None, True), ("fro", [0, 1], False),
    (1, 1, False), (3, 0, True), (0.5, -1, False), (math.inf, 1, False), (-math.inf, 0, True),
    (0, 1, False), (None, [0, 1], True),
    (1, [0, 1], False), (-1, [1, 0], False), (math.inf, [0, 1], True), (-math.inf, [0, 1], False),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p,axis,keepdim", NORM_CASES)
def test_norm(p, axis, keepdim, dtype):
    a = distinct([3, 4], seed=7, dtype=dtype) * 2
    ox, tx = pair(a)
    out = oar.linalg.norm(ox, p=p, axis=axis, keepdim=keepdim)
    dim = tuple(axis) if isinstance(axis, list) else axis
    if isinstance(axis, list) and p not in (None, "fro"):
        ref = torch.linalg.matrix_norm(tx, ord=p, dim=dim, keepdim=keepdim)
    elif p == "fro" or (p is None and isinstance(axis, list)):
        ref = torch.linalg.vector_norm(tx, 2, dim=dim, keepdim=keepdim)
    else:
        ref = torch.linalg.vector_norm(tx, 2 if p is None else p, dim=dim, keepdim=keepdim)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else {}
    close(out, ref, **tol)
    assert out.dtype == ox.dtype
    if dtype == "float64":
        check_grads(out, ref, ox, tx)
    close(oar.norm(ox, p=p, axis=axis, keepdim=keepdim), ref, **tol)
    close(ox.norm(p=p, axis=axis, keepdim=keepdim), ref, **tol)


def test_norm_zero_vector_gradient():
    # 0 at the kink, as torch (whose second order there is NaN: not compared)
    ox = oar.to_tensor(np.zeros(3), stop_gradient=False)
    (g,) = oar.grad([oar.norm(ox)], [ox])
    assert g.numpy().tolist() == [0.0, 0.0, 0.0]


def test_norm_errors():
    x = oar.ones([2, 3])
    # the nuclear and spectral norms (singular values of the all-ones 2x3: sqrt(6), 0)
    assert abs(float(oar.norm(x, p="nuc")) - 6 ** 0.5) < 1e-5
    assert abs(float(oar.linalg.norm(x, p=2, axis=[0, 1])) - 6 ** 0.5) < 1e-5
    with pytest.raises(ValueError, match="p='nuc' is a matrix norm"):
        oar.norm(x, p="nuc", axis=1)
    with pytest.raises(ValueError, match="norm\\(\\): argument 'p' must be"):
        oar.norm(x, p="abc")
    with pytest.raises(ValueError, match="p='fro' is a matrix norm"):
        oar.norm(x, p="fro", axis=1)
    with pytest.raises(ValueError, match="two axes\\) takes p in .*, but got 3.0"):
        oar.norm(x, p=3, axis=[0, 1])
    with pytest.raises(IndexError, match="norm\\(\\): argument 'axis' \\(2\\)"):
        oar.norm(x, axis=2)
    with pytest.raises(ValueError, match="argument 'axis' must be None, one axis or two"):
        oar.norm(x, axis=[0, 0])
    with pytest.raises(TypeError, match="norm\\(\\): argument 'x' must be Tensor"):
        oar.norm([1.0, 2.0])


# ---- error paths ---------------------------------------------------------------------------
def test_search_errors():
    x = oar.ones([2, 3])
    with pytest.raises(IndexError, match="topk_index\\(\\): argument 'k' \\(4\\) must be in \\[0, 3\\]"):
        oar.topk(x, 4)
    with pytest.raises(IndexError, match="topk_index\\(\\): argument 'axis' \\(2\\) is out of range"):
        oar.topk(x, 1, axis=2)
    with pytest.raises(TypeError, match="topk\\(\\): argument 'k' must be int"):
        oar.topk(x, 1.5)
    with pytest.raises(IndexError, match="kthvalue_index\\(\\): argument 'k' \\(0\\) must be in \\[1, 3\\]"):
        oar.kthvalue(x, 0)
    with pytest.raises(IndexError, match="argsort\\(\\): argument 'axis' \\(-3\\)"):
        oar.argsort(x, axis=-3)
    with pytest.raises(ValueError, match="argmax\\(\\): argument 'axis' must be one int or None"):
        oar.argmax(x, axis=[0, 1])
    with pytest.raises(TypeError, match="argmax\\(\\): argument 'dtype' must be an int32 or int64"):
        oar.argmax(x, dtype="float32")
    with pytest.raises(ValueError, match="argmin\\(\\): cannot take the position .* empty"):
        oar.argmin(oar.zeros([0, 3]))
    with pytest.raises(ValueError, match="median\\(\\): argument 'mode' must be 'avg' or 'min'"):
        oar.median(x, mode="max")
    with pytest.raises(ValueError, match="median\\(\\): cannot take the median of an empty axis"):
        oar.median(oar.zeros([2, 0]), axis=1)
    with pytest.raises(ValueError, match="mode_index\\(\\): cannot take the mode over an empty"):
        oar.mode(oar.zeros([2, 0]))
    with pytest.raises(TypeError, match="unique\\(\\): argument 'dtype' must be int32 or int64"):
        oar.unique(x, dtype="float32")
    with pytest.raises(IndexError, match="unique\\(\\): argument 'axis' \\(5\\)"):
        oar.unique(x, axis=5)
    with pytest.raises(ValueError, match="bincount\\(\\): argument 'x' must hold non-negative"):
        oar.bincount(oar.to_tensor([1, -2]))
    with pytest.raises(TypeError, match="bincount\\(\\): argument 'x' must be an int32 or int64"):
        oar.bincount(oar.to_tensor([1.0]))
    with pytest.raises(ValueError, match="bincount\\(\\): argument 'x' must be 1-D"):
        oar.bincount(oar.to_tensor([[1]]))
    with pytest.raises(ValueError, match="bincount\\(\\): argument 'weights' of shape \\[3\\]"):
        oar.bincount(oar.to_tensor([1, 2]), weights=oar.ones([3]))
    with pytest.raises(ValueError, match="bincount\\(\\): argument 'minlength' \\(-1\\)"):
        oar.bincount(oar.to_tensor([1, 2]), minlength=-1)
    with pytest.raises(ValueError, match="histogram\\(\\): argument 'bins' \\(0\\) must be >= 1"):
        oar.histogram(x, bins=0)
    with pytest.raises(ValueError, match="histogram\\(\\): arguments 'min' \\(2\\) and 'max' \\(1\\)"):
        oar.histogram(x, min=2, max=1)
    with pytest.raises(IndexError, match="along_axis_gather\\(\\): index 3 in argument 'index'"):
        oar._C.along_axis_gather(x, oar.to_tensor([[3, 0, 0]]), 0)
    with pytest.raises(ValueError, match="along_axis_gather\\(\\): argument 'index' of shape"):
        oar._C.along_axis_gather(x, oar.to_tensor([[0, 0]]), 0)


def test_statistics_and_scan_errors():
    x = oar.ones([2, 3])
    with pytest.raises(IndexError, match="var\\(\\): argument 'axis' \\(2\\) is out of range"):
        oar.var(x, axis=2)
    with pytest.raises(IndexError, match="prod\\(\\): argument 'axis' \\(-3\\)"):
        oar.prod(x, axis=-3)
    with pytest.raises(ValueError, match="amax\\(\\): cannot take the amax of an empty"):
        oar.amax(oar.zeros([0, 2]))
    with pytest.raises(ValueError, match="p_norm\\(\\): argument 'p' must not be NaN"):
        oar.norm(x, p=math.nan)
    with pytest.raises(ValueError, match="cumsum\\(\\): argument 'axis' must be one int or None"):
        oar.cumsum(x, axis=[0, 1])
    with pytest.raises(IndexError, match="cumprod\\(\\): argument 'axis' \\(3\\)"):
        oar.cumprod(x, dim=3)
    with pytest.raises(TypeError, match="cummax\\(\\): argument 'dtype' must be int32 or int64"):
        oar.cummax(x, dtype="float32")
    with pytest.raises(IndexError, match="cummin\\(\\): argument 'axis' \\(2\\)"):
        oar.cummin(x, axis=2)


# ---- dtypes and methods of the declared ops ------------------------------------------------
def test_declared_methods():
    a = distinct([3, 4])
    x = oar.to_tensor(a)
    t = torch.tensor(a)
    close(x.prod(axis=1), t.prod(1))
    close(x.logsumexp(axis=0), t.logsumexp(0))
    close(x.var(axis=1, unbiased=False), t.var(1, unbiased=False))
    close(x.std(), t.std())
    close(x.amax(axis=[0, 1]), t.amax((0, 1)))
    close(x.amin(axis=0, keepdim=True), t.amin(0, keepdim=True))
    close(x.argmax(), t.argmax())
    close(x.argmin(axis=1), t.argmin(1))
    close(x.argsort(axis=0), t.argsort(0))
    close(x.cumsum(), t.reshape(-1).cumsum(0))
    close(x.cumprod(dim=1), t.cumprod(1))
    close(x.count_nonzero(axis=1), t.count_nonzero(1))
    assert oar.logsumexp(oar.to_tensor([1, 2])).dtype == oar.float32  # integers compute in float32
    assert oar.cumsum(oar.to_tensor([True, True])).numpy().tolist() == [1, 2]
    assert oar.cumsum(oar.to_tensor([1, 2], dtype="int32"), dtype="float64").dtype == oar.float64
    assert oar.prod(oar.to_tensor([True, False])).dtype == oar.int64


def test_logsumexp_extremes():
    x = oar.to_tensor([[-math.inf, -math.inf], [math.inf, 1.0], [1000.0, 1000.0]])
    out = oar.logsumexp(x, axis=1).numpy()
    assert out[0] == -math.inf and out[1] == math.inf
    np.testing.assert_allclose(out[2], 1000.0 + math.log(2.0))


def test_var_large_mean_float32():
    a = np.random.default_rng(9).uniform(1000.0, 1001.0, 1000)
    got = oar.var(oar.to_tensor(a.astype(np.float32))).item()
    np.testing.assert_allclose(got, np.var(a.astype(np.float32).astype(np.float64), ddof=1),
                               rtol=1e-6)


def test_p_norm_no_overflow():
    x = oar.to_tensor([1e200, 1e200, 1e-200], dtype="float64")
    np.testing.assert_allclose(oar.norm(x).item(), math.sqrt(2) * 1e200)
    np.testing.assert_allclose(oar.norm(oar.to_tensor([3e-200, 4e-200], dtype="float64")).item(),
                               5e-200)


# ---- zeros in prod / cumprod, ties in amax / amin -------------------------------------------
def third_order(f, x, g, v, w, grad):
    (d1,) = grad([f(x)], [x], [g])
    (d2,) = grad([(d1 * v).sum()], [x])
    (d3,) = grad([(d2 * w).sum()], [x])
    return d3


def explicit_prod(t, axis):
    """The product as repeated multiplication: torch differentiates it exactly at zeros."""
    out = t.select(axis, 0)
    for k in range(1, t.shape[axis]):
        out = out * t.select(axis, k)
    return out


def explicit_cumprod(t, axis):
    outs = [t.select(axis, 0)]
    for k in range(1, t.shape[axis]):
        outs.append(outs[-1] * t.select(axis, k))
    return torch.stack(outs, axis)


ZERO_CASES = [
    ([[0.5, 0.0, -1.5, 2.0], [0.7, 0.0, 1.2, 0.0], [0.0, 0.0, 0.0, 1.5], [0.0, 0.0, 0.0, 0.0]], 1),
    ([[0.0, 0.5], [0.0, 1.5], [-1.2, 0.0]], 0),
    ([[1.5, 0.0, 2.0, 0.0, -1.0, 0.0]], 1),
]


@pytest.mark.parametrize("values,axis", ZERO_CASES)
@pytest.mark.parametrize("fn", ["prod", "cumprod"])
def test_zeros_gradients_of_orders_1_to_3(fn, values, axis):
    a = np.array(values)
    rng = np.random.default_rng(21)
    ox, tx = pair(a)
    if fn == "prod":
        of, tf = (lambda x: oar.prod(x, axis=axis)), (lambda t: explicit_prod(t, axis))
    else:
        of, tf = (lambda x: oar.cumprod(x, dim=axis)), (lambda t: explicit_cumprod(t, axis))
    t_out = tf(tx)
    close(of(ox), t_out)
    check_grads(of(ox), t_out, ox, tx)
    g = rng.standard_normal(t_out.shape)
    v, w = rng.standard_normal(a.shape), rng.standard_normal(a.shape)
    o3 = third_order(of, ox, oar.to_tensor(g), oar.to_tensor(v), oar.to_tensor(w),
                     lambda o, i, gs=None: oar.grad(o, i, gs, create_graph=True))
    t3 = third_order(tf, tx, torch.tensor(g), torch.tensor(v), torch.tensor(w),
                     lambda o, i, gs=None: torch.autograd.grad(o, i, gs, create_graph=True))
    close(o3, t3, rtol=1e-10, atol=1e-12)
    # and against torch's own prod/cumprod (gradients of orders 1 and 2)
    check_grads(of(ox), torch.prod(tx, axis) if fn == "prod" else torch.cumprod(tx, axis), ox, tx)


@pytest.mark.parametrize("fn", ["amax", "amin"])
def test_ties_share_the_gradient(fn):
    a = np.array([[1.0, 3.0, 3.0], [-2.0, -2.0, -5.0], [4.0, 4.0, 4.0]])
    ox, tx = pair(a)
    out = getattr(oar, fn)(ox, axis=1)
    ref = getattr(torch, fn)(tx, dim=1)
    close(out, ref)
    check_grads(out, ref, ox, tx)
    out = getattr(oar, fn)(ox)
    ref = getattr(torch, fn)(tx, dim=(0, 1))
    check_grads(out, ref, ox, tx)


def test_var_std_of_empty_groups_are_nan():
    x = oar.zeros([2, 0])
    assert np.isnan(oar.var(x, axis=1).numpy()).all() and oar.var(x, axis=1).shape == [2]
    assert np.isnan(oar.std(x, unbiased=False).item())
    assert oar.var(x, axis=0).shape == [0]


def test_prod_cumprod_gradients_with_a_result_dtype():
    a = np.array([[2.7, 2.5, 0.18], [-0.02, 1.3, 0.7]])
    for fn, tfn in [(lambda x: oar.prod(x, axis=1, dtype="float32"),
                     lambda t: torch.prod(t, 1, dtype=torch.float32)),
                    (lambda x: oar.cumprod(x, dim=1, dtype="float32"),
                     lambda t: torch.cumprod(t, 1, dtype=torch.float32))]:
        ox, tx = pair(a)
        (og,) = oar.grad([fn(ox).sum()], [ox])
        (tg,) = torch.autograd.grad(tfn(tx).sum(), tx)
        assert og.dtype == oar.float64
        close(og, tg, rtol=1e-6)  # through the cast, as torch: float32 products of the rounded x


# ---- integer and bool statistics, as Paddle 3.3.1 ------------------------------------------
# Every expected value below was measured on Paddle 3.3.1 (CPU).
def _i(v, dtype="int64"):
    return oar.to_tensor(v, dtype=dtype)


INT_STATS = [
    # mean: x's dtype, the float32 mean truncated toward zero
    (lambda: oar.mean(_i([1, 2, 4], "int32")), "int32", 2),
    (lambda: oar.mean(_i([1, 2])), "int64", 1),
    (lambda: oar.mean(_i([-1, -2], "int32")), "int32", -1),
    (lambda: oar.mean(_i([-1, -2, -2], "int32")), "int32", -1),
    (lambda: oar.mean(_i([[1, 2], [4, 7]]), axis=0), "int64", [2, 4]),
    (lambda: oar.mean(_i([[1, 2], [3, 6]], "int32"), axis=1, keepdim=True), "int32", [[1], [4]]),
    (lambda: oar.mean(_i([[1, 2], [3, 6]], "int32"), axis=[]), "int32", 3),
    (lambda: _i([1, 2]).mean(), "int64", 1),
    (lambda: oar.mean(_i([2**62, 2**62])), "int64", 2**62),  # no int64 overflow
    (lambda: oar.mean(_i([2**30] * 3, "int32")), "int32", 2**30),
    (lambda: oar.mean(_i([2**24 + 1] * 2, "int32")), "int32", 2**24),  # float32's rounding
    (lambda: oar.mean(_i([2**62, 2**62, 3])), "int64", 3074457437244227584),
    (lambda: oar.mean(_i(np.zeros([0], np.int64))), "int64", -(2**63)),  # NaN cast
    (lambda: oar.mean(_i([1, 2], "int32"), dtype="float32"), "float32", 1.5),
    (lambda: oar.mean(_i([1, 2], "int32"), dtype="int64"), "int64", 1),
    (lambda: oar.mean(_i([True, False, False], "bool")), "bool", True),
    (lambda: oar.mean(_i([False, False], "bool")), "bool", False),
    (lambda: oar.mean(_i([[True, False], [False, False]], "bool"), axis=0), "bool", [True, False]),
    # var: Paddle's formula in integers (truncated mean, truncated quotient)
    (lambda: oar.var(_i([1, 2, 4], "int32")), "int32", 2),
    (lambda: oar.var(_i([1, 4], "int32")), "int32", 5),
    (lambda: oar.var(_i([-1, -4, 2])), "int64", 9),
    (lambda: oar.var(_i([1, 2, 4]), unbiased=False), "int64", 1),
    (lambda: oar.var(_i([[1, 2], [4, 7]]), axis=0), "int64", [5, 13]),
    (lambda: oar.var(_i([[1, 2, 4], [3, 3, 9]]), axis=1, keepdim=True), "int64", [[2], [12]]),
    (lambda: oar.var(_i([5])), "int64", -(2**63)),  # 0 / 0
    (lambda: oar.var(_i(5)), "int64", -(2**63)),
    (lambda: oar.var(_i(np.zeros([0], np.int64))), "int64", -(2**63)),
    (lambda: oar.var(_i([0, 2**27 + 1])), "int64", 2**53),  # float32's quotient
    (lambda: oar.var(_i([0, 50000], "int32")), "int32", 1250000000),
    (lambda: _i([1, 4], "int32").var(), "int32", 5),
    # std: float32, the square root of var's integer result
    (lambda: oar.std(_i([1, 2, 4], "int32")), "float32", 1.4142135381698608),
    (lambda: oar.std(_i([1, 4])), "float32", 2.2360680103302),
    (lambda: oar.std(_i([1, 2, 4]), unbiased=False), "float32", 1.0),
    (lambda: _i([1, 4], "int32").std(), "float32", 2.2360680103302),
    # nanmedian: x's dtype, the middle pair's sum halved toward zero
    (lambda: oar.nanmedian(_i([1, 2, 4], "int32")), "int32", 2),
    (lambda: oar.nanmedian(_i([1, 2, 4, 8])), "int64", 3),
    (lambda: oar.nanmedian(_i([1, 2], "int32")), "int32", 1),
    (lambda: oar.nanmedian(_i([-1, -2], "int32")), "int32", -1),
    (lambda: oar.nanmedian(_i([1, 2]), mode="min"), "int64", 1),
    (lambda: oar.nanmedian(_i([[1, 2, 4, 8]]), axis=1), "int64", [3]),
    (lambda: oar.nanmedian(_i([[1, 2], [3, 6]]), axis=1), "int64", [1, 4]),
    (lambda: oar.nanmedian(_i([[1, 2], [3, 6]], "int32"), axis=0, keepdim=True), "int32",
     [[2, 4]]),
    (lambda: oar.nanmedian(_i([2**62 + 1, 2**62 + 3])), "int64", -4611686018427387902),
    # median stays float32 (Paddle documents it)
    (lambda: oar.median(_i([1, 2, 4, 8])), "float32", 3.0),
    (lambda: oar.median(_i([1, 2, 4, 8]), mode="min"), "int64", 2),
]


@pytest.mark.parametrize("k", range(len(INT_STATS)))
def test_integer_statistics_as_paddle(k):
    fn, dtype, value = INT_STATS[k]
    out = fn()
    assert out.dtype.name == dtype
    if dtype == "float32":
        np.testing.assert_allclose(out.numpy(), value, rtol=1e-6)
    else:
        assert out.tolist() == value


def test_nanmedian_min_of_integers_returns_positions_as_paddle():
    v, idx = oar.nanmedian(_i([[1, 2], [3, 6]]), axis=1, mode="min")
    assert v.dtype == oar.int64 and v.tolist() == [1, 3]
    assert idx.tolist() == [0, 0]


@pytest.mark.parametrize(
    "call",
    [
        lambda: oar.mean(_i([1, 2], "uint8")),
        lambda: oar.mean(_i([1, 2], "int16")),
        lambda: oar.var(_i([True, False], "bool")),
        lambda: oar.var(_i([1, 2], "uint8")),
        lambda: oar.var(_i([1, 2], "int16")),
        lambda: oar.std(_i([True, False], "bool")),
        lambda: oar.std(_i([1, 2], "int8")),
        lambda: oar.nanmedian(_i([True, False], "bool")),
        lambda: oar.nanmedian(_i([1, 2], "uint8")),
    ],
)
def test_integer_statistics_without_a_paddle_kernel_raise(call):
    """Paddle 3.3.1 raises (no kernel registered) for these dtypes."""
    with pytest.raises(TypeError):
        call()
