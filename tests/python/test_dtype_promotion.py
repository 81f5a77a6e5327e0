"""dtype promotion of binary ops, checked against Paddle's documented rules.

Source of the tables below: PaddlePaddle documentation, "Introduction to Data Type
Promotion" (guides/advanced/auto_type_promotion_en.md in the PaddlePaddle/docs
repository; paddlepaddle.org.cn/documentation/docs/en/guides/advanced/
auto_type_promotion_en.html), describing Paddle 2.6 and later. Only the rows and
columns of bool, int32, int64 and the floats are kept (uint8/int8/int16 and complex:
test_dtypes.py and test_complex.py, checked against Paddle 3.3.1 itself).

1. Tensor-to-Tensor ("Common Rule"; add, subtract, multiply, divide, pow, where,
   maximum, minimum, and the operators + - * / **): promotion happens only between
   floating-point types, to the larger one, with float16 + bfloat16 -> float32.
   Every other pair of different dtypes is "-" in the table: not supported, and the
   doc's example says so explicitly:
       a = paddle.ones([3,3], dtype='int64'); b = paddle.rand([3,3], dtype='float32')
       c = a + b  # ... TypeError will be raised
   ("Logic Rule": the comparisons follow the same support table and return bool.)

2. Tensor-to-Scalar: supported for all types. The result takes the tensor's dtype
   when the scalar is of the same broad kind (bool / int / float); otherwise the
   tensor-tensor rule applies with the scalar's default dtype: int -> int64,
   float -> float32, bool -> bool:

       tensor \\ scalar   bool    int     float
       bool               bool    int64   float32
       int32              int32   int32   float32
       int64              int64   int64   float32
       bfloat16           bf16    bf16    bf16
       float16            f16     f16     f16
       float32            f32     f32     f32
       float64            f64     f64     f64

   "Divide Rule": divide never returns a dtype smaller than float ("int32 / Scalar
   returns float32").

Operators and binary APIs must agree ("consistent results for operator overloading
and binary APIs"), and the result does not depend on the operand order.
"""
import itertools

import numpy as np
import pytest
import torch

import oar

DTYPES = ["bool", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]

# Table 1 (Tensor-to-Tensor), the float block; row = x, column = y.
TENSOR_TENSOR = {
    ("bfloat16", "bfloat16"): "bfloat16", ("bfloat16", "float16"): "float32",
    ("bfloat16", "float32"): "float32", ("bfloat16", "float64"): "float64",
    ("float16", "bfloat16"): "float32", ("float16", "float16"): "float16",
    ("float16", "float32"): "float32", ("float16", "float64"): "float64",
    ("float32", "bfloat16"): "float32", ("float32", "float16"): "float32",
    ("float32", "float32"): "float32", ("float32", "float64"): "float64",
    ("float64", "bfloat16"): "float64", ("float64", "float16"): "float64",
    ("float64", "float32"): "float64", ("float64", "float64"): "float64",
}
# Table 2 (Tensor-to-Scalar); scalar kinds: Python bool, int, float.
TENSOR_SCALAR = {
    "bool": {"bool": "bool", "int": "int64", "float": "float32"},
    "int32": {"bool": "int32", "int": "int32", "float": "float32"},
    "int64": {"bool": "int64", "int": "int64", "float": "float32"},
    "bfloat16": {"bool": "bfloat16", "int": "bfloat16", "float": "bfloat16"},
    "float16": {"bool": "float16", "int": "float16", "float": "float16"},
    "float32": {"bool": "float32", "int": "float32", "float": "float32"},
    "float64": {"bool": "float64", "int": "float64", "float": "float64"},
}
SCALARS = {"bool": True, "int": 2, "float": 1.5}

ARITH_API = {
    "add": lambda a, b: oar.add(a, b), "subtract": lambda a, b: oar.subtract(a, b),
    "multiply": lambda a, b: oar.multiply(a, b), "divide": lambda a, b: oar.divide(a, b),
    "pow": lambda a, b: oar.pow(a, b), "maximum": lambda a, b: oar.maximum(a, b),
    "minimum": lambda a, b: oar.minimum(a, b),
    "where": lambda a, b: oar.where(oar.to_tensor(np.array([[True, False, True],
                                                            [False, True, False]])), a, b),
}
ARITH_OPERATORS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "**": lambda a, b: a ** b,
}
LOGIC_API = {
    "equal": lambda a, b: oar.equal(a, b), "not_equal": lambda a, b: oar.not_equal(a, b),
    "less_than": lambda a, b: oar.less_than(a, b), "less_equal": lambda a, b: oar.less_equal(a, b),
    "greater_than": lambda a, b: oar.greater_than(a, b),
    "greater_equal": lambda a, b: oar.greater_equal(a, b),
}
LOGIC_OPERATORS = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}

