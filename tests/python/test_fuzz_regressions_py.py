"""Regression tests for the op fuzzer's findings in the Python layer (python/oar:
tensor/manipulation.py, creation.py, methods.py). Each failed before its fix; the reproducers
are the fuzzer's (tests/fuzz/fuzz_ops.py) or reduced from them."""
import math
import random
import subprocess
import sys

import numpy as np
import pytest
import torch

import oar

NAN, INF = float("nan"), float("inf")


# ---- flatten of an empty tensor: a merged 0 is a literal 0, not "copy this dim" ------

@pytest.mark.parametrize("shape,start,stop", [
    ([0, 9, 3, 0], 1, -1), ([0, 9, 3, 0], 0, 1), ([2, 0, 3], 1, 2), ([3, 0], 0, -1),
    ([0], 0, 0), ([4, 0, 5, 6], 2, 3), ([0, 2, 3], 1, 2), ([2, 3, 0, 4], 0, 1)])
def test_flatten_empty_shapes_match_torch(shape, start, stop):
    x = oar.to_tensor(np.zeros(shape), stop_gradient=False)
    y = oar.flatten(x, start, stop)
    assert y.shape == list(torch.flatten(torch.zeros(shape), start, stop).shape)
    assert not y.stop_gradient  # still on the graph: the gradient is x's (empty) shape
    (g,) = oar.grad([y.sum()], [x])
    assert g.shape == shape


def test_flatten_checks_its_axes():
    x = oar.to_tensor(np.zeros([2, 3, 4]))
    with pytest.raises(ValueError, match="flatten"):
        oar.flatten(x, 2, 0)  # Paddle and torch: start_axis after stop_axis
    with pytest.raises(IndexError, match="flatten.*start_axis"):
        oar.flatten(x, 3)
    assert oar.flatten(oar.to_tensor(1.0)).shape == [1]
    assert oar.flatten(oar.to_tensor(1.0), -1, 0).shape == [1]


# ---- indexing: ints are advanced indices next to a list/mask (numpy's rule) ----------

def test_getitem_int_and_mask_separated_by_a_slice():
    x = oar.to_tensor(np.zeros((3, 4, 2)))
    assert x[0, :0, [False, True], None].shape == [1, 0, 1]
    a = np.arange(4.0).reshape(1, 4, 1)
    assert oar.to_tensor(a)[0, ..., 3:3:-2, [0]].shape == list(a[0, ..., 3:3:-2, [0]].shape)


def _random_index(r, shape):
    items, d = [], 0
    for _ in range(r.randint(1, len(shape) + 2)):
        n = shape[d] if d < len(shape) else 2
        u = r.random()
        if u < 0.3 and d < len(shape):
            items.append(r.randint(-n, n - 1) if n else 0)
            d += 1
        elif u < 0.55:
            items.append(slice(r.choice([None, 0, 1, -1]), r.choice([None, 0, 2, -1]),
                               r.choice([None, 1, 2, -1])))
            d += 1
        elif u < 0.65:
            items.append(None)
        elif u < 0.7:
            items.append(Ellipsis)
        elif u < 0.88:
            items.append([r.randint(-n, n - 1) if n else 0 for _ in range(r.randint(0, 2))])
            d += 1
        else:
            items.append([r.random() < 0.5 for _ in range(n)])
            d += 1
    return tuple(items)


def _np_index(idx):
    return tuple(np.array(i, dtype=bool if i and isinstance(i[0], bool) else np.int64)
                 if isinstance(i, list) else i for i in idx)


def test_getitem_matches_numpy_on_random_mixed_indices():
    r = random.Random(0)
    checked = 0
    for _ in range(3000):
        shape = [r.randint(0, 3) for _ in range(r.randint(1, 4))]
        a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
        idx = _random_index(r, shape)
        try:
            want = a[_np_index(idx)]
        except IndexError:
            with pytest.raises((IndexError, ValueError)):
                oar.to_tensor(a)[idx]
            continue
        got = oar.to_tensor(a)[idx]
        assert got.shape == list(want.shape), (shape, idx)
        np.testing.assert_array_equal(got.numpy(), want, err_msg=f"{shape} {idx}")
        checked += 1
    assert checked > 1000


