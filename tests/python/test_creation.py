"""Creation functions: to_tensor, zeros/ones/full/*_like, arange, linspace, eye,
random creation and oar.seed (docs/python.md, 'create')."""
import numpy as np
import pytest

import oar

NP_DTYPES = ["bool", "int32", "int64", "float16", "float32", "float64"]


def _np_sample(name):
    if name == "bool":
        return np.array([[True, False, True], [False, False, True]])
    return (np.arange(6).reshape(2, 3) - 2).astype(name)


# ---- to_tensor ----------------------------------------------------------------------


@pytest.mark.parametrize("name", NP_DTYPES)
def test_to_tensor_numpy_keeps_dtype_and_values(name):
    a = _np_sample(name)
    t = oar.to_tensor(a)
    assert t.dtype == getattr(oar, name if name != "bool" else "bool_")
    assert t.dtype == name
    assert t.dtype.name == name
    assert t.shape == [2, 3]
    out = t.numpy()
    assert out.dtype == a.dtype
    np.testing.assert_array_equal(out, a)


@pytest.mark.parametrize("name", NP_DTYPES)
def test_to_tensor_numpy_copies(name):
    a = _np_sample(name)
    t = oar.to_tensor(a)
    before = a.copy()
    a[...] = a[::-1, ::-1]  # mutating the source must not change the tensor
    np.testing.assert_array_equal(t.numpy(), before)


@pytest.mark.parametrize("name", NP_DTYPES)
def test_to_tensor_numpy_scalar(name):
    v = np.array(1, dtype=name)[()]
    t = oar.to_tensor(v)
    assert t.shape == []
    assert t.dtype == name
    assert t.item() == 1


def test_to_tensor_python_default_dtypes():
    assert oar.to_tensor(1.5).dtype == oar.float32
    assert oar.to_tensor(3).dtype == oar.int64
    assert oar.to_tensor(True).dtype == oar.bool
    assert oar.to_tensor([1.0, 2.0]).dtype == oar.float32
    assert oar.to_tensor([[1, 2], [3, 4]]).dtype == oar.int64
    assert oar.to_tensor([True, False]).dtype == oar.bool_
    # a mixed int/float list is float (float32 by default)
    assert oar.to_tensor([1, 2.5]).dtype == oar.float32


def test_to_tensor_scalars():
    t = oar.to_tensor(2.5)
    assert t.shape == [] and t.ndim == 0 and t.size == 1
    assert t.item() == 2.5
    assert isinstance(t.item(), float)
    i = oar.to_tensor(-7)
    assert i.item() == -7 and isinstance(i.item(), int)
    b = oar.to_tensor(False)
    assert b.item() is False


def test_to_tensor_nested_lists():
    data = [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]], [[9.0, 10.0], [11.0, 12.0]]]
    t = oar.to_tensor(data)
    assert t.shape == [3, 2, 2]
    np.testing.assert_array_equal(t.numpy(), np.array(data, dtype=np.float32))
    assert t.tolist() == data


def test_to_tensor_explicit_dtype():
    t = oar.to_tensor([1, 2, 3], dtype="float64")
    assert t.dtype == oar.float64
    np.testing.assert_array_equal(t.numpy(), np.array([1, 2, 3], np.float64))
    t = oar.to_tensor([1.7, -2.2], dtype=oar.int32)
    assert t.dtype == oar.int32
    np.testing.assert_array_equal(t.numpy(), np.array([1.7, -2.2]).astype(np.int32))
    t = oar.to_tensor(np.arange(4, dtype=np.float64), dtype=np.float16)
    assert t.dtype == oar.float16
    # dtype aliases
    assert oar.to_tensor([1], dtype="float").dtype == oar.float32
    assert oar.to_tensor([1], dtype="double").dtype == oar.float64
    assert oar.to_tensor([1], dtype="paddle.int32").dtype == oar.int32


