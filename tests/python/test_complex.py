"""complex64 / complex128: creation, numpy, printing, casts, promotion, the kernels
that take complex inputs, and gradients with PyTorch's (and Paddle's) convention
for real losses (the gradient w.r.t. z = x + iy is dL/dx + i dL/dy), checked
against torch. The per-op forward/grad/double-grad cases are in tests/op_cases/
(`complex_cases`), run by test_ops_vs_torch.py."""
import numpy as np
import pytest
import torch

import oar

CDT = ["complex64", "complex128"]
NP = {"complex64": np.complex64, "complex128": np.complex128}
TOL = {"complex64": dict(rtol=1e-5, atol=1e-6), "complex128": dict(rtol=1e-12, atol=1e-12)}


def crand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(NP[dtype])


# ---- creation, numpy, printing -------------------------------------------------------------
def test_to_tensor_from_python_complex():
    assert oar.to_tensor(1 + 2j).dtype == "complex64"
    assert oar.to_tensor([1, 2j]).dtype == "complex64"  # Paddle's default, as float32
    z = oar.to_tensor([1 + 2j, 3 - 4j])
    assert z.shape == [2]
    assert z.numpy().tolist() == [1 + 2j, 3 - 4j]
    assert z[0].item() == 1 + 2j and isinstance(z[1].item(), complex)
    assert oar.to_tensor([1 + 2j], dtype="complex128").dtype == "complex128"


@pytest.mark.parametrize("dtype", CDT)
def test_numpy_roundtrip(dtype):
    a = crand((3, 4), dtype)
    z = oar.to_tensor(a)
    assert z.dtype == dtype
    out = z.numpy()
    assert out.dtype == NP[dtype]
    np.testing.assert_array_equal(out, a)
    np.testing.assert_array_equal(oar.to_tensor(a[:, ::-2]).numpy(), a[:, ::-2])
    np.testing.assert_array_equal(np.asarray(z), a)


@pytest.mark.parametrize("dtype", CDT)
def test_creation_functions(dtype):
    assert oar.zeros([2], dtype).numpy().tolist() == [0j, 0j]
    assert oar.ones([2], dtype).numpy().tolist() == [1 + 0j, 1 + 0j]
    f = oar.full([2], 1 + 2j, dtype)
    assert f.dtype == dtype and f.numpy().tolist() == [1 + 2j, 1 + 2j]
    assert oar.full([2], 1 + 2j).dtype == "complex128"  # Paddle's default for a complex fill
    assert oar.full_like(oar.ones([2]), 3j, dtype=dtype).numpy().tolist() == [3j, 3j]
    with pytest.raises(TypeError, match="arange.*complex"):
        oar.arange(3, dtype=dtype)


def test_complex_fill_into_real_dtype_is_an_error():
    with pytest.raises(ValueError, match="complex value"):
        oar.full([2], 1 + 2j, "float32")


def test_repr_matches_paddle():
    # The strings Paddle 3.3.1 prints for the same tensors.
    assert repr(oar.to_tensor([1 + 2j, 3 - 4j])) == (
        "Tensor(shape=[2], dtype=complex64, place=Place(cpu), stop_gradient=True,\n"
        "       [(1.00000000+2.00000000j), (3.00000000-4.00000000j)])")
    assert repr(oar.to_tensor(1 + 2j)) == (
        "Tensor(shape=[], dtype=complex64, place=Place(cpu), stop_gradient=True,\n"
        "       (1.00000000+2.00000000j))")
    z = oar.to_tensor([[1 + 2j, 3.5 - 4j], [0j, 1e-9 + 1e5j]], dtype="complex128")
    assert repr(z) == (
        "Tensor(shape=[2, 2], dtype=complex128, place=Place(cpu), stop_gradient=True,\n"
        "       [[(1.00000000+2.00000000j)     , (3.50000000-4.00000000j)     ],\n"
        "        [(0.00000000+0.00000000j)     , (0.00000000+100000.00000000j)]])")
    assert repr(oar.to_tensor([-1.5 - 2.25j, 3.0 + 1e3j])) == (
        "Tensor(shape=[2], dtype=complex64, place=Place(cpu), stop_gradient=True,\n"
        "       [(-1.50000000-2.25000000j)  , (3.00000000+1000.00000000j)])")


