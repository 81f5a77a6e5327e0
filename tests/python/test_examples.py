"""The examples run as smoke tests (a few hundred steps), so the README never lies."""
import importlib.util
import os

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def test_python_mlp_regression_learns():
    spec = importlib.util.spec_from_file_location(
        "mlp_regression", os.path.join(EXAMPLES, "mlp_regression.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(steps=300) == 0  # exits non-zero unless the loss fell below 25%
