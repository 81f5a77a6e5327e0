"""Turn the two result files into the ranking of what stops Paddle's examples on oar.

Runs where oar is importable (it resolves names against oar through shim.py) and
reads only the output directory: examples.json, paddle_meta.json, results_paddle.json,
results_oar.json. Writes summary.json there and, with --doc, the committed page
docs/paddle_examples.md (ids, counts and names only — no example text).

Three counts per missing name:
  first    examples whose run on oar stopped on that name (the exception's own name);
  refs     examples that ran on Paddle, fail on oar, and reference the name
           (resolved statically from the example's imports: `import paddle.nn.functional
           as F` makes `F.gelu` paddle.nn.functional.gelu; a `.name` read on any other
           object counts as paddle.Tensor.name when Paddle's Tensor has it and oar's
           Tensor and Layer do not — a heuristic, marked so);
  only     of those, the examples in which it is the only missing name referenced and
           whose oar failure is a missing name: adding it most likely makes them run.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import importlib
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract  # noqa: E402

_DEVICE = re.compile(
    r"^paddle\.(set_device|get_device|device|is_compiled_with_\w+|CUDAPlace|XPUPlace|"
    r"CUDAPinnedPlace|CustomPlace|get_cuda_rng_state|set_cuda_rng_state|cuda)(\.|$)"
)
_MODE = re.compile(
    r"^paddle\.(disable_static|enable_static|in_dynamic_mode|in_static_mode|"
    r"disable_signal_handler)$"
)


def area(name: str) -> str:
    """The part of Paddle's API a missing name belongs to (rows of the grouped table)."""
    if name.startswith("paddle.Tensor."):
        return "sparse tensors" if "sparse" in name else "Tensor methods"
    if "sparse" in name:
        return "sparse tensors"
    if _DEVICE.match(name):
        return "device API"
    if _MODE.match(name):
        return "static/dynamic mode API"
    parts = name.split(".")
    if len(parts) < 2 or parts[0] != "paddle":
        return "other (" + parts[0] + ")"
    top = parts[1]
    if top == "nn" and len(parts) > 2:
        if parts[2] == "functional":
            return "paddle.nn.functional"
        if parts[2] in ("utils", "quant", "initializer"):
            return f"paddle.nn.{parts[2]}"
        return "paddle.nn layers and classes"
    if top in (
        "linalg",
        "fft",
        "signal",
        "distribution",
        "geometric",
        "incubate",
        "compat",
        "audio",
        "vision",
        "text",
        "quantization",
        "amp",
        "metric",
        "optimizer",
        "io",
        "utils",
        "base",
        "regularizer",
        "autograd",
        "static",
        "jit",
        "hapi",
        "callbacks",
        "profiler",
        "tensor",
        "framework",
        "version",
        "sysconfig",
        "onnx",
        "hub",
    ):
        return f"paddle.{top}"
    if top[:1].isupper():
        return "top-level classes"
    return "top-level functions"


def cause(rec) -> str:
    """One line naming why an example failed on oar (the key of the cause ranking)."""
    if rec["status"] in ("timeout", "crash"):
        return f"{rec['status']}: {rec.get('message', '')}"
    if rec.get("missing"):
        return "missing " + rec["missing"]
    msg = rec.get("message", "")
    if re.search(r"complex", msg):
        return "dtype: complex data/dtype unsupported"
    m = re.search(r"unknown dtype '(u?int(8|16))'", msg)
    if m:
        return f"dtype: {m.group(1)} unsupported"
    m = re.search(r"unexpected keyword argument '(\w+)'", msg)
    if m:
        fn = re.match(r"([\w.]+)\(\)", msg)
        return f"{rec['error_type']}: {fn.group(1) if fn else '?'}() lacks argument '{m.group(1)}'"
    norm = re.sub(r"\d+", "N", msg)
    norm = re.sub(r"\[[^\]]*\]", "[..]", norm)
    return f"{rec['error_type']}: {norm[:140]}"


