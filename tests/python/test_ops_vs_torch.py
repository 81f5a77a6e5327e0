"""Every op declared in src/oar/ops.yaml, checked against PyTorch.

The op list is read from src/oar/ops.yaml at test time (with the repo's own
parser, tools/codegen/gen_ops.py), so declaring an op without giving it cases
here or in tests/op_cases.yaml makes test_every_declared_op_is_covered fail.

The cases (REGISTRY: op -> torch expression + cases) are those of
tests/op_cases.yaml (the C++ suite's registry, with the PyTorch expression of each
op and the helpers of tools/make_golden.py), variants derived from them
automatically (inputs as views; empty inputs for unary ops), the EXTRA_CASES below
(more shapes, broadcasting, empty tensors, 0-d tensors, non-contiguous views) and
INT_CASES (integer and bool inputs). For each op / case / dtype:

  test_forward        values (float32 and float64), dtype and shape of the output;
                      the inputs are left unchanged
  test_grad           first-order gradients with a random upstream gradient g:
                      oar.grad(out, inputs, grad_outputs=g) vs torch.autograd.grad
  test_double_grad    d/d(inputs) of sum(first_grad * v), create_graph=True in both
  *_parallel          the same with FLAGS_parallel_threshold=1 (OpenMP paths)
  test_method         x.<op>(...) Tensor methods, attributes passed by keyword
  test_inplace*       oar.<op>_ / x.<op>_(): under no_grad (also into views) and
                      on a non-leaf with autograd
  test_uniform/normal statistical tests of the random ops (the only exclusion
                      from the PyTorch comparison: their values cannot match)

The *_grad ops (tanh_grad, softmax_grad, ...) are ops like the others here: their
forward values and their own first and second derivatives are compared with the
torch expression of op_cases.yaml; they are also exercised by the double backward
of their forward op.

An input spec is a shape, or a dict with
  shape, dtype (bool/int32/int64; default: the float dtype of the test),
  low/high   uniform range (default -1..1),
  away       |x| uniform in [away, 1] with a random sign (abs/relu/sign, divisors),
  grid       values k/8 + grid, k integer in [-8, 8] (maximum/minimum: two inputs
             with grid offsets 0 and 1/16 never tie; comparisons: ties on purpose),
  distinct   all values distinct (max/min reductions: no ties),
  frac       integer + [0.1, 0.9] (floor: away from the jumps),
  sparse     about half the values exactly zero (nonzero),
  values     explicit values,
  view       "T" (last two dims transposed), "step" (x[::2] along axis 0),
             "flip" (axis 0 reversed with a negative stride) or "bcast" (axis 0
             expanded from size 1, stride 0): the oar input is that view of a
             contiguous base tensor, and the same view is made in torch. The
             gradients are taken w.r.t. the base, so they also go through the
             backward of the view op.
"""
import importlib.util
import math
import os
import re
import zlib

import numpy as np
import pytest
import torch
import yaml

import oar

torch.set_num_threads(1)  # tiny tensors; and no contention with oar's OpenMP threads on 2 cores

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPS_YAML = os.path.join(ROOT, "src", "oar", "ops.yaml")
CASES_YAML = os.path.join(ROOT, "tests", "op_cases.yaml")


def _load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# tools/make_golden.py: the torch helpers of the op_cases.yaml expressions
# (sum_to, flip_slice, slice_grad, assign_slice, ...), cpp_default_to_py and, via
# tools/codegen/gen_ops.py, load_ops (the parser of ops.yaml used by the codegen).
golden = _load_module("oar_make_golden_for_tests", os.path.join(ROOT, "tools", "make_golden.py"))
OPS = {op.name: op for op in golden.load_ops(OPS_YAML)}

FLOAT_DTYPES = ("float32", "float64")
NP_DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "int32": np.int32,
             "int64": np.int64, "bool": np.bool_}

# Tolerances. float64: the two frameworks differ only by summation order and
# libm rounding, a few ulps. float32: eps is 1.2e-7; rtol 1e-5 leaves ~100 ulps
# for accumulation-order differences (reductions, matmul, softmax).
TOL = {
    "float64": dict(rtol=1e-10, atol=1e-12),
    "float32": dict(rtol=1e-5, atol=1e-6),
}
# Gradients (first and second order) are held to the same bounds: the inputs are
# O(1) and the cases small, so no accumulation grows past them.
GRAD_TOL = TOL
# Per-(op, dtype) overrides of TOL/GRAD_TOL, each with its reason. None is needed at
# present: every op meets the defaults above.
OP_TOL = {}

RANDOM_OPS = {"uniform", "normal"}  # statistical tests below, not compared with torch


# ---- the case registry ---------------------------------------------------------------
def _v(shape, view, **kw):
    return dict(shape=shape, view=view, **kw)


def T(shape, **kw):  # transposed view (last two dims)
    return _v(shape, "T", **kw)


def S(shape, **kw):  # x[::2] along axis 0
    return _v(shape, "step", **kw)


def Fl(shape, **kw):  # axis 0 reversed: a negative stride
    return _v(shape, "flip", **kw)


def B(shape, **kw):  # axis 0 broadcast from size 1: a zero stride
    return _v(shape, "bcast", **kw)


def P(shape, **kw):  # positive domain (log, sqrt, pow bases)
    kw.setdefault("low", 0.5)
    kw.setdefault("high", 2.0)
    return dict(shape=shape, **kw)


def A(shape, away=0.1, **kw):  # away from zero
    return dict(shape=shape, away=away, **kw)


def D(shape, **kw):  # distinct values
    return dict(shape=shape, distinct=True, **kw)


def I(values, dtype="int64"):  # noqa: E743 - an integer index input
    return dict(shape=[len(values)], dtype=dtype, values=values)


def C(*inputs, **attrs):
    return {"inputs": list(inputs), "attrs": attrs}


def _unary_extras(mk):
    """Empty, 0-d, transposed, strided, flipped, broadcast and 3-D inputs of a unary op."""
    return [C(mk([0, 3])), C(mk([])), C(mk([3, 4], view="T")), C(mk([4, 3], view="step")),
            C(mk([3, 2], view="flip")), C(mk([2, 3], view="bcast")),
            C(mk([2, 3, 4], view="T"))]


def _binary_extras(mx, my):
    return [C(mx([0, 3]), my([3])), C(mx([2, 0]), my([2, 1])), C(mx([]), my([0])),
            C(mx([3, 4], view="T"), my([3, 4], view="step")),
            C(mx([2, 3], view="bcast"), my([2, 3], view="flip")),
            C(mx([3, 4], view="T"), my([4])), C(mx([2, 1, 3]), my([4, 1], view="T")),
            C(mx([]), my([2, 3], view="T"))]


def _spec(**base):
    def mk(shape, **kw):
        d = dict(base)
        d.update(kw)
        d["shape"] = shape
        return d
    return mk


ANY = _spec()
POS = _spec(low=0.5, high=2.0)
AWAY = _spec(away=0.1)
AWAY_HALF = _spec(away=0.5)
GRID0 = _spec(grid=0.0)
GRID1 = _spec(grid=1.0 / 16)
BOOL = _spec(dtype="bool")
I32 = _spec(dtype="int32")
I64 = _spec(dtype="int64")

