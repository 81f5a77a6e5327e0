"""Counts far past memory reaching the Python-level ops (python/oar/_manipulation.py,
_manip_extra.py, _math_extra.py and the Binomial, Poisson and LKJCholesky distributions):
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
