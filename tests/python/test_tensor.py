"""oar.Tensor: properties, methods, numpy interop, Python operators, repr,
indexing/slicing (read and write) and gradients through indexing (docs/python.md);
strides, offsets and shared memory, set_/resize_, the in-place random fills,
fill_diagonal_ and the small methods of python/oar/tensor/methods.py."""
import gc
import re

import numpy as np
import pytest
import torch

import oar


def _arr(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(dtype)


# ---- properties ------------------------------------------------------------------------


def test_shape_is_list_and_basic_properties():
    x = oar.to_tensor(_arr((2, 3, 4)))
    assert x.shape == [2, 3, 4] and isinstance(x.shape, list)
    assert x.ndim == 3 and x.dim() == 3
    assert x.size == 24 and x.numel() == 24
    assert len(x) == 2
    s = oar.to_tensor(1.0)
    assert s.shape == [] and s.ndim == 0 and s.size == 1


def test_dtype_objects_and_strings():
    x = oar.to_tensor(_arr((2,)))
    assert x.dtype is oar.float32
    assert x.dtype == "float32"
    assert x.dtype == "paddle.float32"
    assert x.dtype != "float64"
    assert x.dtype != oar.float64
    assert str(x.dtype) == "oar.float32"
    assert x.dtype.name == "float32"
    assert oar.float64.itemsize == 8 and oar.float16.is_floating_point
    assert not oar.int32.is_floating_point
    assert x.element_size() == 4
    assert hash(oar.float32) == hash(oar.convert_dtype("float32"))
    assert oar.convert_dtype(np.int32) is oar.int32
    assert oar.convert_dtype(float) is oar.float32
    assert oar.convert_dtype(int) is oar.int64


def test_name_place():
    x = oar.to_tensor([1.0])
    assert isinstance(x.name, str)
    x.name = "weights"
    assert x.name == "weights"
    with pytest.raises(TypeError):
        x.name = 3
    assert x.place == "Place(cpu)"
    assert str(x.place) == "Place(cpu)"


def test_leaf_stop_gradient_grad_defaults():
    x = oar.to_tensor([1.0, 2.0])
    assert x.is_leaf and x.stop_gradient is True and x.grad is None
    x.stop_gradient = False
    assert x.stop_gradient is False and x.is_leaf
    y = x * 2
    assert y.is_leaf is False and y.stop_gradient is False
    z = oar.to_tensor([3.0]) * 2  # no input needs grad
    assert z.is_leaf is True and z.stop_gradient is True
    with oar.no_grad():
        w = x * 2
    assert w.stop_gradient is True and w.is_leaf is True


def test_inplace_version_counts_writes():
    x = oar.to_tensor(_arr((3, 4)))
    assert x.inplace_version == 0
    x[0] = 1.0
    assert x.inplace_version == 1
    x[1:] = oar.zeros([2, 4])
    assert x.inplace_version == 2
    oar.scale_(x, 2.0)
    assert x.inplace_version == 3
    y = x.clone()
    assert y.inplace_version == 0


# ---- numpy interop ------------------------------------------------------------------------


def test_numpy_is_a_copy_as_paddle():
    """Paddle 3.3.1's Tensor.numpy() returns a copy (measured: arr = t.numpy();
    arr[0] = 5 leaves t [1., 2., 3.], also for a tensor with stop_gradient=False and a
    non-leaf one, and the arrays are writable)."""
    data = _arr((3, 4))
    x = oar.to_tensor(data)
    a = x.numpy()
    assert a.flags.writeable and a.flags.owndata
    assert not np.shares_memory(a, np.asarray(x))
    a[1, 2] = 42.0
    assert x[1, 2].item() == data[1, 2]  # unchanged
    w = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    b = w.numpy()
    assert b.flags.writeable
    b[0] = 9.0
    assert w.tolist() == [1.0, 2.0]
    c = (w * 2).numpy()  # inside the autograd graph
    assert c.flags.writeable
    c[:] = 0.0
    assert c.tolist() == [0.0, 0.0]
    # 0-d: a 0-d array, as Paddle's; bfloat16: the raw uint16 bits (Paddle: [16256, 16384])
    s = oar.to_tensor(3.0).numpy()
    assert isinstance(s, np.ndarray) and s.shape == () and s.flags.writeable
    bf = oar.to_tensor([1.0, 2.0], dtype="bfloat16").numpy()
    assert bf.dtype == np.uint16 and bf.tolist() == [16256, 16384]


def test_numpy_of_transposed_view_is_a_copy_with_the_values():
    x = oar.to_tensor(_arr((3, 4)))
    t = oar.transpose(x, [1, 0])
    a = t.numpy()
    np.testing.assert_array_equal(a, np.asarray(x).T)
    assert not np.shares_memory(a, np.asarray(x))


def test_asarray_is_the_zero_copy_view():
    """np.asarray(x) (__array__) shares the tensor's memory: oar's documented zero-copy
    path (Paddle's copies here too); read-only while x requires grad."""
    x = oar.to_tensor(_arr((3, 4)))
    v = np.asarray(x)
    assert v.ctypes.data == x.data_ptr()
    v[1, 2] = 42.0
    assert x[1, 2].item() == 42.0
    w = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    ro = np.asarray(w)
    assert ro.flags.writeable is False
    with pytest.raises(ValueError):
        ro[0] = 5.0
    d = np.asarray(w.detach())
    assert d.flags.writeable
    d[0] = 9.0
    assert w.tolist()[0] == 9.0  # the detached tensor shares w's memory
    # DLPack is zero-copy too
    z = np.from_dlpack(x)
    assert np.shares_memory(z, v)


def test_asarray_keeps_storage_alive_after_tensor_deleted():
    x = oar.to_tensor(np.arange(1000, dtype=np.float64))
    a = np.asarray(x)
    gc.collect()  # tensors of earlier tests freed now, not inside the measurement
    in_use_with = oar.memory_stats()["bytes_in_use"]
    del x
    gc.collect()
    assert oar.memory_stats()["bytes_in_use"] == in_use_with  # the array holds the memory
    np.testing.assert_array_equal(a, np.arange(1000, dtype=np.float64))
    a[:] = 1.0
    assert a.sum() == 1000.0
    del a
    gc.collect()
    assert oar.memory_stats()["bytes_in_use"] == in_use_with - 8000


@pytest.mark.parametrize("name", ["bool", "int32", "int64", "float16", "float32", "float64"])
def test_numpy_dtype_roundtrip(name):
    a = (np.arange(6) % 3).astype(name).reshape(3, 2)
    t = oar.to_tensor(a)
    assert t.numpy().dtype == np.dtype(name)
    assert np.asarray(t).dtype == np.dtype(name)
    np.testing.assert_array_equal(np.asarray(t), a)


def test_array_protocol():
    x = oar.to_tensor(_arr((2, 2)))
    a = np.asarray(x)
    assert np.shares_memory(a, np.asarray(x))
    f64 = np.asarray(x, dtype=np.float64)
    assert f64.dtype == np.float64
    np.testing.assert_allclose(f64, x.numpy())
    c = np.array(x)
    assert not np.shares_memory(c, np.asarray(x))
    np.testing.assert_array_equal(c, x.numpy())


def test_item_and_conversions():
    assert oar.to_tensor([[2.5]]).item() == 2.5
    assert isinstance(oar.to_tensor([3], dtype="int32").item(), int)
    assert oar.to_tensor(True).item() is True
    assert float(oar.to_tensor([1.25])) == 1.25
    assert int(oar.to_tensor(7)) == 7
    assert bool(oar.to_tensor([0.0])) is False
    assert [10, 20, 30][oar.to_tensor(1)] == 20
    with pytest.raises(ValueError, match="one element"):
        oar.to_tensor([1.0, 2.0]).item()
    with pytest.raises(ValueError, match="one element"):
        bool(oar.to_tensor([1.0, 2.0]))


def test_tolist():
    a = _arr((2, 3))
    assert oar.to_tensor(a).tolist() == a.tolist()
    assert oar.to_tensor(3).tolist() == 3
    assert oar.to_tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]