# Integer and bool inputs, for the ops whose kernels take them and whose torch
# expression keeps the integer semantics (not divide: x / y is true division in
# torch, truncating in oar's integer kernel; not scale/pow: torch promotes to float
# with a float attribute, Paddle keeps the tensor dtype).
INT_CASES = {
    "add": [C(I32([2, 3]), I32([3])), C(I64([3, 4], view="T"), I64([4]))],
    "subtract": [C(I64([2, 3]), I64([2, 1])), C(I32([0, 3]), I32([3]))],
    "multiply": [C(I32([2, 3], view="T"), I32([2, 3])), C(BOOL([2, 3]), BOOL([3]))],
    "maximum": [C(I64([2, 3]), I64([3]))],
    "minimum": [C(I32([2, 3]), I32([2, 3], view="step"))],
    "equal": [C(I32([2, 3]), I32([3])), C(BOOL([2, 3]), BOOL([2, 3]))],
    "not_equal": [C(I64([2, 3]), I64([2, 3]))],
    "less_than": [C(I32([2, 3]), I32([3]))],
    "less_equal": [C(I64([2, 3]), I64([2, 1]))],
    "greater_than": [C(I64([2, 3], view="T"), I64([3]))],
    "greater_equal": [C(I32([2, 3]), I32([2, 3]))],
    "where": [C(BOOL([2, 3]), I64([2, 3]), I64([3])), C(BOOL([3]), BOOL([2, 3]), BOOL([3]))],
    "neg": [C(I32([2, 3])), C(I64([3, 4], view="T"))],
    "abs": [C(I32([2, 3])), C(I64([0, 3]))],
    "sign": [C(I64([2, 3])), C(I32([4, 3], view="step"))],
    "relu": [C(I32([2, 3])), C(I64([2, 3], view="flip"))],
    "floor": [C(I64([2, 3]))],
    "assign": [C(I32([2, 3], view="T")), C(BOOL([2, 3]))],
    "sum": [C(I32([3, 4], view="T"), axis=[0], keepdim=True), C(BOOL([0, 3]))],
    "sum_to": [C(I64([2, 3]), shape=[1, 3])],
    "reshape": [C(I64([2, 6], view="step"), shape=[3, 4]), C(BOOL([2, 3]), shape=[3, 2])],
    "transpose": [C(I32([2, 3, 4]), perm=[2, 0, 1]), C(BOOL([2, 3]), perm=[1, 0])],
    "unsqueeze": [C(I64([2, 3]), axis=[1])],
    "squeeze": [C(BOOL([1, 3]))],
    "expand": [C(I32([3, 1]), shape=[2, 3, 4]), C(BOOL([1, 3]), shape=[2, 3])],
    "concat": [C(I32([2, 3]), I32([1, 3])), C(BOOL([2, 1]), BOOL([2, 2]), axis=1)],
    "slice": [C(I64([4, 5]), axes=[0, 1], starts=[1, -3], ends=[3, 100])],
    "strided_slice": [C(I32([6, 5]), axes=[0, 1], starts=[0, 4], ends=[6, -100],
                        strides=[2, -2]), C(BOOL([6]), axes=[0], starts=[5], ends=[1],
                                            strides=[-1])],
    "set_value": [C(I64([4, 5]), axes=[0, 1], starts=[1, 0], ends=[3, 5], strides=[1, 2],
                    value=3)],
    "set_value_with_tensor": [C(I32([4, 5]), I32([3]), axes=[0, 1], starts=[1, 0],
                                ends=[3, 5], strides=[1, 2])],
    "index_select": [C(I64([4, 3]), I([3, 0, -1]), axis=0), C(BOOL([2, 4]), I([1, 3]), axis=1)],
    "max": [C(I32([3, 4], view="T"), axis=[1])],
    "min": [C(I64([2, 3, 4]))],
}

