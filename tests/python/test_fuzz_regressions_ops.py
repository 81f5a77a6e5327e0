"""Regression tests for the op fuzzer's findings in the kernels and backward formulas
(tests/fuzz/fuzz_ops.py, seeds 2-6 of 20,000 calls; docs/reliability.md lists them).
Each failed before its fix. The oracle is PyTorch 2.13 (its vectorised loop where its
scalar and vectorised loops disagree, as with 64-element inputs here), SciPy, or a
value derived by hand."""
import json
import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import scipy.special as sp
import torch

import oar
import oar.nn.functional as F

NAN, INF = float("nan"), float("inf")
A = torch.ops.aten


def _t(values, dtype="float64", grad=False):
    x = oar.to_tensor(np.asarray(values, dtype=np.float64), dtype=dtype)
    x.stop_gradient = not grad
    return x


def _close(got, want, rtol=1e-12, atol=0.0):
    np.testing.assert_allclose(np.asarray(got.numpy(), dtype=np.float64),
                               want.detach().double().numpy() if torch.is_tensor(want) else want,
                               rtol=rtol, atol=atol, equal_nan=True)


# ---- piecewise activations: kinks and NaN inputs ----------------------------------------

def test_hardswish_gradient_at_its_kinks_matches_torch():
    # was g * 1.5 at x = 3 and g * -0.5 at x = -3 (the kinks belonged to the middle piece)
    x = _t([-3.0, 3.0, -2.0, 2.0, -4.0, 4.0], grad=True)
    (g,) = oar.grad([F.hardswish(x).sum()], [x])
    xt = torch.tensor(x.numpy(), requires_grad=True)
    torch.nn.functional.hardswish(xt).sum().backward()
    _close(g, xt.grad)


# 64 elements: torch's vectorised loop, whose answer at NaN (0 for a mask, NaN for a
# scaled gradient) oar gives everywhere; before, oar gave grad_out (the scalar tail's).
_NAN_GRADS = [
    ("hardtanh_grad", lambda x, g: oar._C.hardtanh_grad(x, g, -1.0, 1.0),
     lambda x, g: A.hardtanh_backward(g, x, -1.0, 1.0)),
    ("hardshrink_grad", lambda x, g: oar._C.hardshrink_grad(x, g, 0.5),
     lambda x, g: A.hardshrink_backward(g, x, 0.5)),
    ("softshrink_grad", lambda x, g: oar._C.softshrink_grad(x, g, 0.5),
     lambda x, g: A.softshrink_backward(g, x, 0.5)),
    ("hardswish_grad", lambda x, g: oar._C.hardswish_grad(x, g),
     lambda x, g: A.hardswish_backward(g, x)),
    ("elu_grad", lambda x, g: oar._C.elu_grad(x, g, 1.0),
     lambda x, g: A.elu_backward(g, 1.0, 1.0, 1.0, False, x)),
]


@pytest.mark.parametrize("name,ours,theirs", _NAN_GRADS, ids=[n for n, _, _ in _NAN_GRADS])
def test_masked_gradient_at_nan_is_torch_vectorised_answer(name, ours, theirs):
    xv = np.linspace(-5, 5, 64)
    xv[[3, 31, 32, 60]] = NAN
    g = np.linspace(-2, 2, 64)
    _close(ours(_t(xv), _t(g)), theirs(torch.tensor(xv), torch.tensor(g)))


@pytest.mark.parametrize("fn,kwargs,arg", [
    (F.hardtanh, {"min": NAN}, "min"), (F.hardtanh, {"max": NAN}, "max"),
    (F.hardtanh_, {"max": NAN}, "max"),
    (F.hardshrink, {"threshold": NAN}, "threshold"),
    (F.softshrink, {"threshold": NAN}, "threshold"),
    (F.elu, {"alpha": NAN}, "alpha"), (F.elu, {"alpha": -INF}, "alpha"),
    (F.celu, {"alpha": INF}, "alpha"),
    (F.selu, {"alpha": NAN}, "alpha"), (F.selu, {"scale": 1.5e308}, "scale"),
    (F.softplus, {"beta": NAN}, "beta"), (F.softplus, {"beta": 0.0}, "beta"),
    (F.softplus, {"threshold": NAN}, "threshold"),
    (F.hardsigmoid, {"slope": INF}, "slope"), (F.hardsigmoid, {"offset": NAN}, "offset"),
    (F.leaky_relu, {"negative_slope": NAN}, "negative_slope"),
    (F.thresholded_relu, {"threshold": NAN}, "threshold"),
    (F.thresholded_relu, {"value": NAN}, "value"),
])
def test_meaningless_activation_attribute_is_a_typed_error(fn, kwargs, arg):
    # torch answers NaN everywhere (or clips with a NaN bound as if it were absent)
    with pytest.raises(ValueError, match=rf"\(\): argument '{arg}' must"):
        fn(_t([0.5, -2.0]), **kwargs)


@pytest.mark.parametrize("call,arg", [
    (lambda x, g: oar._C.hardtanh_grad(x, g, NAN, 2.0), "min"),
    (lambda x, g: oar._C.hardshrink_grad(x, g, NAN), "threshold"),
    (lambda x, g: oar._C.elu_grad(x, g, INF), "alpha"),
    (lambda x, g: oar._C.selu_grad(x, g, -0.0, 3.0), "scale"),
    (lambda x, g: oar._C.celu_grad(x, g, -INF), "alpha"),
    (lambda x, g: oar._C.softplus_grad(x, g, 1.0, NAN), "threshold"),
    (lambda x, g: oar._C.hardsigmoid_grad(x, g, NAN, 0.5), "slope"),
])
def test_grad_ops_check_the_same_attributes(call, arg):
    with pytest.raises(ValueError, match=rf"_grad\(\): argument '{arg}' must"):
        call(_t([0.5, -2.0]), _t([1.0, 1.0]))


@pytest.mark.parametrize("op,alpha,scale,input_scale", [
    ("elu", 0.5, 1.0, 1.0), ("selu", 1.6732632423543772, 1.0507009873554805, 1.0),
    ("celu", 3.0, 1.0, 1.0 / 3.0)])
def test_exp_linear_double_backward_at_zero_matches_torch(op, alpha, scale, input_scale):
    # was g * gg * alpha * e**0 at x = 0: torch's second derivative there is 0
    xv, gv = np.array([0.0, -0.0, -1.5, 0.7]), np.array([1.5, -2.0, 0.5, 1.0])
    x, g = _t(xv, grad=True), _t(gv)
    first = {"elu": lambda: oar._C.elu_grad(x, g, alpha),
             "selu": lambda: oar._C.selu_grad(x, g, scale, alpha),
             "celu": lambda: oar._C.celu_grad(x, g, alpha)}[op]()
    (gx,) = oar.grad([first.sum()], [x])
    xt = torch.tensor(xv, requires_grad=True)
    (want,) = torch.autograd.grad(
        A.elu_backward(torch.tensor(gv), alpha, scale, input_scale, False, xt).sum(), [xt])
    _close(gx, want)


