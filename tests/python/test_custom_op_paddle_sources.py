"""Custom ops written the way Paddle's own custom-op examples are (docs/custom_ops.md,
"Paddle's examples"): the same includes, macros and call patterns, compiled by
oar.utils.cpp_extension.load. Each op's values and gradients are checked against numpy or
oar's built-in ops, and the Paddle APIs oar cannot honour on a CPU-only build (the Eigen
device, a GPU context) against their typed errors."""

import os

import numpy as np
import pytest

import oar
from oar.utils import cpp_extension

SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "custom_ops")
LIBS = ["tensor_operator_op", "multi_out_op", "simple_slice_op", "conj_op", "linear_op"]


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    """Every library, compiled once per test process (own directory: parallel shards)."""
    build = str(tmp_path_factory.mktemp("paddle_sources"))
    return {
        lib: cpp_extension.load(lib, [os.path.join(SOURCES, lib + ".cc")], build_directory=build)
        for lib in LIBS
    }


def _t(a, stop_gradient=True):
    return oar.to_tensor(np.asarray(a), stop_gradient=stop_gradient)


def _value_and_grad(fn, a):
    """fn(x) and d sum(fn(x) * w) / dx for a fixed weight w (so each element's gradient
    is seen, not just their sum)."""
    x = _t(a, stop_gradient=False)
    y = fn(x)
    w = _t(np.linspace(0.5, 2.0, a.size).reshape(a.shape).astype(a.dtype))
    (gx,) = oar.grad((y * w).sum(), x)
    return y.numpy(), gx.numpy()


# --- paddle::Tensor operators --------------------------------------------------------------

# op name -> (value, derivative) as numpy functions of x
_ARITHMETIC = {
    "custom_add": (lambda x: x + 1, lambda x: np.ones_like(x)),
    "custom_scalar_add": (lambda x: x + 1, lambda x: np.ones_like(x)),
    "custom_left_scalar_add": (lambda x: x + 1, lambda x: np.ones_like(x)),
    "custom_subtract": (lambda x: x - 1, lambda x: np.ones_like(x)),
    "custom_scalar_subtract": (lambda x: x - 1, lambda x: np.ones_like(x)),
    "custom_left_scalar_subtract": (lambda x: x - 1, lambda x: np.ones_like(x)),
    "custom_multiply": (lambda x: 5 * x, lambda x: np.full_like(x, 5)),
    "custom_scalar_multiply": (lambda x: 5 * x, lambda x: np.full_like(x, 5)),
    "custom_left_scalar_multiply": (lambda x: 5 * x, lambda x: np.full_like(x, 5)),
    "custom_divide": (lambda x: 1 / x, lambda x: -1 / (x * x)),
    "custom_scalar_divide": (lambda x: 1 / x, lambda x: -1 / (x * x)),
    "custom_left_scalar_divide": (lambda x: 1 / x, lambda x: -1 / (x * x)),
}


@pytest.mark.parametrize("name", sorted(_ARITHMETIC))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tensor_arithmetic_operators_and_their_grad_ops(ops, name, dtype):
    a = np.random.default_rng(0).uniform(0.5, 2.0, (3, 4)).astype(dtype)
    value, grad = _ARITHMETIC[name]
    y, gx = _value_and_grad(getattr(ops["tensor_operator_op"], name), a)
    w = np.linspace(0.5, 2.0, a.size).reshape(a.shape)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y, value(a), rtol=rtol)
    np.testing.assert_allclose(gx, grad(a) * w, rtol=rtol)
    assert y.dtype == np.dtype(dtype)


def test_tensor_logical_and_bitwise_operators(ops):
    m = ops["tensor_operator_op"]
    p, q = np.array([True, False, True, False]), np.array([True, True, False, False])
    np.testing.assert_array_equal(m.custom_logical_and(_t(p), _t(q)).numpy(), p & q)
    np.testing.assert_array_equal(m.custom_logical_or(_t(p), _t(q)).numpy(), p | q)
    np.testing.assert_array_equal(m.custom_logical_xor(_t(p), _t(q)).numpy(), p ^ q)
    np.testing.assert_array_equal(m.custom_logical_not(_t(p)).numpy(), ~p)
    i, j = np.array([6, 3, -1], "int32"), np.array([3, 5, 4], "int32")
    np.testing.assert_array_equal(m.custom_logical_and(_t(i), _t(j)).numpy(), i & j)
    np.testing.assert_array_equal(m.custom_logical_or(_t(i), _t(j)).numpy(), i | j)
    np.testing.assert_array_equal(m.custom_logical_xor(_t(i), _t(j)).numpy(), i ^ j)
    np.testing.assert_array_equal(m.custom_logical_not(_t(i)).numpy(), ~i)