EXTRA_CASES = {
    # elementwise binary ------------------------------------------------------------
    "add": _binary_extras(ANY, ANY),
    "subtract": _binary_extras(ANY, ANY),
    "multiply": _binary_extras(ANY, ANY),
    "divide": _binary_extras(ANY, AWAY_HALF),          # divisor |y| >= 0.5
    "elementwise_pow": _binary_extras(POS, ANY),       # base > 0 (log(x) in the y-gradient)
    "maximum": _binary_extras(GRID0, GRID1),           # |x - y| >= 1/16: no ties
    "minimum": _binary_extras(GRID0, GRID1),
    "equal": _binary_extras(GRID0, GRID0),             # ties on purpose
    "not_equal": _binary_extras(GRID0, GRID0),
    "less_than": _binary_extras(GRID0, GRID0),
    "less_equal": _binary_extras(GRID0, GRID0),
    "greater_than": _binary_extras(GRID0, GRID0),
    "greater_equal": _binary_extras(GRID0, GRID0),
    "where": [
        C(BOOL([0, 3]), [0, 3], [3]),
        C(BOOL([3, 4], view="T"), T([3, 4]), S([3, 4])),
        C(BOOL([3, 1]), [1, 4], [3, 4]),
        C(BOOL([]), Fl([2, 3]), B([2, 3])),
        C(BOOL([2, 3, 4]), [3, 4], T([2, 3, 4])),
    ],
    # elementwise unary -------------------------------------------------------------
    "scale": [C([0, 3], scale=2.0, bias=0.5), C(T([3, 4]), scale=-0.5, bias=2.0,
                                                 bias_after_scale=False),
              C([], scale=3.0, bias=1.0), C(S([4, 2]), scale=0.0, bias=-1.0),
              C(B([2, 3]))],
    "neg": _unary_extras(ANY),
    "exp": _unary_extras(ANY),
    "log": _unary_extras(POS),
    "sqrt": _unary_extras(POS),
    "abs": _unary_extras(AWAY),
    "sign": _unary_extras(AWAY),
    "tanh": _unary_extras(_spec(low=-2.0, high=2.0)),
    "sigmoid": _unary_extras(_spec(low=-3.0, high=3.0)),
    "relu": _unary_extras(AWAY),
    "floor": _unary_extras(_spec(frac=True)),
    "assign": _unary_extras(ANY),
    "tanh_grad": [C(T([3, 4]), S([3, 4])), C([0, 2], [0, 2]), C([], []),
                  C(Fl([2, 3]), B([2, 3]))],
    "sigmoid_grad": [C(T([3, 4], low=0.1, high=0.9), S([3, 4])), C([0, 2], [0, 2]),
                     C(P([], high=0.9, low=0.1), [])],
    "relu_grad": [C(A([3, 4], view="T"), S([3, 4])), C([0, 2], [0, 2]),
                  C(A([2, 3], view="flip"), B([2, 3]))],
    "pow": [C(P([2, 3]), y=-1.5), C(P([2, 3]), y=0.5), C([2, 3], y=2.0), C([0, 3], y=2.0),
            C(P([3, 4], view="T"), y=1.5), C(S([4, 2]), y=3.0), C([], y=2.0),
            C(A([2, 3]), y=0.0)],
    "cast": [
        C([2, 3], dtype="int64"),
        C(dict(shape=[5], values=[0.0, 1.5, -2.0, 0.0, 3.0]), dtype="bool"),
        C(BOOL([2, 3]), dtype="float32"),
        C(dict(shape=[2, 3], dtype="int32"), dtype="float64"),
        C(dict(shape=[2, 3], dtype="int64"), dtype="int32"),
        C([0, 3], dtype="float64"),
        C(T([3, 4]), dtype="float64"),
        C(S([4, 3]), dtype="float32"),
        C(dict(shape=[4], values=[-2.7, -0.5, 0.5, 2.7]), dtype="int64"),
        C([2, 3], dtype="float16"), C(dict(shape=[2, 3], dtype="float16"), dtype="float64"),
    ],
    "fill": [C([0, 3], value=1.0), C(T([3, 4]), value=-3), C(dict(shape=[2, 3], dtype="int64"),
                                                             value=7),
             C([], value=0.25), C(B([2, 3]), value=2.0)],
    # linear algebra ----------------------------------------------------------------
    "matmul": [
        C([0, 3], [3, 4]), C([2, 0], [0, 4]), C([2, 3], [3, 0]),
        C([2, 2, 3], [2, 3, 4]), C([1, 2, 3], [4, 3, 2]),
        C([2, 3, 2], [2, 4, 3], transpose_x=True, transpose_y=True),
        C(T([3, 4]), S([4, 2])), C(Fl([2, 3]), T([2, 3]), transpose_y=True),
        C([3], [2, 3, 4]), C([2, 4, 3], [3]), C(B([2, 2, 3]), [3, 2]),
        C([0, 2, 3], [3, 4]), C([3], [2, 3], transpose_y=True),
        C(S([2, 2, 3]), [2, 3, 4]), C([2, 2, 3], T([2, 4, 3]), transpose_y=True),
    ],
    # reductions --------------------------------------------------------------------
    "sum": [
        C([0, 3], axis=[0]), C([0, 3]), C(T([3, 4]), axis=[-1], keepdim=True),
        C(S([2, 3]), axis=[0, 1]), C(BOOL([2, 3])), C(dict(shape=[2, 3], dtype="int64"), axis=[1]),
        C([]), C(Fl([3, 2]), axis=[0]), C([2, 3], axis=[1], dtype="float32"),
        C(B([2, 3]), axis=[0]), C([2, 0], axis=[1], keepdim=True),
    ],
    "mean": [
        C([2, 0], axis=[1]),  # mean over an empty axis: NaN, as torch and Paddle
        C([0, 3], axis=[1]), C(T([3, 4]), axis=[0]), C(S([4, 2, 3]), axis=[-1], keepdim=True),
        C([]), C(B([2, 3])), C(Fl([3, 4]), axis=[1]),
    ],
    "max": [
        C(D([3, 4], view="T")), C([0, 3], axis=[1]), C(D([2, 3, 4]), axis=[0, 2], keepdim=True),
        C(D([4, 3], view="step"), axis=[-1]), C(D([3, 2], view="flip"), axis=[0]), C(D([])),
        C(dict(shape=[2, 3], dtype="int64", values=[3, -1, 4, 1, -5, 9]), axis=[1]),
    ],
    "min": [
        C(D([3, 4], view="T")), C([0, 3], axis=[1]), C(D([2, 3, 4]), axis=[0, 2], keepdim=True),
        C(D([4, 3], view="step"), axis=[-1]), C(D([3, 2], view="flip"), axis=[0]), C(D([])),
        C(dict(shape=[2, 3], dtype="int32", values=[3, -1, 4, 1, -5, 9]), axis=[0]),
    ],
    "sum_to": [
        C([2, 3, 4], shape=[2, 1, 4]), C([0, 3], shape=[1, 3]), C(T([3, 4]), shape=[4]),
        C([2, 3], shape=[]), C(S([4, 3]), shape=[4, 3]), C(B([2, 3]), shape=[1, 3]),
    ],
    # shape manipulation ----------------------------------------------------------------
    "reshape": [
        C([0, 3], shape=[3, -1]), C(T([3, 4]), shape=[12]), C(S([2, 6]), shape=[3, 4]),
        C([], shape=[1, 1]), C([2, 3], shape=[-1]), C(Fl([4, 2]), shape=[2, 0, 2]),
        C(B([2, 3]), shape=[3, 2]),
    ],
    "transpose": [
        C(T([3, 4]), perm=[1, 0]), C([0, 2, 3], perm=[1, 2, 0]), C([], perm=[]),
        C(S([2, 3, 4]), perm=[0, 2, 1]), C(B([2, 3]), perm=[1, 0]),
    ],
    "unsqueeze": [
        C([0, 3], axis=[1]), C([], axis=[0]), C(T([3, 4]), axis=[2]), C(S([2, 3]), axis=[-1, 0]),
        C([2, 0], axis=[0]),
    ],
    "squeeze": [
        C([1, 0, 1]), C(T([1, 3]), axis=[0]), C([2, 3], axis=[0]), C([1, 1]),
        C(S([2, 1, 3]), axis=[-2]),
    ],
    "expand": [
        C([1, 3], shape=[0, 3]), C(T([3, 1]), shape=[2, 3, 4]), C([], shape=[2, 3]),
        C(S([1, 2]), shape=[3, 2]), C([0, 1], shape=[0, 4]),
    ],
    "concat": [
        C([0, 3], [2, 3]), C(T([3, 2]), S([3, 2]), [3, 2], axis=-1), C([2, 3]),
        C([2, 0], [2, 3], axis=1), C([2, 1, 3], Fl([2, 2, 3]), axis=1), C([0, 3], [0, 3]),
    ],
    "slice": [
        C([4, 5], axes=[1], starts=[2], ends=[2]),
        C(T([4, 5]), axes=[0], starts=[-3], ends=[-1]),
        C(S([3, 4, 2]), axes=[2, 0], starts=[1, 0], ends=[2, 2]),
        C([0, 3], axes=[1], starts=[1], ends=[3]),
        C([5], axes=[0], starts=[-100], ends=[100]),
    ],
    "strided_slice": [
        C([7, 4], axes=[0], starts=[1], ends=[7], strides=[3]),
        C(T([5, 4]), axes=[1], starts=[-1], ends=[-100], strides=[-1]),
        C([6, 5], axes=[0], starts=[2], ends=[2], strides=[1]),
        C([6], axes=[0], starts=[0], ends=[6], strides=[-1]),
        C(Fl([6, 3]), axes=[0], starts=[0], ends=[6], strides=[2]),
        C([0, 4], axes=[1], starts=[3], ends=[0], strides=[-2]),
    ],
    "strided_slice_grad": [
        C([6], [2], axes=[0], starts=[5], ends=[1], strides=[-2]),
        C([6, 5], T([3, 2]), axes=[0, 1], starts=[0, 1], ends=[6, 5], strides=[2, 2]),
        C([6, 5], [0, 5], axes=[0], starts=[2], ends=[2], strides=[1]),
        C([5, 4], S([4, 2]), axes=[1, 0], starts=[-1, 1], ends=[-100, 5], strides=[-2, 1]),
    ],
    # softmax -----------------------------------------------------------------------
    "softmax": [C([0, 3]), C(T([3, 4]), axis=0), C(S([2, 3, 4]), axis=-1), C([3, 1], axis=1),
                C(Fl([4, 3]), axis=-2), C(B([2, 3]))],
    "log_softmax": [C([0, 3]), C(T([3, 4]), axis=0), C(S([2, 3, 4]), axis=-1),
                    C([3, 1], axis=1), C(Fl([4, 3]), axis=-2), C(B([2, 3]))],
    "softmax_grad": [C(dict(shape=[2, 3, 4], low=0.1, high=0.6), [2, 3, 4], axis=1),
                     C(T([3, 4], low=0.1, high=0.6), S([3, 4])), C([0, 3], [0, 3]),
                     C(B([2, 3], low=0.1, high=0.6), Fl([2, 3]), axis=0)],
    "log_softmax_grad": [C(dict(shape=[2, 3, 4], low=-2.0, high=-0.5), [2, 3, 4], axis=1),
                         C(T([3, 4], low=-2.0, high=-0.5), S([3, 4])), C([0, 3], [0, 3]),
                         C(B([2, 3], low=-2.0, high=-0.5), Fl([2, 3]), axis=0)],
    # creation ----------------------------------------------------------------------
    "full": [C(shape=[2, 3], value=1.5, dtype="float64"), C(shape=[0, 3], value=2.0),
             C(shape=[], value=-1, dtype="int32"), C(shape=[2, 2], value=1, dtype="bool"),
             C(shape=[2], value=2 ** 53 + 1, dtype="int64")],  # an int64 exact beyond 2**53
    "full_like": [C([2, 3], value=3, dtype="int32"), C(T([3, 4]), value=0.5),
                  C([0, 3], value=1.0), C(dict(shape=[2, 3], dtype="int64"), value=7),
                  C([2, 3], value=-1.25, dtype="float64")],
    "arange": [C(start=-1.0, end=1.0, step=0.5, dtype="float64"),
               C(start=10, end=0, step=-3, dtype="int32"),
               C(start=0, end=5, step=1, dtype="float32"), C(start=3, end=3),
               C(start=0.5, end=-1.0, step=-0.25, dtype="float64"),
               C(start=0.0, end=1.0, step=0.1, dtype="float32"),
               C(start=-0.3, end=0.7, step=0.1, dtype="float64")],
    # assignment into slices --------------------------------------------------------
    "set_value": [
        C([6, 4], axes=[0], starts=[5], ends=[0], strides=[-2], value=-1.0),
        C([4, 5], axes=[0], starts=[2], ends=[2], strides=[1], value=9.0),
        C(T([4, 5]), axes=[1], starts=[1], ends=[4], strides=[1], value=2.0),
        C([0, 3], axes=[1], starts=[0], ends=[2], strides=[1], value=1.0),
        C(S([2, 3, 4]), axes=[0, 2], starts=[1, 0], ends=[2, 4], strides=[1, 3], value=0.5),
    ],
    "set_value_with_tensor": [
        C([4, 5], [3], axes=[0, 1], starts=[1, 0], ends=[3, 5], strides=[1, 2]),
        C([4, 5], [], axes=[0, 1], starts=[1, 0], ends=[3, 5], strides=[1, 2]),
        C(T([5, 4]), S([2, 2]), axes=[0, 1], starts=[0, 1], ends=[4, 3], strides=[2, 1]),
        C([0, 3], [1], axes=[1], starts=[0], ends=[2], strides=[1]),
        C(Fl([6, 3]), B([2, 3]), axes=[0], starts=[4], ends=[0], strides=[-3]),
    ],
    # gathering ---------------------------------------------------------------------
    "index_select": [
        C([3, 4, 2], I([3, -4, 0], "int32"), axis=1),
        C([4, 3], I([]), axis=0),
        C(T([3, 4]), I([2, 0, 2]), axis=0),
        C([0, 3], I([1, 2]), axis=1),
        C(S([4, 3]), I([1, -1]), axis=-1),
    ],
    "index_select_grad": [
        C([2, 4], I([3, 3, 0], "int32"), [2, 3], axis=1),
        C([4, 3], I([]), [0, 3]),
        C([4, 3], I([1, 1, 3]), T([3, 3])),
        C([2, 3, 2], I([-1, 0]), S([2, 2, 2]), axis=1),
    ],
    "nonzero": [
        C(dict(shape=[3, 4], sparse=True)), C(BOOL([2, 3])),
        C(dict(shape=[6], dtype="int64", values=[0, 3, 0, -1, 2, 0])), C([0, 3]),
        C(dict(shape=[3, 4], sparse=True, view="T")),
        C(dict(shape=[2, 3], values=[0, 0, 0, 0, 0, 0])),
        C(dict(shape=[2, 2, 3], sparse=True, view="step")),
    ],
}


