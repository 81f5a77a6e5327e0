"""oar.onnx: each op of the mapping table as a one-op program, run by onnxruntime against
the oar op itself (oar._C.<op> with the same attributes) at every opset the exporter
writes; the models pass onnx.checker; a symbolic batch dimension runs at two sizes;
the errors; export() of whole models (captured by oar.jit) against the eager models."""

import os

import numpy as np
import pytest

import oar

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from jit_models import MODELS  # noqa: E402
from oar.onnx import UnsupportedOpError, program_to_onnx, supported_ops  # noqa: E402
from oar.onnx._errors import MAX_OPSET, MIN_OPSET  # noqa: E402

RNG = np.random.default_rng(0)
# every branch of the table: 14 (the first), 16 (before LayerNormalization), 17 (the
# default), 18 (reduction axes as inputs, Mish, bitwise ops)
OPSETS = [MIN_OPSET, 16, 17, MAX_OPSET]


def f32(*shape, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def i64(*shape, lo=-5, hi=6):
    return RNG.integers(lo, hi, shape).astype(np.int64)


def program(inputs, params, ops, outputs, symbols=(), symbolic_attrs=()):
    """A program dict: inputs and params are (name, array or (dtype, shape)) pairs."""

    def spec(name, a):
        dtype, shape = (a.dtype.name, list(a.shape)) if isinstance(a, np.ndarray) else a
        return {"name": name, "dtype": dtype, "shape": list(shape)}

    return {
        "format": "oar.program",
        "version": 1,
        "inputs": [spec(n, a) for n, a in inputs],
        "params": [dict(spec(n, a), buffer=False, trainable=True) for n, a in params],
        "consts": [],
        "ops": ops,
        "outputs": list(outputs),
        "symbols": list(symbols),
        "symbolic_attrs": list(symbolic_attrs),
    }


def one_op(op, args, attrs=None, params=()):
    """The program of one op, its parameter values and the feeds of its inputs.
    args: one entry per tensor argument of the declaration: an array, a list of arrays
    (a Tensor[] argument) or None (absent); params: the indices of args given as
    parameters (initializers) instead of inputs."""
    inputs, pvals, ins = [], [], []
    for i, a in enumerate(args):
        if a is None:
            ins.append(None)
        elif isinstance(a, list):
            ins.append([(f"x{i}_{j}", t) for j, t in enumerate(a)])
            inputs += ins[-1]
        elif i in params:
            ins.append([(f"p{i}", a)])
            pvals += ins[-1]
        else:
            ins.append([(f"x{i}", a)])
            inputs += ins[-1]
    ids = {name: k for k, (name, _) in enumerate(inputs + pvals)}
    out = len(ids)
    spec = {
        "type": op,
        "inputs": [[] if a is None else [ids[n] for n, _ in a] for a in ins],
        "attrs": dict(attrs or {}),
        "output": out,
        "layer": "Net.block",
    }
    prog = program(inputs, pvals, [spec], [out])
    return prog, {n: a for n, a in pvals}, {n: a for n, a in inputs}


def run_onnx(model, feeds):
    onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def run_oar(op, args, attrs):
    def t(a):
        return None if a is None else oar.to_tensor(a)

    targs = [[t(x) for x in a] if isinstance(a, list) else t(a) for a in args]
    kw = {k: (None if v == "undefined" else v) for k, v in (attrs or {}).items()}
    return getattr(oar._C, op.rstrip("_") if op.endswith("_") else op)(*targs, **kw).numpy()


def check(op, args, attrs=None, params=(), opset=17, tol=1e-5):
    prog, tensors, feeds = one_op(op, args, attrs, params)
    model = program_to_onnx(prog, tensors, opset)
    (got,) = run_onnx(model, feeds)
    want = run_oar(op, args, attrs)
    assert got.dtype == want.dtype, f"{op}: ONNX gives {got.dtype}, oar {want.dtype}"
    assert got.shape == want.shape, f"{op}: ONNX gives {got.shape}, oar {want.shape}"
    if want.dtype == np.bool_ or want.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)
    return model


# ---- the cases: (id, op, args, attrs, params) ----------------------------------------------
X = f32(2, 3, 4)
POS = f32(2, 3, 4, lo=0.1, hi=3.0)
UNIT = f32(2, 3, 4, lo=-0.9, hi=0.9)
IMG = f32(2, 3, 7, 7)


def pool(kernel, strides=(1, 1), paddings=(0, 0, 0, 0), max=False, **kw):
    """The attributes of avg_pool (max=False) or max_pool_index, oar's defaults but kw."""
    a = {
        "kernel_size": kernel,
        "strides": list(strides),
        "paddings": list(paddings),
        "ceil_mode": False,
        "adaptive": False,
    }
    if not max:
        a.update(exclusive=True, divisor=0)
    a.update(kw)
    return a


def conv(strides, paddings, dilations=None, groups=1):
    return {
        "strides": strides,
        "paddings": paddings,
        "dilations": dilations or [1] * len(strides),
        "groups": groups,
    }


