"""Counts far past memory reaching the Python-level ops (python/oar/tensor/manipulation.py,
math.py and the Binomial, Poisson and LKJCholesky distributions):
a dimension of 2**62 next to a 0, a huge n, p, r or section count, an infinite parameter.
Each must give the right empty result at once, or a typed error naming the function and
the argument, instead of a Python loop over the count, a numpy error or an OverflowError.
Small cases of the same paths are compared with PyTorch."""
import math

import numpy as np
import pytest
import torch

import oar
from oar.distribution import Binomial, LKJCholesky, Poisson

G = 2 ** 62


def test_unbind_unstack_refuse_slices_past_memory():
    # used to hang: one slice object per row of a [2**62, 0] tensor
    x = oar.zeros([G, 0])
    with pytest.raises(MemoryError, match=r"unbind\(\): 4611686018427387904 slices"):
        oar.unbind(x)
    with pytest.raises(MemoryError, match=r"unbind\(\)"):
        x.unbind()
    with pytest.raises(MemoryError, match=r"unstack\(\)"):
        oar.unstack(x)
    with pytest.raises(ValueError, match=r"unbind\(\): argument 'input'"):
        oar.unbind(oar.to_tensor(1.0))
    got = oar.unbind(oar.zeros([3, 0]))
    want = torch.unbind(torch.zeros(3, 0))
    assert [list(t.shape) for t in got] == [list(t.shape) for t in want]


def test_diff_of_empty_x_is_immediate():
    # used to hang: looped min(n, 2**62) times slicing an empty tensor
    out = oar.diff(oar.zeros([G, 0]), n=10 ** 12, axis=0)
    assert list(out.shape) == [G - 10 ** 12, 0]
    assert list(oar.diff(oar.zeros([G, 0]), n=G + 5, axis=0).shape) == [0, 0]
    for n in (0, 2, 7):
        want = torch.diff(torch.zeros(5, 0), n=n, dim=0) if n else torch.zeros(5, 0)
        got = oar.diff(oar.zeros([5, 0]), n=n, axis=0)
        assert list(got.shape) == list(want.shape)
    assert oar.diff(oar.zeros([3, 0], dtype="bool"), axis=0).dtype == oar.bool


def test_vander_empty_and_huge_n():
    # used to hang: looped n - 1 = 10**12 times multiplying columns
    assert list(oar.vander(oar.zeros([0]), 10 ** 12).shape) == [0, 10 ** 12]
    assert list(oar.vander(oar.zeros([0]), 4).shape) == list(torch.vander(torch.zeros(0), 4).shape)
    with pytest.raises(MemoryError, match=r"vander\(\): argument 'n' \(1000000000000\)"):
        oar.vander(oar.ones([1]), 10 ** 12)
    x = np.array([1.5, -2.0, 3.0])
    np.testing.assert_allclose(oar.vander(oar.to_tensor(x), 4).numpy(),
                               torch.vander(torch.tensor(x), 4).numpy())


def test_multigammaln_empty_huge_p_and_values():
    # used to hang: looped p = 10**12 times over lgamma
    out = oar.multigammaln(oar.zeros([0]), 10 ** 12)
    assert list(out.shape) == [0]
    with pytest.raises(MemoryError, match=r"multigammaln\(\): argument 'p'"):
        oar.multigammaln(oar.full([1], 1e12, dtype="float64"), 10 ** 12)
    x = np.array([[2600.5, 3000.0], [4000.25, 2700.0]])
    for p in (1, 3, 5000):
        got = oar.multigammaln(oar.to_tensor(x), p).numpy()
        want = torch.mvlgamma(torch.tensor(x), p).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12)
    xt = oar.to_tensor(x, stop_gradient=False)
    oar.multigammaln(xt, 4).sum().backward()
    tt = torch.tensor(x, requires_grad=True)
    torch.mvlgamma(tt, 4).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), tt.grad.numpy(), rtol=1e-12)