# Torch expressions replacing those of op_cases.yaml, and why.
TORCH_OVERRIDES = {
    # x.permute(*perm) cannot express the 0-d case perm=[] (permute() then lacks dims)
    "transpose": "x.permute(perm)",
}


def _norm(spec):
    return {"shape": list(spec)} if isinstance(spec, list) else dict(spec)


def _auto_variants(op, base_cases):
    """Cases derived from the op_cases.yaml ones, so that an op declared with only
    those still gets non-contiguous (and, for unary ops, empty) inputs:
      - every case again with its inputs as views of the same logical shape
        (transposed when >= 2-D, x[::2] when 1-D);
      - for one-input ops with UnchangedInferMeta, the first case with a leading
        dimension of 0."""
    out = []
    for c in base_cases:
        specs = [_norm(s) for s in c.get("inputs", [])]
        changed, views = False, []
        for s in specs:
            s = dict(s)
            if not s.get("view"):
                if len(s["shape"]) >= 2:
                    s["view"], changed = "T", True
                elif len(s["shape"]) == 1 and s["shape"][0] > 0:
                    s["view"], changed = "step", True
            views.append(s)
        if changed:
            out.append({"inputs": views, "attrs": dict(c.get("attrs") or {})})
    ins = op.inputs
    if (len(ins) == 1 and ins[0].is_tensor and op.infer_meta == "UnchangedInferMeta"
            and base_cases and base_cases[0].get("inputs")):
        s = _norm(base_cases[0]["inputs"][0])
        if s["shape"] and "values" not in s:
            s["shape"] = [0] + list(s["shape"][1:])
            out.append({"inputs": [s], "attrs": dict(base_cases[0].get("attrs") or {})})
    return out


def _build_registry():
    with open(CASES_YAML) as f:
        base = yaml.safe_load(f)
    reg = {}
    for name, entry in base.items():
        if entry.get("random"):
            continue
        base_cases = [dict(c) for c in entry.get("cases", [])]
        auto = _auto_variants(OPS[name], base_cases) if name in OPS else []
        reg[name] = {"torch": TORCH_OVERRIDES.get(name, entry["torch"]),
                     "cases": (base_cases + auto +
                               EXTRA_CASES.get(name, []) + INT_CASES.get(name, []))}
    for name in list(EXTRA_CASES) + list(INT_CASES):
        if name not in reg:
            raise AssertionError(f"EXTRA_CASES has cases for '{name}', which has no torch "
                                 f"expression in tests/op_cases.yaml")
    return reg


REGISTRY = _build_registry()
TORCH_CODE = {name: compile(e["torch"], f"<torch expression of {name}>", "eval")
              for name, e in REGISTRY.items()}


# ---- inputs ------------------------------------------------------------------------------
def _values(spec, shape, rng):
    """float64 values for one input (before casting to its dtype)."""
    n = int(np.prod(shape)) if shape else 1
    if "values" in spec:
        return np.array(spec["values"], dtype=np.float64).reshape(shape)
    dt = spec.get("dtype")
    if dt == "bool":
        return rng.integers(0, 2, size=shape).astype(np.float64)
    if dt in ("int32", "int64"):
        return rng.integers(-5, 6, size=shape).astype(np.float64)
    low, high = spec.get("low", -1.0), spec.get("high", 1.0)
    if "away" in spec:
        mag = rng.uniform(spec["away"], max(abs(low), abs(high)), size=shape)
        return mag * rng.choice([-1.0, 1.0], size=shape)
    if "grid" in spec:
        return rng.integers(-8, 9, size=shape) / 8.0 + spec["grid"]
    if spec.get("distinct"):
        return ((rng.permutation(n) + 0.5) / max(n, 1) * 2.0 - 1.0).reshape(shape)
    if spec.get("frac"):
        return rng.integers(-3, 3, size=shape) + rng.uniform(0.1, 0.9, size=shape)
    if spec.get("sparse"):
        v = rng.uniform(low, high, size=shape)
        return np.where(rng.random(size=shape) < 0.5, 0.0, v)
    return rng.uniform(low, high, size=shape)


class Input:
    """One tensor input: a contiguous base array and the view the op receives."""

    def __init__(self, spec, float_dtype, rng):
        spec = _norm(spec)
        self.spec = spec
        self.shape = list(spec["shape"])
        self.dtype = spec.get("dtype", float_dtype)
        self.is_float = self.dtype in FLOAT_DTYPES
        self.view = spec.get("view")
        shape = self.shape
        if self.view is None:
            base = _values(spec, shape, rng)
        elif self.view == "T":
            assert len(shape) >= 2, spec
            base = np.ascontiguousarray(np.swapaxes(_values(spec, shape, rng), -1, -2))
        elif self.view == "step":
            assert len(shape) >= 1, spec
            vals = _values(spec, shape, rng)
            base = np.zeros([2 * shape[0]] + shape[1:])
            base[::2] = vals
            base[1::2] = _values(spec, shape, rng)
        elif self.view == "flip":
            assert len(shape) >= 1 and shape[0] > 0, spec
            base = np.ascontiguousarray(_values(spec, shape, rng)[::-1])
        elif self.view == "bcast":
            assert len(shape) >= 1, spec
            base = _values(spec, [1] + shape[1:], rng)
        else:
            raise ValueError(f"unknown view {self.view!r}")
        self.base = base.astype(NP_DTYPES[self.dtype])

    # -- oar
    def oar_base(self, requires_grad=False):
        t = oar.to_tensor(self.base.copy())
        assert t.dtype == self.dtype
        t.stop_gradient = not requires_grad
        return t

    def oar_view(self, t):
        nd = len(self.shape)
        if self.view is None:
            return t
        if self.view == "T":
            perm = list(range(nd - 2)) + [nd - 1, nd - 2]
            return oar._C.transpose(t, perm)
        if self.view == "step":
            return oar._C.strided_slice(t, [0], [0], [t.shape[0]], [2])
        if self.view == "flip":
            n = t.shape[0]
            return oar._C.strided_slice(t, [0], [n - 1], [-n - 1], [-1])
        if self.view == "bcast":
            return oar._C.expand(t, self.shape)
        raise AssertionError(self.view)

    # -- torch
    def torch_base(self, requires_grad=False):
        t = torch.tensor(self.base.copy())
        if requires_grad:
            t.requires_grad_(True)
        return t

    def torch_view(self, t):
        nd = len(self.shape)
        if self.view is None:
            return t
        if self.view == "T":
            return t.transpose(nd - 2, nd - 1)
        if self.view == "step":
            return t[::2]
        if self.view == "flip":
            return t.flip(0)
        if self.view == "bcast":
            return t.expand(*self.shape)
        raise AssertionError(self.view)

    def torch_write_view(self, base, values):
        """base with its view (as the op sees it) overwritten by values."""
        if self.view == "flip":  # t.flip(0) is a copy in torch, not a view
            base.copy_(values.flip(0))
        else:
            self.torch_view(base).copy_(values)

    def describe(self):
        s = "x".join(map(str, self.shape)) or "0d"
        if self.dtype not in FLOAT_DTYPES:
            s += f":{self.dtype}"
        if self.view:
            s += f"({self.view})"
        return s


