#!/usr/bin/env python3
"""Writes docs/paddle_api.md: which of PaddlePaddle's public API names oar has, per
namespace, from the names Paddle exports (paddle_api.json, written by dump_names.py)
and what `import oar` provides, with the deliberate differences (differences.yaml).

    python3 tools/paddle_api/coverage.py           # rewrite docs/paddle_api.md
    python3 tools/paddle_api/coverage.py --check   # exit 1 if it is stale
"""

import argparse
import importlib
import json
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DOC = os.path.join(ROOT, "docs", "paddle_api.md")

# Paddle's documented namespaces (its implementation modules, which re-export the same
# names, are left out); those outside oar's scope are counted but marked.
NAMESPACES = [
    "paddle",
    "paddle.nn",
    "paddle.nn.functional",
    "paddle.nn.initializer",
    "paddle.nn.utils",
    "paddle.nn.quant",
    "paddle.nn.attention",
    "paddle.linalg",
    "paddle.fft",
    "paddle.signal",
    "paddle.special",
    "paddle.random",
    "paddle.sparse",
    "paddle.sparse.nn",
    "paddle.sparse.nn.functional",
    "paddle.distribution",
    "paddle.distribution.transform",
    "paddle.distribution.kl",
    "paddle.autograd",
    "paddle.amp",
    "paddle.amp.debugging",
    "paddle.io",
    "paddle.optimizer",
    "paddle.optimizer.lr",
    "paddle.regularizer",
    "paddle.metric",
    "paddle.callbacks",
    "paddle.vision",
    "paddle.vision.datasets",
    "paddle.vision.models",
    "paddle.vision.ops",
    "paddle.vision.transforms",
    "paddle.text",
    "paddle.audio",
    "paddle.audio.backends",
    "paddle.audio.datasets",
    "paddle.audio.features",
    "paddle.audio.functional",
    "paddle.geometric",
    "paddle.incubate",
    "paddle.incubate.autograd",
    "paddle.incubate.asp",
    "paddle.incubate.autotune",
    "paddle.incubate.nn",
    "paddle.incubate.nn.functional",
    "paddle.incubate.optimizer",
    "paddle.incubate.optimizer.functional",
    "paddle.quantization",
    "paddle.profiler",
    "paddle.device",
    "paddle.distributed",
    "paddle.compat",
    "paddle.compat.nn",
    "paddle.compat.nn.functional",
    "paddle.utils",
    "paddle.utils.unique_name",
    "paddle.utils.dlpack",
    "paddle.utils.cpp_extension",
    "paddle.sysconfig",
    "paddle.version",
    "paddle.jit",
    "paddle.static",
    "paddle.static.nn",
    "paddle.inference",
    "paddle.onnx",
    "paddle.hub",
    "paddle.utils.download",
    "paddle.cuda",
    "paddle.device.cuda",
    "paddle.device.xpu",
    "paddle.distributed.fleet",
    "paddle.distributed.rpc",
    "paddle.distributed.sharding",
    "paddle.incubate.cc",
]
OUT_OF_SCOPE = {
    "paddle.static": "static graphs",
    "paddle.static.nn": "static graphs",
    "paddle.inference": "static graphs",
    "paddle.hub": "downloads",
    "paddle.utils.download": "downloads",
    "paddle.cuda": "GPU",
    "paddle.device.cuda": "GPU",
    "paddle.device.xpu": "XPU",
    "paddle.distributed.fleet": "fleet",
    "paddle.distributed.rpc": "fleet",
    "paddle.distributed.sharding": "fleet",
    "paddle.incubate.cc": "compiler",
}


_MISSING = object()


def _oar_object(dotted):
    """The oar object for a Paddle dotted name (`paddle.nn.Linear` -> oar.nn.Linear), or
    _MISSING (an attribute whose value is None, as paddle.version.hip, exists)."""
    parts = ["oar"] + dotted.split(".")[1:]
    obj = None
    for i in range(len(parts), 0, -1):  # the longest importable module prefix
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:
            continue
        rest = parts[i:]
        break
    else:
        return _MISSING
    for p in rest:
        try:
            obj = getattr(obj, p)
        except Exception:
            return _MISSING
    return obj