# ---- casts and promotion --------------------------------------------------------------------
def test_casts():
    z = oar.to_tensor([1 + 2j, 3 - 4j])
    assert oar.cast(z, "float32").numpy().tolist() == [1.0, 3.0]  # the real part, as Paddle
    assert z.astype("complex128").dtype == "complex128"
    assert z.astype("int64").numpy().tolist() == [1, 3]
    r = oar.cast(oar.to_tensor([1.5, 2.0]), "complex64")
    assert r.numpy().tolist() == [1.5 + 0j, 2 + 0j]
    assert oar.cast(oar.to_tensor([1, 2], dtype="int8"), "complex64").numpy().tolist() == [1, 2]
    assert oar.cast(oar.to_tensor([True, False]), "complex128").numpy().tolist() == [1, 0]


@pytest.mark.parametrize("a,b,want", [
    ("float32", "complex64", "complex64"), ("float64", "complex64", "complex128"),
    ("float16", "complex64", "complex64"), ("int64", "complex64", "complex64"),
    ("uint8", "complex128", "complex128"), ("bool", "complex64", "complex64"),
    ("complex64", "complex128", "complex128"),
])
def test_tensor_tensor_promotion(a, b, want):
    x, y = oar.ones([2], a), oar.ones([2], b)
    assert (x + y).dtype == want
    assert (y * x).dtype == want


@pytest.mark.parametrize("tdtype,want", [("float32", "complex64"), ("float64", "complex128"),
                                         ("int32", "complex64"), ("bool", "complex64"),
                                         ("complex128", "complex128")])
def test_python_complex_scalar(tdtype, want):
    x = oar.ones([2], tdtype)
    for r in (x + (1 + 2j), (1 + 2j) + x, x * 2j, x - 1j, 1j - x):
        assert r.dtype == want
    np.testing.assert_allclose((oar.ones([2]) + (1 + 2j)).numpy(), [2 + 2j, 2 + 2j])
    np.testing.assert_allclose((1j - oar.ones([2])).numpy(), [-1 + 1j, -1 + 1j])


def test_complex_tensor_with_real_scalars():
    z = oar.to_tensor([1 + 2j])
    assert (z + 1.5).numpy().tolist() == [2.5 + 2j]
    assert (z * 2).numpy().tolist() == [2 + 4j]
    assert (z / 2).dtype == "complex64"
    assert (2 / z).numpy().tolist() == pytest.approx([2 / (1 + 2j)])


# ---- kernels ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("op,npf", [("add", np.add), ("subtract", np.subtract),
                                    ("multiply", np.multiply), ("divide", np.divide)])
def test_elementwise_binary(dtype, op, npf):
    a, b = crand((3, 4), dtype, 1), crand((4,), dtype, 2)
    got = getattr(oar, op)(oar.to_tensor(a), oar.to_tensor(b))
    assert got.dtype == dtype
    np.testing.assert_allclose(got.numpy(), npf(a, b), **TOL[dtype])


@pytest.mark.parametrize("dtype", CDT)
def test_equality_and_ordering(dtype):
    a = crand((4,), dtype)
    x, y = oar.to_tensor(a), oar.to_tensor(a.copy())
    assert (x == y).numpy().all() and not (x != y).numpy().any()
    for op in ("less_than", "less_equal", "greater_than", "greater_equal", "maximum",
               "minimum"):
        with pytest.raises(TypeError, match=rf"'{op}' is not registered for {dtype}"):
            getattr(oar, op)(x, y)
    with pytest.raises(TypeError, match=dtype):
        x < y  # noqa: B015