def test_combinations_counted_before_enumerating():
    # used to build 4.5e9 Python tuples (and a bare MemoryError() for a huge r)
    with pytest.raises(MemoryError, match=r"combinations\(\): 4495501000 combinations"):
        oar.combinations(oar.arange(3000), 3)
    with pytest.raises(MemoryError, match=r"combinations\(\): \d+ combinations of "
                                          r"1000000000000"):
        oar.combinations(oar.arange(3), 10 ** 12, with_replacement=True)
    x = oar.arange(5)
    for r in (1, 2, 3, 6):
        for rep in (False, True):
            got = oar.combinations(x, r, with_replacement=rep)
            want = torch.combinations(torch.arange(5), r, with_replacement=rep)
            assert list(got.shape) == list(want.shape)
            assert got.tolist() == want.tolist()


@pytest.mark.parametrize("api, shape", [("tensor_split", [4]), ("hsplit", [4]),
                                        ("vsplit", [4, 2]), ("dsplit", [2, 2, 4])])
def test_tensor_split_refuses_sections_past_memory(api, shape):
    # used to raise a bare MemoryError() building 2**40 sizes
    with pytest.raises(MemoryError, match=rf"{api}\(\): 1099511627776 sections"):
        getattr(oar, api)(oar.zeros(shape), 2 ** 40)
    got = oar.tensor_split(oar.zeros([4]), 6)
    want = torch.tensor_split(torch.zeros(4), 6)
    assert [list(t.shape) for t in got] == [list(t.shape) for t in want]


def test_diagonal_scatter_with_empty_y_copies_x():
    # used to call np.arange(2**31) for a diagonal with nothing to write
    x = oar.zeros([2 ** 31, 2 ** 31, 0])
    out = oar.diagonal_scatter(x, oar.zeros([0, 2 ** 31]))
    assert list(out.shape) == [2 ** 31, 2 ** 31, 0]
    want = torch.diagonal_scatter(torch.zeros(3, 3, 0), torch.zeros(0, 3))
    assert list(oar.diagonal_scatter(oar.zeros([3, 3, 0]), oar.zeros([0, 3])).shape) == \
        list(want.shape)


def test_index_fill_and_unique_consecutive_on_empty():
    # used to allocate numpy masks / change flags of 2**62 entries
    out = oar.index_fill(oar.zeros([G, 0]), oar.to_tensor([1, 3]), 0, 2.0)
    assert list(out.shape) == [G, 0]
    want = torch.index_fill(torch.zeros(5, 0), 0, torch.tensor([1, 3]), 2.0)
    got = oar.index_fill(oar.zeros([5, 0]), oar.to_tensor([1, 3]), 0, 2.0)
    assert list(got.shape) == list(want.shape)
    with pytest.raises(IndexError, match=r"index_fill\(\)"):
        oar.index_fill(oar.zeros([5, 0]), oar.to_tensor([5]), 0, 2.0)

    # torch refuses an unselected 0-size dimension; oar keeps one run of equal empty slices,
    # as its small case [5, 0] always did
    out, counts = oar.unique_consecutive(oar.zeros([G, 0]), return_counts=True, axis=0)
    assert list(out.shape) == [1, 0] and counts.tolist() == [G]
    small = oar.unique_consecutive(oar.zeros([5, 0]), True, True, axis=0)
    assert list(small[0].shape) == [1, 0]
    assert small[1].tolist() == [0] * 5 and small[2].tolist() == [5]
    with pytest.raises(MemoryError, match=r"unique_consecutive\(\): the inverse"):
        oar.unique_consecutive(oar.zeros([G, 0]), return_inverse=True, axis=0)
    with pytest.raises(ValueError, match=r"unique_consecutive\(\): .* 'dtype' int32"):
        oar.unique_consecutive(oar.zeros([G, 0]), return_counts=True, axis=0, dtype="int32")


@pytest.mark.parametrize("reduce", ["amax", "amin", "mean", "mul"])
def test_put_along_axis_reduce_on_empty_arr(reduce):
    # used to leak numpy's "array is too big" from the indices and np.indices
    arr = oar.zeros([0, G])
    out = oar.put_along_axis(arr, oar.zeros([0, G], dtype="int64"), 1.0, 0, reduce)
    assert list(out.shape) == [0, G]
    tr = {"mul": "prod", "amax": "amax", "amin": "amin", "mean": "mean"}[reduce]
    want = torch.zeros(0, 3).scatter_reduce(0, torch.zeros(0, 3, dtype=torch.int64),
                                            torch.ones(0, 3), tr)
    got = oar.put_along_axis(oar.zeros([0, 3]), oar.zeros([0, 3], dtype="int64"), 1.0, 0,
                             reduce)
    assert list(got.shape) == list(want.shape)