@pytest.mark.parametrize(
    "name, fn",
    [
        ("custom_less_than", np.less),
        ("custom_less_equal", np.less_equal),
        ("custom_equal", np.equal),
        ("custom_not_equal", np.not_equal),
        ("custom_greater_than", np.greater),
        ("custom_greater_equal", np.greater_equal),
    ],
)
def test_tensor_comparison_operators_give_bool_tensors(ops, name, fn):
    a = np.array([1.0, 2.0, 3.0, 4.0], "float32")
    b = np.array([2.0, 2.0, 1.0, 5.0], "float32")
    out = getattr(ops["tensor_operator_op"], name)(_t(a), _t(b))
    assert out.dtype == oar.bool
    np.testing.assert_array_equal(out.numpy(), fn(a, b))


def test_tensor_methods_and_functional_forms(ops):
    # sum over axis 0 of |x|^2 + exp(x), computed in float64 and cast back; the grad op
    # uses paddle::scale / add / multiply / experimental::exp / expand.
    a = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], "float32")
    x = _t(a, stop_gradient=False)
    y = ops["tensor_operator_op"].custom_methods(x)
    assert y.dtype == oar.float32 and y.shape == [3]
    np.testing.assert_allclose(y.numpy(), (a.astype("float64") ** 2 + np.exp(a)).sum(0), rtol=1e-6)
    (gx,) = oar.grad(y.sum(), x)
    np.testing.assert_allclose(gx.numpy(), 2 * a + np.exp(a), rtol=1e-6)


# --- several outputs, partial gradients --------------------------------------------------


def test_multi_out_dtypes_from_deferred_allocation(ops):
    a = np.random.default_rng(1).standard_normal((2, 5)).astype("float64")
    out, zeros, ones = ops["multi_out_op"].multi_out(_t(a))
    np.testing.assert_array_equal(out.numpy(), a)
    assert (out.dtype, zeros.dtype, ones.dtype) == (oar.float64, oar.float64, oar.int32)
    np.testing.assert_array_equal(zeros.numpy(), np.zeros((2, 5)))
    np.testing.assert_array_equal(ones.numpy(), np.ones((2, 5), "int32"))


def test_discrete_out_grad_op_gives_gradients_to_some_inputs(ops):
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((3, 2)).astype("float32") for _ in range(4)]
    w, x, y, z = (_t(a, stop_gradient=False) for a in arrays)
    out = ops["multi_out_op"].discrete_out(w, x, y, z)
    expected = arrays[0] + 2 * arrays[1] + 3 * arrays[2] + 4 * arrays[3]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.ones((3, 2)))
    np.testing.assert_array_equal(y.grad.numpy(), np.full((3, 2), 3.0))
    assert x.grad is None and z.grad is None  # the grad op declares no gradient for them


# --- views ----------------------------------------------------------------------------------


def test_simple_slice_and_its_infer_shape_checks(ops):
    m = ops["simple_slice_op"]
    a = np.arange(20.0).reshape(5, 4).astype("float32")
    np.testing.assert_array_equal(m.custom_simple_slice(_t(a), 1, 4).numpy(), a[1:4])
    with pytest.raises(ValueError, match="begin_index must be below end_index"):
        m.custom_simple_slice(_t(a), 3, 2)
    with pytest.raises(ValueError, match=r"end_index is past the first axis \(5\)"):
        m.custom_simple_slice(_t(a), 1, 9)


def test_experimental_transpose_is_strided_until_contiguous(ops):
    a = np.arange(6.0).reshape(2, 3).astype("float32")
    out = ops["simple_slice_op"].custom_contiguous(_t(a))
    np.testing.assert_array_equal(out.numpy(), a.T)


# --- complex elements and casts -------------------------------------------------------


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_conj_reads_paddle_complex_real_and_imag(ops, dtype):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(6) + 1j * rng.standard_normal(6)).astype(dtype)
    out = ops["conj_op"].custom_conj(_t(a))
    assert out.dtype == getattr(oar, dtype)
    np.testing.assert_array_equal(out.numpy(), np.conj(a))
    sq = ops["conj_op"].custom_abs_square(_t(a)).numpy()
    np.testing.assert_allclose(sq, np.abs(a) ** 2, rtol=1e-5)


