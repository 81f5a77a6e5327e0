"""The op generator (tools/codegen/gen_ops.py) rejects bad declarations with a
message naming the op and the problem, before any C++ is generated."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(REPO, "tools", "codegen", "gen_ops.py")


def generate(tmp_path, yaml_text):
    # The generator finds its helper headers relative to the yaml: <root>/src/oar/ops.yaml.
    root = tmp_path / "repo"
    (root / "src" / "oar" / "eager").mkdir(parents=True)
    for h in ("backward_helpers.h", "creation.h"):
        src = os.path.join(REPO, "src", "oar", "eager", h)
        (root / "src" / "oar" / "eager" / h).write_text(open(src).read())
    (root / "src" / "oar" / "ops.yaml").write_text(yaml_text)
    return subprocess.run(
        [
            sys.executable,
            GEN,
            "--yaml",
            str(root / "src" / "oar" / "ops.yaml"),
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
    )


OP = """
- op: twice
  args: (Tensor x, float factor=2.0)
  output: Tensor(out)
  python: [function]
  infer_meta: UnchangedInferMeta(x)
  backward:
    x: {formula}
  doc: factor * x.
"""


def test_the_real_declarations_generate(tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            GEN,
            "--yaml",
            os.path.join(REPO, "src", "oar", "ops"),
            "--out",
            str(tmp_path / "gen"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr


def test_a_valid_formula_generates(tmp_path):
    r = generate(
        tmp_path,
        OP.format(formula="scale(grad_out, factor, 0.0, true)")
        + OP.replace("twice", "scale").format(formula="grad_out"),
    )
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize(
    "formula, unknown",
    [
        ("scale(grad_out, factr, 0.0, true)", "factr"),  # a misspelt attribute
        ("multiply(grad_ot, x)", "grad_ot"),  # a misspelt gradient
        ("mulitply(grad_out, x)", "mulitply"),  # a misspelt op
    ],
)
def test_a_misspelt_name_names_the_op_and_the_name(tmp_path, formula, unknown):
    r = generate(
        tmp_path,
        OP.format(formula=formula)
        + OP.replace("twice", "scale").replace("factor", "s").format(formula="grad_out")
        + OP.replace("twice", "multiply").format(formula="grad_out"),
    )
    assert r.returncode != 0
    assert f"op 'twice'" in r.stderr and f"unknown name '{unknown}'" in r.stderr, r.stderr


def test_members_and_scoped_names_are_not_free_names(tmp_path):
    r = generate(
        tmp_path,
        OP.format(formula="cast(grad_out, x.dtype())")
        + OP.replace("twice", "cast").format(formula="full_like(grad_out, 0, DType::kFloat32)")
        + OP.replace("twice", "full_like").format(formula="grad_out"),
    )
    assert r.returncode == 0, r.stderr


def test_an_overlong_formula_asks_for_a_helper(tmp_path):
    long = "scale(" * 12 + "grad_out" + ", factor)" * 12
    r = generate(
        tmp_path, OP.format(formula=long) + OP.replace("twice", "scale").format(formula="grad_out")
    )
    assert r.returncode != 0 and "named helper" in r.stderr, r.stderr


def test_every_op_declares_its_python_surface(tmp_path):
    r = generate(tmp_path, OP.replace("  python: [function]\n", "").format(formula="grad_out"))
    assert r.returncode != 0 and "op 'twice': `python:` must be internal" in r.stderr, r.stderr


def test_args_doc_must_name_an_argument(tmp_path):
    r = generate(tmp_path, OP.format(formula="grad_out") + "  args_doc:\n    factr: The factor.\n")
    assert r.returncode != 0 and "op 'twice': args_doc for unknown argument 'factr'" in r.stderr, (
        r.stderr
    )


SPARSE_OP = """
- op: values_of
  args: (Tensor x{extra_args})
  output: Tensor(out)
  python: internal
{infer}  kernels:
    {kernels}
  doc: a sparse op.