CASES = [
    # unary
    *[
        (n, n, [X], {}, ())
        for n in [
            "relu",
            "abs",
            "neg",
            "floor",
            "ceil",
            "sign",
            "softsign",
            "assign",
            "exp",
            "sin",
            "cos",
            "tan",
            "atan",
            "sinh",
            "cosh",
            "asinh",
            "tanh",
            "sigmoid",
            "erf",
            "erfc",
            "expm1",
            "square",
            "trunc",
            "round",
            "silu",
            "mish",
            "tanhshrink",
            "hardswish",
            "log_sigmoid",
            "isnan",
            "isinf",
            "isfinite",
        ]
    ],
    *[
        (n, n, [POS], {}, ())
        for n in ["log", "log1p", "log2", "log10", "sqrt", "rsqrt", "reciprocal"]
    ],
    *[(n, n, [UNIT], {}, ()) for n in ["asin", "acos", "atanh"]],
    ("acosh", "acosh", [POS + 1.0], {}, ()),
    ("relu_", "relu_", [X], {}, ()),
    ("exp-int", "exp", [i64(3, 4)], {}, ()),
    ("abs-int", "abs", [i64(3, 4)], {}, ()),
    ("round-decimals", "round", [X], {"decimals": 2}, ()),
    ("logit", "logit", [f32(3, 4, lo=0.05, hi=0.95)], {"eps": -1.0}, ()),
    ("logit-eps", "logit", [f32(3, 4, lo=-0.5, hi=1.5)], {"eps": 0.1}, ()),
    (
        "nan_to_num",
        "nan_to_num",
        [np.array([1.0, np.nan, np.inf, -np.inf, -2.0], np.float32)],
        {"nan": 0.5, "posinf": 9.0, "neginf": -9.0},
        (),
    ),
    ("cast", "cast", [X], {"dtype": "int32"}, ()),
    ("cast-bool", "cast", [X], {"dtype": "bool"}, ()),
    ("scale", "scale", [X], {"scale": 2.5, "bias": -1.0, "bias_after_scale": True}, ()),
    ("scale-before", "scale", [X], {"scale": 2.5, "bias": -1.0, "bias_after_scale": False}, ()),
    ("scale-int", "scale", [i64(3, 4)], {"scale": 0.5, "bias": 1.0, "bias_after_scale": True}, ()),
    ("pow", "pow", [POS], {"y": 2.5}, ()),
    ("pow-int", "pow", [i64(3, 4, lo=0)], {"y": 2.0}, ()),
    ("clip", "clip", [X], {"min": -0.5, "max": 1.2}, ()),
    ("clip-int", "clip", [i64(3, 4)], {"min": -1.5, "max": 2.7}, ()),
    ("logical_not", "logical_not", [X > 0], {}, ()),
    # activations
    ("gelu", "gelu", [X], {"approximate": False}, ()),
    ("gelu-tanh", "gelu", [X], {"approximate": True}, ()),
    ("elu", "elu", [X], {"alpha": 0.7}, ()),
    ("celu", "celu", [X], {"alpha": 0.7}, ()),
    ("selu", "selu", [X], {"scale": 1.0507009873554805, "alpha": 1.6732632423543772}, ()),
    ("softplus", "softplus", [f32(3, 4, lo=-30, hi=30)], {"beta": 1.0, "threshold": 20.0}, ()),
    ("softplus-beta", "softplus", [f32(3, 4, lo=-10, hi=10)], {"beta": 2.0, "threshold": 5.0}, ()),
    ("leaky_relu", "leaky_relu", [X], {"negative_slope": 0.2}, ()),
    ("hardsigmoid", "hardsigmoid", [f32(3, 8, lo=-5, hi=5)], {"slope": 0.2, "offset": 0.4}, ()),
    ("hardtanh", "hardtanh", [X], {"min": 0.0, "max": 6.0}, ()),
    ("hardtanh_", "hardtanh_", [X], {"min": -0.5, "max": 0.5}, ()),
    ("softshrink", "softshrink", [X], {"threshold": 0.5}, ()),
    ("hardshrink", "hardshrink", [X], {"threshold": 0.5}, ()),
    ("thresholded_relu", "thresholded_relu", [X], {"threshold": 0.3, "value": -1.0}, ()),
    ("prelu", "prelu", [IMG, f32(1, 3, 1, 1)], {}, (1,)),
    ("softmax", "softmax", [X], {"axis": 1}, ()),
    ("softmax-last", "softmax", [X], {"axis": -1}, ()),
    ("log_softmax", "log_softmax", [X], {"axis": -1}, ()),
    # binary with broadcasting
    *[
        (n, n, [X, f32(3, 1)], {}, ())
        for n in [
            "add",
            "subtract",
            "multiply",
            "maximum",
            "minimum",
            "equal",
            "not_equal",
            "less_than",
            "less_equal",
            "greater_than",
            "greater_equal",
        ]
    ],
    ("add_", "add_", [X, f32(4)], {}, ()),
    ("add-int", "add", [i64(3, 4), i64(4)], {}, ()),
    ("add-promote", "add", [X, f32(4).astype(np.float64)], {}, ()),
    ("divide", "divide", [X, f32(3, 1, lo=0.5)], {}, ()),
    ("divide-int", "divide", [i64(3, 4), i64(4, lo=1)], {}, ()),
    ("elementwise_pow", "elementwise_pow", [POS, f32(4)], {}, ()),
    (
        "floor_divide",
        "floor_divide",
        [X, f32(4, lo=0.5) * np.array([1, -1, 1, -1], np.float32)],
        {},
        (),
    ),
    (
        "floor_divide-int",
        "floor_divide",
        [np.array([-7, 7, 5, -5, 6], np.int64), np.array([2, -2, 2, -3, 3], np.int64)],
        {},
        (),
    ),
    ("remainder", "remainder", [X, f32(4, lo=0.5) * np.array([1, -1, 1, -1], np.float32)], {}, ()),
    (
        "remainder-int",
        "remainder",
        [np.array([-7, 7, 5, -5, 6], np.int64), np.array([2, -2, 2, -3, 3], np.int64)],
        {},
        (),
    ),
    ("logical_and", "logical_and", [X > 0, X < 1], {}, ()),
    ("logical_or", "logical_or", [X > 0, X < -1], {}, ()),
    ("logical_xor", "logical_xor", [X > 0, X < 1], {}, ()),
    ("bitwise_and-bool", "bitwise_and", [X > 0, X < 1], {}, ()),
    ("where", "where", [X > 0, X, f32(3, 4)], {}, ()),
    ("masked_fill", "masked_fill", [X, X > 0.5, np.array(-1.0, np.float32)], {}, ()),
    ("lerp", "lerp", [X, f32(3, 4), f32(4, lo=0, hi=1)], {}, ()),
    # linear algebra and layers
    ("matmul", "matmul", [f32(2, 3, 4), f32(4, 5)], {}, ()),
    ("matmul-tx", "matmul", [f32(2, 4, 3), f32(2, 4, 5)], {"transpose_x": True}, ()),
    ("matmul-ty", "matmul", [f32(2, 3, 4), f32(5, 4)], {"transpose_y": True}, (1,)),
    ("matmul-vec", "matmul", [f32(4), f32(2, 4, 5)], {}, ()),
    ("linear", "linear", [f32(2, 3, 4), f32(4, 5), f32(5)], {}, (1, 2)),
    ("conv", "conv", [IMG, f32(4, 3, 3, 3)], conv([1, 1], [1, 1, 1, 1]), (1,)),
    ("conv-stride-pad", "conv", [IMG, f32(4, 3, 3, 2)], conv([2, 1], [0, 1, 2, 0], [1, 2]), (1,)),
    (
        "conv-groups",
        "conv",
        [f32(2, 4, 6, 6), f32(6, 2, 3, 3)],
        conv([1, 1], [1, 1, 1, 1], groups=2),
        (1,),
    ),
    (
        "conv-depthwise",
        "conv",
        [f32(2, 4, 6, 6), f32(4, 1, 3, 3)],
        conv([2, 2], [1, 1, 1, 1], groups=4),
        (1,),
    ),
    ("conv-defaults", "conv", [IMG, f32(4, 3, 1, 1)], {}, (1,)),
    ("conv1d", "conv", [f32(2, 3, 9), f32(4, 3, 3)], conv([2], [1, 1], [1]), (1,)),
    (
        "conv_transpose",
        "conv_transpose",
        [f32(2, 4, 5, 5), f32(4, 3, 3, 3)],
        dict(conv([2, 2], [1, 1, 1, 1]), output_padding=[1, 1]),
        (1,),
    ),
    (
        "embedding",
        "embedding",
        [RNG.integers(0, 10, (2, 5)).astype(np.int64), f32(10, 4)],
        {"padding_idx": -1},
        (1,),
    ),
    (
        "embedding-pad",
        "embedding",
        [np.array([[0, 3, 3, 1]], np.int64), f32(10, 4)],
        {"padding_idx": 3},
        (1,),
    ),
    ("one_hot", "one_hot", [np.array([0, 3, 2, 1], np.int64)], {"num_classes": 5}, ()),
    (
        "layer_norm",
        "layer_norm",
        [X, f32(4), f32(4)],
        {"epsilon": 1e-5, "begin_norm_axis": 2},
        (1, 2),
    ),
    (
        "layer_norm-2axes",
        "layer_norm",
        [X, f32(12), f32(12)],
        {"epsilon": 1e-5, "begin_norm_axis": 1},
        (1, 2),
    ),
    ("rms_norm", "rms_norm", [X, f32(4)], {"epsilon": 1e-6, "begin_norm_axis": 2}, (1,)),
    ("batch_norm", "batch_norm", [IMG, f32(3), f32(3)], {"epsilon": 1e-5, "axis": 1}, (1, 2)),
    (
        "batch_norm_infer",
        "batch_norm_infer",
        [IMG, f32(3), f32(3, lo=0.5, hi=1.5), f32(3), f32(3)],
        {"epsilon": 1e-3, "axis": 1},
        (1, 2, 3, 4),
    ),
    (
        "batch_norm_infer-last",
        "batch_norm_infer",
        [f32(2, 5, 3), f32(3), f32(3, lo=0.5, hi=1.5), f32(3), f32(3)],
        {"epsilon": 1e-5, "axis": -1},
        (1, 2, 3, 4),
    ),
    # pooling
    ("avg_pool", "avg_pool", [IMG], pool([3, 3], [2, 2], [1, 1, 1, 1]), ()),
    ("avg_pool-inclusive", "avg_pool", [IMG], pool([3, 3], [2, 2], [1] * 4, exclusive=False), ()),
    ("avg_pool-ceil", "avg_pool", [IMG], pool([2, 2], [2, 2], [0] * 4, ceil_mode=True), ()),
    (
        "avg_pool-ceil-inclusive",
        "avg_pool",
        [IMG],
        pool([3, 3], [2, 2], [1] * 4, ceil_mode=True, exclusive=False),
        (),
    ),
    ("avg_pool-divisor", "avg_pool", [IMG], pool([2, 2], [1, 1], [0] * 4, divisor=3), ()),
    ("avg_pool-nostrides", "avg_pool", [IMG], pool([2, 2], [], []), ()),
    ("adaptive_avg-1", "avg_pool", [IMG], pool([1, 1], adaptive=True), ()),
    ("adaptive_avg-divides", "avg_pool", [f32(2, 3, 8, 6)], pool([4, 3], adaptive=True), ()),
    ("adaptive_avg-uneven", "avg_pool", [IMG], pool([3, 2], adaptive=True), ()),
    ("max_pool_index", "max_pool_index", [IMG], pool([3, 3], [2, 2], [1] * 4, max=True), ()),
    (
        "max_pool_index-ceil",
        "max_pool_index",
        [IMG],
        pool([2, 2], [2, 2], [0] * 4, ceil_mode=True, max=True),
        (),
    ),
    (
        "max_pool_index-adaptive",
        "max_pool_index",
        [f32(2, 3, 8, 6)],
        pool([2, 3], adaptive=True, max=True),
        (),
    ),
    ("max_pool", "max_pool", [IMG], pool([3, 3], [2, 2], [1] * 4, max=True), ()),
    (
        "max_pool-ceil",
        "max_pool",
        [IMG],
        pool([2, 2], [2, 2], [0] * 4, ceil_mode=True, max=True),
        (),
    ),
    ("max_pool-adaptive", "max_pool", [f32(2, 3, 8, 6)], pool([2, 3], adaptive=True, max=True), ()),
    (
        "pool_gather",
        "pool_gather",
        [IMG, RNG.integers(0, 49, (2, 3, 2, 5)).astype(np.int64)],
        {},
        (),
    ),
    # shapes
    ("reshape", "reshape", [X], {"shape": [0, -1]}, ()),
    ("reshape-4d", "reshape", [X], {"shape": [2, 3, 2, 2]}, ()),
    ("transpose", "transpose", [X], {"perm": [2, 0, 1]}, ()),
    ("transpose-neg", "transpose", [X], {"perm": [0, -1, -2]}, ()),
    ("unsqueeze", "unsqueeze", [X], {"axis": [1]}, ()),
    ("unsqueeze-seq", "unsqueeze", [X], {"axis": [3, 0]}, ()),
    ("unsqueeze-neg", "unsqueeze", [X], {"axis": [-1, 0]}, ()),
    ("unsqueeze-sorted", "unsqueeze", [X], {"axis": [0, 2]}, ()),
    ("squeeze", "squeeze", [f32(2, 1, 4, 1)], {"axis": [1]}, ()),
    ("squeeze-all", "squeeze", [f32(2, 1, 4, 1)], {"axis": []}, ()),
    ("squeeze-not1", "squeeze", [f32(2, 1, 4, 1)], {"axis": [0, -1]}, ()),
    ("expand", "expand", [f32(3, 1)], {"shape": [2, 3, 5]}, ()),
    ("expand-keep", "expand", [f32(3, 1)], {"shape": [2, -1, 5]}, ()),
    ("concat", "concat", [[f32(2, 3), f32(2, 1), f32(2, 2)]], {"axis": 1}, ()),
    ("concat-neg", "concat", [[f32(2, 3), f32(1, 3)]], {"axis": -2}, ()),
    ("slice", "slice", [X], {"axes": [1, 2], "starts": [1, -3], "ends": [3, 100]}, ()),
    (
        "strided_slice",
        "strided_slice",
        [X],
        {"axes": [2, 0], "starts": [0, 0], "ends": [4, 2], "strides": [2, 1]},
        (),
    ),
    (
        "strided_slice-neg",
        "strided_slice",
        [X],
        {"axes": [2], "starts": [-1], "ends": [-100], "strides": [-2]},
        (),
    ),
    ("flip", "flip", [X], {"axis": [0, 2]}, ()),
    ("roll", "roll", [X], {"shifts": [1, -2], "axis": [1, 2]}, ()),
    ("roll-flat", "roll", [X], {"shifts": [5], "axis": []}, ()),
    ("triu", "triu", [f32(2, 4, 5)], {"diagonal": 1}, ()),
    ("tril", "tril", [f32(4, 5)], {"diagonal": -1}, ()),
    ("triu-int", "triu", [i64(4, 4)], {"diagonal": 0}, ()),
    ("gather", "gather", [X, np.array([2, 0, 0], np.int64)], {"axis": 1}, ()),
    ("gather-0d", "gather", [X, np.array(1, np.int64)], {"axis": 2}, ()),
    ("index_select", "index_select", [X, np.array([3, 1], np.int64)], {"axis": -1}, ()),
    ("gather_nd", "gather_nd", [X, np.array([[0, 1], [1, 2]], np.int64)], {}, ()),
    (
        "take_along_axis",
        "take_along_axis",
        [X, RNG.integers(0, 3, (2, 2, 4)).astype(np.int64)],
        {"axis": 1, "broadcast": True},
        (),
    ),
    (
        "take_along_axis-bcast",
        "take_along_axis",
        [X, RNG.integers(0, 4, (1, 3, 2)).astype(np.int64)],
        {"axis": 2, "broadcast": True},
        (),
    ),
    ("nonzero", "nonzero", [np.array([[1, 0, 2], [0, 0, 3]], np.float32)], {}, ()),
    ("pad", "pad", [X], {"paddings": [0, 0, 1, 2, 2, 1], "mode": 0, "value": 0.5}, ()),
    ("pad-reflect", "pad", [X], {"paddings": [0, 0, 1, 2, 2, 1], "mode": 1, "value": 0}, ()),
    ("pad-replicate", "pad", [X], {"paddings": [0, 0, 1, 2, 2, 1], "mode": 2, "value": 0}, ()),
    ("pad-circular", "pad", [X], {"paddings": [0, 0, 1, 2, 2, 1], "mode": 3, "value": 0}, ()),
    ("argsort", "argsort", [X], {"axis": 1, "descending": False, "stable": True}, ()),
    ("argsort-desc", "argsort", [X], {"axis": -1, "descending": True, "stable": False}, ()),
    ("topk_index", "topk_index", [X], {"k": 2, "axis": -1, "largest": True, "sorted": True}, ()),
    (
        "topk_index-small",
        "topk_index",
        [X],
        {"k": 2, "axis": 1, "largest": False, "sorted": True},
        (),
    ),
    (
        "set_value",
        "set_value",
        [X],
        {"axes": [1], "starts": [1], "ends": [3], "strides": [1], "value": 2.5},
        (),
    ),
    (
        "set_value_",
        "set_value_",
        [X],
        {"axes": [2, 0], "starts": [-2, 0], "ends": [100, 1], "strides": [1, 1], "value": -1},
        (),
    ),
    (
        "set_value-all",
        "set_value",
        [X],
        {"axes": [], "starts": [], "ends": [], "strides": [], "value": 0.5},
        (),
    ),
    (
        "set_value-strided",
        "set_value",
        [X],
        {"axes": [2], "starts": [3], "ends": [-100], "strides": [-2], "value": 7.0},
        (),
    ),
    (
        "set_value_with_tensor",
        "set_value_with_tensor",
        [X, f32(1, 2)],
        {"axes": [1, 2], "starts": [0, 1], "ends": [2, 3], "strides": [1, 1]},
        (),
    ),
    (
        "set_value_with_tensor_",
        "set_value_with_tensor_",
        [X, f32(4)],
        {"axes": [], "starts": [], "ends": [], "strides": []},
        (),
    ),
    (
        "set_value_with_tensor-strided",
        "set_value_with_tensor",
        [X, f32(2, 3, 2)],
        {"axes": [2], "starts": [0], "ends": [4], "strides": [2]},
        (),
    ),
    (
        "set_value-empty",
        "set_value",
        [X],
        {"axes": [1], "starts": [2], "ends": [1], "strides": [1], "value": 9.0},
        (),
    ),
    # reductions
    ("sum", "sum", [X], {"axis": [1], "dtype": "undefined", "keepdim": False}, ()),
    ("sum-all", "sum", [X], {"axis": [], "keepdim": False}, ()),
    ("sum-keep", "sum", [X], {"axis": [0, 2], "keepdim": True}, ()),
    ("sum-bool", "sum", [X > 0], {"axis": [-1], "keepdim": False}, ()),
    ("sum-dtype", "sum", [X], {"axis": [1], "dtype": "float64", "keepdim": False}, ()),
    ("mean", "mean", [X], {"axis": [1, 2], "keepdim": False}, ()),
    ("mean-all", "mean", [X], {"axis": [], "keepdim": True}, ()),
    ("max", "max", [X], {"axis": [-1], "keepdim": True}, ()),
    ("min", "min", [X], {"axis": [], "keepdim": False}, ()),
    ("amax", "amax", [X], {"axis": [0], "keepdim": False}, ()),
    ("amin", "amin", [X], {"axis": [1], "keepdim": False}, ()),
    ("prod", "prod", [f32(3, 4, lo=0.5, hi=1.5)], {"axis": [1], "keepdim": False}, ()),
    ("all", "all", [X > -1.5], {"axis": [1], "keepdim": False}, ()),
    ("any", "any", [X > 1.5], {"axis": [], "keepdim": False}, ()),
    ("logsumexp", "logsumexp", [X], {"axis": [-1], "keepdim": False}, ()),
    (
        "count_nonzero",
        "count_nonzero",
        [np.array([[1, 0, 2], [0, 0, 3]], np.float32)],
        {"axis": [1], "keepdim": False},
        (),
    ),
    ("var", "var", [X], {"axis": [1], "unbiased": True, "keepdim": False}, ()),
    ("std", "std", [X], {"axis": [], "unbiased": False, "keepdim": False}, ()),
    ("p_norm", "p_norm", [X], {"porder": 2.0, "axis": [-1], "keepdim": False}, ()),
    ("p_norm-1", "p_norm", [X], {"porder": 1.0, "axis": [1], "keepdim": True}, ()),
    ("p_norm-3", "p_norm", [X], {"porder": 3.0, "axis": [1], "keepdim": False}, ()),
    ("p_norm-inf", "p_norm", [X], {"porder": float("inf"), "axis": [1], "keepdim": False}, ()),
    ("argmax", "argmax", [X], {"axis": [1], "keepdim": False, "dtype": "int64"}, ()),
    ("argmax-flat", "argmax", [X], {"axis": [], "keepdim": True, "dtype": "int64"}, ()),
    ("argmin", "argmin", [X], {"axis": [-1], "keepdim": True, "dtype": "int32"}, ()),
    ("cumsum", "cumsum", [X], {"axis": [1], "dtype": "undefined"}, ()),
    ("cumsum-flat", "cumsum", [X], {"axis": []}, ()),
    ("cumsum-int32", "cumsum", [i64(3, 4).astype(np.int32)], {"axis": [0]}, ()),
    # creation
    ("full", "full", [], {"shape": [2, 3], "value": 1.5, "dtype": "float32"}, ()),
    ("full-int", "full", [], {"shape": [4], "value": 7, "dtype": "int64"}, ()),
    ("full-bool", "full", [], {"shape": [2, 2], "value": True, "dtype": "bool"}, ()),
    ("full-0d", "full", [], {"shape": [], "value": -2.0, "dtype": "float64"}, ()),
    ("full_like", "full_like", [X], {"value": 3.0, "dtype": "undefined"}, ()),
    ("full_like-dtype", "full_like", [X], {"value": 3, "dtype": "int32"}, ()),
    ("arange", "arange", [], {"start": 0, "end": 7, "step": 2, "dtype": "int64"}, ()),
    (
        "arange-float",
        "arange",
        [],
        {"start": 0.5, "end": 3.0, "step": 0.25, "dtype": "float32"},
        (),
    ),
    ("eye", "eye", [], {"num_rows": 3, "num_columns": 4, "dtype": "float32"}, ()),
]


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_op_matches_oar(case, opset):
    _, op, args, attrs, params = case
    check(op, args, attrs, params, opset)


