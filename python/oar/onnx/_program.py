"""program_to_onnx: a captured oar program (oar.jit's "oar.program" format, version 1)
as an ONNX model. The op table is _ops.py; the graph under construction _graph.py."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

import numpy as np
import onnx
from onnx import helper

from ..version import full_version
from ._errors import UnsupportedOpError, check_opset
from ._graph import IR_VERSION, NUMPY_TYPES, ONNX_TYPES, Graph
from ._ops import TABLE, Op


def _load(program: Any) -> dict:
    if isinstance(program, Mapping):
        return dict(program)
    if isinstance(program, (str, os.PathLike)):
        with open(program, encoding="utf-8") as f:
            return json.load(f)
    raise TypeError(
        f"oar.onnx.program_to_onnx(): argument 'program' must be a dict or the path of a "
        f"JSON file, but got {type(program).__name__}"
    )


def _check(program: dict) -> None:
    if program.get("format") != "oar.program":
        raise ValueError(
            f"oar.onnx.program_to_onnx(): argument 'program' is not an oar program (its "
            f"'format' is {program.get('format')!r}, not 'oar.program')"
        )
    if program.get("version") != 1:
        raise ValueError(
            f"oar.onnx.program_to_onnx(): this oar reads program version 1, but the program has "
            f"version {program.get('version')!r}"
        )
    for key in ("inputs", "ops", "outputs"):
        if not isinstance(program.get(key), list):
            raise ValueError(f"oar.onnx.program_to_onnx(): the program has no list '{key}'")


def _array(tensors: Mapping[str, Any], spec: dict, kind: str) -> np.ndarray:
    name = spec["name"]
    if name not in tensors:
        raise ValueError(
            f"oar.onnx.program_to_onnx(): argument 'tensors' has no value for {kind} '{name}'"
        )
    v = tensors[name]
    if hasattr(v, "numpy") and not isinstance(v, np.ndarray):
        v = v.numpy()
    arr = np.asarray(v)
    shape = [int(d) for d in spec.get("shape", arr.shape)]
    if list(arr.shape) != shape:
        raise ValueError(
            f"oar.onnx.program_to_onnx(): {kind} '{name}' is declared with shape {shape} but its "
            f"value has shape {list(arr.shape)}"
        )
    dt = spec["dtype"]
    if dt in NUMPY_TYPES and arr.dtype != NUMPY_TYPES[dt]:
        raise ValueError(
            f"oar.onnx.program_to_onnx(): {kind} '{name}' is declared {dt} but its value is "
            f"{arr.dtype}"
        )
    return arr


def _check_dtype(dt: Any, what: str) -> str:
    if dt not in ONNX_TYPES:
        raise ValueError(
            f"oar.onnx.program_to_onnx(): {what} has dtype {dt!r}, which ONNX does not hold"
        )
    return dt


class _Symbols:
    """The run-time values of the symbolic dimensions: Shape(input)[dim], [1] int64."""

    def __init__(self, g: Graph, program: dict, values: dict[int, str]) -> None:
        self.g = g
        self.specs = program.get("symbols", []) or []
        self.values = values
        self._cache: dict[tuple, str] = {}

    def value(self, symbol: int, scale: int = 1, offset: int = 0) -> str:
        key = (symbol, scale, offset)
        if key in self._cache:
            return self._cache[key]
        if scale == 1 and offset == 0:
            s = self.specs[symbol]
            shape = self.g.op("Shape", [self.values[s["input"]]], dtype="int64")
            v = self.g.op("Gather", [shape, self.g.ints([int(s["dim"])])], axis=0)
        else:
            v = self.value(symbol)
            if scale != 1:
                v = self.g.op("Mul", [v, self.g.ints([scale])])
            if offset != 0:
                v = self.g.op("Add", [v, self.g.ints([offset])])
        self._cache[key] = v
        return v


def program_to_onnx(
    program: Any, tensors: Mapping[str, Any], opset_version: int = 17
) -> onnx.ModelProto:
    opset = check_opset(opset_version, "oar.onnx.program_to_onnx")
    program = _load(program)
    _check(program)
    g = Graph(opset)
    values: dict[int, str] = {}
    symbol_names = {
        (int(s["input"]), int(s["dim"])): str(s["name"]) for s in program.get("symbols", []) or []
    }

    n = 0
    for i, spec in enumerate(program["inputs"]):
        name = g.reserve(str(spec.get("name") or f"input_{i}"))
        dims: list[int | str] = []
        for d, size in enumerate(spec["shape"]):
            if size is None or int(size) < 0:
                dims.append(symbol_names.get((i, d), f"{name}_dim{d}"))
            else:
                dims.append(int(size))
        g.add_input(name, _check_dtype(spec["dtype"], f"input '{name}'"), dims)
        values[n] = name
        n += 1
    for kind in ("params", "consts"):
        for spec in program.get(kind, []) or []:
            what = kind[:-1]
            arr = _array(tensors, spec, what)
            name = g.reserve(str(spec["name"]))
            g.add_initializer(name, arr, _check_dtype(spec["dtype"], f"{what} '{name}'"))
            values[n] = name
            n += 1

    ops = program["ops"]
    consumers: dict[int, list[dict]] = {}
    for spec in ops:
        for arg in spec["inputs"]:
            for v in arg:
                consumers.setdefault(int(v), []).append(spec)
    outputs = [int(v) for v in program["outputs"]]
    sym_attrs: dict[int, dict[str, dict[int, tuple]]] = {}
    for s in program.get("symbolic_attrs", []) or []:
        per_attr = sym_attrs.setdefault(int(s["op"]), {}).setdefault(str(s["attr"]), {})
        per_attr[int(s["index"])] = (
            int(s["symbol"]),
            int(s.get("scale", 1)),
            int(s.get("offset", 0)),
        )
    sym_shapes: dict[int, dict[int, tuple]] = {}
    for s in program.get("symbolic_shapes", []) or []:
        sym_shapes.setdefault(int(s["op"]), {})[int(s["dim"])] = (
            int(s["symbol"]),
            int(s.get("scale", 1)),
            int(s.get("offset", 0)),
        )
    sym_names = [str(s["name"]) for s in program.get("symbols", []) or []]
    symbols = _Symbols(g, program, values)

    for k, spec in enumerate(ops):
        t = spec["type"]
        handler = TABLE.get(t)
        if handler is None and t.endswith("_"):
            handler = TABLE.get(t[:-1])  # the in-place variant: the same value
        layer = spec.get("layer", "") or ""
        if handler is None:
            raise UnsupportedOpError(t, layer)
        try:
            args = [[values[int(v)] for v in arg] for arg in spec["inputs"]]
        except KeyError as e:
            raise ValueError(
                f"oar.onnx.program_to_onnx(): op {k} ('{t}') reads value {e.args[0]}, which no "
                f"input, parameter, constant or earlier op defines"
            ) from None
        op = Op(
            g,
            spec,
            args,
            sym_attrs.get(k, {}),
            symbols.value,
            consumers.get(int(spec["output"]), []),
            int(spec["output"]) in outputs,
        )
        g.scope = layer
        try:
            out = handler(g, op)
        except UnsupportedOpError:
            raise
        except Exception as e:
            raise ValueError(
                f"oar.onnx.program_to_onnx(): op {k} ('{t}', layer '{layer}') could not be "
                f"written as ONNX: {type(e).__name__}: {e}"
            ) from e
        values[int(spec["output"])] = out
        if spec.get("shape") is not None:
            # the output's shape at capture; a size that follows a symbol is the
            # symbol's dim_param (the size itself) or unknown (scaled or offset)
            out_dims: list = [int(d) for d in spec["shape"]]
            for d, (sym, scale, offset) in sym_shapes.get(k, {}).items():
                out_dims[d] = sym_names[sym] if (scale, offset) == (1, 0) else None
            g.shapes[out] = out_dims
    g.scope = ""

    # The outputs: output_0, output_1, ... (the producing node's value renamed, or an
    # Identity of an input, an initializer or a value returned twice).
    produced = {o for node in g.nodes for o in node.output}
    renames: dict[str, str] = {}
    out_names = []
    for i, v in enumerate(outputs):
        if v not in values:
            raise ValueError(
                f"oar.onnx.program_to_onnx(): output {i} is value {v}, which nothing defines"
            )
        src = values[v]
        name = g.reserve(f"output_{i}")
        if src in g.shapes:
            g.shapes[name] = g.shapes[src]
        if src in produced and src not in renames:
            renames[src] = name
            g.dtypes[name] = g.dtypes[src]
        else:
            node_src = renames.get(src, src)
            g.nodes.append(
                helper.make_node("Identity", [node_src], [name], name=f"Identity_{name}")
            )
            g.dtypes[name] = g.dtypes[src]
        out_names.append(name)
    for node in g.nodes:
        for j, x in enumerate(node.input):
            if x in renames:
                node.input[j] = renames[x]
        for j, x in enumerate(node.output):
            if x in renames:
                node.output[j] = renames[x]

    g.forget_shapes()  # names changed
    out_infos = []
    for i, name in enumerate(out_names):
        known = g.dims(name)
        shape = None
        if known is not None:
            shape = [d if d is not None else f"output_{i}_dim{j}" for j, d in enumerate(known)]
        out_infos.append(helper.make_tensor_value_info(name, ONNX_TYPES[g.dtypes[name]], shape))

    graph = helper.make_graph(g.nodes, "oar_program", g.inputs, out_infos, g.initializers)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset)],
        producer_name="oar",
        producer_version=full_version,
    )
    model.ir_version = IR_VERSION
    return model