# Positive values, exact in every dtype (bfloat16 has 8 significant bits).
X_VALUES = np.array([[1.0, 2.0, 3.0], [4.0, 1.5, 0.5]])
Y_VALUES = np.array([[2.0, 0.5, 3.0], [1.0, 1.5, 4.0]])
INT_X = np.array([[1, 2, 3], [4, 1, 5]])
INT_Y = np.array([[2, 1, 3], [1, 1, 4]])

TORCH = {"bool": torch.bool, "int32": torch.int32, "int64": torch.int64,
         "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
         "float64": torch.float64}
# Relative tolerance of a result in each dtype (about 4 ulps).
RTOL = {"float16": 4e-3, "bfloat16": 3e-2, "float32": 1e-6, "float64": 1e-12}


def tensor(dtype, which="x"):
    if dtype in FLOATS:
        vals = X_VALUES if which == "x" else Y_VALUES
    elif dtype == "bool":
        vals = (INT_X if which == "x" else INT_Y) % 2 == 1
    else:
        vals = INT_X if which == "x" else INT_Y
    t = oar.to_tensor(np.asarray(vals, dtype=np.float64))
    return oar.cast(t, dtype)


def as_float64(t):
    return oar.cast(t, "float64").numpy().astype(np.float64)


def dtype_name(t):
    return t.dtype.name


# ---- tensor-tensor: the float block ------------------------------------------------------
@pytest.mark.parametrize("x_dtype,y_dtype", sorted(TENSOR_TENSOR), ids=lambda v: str(v))
@pytest.mark.parametrize("op", sorted(ARITH_API) + sorted(ARITH_OPERATORS))
def test_tensor_tensor_float_promotion(op, x_dtype, y_dtype):
    want = TENSOR_TENSOR[(x_dtype, y_dtype)]
    f = ARITH_API.get(op) or ARITH_OPERATORS[op]
    x, y = tensor(x_dtype, "x"), tensor(y_dtype, "y")
    out = f(x, y)
    assert dtype_name(out) == want, (
        f"{op}({x_dtype}, {y_dtype}): got {dtype_name(out)}, Paddle's table says {want}")
    # the value is the op computed in the promoted dtype
    tx = torch.tensor(as_float64(x)).to(TORCH[want])
    ty = torch.tensor(as_float64(y)).to(TORCH[want])
    if op == "where":
        ref = torch.where(torch.tensor([[True, False, True], [False, True, False]]), tx, ty)
    elif op in ARITH_API:
        ref = {"add": torch.add, "subtract": torch.subtract, "multiply": torch.multiply,
               "divide": torch.divide, "pow": torch.pow, "maximum": torch.maximum,
               "minimum": torch.minimum}[op](tx, ty)
    else:
        ref = ARITH_OPERATORS[op](tx, ty)
    np.testing.assert_allclose(as_float64(out), ref.to(torch.float64).numpy(), rtol=RTOL[want])


@pytest.mark.parametrize("x_dtype,y_dtype", sorted(TENSOR_TENSOR), ids=lambda v: str(v))
@pytest.mark.parametrize("op", sorted(LOGIC_API) + sorted(LOGIC_OPERATORS))
def test_tensor_tensor_float_comparison(op, x_dtype, y_dtype):
    f = LOGIC_API.get(op) or LOGIC_OPERATORS[op]
    x, y = tensor(x_dtype, "x"), tensor(y_dtype, "y")
    out = f(x, y)
    assert dtype_name(out) == "bool", f"{op}({x_dtype}, {y_dtype}): got {dtype_name(out)}"
    ref = {"equal": np.equal, "==": np.equal, "not_equal": np.not_equal, "!=": np.not_equal,
           "less_than": np.less, "<": np.less, "less_equal": np.less_equal,
           "<=": np.less_equal, "greater_than": np.greater, ">": np.greater,
           "greater_equal": np.greater_equal, ">=": np.greater_equal}[op]
    np.testing.assert_array_equal(out.numpy(), ref(X_VALUES, Y_VALUES))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "maximum", "minimum", "where",
                                "+", "-", "*"])