def test_softplus_double_backward_at_the_threshold_matches_torch():
    # beta * x == threshold exactly: torch's second derivative is 0 there
    xv, gv = np.array([-1.0, 0.5, -3.0]), np.array([1.0, -0.7, 2.0])
    x = _t(xv, grad=True)
    (gx,) = oar.grad([oar._C.softplus_grad(x, _t(gv), -1.0, 1.0).sum()], [x])
    xt = torch.tensor(xv, requires_grad=True)
    (want,) = torch.autograd.grad(A.softplus_backward(torch.tensor(gv), xt, -1.0, 1.0).sum(), [xt])
    _close(gx, want)


# ---- polygamma ----------------------------------------------------------------------------

def test_polygamma_at_poles_and_infinities_follows_scipy():
    # was NaN at every pole and at -inf (torch: +-inf for n >= 2, SciPy and Paddle: always)
    xs = [0.0, -0.0, -1.0, -2.0, INF, -INF, 0.5]
    for n in (1, 2, 3, 4):
        got = oar.polygamma(_t(xs), n).numpy()
        want = np.array([sp.polygamma(n, v) for v in xs])
        np.testing.assert_allclose(got, want, rtol=1e-14)
        assert np.signbit(got).tolist() == np.signbit(want).tolist()


def test_digamma_gradient_at_poles_is_plus_infinity():
    x = _t([0.0, -0.0, -1.0, -3.0], grad=True)  # trigamma's two-sided limit; was NaN
    (g,) = oar.grad([oar.digamma(x).sum()], [x])
    assert g.numpy().tolist() == [INF] * 4


def test_polygamma_of_huge_order_is_infinite_not_nan():
    # n! zeta(n + 1, x): n! overflowed and zeta(n + 1, 2) underflowed, inf * 0 = NaN
    x = _t([0.5, 2.0, 14.5, 1e10])
    got = oar.polygamma(x, 2 ** 31).numpy()
    assert got[:3].tolist() == [-INF] * 3
    assert got[3] == 0.0 and np.signbit(got[3])  # n! / x ** (n + 1) underflows for x = 1e10
    assert oar.polygamma(x, 2 ** 31 - 1).numpy()[:3].tolist() == [INF] * 3
    assert oar.polygamma(_t([-2.08]), 2 ** 31).numpy()[0] == INF  # 1 / (-0.08) ** odd power


def test_polygamma_far_left_of_zero_is_accurate():
    # x = -N + 1/2: psi''(x) = psi''(1 - x) by the reflection formula (cot and its
    # derivatives vanish there). The direct sum over N terms was 9% off (and took
    # |x| steps: -1e15 never returned).
    for x in (-1e7 + 0.5, -1e15 + 0.5):
        got = oar.polygamma(_t([x]), 2).numpy()[0]
        np.testing.assert_allclose(got, sp.polygamma(2, 1 - x), rtol=1e-12)
    # and a general point: psi'(x) + psi'(1 - x) = pi^2 / sin(pi x)^2
    x = -123456.25
    want = np.pi ** 2 / np.sin(np.pi * (x - np.floor(x))) ** 2 - sp.polygamma(1, 1 - x)
    np.testing.assert_allclose(oar.polygamma(_t([x]), 1).numpy()[0], want, rtol=1e-9)


def test_polygamma_even_order_near_negative_half_integers():
    # (fuzz seed 234) For even n the terms (x + k)^-(n+1) change sign across 0 and
    # (-1/2)^-(n+1), (1/2)^-(n+1) cancel at x = -N + 1/2: the direct sum lost every digit
    # (n = 20 at -2.5: -4.2e8 for -9.2e6; PyTorch and SciPy still do). The poles' parts
    # are now summed first. At x = -N + 1/2 what is left is exactly
    # -n! zeta(n + 1, N + 1/2); elsewhere mpmath at 400 digits is the oracle.
    import mpmath as mp
    mp.mp.dps = 400
    for n, x in [(20, -2.5), (40, -2.5), (100, -10.5), (40, -63.5), (8, -5.49999),
                 (21, -0.001), (100, -3.25), (200, -2.5), (4, -7.3)]:
        want = float(mp.polygamma(n, mp.mpf(x)))
        got = oar.polygamma(_t([x]), n).numpy()[0]
        np.testing.assert_allclose(got, want, rtol=1e-11, err_msg=f"n={n}, x={x}")
    n, x = 20, -2.5
    exact = -float(mp.factorial(n) * mp.zeta(n + 1, mp.mpf(3.5)))
    np.testing.assert_allclose(oar.polygamma(_t([x]), n).numpy()[0], exact, rtol=1e-13)
    # huge orders: +-inf by the sign of n! zeta(n + 1, x), not -0.0 from an underflow
    got = oar.polygamma(_t([-2.5, -63.5, -0.09], "float32"), 2 ** 32).numpy()
    assert got.tolist() == [-INF, -INF, INF]


def test_masked_fill_one_element_value_of_shape_1_into_0d_x():
    # (fuzz seed 238) value [1] filling a 0-d x: forward kept x's shape (as Paddle), but
    # the backward summed value's gradient from [] to [1] and raised
    for fill in (False, True):
        x = _t(2.0, grad=True)
        v = _t([3.0], grad=True)
        out = oar.masked_fill(x, oar.to_tensor(fill), v)
        assert out.shape == [] and out.item() == (3.0 if fill else 2.0)
        gx, gv = oar.grad(out * out, [x, v], create_graph=True)
        assert gv.shape == [1] and gv.numpy().tolist() == [6.0 if fill else 0.0]
        assert gx.item() == (0.0 if fill else 4.0)
        (ggv,) = oar.grad(gv.sum(), [v])  # second order through the reshape
        assert ggv.numpy().tolist() == [2.0 if fill else 0.0]


# ---- scans, statistics, norms ------------------------------------------------------------

@pytest.mark.parametrize("values", [[NAN, 1.0, NAN, 2.0], [2.0, NAN, NAN, 3.0],
                                    [1.0, 1.0, 0.0, 1.0], [0.0, -0.0, NAN, 0.0, NAN]])