def test_every_mapped_op_has_a_case():
    tested = {c[1].rstrip("_") for c in CASES} | {"pool_gather"}
    # ops whose cases are below (a program of several ops)
    tested |= {
        "empty",
        "empty_like",
        "along_axis_gather",
        "bitwise_or",
        "bitwise_xor",
        "bitwise_not",
        "detach",
        "rnn",
    }
    missing = sorted(set(supported_ops()) - tested)
    assert not missing, f"ops of the table without a test case: {missing}"


@pytest.mark.parametrize("opset", OPSETS)
def test_more_ops(opset):
    # empty/empty_like: zeros in ONNX (their values are unspecified in oar: shape only)
    prog, tensors, feeds = one_op("empty", [], {"shape": [2, 3], "dtype": "float32"})
    (got,) = run_onnx(program_to_onnx(prog, tensors, opset), feeds)
    assert got.shape == (2, 3) and got.dtype == np.float32
    prog, tensors, feeds = one_op("empty_like", [X], {"dtype": "int32"})
    (got,) = run_onnx(program_to_onnx(prog, tensors, opset), feeds)
    assert got.shape == X.shape and got.dtype == np.int32
    idx = RNG.integers(0, 3, (2, 3, 2)).astype(np.int64)
    check("along_axis_gather", [X, idx], {"axis": 2}, (), opset)
    for op in ("bitwise_or", "bitwise_xor"):
        check(op, [X > 0, X < 1], {}, (), opset)
    check("bitwise_not", [X > 0], {}, (), opset)
    if opset >= 18:
        a, b = i64(3, 4), i64(3, 4)
        for op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
            check(op, [a, b], {}, (), opset)
        check("bitwise_not", [a], {}, (), opset)


