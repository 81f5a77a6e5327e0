"""C++ custom operators (docs/custom_ops.md): Paddle's PD_BUILD_OP sources under
custom_ops/ compiled by oar.utils.cpp_extension.load, run eagerly with their grad and
double-grad ops, attributes, optional and list inputs, in-place outputs, dispatch, the
profiler, the graph viewer, the build cache and the errors (capture and serving:
test_custom_op_capture.py)."""

import inspect
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import oar
from oar.profiler import Profiler
from oar.utils import cpp_extension

SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "custom_ops")


def _src(name):
    return os.path.join(SOURCES, name)


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    # Per test process, so parallel shards never build into one directory.
    return str(tmp_path_factory.mktemp("custom_ops"))


@pytest.fixture(scope="module")
def ops(build_dir):
    """Every test op library, compiled once for the module."""
    libs = [
        "relu_op",
        "attrs_op",
        "concat_op",
        "optional_op",
        "inplace_op",
        "dispatch_op",
        "scaled_square_op",
        "legacy_relu_op",
    ]
    modules = {}
    for lib in libs:
        modules[lib] = cpp_extension.load(lib, [_src(lib + ".cc")], build_directory=build_dir)
    return modules


def _t(a, stop_gradient=True):
    return oar.to_tensor(np.asarray(a), stop_gradient=stop_gradient)


# --- relu: values, gradients, second order ---------------------------------------------


def test_relu_matches_the_builtin_forward_and_backward(ops):
    relu = ops["relu_op"].custom_relu
    for dtype in ["float32", "float64"]:
        a = np.random.randn(3, 4).astype(dtype)
        x = _t(a, stop_gradient=False)
        y = relu(x)
        assert y.dtype == x.dtype and y.shape == [3, 4]
        np.testing.assert_array_equal(y.numpy(), np.maximum(a, 0))
        (y * y).sum().backward()
        x_ref = _t(a, stop_gradient=False)
        (oar.nn.functional.relu(x_ref) ** 2).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), x_ref.grad.numpy(), rtol=1e-6)


def test_relu_second_order_through_the_double_grad_op(ops):
    relu = ops["relu_op"].custom_relu
    a = np.array([-1.5, 0.5, 2.0, -0.1])
    x = _t(a, stop_gradient=False)
    v = _t(np.array([1.0, 2.0, 3.0, 4.0]), stop_gradient=False)
    y = relu(x)
    (gx,) = oar.grad(y, x, grad_outputs=v, create_graph=True)
    assert gx._grad_fn_name == "custom_relu_grad"
    np.testing.assert_array_equal(gx.numpy(), (a > 0) * v.numpy())
    # d(sum(w * gx))/dv = w * mask: runs the double-grad op.
    w = np.array([5.0, 6.0, 7.0, 8.0])
    (gv,) = oar.grad((gx * _t(w)).sum(), v)
    np.testing.assert_array_equal(gv.numpy(), w * (a > 0))


def test_grad_fn_and_graph_viewer_name_the_op(ops):
    x = _t(np.ones(3), stop_gradient=False)
    y = ops["relu_op"].custom_relu(x)
    assert y._grad_fn_name == "custom_relu"
    assert "custom_relu" in oar.viz.summary(y.sum(), file=False)
    # Inputs that need no gradient: no node.
    z = ops["relu_op"].custom_relu(_t(np.ones(3)))
    assert z.stop_gradient and z.grad_fn is None


def test_profiler_records_the_op_as_a_span(ops, tmp_path):
    x = _t(np.ones(8, dtype="float32"), stop_gradient=False)
    prof = Profiler(on_trace_ready=lambda p: None)
    prof.start()
    y = ops["relu_op"].custom_relu(x)
    y.sum().backward()
    prof.stop()
    path = tmp_path / "trace.json"
    prof.export(str(path), format="json")
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    spans = [(e["cat"], e["name"]) for e in events if e.get("ph") == "X"]
    assert ("Operator", "custom_relu") in spans
    assert ("Operator", "custom_relu_grad") in spans  # the grad op runs inside backward