def test_detach_clone_astype():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 3
    d = y.detach()
    assert d.stop_gradient and d.is_leaf and d.grad is None
    np.testing.assert_array_equal(d.numpy(), [3.0, 6.0])
    c = y.clone()
    assert c.stop_gradient is False and not c.is_leaf
    assert c.data_ptr() != y.data_ptr()
    c.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    i = x.astype("int32")
    assert i.dtype == oar.int32 and i.numpy().tolist() == [1, 2]
    h = x.astype(oar.float16)
    assert h.dtype == oar.float16
    cc = oar.clone(x)
    assert cc.data_ptr() != x.data_ptr()


def test_len_and_iteration():
    a = _arr((3, 2))
    x = oar.to_tensor(a)
    assert len(x) == 3
    rows = list(x)
    assert len(rows) == 3
    for r, ar in zip(rows, a):
        assert isinstance(r, oar.Tensor) and r.shape == [2]
        np.testing.assert_array_equal(r.numpy(), ar)
    with pytest.raises(TypeError):
        len(oar.to_tensor(1.0))
    with pytest.raises(TypeError):
        iter(oar.to_tensor(1.0)).__next__()


# ---- Python operators -----------------------------------------------------------------------


BIN_OPS = [
    ("add", lambda a, b: a + b),
    ("sub", lambda a, b: a - b),
    ("mul", lambda a, b: a * b),
    ("div", lambda a, b: a / b),
    ("pow", lambda a, b: a ** b),
]