"""


def _sparse(extra_args="", infer="", kernels="values_of_coo: (sparse_coo) -> dense"):
    return SPARSE_OP.format(extra_args=extra_args, infer=infer, kernels=kernels)


def test_a_sparse_op_generates_one_branch_per_kernel(tmp_path):
    r = generate(
        tmp_path,
        _sparse(
            kernels="values_of_coo: (sparse_coo) -> dense\n    values_of_csr: (sparse_csr) -> dense"
        ),
    )
    assert r.returncode == 0, r.stderr
    api = (tmp_path / "out" / "oar" / "api" / "api.cc").read_text()
    assert 'Table("values_of_coo")' in api and "x.is_sparse_csr()" in api
    assert "DataLayout::kSparseCsr" in api and "ThrowNoSparseKernel" in api


@pytest.mark.parametrize(
    "kernels, message",
    [
        ("k: (sparse_coo -> dense", "cannot parse signature"),
        ("k: (sparse_cxx) -> dense", "unknown tensor kind 'sparse_cxx'"),
        ("k: (sparse_coo, dense) -> dense", "takes 2 tensors but the op has 1 tensor inputs"),
    ],
)
def test_a_bad_kernel_signature_names_the_op(tmp_path, kernels, message):
    r = generate(tmp_path, _sparse(kernels=kernels))
    assert r.returncode != 0 and "values_of" in r.stderr and message in r.stderr, r.stderr


def test_only_sparse_ops_may_omit_infer_meta(tmp_path):
    r = generate(
        tmp_path, OP.replace("  infer_meta: UnchangedInferMeta(x)\n", "").format(formula="grad_out")
    )
    assert r.returncode != 0 and "twice: infer_meta is required" in r.stderr, r.stderr


# ---- the type stubs (tools/codegen/gen_stubs.py) ------------------------------------------
STUBS = os.path.join(REPO, "tools", "codegen", "gen_stubs.py")
TWICE = OP.format(formula="grad_out").replace("python: [function]", "python: [function, method]")


def stubs(tmp_path, modules, yaml_text=TWICE):
    """gen_stubs.py over a package `oar` made of `modules` ({relative path: source})."""
    pkg = tmp_path / "pkg" / "oar"
    for rel, text in modules.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text)
    (tmp_path / "ops.yaml").write_text(yaml_text)
    frag = tmp_path / "fragments"  # the tree's (no --runtime: no Python Tensor methods)
    frag.mkdir()
    (frag / "_C.pyi").write_text(
        open(os.path.join(REPO, "tools", "codegen", "stubs", "_C.pyi")).read()
    )
    out = tmp_path / "out"
    r = subprocess.run(
        [
            sys.executable,
            STUBS,
            "--yaml",
            str(tmp_path / "ops.yaml"),
            "--package",
            str(pkg),
            "--fragments",
            str(frag),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    if r.returncode:
        return r, None, None
    return r, (out / "__init__.pyi").read_text(), (out / "_C.pyi").read_text()


PACKAGE = {
    "__init__.py": "from . import _C\n"
    "from .tensor import *\n"
    "from .tensor.creation import full as fill\n"
    "from . import nn\n"
    "Tensor = _C.Tensor\n"
    "for _n in _C._public_ops:\n    globals().setdefault(_n, getattr(_C, _n))\n"
    "__all__ = sorted(set(_C._public_ops) | {'Tensor', 'fill', 'nn'}\n"
    "                 | set(tensor.__all__))\n",
    "tensor/__init__.py": "from .math import *\nfrom .math import __all__ as _m\n"
    "from .creation import full\n__all__ = _m + ['full']\n",
    "tensor/math.py": "__all__ = ['twice', 'half']\n"
    "def twice(x: 'Tensor', factor: float = 2.0) -> 'Tensor': ...\n"
    "def half(x: float, *, exact: bool = True) -> float: ...\n",
    "tensor/creation.py": "def full(shape: list, value: float) -> object: ...\n",
    "nn/__init__.py": "",
}


def test_stubs_follow_imports_star_and_all_from_the_package(tmp_path):
    # __init__.py's names come through a package (tensor/) and star imports: an
    # annotated function is re-exported where it is defined, a Python name wins over
    # the op of the same name.
    modules = dict(PACKAGE)
    modules["tensor/__init__.py"] = (
        modules["tensor/__init__.py"]
        .replace("from .math import __all__ as _m\n", "")
        .replace("_m + ", "math.__all__ + ")
    )
    modules["tensor/__init__.py"] = "from . import math\n" + modules["tensor/__init__.py"]
    r, init, c = stubs(tmp_path, modules)
    assert r.returncode == 0, r.stderr
    assert "from .tensor import twice as twice" in init  # Python's twice, not _C's
    assert "from .tensor import full as full" in init
    assert "from .tensor.creation import full as fill" in init
    assert "from ._C import twice_" not in init  # no in-place variant declared
    assert "from .tensor import half as half" in init
    assert "from . import nn as nn" in init
    assert "from ._C import Tensor as Tensor" in init
    assert '"half",' in init and '"fill",' in init
    # _C.pyi: the op's function and Tensor method from the declaration
    assert "def twice(x: Tensor, factor: _float = 2.0, name: str | None = None) -> Tensor" in c
    assert "    def twice(self, factor: _float = 2.0, name: str | None = None) -> Tensor" in c


def test_stubs_of_an_inplace_op_come_from_its_declaration(tmp_path):
    yaml_text = TWICE.replace("  backward:", "  inplace: (x -> out)\n  backward:")
    r, init, c = stubs(
        tmp_path,
        {
            "__init__.py": PACKAGE["__init__.py"]
            .replace("from .tensor import *\nfrom .tensor.creation import full as fill\n", "")
            .replace(
                " | {'Tensor', 'fill', 'nn'}\n                 | set(tensor.__all__))",
                " | {'Tensor', 'nn'})",
            ),
            "nn/__init__.py": "",
        },
        yaml_text,
    )
    assert r.returncode == 0, r.stderr
    assert "from ._C import twice_ as twice_" in init
    assert "def twice_(x: Tensor, factor: _float = 2.0, name: str | None = None) -> Tensor" in c
    assert "    def twice_(self, factor: _float = 2.0, name: str | None = None) -> Tensor" in c


def test_an_all_that_cannot_be_read_statically_names_the_line(tmp_path):
    modules = dict(PACKAGE)
    modules["tensor/math.py"] = "__all__ = [n for n in dir() if n]\n"
    r, _, _ = stubs(tmp_path, modules)
    assert r.returncode != 0
    assert "math.py:1: cannot read" in r.stderr, r.stderr


def test_a_public_function_without_annotations_fails_the_generator(tmp_path):
    # every public Python function's stub is its own annotated signature: none is
    # written by hand, so one without annotations is an error naming it
    modules = dict(PACKAGE)
    modules["tensor/math.py"] = modules["tensor/math.py"].replace(
        "def half(x: float, *, exact: bool = True) -> float", "def half(x, *, exact=True)"
    )
    r, _, _ = stubs(tmp_path, modules)
    assert r.returncode != 0, r.stdout
    assert "half (oar.half): a public function without annotations" in r.stderr, r.stderr


# ---- the Tensor methods' stubs (tools/codegen/gen_method_stubs.py) -----------------------
def _method_stubs(cls):
    sys.path.insert(0, os.path.join(REPO, "tools", "codegen"))
    try:
        import gen_method_stubs
    finally:
        sys.path.pop(0)
    return gen_method_stubs.method_stubs(cls)


def test_method_stubs_are_the_bound_functions_own_signatures():
    import functools
    import math

    def scale(self: "Tensor", factor: float = 2.0, *, exact: bool = True) -> "Tensor": ...
    def odd(self, size: "_Private", fill=math.inf, mode=("a", 1)): ...
    def size(self) -> int: ...
    def _get(self) -> "list[Tensor] | None": ...
    def _set(self, value: "Tensor") -> None: ...

    class Fake:
        pass

    Fake.scale, Fake.odd, Fake.int, Fake.prop = scale, odd, size, property(_get, _set)
    Fake.wrapped = functools.wraps(math.hypot)(lambda *a: math.hypot(*a))
    Fake.__array_priority__ = 100
    lines, shadowed, delegated = _method_stubs(Fake)
    # Tensor.int shadows the builtin: annotations say _int
    assert shadowed == ["int"]
    assert (
        "    def scale(self, factor: float = 2.0, *, exact: bool = True) -> Tensor: ..." in lines
    ), lines
    # a name the stub cannot resolve is Any, a default it cannot spell is ...
    assert "    def odd(self, size: Any, fill=..., mode=('a', 1)) -> Any: ..." in lines, lines
    assert "    def int(self) -> _int: ..." in lines
    assert (
        lines[lines.index("    @property") + 1] == "    def prop(self) -> list[Tensor] | None: ..."
    )
    assert "    @prop.setter" in lines and "    def prop(self, value: Tensor) -> None: ..." in lines
    assert "    __array_priority__: _int" in lines
    # a wrapped builtin is left to the op declaration of that name
    assert delegated == {"wrapped": "hypot"} and not any("wrapped" in l for l in lines)