def test_amp_runs_the_op_in_its_inputs_dtype(ops):
    x = _t(np.ones((2, 2), dtype="float32"))
    with oar.amp.auto_cast(dtype="bfloat16"):
        assert ops["relu_op"].custom_relu(x).dtype == oar.float32


def test_module_function_has_the_ops_signature_and_doc(ops):
    fn = ops["attrs_op"].attrs_op
    params = list(inspect.signature(fn).parameters)
    assert params[:3] == ["x", "bool_attr", "int_attr"] and params[-1] == "str_vec_attr"
    assert "attrs_op" in fn.__doc__ and "std::vector<int64_t>" in fn.__doc__
    assert (
        list(inspect.signature(ops["optional_op"].add_optional).parameters.values())[1].default
        is None
    )


def test_the_docs_example_to_second_order(ops):
    """docs/custom_ops.md's op: alpha x^2 (+ bias), its grad op and double-grad op."""
    op = ops["scaled_square_op"].scaled_square
    a, b = np.array([1.0, -2.0, 3.0]), np.array([0.5, 0.5, 0.5])
    x, bias = _t(a, stop_gradient=False), _t(b, stop_gradient=False)
    out = op(x, bias, 1.5)
    np.testing.assert_allclose(out.numpy(), 1.5 * a**2 + b)
    gx, gb = oar.grad(out.sum(), [x, bias], create_graph=True)
    np.testing.assert_allclose(gx.numpy(), 3.0 * a)
    np.testing.assert_allclose(gb.numpy(), [1.0, 1.0, 1.0])
    (gxx,) = oar.grad((gx * gx).sum(), x)  # d/dx (3x)^2 = 18 x
    np.testing.assert_allclose(gxx.numpy(), 18.0 * a)
    # Without the optional input, by keyword.
    x2 = _t(a, stop_gradient=False)
    out2 = op(x2, alpha=2.0)
    np.testing.assert_allclose(out2.numpy(), 2.0 * a**2)
    v = _t(np.ones(3), stop_gradient=False)
    (g2,) = oar.grad(out2, x2, grad_outputs=v, create_graph=True)
    (gv,) = oar.grad(g2.sum(), v)  # d/dv (4 x v) = 4 x
    np.testing.assert_allclose(gv.numpy(), 4.0 * a)


def test_paddle_2_1_style_deferred_allocation(ops):
    a = np.array([[-1.0, 2.0], [3.0, -4.0]], dtype="float32")
    out = ops["legacy_relu_op"].legacy_relu(_t(a))
    assert out.shape == [2, 2] and out.dtype == oar.float32
    np.testing.assert_array_equal(out.numpy(), np.maximum(a, 0))


# --- attributes, outputs ---------------------------------------------------------------

ATTRS = dict(
    bool_attr=True,
    int_attr=3,
    float_attr=0.5,
    double_attr=-2.25,
    int64_attr=2**40,
    str_attr="hello",
    bool_vec_attr=[True, False, True],
    int_vec_attr=[1, 2, 3],
    float_vec_attr=[0.5, 0.25],
    double_vec_attr=[1.5, -1.0],
    int64_vec_attr=[2**35, 1],
    str_vec_attr=["ab", "cde"],
)


def test_attributes_of_every_type_reach_the_kernel(ops):
    x = _t(np.arange(4.0), stop_gradient=False)
    out, info = ops["attrs_op"].attrs_op(x, *ATTRS.values())
    expected = [1, 3, 0.5, -2.25, 2**40, 5, 2, 6, 0.75, 0.5, 2**35 + 1, 2, 5]
    np.testing.assert_array_equal(info.numpy(), expected)
    np.testing.assert_array_equal(out.numpy(), np.arange(4.0) * 3)
    # The grad op takes int_attr too; Info has no gradient declared.
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0] * 4)


def test_attributes_by_keyword(ops):
    out, info = ops["attrs_op"].attrs_op(x=_t(np.ones(2)), **ATTRS)
    assert info.numpy()[1] == 3


