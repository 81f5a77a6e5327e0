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