def test_to_tensor_float64_python_float_precision_is_float32():
    t = oar.to_tensor([0.1])
    assert t.numpy()[0] == np.float32(0.1)
    assert oar.to_tensor(np.array([0.1])).numpy()[0] == 0.1  # float64 numpy kept


def test_to_tensor_from_tensor_copies_and_stop_gradient():
    a = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    b = oar.to_tensor(a)
    assert b.stop_gradient is True
    assert b.is_leaf
    with oar.no_grad():
        a[0] = 10.0
    assert b.numpy().tolist() == [1.0, 2.0]
    c = oar.to_tensor(a, dtype="float64", stop_gradient=False)
    assert c.dtype == oar.float64 and c.stop_gradient is False and c.is_leaf


def test_to_tensor_non_contiguous_and_negative_strided_numpy():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    for view in (a.T, a[::2, ::-3], a[:, 1], a[::-1]):
        t = oar.to_tensor(view)
        assert t.shape == list(view.shape)
        np.testing.assert_array_equal(t.numpy(), view)


def test_to_tensor_empty():
    t = oar.to_tensor(np.zeros((0, 3), np.float32))
    assert t.shape == [0, 3] and t.size == 0
    assert t.numpy().shape == (0, 3)


def test_to_tensor_stop_gradient_flag():
    assert oar.to_tensor([1.0]).stop_gradient is True
    t = oar.to_tensor([1.0], stop_gradient=False)
    assert t.stop_gradient is False and t.is_leaf is True and t.grad is None


def test_tensor_constructor_calls_to_tensor():
    t = oar.Tensor([1.0, 2.0])
    assert t.dtype == oar.float32 and t.numpy().tolist() == [1.0, 2.0]


# ---- full / zeros / ones / *_like -----------------------------------------------------


def test_zeros_ones_full_defaults():
    z = oar.zeros([2, 3])
    assert z.dtype == oar.float32 and z.shape == [2, 3]
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3), np.float32))
    o = oar.ones((4,))
    np.testing.assert_array_equal(o.numpy(), np.ones(4, np.float32))
    assert oar.ones(3).shape == [3]
    # an int fill gives the default float, as Paddle 3.3.1 (and its documentation: "if
    # dtype is None, the data type of created Tensor is float32"); measured there:
    # full([2], 3), full([2], np.int64(3)) and full([2], to_tensor(3)) are float32
    f = oar.full([2, 2], 7)
    assert f.dtype == oar.float32
    np.testing.assert_array_equal(f.numpy(), np.full((2, 2), 7, np.float32))
    assert oar.full([2], np.int64(3)).dtype == oar.float32
    assert oar.full([2], oar.to_tensor(3)).dtype == oar.float32
    assert oar.full([2], oar.to_tensor(True)).dtype == oar.float32
    assert oar.full([2], 1 + 2j).dtype == oar.complex128
    assert oar.full([2], 3, dtype="int64").dtype == oar.int64
    f = oar.full([2], 1.5)
    assert f.dtype == oar.float32 and f.numpy().tolist() == [1.5, 1.5]
    f = oar.full([2], True)
    assert f.dtype == oar.bool_ and f.numpy().tolist() == [True, True]
    assert oar.zeros([2], dtype="int32").dtype == oar.int32
    assert oar.ones([2], dtype=oar.float64).numpy().dtype == np.float64
    e = oar.empty([3, 1])
    assert e.shape == [3, 1] and e.dtype == oar.float32
    # shape given as a Tensor, and a list holding 0-d tensors
    assert oar.zeros(oar.to_tensor([2, 5])).shape == [2, 5]
    assert oar.ones([oar.to_tensor(3), 2]).shape == [3, 2]
    assert oar.zeros([]).shape == []


@pytest.mark.parametrize("name", NP_DTYPES)
def test_full_each_dtype(name):
    t = oar.full([3], 1, dtype=name)
    assert t.dtype == name
    np.testing.assert_array_equal(t.numpy(), np.full(3, 1, dtype=name))


