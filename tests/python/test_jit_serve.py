"""A model saved from Python, served by the C++ program examples/jit_serve.cc (which
links only liboar): the same outputs as oar in Python, and from 8 threads at once the
same as serially (docs/jit.md, "Serving from C++")."""

import os
import subprocess

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

import oar

from jit_models import MODELS, make_pair

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SERVE = os.path.join(ROOT, "build", "examples", "jit_serve")
FOLDS_BATCH_NORM = ("resnet18", "mobilenet_v2")


def _serve(model, inputs, out, threads=0):
    assert os.path.exists(SERVE), f"{SERVE} is built by scripts/install.sh (OAR_BUILD_TESTS=ON)"
    cmd = [SERVE, model, inputs, out] + ([str(threads)] if threads else [])
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("name", list(MODELS))
def test_cpp_program_serves_the_saved_model(tmp_path, name):
    net, _ = make_pair(name)
    net.eval()
    prefix = str(tmp_path / name)
    oar.jit.save(net, prefix, input_spec=MODELS[name][1])
    xs = MODELS[name][2](3, seed=9)
    save_file({f"x{i}": np.asarray(x) for i, x in enumerate(xs)}, str(tmp_path / "in.safetensors"))
    r = _serve(prefix, str(tmp_path / "in.safetensors"), str(tmp_path / "out.safetensors"), 8)
    assert r.returncode == 0, r.stderr
    assert "8 threads x 4 calls: largest difference from the serial run 0" in r.stdout
    got = load_file(str(tmp_path / "out.safetensors"))["out0"]
    with oar.no_grad():
        want = net(*xs).numpy()
    # The C++ runtime folds batch norm into the convolutions before it (Note
    # [Convolutions folded for inference]): their products are rounded differently.
    tol = (1e-4, 2e-5) if name in FOLDS_BATCH_NORM else (1e-5, 1e-6)
    np.testing.assert_allclose(got, want, rtol=tol[0], atol=tol[1])


def test_cpp_program_reports_bad_files(tmp_path):
    (tmp_path / "m.oarmodel").write_text('{"format": "oar.model", "version": 7}')
    save_file({"x": np.zeros(2, np.float32)}, str(tmp_path / "in.safetensors"))
    r = _serve(str(tmp_path / "m"), str(tmp_path / "in.safetensors"), str(tmp_path / "o"))
    assert r.returncode == 1 and "newer oar" in r.stderr
    r = _serve(str(tmp_path / "nothing"), str(tmp_path / "in.safetensors"), str(tmp_path / "o"))
    assert r.returncode == 1 and "no model file" in r.stderr
