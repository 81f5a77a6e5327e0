"""The numeric, sampling and strided sections (src/oar/ops/{numeric,sampling,
strided}.yaml) beyond the registry's cases: the edges of each function's domain (the
registry's gradient-checked inputs are smooth), the wrappers' arguments (numbers, eps None,
axis None, side/sorter), dtype rules, binomial's statistics and every error path."""
import math

import numpy as np
import pytest
import torch

import oar

NAN, INF = float("nan"), float("inf")


def t(v, dtype="float64"):
    return oar.to_tensor(np.asarray(v, dtype=dtype))


def close(got, want, rtol=1e-12, atol=1e-12):
    want = want.numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=atol, equal_nan=True)


# ---- domain edges against torch -----------------------------------------------------------
def test_logaddexp_infinities_and_nan():
    a = [-INF, INF, INF, NAN, -INF, 800.0]
    b = [-INF, INF, -INF, 1.0, 2.0, -800.0]
    close(oar.logaddexp(t(a), t(b)), torch.logaddexp(torch.tensor(a), torch.tensor(b)))


def test_gammainc_edges_of_the_domain():
    a = [0.0, 0.0, 1.0, 1.0, -1.0, 2.0, INF, 2.0, 0.5, NAN, 1.0]
    x = [0.0, 1.0, 0.0, INF, 1.0, -1.0, 1.0, INF, 0.0, 1.0, NAN]
    ta, tx = torch.tensor(a, dtype=torch.float64), torch.tensor(x, dtype=torch.float64)
    close(oar.gammainc(t(a), t(x)), torch.special.gammainc(ta, tx), rtol=1e-10)
    close(oar.gammaincc(t(a), t(x)), torch.special.gammaincc(ta, tx), rtol=1e-10)
    # a large shape: torch is off by 1e-10 relative; SciPy (and mpmath) agree with oar
    from scipy import special
    big = oar.gammainc(t([300.0, 30.0]), t([310.0, 25.0])).numpy()
    np.testing.assert_allclose(big, special.gammainc([300.0, 30.0], [310.0, 25.0]), rtol=1e-12)


def test_gammainc_is_differentiable_in_y_only():
    a = t([0.5, 2.0, 4.0])
    y = oar.to_tensor(np.array([0.7, 1.5, 6.0]), stop_gradient=False)
    oar.gammainc(a, y).sum().backward()
    ty = torch.tensor([0.7, 1.5, 6.0], dtype=torch.float64, requires_grad=True)
    torch.special.gammainc(torch.tensor([0.5, 2.0, 4.0], dtype=torch.float64), ty).sum().backward()
    close(y.grad, ty.grad, rtol=1e-10)


def test_bessel_functions_at_zero_large_and_infinite():
    v = [0.0, -0.0, 1e-10, 700.0, -700.0, INF, -INF, NAN]
    for name in ("i0e", "i1e"):
        close(getattr(oar, name)(t(v)),
              getattr(torch.special, name)(torch.tensor(v, dtype=torch.float64)), rtol=1e-12)
    close(oar.i0(t(v[:5])), torch.special.i0(torch.tensor(v[:5], dtype=torch.float64)),
          rtol=1e-12)
    # the limits torch answers NaN for
    assert oar.i0(t([INF, -INF])).tolist() == [INF, INF]
    assert oar.i1(t([INF, -INF])).tolist() == [INF, -INF]


def test_i1_gradient_at_zero_is_one_half():
    for name in ("i1", "i1e"):
        x = oar.to_tensor(np.array([0.0, 1.5]), stop_gradient=False)
        getattr(oar, name)(x).sum().backward()
        tx = torch.tensor([0.0, 1.5], dtype=torch.float64, requires_grad=True)
        getattr(torch.special, name)(tx).sum().backward()
        close(x.grad, tx.grad, rtol=1e-12)
        assert x.grad.tolist()[0] == 0.5


def test_sinc_at_zero_and_its_gradient():
    x = oar.to_tensor(np.array([0.0, 1e-9, 2.5]), stop_gradient=False)
    y = oar.sinc(x)
    y.sum().backward()
    tx = torch.tensor([0.0, 1e-9, 2.5], dtype=torch.float64, requires_grad=True)
    torch.sinc(tx).sum().backward()
    close(y, torch.sinc(tx.detach()))
    close(x.grad, tx.grad, atol=1e-12)