def test_cummax_cummin_index_with_nan_matches_torch(values):
    # a later NaN takes over (torch and Paddle); oar kept the first NaN's position
    x = _t(values, "float32")
    t = torch.tensor(values, dtype=torch.float32)
    assert oar._C.cummax_index(x, [0]).numpy().tolist() == torch.cummax(t, 0).indices.tolist()
    assert oar._C.cummin_index(x, [0]).numpy().tolist() == torch.cummin(t, 0).indices.tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_max_pool_index_takes_the_last_nan_of_a_window_as_torch(dtype):
    # seed 108 (ASan): a window of two NaNs gave the first one's index, torch's pooling
    # kernels the last (a NaN always takes over); every path: the 2x2 SIMD kernel, the
    # row kernel, adaptive windows
    vals = [NAN, NAN, 1.0, NAN, 2.0, 3.0, NAN, 0.5, NAN, NAN, NAN, 4.0, 0.0, NAN, 1.0, NAN]
    tdt = getattr(torch, dtype)
    x = _t(vals, "float32").reshape([1, 1, 4, 4]).astype(dtype)
    t = torch.tensor(vals).reshape(1, 1, 4, 4).to(tdt)
    F = torch.nn.functional
    cases = [((2, 2), (2, 2), False), ((3, 3), (1, 1), False), ((1, 3), (1, 1), False),
             ((2, 1), None, True), ((1, 1), None, True)]
    for k, s, adaptive in cases:
        got = oar._C.max_pool_index(x, list(k), list(s or []), [0, 0, 0, 0], False, adaptive)
        want = (F.adaptive_max_pool2d(t, k, True) if adaptive else
                F.max_pool2d(t, k, s, 0, 1, False, True))[1]
        assert got.numpy().tolist() == want.tolist(), (k, s, adaptive)
    y = oar.nn.functional.max_pool2d(x, 2, 2)
    assert np.isnan(y.astype("float32").numpy()).all()  # every window holds a NaN


def test_std_gradient_of_equal_values_is_zero():
    # was (x - mean) / (2 * 0) = NaN; torch masks std == 0
    base = _t([-0.98], grad=True)
    x = base.expand([3])
    (g,) = oar.grad([oar.std(x, [], True, False)], [base])
    assert g.numpy().tolist() == [0.0]
    y = _t([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]], grad=True)
    (gy,) = oar.grad([oar.std(y, [1]).sum()], [y])
    yt = torch.tensor(y.numpy(), requires_grad=True)
    yt.std(1).sum().backward()
    _close(gy, yt.grad)


@pytest.mark.parametrize("values,p", [
    ([1.99, -0.22, 0.0, -2.54], -1.07),   # a zero makes the norm of negative p zero
    ([0.93, -2.3, -1.54], -1e-320),        # n ** (1 / p) underflows to 0
    ([0.0, 0.0, 0.0], 0.5),                # 0 * inf at x = 0
])
def test_p_norm_gradient_of_a_zero_norm_matches_torch(values, p):
    x = _t(values, grad=True)
    (g,) = oar.grad([oar._C.p_norm(x, p, [0], False)], [x])
    xt = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    torch.linalg.vector_norm(xt, p).backward()
    _close(g, xt.grad)


def test_atan2_gradient_at_the_origin_is_zero():
    xv, yv = [-0.0, 0.0, 1.0, 0.5], [0.0, 0.0, 0.0, -2.0]
    x, y = _t(xv, grad=True), _t(yv, grad=True)
    gx, gy = oar.grad([oar.atan2(x, y).sum()], [x, y])
    xt = torch.tensor(xv, dtype=torch.float64, requires_grad=True)
    yt = torch.tensor(yv, dtype=torch.float64, requires_grad=True)
    torch.atan2(xt, yt).sum().backward()
    _close(gx, xt.grad)
    _close(gy, yt.grad)


def test_cumsum_to_a_narrower_dtype_sums_the_gradient_in_x_dtype():
    # float64 x, dtype float32: the gradient's running sum in float64, as torch
    xv = [-1.48, 0.89, 0.47, -1.93, -2.05]
    wv = np.array([0.37, -1.21, 1.93, 0.59, -0.77], dtype=np.float32)
    x = _t(xv, grad=True)
    (g,) = oar.grad([oar.cumsum(x, axis=0, dtype="float32")], [x],
                    grad_outputs=[oar.to_tensor(wv)])
    xt = torch.tensor(xv, dtype=torch.float64, requires_grad=True)
    torch.cumsum(xt, 0, dtype=torch.float32).backward(torch.from_numpy(wv))
    assert g.numpy().tolist() == xt.grad.tolist()


# ---- clean errors --------------------------------------------------------------------------

def test_index_rows_without_coordinates_too_many_is_a_memory_error_with_a_message():
    # index [..., 0]: each row is the whole of x; 2**40 of them cannot be listed
    x = _t([[1.0, 2.0], [3.0, 4.0]])
    index = oar.to_tensor(np.zeros([1, 2 ** 40, 0], dtype=np.int32))
    with pytest.raises(MemoryError, match=r"\S"):
        oar.gather_nd(x, index)
    with pytest.raises(MemoryError, match=r"\S"):
        oar._C.index_put_nd(oar.to_tensor(np.array(-3)), index, oar.to_tensor(np.array(1)), True)


def test_tri_indices_with_offsets_near_the_int64_limits_match_torch():
    # i + offset + 1 overflowed: the right shape, no entry written (uninitialised values)
    for row, col, offset, same in [(3, 2, 2 ** 63 - 1, 2), (4, 3, -2 ** 63, -4), (2, 5, 2 ** 62, 5)]:
        for ours, theirs in [(oar.tril_indices, torch.tril_indices),
                             (oar.triu_indices, torch.triu_indices)]:
            assert ours(row, col, offset).numpy().tolist() == theirs(row, col, same).tolist()


def test_std_of_equal_values_is_exactly_zero_with_a_zero_gradient():
    # a running sum of 3 (or 8) copies of x is not 3 x: the mean was off by an ulp, the
    # std 4.7e-16 instead of 0, and its gradient (x - mean) / std noise of order 1
    for v, n in [(-2.55, 8), (0.1, 3), (1.55, 7)]:
        base = _t([[v]], grad=True)
        out = oar.std(base.expand([n, 1]), [0], True, True)
        assert out.numpy().tolist() == [[0.0]]
        (g,) = oar.grad([out], [base])
        assert g.numpy().tolist() == [[0.0]]


def test_hardswish_double_backward_outside_is_zero_for_infinite_grad():
    # the mask multiplied an infinite grad_out: inf * 0 = NaN; torch selects 0
    xv, gv = np.array([3.0, -3.5, 1.0, 4.0]), np.array([-INF, INF, 2.0, 1.0])
    x = _t(xv, grad=True)
    (gx,) = oar.grad([oar._C.hardswish_grad(x, _t(gv)).sum()], [x])
    xt = torch.tensor(xv, requires_grad=True)
    (want,) = torch.autograd.grad(A.hardswish_backward(torch.tensor(gv), xt).sum(), [xt])
    _close(gx, want)