def test_capture_fields_detach_non_finite_and_output_shapes():
    # what oar.jit's programs add: detach ops, non-finite floats as strings, each op's
    # output shape with the symbolic sizes in symbolic_shapes
    ops = [
        {
            "type": "detach",
            "inputs": [[0]],
            "attrs": {},
            "output": 1,
            "layer": "",
            "shape": [2, 1, 4],
        },
        {
            "type": "squeeze",
            "inputs": [[1]],
            "attrs": {"axis": [0, 1]},
            "output": 2,
            "layer": "",
            "shape": [2, 4],
        },
        {
            "type": "full",
            "inputs": [],
            "output": 3,
            "layer": "",
            "shape": [2],
            "attrs": {"shape": [2], "value": "-inf", "dtype": "float32"},
        },
        {
            "type": "clip",
            "inputs": [[2]],
            "output": 4,
            "layer": "",
            "shape": [2, 4],
            "attrs": {"min": "-inf", "max": 0.5},
        },
    ]
    prog = program(
        [("x", ("float32", [-1, 1, 4]))],
        [],
        ops,
        [2, 3, 4],
        symbols=[{"name": "batch", "input": 0, "dim": 0}],
    )
    prog["symbolic_shapes"] = [
        {"op": k, "dim": 0, "symbol": 0, "scale": 1, "offset": 0} for k in (0, 1, 3)
    ]
    model = program_to_onnx(prog, {})
    dims = [
        [d.dim_param or d.dim_value for d in o.type.tensor_type.shape.dim]
        for o in model.graph.output
    ]
    assert dims == [["batch", 4], [2], ["batch", 4]]
    for n in (2, 3):
        x = f32(n, 1, 4)
        sq, full, clip = run_onnx(model, {"x": x})
        # the batch (2 at capture) is not squeezed: the output kept it
        np.testing.assert_array_equal(sq, x[:, 0])
        np.testing.assert_array_equal(full, [-np.inf, -np.inf])
        np.testing.assert_array_equal(clip, np.minimum(x[:, 0], 0.5))