def test_tensor_tensor_same_integer_dtype(op, dtype):
    """Same dtype: no promotion, the dtype is kept."""
    f = ARITH_API.get(op) or ARITH_OPERATORS[op]
    out = f(tensor(dtype, "x"), tensor(dtype, "y"))
    assert dtype_name(out) == dtype


# ---- tensor-tensor: the unsupported pairs -----------------------------------------------
UNSUPPORTED_PAIRS = [(a, b) for a, b in itertools.product(DTYPES, DTYPES)
                     if a != b and not (a in FLOATS and b in FLOATS)]


@pytest.mark.parametrize("x_dtype,y_dtype", UNSUPPORTED_PAIRS, ids=lambda v: str(v))
@pytest.mark.parametrize("kind", ["api", "operator"])
def test_tensor_tensor_unsupported_pairs_raise(kind, x_dtype, y_dtype):
    """Paddle's table has "-" for these pairs (not both floating point): no implicit
    promotion, a TypeError ('Type promotion only support calculations between
    floating-point numbers ...'); the user casts explicitly."""
    ops = (dict(ARITH_API, **LOGIC_API) if kind == "api"
           else dict(ARITH_OPERATORS, **LOGIC_OPERATORS))
    promoted = {}
    for name, f in ops.items():
        try:
            out = f(tensor(x_dtype, "x"), tensor(y_dtype, "y"))
        except TypeError:
            continue
        promoted[name] = dtype_name(out)
    assert not promoted, (
        f"{x_dtype} with {y_dtype} ({kind}): Paddle raises TypeError (no implicit promotion "
        f"between these tensor dtypes), oar computed {promoted}")


# ---- tensor-scalar -----------------------------------------------------------------------
def _ts_expected(op, t_dtype, kind):
    want = TENSOR_SCALAR[t_dtype][kind]
    if op == "/" and want not in FLOATS:
        want = "float32"  # the Divide Rule
    return want


# Left out: bool tensor - bool scalar, and ** with a bool operand: no arithmetic
# meaning (torch rejects bool subtraction, Paddle has no bool pow kernel); they
# say nothing about promotion.
TS_PARAMS = [(op, d, k) for op in ARITH_OPERATORS for d in DTYPES for k in SCALARS
             if not (op == "-" and d == "bool" and k == "bool")
             and not (op == "**" and (d == "bool" or k == "bool"))]


@pytest.mark.parametrize("reflected", [False, True], ids=["tensor_op_scalar", "scalar_op_tensor"])
@pytest.mark.parametrize("op,t_dtype,kind", TS_PARAMS, ids=lambda v: str(v))
def test_tensor_scalar(op, t_dtype, kind, reflected):
    s = SCALARS[kind]
    x = tensor(t_dtype)
    f = ARITH_OPERATORS[op]
    out = f(s, x) if reflected else f(x, s)
    want = _ts_expected(op, t_dtype, kind)
    expr = f"{s!r} {op} <{t_dtype} tensor>" if reflected else f"<{t_dtype} tensor> {op} {s!r}"
    assert dtype_name(out) == want, f"{expr}: got {dtype_name(out)}, Paddle's table says {want}"
    # value: the op on the float64 values, rounded to the result dtype
    xv = as_float64(x)
    with np.errstate(divide="ignore"):  # True / <bool tensor holding False> is inf
        ref = f(float(s), xv) if reflected else f(xv, float(s))
    ref = torch.tensor(np.asarray(ref, dtype=np.float64)).to(TORCH[want]).to(torch.float64)
    np.testing.assert_allclose(as_float64(out), ref.numpy(), rtol=RTOL.get(want, 0), atol=0,
                               err_msg=expr)


