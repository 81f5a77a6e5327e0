"""Pull the `>>>` example programs out of the docstrings of Paddle's public API.

Two halves:
  * pure functions over docstring text (`parse_docstring`, `classify`), which need
    nothing installed and are what tests/python/test_paddle_examples_harness.py checks;
  * `walk_public_api`, which imports the installed paddle package and visits its
    public namespaces (`__all__` of every public module reachable from `paddle`,
    the methods and properties of the public classes, `paddle.Tensor`'s methods).

Each example gets a stable id: the qualified API name where it was first met
(breadth-first from `paddle`, so `paddle.add` wins over `paddle.tensor.math.add`),
`#` and the index of the code block in that docstring. An example program whose
text was already met under another name is kept once, under the first id.

The example text lands only in the git-ignored output directory: the project keeps
ids, statuses and names, never Paddle's example code.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import re
import sys
import types
from dataclasses import asdict, dataclass, field

_CODE_BLOCK = re.compile(r"^(\s*)\.\.\s+code-block::\s*(python|pycon|python3)?\s*$")
_DIRECTIVE = re.compile(r"#\s*doctest:\s*(.*)$")
_ONE_DIRECTIVE = re.compile(r"([+-])\s*([A-Z_]+)\s*(\(([^)]*)\))?")


@dataclass
class Statement:
    """One `>>>` statement with its `...` continuation lines, run like a REPL line."""

    source: str
    want: str = ""  # the output the docstring shows after it
    skip: bool = False  # an xdoctest +SKIP covers it: not executed


@dataclass
class Example:
    id: str
    api: str
    index: int
    statements: list = field(default_factory=list)
    directives: list = field(default_factory=list)  # block-level, e.g. "+REQUIRES(env:GPU)"
    set_aside: str = ""  # "" = runnable; else the category (see classify)

    def code(self) -> str:
        """The example as one script (statements not skipped)."""
        return "\n".join(s.source for s in self.statements if not s.skip)


def _directives(line: str) -> list[tuple[str, str, str]]:
    """(sign, name, argument) of the doctest directives in a source line's comment."""
    m = _DIRECTIVE.search(line)
    if not m:
        return []
    return [(s, n, (a or "").strip()) for s, n, _, a in _ONE_DIRECTIVE.findall(m.group(1))]


