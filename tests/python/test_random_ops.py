"""The random ops of src/oar/ops/random.yaml (randperm, randint_like, bernoulli, poisson,
multinomial): statistical tests with fixed seeds (moments within a few standard errors,
chi-square goodness of fit at p = 1e-4, which a wrong sampler fails), reproducibility
under oar.seed, and the error paths. tril_indices/triu_indices (not random) are in the
op registry (tests/op_cases/random.yaml)."""
import math

import numpy as np
import pytest
from scipy import stats

import oar

P_MIN = 1e-4  # a correct sampler fails a test at this level once in 10,000 seeds


def chi2_pvalue(observed, expected):
    observed, expected = np.asarray(observed, float), np.asarray(expected, float)
    return stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue


def test_randperm_is_a_uniform_permutation():
    oar.seed(11)
    p = oar.randperm(10)
    assert p.dtype == oar.int64 and sorted(p.numpy().tolist()) == list(range(10))
    # where element 0 lands, over many draws: uniform over the 5 places
    draws = np.array([oar.randperm(5).numpy() for _ in range(3000)])
    assert all(sorted(d) == [0, 1, 2, 3, 4] for d in draws.tolist())
    places = np.argmax(draws == 0, axis=1)
    assert chi2_pvalue(np.bincount(places, minlength=5), np.ones(5)) > P_MIN
    # all 6 orders of 3 elements equally often
    orders = [tuple(oar.randperm(3).numpy()) for _ in range(3000)]
    counts = [orders.count(o) for o in sorted(set(orders))]
    assert len(counts) == 6 and chi2_pvalue(counts, np.ones(6)) > P_MIN
    assert oar.randperm(0).shape == [0]
    assert oar.randperm(4, dtype="float32").dtype == oar.float32
    assert oar.randperm(4, dtype="int32").dtype == oar.int32


def test_randint_like():
    oar.seed(12)
    x = oar.zeros([200, 50], dtype="float64")
    r = oar.randint_like(x, low=-3, high=5)
    assert r.dtype == oar.float64 and r.shape == [200, 50]
    a = r.numpy()
    assert np.all(a == np.round(a)) and a.min() >= -3 and a.max() <= 4
    assert chi2_pvalue(np.bincount((a + 3).astype(int).ravel(), minlength=8), np.ones(8)) > P_MIN
    b = oar.randint_like(x, 4, dtype="int32")  # high None: [0, low)
    assert b.dtype == oar.int32 and b.numpy().min() >= 0 and b.numpy().max() <= 3
    assert oar.randint_like(oar.zeros([0, 2]), 3).shape == [0, 2]


def test_bernoulli():
    oar.seed(13)
    p = np.linspace(0.0, 1.0, 11)
    x = oar.to_tensor(np.tile(p, (4000, 1)))
    out = oar.bernoulli(x)
    assert out.dtype == oar.float64 and out.shape == [4000, 11]
    a = out.numpy()
    assert set(np.unique(a)) <= {0.0, 1.0}
    assert np.all(a[:, 0] == 0) and np.all(a[:, -1] == 1)
    n = a.shape[0]
    # each column's mean within 5 standard errors of its probability
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(a.mean(axis=0) - p) <= 5 * se + 1e-12)
    # p= replaces every probability; the method
    q = oar.bernoulli(oar.zeros([20000], dtype="float32"), p=0.25).numpy()
    assert abs(q.mean() - 0.25) < 5 * math.sqrt(0.25 * 0.75 / q.size)
    assert oar.zeros([3]).bernoulli().numpy().tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("lam", [0.5, 4.0, 30.0])
def test_poisson(lam):
    oar.seed(14)
    n = 20000
    a = oar.poisson(oar.full([n], lam, dtype="float64")).numpy()
    assert np.all(a == np.round(a)) and a.min() >= 0
    assert abs(a.mean() - lam) < 5 * math.sqrt(lam / n)
    assert abs(a.var() / lam - 1) < 0.05
    # chi-square over the values with enough expected mass, the tail pooled
    ks = np.arange(int(lam + 6 * math.sqrt(lam)) + 1)
    pmf = stats.poisson.pmf(ks, lam)
    keep = pmf * n >= 5
    observed = [np.sum(a == k) for k in ks[keep]] + [np.sum(~np.isin(a, ks[keep]))]
    expected = list(pmf[keep] * n) + [n * (1 - pmf[keep].sum())]
    assert chi2_pvalue(observed, expected) > P_MIN


