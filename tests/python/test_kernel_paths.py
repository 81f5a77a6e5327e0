"""The fast kernels' separate paths agree: vectorised math over contiguous,
strided and multi-threaded layouts (bitwise), softmax/log_softmax over the last
axis, a middle axis and the first axis with long rows, rows shorter than a
vector and NaN/inf rows, and reductions whose bits do not depend on the thread
count (fixed chunking)."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import oar

F = oar.nn.functional
UNARY = ["exp", "log", "sin", "cos", "tanh", "sigmoid"]


def op(name):
    return getattr(oar, name, None) or getattr(F, name)


def data(shape, dtype="float32", seed=0, positive=False):
    x = np.random.default_rng(seed).standard_normal(shape) * 3
    if positive:
        x = np.abs(x) + 1e-3
    return x.astype(dtype)


class serial:
    """Forces the serial path (parallel threshold above any test size)."""

    def __init__(self, threshold=1 << 62):
        self.threshold = threshold

    def __enter__(self):
        self.old = oar.get_flags(["FLAGS_parallel_threshold"])["FLAGS_parallel_threshold"]
        oar.set_flags({"FLAGS_parallel_threshold": self.threshold})

    def __exit__(self, *exc):
        oar.set_flags({"FLAGS_parallel_threshold": self.old})


def threaded():
    """Forces every loop to split over threads, however small."""
    return serial(1)


def bits(t):
    a = t.numpy() if hasattr(t, "numpy") else t
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_layouts_and_threads_agree_bitwise(name, dtype):
    x = data([67, 131], dtype, positive=name == "log")
    f = op(name)
    with serial():
        ref = f(oar.to_tensor(x)).numpy()
    with threaded():
        assert bits(f(oar.to_tensor(x))) == bits(ref)
    # A transposed view (inner stride != 1) and a stepped slice.
    xt = oar.to_tensor(np.ascontiguousarray(x.T))
    assert bits(f(oar.transpose(xt, [1, 0]))) == bits(ref)
    xs = oar.to_tensor(x)[:, ::2]
    assert bits(f(xs)) == bits(ref[:, ::2])
    # Every element alone (a span of length 1 is a vector tail).
    for i in range(0, x.shape[1], 17):
        assert bits(f(oar.to_tensor(x[:1, i:i + 1]))) == bits(ref[:1, i:i + 1])
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(ref, getattr(torch, name)(torch.from_numpy(x)).numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_unary_half_types_compute_in_float(name, dtype):
    x32 = data([5, 37], positive=name == "log") / 3
    xh = oar.to_tensor(x32).astype(dtype)
    got = op(name)(xh).astype("float32").numpy()
    want = op(name)(xh.astype("float32")).astype(dtype).astype("float32").numpy()
    assert bits(got) == bits(want)


def torch_softmax(name, x, axis):
    return getattr(torch, name)(torch.from_numpy(x), axis).numpy()


SHAPES_AXES = [
    ([7, 1000], -1), ([7, 1000], 0), ([3, 5, 300], 1), ([4, 600, 3], 1),  # inner 3, blocks
    ([2, 70000], -1),  # a long row
    ([9, 1], -1), ([9, 3], -1), ([9, 5], -1), ([9, 7], 1),  # rows shorter than a vector
    ([3, 2, 513], 0),  # inner spans several column blocks
]


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,axis", SHAPES_AXES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_paths(name, shape, axis, dtype):
    x = data(shape, dtype)
    f = getattr(F, name)
    with serial():
        ref = f(oar.to_tensor(x), axis=axis).numpy()
    with threaded():
        assert bits(f(oar.to_tensor(x), axis=axis)) == bits(ref)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(ref, torch_softmax(name, x, axis), rtol=tol, atol=tol)
    # A non-contiguous input gives the same values.
    xt = oar.to_tensor(np.ascontiguousarray(np.swapaxes(x, 0, -1)))
    got = f(oar.transpose(xt, list(range(len(shape)))[::-1]), axis=axis)
    np.testing.assert_allclose(got.numpy(), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,axis", [([5, 300], -1), ([5, 300], 0), ([3, 40, 6], 1), ([4, 3], -1)])
def test_softmax_grad_paths(name, shape, axis):
    x = data(shape, "float64")
    g = data(shape, "float64", seed=1)
    xo = oar.to_tensor(x, stop_gradient=False)
    y = getattr(F, name)(xo, axis=axis)
    with serial():
        (dx,) = oar.grad([y], [xo], [oar.to_tensor(g)], retain_graph=True)
    with threaded():
        (dx2,) = oar.grad([y], [xo], [oar.to_tensor(g)], retain_graph=True)
    assert bits(dx) == bits(dx2)
    xt = torch.from_numpy(x).requires_grad_()
    (want,) = torch.autograd.grad(getattr(torch, name)(xt, axis), [xt], [torch.from_numpy(g)])
    np.testing.assert_allclose(dx.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("n", [1, 3, 8, 9, 40])
def test_softmax_nan_inf_rows_match_torch(name, axis, n):
    nan, inf = float("nan"), float("inf")
    rows = [[nan] + [1.0] * (n - 1), [inf] + [0.5] * (n - 1), [-inf] + [0.25] * (n - 1),
            [-inf] * n, [inf] * n, [0.0] * n, list(np.linspace(-50, 50, n))]
    x = np.array(rows, dtype="float32")
    if axis == 0:
        x = np.ascontiguousarray(x.T)
    got = getattr(F, name)(oar.to_tensor(x), axis=axis).numpy()
    want = torch_softmax(name, x, axis)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_softmax_half_types(dtype):
    x = oar.to_tensor(data([6, 50]) / 3).astype(dtype)
    for axis in (-1, 0):
        got = F.softmax(x, axis=axis).astype("float32").numpy()
        want = F.softmax(x.astype("float32"), axis=axis).astype(dtype).astype("float32").numpy()
        assert bits(got) == bits(want)


# ---- reductions ---------------------------------------------------------------

_SUM_SCRIPT = """
import numpy as np, oar
x = (np.random.default_rng(3).standard_normal({n}) * 1e3).astype("{dtype}")
t = oar.to_tensor(x)
out = [oar.sum(t), oar.mean(t), oar.max(t), oar.min(t), oar.sum(oar.reshape(t, [-1, 1000]), axis=0),
       oar.mean(oar.reshape(t, [3, -1, 100]), axis=1)]  # fixed row blocks, several outer