@pytest.mark.parametrize("t_dtype", DTYPES)
@pytest.mark.parametrize("kind", sorted(SCALARS))
@pytest.mark.parametrize("op", sorted(LOGIC_OPERATORS))
def test_tensor_scalar_comparison(op, kind, t_dtype):
    s = SCALARS[kind]
    x = tensor(t_dtype)
    out = LOGIC_OPERATORS[op](x, s)
    assert dtype_name(out) == "bool", f"<{t_dtype} tensor> {op} {s!r}: got {dtype_name(out)}"
    ref = LOGIC_OPERATORS[op](as_float64(x), float(s))
    np.testing.assert_array_equal(out.numpy(), ref)


def test_examples_from_the_brief():
    i = oar.to_tensor(np.array([1, 2, 3], dtype=np.int64))
    b = oar.to_tensor(np.array([True, False, True]))
    assert (i + 1.5).dtype == oar.float32
    np.testing.assert_allclose((i + 1.5).numpy(), [2.5, 3.5, 4.5])
    assert (i / 2).dtype == oar.float32
    np.testing.assert_allclose((i / 2).numpy(), [0.5, 1.0, 1.5])
    assert (b + 1).dtype == oar.int64
    np.testing.assert_array_equal((b + 1).numpy(), [2, 1, 2])
    i32 = oar.to_tensor(np.array([1, 2, 3], dtype=np.int32))
    assert (i32 * 2).dtype == oar.int32
    assert (i32 / i32).dtype == oar.float32


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_divide_api_on_integer_tensors(dtype):
    """The Divide Rule: "For divide API, it will not return dtype smaller than float".
    (The doc's scope table lists divide as Common Rule for Tensor-to-Tensor and Divide
    Rule for Tensor-to-Scalar; its text states the rule for the divide API as a
    whole, and Paddle's type_promotion.h returns float32 for divide on two integer
    tensors of the same dtype.)"""
    x = oar.to_tensor(np.array([1, 2, 7], dtype=dtype))
    y = oar.to_tensor(np.array([2, 2, 2], dtype=dtype))
    out = oar.divide(x, y)
    assert dtype_name(out) == "float32", (
        f"oar.divide({dtype}, {dtype}) gives {dtype_name(out)} {out.numpy().tolist()}, "
        f"Paddle's Divide Rule says float32 [0.5, 1.0, 3.5]")
    np.testing.assert_allclose(out.numpy(), [0.5, 1.0, 3.5])
    # and the operator agrees with the API
    assert dtype_name(x / y) == dtype_name(out)


# ---- gradients through a promotion ---------------------------------------------------------
TORCH_ARITH = {
    "add": torch.add, "subtract": torch.subtract, "multiply": torch.multiply,
    "divide": torch.divide, "pow": torch.pow, "maximum": torch.maximum,
    "minimum": torch.minimum,
    "where": lambda a, b: torch.where(torch.tensor([[True, False, True], [False, True, False]]),
                                      a, b),
}
TORCH_ARITH.update(ARITH_OPERATORS)


@pytest.mark.parametrize("x_dtype,y_dtype",
                         [k for k in sorted(TENSOR_TENSOR) if k[0] != k[1]], ids=lambda v: str(v))
@pytest.mark.parametrize("op", sorted(ARITH_API) + sorted(ARITH_OPERATORS))
def test_gradient_of_a_promoted_op_has_the_input_dtype(op, x_dtype, y_dtype):
    """The cast inserted by the promotion is part of the graph: the gradient of each
    input comes back in that input's dtype (as in Paddle and torch), with the
    values of the op's gradient in the promoted dtype."""
    f = ARITH_API.get(op) or ARITH_OPERATORS[op]
    x = tensor(x_dtype, "x")
    y = tensor(y_dtype, "y")
    x.stop_gradient = False
    y.stop_gradient = False
    out = f(x, y)
    gx, gy = oar.grad([out], [x, y], grad_outputs=[oar.ones_like(out)], allow_unused=True)
    got = {"x": gx.dtype.name, "y": gy.dtype.name}
    assert got == {"x": x_dtype, "y": y_dtype}, (
        f"{op}({x_dtype}, {y_dtype}): gradient dtypes {got}, expected the inputs' "
        f"{{'x': '{x_dtype}', 'y': '{y_dtype}'}}")
    tx = torch.tensor(as_float64(x)).to(TORCH[x_dtype]).requires_grad_(True)
    ty = torch.tensor(as_float64(y)).to(TORCH[y_dtype]).requires_grad_(True)
    tout = TORCH_ARITH[op](tx, ty)
    tgx, tgy = torch.autograd.grad(tout, [tx, ty], torch.ones_like(tout))
    for name, g, tg, d in (("x", gx, tgx, x_dtype), ("y", gy, tgy, y_dtype)):
        np.testing.assert_allclose(as_float64(g), tg.to(torch.float64).numpy(),
                                   rtol=max(RTOL[d], RTOL[TENSOR_TENSOR[(x_dtype, y_dtype)]]),
                                   atol=1e-6, err_msg=f"d {op}({x_dtype}, {y_dtype}) / d{name}")


