"""Assignment through integer-array and boolean indices (x[idx] = v), the gathering and
scattering wrappers with Paddle's signatures (gather, put_along_axis, index_put), and
the error paths of the ops of src/oar/ops/gather.yaml and scatter.yaml. The ops' own
values and gradients are in the op registry (tests/op_cases/); this checks what the
registry cannot: Python-level index forms, in-place writes, version counters, strings."""
import numpy as np
import pytest
import torch

import oar


def _arr(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _to(fw, v):
    """A numpy index array as the framework's tensor; other index parts unchanged."""
    if isinstance(v, np.ndarray):
        return torch.tensor(v) if fw == "torch" else oar.to_tensor(v)
    if isinstance(v, tuple):
        return tuple(_to(fw, p) for p in v)
    return v


MASK45 = np.array([[1, 0, 1, 1, 0], [0, 0, 0, 0, 0], [1, 1, 0, 0, 1], [0, 1, 0, 0, 0]], bool)
MASK4 = np.array([True, False, True, True])

# (index, shape of the value; None: a Python float) on x of shape [4, 5, 3]
SETITEM_CASES = [
    ([0, 2], None),
    ([0, 2], [5, 3]),
    ([-1, -4], [2, 1, 3]),
    (np.array([3, 1]), [2, 5, 3]),
    (np.array([3, 1], np.int32), [3]),
    ((slice(None), [1, 3]), [2, 3]),
    ((slice(1, 3), [0, 4]), [2, 2, 3]),
    ((slice(None, None, 2), [4, 0], slice(1, 3)), [2, 2]),
    (([0, 3], slice(None), [2, 0]), [2, 5]),
    (([[0], [3]], [1, 2]), [2, 2, 3]),
    ((Ellipsis, [0, 2]), [4, 5, 2]),
    ((None, [1, 2]), [1, 2, 5, 3]),
    ((1, [0, 2]), [2, 3]),
    (([1, 2], 0, slice(None)), [3]),
    (([1, 2], slice(None), 0), [2, 5]),
    (MASK45, None),
    (MASK45, [3]),
    (MASK45, [int(MASK45.sum()), 3]),
    ((MASK4, slice(0, 2)), [3, 2, 3]),
    ((slice(None), MASK45[0]), [3]),
    (MASK45[..., None].repeat(3, -1), None),
    (MASK45[..., None].repeat(3, -1), [int(MASK45.sum()) * 3]),
    ((MASK4, [1, 0, 4]), [3]),
    ([], None),
    ((slice(2, 2), [0]), [3]),
    (np.zeros([0], np.int64), [0, 5, 3]),
]


def _ids(c):
    return repr(c[0])[:40] + f"-v{c[1]}"


@pytest.mark.parametrize("index,vshape", SETITEM_CASES, ids=[_ids(c) for c in SETITEM_CASES])
def test_setitem_matches_torch_values_and_gradients(index, vshape):
    base = _arr([4, 5, 3])
    w = _arr([4, 5, 3], seed=1)
    value = 0.75 if vshape is None else _arr(vshape, seed=2)

    tx = torch.tensor(base, requires_grad=True)
    ty = tx * 1.0
    tv = value if vshape is None else torch.tensor(value, requires_grad=True)
    ty[_to("torch", index)] = tv
    tloss = (ty * ty * torch.tensor(w)).sum()

    ox = oar.to_tensor(base, stop_gradient=False)
    oy = ox * 1.0
    ov = value if vshape is None else oar.to_tensor(value, stop_gradient=False)
    version = oy.inplace_version
    oy[_to("oar", index)] = ov
    np.testing.assert_allclose(oy.numpy(), ty.detach().numpy(), rtol=1e-12)
    if ty[_to("torch", index)].numel():  # an empty region is not written (numpy)
        assert oy.inplace_version > version
    oloss = (oy * oy * oar.to_tensor(w)).sum()

    t_ins = [tx] + ([tv] if vshape is not None else [])
    o_ins = [ox] + ([ov] if vshape is not None else [])
    tg = torch.autograd.grad(tloss, t_ins, create_graph=True)
    # allow_unused: a value written to an empty region is not used (torch: zeros)
    og = oar.grad(oloss, o_ins, create_graph=True, allow_unused=True)
    og = [oar.zeros(b.shape, dtype="float64") if a is None else a for a, b in zip(og, tg)]
    for a, b in zip(og, tg):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    # second order: d/d(inputs) of the sum of the first-order gradients
    tg2 = torch.autograd.grad(sum(g.sum() for g in tg), t_ins, allow_unused=True)
    og2 = oar.grad(sum(g.sum() for g in og if not g.stop_gradient), o_ins, allow_unused=True)
    for a, b in zip(og2, tg2):
        want = np.zeros(b.shape) if b is None else b.numpy()
        got = np.zeros(want.shape) if a is None else a.numpy()
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("index", [[1, 0], MASK45[:2, :3]], ids=["list", "mask"])
def test_setitem_integer_and_bool_tensors(index):
    for dtype, value in [("int64", 7), ("bool", True), ("int32", -3)]:
        x = oar.zeros([2, 3], dtype=dtype)
        want = np.zeros([2, 3], dtype=dtype)
        x[_to("oar", index)] = value
        want[index] = value
        np.testing.assert_array_equal(x.numpy(), want)


def test_setitem_into_a_view_writes_the_base():
    base = oar.to_tensor(_arr([4, 6]))
    want = base.numpy().copy()
    view = base[:, ::2]
    view[[0, 3], [2, 1]] = 5.0
    want[:, ::2][[0, 3], [2, 1]] = 5.0
    np.testing.assert_array_equal(base.numpy(), want)


def test_setitem_with_a_negative_step_slice_matches_numpy():
    base = _arr([4, 5, 3])
    x = oar.to_tensor(base)
    x[::-2, [4, 0], 1:] = oar.to_tensor(_arr([2, 2], seed=2))
    base[::-2, [4, 0], 1:] = _arr([2, 2], seed=2)
    np.testing.assert_array_equal(x.numpy(), base)


def test_setitem_duplicate_positions_last_write_wins():
    x = oar.zeros([4])
    x[[1, 1, 2]] = oar.to_tensor([5.0, 6.0, 7.0])
    np.testing.assert_array_equal(x.numpy(), [0, 6, 7, 0])


def test_setitem_value_may_alias_the_target():
    x = oar.to_tensor(np.arange(6.0))
    x[[0, 1, 2]] = x[3:]
    np.testing.assert_array_equal(x.numpy(), [3, 4, 5, 3, 4, 5])


def test_setitem_on_a_leaf_that_requires_grad_raises():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(RuntimeError, match="leaf"):
        x[[0]] = 3.0


def test_setitem_errors_leave_x_untouched():
    x = oar.to_tensor(_arr([2, 3]))
    before = x.numpy().copy()
    with pytest.raises(IndexError, match=r"__setitem__\(\): argument 'index': index 3 is out of "
                                         r"bounds for axis 1 with size 3"):
        x[:, [0, 3]] = 1.0
    with pytest.raises(IndexError, match=r"index -3 is out of bounds for axis 0 with size 2"):
        x[[-3]] = 1.0
    with pytest.raises(ValueError, match=r"__setitem__\(\): argument 'value' of shape \[4\] "
                                         r"could not be broadcast to the indexed shape \[2, 3\]"):
        x[[0, 1]] = oar.to_tensor([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(IndexError, match="could not be broadcast together"):
        x[[0, 1], [0, 1, 2]] = 1.0
    with pytest.raises(IndexError, match=r"mask of shape \[3\]"):
        x[oar.to_tensor([True, False, True])] = 1.0
    with pytest.raises(IndexError, match="float"):
        x[np.array([0.5])] = 1.0
    np.testing.assert_array_equal(x.numpy(), before)


# ---- getitem counterparts ----------------------------------------------------------------
@pytest.mark.parametrize("index", [c[0] for c in SETITEM_CASES],
                         ids=[_ids(c) for c in SETITEM_CASES])
def test_getitem_matches_torch(index):
    base = _arr([4, 5, 3])
    got = oar.to_tensor(base)[_to("oar", index)]
    want = torch.tensor(base)[_to("torch", index)]
    assert got.shape == list(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# ---- gather: Paddle 3's semantics -------------------------------------------------------
def test_gather_takes_negative_0d_and_column_indices():
    x = oar.to_tensor(np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(oar.gather(x, oar.to_tensor([-1, 0])).numpy(),
                                  [[8, 9, 10, 11], [0, 1, 2, 3]])
    r = oar.gather(x, oar.to_tensor(1), axis=1)  # a 0-d index drops the axis
    assert r.shape == [3]
    np.testing.assert_array_equal(r.numpy(), [1, 5, 9])
    r = x.gather(oar.to_tensor([[2], [0]]), 1)
    np.testing.assert_array_equal(r.numpy(), [[2, 0], [6, 4], [10, 8]])
    assert oar.gather(x, oar.to_tensor([], dtype="int64")).shape == [0, 4]


def test_gather_gradient_with_repeated_and_0d_indices():
    x = oar.to_tensor(_arr([3, 4]), stop_gradient=False)
    (g,) = oar.grad(oar.gather(x, oar.to_tensor([2, 2, -1])).sum(), [x])
    np.testing.assert_array_equal(g.numpy()[2], [3, 3, 3, 3])
    (g,) = oar.grad(oar.gather(x, oar.to_tensor(-1), axis=1).sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [[0, 0, 0, 1]] * 3)


# ---- put_along_axis: the reduce string and scalar values ---------------------------------
def _torch_put(arr, idx, values, axis, reduce, include_self):
    if reduce == "assign":
        return arr.scatter(axis, idx, values)
    return arr.scatter_reduce(axis, idx, values, "sum", include_self=include_self)


@pytest.mark.parametrize("reduce,include_self", [("assign", True), ("add", True),
                                                 ("add", False)])
def test_put_along_axis_matches_torch(reduce, include_self):
    base = _arr([3, 4])
    idx = np.array([[0, 0], [3, 1], [2, 2]])  # repeated positions: added, not for assign
    if reduce == "assign":
        idx = np.array([[0, 1], [3, 1], [2, 0]])
    vals = _arr([3, 2], seed=3)
    tx = torch.tensor(base, requires_grad=True)
    tv = torch.tensor(vals, requires_grad=True)
    tout = _torch_put(tx, torch.tensor(idx), tv, 1, reduce, include_self)
    ox = oar.to_tensor(base, stop_gradient=False)
    ov = oar.to_tensor(vals, stop_gradient=False)
    oout = oar.put_along_axis(ox, oar.to_tensor(idx), ov, 1, reduce, include_self,
                              broadcast=False)
    np.testing.assert_allclose(oout.numpy(), tout.detach().numpy(), rtol=1e-12)
    w = _arr([3, 4], seed=4)
    tg = torch.autograd.grad((tout * torch.tensor(w)).sum(), [tx, tv])
    og = oar.grad((oout * oar.to_tensor(w)).sum(), [ox, ov])
    for a, b in zip(og, tg):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_put_along_axis_scalar_broadcast_and_inplace():
    x = oar.to_tensor([[10, 30, 20], [60, 40, 50]])
    r = oar.put_along_axis(x, oar.to_tensor([[0]]), 99, 0)
    np.testing.assert_array_equal(r.numpy(), [[99, 99, 99], [60, 40, 50]])
    r = x.put_along_axis(oar.to_tensor([[0, 0]]), 1, 1, "add")
    np.testing.assert_array_equal(r.numpy(), [[12, 30, 20], [62, 40, 50]])
    version = x.inplace_version
    assert x.put_along_axis_(oar.to_tensor([[2], [1]]), oar.to_tensor([[7], [8]]), 1) is x
    np.testing.assert_array_equal(x.numpy(), [[10, 30, 7], [60, 8, 50]])
    assert x.inplace_version > version


def test_put_along_axis_errors():
    x = oar.zeros([3, 4])
    i = oar.to_tensor([[0], [1], [2]])
    with pytest.raises(ValueError, match=r"put_along_axis\(\): argument 'reduce' must be one of "
                                         r"\['add', 'assign', 'amax', 'amin', 'mean', 'mul', "
                                         r"'multiply'\], but got 'max'"):
        oar.put_along_axis(x, i, 1.0, 1, "max")
    with pytest.raises(ValueError, match=r"argument 'reduce'.*'sum'"):
        oar.put_along_axis(x, i, 1.0, 1, reduce="sum")
    with pytest.raises(IndexError, match=r"put_along_axis\(\): argument 'indices': index 4 is "
                                         r"out of bounds for axis 1 with size 4"):
        oar.put_along_axis(x, oar.to_tensor([[4]]), 1.0, 1)
    with pytest.raises(ValueError, match=r"put_along_axis\(\): argument 'values' of shape \[2\] "
                                         r"does not broadcast"):
        oar.put_along_axis(x, i, oar.to_tensor([1.0, 2.0]), 1)
    with pytest.raises(ValueError, match=r"put_along_axis\(\): argument 'indices' must have the "
                                         r"rank of 'arr'"):
        oar.put_along_axis(x, oar.to_tensor([0]), 1.0, 1)
    with pytest.raises(TypeError, match=r"put_along_axis\(\): argument 'indices' must be an "
                                        r"int32 or int64 tensor"):
        oar.put_along_axis(x, oar.to_tensor([[0.0]]), 1.0, 1)
    with pytest.raises(IndexError, match=r"put_along_axis\(\): argument 'axis' \(2\)"):
        oar.put_along_axis(x, i, 1.0, 2)
    with pytest.raises(TypeError, match=r"put_along_axis\(\): argument 'values' must be a "
                                        r"number"):
        oar.put_along_axis(x, i, "a", 1)
    y = oar.ones([2, 2])
    with pytest.raises(IndexError, match="out of bounds"):
        y.put_along_axis_(oar.to_tensor([[0], [9]]), 5.0, 1)
    np.testing.assert_array_equal(y.numpy(), np.ones([2, 2]))  # checked before any write


# ---- index_put: tuples of integer and boolean tensors -------------------------------------
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_matches_torch(accumulate):
    base = _arr([3, 4, 2])
    rows = np.array([0, 2, 2]) if accumulate else np.array([0, 2, 1])
    cols = np.array([1, -1, 1]) if accumulate else np.array([1, -1, 0])
    vals = _arr([3, 1], seed=5)
    tx = torch.tensor(base, requires_grad=True)
    tv = torch.tensor(vals, requires_grad=True)
    tout = tx.index_put((torch.tensor(rows), torch.tensor(cols)), tv, accumulate=accumulate)
    ox = oar.to_tensor(base, stop_gradient=False)
    ov = oar.to_tensor(vals, stop_gradient=False)
    oout = oar.index_put(ox, (oar.to_tensor(rows), oar.to_tensor(cols)), ov, accumulate)
    np.testing.assert_allclose(oout.numpy(), tout.detach().numpy(), rtol=1e-12)
    w = _arr([3, 4, 2], seed=6)
    tg = torch.autograd.grad((tout * tout * torch.tensor(w)).sum(), [tx, tv], create_graph=True)
    og = oar.grad((oout * oout * oar.to_tensor(w)).sum(), [ox, ov], create_graph=True)
    for a, b in zip(og, tg):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-12)
    tg2 = torch.autograd.grad(tg[0].sum() + tg[1].sum(), [tx, tv])
    og2 = oar.grad(og[0].sum() + og[1].sum(), [ox, ov])
    for a, b in zip(og2, tg2):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-12)


def test_index_put_with_a_mask_and_inplace():
    x = oar.zeros([2, 3])
    mask = oar.to_tensor([[True, False, True], [False, False, True]])
    r = oar.index_put(x, (mask,), oar.to_tensor([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(r.numpy(), [[1, 0, 2], [0, 0, 3]])
    r = x.index_put((oar.to_tensor([1, 1]),), oar.to_tensor(1.0), accumulate=True)
    np.testing.assert_array_equal(r.numpy(), [[0, 0, 0], [2, 2, 2]])
    assert oar.index_put_(x, [oar.to_tensor([0])], oar.to_tensor(4.0)) is x
    np.testing.assert_array_equal(x.numpy(), [[4, 4, 4], [0, 0, 0]])
    assert oar.index_put(x, (), oar.to_tensor(9.0)).numpy().tolist() == [[9] * 3] * 2


def test_index_put_errors():
    x = oar.zeros([2, 3])
    with pytest.raises(TypeError, match=r"index_put\(\): argument 'indices' must be a tuple"):
        oar.index_put(x, oar.to_tensor([0]), oar.to_tensor(1.0))
    with pytest.raises(TypeError, match=r"index_put\(\): argument 'indices' must hold int32, "
                                        r"int64 or bool Tensors, but entry 0 is float32"):
        oar.index_put(x, (oar.to_tensor([0.0]),), oar.to_tensor(1.0))
    with pytest.raises(IndexError, match=r"index_put\(\): argument 'indices': index 3 is out of "
                                         r"bounds for axis 1 with size 3"):
        oar.index_put(x, (oar.to_tensor([0]), oar.to_tensor([3])), oar.to_tensor(1.0))
    with pytest.raises(IndexError, match=r"index_put\(\): argument 'indices'.*mask 0 of shape "
                                         r"\[3\]"):
        oar.index_put(x, (oar.to_tensor([True, False, True]),), oar.to_tensor(1.0))
    with pytest.raises(IndexError, match="could not be broadcast together"):
        oar.index_put(x, (oar.to_tensor([0, 1]), oar.to_tensor([0, 1, 2])), oar.to_tensor(1.0))
    with pytest.raises(IndexError, match="more dimensions"):
        oar.index_put(x, (oar.to_tensor([0]),) * 3, oar.to_tensor(1.0))
    with pytest.raises(ValueError, match=r"index_put\(\): argument 'value' of shape \[2\] "
                                         r"does not broadcast to the indexed shape \[1, 3\]"):
        oar.index_put(x, (oar.to_tensor([0]),), oar.to_tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"index_put_\(\): argument 'value'"):
        oar.index_put_(x, (oar.to_tensor([0]),), oar.to_tensor([1.0, 2.0]))


# ---- error paths of the declared ops ------------------------------------------------------
def _x():
    return oar.to_tensor(np.arange(12.0).reshape(3, 4))


I = oar.to_tensor  # noqa: E741


@pytest.mark.parametrize("call,exc,pattern", [
    (lambda: oar.gather(_x(), I([3])), IndexError,
     r"gather\(\): argument 'index': index 3 is out of bounds for axis 0 with size 3"),
    (lambda: oar.gather(_x(), I([-4]), 0), IndexError, r"gather\(\): .*index -4 is out"),
    (lambda: oar.gather(_x(), I([0.0])), TypeError,
     r"gather\(\): argument 'index' must be an int32 or int64 tensor, but got float32"),
    (lambda: oar.gather(_x(), I([[0, 1]])), ValueError,
     r"gather\(\): argument 'index' must be 0-d, 1-D or of shape \[N, 1\]"),
    (lambda: oar.gather(_x(), I([0]), 2), IndexError, r"gather\(\): argument 'axis' \(2\)"),
    (lambda: oar.gather_nd(_x(), I([[0, 4]])), IndexError,
     r"gather_nd\(\): argument 'index': index 4 is out of bounds for axis 1 with size 4"),
    (lambda: oar.gather_nd(_x(), I([[0, 0, 0]])), ValueError,
     r"gather_nd\(\): argument 'index' has 3 coordinates per entry"),
    (lambda: oar.gather_nd(_x(), I(0)), ValueError,
     r"gather_nd\(\): argument 'index' must have at least 1 dimension"),
    (lambda: oar.gather_nd(_x(), I([[0.5]])), TypeError, r"gather_nd\(\): argument 'index'"),
    (lambda: oar.take_along_axis(_x(), I([[4]]), 1), IndexError,
     r"take_along_axis\(\): argument 'indices': index 4 is out of bounds for axis 1"),
    (lambda: oar.take_along_axis(_x(), I([0]), 1), ValueError,
     r"take_along_axis\(\): argument 'indices' must have the rank of 'arr' \(2\)"),
    (lambda: oar.take_along_axis(_x(), I([[0]] * 4), 1), ValueError,
     r"take_along_axis\(\): argument 'indices' of shape \[4, 1\] does not broadcast"),
    (lambda: oar.take_along_axis(_x(), I([[0]] * 4), 1, False), ValueError,
     r"take_along_axis\(\): argument 'indices' of shape \[4, 1\] is larger than 'arr'"),
    (lambda: oar.take_along_axis(_x(), I([[0]]), -3), IndexError,
     r"take_along_axis\(\): argument 'axis' \(-3\)"),
    (lambda: oar.scatter(_x(), I([3]), oar.ones([1, 4])), IndexError,
     r"scatter\(\): argument 'index': index 3 is out of bounds for axis 0 with size 3"),
    (lambda: oar.scatter(_x(), I([0, 1]), oar.ones([1, 4])), ValueError,
     r"scatter\(\): argument 'updates' must have shape \[2, 4\]"),
    (lambda: oar.scatter(_x(), I([[0]]), oar.ones([1, 4])), ValueError,
     r"scatter\(\): argument 'index' must be 0-d or 1-D"),
    (lambda: oar.scatter(_x(), I([0.0]), oar.ones([1, 4])), TypeError,
     r"scatter\(\): argument 'index' must be an int32 or int64 tensor"),
    (lambda: oar.scatter_nd_add(_x(), I([[5]]), oar.ones([1, 4])), IndexError,
     r"scatter_nd_add\(\): argument 'index': index 5 is out of bounds for axis 0"),
    (lambda: oar.scatter_nd_add(_x(), I([[0]]), oar.ones([4])), ValueError,
     r"scatter_nd_add\(\): argument 'updates' must have shape \[1, 4\]"),
    (lambda: oar.scatter_nd(I([[1]]), oar.ones([1]), [-1]), ValueError,
     r"scatter_nd\(\): argument 'shape' \[-1\] must not contain negative"),
    (lambda: oar.scatter_nd(I([[3]]), oar.ones([1]), [3]), IndexError,
     r"scatter_nd\(\): argument 'index': index 3 is out of bounds"),
    (lambda: oar.index_add(_x(), I([3]), 0, oar.ones([1, 4])), IndexError,
     r"index_add\(\): argument 'index': index 3 is out of bounds for axis 0 with size 3"),
    (lambda: oar.index_add(_x(), I([0]), 1, oar.ones([1, 4])), ValueError,
     r"index_add\(\): argument 'value' must have shape \[3, 1\]"),
    (lambda: oar.index_add(_x(), I(0), 0, oar.ones([1, 4])), ValueError,
     r"index_add\(\): argument 'index' must be 1-D"),
    (lambda: oar.index_add(_x(), I([0]), 2, oar.ones([1, 4])), IndexError,
     r"index_add\(\): argument 'axis' \(2\)"),
])
def test_errors_name_the_op_and_the_argument(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


@pytest.mark.parametrize("call", [
    lambda x: x.scatter_(I([0, 7]), oar.ones([2, 4])),
    lambda x: x.index_add_(I([1, -9]), 0, oar.ones([2, 4])),
    lambda x: oar._C.index_put_nd_(x, I([[0, 0], [3, 0]]), oar.to_tensor(1.0), False),
])
def test_inplace_variants_check_every_position_before_writing(call):
    x = _x()
    with pytest.raises(IndexError, match="out of bounds"):
        call(x)
    np.testing.assert_array_equal(x.numpy(), np.arange(12.0).reshape(3, 4))


def test_scatter_overwrite_false_zeroes_then_accumulates():
    x = oar.to_tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    u = oar.to_tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
    i = oar.to_tensor([2, 1, 0, 1])
    np.testing.assert_array_equal(oar.scatter(x, i, u, overwrite=False).numpy(),
                                  [[3, 3], [6, 6], [1, 1]])
    np.testing.assert_array_equal(oar.scatter(x, i, u).numpy(), [[3, 3], [4, 4], [1, 1]])
    # a 0-d index writes one row from updates shaped like x.shape[1:]
    np.testing.assert_array_equal(oar.scatter(x, oar.to_tensor(-1), oar.to_tensor([9.0, 8.0]))
                                  .numpy(), [[1, 1], [2, 2], [9, 8]])


def test_gather_nd_with_no_coordinates_takes_the_whole_tensor():
    x = _x()
    r = oar.gather_nd(x, oar.zeros([2, 0], dtype="int64"))
    assert r.shape == [2, 3, 4]
    np.testing.assert_array_equal(r.numpy()[1], x.numpy())
    r = oar.scatter_nd_add(x, oar.zeros([2, 0], dtype="int64"), oar.ones([2, 3, 4]))
    np.testing.assert_array_equal(r.numpy(), x.numpy() + 2)
