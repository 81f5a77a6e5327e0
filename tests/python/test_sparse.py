"""oar.sparse and the sparse Tensor methods against torch.sparse (values and
gradients) and against Paddle's documented behaviour (docs/sparse.md). The C++
sparse ops are also in the op registry (tests/op_cases/sparse*.yaml); this file
covers the Python functions composed of them (sparse.pca_lowrank too), autograd with
sparse gradients (the gradient of oar.sparse.nn.functional.relu for COO and CSR inputs
and for a dense tensor upstream of the conversion), printing and the error paths."""
import math
import re

import numpy as np
import pytest
import torch

import oar
import oar.sparse as S

RNG = np.random.default_rng(7)


def sparse_array(shape, density=0.5, rng=RNG):
    a = rng.uniform(-1, 1, size=shape)
    return np.where(rng.random(shape) < density, a, 0.0)


def dense_np(t):
    return np.asarray(t.to_dense().numpy() if t.is_sparse() else t.numpy())


def leaf(a, fmt, sparse_dim=None):
    """An oar sparse leaf that requires grad, and the torch one."""
    d = oar.to_tensor(a)
    s = d.to_sparse_coo(sparse_dim or a.ndim) if fmt == "coo" else d.to_sparse_csr()
    s.stop_gradient = False
    td = torch.tensor(a)
    if fmt == "csr" and a.ndim == 3:
        return s, None  # torch's batched CSR needs equal counts per matrix
    ts = td.to_sparse(sparse_dim or a.ndim) if fmt == "coo" else td.to_sparse_csr()
    return s, ts.requires_grad_(True)


def masked(g, like):
    """torch's gradient g at the positions of like, dense."""
    g = g.to_dense() if g.layout != torch.strided else g
    like = like.detach()
    return g.sparse_mask(like.coalesce() if like.layout == torch.sparse_coo else like).to_dense()


# ---- construction, parts, conversions ----------------------------------------------------
def test_coo_from_parts_matches_torch():
    idx, vals = [[0, 1, 2, 1], [1, 2, 0, 1]], [1.0, 2.0, 3.0, 4.0]
    x = S.sparse_coo_tensor(idx, vals, [3, 3])
    t = torch.sparse_coo_tensor(idx, vals, (3, 3))
    assert x.is_sparse() and x.is_sparse_coo() and not x.is_sparse_csr() and not x.is_dense()
    assert x.shape == [3, 3] and x.dtype == oar.float32 and x.nnz() == 4
    assert x.sparse_dim() == 2 and x.dense_dim() == 0
    assert x.indices().dtype == oar.int64
    np.testing.assert_array_equal(x.indices().numpy(), idx)
    np.testing.assert_array_equal(dense_np(x), t.to_dense().numpy())
    # shape inferred from the indices, int32 indices stored as int64
    y = S.sparse_coo_tensor(oar.to_tensor(idx, dtype="int32"), vals)
    assert y.shape == [3, 3] and y.indices().dtype == oar.int64


def test_hybrid_coo_and_dense_dim():
    x = S.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], np.array([[3, 4], [5, 6], [7, 8]]), [2, 3, 2])
    assert x.sparse_dim() == 2 and x.dense_dim() == 1 and x.dtype == oar.int64
    t = torch.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [[3, 4], [5, 6], [7, 8]], (2, 3, 2))
    np.testing.assert_array_equal(dense_np(x), t.to_dense().numpy())
    assert oar.to_tensor([[1, 2, 3]]).dense_dim() == 2
    assert oar.to_tensor([1, 2, 3]).sparse_dim() == 0


def test_coalesce_sums_repeated_positions():
    x = S.sparse_coo_tensor([[0, 0, 1], [1, 1, 2]], [1.0, 2.0, 3.0])
    assert not x.is_coalesced()
    c = x.coalesce()
    assert c.is_coalesced()
    t = torch.sparse_coo_tensor([[0, 0, 1], [1, 1, 2]], [1.0, 2.0, 3.0]).coalesce()
    np.testing.assert_array_equal(c.indices().numpy(), t.indices().numpy())
    np.testing.assert_array_equal(c.values().numpy(), t.values().numpy())
    np.testing.assert_array_equal(S.coalesce(x).values().numpy(), [3.0, 3.0])
    # Paddle: only coalesce() sets the flag
    assert not S.sparse_coo_tensor([[0, 1, 1], [1, 0, 2]], [1.0, 2.0, 3.0]).is_coalesced()


@pytest.mark.parametrize("shape", [[3, 4], [2, 3, 4]])
def test_csr_round_trips(shape):
    a = sparse_array(shape)
    x = oar.to_tensor(a).to_sparse_csr()
    # Paddle's layout: each matrix's row starts from 0 (torch's batched CSR needs equal
    # counts per matrix, so it is built per matrix here)
    mats = a.reshape((-1,) + a.shape[-2:])
    ts = [torch.tensor(m).to_sparse_csr() for m in mats]
    np.testing.assert_array_equal(x.crows().numpy(),
                                  np.concatenate([t.crow_indices().numpy() for t in ts]))
    np.testing.assert_array_equal(x.cols().numpy(),
                                  np.concatenate([t.col_indices().numpy() for t in ts]))
    np.testing.assert_array_equal(x.values().numpy(),
                                  np.concatenate([t.values().numpy() for t in ts]))
    np.testing.assert_array_equal(dense_np(x), a)
    coo = x.to_sparse_coo(len(shape))
    np.testing.assert_array_equal(coo.indices().numpy(), torch.tensor(a).to_sparse().indices())
    np.testing.assert_array_equal(dense_np(coo.to_sparse_csr()), a)
    assert x.sparse_dim() == len(shape) and x.dense_dim() == 0


def test_csr_from_parts():
    csr = S.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1, 2, 3, 4, 5], [3, 4])
    t = torch.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1, 2, 3, 4, 5], (3, 4))
    assert csr.dtype == oar.int64 and csr.nnz() == 5
    np.testing.assert_array_equal(dense_np(csr), t.to_dense().numpy())
    np.testing.assert_array_equal(dense_np(csr.to_sparse_coo(2)), t.to_dense().numpy())