_RANDOM = re.compile(
    r"rand|normal|uniform|dropout|seed|shuffle|bernoulli|multinomial|poisson|sample|"
    r"initializer|LSTM|GRU|RNN|Embedding|nn\.(Linear|Conv|Bilinear)|Model|perm|empty|"
    r"id\(|data_ptr|time|Profiler|profiler"
)
# Deterministic examples whose printed difference has been looked at, and why it stays.
_REVIEWED = {
    "paddle.argsort#0": "ties under stable=False come out in an unspecified order; oar's is stable",
    "paddle.as_tensor#0": "`type(x)` prints `oar.Tensor`",
    "paddle.asarray#0": "`type(x)` prints `oar.Tensor`",
    "paddle.to_tensor#0": "`type(x)` prints `oar.Tensor`",
    "paddle.iinfo#0": "the repr names `oar.iinfo`",
    "paddle.set_grad_enabled#0": "an object's repr names oar's module",
    "paddle.Tensor.register_hook#0": "the hook handle's class name",
    "paddle.version.show#0": "oar's own version",
    "paddle.utils.cpp_extension.get_build_directory#0": "oar's own cache directory",
    "paddle.utils.unique_name.switch#0": "the generator objects' reprs",
    "paddle.isin#0": "assume_unique=True on repeated values: the example prints the wrong "
    "result Paddle documents; oar returns the right one",
    "paddle.linalg.eigh#0": "eigenvectors differ by a unit phase per column (both are eigenvectors)",
    "paddle.linalg.svd#0": "singular vectors differ in sign per pair (both factor the matrix)",
    "paddle.distribution.Geometric.kl_divergence#0": "Paddle prints the two Bernoulli(p) KL "
    "(0.511); the geometric one is log(p/q) + (1-p)/p log((1-p)/(1-q)) = "
    "1.022, which oar and PyTorch give",
    "paddle.sparse.sum#0": "Paddle prints a full sum's COO indices as [0] and its value 0-d; "
    "oar keeps the [sparse_dim, nnz] and [nnz] shapes of every COO tensor",
    "paddle.Tensor.name#0": "oar leaves an unnamed tensor's name empty (Paddle generates "
    "`generated_tensor_N`)",
    "paddle.amp.debugging.TensorCheckerConfig#0": "Paddle's stdout carries its own seed warning",
    "paddle.amp.debugging.check_numerics#0": "Paddle's stdout carries its own seed warning",
    "paddle.amp.debugging.disable_tensor_checker#0": "Paddle's stdout carries its own seed warning",
    "paddle.amp.debugging.enable_tensor_checker#0": "Paddle's stdout carries its own seed warning",
}
_NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?\b(?:nan|inf)\b\.?")


def same_values(a: str, b: str, rtol=1e-5, atol=1e-6) -> bool:
    """Whether two printouts show the same numbers (within float32 printing precision) and
    the same words, whatever the spacing and digit formatting (`0.40000001` vs `0.4`)."""
    if re.sub(r"\s+", "", _NUM.sub("#", a)) != re.sub(r"\s+", "", _NUM.sub("#", b)):
        return False
    xs, ys = _NUM.findall(a), _NUM.findall(b)
    if len(xs) != len(ys):
        return False
    for x, y in zip(xs, ys):
        fx, fy = (
            float(x.rstrip(".") if x.rstrip(".")[-1:] in "fn" else x),
            float(y.rstrip(".") if y.rstrip(".")[-1:] in "fn" else y),
        )
        if fx != fy and not (fx != fx and fy != fy) and not abs(fx - fy) <= atol + rtol * abs(fy):
            return False
    return True


