#!/usr/bin/env python3
"""Writes tests/cpp/golden/ops.json: inputs and PyTorch's outputs for every case
of tests/op_cases.yaml. The C++ suite checks oar's forward values against it and
fails if it is older than op_cases.yaml. Run after changing op_cases.yaml:

    python3 tools/make_golden.py
"""
import json
import os
import re
import zlib

import numpy as np
import torch
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
import sys  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "codegen"))
from gen_ops import load_ops  # noqa: E402

TORCH_DTYPES = {
    "float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "int32": torch.int32, "int64": torch.int64, "bool": torch.bool,
}
DTYPE_NAMES = {v: k for k, v in TORCH_DTYPES.items()}


# ---- helpers the torch expressions of op_cases.yaml use --------------------------
def torch_dtype(name):
    return TORCH_DTYPES[name] if name else None


def sum_to(x, shape):
    lead = x.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and x.shape[lead + i] != 1]
    return x.sum(dim=dims, keepdim=True).reshape(shape) if dims else x.reshape(shape)


def paddle_shape(x, shape):
    return [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]


def unsqueeze_all(x, axis):
    for a in axis:
        x = x.unsqueeze(a)
    return x


def slices(x, axes, starts, ends, strides):
    idx = [slice(None)] * x.dim()
    for i, a in enumerate(axes):
        idx[a] = slice(starts[i], ends[i], strides[i] if strides else None)
    return tuple(idx)


def flip_slice(x, axes, starts, ends, strides):
    """Python slicing with negative steps (torch has none): by index lists."""
    for i, a in enumerate(axes):
        idx = list(range(x.shape[a]))[slice(starts[i], ends[i], strides[i])]
        x = x.index_select(a, torch.tensor(idx, dtype=torch.long))
    return x


def slice_grad(x, grad_out, axes, starts, ends, strides):
    z = torch.zeros_like(x)
    index = torch.arange(x.numel()).reshape(x.shape)
    picked = flip_slice(index, axes, starts, ends, strides)
    z.view(-1)[picked.reshape(-1)] = grad_out.reshape(-1)
    return z


def assign_slice(x, axes, starts, ends, strides, value):
    out = x.clone()
    index = torch.arange(x.numel()).reshape(x.shape)
    picked = flip_slice(index, axes, starts, ends, strides)
    v = value.expand(picked.shape) if isinstance(value, torch.Tensor) else value
    out.view(-1)[picked.reshape(-1)] = (v.reshape(-1) if isinstance(v, torch.Tensor) else v)
    return out


# ----------------------------------------------------------------------------------
def cpp_default_to_py(text):
    if text is None:
        return None
    if text in ("true", "false"):
        return text == "true"
    if text == "{}":
        return []
    m = re.fullmatch(r"DType::k(\w+)", text)
    if m:
        name = m.group(1).lower()
        return None if name == "undefined" else name
    return float(text) if "." in text else int(text)


def make_input(spec, rng):
    if isinstance(spec, list):
        spec = {"shape": spec}
    shape = spec["shape"]
    dtype = spec.get("dtype", "float64")
    if "values" in spec:
        data = np.array(spec["values"], dtype=np.float64).reshape(shape)
    elif dtype == "bool":
        data = rng.integers(0, 2, size=shape).astype(np.float64)
    elif dtype in ("int32", "int64"):
        data = rng.integers(-5, 6, size=shape).astype(np.float64)
    else:
        data = rng.uniform(spec.get("low", -1.0), spec.get("high", 1.0), size=shape)
    return {"shape": shape, "dtype": dtype, "data": data.reshape(-1).tolist()}


def to_torch(inp):
    t = torch.tensor(inp["data"], dtype=torch.float64).reshape(inp["shape"])
    return t.to(TORCH_DTYPES[inp["dtype"]])


def main():
    cases_path = os.path.join(ROOT, "tests", "op_cases.yaml")
    with open(cases_path) as f:
        source = f.read()
    registry = yaml.safe_load(source)
    ops = {op.name: op for op in load_ops(os.path.join(ROOT, "src", "oar", "ops.yaml"))}
    out_cases = []
    for name, entry in registry.items():
        op = ops[name]
        for ci, case in enumerate(entry["cases"]):
            rng = np.random.default_rng(zlib.crc32(f"{name}/{ci}".encode()))
            inputs = [make_input(s, rng) for s in case.get("inputs", [])]
            attrs = {a.name: cpp_default_to_py(a.default) for a in op.attrs}
            attrs.update(case.get("attrs", {}))
            record = {"op": name, "case": ci, "inputs": inputs, "attrs": case.get("attrs", {}),
                      "random": bool(entry.get("random", False))}
            if not record["random"]:
                env = dict(globals())
                env["torch"] = torch
                tensors = [to_torch(i) for i in inputs]
                tensor_args = [a for a in op.args if a.is_input]
                if len(tensor_args) == 1 and tensor_args[0].is_tensor_list:
                    env[tensor_args[0].name] = tensors
                else:
                    for a, t in zip(tensor_args, tensors):
                        env[a.name] = t
                env.update(attrs)
                out = eval(entry["torch"], env)  # noqa: S307 - our own test registry
                if not isinstance(out, torch.Tensor):
                    out = torch.tensor(out)
                record["output"] = {"shape": list(out.shape), "dtype": DTYPE_NAMES[out.dtype],
                                    "data": out.to(torch.float64).reshape(-1).tolist()}
            out_cases.append(record)
    golden = {"source": source, "cases": out_cases}
    path = os.path.join(ROOT, "tests", "cpp", "golden", "ops.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(golden, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(out_cases)} cases to {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
