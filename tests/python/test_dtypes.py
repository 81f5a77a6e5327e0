"""uint8, int8, int16 (and the complex dtypes' names): creation, casts, numpy interop,
printing, promotion by Paddle's rule, the kernels that take them, typed errors.
Complex values and gradients: test_complex.py."""
import numpy as np
import pytest
import torch

import oar

SMALL_INTS = ["uint8", "int8", "int16"]
NP = {"uint8": np.uint8, "int8": np.int8, "int16": np.int16}
TORCH = {"uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16}


@pytest.mark.parametrize("name", SMALL_INTS + ["complex64", "complex128"])
def test_dtype_names(name):
    d = getattr(oar, name)
    assert d.name == name and repr(d) == f"oar.{name}"
    assert oar.convert_dtype(name) is d
    assert oar.convert_dtype(f"paddle.{name}") is d
    assert oar.convert_dtype(np.dtype(name)) is d
    assert d == name and d.itemsize == np.dtype(name).itemsize
    assert d.is_complex == name.startswith("complex")
    assert not d.is_floating_point


def test_unknown_dtype_lists_the_new_ones():
    with pytest.raises(TypeError, match="uint8"):
        oar.convert_dtype("uint7")


@pytest.mark.parametrize("name", SMALL_INTS)
def test_creation(name):
    d = getattr(oar, name)
    assert oar.zeros([2, 3], name).dtype is d
    assert oar.ones([2], d).numpy().tolist() == [1, 1]
    assert oar.full([2], 7, name).numpy().tolist() == [7, 7]
    assert oar.arange(5, dtype=name).numpy().tolist() == [0, 1, 2, 3, 4]
    assert oar.to_tensor([1, 2, 3], dtype=name).dtype is d
    x = oar.zeros_like(oar.ones([3], "float32"), dtype=name)
    assert x.dtype is d and x.numpy().tolist() == [0, 0, 0]


@pytest.mark.parametrize("name", SMALL_INTS)
def test_numpy_roundtrip(name):
    info = np.iinfo(NP[name])
    a = np.array([[info.min, 0, info.max], [1, 2, 3]], dtype=NP[name])
    x = oar.to_tensor(a)
    assert x.dtype == name and x.shape == [2, 3]
    out = x.numpy()
    assert out.dtype == NP[name]
    np.testing.assert_array_equal(out, a)
    # non-contiguous numpy input
    np.testing.assert_array_equal(oar.to_tensor(a[:, ::2]).numpy(), a[:, ::2])
    assert x.tolist() == a.tolist()
    assert isinstance(x[0, 2].item(), int) and x[0, 2].item() == info.max


def test_full_value_out_of_range_is_a_typed_error():
    with pytest.raises(ValueError, match="uint8"):
        oar.full([2], 300, "uint8")
    with pytest.raises(ValueError, match="int8"):
        oar.arange(0, 200, dtype="int8")


@pytest.mark.parametrize("name", SMALL_INTS)
def test_casts_both_ways(name):
    f = oar.to_tensor([1.7, 5.0])
    # float -> small int truncates toward zero; out-of-range values follow C++'s
    # conversion (wrap for the values torch also wraps)
    vals = [1.7, 5.0, 100.9] if name == "uint8" else [1.7, -1.7, 5.0, -100.9]
    small = oar.cast(oar.to_tensor(vals), name)
    want = torch.tensor(vals).to(TORCH[name])
    np.testing.assert_array_equal(small.numpy(), want.numpy())
    back = small.astype("float32")
    assert back.dtype == "float32"
    np.testing.assert_array_equal(back.numpy(), want.float().numpy())
    i64 = oar.to_tensor([300, -1, 7])
    np.testing.assert_array_equal(oar.cast(i64, name).numpy(),
                                  torch.tensor([300, -1, 7]).to(TORCH[name]).numpy())
    assert f.astype(name).astype("int64").dtype == "int64"


def test_repr():
    x = oar.to_tensor(np.array([1, 255], dtype=np.uint8))
    # integers print as Paddle prints them: padded on the right to the widest
    assert repr(x) == ("Tensor(shape=[2], dtype=uint8, place=Place(cpu), stop_gradient=True,\n"
                       "       [1  , 255])")
    y = oar.to_tensor([[1, 2], [3, 4]], dtype="int8")
    assert repr(y) == ("Tensor(shape=[2, 2], dtype=int8, place=Place(cpu), stop_gradient=True,\n"
                       "       [[1, 2],\n        [3, 4]])")


@pytest.mark.parametrize("name", SMALL_INTS)
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "maximum", "minimum",
                                "floor_divide", "remainder"])