def test_max_pool_indices_are_oar_s_and_pool_gather_reads_them():
    # max_pool_index returned (its indices are an output) and gathered: the indices path
    x = f32(2, 3, 7, 7)
    attrs = {
        "kernel_size": [3, 3],
        "strides": [2, 2],
        "paddings": [1, 1, 1, 1],
        "ceil_mode": False,
        "adaptive": False,
    }
    ops = [
        {"type": "max_pool_index", "inputs": [[0]], "attrs": attrs, "output": 1, "layer": "P"},
        {"type": "pool_gather", "inputs": [[0], [1]], "attrs": {}, "output": 2, "layer": "P"},
    ]
    model = program_to_onnx(program([("x", x)], [], ops, [2, 1]), {})
    out, idx = run_onnx(model, {"x": x})
    ix = oar._C.max_pool_index(oar.to_tensor(x), **attrs)
    np.testing.assert_array_equal(idx, ix.numpy())
    np.testing.assert_array_equal(out, oar._C.pool_gather(oar.to_tensor(x), ix).numpy())
    # only gathered: one MaxPool with no indices
    model = program_to_onnx(program([("x", x)], [], ops, [2]), {})
    assert [n.op_type for n in model.graph.node] == ["MaxPool"]
    assert len(model.graph.node[0].output) == 1
    (out2,) = run_onnx(model, {"x": x})
    np.testing.assert_array_equal(out2, out)