@pytest.mark.parametrize("name,fn", BIN_OPS)
def test_tensor_tensor_operators_vs_numpy(name, fn):
    a = np.abs(_arr((3, 4), seed=1)) + 0.5
    b = np.abs(_arr((4,), seed=2)) + 0.5  # broadcast
    out = fn(oar.to_tensor(a), oar.to_tensor(b))
    assert out.dtype == oar.float32 and out.shape == [3, 4]
    np.testing.assert_allclose(out.numpy(), fn(a, b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,fn", BIN_OPS)
@pytest.mark.parametrize("s", [2, 0.5, -3])
def test_tensor_scalar_and_reflected_operators_vs_numpy(name, fn, s):
    a = np.abs(_arr((2, 3), seed=3)) + 0.5
    x = oar.to_tensor(a)
    with np.errstate(invalid="ignore"):  # (-3) ** 0.7 is nan in both
        np.testing.assert_allclose(fn(x, s).numpy(), fn(a, np.float32(s)), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(fn(s, x).numpy(), fn(np.float32(s), a), rtol=1e-5, atol=1e-6)
    assert fn(s, x).dtype == oar.float32


def test_reflected_specific_values():
    x = oar.to_tensor([1.0, 2.0, 4.0])
    np.testing.assert_allclose((2 - x).numpy(), [1.0, 0.0, -2.0])
    np.testing.assert_allclose((2 / x).numpy(), [2.0, 1.0, 0.5])
    np.testing.assert_allclose((2 ** x).numpy(), [2.0, 4.0, 16.0])
    np.testing.assert_allclose((x ** 2).numpy(), [1.0, 4.0, 16.0])
    np.testing.assert_allclose((10 + x).numpy(), [11.0, 12.0, 14.0])
    np.testing.assert_allclose((3 * x).numpy(), [3.0, 6.0, 12.0])
    np.testing.assert_allclose((-x).numpy(), [-1.0, -2.0, -4.0])
    np.testing.assert_allclose((+x).numpy(), [1.0, 2.0, 4.0])
    np.testing.assert_allclose(abs(oar.to_tensor([-1.5, 2.0])).numpy(), [1.5, 2.0])


def test_integer_operators_and_true_division():
    a = np.array([[7, -3], [4, 9]], np.int64)
    x = oar.to_tensor(a)
    assert (x + 1).dtype == oar.int64
    np.testing.assert_array_equal((x + 1).numpy(), a + 1)
    np.testing.assert_array_equal((x * x).numpy(), a * a)
    # true division gives float32
    q = x / 2
    assert q.dtype == oar.float32
    np.testing.assert_allclose(q.numpy(), a / 2)
    q = x / oar.to_tensor(np.array([2, 4], np.int64))
    assert q.dtype == oar.float32
    np.testing.assert_allclose(q.numpy(), a / np.array([2, 4]))
    # float scalar promotes an int tensor to float32
    f = x * 0.5
    assert f.dtype == oar.float32
    np.testing.assert_allclose(f.numpy(), a * 0.5)


def test_matmul_operator_vs_numpy():
    a, b = _arr((3, 4), seed=4), _arr((4, 5), seed=5)
    out = oar.to_tensor(a) @ oar.to_tensor(b)
    assert out.shape == [3, 5]
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-5, atol=1e-5)
    v = _arr((4,), seed=6)
    np.testing.assert_allclose((oar.to_tensor(a) @ oar.to_tensor(v)).numpy(), a @ v, rtol=1e-5,
                               atol=1e-5)
    bb = _arr((2, 4, 3), seed=7)
    np.testing.assert_allclose((oar.to_tensor(a) @ oar.to_tensor(bb)).numpy(), a @ bb, rtol=1e-5,
                               atol=1e-5)


CMP_OPS = [
    lambda a, b: a == b, lambda a, b: a != b, lambda a, b: a < b,
    lambda a, b: a <= b, lambda a, b: a > b, lambda a, b: a >= b,
]


@pytest.mark.parametrize("k", range(len(CMP_OPS)))
def test_comparisons_vs_numpy(k):
    fn = CMP_OPS[k]
    a = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], np.float32)
    b = np.array([2.0, 2.0, 2.0], np.float32)
    x, y = oar.to_tensor(a), oar.to_tensor(b)
    out = fn(x, y)
    assert out.dtype == oar.bool_
    np.testing.assert_array_equal(out.numpy(), fn(a, b))
    np.testing.assert_array_equal(fn(x, 2).numpy(), fn(a, 2))
    np.testing.assert_array_equal(fn(2, x).numpy(), fn(2, a))
    np.testing.assert_array_equal(fn(x, 2.5).numpy(), fn(a, 2.5))


