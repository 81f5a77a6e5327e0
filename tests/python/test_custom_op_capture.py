"""Custom ops in captured programs (docs/custom_ops.md, "Capture and serving"): to_static
records a custom op as "custom.<name>" with its attributes and outputs, the program
replays it with gradients, jit.save writes it, and both oar.jit.load and the C++ program
examples/jit_serve.cc (given the op's library) serve it."""

import json
import os
import subprocess

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

import oar
from oar.static import InputSpec
from oar.utils import cpp_extension

from test_custom_op import ATTRS

SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "custom_ops")
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SERVE = os.path.join(ROOT, "build", "examples", "jit_serve")

# What attrs_op's Info output says of ATTRS (tests/python/custom_ops/attrs_op.cc).
ATTRS_INFO = [1, 3, 0.5, -2.25, 2**40, 5, 2, 6, 0.75, 0.5, 2**35 + 1, 2, 5]


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    # Per test process, so parallel shards never build into one directory.
    build_dir = str(tmp_path_factory.mktemp("custom_op_capture"))
    libs = ["relu_op", "attrs_op", "optional_op", "concat_op", "inplace_op"]
    return {
        lib: cpp_extension.load(
            lib, [os.path.join(SOURCES, lib + ".cc")], build_directory=build_dir
        )
        for lib in libs
    }


def _t(a, stop_gradient=True):
    return oar.to_tensor(np.asarray(a), stop_gradient=stop_gradient)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def _only_program(static_fn):
    (prog,) = static_fn.concrete_programs()
    return prog.program


class ReluNet(oar.nn.Layer):
    def __init__(self, relu):
        super().__init__()
        self.fc = oar.nn.Linear(4, 3)
        self.relu = relu

    def forward(self, x):
        return self.relu(self.fc(x)) * 2.0


def _relu_net_reference(net, x):
    h = x @ net.fc.weight.numpy() + net.fc.bias.numpy()
    return np.maximum(h, 0) * 2.0, h > 0


def test_capture_records_the_op_and_replays_it_with_gradients(ops):
    net = ReluNet(ops["relu_op"].custom_relu)
    static = oar.jit.to_static(net.forward, full_graph=True)
    static(_t(_rand(5, 4), stop_gradient=False))
    types = [op["type"] for op in _only_program(static)["ops"]]
    assert "custom.custom_relu" in types and static.graph_breaks == []
    # A second call replays the program on new values.
    x2 = _t(_rand(5, 4, seed=1), stop_gradient=False)
    y = static(x2)
    assert static.captures == 1
    want, mask = _relu_net_reference(net, x2.numpy())
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-6, atol=1e-6)
    # The replayed op records its grad node: backward runs the declared grad op.
    y.sum().backward()
    np.testing.assert_allclose(
        x2.grad.numpy(), (2.0 * mask) @ net.fc.weight.numpy().T, rtol=1e-6, atol=1e-6
    )


def test_the_replayed_op_records_a_grad_node_named_after_it(ops):
    relu = ops["relu_op"].custom_relu
    static = oar.jit.to_static(lambda x: relu(x), full_graph=True)
    x = _t([-1.0, 2.0], stop_gradient=False)
    static(x)
    y = static(_t([3.0, -4.0], stop_gradient=False))
    assert static.captures == 1 and y.grad_fn.name() == "custom_relu"


def test_attributes_of_every_type_and_two_outputs_replay(ops):
    attrs_op = ops["attrs_op"].attrs_op

    def f(x):
        out, info = attrs_op(x, **ATTRS)
        return out + 1.0, info

    static = oar.jit.to_static(f, full_graph=True)
    static(_t(np.arange(4.0)))
    (op,) = [o for o in _only_program(static)["ops"] if o["type"] == "custom.attrs_op"]
    assert op["num_outputs"] == 2
    assert op["attrs"]["str_vec_attr"] == ["ab", "cde"] and op["attrs"]["int64_attr"] == 2**40
    out, info = static(_t(np.arange(3.0, 7.0)))
    assert static.captures == 1
    np.testing.assert_array_equal(info.numpy(), ATTRS_INFO)
    np.testing.assert_array_equal(out.numpy(), np.arange(3.0, 7.0) * 3 + 1)