class Param:
    def __init__(self, op, index, case, dtype):
        self.op, self.index, self.case, self.dtype = op, index, case, dtype

    def inputs(self):
        # Same values for float32 and float64: the seed does not depend on the dtype.
        rng = np.random.default_rng(zlib.crc32(f"{self.op}/{self.index}".encode()))
        return [Input(s, self.dtype, rng) for s in self.case.get("inputs", [])]

    def rng(self, salt):
        return np.random.default_rng(zlib.crc32(f"{self.op}/{self.index}/{salt}".encode()))

    def __str__(self):
        shapes = ",".join(Input(s, "float64", np.random.default_rng(0)).describe()
                          for s in self.case.get("inputs", []))
        attrs = self.case.get("attrs") or {}
        a = ",".join(f"{k}={v}" for k, v in attrs.items()).replace(" ", "")
        return f"{self.op}-c{self.index}-[{shapes}]" + (f"-{{{a}}}" if a else "") + f"-{self.dtype}"


def _attrs(op, case):
    a = {x.name: golden.cpp_default_to_py(x.default) for x in op.attrs}
    a.update(case.get("attrs") or {})
    return a


def _arg_names(op, n_inputs):
    """The ops.yaml argument name of each tensor input."""
    ins = op.inputs
    if len(ins) == 1 and ins[0].is_tensor_list:
        return [ins[0].name] * n_inputs
    assert len(ins) == n_inputs, f"{op.name}: {n_inputs} inputs given, {len(ins)} declared"
    return [a.name for a in ins]


def call_oar(op, tensors, attrs, fn=None):
    """oar._C.<op> with the tensors and attributes, positionally in declared order."""
    args, it = [], iter(tensors)
    for a in op.args:
        if a.is_tensor_list:
            args.append(list(tensors))
        elif a.is_tensor:
            args.append(next(it))
        else:
            v = attrs[a.name]
            if a.type == "DataType" and v is not None:
                v = oar.convert_dtype(v)
            args.append(v)
    return (fn or getattr(oar._C, op.name))(*args)


def call_torch(op, tensors, attrs):
    # torch is the oracle: it gets contiguous copies (differentiably), because the
    # helpers of make_golden.py write through .view(-1) of zeros_like/clone, which
    # keep a view's strides.
    tensors = [t.contiguous() for t in tensors]
    env = dict(vars(golden))
    env["torch"] = torch
    ins = op.inputs
    if len(ins) == 1 and ins[0].is_tensor_list:
        env[ins[0].name] = list(tensors)
    else:
        for a, t in zip(ins, tensors):
            env[a.name] = t
    env.update(attrs)
    out = eval(TORCH_CODE[op.name], env)  # noqa: S307 - the repo's own test registry
    if not isinstance(out, torch.Tensor):
        out = torch.tensor(out)
    return out


def torch_dtype_name(t):
    return golden.DTYPE_NAMES[t.dtype]


def to_numpy(t):
    return np.array(t.numpy(), copy=True)


def assert_close(got, want, tol, what):
    """got: oar Tensor (or None = zeros); want: torch Tensor."""
    want_np = want.detach().numpy(force=True)  # force: torch's ZeroTensor grads
    if got is None:
        got_np = np.zeros_like(want_np)
    else:
        assert got.dtype == torch_dtype_name(want), (
            f"{what}: dtype {got.dtype.name}, torch gives {torch_dtype_name(want)}")
        got_np = to_numpy(got)
    assert list(got_np.shape) == list(want_np.shape), (
        f"{what}: shape {list(got_np.shape)}, torch gives {list(want_np.shape)}")
    if want_np.dtype.kind in "biu":
        np.testing.assert_array_equal(got_np, want_np, err_msg=what)
    else:
        np.testing.assert_allclose(got_np, want_np, err_msg=what, **tol)


def _tol(table, p):
    t = dict(table.get(p.dtype, TOL["float64"]))
    t.update(OP_TOL.get((p.op, p.dtype), {}))
    return t


# ---- parameters --------------------------------------------------------------------------
def _forward_params():
    out = []
    for name in sorted(REGISTRY):
        for i, case in enumerate(REGISTRY[name]["cases"]):
            specs = [_norm(s) for s in case.get("inputs", [])]
            has_float = any(s.get("dtype") is None for s in specs)
            for dt in (FLOAT_DTYPES if has_float else ("native",)):
                out.append(Param(name, i, case, dt))
    return out


FORWARD_PARAMS = _forward_params()


def _diff_indices(op, inputs):
    names = _arg_names(op, len(inputs))
    return [i for i, (n, inp) in enumerate(zip(names, inputs))
            if n in op.backward and inp.is_float]


def _torch_out_is_float(p):
    op = OPS[p.op]
    inputs = p.inputs()
    try:
        out = call_torch(op, [inp.torch_view(inp.torch_base()) for inp in inputs],
                         _attrs(op, p.case))
    except Exception as e:  # a broken case in the registry: say which
        raise AssertionError(f"{p}: the torch expression fails: {e}") from e
    return out.is_floating_point()


GRAD_PARAMS = [p for p in FORWARD_PARAMS
               if OPS[p.op].backward and _diff_indices(OPS[p.op], p.inputs())
               and _torch_out_is_float(p)]


# ---- forward -----------------------------------------------------------------------------
@pytest.mark.parametrize("p", FORWARD_PARAMS, ids=str)
def test_forward(p):
    op = OPS[p.op]
    inputs = p.inputs()
    attrs = _attrs(op, p.case)
    o_bases = [inp.oar_base() for inp in inputs]
    o_in = [inp.oar_view(b) for inp, b in zip(inputs, o_bases)]
    before = [to_numpy(b) for b in o_bases]
    out = call_oar(op, o_in, attrs)
    want = call_torch(op, [inp.torch_view(inp.torch_base()) for inp in inputs], attrs)
    assert_close(out, want, _tol(TOL, p), f"{p}: forward")
    for k, (b, prev) in enumerate(zip(o_bases, before)):
        np.testing.assert_array_equal(to_numpy(b), prev,
                                      err_msg=f"{p}: input {k} was modified by the op")


class parallel_everything:
    """FLAGS_parallel_threshold=1: every kernel loop takes its OpenMP path, even on
    the small inputs of the cases (the default threshold keeps them inline)."""

    def __enter__(self):
        self.prev = oar.get_flags("FLAGS_parallel_threshold")["FLAGS_parallel_threshold"]
        oar.set_flags({"FLAGS_parallel_threshold": 1})

    def __exit__(self, *exc):
        oar.set_flags({"FLAGS_parallel_threshold": int(self.prev)})


PARALLEL_PARAMS = [p for p in FORWARD_PARAMS if p.dtype != "float32"]


@pytest.mark.parametrize("p", PARALLEL_PARAMS, ids=str)
def test_forward_parallel(p):
    with parallel_everything():
        test_forward(p)


def test_large_inputs_release_the_gil():
    """Inputs of >= 65536 elements take the bindings' GIL-releasing path."""
    rng = np.random.default_rng(5)
    a, b = rng.uniform(-1, 1, (300, 257)), rng.uniform(-1, 1, (257,))
    x = oar.to_tensor(a, stop_gradient=False)
    y = oar.to_tensor(b, stop_gradient=False)
    xt = oar._C.transpose(oar._C.transpose(x, [1, 0]), [1, 0])
    out = oar._C.softmax(oar._C.add(xt, y), -1)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    want = torch.softmax(ta + tb, -1)
    assert_close(out, want, TOL["float64"], "softmax(x + y), large")
    g = rng.standard_normal((300, 257))
    for og, tg in zip(_oar_grad([out], [x, y], [oar.to_tensor(g)]),
                      _torch_grad([want], [ta, tb], [torch.tensor(g)])):
        assert_close(og, tg, GRAD_TOL["float64"], "grad, large")


# ---- gradients ---------------------------------------------------------------------------
def _np_like(rng, shape, dtype):
    return rng.standard_normal(size=shape).astype(NP_DTYPES[dtype])


