"""The public Python surface: what oar.__all__ holds, the generated docstrings
(signature, Args, Returns, runnable Examples) and the type stubs (up to date, installed,
consistent with the runtime, and used by mypy)."""
import doctest
import importlib.util
import inspect
import os
import subprocess
import sys
import types

import pytest

import oar

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools", "codegen"))
import gen_ops  # noqa: E402

OPS = gen_ops.load_ops(os.path.join(REPO, "src", "oar", "ops"))
PUBLIC = list(oar._C._public_ops)
# The generated Tensor methods (not those tensor/methods.py replaces with Python, like pow).
METHODS = [(op, n) for op in OPS if "method" in op.python
           for n in [op.name] + ([op.name + "_"] if op.inplace else [])
           if isinstance(getattr(oar.Tensor, n), types.MethodDescriptorType)]
HAS_MYPY = importlib.util.find_spec("mypy") is not None
needs_mypy = pytest.mark.skipif(not HAS_MYPY, reason="mypy is not installed (pip install mypy)")


def test_signature_of_matmul():
    assert (str(inspect.signature(oar.matmul))
            == "(x, y, transpose_x=False, transpose_y=False, name=None)")
    method = inspect.signature(oar.Tensor.matmul)  # self is positional-only
    assert list(method.parameters) == ["self", "y", "transpose_x", "transpose_y", "name"]


def test_public_ops_are_the_declared_functions():
    want = []
    for op in OPS:
        if "function" in op.python:
            want += [op.name] + ([op.name + "_"] if op.inplace else [])
    assert PUBLIC == want


def _check_doc(fn, label, params):
    doc = fn.__doc__ or ""
    for section in ("Args:", "Returns:\n    Tensor: ", "Examples:\n    >>> import oar"):
        assert section in doc, f"{label}: no {section!r} in its docstring"
    for p in params:
        assert f"\n    {p} (" in doc, f"{label}: argument {p} is not in Args"
    assert doc.split("\n")[0].strip(), f"{label}: no summary line"


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_op_has_a_signature_args_and_an_example(name):
    fn = getattr(oar._C, name)
    params = list(inspect.signature(fn).parameters)
    assert params[-1] == "name"
    _check_doc(fn, f"oar._C.{name}", params)
    if name.endswith("_"):  # the in-place form shows up in the example
        assert f"{name}(" in fn.__doc__, f"{name}: the example does not use the in-place form"


@pytest.mark.parametrize("op, name", METHODS, ids=[n for _, n in METHODS])
def test_every_tensor_method_has_a_signature_args_and_an_example(op, name):
    fn = getattr(oar.Tensor, name)
    params = list(inspect.signature(fn).parameters)
    assert params[0] == "self" and params[1:] == [a.name for a in op.args[1:]] + ["name"]
    _check_doc(fn, f"Tensor.{name}", params[1:])


def test_no_public_name_is_a_grad_op():
    # no_grad and enable_grad are Paddle's grad-mode context managers, not ops
    grad_mode = ("no_grad", "enable_grad")
    assert not [n for n in oar.__all__ if n.endswith("_grad") and n not in grad_mode]


def test_internal_ops_are_reachable_through_C_only():
    internal = [op.name for op in OPS if not op.python]
    assert "tanh_grad" in internal and "set_value" in internal
    for n in internal:
        assert callable(getattr(oar._C, n)), n
        # Paddle's public function of an internal op's name is another object
        # (oar.layer_norm is nn.functional.layer_norm), never the op itself
        assert getattr(oar, n, None) is not getattr(oar._C, n), n
        assert n not in oar.__all__ or n == "layer_norm", n


def test_every_name_in_all_exists():
    missing = [n for n in oar.__all__ if not hasattr(oar, n)]
    assert not missing
    assert len(set(oar.__all__)) == len(oar.__all__) and oar.__all__ == sorted(oar.__all__)


def _docstrings():
    """Every docstring with examples: the generated ones (functions and methods; one per
    distinct text) and those of the Python wrappers in oar.__all__."""
    seen, out = set(), []
    objs = [(f"oar._C.{n}", getattr(oar._C, n)) for n in PUBLIC]
    objs += [(f"Tensor.{n}", getattr(oar.Tensor, n)) for _, n in METHODS]
    objs += [(f"oar.{n}", getattr(oar, n)) for n in oar.__all__]
    for label, obj in objs:
        doc = getattr(obj, "__doc__", None) or ""
        examples = doc.partition("Examples:")[2] if "Examples:" in doc else doc
        if ">>>" in examples and examples not in seen:
            seen.add(examples)
            out.append((label, doc))
    return out