def test_poisson_zero_rate_and_dtype():
    out = oar.poisson(oar.to_tensor([[0.0, 2.0], [0.0, 1.0]]))
    assert out.dtype == oar.float32 and out.numpy()[:, 0].tolist() == [0.0, 0.0]


def test_multinomial_with_replacement():
    oar.seed(15)
    w = np.array([[1.0, 0.0, 3.0, 6.0], [5.0, 5.0, 0.0, 0.0]])
    out = oar.multinomial(oar.to_tensor(w), 20000, replacement=True)
    assert out.dtype == oar.int64 and out.shape == [2, 20000]
    for row, weights in zip(out.numpy(), w):
        counts = np.bincount(row, minlength=4)
        assert np.all(counts[weights == 0] == 0)
        nz = weights > 0
        assert chi2_pvalue(counts[nz], weights[nz]) > P_MIN


def test_multinomial_without_replacement():
    oar.seed(16)
    w = np.array([1.0, 2.0, 3.0, 4.0])
    draws = np.array([oar.multinomial(oar.to_tensor(w), 2).numpy() for _ in range(4000)])
    assert np.all(draws[:, 0] != draws[:, 1])
    # the first draw follows the weights; the pair (i, j) has probability
    # w_i / W * w_j / (W - w_i)
    assert chi2_pvalue(np.bincount(draws[:, 0], minlength=4), w) > P_MIN
    pairs = [(i, j) for i in range(4) for j in range(4) if i != j]
    expected = [w[i] / w.sum() * w[j] / (w.sum() - w[i]) for i, j in pairs]
    observed = [np.sum((draws[:, 0] == i) & (draws[:, 1] == j)) for i, j in pairs]
    assert chi2_pvalue(observed, expected) > P_MIN
    # all categories once: a permutation
    full = oar.multinomial(oar.to_tensor(w), 4).numpy()
    assert sorted(full.tolist()) == [0, 1, 2, 3]


DRAWS = {
    "randperm": lambda: oar.randperm(20),
    "randint_like": lambda: oar.randint_like(oar.zeros([20]), 0, 100),
    "bernoulli": lambda: oar.bernoulli(oar.full([20], 0.5)),
    "poisson": lambda: oar.poisson(oar.full([20], 3.0)),
    "multinomial": lambda: oar.multinomial(oar.ones([20]), 10),
}


@pytest.mark.parametrize("op", sorted(DRAWS))
def test_reproducible_under_seed(op):
    draw = DRAWS[op]
    oar.seed(2024)
    first = [draw().numpy(), draw().numpy()]
    assert not np.array_equal(first[0], first[1])  # the generator advances
    oar.seed(2024)
    np.testing.assert_array_equal(draw().numpy(), first[0])
    np.testing.assert_array_equal(draw().numpy(), first[1])


def test_randperm_refuses_an_n_whose_values_the_dtype_cannot_hold_as_in_torch():
    # torch: "value cannot be converted to type int8_t without overflow", "n cannot be greater
    # than 2049 for Half type"; before, int8 with n = 2**31 tried to allocate 16 GiB of int64 keys.
    for n, dtype in [(128, "int8"), (256, "uint8"), (2049, "float16"), (257, "bfloat16")]:
        p = oar.randperm(n, dtype=dtype).astype("float64").numpy()
        np.testing.assert_array_equal(np.sort(p), np.arange(n))
    for n, dtype, limit in [(129, "int8", 128), (2**31, "int8", 128), (257, "uint8", 256),
                            (2050, "float16", 2049), (2**31 + 1, "int32", 2**31),
                            (2**24 + 2, "float32", 2**24 + 1)]:
        with pytest.raises(ValueError, match=f"randperm\\(\\): argument 'n' \\({n}\\) is too "
                                             f"large for dtype {dtype}.* at most {limit}"):
            oar.randperm(n, dtype=dtype)


