"""oar.linalg.eigh of matrices large enough (n >= 128) for the split path
(src/oar/kernels/cpu/lapack_eigh.cc: the tridiagonal torn in two halves solved on two
threads, then merged) and of batches run in parallel: accuracy against numpy in
float64, the sign rule, cases where the merge deflates most or all of its columns,
the matrices syevd would scale (left to it), batch independence, and the gradient."""
import numpy as np
import pytest
import torch

import oar

RNG = np.random.default_rng(7)


def _symmetric(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return a + np.swapaxes(a, -1, -2)


def _with_eigenvalues(w):
    q, _ = np.linalg.qr(RNG.standard_normal((len(w), len(w))))
    return (q * w) @ q.T


def _check(x, uplo="L"):
    """eigh of x against numpy: eigenvalues, residual, orthogonality (all relative to
    the spectrum's scale, in units of the dtype's eps times n) and the sign rule."""
    dtype = x.dtype
    w, v = oar.linalg.eigh(oar.to_tensor(x), UPLO=uplo)
    w, v = w.numpy().astype(np.float64), v.numpy().astype(np.float64)
    tri = np.tril(x) if uplo == "L" else np.triu(x)
    full = (tri + np.swapaxes(tri, -1, -2)).astype(np.float64)
    full[..., range(x.shape[-1]), range(x.shape[-1])] /= 2
    ref = np.linalg.eigvalsh(full)
    n = x.shape[-1]
    tol = 30 * n * np.finfo(dtype).eps
    scale = max(np.abs(ref).max(), np.finfo(np.float64).tiny)
    np.testing.assert_allclose(w, ref, atol=tol * scale, rtol=0)
    assert np.abs(full @ v - v * w[..., None, :]).max() <= tol * scale
    assert np.abs(np.swapaxes(v, -1, -2) @ v - np.eye(n)).max() <= tol
    big = np.take_along_axis(v, np.abs(v).argmax(-2)[..., None, :], -2)
    assert (big > 0).all()


@pytest.mark.parametrize("n", [128, 129, 255, 300])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_split_sizes(n, dtype, uplo):
    x = _symmetric(n).astype(dtype)
    # the other triangle must not be read
    if uplo == "L":
        x[np.triu_indices(n, 1)] = np.nan
    else:
        x[np.tril_indices(n, -1)] = np.nan
    _check(x, uplo)


@pytest.mark.parametrize("case", ["identity", "diagonal", "clusters", "torn", "zero", "rank1"])
def test_eigh_split_deflation(case):
    n = 200
    if case == "identity":
        x = np.eye(n)
    elif case == "diagonal":  # already tridiagonal with a zero coupling everywhere
        x = np.diag(RNG.standard_normal(n))
    elif case == "clusters":  # eigenvalues 8-fold repeated
        x = _with_eigenvalues(np.repeat(np.arange(n // 8), 8).astype(float))
    elif case == "torn":  # two blocks: the halves' coupling is exactly zero
        x = np.zeros((n, n))
        x[:100, :100], x[100:, 100:] = _symmetric(100), _symmetric(100)
    elif case == "zero":
        x = np.zeros((n, n))
    else:
        u = RNG.standard_normal(n)
        x = np.outer(u, u)
    for dtype in (np.float32, np.float64):
        _check(x.astype(dtype))


@pytest.mark.parametrize("scale", [1e-30, 1e30, 1e-200])
def test_eigh_scaled_matrices(scale):
    # norms near under- or overflow go to syevd, which scales them
    x = _symmetric(150)
    dtype = np.float64 if scale == 1e-200 else np.float32
    x = (x * scale).astype(dtype)
    w, _ = oar.linalg.eigh(oar.to_tensor(x))
    ref = np.linalg.eigvalsh(x.astype(np.float64))
    np.testing.assert_allclose(w.numpy(), ref, rtol=0, atol=1e-4 * np.abs(ref).max())
    _check(x)


@pytest.mark.parametrize("n", [20, 150])
def test_eigh_nan_is_left_to_syevd(n):
    # syevd's answer: a convergence error or NaN eigenvalues, never finite ones
    x = _symmetric(n).astype(np.float32)
    x[3, 5] = x[5, 3] = np.nan
    try:
        w, _ = oar.linalg.eigh(oar.to_tensor(x))
    except ValueError as e:
        assert "did not converge" in str(e)
    else:
        assert np.isnan(w.numpy()).any()


@pytest.mark.parametrize("shape", [(64, 32), (3, 130), (2, 3, 8)])
def test_eigh_batch_matches_single(shape):
    # each batch element is solved the same way as the matrix alone: bitwise equal
    x = _symmetric(shape[-1], shape[:-1]).astype(np.float32)
    w, v = oar.linalg.eigh(oar.to_tensor(x))
    flat = x.reshape(-1, shape[-1], shape[-1])
    wb, vb = w.numpy().reshape(len(flat), -1), v.numpy().reshape(flat.shape)
    for i, m in enumerate(flat):
        wi, vi = oar.linalg.eigh(oar.to_tensor(m))
        np.testing.assert_array_equal(wb[i], wi.numpy())
        np.testing.assert_array_equal(vb[i], vi.numpy())
    _check(x)


def test_eigh_split_gradient_vs_torch():
    n = 130
    b = RNG.standard_normal((n, n))
    c = RNG.standard_normal(n)
    r = RNG.standard_normal((n, n))

    def loss(lib, bt):
        a = bt @ bt.T + n * lib.eye(n, dtype=bt.dtype)
        w, v = lib.linalg.eigh(a)
        # invariant under each eigenvector's sign
        return (w * lib.to_tensor(c) if lib is oar else w * torch.tensor(c)).sum() + (
            v * v * (lib.to_tensor(r) if lib is oar else torch.tensor(r))).sum()

    bo = oar.to_tensor(b)
    bo.stop_gradient = False
    loss(oar, bo).backward()
    bt = torch.tensor(b, requires_grad=True)
    loss(torch, bt).backward()
    np.testing.assert_allclose(bo.grad.numpy(), bt.grad.numpy(), rtol=1e-6, atol=1e-8)