DOCS = _docstrings()


@pytest.mark.parametrize("label, doc", DOCS, ids=[label for label, _ in DOCS])
def test_docstring_examples_print_what_they_say(label, doc):
    test = doctest.DocTestParser().get_doctest(doc, {}, label, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    report = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_help_shows_the_reference_page():
    text = (oar.sum.__text_signature__, oar.sum.__doc__)
    assert text[0] == "(x, axis=None, dtype=None, keepdim=False, name=None)"
    assert "keepdim (bool, optional): " in text[1] and "Default: False." in text[1]
    assert "name (str|None, optional): Unused, for Paddle compatibility." in text[1]


# ---- type stubs ---------------------------------------------------------------------------
INSTALLED = os.path.dirname(oar.__file__)


@pytest.fixture(scope="module")
def generated_stubs(tmp_path_factory):
    """The stubs tools/codegen/gen_stubs.py writes from this tree now."""
    out = tmp_path_factory.mktemp("stubs")
    r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "codegen", "gen_stubs.py"),
                        "--runtime", INSTALLED, "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize("fname", ["__init__.pyi", "_C.pyi", "py.typed"])
def test_stubs_are_installed(fname, generated_stubs):
    path = os.path.join(INSTALLED, fname)
    assert os.path.exists(path), f"{fname} is not installed with the package"
    if fname.endswith(".pyi"):
        with open(path) as f:
            assert f.read() == (generated_stubs / fname).read_text(), \
                f"the installed {fname} is not what the tree generates: reinstall"


def test_stub_all_is_the_runtime_all():
    import ast
    with open(os.path.join(INSTALLED, "__init__.pyi")) as f:
        tree = ast.parse(f.read())
    stub_all = next(ast.literal_eval(n.value) for n in tree.body
                    if isinstance(n, ast.Assign) and n.targets[0].id == "__all__")
    assert stub_all == oar.__all__


def _mypy(tmp_path, *args):
    # From tmp_path, so the installed oar (and its stubs) is the one mypy finds.
    r = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary",
                        "--cache-dir", str(tmp_path / ".mypy_cache"), *args],
                       capture_output=True, text=True, cwd=tmp_path,
                       env={**os.environ, "MYPYPATH": ""})
    return r.returncode, r.stdout + r.stderr


@needs_mypy
def test_mypy_accepts_a_typed_example(tmp_path):
    example = os.path.join(REPO, "tests", "python", "typed_example.py")
    code, out = _mypy(tmp_path, "--strict", example)
    assert code == 0, out
    r = subprocess.run([sys.executable, example], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr  # and the example is real code


@needs_mypy
def test_mypy_rejects_type_errors_through_the_stubs(tmp_path):
    (tmp_path / "bad.py").write_text(
        "import oar\n"
        "x = oar.to_tensor([1.0])\n"
        "y = oar.matmul(x, 'not a tensor')\n"
        "n: str = x.ndim\n"
        "x.no_such_method()\n"
        "oar.sum(x, keepdims=True)\n"
        "oar.tanh_grad(x, x)\n")
    code, out = _mypy(tmp_path, "bad.py")
    assert code == 1, out
    for line, what in [(3, 'Argument 2 to "matmul" has incompatible type "str"'),
                       (4, 'expression has type "int", variable has type "str"'),
                       (5, '"Tensor" has no attribute "no_such_method"'),
                       (6, 'Unexpected keyword argument "keepdims" for "sum"'),
                       (7, 'Module has no attribute "tanh_grad"')]:
        assert f"bad.py:{line}: error: " in out and what in out, out


@needs_mypy
def test_stubs_match_the_runtime(tmp_path):
    """mypy's stubtest: every runtime name of oar, oar._C and oar.Tensor is in the stubs
    with the runtime's parameters (names, kinds, defaults), and vice versa."""
    allow = tmp_path / "allowlist.txt"
    # liboar: the shared library next to _C, not a module. swapaxes (swapdims is it): its
    # __signature__ shows Paddle's (x, perm, name) over a (*args, **kwargs) definition
    # that also takes PyTorch's (x, dim0, dim1).
    allow.write_text("oar.liboar\noar.tensor.manipulation.swapaxes\n")
    # The stubs re-export the Python modules' own definitions, so mypy reads those
    # modules too: their type errors are not the stubs' and must not stop the check.
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n[mypy-oar.*]\nignore_errors = True\n"
                      "[mypy-oar]\nignore_errors = False\n[mypy-oar._C]\nignore_errors = False\n")
    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", "oar", "--allowlist", str(allow),
                        "--mypy-config-file", str(config)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