def test_getitem_empty_list_and_ragged_list():
    a = np.arange(6.0).reshape(2, 3)
    assert oar.to_tensor(a)[[]].shape == list(a[[]].shape)
    with pytest.raises(IndexError):
        oar.to_tensor(a)[[[0], [0, 1]]]
    with pytest.raises(IndexError, match="broadcast"):
        oar.to_tensor(a)[[0, 1], [0, 1, 2]]


def test_getitem_empty_result_keeps_the_graph():
    x = oar.to_tensor(np.ones((2, 3)), stop_gradient=False)
    y = x[[], 0]
    assert y.shape == [0] and not y.stop_gradient
    (g,) = oar.grad([y.sum()], [x], allow_unused=True)
    assert g is None or g.numpy().sum() == 0


def test_setitem_value_may_carry_the_none_dims():
    # the value broadcasts to numpy's x[index].shape, which has the None dims
    x = oar.to_tensor(np.zeros((3, 4, 3)))
    v = np.arange(12.0).reshape(2, 1, 2, 3)
    a = np.zeros((3, 4, 3))
    a[-4:-1:1, None, ::-2] = v
    x[-4:-1:1, None, ::-2] = oar.to_tensor(v)
    np.testing.assert_array_equal(x.numpy(), a)
    y = oar.to_tensor(np.zeros((0, 1, 4)))
    y[1:0, None, 0] = oar.to_tensor(np.zeros((0, 1, 4)))  # empty, but the shapes fit


def test_setitem_matches_numpy_on_random_basic_indices():
    r = random.Random(1)
    checked = 0
    for _ in range(3000):
        shape = [r.randint(0, 3) for _ in range(r.randint(1, 4))]
        a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
        idx = tuple(i for i in _random_index(r, shape) if not isinstance(i, list))
        try:
            target = a[idx].shape
        except IndexError:
            continue
        vshape = [1 if r.random() < 0.3 else k for k in target]
        vshape = ([1] if r.random() < 0.3 else []) + vshape
        v = np.arange(float(np.prod(vshape))).reshape(vshape) + 100
        want, x = a.copy(), oar.to_tensor(a)
        try:
            want[idx] = v
        except ValueError:
            if target != ():  # numpy 2 refuses a size-1 array into one element; torch not
                with pytest.raises((ValueError, IndexError)):
                    x[idx] = oar.to_tensor(v)
            continue
        x[idx] = oar.to_tensor(v)
        np.testing.assert_array_equal(x.numpy(), want, err_msg=f"{shape} {idx} {vshape}")
        checked += 1
    assert checked > 1000


def test_setitem_rejects_index_arrays_that_do_not_broadcast_even_for_an_empty_region():
    x = oar.to_tensor(np.zeros((1, 4, 1, 6)))
    with pytest.raises(IndexError, match="broadcast"):
        x[0, [True, False, False, True], [False], 5:5:-2] = oar.to_tensor([2.78])


# ---- nonzero(as_tuple=True) of a 0-d tensor: a 1-tuple (torch) ----------------------

@pytest.mark.parametrize("v", [1, 0, 2.5, True])
def test_nonzero_as_tuple_of_0d(v):
    got = oar.nonzero(oar.to_tensor(v), as_tuple=True)
    want = torch.nonzero(torch.tensor(v), as_tuple=True)
    assert len(got) == len(want) == 1
    assert got[0].numpy().tolist() == want[0].tolist()


# ---- bad arguments: a typed error that names the function and the argument -----------

def _t():
    return oar.to_tensor([[1.0, 2.0]])


