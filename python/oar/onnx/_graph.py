"""The ONNX graph under construction: nodes, initializers, the dtype of every value and,
on request, the shapes ONNX's shape inference finds (the op table's handlers build on
this; _program.py walks the program)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# oar's dtype names and ONNX's element types
ONNX_TYPES = {
    "bool": TensorProto.BOOL,
    "uint8": TensorProto.UINT8,
    "int8": TensorProto.INT8,
    "uint16": TensorProto.UINT16,
    "int16": TensorProto.INT16,
    "uint32": TensorProto.UINT32,
    "int32": TensorProto.INT32,
    "uint64": TensorProto.UINT64,
    "int64": TensorProto.INT64,
    "float16": TensorProto.FLOAT16,
    "bfloat16": TensorProto.BFLOAT16,
    "float32": TensorProto.FLOAT,
    "float64": TensorProto.DOUBLE,
    "complex64": TensorProto.COMPLEX64,
    "complex128": TensorProto.COMPLEX128,
    "float8_e4m3fn": TensorProto.FLOAT8E4M3FN,
    "float8_e5m2": TensorProto.FLOAT8E5M2,
}

# the dtypes numpy holds natively (bfloat16 and the float8 types are written from float32)
NUMPY_TYPES = {
    "bool": np.bool_,
    "uint8": np.uint8,
    "int8": np.int8,
    "uint16": np.uint16,
    "int16": np.int16,
    "uint32": np.uint32,
    "int32": np.int32,
    "uint64": np.uint64,
    "int64": np.int64,
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
    "complex64": np.complex64,
    "complex128": np.complex128,
}

FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64")

# ONNX ops whose output is bool whatever their inputs
_BOOL_OPS = {
    "Equal",
    "Less",
    "LessOrEqual",
    "Greater",
    "GreaterOrEqual",
    "Not",
    "And",
    "Or",
    "Xor",
    "IsNaN",
    "IsInf",
}

# initializers of at most this many elements are deduplicated and given to shape inference
_SMALL = 4096


def tensor_proto(name: str, value: Any, dtype: str) -> onnx.TensorProto:
    """A TensorProto of dtype holding value (a number, a nested list or an array)."""
    if dtype not in ONNX_TYPES:
        raise ValueError(f"oar.onnx: dtype '{dtype}' has no ONNX element type")
    if dtype in NUMPY_TYPES:
        return numpy_helper.from_array(np.asarray(value, dtype=NUMPY_TYPES[dtype]), name)
    arr = np.asarray(value)
    if dtype == "bfloat16" and arr.dtype == np.uint16:  # the bits, as oar's numpy() gives
        raw = np.ascontiguousarray(arr).astype("<u2").tobytes()
        return helper.make_tensor(name, TensorProto.BFLOAT16, arr.shape, raw, raw=True)
    arr = arr.astype(np.float32)
    return helper.make_tensor(name, ONNX_TYPES[dtype], arr.shape, arr.flatten().tolist())


class Graph:
    """Nodes in execution order, initializers and value metadata for one ONNX graph.

    dtypes holds oar's dtype name of every value; shape() asks ONNX's shape inference
    (with data propagation) for a value's shape, running it again only when the value
    is newer than the last run."""

    def __init__(self, opset: int) -> None:
        self.opset = opset
        self.nodes: list[onnx.NodeProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.dtypes: dict[str, str] = {}
        self.shapes: dict[str, list] = {}  # known shapes: inputs, initializers
        self.scope = ""  # the layer path of the op being converted (node names)
        self.notes: dict = {}  # what one handler leaves for another (pooled values)
        self._inferred: dict[str, list] = {}
        self._inferred_nodes = -1
        self._names: set[str] = set()
        self._consts: dict[tuple, str] = {}
        self._count = 0

    # ---- names -------------------------------------------------------------------------
    def fresh(self, hint: str) -> str:
        name, k = hint, 1
        while name in self._names:
            name = f"{hint}_{k}"
            k += 1
        self._names.add(name)
        return name

    def reserve(self, name: str) -> str:
        """name itself if unused, else a numbered variant; it is then taken."""
        return self.fresh(name)

    # ---- values --------------------------------------------------------------------------
    def add_input(self, name: str, dtype: str, dims: Sequence[int | str]) -> None:
        self._names.add(name)
        self.inputs.append(helper.make_tensor_value_info(name, ONNX_TYPES[dtype], list(dims)))
        self.dtypes[name] = dtype
        self.shapes[name] = list(dims)

    def add_initializer(self, name: str, value: Any, dtype: str) -> None:
        t = tensor_proto(name, value, dtype)
        self._names.add(name)
        self.initializers.append(t)
        self.dtypes[name] = dtype
        self.shapes[name] = list(t.dims)

    def const(self, value: Any, dtype: str, hint: str = "const") -> str:
        """An initializer holding value as dtype; small ones are shared."""
        arr = np.asarray(value)
        key: tuple | None = None
        if arr.size <= _SMALL:
            typed: np.ndarray = arr.astype(NUMPY_TYPES.get(dtype, np.float32))
            key = (dtype, arr.shape, typed.tobytes())
            if key in self._consts:
                return self._consts[key]
        name = self.fresh(hint)
        self.add_initializer(name, arr, dtype)
        if key is not None:
            self._consts[key] = name
        return name

    def ints(self, values: Sequence[int]) -> str:
        """A 1-D int64 constant."""
        return self.const(np.asarray(list(values), dtype=np.int64), "int64", "ints")

    def scalar(self, value: Any, dtype: str) -> str:
        """A 0-D constant."""
        return self.const(np.asarray(value), dtype, "scalar")

    # ---- nodes ---------------------------------------------------------------------------
    def op(
        self,
        op_type: str,
        inputs: Sequence[str],
        *,
        dtype: str | None = None,
        outputs: int = 1,
        **attrs: Any,
    ) -> Any:
        """Appends a node; returns its output name (a list of names with outputs > 1).
        dtype: the outputs' dtype (default: that of the first input)."""
        self._count += 1
        base = f"{self.scope}/{op_type}" if self.scope else op_type
        outs = [
            self.fresh(f"{op_type}_{self._count}" + (f"_{i}" if i else "")) for i in range(outputs)
        ]
        node = helper.make_node(op_type, list(inputs), outs, name=f"{base}_{self._count}", **attrs)
        self.nodes.append(node)
        if dtype is not None:
            dt = dtype
        elif op_type in _BOOL_OPS:
            dt = "bool"
        elif op_type in ("Shape", "Size", "NonZero"):
            dt = "int64"
        else:
            dt = self.dtypes[inputs[1] if op_type == "Where" else inputs[0]]
        for o in outs:
            self.dtypes[o] = dt
        return outs[0] if outputs == 1 else outs

    def cast(self, x: str, dtype: str) -> str:
        if self.dtypes[x] == dtype:
            return x
        return self.op("Cast", [x], dtype=dtype, to=ONNX_TYPES[dtype])

    # ---- shapes --------------------------------------------------------------------------
    def shape(self, name: str) -> list | None:
        """The value's shape: a list of ints and None (a size unknown at export), or None
        when even the rank is unknown."""
        dims = self.dims(name)
        return None if dims is None else [d if isinstance(d, int) else None for d in dims]

    def dims(self, name: str) -> list | None:
        """As shape(), with the name (dim_param) of a symbolic size where ONNX's shape
        inference carried one."""
        if name in self.shapes:
            return self.shapes[name]
        if name not in self._inferred and self._inferred_nodes != len(self.nodes):
            self._infer()
        return self._inferred.get(name)

    def rank(self, name: str) -> int | None:
        s = self.shape(name)
        return None if s is None else len(s)

    def forget_shapes(self) -> None:
        """The next shape() runs the inference again (after values were renamed)."""
        self._inferred = {}
        self._inferred_nodes = -1

    def _infer(self) -> None:
        small = [t for t in self.initializers if int(np.prod(t.dims)) <= _SMALL]
        big = [
            helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
            for t in self.initializers
            if int(np.prod(t.dims)) > _SMALL
        ]
        graph = helper.make_graph(self.nodes, "infer", self.inputs + big, [], small)
        self._inferred = {}
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = IR_VERSION
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
        for vi in inferred.graph.value_info:
            t = vi.type.tensor_type
            if t.HasField("shape"):
                self._inferred[vi.name] = [
                    d.dim_value
                    if d.HasField("dim_value")
                    else (d.dim_param if d.HasField("dim_param") else None)
                    for d in t.shape.dim
                ]
        self._inferred_nodes = len(self.nodes)


# IR version 8 carries every opset the exporter writes (13..18) and is read by
# onnxruntime releases of the last years.
IR_VERSION = 8