def test_logit_without_eps_outside_the_unit_interval():
    v = [-0.5, 0.0, 1.0, 1.5, 0.25]
    close(oar.logit(t(v)), torch.logit(torch.tensor(v, dtype=torch.float64)))
    close(oar.logit(t(v), 0.3), torch.logit(torch.tensor(v, dtype=torch.float64), eps=0.3))
    x = oar.to_tensor(np.array([0.1, 0.5]), stop_gradient=False)
    oar.logit(x, eps=0.2).sum().backward()
    assert x.grad.tolist() == [0.0, 4.0]  # clipped: 0; 1 / (0.5 * 0.5)


def test_logcumsumexp_far_apart_and_axis_none():
    v = np.array([[-1000.0, 0.0], [800.0, -INF]])
    close(oar.logcumsumexp(t(v)), torch.logcumsumexp(torch.tensor(v).reshape(-1), 0))
    close(oar.logcumsumexp(t(v), axis=0), torch.logcumsumexp(torch.tensor(v), 0))
    assert oar.logcumsumexp(t(v), dtype="float32").dtype == oar.float32


def test_logcumsumexp_gradient_with_zero_and_negative_upstream():
    v = np.array([0.3, -2.0, 1.5, 0.7])
    g = np.array([1.0, 0.0, -2.0, 0.5])
    x = oar.to_tensor(v, stop_gradient=False)
    (oar.logcumsumexp(x, 0) * oar.to_tensor(g)).sum().backward()
    tx = torch.tensor(v, requires_grad=True)
    (torch.logcumsumexp(tx, 0) * torch.tensor(g)).sum().backward()
    close(x.grad, tx.grad, rtol=1e-10)


def test_copysign_numbers_signed_zeros_and_integers():
    x = t([1.0, 2.0, 3.0])
    assert oar.copysign(x, -0.0).tolist() == [-1.0, -2.0, -3.0]
    assert oar.copysign(x, t([0.0])).tolist() == [1.0, 2.0, 3.0]
    out = oar.copysign(oar.to_tensor([1, -2, 3]), oar.to_tensor([-1, 1, 0]))
    assert out.dtype == oar.int64 and out.tolist() == [-1, 2, 3]
    assert x.copysign(-1.0).tolist() == [-1.0, -2.0, -3.0]


def test_signbit_nextafter_frexp_ldexp():
    assert oar.signbit(t([-0.0, 0.0, -NAN, NAN, -1.0])).tolist() == [True, False, True, False,
                                                                    True]
    assert oar.signbit(oar.to_tensor([-5, 0, 3], dtype="int32")).tolist() == [True, False, False]
    v = np.array([1.0, 0.0, -1.0], dtype=np.float32)
    close(oar.nextafter(oar.to_tensor(v), oar.to_tensor(-v)), np.nextafter(v, -v), rtol=0)
    x = t([0.0, 3.0, -0.375, INF, 1e-310])
    m, e = oar.frexp(x)
    tm, te = torch.frexp(torch.tensor(x.numpy()))
    close(m, tm, rtol=0)
    close(e, te.double(), rtol=0)
    close(oar.ldexp(m, e.astype("int64")), x.numpy(), rtol=0)
    out = oar.ldexp(oar.to_tensor([1, 2]), oar.to_tensor([3, -1]))
    assert out.dtype == oar.float32 and out.tolist() == [8.0, 1.0]
    big = oar.ldexp(t([1.5, -1.5, 1.0]), oar.to_tensor([2000, 2000, -1100]))
    assert big.tolist() == [INF, -INF, 2.0 ** -1100]