@pytest.mark.parametrize("call,err,words", [
    (lambda: oar.flatten(True), TypeError, "flatten(): argument 'x'"),
    (lambda: oar.flatten(_t(), "a"), TypeError, "flatten(): argument 'start_axis'"),
    (lambda: oar.t(""), TypeError, "t(): argument 'x'"),
    (lambda: oar.t(oar.zeros([2, 2, 2])), ValueError, "t(): argument 'x'"),
    (lambda: oar.split("abc", 0), TypeError, "split(): argument 'x'"),
    (lambda: oar.split(_t(), 0), ValueError, "split(): argument 'num_or_sections'"),
    (lambda: oar.split(_t(), -2), ValueError, "split(): argument 'num_or_sections'"),
    (lambda: oar.split(_t(), "ab", 1), TypeError, "split(): argument 'num_or_sections'"),
    (lambda: oar.split(_t(), [1, -3], 1), ValueError, "split(): argument 'num_or_sections'"),
    (lambda: oar.split(_t(), [-1, -1], 1), ValueError, "split(): argument 'num_or_sections'"),
    (lambda: oar.split(_t(), 1, 2), IndexError, "split(): argument 'axis'"),
    (lambda: oar.split(_t(), 1, "a"), TypeError, "split(): argument 'axis'"),
    (lambda: oar.split(oar.to_tensor(1.0), 1), ValueError, "split(): argument 'x'"),
    (lambda: oar.stack(["a"]), TypeError, "stack(): argument 'x[0]'"),
    (lambda: oar.stack({"a": 1}), TypeError, "stack(): argument 'x'"),
    (lambda: oar.stack(5), TypeError, "stack(): argument 'x'"),
    (lambda: oar.stack([_t()], 3), IndexError, "stack(): argument 'axis'"),
    (lambda: oar.stack([_t(), oar.zeros([2])]), ValueError, "stack(): all tensors"),
    (lambda: oar.gather(_t(), oar.to_tensor([0]), "a"), TypeError, "gather(): argument 'axis'"),
    (lambda: oar.where(_t() > 1, "a", _t()), TypeError, "where(): argument 'x'"),
    (lambda: oar.where(_t() > 1, _t(), None), TypeError, "where(): argument 'y'"),
    (lambda: oar.cast("a", "float32"), TypeError, "cast(): argument 'x'"),
    (lambda: oar.numel([1]), TypeError, "numel(): argument 'x'"),
    (lambda: oar.clone(1.0), TypeError, "clone(): argument 'x'"),
    (lambda: oar.nonzero([1]), TypeError, "nonzero(): argument 'x'"),
    (lambda: oar.pow(_t(), "a"), TypeError, "pow(): argument 'y'"),
    (lambda: _t().pow("a"), TypeError, "pow(): argument 'y'"),
    (lambda: oar.zeros([2], "abc"), TypeError, "zeros(): argument 'dtype'"),
    (lambda: oar.zeros(True), TypeError, "zeros(): argument 'shape'"),
    (lambda: oar.full([2], 1, oar.to_tensor(1.0)), TypeError, "full(): argument 'dtype'"),
    (lambda: oar.arange("a"), TypeError, "arange(): argument 'end'"),
    (lambda: oar.arange(0, 5, 1, "abc"), TypeError, "arange(): argument 'dtype'"),
    (lambda: oar.linspace("a", 1, 5), TypeError, "linspace(): argument 'start'"),
    (lambda: oar.linspace(0, 1, 2.5), TypeError, "linspace(): argument 'num'"),
    (lambda: oar.linspace(0, 1, -1), ValueError, "linspace(): argument 'num'"),
    (lambda: oar.linspace(0, 1, 5, "bool"), TypeError, "linspace(): argument 'dtype'"),
    (lambda: oar.eye("a"), TypeError, "eye(): argument 'num_rows'"),
    (lambda: oar.eye(2, 1.5), TypeError, "eye(): argument 'num_columns'"),
    (lambda: oar.eye(-1), ValueError, "eye()"),
    (lambda: oar.eye(2 ** 40), ValueError, "eye(): the shape"),
    (lambda: oar.split(oar.zeros([0, 2]), 2 ** 47), MemoryError,  # was an empty message
     "split(): 140737488355328 sections need"),
    (lambda: oar.randint("a", 5), TypeError, "randint(): argument 'low'"),
    (lambda: oar.normal("a"), TypeError, "normal(): argument 'mean'"),
    (lambda: oar.to_tensor([1], "abc"), TypeError, "to_tensor(): argument 'dtype'"),
])
def test_bad_arguments_raise_typed_errors(call, err, words):
    with pytest.raises(err) as e:
        call()
    assert words in str(e.value)