def _cnn_program():
    """conv - relu - max pool - flatten to [batch, -1] (a symbolic reshape) - linear."""
    ops = [
        {
            "type": "conv",
            "inputs": [[0], [1]],
            "output": 4,
            "layer": "Net.conv",
            "attrs": {
                "strides": [1, 1],
                "paddings": [1, 1, 1, 1],
                "dilations": [1, 1],
                "groups": 1,
            },
        },
        {"type": "relu_", "inputs": [[4]], "attrs": {}, "output": 5, "layer": "Net.act"},
        {
            "type": "max_pool_index",
            "inputs": [[5]],
            "output": 6,
            "layer": "Net.pool",
            "attrs": {
                "kernel_size": [2, 2],
                "strides": [2, 2],
                "paddings": [0, 0, 0, 0],
                "ceil_mode": False,
                "adaptive": False,
            },
        },
        {
            "type": "pool_gather",
            "inputs": [[5], [6]],
            "attrs": {},
            "output": 7,
            "layer": "Net.pool",
        },
        {
            "type": "reshape",
            "inputs": [[7]],
            "attrs": {"shape": [7, -1]},
            "output": 8,
            "layer": "Net",
        },
        {"type": "linear", "inputs": [[8], [2], [3]], "attrs": {}, "output": 9, "layer": "Net.fc"},
    ]
    params = [
        ("conv.weight", f32(4, 1, 3, 3)),
        ("fc.weight", f32(4 * 4 * 4, 5)),
        ("fc.bias", f32(5)),
    ]
    prog = program(
        [("x", ("float32", [-1, 1, 8, 8]))],
        params,
        ops,
        [9],
        symbols=[{"name": "batch", "input": 0, "dim": 0}],
        symbolic_attrs=[
            {"op": 4, "attr": "shape", "index": 0, "symbol": 0, "scale": 1, "offset": 0}
        ],
    )
    return prog, dict(params)


def _cnn_oar(x, p):
    C = oar._C
    t = oar.to_tensor
    y = C.relu(C.conv(t(x), t(p["conv.weight"]), [1, 1], [1, 1, 1, 1], [1, 1], 1))
    y = C.pool_gather(y, C.max_pool_index(y, [2, 2], [2, 2], [0, 0, 0, 0], False, False))
    y = C.reshape(y, [x.shape[0], -1])
    return C.linear(y, t(p["fc.weight"]), t(p["fc.bias"])).numpy()


@pytest.mark.parametrize("opset", OPSETS)
def test_symbolic_batch_runs_at_two_sizes(opset):
    prog, tensors = _cnn_program()
    model = program_to_onnx(prog, tensors, opset)
    onnx.checker.check_model(model, full_check=True)
    (inp,) = model.graph.input
    dims = inp.type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and [d.dim_value for d in dims[1:]] == [1, 8, 8]
    out_dims = model.graph.output[0].type.tensor_type.shape.dim
    assert out_dims[0].dim_param == "batch" and out_dims[1].dim_value == 5
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in (2, 5):
        x = f32(n, 1, 8, 8)
        (got,) = sess.run(None, {"x": x})
        np.testing.assert_allclose(got, _cnn_oar(x, tensors), rtol=1e-5, atol=1e-5)