def test_operators_with_numpy_scalars():
    x = oar.to_tensor([1.0, 2.0])
    np.testing.assert_allclose((x * np.float32(2)).numpy(), [2.0, 4.0])
    np.testing.assert_allclose((x + np.int64(1)).numpy(), [2.0, 3.0])


def test_operator_results_track_gradients_like_torch():
    a, b = np.abs(_arr((3,), seed=8)) + 0.5, np.abs(_arr((3,), seed=9)) + 0.5
    x = oar.to_tensor(a, stop_gradient=False)
    y = oar.to_tensor(b, stop_gradient=False)
    tx = torch.tensor(a, requires_grad=True)
    ty = torch.tensor(b, requires_grad=True)

    def f(p, q):
        return ((p * q - 2 / p + q ** 2 - 3 ** q) / (1 + p) - (-p)).sum()

    f(x, y).backward()
    f(tx, ty).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_unsupported_operand_type_raises_type_error():
    x = oar.to_tensor([1.0])
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        x @ 2
    with pytest.raises(TypeError):
        object() * x


# ---- repr -----------------------------------------------------------------------------------


def test_repr_paddle_style():
    x = oar.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    r = repr(x)
    assert r.startswith("Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), "
                        "stop_gradient=True,\n")
    assert r.rstrip().endswith(")")
    body = r.split("\n", 1)[1]
    assert re.search(r"\[\[1\., 2\., 3\.\],\s*\n\s*\[4\., 5\., 6\.\]\]", body)
    assert str(x) == r
    y = oar.to_tensor([1, 2], stop_gradient=False)
    assert repr(y).startswith("Tensor(shape=[2], dtype=int64, place=Place(cpu), "
                              "stop_gradient=False,")
    assert "[1, 2]" in repr(y)
    s = oar.to_tensor(3.5, dtype="float64")
    assert repr(s).startswith("Tensor(shape=[], dtype=float64, place=Place(cpu), "
                              "stop_gradient=True,")
    assert "3.5" in repr(s)
    b = oar.to_tensor([True, False])
    assert "dtype=bool" in repr(b)
    assert re.search(r"\[\s*True\s*,\s*False\s*\]", repr(b))
    assert f"{oar.to_tensor(2.0):.3f}" == "2.000"


# ---- indexing (reads) -------------------------------------------------------------------------

A = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)

READ_INDICES = [
    (0,), (-1,), (1, 2), (slice(None),), (slice(1, None),), (slice(None, None, -1),),
    (slice(None, None, 2), slice(None, None, -2)), (Ellipsis, 1), (Ellipsis, slice(1, 3)),
    (0, Ellipsis, -1), (None,), (slice(None), None, 1), (None, Ellipsis, None),
    (slice(-2, None), slice(3, 0, -1), slice(None), slice(4, None, -3)),
    (1, slice(None, None, -1), None, 2, slice(1, 4, 2)),
    (slice(10, 20),), (slice(-100, 100),), (0, slice(2, 1)),
    (np.int64(1), np.int32(-2)),
    ([1, 0],), ((slice(None), [2, 0, 2])), (Ellipsis, [4, 0, -1]),
    (slice(None), [0, 2], slice(None), [1, 3]),  # non-adjacent advanced -> dims first
    (slice(None), [0, 2], [1, 3]),                # adjacent advanced
    (slice(None), [[0], [2]], [[1, 3]]),          # broadcast index arrays
    ([0, 1], [2, 0], [3, 1]),
    (1, [0, 2], slice(1, 3)),
    (None, slice(None), [1, 2]),
    (np.array([1, -1]), Ellipsis),
]


@pytest.mark.parametrize("idx", READ_INDICES, ids=[repr(i) for i in READ_INDICES])
def test_getitem_vs_numpy(idx):
    x = oar.to_tensor(A)
    if isinstance(idx, tuple) and len(idx) == 1:
        idx = idx[0]
    out = x[idx]
    ref = A[idx]
    assert out.shape == list(ref.shape)
    np.testing.assert_array_equal(out.numpy(), ref)