def test_split_still_splits():
    x = oar.to_tensor(np.arange(6.0).reshape(2, 3))
    assert [p.shape for p in oar.split(x, [1, -1], axis=1)] == [[2, 1], [2, 2]]
    assert [p.shape for p in oar.split(x, 3, axis=-1)] == [[2, 1]] * 3
    assert [p.shape for p in oar.split(oar.zeros([0, 3]), 1, axis=0)] == [[0, 3]]


# ---- where with two scalars: tensors of condition's shape (Paddle: x, y "Tensor|scalar") --

@pytest.mark.parametrize("x,y,dtype", [
    (1.0, 2.0, "float32"), (1, 2.5, "float32"), (1, 2, "int64"), (True, 3, "int64"),
    (True, False, "bool")])
def test_where_of_two_scalars(x, y, dtype):
    c = oar.to_tensor([[True, False, True], [False, False, True]])
    out = oar.where(c, x, y)
    assert out.shape == [2, 3] and out.dtype == getattr(oar, "bool" if dtype == "bool" else dtype)
    expect = np.where(c.numpy(), x, y).astype(dtype)
    np.testing.assert_array_equal(out.numpy(), expect)
    assert oar.where(oar.to_tensor(False), x, y).shape == []  # 0-d condition: 0-d result
    assert oar.where(oar.zeros([0, 2]) > 0, x, y).shape == [0, 2]


def test_where_with_one_scalar_is_unchanged_and_bad_types_name_the_argument():
    c = oar.to_tensor([True, False])
    t = oar.to_tensor([5.0, 6.0], stop_gradient=False)
    out = oar.where(c, t, 0.5)
    np.testing.assert_array_equal(out.numpy(), [5.0, 0.5])
    (g,) = oar.grad([out.sum()], [t])
    np.testing.assert_array_equal(g.numpy(), [1.0, 0.0])
    for call, words in [(lambda: oar.where(c, "a", 1.0), "argument 'x'"),
                        (lambda: oar.where(c, 1.0, "b"), "argument 'y'"),
                        (lambda: oar.where(c, 1.0, None), "argument 'y'"),
                        (lambda: oar.where(c, [1.0], 2.0), "argument 'x'"),
                        (lambda: oar.where([True], 1.0, 2.0), "argument 'condition'")]:
        with pytest.raises(TypeError, match=r"where\(\): " + words):
            call()


# ---- pow: x must be a Tensor (a Python x ran Python's power: 3 ** 2**40 hangs) -------

def test_pow_of_a_python_number_is_a_type_error_at_once():
    code = ("import oar\ntry:\n    oar.pow(3, 2**40)\nexcept TypeError as e:\n"
            "    assert \"pow(): argument 'x'\" in str(e)\nelse:\n    raise SystemExit(1)\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, cwd="/tmp")
    x = oar.to_tensor([2.0, 3.0])
    np.testing.assert_array_equal(oar.pow(x, 2).numpy(), [4.0, 9.0])
    np.testing.assert_array_equal(oar.pow(x, oar.to_tensor([1.0, 2.0])).numpy(), [2.0, 9.0])


# ---- numpy interop: 0-d bfloat16 (a numpy scalar is not an array) -------------------

@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float16", "bfloat16", "float32",
                                   "float64"])
@pytest.mark.parametrize("shape", [[], [0], [2, 0], [3]])
def test_array_of_every_dtype_0d_and_empty(dtype, shape):
    t = oar.to_tensor(np.ones(shape), dtype=dtype)
    a = np.asarray(t)
    assert isinstance(a, np.ndarray) and list(a.shape) == shape
    assert np.all(a == 1)
    assert list(t.numpy().shape) == shape
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert np.array(t, copy=True).shape == tuple(shape)
    assert t.tolist() == np.ones(shape).tolist()


# ---- arange with an integer dtype: start, end, step cast first (Paddle) -------------