def test_dense_to_coo_with_dense_dims():
    a = np.array([[0., 0.], [1., 0.], [0., 0.], [2., 3.]])
    x = oar.to_tensor(a).to_sparse_coo(1)
    t = torch.tensor(a).to_sparse(1)
    np.testing.assert_array_equal(x.indices().numpy(), t.indices().numpy())
    np.testing.assert_array_equal(x.values().numpy(), t.values().numpy())


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                                   "bfloat16", "float32", "float64", "complex64", "complex128"])
def test_structural_ops_in_every_dtype(dtype):
    """The conversions, parts, coalescing, transposes and sums move values as bytes,
    so they are registered for every dtype; each round-trips against numpy."""
    a = (np.array([[0, 1, 0, 2], [3, 0, 0, 1], [0, 0, 4, 0]]) != 0) if dtype == "bool" else \
        np.array([[0, 1, 0, 2], [3, 0, 0, 1], [0, 0, 4, 0]])
    d = oar.to_tensor(a).astype(dtype)
    want = np.asarray(d.astype("float64").numpy()) if dtype not in ("complex64", "complex128") \
        else d.numpy()
    for x in (d.to_sparse_coo(2), d.to_sparse_csr(), d.to_sparse_coo(1)):
        assert x.dtype.name == dtype and x.nnz() == (5 if x.sparse_dim() == 2 else 3)
        back = x.to_dense()
        assert back.dtype.name == dtype
        got = back.numpy() if "complex" in dtype else back.astype("float64").numpy()
        np.testing.assert_array_equal(got, want)
        t = S.transpose(x, [1, 0]) if x.sparse_dim() == 2 else x
        if x.sparse_dim() == 2:
            tb = t.to_dense()
            np.testing.assert_array_equal(tb.numpy() if "complex" in dtype else
                                          tb.astype("float64").numpy(), want.T)
    dup = S.sparse_coo_tensor([[0, 0, 2]], oar.to_tensor([1, 1, 1]).astype(dtype), [3])
    summed = dup.coalesce().to_dense()
    expect = [True, False, True] if dtype == "bool" else [2, 0, 1]
    got = summed.numpy() if "complex" in dtype else summed.astype("float64").numpy()
    np.testing.assert_array_equal(np.real(got), np.asarray(expect, dtype=float))


# ---- printing --------------------------------------------------------------------------
def test_repr_is_paddles_layout():
    coo = S.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0], [3, 3])
    assert repr(coo) == (
        "Tensor(shape=[3, 3], dtype=oar.float32, place=Place(cpu), stop_gradient=True,\n"
        "       indices=[[0, 1, 2],\n"
        "                [1, 2, 0]],\n"
        "       values=[1., 2., 3.])")
    csr = S.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1, 2, 3, 4, 5], [3, 4])
    assert repr(csr) == (
        "Tensor(shape=[3, 4], dtype=oar.int64, place=Place(cpu), stop_gradient=True,\n"
        "       crows=[0, 2, 3, 5],\n"
        "       cols=[1, 3, 2, 0, 1],\n"
        "       values=[1, 2, 3, 4, 5])")


# ---- elementwise functions of the values -----------------------------------------------------
UNARY = [("abs", torch.abs), ("asin", torch.asin), ("asinh", torch.asinh), ("atan", torch.atan),
         ("atanh", torch.atanh), ("sin", torch.sin), ("sinh", torch.sinh), ("tan", torch.tan),
         ("tanh", torch.tanh), ("sqrt", torch.sqrt), ("square", torch.square),
         ("log1p", torch.log1p), ("expm1", torch.expm1), ("neg", torch.neg),
         ("rad2deg", torch.rad2deg), ("deg2rad", torch.deg2rad)]


