"""The op table: one entry per op of oar's declarations (src/oar/ops/*.yaml), a function
that writes the op as ONNX nodes.

A handler gets the graph under construction (_graph.Graph) and the op (Op: its tensor
arguments as ONNX value names, its attributes) and returns the ONNX name of the op's
output. ONNX_OPS holds, for the documentation, the ONNX ops each entry writes. The
semantics are those of oar's kernels and InferMeta functions (src/oar/kernels/);
tests/python/test_onnx_export.py runs every entry against the oar op."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence, TypeVar

import numpy as np

from ._errors import UnsupportedOpError
from ._graph import FLOATS, ONNX_TYPES, Graph, tensor_proto

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _finite(v: Any) -> Any:
    """An attribute value with the program's strings for non-finite floats ("inf",
    "-inf", "nan") as floats."""
    if isinstance(v, str):
        return _NON_FINITE.get(v, v)
    if isinstance(v, list):
        return [_finite(e) for e in v]
    return v


class Op:
    """One op of the program as its handler sees it.

    args: one list of ONNX names per tensor argument of the declaration (one name for
    a Tensor, several for a Tensor[], none for an absent tensor); arg_ids: the same as
    the program's value ids. attrs: the non-tensor arguments by name. symbolic: the
    elements of attributes that depend on a symbolic dimension, {attr: {index:
    (symbol, scale, offset)}} (index -1: a scalar attribute); symbol_value(symbol,
    scale, offset) writes the nodes computing one (int64, shape [1]). consumers: the
    ops of the program that read the output; is_output: whether it is a program output;
    out_shape: the output's shape at capture, when the program records it."""

    def __init__(
        self,
        g: Graph,
        spec: dict,
        args: list[list[str]],
        symbolic: dict[str, dict[int, tuple]],
        symbol_value: Callable[..., str],
        consumers: list[dict],
        is_output: bool,
    ) -> None:
        self.g = g
        self.type = spec["type"]
        self.layer = spec.get("layer", "") or ""
        self.args = args
        self.arg_ids: list[list[int]] = spec["inputs"]
        self.attrs: dict = {k: _finite(v) for k, v in (spec.get("attrs", {}) or {}).items()}
        shape = spec.get("shape")
        self.out_shape: list[int] | None = None if shape is None else [int(d) for d in shape]
        self.symbolic = symbolic
        self._symbol_value = symbol_value
        self.consumers = consumers
        self.is_output = is_output

    def _dynamic(self, name: str) -> dict[int, str]:
        return {i: self._symbol_value(*e) for i, e in self.symbolic.get(name, {}).items()}

    def unsupported(self, reason: str) -> UnsupportedOpError:
        return UnsupportedOpError(self.type, self.layer, reason)

    # ---- tensor arguments ----------------------------------------------------------------
    def x(self, i: int = 0) -> str | None:
        """The ONNX name of tensor argument i (None if absent)."""
        if i >= len(self.args) or not self.args[i]:
            return None
        return self.args[i][0]

    def need(self, i: int, what: str) -> str:
        x = self.x(i)
        if x is None:
            raise self.unsupported(f"its tensor argument '{what}' is absent")
        return x

    def xs(self, i: int) -> list[str]:
        return list(self.args[i]) if i < len(self.args) else []

    # ---- attributes ----------------------------------------------------------------------
    def attr(self, name: str, default: Any = None) -> Any:
        v = self.attrs.get(name, default)
        if name in self.symbolic:
            raise self.unsupported(
                f"its attribute '{name}' depends on a symbolic dimension, which this op "
                f"cannot take at run time; export with a static shape for that input"
            )
        return v

    def dtype(self, name: str, default: str | None = None) -> str | None:
        """A DataType attribute: a dtype name, or default when undefined."""
        v = self.attrs.get(name, None)
        if v is None or v == "undefined" or v == "":
            return default
        return str(v)

    def ints(self, name: str, default: Sequence[int] = ()) -> list[int] | str:
        """An int[] attribute: a list of ints, or (when elements depend on symbolic
        dimensions) the name of a 1-D int64 ONNX value computed at run time."""
        values = list(self.attrs.get(name, default))
        if name not in self.symbolic:
            return [int(v) for v in values]
        dyn = self._dynamic(name)
        pieces: list[str] = []
        run: list[int] = []
        for i, v in enumerate(values):
            if i in dyn:
                if run:
                    pieces.append(self.g.ints(run))
                    run = []
                pieces.append(dyn[i])
            else:
                run.append(int(v))
        if run:
            pieces.append(self.g.ints(run))
        return pieces[0] if len(pieces) == 1 else self.g.op("Concat", pieces, axis=0)

    def scalar_value(self, name: str, default: Any, dtype: str) -> str:
        """A Scalar/int attribute as a 0-D ONNX value of dtype (run-time if symbolic)."""
        if -1 in self.symbolic.get(name, {}):
            v = self.g.op("Squeeze", [self._dynamic(name)[-1], self.g.ints([0])])
            return self.g.cast(v, dtype)
        return self.g.scalar(self.attrs.get(name, default), dtype)

    def int_list_input(self, name: str, default: Sequence[int] = ()) -> str:
        """An int[] attribute as a 1-D int64 ONNX value (a constant or run-time)."""
        v = self.ints(name, default)
        return v if isinstance(v, str) else self.g.ints(v)


Handler = Callable[[Graph, Op], str]
TABLE: dict[str, Handler] = {}
ONNX_OPS: dict[str, str] = {}


_F = TypeVar("_F", bound=Handler)


def _reg(names: str, onnx_ops: str) -> Callable[[_F], _F]:
    """Registers the handler for the op types in names (space-separated); onnx_ops: the
    ONNX ops written, one text for all or one per name separated by " | "."""
    texts = onnx_ops.split(" | ")
    ops = names.split()
    assert len(texts) in (1, len(ops)), names

    def deco(fn: _F) -> _F:
        for i, n in enumerate(ops):
            TABLE[n] = fn
            ONNX_OPS[n] = texts[i if len(texts) > 1 else 0]
        return fn

    return deco


def op_table() -> str:
    """The Markdown table of the mapping (docs/onnx.md holds it; a test compares)."""
    rows = ["| oar op | ONNX |", "|---|---|"]
    rows += [f"| `{n}` | {ONNX_OPS[n]} |" for n in sorted(ONNX_OPS)]
    return "\n".join(rows) + "\n"


# ---- helpers -------------------------------------------------------------------------------


def _float(g: Graph, x: str) -> str:
    """x as float32 unless it is floating point (float_only ops)."""
    return x if g.dtypes[x] in FLOATS else g.cast(x, "float32")


def _rank(g: Graph, op: Op, x: str) -> int:
    r = g.rank(x)
    if r is None:
        raise op.unsupported("the rank of its input is unknown at export")
    return r


def _axis(a: int, rank: int) -> int:
    return a + rank if a < 0 else a


def _wider_float(a: str, b: str) -> str:
    if {a, b} == {"float16", "bfloat16"}:
        return "float32"
    order = ["float16", "bfloat16", "float32", "float64"]
    return max(a, b, key=order.index)


def _promote(g: Graph, names: list[str]) -> list[str]:
    """Floating-point inputs of different dtypes cast to one (oar promotes only those:
    the wider, except that a 0-D tensor takes the dtype of a tensor with dims)."""
    dts = {g.dtypes[n] for n in names}
    if len(dts) == 1 or not dts <= set(FLOATS):
        return names
    ranked = [n for n in names if g.rank(n) != 0]
    pool = ranked if ranked else names
    target = g.dtypes[pool[0]]
    for n in pool[1:]:
        target = _wider_float(target, g.dtypes[n])
    return [g.cast(n, target) for n in names]


def _reduce(g: Graph, onnx_op: str, x: str, axes: Sequence[int], keepdim: bool) -> str:
    """ONNX's Reduce*: axes empty reduces every axis (the attribute form before opset 18,
    the input form from 18; ReduceSum takes an input from 13)."""
    axes = list(axes)
    if onnx_op == "ReduceSum" or g.opset >= 18:
        ins = [x, g.ints(axes)] if axes else [x]
        return g.op(onnx_op, ins, keepdims=int(keepdim))
    if axes:
        return g.op(onnx_op, [x], keepdims=int(keepdim), axes=axes)
    return g.op(onnx_op, [x], keepdims=int(keepdim))