# ---- a 0-d tensor operand ------------------------------------------------------------------
# Paddle 3.3.1 treats a 0-d tensor like a Python scalar in + - * / // % ** and the
# comparisons, and in paddle.add/subtract/multiply/divide/floor_divide/remainder/pow and
# the comparison functions (also copysign and hypot): with one 0-d operand of the other's
# kind (integers, floating, complex) the other operand's dtype wins; otherwise (kinds
# differ, or both 0-d) the full promotion lattice applies (int32 with float32 is float32,
# uint8 with int8 int16). floor_divide always takes the lattice when an operand is 0-d.
# maximum, minimum, fmax, fmin, atan2, logaddexp, nextafter and where keep the
# tensor-with-tensor rule. Every row below was measured on Paddle 3.3.1 (CPU):
# (x dtype, x values, y dtype, y values, op, result dtype, result values); a 0-d operand
# is given as a bare number.
def _t(dtype, v):
    return oar.to_tensor(v, dtype=dtype)


ZERO_D_CASES = [
    ("int32", [1, 2, 3], "float32", 0.5, "+", "float32", [1.5, 2.5, 3.5]),
    ("float32", 0.5, "int32", [1, 2, 3], "+", "float32", [1.5, 2.5, 3.5]),
    ("float32", [1.0, 2.0, 3.0], "float64", 0.5, "+", "float32", [1.5, 2.5, 3.5]),
    ("float64", 0.5, "float32", [1.0, 2.0, 3.0], "+", "float32", [1.5, 2.5, 3.5]),
    ("float32", [1.0, 2.0, 3.0], "int64", 2, "+", "float32", [3.0, 4.0, 5.0]),
    ("int32", [1, 2, 3], "int64", 2, "+", "int32", [3, 4, 5]),
    ("int64", [1, 2], "int32", 2, "+", "int64", [3, 4]),
    ("bool", [True, False], "int64", 2, "+", "int64", [3, 2]),
    ("int32", [1, 2, 3], "bool", True, "+", "int32", [2, 3, 4]),
    ("float64", [1.0, 2.0, 3.0], "float32", 0.5, "+", "float64", [1.5, 2.5, 3.5]),
    ("int32", [1, 2, 3], "float64", 2.5, "+", "float64", [3.5, 4.5, 5.5]),
    ("bool", [True, False], "float32", 2.5, "+", "float32", [3.5, 2.5]),
    ("bool", [True, False], "int32", 2, "+", "int32", [3, 2]),
    ("bool", [True, False], "uint8", 2, "+", "uint8", [3, 2]),
    ("uint8", [1, 200], "int8", -2, "+", "uint8", [255, 198]),
    ("int8", [1, -2], "uint8", 2, "+", "int8", [3, 0]),
    ("int8", [1, -2], "int64", 2, "+", "int8", [3, 0]),
    ("uint8", [1, 200], "bool", True, "+", "uint8", [2, 201]),
    ("uint8", 2, "int8", -2, "+", "int16", 0),
    ("bool", True, "int32", 2, "+", "int32", 3),
    ("bool", True, "float32", 2.5, "+", "float32", 3.5),
    ("int32", 2, "int64", 2, "+", "int64", 4),
    ("bfloat16", 2.5, "float16", 2.5, "+", "float32", 5.0),
    ("float32", 2.5, "float64", 0.5, "+", "float64", 3.0),
    ("int64", 2, "float32", 2.5, "+", "float32", 4.5),
    ("int32", 2, "float64", 0.5, "+", "float64", 2.5),
    ("float32", [1.0, 2.0, 3.0], "bfloat16", 2.5, "+", "float32", [3.5, 4.5, 5.5]),
    ("float32", [1.0, 2.0, 3.0], "float16", 2.5, "+", "float32", [3.5, 4.5, 5.5]),
    ("float32", [1.0], "complex64", 1j, "+", "complex64", [1 + 1j]),
    ("float32", [1.0], "complex128", 1j, "+", "complex128", [1 + 1j]),
    ("complex64", [1 + 1j], "float64", 2.5, "+", "complex128", [3.5 + 1j]),
    ("complex64", [1 + 1j], "complex128", 1j, "+", "complex64", [1 + 2j]),
    ("complex128", [1 + 1j], "complex64", 1j, "+", "complex128", [1 + 2j]),
    ("int32", [1, 2, 3], "complex64", 1 + 1j, "+", "complex64", [2 + 1j, 3 + 1j, 4 + 1j]),
    ("float64", [1.0, 2.0, 3.0], "complex64", 1 + 1j, "+", "complex128",
     [2 + 1j, 3 + 1j, 4 + 1j]),
    ("complex64", [1 + 1j], "int64", 2, "+", "complex64", [3 + 1j]),
    ("int32", [1, 2, 3], "float32", 0.5, "-", "float32", [0.5, 1.5, 2.5]),
    ("int64", 2, "int32", [1, 2, 3], "-", "int32", [1, 0, -1]),
    ("int32", [1, 2, 3], "float32", 0.5, "*", "float32", [0.5, 1.0, 1.5]),
    ("int32", [1, 2, 3], "float32", 2.5, "/", "float32", [0.4, 0.8, 1.2]),
    ("float32", [1.0, 2.0, 3.0], "float64", 0.5, "/", "float32", [2.0, 4.0, 6.0]),
    ("int32", [1, 2, 3], "int64", 2, "/", "float32", [0.5, 1.0, 1.5]),
    ("int64", [1, 2, 3], "int32", 2, "/", "float32", [0.5, 1.0, 1.5]),
    ("int32", 2, "int64", 2, "/", "float32", 1.0),
    ("float64", 2.5, "float32", [1.0, 2.0, 3.0], "/", "float32", [2.5, 1.25, 0.8333333]),
    ("int32", [1, 2, 3], "float32", 2.5, "//", "float32", [0.0, 0.0, 1.0]),
    ("int32", [1, 2, 3], "int64", 2, "//", "int64", [0, 1, 1]),
    ("int64", [2, 2, 2], "int32", 2, "//", "int64", [1, 1, 1]),
    ("int64", 2, "int32", [1, 2, 3], "//", "int64", [2, 1, 0]),
    ("float32", [1.0, 2.0, 3.0], "float64", 2.5, "//", "float64", [0.0, 0.0, 1.0]),
    ("int32", [1, 2, 3], "float32", 2.5, "%", "float32", [1.0, 2.0, 0.5]),
    ("int32", [1, 2, 3], "int64", 2, "%", "int32", [1, 0, 1]),
    ("float32", [1.0, 2.0, 3.0], "float64", 2.5, "%", "float32", [1.0, 2.0, 0.5]),
    ("float64", 2.5, "float32", [1.0, 2.0, 3.0], "%", "float32", [0.5, 0.5, 2.5]),
    ("int32", [1, 2, 3], "int64", 2, "**", "int32", [1, 4, 9]),
    ("int32", [1, 2, 3], "float32", 2.5, "**", "float32", [1.0, 5.656854, 15.588457]),
    ("int32", [1, 2, 3], "float64", 2.5, "**", "float64",
     [1.0, 5.656854249492381, 15.588457268119896]),
    ("float32", 2.5, "int32", [1, 2, 3], "**", "float32", [2.5, 6.25, 15.625]),
    ("float32", [1.0, 2.0, 3.0], "float64", 2.5, "**", "float32", [1.0, 5.656854, 15.588457]),
    ("int32", [1, 2, 3], "float32", 2.5, "<", "bool", [True, True, False]),
    ("int32", [1, 2, 3], "float32", 2.5, ">=", "bool", [False, False, True]),
    ("int32", [1, 2, 3], "float64", 2.5, ">", "bool", [False, False, True]),
    ("float32", [1.0, 2.0, 3.0], "int64", 2, "!=", "bool", [True, False, True]),
    ("float32", [1.0, 2.0, 3.0], "float64", 2.5, "<", "bool", [True, True, False]),
    # the 0-d operand is cast to the other's dtype: float32(0.1) == 0.1 there, and
    # float64(float32(0.1)) != 0.1; an int64 beyond int32 wraps (2**32 -> 0)
    ("float32", [0.1], "float64", 0.1, "==", "bool", [True]),
    ("float64", [0.1], "float32", 0.1, "==", "bool", [False]),
    ("int32", [0], "int64", 2**32, "==", "bool", [True]),
    ("int32", [1], "int64", 2**32 + 5, "+", "int32", [6]),
    ("float32", [1.0], "float64", 1e-9, "+", "float32", [1.0]),
]