@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("op,npf", [("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt),
                                    ("sin", np.sin), ("cos", np.cos), ("tanh", np.tanh),
                                    ("neg", np.negative), ("reciprocal", np.reciprocal),
                                    ("square", np.square)])
def test_unary_math(dtype, op, npf):
    a = crand((2, 3), dtype, 3)
    got = getattr(oar, op)(oar.to_tensor(a))
    assert got.dtype == dtype
    np.testing.assert_allclose(got.numpy(), npf(a), **TOL[dtype])


@pytest.mark.parametrize("dtype", CDT)
def test_abs_sign_pow(dtype):
    a = crand((5,), dtype, 4)
    z = oar.to_tensor(a)
    r = oar.abs(z)
    assert r.dtype == ("float32" if dtype == "complex64" else "float64")
    np.testing.assert_allclose(r.numpy(), np.abs(a), **TOL[dtype])
    np.testing.assert_allclose(oar.sign(z).numpy(), a / np.abs(a), **TOL[dtype])
    np.testing.assert_allclose(oar.pow(z, 3.0).numpy(), a ** 3, rtol=1e-4)
    np.testing.assert_allclose((z ** 2).numpy(), a ** 2, **TOL[dtype])


@pytest.mark.parametrize("dtype", CDT)
def test_reductions(dtype):
    a = crand((3, 4), dtype, 5)
    z = oar.to_tensor(a)
    np.testing.assert_allclose(oar.sum(z).numpy(), a.sum(), **TOL[dtype])
    np.testing.assert_allclose(oar.sum(z, axis=1).numpy(), a.sum(1), **TOL[dtype])
    np.testing.assert_allclose(oar.mean(z, axis=0).numpy(), a.mean(0), **TOL[dtype])
    np.testing.assert_allclose(oar.prod(z, axis=1).numpy(), a.prod(1), **TOL[dtype])
    for op in ("max", "min"):
        with pytest.raises(TypeError, match=rf"'{op}' is not registered for {dtype}"):
            getattr(oar, op)(z)


@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("shape", [((2, 3), (3, 4)), ((40, 30), (30, 20)), ((2, 5, 6), (6, 3))])
def test_matmul_small_and_blas(dtype, shape):
    a, b = crand(shape[0], dtype, 6), crand(shape[1], dtype, 7)
    got = oar.matmul(oar.to_tensor(a), oar.to_tensor(b))
    assert got.dtype == dtype
    np.testing.assert_allclose(got.numpy(), a @ b, rtol=1e-4 if dtype == "complex64" else 1e-12)
    gt = oar.matmul(oar.to_tensor(a), oar.to_tensor(np.swapaxes(b, -1, -2).copy()),
                    transpose_y=True)
    np.testing.assert_allclose(gt.numpy(), a @ b, rtol=1e-4 if dtype == "complex64" else 1e-12)


@pytest.mark.parametrize("dtype", CDT)
def test_byte_moving_kernels(dtype):
    a = crand((3, 4), dtype, 8)
    z = oar.to_tensor(a)
    np.testing.assert_array_equal(z.reshape([4, 3]).numpy(), a.reshape(4, 3))
    np.testing.assert_array_equal(z.transpose([1, 0]).numpy(), a.T)
    np.testing.assert_array_equal(oar.concat([z, z], axis=1).numpy(), np.concatenate([a, a], 1))
    np.testing.assert_array_equal(oar.stack([z, z]).numpy(), np.stack([a, a]))
    np.testing.assert_array_equal(z[1:, ::2].numpy(), a[1:, ::2])
    np.testing.assert_array_equal(oar.gather(z, oar.to_tensor([2, 0])).numpy(), a[[2, 0]])
    np.testing.assert_array_equal(oar.index_select(z, oar.to_tensor([1]), axis=1).numpy(),
                                  a[:, [1]])
    m = np.abs(a) > 0.7
    np.testing.assert_array_equal(oar.where(oar.to_tensor(m), z, oar.zeros_like(z)).numpy(),
                                  np.where(m, a, 0))
    np.testing.assert_array_equal(oar.flip(z, [1]).numpy(), a[:, ::-1])
    np.testing.assert_array_equal(oar.tril(z).numpy(), np.tril(a))
    np.testing.assert_array_equal(z.expand([2, 3, 4]).numpy(), np.broadcast_to(a, (2, 3, 4)))
    y = z.clone()
    y[0, 0] = 5 - 1j
    assert y.numpy()[0, 0] == 5 - 1j and z.numpy()[0, 0] == a[0, 0]


def test_parts_and_constructors():
    z = oar.to_tensor([1 + 2j, 3 - 4j])
    assert oar.real(z).numpy().tolist() == [1.0, 3.0] and z.real().dtype == "float32"
    assert oar.imag(z).numpy().tolist() == [2.0, -4.0] and z.imag().dtype == "float32"
    assert oar.conj(z).numpy().tolist() == [1 - 2j, 3 + 4j]
    np.testing.assert_allclose(oar.angle(z).numpy(), np.angle([1 + 2j, 3 - 4j]), rtol=1e-6)
    np.testing.assert_allclose(oar.angle(oar.to_tensor([-2.0, 0.0, 3.0])).numpy(),
                               [np.pi, 0.0, 0.0], rtol=1e-6)
    assert oar.as_real(z).numpy().tolist() == [[1.0, 2.0], [3.0, -4.0]]
    assert oar.as_complex(oar.as_real(z)).numpy().tolist() == [1 + 2j, 3 - 4j]
    c = oar.complex(oar.to_tensor([1.0, 2.0], dtype="float64"), oar.to_tensor(0.5, "float64"))
    assert c.dtype == "complex128" and c.numpy().tolist() == [1 + 0.5j, 2 + 0.5j]
    assert oar.is_complex(z) and z.is_complex() and not oar.is_floating_point(z)
    assert oar.is_integer(oar.ones([1], "int8")) and not oar.is_complex(oar.ones([1]))
    # real and imag of a real tensor: a copy and zeros (Paddle's)
    x = oar.to_tensor([1.5, -2.0])
    assert oar.real(x).numpy().tolist() == [1.5, -2.0]
    assert oar.imag(x).numpy().tolist() == [0.0, 0.0]


def test_part_ops_typed_errors():
    with pytest.raises(TypeError, match=r"as_real.*float32.*complex64, complex128"):
        oar.as_real(oar.ones([2]))
    with pytest.raises(ValueError, match="last axis of size 2"):
        oar.as_complex(oar.ones([2, 3]))
    with pytest.raises(TypeError, match=r"complex.*int64.*float32, float64"):
        oar.complex(oar.ones([2], "int64"), oar.ones([2], "int64"))


# ---- gradients vs torch ------------------------------------------------------------------------
def _both(a):
    o = oar.to_tensor(a, stop_gradient=False)
    t = torch.tensor(a, requires_grad=True)
    return o, t


@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("name,fo,ft", [
    ("abs", lambda z: oar.abs(z).sum(), lambda z: z.abs().sum()),
    ("mul-conj", lambda z: oar.real(z * oar.conj(z) * z).sum(),
     lambda z: (z * z.conj() * z).real.sum()),
    ("exp-sin", lambda z: oar.abs(oar.exp(oar.sin(z))).sum(),
     lambda z: torch.exp(torch.sin(z)).abs().sum()),
    ("div-log", lambda z: oar.imag(oar.log(z) / (z + 2)).sum(),
     lambda z: (torch.log(z) / (z + 2)).imag.sum()),
    ("sqrt-tanh", lambda z: oar.angle(oar.tanh(oar.sqrt(z))).sum(),
     lambda z: torch.angle(torch.tanh(torch.sqrt(z))).sum()),
    ("square-recip-pow", lambda z: oar.real(oar.reciprocal(oar.square(z)) + oar.pow(z, 3.0)).sum(),
     lambda z: (torch.reciprocal(torch.square(z)) + z ** 3.0).real.sum()),
    ("mean-prod", lambda z: oar.abs(oar.prod(z, axis=1)).sum() + oar.real(oar.mean(z)),
     lambda z: z.prod(1).abs().sum() + z.mean().real),
    ("as_real", lambda z: (oar.as_real(z) ** 3).sum(), lambda z: (torch.view_as_real(z) ** 3).sum()),
])
def test_grad_of_real_loss_matches_torch(dtype, name, fo, ft):
    o, t = _both(crand((3, 4), dtype, 9))
    (go,) = oar.grad([fo(o)], [o])
    (gt,) = torch.autograd.grad([ft(t)], [t])
    assert go.dtype == dtype
    np.testing.assert_allclose(go.numpy(), gt.numpy(), rtol=1e-4 if dtype == "complex64" else 1e-10,
                               atol=1e-5 if dtype == "complex64" else 1e-12)


@pytest.mark.parametrize("dtype", CDT)
def test_matmul_grad_matches_torch(dtype):
    (oa, ta), (ob, tb) = _both(crand((3, 5), dtype, 10)), _both(crand((5, 2), dtype, 11))
    ga = oar.grad([oar.abs(oar.matmul(oa, ob)).sum()], [oa, ob])
    gt = torch.autograd.grad([(ta @ tb).abs().sum()], [ta, tb])
    for g, w in zip(ga, gt):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-4 if dtype == "complex64" else 1e-10)


