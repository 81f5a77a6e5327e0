"""The LU family on one matrix large enough (n >= 128 / 192) for the split path
(src/oar/kernels/cpu/lapack_lu.cc: getrf as panels with the trailing updates on two
threads, getri as two column blocks of LU X = I): inv, solve, det, slogdet, lu and
lu_unpack against numpy/torch in every dtype, pivots equal to LAPACK's (torch's),
singular matrices (the zero pivot named as getrf names it, det 0, lu still complete),
and a single matrix giving the same result as the same matrix inside a batch (which
takes the serial LAPACK path)."""
import numpy as np
import pytest
import torch

import oar

RNG = np.random.default_rng(11)
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
# 128..191 split getri only; 192 on both; 200 and 301 leave a narrower last panel;
# 520 uses 144-column panels.
SIZES = [128, 150, 192, 200, 301, 520]


def _matrix(n, dtype, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * RNG.standard_normal(batch + (n, n))
    return a.astype(dtype)


def _tol(dtype, n):
    return 50 * n * np.finfo(dtype).eps


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_inv_solve_det(n, dtype):
    a = _matrix(n, dtype)
    b = _matrix(n, dtype)[:, :3]
    wide = np.complex128 if np.issubdtype(dtype, np.complexfloating) else np.float64
    ref = np.linalg.inv(a.astype(wide))
    inv = oar.linalg.inv(oar.to_tensor(a)).numpy()
    # the residual, relative to the inverse's size: what the condition number allows
    cond = np.linalg.cond(a.astype(wide))
    assert np.abs(inv - ref).max() <= _tol(dtype, n) * cond * np.abs(ref).max()
    sol = oar.linalg.solve(oar.to_tensor(a), oar.to_tensor(b)).numpy()
    sref = np.linalg.solve(a.astype(wide), b.astype(wide))
    assert np.abs(sol - sref).max() <= _tol(dtype, n) * cond * np.abs(sref).max()
    sign, logabs = oar.linalg.slogdet(oar.to_tensor(a))
    rsign, rlog = np.linalg.slogdet(a.astype(wide))
    np.testing.assert_allclose(sign.numpy(), rsign, atol=_tol(dtype, n) * cond)
    np.testing.assert_allclose(logabs.numpy(), rlog, rtol=_tol(dtype, n))


@pytest.mark.parametrize("n", [192, 301, 520])
@pytest.mark.parametrize("dtype", DTYPES)
def test_lu_pivots_and_factors(n, dtype):
    a = _matrix(n, dtype)
    lu, piv = oar.linalg.lu(oar.to_tensor(a))
    _, tpiv = torch.linalg.lu_factor(torch.tensor(a))
    # partial pivoting picks the same rows as LAPACK's getrf
    np.testing.assert_array_equal(piv.numpy(), tpiv.numpy())
    p, l, u = (t.numpy() for t in oar.linalg.lu_unpack(lu, piv))
    assert np.abs(p @ l @ u - a).max() <= _tol(dtype, n) * np.abs(a).max()
    assert np.abs(np.triu(l, 1)).max() == 0 and np.allclose(np.diag(l), 1)
    assert np.abs(np.tril(u, -1)).max() == 0


@pytest.mark.parametrize("col", [0, 100, 250, 299])
def test_singular_matrix(col):
    n = 300
    # x lower triangular with an exact zero at [col, col]: the buffer LAPACK factors
    # (x^T, upper triangular) needs no interchange and its U[col, col] is the first zero
    # pivot, in the first panel, a later one, or the last block
    a = np.tril(RNG.standard_normal((n, n))) + 3 * np.eye(n)
    a[col, col] = 0
    x = oar.to_tensor(a)
    with pytest.raises(ValueError, match=r"singular \(U\[%d, %d\]" % (col, col)) as e:
        oar.linalg.inv(x)
    assert "no inverse" in str(e.value)
    with pytest.raises(ValueError, match=r"singular \(U\[%d, %d\]" % (col, col)):
        oar.linalg.solve(x, oar.to_tensor(a[:, :2]))
    assert oar.linalg.det(x).item() == 0
    assert oar.linalg.slogdet(x)[1].item() == -np.inf
    # the factorisation completes past the zero pivot, as getrf's does
    lu, piv = oar.linalg.lu(x)
    p, l, u = (t.numpy() for t in oar.linalg.lu_unpack(lu, piv))
    np.testing.assert_allclose(p @ l @ u, a, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_single_matches_batch(dtype):
    # a batch of two runs each matrix through LAPACK's own getrf/getri on one thread
    a = _matrix(256, dtype, (2,))
    inv_batch = oar.linalg.inv(oar.to_tensor(a)).numpy()
    inv_one = oar.linalg.inv(oar.to_tensor(a[1])).numpy()
    scale = np.abs(inv_batch[1]).max()
    assert np.abs(inv_one - inv_batch[1]).max() <= _tol(dtype, 256) * 1e3 * scale
    lu_b, piv_b = oar.linalg.lu(oar.to_tensor(a))
    lu_1, piv_1 = oar.linalg.lu(oar.to_tensor(a[1]))
    np.testing.assert_array_equal(piv_1.numpy(), piv_b.numpy()[1])


def test_gradient_through_split_inverse():
    a = _matrix(200, np.float64) + 20 * np.eye(200)
    x = oar.to_tensor(a, stop_gradient=False)
    (oar.linalg.inv(x) ** 2).sum().backward()
    t = torch.tensor(a, requires_grad=True)
    (torch.linalg.inv(t) ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)
