"""The logic of tools/paddle_examples (the measurement of Paddle's documented examples
on oar), checked without Paddle installed: prompt parsing, doctest directives,
set-aside rules, the paddle->oar import alias, the missing-name extraction, static
references, and the fork-per-example runner."""
import importlib.util
import os
import sys

import pytest

import oar

_TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      "tools", "paddle_examples")
sys.path.insert(0, _TOOLS)
import extract  # noqa: E402
import shim  # noqa: E402


def _load(name):
    spec = importlib.util.spec_from_file_location(f"paddle_examples_{name}", os.path.join(_TOOLS, f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


run = _load("run")
report = _load("report")

DOC = '''
    Adds things.

    Examples:

        .. code-block:: python
            :name: first

            >>> import paddle
            >>> # a comment line
            >>> x = paddle.to_tensor([1.0,
            ...                       2.0])
            >>> print(x)
            Tensor(shape=[2], dtype=float32,
            [1., 2.])
            >>> for i in range(2):
            ...     y = x + i
            >>> paddle.save(x, 'x.pdparams')  # doctest: +SKIP('writes a file')
            >>> x.sum()
            Tensor(shape=[], dtype=float32,
            ...

        Text between blocks.

        .. code-block:: python

            >>> # doctest: +REQUIRES(env:GPU)
            >>> import paddle
            >>> paddle.set_device('gpu')

        .. code-block:: python

            import paddle   # no prompts: not a doctest, not extracted

        .. code-block:: python

            >>> # doctest: +SKIP('Random output')
            >>> import paddle
            >>> print(paddle.rand([2]))
'''


def test_prompts_continuations_and_output():
    exs = extract.parse_docstring(DOC, "paddle.thing")
    assert [e.id for e in exs] == ["paddle.thing#0", "paddle.thing#1", "paddle.thing#3"]
    first = exs[0]
    srcs = [s.source for s in first.statements]
    assert srcs[2] == "x = paddle.to_tensor([1.0,\n                      2.0])"
    assert first.statements[3].want == "Tensor(shape=[2], dtype=float32,\n[1., 2.])"
    assert srcs[4] == "for i in range(2):\n    y = x + i"
    # the inline +SKIP leaves that statement out of the program; a bare "..." after a
    # statement's output is output (an ellipsis), not a continuation
    assert first.statements[5].skip and "paddle.save" not in first.code()
    assert first.statements[6].source == "x.sum()" and first.statements[6].want == "Tensor(shape=[], dtype=float32,\n..."
    assert first.set_aside == ""


def test_directives_set_examples_aside():
    exs = extract.parse_docstring(DOC, "paddle.thing")
    assert exs[1].directives == ["+REQUIRES(env:GPU)"] and exs[1].set_aside == "gpu_or_device"
    assert exs[2].directives == ["+SKIP('Random output')"]
    assert exs[2].set_aside == "doctest_skip"


@pytest.mark.parametrize("code,category", [
    ("import paddle\npaddle.enable_static()\nx = paddle.static.data('x', [2])", "static_graph"),
    ("import paddle.distributed as dist\ndist.init_parallel_env()", "distributed"),
    ("from paddle.vision.models import resnet18\nm = resnet18(pretrained=True)", "download"),
    ("import paddle\nx = paddle.ones([2]).cuda()", "gpu_or_device"),
    ("import paddle\npaddle.jit.save(layer, 'p')", "inference_or_jit_export"),
    ("import paddle\nx = paddle.ones([2])", ""),
])
def test_classify_by_code(code, category):
    ex = extract.Example(id="t#0", api="t", index=0,
                         statements=[extract.Statement(source=ln) for ln in code.splitlines()])
    assert extract.classify(ex) == category


def test_alias_resolves_submodules_to_the_target():
    finder = shim.install("fakealias_json", "json")
    try:
        import json
        import json.decoder
        import fakealias_json.decoder as dec
        from fakealias_json import decoder as dec2
        assert dec is json.decoder and dec2 is json.decoder
        # the target keeps its own spec, so its own imports are undisturbed
        assert json.decoder.__spec__.name == "json.decoder"
        with pytest.raises(ModuleNotFoundError) as e:
            import fakealias_json.nothing_here  # noqa: F401
        assert e.value.name == "fakealias_json.nothing_here"
    finally:
        shim.uninstall(finder)
    assert "fakealias_json" not in sys.modules


def test_paddle_alias_gives_oar_modules():
    finder = shim.install("paddle", "oar")
    try:
        import paddle
        import paddle.nn.functional as F
        assert paddle is oar and F is oar.nn.functional
    finally:
        shim.uninstall(finder)


def test_missing_name_in_paddle_spelling():
    run.PUBLIC_NAMES.update(run.public_class_names(oar))
    try:
        oar.no_such_function_xyz
    except AttributeError as e:
        assert run.missing_name(e, "oar") == "paddle.no_such_function_xyz"
    try:
        oar.ones([2]).no_such_method_xyz
    except AttributeError as e:
        assert run.missing_name(e, "oar") == "paddle.Tensor.no_such_method_xyz"
    err = ImportError("cannot import name 'Nope' from 'oar.nn' (/x/oar/nn/__init__.py)", name="oar.nn")
    assert run.missing_name(err, "oar") == "paddle.nn.Nope"
    assert run.missing_name(ModuleNotFoundError("x", name="oar.fftx"), "oar") == "paddle.fftx"
    try:
        (3).numpy
    except AttributeError as e:   # a Python int where Paddle gives a Tensor: no missing name
        assert run.missing_name(e, "oar") == ""
    assert run.missing_name(TypeError("bad"), "oar") == ""


def test_static_references_follow_the_imports():
    code = ("import numpy as np\nimport paddle\nimport paddle.nn.functional as F\n"
            "from paddle.vision.transforms import Resize\n"
            "x = paddle.linalg.svd(paddle.ones([2, 2]))\ny = F.gelu(x)\nz = x.to_sparse_coo(1)\n"
            "w = np.float32(1)\n")
    names, others = report.references(code)
    assert {"paddle.linalg.svd", "paddle.nn.functional.gelu", "paddle.vision.transforms.Resize",
            "paddle.ones"} <= names
    assert "to_sparse_coo" in others and "float32" not in others   # np.* is not a Tensor method
    assert report.area("paddle.nn.functional.gelu") == "paddle.nn.functional"
    assert report.area("paddle.Tensor.to_sparse_coo") == "sparse tensors"
    assert report.area("paddle.set_device") == "device API"


def test_runner_forks_times_out_and_records(tmp_path):
    def ex(i, *lines):
        return extract.Example(id=f"t#{i}", api="t", index=i,
                               statements=[extract.Statement(source=s) for s in lines])
    examples = [ex(0, "import paddle", "x = paddle.ones([2])", "print(x.shape)", "x.shape"),
                ex(1, "import paddle", "paddle.no_such_function_xyz(1)"),
                ex(2, "while True:\n    pass"),
                ex(3, "open('scratch.txt', 'w').write('x')")]
    finders = list(sys.meta_path)
    try:
        _, recs = run.run(examples, "oar", jobs=2, timeout=3.0, workdir=str(tmp_path))
    finally:
        for f in [f for f in sys.meta_path if f not in finders]:
            shim.uninstall(f)
    by = {r["id"]: r for r in recs}
    # under the alias, shapes print as Paddle's do
    assert by["t#0"]["status"] == "ok" and by["t#0"]["stdout"] == ("paddle.Size([2])\n"
                                                                   "paddle.Size([2])\n")
    assert by["t#1"]["status"] == "error" and by["t#1"]["error_type"] == "AttributeError"
    assert by["t#1"]["missing"] == "paddle.no_such_function_xyz" and by["t#1"]["line"] == 2
    assert by["t#2"]["status"] == "timeout"
    assert by["t#3"]["status"] == "ok"   # wrote into its own scratch directory
    assert not os.path.exists("scratch.txt")


def test_printouts_compare_by_value():
    paddle_style = "Tensor(shape=[3], dtype=float32,\n       [0.40000001,  inf., nan])"
    assert report.same_values(paddle_style, "Tensor(shape=[3], dtype=float32,\n       [0.4, inf, nan])")
    assert not report.same_values(paddle_style, "Tensor(shape=[3], dtype=float32,\n       [0.5, inf, nan])")
    assert not report.same_values(paddle_style, "Tensor(shape=[3], dtype=float64,\n       [0.4, inf, nan])")
