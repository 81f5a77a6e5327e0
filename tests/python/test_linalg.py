"""oar.linalg's eig, eigvals, complex eigh/solve/inverse, the LU gradient, lu_solve,
matrix_exp, householder_product, ormqr, svd_lowrank, pca_lowrank and vecdot against
torch.linalg (values and gradients), and their typed errors."""
import numpy as np
import pytest
import torch

import oar

RNG = np.random.default_rng(11)


def _t(a, dtype=None, grad=False):
    a = np.asarray(a)
    t = oar.to_tensor(a if dtype is None else a.astype(dtype))
    t.stop_gradient = not grad
    return t


def _fixed_phase(v):
    """torch eigenvectors with oar's phase rule: the largest-magnitude entry of each
    column real and positive."""
    idx = v.abs().argmax(dim=-2, keepdim=True)
    big = v.gather(-2, idx)
    return v * (big.conj() / big.abs())


def _matrix(n, batch=()):
    # distinct, well separated eigenvalues (complex pairs included)
    return RNG.standard_normal(batch + (n, n)) + np.diag(np.arange(1.0, n + 1) * 1.5)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_eig_values_vectors_vs_torch(dtype):
    a = _matrix(4, (2,))
    if dtype == "complex128":
        a = a + 1j * RNG.standard_normal(a.shape)
    w, v = oar.linalg.eig(_t(a, dtype))
    wt, vt = torch.linalg.eig(torch.tensor(a.astype(dtype)))
    assert w.dtype.name == ("complex64" if dtype == "float32" else "complex128")
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(w.numpy(), wt.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(v.numpy(), _fixed_phase(vt).numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(oar.linalg.eigvals(_t(a, dtype)).numpy(), wt.numpy(), rtol=tol,
                               atol=tol)


@pytest.mark.parametrize("phase_invariant", [True, False])
def test_eig_gradient_vs_torch(phase_invariant):
    a = _matrix(4)
    a[:2, :2] = [[1.0, -2.0], [2.0, 1.5]]  # a complex-conjugate pair of eigenvalues
    wa, wb = RNG.standard_normal(4), RNG.standard_normal(4)
    wc = RNG.standard_normal((4, 4)) + 1j * RNG.standard_normal((4, 4))
    x = _t(a, grad=True)
    w, v = oar.linalg.eig(x)
    vpart = oar.abs(v) * _t(wc.real) if phase_invariant else oar.real(v * _t(wc))
    (oar.real(w) * _t(wa) + oar.imag(w) * _t(wb)).sum().backward(retain_graph=True)
    g_values = x.grad.numpy().copy()
    x.clear_grad()
    vpart.sum().backward()
    xt = torch.tensor(a, requires_grad=True)
    wt, vt = torch.linalg.eig(xt)
    if not phase_invariant:  # the loss sees oar's phase-fixed eigenvectors
        vt = _fixed_phase(vt)
    (wt.real * torch.tensor(wa) + wt.imag * torch.tensor(wb)).sum().backward(retain_graph=True)
    np.testing.assert_allclose(g_values, xt.grad.numpy(), rtol=1e-8, atol=1e-10)
    xt.grad = None
    tv = vt.abs() * torch.tensor(wc.real) if phase_invariant else (vt * torch.tensor(wc)).real
    tv.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_complex_eigh_solve_inverse():
    b = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
    h = b @ b.conj().T + np.eye(3)
    w, v = oar.linalg.eigh(_t(h))
    assert w.dtype == oar.float64 and v.dtype == oar.complex128
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(h), rtol=1e-12)
    vn = v.numpy()
    np.testing.assert_allclose(h @ vn, vn * w.numpy(), atol=1e-10)
    np.testing.assert_allclose(oar.linalg.eigvalsh(_t(h, "complex64"), UPLO="U").numpy(),
                               np.linalg.eigvalsh(h, "U"), rtol=1e-5)
    rhs = RNG.standard_normal((3, 2)) + 1j * RNG.standard_normal((3, 2))
    np.testing.assert_allclose(oar.linalg.solve(_t(b), _t(rhs)).numpy(),
                               np.linalg.solve(b, rhs), rtol=1e-10)
    np.testing.assert_allclose(oar.linalg.inv(_t(b)).numpy(), np.linalg.inv(b), rtol=1e-10)
    # complex solve's gradient follows PyTorch's convention
    bx, rx = _t(b, grad=True), _t(rhs, grad=True)
    oar.abs(oar.linalg.solve(bx, rx)).sum().backward()
    bt, rt = torch.tensor(b, requires_grad=True), torch.tensor(rhs, requires_grad=True)
    torch.linalg.solve(bt, rt).abs().sum().backward()
    np.testing.assert_allclose(bx.grad.numpy(), bt.grad.numpy(), rtol=1e-9)
    np.testing.assert_allclose(rx.grad.numpy(), rt.grad.numpy(), rtol=1e-9)
    # complex eigvalsh's gradient: the lower triangle it reads, a real diagonal
    hx = _t(h, grad=True)
    oar.linalg.eigvalsh(hx).sum().backward()
    ht = torch.tensor(h, requires_grad=True)
    hl = ht.tril(-1) + ht.tril(-1).mH + torch.diag_embed(ht.diagonal().real.to(ht.dtype))
    torch.linalg.eigvalsh(hl).sum().backward()
    np.testing.assert_allclose(hx.grad.numpy(), ht.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 4), (2, 4, 4), (3, 5), (2, 5, 3)])