def test_like_functions():
    x = oar.to_tensor(np.arange(6, dtype=np.float64).reshape(2, 3))
    for fn, val in ((oar.zeros_like, 0), (oar.ones_like, 1)):
        t = fn(x)
        assert t.shape == [2, 3] and t.dtype == oar.float64
        np.testing.assert_array_equal(t.numpy(), np.full((2, 3), val, np.float64))
    t = oar.full_like(x, 3.5)
    assert t.dtype == oar.float64
    np.testing.assert_array_equal(t.numpy(), np.full((2, 3), 3.5))
    t = oar.full_like(x, 2, dtype="int32")
    assert t.dtype == oar.int32 and t.numpy().tolist() == [[2, 2, 2], [2, 2, 2]]
    t = oar.zeros_like(x, dtype=oar.bool_)
    assert t.dtype == oar.bool_ and not t.numpy().any()
    e = oar.empty_like(x)
    assert e.shape == [2, 3] and e.dtype == oar.float64


@pytest.mark.parametrize("name", NP_DTYPES + ["complex64", "uint8", "bfloat16"])
def test_empty_allocates_without_filling(name):
    # shape and dtype only: the values are whatever the memory held, as Paddle's
    e = oar.empty([4, 3], dtype=name)
    assert e.shape == [4, 3] and e.dtype == name and e.stop_gradient
    assert e.numpy().shape == (4, 3)
    x = oar.zeros([2, 5], dtype=name)
    assert oar.empty_like(x).shape == [2, 5] and oar.empty_like(x).dtype == name
    assert oar.empty_like(x, dtype="float64").dtype == oar.float64
    assert oar.empty([0, 3], dtype=name).shape == [0, 3]
    with pytest.raises(ValueError, match="shape"):
        oar.empty([2, -1], dtype=name)


def test_like_results_do_not_require_grad():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    assert oar.zeros_like(x).stop_gradient is True
    assert oar.ones_like(x).stop_gradient is True


# ---- arange / linspace / eye ------------------------------------------------------------


@pytest.mark.parametrize("args,kw", [((5,), {}), ((2, 9), {}), ((2, 9, 3), {}), ((10, 0, -3), {}),
                                    ((0.0, 1.0, 0.25), {}), ((1, 4), {"dtype": "float64"}),
                                    ((-3, 3), {"dtype": "int32"})])
def test_arange_vs_numpy(args, kw):
    t = oar.arange(*args, **kw)
    ref = np.arange(*args, dtype=kw.get("dtype"))
    if "dtype" not in kw:
        ref = ref.astype(np.float32 if ref.dtype.kind == "f" else np.int64)
    assert t.dtype == ref.dtype.name
    np.testing.assert_allclose(t.numpy(), ref)
    assert t.shape == [len(ref)]


def test_arange_keyword_and_tensor_bounds():
    np.testing.assert_array_equal(oar.arange(start=1, end=4).numpy(), [1, 2, 3])
    np.testing.assert_array_equal(oar.arange(oar.to_tensor(3)).numpy(), [0, 1, 2])


def test_linspace():
    t = oar.linspace(0, 1, 5)
    assert t.dtype == oar.float32
    np.testing.assert_allclose(t.numpy(), np.linspace(0, 1, 5).astype(np.float32))
    t = oar.linspace(-2.0, 3.0, 7, dtype="float64")
    assert t.dtype == oar.float64
    np.testing.assert_array_equal(t.numpy(), np.linspace(-2.0, 3.0, 7))
    assert oar.linspace(1, 1, 1).numpy().tolist() == [1.0]


def test_eye():
    t = oar.eye(3)
    assert t.dtype == oar.float32
    np.testing.assert_array_equal(t.numpy(), np.eye(3, dtype=np.float32))
    t = oar.eye(2, 4, dtype="int64")
    assert t.dtype == oar.int64 and t.shape == [2, 4]
    np.testing.assert_array_equal(t.numpy(), np.eye(2, 4, dtype=np.int64))


# ---- random -------------------------------------------------------------------------------