@pytest.mark.parametrize("fmt", ["coo", "csr"])
@pytest.mark.parametrize("name,tfn", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values_and_masked_grad(name, tfn, fmt):
    a = np.abs(sparse_array([3, 4])) * 0.9  # in the domain of sqrt, asin, atanh
    x, tx = leaf(a, fmt)
    out = getattr(S, name)(x)
    assert out.is_sparse_coo() == (fmt == "coo") and out.nnz() == x.nnz()
    tv = tfn(torch.tensor(a)) * torch.tensor(a != 0)
    np.testing.assert_allclose(dense_np(out), tv.numpy(), rtol=1e-12, atol=1e-12)
    w = RNG.standard_normal(a.shape)
    (g,) = oar.grad([(out.to_dense() * oar.to_tensor(w)).sum()], [x])
    assert g.is_sparse_coo() == (fmt == "coo")
    # torch: the derivative of the values, at x's positions
    tvals = torch.tensor(a[a != 0], requires_grad=True)
    (tg,) = torch.autograd.grad((tfn(tvals) * torch.tensor(w[a != 0])).sum(), tvals)
    want = np.zeros_like(a)
    want[a != 0] = tg.numpy()
    np.testing.assert_allclose(dense_np(g), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_dtypes_and_second_order(dtype):
    a = sparse_array([4, 3]).astype(dtype)
    x = oar.to_tensor(a).to_sparse_coo(2)
    x.stop_gradient = False
    out = S.sin(x)
    assert out.dtype.name == dtype
    (g,) = oar.grad([out.to_dense().sum()], [x], create_graph=True)
    (g2,) = oar.grad([g.to_dense().sum()], [x])
    want = np.where(a != 0, -np.sin(a), 0)
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(dense_np(g2), want, rtol=tol, atol=tol)


def test_pow_cast_isnan():
    x = oar.to_tensor([-2.0, 0.0, 3.0]).to_sparse_coo(1)
    np.testing.assert_array_equal(S.pow(x, 2).values().numpy(), [4.0, 9.0])
    c = S.cast(oar.to_tensor([-2, 0, 1]).to_sparse_coo(1), "int32", "float64")
    assert c.dtype == oar.float64 and c.values().tolist() == [-2.0, 1.0]
    n = S.isnan(oar.to_tensor([[0.0, math.nan], [1.0, 0.0]]).to_sparse_coo(2))
    assert n.dtype == oar.bool and n.values().tolist() == [True, False]


def test_nonlinear_function_of_an_uncoalesced_tensor_coalesces_first():
    x = S.sparse_coo_tensor([[0, 0]], [1.0, 2.0], [2])
    np.testing.assert_allclose(S.square(x).values().numpy(), [9.0])
    np.testing.assert_allclose(S.neg(x).to_dense().numpy(), [-3.0, 0.0])


# ---- arithmetic -------------------------------------------------------------------------
X = np.array([[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]], dtype=np.float64)
Y = np.array([[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]], dtype=np.float64)


@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_add_subtract_multiply_store_the_union(fmt):
    x, _ = leaf(X, fmt)
    y, _ = leaf(Y, fmt)
    union = (X != 0) | (Y != 0)
    for fn, want in ((S.add, X + Y), (S.subtract, X - Y), (S.multiply, X * Y)):
        out = fn(x, y)
        assert out.is_sparse_coo() == (fmt == "coo") and out.nnz() == union.sum()
        np.testing.assert_array_equal(dense_np(out), want)
    # Paddle's rule: each gradient has its input's positions
    (gx, gy) = oar.grad([S.multiply(x, y).to_dense().sum()], [x, y])
    np.testing.assert_array_equal(dense_np(gx), np.where(X != 0, Y, 0))
    np.testing.assert_array_equal(dense_np(gy), np.where(Y != 0, X, 0))
    (gx,) = oar.grad([S.add(x, y).to_dense().sum()], [x])
    np.testing.assert_array_equal(dense_np(gx), (X != 0).astype(float))


@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_divide_of_two_sparse_tensors_stores_every_position(fmt):
    x, _ = leaf(X, fmt)
    y, _ = leaf(Y, fmt)
    out = S.divide(x, y)
    assert out.nnz() == X.size
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_array_equal(dense_np(out), X / Y)


def test_scalar_and_dense_operands():
    x, _ = leaf(X, "coo")
    np.testing.assert_array_equal(dense_np(S.multiply(x, 2.0)), 2 * X)
    np.testing.assert_array_equal(dense_np(S.divide(x, 2.0)), X / 2)
    d = oar.to_tensor(Y)
    np.testing.assert_array_equal(dense_np(S.multiply(x, d)), X * Y)
    out = S.add(x, d)
    assert out.is_dense()
    np.testing.assert_array_equal(out.numpy(), X + Y)


# ---- products -----------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["coo", "csr"])
@pytest.mark.parametrize("batched", [False, True])
def test_matmul_sparse_dense_vs_torch(fmt, batched):
    shape, yshape = ([2, 3, 4], [2, 4, 5]) if batched else ([3, 4], [4, 5])
    a = sparse_array(shape)
    x, tx = leaf(a, fmt)
    b = RNG.standard_normal(yshape)
    y = oar.to_tensor(b, stop_gradient=False)
    out = S.matmul(x, y)
    assert out.is_dense()
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-12, atol=1e-12)
    w = RNG.standard_normal(out.shape)
    gx, gy = oar.grad([(out * oar.to_tensor(w)).sum()], [x, y])
    # d/dx = w @ y^T at x's positions; d/dy = x^T @ w
    np.testing.assert_allclose(dense_np(gx), np.where(a != 0, w @ np.swapaxes(b, -1, -2), 0),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gy.numpy(), np.swapaxes(a, -1, -2) @ w, rtol=1e-12, atol=1e-12)
    if not batched:  # torch.sparse.mm: the same gradients (x's masked)
        ty = torch.tensor(b, requires_grad=True)
        tout = torch.sparse.mm(tx, ty)
        tgx, tgy = torch.autograd.grad((tout * torch.tensor(w)).sum(), [tx, ty])
        np.testing.assert_allclose(dense_np(gx), masked(tgx, tx), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(gy.numpy(), tgy.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_matmul_sparse_sparse_and_dense_sparse(fmt):
    a, b = sparse_array([3, 4]), sparse_array([4, 5])
    x, _ = leaf(a, fmt)
    y, _ = leaf(b, fmt)
    out = S.matmul(x, y)
    assert out.is_sparse() and out.is_sparse_coo() == (fmt == "coo")
    np.testing.assert_allclose(dense_np(out), a @ b, rtol=1e-12, atol=1e-12)
    gx, gy = oar.grad([out.to_dense().sum()], [x, y])
    ones = np.ones([3, 5])
    np.testing.assert_allclose(dense_np(gx), np.where(a != 0, ones @ b.T, 0), atol=1e-12)
    np.testing.assert_allclose(dense_np(gy), np.where(b != 0, a.T @ ones, 0), atol=1e-12)
    d = RNG.standard_normal([2, 3])
    np.testing.assert_allclose(S.matmul(oar.to_tensor(d), x).numpy(), d @ a, atol=1e-12)


@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_masked_matmul_vs_torch(fmt):
    a, b = RNG.standard_normal([3, 4]), RNG.standard_normal([4, 5])
    mask_np = sparse_array([3, 5])
    mask = oar.to_tensor(mask_np)
    mask = mask.to_sparse_coo(2) if fmt == "coo" else mask.to_sparse_csr()
    x = oar.to_tensor(a, stop_gradient=False)
    y = oar.to_tensor(b, stop_gradient=False)
    out = S.masked_matmul(x, y, mask)
    tm = torch.tensor(mask_np)
    tm = tm.to_sparse() if fmt == "coo" else tm.to_sparse_csr()
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    tout = (tx @ ty).sparse_mask(tm)
    np.testing.assert_allclose(dense_np(out), tout.to_dense().detach().numpy(), atol=1e-12)
    gx, gy = oar.grad([out.to_dense().sum()], [x, y])
    ones = (mask_np != 0).astype(float)  # the gradient at the mask's positions
    np.testing.assert_allclose(gx.numpy(), ones @ b.T, atol=1e-12)
    np.testing.assert_allclose(gy.numpy(), a.T @ ones, atol=1e-12)
    if fmt == "coo":  # torch's sparse_mask has no CSR backward
        tgx, tgy = torch.autograd.grad(tout.to_dense().sum(), [tx, ty])
        np.testing.assert_allclose(gx.numpy(), tgx.numpy(), atol=1e-12)
        np.testing.assert_allclose(gy.numpy(), tgy.numpy(), atol=1e-12)


def test_mv_and_addmm():
    a = sparse_array([3, 4])
    v = RNG.standard_normal(4)
    for fmt in ("coo", "csr"):
        x, _ = leaf(a, fmt)
        np.testing.assert_allclose(S.mv(x, oar.to_tensor(v)).numpy(), a @ v, atol=1e-12)
    b, c = RNG.standard_normal([4, 2]), RNG.standard_normal([3, 2])
    x, _ = leaf(a, "csr")
    out = S.addmm(oar.to_tensor(c), x, oar.to_tensor(b), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(out.numpy(), 0.5 * c + 2.0 * a @ b, atol=1e-12)
    bs, cs = sparse_array([4, 2]), sparse_array([3, 2])
    out = S.addmm(oar.to_tensor(cs).to_sparse_coo(2), leaf(a, "coo")[0],
                  oar.to_tensor(bs).to_sparse_coo(2), beta=0.5, alpha=2.0)
    assert out.is_sparse_coo()
    np.testing.assert_allclose(dense_np(out), 0.5 * cs + 2.0 * a @ bs, atol=1e-12)


# ---- positions ------------------------------------------------------------------------------
def test_sum_has_paddles_shapes():
    x = oar.to_tensor([[-2., 0.], [1., 2.]]).to_sparse_coo(1)
    full = S.sum(x)
    assert full.shape == [1] and full.values().tolist() == [1.0]
    a0 = S.sum(x, axis=0)
    assert a0.shape == [1, 2] and a0.indices().tolist() == [[0]]
    assert a0.values().tolist() == [[-1.0, 2.0]]
    a1 = S.sum(x, axis=-1)
    assert a1.shape == [2] and a1.indices().tolist() == [[0, 1]] and a1.values().tolist() == [-2., 3.]
    k = S.sum(x, axis=1, keepdim=True)
    assert k.shape == [2, 1] and k.values().tolist() == [[-2.0], [3.0]]
    assert S.sum(oar.to_tensor([[1, 0], [2, 3]], dtype="int32").to_sparse_coo(2)).dtype == oar.int64
    csr = S.sum(oar.to_tensor(X).to_sparse_csr(), axis=-1)
    assert csr.is_sparse_csr() and csr.shape == [3, 1]
    np.testing.assert_array_equal(dense_np(csr), X.sum(-1, keepdims=True))


@pytest.mark.parametrize("axis,keepdim", [(None, False), (None, True), (0, False), (1, True),
                                          ([0, 2], False), (2, False)])
def test_sum_values_and_grad(axis, keepdim):
    a = sparse_array([3, 4, 2])
    x, _ = leaf(a, "coo", sparse_dim=2)
    out = S.sum(x, axis=axis, keepdim=keepdim)
    ax = tuple(range(3)) if axis is None else tuple(np.atleast_1d(axis))
    want = a.sum(axis=ax, keepdims=keepdim)
    np.testing.assert_allclose(dense_np(out).reshape(-1), np.asarray(want).reshape(-1), atol=1e-12)
    (g,) = oar.grad([out.to_dense().sum()], [x])
    np.testing.assert_array_equal(dense_np(g), np.where(np.any(a != 0, axis=2, keepdims=True),
                                                        1.0, 0.0) * np.ones_like(a))


@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_reshape_transpose_slice(fmt):
    a = sparse_array([2, 3, 4])
    x, _ = leaf(a, fmt)
    r = S.reshape(x, [0, -1, 2, 2] if fmt == "coo" else [6, 4])
    np.testing.assert_array_equal(dense_np(r), a.reshape(r.shape))
    t = S.transpose(x, [0, 2, 1])
    np.testing.assert_array_equal(dense_np(t), a.transpose(0, 2, 1))
    s = S.slice(x, [1, 2], [1, 0], [3, -1])
    np.testing.assert_array_equal(dense_np(s), a[:, 1:3, 0:-1])
    w = RNG.standard_normal(s.shape)
    (g,) = oar.grad([(s.to_dense() * oar.to_tensor(w)).sum()], [x])
    want = np.zeros_like(a)
    want[:, 1:3, 0:-1] = w
    np.testing.assert_allclose(dense_np(g), np.where(a != 0, want, 0), atol=1e-12)
    (g,) = oar.grad([(t.to_dense() * oar.to_tensor(RNG.standard_normal(t.shape))).sum()], [x])
    assert g.is_sparse_coo() == (fmt == "coo") and g.nnz() == x.nnz()


def test_reshape_example_shape():
    dense_x = oar.randint(-100, 100, [6, 2, 3]) * oar.randint(0, 2, [6, 2, 3])
    assert S.reshape(dense_x.to_sparse_coo(3), [1, 0, 2, -1, 3]).shape == [1, 2, 2, 3, 3]


def test_slice_example():
    x = oar.to_tensor(np.asarray([[4, 0, 7, 0], [0, 0, 5, 0], [-4, 2, 0, 0]])).to_sparse_coo(2)
    out = S.slice(x, [0, 1], [1, 0], [3, -2])
    assert out.indices().tolist() == [[1, 1], [0, 1]] and out.values().tolist() == [-4, 2]


def test_mask_as_and_is_same_shape():
    mask = S.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0], [3, 3])
    x = oar.to_tensor(np.arange(9.0).reshape(3, 3), stop_gradient=False)
    out = S.mask_as(x, mask)
    assert out.values().tolist() == [1.0, 5.0, 6.0]
    (g,) = oar.grad([out.values().sum()], [x])
    np.testing.assert_array_equal(g.numpy(), dense_np(mask) != 0)
    y = oar.rand([2, 3, 8]).to_sparse_csr()
    assert S.is_same_shape(oar.rand([2, 3, 8]), y) and not oar.rand([2, 5]).is_same_shape(y)


# ---- activations ----------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_softmax_vs_torch(fmt):
    a = sparse_array([3, 5])
    a[1] = 0  # an empty row
    x, _ = leaf(a, fmt)
    out = S.nn.functional.softmax(x)
    # torch, densely: -inf at the missing entries, which stay missing
    stored = torch.tensor(a != 0)
    ta = torch.tensor(a, requires_grad=True)
    z = torch.where(stored, ta, torch.full_like(ta, -math.inf)).softmax(-1)
    tout = torch.where(stored, z, torch.zeros_like(z))
    np.testing.assert_allclose(dense_np(out), tout.detach().numpy(), atol=1e-12)
    if fmt == "coo":
        ts = torch.sparse.softmax(torch.tensor(a).to_sparse(), -1).to_dense()
        np.testing.assert_allclose(dense_np(out), ts.numpy(), atol=1e-12)
    w = RNG.standard_normal(a.shape)
    (g,) = oar.grad([(out.to_dense() * oar.to_tensor(w)).sum()], [x])
    (tg,) = torch.autograd.grad((tout * torch.tensor(w)).sum(), ta)
    np.testing.assert_allclose(dense_np(g), np.where(a != 0, tg.numpy(), 0), atol=1e-12)
    np.testing.assert_allclose(dense_np(S.nn.Softmax()(x)), dense_np(out))


def test_activation_layers():
    x = oar.to_tensor([-2., 0., 8.]).to_sparse_coo(1)
    assert S.nn.ReLU()(x).values().tolist() == [0.0, 8.0]
    assert S.nn.ReLU6()(x).values().tolist() == [0.0, 6.0]
    assert S.nn.LeakyReLU(0.5)(x).values().tolist() == [-1.0, 8.0]
    assert S.nn.functional.leaky_relu(x, 0.5).values().tolist() == [-1.0, 8.0]


# ---- point clouds: convolution, pooling, normalization ---------------------------------
def _cloud(shape, rng=RNG):
    """A channel-last array with about a third of its sites holding all channels."""
    return rng.standard_normal(shape) * (rng.random(shape[:-1] + [1]) < 0.3)


def _sites(t):
    m = np.zeros(t.shape[:-1], dtype=bool)
    m[tuple(t.indices().numpy())] = True
    return m[..., None]


@pytest.mark.parametrize("subm,kw", [(False, {}), (False, {"stride": 2, "padding": 1}),
                                     (False, {"dilation": 2, "padding": [1, 0, 1]}),
                                     (True, {})])
def test_conv3d_vs_torch_dense_conv(subm, kw):
    a, w, b = _cloud([2, 4, 5, 6, 3]), RNG.standard_normal([3, 3, 3, 3, 2]), \
        RNG.standard_normal([2])
    x = oar.to_tensor(a).to_sparse_coo(4)
    x.stop_gradient = False
    ow, ob = oar.to_tensor(w, stop_gradient=False), oar.to_tensor(b, stop_gradient=False)
    fn = S.nn.functional.subm_conv3d if subm else S.nn.functional.conv3d
    y = fn(x, ow, ob, **kw)
    ta, tw, tb = (torch.tensor(v, requires_grad=True) for v in (a, w, b))
    pad = 1 if subm else kw.get("padding", 0)
    ty = torch.nn.functional.conv3d(ta.permute(0, 4, 1, 2, 3), tw.permute(4, 3, 0, 1, 2), tb,
                                    stride=kw.get("stride", 1), padding=pad,
                                    dilation=kw.get("dilation", 1)).permute(0, 2, 3, 4, 1)
    assert y.shape == list(ty.shape)
    sites = _sites(y)
    if subm:
        np.testing.assert_array_equal(sites[..., 0], np.any(a != 0, -1))
    np.testing.assert_allclose(dense_np(y), np.where(sites, ty.detach().numpy(), 0), atol=1e-12)
    gx, gw, gb = oar.grad([(y.values() ** 2).sum()], [x, ow, ob])
    ((ty * torch.tensor(sites)) ** 2).sum().backward()
    np.testing.assert_allclose(dense_np(gx), ta.grad.numpy() * np.any(a != 0, -1, keepdims=True),
                               atol=1e-10)
    np.testing.assert_allclose(gw.numpy(), tw.grad.numpy(), atol=1e-10)
    np.testing.assert_allclose(gb.numpy(), tb.grad.numpy(), atol=1e-10)


def test_conv2d_and_layers():
    a = _cloud([1, 5, 6, 2])
    x = oar.to_tensor(a).to_sparse_coo(3)
    conv = S.nn.Conv2D(2, 4, 3)
    y = conv(x)
    assert conv.weight.shape == [3, 3, 2, 4] and conv.bias.shape == [4]
    ty = torch.nn.functional.conv2d(torch.tensor(a).permute(0, 3, 1, 2).float(),
                                    torch.tensor(conv.weight.numpy()).permute(3, 2, 0, 1),
                                    torch.tensor(conv.bias.numpy())).permute(0, 2, 3, 1)
    np.testing.assert_allclose(dense_np(y), np.where(_sites(y), ty.numpy(), 0), atol=1e-5)
    assert S.nn.SubmConv2D(2, 4, 3)(x).shape == [1, 5, 6, 4]
    assert S.nn.SubmConv3D(2, 3, (1, 3, 3))(oar.to_tensor(a[None]).to_sparse_coo(4)).shape == \
        [1, 1, 5, 6, 3]
    assert repr(S.nn.Conv3D(2, 3, 3)) == "Conv3D(2, 3, kernel_size=[3, 3, 3], data_format=NDHWC)"


def test_max_pool3d_vs_torch():
    a = _cloud([2, 4, 6, 6, 3])
    x = oar.to_tensor(a).to_sparse_coo(4)
    x.stop_gradient = False
    y = S.nn.functional.max_pool3d(x, 2, stride=2)
    stored = torch.tensor(np.any(a != 0, -1, keepdims=True))
    ta = torch.tensor(a, requires_grad=True)
    ty = torch.nn.functional.max_pool3d(torch.where(stored, ta, -torch.inf).permute(0, 4, 1, 2, 3),
                                        2).permute(0, 2, 3, 4, 1)
    np.testing.assert_allclose(dense_np(y), np.where(_sites(y), ty.detach().numpy(), 0))
    (gx,) = oar.grad([y.values().sum()], [x])
    torch.where(torch.tensor(_sites(y)), ty, 0).sum().backward()
    np.testing.assert_allclose(dense_np(gx), ta.grad.numpy())
    assert S.nn.MaxPool3D(kernel_size=3, data_format="NDHWC")(
        oar.randn([2, 3, 6, 6, 3]).to_sparse_coo(4)).shape == [2, 1, 2, 2, 3]


def test_batch_norm_normalizes_the_stored_entries():
    a = _cloud([2, 3, 4, 5, 3])
    x = oar.to_tensor(a.astype(np.float32)).to_sparse_coo(4)
    bn = S.nn.BatchNorm(3)
    y = bn(x)
    v = a[np.any(a != 0, -1)].astype(np.float32)
    want = (v - v.mean(0)) / np.sqrt(v.var(0) + 1e-5)
    np.testing.assert_allclose(y.values().numpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * v.mean(0), rtol=1e-4, atol=1e-6)
    model = oar.nn.Sequential(S.nn.Conv3D(3, 5, 3), S.nn.BatchNorm(5))
    synced = S.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert type(synced[1]).__name__ == "SyncBatchNorm" and synced[1].weight is model[1].weight
    assert synced(x).shape == [2, 1, 2, 3, 5]


def test_point_cloud_errors():
    x = oar.randn([1, 3, 3, 3, 2]).to_sparse_coo(4)
    F = S.nn.functional
    with pytest.raises(ValueError, match="weight must be"):
        F.conv3d(x, oar.ones([3, 3, 3, 4, 1]))
    with pytest.raises(ValueError, match="4 sparse dimensions"):
        F.conv3d(oar.randn([1, 3, 3, 3, 2]).to_sparse_coo(5), oar.ones([3, 3, 3, 2, 1]))
    with pytest.raises(ValueError, match="stride must be 1"):
        F.subm_conv3d(x, oar.ones([3, 3, 3, 2, 1]), stride=2)
    with pytest.raises(ValueError, match="larger than the padded input"):
        F.conv3d(x, oar.ones([5, 5, 5, 2, 1]))
    with pytest.raises(ValueError, match="data_format"):
        F.conv3d(x, oar.ones([3, 3, 3, 2, 1]), data_format="NCDHW")
    with pytest.raises(ValueError, match="only groups=1"):
        S.nn.Conv3D(2, 2, 3, groups=2)


def test_embedding_sparse_gradient():
    x = oar.to_tensor([[0], [1], [3], [1]], dtype="int64")
    emb = oar.nn.Embedding(4, 3, sparse=True, padding_idx=3)
    out = emb(x)
    w = np.arange(12.0).reshape(4, 1, 3)
    (out * oar.to_tensor(w, dtype="float32")).sum().backward()
    g = emb.weight.grad
    assert g.is_sparse_coo() and g.indices().tolist() == [[0, 1, 3, 1]]
    np.testing.assert_array_equal(dense_np(g), [[0, 1, 2], [12, 14, 16], [0, 0, 0], [0, 0, 0]])
    before = emb.weight.numpy().copy()
    oar.optimizer.SGD(learning_rate=1.0, parameters=[emb.weight]).step()
    np.testing.assert_allclose(emb.weight.numpy(), before - dense_np(g), rtol=1e-6)


# ---- autograd with sparse gradients -----------------------------------------------------
def test_sparse_leaf_grads_accumulate_sparse():
    x, _ = leaf(X, "coo")
    (S.sin(x).to_dense().sum() + S.square(x).to_dense().sum()).backward()
    assert x.grad.is_sparse_coo()
    np.testing.assert_allclose(dense_np(x.grad), np.where(X != 0, np.cos(X) + 2 * X, 0), atol=1e-12)
    S.neg(x).to_dense().sum().backward()  # into the existing .grad
    assert x.grad.is_sparse_coo()
    np.testing.assert_allclose(dense_np(x.grad), np.where(X != 0, np.cos(X) + 2 * X - 1, 0),
                               atol=1e-12)


def test_dense_and_sparse_gradients_sum_dense():
    d = oar.to_tensor(X, stop_gradient=False)
    s = d.to_sparse_coo(2)
    (S.sin(s).to_dense().sum() + d.sum()).backward()
    assert d.grad.is_dense()
    np.testing.assert_allclose(d.grad.numpy(), np.where(X != 0, np.cos(X), 0) + 1, atol=1e-12)


def test_backward_from_a_sparse_tensor_seeds_ones():
    x, _ = leaf(X, "csr")
    S.multiply(x, 3.0).backward()
    np.testing.assert_array_equal(dense_np(x.grad), np.where(X != 0, 3.0, 0))


def test_values_and_constructor_gradients():
    v = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    s = oar._C.sparse_coo_tensor(oar.to_tensor([[0, 1, 1], [1, 2, 2]]), v, [3, 3])
    (g,) = oar.grad([(s.to_dense() * oar.arange(9, dtype="float32").reshape([3, 3])).sum()], [v])
    assert g.tolist() == [1.0, 5.0, 5.0]  # repeated positions each get the gradient there
    x, _ = leaf(X, "coo")
    (x.values() ** 2).sum().backward()
    np.testing.assert_array_equal(dense_np(x.grad), 2 * X)


def test_stop_gradient_of_created_tensor():
    coo = S.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [2], stop_gradient=False)
    assert coo.is_leaf and not coo.stop_gradient
    S.square(coo).to_dense().sum().backward()
    assert coo.grad.values().tolist() == [2.0, 4.0]


# ---- errors --------------------------------------------------------------------------------
def test_dense_op_on_a_sparse_tensor_is_a_type_error():
    x = oar.to_tensor(X).to_sparse_coo(2)
    with pytest.raises(TypeError, match=r"abs\(\).*takes dense tensors, not SPARSE_COO"):
        oar.abs(x)
    with pytest.raises(TypeError, match="to_dense"):
        x.numpy()


def test_sparse_function_errors():
    d = oar.to_tensor(X)
    with pytest.raises(TypeError, match=r"sin\(\): argument 'x' must be a sparse tensor"):
        S.sin(d)
    with pytest.raises(TypeError, match="must be a sparse Tensor, got list"):
        S.sin([1.0])
    with pytest.raises(IndexError, match="out of range"):
        S.sparse_coo_tensor([[0, 5]], [1.0, 2.0], [3])
    with pytest.raises(ValueError, match="values must have one row per column"):
        S.sparse_coo_tensor([[0, 1]], [1.0, 2.0, 3.0], [3])
    with pytest.raises(TypeError, match="int32 or int64"):
        S.sparse_coo_tensor([[0.5, 1.0]], [1.0, 2.0], [3])
    with pytest.raises(ValueError, match="crows must not decrease"):
        S.sparse_csr_tensor([0, 2, 1, 3], [0, 1, 2], [1.0, 2.0, 3.0], [3, 3])
    with pytest.raises(ValueError, match="sparse_dim must be in"):
        d.to_sparse_coo(3)
    with pytest.raises(ValueError, match="2-D or 3-D"):
        oar.ones([2, 2, 2, 2]).to_sparse_csr()
    x, y = d.to_sparse_coo(2), d.to_sparse_csr()
    with pytest.raises(TypeError, match="x is COO but y is CSR"):
        S.add(x, y)
    with pytest.raises(ValueError, match="equal shapes"):
        S.add(x, oar.ones([2, 2]).to_sparse_coo(2))
    with pytest.raises(TypeError, match="nnz"):
        d.nnz()
    with pytest.raises(ValueError, match="cannot multiply"):
        S.matmul(x, oar.ones([3, 2]))
    with pytest.raises(TypeError, match=r"no kernel takes tensors of kinds \(dense\)"):
        oar._C.sparse_values(d)
    with pytest.raises(ValueError, match="mixes the"):
        S.transpose(oar.ones([2, 3]).to_sparse_coo(1), [1, 0])
    with pytest.raises(ValueError, match="last axis"):
        S.sum(y, axis=0)
    with pytest.raises(ValueError, match="runs over its last dimension"):
        oar._C.sparse_softmax(x, 0)
    with pytest.raises(ValueError, match="last dimension of x is dense"):
        oar._C.sparse_row_sum(oar.ones([3, 4]).to_sparse_coo(1))


# ---- documentation -------------------------------------------------------------------
def _public(mod):
    return [(f"{mod.__name__}.{n}", getattr(mod, n)) for n in mod.__all__
            if callable(getattr(mod, n))]


@pytest.mark.parametrize("name,obj", _public(S) + _public(S.nn) + _public(S.nn.functional),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_docstring_examples_run(name, obj):
    """Each public function and layer documents Args and Returns (functions) and has an
    example, which runs and prints what it says."""
    import doctest
    doc = obj.__doc__ or ""
    assert "Examples:" in doc, f"{name}: no example"
    test = doctest.DocTestParser().get_doctest(doc, {"oar": oar}, name, None, 0)
    assert test.examples, f"{name}: the example has no >>> lines"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0, f"{name}: its example fails"


# ---- sparse.pca_lowrank ------------------------------------------------------------------
def sparse_matrix(shape, seed, density=0.45):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) * (rng.random(shape) < density)


@pytest.mark.parametrize("shape", [(9, 5), (5, 9), (6, 6)])
@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_sparse_pca_lowrank_is_the_svd_of_the_centred_matrix(shape, center, fmt):
    d = sparse_matrix(shape, sum(shape))
    t = oar.to_tensor(d)
    x = t.to_sparse_coo(2) if fmt == "coo" else t.to_sparse_csr()
    q = min(shape)
    u, s, v = oar.sparse.pca_lowrank(x, q=q, center=center)
    a = d - d.mean(0) if center else d
    assert u.shape == [shape[0], q] and s.shape == [q] and v.shape == [shape[1], q]
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False), atol=1e-10)
    np.testing.assert_allclose(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, a, atol=1e-10)
    np.testing.assert_allclose(u.numpy().T @ u.numpy(), np.eye(q), atol=1e-10)
    np.testing.assert_allclose(v.numpy().T @ v.numpy(), np.eye(q), atol=1e-10)