def test_lu_gradient_vs_torch(shape):
    a = RNG.standard_normal(shape) + 2 * np.eye(shape[-2], shape[-1])
    w = RNG.standard_normal(a.shape)
    x = _t(a, grad=True)
    lu, piv = oar.linalg.lu(x)
    (lu * _t(w)).sum().backward()
    xt = torch.tensor(a, requires_grad=True)
    lut, pivt = torch.linalg.lu_factor(xt)
    np.testing.assert_array_equal(piv.numpy(), pivt.numpy())
    (lut * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("trans", ["N", "T"])
def test_lu_solve_vs_torch(trans):
    a, b = _matrix(3, (2,)), RNG.standard_normal((2, 3, 2))
    x, bb = _t(a, grad=True), _t(b, grad=True)
    lu, piv = oar.linalg.lu(x)
    got = oar.linalg.lu_solve(bb, lu, piv, trans)
    xt, bt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    lut, pivt = torch.linalg.lu_factor(xt)
    want = torch.linalg.lu_solve(lut, pivt, bt, adjoint=trans == "T")
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-10)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(bb.grad.numpy(), bt.grad.numpy(), rtol=1e-9)
    with pytest.raises(ValueError, match="trans"):
        oar.linalg.lu_solve(bb, lu, piv, "X")


@pytest.mark.parametrize("scale", [0.01, 0.6, 3.0, 40.0])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_matrix_exp_vs_torch(scale, dtype):
    a = RNG.standard_normal((2, 4, 4)) * scale / 4
    x = _t(a, dtype, grad=True)
    out = oar.linalg.matrix_exp(x)
    xt = torch.tensor(a.astype(dtype), requires_grad=True)
    want = torch.linalg.matrix_exp(xt)
    rtol = 1e-11 if dtype == "float64" else 2e-5
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=rtol,
                               atol=rtol * float(want.detach().abs().max()))
    w = RNG.standard_normal(a.shape)
    (out * _t(w, dtype)).sum().backward()
    (want * torch.tensor(w.astype(dtype))).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=rtol * 10,
                               atol=rtol * 10 * float(xt.grad.abs().max()))


def test_householder_product_and_ormqr_vs_torch():
    a = RNG.standard_normal((2, 5, 3))
    qr_packed, tau = torch.geqrf(torch.tensor(a))
    x, t = _t(qr_packed.numpy(), grad=True), _t(tau.numpy(), grad=True)
    q = oar.linalg.householder_product(x, t)
    xt, tt = qr_packed.clone().requires_grad_(), tau.clone().requires_grad_()
    qt = torch.linalg.householder_product(xt, tt)
    np.testing.assert_allclose(q.numpy(), qt.detach().numpy(), rtol=1e-12, atol=1e-14)
    w = RNG.standard_normal(q.shape)
    (q * _t(w)).sum().backward()
    (qt * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-10, atol=1e-12)
    # ormqr: square reflectors (where Paddle's definition and LAPACK's agree)
    sq, stau = torch.geqrf(torch.tensor(RNG.standard_normal((4, 4))))
    y = RNG.standard_normal((4, 3))
    for left, trans in ((True, False), (True, True)):
        got = oar.linalg.ormqr(_t(sq.numpy()), _t(stau.numpy()), _t(y), left, trans)
        np.testing.assert_allclose(got.numpy(), torch.ormqr(sq, stau, torch.tensor(y), left,
                                                            trans).numpy(), rtol=1e-12)
    yr = RNG.standard_normal((3, 4))
    got = oar.linalg.ormqr(_t(sq.numpy()), _t(stau.numpy()), _t(yr), left=False)
    np.testing.assert_allclose(got.numpy(), torch.ormqr(sq, stau, torch.tensor(yr), False,
                                                        False).numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="tau"):
        oar.linalg.householder_product(x, _t(np.ones((2, 4))))
    with pytest.raises(ValueError, match="cannot be multiplied"):
        oar.linalg.ormqr(_t(sq.numpy()), _t(stau.numpy()), _t(np.ones((3, 3))))