def test_repeat_interleave_total_past_int64():
    # used to leak numpy's "negative dimensions are not allowed"
    with pytest.raises(ValueError, match=r"repeat_interleave\(\): argument 'repeats' adds up"):
        oar.repeat_interleave(oar.zeros([2, 0]), oar.to_tensor([G, G]), axis=0)
    out = oar.repeat_interleave(oar.zeros([2, 0]), oar.to_tensor([G, 5]), axis=0)
    assert list(out.shape) == [G + 5, 0]
    with pytest.raises(MemoryError, match=r"repeat_interleave\(\): argument 'repeats'"):
        oar.repeat_interleave(oar.zeros([2, 3]), oar.to_tensor([G, 5]), axis=0)
    x = np.arange(6.0).reshape(2, 3)
    got = oar.repeat_interleave(oar.to_tensor(x), oar.to_tensor([2, 1]), axis=0)
    want = torch.repeat_interleave(torch.tensor(x), torch.tensor([2, 1]), dim=0)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_range_and_logspace_refuse_counts_past_memory():
    # used to leak numpy's "array is too big"
    with pytest.raises(MemoryError, match=r"range\(\): the 4611686018427387905 values .*'end'"):
        oar.range(0, G)
    with pytest.raises(MemoryError, match=r"logspace\(\): argument 'num'"):
        oar.logspace(0, 1, G)
    np.testing.assert_allclose(oar.range(0, 4, 1.5, dtype="float64").numpy(),
                               np.arange(0, 4.5, 1.5))
    np.testing.assert_allclose(oar.logspace(0, 2, 5, dtype="float64").numpy(),
                               torch.logspace(0, 2, 5, dtype=torch.float64).numpy())


def test_lkj_cholesky_cvine_dim_past_memory_and_offsets():
    # used to hang building a Python list of dim(dim-1)/2 floats
    with pytest.raises(MemoryError, match=r"LKJCholesky: argument 'dim' \(1000000\)"):
        LKJCholesky(10 ** 6, 1.0, "cvine")
    d = LKJCholesky(5, 2.0, "cvine")
    rows = [0.5 * j for i in range(4) for j in range(i + 1)]
    marginal = 2.0 + 0.5 * (5 - 2)
    np.testing.assert_allclose(d._beta.alpha.numpy(),
                               [marginal - r for r in rows], rtol=1e-6)
    L = d.sample([3]).numpy()
    np.testing.assert_allclose(np.einsum("bij,bkj->bik", L, L).diagonal(0, 1, 2), 1.0,
                               rtol=1e-5)


@pytest.mark.parametrize("make, name", [(lambda: Binomial(math.inf, 0.5), "total_count"),
                                        (lambda: Binomial([3.0, math.inf], 0.5), "total_count"),
                                        (lambda: Poisson(math.inf), "rate"),
                                        (lambda: Poisson([1.0, math.inf]), "rate")])
def test_binomial_poisson_reject_infinite_parameters(make, name):
    # used to raise OverflowError from sample() / entropy() counting up to inf
    with pytest.raises(ValueError, match=rf"(Binomial|Poisson): argument '{name}' must be "
                                         rf"finite"):
        make()
    b = Binomial(4.0, 0.3)
    want = torch.distributions.Binomial(4, torch.tensor(0.3)).entropy()
    np.testing.assert_allclose(float(b.entropy()), float(want), rtol=1e-5)