def test_sparse_pca_lowrank_defaults_batches_and_low_rank():
    d = np.zeros((12, 9))
    d[:, 0] = np.arange(12.0) % 3
    d[:, 4] = 2 * d[:, 0]
    d[2:5, 6] = 1.0
    d[7, 8] = 3.0
    x = oar.to_tensor(d).to_sparse_coo(2)
    u, s, v = oar.sparse.pca_lowrank(x)  # q = min(6, m, n)
    a = d - d.mean(0)
    ref = np.linalg.svd(a, compute_uv=False)
    assert s.shape == [6]
    np.testing.assert_allclose(s.numpy(), ref[:6], atol=1e-10)  # rank 3: exact
    np.testing.assert_allclose(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, a, atol=1e-10)
    b = np.stack([sparse_matrix((6, 4), 1), sparse_matrix((6, 4), 2)]).astype(np.float32)
    ub, sb, vb = oar.sparse.pca_lowrank(oar.to_tensor(b).to_sparse_coo(3), q=4)
    assert sb.dtype == oar.float32 and ub.shape == [2, 6, 4] and vb.shape == [2, 4, 4]
    ref = np.linalg.svd(b - b.mean(1, keepdims=True), compute_uv=False)
    np.testing.assert_allclose(sb.numpy(), ref, atol=1e-5)
    ints = oar.to_tensor([[1, 0], [0, 2], [3, 0]]).to_sparse_coo(2)
    assert oar.sparse.pca_lowrank(ints, center=False)[1].dtype == oar.float32


