"""The layout of the Python package (docs/design.md, "Python layers"): what import-linter's
contracts (pyproject.toml, `lint-imports`) cannot see.

- No module imports the root package `oar` for anything but the extension module _C:
  `import oar` or `from .. import to_tensor` inside the package would reach around the
  layers (the linter reads `from .. import _C` as an import of the root, so its contracts
  ignore every import of the root; this test is what keeps that honest).
- An import inside a function carries its reason on its line (an optional third-party
  dependency, or start-up time); every other import is at the top of its module, where
  the order of the layers is visible.
- The modules' imports, those inside functions included, form no cycle.
- Only oar/tensor/methods.py sets attributes on Tensor (the one place Python code adds
  Tensor methods; oar.sparse and oar.signal bind theirs through its bind_methods).

The checks read the source of the package under test. Each check is a function of a
directory, so a test can show it failing on a package with a bad import.
"""
import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

import oar

PKG = os.path.dirname(os.path.abspath(oar.__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the words a reason on the line of an import inside a function must use
REASON = re.compile(r"#.*\b(optional|start-up)\b")


def _modules(pkg):
    """(dotted name, path, is_package) of every .py module of the package at pkg."""
    base = os.path.dirname(pkg)
    for d, dirs, files in os.walk(pkg):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(d, f)
                name = os.path.relpath(path, base)[:-3].replace(os.sep, ".")
                is_pkg = name.endswith(".__init__")
                yield (name[: -len(".__init__")] if is_pkg else name), path, is_pkg


def _imports(pkg):
    """(module, path, line, in_function, imported module, names, source line) of every
    import of a module of the package (absolute or relative)."""
    mods = {m for m, _, _ in _modules(pkg)}
    root = os.path.basename(pkg)
    for mod, path, is_pkg in _modules(pkg):
        src = open(path, encoding="utf-8").read()
        lines = src.split("\n")
        tree = ast.parse(src)
        inner = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                inner.update(id(n) for n in ast.walk(node) if n is not node)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [(a.name, []) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                targets = [(target, [a.name for a in node.names])]
            else:
                continue
            for target, names in targets:
                line = lines[node.lineno - 1]
                yield mod, path, node.lineno, id(node) in inner, target, names, line, mods, root


def root_imports(pkg):
    """Imports of the root package for something other than _C or a submodule."""
    bad = []
    for mod, path, ln, _, target, names, line, mods, root in _imports(pkg):
        if target != root or mod == root:
            continue
        others = [n for n in names if n != "_C" and f"{root}.{n}" not in mods
                  and not os.path.isdir(os.path.join(pkg, n))]
        if not names or others:
            bad.append(f"{path}:{ln}: {line.strip()}")
    return bad


def unexplained_local_imports(pkg):
    """Imports inside functions without a reason on their line."""
    return [f"{path}:{ln}: {line.strip()}"
            for _, path, ln, inner, _, _, line, _, _ in _imports(pkg)
            if inner and not REASON.search(line)]


def import_cycles(pkg):
    """The groups of modules whose imports (those inside functions too) form a cycle."""
    edges = {}
    for mod, _, _, _, target, names, _, mods, root in _imports(pkg):
        for t in [f"{target}.{n}" for n in names] or [target]:
            while t and t not in mods:
                t = t.rpartition(".")[0]
            if t and t != mod and t != root:
                edges.setdefault(mod, set()).add(t)
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):  # Tarjan's strongly connected components, iteratively
        work = [(v, iter(sorted(edges.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        group.append(w)
                        if w == node:
                            break
                    if len(group) > 1:
                        out.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def tensor_setattrs(pkg):
    """setattr(Tensor, ...) calls outside oar/tensor/methods.py."""
    bad = []
    for mod, path, _ in _modules(pkg):
        if mod.endswith("tensor.methods"):
            continue
        tree = ast.parse(open(path, encoding="utf-8").read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr" \
                    and node.args and ast.unparse(node.args[0]) in ("Tensor", "_C.Tensor",
                                                                    "oar.Tensor"):
                bad.append(f"{path}:{node.lineno}")
    return bad


def test_no_module_imports_the_root_package_but_for_C():
    assert root_imports(PKG) == []


def test_every_import_inside_a_function_says_why():
    assert unexplained_local_imports(PKG) == []


def test_the_imports_form_no_cycle():
    assert import_cycles(PKG) == []


def test_only_tensor_methods_binds_tensor_methods():
    assert tensor_setattrs(PKG) == []


# ---- the checks fail on a package with a bad import -------------------------------------------
@pytest.fixture
def bad_pkg(tmp_path):
    dst = tmp_path / "oar"
    shutil.copytree(PKG, dst, ignore=shutil.ignore_patterns("*.so", "__pycache__", "*.pyi"))
    return dst


def test_the_checks_fail_on_bad_imports(bad_pkg):
    with open(bad_pkg / "framework" / "check.py", "a", encoding="utf-8") as f:
        f.write("\nfrom .. import to_tensor\n\n\ndef _late():\n"
                "    from ..tensor import creation\n    return creation\n")
    with open(bad_pkg / "tensor" / "creation.py", "a", encoding="utf-8") as f:
        f.write("\n\ndef _bind():\n    setattr(Tensor, 'x', 1)  # noqa: B010\n")
    assert [b.split(":")[-1].strip() for b in root_imports(str(bad_pkg))] == [
        "from .. import to_tensor"]
    assert [b.split(":")[-1].strip() for b in unexplained_local_imports(str(bad_pkg))] == [
        "from ..tensor import creation"]
    # framework.check -> tensor.creation -> ... -> framework.check
    assert any("oar.framework.check" in g and "oar.tensor.creation" in g
               for g in import_cycles(str(bad_pkg)))
    assert len(tensor_setattrs(str(bad_pkg))) == 1


@pytest.mark.skipif(importlib.util.find_spec("importlinter") is None or
                    not os.path.exists(os.path.join(ROOT, "pyproject.toml")),
                    reason="import-linter and the source tree are needed")
def test_import_linter_contracts_hold():
    """lint-imports with the tree's contracts, on the package under test."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(PKG))
    r = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command;"
                        " lint_imports_command()", "--config",
                        os.path.join(ROOT, "pyproject.toml"), "--no-cache"],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