def _attr_const(g: Graph, x: str, value: float) -> str:
    """A 0-D constant of x's dtype."""
    return g.scalar(value, g.dtypes[x])


def _in_float(g: Graph, x: str, fn: Callable[[str], str]) -> str:
    """fn applied to x in float64 when x is an integer tensor, the result cast back
    (oar computes float attributes on integer tensors in floating point and truncates)."""
    dt = g.dtypes[x]
    if dt in FLOATS:
        return fn(x)
    return g.cast(fn(g.cast(x, "float64")), dt)


def _shape_of(g: Graph, x: str) -> str:
    """x's shape as a 1-D int64 value: a constant when known at export, else Shape(x)."""
    s = g.shape(x)
    if s is not None and all(d is not None for d in s):
        return g.ints(s)
    return g.op("Shape", [x], dtype="int64")


def _shape_slice(g: Graph, x: str, start: int, end: int | None = None) -> str:
    """Shape(x)[start:end] (int64, 1-D)."""
    known = g.shape(x)
    if known is not None and all(d is not None for d in known[start:end]):
        return g.ints(known[start:end])
    s = g.op("Shape", [x], dtype="int64")
    ends = [end if end is not None else INT64_MAX]
    return g.op("Slice", [s, g.ints([start]), g.ints(ends), g.ints([0])])


# ---- elementwise unary ---------------------------------------------------------------------

_UNARY = {
    "relu": "Relu",
    "abs": "Abs",
    "neg": "Neg",
    "floor": "Floor",
    "ceil": "Ceil",
    "sign": "Sign",
    "softsign": "Softsign",
    "assign": "Identity",
    "isnan": "IsNaN",
    "isinf": "IsInf",
}
# float_only in the declarations: an integer input computes (and returns) float32
_UNARY_FLOAT = {
    "exp": "Exp",
    "log": "Log",
    "sin": "Sin",
    "cos": "Cos",
    "tan": "Tan",
    "asin": "Asin",
    "acos": "Acos",
    "atan": "Atan",
    "sinh": "Sinh",
    "cosh": "Cosh",
    "asinh": "Asinh",
    "acosh": "Acosh",
    "atanh": "Atanh",
    "sqrt": "Sqrt",
    "tanh": "Tanh",
    "sigmoid": "Sigmoid",
    "erf": "Erf",
    "reciprocal": "Reciprocal",
}


def _unary(onnx_op: str, to_float: bool) -> Handler:
    def handler(g: Graph, op: Op) -> str:
        x = op.need(0, "x")
        if onnx_op in ("IsNaN", "IsInf"):
            if g.dtypes[x] not in FLOATS:  # never for integers: x != x is all false
                return g.op("Not", [g.op("Equal", [x, x], dtype="bool")])
            return g.op(onnx_op, [x], dtype="bool")
        if to_float:
            x = _float(g, x)
        return g.op(onnx_op, [x])

    return handler


for _name, _onnx in _UNARY.items():
    _reg(_name, _onnx)(_unary(_onnx, False))
for _name, _onnx in _UNARY_FLOAT.items():
    _reg(_name, _onnx)(_unary(_onnx, True))


