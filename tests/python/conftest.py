"""Shared setup of the Python test suite.

The suite tests the *installed* oar package (pip install . from the repo), not
the source tree: run it from outside the repository, e.g.

    cd /tmp && python -m pytest -q /work/main/tests/python/

A `python/oar` picked up from the work tree would have no compiled _C (or a
stale one) and would hide packaging mistakes, so importing it is an error here.
"""
import os

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