def test_symbolic_attrs_scale_offset_and_scalars():
    # y [1, 3] expanded to [2 n + 1, 3], arange(n), full([1, n]) and full([2], n - 1) with n
    # the size of x's first dim: a scaled symbol, Scalar attributes, an element of a list
    ops = [
        {"type": "expand", "inputs": [[1]], "attrs": {"shape": [3, 3]}, "output": 2, "layer": ""},
        {
            "type": "arange",
            "inputs": [],
            "output": 3,
            "layer": "",
            "attrs": {"start": 0, "end": 1, "step": 1, "dtype": "int64"},
        },
        {
            "type": "full",
            "inputs": [],
            "output": 4,
            "layer": "",
            "attrs": {"shape": [1, 2], "value": 1.0, "dtype": "float32"},
        },
        {
            "type": "full",
            "inputs": [],
            "output": 5,
            "layer": "",
            "attrs": {"shape": [2], "value": 1, "dtype": "int64"},
        },
    ]
    prog = program(
        [("x", ("float32", [-1, 3])), ("y", ("float32", [1, 3]))],
        [],
        ops,
        [2, 3, 4, 5],
        symbols=[{"name": "n", "input": 0, "dim": 0}],
        symbolic_attrs=[
            {"op": 0, "attr": "shape", "index": 0, "symbol": 0, "scale": 2, "offset": 1},
            {"op": 1, "attr": "end", "index": -1, "symbol": 0, "scale": 1, "offset": 0},
            {"op": 2, "attr": "shape", "index": 1, "symbol": 0, "scale": 1, "offset": 0},
            {"op": 3, "attr": "value", "index": -1, "symbol": 0, "scale": 1, "offset": -1},
        ],
    )
    model = program_to_onnx(prog, {})
    for n in (1, 4):
        x = np.ones([n, 3], np.float32)
        e, a, f, v = run_onnx(model, {"x": x, "y": f32(1, 3)})
        assert e.shape == (2 * n + 1, 3)
        np.testing.assert_array_equal(a, np.arange(n))
        assert f.shape == (1, n)
        np.testing.assert_array_equal(v, [n - 1, n - 1])


def test_set_value_on_a_dynamic_batch():
    # x[:, 1:3] = v with the batch unknown at export
    attrs = {"axes": [1], "starts": [1], "ends": [3], "strides": [1]}
    ops = [
        {
            "type": "set_value_with_tensor_",
            "inputs": [[0], [1]],
            "attrs": attrs,
            "output": 2,
            "layer": "",
        }
    ]
    prog = program(
        [("x", ("float32", [-1, 4])), ("v", ("float32", [2]))],
        [],
        ops,
        [2],
        symbols=[{"name": "n", "input": 0, "dim": 0}],
    )
    sess = ort.InferenceSession(program_to_onnx(prog, {}).SerializeToString())
    for n in (1, 3):
        x, v = f32(n, 4), f32(2)
        (got,) = sess.run(None, {"x": x, "v": v})
        want = run_oar("set_value_with_tensor", [x, v], attrs)
        np.testing.assert_array_equal(got, want)


def test_a_symbolic_attr_an_op_cannot_take_is_an_error():
    ops = [
        {
            "type": "conv",
            "inputs": [[0], [1]],
            "output": 2,
            "layer": "Net.conv",
            "attrs": {"strides": [1, 1], "paddings": [0, 0, 0, 0]},
        }
    ]
    prog = program(
        [("x", ("float32", [-1, 1, 4, 4]))],
        [("w", f32(1, 1, 1, 1))],
        ops,
        [2],
        symbols=[{"name": "b", "input": 0, "dim": 0}],
        symbolic_attrs=[
            {"op": 0, "attr": "strides", "index": 0, "symbol": 0, "scale": 1, "offset": 0}
        ],
    )
    with pytest.raises(UnsupportedOpError, match=r"'conv' \(in layer 'Net.conv'\).*'strides'"):
        program_to_onnx(prog, {"w": f32(1, 1, 1, 1)})


def test_unsupported_op_names_the_op_and_the_layer():
    prog, tensors, _ = one_op("fft_c2c", [X], {})
    with pytest.raises(UnsupportedOpError) as e:
        program_to_onnx(prog, tensors)
    assert isinstance(e.value, NotImplementedError)
    assert "'fft_c2c'" in str(e.value) and "'Net.block'" in str(e.value)
    assert e.value.op_type == "fft_c2c" and e.value.layer == "Net.block"
    prog["ops"][0]["layer"] = ""
    with pytest.raises(UnsupportedOpError, match="outside any layer"):
        program_to_onnx(prog, tensors)


def test_unsupported_forms_name_the_reason():
    prog, tensors, _ = one_op(
        "avg_pool",
        [IMG],
        {
            "kernel_size": [2, 2],
            "strides": [2, 2],
            "paddings": [0, 0, 0, 0],
            "ceil_mode": True,
            "exclusive": True,
            "divisor": 3,
            "adaptive": False,
        },
    )
    with pytest.raises(UnsupportedOpError, match="divisor with ceil_mode"):
        program_to_onnx(prog, tensors)


@pytest.mark.parametrize("bad", [13, 19, 9])
def test_opset_outside_the_range_is_a_value_error(bad):
    prog, tensors, _ = one_op("relu", [X], {})
    with pytest.raises(ValueError, match=r"'opset_version' must be in 14\.\.18"):
        program_to_onnx(prog, tensors, bad)
    with pytest.raises(ValueError, match="opset_version"):
        oar.onnx.export(None, "model", opset_version=bad)
    with pytest.raises(TypeError, match="opset_version"):
        program_to_onnx(prog, tensors, "17")


def test_program_errors():
    prog, tensors, _ = one_op("linear", [f32(3, 4), f32(4, 5), None], {}, (1,))
    with pytest.raises(ValueError, match="no value for param 'p1'"):
        program_to_onnx(prog, {})
    with pytest.raises(ValueError, match=r"declared with shape \[4, 5\]"):
        program_to_onnx(prog, {"p1": f32(5, 4)})
    with pytest.raises(ValueError, match="not an oar program"):
        program_to_onnx(dict(prog, format="x"), tensors)
    with pytest.raises(ValueError, match="version 2"):
        program_to_onnx(dict(prog, version=2), tensors)


def test_an_absent_tensor_argument():
    # linear without a bias (oar's Python calls matmul then, but the op declares the bias)
    x, w = f32(3, 4), f32(4, 5)
    prog, tensors, feeds = one_op("linear", [x, w, None], {}, (1,))
    assert prog["ops"][0]["inputs"][2] == []
    (got,) = run_onnx(program_to_onnx(prog, tensors), feeds)
    np.testing.assert_allclose(got, x @ w, rtol=1e-5, atol=1e-5)


