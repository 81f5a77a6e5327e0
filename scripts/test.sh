#!/usr/bin/env bash
# Runs every test from a fresh clone: installs dependencies, builds and installs
# oar, then runs the C++ suites (ctest), the Python suites (pytest, against the
# installed package) and the thread stress test under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
bash scripts/setup.sh
bash scripts/install.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
# From outside the tree, so `import oar` is the installed package.
(cd /tmp && python3 -m pytest -q -p no:cacheprovider "$ROOT/tests/python")
bash scripts/tsan.sh