@pytest.mark.parametrize("args", [(0.5, -4.5, -1), (0.85, -12.15, -1), (-2.73, 5, 1),
                                  (1.9, 7.9, 2), (-3.5, 3.5, 1.5), (5, 0.5, -2)])
def test_arange_integer_dtype_casts_bounds_first(args):
    t = oar.arange(*args, dtype="int64")
    start, end, step = (int(v) for v in args)  # toward zero, as Paddle's cast
    assert t.numpy().tolist() == list(range(start, end, step))
    assert t.numpy().tolist() == torch.arange(*args, dtype=torch.int64).tolist()
    assert oar.arange(*args, dtype="int32").numpy().tolist() == list(range(start, end, step))


def test_arange_step_truncating_to_zero_is_a_value_error():
    with pytest.raises(ValueError, match="arange.*'step'"):
        oar.arange(1.85, 5.1, 0.25, "int32")
    with pytest.raises(ValueError, match="arange.*'start'"):
        oar.arange(NAN, 5, 1, "int64")
    # float dtypes are unchanged (torch's count)
    np.testing.assert_allclose(oar.arange(1.85, 5.1, 0.25).numpy(),
                               torch.arange(1.85, 5.1, 0.25).numpy())


# ---- linspace: torch's integer rounding and non-finite ends -------------------------

@pytest.mark.parametrize("args", [(3.0, -2.5, 5), (1, -4.53, 5), (1.64, 3.68, 5), (0, 1, 7),
                                  (-2.5, 3.0, 7), (-3, 3, 5), (0.3, 4.7, 4), (7, 7, 3),
                                  (2.9, 0, 1), (0, 10, 0), (-1000, 1000, 9)])
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_linspace_integer_dtype_matches_torch(args, dtype):
    want = torch.linspace(*args, dtype=getattr(torch, dtype))
    got = oar.linspace(*args, dtype=dtype)
    assert got.dtype == dtype
    assert got.numpy().tolist() == want.tolist()


@pytest.mark.parametrize("start,stop", [(NAN, 1), (1, NAN), (-INF, 3.0), (INF, 3), (1, INF),
                                        (3.0, -INF), (-2.5, INF), (-INF, INF), (INF, INF),
                                        (INF, -2.5)])
@pytest.mark.parametrize("num", [1, 2, 5, 7])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linspace_non_finite_ends_match_torch(start, stop, num, dtype):
    want = torch.linspace(start, stop, num, dtype=getattr(torch, dtype)).numpy()
    got = oar.linspace(start, stop, num, dtype=dtype).numpy()
    np.testing.assert_array_equal(got, want)


def test_linspace_integer_dtype_rejects_non_finite_ends():
    with pytest.raises(ValueError, match="linspace.*'start'"):
        oar.linspace(NAN, 1, 5, dtype="int64")
    with pytest.raises(ValueError, match="linspace.*'stop'"):
        oar.linspace(0, INF, 5, dtype="int32")


def test_linspace_finite_float_is_unchanged():
    for args in [(0, 1, 5), (-2.0, 3.0, 7), (0.1, 10.3, 33)]:
        np.testing.assert_allclose(oar.linspace(*args, dtype="float64").numpy(),
                                   torch.linspace(*args, dtype=torch.float64).numpy(),
                                   rtol=1e-15, atol=1e-15)
    assert math.isclose(oar.linspace(1, 1, 1).item(), 1.0)


@pytest.mark.parametrize("shift", [-(2**63), 2**63 - 1, -(2**63) + 3])
def test_roll_by_extreme_shifts_matches_torch(shift):
    # Was a signed overflow (UBSan) in the index map for a shift near INT64_MIN.
    x = np.arange(7, dtype="float32")
    got = oar.roll(oar.to_tensor(x), [shift]).numpy()
    np.testing.assert_array_equal(got, np.roll(x, shift % 7))


def test_pad_whose_size_overflows_int64_is_a_typed_error():
    # Was a signed overflow (UBSan) when the padded size was computed.
    x = oar.to_tensor(np.ones([1], "float32"))
    with pytest.raises(ValueError, match="paddings.*overflows int64"):
        oar._C.pad_grad(x, x, [2**63 - 1, 0])