def test_rand_range_shape_dtype():
    t = oar.rand([200, 50])
    a = t.numpy()
    assert t.dtype == oar.float32 and a.shape == (200, 50)
    assert a.min() >= 0.0 and a.max() < 1.0
    assert 0.45 < a.mean() < 0.55
    assert len(np.unique(a)) > 9000
    assert oar.rand([3], dtype="float64").dtype == oar.float64


def test_uniform_bounds():
    a = oar.uniform([10000], min=-3.0, max=5.0).numpy()
    assert a.min() >= -3.0 and a.max() < 5.0
    assert 0.8 < a.mean() < 1.2
    assert a.min() < -2.9 and a.max() > 4.9


def test_randn_and_normal_moments():
    a = oar.randn([20000]).numpy()
    assert oar.randn([2]).dtype == oar.float32
    assert abs(a.mean()) < 0.05 and abs(a.std() - 1.0) < 0.05
    b = oar.normal(mean=3.0, std=0.5, shape=[20000]).numpy()
    assert b.shape == (20000,)
    assert abs(b.mean() - 3.0) < 0.03 and abs(b.std() - 0.5) < 0.03
    assert oar.standard_normal([4, 2]).shape == [4, 2]
    assert oar.randn([3], dtype="float64").dtype == oar.float64


def test_randint():
    t = oar.randint(3, 9, [5000])
    a = t.numpy()
    assert t.dtype == oar.int64
    assert a.min() == 3 and a.max() == 8
    assert set(np.unique(a).tolist()) == set(range(3, 9))
    t = oar.randint(4, shape=[1000], dtype="int32")
    assert t.dtype == oar.int32
    assert set(np.unique(t.numpy()).tolist()) == {0, 1, 2, 3}


def test_seed_reproducibility():
    for fn in (lambda: oar.rand([64]), lambda: oar.randn([64]),
               lambda: oar.uniform([64], min=-2.0, max=2.0), lambda: oar.randint(0, 100, [64]),
               lambda: oar.normal(1.0, 2.0, [64])):
        oar.seed(1234)
        a = fn().numpy()
        b = fn().numpy()
        oar.seed(1234)
        c = fn().numpy()
        np.testing.assert_array_equal(a, c)
        assert not np.array_equal(a, b)
    oar.seed(1)
    x = oar.rand([16]).numpy()
    oar.seed(2)
    y = oar.rand([16]).numpy()
    assert not np.array_equal(x, y)


def test_random_outputs_do_not_require_grad():
    assert oar.rand([2]).stop_gradient is True
    assert oar.randn([2]).is_leaf is True


def test_linspace_complex_dtype_spaces_the_real_ends():
    # Complex dtypes took the integer path (start and stop truncated: 3.46 became 3 + 0j).
    import torch
    for start, stop, num in [(3.46, -4.98, 5), (1, 0, 5), (3.33, -2.5, 1), (0, 1, 0),
                             (float("inf"), 1, 3), (1, float("nan"), 4)]:
        for dt, tdt in (("complex128", torch.complex128), ("complex64", torch.complex64)):
            got = oar.linspace(start, stop, num, dtype=dt)
            want = torch.linspace(start, stop, num, dtype=tdt).numpy()
            assert got.dtype.name == dt and got.shape == [num]
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, equal_nan=True)


