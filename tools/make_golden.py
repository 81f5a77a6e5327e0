#!/usr/bin/env python3
"""Writes the golden file of the C++ op tests (tests/cpp/test_ops.cc): the inputs and
PyTorch's outputs of every case of tests/op_cases/*.yaml (expanded by
tests/op_registry.py). A build product, never committed: the build of the C++ tests runs

    python3 tools/make_golden.py --out <build>/generated/golden/ops.json

whenever tests/op_cases/, tests/op_registry.py, src/oar/ops/ or this script change (so
building the tests needs torch). The file embeds the texts it was made from, and the
C++ suite fails if they are not the tree's (a golden file from another checkout).

Every case is written, float64 for inputs without an explicit dtype: the C++ driver
rebuilds each input as its contiguous base tensor ("data", "base_shape") and the
view of it ("view"), as the Python driver does. Non-finite values are the strings
"nan", "inf" and "-inf" (JSON has no NaN). Complex tensors (the `complex_cases`,
in complex128) store (real, imag) pairs: 2 values per element, as as_real lays them out.
A sparse input ("layout": coo or csr, "sparse_dim") is stored dense; the C++ driver
converts it as the Python driver does.
"""

import argparse
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import op_registry as R  # noqa: E402  (tests/op_registry.py)


def _data(flat, dtype):
    """Row-major values for JSON: ints for integer/bool dtypes, floats (or the strings
    nan/inf/-inf) otherwise."""
    if dtype in ("int32", "int64", "bool", "uint8", "int8", "int16"):
        return [int(v) for v in flat]
    if dtype in R.COMPLEX_DTYPES:
        flat = [p for v in flat for p in (complex(v).real, complex(v).imag)]
    return [
        v if math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
        for v in (float(v) for v in flat)
    ]


def _flat(a):
    return (a if a.dtype.kind == "c" else a.astype("float64")).reshape(-1).tolist()


def _out_flat(out):
    if out.is_complex():
        return _flat(out.detach().resolve_conj().numpy())
    return out.detach().to(R.torch.float64).reshape(-1).tolist()


def _input(inp):
    rec = {"shape": inp.shape, "dtype": inp.dtype, "data": _data(_flat(inp.base), inp.dtype)}
    if inp.view:
        rec["view"] = inp.view
        rec["base_shape"] = list(inp.base.shape)
    if inp.layout:  # the op gets the view converted to this sparse format
        rec["layout"] = inp.layout
        rec["sparse_dim"] = inp.sparse_dim
    return rec


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True, help="the golden file to write")
    out_path = p.parse_args().out
    reg = R.registry()
    out_cases = []
    for name, entry in reg["ops"].items():
        op = R.OPS[name]
        for ci, case in enumerate(entry["cases"]):
            inputs = R.make_inputs(
                name, ci, case, "complex128" if case.get("complex") else "float64"
            )
            record = {
                "op": name,
                "case": ci,
                "inputs": [_input(i) for i in inputs],
                "attrs": case["attrs"],
                "random": entry["random"],
            }
            if not entry["random"]:
                out = R.call_torch(
                    op, [i.torch_view(i.torch_base()) for i in inputs], R.attrs(op, case)
                )
                dtype = R.DTYPE_NAMES[out.dtype]
                record["output"] = {
                    "shape": list(out.shape),
                    "dtype": dtype,
                    "data": _data(_out_flat(out), dtype),
                }
            out_cases.append(record)
    source = R.cases_source()
    with open(R.__file__) as f:
        expander = f.read()
    golden = {
        "source": source,
        "expander": expander,
        "tol": reg["tol"],
        "op_tol": {n: e["tol"] for n, e in reg["ops"].items() if e["tol"]},
        "grad_orders": {n: e["grad_orders"] for n, e in reg["ops"].items()},
        "checked_by": {n: e["checked_by"] for n, e in reg["ops"].items() if e["checked_by"]},
        "cases": out_cases,
    }
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    tmp = out_path + ".tmp"  # a failed run leaves no half-written file behind
    with open(tmp, "w") as f:
        json.dump(golden, f, indent=None, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    os.replace(tmp, out_path)
    print(f"wrote {len(out_cases)} cases to {out_path}")


if __name__ == "__main__":
    main()