def same_float32s(a: str, b: str) -> bool:
    """Whether two printouts that show the same values hold the very same float32 numbers
    (so they differ in formatting only), not numbers a float32 rounding apart."""
    import numpy as np

    xs, ys = _NUM.findall(a), _NUM.findall(b)

    def val(t):
        return float(t.rstrip(".") if t.rstrip(".")[-1:] in "fn" else t)

    with np.errstate(over="ignore"):
        return len(xs) == len(ys) and all(
            np.float32(val(x)) == np.float32(val(y)) or (val(x) != val(x) and val(y) != val(y))
            for x, y in zip(xs, ys)
        )


# ---------------------------------------------------------------- static references


def _chain(node):
    """['a', 'b', 'c'] for the expression a.b.c, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def references(code: str):
    """(dotted paddle names, attribute names read on other objects) an example uses."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set(), set()
    alias = {}
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "paddle" or a.name.startswith("paddle."):
                    names.add(a.name)
                    if a.asname:
                        alias[a.asname] = a.name
                    else:
                        alias["paddle"] = "paddle"
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and (node.module == "paddle" or node.module.startswith("paddle."))
        ):
            for a in node.names:
                if a.name != "*":
                    alias[a.asname or a.name] = f"{node.module}.{a.name}"
                    names.add(f"{node.module}.{a.name}")
    other_modules = set()  # np, math, ...: their attributes are no Tensor methods
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            other_modules |= {(a.asname or a.name.split(".")[0]) for a in node.names} - set(alias)
        elif isinstance(node, ast.ImportFrom):
            other_modules |= {(a.asname or a.name) for a in node.names} - set(alias)
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    others = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            ch = _chain(node)
            if ch and ch[0] in alias:
                if id(node) not in inner:  # the whole chain a.b.c, not its prefixes
                    names.add(".".join([alias[ch[0]]] + ch[1:]))
            elif not (ch and ch[0] in other_modules):
                others.add(node.attr)
        elif isinstance(node, ast.Name) and node.id in alias:
            names.add(alias[node.id])
    return names, others


class Resolver:
    """Which prefix of a paddle.* dotted name oar lacks (through the paddle->oar alias)."""

    def __init__(self):
        import shim

        shim.install("paddle", "oar")
        self.root = importlib.import_module("paddle")
        self.cache = {}

    def first_missing(self, dotted: str) -> str:
        if dotted in self.cache:
            return self.cache[dotted]
        parts = dotted.split(".")
        obj, modname = self.root, "paddle"
        result = ""
        for i, p in enumerate(parts[1:], 1):
            if hasattr(obj, p):
                obj = getattr(obj, p)
            elif isinstance(obj, type(sys)):
                try:
                    obj = importlib.import_module(f"{modname}.{p}")
                except ImportError:
                    result = ".".join(parts[: i + 1])
                    break
                except Exception:
                    break
            else:
                if isinstance(obj, type):
                    result = ".".join(parts[: i + 1])
                break
            if isinstance(obj, type(sys)):
                modname = ".".join(parts[: i + 1])
            elif not isinstance(obj, type):
                break  # attributes of functions/instances are not API names
        self.cache[dotted] = result
        return result