def test_lowrank_svd_and_pca():
    a = RNG.standard_normal((3, 7, 5))
    u, s, v = oar.linalg.svd_lowrank(_t(a), q=5)
    assert u.shape == [3, 7, 5] and s.shape == [3, 5] and v.shape == [3, 5, 5]
    recon = u.numpy() * s.numpy()[:, None, :] @ v.numpy().transpose(0, 2, 1)
    np.testing.assert_allclose(recon, a, atol=1e-10)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    wide = a.transpose(0, 2, 1)
    u, s, v = oar.linalg.svd_lowrank(_t(wide), q=5)
    assert u.shape == [3, 5, 5] and v.shape == [3, 7, 5]
    np.testing.assert_allclose(u.numpy() * s.numpy()[:, None, :] @ v.numpy().transpose(0, 2, 1),
                               wide, atol=1e-10)
    u, s, v = oar.linalg.pca_lowrank(_t(a[0]))
    centred = a[0] - a[0].mean(0)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(centred, compute_uv=False), rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, centred, atol=1e-10)
    m = _t(np.full((7, 5), 0.5))
    u, s, v = oar.linalg.svd_lowrank(_t(a[0]), q=5, M=m)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, a[0] - 0.5, atol=1e-10)
    with pytest.raises(ValueError, match="q"):
        oar.linalg.pca_lowrank(_t(a[0]), q=6)


def test_vecdot_vs_torch():
    x = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
    y = RNG.standard_normal((3,)) + 1j * RNG.standard_normal((3,))
    np.testing.assert_allclose(oar.linalg.vecdot(_t(x), _t(y)).numpy(),
                               torch.linalg.vecdot(torch.tensor(x), torch.tensor(y)).numpy())
    r = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(oar.linalg.vecdot(_t(r), _t(r), axis=0).numpy(),
                               (r * r).sum(0))


# ---- a batch of small matrices runs on the pool (Note [A batch of small matrices runs
# on the pool], lapack_kernels.cc): each matrix as it would be alone, errors in order ----
def _small_batch(seed=0, shape=(64, 24, 24)):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    return a, oar.to_tensor(a)


@pytest.mark.parametrize("name, f", [
    ("inv", lambda t: oar.linalg.inv(t)),
    ("det", lambda t: oar.linalg.det(t)),
    ("slogdet", lambda t: tuple(oar.linalg.slogdet(t))),  # Paddle's stacked [2, batch]
    ("solve", lambda t: oar.linalg.solve(t, t[..., :3])),
    ("triangular_solve", lambda t: oar.linalg.triangular_solve(t, t[..., :3])),
    ("cholesky", lambda t: oar.linalg.cholesky(oar.matmul(t, t, transpose_y=True))),
    ("qr", lambda t: oar.linalg.qr(t)),
    ("svd", lambda t: oar.linalg.svd(t)),
    ("eig", lambda t: oar.linalg.eig(t)),
    ("eigh", lambda t: oar.linalg.eigh(t + t.mT)),
    ("lu", lambda t: oar.linalg.lu(t)),
])
def test_batched_lapack_equals_one_matrix_at_a_time(name, f):
    a, t = _small_batch()
    whole = f(t)
    whole = whole if isinstance(whole, (tuple, list)) else (whole,)
    for i in (0, 17, 63):
        one = f(t[i:i + 1])
        one = one if isinstance(one, (tuple, list)) else (one,)
        for w, o in zip(whole, one):
            np.testing.assert_array_equal(w.numpy()[i:i + 1] if w.ndim else w.numpy(),
                                          o.numpy(), err_msg=f"{name}, matrix {i}")


def test_batched_lapack_reports_the_first_failing_matrix():
    a, _ = _small_batch(1)
    a[50] = 0.0
    a[40] = 0.0
    with pytest.raises(ValueError, match="batch index 40 of argument 'x' is singular"):
        oar.linalg.inv(oar.to_tensor(a))
    spd = np.einsum("bij,bkj->bik", a, a) + 1e-3 * np.eye(24)
    spd[33] = -np.eye(24)
    spd[60] = -np.eye(24)
    with pytest.raises(ValueError, match="batch index 33 of argument 'x' is not positive"):
        oar.linalg.cholesky(oar.to_tensor(spd))