def _blocks(doc: str) -> list[list[str]]:
    """The bodies (dedented lines) of the `.. code-block:: python` directives of a docstring."""
    lines = doc.expandtabs().splitlines()
    out = []
    i = 0
    while i < len(lines):
        m = _CODE_BLOCK.match(lines[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        i += 1
        body = []
        while i < len(lines):
            ln = lines[i]
            if ln.strip() and (len(ln) - len(ln.lstrip())) <= indent:
                break
            body.append(ln)
            i += 1
        while body and not body[-1].strip():
            body.pop()
        # drop the directive's options (":name: code-example1")
        stripped = [b for b in body if not re.match(r"^\s*:[a-z-]+:", b)]
        if stripped:
            base = min(len(b) - len(b.lstrip()) for b in stripped if b.strip())
            out.append([b[base:] if b.strip() else "" for b in stripped])
    return out


def parse_block(lines: list[str]) -> tuple[list[Statement], list[str]] | None:
    """Split a code block into statements; None if it has no `>>>` prompts."""
    if not any(ln.lstrip().startswith(">>>") for ln in lines):
        return None
    stmts: list[Statement] = []
    block_directives: list[str] = []
    skipping = False  # a block-level +SKIP is in force
    cur: Statement | None = None
    src: list[str] = []
    want: list[str] = []

    def flush():
        nonlocal cur, src, want
        if cur is not None:
            cur.source = "\n".join(src)
            cur.want = "\n".join(want).strip("\n")
            stmts.append(cur)
        cur, src, want = None, [], []

    for raw in lines:
        ln = raw.strip()
        if ln.startswith(">>>"):
            flush()
            text = raw.lstrip()[4:] if raw.lstrip().startswith(">>> ") else raw.lstrip()[3:]
            dirs = _directives(text)
            code_part = _DIRECTIVE.sub("", text).strip()
            if dirs and not code_part:
                # a directive alone on its line governs the rest of the block
                for sign, name, arg in dirs:
                    if name == "SKIP":
                        skipping = sign == "+"
                        if sign == "+" and not stmts:
                            block_directives.append(f"+SKIP({arg})" if arg else "+SKIP")
                    elif sign == "+":
                        block_directives.append(f"+{name}({arg})" if arg else f"+{name}")
                continue
            cur = Statement(
                source=text, skip=skipping or any(n == "SKIP" and s == "+" for s, n, _ in dirs)
            )
            src = [text]
        elif cur is not None and not want and (ln == "..." or ln.startswith("... ")):
            text = raw.lstrip()[4:] if raw.lstrip().startswith("... ") else ""
            src.append(text)
            if any(n == "SKIP" and s == "+" for s, n, _ in _directives(text)):
                cur.skip = True
        elif cur is not None:
            want.append(raw)
    flush()
    # trailing blank continuation lines are harmless, leading/trailing blanks in sources are not
    for s in stmts:
        s.source = s.source.rstrip()
    return stmts, block_directives


def parse_docstring(doc: str, api: str) -> list[Example]:
    """The prompt-style examples of one docstring, indexed by their code block."""
    out = []
    for idx, lines in enumerate(_blocks(doc or "")):
        parsed = parse_block(lines)
        if parsed is None:
            continue
        stmts, dirs = parsed
        if not any(not s.skip for s in stmts):
            dirs = dirs or ["+SKIP"]
        ex = Example(id=f"{api}#{idx}", api=api, index=idx, statements=stmts, directives=dirs)
        ex.set_aside = classify(ex)
        out.append(ex)
    return out


# Set-aside categories, first match wins. Each: (category, regex over the example's code).
_CODE_RULES = [
    (
        "distributed",
        re.compile(
            r"paddle\.distributed|\bfleet\b|init_parallel_env|DataParallel|\bdist\.(spawn|launch)|"
            r"paddle\.incubate\.distributed|ProcessMesh|shard_tensor"
        ),
    ),
    (
        "gpu_or_device",
        re.compile(
            r"CUDAPlace|CUDAPinnedPlace|XPUPlace|IPUPlace|CustomPlace|set_device\(\s*['\"](gpu|xpu|npu|ipu|custom)|"
            r"\.cuda\(|paddle\.device\.cuda\.|paddle\.device\.xpu|['\"]gpu:\d|cuda_graph|"
            r"paddle\.cuda\.|core\.is_compiled_with_cuda\(\)\s*$"
        ),
    ),
    (
        "static_graph",
        re.compile(
            r"enable_static\(|paddle\.static\.(Program|program_guard|Executor|data|default_main_program|"
            r"default_startup_program|nn\.|append_backward|gradients|global_scope|scope_guard|"
            r"CompiledProgram|BuildStrategy|ExecutionStrategy|py_func|Print|create_global_var|"
            r"create_parameter|save|load|serialize|deserialize|normalize_program|IpuStrategy|"
            r"ExponentialMovingAverage|WeightNormParamAttr|device_guard|name_scope|setitem|accuracy|auc|"
            r"ctr_metric_bundle|cpu_places|cuda_places|xpu_places|mlu_places|Variable|set_program_state|"
            r"load_program_state)|\bprogram_guard\(|\bExecutor\(|paddle\.pir\b|in_pir_mode|"
            r"paddle\.base\.(framework|layers|Program|program_guard|executor)"
        ),
    ),
    (
        "inference_or_jit_export",
        re.compile(
            r"paddle\.jit\.(save|load|to_static|not_to_static|ignore_module|marker|TranslatedLayer|"
            r"enable_to_static|set_code_level|set_verbosity|sot)|\bto_static\b|paddle\.inference|"
            r"paddle\.onnx|save_inference_model|load_inference_model|TranslatedLayer|paddle\.jit\.api"
        ),
    ),
    (
        "download",
        re.compile(
            r"pretrained\s*=\s*True|paddle\.hub|download|get_weights_path_from_url|"
            r"paddle\.vision\.datasets\.|paddle\.text\.datasets|paddle\.text\.(Conll05st|Imdb|Imikolov|"
            r"Movielens|UCIHousing|WMT14|WMT16)|\b(MNIST|FashionMNIST|Cifar10|Cifar100|Flowers|VOC2012|"
            r"Conll05st|Imdb|Imikolov|Movielens|UCIHousing|WMT14|WMT16)\(|paddle\.dataset\.|"
            r"paddle\.audio\.datasets|"
            r"from paddle\.(vision\.datasets|text\.datasets|text|audio\.datasets) import|urlopen|requests\.get"
        ),
    ),
]
_DIRECTIVE_RULES = [
    ("distributed", re.compile(r"DISTRIBUTED", re.I)),
    ("gpu_or_device", re.compile(r"GPU|XPU|IPU|CUSTOM_DEVICE|NPU|MLU|CINN|TENSORRT", re.I)),
]


def classify(ex: Example) -> str:
    """'' if the example is a candidate eager CPU program, else why it is set aside."""
    dirs = " ".join(ex.directives)
    for cat, rx in _DIRECTIVE_RULES:
        if "REQUIRES" in dirs and rx.search(dirs):
            return cat
    code = ex.code()
    for cat, rx in _CODE_RULES:
        if rx.search(code):
            return cat
    if any(d.startswith("+SKIP") for d in ex.directives):
        return "doctest_skip"
    return ""


# ---------------------------------------------------------------- walking Paddle

_INTERNAL = re.compile(
    r"(^|\.)(base|fluid|libs|proto|pir|_C_ops|_pir_ops|_legacy_C_ops|_typing|core|framework\.io_utils|"
    r"tests?|testing|cinn|jit\.sot|jit\.dy2static|jit\.pir_dy2static|decomposition|autograd\.ir_backward|"
    r"utils\.cpp_extension\.extension_utils)($|\.)"
)


def _public_members(mod):
    names = getattr(mod, "__all__", None)
    if names is None:
        return []
    try:
        names = list(names)
    except TypeError:
        return []
    return [n for n in names if isinstance(n, str) and not n.startswith("_")]


def public_attrs(obj):
    """(name, value) of the public attributes of a module or class, skipping those that raise."""
    for k in sorted(dir(obj)):
        if k.startswith("_"):
            continue
        try:
            yield k, getattr(obj, k)
        except Exception:
            continue


def walk_public_api(root_name: str = "paddle"):
    """Yield (qualified name, object) over the public API, breadth first, each object once."""
    import importlib

    root = importlib.import_module(root_name)
    seen_mod, seen_obj = set(), set()
    queue = [(root_name, root)]
    classes = []  # their members come after every module-level name, so that
    # paddle.add (not paddle.Tensor.add) names the example both share
    while queue:
        name, mod = queue.pop(0)
        if id(mod) in seen_mod:
            continue
        seen_mod.add(id(mod))
        yield name, mod
        members = set(_public_members(mod))
        # public submodules reachable as attributes (paddle.nn, paddle.linalg, ...)
        for k, v in public_attrs(mod):
            if (
                isinstance(v, types.ModuleType)
                and getattr(v, "__name__", "") == f"{mod.__name__}.{k}"
            ):
                sub = f"{name}.{k}"
                if not _INTERNAL.search(sub[len(root_name) :]):
                    queue.append((sub, v))
        for k in sorted(members):
            try:
                v = getattr(mod, k)
            except Exception:
                continue
            if isinstance(v, types.ModuleType):
                continue
            qn = f"{name}.{k}"
            if id(v) in seen_obj:
                continue
            seen_obj.add(id(v))
            yield qn, v
            if inspect.isclass(v):
                classes.append((qn, v))
    # a class's own members first, inherited ones after, so that an example of Layer.astype
    # is named paddle.nn.Layer.astype and not after a subclass that inherits it
    for qn, cls in classes:
        yield from _own_members(qn, cls, seen_obj)
    for qn, cls in classes:
        yield from _other_members(qn, cls, seen_obj)


def _own_members(qn, cls, seen_obj):
    for k, v in sorted(vars(cls).items()) if hasattr(cls, "__dict__") else []:
        if k.startswith("_") and k not in ("__call__", "__init__"):
            continue
        fn = v.fget if isinstance(v, property) else getattr(v, "__func__", v)
        if id(fn) in seen_obj or not getattr(fn, "__doc__", None):
            continue
        seen_obj.add(id(fn))
        yield f"{qn}.{k}", fn


def _other_members(qn, cls, seen_obj):
    """Inherited members, and those of classes whose __dict__ does not show them."""
    for k, v in public_attrs(cls):
        fn = getattr(v, "__func__", v)
        if id(fn) in seen_obj or not callable(fn) or not getattr(fn, "__doc__", None):
            continue
        seen_obj.add(id(fn))
        yield f"{qn}.{k}", fn


def extract_all(root_name: str = "paddle") -> list[Example]:
    examples, seen_code = [], set()
    for qn, obj in walk_public_api(root_name):
        try:
            doc = obj.__doc__ if not isinstance(obj, types.ModuleType) else obj.__doc__
        except Exception:
            continue
        if not isinstance(doc, str) or ">>>" not in doc:
            continue
        for ex in parse_docstring(doc, qn):
            key = hashlib.sha1("\n".join(s.source for s in ex.statements).encode()).hexdigest()
            if key in seen_code:
                continue
            seen_code.add(key)
            examples.append(ex)
    return examples


def _tensor_only_attrs(paddle) -> set:
    """Public attributes of paddle.Tensor that no other public class of Paddle has.

    The report counts `obj.name` in an example as a use of Tensor.name only for
    these, so that `layer.to(...)` or `transform.inverse(...)` are not taken for
    Tensor methods."""
    attrs = {k for k in dir(paddle.Tensor) if not k.startswith("_")}
    for qn, obj in walk_public_api("paddle"):
        if inspect.isclass(obj) and obj is not paddle.Tensor and not issubclass(obj, paddle.Tensor):
            try:
                other = set(dir(obj))
            except Exception:
                continue
            if len(other & attrs) > len(attrs) // 3:
                continue  # a tensor-like class (static Variable, PIR Value): same methods
            attrs -= other
    return attrs


def save(examples, path):
    with open(path, "w") as f:
        json.dump([asdict(e) for e in examples], f, indent=1)


def load(path) -> list[Example]:
    with open(path) as f:
        raw = json.load(f)
    return [Example(**{**r, "statements": [Statement(**s) for s in r["statements"]]}) for r in raw]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="build/paddle_examples/examples.json")
    args = ap.parse_args(argv)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    examples = extract_all("paddle")
    save(examples, args.out)
    import paddle

    meta = {
        "paddle_version": paddle.__version__,
        # lets the report tell a missing Tensor method from other attribute reads
        "tensor_attrs": sorted(_tensor_only_attrs(paddle)),
    }
    with open(
        os.path.join(os.path.dirname(os.path.abspath(args.out)), "paddle_meta.json"), "w"
    ) as f:
        json.dump(meta, f)
    from collections import Counter

    c = Counter(e.set_aside or "candidate" for e in examples)
    print(
        f"{len(examples)} examples -> {args.out}: "
        + ", ".join(f"{k} {v}" for k, v in c.most_common())
    )


if __name__ == "__main__":
    sys.exit(main())