def main(argv=None):
    ap = argparse.ArgumentParser(description="rank what stops Paddle's examples on oar")
    ap.add_argument("--dir", default="build/paddle_examples")
    ap.add_argument(
        "--doc", default="", help="write the markdown summary here (docs/paddle_examples.md)"
    )
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args(argv)
    d = args.dir
    examples = extract.load(os.path.join(d, "examples.json"))
    meta = json.load(open(os.path.join(d, "paddle_meta.json")))
    rp = json.load(open(os.path.join(d, "results_paddle.json")))
    ro = json.load(open(os.path.join(d, "results_oar.json")))
    pres = {r["id"]: r for r in rp["results"]}
    ores = {r["id"]: r for r in ro["results"]}

    aside = Counter(e.set_aside for e in examples if e.set_aside)
    candidates = [e for e in examples if not e.set_aside]
    ran_paddle = [e for e in candidates if pres.get(e.id, {}).get("status") == "ok"]
    not_run_oar = [e for e in ran_paddle if e.id not in ores]
    ran_oar = [e for e in ran_paddle if ores.get(e.id, {}).get("status") == "ok"]
    failed = [e for e in ran_paddle if e.id in ores and ores[e.id]["status"] != "ok"]

    def norm_out(s):
        s = re.sub(r"0x[0-9a-fA-F]+", "0x?", s or "")
        return "\n".join(ln.rstrip() for ln in s.strip().splitlines())

    same_out = [
        e
        for e in ran_oar
        if norm_out(pres[e.id].get("stdout")) == norm_out(ores[e.id].get("stdout"))
    ]
    same_val = [
        e
        for e in ran_oar
        if same_values(norm_out(pres[e.id].get("stdout")), norm_out(ores[e.id].get("stdout")))
    ]

    # runs, but prints other values: random programs are expected to; the rest are worth a look
    differ = [e for e in ran_oar if e not in same_val]
    # same values, other text: formatting alone, or float32 results a rounding apart
    near = [e for e in same_val if e not in same_out]
    formatting = [
        e
        for e in near
        if same_float32s(norm_out(pres[e.id].get("stdout")), norm_out(ores[e.id].get("stdout")))
    ]
    differ_det = [e.id for e in differ if not _RANDOM.search(e.code())]

    # first-blocking causes
    causes = Counter(cause(ores[e.id]) for e in failed)
    first_missing = Counter(ores[e.id]["missing"] for e in failed if ores[e.id].get("missing"))
    by_area_first = Counter()
    for e in failed:
        r = ores[e.id]
        c = cause(r)
        if r.get("missing"):
            by_area_first[area(r["missing"])] += 1
        elif c.startswith("dtype: complex"):
            by_area_first["complex dtypes"] += 1
        elif c.startswith("dtype:"):
            by_area_first["8/16-bit integer dtypes"] += 1
        else:
            by_area_first["behaviour/argument differences (no missing name)"] += 1

    # static references
    res = Resolver()
    import oar

    known_other = set()
    for cls in (oar.Tensor, oar.nn.Layer, oar.optimizer.Optimizer, oar.io.DataLoader, oar.Model):
        known_other |= set(dir(cls))
    tensor_attrs = set(meta["tensor_attrs"])
    refs = defaultdict(set)  # missing name -> example ids referencing it
    per_example = {}
    inside = defaultdict(set)  # "paddle.sparse:nn.ReLU" -> failing examples using it
    failing_ids = {e.id for e in failed}
    for e in ran_paddle:
        names, others = references(e.code())
        miss = {res.first_missing(n) for n in names} - {""}
        if e.id in failing_ids:
            for n in names:
                fm = res.first_missing(n)
                if fm and n.startswith(fm + "."):
                    inside[fm + ":" + n[len(fm) + 1 :]].add(e.id)
        miss |= {f"paddle.Tensor.{a}" for a in others if a in tensor_attrs and a not in known_other}
        per_example[e.id] = miss
    for eid, miss in per_example.items():
        if eid in failing_ids:
            for m in miss:
                refs[m].add(eid)
    only = Counter()
    for e in failed:
        miss = per_example[e.id]
        if len(miss) == 1 and ores[e.id].get("missing"):
            only[next(iter(miss))] += 1
    names = set(first_missing) | set(refs)
    table = sorted(names, key=lambda n: (-first_missing[n], -len(refs[n]), n))
    refs_by_area = defaultdict(set)
    for n, ids in refs.items():
        refs_by_area[area(n)] |= ids
    # dtypes are not names oar lacks but values it refuses: count failing examples that use them
    for e in failed:
        code = e.code()
        if re.search(r"complex|\b\d+(\.\d*)?j\b|as_complex|\bfft\b", code):
            refs_by_area["complex dtypes"].add(e.id)
        if re.search(r"\b(u?int8|int16)\b", code):
            refs_by_area["8/16-bit integer dtypes"].add(e.id)

    summary = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "paddle_version": rp["version"],
        "oar_version": ro["version"],
        "extracted": len(examples),
        "set_aside": dict(aside.most_common()),
        "candidates": len(candidates),
        "ran_on_paddle": len(ran_paddle),
        "paddle_failures": dict(
            Counter(
                f"{pres[e.id].get('error_type')}"
                for e in candidates
                if pres.get(e.id, {}).get("status") != "ok"
            ).most_common()
        ),
        "ran_on_oar": len(ran_oar),
        "same_output": len(same_out),
        "same_values": len(same_val),
        "formatting_only": len(formatting),
        "not_run_on_oar": len(not_run_oar),
        "causes": causes.most_common(),
        "missing": [
            {
                "name": n,
                "area": area(n),
                "first": first_missing[n],
                "refs": len(refs[n]),
                "only": only[n],
                "ids": sorted(refs[n] | {e.id for e in failed if ores[e.id].get("missing") == n}),
            }
            for n in table
        ],
        "differ_deterministic": differ_det,
        "differ_total": len(differ),
        "inside_missing_namespaces": {k: sorted(v) for k, v in sorted(inside.items())},
        "areas_first": by_area_first.most_common(),
        "areas_refs": sorted(
            ((a, len(ids)) for a, ids in refs_by_area.items()), key=lambda t: -t[1]
        ),
        "per_example": {
            e.id: {
                "paddle": pres[e.id]["status"],
                "oar": ores.get(e.id, {}).get("status"),
                "cause": cause(ores[e.id]) if e.id in failing_ids else "",
                "missing_refs": sorted(per_example[e.id]),
            }
            for e in ran_paddle
        },
    }
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    pct = 100.0 * len(ran_oar) / max(1, len(ran_paddle))
    print(
        f"oar runs {len(ran_oar)} of {len(ran_paddle)} = {pct:.1f}% "
        f"(same printed output: {len(same_out)}, same printed values: {len(same_val)}); {len(failed)} fail"
    )
    if args.doc:
        write_doc(
            args.doc,
            summary,
            causes,
            first_missing,
            refs,
            only,
            table,
            by_area_first,
            refs_by_area,
            args.top,
            ro,
            rp,
            inside,
        )
    return 0