def test_optional_and_list_inputs_and_an_inplace_op_replay(ops):
    add_optional = ops["optional_op"].add_optional
    concat = ops["concat_op"].custom_concat
    add_inplace = ops["inplace_op"].add_inplace

    def f(x, y):
        a = add_optional(x, None)  # the optional input omitted
        b = add_optional(x, y)
        c = concat([a, b, y], axis=0)
        d = c * 1.0
        add_inplace(d, c)  # written in place: d = 2c
        return d

    static = oar.jit.to_static(f, full_graph=True)
    static(_t(_rand(2, 3)), _t(_rand(2, 3, seed=1)))
    prog = _only_program(static)
    types = [op["type"] for op in prog["ops"]]
    assert types.count("custom.add_optional") == 2 and "custom.custom_concat" in types
    assert "custom.add_inplace" in types
    omitted = next(op for op in prog["ops"] if op["type"] == "custom.add_optional")
    assert omitted["inputs"][1] == []
    x, y = _rand(2, 3, seed=2), _rand(2, 3, seed=3)
    got = static(_t(x), _t(y))
    assert static.captures == 1
    # add_optional: 2 X + Y (2 X when Y is omitted)
    want = 2 * np.concatenate([2 * x, 2 * x + y, y])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_an_open_batch_dimension_stays_symbolic(ops):
    net = ReluNet(ops["relu_op"].custom_relu)
    static = oar.jit.to_static(net.forward, input_spec=[InputSpec([None, 4])], full_graph=True)
    for n in (2, 5, 7):
        x = _rand(n, 4, seed=n)
        np.testing.assert_allclose(
            static(_t(x)).numpy(), _relu_net_reference(net, x)[0], rtol=1e-6, atol=1e-6
        )
    assert static.captures == 1
    assert _only_program(static)["inputs"][0]["shape"] == [-1, 4]


def _save_relu_net(ops, tmp_path):
    oar.seed(5)
    net = ReluNet(ops["relu_op"].custom_relu)
    net.eval()
    prefix = str(tmp_path / "relu_net")
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 4], "float32")])
    return net, prefix


def test_jit_save_and_load_in_python(ops, tmp_path):
    net, prefix = _save_relu_net(ops, tmp_path)
    model = json.loads(open(prefix + ".oarmodel").read())
    assert "custom.custom_relu" in json.dumps(model)
    loaded = oar.jit.load(prefix)
    x = _rand(3, 4, seed=4)
    np.testing.assert_allclose(
        loaded(_t(x)).numpy(), _relu_net_reference(net, x)[0], rtol=1e-6, atol=1e-6
    )


def _serve(args):
    assert os.path.exists(SERVE), f"{SERVE} is built by scripts/install.sh (OAR_BUILD_TESTS=ON)"
    return subprocess.run([SERVE, *args], capture_output=True, text=True, timeout=300)


def test_the_cpp_runtime_serves_the_op_from_its_library(ops, tmp_path):
    net, prefix = _save_relu_net(ops, tmp_path)
    x = _rand(6, 4, seed=6)
    save_file({"x": x}, str(tmp_path / "in.safetensors"))
    out = str(tmp_path / "out.safetensors")
    lib = ops["relu_op"].__file__
    r = _serve(["--custom-ops", lib, prefix, str(tmp_path / "in.safetensors"), out, "4"])
    assert r.returncode == 0, r.stderr
    assert "largest difference from the serial run 0" in r.stdout
    want = _relu_net_reference(net, x)[0]
    np.testing.assert_allclose(load_file(out)["out0"], want, rtol=1e-6, atol=1e-6)
    # Without the library the program cannot be read: the error names the op and
    # says what to load.
    r = _serve([prefix, str(tmp_path / "in.safetensors"), out])
    assert r.returncode == 1
    assert "custom op 'custom_relu'" in r.stderr and "load its library" in r.stderr


def test_a_program_naming_an_unloaded_op_is_a_clear_error(ops, tmp_path):
    _, prefix = _save_relu_net(ops, tmp_path)
    text = open(prefix + ".oarmodel").read().replace("custom.custom_relu", "custom.not_loaded")
    with open(prefix + ".oarmodel", "w") as f:
        f.write(text)
    with pytest.raises(RuntimeError, match="custom op 'not_loaded'.*load its library"):
        oar.jit.load(prefix)


def test_onnx_export_names_the_custom_op(ops, tmp_path):
    net = ReluNet(ops["relu_op"].custom_relu)
    with pytest.raises(Exception, match="custom.custom_relu"):
        oar.onnx.export(net, str(tmp_path / "m"), input_spec=[InputSpec([2, 4], "float32")])