def test_empty_index_tensor_with_a_huge_dim():
    # used to leak numpy's "array is too big": an index of shape [0, 2**62] was read
    # through numpy before anything looked at its size
    x = oar.zeros([4])
    idx = oar.zeros([0, G], dtype="int64")
    assert list(x[idx].shape) == [0, G]
    assert list(oar.zeros([2, 3])[idx, oar.to_tensor([1])].shape) == [0, G]
    for mode in ("raise", "wrap", "clip"):
        assert list(oar.take(x, idx, mode=mode).shape) == [0, G]
    assert list(oar.take(oar.zeros([0, 3]), idx).shape) == [0, G]
    x[idx] = 5.0  # nothing to write
    assert x.tolist() == [0.0] * 4
    with pytest.raises(ValueError, match=r"__setitem__\(\): argument 'value' of shape \[3\]"):
        x[idx] = oar.ones([3])
    with pytest.raises(IndexError, match=r"__getitem__\(\): shape mismatch"):
        oar.zeros([2, 3])[idx, oar.to_tensor([0, 1])]
    with pytest.raises(IndexError, match=r"__getitem__\(\): .* multiply past 2\^63"):
        oar.zeros([2, 3])[oar.zeros([G, 1, 0], dtype="int64"), oar.zeros([1, G, 0], dtype="int64")]
    # huge values (not dims) name the index and the dim size, as torch
    with pytest.raises(IndexError, match=r"index 4611686018427387904 is out of bounds for "
                                         r"axis 0 with size 4"):
        x[oar.to_tensor([0, G])]
    with pytest.raises(IndexError, match=r"take\(\): index 4611686018427387904 is out of range "
                                         r"for a tensor of 4 elements"):
        oar.take(x, oar.to_tensor([0, G]))
    # index arrays whose broadcast cannot fit are refused before numpy builds it
    rows, cols = oar.zeros([300000, 1], dtype="int64"), oar.zeros([1, 300000], dtype="int64")
    with pytest.raises(MemoryError, match=r"__getitem__\(\): the index arrays broadcast to "
                                          r"shape \[300000, 300000\]"):
        oar.zeros([4, 4])[rows, cols]
    with pytest.raises(MemoryError, match=r"__setitem__\(\): the index arrays broadcast"):
        oar.zeros([4, 4])[rows, cols] = 1.0
    # small cases against torch, gradient included
    a = np.arange(12.0).reshape(3, 4)
    i, j = np.array([[0, 2], [1, 1]]), np.array([3, -1])
    np.testing.assert_array_equal(oar.to_tensor(a)[oar.to_tensor(i), oar.to_tensor(j)].numpy(),
                                  torch.tensor(a)[torch.tensor(i), torch.tensor(j)].numpy())
    e = np.zeros([0, 5], np.int64)
    assert list(oar.to_tensor(a)[oar.to_tensor(e)].shape) == \
        list(torch.tensor(a)[torch.tensor(e)].shape)
    assert list(oar.take(oar.to_tensor(a), oar.to_tensor(e)).shape) == \
        list(torch.take(torch.tensor(a), torch.tensor(e)).shape)
    xt = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    (xt[oar.zeros([0, 5], dtype="int64")].sum() + xt.sum()).backward()
    assert xt.grad.tolist() == [1.0, 1.0, 1.0]


def test_binomial_huge_total_count_samples_without_per_trial_work():
    # used to draw total_count Bernoulli trials per sample: 1e18 ran out of memory in
    # bernoulli(); oar.binomial alone hung at 2**62 (test_fuzz_regressions_ops.py)
    oar.seed(7)
    torch.manual_seed(7)
    for n, p in ((1e18, 0.3), (float(G), 0.5), (1e30, 0.25), (1e18, 1e-12)):
        d = Binomial(oar.to_tensor(n, dtype="float64"), oar.to_tensor(p, dtype="float64"))
        s = d.sample([4000]).numpy()
        assert s.shape == (4000,) and (s == np.floor(s)).all()
        assert (s >= 0).all() and (s <= n).all()
        sd = math.sqrt(n * p * (1 - p))
        # the mean within 6 standard errors (plus float64 rounding of values near n p)
        assert abs(s.mean() - n * p) < 6 * sd / math.sqrt(len(s)) + 1e-12 * n * p
        if n < 2 ** 53 / 1e3:
            assert 0.8 < s.std() / sd < 1.2
    ends = Binomial(oar.to_tensor([1e18, 1e18, 0.0, 5.0], dtype="float64"),
                    oar.to_tensor([0.0, 1.0, 0.5, 1.0], dtype="float64")).sample([3]).numpy()
    np.testing.assert_array_equal(ends, [[0.0, 1e18, 0.0, 5.0]] * 3)
    s = Binomial(1e18, 0.3).sample([2])
    assert s.dtype == oar.float32 and list(s.shape) == [2]
    # a count crossing the split point: the same law as torch's sampler, by moments
    n, p = 3.0 * 2 ** 40, 0.4
    s = Binomial(oar.to_tensor(n, dtype="float64"), oar.to_tensor(p, dtype="float64")) \
        .sample([20000]).numpy()
    t = torch.distributions.Binomial(torch.tensor(n, dtype=torch.float64),
                                     torch.tensor(p, dtype=torch.float64)).sample([20000]).numpy()
    sd = math.sqrt(n * p * (1 - p))
    assert abs(s.mean() - t.mean()) < 8 * sd / math.sqrt(20000)
    assert 0.95 < s.std() / t.std() < 1.05
    # entropy sums over every outcome: refused by size, naming total_count
    with pytest.raises(MemoryError, match=r"Binomial.entropy\(\): argument 'total_count'"):
        Binomial(1e18, 0.3).entropy()