OPERATORS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
             "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
             "**": lambda a, b: a ** b, "<": lambda a, b: a < b, ">": lambda a, b: a > b,
             ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def _check(out, dtype, values, what):
    assert out.dtype.name == dtype, f"{what}: got {out.dtype.name}, Paddle 3.3.1 gives {dtype}"
    got = np.asarray(out.tolist())
    if dtype == "bool" or dtype.startswith(("int", "uint")):
        np.testing.assert_array_equal(got, values, err_msg=what)
    else:
        np.testing.assert_allclose(got, values, rtol=1e-6, err_msg=what)


@pytest.mark.parametrize("case", ZERO_D_CASES, ids=lambda c: f"{c[0]}{c[4]}{c[2]}")
def test_zero_d_operand_is_a_scalar_as_paddle(case):
    xd, xv, yd, yv, op, want, values = case
    out = OPERATORS[op](_t(xd, xv), _t(yd, yv))
    _check(out, want, values, f"{xd} {xv} {op} {yd} {yv}")


ZERO_D_APIS = [
    # (function, result dtype, values) for int32 [1, 2, 3] with a 0-d float32 2.5
    (oar.add, "float32", [3.5, 4.5, 5.5]), (oar.subtract, "float32", [-1.5, -0.5, 0.5]),
    (oar.multiply, "float32", [2.5, 5.0, 7.5]), (oar.divide, "float32", [0.4, 0.8, 1.2]),
    (oar.floor_divide, "float32", [0.0, 0.0, 1.0]), (oar.remainder, "float32", [1.0, 2.0, 0.5]),
    (oar.mod, "float32", [1.0, 2.0, 0.5]), (oar.floor_mod, "float32", [1.0, 2.0, 0.5]),
    (oar.pow, "float32", [1.0, 5.656854, 15.588457]),
    (oar.less_than, "bool", [True, True, False]), (oar.less_equal, "bool", [True, True, False]),
    (oar.greater_than, "bool", [False, False, True]),
    (oar.greater_equal, "bool", [False, False, True]),
    (oar.equal, "bool", [False, False, False]), (oar.not_equal, "bool", [True, True, True]),
    (oar.Tensor.add, "float32", [3.5, 4.5, 5.5]), (oar.Tensor.multiply, "float32", [2.5, 5.0, 7.5]),
    (oar.Tensor.divide, "float32", [0.4, 0.8, 1.2]), (oar.Tensor.equal, "bool", [False] * 3),
    (oar.Tensor.__radd__, "float32", [3.5, 4.5, 5.5]),
    (oar.Tensor.__rsub__, "float32", [1.5, 0.5, -0.5]),
    (oar.Tensor.__rtruediv__, "float32", [2.5, 1.25, 0.8333333]),
]