def test_complex_to_real_gradient_path():
    # Paddle's need_complex_to_real_: a real input whose gradient arrives complex
    # (it fed a complex computation) gets the real part.
    a = np.array([0.3, -1.2, 2.0], dtype=np.float32)
    x, tx = _both(a)
    z = oar.complex(x, oar.ones_like(x)) * (1 + 2j)
    w = x * (2 - 1j)  # a real tensor times a complex scalar
    loss = oar.abs(z).sum() + oar.real(w * oar.conj(w)).sum()
    (g,) = oar.grad([loss], [x])
    tz = torch.complex(tx, torch.ones_like(tx)) * (1 + 2j)
    tw = tx * (2 - 1j)
    (tg,) = torch.autograd.grad([tz.abs().sum() + (tw * tw.conj()).real.sum()], [tx])
    assert g.dtype == "float32"
    np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-5)
    # the cast path: real -> complex -> real
    x2, tx2 = _both(a)
    (g2,) = oar.grad([oar.abs(oar.cast(x2, "complex64") * 1j).sum()], [x2])
    (t2,) = torch.autograd.grad([(tx2.to(torch.complex64) * 1j).abs().sum()], [tx2])
    np.testing.assert_allclose(g2.numpy(), t2.numpy(), rtol=1e-5)