def test_binary_arithmetic_matches_torch(name, op):
    rng = np.random.default_rng(1)
    lo = 0 if name == "uint8" else -20
    a = rng.integers(lo, 20, size=(3, 4)).astype(NP[name])
    b = rng.integers(1, 20, size=(4,)).astype(NP[name])
    got = getattr(oar, op)(oar.to_tensor(a), oar.to_tensor(b))
    ta, tb = torch.tensor(a), torch.tensor(b)
    want = {"add": torch.add, "subtract": torch.sub, "multiply": torch.mul,
            "maximum": torch.maximum, "minimum": torch.minimum,
            "floor_divide": torch.floor_divide, "remainder": torch.remainder}[op](ta, tb)
    assert got.dtype == name
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("name", SMALL_INTS)
def test_wraparound_and_true_division(name):
    info = np.iinfo(NP[name])
    x = oar.to_tensor(np.array([info.max], dtype=NP[name]))
    assert (x + 1).dtype == name
    assert (x + 1).numpy()[0] == info.min  # wraps, as Paddle and torch
    q = x / x
    assert q.dtype == "float32" and q.numpy().tolist() == [1.0]
    assert (x // 2).dtype == name


@pytest.mark.parametrize("name", SMALL_INTS)
def test_comparisons_and_bitwise(name):
    a = np.array([1, 5, 12], dtype=NP[name])
    b = np.array([3, 5, 10], dtype=NP[name])
    x, y = oar.to_tensor(a), oar.to_tensor(b)
    assert (x < y).numpy().tolist() == [True, False, False]
    assert (x == y).numpy().tolist() == [False, True, False]
    assert (x >= y).numpy().tolist() == [False, True, True]
    for op, npop in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                     ("bitwise_xor", np.bitwise_xor)]:
        got = getattr(oar, op)(x, y)
        assert got.dtype == name
        np.testing.assert_array_equal(got.numpy(), npop(a, b))
    np.testing.assert_array_equal(oar.bitwise_not(x).numpy(), np.invert(a))
    np.testing.assert_array_equal((x & y).numpy(), a & b)
    np.testing.assert_array_equal((~x).numpy(), ~a)


@pytest.mark.parametrize("name", SMALL_INTS)
def test_reductions_and_unary(name):
    a = np.array([[1, 2, 3], [4, 5, 6]], dtype=NP[name])
    x = oar.to_tensor(a)
    s = oar.sum(x)
    assert s.dtype == name and s.item() == 21  # Paddle keeps the small dtype
    assert oar.sum(x, axis=1).numpy().tolist() == [6, 15]
    assert oar.max(x).item() == 6 and oar.min(x).item() == 1
    assert oar.prod(x, axis=0).numpy().tolist() == [4, 10, 18]
    assert oar.abs(x).dtype == name
    assert oar.argmax(x).item() == 5
    assert oar.cumsum(x, axis=1).numpy().tolist() == [[1, 3, 6], [4, 9, 15]]


@pytest.mark.parametrize("name", SMALL_INTS)
def test_manipulation_and_indexing(name):
    a = np.arange(12).reshape(3, 4).astype(NP[name])
    x = oar.to_tensor(a)
    np.testing.assert_array_equal(x.reshape([4, 3]).numpy(), a.reshape(4, 3))
    np.testing.assert_array_equal(x.transpose([1, 0]).numpy(), a.T)
    np.testing.assert_array_equal(oar.concat([x, x], axis=0).numpy(), np.concatenate([a, a]))
    np.testing.assert_array_equal(oar.stack([x, x]).numpy(), np.stack([a, a]))
    np.testing.assert_array_equal(x[1:, ::2].numpy(), a[1:, ::2])
    np.testing.assert_array_equal(oar.gather(x, oar.to_tensor([2, 0])).numpy(), a[[2, 0]])
    cond = oar.to_tensor(a % 2 == 0)
    np.testing.assert_array_equal(oar.where(cond, x, oar.zeros_like(x)).numpy(),
                                  np.where(a % 2 == 0, a, 0))
    np.testing.assert_array_equal(oar.flip(x, [0]).numpy(), a[::-1])
    np.testing.assert_array_equal(x.unsqueeze(0).squeeze(0).numpy(), a)
    np.testing.assert_array_equal(x.expand([2, 3, 4]).numpy(), np.broadcast_to(a, (2, 3, 4)))
    y = x.clone()
    y[0, 0] = 9
    assert y.numpy()[0, 0] == 9 and x.numpy()[0, 0] == 0