@pytest.mark.parametrize(
    "attr, value, error, match",
    [
        ("int_attr", "3", TypeError, "attribute 'int_attr' must be int, but got str"),
        ("int_attr", True, TypeError, "attribute 'int_attr' must be int, but got bool"),
        ("int_attr", 2**40, IndexError, "'int_attr' is out of the range of int"),
        ("bool_attr", 1, TypeError, "attribute 'bool_attr' must be bool"),
        ("str_vec_attr", ["a", 1], TypeError, "'str_vec_attr' must be std::vector<std::string>"),
        ("float_vec_attr", 0.5, TypeError, "'float_vec_attr' must be std::vector<float>"),
    ],
)
def test_wrong_attribute_types_name_op_and_attribute(ops, attr, value, error, match):
    with pytest.raises(error, match=r"attrs_op\(\): .*" + match.replace("(", r"\(")):
        ops["attrs_op"].attrs_op(_t(np.ones(2)), **{**ATTRS, attr: value})


def test_wrong_argument_count_is_a_type_error(ops):
    with pytest.raises(TypeError, match="custom_relu"):
        ops["relu_op"].custom_relu()
    with pytest.raises(TypeError, match="custom_relu\\(\\) takes 1 arguments but 2"):
        ops["relu_op"].custom_relu(_t(np.ones(2)), _t(np.ones(2)))
    with pytest.raises(TypeError, match="unexpected keyword argument 'y'"):
        ops["relu_op"].custom_relu(_t(np.ones(2)), y=1)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        ops["relu_op"].custom_relu(_t(np.ones(2)), x=_t(np.ones(2)))
    with pytest.raises(TypeError, match="scaled_square\\(\\) missing required argument 'alpha'"):
        ops["scaled_square_op"].scaled_square(_t(np.ones(2)))


def test_a_required_input_cannot_be_none(ops):
    with pytest.raises(ValueError, match="custom_relu\\(\\): input 'X' is required"):
        ops["relu_op"].custom_relu(None)


# --- optional and list inputs -----------------------------------------------------------


def test_optional_input_given_and_omitted(ops):
    add = ops["optional_op"].add_optional
    a, b = np.array([1.0, 2.0]), np.array([10.0, 20.0])
    x, y = _t(a, stop_gradient=False), _t(b, stop_gradient=False)
    out = add(x, y)
    np.testing.assert_array_equal(out.numpy(), 2 * a + b)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0])

    x2 = _t(a, stop_gradient=False)
    out2 = add(x2)
    np.testing.assert_array_equal(out2.numpy(), 2 * a)
    out2.sum().backward()
    np.testing.assert_array_equal(x2.grad.numpy(), [2.0, 2.0])


def test_optional_list_input(ops):
    add = ops["optional_op"].add_optional_list
    x = _t(np.array([1.0, 2.0]), stop_gradient=False)
    ys = [_t(np.array([10.0, 20.0]), stop_gradient=False) for _ in range(2)]
    out = add(x, ys)
    np.testing.assert_array_equal(out.numpy(), [21.0, 42.0])
    (out * _t(np.array([1.0, 3.0]))).sum().backward()
    np.testing.assert_array_equal(ys[1].grad.numpy(), [1.0, 3.0])
    np.testing.assert_array_equal(add(x).numpy(), [1.0, 2.0])


def test_optional_input_written_in_place(ops):
    op = ops["optional_op"].optional_inplace
    a, b = np.array([1.0, 2.0]), np.array([10.0, 20.0])
    x, y_leaf = _t(a, stop_gradient=False), _t(b, stop_gradient=False)
    y = y_leaf * 1.0
    out_x, out_y = op(x, y)
    assert out_y is y
    np.testing.assert_array_equal(out_x.numpy(), 2 * a + b)
    np.testing.assert_array_equal(y.numpy(), a + b)
    (out_x.sum() + 3.0 * out_y.sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0])  # 2 * 1 + 3
    np.testing.assert_array_equal(y_leaf.grad.numpy(), [4.0, 4.0])  # 1 + 3
    # Omitted: the in-place output is None.
    x2 = _t(a, stop_gradient=False)
    out_x2, out_y2 = op(x2)
    assert out_y2 is None
    out_x2.sum().backward()
    np.testing.assert_array_equal(x2.grad.numpy(), [2.0, 2.0])