def test_sparse_pca_lowrank_gradient_is_the_nuclear_norm_gradient():
    d = sparse_matrix((7, 4), 3, density=0.6)
    x = oar.to_tensor(d).to_sparse_coo(2)
    x.stop_gradient = False
    u, s, v = oar.sparse.pca_lowrank(x, q=4)
    s.sum().backward()
    # sum(S) is the nuclear norm of (I - 11^T/m) X: its gradient is (I - 11^T/m) U V^T
    a = d - d.mean(0)
    ua, _, vha = np.linalg.svd(a, full_matrices=False)
    m = d.shape[0]
    want = (np.eye(m) - np.ones((m, m)) / m) @ ua @ vha
    g = x.grad
    assert g.is_sparse()
    np.testing.assert_allclose(g.to_dense().numpy(), want * (d != 0), atol=1e-9)


@pytest.mark.parametrize("make, kwargs, err, what", [
    (lambda: oar.ones([3, 3]), {}, ValueError, "argument 'x' must be sparse"),
    (lambda: np.ones((3, 3)), {}, ValueError, "argument 'x' must be a sparse Tensor"),
    (lambda: oar.ones([3]).to_sparse_coo(1), {}, ValueError, "argument 'x' must be a matrix"),
    (lambda: oar.ones([3, 2]).to_sparse_coo(2), {"q": 3}, ValueError, "argument 'q'"),
    (lambda: oar.ones([3, 2]).to_sparse_coo(2), {"q": -1}, ValueError, "argument 'q'"),
    (lambda: oar.ones([3, 2]).to_sparse_coo(2), {"niter": -1}, ValueError, "argument 'niter'"),
    (lambda: oar.ones([3, 2]).to_sparse_coo(2), {"q": 1.5}, TypeError, "q")])