def test_backward_accumulates_complex_leaf_grads():
    a = crand((4,), "complex128", 12)
    z, tz = _both(a)
    (oar.abs(z).sum() + oar.real(z * z).sum()).backward()
    (tz.abs().sum() + (tz * tz).real.sum()).backward()
    np.testing.assert_allclose(z.grad.numpy(), tz.grad.numpy(), rtol=1e-10)


def test_double_grad_matches_torch():
    a = crand((3,), "complex128", 13)
    o, t = _both(a)
    (go,) = oar.grad([oar.abs(oar.exp(o) * o).sum()], [o], create_graph=True)
    (gt,) = torch.autograd.grad([(torch.exp(t) * t).abs().sum()], [t], create_graph=True)
    (ggo,) = oar.grad([oar.real(go * oar.conj(go)).sum()], [o])
    (ggt,) = torch.autograd.grad([(gt * gt.conj()).real.sum()], [t])
    np.testing.assert_allclose(ggo.numpy(), ggt.numpy(), rtol=1e-9)


def test_complex_power_zero_is_one_everywhere():
    # fuzz seed 210: exp(0 * log x) made 0 ** 0 NaN; Paddle's x ** 0 / paddle.pow and
    # PyTorch give 1 for every base, zero and non-finite parts included
    a = np.array([0j, complex(-0.0, -0.0), complex(np.nan, 0), complex(np.inf, 1), 1 + 1j],
                 dtype="complex64")
    x = oar.to_tensor(a, stop_gradient=False)
    want = (torch.tensor(a) ** 0.0).numpy()
    for y in (x ** 0.0, oar.pow(x, 0), oar.pow(x, 0.0)):
        np.testing.assert_array_equal(y.numpy(), want)
    g = oar.grad([x ** 0.0], [x], [oar.ones_like(x)])[0]
    np.testing.assert_array_equal(g.numpy(), np.zeros(5, "complex64"))