def test_list_inputs_concat_with_infer_shape(ops):
    concat = ops["concat_op"].custom_concat
    arrays = [np.random.randn(2, k) for k in (1, 2, 3)]
    xs = [_t(a, stop_gradient=False) for a in arrays]
    out = concat(xs, 1)
    np.testing.assert_array_equal(out.numpy(), np.concatenate(arrays, axis=1))
    w = np.random.randn(2, 6)
    (out * _t(w)).sum().backward()
    np.testing.assert_array_equal(xs[0].grad.numpy(), w[:, :1])
    np.testing.assert_array_equal(xs[2].grad.numpy(), w[:, 3:])
    out0 = concat([_t(a) for a in arrays[:1]] * 2, 0)
    assert out0.shape == [4, 1]


def test_an_infer_shape_that_disagrees_with_the_kernel_is_an_error(ops):
    with pytest.raises(ValueError, match="concat_wrong_shape\\(\\): output 0 has shape"):
        ops["concat_op"].concat_wrong_shape([_t(np.ones((2, 2)))], 0)


# --- in place -----------------------------------------------------------------------------


def test_inplace_output_is_the_input_with_the_ops_history(ops):
    add = ops["inplace_op"].add_inplace
    a = np.array([1.0, 2.0, 3.0])
    leaf = _t(a, stop_gradient=False)
    y = _t(np.array([10.0, 10.0, 10.0]), stop_gradient=False)
    x = leaf * 2.0
    version = x.inplace_version
    out = add(x, y)
    assert out is x
    assert x.inplace_version > version
    np.testing.assert_array_equal(x.numpy(), 2 * a + 10)
    assert x._grad_fn_name == "add_inplace"
    (x * x).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), 2 * (2 * a + 10))
    np.testing.assert_array_equal(leaf.grad.numpy(), 4 * (2 * a + 10))


def test_inplace_on_a_leaf_that_requires_grad_is_refused(ops):
    x = _t(np.ones(2), stop_gradient=False)
    with pytest.raises(RuntimeError, match="add_inplace\\(\\): 'x' is a leaf"):
        ops["inplace_op"].add_inplace(x, _t(np.ones(2)))
    np.testing.assert_array_equal(x.numpy(), [1.0, 1.0])  # not written


def test_inplace_relu_with_an_inplace_grad_op(ops):
    a = np.array([-1.0, 2.0, -3.0, 4.0])
    leaf = _t(a, stop_gradient=False)
    x = leaf * 1.0
    y = x * 1.0
    out = ops["inplace_op"].relu_inplace(x)
    assert out is x
    np.testing.assert_array_equal(x.numpy(), np.maximum(a, 0))
    # The incoming gradient (an expanded ones of sum) is written into a copy, so
    # the other consumer of the same gradient, y, still receives ones.
    (x.sum() + y.sum()).backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), (a > 0) + 1.0)


def test_a_list_written_in_place(ops):
    arrays = [np.array([1.0, 2.0]), np.array([3.0, 4.0])]
    leaves = [_t(a, stop_gradient=False) for a in arrays]
    xs = [v * 1.0 for v in leaves]
    y = _t(np.array([10.0, 20.0]), stop_gradient=False)
    outs = ops["inplace_op"].add_list_inplace(xs, y)
    assert outs[0] is xs[0] and outs[1] is xs[1]
    np.testing.assert_array_equal(xs[1].numpy(), [13.0, 24.0])
    assert xs[0]._grad_fn_name == "add_list_inplace"
    (xs[0].sum() + 2.0 * xs[1].sum()).backward()
    np.testing.assert_array_equal(y.grad.numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(leaves[1].grad.numpy(), [2.0, 2.0])


def test_outputs_written_through_tensor_pointers(ops):
    x = _t(np.array([[1.0, 2.0], [3.0, 4.0]]), stop_gradient=False)
    out = ops["inplace_op"].scale_out(x)
    np.testing.assert_array_equal(out.numpy(), [[3.0, 6.0], [9.0, 12.0]])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 2), 3.0))