def test_vander_without_a_loop_over_n(monkeypatch):
    # used to run one multiply (and hold one column tensor) per power: n = 10**6 took
    # seconds; now one running product, checked against memory first
    import oar.tensor.math as me

    def forbidden(*args):
        raise AssertionError("vander looped over n")
    monkeypatch.setattr(me, "builtins_range", forbidden)
    assert list(oar.vander(oar.ones([2]), 10 ** 6).shape) == [2, 10 ** 6]
    # (past the physical memory of any machine this runs on: the check reads MemAvailable)
    with pytest.raises(MemoryError, match=r"vander\(\): argument 'n' \(100000000000\)"):
        oar.vander(oar.ones([3]), 10 ** 11)
    x = np.array([1.5, -2.0, 0.0, 3.0, 0.7])
    for dt in ("float32", "float64", "int32", "int64", "int8", "complex128", "bool"):
        a = x.astype(dt) if dt != "bool" else x != 0
        if dt == "complex128":
            a = a + 1j * np.array([0.5, 1.0, -1.0, 0.0, 2.0])
        for n in (None, 0, 1, 2, 7):
            for inc in (False, True):
                got = oar.vander(oar.to_tensor(a), n, increasing=inc)
                want = np.vander(a, n, increasing=inc)
                assert got.dtype.name == str(a.dtype)
                if dt == "complex128":  # powers by doubling: rounding may differ
                    np.testing.assert_allclose(got.numpy(), want, rtol=1e-14)
                else:
                    np.testing.assert_array_equal(got.numpy(), want.astype(a.dtype))
    np.testing.assert_array_equal(oar.vander(oar.to_tensor(x), 6).numpy(),
                                  torch.vander(torch.tensor(x), 6).numpy())
    xt = oar.to_tensor(x, stop_gradient=False)
    w = np.arange(20.0).reshape(5, 4)
    (oar.vander(xt, 4, increasing=True) * oar.to_tensor(w)).sum().backward()
    want = [sum(w[i, k] * k * x[i] ** (k - 1) for k in range(1, 4)) for i in range(5)]
    np.testing.assert_allclose(xt.grad.numpy(), want, rtol=1e-12)


def test_unique_consecutive_int32_counts_checked_not_wrapped():
    # the run lengths and run numbers were cast to int32 without a look: a run past
    # 2**31 - 1 wrapped negative. They are counted in int64 and checked before the cast.
    from oar.tensor.manipulation import _unique_ints
    big = np.array([3, 2 ** 31], dtype=np.int64)
    with pytest.raises(ValueError, match=r"unique_consecutive\(\): the run of 2147483648 slices "
                                         r"cannot be counted in argument 'dtype' int32"):
        _unique_ints(big, oar.int32, counts=True)
    with pytest.raises(ValueError, match=r"unique_consecutive\(\): the run number 2147483648 "
                                         r"cannot be held in argument 'dtype' int32"):
        _unique_ints(big, oar.int32, counts=False)
    assert _unique_ints(big, oar.int64, counts=True).tolist() == [3, 2 ** 31]
    ok = _unique_ints(np.array([2 ** 31 - 1]), oar.int32, counts=True)
    assert ok.dtype == oar.int32 and ok.tolist() == [2 ** 31 - 1]
    a = [1, 1, 2, 2, 2, 3, 1, 1]
    want_out, want_inv, want_cnt = torch.unique_consecutive(torch.tensor(a), True, True)
    for dt in ("int32", "int64"):
        out, inv, cnt = oar.unique_consecutive(oar.to_tensor(a), True, True, dtype=dt)
        assert out.tolist() == want_out.tolist()
        assert inv.tolist() == want_inv.tolist() and cnt.tolist() == want_cnt.tolist()
        assert inv.dtype.name == dt and cnt.dtype.name == dt
