"""Paddle programs run unchanged on oar: every program of tests/paddle_corpus/
runs with `import paddle` resolving to oar and must print what PaddlePaddle 3.3.1
printed for it (the recorded `<name>.out`; tests/paddle_corpus/README.md)."""
import contextlib
import io
import os
import sys

import pytest

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_CORPUS = os.path.join(_REPO, "tests", "paddle_corpus")
sys.path.insert(0, os.path.join(_REPO, "tools", "paddle_examples"))
import shim  # noqa: E402

PROGRAMS = sorted(f[:-3] for f in os.listdir(_CORPUS) if f.endswith(".py"))


def test_every_program_has_paddles_output():
    assert PROGRAMS
    missing = [p for p in PROGRAMS if not os.path.exists(os.path.join(_CORPUS, p + ".out"))]
    assert not missing, f"record them with tools/paddle_examples/corpus_expected.py: {missing}"


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_prints_what_paddle_printed(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = os.path.join(_CORPUS, name + ".py")
    with open(path) as f:
        code = compile(f.read(), path, "exec")
    finder = shim.install("paddle", "oar")
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(code, {"__name__": "__main__", "__file__": path})
    finally:
        shim.uninstall(finder)
    with open(os.path.join(_CORPUS, name + ".out")) as f:
        want = f.read()
    assert out.getvalue().splitlines() == want.splitlines()