# --- dispatch, errors from kernels --------------------------------------------------------


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_integral_dispatch(ops, dtype):
    a = np.array([1, -2, 3, 4], dtype=dtype) if dtype != "uint8" else np.array([1, 2, 3, 4], dtype)
    out = ops["dispatch_op"].int_square(_t(a))
    assert out.dtype == getattr(oar, dtype)
    np.testing.assert_array_equal(out.numpy(), a * a)


def test_complex_dispatch(ops):
    a = np.array([1 + 2j, 3 - 1j], dtype="complex64")
    out = ops["dispatch_op"].abs_square(_t(a))
    assert out.dtype == oar.complex64
    np.testing.assert_allclose(out.numpy(), np.abs(a) ** 2)
    np.testing.assert_allclose(ops["dispatch_op"].abs_square(_t(np.array([3.0]))).numpy(), [9.0])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_floating_and_half_dispatch(ops, dtype):
    x = oar.to_tensor(np.array([-1.5, 2.5, 0.0, 3.0]), dtype=dtype)
    out = ops["dispatch_op"].half_relu(x)
    assert out.dtype == getattr(oar, dtype)
    np.testing.assert_array_equal(out.astype("float32").numpy(), [0.0, 2.5, 0.0, 3.0])


def test_a_dtype_outside_the_dispatch_list_is_a_type_error(ops):
    with pytest.raises(
        TypeError, match="int_square has no kernel for data type `float32`: its dispatch macro"
    ):
        ops["dispatch_op"].int_square(_t(np.ones(2, dtype="float32")))


def test_pd_check_failure_reaches_python_with_its_message(ops):
    with pytest.raises(ValueError, match="the first element must be positive, got -1"):
        ops["dispatch_op"].check_positive(_t(np.array([-1.0], dtype="float32")))


def test_gpu_memory_in_a_kernel_is_not_implemented(ops):
    with pytest.raises(NotImplementedError, match="oar has no GPU backend"):
        ops["dispatch_op"].on_gpu(_t(np.ones(2)))


def test_backward_without_a_grad_op_names_the_missing_declaration(ops):
    x = _t(np.array([2.0], dtype="float32"), stop_gradient=False)
    y = ops["dispatch_op"].check_positive(x)
    with pytest.raises(NotImplementedError, match=r"PD_BUILD_GRAD_OP\(check_positive\)"):
        y.sum().backward()


def test_second_order_without_a_double_grad_op_names_the_missing_declaration(ops):
    x = _t(np.array([1.0, -1.0]), stop_gradient=False)
    v = _t(np.array([1.0, 1.0]), stop_gradient=False)
    out = ops["attrs_op"].attrs_op(x, *ATTRS.values())[0]
    (g,) = oar.grad(out, x, grad_outputs=v, create_graph=True)
    np.testing.assert_array_equal(g.numpy(), [3.0, 3.0])
    with pytest.raises(NotImplementedError, match=r"PD_BUILD_DOUBLE_GRAD_OP\(attrs_op\)"):
        oar.grad(g.sum(), v)


def test_kernels_that_disagree_with_their_declaration(ops):
    with pytest.raises(
        ValueError,
        match=r"two_outputs\(\): the kernel returned 2 tensors, "
        r"but the op declares 1 outputs \(Out\)",
    ):
        ops["dispatch_op"].two_outputs(_t(np.ones(2)))
    with pytest.raises(TypeError, match="attribute 'n' is taken by the function as int64_t"):
        ops["dispatch_op"].attr_mismatch(_t(np.ones(2)), 3)


