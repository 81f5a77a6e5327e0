"""The shape-manipulation and small linear-algebra ops composed in python/oar/tensor/manipulation.py
(and nn.functional.pad) against PyTorch and numpy: values in
float32/float64, first and second order gradients, integer inputs, views and their memory
sharing, splitting and stacking, picking and scattering, and every error path (a typed
error naming op and argument). The ops with kernels of their own are in the op registry
(tests/op_cases/shape.yaml)."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import oar
import oar.nn.functional as F

RNG = np.random.default_rng(9)


def _rand(shape, dtype="float64"):
    return RNG.uniform(-1, 1, size=shape).astype(dtype)


def _pair(arrays):
    o = [oar.to_tensor(a, stop_gradient=False) for a in arrays]
    t = [torch.tensor(a, requires_grad=True) for a in arrays]
    return o, t


def _as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _transposed(v, perm, transpose):
    return transpose(v, perm) if perm else v


def check(oar_fn, torch_fn, shapes, dtype="float64", grad=True, tol=None, views=False):
    """oar_fn(*oar_inputs) against torch_fn(*torch_inputs): values, then gradients of order
    1 and 2 (with random incoming gradients) w.r.t. every input. With views, each input of
    2 or more dims is a transposed (non-contiguous) view of a leaf, and the gradients are
    taken w.r.t. the leaves, through the transpose."""
    perms = [None] * len(shapes)
    if views:
        perms = [list(range(len(s) - 2)) + [len(s) - 1, len(s) - 2] if len(s) >= 2 else None
                 for s in shapes]
        shapes = [[s[p] for p in perm] if perm else s for s, perm in zip(shapes, perms)]
    arrays = [_rand(s, dtype) for s in shapes]
    o_in, t_in = _pair(arrays)
    o_args = [_transposed(v, p, oar.transpose) for v, p in zip(o_in, perms)]
    t_args = [_transposed(v, p, lambda a, q: a.permute(q)) for v, p in zip(t_in, perms)]
    o_out, t_out = _as_list(oar_fn(*o_args)), _as_list(torch_fn(*t_args))
    rtol, atol = tol or ((1e-10, 1e-12) if dtype == "float64" else (1e-5, 1e-6))
    assert len(o_out) == len(t_out)
    for a, b in zip(o_out, t_out):
        assert list(a.shape) == list(b.shape)
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=rtol, atol=atol)
    if not grad:
        return
    gouts = [_rand(list(b.shape), dtype) for b in t_out]
    og = oar.grad(o_out, o_in, [oar.to_tensor(g) for g in gouts], create_graph=True,
                  allow_unused=True)
    tg = torch.autograd.grad(t_out, t_in, [torch.tensor(g) for g in gouts], create_graph=True,
                             allow_unused=True)
    live = []
    for a, b, x in zip(og, tg, t_in):
        if b is None:
            assert a is None or not a.numpy().any()
            continue
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=rtol, atol=atol)
        live.append((a, b))
    # second order: d/d(inputs) of <grads, v>
    vs = [_rand(list(b.shape), dtype) for _, b in live]
    o_s = sum(((a * oar.to_tensor(v)).sum() for (a, _), v in zip(live, vs)), oar.to_tensor(0.0))
    t_s = sum(((b * torch.tensor(v)).sum() for (_, b), v in zip(live, vs)), torch.tensor(0.0))
    if not t_s.requires_grad:
        return  # linear in every input: the second derivative is zero (nothing to compare)
    og2 = oar.grad([o_s], o_in, allow_unused=True)
    tg2 = torch.autograd.grad(t_s, t_in, allow_unused=True)
    for a, b in zip(og2, tg2):
        if b is None or a is None:  # unused on one side: the other's must be zero
            assert (a is None or not a.numpy().any()) and (b is None or not b.numpy().any())
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=rtol, atol=atol)


# (id, oar function, torch function, input shapes)
CASES = [
    ("flatten", lambda x: x.flatten(1, 2), lambda x: x.flatten(1, 2), [[2, 3, 4]]),
    ("flatten_0d", lambda x: oar.flatten(x), lambda x: x.reshape(1), [[]]),
    ("unflatten", lambda x: oar.unflatten(x, 1, [2, -1]), lambda x: x.unflatten(1, (2, -1)),
     [[3, 6]]),
    ("unflatten_method", lambda x: x.unflatten(-1, (3, 1)), lambda x: x.unflatten(-1, (3, 1)),
     [[2, 3]]),
    ("split_minus1", lambda x: oar.split(x, [2, -1, 1], axis=1),
     lambda x: torch.split(x, [2, 3, 1], 1), [[2, 6]]),
    ("split_method", lambda x: x.split(3), lambda x: torch.split(x, 1), [[3, 2]]),
    ("chunk", lambda x: oar.chunk(x, 2, axis=-1), lambda x: torch.chunk(x, 2, -1), [[3, 4]]),
    ("chunk_method", lambda x: x.chunk(3), lambda x: torch.chunk(x, 3), [[6]]),
    ("stack", lambda x, y: oar.stack([x, y], axis=1), lambda x, y: torch.stack([x, y], 1),
     [[2, 3], [2, 3]]),
    ("unstack", lambda x: oar.unstack(x, axis=1), lambda x: torch.unbind(x, 1), [[2, 3, 4]]),
    ("unstack_method", lambda x: x.unstack(), lambda x: torch.unbind(x), [[3]]),
    ("tile", lambda x: oar.tile(x, [2, 1, 3]), lambda x: x.repeat(2, 1, 3), [[2, 3]]),
    ("tile_short", lambda x: x.tile([2]), lambda x: x.repeat(1, 2), [[2, 3]]),
    ("tile_0d", lambda x: oar.tile(x, [3]), lambda x: x.repeat(3), [[]]),
    ("tile_zero", lambda x: oar.tile(x, [0, 2]), lambda x: x.repeat(0, 2), [[2, 3]]),
    ("repeat_interleave", lambda x: oar.repeat_interleave(x, 2, 1),
     lambda x: torch.repeat_interleave(x, 2, 1), [[2, 3]]),
    ("repeat_interleave_flat", lambda x: x.repeat_interleave(3),
     lambda x: torch.repeat_interleave(x, 3), [[2, 2]]),
    ("repeat_interleave_tensor",
     lambda x: oar.repeat_interleave(x, oar.to_tensor([3, 0, 1]), 0),
     lambda x: torch.repeat_interleave(x, torch.tensor([3, 0, 1]), 0), [[3, 2]]),
    ("rot90", lambda x: oar.rot90(x), lambda x: torch.rot90(x), [[2, 3]]),
    ("rot90_k2", lambda x: oar.rot90(x, 2, [1, 2]), lambda x: torch.rot90(x, 2, [1, 2]),
     [[2, 3, 4]]),
    ("rot90_k3", lambda x: x.rot90(-1, [2, 0]), lambda x: torch.rot90(x, -1, [2, 0]),
     [[2, 3, 4]]),
    ("rot90_k0", lambda x: oar.rot90(x, 4), lambda x: torch.rot90(x, 4), [[2, 3]]),
    ("moveaxis", lambda x: oar.moveaxis(x, [0, 1], [2, 0]),
     lambda x: torch.movedim(x, [0, 1], [2, 0]), [[2, 3, 4]]),
    ("moveaxis_method", lambda x: x.moveaxis(-1, 0), lambda x: torch.movedim(x, -1, 0),
     [[2, 3, 4]]),
    ("t", lambda x: x.t(), lambda x: x.t(), [[2, 3]]),
    ("broadcast_to", lambda x: oar.broadcast_to(x, [2, 3, 4]),
     lambda x: x.broadcast_to(2, 3, 4), [[3, 1]]),
    ("expand_as", lambda x, y: oar.expand_as(x, y), lambda x, y: x.expand_as(y),
     [[1, 3], [2, 3]]),
    ("broadcast_tensors", lambda x, y, z: oar.broadcast_tensors([x, y, z]),
     lambda x, y, z: torch.broadcast_tensors(x, y, z), [[2, 1], [3], []]),
    ("meshgrid", lambda x, y: oar.meshgrid(x, y), lambda x, y: torch.meshgrid(x, y, indexing="ij"),
     [[3], [2]]),
    ("meshgrid_list", lambda x, y, z: oar.meshgrid([x, y, z]),
     lambda x, y, z: torch.meshgrid(x, y, z, indexing="ij"), [[2], [0], [3]]),
    ("diag_vector", lambda x: oar.diag(x, 1), lambda x: torch.diag(x, 1), [[3]]),
    ("diag_padding", lambda x: oar.diag(x, -1, padding_value=2.5),
     lambda x: torch.diag(x, -1) + 2.5 * (1 - torch.diag(torch.ones_like(x), -1)), [[3]]),
    ("diag_matrix", lambda x: oar.diag(x, -1), lambda x: torch.diag(x, -1), [[3, 4]]),
    ("trace", lambda x: oar.trace(x), lambda x: torch.trace(x), [[3, 4]]),
    ("trace_axes", lambda x: oar.trace(x, 1, 2, 0),
     lambda x: torch.diagonal(x, 1, 2, 0).sum(-1), [[3, 2, 4]]),
    ("diagonal_method", lambda x: x.diagonal(1), lambda x: x.diagonal(1), [[3, 4]]),
    ("bmm", lambda x, y: oar.bmm(x, y), lambda x, y: torch.bmm(x, y), [[2, 3, 4], [2, 4, 5]]),
    ("outer", lambda x, y: oar.outer(x, y), lambda x, y: torch.outer(x, y), [[3], [4]]),
    ("outer_nd", lambda x, y: x.outer(y), lambda x, y: torch.outer(x.flatten(), y.flatten()),
     [[2, 2], []]),
    ("kron", lambda x, y: oar.kron(x, y), lambda x, y: torch.kron(x, y), [[2, 3], [3, 2]]),
    ("kron_ranks", lambda x, y: x.kron(y), lambda x, y: torch.kron(x, y.contiguous()),  # torch
     [[2], [2, 3, 2]]),  # kron cannot take that transposed view itself
    ("cross", lambda x, y: oar.cross(x, y), lambda x, y: torch.linalg.cross(x, y, dim=1),
     [[2, 3, 3], [2, 3, 3]]),
    ("cross_axis", lambda x, y: x.cross(y, axis=0), lambda x, y: torch.linalg.cross(x, y, dim=0),
     [[3, 4], [3, 4]]),
    ("dot", lambda x, y: oar.dot(x, y), lambda x, y: torch.dot(x, y), [[4], [4]]),
    ("dot_rows", lambda x, y: x.dot(y), lambda x, y: (x * y).sum(-1), [[3, 4], [3, 4]]),
    ("unfold_fn", lambda x: oar.unfold(x, 1, 2, 1), lambda x: x.unfold(1, 2, 1), [[2, 4]]),
    ("unfold_method", lambda x: x.unfold(0, 3, 2), lambda x: x.unfold(0, 3, 2), [[7]]),
    ("pad_left_axis", lambda x: F.pad(x, [1, 0, 2, 1]),
     lambda x: torch.nn.functional.pad(x, [2, 1, 1, 0]), [[2, 3]]),
    ("pad_right_axis", lambda x: F.pad(x, [1, 0, 2, 1], pad_from_left_axis=False, value=0.5),
     lambda x: torch.nn.functional.pad(x, [1, 0, 2, 1], value=0.5), [[2, 3]]),
    ("pad_last_only", lambda x: F.pad(x, [1, 2]),
     lambda x: torch.nn.functional.pad(x, [1, 2]), [[2, 3, 2]]),
    ("pad_odd", lambda x: F.pad(x, [1, 2, 1]),
     lambda x: torch.nn.functional.pad(x, [1, 0, 1, 2]), [[2, 3]]),
    ("pad_reflect_ncl", lambda x: F.pad(x, [2, 1], mode="reflect"),
     lambda x: torch.nn.functional.pad(x, [2, 1], mode="reflect"), [[1, 2, 4]]),
    ("pad_reflect_nchw", lambda x: F.pad(x, [1, 2, 2, 0], mode="reflect"),
     lambda x: torch.nn.functional.pad(x, [1, 2, 2, 0], mode="reflect"), [[1, 2, 3, 4]]),
    ("pad_replicate_nhwc",
     lambda x: F.pad(x, [1, 2, 0, 1], mode="replicate", data_format="NHWC"),
     lambda x: torch.nn.functional.pad(x.permute(0, 3, 1, 2), [1, 2, 0, 1],
                                       mode="replicate").permute(0, 2, 3, 1), [[1, 3, 4, 2]]),
    ("pad_circular_ncdhw", lambda x: F.pad(x, [1, 0, 0, 2, 1, 1], mode="circular"),
     lambda x: torch.nn.functional.pad(x, [1, 0, 0, 2, 1, 1], mode="circular"),
     [[1, 1, 2, 3, 2]]),
    ("pad_constant_spatial", lambda x: F.pad(x, [1, 1], value=-2.0),
     lambda x: torch.nn.functional.pad(x, [1, 1], value=-2.0), [[1, 2, 3]]),
]

EINSUM = [
    ("ij,jk->ik", [[2, 3], [3, 4]]),
    ("ij,jk", [[2, 3], [3, 4]]),
    ("bij,bjk->bik", [[2, 3, 4], [2, 4, 5]]),
    ("ii->i", [[3, 3]]),
    ("ii", [[3, 3]]),
    ("iji->j", [[3, 2, 3]]),
    ("ij->ji", [[2, 3]]),
    ("ij->", [[2, 3]]),
    ("i,i->", [[4], [4]]),
    ("i,j->ij", [[3], [2]]),
    ("...ij,...jk->...ik", [[2, 1, 2, 3], [4, 3, 2]]),
    ("...ij->...ji", [[2, 3, 4]]),
    ("i...->...", [[2, 3, 4]]),
    ("bn,anm,bm->ba", [[2, 3], [4, 3, 5], [2, 5]]),
    ("ij,ij->ij", [[2, 3], [2, 3]]),
    ("ij,kl->ikjl", [[2, 3], [2, 2]]),
    ("ijk,ikj->i", [[2, 3, 3], [2, 3, 3]]),
    ("abc,cd,de->abe", [[2, 2, 3], [3, 4], [4, 2]]),
    ("i,i,i->i", [[3], [3], [3]]),
    ("ij,j", [[0, 3], [3]]),
    ("ij,jk->ik", [[2, 0], [0, 3]]),
    ("ba,ab", [[3, 2], [2, 3]]),
    ("Ab,bc->Ac", [[2, 3], [3, 2]]),
    ("ij,j->i", [[3, 1], [4]]),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_vs_torch(case, dtype):
    _, ofn, tfn, shapes = case
    check(ofn, tfn, shapes, dtype)


VIEW_CASES = [c for c in CASES if any(len(s) >= 2 for s in c[3])]


@pytest.mark.parametrize("case", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_vs_torch_on_transposed_views(case):
    _, ofn, tfn, shapes = case
    check(ofn, tfn, shapes, "float64", views=True)


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e[0] for e in EINSUM])
def test_einsum_on_transposed_views(eq, shapes):
    check(lambda *xs: oar.einsum(eq, *xs), lambda *xs: torch.einsum(eq, *xs), shapes, views=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e[0] for e in EINSUM])
def test_einsum_vs_torch(eq, shapes, dtype):
    check(lambda *xs: oar.einsum(eq, *xs), lambda *xs: torch.einsum(eq, *xs), shapes, dtype,
          tol=(1e-4, 1e-5) if dtype == "float32" else None)


def test_einsum_operand_list_and_spaces():
    a, b = _rand([2, 3]), _rand([3])
    out = oar.einsum("ij, j -> i", [oar.to_tensor(a), oar.to_tensor(b)])
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-12)


def test_einsum_integers():
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    b = np.arange(12, dtype=np.int64).reshape(3, 4)
    out = oar.einsum("ij,jk->ik", oar.to_tensor(a), oar.to_tensor(b))
    assert out.dtype == oar.int64
    np.testing.assert_array_equal(out.numpy(), a @ b)
    np.testing.assert_array_equal(oar.einsum("ii", oar.to_tensor(np.eye(3, dtype=np.int64)))
                                  .numpy(), 3)


def test_views_share_memory():
    x = oar.to_tensor(np.arange(12.0).reshape(3, 4))
    views = {"diagonal": (x.diagonal(), (1,)), "unfold": (x.unfold(1, 2, 1), (1, 1, 0)),
             "moveaxis": (oar.moveaxis(x, 0, 1), (1, 1)), "t": (x.t(), (1, 1)),
             "broadcast_to": (oar.broadcast_to(x, [2, 3, 4]), (1, 1, 1))}
    x[1, 1] = 100.0  # a write to the base shows through every view
    for name, (v, idx) in views.items():
        assert v.numpy()[idx] == 100.0, name


def test_gradient_through_noncontiguous_views():
    a = _rand([4, 6])
    x = oar.to_tensor(a, stop_gradient=False)
    y = oar.transpose(x, [1, 0]).unfold(0, 3, 2).diagonal(0, 1, 2)  # [2, 4, 3] -> [2, 3]
    (y * y).sum().backward()
    t = torch.tensor(a, requires_grad=True)
    (t.t().unfold(0, 3, 2).diagonal(0, 1, 2) ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("fn,tfn,arr", [
    (lambda x: oar.tile(x, [2, 2]), lambda x: x.repeat(2, 2), np.array([[1, 2]], np.int64)),
    (lambda x: oar.repeat_interleave(x, 2), lambda x: x.repeat_interleave(2),
     np.array([True, False])),
    (lambda x: oar.rot90(x), lambda x: torch.rot90(x), np.arange(6, dtype=np.int32).reshape(2, 3)),
    (lambda x: oar.unstack(x)[1], lambda x: x[1], np.arange(6, dtype=np.int64).reshape(2, 3)),
    (lambda x: oar.kron(x, x), lambda x: torch.kron(x, x), np.array([[1, 2], [3, 4]], np.int64)),
    (lambda x: oar.trace(x), lambda x: torch.trace(x), np.arange(9, dtype=np.int64).reshape(3, 3)),
    (lambda x: oar.diag(x), lambda x: torch.diag(x), np.array([1, 2, 3], np.int64)),
    (lambda x: F.pad(x, [1, 1], value=5), lambda x: torch.nn.functional.pad(x, [1, 1], value=5),
     np.array([[1, 2]], np.int64)),
    (lambda x: oar.cross(x, x + 1), lambda x: torch.linalg.cross(x, x + 1),
     np.array([1, 2, 3], np.int64)),
    (lambda x: oar.outer(x, x), lambda x: torch.outer(x, x), np.array([1, 2, 3], np.int64)),
])
def test_integer_and_bool_inputs(fn, tfn, arr):
    out = fn(oar.to_tensor(arr))
    ref = tfn(torch.tensor(arr))
    assert out.dtype.name == str(ref.dtype).replace("torch.", "")
    np.testing.assert_array_equal(out.numpy(), ref.numpy())


def test_empty_inputs():
    x = oar.zeros([0, 3])
    assert oar.tile(x, [2, 2]).shape == [0, 6]
    assert oar.chunk(oar.zeros([4, 0]), 2)[0].shape == [2, 0]
    assert oar.unstack(x) == []
    assert oar.repeat_interleave(x, 2, 1).shape == [0, 6]
    assert oar.einsum("ij->j", x).shape == [3]
    assert oar.kron(x, oar.ones([2, 2])).shape == [0, 6]
    assert F.pad(x, [1, 1, 0, 0]).shape == [2, 3]


# ---- errors ---------------------------------------------------------------------------------

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def x23():
    return oar.to_tensor(X)


@pytest.mark.parametrize("call,exc,pattern", [
    (lambda x: oar.unflatten(x, 2, [1, 3]), IndexError, r"unflatten\(\): argument 'axis' \(2\)"),
    (lambda x: oar.unflatten(x, 1, [2, 2]), ValueError, r"unflatten\(\): argument 'shape'"),
    (lambda x: oar.unflatten(x, 1, [-1, -1]), ValueError, r"unflatten\(\): .*at most one -1"),
    (lambda x: oar.unflatten(x, 1, 3), TypeError, r"unflatten\(\): argument 'shape'"),
    (lambda x: oar.split(x, [1, -1, -1], 1), ValueError, r"split\(\): .*at most one -1"),
    (lambda x: oar.split(x, [1, 1], 1), ValueError, r"split\(\): sections"),
    (lambda x: oar.chunk(x, 2, 1), ValueError, r"chunk\(\): dimension 1 of size 3"),
    (lambda x: oar.chunk(x, 0), ValueError, r"chunk\(\): argument 'chunks'"),
    (lambda x: oar.chunk(x, 1, 5), IndexError, r"chunk\(\): argument 'axis'"),
    (lambda x: oar.unstack(x, num=3), ValueError, r"unstack\(\): argument 'num'"),
    (lambda x: oar.unstack(x, 2), IndexError, r"unstack\(\): argument 'axis'"),
    (lambda x: oar.unstack(oar.to_tensor(1.0)), ValueError, r"unstack\(\): argument 'x'"),
    (lambda x: oar.tile(x, [-1, 2]), ValueError, r"tile\(\): argument 'repeat_times'"),
    (lambda x: oar.tile(x, "a"), TypeError, r"tile\(\): argument 'repeat_times'"),
    (lambda x: oar.repeat_interleave(x, -1), ValueError, r"repeat_interleave\(\): .*'repeats'"),
    (lambda x: oar.repeat_interleave(x, oar.to_tensor([1, 2]), 1), ValueError,
     r"repeat_interleave\(\): argument 'repeats' has 2 entries"),
    (lambda x: oar.repeat_interleave(x, 2, 3), IndexError, r"repeat_interleave\(\): .*'axis'"),
    (lambda x: oar.flip(x, 2), IndexError, r"flip\(\): argument 'axis' \(2\)"),
    (lambda x: oar.flip(x, [0, -2]), ValueError, r"flip\(\): argument 'axis' .* repeats axis 0"),
    (lambda x: oar.roll(x, [1, 2]), ValueError, r"roll\(\): argument 'shifts'"),
    (lambda x: oar.roll(x, [1, 2], [0]), ValueError, r"roll\(\): arguments 'shifts'"),
    (lambda x: oar.roll(x, 1, 4), IndexError, r"roll\(\): argument 'axis'"),
    (lambda x: oar.rot90(x, 1, [0, 0]), ValueError, r"rot90\(\): argument 'axes'"),
    (lambda x: oar.rot90(x, 1, [0]), ValueError, r"rot90\(\): argument 'axes'"),
    (lambda x: oar.rot90(oar.ones([3])), ValueError, r"rot90\(\): argument 'x'"),
    (lambda x: oar.moveaxis(x, [0, 1], [0]), ValueError, r"moveaxis\(\): arguments 'source'"),
    (lambda x: oar.moveaxis(x, [0, 0], [0, 1]), ValueError, r"moveaxis\(\): argument 'source'"),
    (lambda x: oar.moveaxis(x, 0, 2), IndexError, r"moveaxis\(\): argument 'destination'"),
    (lambda x: oar.broadcast_to(x, [2, 4]), ValueError, r"broadcast_to\(\): x of shape \[2, 3\]"),
    (lambda x: oar.broadcast_to(x, [3]), ValueError, r"broadcast_to\(\): argument 'shape'"),
    (lambda x: oar.expand_as(x, oar.ones([3, 2])), ValueError, r"expand_as\(\)"),
    (lambda x: oar.broadcast_tensors([x, oar.ones([4])]), ValueError,
     r"broadcast_tensors\(\): the shape \[4\] of input\[1\]"),
    (lambda x: oar.broadcast_tensors(x), TypeError, r"broadcast_tensors\(\): argument 'input'"),
    (lambda x: oar.meshgrid(x, x), ValueError, r"meshgrid\(\): argument 'args\[0\]'"),
    (lambda x: oar.tril(oar.ones([3])), ValueError, r"tril\(\): argument 'x' must have at least 2"),
    (lambda x: oar.triu(oar.to_tensor(1.0)), ValueError, r"triu\(\): argument 'x'"),
    (lambda x: oar.diagonal(x, 0, 0, 0), ValueError, r"diagonal\(\): arguments 'axis1' \(0\) and "
     r"'axis2' \(0\)"),
    (lambda x: oar.diagonal(x, 0, 0, 2), IndexError, r"diagonal\(\): argument 'axis2' \(2\)"),
    (lambda x: oar.diagonal(oar.ones([3])), ValueError, r"diagonal\(\): argument 'x'"),
    (lambda x: oar.diag_embed(oar.to_tensor(1.0)), ValueError, r"diag_embed\(\): argument 'input'"),
    (lambda x: oar.diag_embed(x, 0, 0, 3), IndexError, r"diag_embed\(\): argument 'dim2' \(3\)"),
    (lambda x: oar.diag_embed(x, 0, 1, -2), ValueError, r"diag_embed\(\): arguments 'dim1'"),
    (lambda x: oar.diag(oar.ones([2, 2, 2])), ValueError, r"diag\(\): argument 'x' must be 1-D"),
    (lambda x: oar.trace(x, 0, 0, 0), ValueError, r"trace\(\): arguments 'axis1'"),
    (lambda x: oar.trace(oar.ones([3])), ValueError, r"trace\(\): argument 'x'"),
    (lambda x: oar.bmm(x, x), ValueError, r"bmm\(\): arguments 'x' and 'y' must be 3-D"),
    (lambda x: oar.bmm(oar.ones([2, 2, 3]), oar.ones([3, 3, 2])), ValueError,
     r"bmm\(\): the batch sizes"),
    (lambda x: oar.bmm(oar.ones([2, 2, 3]), oar.ones([2, 2, 2])), ValueError,
     r"bmm\(\): .*cannot be multiplied"),
    (lambda x: oar.outer(x, [1]), TypeError, r"outer\(\): argument 'y' must be Tensor"),
    (lambda x: oar.kron("a", x), TypeError, r"kron\(\): argument 'x' must be Tensor"),
    (lambda x: oar.cross(oar.ones([2, 2]), oar.ones([2, 2])), ValueError,
     r"cross\(\): x of shape \[2, 2\] has no dimension of size 3"),
    (lambda x: oar.cross(x, x, axis=0), ValueError, r"cross\(\): dimension 0 of x"),
    (lambda x: oar.cross(oar.ones([3]), oar.ones([3, 1])), ValueError, r"cross\(\): x \[3\]"),
    (lambda x: oar.dot(x, oar.ones([3, 2])), ValueError, r"dot\(\): x and y"),
    (lambda x: oar.dot(oar.ones([2, 2, 2]), oar.ones([2, 2, 2])), ValueError, r"dot\(\)"),
    (lambda x: x.unfold(1, 4, 1), IndexError, r"unfold\(\): argument 'size' \(4\)"),
    (lambda x: x.unfold(1, 2, 0), ValueError, r"unfold\(\): argument 'step' \(0\)"),
    (lambda x: x.unfold(2, 1, 1), IndexError, r"unfold\(\): argument 'axis' \(2\)"),
    (lambda x: oar.einsum("ij,jk", x), ValueError, r"einsum\(\): the equation 'ij,jk' has 2"),
    (lambda x: oar.einsum("ijk", x), ValueError, r"einsum\(\): term 0 'ijk' has 3 labels"),
    (lambda x: oar.einsum("ij,ij->ij", x, oar.ones([3, 2])), ValueError,
     r"einsum\(\): label 'i' has size 3"),
    (lambda x: oar.einsum("ij->k", x), ValueError, r"einsum\(\): output label 'k'"),
    (lambda x: oar.einsum("ij->ii", x), ValueError, r"einsum\(\): the output 'ii' repeats"),
    (lambda x: oar.einsum("i1", x), ValueError, r"einsum\(\): term 0 'i1' has the invalid label"),
    (lambda x: oar.einsum("...i...", x), ValueError, r"einsum\(\): term 0 .* at most one '...'"),
    (lambda x: oar.einsum(3, x), TypeError, r"einsum\(\): argument 'equation' must be str"),
    (lambda x: F.pad(x, [1, 1], mode="wrap"), ValueError, r"pad\(\): argument 'mode' must be one"),
    (lambda x: F.pad(x, [1, 1], mode="reflect"), ValueError, r"pad\(\): in reflect mode .*3-D"),
    (lambda x: F.pad(oar.ones([1, 2, 3]), [1, 1, 1, 1], mode="reflect"), ValueError,
     r"pad\(\): argument 'pad' must have 2 entries"),
    (lambda x: F.pad(oar.ones([1, 2, 3]), [3, 0], mode="reflect"), ValueError,
     r"pad\(\): reflect padding 3 of axis 2 must be less than its size 3"),
    (lambda x: F.pad(oar.ones([1, 2, 3]), [4, 0], mode="circular"), ValueError,
     r"pad\(\): circular padding 4"),
    (lambda x: F.pad(oar.ones([1, 2, 0]), [1, 0], mode="replicate"), ValueError,
     r"pad\(\): axis 2 is empty"),
    (lambda x: F.pad(x, [1, 1, 1, 1, 1, 1]), ValueError, r"pad\(\): argument 'pad' has 6 entries"),
    (lambda x: F.pad(x, [-1, 1]), ValueError, r"pad\(\): argument 'pad' \(per axis\).*negative"),
    (lambda x: F.pad(x, "ab"), TypeError, r"pad\(\): argument 'pad'"),
    (lambda x: F.pad(oar.ones([1, 2, 3]), [1, 1], data_format="NCHW"), ValueError,
     r"pad\(\): argument 'data_format'"),
])
def test_errors(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call(x23())


def test_internal_grad_op_errors():
    x = x23()
    with pytest.raises(ValueError, match=r"diagonal_grad\(\): argument 'grad_out' has shape"):
        oar._C.diagonal_grad(x, oar.ones([3]), 0, 0, 1)
    with pytest.raises(ValueError, match=r"tensor_unfold_grad\(\): argument 'grad_out'"):
        oar._C.tensor_unfold_grad(x, oar.ones([2, 2]), 1, 2, 1)
    with pytest.raises(ValueError, match=r"pad_grad\(\): argument 'grad_out' has shape"):
        oar._C.pad_grad(x, oar.ones([2, 3]), [0, 0, 1, 0], 0)
    with pytest.raises(ValueError, match=r"pad\(\): argument 'mode' \(7\)"):
        oar._C.pad(x, [0, 0, 0, 0], 7, 0)
    with pytest.raises(ValueError, match=r"pad\(\): argument 'paddings' .* must hold 2 \* 2"):
        oar._C.pad(x, [1, 1], 0, 0)


# ---- regressions found by the fuzzer ---------------------------------------------------------

def test_triangle_with_extreme_diagonal():
    x = oar.to_tensor(np.arange(6.0).reshape(2, 3))
    big = 2 ** 63 - 1
    np.testing.assert_array_equal(oar.tril(x, big).numpy(), x.numpy())
    np.testing.assert_array_equal(oar.triu(x, big).numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(oar.tril(x, -big - 1).numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(oar.triu(x, -big - 1).numpy(), x.numpy())


def test_empty_view_with_a_huge_dim():
    # No index map of the huge dim is built for an empty result (it was a MemoryError).
    x = oar.zeros([2, 2 ** 40, 0])
    assert oar.roll(x, [1], [1]).shape == [2, 2 ** 40, 0]
    assert oar.flip(x, [1]).shape == [2, 2 ** 40, 0]
    assert oar._C.pad(x, [0, 0, 0, 0, 0, 0], 1, 0).shape == [2, 2 ** 40, 0]


def test_diagonal_of_an_empty_tensor_far_off_the_main_diagonal_as_in_torch():
    # The diagonal view's start (2**31 rows of 2**31 + 4 elements) was added to the null pointer
    # of the zero-byte block: undefined behaviour that UBSan aborted on (seed 89 ASan run).
    x = oar.zeros([0, 4], dtype="float16")
    out = oar.diag_embed(x, 2 ** 31, 1, 0)
    expected = torch.diag_embed(torch.zeros(0, 4, dtype=torch.float16), 2 ** 31, 1, 0)
    assert out.shape == list(expected.shape)
    assert oar.diagonal(out, 2 ** 31, 1, 0).shape == [0, 4]


def test_take_along_axis_of_an_empty_index_with_a_huge_dim_returns_at_once():
    # The gather kernels looped over the 2**40 empty lines (a fuzzer stall).
    x = oar.zeros([1, 2 ** 40, 0])
    i = oar.zeros([1, 2 ** 40, 0], dtype="int64")
    assert oar.take_along_axis(x, i, 2).shape == [1, 2 ** 40, 0]
    assert oar._C.along_axis_gather_grad(x, i, x, 2).shape == [1, 2 ** 40, 0]


@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="ASan reserves more address space than the limit allows")
def test_nd_index_of_whole_tensor_rows_refuses_the_values_before_filling_the_rows():
    # An index of shape [2**31, 0] names 2**31 rows that are each all of x. The kernels built
    # the 16 GiB list of row numbers before the 48 GiB of values; in the fuzzer's parallel run
    # that was an OOM kill, not a MemoryError. Under a 6 GiB address-space limit the error
    # must now be about the values (51539607552 bytes), not about the row numbers.
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))\n"
        "import numpy as np, oar\n"
        "x = oar.to_tensor(np.arange(3.0).reshape([3, 1]))\n"
        "i = oar.to_tensor(np.zeros([2 ** 31, 0], 'int32'))\n"
        "for f in [lambda: oar._C.index_put_nd(x, i, oar.ones([1, 1], 'float64'), False),\n"
        "          lambda: oar.gather_nd(x, i)]:\n"
        "    try:\n"
        "        f()\n"
        "    except MemoryError as e:\n"
        "        print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    lines = out.stdout.splitlines()
    assert len(lines) == 2, out.stdout + out.stderr
    assert lines[0].startswith("index_put_nd(): ") and "51539607552" in lines[0]
    assert lines[1].startswith("gather_nd(): ") and "51539607552" in lines[1]


def test_pad_of_a_nearly_1d_tensor_needs_no_index_maps():
    # Constant pads whose per-axis index maps would outweigh the result fill and copy
    # instead (a 1-D pad of 2**31 bools needed 32 GiB of maps: an OOM kill in the seed 89
    # run); the other modes refuse such maps with a MemoryError before building them.
    x = oar.to_tensor(np.arange(10.0))[::3]  # a strided view
    for pad, value in [([2, 3], 1.5), ([0, 0], 0.0), ([4, 0], -2.0)]:
        want = torch.nn.functional.pad(torch.arange(10.0, dtype=torch.float64)[::3], pad,
                                       value=value)
        np.testing.assert_array_equal(oar._C.pad(x, pad, 0, value).numpy(), want.numpy())
    b = oar.to_tensor([[True], [False]])
    np.testing.assert_array_equal(oar._C.pad(b, [1, 0, 0, 2], 0, 1).numpy(),
                                  [[True, True, True], [True, True, True], [False, True, True]])
    with pytest.raises(MemoryError, match=r"pad\(\): the index maps .* and result of a pad to "
                                          r"\[8589934595\] need more than this machine's memory"):
        oar._C.pad(oar.to_tensor([True, False]), [2 ** 33, 1], 2, 0)


def test_constant_pad_of_an_empty_tensor_is_all_fill():
    out = F.pad(oar.zeros([0, 2]), [1, 2, 0, 1], value=3.0)
    np.testing.assert_array_equal(out.numpy(), np.full((3, 3), 3.0))


NAN, INF = float("nan"), float("inf")


def t(v, dtype="float64", grad=False):
    return oar.to_tensor(np.asarray(v, dtype=dtype), stop_gradient=not grad)


def tt(v, dtype=torch.float64, grad=False):
    return torch.tensor(np.asarray(v), dtype=dtype, requires_grad=grad)


def close(got, want, rtol=1e-10, atol=1e-12):
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    np.testing.assert_allclose(np.asarray(got.numpy()), want, rtol=rtol, atol=atol,
                               equal_nan=True)


def grads_match(fn_oar, fn_torch, *arrays, rtol=1e-9):
    """Values and first-order gradients (upstream: fixed random weights) agree."""
    rng = np.random.default_rng(0)
    xs = [t(a, grad=True) for a in arrays]
    txs = [tt(a, grad=True) for a in arrays]
    out, tout = fn_oar(*xs), fn_torch(*txs)
    close(out, tout, rtol=rtol)
    w = rng.uniform(-1, 1, size=tout.shape)
    (out * t(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    for x, tx in zip(xs, txs):
        close(x.grad, tx.grad, rtol=rtol, atol=1e-10)


R = np.random.default_rng(1)


# ---- splitting and stacking ------------------------------------------------------------------
@pytest.mark.parametrize("spec", [3, [2, 3], [5, 1], [-2]])
def test_tensor_split_matches_torch(spec):
    a = np.arange(24.0).reshape(8, 3)
    got = oar.tensor_split(t(a), spec)
    want = torch.tensor_split(torch.tensor(a), spec)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        close(g, w)
    assert [p.shape for p in oar.hsplit(t(a), 3)] == [[8, 1]] * 3
    assert [p.shape for p in oar.vsplit(t(a), [1, 4])] == [[1, 3], [3, 3], [4, 3]]
    assert [p.shape for p in oar.dsplit(oar.zeros([7, 6, 8]), 2)] == [[7, 6, 4]] * 2


def test_stacks_match_numpy():
    a, b = np.array(1.0), np.array([2.0, 3.0])
    c, d = np.arange(6.0).reshape(2, 3), np.arange(6.0, 12.0).reshape(2, 3)
    close(oar.hstack([t(a), t(b)]), np.hstack([a, b]))
    close(oar.vstack([t(c), t(d[:1])]), np.vstack([c, d[:1]]))
    close(oar.row_stack([t(b), t(b)]), np.vstack([b, b]))
    close(oar.dstack([t(c), t(d)]), np.dstack([c, d]))
    close(oar.column_stack([t(b), t(np.arange(2.0))]), np.column_stack([b, np.arange(2.0)]))
    out = oar.atleast_3d(oar.to_tensor(1), t([1.0]), t(c))
    assert [o.shape for o in out] == [[1, 1, 1], [1, 1, 1], [2, 3, 1]]
    assert oar.atleast_2d(t([1.0, 2.0])).shape == [1, 2]
    # a Tensor stands for the sequence of its rows, as Paddle iterates it (numpy too)
    for f, g in ((oar.hstack, np.hstack), (oar.vstack, np.vstack), (oar.dstack, np.dstack),
                 (oar.column_stack, np.column_stack), (oar.row_stack, np.vstack)):
        close(f(t(c)), g(c))
    assert oar.block_diag(t(c)).shape == [2, 6]
    with pytest.raises(TypeError, match="hstack.*a Tensor of at least one row"):
        oar.hstack(oar.to_tensor(1.0))


def test_block_diag_cartesian_prod_and_combinations_against_torch():
    mats = [np.array([[4], [3], [2]]), np.array([7, 6, 5]), np.array(1), np.array([[5, 4],
                                                                                 [2, 1]])]
    got = oar.block_diag([oar.to_tensor(m) for m in mats])
    want = torch.block_diag(*[torch.tensor(m).reshape(1, -1) if m.ndim < 2 else torch.tensor(m)
                              for m in mats])
    assert got.tolist() == want.tolist()
    a, b = torch.tensor([1, 2, 3]), torch.tensor([5, 6])
    assert oar.cartesian_prod([oar.to_tensor([1, 2, 3]), oar.to_tensor([5, 6])]).tolist() == \
        torch.cartesian_prod(a, b).tolist()
    empty = oar.cartesian_prod([oar.zeros([0]), oar.ones([2])])
    assert empty.shape == [0, 2]
    for r, rep in ((2, False), (3, False), (2, True)):
        assert oar.combinations(oar.to_tensor([1, 2, 3, 4]), r, rep).tolist() == \
            torch.combinations(torch.tensor([1, 2, 3, 4]), r, rep).tolist()


def test_picked_values_keep_their_gradients():
    a = R.normal(size=(3, 4))
    grads_match(lambda x: oar.block_diag([x, x]), lambda x: torch.block_diag(x, x), a)
    grads_match(lambda x: oar.hstack([x, x]), lambda x: torch.hstack([x, x]), a)
    grads_match(lambda x: oar.take(x, oar.to_tensor([[0, 5], [11, 3]])),
                lambda x: torch.take(x, torch.tensor([[0, 5], [11, 3]])), a)


# ---- views ------------------------------------------------------------------------------------
def test_crop_narrow_permute_ravel_and_matrix_transpose():
    x = oar.to_tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert oar.crop(x, [2, -1], [1, 1]).tolist() == [[5, 6], [8, 9]]
    assert oar.narrow(x, 1, -2, 2).tolist() == [[2, 3], [5, 6], [8, 9]]
    assert oar.narrow(x, 0, oar.to_tensor(1), 1).tolist() == [[4, 5, 6]]
    y = oar.zeros([2, 3, 4])
    assert oar.permute(y, 2, 0, 1).shape == [4, 2, 3] == y.permute([2, 0, 1]).shape
    assert oar.ravel(y).shape == [24] and y.mT.shape == [2, 4, 3]
    assert oar.matrix_transpose(y).shape == [2, 4, 3]


def test_view_shares_memory_and_reads_bytes_as_another_dtype():
    x = oar.zeros([2, 4, 6])
    v = oar.view(x, [8, -1])
    v[0, 0] = 3.0
    assert x.tolist()[0][0][0] == 3.0
    b = oar.view(x, "uint8")
    assert b.shape == [2, 4, 24]
    np.testing.assert_array_equal(b.numpy(), x.numpy().view(np.uint8))
    assert oar.view(oar.zeros([2, 4], dtype="uint8"), oar.float32).shape == [2, 1]
    assert oar.view_as(x, oar.zeros([48])).shape == [48]


# ---- picking and scattering --------------------------------------------------------------------
def test_take_modes_and_index_fill_index_sample_multiplex():
    x = oar.arange(12).reshape([3, 4])
    idx = np.arange(-2, 13).reshape(3, 5)
    assert oar.take(x, oar.to_tensor(idx), mode="wrap").numpy().tolist() == \
        np.take(np.arange(12), idx, mode="wrap").tolist()
    assert oar.take(x, oar.to_tensor(idx), mode="clip").numpy().tolist() == \
        np.take(np.arange(12), np.clip(idx, 0, 11)).tolist()
    f = oar.index_fill(x, oar.to_tensor([0, 2], dtype="int32"), 1, -1)
    tf = torch.arange(12).reshape(3, 4).index_fill(1, torch.tensor([0, 2]), -1)
    assert f.tolist() == tf.tolist()
    s = oar.index_sample(t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), oar.to_tensor([[2, 0], [1, 1]]))
    assert s.tolist() == [[3.0, 1.0], [5.0, 5.0]]
    m = oar.multiplex([t([[1.0, 2.0], [3.0, 4.0]]), t([[5.0, 6.0], [7.0, 8.0]])],
                      oar.to_tensor([[1], [0]], dtype="int32"))
    assert m.tolist() == [[5.0, 6.0], [3.0, 4.0]]


def test_masked_select_scatter_family_against_torch():
    a, mask = R.normal(size=(3, 4)), R.random((3, 4)) > 0.5
    src = R.normal(size=12)
    grads_match(lambda x, v: oar.masked_scatter(x, oar.to_tensor(mask), v),
                lambda x, v: x.masked_scatter(torch.tensor(mask), v), a, src)
    grads_match(lambda x, v: oar.select_scatter(x, v, 1, 2),
                lambda x, v: torch.select_scatter(x, v, 1, 2), a, R.normal(size=3))
    grads_match(lambda x, v: oar.slice_scatter(x, v, [1], [0], [4], [2]),
                lambda x, v: torch.slice_scatter(x, v, 1, 0, 4, 2), a, R.normal(size=(3, 2)))
    for off, a1, a2 in ((0, 0, 1), (1, 0, 1), (-1, 1, 0)):
        yshape = torch.diagonal(torch.tensor(a), off, a1, a2).shape
        grads_match(lambda x, y: oar.diagonal_scatter(x, y, off, a1, a2),
                    lambda x, y: torch.diagonal_scatter(x, y, off, a1, a2), a,
                    R.normal(size=yshape))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_torch(reduce, include_self):
    base = R.normal(size=(3, 4))
    src = R.normal(size=(2, 4))
    index = np.array([[0, 1, 0, 2], [0, 0, 2, 2]])
    got = oar.scatter_reduce(t(base), 0, oar.to_tensor(index), t(src), reduce,
                             include_self=include_self)
    want = torch.tensor(base).scatter_reduce(0, torch.tensor(index), torch.tensor(src), reduce,
                                             include_self=include_self)
    close(got, want)
    if reduce in ("sum", "prod", "mean"):
        grads_match(lambda x, s: oar.scatter_reduce(x, 0, oar.to_tensor(index), s, reduce,
                                                    include_self=include_self),
                    lambda x, s: x.scatter_reduce(0, torch.tensor(index), s, reduce,
                                                  include_self=include_self), base, src)


def test_put_along_axis_integer_mean_truncates_and_in_place_works():
    x = oar.to_tensor([[10, 30, 20], [60, 40, 50]])
    idx = oar.zeros([2, 2], dtype="int64")
    v = oar.to_tensor([[1, 2], [3, 4]])
    assert oar.put_along_axis(x, idx, v, 0, "mean", True, False).tolist() == \
        [[4, 12, 20], [60, 40, 50]]
    y = x.clone()
    y.put_along_axis_(idx, v, 0, "mul", True, False)
    assert y.tolist() == [[30, 240, 20], [60, 40, 50]]


def test_unique_consecutive_against_torch():
    x = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    out, inv, cnt = oar.unique_consecutive(oar.to_tensor(x.numpy()), True, True)
    w = torch.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert [out.tolist(), inv.tolist(), cnt.tolist()] == [v.tolist() for v in w]
    m = torch.tensor([[2, 1, 3], [3, 0, 1], [2, 1, 3], [2, 1, 3]])
    assert oar.unique_consecutive(oar.to_tensor(m.numpy()), axis=0).tolist() == \
        torch.unique_consecutive(m, dim=0).tolist()
    assert oar.unique_consecutive(oar.zeros([0])).shape == [0]


def test_isin_shard_index_msort_unbind():
    x = t([-0.0, -2.1, 2.5, 1.0, NAN])
    tx = torch.tensor(x.numpy())
    assert oar.isin(x, t([-2.1, 2.5, NAN])).tolist() == \
        torch.isin(tx, torch.tensor([-2.1, 2.5, NAN], dtype=torch.float64)).tolist()
    assert oar.isin(x, t([2.5]), invert=True).tolist() == [True, True, False, True, True]
    assert oar.shard_index(oar.to_tensor([[16], [1], [19]]), 20, 2, 1).tolist() == \
        [[6], [-1], [9]]
    a = R.normal(size=(3, 2))
    close(oar.msort(t(a)), np.sort(a, axis=0))
    out = oar.zeros([1])
    assert oar.msort(t(a), out=out) is out and out.shape == [3, 2]
    assert [p.shape for p in oar.unbind(oar.zeros([3, 4]), 1)] == [[3]] * 4