print(";".join(o.numpy().tobytes().hex() for o in out))
"""


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_full_reductions_bitwise_identical_across_thread_counts(dtype):
    script = _SUM_SCRIPT.format(n=3_000_000, dtype=dtype)
    outs = set()
    for threads in ("1", "2", "3"):
        env = dict(os.environ, OMP_NUM_THREADS=threads)
        r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                           check=True, cwd="/")
        outs.add(r.stdout.strip())
    assert len(outs) == 1, outs


@pytest.mark.parametrize("n", [0, 1, 5, 17, 1000, 70001])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_full_sum_matches_exact(n, dtype):
    x = (np.random.default_rng(n).standard_normal(n) * 100).astype(dtype)
    with threaded():
        got = oar.sum(oar.to_tensor(x)).numpy()
    exact = np.sum(x.astype(np.float64)) if dtype.startswith("float") else np.sum(x.astype(np.int64))
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, exact, rtol=rtol, atol=1e-3 if dtype == "float32" else 1e-9)
    if n:
        np.testing.assert_allclose(oar.mean(oar.to_tensor(x.astype("float64"))).numpy(), exact / n, rtol=1e-12)


@pytest.mark.parametrize("shape,axis", [([1000, 37], 0), ([37, 1000], 1), ([3, 500, 7], 1), ([3, 7], 1),
                                        ([2, 3], 0), ([5, 70001], 1)])
@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_max_min_over_axis(shape, axis, name, dtype):
    x = (data(shape, "float64") * 100).astype(dtype)
    with threaded():
        got = getattr(oar, name)(oar.to_tensor(x), axis=axis).numpy()
    with serial():
        got_serial = getattr(oar, name)(oar.to_tensor(x), axis=axis).numpy()
    want = getattr(np, name)(x, axis=axis)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_serial, want)


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("pos", [0, 3, 8, 15, 16, 40])
def test_max_min_propagate_nan(name, pos):
    x = data([3, 41])
    x[1, pos] = np.nan
    for axis in (None, 1):
        got = getattr(oar, name)(oar.to_tensor(x), axis=axis).numpy()
        want = getattr(torch, "amax" if name == "max" else "amin")(
            torch.from_numpy(x), dim=axis if axis is not None else (0, 1)).numpy()
        np.testing.assert_array_equal(got, want)
    got0 = getattr(oar, name)(oar.to_tensor(x), axis=0).numpy()
    assert np.isnan(got0[pos]) and not np.isnan(np.delete(got0, pos)).any()