def test_a_library_with_a_bad_declaration_registers_nothing(build_dir):
    with pytest.raises(
        ValueError,
        match="custom op 'bad_grad_op': input 'Z' of its "
        "PD_BUILD_GRAD_OP is neither an input nor an output",
    ):
        cpp_extension.load("bad_decl", [_src("bad_declaration_op.cc")], build_directory=build_dir)
    with pytest.raises(RuntimeError, match="no custom op named 'fine_op'"):
        oar._C._custom_op_run("fine_op", (_t(np.ones(1)),), ())


# --- building: cache, rebuild, errors ---------------------------------------------------


def _compiles(build_dir, name):
    with open(os.path.join(build_dir, name, "build.log")) as f:
        return len(f.read().splitlines())


def test_second_load_uses_the_cache_and_a_changed_source_rebuilds(tmp_path):
    src = tmp_path / "scale_op.cc"
    shutil.copy(_src("scale_op.cc"), src)
    build = str(tmp_path / "build")
    m1 = cpp_extension.load("scale_ext", [str(src)], build_directory=build)
    lib1 = m1.__file__
    mtime = os.path.getmtime(lib1)
    assert _compiles(build, "scale_ext") == 1
    np.testing.assert_array_equal(m1.custom_scale(_t(np.ones(2))).numpy(), [2.0, 2.0])

    m2 = cpp_extension.load("scale_ext", [str(src)], build_directory=build)
    assert m2.__file__ == lib1 and os.path.getmtime(lib1) == mtime
    assert _compiles(build, "scale_ext") == 1  # nothing ran

    src.write_text(src.read_text().replace("#define FACTOR 2.0", "#define FACTOR 3.0"))
    m3 = cpp_extension.load("scale_ext", [str(src)], build_directory=build)
    assert m3.__file__ != lib1 and _compiles(build, "scale_ext") == 2
    np.testing.assert_array_equal(m3.custom_scale(_t(np.ones(2))).numpy(), [3.0, 3.0])

    cpp_extension.load(
        "scale_ext", [str(src)], extra_cxx_cflags=["-DUNUSED=1"], build_directory=build
    )
    assert _compiles(build, "scale_ext") == 3  # a flag is part of the key


@pytest.mark.parametrize("ninja", [True, False])
def test_a_changed_local_header_rebuilds(tmp_path, monkeypatch, ninja):
    # One header beside the source, one in an extra include directory: a change to
    # either makes a new library, an unchanged second load runs no compiler.
    if not ninja:
        monkeypatch.setattr(cpp_extension.build.shutil, "which", lambda _: None)
    (tmp_path / "inc").mkdir()
    local, extra = tmp_path / "factor.h", tmp_path / "inc" / "offset.h"
    local.write_text("#define FACTOR 2.0\n")
    extra.write_text("#define OFFSET 0.0\n")
    src = tmp_path / "header_op.cc"
    src.write_text(
        '#include "factor.h"\n#include "offset.h"\n#include "paddle/extension.h"\n'
        "std::vector<paddle::Tensor> F(const paddle::Tensor& x) { return {x * FACTOR + OFFSET}; }\n"
        'PD_BUILD_OP(header_scale).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(F));\n'
    )
    build = str(tmp_path / "build")

    def load():
        return cpp_extension.load(
            "header_ext",
            [str(src)],
            extra_include_paths=[str(tmp_path / "inc")],
            build_directory=build,
        )

    def builds():  # build.log has the ninja call, or each compile and the link
        with open(os.path.join(build, "header_ext", "build.log")) as f:
            return sum(1 for line in f if line.startswith("ninja") or " -shared " in line)

    ones = _t(np.ones(2))
    np.testing.assert_array_equal(load().header_scale(ones).numpy(), [2.0, 2.0])
    load()
    assert builds() == 1
    local.write_text("#define FACTOR 3.0\n")
    np.testing.assert_array_equal(load().header_scale(ones).numpy(), [3.0, 3.0])
    assert builds() == 2
    extra.write_text("#define OFFSET 0.5\n")
    np.testing.assert_array_equal(load().header_scale(ones).numpy(), [3.5, 3.5])
    load()
    assert builds() == 3
    # Only the current library and its header list are kept.
    kept = sorted(os.path.splitext(f)[1] for f in os.listdir(os.path.join(build, "header_ext")))
    assert kept.count(".so") == 1 and kept.count(".headers") == 1