def test_softplus_beta_whose_reciprocal_overflows_is_an_error():
    # 1 / 1e-320 is inf: every result was NaN or +-inf
    with pytest.raises(ValueError, match=r"softplus\(\): argument 'beta'"):
        F.softplus(_t([1.0, -2.0]), beta=-1e-320)


def test_det_gradient_of_a_singular_matrix_is_the_adjugate():
    # inverse() raised inside the backward; the derivative of det is adj(x)^T for every x
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [0.5, 3.0]]])
    x = _t(a, grad=True)
    (g,) = oar.grad([oar.linalg.det(x).sum()], [x])
    adj_t = np.array([[[4.0, -2.0], [-2.0, 1.0]], [[3.0, -0.5], [-1.0, 2.0]]])
    np.testing.assert_allclose(g.numpy(), adj_t, rtol=1e-12, atol=1e-14)
    b = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])  # rank 2
    y = _t(b, grad=True)
    (gy,) = oar.grad([oar.linalg.det(y)], [y])
    cof = np.array([[np.linalg.det(np.delete(np.delete(b, i, 0), j, 1)) * (-1) ** (i + j)
                     for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(gy.numpy(), cof, rtol=1e-10, atol=1e-12)


def test_slogdet_gradient_of_a_singular_matrix_is_infinite_not_an_error():
    x = _t([[1.0, 2.0], [2.0, 4.0]], grad=True)
    (g,) = oar.grad([oar._C.slogdet(x)[1]], [x])
    assert np.isinf(g.numpy()).all()


def test_avg_pool_divisor():
    x = _t(np.arange(12.0).reshape(1, 2, 6))
    with pytest.raises(ValueError, match=r"avg_pool\(\): argument 'divisor'"):
        oar._C.avg_pool(x, [2], [2], [0, 0], False, True, 3, True)  # adaptive: no divisor
    got = oar._C.avg_pool(x, [2], [2], [0, 0], False, True, 3, False)
    want = np.arange(12.0).reshape(1, 2, 3, 2).sum(-1) / 3
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)


def test_as_strided_whose_reach_overflows_int64_is_a_range_error():
    x = oar.to_tensor([1.0, 2.0, 3.0])
    with pytest.raises(IndexError, match="past element 2\\^63"):
        oar.as_strided(x, [3], stride=[2 ** 63 - 1], offset=0)
    with pytest.raises(IndexError, match="past element 2\\^63"):
        oar.as_strided(x, [2, 2], stride=[2 ** 62, 2 ** 62], offset=2 ** 62)


# ---- seed 2511 (300,000 calls, 2026-11-24) ---------------------------------------------

@pytest.mark.parametrize("p", [1e308, -1e-320, 3.0])
def test_p_norm_of_one_element_is_its_magnitude_for_every_p(p):
    # was inf for p = 1e308 (|x|^p overflowed) and 1.0 for p = -1e-320 ((|x|^p)^(1/p))
    x = _t([[-1.75, 2.5]])
    out = oar._C.p_norm(x, p, [0], False)
    _close(out, torch.linalg.vector_norm(torch.tensor(x.numpy()), ord=p, dim=0))
    np.testing.assert_array_equal(out.numpy(), [1.75, 2.5])


def test_p_norm_gradient_at_zero_for_p_below_one_is_zero_as_in_torch():
    # was NaN: sign(0) * |0|^(p - 1) = 0 * inf
    x = _t([1.3, 0.0, 1.0, -0.0], grad=True)
    (g,) = oar.grad([oar._C.p_norm(x, 0.5, [], False)], [x])
    xt = torch.tensor(x.numpy(), requires_grad=True)
    torch.linalg.vector_norm(xt, ord=0.5).backward()
    _close(g, xt.grad)
    assert not np.isnan(g.numpy()).any()


@pytest.mark.parametrize("values", [[float("nan"), 1.81, 0.0, 2.36], [0.0, float("inf"), 2.0]])
def test_p_norm_gradient_at_zero_for_p_below_one_is_nan_when_the_norm_is_not_finite(values):
    # was 0: the subgradient at x = 0 was taken even where the norm is NaN or inf, where
    # PyTorch's |x|^(p-1) * norm^(1-p) (0 * inf) and the rest of the line are NaN
    x = _t(values, grad=True)
    (g,) = oar.grad([oar._C.p_norm(x, 0.5, [], False)], [x])
    xt = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    torch.linalg.vector_norm(xt, ord=0.5).backward()
    np.testing.assert_array_equal(np.isnan(g.numpy()), np.isnan(xt.grad.numpy()))
    assert np.isnan(g.numpy()[values.index(0.0)])


def test_histogram_puts_a_value_on_an_edge_in_the_bin_the_edges_give():
    # 0.01 in two bins of [-0.99, 1.01]: the formula gave bin 1, but the middle edge is
    # 0.010000000000000009 (linspace's, and torch.histogram's)
    x = oar.to_tensor([0.01], dtype="float64")
    np.testing.assert_array_equal(oar.histogram(x, bins=2, min=-0.99, max=1.01).numpy(), [1, 0])
    xt = torch.tensor([0.01], dtype=torch.float64)
    assert torch.histogram(xt, 2, range=(-0.99, 1.01)).hist.tolist() == [1.0, 0.0]
    # the edges are the input dtype's: in float32 a point range [x - 1, x + 1] puts x on
    # the middle edge of 100 bins (the op cases run every dtype against float64 values,
    # so such cases live here)
    for dt, tdt in (("float32", torch.float32), ("float64", torch.float64)):
        v = [0.3, 0.3, -1.8]
        for lo, hi in ((0.0, 0.0), (-0.7, 1.3), (-2.8, -0.8)):
            got = oar.histogram(oar.to_tensor(v, dtype=dt), bins=100, min=lo, max=hi).numpy()
            rng = (lo, hi) if lo != hi else (-1.8, 0.3)
            want = torch.histogram(torch.tensor(v, dtype=tdt), 100, range=rng).hist
            np.testing.assert_array_equal(got, want.numpy().astype(np.int64), err_msg=f"{dt} {lo}")


@pytest.mark.parametrize("eps", [0.0, 0.2, None])
def test_logit_gradient_at_nan_is_nan(eps):
    # was 0 with eps >= 0 (NaN counted as clipped); Paddle's kernel gives NaN, and so does
    # PyTorch's scalar loop (its vectorised loop gives 0: a 9-element tensor has both)
    v = [float("nan"), 0.5, 2.0]
    x = _t(v, grad=True)
    (g,) = oar.grad([oar.logit(x, eps=eps).sum()], [x])
    got = g.numpy()
    assert np.isnan(got[0]) and got[1] == 4.0
    assert got[2] == 0.0 if eps is not None else np.isnan(got[2])


@pytest.mark.parametrize("dtype,alpha", [("float64", -1e-320), ("float32", 1e-39)])
def test_celu_of_a_subnormal_alpha_is_not_nan(dtype, alpha):
    # celu(0) was NaN: x was scaled by 1 / alpha, infinite here, and 0 * inf is NaN
    x = oar.to_tensor([0.0, 1.5, -0.0], dtype=dtype, stop_gradient=False)
    y = oar.nn.functional.celu(x, alpha)
    np.testing.assert_array_equal(y.numpy(), [0.0, 1.5, 0.0])
    (g,) = oar.grad([y.sum()], [x])
    np.testing.assert_array_equal(g.numpy(), [1.0, 1.0, 1.0])  # exp(0 / alpha), and 1 above 0


def test_norm_scale_grad_of_rows_without_columns_returns_at_once():
    # never returned: 2**35 blocks of 32 empty rows were walked, then summed
    t = oar.to_tensor(np.zeros([1, 2 ** 40, 0], dtype=np.float32))
    out = oar._C.norm_scale_grad(t, g=t, epsilon=0.0, begin_norm_axis=2, rms=True)
    assert list(out.shape) == [0]


def test_a_block_larger_than_memory_and_swap_is_a_memory_error():
    # oar.zeros([2**40]) hung: mimalloc reserved 4 TiB and the fill paged for ever
    with pytest.raises(MemoryError, match=r"zeros|full") as e:
        oar.zeros([2 ** 40])
    assert "memory and swap" in str(e.value)
    with pytest.raises(MemoryError, match=r"sum\(\)"):
        oar.sum(oar.to_tensor(np.zeros([1, 2 ** 40, 0], dtype=np.float32)), axis=2)


@pytest.mark.parametrize("bad", [-INF, NAN])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_eig_of_a_matrix_holding_inf_or_nan_is_an_error_as_in_torch(bad, dtype):
    # an infinity made geev's balancing refuse its arguments and the steps after it write
    # past their buffers: "double free or corruption", the interpreter gone
    a = np.array([[0.99, 2.82, -INF], [0.0, -2.04, -2.09], [-INF, 2.38, -1.73]])
    a[0, 2] = a[2, 0] = bad
    x = oar.to_tensor(a).astype(dtype)
    for f in (oar.linalg.eig, oar.linalg.eigvals):
        with pytest.raises(ValueError, match=r"batch index 0 of argument 'x' holds inf or NaN"):
            f(x)
    with pytest.raises(RuntimeError, match="infs or NaNs"):
        torch.linalg.eig(torch.tensor(a))


def test_svd_of_a_rectangular_batch_holding_inf_is_an_error_not_a_hang():
    # gesdd on the 2x5 matrices of this batch never returned; PyTorch raises too
    a = np.arange(30, dtype=np.float64).reshape(3, 2, 5) / 7.0
    a[1, 0, 3] = INF
    with pytest.raises(ValueError, match=r"batch index 1 of argument 'x' holds inf or NaN"):
        oar.linalg.svd(oar.to_tensor(a))


def test_dense_to_coo_of_rows_without_elements_returns_at_once():
    # walked 2**40 empty rows
    t = oar.to_tensor(np.zeros([1, 2 ** 40, 0], dtype=np.int32))
    s = t.to_sparse_coo(2)
    assert list(s.shape) == [1, 2 ** 40, 0] and s.nnz() == 0


def test_adaptive_max_pool_of_an_empty_spatial_dim_is_an_error_as_in_torch():
    # the max pool read the empty plane's first element: a segfault
    x = np.zeros([2, 6, 0])
    with pytest.raises(ValueError, match=r"max pool needs a non-empty input"):
        F.adaptive_max_pool1d(oar.to_tensor(x), 1)
    with pytest.raises(RuntimeError):
        torch.nn.functional.adaptive_max_pool1d(torch.tensor(x), 1)
    # the mean of none is NaN, as PyTorch's
    _close(F.adaptive_avg_pool1d(oar.to_tensor(x), 1),
           torch.nn.functional.adaptive_avg_pool1d(torch.tensor(x), 1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_of_a_constant_row_normalises_it_to_exactly_zero(dtype):
    # the mean n x0 / n rounded off x0, so xhat was 1e-9 instead of 0: at epsilon = 0 the
    # gradient came out 2e16 where PyTorch's is NaN (0 / 0), and an infinite weight gave
    # inf where 0 * inf is NaN
    x = np.full([2, 9], -0.06)
    x[1] = np.linspace(-1, 1, 9)
    w, b = np.linspace(0.5, 2.0, 9), np.linspace(-1, 1, 9)
    ox, ow, ob = (oar.to_tensor(a).astype(dtype) for a in (x, w, b))
    assert (F.layer_norm(ox, [9], ow, ob).numpy()[0] == ob.numpy()).all()
    tx, tw, tb = (torch.tensor(a, dtype=getattr(torch, dtype)) for a in (x, w, b))
    ow_inf, tw_inf = ow.numpy().copy(), tw.clone()
    ow_inf[0], tw_inf[0] = INF, INF
    _close(F.layer_norm(ox, [9], oar.to_tensor(ow_inf), ob),
           torch.nn.functional.layer_norm(tx, [9], tw_inf, tb), rtol=1e-5, atol=1e-6)
    g = np.linspace(-2, 3, 18).reshape(2, 9)
    got = oar._C.layer_norm_grad(ox, ow, oar.to_tensor(g).astype(dtype), 0.0, 1).numpy()
    assert np.isnan(got[0]).all() and np.isfinite(got[1]).all()


def test_batch_norm_of_a_constant_channel_normalises_it_to_exactly_zero():
    # the same rounding as layer_norm's in the channel mean of batch_norm and its gradients
    x = np.linspace(-1, 1, 4 * 3 * 25).reshape(4, 3, 5, 5)
    x[:, 1] = -0.06
    w, b = np.array([1.0, 2.0, 0.5]), np.array([0.1, 0.2, 0.3])
    stats = (oar.zeros([3], "float64"), oar.ones([3], "float64"))
    got = F.batch_norm(oar.to_tensor(x), *stats, oar.to_tensor(w), oar.to_tensor(b),
                       training=True, epsilon=0.0).numpy()
    assert np.isnan(got[:, 1]).all() and np.isfinite(got[:, [0, 2]]).all()  # 0 / 0, as PyTorch
    g = oar.to_tensor(np.cos(np.arange(x.size)).reshape(x.shape))
    for out in (oar._C.batch_norm_grad(oar.to_tensor(x), oar.to_tensor(w), g, 0.0, 1),
                oar._C.batch_norm_scale_grad(oar.to_tensor(x), g, 0.0, 1)):
        a = out.numpy()
        assert np.isnan(a[:, 1] if a.ndim == 4 else a[1]).all()  # 0 / 0, as PyTorch
        assert np.isfinite(a[:, [0, 2]] if a.ndim == 4 else a[[0, 2]]).all()


def test_norm_means_of_rows_starting_with_an_infinity_stay_infinite():
    # the shift by the first element made inf - inf: the mean of [inf, 1] came out NaN
    x = np.array([[np.inf, 1.0, 2.0], [1.0, -np.inf, 0.5]])
    stats = oar._C.batch_norm_stats(oar.to_tensor(x.T.copy()), 1).numpy()  # channels = rows
    assert stats[0].tolist() == [np.inf, -np.inf]
    t = torch.tensor(x.T.copy())
    assert t.mean(0).tolist() == stats[0].tolist()


def test_unfold_with_a_step_near_int64_max_is_one_window():
    # the window axis's stride was stride * step: a signed overflow (UBSan abort), and the
    # numpy buffer's byte strides overflowed with it
    x = np.arange(18, dtype=np.int32).reshape(3, 2, 3)
    got = oar._C.tensor_unfold(oar.to_tensor(x), -3, size=3, step=2 ** 63 - 1)
    want = torch.tensor(x).unfold(0, 3, 5)  # one window too; torch's own huge step overflows
    assert got.shape == list(want.shape) and (np.asarray(got) == want.numpy()).all()


def test_integer_overflow_wraps_around_as_in_torch():
    # a signed overflow is undefined behaviour in C++ (UBSan aborted on an int64 sum of a
    # NaN cast, and cumsum, add, ... at the extremes); the kernel sources are built with
    # -fwrapv, so these wrap in two's complement as PyTorch's do (build-asan checks it)
    top, low = 2 ** 63 - 1, -2 ** 63
    oa, ob, om = (oar.to_tensor(np.array(v, dtype=np.int64)) for v in ([top, 5], [1, 2], [low, 5]))
    ta, tb, tm = (torch.tensor(v) for v in ([top, 5], [1, 2], [low, 5]))
    cases = [(oar.add(oa, ob), ta + tb), (oar.subtract(om, ob), tm - tb),
             (oar.multiply(oa, oa), ta * ta), (oar.sum(oa), ta.sum()),
             (oar.cumsum(oa, 0), ta.cumsum(0)), (oar.prod(oa), ta.prod()),
             (oar.cumprod(oa, 0), ta.cumprod(0)), (-om, -tm), (oar.pow(oa, 2), ta.pow(2))]
    for got, want in cases:
        assert np.asarray(got.numpy()).tolist() == want.tolist()


def test_empty_shapes_whose_other_dims_pass_int64_are_refused_as_in_torch():
    # ContiguousStrides multiplied the dims past int64 before the 0 mattered (UBSan abort);
    # NumPy and PyTorch refuse such shapes, whichever side of the 0 the large dims are on
    for shape in ([1, 0, 2 ** 40, 2 ** 40], [2 ** 40, 2 ** 40, 0]):
        with pytest.raises(ValueError, match=r"full\(\): the shape .* is too large"):
            oar.zeros(shape)
        with pytest.raises(RuntimeError, match="overflow"):
            torch.empty(shape)
    x = oar.zeros([2 ** 31, 0, 2 ** 31])  # within int64: an empty tensor, as in torch
    assert x.shape == [2 ** 31, 0, 2 ** 31] and int(x.numel()) == 0
    assert torch.empty(2 ** 31, 0, 2 ** 31).numel() == 0


def test_shape_arithmetic_past_int64_is_an_argument_error():
    # reshape's product of the target dims and conv's weight.shape[1] * groups (groups is
    # bounded by weight.shape[0] only when that is not 0) were signed overflows in the shape
    # inference, which is built without -fwrapv; reshape then reported "(0 elements)".
    with pytest.raises(ValueError, match=r"reshape\(\): argument 'shape' \[1099511627776, "
                                         r"1099511627776\] has too many elements"):
        oar.ones([3]).reshape([2 ** 40, 2 ** 40])
    with pytest.raises(ValueError, match=r"argument 'shape' .* has too many elements"):
        oar.ones([3]).reshape([2 ** 40, -1, 2 ** 40])
    w = oar.ones([0, 4, 3, 3])
    with pytest.raises(ValueError, match=r"conv2d\(\): argument 'groups' \(4611686018427387904\) "
                                         r"times weight.shape\[1\] \(4\) passes int64"):
        F.conv2d(oar.ones([1, 4, 5, 5]), w, groups=2 ** 62)
    with pytest.raises(ValueError, match=r"conv2d_transpose\(\): argument 'groups' .* passes int64"):
        F.conv2d_transpose(oar.ones([1, 0, 5, 5]), w, groups=2 ** 62)


def test_sizes_that_add_or_multiply_past_int64_in_shape_inference_are_argument_errors():
    # Found by reading the shape inference after the reshape case (none of these wrapped
    # into an abort in Release; UBSan aborts on each). An empty tensor may have one dim near
    # 2**63, so sums of dims overflow where products cannot.
    big = 2 ** 63 - 1
    cases = [
        (lambda: oar.concat([oar.zeros([0, 2 ** 62])] * 2, axis=1),
         r"concat\(\): the sizes of the tensors in 'x' along axis 1 add up past int64"),
        (lambda: oar._C.qr_packed(oar.zeros([0, big, 1])),
         r"qr_packed\(\): argument 'x' of shape .* two matrix dims add up past int64"),
        (lambda: oar._C.svd_packed(oar.zeros([big, 0])),
         r"svd_packed\(\): argument 'x' of shape .* two matrix dims add up past int64"),
        # avg_pool's divisor (the window's size with count_include_pad) wrapped to 0: inf
        (lambda: F.avg_pool2d(oar.ones([1, 1, 1, 1]), 2 ** 32, padding=2 ** 31, exclusive=False),
         r"argument 'kernel_size' \[4294967296, 4294967296\]: the window's size .* passes int64"),
        # the windows' ends in + pad_after; the output was [0., -0.]
        (lambda: oar._C.avg_pool(oar.zeros([1, 1, 0, big]), [2, 2], [1, 2 ** 62], [1, 1, 1, 1],
                                 False, False, 0, False),
         r"avg_pool\(\): argument 'paddings' \[1, 1, 1, 1\] makes the sizes .* pass 2\^63"),
        (lambda: oar._C.conv_filter_grad(oar.zeros([1, 1, 5]), oar.zeros([1, 1, 5]),
                                         [1, 1, -2 ** 63], [], [], [], 1),
         r"argument 'filter_shape' \[1, 1, -9223372036854775808\] must have sizes >= 0"),
        (lambda: oar._C.fft_c2r(oar.zeros([0, 2 ** 62 + 2], dtype="complex64"), [1], 0, False, 0),
         r"fft_c2r\(\): argument 'x' has 4611686018427387906 entries .* passes int64"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()
    # The windows of an adaptive pool over an empty dim near 2**63: o * in in 128 bits.
    out = oar._C.avg_pool(oar.zeros([1, 1, 0, 2 ** 62]), [1, 4], [], [], False, True, 0, True)
    assert out.shape == [1, 1, 1, 4] and np.isnan(out.numpy()).all()  # means of nothing
    # A kernel product that fits is still allowed: each window is clipped to the input.
    out = F.avg_pool2d(oar.ones([1, 1, 1, 1]), 2 ** 20, padding=2 ** 19, exclusive=False)
    np.testing.assert_allclose(out.numpy(), [[[[2.0 ** -40]]]], rtol=1e-6)


def test_integer_arithmetic_past_int64_in_bindings_core_and_backward():
    # A read of the other layers (built without -fwrapv) after the shape-inference one.
    e = oar.zeros([0], dtype="int64")
    # batch * (rows + 1) wrapped to 0, an empty crows passed and the check read crows[0]:
    # a segfault
    # (with more rows or columns the positions, batch * rows * cols, are refused first)
    with pytest.raises(ValueError, match=r"needs more than 2\^63 row offsets"):
        oar.sparse.sparse_csr_tensor(e, e, oar.zeros([0]), [2, 2 ** 62 - 1, 0])
    # the last element wrapped negative: a view 2**62 elements past a 16-byte block
    with pytest.raises(IndexError, match=r"does not fit in the memory of 4 elements"):
        oar._C._strided_view(oar.zeros([4]), [3], [2 ** 62 + 1], 0)
    with pytest.raises(IndexError, match=r"offset 100, last element none"):
        oar._C._strided_view(oar.zeros([4]), [0], [1], 100)
    # view as another dtype, in bytes: [0, 2**62] float32 as complex128 is [0, 2**60] (it
    # gave [0, 0]), and as uint8 it would be [0, 2**64]
    assert oar.view(oar.zeros([0, 2 ** 62]), "complex128").shape == [0, 2 ** 60]
    with pytest.raises(ValueError, match=r"view\(\): .* passes 2\^63 elements of uint8"):
        oar.view(oar.zeros([0, 2 ** 62]), "uint8")
    # roll's backward negated a shift of -2**63 (no int64 negation): the gradient rolled the
    # wrong way
    x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    (oar.roll(x, -2 ** 63) * oar.to_tensor([10.0, 20.0, 30.0])).sum().backward()
    xt = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (torch.roll(xt, (-2 ** 63) % 3) * torch.tensor([10.0, 20.0, 30.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())
    # an int tensor argument went through double: 2**53 + 1 became 2**53
    np.testing.assert_array_equal(oar._C.roll(oar.arange(10), [oar.to_tensor(2 ** 53 + 1)], []),
                                  np.roll(np.arange(10), (2 ** 53 + 1) % 10))
    # hessian of a y that does not use x, with a batch of 0: x.numel() / 0 was a SIGFPE
    x, z = oar.zeros([0, 3]), oar.zeros([0])
    x.stop_gradient = z.stop_gradient = False
    assert oar._C.hessian(z * 2, x, 0).shape == [0, 3, 3]
    # conv's backward recomputed 2 * padding in int64 (the result fits, the terms not)
    xc, wc = oar.zeros([0, 1, 1]), oar.ones([1, 1, 1])
    xc.stop_gradient = wc.stop_gradient = False
    y = oar._C.conv(xc, wc, [2 ** 63 - 1], [2 ** 63 - 1, 2 ** 63 - 1], [], 1)
    gx, gw = oar.grad([y.sum()], [xc, wc], allow_unused=True)
    assert gx.shape == [0, 1, 1] and gw.shape == [1, 1, 1]
    # the fused optimizer's step + 1, and the GIL heuristic's sum of numels (expanded views)
    p = oar.ones([2])
    p.stop_gradient = False
    (p * 2).sum().backward()
    with pytest.raises(ValueError, match=r"step count of parameter 0 .* cannot advance past int64"):
        oar._C._optimizer_step("sgd", [p], [[]], 0.1, oar.full([1], 2 ** 63 - 1, "int64"))
    a = oar.ones([1]).expand([2 ** 62])
    with pytest.raises(ValueError, match=r"concat\(\): the sizes .* add up past int64"):
        oar._C.concat([a, a, a], 0)


def test_kernel_arithmetic_past_int64_neither_writes_out_of_bounds_nor_misleads():
    # A read of the kernels (built with -fwrapv: wrapping is defined, but a wrapped index
    # still writes out of bounds and a wrapped size still gives a wrong answer).
    # bincount: len = e + 1 wrapped for e = 2**63 - 1 and acc[e] wrote 8 bytes before the buffer
    with pytest.raises(MemoryError, match=r"bincount\(\): the value 9223372036854775807"):
        oar.bincount(oar.to_tensor([2 ** 63 - 1]), minlength=1)
    # conv: the valid output range of a tap wrapped (im2col filled past its buffer); a window
    # that is all padding is 0
    x = oar.to_tensor([[[5.0]]], dtype="float64")
    w = oar.to_tensor([[[1.0]]], dtype="float64")
    np.testing.assert_array_equal(oar._C.conv(x, w, [2 ** 63 - 1], [2 ** 62, 0], [1], 1), [[[0.0]]])
    np.testing.assert_array_equal(oar._C.conv(oar.ones([1, 1, 1]), oar.ones([1, 1, 1]), [2 ** 62],
                                              [2 ** 63 - 1, 0], [1], 1), [[[0.0, 0.0]]])
    # sparse: a CSR whose batches' totals wrap to nnz, and positions past int64
    with pytest.raises(ValueError, match="crows count more entries than cols holds"):
        oar.sparse.sparse_csr_tensor([0, 2 ** 63 - 1, 0, 2 ** 63 - 1, 0, 3], [0], [1.0], [3, 1, 4])
    with pytest.raises(ValueError, match="sparse dims must be >= 0 and multiply to at most"):
        oar.sparse.sparse_coo_tensor([[0, 2 ** 24], [0, 0]], [1.0, 2.0], [2 ** 40, 2 ** 40])
    with pytest.raises(ValueError, match="sparse dims must be >= 0 and multiply to at most"):
        oar.sparse.sparse_coo_tensor([[0], [0], [0]], [1.0], [2, 2 ** 63 - 1, 5])
    # batch_norm's weight gradient walked the 2**40 empty runs of [2**40, 3, 0]
    xb = oar.empty([2 ** 40, 3, 0])
    np.testing.assert_array_equal(oar._C.batch_norm_scale_grad(xb, xb, 1e-5, 1), [0.0, 0.0, 0.0])
    # (max - min) overflowing the dtype: histogram's edges, multinomial's total, uniform's span
    h = oar.histogram(oar.to_tensor([-1e38, 1e38], dtype="float32"), bins=4, min=-3e38, max=3e38)
    np.testing.assert_array_equal(h, [0, 1, 1, 0])
    h = oar.histogram(oar.to_tensor([-1e308, 1e308], dtype="float64"), bins=4, min=-1.5e308,
                      max=1.5e308)
    np.testing.assert_array_equal(h, [1, 0, 0, 1])
    oar.seed(3)
    draws = oar.multinomial(oar.to_tensor([1e308, 1e308], dtype="float64"), 4000, replacement=True)
    assert 0.4 < draws.numpy().mean() < 0.6  # every draw took category 1
    u = oar.uniform([1000], min=-1.7e308, max=1.7e308, dtype="float64").numpy()
    assert np.isfinite(u).all() and (u < 0).any() and (u > 0).any()
    # randint_like: [low, high) must lie in the dtype (int8 with high=1000 wrapped)
    with pytest.raises(ValueError, match=r"randint_like\(\): arguments 'low' \(0\) and 'high' "
                                         r"\(1000\) must lie within \[-128, 128\]"):
        oar.randint_like(oar.zeros([3], dtype="int8"), 0, 1000)
    # geometric ops with an empty output built a table of out_size + 1 row starts
    out = oar.geometric.send_u_recv(oar.zeros([0, 0]), oar.zeros([0], "int64"),
                                    oar.zeros([0], "int64"), out_size=2 ** 40)
    assert out.shape == [2 ** 40, 0]


def test_window_attributes_near_int64_max_are_argument_errors():
    # conv's padded size `in + pad + pad` and span `dilation * (k - 1) + 1` (and the pools'
    # and conv_transpose's sizes) overflowed int64: UBSan aborted in the seed 88 ASan run
    x, w = oar.rand([2, 2, 3]), oar.rand([6, 2, 3])
    calls = {"paddings": lambda: oar._C.conv(x, w, [], [2 ** 63 - 1, 3], [1]),
             "dilations": lambda: oar._C.conv(x, w, [], [], [2 ** 62]),
             "strides": lambda: F.conv1d_transpose(x, oar.rand([2, 3, 3]), stride=2 ** 62)}
    for arg, call in calls.items():
        with pytest.raises(ValueError, match=rf"argument '{arg}' .* pass 2\^63"):
            call()
    with pytest.raises(ValueError, match="at most half of kernel_size"):
        F.max_pool1d(x, 3, stride=1, padding=2 ** 62)


# ---- binomial: counts past 2**40 -----------------------------------------------------

# Run in a child with a time limit: std::binomial_distribution took 0.2-0.5 s a draw at 1e18
# and never finished at 2**62. Each draw now takes about 1 us.
_BINOMIAL_HUGE_COUNTS = r"""
import json, numpy as np, oar
top = float(np.nextafter(9.2e18, 0))  # the largest count accepted
top32 = float(np.nextafter(np.float32(9.2e18), np.float32(0)))  # ... in float32
out = {}
oar.seed(5)
for key, n, p, dtype in json.loads(CASES):
    n = {"top": top, "top32": top32}.get(n, n)
    out[key] = oar.binomial(oar.full([20000], n, dtype=dtype),
                            oar.full([20000], p, dtype=dtype)).numpy().tolist()
count = oar.to_tensor([top, top, top32, 2.0 ** 62, 1e18, 0.0], dtype="float64")
prob = oar.to_tensor([0.0, 1.0, 1.0, 1.0, 0.0, 0.5], dtype="float64")
out["ends"] = oar.binomial(count, prob).tolist()
count, prob = oar.full([50], 2.0 ** 62, dtype="float64"), oar.full([50], 0.3, dtype="float64")
oar.seed(9)
first = oar.binomial(count, prob).tolist()
oar.seed(9)
out["seeded"] = [first, oar.binomial(count, prob).tolist()]
print(json.dumps(out))
"""

_HUGE_CASES = [("1e18", 1e18, 0.3, "float64"), ("2**62", 2.0 ** 62, 0.5, "float64"),
               ("top", "top", 0.7, "float64"), ("top32", "top32", 0.25, "float32"),
               ("past 2**40", 2.0 ** 40 + 1, 0.4, "float64"),
               # few successes, and few failures: p and 1 - p near 1 keep their precision
               ("rare", 2.0 ** 62, 2.0 ** -50, "float64"),
               ("near 1", 2.0 ** 62, 1 - 2.0 ** -50, "float64")]


def test_binomial_of_a_count_past_2_40_is_drawn_at_once_and_by_the_binomial_law():
    code = f"CASES = {json.dumps(json.dumps(_HUGE_CASES))}\n" + _BINOMIAL_HUGE_COUNTS
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, cwd="/tmp")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    top = int(np.nextafter(9.2e18, 0))
    top32 = int(np.nextafter(np.float32(9.2e18), np.float32(0)))
    for key, n, p, _ in _HUGE_CASES:
        n = {"top": top, "top32": top32}.get(n, n)
        s, n = out[key], int(n)
        assert all(0 <= v <= n for v in s), key
        # exact moments (Python ints and fractions: the counts pass float64's integers)
        mean = Fraction(n) * Fraction(p)
        var = mean * (1 - Fraction(p))
        d = np.array([v - int(mean) for v in s], dtype=np.float64)
        z = (d.mean() - float(mean - int(mean))) / math.sqrt(float(var) / len(s))
        assert abs(z) < 6, (key, z)
        assert abs(d.var() / float(var) - 1) < 6 * math.sqrt(2 / len(s)), key
    assert out["ends"] == [0, top, top32, 2 ** 62, 0, 0]
    assert out["seeded"][0] == out["seeded"][1]
    assert len(set(out["seeded"][0])) == 50