def test_getitem_boolean_masks():
    x = oar.to_tensor(A)
    m1 = A[:, 0, 0, 0] > 10          # over dim 0
    np.testing.assert_array_equal(x[oar.to_tensor(m1)].numpy(), A[m1])
    m2 = (A[:, :, 0, 0] % 2) == 0    # 2-d mask over dims 0,1
    out = x[oar.to_tensor(m2)]
    assert out.shape == list(A[m2].shape)
    np.testing.assert_array_equal(out.numpy(), A[m2])
    m_full = A % 7 == 0              # full-shape mask -> 1-d result
    np.testing.assert_array_equal(x[oar.to_tensor(m_full)].numpy(), A[m_full])
    m_last = np.array([True, False, True, True, False])
    np.testing.assert_array_equal(x[..., oar.to_tensor(m_last)].numpy(), A[..., m_last])
    m_mid = np.array([[True, False, False, True], [False, True, True, False],
                      [True, True, False, False]])
    np.testing.assert_array_equal(x[1, oar.to_tensor(m_mid)].numpy(), A[1, m_mid])
    np.testing.assert_array_equal(x[:, oar.to_tensor(m_mid), 2].numpy(), A[:, m_mid, 2])
    # numpy bool array and a Tensor comparison as mask
    np.testing.assert_array_equal(x[np.array([False, True])].numpy(), A[np.array([False, True])])
    np.testing.assert_array_equal(x[x > 100].numpy(), A[A > 100])
    empty = x[oar.to_tensor(np.zeros(2, bool))]
    assert empty.shape == [0, 3, 4, 5]


def test_getitem_with_index_tensors():
    x = oar.to_tensor(A)
    i = oar.to_tensor([2, 0])
    j = oar.to_tensor([1, 1])
    np.testing.assert_array_equal(x[:, i, j].numpy(), A[:, [2, 0], [1, 1]])
    np.testing.assert_array_equal(x[oar.to_tensor(1)].numpy(), A[1])
    np.testing.assert_array_equal(x[oar.to_tensor([1], dtype="int32")].numpy(), A[[1]])


def test_getitem_negative_step_basic_view_values():
    v = np.arange(10, dtype=np.float64)
    x = oar.to_tensor(v)
    for s in (slice(None, None, -1), slice(8, 2, -2), slice(None, 3, -3), slice(-1, -11, -1),
              slice(5, None, -1), slice(2, 8, 3)):
        np.testing.assert_array_equal(x[s].numpy(), v[s])


# ---- slice assignment (in-place) -------------------------------------------------------------


def test_setitem_scalar_slices():
    a = _arr((4, 5), seed=11)
    x = oar.to_tensor(a.copy())
    ptr = x.data_ptr()
    v0 = x.inplace_version
    x[1:3] = 7.0
    a[1:3] = 7.0
    np.testing.assert_array_equal(x.numpy(), a)
    assert x.inplace_version == v0 + 1
    assert x.data_ptr() == ptr  # truly in place
    x[:, ::-2] = -1
    a[:, ::-2] = -1
    np.testing.assert_array_equal(x.numpy(), a)
    x[0, 4] = 3.5
    a[0, 4] = 3.5
    np.testing.assert_array_equal(x.numpy(), a)
    x[...] = 0.25
    a[...] = 0.25
    np.testing.assert_array_equal(x.numpy(), a)
    assert x.inplace_version == v0 + 4


def test_setitem_tensor_values_with_broadcast():
    a = _arr((3, 4, 5), seed=12)
    x = oar.to_tensor(a.copy())
    v0 = x.inplace_version
    row = _arr((5,), seed=13)
    x[1:3] = oar.to_tensor(row)          # broadcast over 2x4
    a[1:3] = row
    np.testing.assert_array_equal(x.numpy(), a)
    col = _arr((4, 1), seed=14)
    x[0] = oar.to_tensor(col)            # int index + broadcast
    a[0] = col
    np.testing.assert_array_equal(x.numpy(), a)
    blk = _arr((2, 2, 5), seed=15)
    x[::2, 1:3] = oar.to_tensor(blk)
    a[::2, 1:3] = blk
    np.testing.assert_array_equal(x.numpy(), a)
    x[:, 0, :] = np.ones(5, np.float32) * 4  # a numpy value
    a[:, 0, :] = 4
    np.testing.assert_array_equal(x.numpy(), a)
    x[2, 3, 4] = oar.to_tensor(9.0)
    a[2, 3, 4] = 9.0
    np.testing.assert_array_equal(x.numpy(), a)
    assert x.inplace_version == v0 + 5