def _oar_grad(outs, ins, gouts=None, create_graph=False):
    if all(o.stop_gradient for o in outs):
        return [None] * len(ins)
    return list(oar.grad(outs, ins, grad_outputs=gouts, create_graph=create_graph,
                         allow_unused=True))


def _torch_grad(outs, ins, gouts=None, create_graph=False):
    if not any(o.requires_grad for o in outs):
        return [torch.zeros_like(i) for i in ins]
    gs = torch.autograd.grad(outs, ins, grad_outputs=gouts, create_graph=create_graph,
                             allow_unused=True)
    return [torch.zeros_like(i) if g is None else g for g in gs]


def _setup_grad(p):
    op = OPS[p.op]
    inputs = p.inputs()
    attrs = _attrs(op, p.case)
    diff = _diff_indices(op, inputs)
    o_bases = [inp.oar_base(i in diff) for i, inp in enumerate(inputs)]
    t_bases = [inp.torch_base(i in diff) for i, inp in enumerate(inputs)]
    o_out = call_oar(op, [inp.oar_view(b) for inp, b in zip(inputs, o_bases)], attrs)
    t_out = call_torch(op, [inp.torch_view(b) for inp, b in zip(inputs, t_bases)], attrs)
    g = _np_like(p.rng("g"), list(t_out.shape), torch_dtype_name(t_out))
    return (diff, [o_bases[i] for i in diff], [t_bases[i] for i in diff], o_out, t_out,
            oar.to_tensor(g), torch.tensor(g))


@pytest.mark.parametrize("p", GRAD_PARAMS, ids=str)
def test_grad(p):
    diff, o_leaves, t_leaves, o_out, t_out, o_g, t_g = _setup_grad(p)
    assert o_out.stop_gradient is False, f"{p}: output does not require grad"
    o_gs = _oar_grad([o_out], o_leaves, [o_g])
    t_gs = _torch_grad([t_out], t_leaves, [t_g])
    for k, (og, tg) in enumerate(zip(o_gs, t_gs)):
        assert_close(og, tg, _tol(GRAD_TOL, p), f"{p}: d out / d input {diff[k]}")


@pytest.mark.parametrize("p", [p for p in GRAD_PARAMS if p.dtype == "float64"], ids=str)
def test_grad_parallel(p):
    with parallel_everything():
        test_grad(p)


@pytest.mark.parametrize("p", GRAD_PARAMS, ids=str)
def test_double_grad(p):
    diff, o_leaves, t_leaves, o_out, t_out, o_g, t_g = _setup_grad(p)
    o_first = _oar_grad([o_out], o_leaves, [o_g], create_graph=True)
    t_first = _torch_grad([t_out], t_leaves, [t_g], create_graph=True)
    vrng = p.rng("v")
    vs = [_np_like(vrng, list(t.shape), torch_dtype_name(t)) for t in t_leaves]
    o_s, t_s = None, None
    for of, tf, v in zip(o_first, t_first, vs):
        if of is not None:
            term = oar._C.sum(oar._C.multiply(of, oar.to_tensor(v)))
            o_s = term if o_s is None else oar._C.add(o_s, term)
        term = (tf * torch.tensor(v)).sum()
        t_s = term if t_s is None else t_s + term
    o_second = [None] * len(o_leaves) if o_s is None else _oar_grad([o_s], o_leaves)
    t_second = _torch_grad([t_s], t_leaves)
    for k, (og, tg) in enumerate(zip(o_second, t_second)):
        assert_close(og, tg, _tol(GRAD_TOL, p),
                     f"{p}: d(sum(d out/d input * v)) / d input {diff[k]}")


# ---- Tensor methods ------------------------------------------------------------------------
def _has_method(op):
    """The rule of tools/codegen/gen_bindings.py: first argument a Tensor named x."""
    return bool(op.args and op.args[0].is_tensor and op.args[0].name == "x"
                and not op.name.endswith("_grad"))


METHOD_PARAMS = [p for p in FORWARD_PARAMS if _has_method(OPS[p.op]) and p.dtype != "float32"]


@pytest.mark.parametrize("p", METHOD_PARAMS, ids=str)
def test_method(p):
    """x.<op>(other tensors..., attr=value...): attributes by keyword (only those the
    case sets, so the defaults are the binding's), dtypes as strings."""
    op = OPS[p.op]
    inputs = p.inputs()
    o_in = [inp.oar_view(inp.oar_base()) for inp in inputs]
    kwargs = dict(p.case.get("attrs") or {})
    out = getattr(o_in[0], p.op)(*o_in[1:], **kwargs)
    want = call_torch(op, [inp.torch_view(inp.torch_base()) for inp in inputs],
                      _attrs(op, p.case))
    assert_close(out, want, _tol(TOL, p), f"{p}: method x.{p.op}(...)")


def test_method_examples():
    """A few Paddle-style calls written out."""
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7.0
    x = oar.to_tensor(a)
    np.testing.assert_allclose(x.sum(axis=[1]).numpy(), a.sum(axis=1))
    np.testing.assert_allclose(x.sum(axis=[0, 2], keepdim=True).numpy(),
                               a.sum(axis=(0, 2), keepdims=True))
    np.testing.assert_allclose(x.mean(axis=[-1]).numpy(), a.mean(axis=-1))
    np.testing.assert_allclose(x.max(axis=[1]).numpy(), a.max(axis=1))
    np.testing.assert_allclose(x.transpose([2, 0, 1]).numpy(), a.transpose(2, 0, 1))
    np.testing.assert_allclose(x.reshape([4, -1]).numpy(), a.reshape(4, -1))
    np.testing.assert_allclose(x.scale(scale=2.0, bias=1.0).numpy(), 2 * a + 1)
    assert x.cast("int32").dtype == oar.int32
    np.testing.assert_allclose(x.softmax(axis=1).numpy(),
                               torch.softmax(torch.tensor(a), 1).numpy(), rtol=1e-12)


# ---- in-place variants ---------------------------------------------------------------------
def _inplace_ok(p):
    """In-place writes the result into x: x must be float, keep its shape and dtype."""
    op = OPS[p.op]
    inputs = p.inputs()
    if not op.inplace or not inputs or not inputs[0].is_float or inputs[0].view == "bcast":
        return False
    want = call_torch(op, [inp.torch_view(inp.torch_base()) for inp in inputs],
                      _attrs(op, p.case))
    return list(want.shape) == inputs[0].shape and torch_dtype_name(want) == inputs[0].dtype


INPLACE_PARAMS = [p for p in FORWARD_PARAMS if _inplace_ok(p)]


@pytest.mark.parametrize("variant", ["function", "method"])
@pytest.mark.parametrize("p", INPLACE_PARAMS, ids=str)
def test_inplace_no_grad(p, variant):
    """oar.<op>_(x, ...) / x.<op>_(...) under no_grad: returns x itself, holding the
    out-of-place result; when x is a view, the base sees the write."""
    op = OPS[p.op]
    inputs = p.inputs()
    attrs = _attrs(op, p.case)
    t_bases = [inp.torch_base() for inp in inputs]
    t_in = [inp.torch_view(b) for inp, b in zip(inputs, t_bases)]
    want = call_torch(op, t_in, attrs)
    want_base = t_bases[0].clone()
    inputs[0].torch_write_view(want_base, want)
    with oar.no_grad():
        o_bases = [inp.oar_base() for inp in inputs]
        o_in = [inp.oar_view(b) for inp, b in zip(inputs, o_bases)]
        x = o_in[0]
        version = x.inplace_version
        if variant == "function":
            r = call_oar(op, o_in, attrs, fn=getattr(oar, op.name + "_"))
        else:
            kwargs = dict(p.case.get("attrs") or {})
            r = getattr(x, op.name + "_")(*o_in[1:], **kwargs)
    assert r is x, f"{p}: {op.name}_ did not return its input"
    assert_close(x, want, _tol(TOL, p), f"{p}: {op.name}_ ({variant}): x after the write")
    assert_close(o_bases[0], want_base, _tol(TOL, p),
                 f"{p}: {op.name}_ ({variant}): the base of x after the write")
    assert x.inplace_version > version, f"{p}: inplace_version did not change"