@pytest.mark.parametrize("fn,want,values", ZERO_D_APIS, ids=lambda v: getattr(v, "__name__", ""))
def test_zero_d_operand_of_the_functions_as_paddle(fn, want, values):
    x = _t("int32", [1, 2, 3])
    _check(fn(x, _t("float32", 2.5)), want, values, fn.__name__)


def test_zero_d_rule_in_copysign_and_hypot_as_paddle():
    f32, f64 = _t("float32", [1.0, 2.0, 3.0]), _t("float64", 2.5)
    _check(oar.copysign(f32, f64), "float32", [1.0, 2.0, 3.0], "copysign")
    _check(oar.copysign(f64, f32), "float32", [2.5, 2.5, 2.5], "copysign")
    _check(oar.copysign(_t("int32", [1, 2, 3]), _t("int64", 2)), "int32", [1, 2, 3], "copysign")
    _check(oar.copysign(f32, _t("float64", [1.0, 2.0, 3.0])), "float64", [1, 2, 3], "copysign")
    _check(oar.hypot(f32, f64), "float32", [2.6925824, 3.2015622, 3.905125], "hypot")
    _check(oar.hypot(f64, f32), "float32", [2.6925824, 3.2015622, 3.905125], "hypot")
    _check(oar.hypot(_t("int32", [1, 2, 3]), _t("int64", 2)), "float32",
           [2.236068, 2.828427, 3.6055512], "hypot")
    _check(oar.hypot(f64, _t("float32", 2.5)), "float64", 3.5355339059327378, "hypot")