def test_tensor_tensor_promotion_follows_paddle():
    u8, i8 = oar.ones([2], "uint8"), oar.ones([2], "int8")
    # Paddle 3.3.1 promotes only floating (and complex) operands of different dtypes
    with pytest.raises(TypeError, match="uint8 and int8"):
        u8 + i8
    with pytest.raises(TypeError, match="int16"):
        oar.ones([2], "int16") + oar.ones([2], "float16")
    assert (oar.ones([2], "float16") + oar.ones([2], "bfloat16")).dtype == "float32"


@pytest.mark.parametrize("name", SMALL_INTS)
def test_tensor_scalar_promotion_follows_paddle(name):
    x = oar.ones([2], name)
    assert (x + 2).dtype == name
    assert (x + True).dtype == name
    assert (x * 2.5).dtype == "float32"
    assert (x + (1 + 2j)).dtype == "complex64"


@pytest.mark.parametrize("name", SMALL_INTS)
def test_float_only_ops_compute_in_float32(name):
    x = oar.to_tensor([1, 4], dtype=name)
    assert oar.rsqrt(x).dtype == "float32"
    np.testing.assert_allclose(oar.rsqrt(x).numpy(), [1.0, 0.5])
    np.testing.assert_allclose(oar.reciprocal(x).numpy(), [1.0, 0.25])
    # Paddle 3.3.1 autocasts these to float32 too ("run type autocast")
    for op in ("sqrt", "exp", "log", "sin", "cos", "tanh", "sigmoid"):
        assert getattr(oar, op)(x).dtype == "float32", op
    np.testing.assert_allclose(oar.sqrt(x).numpy(), [1.0, 2.0])


def test_missing_kernel_is_a_typed_error_naming_op_and_dtype():
    x = oar.ones([2], "uint8")
    with pytest.raises(TypeError, match=r"'mean' .*uint8"):
        oar.mean(x)
    with pytest.raises(TypeError, match=r"'softplus' .*int8"):  # nor has Paddle 3.3.1
        oar.nn.functional.softplus(oar.ones([2], "int8"))


def test_requires_grad_on_integer_tensors_follows_paddle():
    # Paddle lets stop_gradient be cleared on integer tensors; no gradient flows
    # through them (integer outputs record no graph).
    x = oar.to_tensor([1, 2], dtype="int8")
    assert x.stop_gradient
    x.stop_gradient = False
    assert not x.stop_gradient
    y = x + x
    assert y.stop_gradient


def test_checkpoint_roundtrip(tmp_path):
    state = {n: oar.to_tensor(np.array([1, 2, 3], dtype=NP[n])) for n in SMALL_INTS}
    path = str(tmp_path / "s.pdparams")
    oar.save(state, path)
    back = oar.load(path)
    for n in SMALL_INTS:
        assert back[n].dtype == n
        np.testing.assert_array_equal(back[n].numpy(), [1, 2, 3])


def test_paddles_uint16_is_bfloat16_and_uint32_uint64_make_no_tensors():
    # Paddle 3.3.1: paddle.uint16 is paddle.bfloat16 and astype('uint16') gives bfloat16;
    # its CPU build cannot make uint32 or uint64 tensors (to_tensor and astype raise).
    assert oar.uint16 is oar.bfloat16
    x = oar.to_tensor([1.5, -2.25])
    assert x.astype("uint16").dtype == oar.bfloat16
    assert x.astype(oar.uint16).astype("float32").numpy().tolist() == [1.5, -2.25]
    assert repr(oar.uint32) == "oar.uint32" and oar.uint64.itemsize == 8
    for d in (oar.uint32, "uint32", oar.uint64, "paddle.uint64"):
        name = getattr(d, "name", str(d).split(".")[-1])
        for make in (lambda: oar.zeros([2], dtype=d), lambda: x.astype(d),
                     lambda: oar.to_tensor([1, 2], dtype=d), lambda: oar.cast(x, d)):
            with pytest.raises(TypeError, match=f"oar has no {name} tensors"):
                make()


def test_tensor_cuda_raises_as_on_paddles_cpu_build():
    with pytest.raises(ValueError, match="Tensor.cuda\\(\\): no available device"):
        oar.ones([2]).cuda()
    with pytest.raises(ValueError, match="no available device"):
        oar.ones([2]).cuda(0, blocking=False)