def test_conj_of_a_real_tensor_is_the_identity_and_so_is_its_gradient(ops):
    a = np.array([1.5, -2.0, 0.25], "float64")
    y, gx = _value_and_grad(ops["conj_op"].custom_conj, a)
    np.testing.assert_array_equal(y, a)
    np.testing.assert_allclose(gx, np.linspace(0.5, 2.0, 3))


@pytest.mark.parametrize("target", ["float16", "float32", "float64"])
def test_cast_by_string_attribute(ops, target):
    a = np.array([0.5, -1.25, 3.0], "float32")
    out = ops["conj_op"].custom_cast(_t(a), target)
    assert out.dtype == getattr(oar, target)
    np.testing.assert_array_equal(out.numpy(), a.astype(target))


def test_cast_gradient_and_unknown_dtype(ops):
    y, gx = _value_and_grad(lambda x: ops["conj_op"].custom_cast(x, "float64"), np.ones(3))
    np.testing.assert_allclose(gx, np.linspace(0.5, 2.0, 3))
    # The grad op returns float64 for a float32 input: the gradient keeps the input's
    # dtype (cast back, as PyTorch's engine does).
    x = _t(np.ones(3, "float32"), stop_gradient=False)
    y = ops["conj_op"].custom_cast(x, "float64")
    assert y.dtype == oar.float64
    (y * _t(np.linspace(0.5, 2.0, 3))).sum().backward()
    assert x.grad.dtype == oar.float32
    np.testing.assert_allclose(x.grad.numpy(), np.linspace(0.5, 2.0, 3))
    with pytest.raises(ValueError, match="data_type must be float16, float32 or float64, got int8"):
        ops["conj_op"].custom_cast(_t(np.ones(2, "float32")), "int8")


# --- Paddle's functional API, enforce macros, the context pool ------------------------------


def test_linear_from_matmul_add_and_sum_matches_the_builtin(ops):
    rng = np.random.default_rng(4)
    xa, wa, ba = (rng.standard_normal(s).astype("float64") for s in [(4, 3), (3, 2), (2,)])
    x, w, b = (_t(a, stop_gradient=False) for a in (xa, wa, ba))
    out = ops["linear_op"].custom_linear(x, w, b)
    np.testing.assert_allclose(out.numpy(), xa @ wa + ba, rtol=1e-12)
    v = rng.standard_normal((4, 2))
    grads = oar.grad((out * _t(v)).sum(), [x, w, b])
    x2, w2, b2 = (_t(a, stop_gradient=False) for a in (xa, wa, ba))
    ref = oar.nn.functional.linear(x2, w2, b2)
    ref_grads = oar.grad((ref * _t(v)).sum(), [x2, w2, b2])
    for g, r in zip(grads, ref_grads):
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-12)


def test_paddle_enforce_failure_carries_the_formatted_message_and_hint(ops):
    w, b = _t(np.ones((3, 2))), _t(np.ones(2))
    with pytest.raises(ValueError) as info:
        ops["linear_op"].custom_linear(_t(np.ones(3)), w, b)
    text = str(info.value)
    assert "X must have rank 2 or more, but its rank is 1." in text  # %d substituted
    assert "Expected x_shape.size() > 1, but received x_shape.size():1" in text
    assert "linear_op.cc:" in text


def test_relu_with_enforce_checks_matches_the_builtin(ops):
    a = np.random.default_rng(5).standard_normal((3, 4)).astype("float32")
    y, gx = _value_and_grad(ops["linear_op"].custom_relu, a)
    x = _t(a, stop_gradient=False)
    ref = oar.nn.functional.relu(x)
    w = _t(np.linspace(0.5, 2.0, a.size).reshape(a.shape).astype("float32"))
    (ref_gx,) = oar.grad((ref * w).sum(), x)
    np.testing.assert_array_equal(y, ref.numpy())
    np.testing.assert_array_equal(gx, ref_gx.numpy())


def test_context_pool_gives_the_cpu_context(ops):
    a = np.arange(4.0)
    np.testing.assert_array_equal(ops["linear_op"].context_pool_test(_t(a), 0).numpy(), a)


def test_eigen_device_and_gpu_context_are_not_implemented(ops):
    x = _t(np.ones(2))
    with pytest.raises(NotImplementedError, match=r"eigen_device\(\).*do not run on Eigen"):
        ops["linear_op"].context_pool_test(x, 1)
    with pytest.raises(NotImplementedError, match="DeviceContextPool::Get.*no GPU backend"):
        ops["linear_op"].gpu_context_test(x)