@_reg("isfinite", "IsNaN, IsInf, Or, Not")
def _isfinite(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    if g.dtypes[x] not in FLOATS:
        return g.op("Equal", [x, x], dtype="bool")
    bad = g.op("Or", [g.op("IsNaN", [x], dtype="bool"), g.op("IsInf", [x], dtype="bool")])
    return g.op("Not", [bad])


@_reg("rsqrt", "Sqrt, Reciprocal")
def _rsqrt(g: Graph, op: Op) -> str:
    return g.op("Reciprocal", [g.op("Sqrt", [_float(g, op.need(0, "x"))])])


@_reg("square", "Mul")
def _square(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    return g.op("Mul", [x, x])


@_reg("log1p", "Add, Log")
def _log1p(g: Graph, op: Op) -> str:
    x = _float(g, op.need(0, "x"))
    return g.op("Log", [g.op("Add", [x, _attr_const(g, x, 1.0)])])


@_reg("expm1", "Exp, Sub")
def _expm1(g: Graph, op: Op) -> str:
    x = _float(g, op.need(0, "x"))
    return g.op("Sub", [g.op("Exp", [x]), _attr_const(g, x, 1.0)])


@_reg("log2 log10", "Log, Mul")
def _log_base(g: Graph, op: Op) -> str:
    x = _float(g, op.need(0, "x"))
    k = 1.0 / math.log(2.0 if op.type.startswith("log2") else 10.0)
    return g.op("Mul", [g.op("Log", [x]), _attr_const(g, x, k)])


@_reg("erfc", "Erf, Sub")
def _erfc(g: Graph, op: Op) -> str:
    x = _float(g, op.need(0, "x"))
    return g.op("Sub", [_attr_const(g, x, 1.0), g.op("Erf", [x])])


@_reg("trunc", "Abs, Floor, Sign, Mul")
def _trunc(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    if g.dtypes[x] not in FLOATS:
        return g.op("Identity", [x])
    return g.op("Mul", [g.op("Sign", [x]), g.op("Floor", [g.op("Abs", [x])])])


@_reg("round", "Round (Mul, Div with decimals)")
def _round(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    if g.dtypes[x] not in FLOATS:
        return g.op("Identity", [x])
    d = int(op.attr("decimals", 0))
    if d == 0:
        return g.op("Round", [x])
    k = _attr_const(g, x, 10.0**d)
    return g.op("Div", [g.op("Round", [g.op("Mul", [x, k])]), k])


@_reg("logical_not", "Not")
def _logical_not(g: Graph, op: Op) -> str:
    return g.op("Not", [g.cast(op.need(0, "x"), "bool")])


@_reg("bitwise_not", "Not (bool), BitwiseNot (opset 18)")
def _bitwise_not(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    if g.dtypes[x] == "bool":
        return g.op("Not", [x])
    if g.opset < 18:
        raise op.unsupported("bitwise_not of integers needs opset 18 (BitwiseNot)")
    return g.op("BitwiseNot", [x])


@_reg("detach", "Identity")
def _detach(g: Graph, op: Op) -> str:
    return g.op("Identity", [op.need(0, "x")])


@_reg("cast", "Cast")
def _cast(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    dt = op.dtype("dtype")
    if dt is None:
        return g.op("Identity", [x])
    return g.op("Cast", [x], dtype=dt, to=ONNX_TYPES[dt])


@_reg("scale", "Mul, Add")
def _scale(g: Graph, op: Op) -> str:
    s = float(op.attr("scale", 1.0))
    b = float(op.attr("bias", 0.0))
    after = bool(op.attr("bias_after_scale", True))

    def f(x: str) -> str:
        if not after and b != 0.0:
            x = g.op("Add", [x, _attr_const(g, x, b)])
        if s != 1.0:
            x = g.op("Mul", [x, _attr_const(g, x, s)])
        if after and b != 0.0:
            x = g.op("Add", [x, _attr_const(g, x, b)])
        if x == op.x(0):
            x = g.op("Identity", [x])
        return x

    return _in_float(g, op.need(0, "x"), f)


@_reg("pow", "Pow")
def _pow(g: Graph, op: Op) -> str:
    y = float(op.attr("y", 1.0))
    return _in_float(g, op.need(0, "x"), lambda x: g.op("Pow", [x, _attr_const(g, x, y)]))


@_reg("clip", "Clip")
def _clip(g: Graph, op: Op) -> str:
    lo, hi = float(op.attr("min")), float(op.attr("max"))
    return _in_float(
        g,
        op.need(0, "x"),
        lambda x: g.op("Clip", [x, _attr_const(g, x, lo), _attr_const(g, x, hi)]),
    )


@_reg("logit", "Clip, Sub, Div, Log")
def _logit(g: Graph, op: Op) -> str:
    x = _float(g, op.need(0, "x"))
    eps = float(op.attr("eps", -1.0))
    if eps >= 0:
        x = g.op("Clip", [x, _attr_const(g, x, eps), _attr_const(g, x, 1.0 - eps)])
    return g.op("Log", [g.op("Div", [x, g.op("Sub", [_attr_const(g, x, 1.0), x])])])


@_reg("nan_to_num", "IsNaN, IsInf, Where")
def _nan_to_num(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    if g.dtypes[x] not in FLOATS:
        return g.op("Identity", [x])
    nan, posinf, neginf = (float(op.attr(k)) for k in ("nan", "posinf", "neginf"))
    out = g.op("Where", [g.op("IsNaN", [x], dtype="bool"), _attr_const(g, x, nan), x])
    pos = g.op("IsInf", [x], dtype="bool", detect_negative=0)
    out = g.op("Where", [pos, _attr_const(g, x, posinf), out])
    neg = g.op("IsInf", [x], dtype="bool", detect_positive=0)
    return g.op("Where", [neg, _attr_const(g, x, neginf), out])


# ---- activations ---------------------------------------------------------------------------


@_reg("gelu", "Erf or Tanh, Mul, Add")
def _gelu(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    c = lambda v: _attr_const(g, x, v)  # noqa: E731
    if op.attr("approximate", False):
        # 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
        x3 = g.op("Mul", [g.op("Mul", [x, x]), x])
        inner = g.op("Add", [x, g.op("Mul", [x3, c(0.044715)])])
        t = g.op("Tanh", [g.op("Mul", [inner, c(math.sqrt(2.0 / math.pi))])])
    else:
        # 0.5 x (1 + erf(x / sqrt(2)))
        t = g.op("Erf", [g.op("Mul", [x, c(1.0 / math.sqrt(2.0))])])
    return g.op("Mul", [g.op("Mul", [x, c(0.5)]), g.op("Add", [t, c(1.0)])])


@_reg("silu", "Sigmoid, Mul")
def _silu(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    return g.op("Mul", [x, g.op("Sigmoid", [x])])


@_reg("mish", "Mish (opset 18); Softplus, Tanh, Mul")
def _mish(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    if g.opset >= 18:
        return g.op("Mish", [x])
    return g.op("Mul", [x, g.op("Tanh", [g.op("Softplus", [x])])])


# one ONNX op whose attributes are oar's: {ONNX attribute: (oar attribute, its default)}
_WITH_ATTRS: dict[str, tuple[str, dict[str, tuple[str, Any]]]] = {
    "elu": ("Elu", {"alpha": ("alpha", 1.0)}),
    "selu": (
        "Selu",
        {"alpha": ("alpha", 1.6732632423543772), "gamma": ("scale", 1.0507009873554805)},
    ),
    "leaky_relu": ("LeakyRelu", {"alpha": ("negative_slope", 0.01)}),
    "hardsigmoid": ("HardSigmoid", {"alpha": ("slope", 0.1666667), "beta": ("offset", 0.5)}),
    "softmax": ("Softmax", {"axis": ("axis", -1)}),
    "log_softmax": ("LogSoftmax", {"axis": ("axis", -1)}),
}


def _with_attrs(onnx_op: str, attrs: dict[str, tuple[str, Any]]) -> Handler:
    def handler(g: Graph, op: Op) -> str:
        kw = {k: type(d)(op.attr(name, d)) for k, (name, d) in attrs.items()}
        return g.op(onnx_op, [op.need(0, "x")], **kw)

    return handler


for _name, (_onnx, _attrs) in _WITH_ATTRS.items():
    _reg(_name, _onnx)(_with_attrs(_onnx, _attrs))


@_reg("celu", "Celu")
def _celu(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    alpha = float(op.attr("alpha", 1.0))
    if g.dtypes[x] == "float32":
        return g.op("Celu", [x], alpha=alpha)
    # Celu takes float32 only: max(0, x) + min(0, alpha (exp(x / alpha) - 1))
    a = _attr_const(g, x, alpha)
    e = g.op("Mul", [a, g.op("Sub", [g.op("Exp", [g.op("Div", [x, a])]), _attr_const(g, x, 1.0)])])
    zero = _attr_const(g, x, 0.0)
    return g.op("Add", [g.op("Max", [x, zero]), g.op("Min", [e, zero])])


@_reg("softplus", "Softplus, Mul, Div, Greater, Where")
def _softplus(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    beta = float(op.attr("beta", 1.0))
    threshold = float(op.attr("threshold", 20.0))
    bx = x if beta == 1.0 else g.op("Mul", [x, _attr_const(g, x, beta)])
    sp = g.op("Softplus", [bx])
    if beta != 1.0:
        sp = g.op("Div", [sp, _attr_const(g, x, beta)])
    big = g.op("Greater", [bx, _attr_const(g, x, threshold)], dtype="bool")
    return g.op("Where", [big, x, sp])


@_reg("log_sigmoid", "Neg, Softplus")
def _log_sigmoid(g: Graph, op: Op) -> str:
    return g.op("Neg", [g.op("Softplus", [g.op("Neg", [op.need(0, "x")])])])


@_reg("tanhshrink", "Tanh, Sub")
def _tanhshrink(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    return g.op("Sub", [x, g.op("Tanh", [x])])


@_reg("hardswish", "HardSwish")
def _hardswish(g: Graph, op: Op) -> str:
    return g.op("HardSwish", [op.need(0, "x")])


@_reg("hardtanh", "Clip")
def _hardtanh(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    lo, hi = float(op.attr("min", -1.0)), float(op.attr("max", 1.0))
    return g.op("Clip", [x, _attr_const(g, x, lo), _attr_const(g, x, hi)])


@_reg("softshrink hardshrink", "Shrink")
def _shrink(g: Graph, op: Op) -> str:
    t = float(op.attr("threshold", 0.5))
    return g.op("Shrink", [op.need(0, "x")], lambd=t, bias=t if op.type.startswith("soft") else 0.0)


@_reg("thresholded_relu", "Greater, Where")
def _thresholded_relu(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    t = float(op.attr("threshold", 1.0))
    v = float(op.attr("value", 0.0))
    keep = g.op("Greater", [x, _attr_const(g, x, t)], dtype="bool")
    return g.op("Where", [keep, x, _attr_const(g, x, v)])


@_reg("prelu", "PRelu")
def _prelu(g: Graph, op: Op) -> str:
    x, w = _promote(g, [op.need(0, "x"), op.need(1, "weight")])
    return g.op("PRelu", [x, w])


# ---- elementwise binary --------------------------------------------------------------------

_BINARY = {
    "add": "Add",
    "subtract": "Sub",
    "multiply": "Mul",
    "elementwise_pow": "Pow",
    "maximum": "Max",
    "minimum": "Min",
}
_COMPARE = {
    "equal": "Equal",
    "less_than": "Less",
    "less_equal": "LessOrEqual",
    "greater_than": "Greater",
    "greater_equal": "GreaterOrEqual",
}


def _binary(onnx_op: str) -> Handler:
    def handler(g: Graph, op: Op) -> str:
        x, y = _promote(g, [op.need(0, "x"), op.need(1, "y")])
        if onnx_op in ("Add", "Sub", "Mul") and g.dtypes[x] == "bool":
            # bool arithmetic: add is or, multiply and, subtract xor (the kernels' results)
            logical = {"Add": "Or", "Mul": "And", "Sub": "Xor"}[onnx_op]
            return g.op(logical, [x, y])
        return g.op(onnx_op, [x, y])

    return handler


def _compare(onnx_op: str) -> Handler:
    def handler(g: Graph, op: Op) -> str:
        x, y = _promote(g, [op.need(0, "x"), op.need(1, "y")])
        return g.op(onnx_op, [x, y], dtype="bool")

    return handler


for _name, _onnx in _BINARY.items():
    _reg(_name, _onnx)(_binary(_onnx))
for _name, _onnx in _COMPARE.items():
    _reg(_name, _onnx)(_compare(_onnx))


@_reg("not_equal", "Equal, Not")
def _not_equal(g: Graph, op: Op) -> str:
    x, y = _promote(g, [op.need(0, "x"), op.need(1, "y")])
    return g.op("Not", [g.op("Equal", [x, y], dtype="bool")])


@_reg("divide", "Div (integers cast to float32)")
def _divide(g: Graph, op: Op) -> str:
    x, y = _promote(g, [_float(g, op.need(0, "x")), _float(g, op.need(1, "y"))])
    return g.op("Div", [x, y])


@_reg("floor_divide", "Div, Floor (floats); Div, Mod, Sub (integers)")
def _floor_divide(g: Graph, op: Op) -> str:
    x, y = _promote(g, [op.need(0, "x"), op.need(1, "y")])
    if g.dtypes[x] in FLOATS:
        return g.op("Floor", [g.op("Div", [x, y])])
    # ONNX's integer Div truncates: one less where the remainder is non-zero and the signs differ
    q = g.op("Div", [x, y])
    r = g.op("Mod", [x, y], fmod=1)
    zero = _attr_const(g, x, 0)
    nonzero = g.op("Not", [g.op("Equal", [r, zero], dtype="bool")])
    signs = g.op(
        "Xor",
        [g.op("Less", [r, zero], dtype="bool"), g.op("Less", [y, zero], dtype="bool")],
    )
    fix = g.op("And", [nonzero, signs])
    return g.op("Sub", [q, g.cast(fix, g.dtypes[x])])


@_reg("remainder", "Mod (Where, Add for floats)")
def _remainder(g: Graph, op: Op) -> str:
    x, y = _promote(g, [op.need(0, "x"), op.need(1, "y")])
    if g.dtypes[x] not in FLOATS:
        return g.op("Mod", [x, y], fmod=0)  # the sign of the divisor, as Python's %
    r = g.op("Mod", [x, y], fmod=1)
    zero = _attr_const(g, x, 0.0)
    nonzero = g.op("Not", [g.op("Equal", [r, zero], dtype="bool")])
    signs = g.op(
        "Xor",
        [g.op("Less", [r, zero], dtype="bool"), g.op("Less", [y, zero], dtype="bool")],
    )
    fix = g.op("And", [nonzero, signs])
    return g.op("Where", [fix, g.op("Add", [r, y]), r])


@_reg("logical_and logical_or logical_xor", "And | Or | Xor")
def _logical(g: Graph, op: Op) -> str:
    onnx_op = {"and": "And", "or": "Or", "xor": "Xor"}[op.type.split("_")[1]]
    x = g.cast(op.need(0, "x"), "bool")
    y = g.cast(op.need(1, "y"), "bool")
    return g.op(onnx_op, [x, y])


@_reg(
    "bitwise_and bitwise_or bitwise_xor",
    "And (bool), BitwiseAnd (opset 18) | Or (bool), BitwiseOr (opset 18) "
    "| Xor (bool), BitwiseXor (opset 18)",
)
def _bitwise(g: Graph, op: Op) -> str:
    kind = op.type.split("_")[1]
    x, y = op.need(0, "x"), op.need(1, "y")
    if g.dtypes[x] == "bool":
        return g.op({"and": "And", "or": "Or", "xor": "Xor"}[kind], [x, y])
    if g.opset < 18:
        raise op.unsupported(f"bitwise_{kind} of integers needs opset 18")
    return g.op({"and": "BitwiseAnd", "or": "BitwiseOr", "xor": "BitwiseXor"}[kind], [x, y])


@_reg("where", "Where")
def _where(g: Graph, op: Op) -> str:
    c = g.cast(op.need(0, "condition"), "bool")
    x, y = _promote(g, [op.need(1, "x"), op.need(2, "y")])
    return g.op("Where", [c, x, y])


@_reg("masked_fill", "Where")
def _masked_fill(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    mask = g.cast(op.need(1, "mask"), "bool")
    v = g.cast(op.need(2, "value"), g.dtypes[x])
    return g.op("Where", [mask, v, x])


@_reg("lerp", "Sub, Mul, Add")
def _lerp(g: Graph, op: Op) -> str:
    x, y, w = _promote(g, [op.need(0, "x"), op.need(1, "y"), op.need(2, "weight")])
    return g.op("Add", [x, g.op("Mul", [w, g.op("Sub", [y, x])])])


# ---- linear algebra and layers -------------------------------------------------------------


def _swap_last(g: Graph, op: Op, x: str) -> str:
    r = _rank(g, op, x)
    if r < 2:
        return x
    perm = list(range(r))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return g.op("Transpose", [x], perm=perm)


@_reg("matmul", "MatMul (Transpose)")
def _matmul(g: Graph, op: Op) -> str:
    x, y = _promote(g, [op.need(0, "x"), op.need(1, "y")])
    if op.attr("transpose_x", False):
        x = _swap_last(g, op, x)
    if op.attr("transpose_y", False):
        y = _swap_last(g, op, y)
    return g.op("MatMul", [x, y])


@_reg("linear", "MatMul, Add")
def _linear(g: Graph, op: Op) -> str:
    x, w = _promote(g, [op.need(0, "x"), op.need(1, "weight")])
    out = g.op("MatMul", [x, w])  # Paddle's layout: weight [in_features, out_features]
    b = op.x(2)
    if b is not None:
        out = g.op("Add", [out, g.cast(b, g.dtypes[out])])
    return out


def _window_attrs(
    op: Op, nd: int, with_dilations: bool = True
) -> tuple[list[int], list[int], list[int]]:
    strides = [int(s) for s in op.attr("strides", [])] or [1] * nd
    pads = [int(p) for p in op.attr("paddings", [])] or [0] * (2 * nd)
    if len(pads) == nd:
        pads = pads * 2
    # oar: a (before, after) pair per spatial dim; ONNX: all befores, then all afters
    onnx_pads = pads[0::2] + pads[1::2]
    dil = [int(d) for d in op.attr("dilations", [])] if with_dilations else []
    return strides, onnx_pads, dil or [1] * nd


@_reg("conv conv_transpose", "Conv | ConvTranspose")
def _conv(g: Graph, op: Op) -> str:
    x, w = _promote(g, [op.need(0, "x"), op.need(1, "weight")])
    nd = _rank(g, op, w) - 2
    strides, pads, dil = _window_attrs(op, nd)
    attrs: dict[str, Any] = {"strides": strides, "pads": pads, "dilations": dil}
    if op.type.startswith("conv_transpose"):
        attrs["output_padding"] = [int(p) for p in op.attr("output_padding", [])] or [0] * nd
        return g.op("ConvTranspose", [x, w], group=int(op.attr("groups", 1)), **attrs)
    return g.op("Conv", [x, w], group=int(op.attr("groups", 1)), **attrs)


@_reg("embedding", "Gather (Equal, Where for padding_idx)")
def _embedding(g: Graph, op: Op) -> str:
    ids, w = op.need(0, "x"), op.need(1, "weight")
    out = g.op("Gather", [w, ids], axis=0)
    pad = int(op.attr("padding_idx", -1))
    if pad >= 0:
        hit = g.op("Equal", [ids, g.scalar(pad, g.dtypes[ids])], dtype="bool")
        hit = g.op("Unsqueeze", [hit, g.ints([-1])])
        out = g.op("Where", [hit, _attr_const(g, out, 0.0), out])
    return out


@_reg("one_hot", "OneHot")
def _one_hot(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    depth = g.ints([int(op.attr("num_classes"))])
    values = g.const(np.array([0.0, 1.0], dtype=np.float32), "float32")
    return g.op("OneHot", [x, depth, values], dtype="float32", axis=-1)


def _norm_axes(g: Graph, op: Op, x: str, begin: int) -> tuple[int, list[int]]:
    r = _rank(g, op, x)
    b = _axis(begin, r)
    return r, list(range(b, r))


def _param_to_tail(g: Graph, p: str, x: str, begin: int, r: int) -> str:
    """A norm parameter (any shape with the normalised part's element count) shaped as
    x.shape[begin:]."""
    if g.rank(p) == r - begin:
        return p
    return g.op("Reshape", [p, _shape_slice(g, x, begin)])


def _layer_norm_parts(g: Graph, x: str, axes: list[int], eps: float, rms: bool) -> str:
    if rms:
        d = x
    else:
        d = g.op("Sub", [x, _reduce(g, "ReduceMean", x, axes, True)])
    var = _reduce(g, "ReduceMean", g.op("Mul", [d, d]), axes, True)
    den = g.op("Sqrt", [g.op("Add", [var, _attr_const(g, x, eps)])])
    return g.op("Div", [d, den])


@_reg("layer_norm", "LayerNormalization (opset 17); ReduceMean, Sub, Mul, Sqrt, Div, Add")
def _layer_norm(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    eps = float(op.attr("epsilon", 1e-5))
    r, axes = _norm_axes(g, op, x, int(op.attr("begin_norm_axis", 1)))
    b0 = axes[0] if axes else r
    w, b = op.x(1), op.x(2)
    w = _param_to_tail(g, g.cast(w, g.dtypes[x]), x, b0, r) if w is not None else None
    b = _param_to_tail(g, g.cast(b, g.dtypes[x]), x, b0, r) if b is not None else None
    if g.opset >= 17 and w is not None:
        return g.op(
            "LayerNormalization", [x, w] + ([b] if b is not None else []), axis=b0, epsilon=eps
        )
    y = _layer_norm_parts(g, x, axes, eps, False)
    if w is not None:
        y = g.op("Mul", [y, w])
    if b is not None:
        y = g.op("Add", [y, b])
    return y


@_reg("rms_norm", "ReduceMean, Mul, Add, Sqrt, Div")
def _rms_norm(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    eps = float(op.attr("epsilon", 1e-5))
    r, axes = _norm_axes(g, op, x, int(op.attr("begin_norm_axis", 1)))
    y = _layer_norm_parts(g, x, axes, eps, True)
    w = op.x(1)
    if w is not None:
        y = g.op(
            "Mul", [y, _param_to_tail(g, g.cast(w, g.dtypes[x]), x, axes[0] if axes else r, r)]
        )
    return y


@_reg("batch_norm", "ReduceMean, Sub, Mul, Sqrt, Div, Add (the batch's statistics)")
def _batch_norm(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    eps = float(op.attr("epsilon", 1e-5))
    r = _rank(g, op, x)
    ax = _axis(int(op.attr("axis", 1)), r)
    axes = [a for a in range(r) if a != ax]
    y = _layer_norm_parts(g, x, axes, eps, False)
    shape = [1] * r
    shape[ax] = -1
    for i, onnx_op in ((1, "Mul"), (2, "Add")):
        p = op.x(i)
        if p is not None:
            p = g.op("Reshape", [g.cast(p, g.dtypes[x]), g.ints(shape)])
            y = g.op(onnx_op, [y, p])
    return y


@_reg(
    "batch_norm_infer",
    "BatchNormalization (float32/float64, channels at axis 1); else Reshape, Sub, Add, Sqrt, Div, "
    "Mul",
)
def _batch_norm_infer(g: Graph, op: Op) -> str:
    names = ("x", "mean", "variance", "weight", "bias")
    x, m, v, w, b = _promote(g, [_float(g, op.need(i, n)) for i, n in enumerate(names)])
    eps = float(op.attr("epsilon", 1e-5))
    r = _rank(g, op, x)
    ax = _axis(int(op.attr("axis", 1)), r)
    if ax == 1 and g.dtypes[x] in ("float32", "float64"):
        return g.op("BatchNormalization", [x, w, b, m, v], epsilon=eps)
    shape = [1] * r
    shape[ax] = -1
    m, v, w, b = (g.op("Reshape", [p, g.ints(shape)]) for p in (m, v, w, b))
    den = g.op("Sqrt", [g.op("Add", [v, _attr_const(g, x, eps)])])
    y = g.op("Div", [g.op("Sub", [x, m]), den])
    return g.op("Add", [g.op("Mul", [y, w]), b])


# ---- recurrent -----------------------------------------------------------------------------
# oar's gate blocks in ONNX's order: LSTM i, f, g, o -> i, o, f, c; GRU r, z, c -> z, r, h.
_RNN_GATES = {0: [0], 1: [0], 2: [0, 3, 1, 2], 3: [1, 0, 2]}


def _gate_order(g: Graph, w: str, mode: int, hidden: int) -> str:
    """w ([G * H, ...]) with its gate blocks in ONNX's order, with a leading direction axis."""
    order = _RNN_GATES[mode]
    if len(order) > 1:
        parts = g.op("Split", [w, g.ints([hidden] * len(order))], outputs=len(order), axis=0)
        w = g.op("Concat", [parts[i] for i in order], axis=0)
    return g.op("Unsqueeze", [w, g.ints([0])])


@_reg("rnn", "LSTM, GRU or RNN; Split, Concat, Squeeze, Unsqueeze")
def _rnn(g: Graph, op: Op) -> str:
    """One fused layer as ONNX's recurrent op; the packed output's first T + S rows (the
    outputs and final states: what the layer's slices read)."""
    ins = op.xs(0)
    mode = int(op.attr("mode", 2))
    lstm = mode == 2
    n = 7 if lstm else 6
    if len(ins) > n and not op.attr("zero_padded", True):
        raise op.unsupported(
            "outputs past sequence_length are the cell's (nn.RNN over a "
            "cell), which ONNX's recurrent ops make zero"
        )
    x, h0 = ins[0], ins[1]
    c0 = ins[2] if lstm else None
    w_ih, w_hh, b_ih, b_hh = ins[n - 4 : n]
    dims = g.dims(w_hh)
    if not dims or dims[-1] is None:
        raise op.unsupported("the hidden size is not known at export")
    hidden = int(dims[-1])
    dt = g.dtypes[x]
    w = _gate_order(g, g.cast(w_ih, dt), mode, hidden)
    r = _gate_order(g, g.cast(w_hh, dt), mode, hidden)
    b = g.op(
        "Concat",
        [
            _gate_order(g, g.cast(b_ih, dt), mode, hidden),
            _gate_order(g, g.cast(b_hh, dt), mode, hidden),
        ],
        axis=1,
    )
    lens = g.cast(ins[n], "int32") if len(ins) > n else ""
    states = [g.op("Unsqueeze", [s, g.ints([0])]) for s in ([h0, c0] if lstm else [h0])]
    kind = "LSTM" if lstm else "GRU" if mode == 3 else "RNN"
    attrs = dict(
        hidden_size=hidden, direction="reverse" if op.attr("reverse", False) else "forward"
    )
    if mode == 3:
        attrs["linear_before_reset"] = 1
    if mode in (0, 1):
        attrs["activations"] = ["Tanh" if mode == 0 else "Relu"]
    outs = g.op(kind, [x, w, r, b, lens, *states], outputs=3 if lstm else 2, **attrs)
    y = g.op("Squeeze", [outs[0], g.ints([1])])
    return g.op("Concat", [y] + list(outs[1:]), axis=0)


# ---- pooling -------------------------------------------------------------------------------


def _spatial(g: Graph, op: Op, x: str, nd: int) -> list[int] | None:
    s = g.shape(x)
    if s is None or any(d is None for d in s[2:]) or len(s) != nd + 2:
        return None
    return list(s[2:])


def _adaptive(g: Graph, op: Op, x: str, out_size: list[int], kind: str) -> str:
    """Adaptive pooling (kind "Max" or "Average"): global pooling for an output of ones,
    plain pooling when each size divides, else each spatial dim reduced window by window
    (the windows are rectangles, so one dim after the other gives the same result)."""
    nd = len(out_size)
    if all(o == 1 for o in out_size):
        return g.op(f"Global{kind}Pool", [x])
    sizes = _spatial(g, op, x, nd)
    if sizes is None:
        raise op.unsupported(
            f"adaptive pooling to {out_size} needs the input's spatial size at export "
            f"(it is dynamic here); only an output size of 1 works with any size"
        )
    if all(n % o == 0 for n, o in zip(sizes, out_size)):
        k = [n // o for n, o in zip(sizes, out_size)]
        return g.op(f"{kind}Pool", [x], kernel_shape=k, strides=k)
    reduce_op = "ReduceMax" if kind == "Max" else "ReduceMean"
    y = x
    for d, (n, o) in enumerate(zip(sizes, out_size)):
        axis = 2 + d
        parts = []
        for i in range(o):
            b, e = (i * n) // o, -((-(i + 1) * n) // o)
            s = g.op("Slice", [y, g.ints([b]), g.ints([e]), g.ints([axis])])
            parts.append(_reduce(g, reduce_op, s, [axis], True))
        y = parts[0] if len(parts) == 1 else g.op("Concat", parts, axis=axis)
    return y


def _pool_attrs(op: Op, nd: int) -> dict:
    kernel = [int(k) for k in op.attr("kernel_size")]
    strides, pads, _ = _window_attrs(op, nd, with_dilations=False)
    if not op.attr("strides", []):
        strides = kernel  # no strides: the kernel size (PoolGeometry)
    return {"kernel_shape": kernel, "strides": strides, "pads": pads}


@_reg("avg_pool", "AveragePool, GlobalAveragePool (adaptive)")
def _avg_pool(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    kernel = [int(k) for k in op.attr("kernel_size")]
    nd = len(kernel)
    if op.attr("adaptive", False):
        return _adaptive(g, op, x, kernel, "Average")
    a = _pool_attrs(op, nd)
    ceil = int(bool(op.attr("ceil_mode", False)))
    divisor = int(op.attr("divisor", 0))
    exclusive = bool(op.attr("exclusive", True))
    if divisor > 0:
        if ceil:
            raise op.unsupported(
                "a divisor with ceil_mode (windows clipped at the end have no fixed size)"
            )
        # no window is clipped without ceil_mode: the sum is the mean over the full window
        y = g.op("AveragePool", [x], ceil_mode=0, count_include_pad=1, **a)
        k = float(np.prod(kernel)) / divisor
        return g.op("Mul", [y, _attr_const(g, y, k)]) if k != 1.0 else y
    return g.op("AveragePool", [x], ceil_mode=ceil, count_include_pad=int(not exclusive), **a)


def _only_gathered(op: Op, x_id: int) -> bool:
    """Whether every reader of this max_pool_index is a pool_gather of the same x."""
    if op.is_output or not op.consumers:
        return False
    for c in op.consumers:
        if c["type"].rstrip("_") != "pool_gather" or c["inputs"][0] != [x_id]:
            return False
    return True


@_reg("max_pool_index", "MaxPool (Indices), GlobalMaxPool (adaptive), Mod")
def _max_pool_index(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    kernel = [int(k) for k in op.attr("kernel_size")]
    nd = len(kernel)
    adaptive = bool(op.attr("adaptive", False))
    if _only_gathered(op, op.arg_ids[0][0]):
        # max pooling: pool_gather reads the pooled values directly
        if adaptive:
            y = _adaptive(g, op, x, kernel, "Max")
        else:
            a = _pool_attrs(op, nd)
            y = g.op("MaxPool", [x], ceil_mode=int(bool(op.attr("ceil_mode", False))), **a)
        g.notes[("pooled", y)] = x
        return y
    if adaptive:
        sizes = _spatial(g, op, x, nd)
        if sizes is None or any(n % o for n, o in zip(sizes, kernel)):
            raise op.unsupported(
                "the indices of an adaptive max pool need windows of one size "
                "(a spatial size divisible by the output size, known at export)"
            )
        k = [n // o for n, o in zip(sizes, kernel)]
        a = {"kernel_shape": k, "strides": k, "pads": [0] * (2 * nd)}
        ceil = 0
    else:
        a = _pool_attrs(op, nd)
        ceil = int(bool(op.attr("ceil_mode", False)))
    _, idx = g.op("MaxPool", [x], outputs=2, ceil_mode=ceil, **a)
    g.dtypes[idx] = "int64"
    # ONNX's indices count from the tensor's start; oar's from each (n, c) plane's
    plane = _reduce(g, "ReduceProd", _shape_slice(g, x, 2), [], True)
    return g.op("Mod", [idx, plane])


@_reg("max_pool", "MaxPool, GlobalMaxPool (adaptive)")
def _max_pool(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    kernel = [int(k) for k in op.attr("kernel_size")]
    if bool(op.attr("adaptive", False)):
        return _adaptive(g, op, x, kernel, "Max")
    a = _pool_attrs(op, len(kernel))
    return g.op("MaxPool", [x], ceil_mode=int(bool(op.attr("ceil_mode", False))), **a)


@_reg("pool_gather", "GatherElements (or MaxPool's output)")
def _pool_gather(g: Graph, op: Op) -> str:
    x, idx = op.need(0, "x"), op.need(1, "index")
    if g.notes.get(("pooled", idx)) == x:
        return idx
    flat = g.ints([0, 0, -1])
    xf = g.op("Reshape", [x, flat])
    idf = g.op("Reshape", [idx, flat])
    out = g.op("GatherElements", [xf, idf], axis=2)
    return g.op("Reshape", [out, _shape_of(g, idx)])


# ---- shapes and indexing -------------------------------------------------------------------


@_reg("reshape", "Reshape")
def _reshape(g: Graph, op: Op) -> str:
    # oar's 0 copies x's dim and -1 is inferred, as ONNX's Reshape with allowzero=0
    return g.op("Reshape", [op.need(0, "x"), op.int_list_input("shape")])


@_reg("transpose", "Transpose")
def _transpose(g: Graph, op: Op) -> str:
    perm = op.attr("perm", [])
    perm = [_axis(int(p), len(perm)) for p in perm]
    return g.op("Transpose", [op.need(0, "x")], perm=perm)


@_reg("unsqueeze", "Unsqueeze")
def _unsqueeze(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    axes = [int(a) for a in op.attr("axis", [])]
    if not axes:
        return g.op("Identity", [x])
    # oar inserts one axis after the other (each counted in the rank so far); ONNX places
    # all at once in the result, the same for one axis or ascending non-negative ones
    if len(axes) == 1 or (all(a >= 0 for a in axes) and axes == sorted(set(axes))):
        return g.op("Unsqueeze", [x, g.ints(axes)])
    for a in axes:
        x = g.op("Unsqueeze", [x, g.ints([a])])
    return x


@_reg("squeeze", "Squeeze")
def _squeeze(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    axes = [int(a) for a in op.attr("axis", [])]
    shape = g.shape(x)
    if shape is None:
        raise op.unsupported("the rank of its input is unknown at export")
    if not axes:
        axes = list(range(len(shape)))
    if not shape:
        return g.op("Identity", [x])
    # oar drops only the axes of size 1. A size unknown at export (a symbolic one) was
    # dropped at capture if the output has that many fewer axes; without the output's
    # shape it is taken to be 1.
    axes = sorted({_axis(a, len(shape)) for a in axes})
    drop = [a for a in axes if shape[a] == 1]
    unknown = [a for a in axes if shape[a] is None]
    if op.out_shape is not None:
        drop = sorted(drop + unknown[: len(shape) - len(op.out_shape) - len(drop)])
    else:
        drop = sorted(drop + unknown)
    if not drop:
        return g.op("Identity", [x])
    return g.op("Squeeze", [x, g.ints(drop)])


@_reg("expand", "Expand")
def _expand(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    shape = op.ints("shape")
    if isinstance(shape, list):
        # oar's -1 keeps x's size; ONNX's Expand broadcasts, where 1 keeps it
        return g.op("Expand", [x, g.ints([1 if s == -1 else s for s in shape])])
    ones = g.op("Max", [shape, g.ints([1])])  # a run-time -1 → 1 the same way
    return g.op("Expand", [x, ones])


@_reg("concat", "Concat")
def _concat(g: Graph, op: Op) -> str:
    xs = _promote(g, op.xs(0))
    if not xs:
        raise op.unsupported("it has no tensors")
    return g.op("Concat", xs, axis=int(op.attr("axis", 0)))


@_reg("slice", "Slice")
def _slice(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    axes = op.ints("axes")
    if isinstance(axes, list) and not axes:
        return g.op("Identity", [x])
    ins = [x, op.int_list_input("starts"), op.int_list_input("ends"), op.int_list_input("axes")]
    return g.op("Slice", ins)


@_reg("strided_slice", "Slice")
def _strided_slice(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    axes = op.ints("axes")
    if isinstance(axes, list) and not axes:
        return g.op("Identity", [x])
    ins = [
        x,
        op.int_list_input("starts"),
        op.int_list_input("ends"),
        op.int_list_input("axes"),
        op.int_list_input("strides"),
    ]
    return g.op("Slice", ins)


@_reg("flip", "Slice")
def _flip(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    axes = [int(a) for a in op.attr("axis", [])]
    if not axes:
        return g.op("Identity", [x])
    n = len(axes)
    return g.op(
        "Slice",
        [x, g.ints([-1] * n), g.ints([INT64_MIN] * n), g.ints(axes), g.ints([-1] * n)],
    )


@_reg("roll", "Slice, Concat")
def _roll(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    shifts = [int(s) for s in op.attr("shifts", [])]
    axes = [int(a) for a in op.attr("axis", [])]
    shape = None
    if not axes:  # over x flattened
        shape = _shape_of(g, x)
        x = g.op("Reshape", [x, g.ints([-1])])
        axes = [0]
        shifts = [sum(shifts)]
    for s, a in zip(shifts, axes):
        # the last s elements first; s taken modulo the size at run time
        n = g.op("Gather", [g.op("Shape", [x], dtype="int64"), g.ints([a])], axis=0)
        k = g.op("Mod", [g.op("Sub", [n, g.op("Mod", [g.ints([s]), n], fmod=0)]), n], fmod=0)
        head = g.op("Slice", [x, k, g.ints([INT64_MAX]), g.ints([a])])
        tail = g.op("Slice", [x, g.ints([0]), k, g.ints([a])])
        x = g.op("Concat", [head, tail], axis=a)
    if shape is not None:
        x = g.op("Reshape", [x, shape])
    return x


def _trilu_mask(g: Graph, x: str, k: int, upper: bool) -> str:
    """The bool mask of Trilu built from the last two sizes (dtypes onnxruntime's Trilu
    does not take)."""
    s = g.op("Shape", [x], dtype="int64")
    zero, one = g.scalar(0, "int64"), g.scalar(1, "int64")
    rows = g.op(
        "Squeeze", [g.op("Slice", [s, g.ints([-2]), g.ints([-1]), g.ints([0])]), g.ints([0])]
    )
    cols = g.op(
        "Squeeze", [g.op("Slice", [s, g.ints([-1]), g.ints([INT64_MAX]), g.ints([0])]), g.ints([0])]
    )
    i = g.op("Unsqueeze", [g.op("Range", [zero, rows, one]), g.ints([1])])
    j = g.op("Unsqueeze", [g.op("Range", [zero, cols, one]), g.ints([0])])
    d = g.op("Sub", [j, i])  # column - row
    kk = g.scalar(k, "int64")
    return g.op("GreaterOrEqual" if upper else "LessOrEqual", [d, kk], dtype="bool")


@_reg("triu tril", "Trilu (Range, Where for dtypes onnxruntime's Trilu lacks)")
def _trilu(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    k = int(op.attr("diagonal", 0))
    upper = op.type.startswith("triu")
    if g.dtypes[x] in ("float32", "float64", "int64", "bool"):
        return g.op("Trilu", [x, g.scalar(k, "int64")], upper=int(upper))
    mask = _trilu_mask(g, x, k, upper)
    return g.op("Where", [mask, x, _attr_const(g, x, 0)])


@_reg("gather index_select", "Gather")
def _gather(g: Graph, op: Op) -> str:
    return g.op("Gather", [op.need(0, "x"), op.need(1, "index")], axis=int(op.attr("axis", 0)))


@_reg("gather_nd", "GatherND")
def _gather_nd(g: Graph, op: Op) -> str:
    return g.op("GatherND", [op.need(0, "x"), g.cast(op.need(1, "index"), "int64")])


def _with_dim(g: Graph, shape: str, axis: int, value: str, r: int) -> str:
    """shape with element axis replaced by value (both 1-D int64)."""
    parts = []
    if axis > 0:
        parts.append(g.op("Slice", [shape, g.ints([0]), g.ints([axis]), g.ints([0])]))
    parts.append(value)
    if axis < r - 1:
        parts.append(g.op("Slice", [shape, g.ints([axis + 1]), g.ints([r]), g.ints([0])]))
    return parts[0] if len(parts) == 1 else g.op("Concat", parts, axis=0)


@_reg("take_along_axis", "GatherElements (Expand when broadcast)")
def _take_along_axis(g: Graph, op: Op) -> str:
    arr, idx = op.need(0, "arr"), op.need(1, "indices")
    r = _rank(g, op, arr)
    axis = _axis(int(op.attr("axis")), r)
    if op.attr("broadcast", True) and g.shape(arr) != g.shape(idx):
        one = g.ints([1])
        sa = g.op("Shape", [arr], dtype="int64")
        si = g.op("Shape", [idx], dtype="int64")
        idx = g.op("Expand", [idx, _with_dim(g, sa, axis, one, r)])
        arr = g.op("Expand", [arr, _with_dim(g, si, axis, one, r)])
    return g.op("GatherElements", [arr, idx], axis=axis)


@_reg("along_axis_gather", "GatherElements")
def _along_axis_gather(g: Graph, op: Op) -> str:
    return g.op("GatherElements", [op.need(0, "x"), op.need(1, "index")], axis=int(op.attr("axis")))


@_reg("nonzero", "NonZero, Transpose")
def _nonzero(g: Graph, op: Op) -> str:
    nz = g.op("NonZero", [op.need(0, "x")], dtype="int64")
    return g.op("Transpose", [nz], perm=[1, 0])


def _slice_index(start: int, end: int, step: int, n: int) -> range:
    """The positions x[start:end:step] takes along a dim of size n (Python's slices, as
    oar's NormalizeSlices)."""
    return range(*slice(start, end, step).indices(n))


def _set_region(g: Graph, op: Op, x: str, value: str) -> str:
    """x with the slice x[starts:ends:strides] along axes replaced by value, broadcast.
    Unit steps: the slice's neighbours concatenated around it, one axis after the other
    (any size, known at export or not); other steps: ScatterND at positions computed at
    export (the sizes must be known)."""
    axes = [int(a) for a in op.attr("axes", [])]
    starts = [int(v) for v in op.attr("starts", [])]
    ends = [int(v) for v in op.attr("ends", [])]
    strides = [int(v) for v in op.attr("strides", [])] or [1] * len(axes)
    if not axes:
        return g.op("Expand", [value, _shape_of(g, x)])
    shape = g.shape(x)
    if all(st == 1 for st in strides):

        def fill(t: str, i: int) -> str:
            if i == len(axes):
                return g.op("Expand", [value, _shape_of(g, t)])
            a, b, e = axes[i], starts[i], ends[i]
            n = shape[a] if shape is not None else None
            if n is not None and not _slice_index(b, e, 1, n):
                return t  # an empty slice: nothing is set
            left = g.op("Slice", [t, g.ints([0]), g.ints([b]), g.ints([a])])
            mid = g.op("Slice", [t, g.ints([b]), g.ints([e]), g.ints([a])])
            right = g.op("Slice", [t, g.ints([e]), g.ints([INT64_MAX]), g.ints([a])])
            return g.op("Concat", [left, fill(mid, i + 1), right], axis=a)

        return fill(x, 0)
    if shape is None or any(d is None for d in shape):
        raise op.unsupported(
            "a slice with steps other than 1 needs the sizes of x at export (they are dynamic)"
        )
    r = len(shape)
    pos = [range(n) for n in shape]
    for a, b, e, st in zip(axes, starts, ends, strides):
        pos[_axis(a, r)] = _slice_index(b, e, st, shape[_axis(a, r)])
    region = [len(p) for p in pos]
    grid = np.stack(np.meshgrid(*[np.asarray(p, np.int64) for p in pos], indexing="ij"), -1)
    upd = g.op("Expand", [value, g.ints(region)])
    return g.op("ScatterND", [x, g.const(grid.reshape(region + [r]), "int64", "indices"), upd])


@_reg("set_value", "Slice, Concat, Expand (ScatterND for steps other than 1)")
def _set_value(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    return _set_region(g, op, x, g.scalar(op.attr("value", 0), g.dtypes[x]))


@_reg("set_value_with_tensor", "Slice, Concat, Expand (ScatterND for steps other than 1)")
def _set_value_with_tensor(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    return _set_region(g, op, x, g.cast(op.need(1, "value"), g.dtypes[x]))


@_reg("pad", "Pad (Slice, Concat for circular)")
def _pad(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    p = [int(v) for v in op.attr("paddings")]
    mode = int(op.attr("mode", 0))
    r = len(p) // 2
    if mode == 3:  # circular: the wrapped-around ends, one axis after the other
        for a in range(r):
            before, after = p[2 * a], p[2 * a + 1]
            parts = []
            if before:
                parts.append(
                    g.op("Slice", [x, g.ints([-before]), g.ints([INT64_MAX]), g.ints([a])])
                )
            parts.append(x)
            if after:
                parts.append(g.op("Slice", [x, g.ints([0]), g.ints([after]), g.ints([a])]))
            if len(parts) > 1:
                x = g.op("Concat", parts, axis=a)
        return x if x != op.x(0) else g.op("Identity", [x])
    pads = g.ints(p[0::2] + p[1::2])
    if mode == 0:
        v = g.scalar(op.attr("value", 0), g.dtypes[x])
        return g.op("Pad", [x, pads, v], mode="constant")
    return g.op("Pad", [x, pads], mode="reflect" if mode == 1 else "edge")


@_reg("argsort", "TopK (Indices)")
def _argsort(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    axis = int(op.attr("axis", -1))
    k = g.op("Gather", [g.op("Shape", [x], dtype="int64"), g.ints([axis])], axis=0)
    _, idx = g.op(
        "TopK",
        [x, k],
        outputs=2,
        axis=axis,
        largest=int(bool(op.attr("descending", False))),
        sorted=1,
    )
    g.dtypes[idx] = "int64"
    return idx


@_reg("topk_index", "TopK (Indices)")
def _topk_index(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    _, idx = g.op(
        "TopK",
        [x, g.ints([int(op.attr("k"))])],
        outputs=2,
        axis=int(op.attr("axis", -1)),
        largest=int(bool(op.attr("largest", True))),
        sorted=1,
    )
    g.dtypes[idx] = "int64"
    return idx


# ---- reductions ----------------------------------------------------------------------------


def _axes(op: Op, name: str = "axis") -> list[int]:
    return [int(a) for a in op.attr(name, [])]


@_reg("sum", "ReduceSum")
def _sum(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    dt = op.dtype("dtype")
    if dt is None:
        dt = "int64" if g.dtypes[x] in ("bool", "int32") else g.dtypes[x]
    return _reduce(g, "ReduceSum", g.cast(x, dt), _axes(op), bool(op.attr("keepdim", False)))


_REDUCE = {
    "mean": "ReduceMean",
    "max": "ReduceMax",
    "min": "ReduceMin",
    "amax": "ReduceMax",
    "amin": "ReduceMin",
    "logsumexp": "ReduceLogSumExp",
}


def _reduce_op(onnx_op: str, to_float: bool) -> Handler:
    def handler(g: Graph, op: Op) -> str:
        x = op.need(0, "x")
        if to_float:
            x = _float(g, x)
        return _reduce(g, onnx_op, x, _axes(op), bool(op.attr("keepdim", False)))

    return handler


for _name, _onnx in _REDUCE.items():
    _reg(_name, _onnx)(_reduce_op(_onnx, _name == "logsumexp"))


@_reg("prod", "ReduceProd")
def _prod(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    dt = op.dtype("dtype") or ("int64" if g.dtypes[x] == "bool" else g.dtypes[x])
    return _reduce(g, "ReduceProd", g.cast(x, dt), _axes(op), bool(op.attr("keepdim", False)))


@_reg("all any", "Cast, ReduceMin | Cast, ReduceMax")
def _all_any(g: Graph, op: Op) -> str:
    x = g.cast(g.cast(op.need(0, "x"), "bool"), "int32")
    onnx_op = "ReduceMin" if op.type.startswith("all") else "ReduceMax"
    return g.cast(_reduce(g, onnx_op, x, _axes(op), bool(op.attr("keepdim", False))), "bool")


@_reg("count_nonzero", "Equal, Not, Cast, ReduceSum")
def _count_nonzero(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    nz = g.op("Not", [g.op("Equal", [x, _attr_const(g, x, 0)], dtype="bool")])
    return _reduce(g, "ReduceSum", g.cast(nz, "int64"), _axes(op), bool(op.attr("keepdim", False)))


@_reg(
    "var std",
    "ReduceMean, Sub, Mul, ReduceSum, Size, Div | ReduceMean, Sub, Mul, ReduceSum, Size, Div, Sqrt",
)
def _var_std(g: Graph, op: Op) -> str:
    x = _float(g, op.need(0, "x"))
    axes = _axes(op)
    keep = bool(op.attr("keepdim", False))
    d = g.op("Sub", [x, _reduce(g, "ReduceMean", x, axes, True)])
    ss = _reduce(g, "ReduceSum", g.op("Mul", [d, d]), axes, keep)
    # n: the elements reduced into each output
    n = g.op(
        "Div",
        [
            g.cast(g.op("Size", [x], dtype="int64"), g.dtypes[x]),
            g.cast(g.op("Size", [ss], dtype="int64"), g.dtypes[x]),
        ],
    )
    if op.attr("unbiased", True):
        n = g.op("Sub", [n, _attr_const(g, x, 1.0)])
    v = g.op("Div", [ss, n])
    return g.op("Sqrt", [v]) if op.type.startswith("std") else v


@_reg("p_norm", "ReduceL1 / ReduceL2 / ReduceMax / ReduceSum, Abs, Pow")
def _p_norm(g: Graph, op: Op) -> str:
    x = _float(g, op.need(0, "x"))
    p = float(op.attr("porder", 2.0))
    axes = _axes(op)
    keep = bool(op.attr("keepdim", False))
    if p == 2.0:
        return _reduce(g, "ReduceL2", x, axes, keep)
    if p == 1.0:
        return _reduce(g, "ReduceL1", x, axes, keep)
    a = g.op("Abs", [x])
    if p == math.inf:
        return _reduce(g, "ReduceMax", a, axes, keep)
    if p == -math.inf:
        return _reduce(g, "ReduceMin", a, axes, keep)
    if p == 0.0:
        nz = g.op("Not", [g.op("Equal", [x, _attr_const(g, x, 0.0)], dtype="bool")])
        return _reduce(g, "ReduceSum", g.cast(nz, g.dtypes[x]), axes, keep)
    s = _reduce(g, "ReduceSum", g.op("Pow", [a, _attr_const(g, x, p)]), axes, keep)
    return g.op("Pow", [s, _attr_const(g, x, 1.0 / p)])


@_reg("argmax argmin", "ArgMax | ArgMin")
def _argmax(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    axes = _axes(op)
    keep = bool(op.attr("keepdim", False))
    onnx_op = "ArgMax" if op.type.startswith("argmax") else "ArgMin"
    if not axes:  # over x flattened; keepdim keeps every axis as 1
        r = _rank(g, op, x)
        out = g.op(onnx_op, [g.op("Reshape", [x, g.ints([-1])])], dtype="int64", axis=0, keepdims=0)
        if keep:
            out = g.op("Reshape", [out, g.ints([1] * r)])
    else:
        if len(axes) != 1:
            raise op.unsupported(f"{op.type} over several axes {axes}")
        out = g.op(onnx_op, [x], dtype="int64", axis=axes[0], keepdims=int(keep))
    return g.cast(out, op.dtype("dtype", "int64"))


@_reg("cumsum", "CumSum")
def _cumsum(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    dt = op.dtype("dtype")
    if dt is None:
        dt = "int64" if g.dtypes[x] in ("bool", "uint8", "int8", "int16", "int32") else g.dtypes[x]
    x = g.cast(x, dt)
    axes = _axes(op)
    if not axes:
        x = g.op("Reshape", [x, g.ints([-1])])
        axes = [0]
    return g.op("CumSum", [x, g.scalar(axes[0], "int64")])


# ---- creation ------------------------------------------------------------------------------


def _fill(g: Graph, shape: str, value: Any, dtype: str) -> str:
    v = tensor_proto("value", np.asarray([value]), dtype)
    return g.op("ConstantOfShape", [shape], dtype=dtype, value=v)


@_reg("full", "ConstantOfShape (Expand for a run-time value)")
def _full(g: Graph, op: Op) -> str:
    dt = op.dtype("dtype", "float32")
    shape = op.int_list_input("shape")
    if "value" in op.symbolic:  # a size computed from a symbolic dimension
        return g.op("Expand", [op.scalar_value("value", 0, dt), shape])
    return _fill(g, shape, op.attr("value", 0), dt)


@_reg("empty", "ConstantOfShape")
def _empty(g: Graph, op: Op) -> str:
    return _fill(g, op.int_list_input("shape"), 0, op.dtype("dtype", "float32"))


@_reg("full_like empty_like", "Shape, ConstantOfShape")
def _full_like(g: Graph, op: Op) -> str:
    x = op.need(0, "x")
    dt = op.dtype("dtype", g.dtypes[x])
    value = op.attr("value", 0) if op.type.startswith("full") else 0
    return _fill(g, _shape_of(g, x), value, dt)


@_reg("arange", "Range")
def _arange(g: Graph, op: Op) -> str:
    dt = op.dtype("dtype", "int64")
    work = dt if dt in ("float32", "float64", "int16", "int32", "int64") else "float32"
    ins = [
        op.scalar_value("start", 0, work),
        op.scalar_value("end", 0, work),
        op.scalar_value("step", 1, work),
    ]
    return g.cast(g.op("Range", ins, dtype=work), dt)


@_reg("eye", "EyeLike")
def _eye(g: Graph, op: Op) -> str:
    dt = op.dtype("dtype", "float32")
    shape = g.ints([int(op.attr("num_rows")), int(op.attr("num_columns"))])
    zeros = _fill(g, shape, 0, dt)
    return g.op("EyeLike", [zeros], dtype=dt)


def supported() -> list[str]:
    return sorted(TABLE)