def test_random_errors():
    with pytest.raises(ValueError, match="randperm\\(\\): argument 'n' \\(-1\\) must be >= 0"):
        oar.randperm(-1)
    with pytest.raises(TypeError, match="randperm\\(\\): the kernel 'randperm' is not registered for bool"):
        oar.randperm(3, dtype="bool")
    with pytest.raises(ValueError, match="randint_like\\(\\): argument 'low' \\(3\\) must be less"):
        oar.randint_like(oar.zeros([2]), 3, 3)
    with pytest.raises(ValueError, match="bernoulli\\(\\): argument 'x' holds probabilities"):
        oar.bernoulli(oar.to_tensor([0.5, 1.5]))
    with pytest.raises(ValueError, match="bernoulli\\(\\): argument 'x' holds probabilities"):
        oar.bernoulli(oar.zeros([2]), p=-0.1)
    with pytest.raises(ValueError, match="poisson\\(\\): argument 'x' holds rates >= 0"):
        oar.poisson(oar.to_tensor([-1.0]))
    with pytest.raises(ValueError, match="multinomial\\(\\): argument 'num_samples' \\(5\\) must "
                                         "not exceed the number of categories \\(3\\)"):
        oar.multinomial(oar.ones([3]), 5)
    with pytest.raises(ValueError, match="multinomial\\(\\): argument 'num_samples' \\(2\\) "
                                         "exceeds the categories with non-zero weight \\(1\\)"):
        oar.multinomial(oar.to_tensor([0.0, 1.0, 0.0]), 2)
    with pytest.raises(ValueError, match="multinomial\\(\\): argument 'x' has a row of zero"):
        oar.multinomial(oar.zeros([3]), 1, replacement=True)
    with pytest.raises(ValueError, match="multinomial\\(\\): argument 'x' holds weights >= 0"):
        oar.multinomial(oar.to_tensor([1.0, -1.0]), 1)
    with pytest.raises(ValueError, match="multinomial\\(\\): argument 'x' must be 1-D or 2-D"):
        oar.multinomial(oar.ones([2, 2, 2]), 1)
    with pytest.raises(ValueError, match="tril_indices\\(\\): argument 'row' \\(-1\\) must be >= 0"):
        oar.tril_indices(-1, 3)
    with pytest.raises(TypeError, match="triu_indices\\(\\): the kernel 'triu_indices' is not registered for float32"):
        oar.triu_indices(3, dtype="float32")


def test_triu_indices_col_default():
    np.testing.assert_array_equal(oar.triu_indices(3).numpy(), np.array(np.triu_indices(3)))
    np.testing.assert_array_equal(oar.triu_indices(3, 4, 1).numpy(),
                                  np.array(np.triu_indices(3, 1, 4)))
    np.testing.assert_array_equal(oar.tril_indices(4, 3, -1).numpy(),
                                  np.array(np.tril_indices(4, -1, 3)))


def test_poisson_huge_rate():
    oar.seed(17)
    lam = 1e12
    a = oar.poisson(oar.full([4000], lam, dtype="float64")).numpy()
    assert np.all(a == np.round(a))
    assert abs(a.mean() - lam) < 5 * math.sqrt(lam / a.size)
    assert abs(a.std() / math.sqrt(lam) - 1) < 0.05


def test_huge_buffers_are_typed_errors():
    with pytest.raises(MemoryError, match="histogram\\(\\)"):
        oar.histogram(oar.ones([2]), bins=2 ** 61)
    with pytest.raises(MemoryError, match="bincount\\(\\)"):
        oar.bincount(oar.to_tensor([2 ** 61]))


def test_triangle_counts_in_closed_form():
    # 2**31 rows: counted without walking them; the empty grids come back at once
    assert oar.tril_indices(2 ** 31, 0).shape == [2, 0]
    assert oar.triu_indices(2 ** 31, 3, 5).shape == [2, 0]
    assert oar.tril_indices(3, 2 ** 40, -5).shape == [2, 0]
    with pytest.raises(ValueError, match="triu_indices\\(\\): the triangle of a .* too many"):
        oar.triu_indices(2 ** 40, 2 ** 40)
    for row, col, off in [(5, 3, 0), (3, 6, -2), (4, 4, 3), (6, 2, -7), (1, 1, 0)]:
        np.testing.assert_array_equal(oar.tril_indices(row, col, off).numpy(),
                                      np.array(np.tril_indices(row, off, col)))
        np.testing.assert_array_equal(oar.triu_indices(row, col, off).numpy(),
                                      np.array(np.triu_indices(row, off, col)))