def test_gcd_lcm_and_shifts_of_every_integer_width():
    for d in ("int8", "int16", "int32", "int64", "uint8"):
        a = np.array([12, 0, 20, 7, 100], dtype=d)
        b = np.array([18, 5, 12, 0, 3], dtype=d)
        assert oar.gcd(oar.to_tensor(a), oar.to_tensor(b)).numpy().tolist() == np.gcd(a, b).tolist()
        assert oar.lcm(oar.to_tensor(a[:3]), oar.to_tensor(b[:3])).numpy().tolist() == \
            np.lcm(a[:3], b[:3]).tolist()
    x = oar.to_tensor([-10, -20, -40, -80], dtype="int8")
    s = oar.to_tensor([1, 2, 3, 4], dtype="int8")
    assert oar.bitwise_right_shift(x, s).tolist() == [-5, -5, -5, -5]
    assert oar.bitwise_right_shift(x, s, is_arithmetic=False).tolist() == [123, 59, 27, 11]
    # shifts by the width or more (or negative): everything shifted out
    w = oar.to_tensor([-8, 8, -8], dtype="int32")
    amount = oar.to_tensor([40, 32, -1], dtype="int32")
    assert oar.bitwise_right_shift(w, amount).tolist() == [-1, 0, -1]
    assert oar.bitwise_right_shift(w, amount, False).tolist() == [0, 0, 0]
    assert oar.bitwise_left_shift(w, amount).tolist() == [0, 0, 0]


def test_hypot_and_logaddexp_integers_compute_in_float32():
    assert oar.hypot(oar.to_tensor([3]), oar.to_tensor([4])).dtype == oar.float32
    assert oar.logaddexp(oar.to_tensor([1, 2]), oar.to_tensor([1, 2])).dtype == oar.float32


# ---- searchsorted / bucketize ---------------------------------------------------------------
def test_searchsorted_matches_torch_with_rows_sides_and_sorter():
    seq = torch.tensor([[1, 3, 5, 7, 9, 11], [2, 4, 6, 8, 10, 12]], dtype=torch.int32)
    vals = torch.tensor([[3, 6, 9, 10], [3, 6, 9, 10]], dtype=torch.int32)
    s, v = oar.to_tensor(seq.numpy()), oar.to_tensor(vals.numpy())
    for right in (False, True):
        assert oar.searchsorted(s, v, right=right).tolist() == \
            torch.searchsorted(seq, vals, right=right).tolist()
    assert oar.searchsorted(s, v, side="right").tolist() == \
        torch.searchsorted(seq, vals, side="right").tolist()
    out = oar.searchsorted(oar.to_tensor([1, 3, 5, 7, 9, 11, 13]), v, out_int32=True)
    assert out.dtype == oar.int32
    unsorted = oar.to_tensor([5.0, 1.0, 3.0])
    order = oar.argsort(unsorted)
    assert oar.searchsorted(unsorted, t([2.0, 6.0]), sorter=order).tolist() == [1, 3]


def test_bucketize_and_the_method():
    seq = oar.to_tensor([2, 4, 8, 16], dtype="int32")
    x = oar.to_tensor([[0, 8, 4, 16], [-1, 2, 8, 4]], dtype="int32")
    assert oar.bucketize(x, seq).tolist() == [[0, 2, 1, 3], [0, 0, 2, 1]]
    assert x.bucketize(seq, right=True).tolist() == [[0, 3, 2, 4], [0, 1, 3, 2]]


# ---- binomial ---------------------------------------------------------------------------------
def test_binomial_statistics_edges_and_seed():
    oar.seed(11)
    n = oar.full([4000], 20.0)
    s = oar.binomial(n, oar.full([4000], 0.3))
    assert s.dtype == oar.int64
    a = s.numpy()
    assert a.min() >= 0 and a.max() <= 20
    assert abs(a.mean() - 6.0) < 0.15 and abs(a.var() - 4.2) < 0.4
    edge = oar.binomial(oar.to_tensor([0.0, 7.0, 7.0]), oar.to_tensor([0.5, 0.0, 1.0]))
    assert edge.tolist() == [0, 0, 7]
    oar.seed(3)
    first = oar.binomial(oar.to_tensor([10.0, 50.0]), oar.to_tensor([0.2, 0.6])).tolist()
    oar.seed(3)
    assert oar.binomial(oar.to_tensor([10.0, 50.0]), oar.to_tensor([0.2, 0.6])).tolist() == first