def _backward_reads_overwritten_x(op, diff_names):
    """Whether a backward formula of a differentiated input reads the value of the
    in-place input x (which the write has replaced by the output)."""
    x = op.inplace
    if x in op.no_need_buffer:
        return False
    return any(re.search(rf"\b{x}\b", op.backward[n]) for n in diff_names if n in op.backward)


@pytest.mark.parametrize("p", [p for p in INPLACE_PARAMS if p.dtype == "float64"
                               and p.op in REGISTRY and _diff_indices(OPS[p.op], p.inputs())],
                         ids=str)
def test_inplace_grad(p):
    """y = scale(view(x_leaf), 1); y.<op>_(...): gradients as the out-of-place op's."""
    op = OPS[p.op]
    inputs = p.inputs()
    attrs = _attrs(op, p.case)
    diff = sorted(set(_diff_indices(op, inputs)) | {0})
    o_bases = [inp.oar_base(i in diff) for i, inp in enumerate(inputs)]
    t_bases = [inp.torch_base(i in diff) for i, inp in enumerate(inputs)]
    o_in = [inp.oar_view(b) for inp, b in zip(inputs, o_bases)]
    o_in[0] = oar._C.scale(o_in[0], 1.0)  # a non-leaf: in-place allowed with grad on
    r = call_oar(op, o_in, attrs, fn=getattr(oar, op.name + "_"))
    assert r is o_in[0]
    t_out = call_torch(op, [inp.torch_view(b) for inp, b in zip(inputs, t_bases)], attrs)
    assert_close(r, t_out, _tol(TOL, p), f"{p}: in-place result")
    g = _np_like(p.rng("g"), list(t_out.shape), p.dtype)
    o_leaves = [o_bases[i] for i in diff]
    t_leaves = [t_bases[i] for i in diff]
    names = _arg_names(op, len(inputs))
    if _backward_reads_overwritten_x(op, {names[i] for i in diff}):
        # The write destroyed a value the backward needs: like Paddle (and unlike
        # torch, which saves a copy of self), oar refuses with its version check.
        with pytest.raises(RuntimeError, match="inplace"):
            _oar_grad([r], o_leaves, [oar.to_tensor(g)])
        return
    o_gs = _oar_grad([r], o_leaves, [oar.to_tensor(g)])
    t_gs = _torch_grad([t_out], t_leaves, [torch.tensor(g)])
    for k, (og, tg) in enumerate(zip(o_gs, t_gs)):
        assert_close(og, tg, _tol(GRAD_TOL, p), f"{p}: in-place d out / d input {diff[k]}")


@pytest.mark.parametrize("name", sorted(n for n, op in OPS.items()
                                         if op.inplace and len(op.inputs) >= 2
                                         and all(a.is_tensor for a in op.inputs[:2])
                                         and op.infer_meta == "ElementwiseInferMeta"))
def test_inplace_with_itself_as_other_operand(name):
    """x.<op>_(x): the operand aliases the destination element for element."""
    a = np.array([[0.5, -1.5, 2.0], [1.25, -0.75, 3.0]])
    x = oar.to_tensor(a)
    with oar.no_grad():
        getattr(x, name + "_")(x)
    t = torch.tensor(a)
    want = call_torch(OPS[name], [t, t], _attrs(OPS[name], {}))
    assert_close(x, want, TOL["float64"], f"x.{name}_(x)")


def test_inplace_into_expanded_view_raises():
    base = oar.to_tensor(np.array([[1.0, 2.0, 3.0]]))
    v = oar._C.expand(base, [2, 3])
    with oar.no_grad(), pytest.raises(ValueError, match="expanded"):
        v.add_(oar.to_tensor(np.ones((2, 3))))
    np.testing.assert_array_equal(base.numpy(), [[1.0, 2.0, 3.0]])


def test_inplace_on_leaf_requiring_grad_raises():
    x = oar.to_tensor(np.ones((2, 3)), stop_gradient=False)
    with pytest.raises(RuntimeError):
        x.add_(oar.to_tensor(np.ones((2, 3))))
    with oar.no_grad():
        x.add_(oar.to_tensor(np.ones((2, 3))))
    np.testing.assert_array_equal(x.numpy(), np.full((2, 3), 2.0))


# ---- random ops: statistical tests -------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_uniform(dtype):
    from scipy import stats
    lo, hi = -2.0, 3.0
    x = oar._C.uniform([100, 100], oar.convert_dtype(dtype), lo, hi, 0)
    assert x.dtype == dtype and x.shape == [100, 100]
    a = to_numpy(x).astype(np.float64).ravel()
    assert a.min() >= lo and a.max() < hi
    n = a.size
    # mean and variance within 5 standard errors; a KS test at p = 1e-4.
    assert abs(a.mean() - (lo + hi) / 2) < 5 * (hi - lo) / math.sqrt(12 * n)
    assert abs(a.var() / ((hi - lo) ** 2 / 12) - 1) < 0.05
    assert stats.kstest(a, stats.uniform(loc=lo, scale=hi - lo).cdf).pvalue > 1e-4
    assert len(np.unique(a)) > 0.99 * n


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_normal(dtype):
    from scipy import stats
    mu, sd = 1.0, 2.0
    x = oar._C.normal([100, 100], mu, sd, 0, oar.convert_dtype(dtype))
    assert x.dtype == dtype and x.shape == [100, 100]
    a = to_numpy(x).astype(np.float64).ravel()
    n = a.size
    assert abs(a.mean() - mu) < 5 * sd / math.sqrt(n)
    assert abs(a.std() / sd - 1) < 0.05
    assert stats.kstest(a, stats.norm(loc=mu, scale=sd).cdf).pvalue > 1e-4


@pytest.mark.parametrize("op", sorted(RANDOM_OPS))
def test_random_seeding(op):
    def draw(seed):
        if op == "uniform":
            return to_numpy(oar._C.uniform([50], oar.float32, -1.0, 1.0, seed))
        return to_numpy(oar._C.normal([50], 0.0, 1.0, seed, oar.float32))
    np.testing.assert_array_equal(draw(7), draw(7))      # an explicit seed is reproducible
    assert not np.array_equal(draw(7), draw(8))
    oar.seed(1234)
    first = [draw(0), draw(0)]
    assert not np.array_equal(first[0], first[1])       # the default generator advances
    oar.seed(1234)
    np.testing.assert_array_equal(draw(0), first[0])    # and oar.seed() resets it
    np.testing.assert_array_equal(draw(0), first[1])


@pytest.mark.parametrize("op", sorted(RANDOM_OPS))
def test_random_empty_and_python_api(op):
    if op == "uniform":
        assert oar._C.uniform([0, 3], oar.float64, 0.0, 1.0, 0).shape == [0, 3]
        r = oar.uniform([4, 5], dtype="float64", min=2.0, max=2.5)
        a = to_numpy(r)
        assert r.dtype == oar.float64 and a.min() >= 2.0 and a.max() < 2.5
        assert oar.rand([3]).dtype == oar.float32
    else:
        assert oar._C.normal([0, 3], 0.0, 1.0, 0, oar.float64).shape == [0, 3]
        r = oar.normal(mean=3.0, std=0.5, shape=[2000])
        assert r.shape == [2000] and abs(to_numpy(r).mean() - 3.0) < 0.1
        assert oar.randn([2, 3], dtype="float64").dtype == oar.float64


# ---- coverage of the declarations ------------------------------------------------------------
def test_every_declared_op_is_covered():
    """Each op of ops.yaml is compared with torch here (or, for the random ops,
    tested statistically). Adding an op without cases fails this test."""
    missing = [n for n in OPS if n not in RANDOM_OPS and not REGISTRY.get(n, {}).get("cases")]
    assert not missing, f"ops declared in src/oar/ops.yaml without test cases: {missing}"
    undeclared = sorted(set(REGISTRY) - set(OPS))
    assert not undeclared, f"test cases for ops not declared in ops.yaml: {undeclared}"
    assert RANDOM_OPS <= set(OPS), RANDOM_OPS - set(OPS)