def test_sparse_pca_lowrank_errors(make, kwargs, err, what):
    with pytest.raises(err, match=re.escape("sparse.pca_lowrank(): ") + ".*" + re.escape(what)):
        oar.sparse.pca_lowrank(make(), **kwargs)


# PyTorch warns on every CSR tensor it makes
pytestmark = pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")


# ---- sparse relu's gradient ---------------------------------------------------------------
def _sparse_data(rng, shape):
    d = rng.standard_normal(shape)
    d[rng.uniform(size=shape) < 0.35] = 0.0  # unstored positions
    return d


CONVERT = {  # oar's conversion and PyTorch's
    "coo": (lambda t: t.to_sparse_coo(2), lambda t: t.to_sparse(2)),
    "coo_hybrid": (lambda t: t.to_sparse_coo(1), lambda t: t.to_sparse(1)),
    "csr": (lambda t: t.to_sparse_csr(), lambda t: t.to_sparse_csr()),
}


def _same_positions(g, x):
    if x.is_sparse_coo():
        assert g.is_sparse_coo()
        np.testing.assert_array_equal(g.indices().numpy(), x.indices().numpy())
    else:
        assert g.is_sparse_csr()
        np.testing.assert_array_equal(g.crows().numpy(), x.crows().numpy())
        np.testing.assert_array_equal(g.cols().numpy(), x.cols().numpy())