def test_setitem_casts_value_dtype():
    x = oar.zeros([2, 3], dtype="int64")
    x[0] = oar.to_tensor([1.9, 2.0, -3.7])
    assert x.dtype == oar.int64
    np.testing.assert_array_equal(x.numpy()[0], np.array([1.9, 2.0, -3.7]).astype(np.int64))


def test_setitem_full_boolean_mask():
    a = _arr((3, 4), seed=16)
    x = oar.to_tensor(a.copy())
    v0 = x.inplace_version
    x[x > 0] = 0.0
    a[a > 0] = 0.0
    np.testing.assert_array_equal(x.numpy(), a)
    assert x.inplace_version == v0 + 1


def test_setitem_shape_mismatch_leaves_tensor_intact():
    a = _arr((3, 4), seed=17)
    x = oar.to_tensor(a.copy())
    v0 = x.inplace_version
    with pytest.raises(ValueError):
        x[1:3] = oar.ones([3, 4])
    np.testing.assert_array_equal(x.numpy(), a)
    assert x.inplace_version == v0


def test_setitem_on_non_leaf_is_differentiable_like_torch():
    a = _arr((3, 4), seed=18)
    v = _arr((4,), seed=19)
    x = oar.to_tensor(a, stop_gradient=False)
    val = oar.to_tensor(v, stop_gradient=False)
    y = x * 2
    y[1] = val
    y[2, 1:3] = 5.0
    (y * y).sum().backward()

    tx = torch.tensor(a, requires_grad=True)
    tv = torch.tensor(v, requires_grad=True)
    ty = tx * 2
    ty[1] = tv
    ty[2, 1:3] = 5.0
    (ty * ty).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(val.grad.numpy(), tv.grad.numpy(), rtol=1e-6)


# ---- gradients through indexing reads ------------------------------------------------------------

GRAD_INDICES = [
    (1,), (slice(None, None, -1), 2), (Ellipsis, slice(3, 0, -2)), (None, 0, slice(1, 3)),
    ([2, 0, 2],),                      # repeated index -> accumulated gradient
    (slice(None), [1, 1, 3]),
    ([0, 2], [3, 3]),
    (slice(None), [[0], [3]], ),
]