def test_zero_d_operand_elsewhere_keeps_the_tensor_rule_as_paddle():
    i32, f32 = _t("int32", [1, 2, 3]), _t("float32", [1.0, 2.0, 3.0])
    s32, s64 = _t("float32", 2.5), _t("float64", 2.5)
    for fn in (oar.maximum, oar.minimum, oar.atan2):
        with pytest.raises(TypeError):
            fn(i32, s32)
    for fn in (oar.maximum, oar.minimum, oar.fmax, oar.fmin, oar.atan2):
        assert fn(f32, s64).dtype == oar.float64, fn.__name__
    assert oar.logaddexp(f32, s64).dtype == oar.float64
    assert oar.nextafter(f32, s64).dtype == oar.float64
    mask = _t("bool", [True, False])
    _check(oar.where(mask, _t("float32", [1.0, 2.0]), s64), "float64", [1.0, 2.5], "where")
    # a one-element tensor of shape [1] is not 0-d: the tensor rule
    with pytest.raises(TypeError):
        i32 + _t("float32", [0.5])
    assert (f32 + _t("float64", [0.5])).dtype == oar.float64
    # in place: Paddle 3.3.1 refuses these mixes too
    for y in (s32, _t("int64", 2)):
        with pytest.raises(TypeError):
            i32.clone().add_(y)
    with pytest.raises(TypeError):
        f32.clone().multiply_(_t("int64", 2))


def test_zero_d_operand_gradient_has_its_dtype_as_paddle():
    """Paddle 3.3.1: x float32 [1, 2] * y 0-d float64 2.5 is float32, x.grad float32 and
    y.grad float64 3.0; int32 [1, 2] * y 0-d float32: y.grad float32 3.0."""
    x = _t("float32", [1.0, 2.0])
    y = _t("float64", 2.5)
    x.stop_gradient = y.stop_gradient = False
    out = x * y
    assert out.dtype == oar.float32
    out.sum().backward()
    assert x.grad.dtype == oar.float32 and y.grad.dtype == oar.float64
    assert y.grad.item() == 3.0 and x.grad.tolist() == [2.5, 2.5]
    y2 = _t("float32", 2.5)
    y2.stop_gradient = False
    (_t("int32", [1, 2]) * y2).sum().backward()
    assert y2.grad.dtype == oar.float32 and y2.grad.item() == 3.0


def test_a_promotion_is_announced_once_as_paddle_does(tmp_path):
    # Paddle 3.3.1 logs "Got different data type, run type promotion automatically, this
    # may cause data type been changed." once per process (glog, stderr) when an
    # arithmetic or comparison op promotes; equal dtypes say nothing
    import subprocess
    import sys
    line = "Got different data type, run type promotion automatically"
    same = ("import oar\nx = oar.to_tensor([1.0, 2.0])\n"
            "print((x + x).dtype, (x * oar.to_tensor(2.0)).dtype)\n")
    r = subprocess.run([sys.executable, "-c", same], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0 and line not in r.stderr, r.stderr
    mixed = ("import oar\nx = oar.to_tensor([1, 2], 'int32')\n"
             "a = x + oar.to_tensor(0.5)\nb = oar.to_tensor([1.0]) < oar.to_tensor([2.0], 'float64')\n"
             "print(a.dtype, b.dtype)\n")
    r = subprocess.run([sys.executable, "-c", mixed], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["oar.float32", "oar.bool"], r.stdout
    assert r.stderr.count(line) == 1, r.stderr