def test_compile_error_shows_the_compiler_message_and_caches_nothing(tmp_path):
    build = str(tmp_path / "build")
    for _ in range(2):  # the second attempt compiles again: no broken library was kept
        with pytest.raises(RuntimeError, match=r"(?s)broken_op\.cc.*no_such_method"):
            cpp_extension.load("broken_ext", [_src("broken_op.cc")], build_directory=build)
    assert not [f for f in os.listdir(os.path.join(build, "broken_ext")) if f.endswith(".so")]
    assert _compiles(build, "broken_ext") == 2


def test_cuda_sources_are_refused_at_load(tmp_path):
    with pytest.raises(NotImplementedError, match=r"gpu_op\.cu is a CUDA source"):
        cpp_extension.load("gpu_ext", [_src("gpu_op.cu")], build_directory=str(tmp_path))
    with pytest.raises(NotImplementedError, match="extra_cuda_cflags"):
        cpp_extension.load(
            "gpu_ext",
            [_src("relu_op.cc")],
            extra_cuda_cflags=["-O3"],
            build_directory=str(tmp_path),
        )


def test_a_source_calling_a_cuda_kernel_is_refused_at_load(tmp_path):
    with pytest.raises(NotImplementedError, match=r"(?s)relu_cuda_forward.*no GPU backend"):
        cpp_extension.load(
            "gpu_kernel_ext", [_src("gpu_kernel_op.cc")], build_directory=str(tmp_path)
        )


def test_load_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="must be a Python identifier"):
        cpp_extension.load("not a name", [_src("relu_op.cc")], build_directory=str(tmp_path))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        cpp_extension.load("missing", [str(tmp_path / "nope.cc")], build_directory=str(tmp_path))


def test_installed_headers_include_paddle_extension():
    include = oar.sysconfig.get_include()
    assert os.path.isfile(os.path.join(include, "paddle", "extension.h"))
    assert os.path.isfile(os.path.join(include, "oar", "extension.h"))


# --- setup(): an installable package of ops -------------------------------------------------


def test_setup_builds_a_package_whose_import_exposes_the_ops(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    shutil.copy(_src("relu_op.cc"), pkg / "relu_op.cc")
    (pkg / "setup.py").write_text(
        "from oar.utils.cpp_extension import CppExtension, setup\n"
        "setup(name='relu_pkg', ext_modules=CppExtension(sources=['relu_op.cc']))\n"
    )
    # A fresh virtualenv that sees this oar (its site packages, or PYTHONPATH for a
    # working tree) and gets the package installed by pip.
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
        check=True,
    )
    python = str(venv / "bin" / "python")
    oar_site = os.path.dirname(os.path.dirname(os.path.abspath(oar.__file__)))
    env = dict(os.environ, PYTHONPATH=oar_site)
    pip = [sys.executable, "-m", "pip", "--python", python, "install", "-q"]
    r = subprocess.run(
        pip + ["--no-build-isolation", "--no-deps", "--disable-pip-version-check", str(pkg)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    code = (
        "import sys, oar, relu_pkg\n"
        "assert relu_pkg.__file__.startswith(sys.prefix), relu_pkg.__file__\n"
        "y = relu_pkg.custom_relu(oar.to_tensor([-1.0, 2.0], stop_gradient=False))\n"
        "print(y.numpy().tolist(), y._grad_fn_name)\n"
    )
    r = subprocess.run(
        [python, "-c", code], env=env, capture_output=True, text=True, cwd=str(tmp_path)
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["[0.0,", "2.0]", "custom_relu"]


def test_setup_argument_errors():
    with pytest.raises(NotImplementedError, match=r"CppExtension\(\): .*gpu_op\.cu"):
        cpp_extension.CppExtension([_src("gpu_op.cu")])
    with pytest.raises(ValueError, match="ext_modules must be one CppExtension"):
        cpp_extension.setup(name="x", ext_modules=[])