def _git(*a):
    try:
        return subprocess.run(["git", *a], capture_output=True, text=True, cwd=HERE).stdout.strip()
    except Exception:
        return "?"


def write_doc(
    path,
    s,
    causes,
    first_missing,
    refs,
    only,
    table,
    by_area_first,
    refs_by_area,
    top,
    ro,
    rp,
    inside,
):
    pct = 100.0 * s["ran_on_oar"] / max(1, s["ran_on_paddle"])
    L = []
    a = L.append
    a("# Paddle's documented examples on oar")
    a("")
    a(
        "How much of Paddle's own API documentation runs unchanged when `import paddle` "
        "resolves to oar. Generated by `tools/paddle_examples/report.py`; "
        "how to re-run it: `tools/paddle_examples/README.md`. Only ids, counts and names "
        "are kept here; the example programs are re-extracted from the installed Paddle."
    )
    a("")
    a(
        f"- Measured: {s['date']}, oar {s['oar_version']} at commit `{_git('rev-parse', '--short', 'HEAD')}`, "
        f"PaddlePaddle {s['paddle_version']} (CPU build), Python {ro.get('python', '?')}."
    )
    a(
        "- Command: `tools/paddle_examples/measure.sh` (extract → run on Paddle → run on oar → report)."
    )
    a(
        f"- Wall time: Paddle side {rp.get('seconds', '?')} s, oar side {ro.get('seconds', '?')} s "
        "(one fork per example, 2 at a time, 20 s timeout)."
    )
    a("")
    a("## Headline")
    a("")
    a(
        f"**oar runs {s['ran_on_oar']} of the {s['ran_on_paddle']} examples that run on Paddle = {pct:.1f}%** "
        "(\"runs\" = the whole example executes without an exception)."
    )
    a(
        f"Stricter: {s['same_output']} of them ({100.0 * s['same_output'] / max(1, s['ran_on_paddle']):.1f}% "
        "of the denominator) also print exactly what Paddle prints (after trailing-space and "
        "memory-address normalisation; examples that print random numbers cannot match)."
    )
    a(
        f"Looser: {s['same_values']} ({100.0 * s['same_values'] / max(1, s['ran_on_paddle']):.1f}%) print "
        "the same words and the same numbers within float32 printing precision, whatever the spacing "
        f"and digit formatting. Of the {s['same_values'] - s['same_output']} in between, "
        f"{s.get('formatting_only', 0)} hold the very same float32 numbers (formatting, or the "
        "sign of a zero) and the others numbers a float32 rounding apart: oar's vectorised "
        "exp/log/erf/... against the C library's, or another summation order."
    )
    a("")
    a("| | examples |")
    a("|---|---:|")
    a(f"| extracted (unique `>>>` code blocks in the public API's docstrings) | {s['extracted']} |")
    for k, v in s["set_aside"].items():
        a(f"| set aside: {k.replace('_', ' ')} | {v} |")
    a(f"| candidates (eager, CPU, no download) | {s['candidates']} |")
    a(
        f"| fail on Paddle itself ({', '.join(f'{k} {v}' for k, v in s['paddle_failures'].items())}) | "
        f"{s['candidates'] - s['ran_on_paddle']} |"
    )
    a(f"| **run on Paddle (denominator)** | **{s['ran_on_paddle']}** |")
    a(f"| **run on oar** | **{s['ran_on_oar']}** |")
    a(f"| same printed output (exact text) | {s['same_output']} |")
    a(
        f"| same printed values (numbers within float32 precision, any spacing) | {s['same_values']} |"
    )
    a("")
    a(
        "Set-aside rules (`extract.classify`, first match wins): a `+REQUIRES(env:...)` directive "
        "naming a distributed run or a device other than the CPU; code using `paddle.distributed`/fleet, "
        "a GPU/XPU/custom place, static-graph programs (`enable_static`, `paddle.static.Program`, "
        "`Executor`, PIR), `paddle.jit` export/`to_static`/inference, or datasets and pretrained "
        "weights that would download; a block that Paddle's own doctests skip (`+SKIP` on the whole block). "
        "Statements carrying an inline `+SKIP` are left out on both sides, as Paddle's doctest runner does."
    )
    a("")
    a("Reading the numbers:")
    a("")
    a(
        "- An example stops at its first failure, so `first` counts hide what comes after: adding a "
        "name unblocks an example only if nothing else is missing further down (`only` estimates that)."
    )
    a(
        "- An example program shared by several APIs (e.g. `paddle.add` and `Tensor.add`) is counted "
        "once, under the first public name met breadth-first from `paddle`."
    )
    a(
        "- The issue's earlier figure (149 of 1,092) came from a narrower extraction; the two "
        "denominators are not the same set of examples."
    )
    a(
        "- The denominator is what runs on Paddle's CPU build here, so a set-aside rule that misses an "
        "example needing a GPU or the network only removes it from both sides."
    )
    a("")
    a("## What stops the rest, by area")
    a("")
    a(
        "`first`: examples whose run on oar stopped in this area (each failing example counted once, "
        "at its first failure). `refs`: failing examples that reference a missing name of the area "
        "anywhere (an example can count in several areas); for the two dtype rows, failing examples "
        "whose code mentions complex values or `fft` / `uint8`, `int8`, `int16`."
    )
    a("")
    a("| area | first | refs |")
    a("|---|---:|---:|")
    areas = set(by_area_first) | set(refs_by_area)
    for ar in sorted(areas, key=lambda x: (-by_area_first[x], -len(refs_by_area.get(x, ())))):
        a(f"| {ar} | {by_area_first[ar]} | {len(refs_by_area.get(ar, ())) or ''} |")
    a("")
    a("## Missing names, ranked")
    a("")
    a(
        "`first`: examples whose oar run raised AttributeError/ImportError on this name. "
        "`refs`: failing examples that reference it (static resolution of the example's imports "
        "against oar; `paddle.Tensor.x` rows from attribute reads are a heuristic). `only`: failing "
        "examples in which it is the only missing name referenced — adding it most likely makes them run "
        "(unless a behaviour difference follows)."
    )
    a("")
    a("| # | missing name | area | first | refs | only |")
    a("|---:|---|---|---:|---:|---:|")
    for i, n in enumerate(table[:top], 1):
        a(f"| {i} | `{n}` | {area(n)} | {first_missing[n]} | {len(refs[n])} | {only[n]} |")
    a("")
    a("## Every missing name, by area")
    a("")
    a("`name (first/refs)`; within an area, most blocking first.")
    a("")
    grouped = defaultdict(list)
    for n in table:
        grouped[area(n)].append(n)
    for ar in sorted(grouped, key=lambda x: (-by_area_first[x], x)):
        a(
            f"- **{ar}** ({len(grouped[ar])}): "
            + ", ".join(f"`{n}` ({first_missing[n]}/{len(refs[n])})" for n in grouped[ar])
        )
    a("")
    a("## What the examples use inside the missing namespaces")
    a("")
    a(
        "Where a whole namespace is missing (`paddle.distribution`, `paddle.sparse`, ...), the names "
        "the failing examples reach inside it, with the number of failing examples using each."
    )
    a("")
    by_ns = defaultdict(list)
    for k, ids in inside.items():
        by_ns[k.split(":")[0]].append((k.split(":")[1], len(ids)))
    for ns in sorted(by_ns, key=lambda n: (-len(refs.get(n, ())), n)):
        items = sorted(by_ns[ns], key=lambda t: (-t[1], t[0]))
        a(
            f"- **`{ns}`** ({len(refs.get(ns, ()))} examples): "
            + ", ".join(f"`{k}` {n}" for k, n in items)
        )
    a("")
    a("## Runs, but prints other values")
    a("")
    det = s["differ_deterministic"]
    reviewed = [i for i in det if i in _REVIEWED]
    open_ = [i for i in det if i not in _REVIEWED]
    a(
        f"{s['differ_total']} examples run on oar but print different words or numbers than Paddle. "
        f"Most use random numbers or freshly initialised weights; {len(det)} do not look random "
        "(no rand/seed/initialised layer in the code)."
    )
    a("")
    if open_:
        a(
            f"Not yet reviewed ({len(open_)}; some may be wrong results or a different "
            "`stop_gradient`/shape of the result): " + ", ".join(f"`{i}`" for i in open_) + "."
        )
        a("")
    if reviewed:
        a(f"Reviewed ({len(reviewed)}), the difference stays:")
        a("")
        for i in reviewed:
            a(f"- `{i}`: {_REVIEWED[i]}.")
        a("")
    a("## Failures that are not a missing name")
    a("")
    a("Grouped by error type and message (numbers → N, bracketed shapes → [..]).")
    a("")
    a("| cause | examples |")
    a("|---|---:|")
    for c, n in causes.most_common():
        if not c.startswith("missing "):
            a(f"| {c.replace('|', '/')} | {n} |")
    a("")
    a(
        "Per-example records (id, status, error type, first message line, missing name, "
        "line, raising frame, printed output) are in the git-ignored `build/paddle_examples/` "
        "(`results_paddle.json`, `results_oar.json`, `summary.json`)."
    )
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    sys.exit(main())