def test_every_differentiable_op_has_gradient_cases():
    grad_ops = {p.op for p in GRAD_PARAMS}
    missing = [n for n, op in OPS.items() if op.backward and n not in grad_ops]
    assert not missing, f"differentiable ops without a gradient case: {missing}"
    # every differentiable input of every op is differentiated in some case
    seen = {}
    for p in GRAD_PARAMS:
        op = OPS[p.op]
        inputs = p.inputs()
        names = _arg_names(op, len(inputs))
        seen.setdefault(p.op, set()).update(names[i] for i in _diff_indices(op, inputs))
    lacking = {n: sorted(set(OPS[n].backward) - seen.get(n, set()))
               for n in OPS if OPS[n].backward and set(OPS[n].backward) - seen.get(n, set())}
    assert not lacking, f"differentiable inputs never differentiated: {lacking}"


def test_every_op_has_empty_and_view_cases():
    """Empty tensors and non-contiguous views for every op with tensor inputs; an
    empty output for the creation ops."""
    no_empty, no_view = [], []
    for name, entry in REGISTRY.items():
        specs = [[_norm(s) for s in c.get("inputs", [])] for c in entry["cases"]]
        if not OPS[name].inputs:
            if not any(0 in (c.get("attrs") or {}).get("shape", [1]) or
                       (c.get("attrs") or {}).get("start") == (c.get("attrs") or {}).get("end")
                       for c in entry["cases"]):
                no_empty.append(name)
            continue
        if not any(0 in s["shape"] for ss in specs for s in ss):
            no_empty.append(name)
        if not any(s.get("view") for ss in specs for s in ss):
            no_view.append(name)
    assert not no_empty, f"ops without an empty-tensor case: {no_empty}"
    assert not no_view, f"ops without a non-contiguous input case: {no_view}"


def test_bindings_match_declarations():
    """oar._C.<op> and oar.<op> for every op; oar.<op>_ for inplace ops; Tensor
    methods x.<op> (x.<op>_) exactly when the first argument is a Tensor x."""
    problems = []
    for name, op in OPS.items():
        if not callable(getattr(oar._C, name, None)):
            problems.append(f"oar._C.{name} missing")
        if not callable(getattr(oar, name, None)):
            problems.append(f"oar.{name} missing")
        if op.inplace:
            if not callable(getattr(oar._C, name + "_", None)):
                problems.append(f"oar._C.{name}_ missing")
            if not callable(getattr(oar, name + "_", None)):
                problems.append(f"oar.{name}_ missing")
        if _has_method(op):
            if not callable(getattr(oar.Tensor, name, None)):
                problems.append(f"Tensor.{name} missing")
            if op.inplace and not callable(getattr(oar.Tensor, name + "_", None)):
                problems.append(f"Tensor.{name}_ missing")
    assert not problems, problems


# ---- Python operators and Paddle-style wrappers -----------------------------------------------
OPERATORS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "**": lambda a, b: a ** b, "@": lambda a, b: a @ b,
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("sym", sorted(OPERATORS))
def test_python_operators_tensor_tensor(sym, dtype):
    rng = np.random.default_rng(zlib.crc32(sym.encode()))
    if sym == "@":
        a, b = rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (3, 4))
    else:
        a, b = rng.uniform(0.5, 2.0, (2, 3)), rng.uniform(0.5, 2.0, (3,))
    a, b = a.astype(NP_DTYPES[dtype]), b.astype(NP_DTYPES[dtype])
    oa, ob = oar.to_tensor(a, stop_gradient=False), oar.to_tensor(b, stop_gradient=False)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    out, want = OPERATORS[sym](oa, ob), OPERATORS[sym](ta, tb)
    tol = TOL[dtype]
    assert_close(out, want, tol, f"a {sym} b")
    g = rng.standard_normal(list(want.shape)).astype(NP_DTYPES[dtype])
    for og, tg in zip(_oar_grad([out], [oa, ob], [oar.to_tensor(g)]),
                      _torch_grad([want], [ta, tb], [torch.tensor(g)])):
        assert_close(og, tg, GRAD_TOL[dtype], f"grad of a {sym} b")


@pytest.mark.parametrize("sym", ["+", "-", "*", "/", "**", "r+", "r-", "r*", "r/", "r**"])
def test_python_operators_tensor_scalar(sym):
    a = np.random.default_rng(3).uniform(0.5, 2.0, (2, 3))
    s = 1.5
    ox, tx = oar.to_tensor(a, stop_gradient=False), torch.tensor(a, requires_grad=True)
    f = OPERATORS[sym.lstrip("r")]
    out, want = ((f(s, ox), f(s, tx)) if sym.startswith("r") else (f(ox, s), f(tx, s)))
    assert_close(out, want, TOL["float64"], f"{sym} with a scalar")
    (og,) = _oar_grad([out], [ox], [oar.ones_like(out)])
    (tg,) = _torch_grad([want], [tx], [torch.ones_like(want)])
    assert_close(og, tg, GRAD_TOL["float64"], f"grad of {sym} with a scalar")


def test_python_unary_and_comparison_operators():
    a = np.array([[-1.5, 0.5, 2.0], [0.25, -0.75, 1.0]])
    b = np.array([0.5, 0.5, -1.0])
    x, y = oar.to_tensor(a), oar.to_tensor(b)
    np.testing.assert_array_equal((-x).numpy(), -a)
    np.testing.assert_array_equal(abs(x).numpy(), np.abs(a))
    for sym, f in [("<", np.less), ("<=", np.less_equal), (">", np.greater),
                   (">=", np.greater_equal), ("==", np.equal), ("!=", np.not_equal)]:
        got = eval(f"x {sym} y")  # noqa: S307
        assert got.dtype == oar.bool, sym
        np.testing.assert_array_equal(got.numpy(), f(a, b), err_msg=sym)
        got = eval(f"x {sym} 0.5")  # noqa: S307
        np.testing.assert_array_equal(got.numpy(), f(a, 0.5), err_msg=f"{sym} scalar")


def test_paddle_style_wrappers():
    rng = np.random.default_rng(11)
    a = rng.uniform(0.5, 2.0, (4, 5))
    x, t = oar.to_tensor(a), torch.tensor(a)
    assert_close(oar.pow(x, 2.5), torch.pow(t, 2.5), TOL["float64"], "oar.pow(x, float)")
    assert_close(x.pow(2.5), torch.pow(t, 2.5), TOL["float64"], "x.pow(float)")
    e = rng.uniform(-1, 1, (4, 5))
    assert_close(oar.pow(x, oar.to_tensor(e)), torch.pow(t, torch.tensor(e)), TOL["float64"],
                 "oar.pow(x, Tensor)")
    assert_close(oar.cast(x, "float32"), t.float(), TOL["float32"], "oar.cast")
    assert_close(x.astype("int64"), t.long(), TOL["float64"], "astype")
    assert_close(oar.slice(x, [0, 1], [1, -3], [3, 100]), t[1:3, -3:], TOL["float64"], "slice")
    assert_close(x[1:3, ::-2], torch.tensor(a[1:3, ::-2].copy()), TOL["float64"], "x[1:3, ::-2]")
    assert_close(x[[3, 0, 3]], t[[3, 0, 3]], TOL["float64"], "x[[3, 0, 3]]")
    assert_close(x.T, t.T, TOL["float64"], "x.T")
    assert_close(oar.t(x), t.t(), TOL["float64"], "oar.t")
    assert_close(x.clone(), t.clone(), TOL["float64"], "clone")
    c = oar.to_tensor(a > 1.0)
    assert_close(oar.where(c, x, 0.0), torch.where(torch.tensor(a > 1.0), t, 0.0),
                 TOL["float64"], "oar.where(c, x, scalar)")
    rows, cols = oar.nonzero(c, as_tuple=True)
    trows, tcols = torch.nonzero(torch.tensor(a > 1.0), as_tuple=True)
    assert_close(rows, trows, TOL["float64"], "nonzero rows")
    assert_close(cols, tcols, TOL["float64"], "nonzero cols")
    assert_close(oar.full([2, 3], 1.5), torch.full([2, 3], 1.5), TOL["float32"], "oar.full")
    assert_close(oar.arange(5), torch.arange(5), TOL["float64"], "oar.arange(5)")
    assert_close(oar.arange(0.0, 1.0, 0.25), torch.arange(0.0, 1.0, 0.25), TOL["float32"],
                 "oar.arange(floats)")
    assert_close(oar.full_like(x, 2), torch.full_like(t, 2), TOL["float64"], "oar.full_like")