FLOAT8 = {"float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2}


@pytest.mark.parametrize("name", list(FLOAT8))
def test_float8_casts_match_torch_bit_for_bit(name):
    # Every float32 that matters: the edges (ties to even, saturation of e4m3fn past 448,
    # e5m2's infinity past 57344, NaN, signed zeros, subnormals) and random values over
    # the whole range, from float32, float64, float16, bfloat16 and int32.
    edges = [0.0, -0.0, 1.0, 1.0625, 1.1875, 447.0, 448.0, 464.0, 465.0, 480.0, 1e9,
             np.inf, -np.inf, np.nan, 2.0 ** -9, 2.0 ** -10, 3 * 2.0 ** -11, 57344.0,
             61440.0, 65536.0, 1.5e-5, 2.0 ** -16, 2.0 ** -17, -3.3, 1e-45]
    rng = np.random.default_rng(5)
    rand = rng.standard_normal(4000) * np.exp2(rng.integers(-20, 18, 4000))
    vals = np.concatenate([edges, rand]).astype(np.float32)

    def bits(a):  # every NaN pattern as one (NaN signs differ between torch's paths)
        a = a.astype(np.uint8)
        nan = (a & 0x7f) == 0x7f if name == "float8_e4m3fn" else (a & 0x7f) > 0x7c
        return np.where(nan, 0x7f, a)

    want = torch.from_numpy(vals).to(FLOAT8[name])
    got = oar.to_tensor(vals).astype(name)
    assert got.dtype == getattr(oar, name) and got.dtype.itemsize == 1
    # numpy() gives the raw bits as int8, as Paddle does
    assert got.numpy().dtype == np.int8
    np.testing.assert_array_equal(got.numpy(), want.view(torch.int8).numpy())
    back = got.astype("float32").numpy()
    np.testing.assert_array_equal(back, want.float().numpy())
    for dt in ("float64", "float16", "bfloat16"):
        src = oar.to_tensor(vals).astype(dt)
        np.testing.assert_array_equal(
            bits(src.astype(name).numpy()),
            bits(torch.from_numpy(vals).to(getattr(torch, dt)).to(FLOAT8[name])
                 .view(torch.int8).numpy()), err_msg=dt)
    ints = np.arange(-600, 600, 7, dtype=np.int32)
    np.testing.assert_array_equal(oar.to_tensor(ints).astype(name).astype("int32").numpy(),
                                  torch.from_numpy(ints).to(FLOAT8[name]).int().numpy())


@pytest.mark.parametrize("name", list(FLOAT8))
def test_float8_is_storage_moved_printed_and_refused_elsewhere(name):
    d = getattr(oar, name)
    assert repr(d) == f"oar.{name}" and oar.convert_dtype(f"paddle.{name}") is d
    v = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 10, 12, 14]]  # exact in both float8 dtypes
    x = oar.to_tensor(np.array(v, dtype=np.float32)).astype(name)
    assert oar.to_tensor([1.5, 2.0], dtype=name).astype("float32").tolist() == [1.5, 2.0]
    assert x.tolist() == v  # values, not bits
    assert f"dtype={name}" in repr(x) and "14." in repr(x)
    # moving elements keeps the bytes
    for got, want in [(x[1], [4, 5, 6, 7]), (x[:, ::2].contiguous(), [[0, 2], [4, 6], [8, 12]]),
                      (x.T.reshape([12])[:3], [0, 4, 8]),
                      (oar.concat([x[:1], x[2:]]), [[0, 1, 2, 3], [8, 10, 12, 14]]),
                      (x.clone()[2], [8, 10, 12, 14])]:
        assert got.dtype is d
        assert got.astype("float32").numpy().tolist() == want
    # arithmetic refuses it with typed errors naming the op and the dtype
    with pytest.raises(TypeError, match=f"add\\(\\): the kernel 'add' is not registered for "
                                        f"{name}"):
        x + x
    with pytest.raises(TypeError, match=f"no promotion of {name} with float32"):
        x + oar.ones([3, 4])
    with pytest.raises(TypeError, match=f"sum\\(\\).*{name}"):
        x.sum()


# Result dtypes of the integer reductions, as Paddle 3.3.1 gives them (run there): sum and
# cumsum widen int32 and smaller to int64; prod, cumprod, trace and dot keep int32.
@pytest.mark.parametrize("fn,want", [
    (lambda x: oar.sum(x), "int64"), (lambda x: oar.cumsum(x, axis=0), "int64"),
    (lambda x: oar.prod(x), "int32"), (lambda x: oar.cumprod(x, dim=0), "int32"),
    (lambda x: oar.trace(x), "int32"), (lambda x: oar.dot(x[0], x[1]), "int32"),
])
def test_integer_reduction_dtypes_follow_paddle(fn, want):
    x = oar.to_tensor(np.arange(1, 10).reshape(3, 3).astype("int32"))
    assert fn(x).dtype.name == want


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16"])
def test_small_int_cumsum_widens_to_int64(dtype):
    x = oar.to_tensor(np.array([100, 100, 100]).astype(dtype))
    out = oar.cumsum(x)
    assert out.dtype.name == "int64" and out.numpy().tolist() == [100, 200, 300]
