#!/usr/bin/env python3
"""Writes the stub lines of the Tensor methods and properties the Python package binds
(oar.tensor.methods.bind_methods), for the Tensor class of oar/_C.pyi: the package is
imported next to a built extension and every Python-level attribute of oar.Tensor is
stubbed from inspect.signature, so each stub is the bound function's own annotated
signature. Nothing here is written by hand; gen_stubs.py splices the lines in.

Annotations are the functions' own source text (the package uses
`from __future__ import annotations`). A name the stub cannot resolve (a module-private
alias, an internal class) becomes Any rather than a wrong type; builtins that Tensor
or _C shadow with a name of their own (Tensor.int, Tensor.float, the op complex, ...) are
spelled with the aliases _C.pyi imports (_int, _float, ...).

    python3 tools/codegen/gen_method_stubs.py --package python/oar --runtime DIR
DIR holds the built extension _C*.so (and liboar.so unless _C finds it by rpath).
"""

import argparse
import ast
import inspect
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

# Names an annotation may use as they are: _C.pyi defines or imports each of them.
KNOWN = {
    *("Tensor", "GradNode", "Place", "Size", "NDArray", "ArrayLike", "None"),
    *("Any", "Callable", "Iterator", "Literal", "Sequence", "Union"),
    *("TensorLike", "ShapeLike", "DTypeLike", "AxisLike", "IntsLike", "PaddingLike"),
}
# Names spelled differently in _C.pyi.
RENAMED = {"dtype": "_DType", "ndarray": "NDArray[Any]", "DType": "_DType"}
# Builtins an annotation may name; those Tensor or _C shadow get an alias (shadowed).
BUILTINS = {
    "int",
    "float",
    "bool",
    "complex",
    "str",
    "bytes",
    "list",
    "tuple",
    "dict",
    "set",
    "type",
    "object",
    "slice",
    "range",
}
# Default values a stub can spell: others become `...`, which stubtest accepts.
LITERALS = (type(None), bool, int, float, str, bytes)


def shadowed(tensor_attrs):
    """The builtins that Tensor has an attribute of the same name for."""
    return sorted(b for b in BUILTINS if b in tensor_attrs)