# ---- numpy integers and whole floats where Paddle takes an int -------------------------------
def test_numpy_integers_are_ints_as_paddle():
    """Paddle 3.3.1 takes numpy integers (np.int64(3), what indexing a numpy array gives)
    for shapes, sizes and counts (measured there: zeros([np.int64(2), np.int32(3)]),
    ones(np.array([2, 3])), tile(x, np.int64(2)), MultiStepDecay(milestones=[np.int64(2),
    ...]), DataLoader(num_workers=np.int64(0)) and sparse.nn.Conv3D(np.int64(1),
    np.int64(2), 3) work). oar takes them also where Paddle's own isinstance(int) checks
    refuse them by accident (StepDecay's step_size, LinearWarmup's warmup_steps,
    BatchSampler's batch_size, fft's n and axis, GradScaler's counts)."""
    i = np.int64
    assert oar.zeros([i(2), np.int32(3)]).shape == [2, 3]
    assert oar.ones(np.array([2, 3])).shape == [2, 3]
    assert oar.zeros(np.array([2], dtype=np.int32)).shape == [2]
    assert oar.full(np.array([2]), 1.0).tolist() == [1.0, 1.0]
    assert oar.rand(np.array([2])).shape == [2]
    with pytest.raises(TypeError, match="integer array"):
        oar.ones(np.array([2.0, 3.0]))
    x = oar.ones([2, 3, 4])
    assert oar.reshape(x, [i(6), i(4)]).shape == [6, 4]
    assert [t.shape for t in oar.split(x, [i(1), i(3)], axis=i(2))] == [[2, 3, 1], [2, 3, 3]]
    assert oar.sum(x, axis=i(1)).shape == [2, 4]
    assert oar.tile(oar.ones([2]), i(2)).shape == [4]
    assert oar.tile(oar.ones([2]), 2).shape == [4]  # an int too (Paddle: [4])
    assert oar.flip(x, [i(0)]).shape == [2, 3, 4]
    assert oar.linspace(0, 1, i(5)).shape == [5]
    assert oar.optimizer.lr.StepDecay(0.1, step_size=i(2)).step_size == 2
    oar.optimizer.lr.MultiStepDecay(0.1, milestones=[i(2), i(4)])
    oar.optimizer.lr.LinearWarmup(0.1, i(3), 0.0, 0.1)
    oar.io.BatchSampler(oar.io.TensorDataset([oar.ones([4, 1])]), batch_size=i(2))
    oar.io.DataLoader(oar.io.TensorDataset([oar.ones([4, 1])]), batch_size=2, num_workers=i(0))
    oar.sparse.nn.Conv3D(i(1), i(2), 3)
    assert oar.fft.fft(oar.ones([4]), n=i(4), axis=i(0)).shape == [4]
    oar.amp.GradScaler(incr_every_n_steps=i(100))
    # bools stay refused where an int is asked for
    with pytest.raises(ValueError):
        oar.optimizer.lr.StepDecay(0.1, step_size=True)


def test_check_helpers_take_numpy_integers():
    from oar.framework import check as C

    assert C.is_int(np.int64(3)) and C.is_int(np.uint8(3)) and C.is_int(3)
    assert not C.is_int(True) and not C.is_int(np.bool_(True)) and not C.is_int(3.0)
    assert C.size("Linear", "in_features", np.int64(4)) == 4
    assert type(C.size("Linear", "in_features", np.int64(4))) is int
    assert C.size("Linear", "in_features", 0, minimum=0) == 0
    with pytest.raises(ValueError, match="must be a positive int, got np.int64\\(0\\)"):
        C.size("Linear", "in_features", np.int64(0))
    with pytest.raises(ValueError, match="must be a non-negative int, got 4.0"):
        C.size("Linear", "in_features", 4.0, minimum=0)
    assert C.integer("f", "n", np.int32(7)) == 7


def test_linspace_and_logspace_take_a_whole_float_num_as_paddle():
    """Paddle 3.3.1: linspace(0, 1, 5.0) and logspace(0, 1, 5.0) give 5 values (so do
    np.int64(5) and np.float64(5.0)); 5.5 gives 5 there too (truncated), where Paddle's
    documentation asks for an int: oar refuses a fractional num."""
    for num in (5.0, np.float64(5.0), np.int64(5)):
        assert oar.linspace(0, 1, num).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    np.testing.assert_allclose(
        oar.logspace(0, 1, 5.0).numpy(), [1.0, 1.7782794, 3.1622777, 5.623413, 10.0], rtol=1e-6
    )
    with pytest.raises(TypeError, match="linspace\\(\\): argument 'num'"):
        oar.linspace(0, 1, 5.5)
    with pytest.raises(TypeError, match="logspace\\(\\): argument 'num'"):
        oar.logspace(0, 1, 2.5)