def test_program_from_a_json_file_and_oar_tensors(tmp_path):
    import json

    prog, tensors, feeds = one_op("linear", [f32(3, 4), f32(4, 5), f32(5)], {}, (1, 2))
    path = tmp_path / "prog.json"
    path.write_text(json.dumps(prog))
    model = program_to_onnx(str(path), {k: oar.to_tensor(v) for k, v in tensors.items()})
    (got,) = run_onnx(model, feeds)
    want = run_oar("linear", [feeds["x0"], tensors["p1"], tensors["p2"]], {})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_node_names_carry_the_layer_and_outputs_are_named():
    prog, tensors, _ = one_op("relu", [X], {})
    model = program_to_onnx(prog, tensors)
    assert model.graph.node[0].name.startswith("Net.block/Relu")
    assert [o.name for o in model.graph.output] == ["output_0"]
    assert model.producer_name == "oar"
    assert model.opset_import[0].version == 17


def test_bfloat16_and_float16_values():
    # a bfloat16 constant given as its bits (what oar's Tensor.numpy() returns), cast
    bf = oar.to_tensor([1.5, -2.25, 3.0]).astype("bfloat16")
    prog = program([], [], [], [])
    prog["consts"] = [{"name": "c", "dtype": "bfloat16", "shape": [3]}]
    prog["ops"] = [
        {"type": "cast", "inputs": [[0]], "attrs": {"dtype": "float32"}, "output": 1, "layer": ""}
    ]
    prog["outputs"] = [1]
    (got,) = run_onnx(program_to_onnx(prog, {"c": bf}), {})
    np.testing.assert_array_equal(got, [1.5, -2.25, 3.0])
    # float16 inputs
    a, b = f32(3, 4).astype(np.float16), f32(4).astype(np.float16)
    check("add", [a, b], {})
    check("relu", [a], {})


def test_an_input_returned_as_is_gets_an_identity():
    prog = program([("x", X)], [], [], [0, 0])
    out = run_onnx(program_to_onnx(prog, {}), {"x": X})
    assert len(out) == 2 and all(np.array_equal(o, X) for o in out)


def _rnn_args(mode, steps=4, batch=3, size=2, hidden=5, lengths=None):
    g = {0: 1, 1: 1, 2: 4, 3: 3}[mode]
    ins = [f32(steps, batch, size, lo=-1, hi=1), f32(batch, hidden, lo=-1, hi=1)]
    if mode == 2:
        ins.append(f32(batch, hidden, lo=-1, hi=1))
    ins += [f32(g * hidden, n, lo=-0.5, hi=0.5) for n in (size, hidden)]
    ins += [f32(g * hidden, lo=-0.5, hi=0.5) for _ in range(2)]
    if lengths is not None:
        ins.append(np.array(lengths, np.int64))
    return [ins]


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("reverse,lengths", [(False, None), (True, None), (True, [4, 1, 2])])
def test_rnn_as_onnx_recurrent_ops(mode, reverse, lengths, opset):
    """The fused layer as LSTM/GRU/RNN: ONNX's op gives the outputs and final states, the
    rows of oar's packed output the layer reads (the saved gate rows are left out)."""
    args = _rnn_args(mode, lengths=lengths)
    attrs = {"mode": mode, "reverse": reverse, "zero_padded": True}
    prog, tensors, feeds = one_op("rnn", args, attrs, params=())
    (got,) = run_onnx(program_to_onnx(prog, tensors, opset), feeds)
    want = run_oar("rnn", args, attrs)
    rows = 4 + (2 if mode == 2 else 1)
    np.testing.assert_allclose(got, want[:rows], rtol=1e-5, atol=1e-5)


def test_rnn_with_the_cells_outputs_past_the_end_is_unsupported():
    args = _rnn_args(3, lengths=[4, 1, 2])
    prog, tensors, _ = one_op("rnn", args, {"mode": 3, "zero_padded": False})
    with pytest.raises(UnsupportedOpError, match="sequence_length"):
        program_to_onnx(prog, tensors, 17)


def test_the_docs_list_the_table():
    from oar.onnx._ops import op_table

    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "onnx.md")
    doc = open(path, encoding="utf-8").read()
    start = doc.index("\n", doc.index("<!-- op table")) + 1
    block = doc[start : doc.index("<!-- end of op table -->")]
    assert block == op_table(), "docs/onnx.md's op table is stale: paste oar.onnx._ops.op_table()"


# ---- export() ------------------------------------------------------------------------------


def test_export_checks_the_path_first():
    with pytest.raises(ValueError, match="file_prefix is empty"):
        oar.onnx.export(None, "some/dir/")


def _lively(model):
    """Random biases and batch-norm statistics: with its initial ones (zero biases, mean 0,
    variance 1) mobilenet_v2's outputs are ~1e-8, too small to compare."""
    for name, p in model.named_parameters():
        if name.endswith(("bias", "_mean")):
            p.set_value(RNG.normal(0.0, 0.1, p.shape).astype(np.float32))
        elif name.endswith("_variance"):
            p.set_value(RNG.uniform(0.5, 1.5, p.shape).astype(np.float32))
    return model


@pytest.mark.parametrize("name", list(MODELS))
def test_export_models_run_in_onnxruntime(name, tmp_path):
    make, spec, inputs = MODELS[name]
    oar.seed(0)
    model = _lively(make()).eval()
    path = str(tmp_path / name)
    oar.onnx.export(model, path, input_spec=spec)
    assert os.path.exists(path + ".onnx")
    onnx.checker.check_model(path + ".onnx", full_check=True)
    m = onnx.load(path + ".onnx")
    (inp,) = m.graph.input
    assert inp.name == spec[0].name
    batch_dim = inp.type.tensor_type.shape.dim[0]
    assert batch_dim.dim_param and not batch_dim.HasField("dim_value")
    assert m.graph.output[0].type.tensor_type.shape.dim[0].dim_param == batch_dim.dim_param
    sess = ort.InferenceSession(path + ".onnx", providers=["CPUExecutionProvider"])
    for batch in (1, 3):
        (x,) = inputs(batch)
        with oar.no_grad():
            want = model(x).numpy()
        (got,) = sess.run(None, {inp.name: x.numpy()})
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