def measure(api):
    rows, missing = [], {}
    for ns in NAMESPACES:
        names = api["modules"].get(ns, [])
        if not names:
            continue
        have = [n for n in names if _oar_object(f"{ns}.{n}") is not _MISSING]
        rows.append((ns, len(names), len(have)))
        missing[ns] = sorted(set(names) - set(have))
    import oar

    tensor = api["tensor"]
    t_have = [n for n in tensor if hasattr(oar.Tensor, n)]
    rows.append(("paddle.Tensor", len(tensor), len(t_have)))
    missing["paddle.Tensor"] = sorted(set(tensor) - set(t_have))
    return rows, missing


def render(api, rows, missing, differences):
    def pct(a, b):
        return f"{100.0 * a / b:.0f}%" if b else "-"

    inscope = [r for r in rows if r[0] not in OUT_OF_SCOPE]
    tot_n, tot_h = sum(r[1] for r in inscope), sum(r[2] for r in inscope)
    out = [
        "# Paddle's API in oar",
        "",
        f"Which public names of PaddlePaddle {api['paddle_version']} oar provides, namespace by "
        "namespace: a name counts when `paddle.X.name` resolves to an object under "
        "`oar.X` (what the behaviour of each is, and how it is tested, is in the page of its "
        "area and in the op reference `build/generated/docs/ops.md`). Generated by `python3 tools/paddle_api/coverage.py` "
        "from the names Paddle exports (`tools/paddle_api/paddle_api.json`, names only, "
        "written by `dump_names.py` with Paddle installed) and the installed oar; "
        "`tests/python/test_paddle_api_doc.py` fails while this page is stale. How much of "
        "Paddle's documented *examples* run: [paddle_examples.md](paddle_examples.md).",
        "",
        f"**In scope: {tot_h} of {tot_n} names ({pct(tot_h, tot_n)})**, over "
        f"{len(inscope)} namespaces and `paddle.Tensor`'s attributes.",
        "",
        "| namespace | Paddle's names | in oar | covered | note |",
        "|---|---:|---:|---:|---|",
    ]
    for ns, n, h in rows:
        note = f"out of scope ({OUT_OF_SCOPE[ns]})" if ns in OUT_OF_SCOPE else ""
        out.append(f"| `{ns}` | {n} | {h} | {pct(h, n)} | {note} |")
    out += ["", "## Deliberate differences", "", "| Paddle | oar | where |", "|---|---|---|"]
    for d in differences:
        out.append(
            f"| {d['what']} | {d['oar']} | [{os.path.basename(d['doc'])}]"
            f"({os.path.basename(d['doc'])}) |"
        )
    out += [
        "",
        "## Missing names, by namespace",
        "",
        "In-scope namespaces only; each name is Paddle's.",
        "",
    ]
    for ns, n, h in rows:
        if ns in OUT_OF_SCOPE or not missing[ns]:
            continue
        out.append(
            f"- **`{ns}`** ({len(missing[ns])}): " + ", ".join(f"`{m}`" for m in missing[ns])
        )
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/paddle_api.md is stale")
    args = ap.parse_args(argv)
    with open(os.path.join(HERE, "paddle_api.json")) as f:
        api = json.load(f)
    with open(os.path.join(HERE, "differences.yaml")) as f:
        differences = yaml.safe_load(f)
    rows, missing = measure(api)
    text = render(api, rows, missing, differences)
    if args.check:
        with open(DOC) as f:
            if f.read() != text:
                sys.exit("docs/paddle_api.md is stale: run python3 tools/paddle_api/coverage.py")
        return 0
    with open(DOC, "w") as f:
        f.write(text)
    print(next(line for line in text.split("\n") if line.startswith("**In scope")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
