"""Shared setup of the Python test suite.

The suite tests the *installed* oar package (pip install . from the repo), not
the source tree: run it from outside the repository, e.g.

    cd /tmp && python -m pytest -q "$REPO"/tests/python/    # REPO: the checkout

A `python/oar` picked up from the work tree would have no compiled _C (or a
stale one) and would hide packaging mistakes, so importing it is an error here.
"""
import os
import random
import tempfile
import zlib

import numpy as np
import pytest
import torch

import oar

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_SOURCE_PACKAGE = os.path.join(_REPO, "python")

_oar_file = os.path.realpath(oar.__file__)
assert not _oar_file.startswith(os.path.realpath(_SOURCE_PACKAGE) + os.sep), (
    f"oar was imported from the source tree ({oar.__file__}), not the installed package: "
    f"run pytest from outside {_REPO} (e.g. cd /tmp) so that the installed oar is used")


def pytest_collection_modifyitems(config, items):
    """OAR_TEST_SHARD=i/n keeps every n-th collected test from the i-th: the
    sanitizer runs (scripts/asan.sh) start one pytest per core on shards of one
    collection, dealt round-robin so that slow files are spread over all of them."""
    shard = os.environ.get("OAR_TEST_SHARD")
    if not shard:
        return
    index, count = (int(v) for v in shard.split("/"))
    if not 0 <= index < count:
        raise ValueError(f"OAR_TEST_SHARD={shard}: want i/n with 0 <= i < n")
    kept = [item for k, item in enumerate(items) if k % count == index]
    config.hook.pytest_deselected(items=[item for k, item in enumerate(items) if k % count != index])
    items[:] = kept


@pytest.fixture(autouse=True, scope="session")
def _temporary_files_under_pytest(tmp_path_factory):
    """Docstring examples and Paddle's examples call tempfile.mkdtemp() and leave what
    they wrote, as a user's script may. Pointed at a directory of pytest's own, those
    files go where pytest removes them with its older runs, not into /tmp for good."""
    before = tempfile.tempdir
    tempfile.tempdir = str(tmp_path_factory.mktemp("tempfile"))
    yield
    tempfile.tempdir = before


@pytest.fixture(autouse=True)
def _seeded(request):
    """Every test draws its own data: the generators a test may use (a module's
    RNG, numpy's, Python's, oar's and torch's global ones) are seeded from the
    test's name before it runs, so what it computes does not depend on which tests
    ran before it (a shard of the sanitizer run, -k, the file alone)."""
    seed = zlib.crc32(request.node.name.encode())
    module_rng = getattr(request.module, "RNG", None)
    if isinstance(module_rng, np.random.Generator):
        request.module.RNG = np.random.default_rng(seed)
    np.random.seed(seed)
    random.seed(seed)
    oar.seed(seed)
    torch.manual_seed(seed)


def _global_state():
    """The process-wide settings a test could change and leave behind."""
    state = {
        "flags": oar.get_flags(list(oar.framework.flags._OWN)),
        "default dtype": oar.get_default_dtype(),
        "grad enabled": oar.is_grad_enabled(),
        "autocast": (oar.amp.is_autocast_enabled(), str(oar.amp.get_autocast_dtype())),
        "cpu isa": tuple(oar.device.cpu_isa()),
        "environment": {k: v for k, v in os.environ.items()
                        if k.startswith(("OAR_", "ONEDNN_", "DNNL_", "OMP_", "FLAGS_"))},
    }
    # torch and oar share one OpenMP runtime: torch.set_num_threads sets oar's too.
    state["OpenMP threads"] = torch.get_num_threads()
    state["torch default dtype"] = str(torch.get_default_dtype())
    return state


# What the process starts with, before any test module is imported.
_AT_START = _global_state()


def pytest_collection_finish(session):
    """Importing a test module must not change global state either: every module
    collected after it (the whole suite but the file alone) would run under it."""
    now = _global_state()
    changed = sorted(k for k in _AT_START if now.get(k) != _AT_START[k])
    if changed:
        detail = "; ".join(f"{k}: {_AT_START[k]!r} -> {now.get(k)!r}" for k in changed)
        raise pytest.UsageError(f"importing the test modules changed global state: {detail}")


@pytest.fixture(autouse=True)
def _leaves_global_state(request):
    """A test never leaves global state changed: a later test would run under it,
    and a result would depend on test order. Checked after each test; the state is
    put back so that one offender does not fail every test after it."""
    before = _global_state()
    yield
    after = _global_state()
    changed = sorted(k for k in before if after.get(k) != before[k])
    if not changed:
        return
    oar.set_flags(before["flags"])
    oar.set_default_dtype(before["default dtype"])
    oar.set_grad_enabled(before["grad enabled"])
    torch.set_num_threads(before["OpenMP threads"])
    detail = "; ".join(f"{k}: {before[k]!r} -> {after.get(k)!r}" for k in changed)
    pytest.fail(f"{request.node.nodeid} left global state changed: {detail}", pytrace=False)
