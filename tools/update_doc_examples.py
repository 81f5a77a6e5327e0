"""Rewrite the expected output of the `>>>` examples after a change of printing format.

Runs every example in the op declarations (the `example:` fields of src/oar/ops/*.yaml,
which run with `oar` imported) and in the docstrings of python/oar/**/*.py, and where
an example now prints something else, replaces the expected text with what it prints —
but only when the two show the same words and the same numbers (whatever the spacing
and digit formatting: `0.4` against `0.40000001`, `[ 1,  2]` against `[1 , 2 ]`; a
shape printed as `[2, 3]` against `oar.Size([2, 3])`). Any
other mismatch (a changed value, an error) is listed and left alone: that is a real
difference for a person to look at.

Run it from the repository root with the oar to use on the path:

    PYTHONPATH=/path/to/built/package python3 tools/update_doc_examples.py [--check] [files]

--check: change nothing, exit 1 if some example would change. Without files: all
declarations and Python sources.
"""

from __future__ import annotations

import argparse
import ast
import doctest
import glob
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools", "paddle_examples"))
from report import same_values  # noqa: E402


class _Recorder(doctest.DocTestRunner):
    """Runs the examples, recording what each mismatching one printed."""

    def __init__(self):
        super().__init__(verbose=False, optionflags=0)
        self.got = {}  # example index -> printed text
        self.errors = {}  # example index -> exception text

    def report_failure(self, out, test, example, got):
        self.got[test.examples.index(example)] = got

    def report_unexpected_exception(self, out, test, example, exc_info):
        self.errors[test.examples.index(example)] = f"{exc_info[0].__name__}: {exc_info[1]}"


def _unsized(text):
    """Shapes printed as lists: `oar.Size([2, 3])` (Tensor.shape) counts as `[2, 3]`."""
    return _SIZE.sub(r"\1", text)


_SIZE = re.compile(r"\b(?:oar|paddle)\.Size\((\[[^\]]*\])\)")


def _run(text, name, globs):
    """(examples, {index: new want}, [problems]) for the doctest text."""
    test = doctest.DocTestParser().get_doctest(text, dict(globs), name, None, 0)
    runner = _Recorder()
    runner.run(test, out=lambda s: None, clear_globs=True)
    new, problems = {}, []
    for i, got in runner.got.items():
        want = test.examples[i].want
        if same_values(_unsized(want).strip(), _unsized(got).strip()):
            new[i] = got
        else:
            problems.append(
                f"{name}: example {i + 1} prints other values:\n--- want\n{want}--- got\n{got}"
            )
    for i, err in runner.errors.items():
        problems.append(f"{name}: example {i + 1} raised {err}")
    return test.examples, new, problems


def _rewrite(lines, examples, new, base, indent_extra=""):
    """lines with the want lines of the examples in `new` replaced. An example's source
    starts at lines[base + example.lineno]."""
    for i in sorted(new, reverse=True):
        ex = examples[i]
        start = base + ex.lineno + ex.source.count("\n")
        n_old = ex.want.count("\n")
        pad = " " * ex.indent + indent_extra
        repl = [pad + ln if ln else "" for ln in new[i].rstrip("\n").split("\n")]
        lines[start : start + n_old] = repl
    return lines


def _yaml_blocks(lines):
    """(first line, last line + 1, indent) of each `example: |` block."""
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)example: \|\s*$", lines[i])
        if not m:
            i += 1
            continue
        key_indent = len(m.group(1))
        j = i + 1
        while j < len(lines) and (
            not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > key_indent
        ):
            j += 1
        while j > i + 1 and not lines[j - 1].strip():
            j -= 1
        block = lines[i + 1 : j]
        ind = min(len(ln) - len(ln.lstrip()) for ln in block if ln.strip())
        yield i + 1, j, ind
        i = j


def update_yaml(path, oar, check):
    lines = open(path).read().split("\n")
    changed, problems = 0, []
    for start, end, ind in reversed(list(_yaml_blocks(lines))):
        text = "\n".join(ln[ind:] for ln in lines[start:end]) + "\n"
        name = f"{os.path.relpath(path, REPO)}:{start + 1}"
        examples, new, probs = _run(text, name, {"oar": oar})
        problems += probs
        if new:
            changed += len(new)
            block = _rewrite([ln[ind:] for ln in lines[start:end]], examples, new, 0)
            lines[start:end] = [(" " * ind + ln) if ln else "" for ln in block]
    if changed and not check:
        with open(path, "w") as f:
            f.write("\n".join(lines))
    return changed, problems


def _docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
                and ">>>" in body[0].value.value
            ):
                yield body[0].value


def update_python(path, oar, check):
    src = open(path).read()
    lines = src.split("\n")
    changed, problems = 0, []
    nodes = sorted(_docstrings(ast.parse(src)), key=lambda n: n.lineno, reverse=True)
    for node in nodes:
        # The docstring's value; its line k is the file's line lineno-1+k (checked: an
        # escaped newline or a line continuation inside would break that).
        first, last = node.lineno - 1, node.end_lineno
        text = node.value
        name = f"{os.path.relpath(path, REPO)}:{node.lineno}"
        if text.count("\n") != last - first - 1:
            problems.append(
                f"{name}: the docstring's lines do not map onto the file's; "
                f"update its examples by hand"
            )
            continue
        examples, new, probs = _run(text, name, {"oar": oar})
        problems += probs
        if new:
            changed += len(new)
            lines[first:last] = _rewrite(lines[first:last], examples, new, 0)
    if changed and not check:
        with open(path, "w") as f:
            f.write("\n".join(lines))
    return changed, problems


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true")
    p.add_argument("files", nargs="*")
    args = p.parse_args()
    import oar

    if os.path.dirname(os.path.dirname(oar.__file__)) == os.path.join(REPO, "python"):
        sys.exit("update_doc_examples: import oar from a built package, not the source tree")
    files = args.files or (
        sorted(glob.glob(os.path.join(REPO, "src", "oar", "ops", "*.yaml")))
        + sorted(glob.glob(os.path.join(REPO, "python", "oar", "**", "*.py"), recursive=True))
    )
    total, problems = 0, []
    for f in files:
        fn = update_yaml if f.endswith(".yaml") else update_python
        n, probs = fn(os.path.abspath(f), oar, args.check)
        total += n
        problems += probs
        if n:
            print(
                f"{os.path.relpath(f, REPO)}: {n} example(s) {'would change' if args.check else 'updated'}"
            )
    for pr in problems:
        print(pr, file=sys.stderr)
    print(
        f"{total} example output(s) {'to update' if args.check else 'updated'}; "
        f"{len(problems)} other difference(s) left for a person",
        file=sys.stderr,
    )
    sys.exit(1 if (args.check and total) or problems else 0)


if __name__ == "__main__":
    main()
