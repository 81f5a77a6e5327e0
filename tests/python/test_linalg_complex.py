"""Complex matrices through oar.linalg's composed functions (the LAPACK ops themselves
are checked against PyTorch by the registry's complex_cases in tests/op_cases/lapack.yaml):
values against PyTorch/NumPy, real results where PyTorch's are real, and gradients of a
real loss (conjugate-Wirtinger convention) for the ones built on the SVD."""
import numpy as np
import pytest
import torch

import oar

RNG = np.random.default_rng(31)


def _c(shape, shift=0.0):
    a = RNG.uniform(-1, 1, shape) + 1j * RNG.uniform(-1, 1, shape)
    if shift:
        a = a + shift * np.eye(shape[-1])
    return a


def _hpd(n):
    b = _c((n, n))
    return b @ b.conj().T + n * np.eye(n)


def _close(got, want, rtol=1e-10, atol=1e-12):
    got = got.numpy() if isinstance(got, oar.Tensor) else np.asarray(got)
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_det_slogdet_are_complex_and_paddle_shaped(dtype):
    a = _c((2, 3, 3), 2.0).astype(dtype)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "complex64" else {}
    _close(oar.linalg.det(oar.to_tensor(a)), np.linalg.det(a), **tol)
    out = oar.linalg.slogdet(oar.to_tensor(a))
    # Paddle's layout: sign and log|det| stacked, in x's (complex) dtype
    assert out.shape == [2, 2] and out.dtype.name == dtype
    sign, logabs = np.linalg.slogdet(a)
    _close(out[0], sign, **tol)
    _close(out[1], logabs.astype(dtype), **tol)


def test_svd_values_are_real_and_phases_fixed():
    a = _c((4, 3))
    u, s, vh = oar.linalg.svd(oar.to_tensor(a))
    assert s.dtype == oar.float64 and u.dtype == oar.complex128
    _close(s, np.linalg.svd(a, compute_uv=False))
    un = u.numpy()
    big = np.abs(un).argmax(0)
    lead = un[big, np.arange(3)]
    np.testing.assert_allclose(lead.imag, 0, atol=1e-15)
    assert (lead.real > 0).all()
    np.testing.assert_allclose(un * s.numpy() @ vh.numpy(), a, atol=1e-13)
    assert oar.linalg.svdvals(oar.to_tensor(a.astype("complex64"))).dtype == oar.float32


def test_pinv_lstsq_of_complex_keep_the_imaginary_part():
    # These cast complex input to float32 before (the imaginary part was dropped).
    a = _c((4, 3))
    b = _c((4, 2))
    _close(oar.linalg.pinv(oar.to_tensor(a)), np.linalg.pinv(a))
    h = _hpd(3)
    _close(oar.linalg.pinv(oar.to_tensor(h), hermitian=True), np.linalg.pinv(h, hermitian=True))
    sol, res, rank, sv = oar.linalg.lstsq(oar.to_tensor(a), oar.to_tensor(b), driver="gelsd")
    want, want_res, want_rank, want_sv = np.linalg.lstsq(a, b, rcond=None)
    _close(sol, want)
    _close(res, want_res)  # real, as NumPy's and PyTorch's
    assert int(rank.numpy()) == want_rank
    _close(sv, want_sv)


def test_norms_cond_rank_of_complex():
    a = _c((3, 3), 1.0)
    t = oar.to_tensor(a)
    ta = torch.tensor(a)
    for p in [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]:
        _close(oar.linalg.cond(t, p), torch.linalg.cond(ta, p))
    for p in ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]:
        _close(oar.linalg.matrix_norm(t, p), torch.linalg.matrix_norm(ta, p))
    for p in [1, 2, 3, np.inf, -np.inf, 0]:
        _close(oar.linalg.vector_norm(t, p), torch.linalg.vector_norm(ta, p))
    _close(oar.linalg.norm(t), torch.linalg.norm(ta))
    low = _c((4, 2)) @ _c((2, 4))  # rank 2
    assert int(oar.linalg.matrix_rank(oar.to_tensor(low)).numpy()) == 2
    h = _hpd(3)
    assert int(oar.linalg.matrix_rank(oar.to_tensor(h), hermitian=True).numpy()) == 3


def test_cov_corrcoef_of_complex_match_numpy():
    x = _c((3, 5))
    _close(oar.linalg.cov(oar.to_tensor(x)), np.cov(x))
    w = np.array([1, 2, 1, 3, 1])
    _close(oar.linalg.cov(oar.to_tensor(x), fweights=oar.to_tensor(w)), np.cov(x, fweights=w))
    _close(oar.linalg.corrcoef(oar.to_tensor(x)), np.corrcoef(x))


def test_cholesky_solve_inverse_lu_solve_of_complex():
    h = _hpd(3)
    b = _c((3, 2))
    for upper in (False, True):
        f = oar.linalg.cholesky(oar.to_tensor(h), upper=upper)
        _close(oar.linalg.cholesky_solve(oar.to_tensor(b), f, upper=upper),
               np.linalg.solve(h, b))
        _close(oar.linalg.cholesky_inverse(f, upper=upper), np.linalg.inv(h))
    a = _c((3, 3), 2.0)
    lu, piv = oar.linalg.lu(oar.to_tensor(a))
    for trans, op in (("N", a), ("T", a.T), ("C", a.conj().T)):
        _close(oar.linalg.lu_solve(oar.to_tensor(b), lu, piv, trans=trans),
               np.linalg.solve(op, b))


def test_matrix_exp_of_complex():
    a = _c((3, 3))
    _close(oar.linalg.matrix_exp(oar.to_tensor(a)), torch.linalg.matrix_exp(torch.tensor(a)))


def test_lowrank_refuses_complex():
    with pytest.raises(TypeError, match=r"svd_lowrank\(\): argument 'x' must be a real"):
        oar.linalg.svd_lowrank(oar.to_tensor(_c((4, 3))))
    with pytest.raises(TypeError, match=r"pca_lowrank\(\): argument 'x' must be a real"):
        oar.linalg.pca_lowrank(oar.to_tensor(_c((4, 3))))


@pytest.mark.parametrize("fn", [
    lambda L, x: L.pinv(x),
    lambda L, x: L.norm(x, "nuc"),
    lambda L, x: L.cond(x),
    lambda L, x: L.det(x),
    lambda L, x: L.vector_norm(x, 3),
    lambda L, x: L.lstsq(x[..., :3, :2], x[..., :3, 2:])[0],
], ids=["pinv", "nuc", "cond", "det", "vector_norm", "lstsq"])
def test_gradients_of_complex_match_torch(fn):
    a = _c((3, 3), 1.5)
    g_shape = np.shape(fn(torch.linalg, torch.tensor(a)).detach().numpy())
    out_t = fn(torch.linalg, torch.tensor(a))
    g = RNG.standard_normal(g_shape) + (1j * RNG.standard_normal(g_shape)
                                        if out_t.is_complex() else 0)
    ta = torch.tensor(a, requires_grad=True)
    (torch.tensor(g).conj() * fn(torch.linalg, ta)).real.sum().backward()
    x = oar.to_tensor(a, stop_gradient=False)
    out = fn(oar.linalg, x)
    (gx,) = oar.grad([out], [x], [oar.to_tensor(g.astype(out.dtype.name))])
    _close(gx, ta.grad, rtol=1e-8, atol=1e-10)