@pytest.mark.parametrize("idx", GRAD_INDICES, ids=[repr(i) for i in GRAD_INDICES])
def test_gradient_through_indexing_vs_torch(idx):
    a = _arr((3, 4, 2), dtype=np.float64, seed=20)
    x = oar.to_tensor(a, stop_gradient=False)
    tx = torch.tensor(a, requires_grad=True)
    i = idx[0] if len(idx) == 1 else idx
    # torch has no negative steps: gather the same elements by their flat positions
    pos = np.ascontiguousarray(np.arange(a.size).reshape(a.shape)[i])
    out = x[i]
    tout = tx.reshape(-1)[torch.tensor(pos)]
    assert out.shape == list(tout.shape)
    w = _arr(tuple(tout.shape), dtype=np.float64, seed=21)
    (out * oar.to_tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


def test_gradient_through_boolean_mask_vs_torch():
    a = _arr((3, 4), dtype=np.float64, seed=22)
    m = a > 0
    x = oar.to_tensor(a, stop_gradient=False)
    tx = torch.tensor(a, requires_grad=True)
    (x[oar.to_tensor(m)] ** 3).sum().backward()
    (tx[torch.tensor(m)] ** 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    m_rows = np.array([True, False, True])
    x2 = oar.to_tensor(a, stop_gradient=False)
    tx2 = torch.tensor(a, requires_grad=True)
    (x2[oar.to_tensor(m_rows)] * 2).sum().backward()
    (tx2[torch.tensor(m_rows)] * 2).sum().backward()
    np.testing.assert_allclose(x2.grad.numpy(), tx2.grad.numpy())


def test_second_order_gradient_through_indexing():
    a = np.array([1.0, 2.0, 3.0])
    x = oar.to_tensor(a, stop_gradient=False)
    y = (x[[0, 2, 2]] ** 3).sum()
    (g,) = oar.grad([y], [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), [3.0, 0.0, 54.0])
    (h,) = oar.grad([g.sum()], [x])
    np.testing.assert_allclose(h.numpy(), [6.0, 0.0, 36.0])


# ---- negative steps and empty regions (numpy semantics) ----------------------------------------------

A3 = np.arange(60, dtype=np.float32).reshape(3, 4, 5)


@pytest.mark.parametrize("s", [slice(-6, None, -1), slice(-6, 2, -1), slice(-10, -10, -1),
                               slice(-6, 0, -1), slice(-7, None, -2)])
def test_getitem_negative_step_starting_before_the_beginning_is_empty(s):
    v = np.arange(5, dtype=np.float64)
    assert v[s].shape == (0,)
    out = oar.to_tensor(v)[s]
    assert out.shape == [0]


def test_getitem_negative_step_start_before_beginning_in_nd():
    x = oar.to_tensor(A3)
    for idx in ((slice(-4, -4, -1),), (slice(None), slice(-5, 0, -1)), (0, slice(-9, None, -1))):
        ref = A3[idx]
        out = x[idx]
        assert out.shape == list(ref.shape), idx


@pytest.mark.parametrize("idx", [
    ([0, 1], [1, 2], slice(3, 3)),
    (slice(None), [0, 2], slice(4, 1)),
    ([0], slice(2, 1), [1, 0]),
], ids=repr)
def test_getitem_advanced_with_empty_basic_dims(idx):
    out = oar.to_tensor(A3)[idx]
    assert out.shape == list(A3[idx].shape)


@pytest.mark.parametrize("idx", [
    slice(None, None, -1),
    slice(1, None, -1),
    (slice(None), slice(None, None, -2)),
    (0, slice(None, None, -1)),
    (Ellipsis, slice(3, None, -2)),
], ids=repr)
def test_setitem_negative_step_with_tensor_values(idx):
    a = A3.copy()
    region = a[idx]
    val = -np.arange(region.size, dtype=np.float32).reshape(region.shape) - 1
    x = oar.to_tensor(A3.copy())
    x[idx] = oar.to_tensor(val)
    a[idx] = val
    np.testing.assert_array_equal(x.numpy(), a)


def test_setitem_negative_step_empty_region_writes_nothing():
    x = oar.to_tensor(A3.copy())
    x[-10::-1] = 7.0     # numpy: an empty selection
    np.testing.assert_array_equal(x.numpy(), A3)
    v = oar.to_tensor(np.arange(5, dtype=np.float64))
    v[-6::-1] = 9.0
    np.testing.assert_array_equal(v.numpy(), np.arange(5, dtype=np.float64))


def test_setitem_empty_region_is_a_no_op():
    x = oar.to_tensor(A3.copy())
    x[0, 3:1] = oar.to_tensor(np.zeros((0, 5), np.float32))
    x[:, :, 2:2] = oar.zeros([3, 4, 0])
    np.testing.assert_array_equal(x.numpy(), A3)


def test_setitem_value_with_leading_ones_and_inner_size_one_dims():
    a = A3.copy()
    x = oar.to_tensor(A3.copy())
    val = -np.arange(10, dtype=np.float32).reshape(1, 2, 1, 5)
    x[0:2, 0:1] = oar.to_tensor(val)   # region (2, 1, 5): numpy drops only the leading 1
    a[0:2, 0:1] = val
    np.testing.assert_array_equal(x.numpy(), a)


def t(v, dtype="float64", grad=False):
    return oar.to_tensor(np.asarray(v, dtype=dtype), stop_gradient=not grad)


# ---- Tensor methods ----------------------------------------------------------------------------
def test_strides_offset_layout_and_shared_memory():
    x = oar.to_tensor([[1, 2, 3], [4, 5, 6]])
    assert x.get_strides() == x.strides == x.stride() == [3, 1] and x.stride(-1) == 1
    y = x[1]
    assert y.offset == 24 and y.get_strides() == [1]
    assert x.layout == "NCHW" and x.itemsize == 8
    assert y._is_shared_buffer_with(x) and not oar.ones([2])._is_shared_buffer_with(x)
    assert x.is_dense() and not x.is_dist() and str(x.type) == "VarType.DENSE_TENSOR"


def test_set_resize_reconstruct_and_data():
    src = t([11.0, 22.0, 33.0, 44.0, 55.0, 66.0], "float32")
    x = t([1.0, 2.0], "float32")
    x.set_(src, shape=[3], stride=[2])
    assert x.tolist() == [11.0, 33.0, 55.0] and x._is_shared_buffer_with(src)
    x.set_(src, shape=[5], offset=4)
    assert x.tolist() == [22.0, 33.0, 44.0, 55.0, 66.0]
    x.set_()
    assert x.shape == [0]
    r = t([1.0, 2.0, 3.0], "float32")
    r.resize_([2, 3], fill_zero=True)
    assert r.tolist() == [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]
    a, b = oar.to_tensor([1.0], stop_gradient=False), oar.to_tensor([2.0, 3.0])
    a.reconstruct_from_(b)
    assert a.tolist() == [2.0, 3.0] and a.stop_gradient
    d = oar.to_tensor(1.0)
    d.data = oar.to_tensor(2.0)
    assert d.item() == 2.0 and d.data.item() == 2.0


def test_in_place_random_fills_are_in_range_and_reproducible():
    x = oar.zeros([2000])
    oar.seed(5)
    x.uniform_(-2.0, 3.0)
    v = x.numpy().copy()
    assert v.min() >= -2.0 and v.max() < 3.0 and abs(v.mean() - 0.5) < 0.15
    oar.seed(5)
    assert np.array_equal(x.uniform_(-2.0, 3.0).numpy(), v)
    assert abs(x.normal_(1.0, 2.0).numpy().std() - 2.0) < 0.15
    assert abs(x.exponential_(2.0).numpy().mean() - 0.5) < 0.05
    g = x.geometric_(0.25).numpy()
    assert g.min() >= 1 and np.all(g == np.round(g)) and abs(g.mean() - 4.0) < 0.4
    assert x.log_normal_(0.0, 0.5).numpy().min() > 0
    assert np.isfinite(x.cauchy_(1.0, 2.0).numpy()).all()
    b = x.bernoulli_(0.3).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.05
    i = oar.zeros([500], dtype="int32").random_(3, 7).numpy()
    assert i.min() >= 3 and i.max() <= 6
    assert x.zero_().numpy().max() == 0.0
    leaf = oar.zeros([2], dtype="float32")
    leaf.stop_gradient = False
    with pytest.raises(RuntimeError, match="leaf"):
        leaf.normal_()


def test_fill_diagonal_matches_paddles_positions():
    x = oar.ones([5, 3])
    x.fill_diagonal_(2.0, wrap=True)
    assert np.argwhere(x.numpy() == 2).tolist() == [[0, 0], [1, 1], [2, 2], [4, 0]]
    y = oar.ones([4, 3])
    y.fill_diagonal_(2.0, offset=-1)
    assert np.argwhere(y.numpy() == 2).tolist() == [[1, 0], [2, 1]]
    z = oar.ones([2, 2, 2])
    z.fill_diagonal_(2.0)
    assert np.argwhere(z.numpy() == 2).tolist() == [[0, 0, 0], [1, 1, 1]]
    w = oar.ones([4, 3]) * 2
    assert w.fill_diagonal_tensor(oar.ones([3])).numpy().trace() == 3.0
    w.fill_diagonal_tensor_(oar.zeros([2]), offset=1)
    assert w.numpy()[0, 1] == 0.0 and w.numpy()[1, 2] == 0.0


def test_to_apply_new_and_small_methods():
    x = oar.to_tensor([1, 2, 3])
    assert x.to("float32").dtype == oar.float32 and x.to("cpu") is x
    assert x.to("cpu", "float64").dtype == oar.float64
    assert x.to(t([1.0])).dtype == oar.float64 and x.to(dtype="int32").dtype == oar.int32
    f = t([0.5, 1.0])
    assert f.apply(lambda v: v * 2).tolist() == [1.0, 2.0]
    assert f.apply_(lambda v: v + 1) is f and f.tolist() == [1.5, 2.0]
    o = oar.ones([2, 2])
    assert o.new_empty(3, 3).shape == [3, 3] and o.new_zeros([2]).tolist() == [0.0, 0.0]
    assert o.new_full([2], 5.0, dtype="int64").tolist() == [5, 5]
    assert o.new_ones((1, 2), requires_grad=True).stop_gradient is False
    g = oar.to_tensor(5.0, stop_gradient=False)
    (g * g).backward()
    assert g.gradient() == 10.0 and oar.ones([1]).gradient() is None
    r = oar.randn([2])
    assert r.requires_grad is False
    r.requires_grad = True
    assert r.stop_gradient is False
    m = oar.to_tensor([[1.1, 2.2, 3.3]])
    assert m.item(2) == m.item(0, 2) == float(np.float32(3.3))
    assert oar.to_tensor([[1, 2], [3, 4]]).repeat(2, 1).shape == [4, 2]
    assert [p.shape for p in oar.ones([3, 2]).split_with_sizes([1, 2])] == [[1, 2], [2, 2]]
    assert o.is_same_shape(oar.zeros([2, 2])) and not o.is_same_shape(oar.zeros([2]))
    assert oar.to_tensor([-5, -1, 1]).bitwise_invert().tolist() == [4, 0, -2]
    assert "data: [1.0]" in str(oar.to_tensor([1.0]).get_tensor())