@pytest.mark.parametrize("layout", sorted(CONVERT))
def test_sparse_relu_gradient_of_a_sparse_leaf_vs_torch(layout):
    # PyTorch's sparse relu gradient, through to_dense, is masked to the input's stored
    # positions too (to_dense's backward is a sparse_mask), so the two compare directly
    rng = np.random.default_rng(len(layout))
    d, w = _sparse_data(rng, (4, 5)), rng.standard_normal((4, 5))
    to_oar, to_torch = CONVERT[layout]
    x = to_oar(oar.to_tensor(d))
    x.stop_gradient = False
    y = oar.sparse.nn.functional.relu(x)
    assert y.is_sparse_coo() == x.is_sparse_coo() and y.is_sparse_csr() == x.is_sparse_csr()
    (y.to_dense() * oar.to_tensor(w)).sum().backward()
    tx = to_torch(torch.tensor(d)).requires_grad_()
    ty = torch.relu(tx)
    (ty.to_dense() * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(y.to_dense().numpy(), ty.to_dense().detach().numpy())
    _same_positions(x.grad, x)
    np.testing.assert_allclose(x.grad.to_dense().numpy(), tx.grad.to_dense().numpy(),
                               rtol=1e-12)
    # the values: the upstream gradient where the stored value is positive, else 0
    np.testing.assert_allclose(x.grad.to_dense().numpy(), w * (d > 0), rtol=1e-12)


def test_sparse_relu_gradient_batched_csr_stored_zero_uncoalesced():
    # cases PyTorch cannot be the oracle for (its batched CSR to_dense has no backward)
    rng = np.random.default_rng(3)
    d, w = _sparse_data(rng, (2, 3, 4)), rng.standard_normal((2, 3, 4))
    x = oar.to_tensor(d).to_sparse_csr()
    x.stop_gradient = False
    (oar.sparse.nn.functional.relu(x).to_dense() * oar.to_tensor(w)).sum().backward()
    _same_positions(x.grad, x)
    np.testing.assert_allclose(x.grad.to_dense().numpy(), w * (d > 0), rtol=1e-12)

    # a stored 0 stays a position of the gradient with relu'(0) = 0; an uncoalesced
    # COO tensor's repeated entries add up before relu, so each entry gets the gradient
    # at its position: (0, 0) holds 2 - 3 < 0, (1, 1) holds -1 + 3 > 0
    idx = np.array([[0, 0, 1, 1, 2], [0, 0, 1, 1, 2]])
    x = oar.sparse.sparse_coo_tensor(oar.to_tensor(idx),
                                     oar.to_tensor([2.0, -3.0, -1.0, 3.0, 0.0]), [3, 3],
                                     stop_gradient=False)
    assert not x.is_coalesced()
    w = np.arange(1.0, 10.0).reshape(3, 3)
    (oar.sparse.nn.functional.relu(x).to_dense() * oar.to_tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.indices().numpy(), idx)
    np.testing.assert_array_equal(x.grad.values().numpy(), [0.0, 0.0, 5.0, 5.0, 0.0])


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_sparse_relu_gradient_reaches_a_dense_input(layout):
    # A dense tensor converted to sparse gets a dense gradient: the sparse one at the
    # stored positions, zero elsewhere (docs/sparse.md, Gradients)
    rng = np.random.default_rng(5)
    d, w = _sparse_data(rng, (4, 5)), rng.standard_normal((4, 5))
    to_oar, to_torch = CONVERT[layout]
    x = oar.to_tensor(d, stop_gradient=False)
    (oar.sparse.nn.functional.relu(to_oar(x)).to_dense() * oar.to_tensor(w)).sum().backward()
    tx = torch.tensor(d, requires_grad=True)
    (torch.relu(to_torch(tx)).to_dense() * torch.tensor(w)).sum().backward()
    assert not x.grad.is_sparse_coo() and not x.grad.is_sparse_csr()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), w * (d > 0), rtol=1e-12)