class _Rename(ast.NodeTransformer):
    def __init__(self, shadow):
        self.shadow, self.unknown = shadow, False

    def visit_Attribute(self, node):  # noqa: N802 - ast's name
        # np.ndarray, oar._C.Tensor, typing.Any: the last component names the type
        return self.visit(ast.copy_location(ast.Name(node.attr, ast.Load()), node))

    def visit_Name(self, node):  # noqa: N802
        n = node.id
        if n in RENAMED:
            return ast.parse(RENAMED[n], mode="eval").body
        if n in BUILTINS:
            return ast.Name("_" + n if n in self.shadow else n, ast.Load())
        if n not in KNOWN:
            self.unknown = True
        return node

    def visit_Constant(self, node):  # noqa: N802
        if isinstance(node.value, str):  # a quoted forward reference
            try:
                return self.visit(ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                self.unknown = True
        return node


def annotation(ann, shadow):
    """The stub spelling of an annotation (source text or a typing object), or Any."""
    if ann is inspect.Parameter.empty:
        return None
    text = ann if isinstance(ann, str) else inspect.formatannotation(ann)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return "Any"
    r = _Rename(shadow)
    tree = r.visit(tree)
    return "Any" if r.unknown else ast.unparse(tree)


def default(value):
    if isinstance(value, LITERALS) and not (isinstance(value, float) and not math.isfinite(value)):
        return repr(value)
    if isinstance(value, tuple) and all(isinstance(v, LITERALS) for v in value):
        return repr(value)
    return "..."


def signature(fn, shadow, method=True):
    sig = inspect.signature(fn)
    parts, star_seen = [], False
    params = list(sig.parameters.values())
    for i, p in enumerate(params):
        if i == 0 and method and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            parts.append(p.name)
            continue
        if p.kind == p.KEYWORD_ONLY and not star_seen:
            parts.append("*")
            star_seen = True
        if p.kind == p.VAR_POSITIONAL:
            star_seen = True
        a = annotation(p.annotation, shadow)
        text = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        if a is not None:
            text += f": {a}"
        if p.default is not p.empty:
            text += (" = " if a is not None else "=") + default(p.default)
        parts.append(text)
        if p.kind == p.POSITIONAL_ONLY and (
            i + 1 == len(params) or params[i + 1].kind != p.POSITIONAL_ONLY
        ):
            parts.append("/")
    ret = annotation(sig.return_annotation, shadow) or "Any"
    return f"({', '.join(parts)}) -> {ret}"


def method_stubs(tensor, module_names=()):
    """Stub lines of the Python-level attributes of `tensor` (the class oar.Tensor), with
    the builtins that the class or its stub module (`module_names`: oar._C's, where the
    op complex is a function) name otherwise."""
    shadow = shadowed(set(dir(tensor)) | set(module_names))
    lines, delegated = [], {}
    for name, obj in sorted(vars(tensor).items()):
        if name in ("__doc__", "__module__", "__dict__", "__weakref__"):
            continue
        if isinstance(obj, property):
            ret = "Any"
            if obj.fget is not None:
                ret = annotation(inspect.signature(obj.fget).return_annotation, shadow) or "Any"
            lines += ["    @property", f"    def {name}(self) -> {ret}: ..."]
            if obj.fset is not None:
                params = list(inspect.signature(obj.fset).parameters.values())
                v = annotation(params[1].annotation, shadow) if len(params) > 1 else None
                lines += [
                    f"    @{name}.setter",
                    f"    def {name}(self, value: {v or 'Any'}) -> None: ...",
                ]
        elif isinstance(obj, staticmethod):
            lines += [
                "    @staticmethod",
                f"    def {name}{signature(obj.__func__, shadow, method=False)}: ...",
            ]
        elif isinstance(obj, classmethod):
            lines += ["    @classmethod", f"    def {name}{signature(obj.__func__, shadow)}: ..."]
        elif inspect.isfunction(obj) and inspect.isbuiltin(getattr(obj, "__wrapped__", None)):
            delegated[name] = obj.__wrapped__.__name__  # a declared op as a method
        elif inspect.isfunction(obj):
            lines.append(f"    def {name}{signature(obj, shadow)}: ...")
        elif isinstance(obj, LITERALS):
            t = type(obj).__name__
            lines.append(f"    {name}: {'_' + t if t in shadow else t}")
        # anything else is defined in C: stubs/_C.pyi and the op declarations stub it
    return lines, shadow, delegated


def _in_process(package_parent):
    sys.path.insert(0, package_parent)
    import oar  # noqa: PLC0415 - the package under generation, imported on purpose

    lines, shadow, delegated = method_stubs(oar.Tensor, dir(oar._C))
    json.dump({"lines": lines, "shadowed": shadow, "delegated": delegated}, sys.stdout)


def generate(package, runtime):
    """Imports `package` (python/oar) with the extension from `runtime` in a child
    process; returns (stub lines, the shadowed builtins, {method: the declared op it
    wraps}: gen_stubs.py stubs those from the declaration)."""
    with tempfile.TemporaryDirectory() as tmp:
        dst = os.path.join(tmp, "oar")
        shutil.copytree(package, dst, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyi"))
        for f in os.listdir(runtime):
            if (f.startswith("_C.") or f.startswith("liboar")) and ".so" in f:
                os.symlink(os.path.realpath(os.path.join(runtime, f)), os.path.join(dst, f))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        r = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--import-from", tmp],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp,
        )
    if r.returncode:
        raise RuntimeError(
            f"importing {package} with the extension in {runtime} failed:\n" + r.stderr
        )
    out = json.loads(r.stdout)
    return out["lines"], out["shadowed"], out["delegated"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--package", help="the package directory (python/oar)")
    p.add_argument("--runtime", help="the directory holding the built _C*.so")
    p.add_argument("--import-from", help=argparse.SUPPRESS)  # the child process
    a = p.parse_args()
    if a.import_from:
        return _in_process(a.import_from)
    lines, _, delegated = generate(a.package, a.runtime)
    lines += [f"    # {name}: the declared op {op}" for name, op in sorted(delegated.items())]
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