# ---- as_strided ------------------------------------------------------------------------------
def test_as_strided_views_memory_and_adds_overlapping_gradients():
    x = oar.arange(12, dtype="float64")
    v = oar.as_strided(x, [3, 4], [2, 1], 1)
    tv = torch.arange(12, dtype=torch.float64).as_strided([3, 4], [2, 1], 1)
    close(v, tv)
    x[1] = 100.0
    assert v.tolist()[0][0] == 100.0  # a view: shares x's memory
    xg = oar.to_tensor(np.arange(12.0), stop_gradient=False)
    oar.as_strided(xg, [3, 4], [2, 1], 1).sum().backward()
    tg = torch.arange(12.0, dtype=torch.float64, requires_grad=True)
    tg.as_strided([3, 4], [2, 1], 1).sum().backward()
    close(xg.grad, tg.grad)


def test_as_strided_of_a_non_contiguous_tensor_reads_its_elements_in_order():
    x = oar.arange(6, dtype="float32").reshape([2, 3]).t()
    assert oar.as_strided(x, [3], [1]).tolist() == [0.0, 3.0, 1.0]


# ---- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize("call, err, match", [
    (lambda: oar.as_strided(oar.ones([4]), [2, 2], [2, 1], 1), IndexError,
     "as_strided.*reaches element 4 but argument 'x' has 4"),
    (lambda: oar.as_strided(oar.ones([4]), [2], [-1]), ValueError, "'stride' must hold steps >= 0"),
    (lambda: oar.as_strided(oar.ones([4]), [2], [1, 1]), ValueError, "same length"),
    (lambda: oar.binomial(oar.to_tensor([1.5]), oar.to_tensor([0.5])), ValueError,
     "binomial.*'count' holds whole numbers"),
    (lambda: oar.binomial(oar.to_tensor([2.0]), oar.to_tensor([1.5])), ValueError,
     "binomial.*'prob' holds probabilities"),
    (lambda: oar.binomial(oar.to_tensor([2]), oar.to_tensor([1])), TypeError,
     "binomial.*not registered for int64"),
    (lambda: oar.searchsorted(oar.ones([2, 3]), oar.ones([3, 3])), ValueError,
     "searchsorted.*leading dimensions"),
    (lambda: oar.searchsorted(oar.to_tensor(1.0), oar.ones([3])), ValueError,
     "searchsorted.*at least 1 dimension"),
    (lambda: oar.searchsorted(oar.ones([3]), oar.ones([3]), side="middle"), ValueError,
     "'side' must be 'left' or 'right'"),
    (lambda: oar.logit(oar.ones([2]), eps=0.7), ValueError, "logit.*'eps' must be in"),
    (lambda: oar.ldexp(oar.ones([2]), oar.ones([2])), TypeError, "ldexp.*integer tensor"),
    (lambda: oar.frexp(oar.to_tensor([1, 2])), TypeError, "frexp.*floating tensor"),
    (lambda: oar.gcd(oar.ones([2]), oar.ones([2])), TypeError, "gcd.*not registered for float32"),
    (lambda: oar.nextafter(oar.to_tensor([1]), oar.to_tensor([2])), TypeError,
     "nextafter.*not registered for int64"),
    (lambda: oar.copysign(oar.ones([2]), "x"), TypeError, "copysign.*'y' must be a number"),
    (lambda: oar.bucketize(oar.ones([2]), oar.ones([2, 2])), ValueError,
     "bucketize.*'sorted_sequence' must be 1-D"),
])
def test_errors_are_typed_and_name_the_argument(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_math_helpers_keep_working_after_errors():
    with pytest.raises(IndexError):
        oar.as_strided(oar.ones([2]), [3], [1])
    assert math.isclose(oar.hypot(t([3.0]), t([4.0])).item(), 5.0)


def test_searchsorted_sorts_nan_last_as_numpy():
    seq = np.array([1.0, 2.0, NAN])
    vals = np.array([NAN, 2.0, 0.0, 5.0])
    for side in ("left", "right"):
        assert oar.searchsorted(t(seq), t(vals), side=side).tolist() == \
            np.searchsorted(seq, vals, side=side).tolist()
