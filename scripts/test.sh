#!/usr/bin/env bash
# Runs every test from a fresh clone: installs dependencies, builds and installs
# oar, then runs the C++ suites (ctest: also under each ISA level of dispatch),
# the Python suites (pytest, against the installed package), the Python kernel
# suites under each ISA level below this CPU's (scripts/isa_levels.sh), the
# thread and engine tests under ThreadSanitizer, and the C++ and Python suites
# under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the checkout, so a fresh clone elsewhere (CI)
# reuses what an earlier build compiled.
export CCACHE_BASEDIR="$(pwd)" CCACHE_NOHASHDIR=1
ROOT=$(pwd)
bash scripts/setup.sh
bash scripts/install.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
# From outside the tree, so `import oar` is the installed package.
(cd /tmp && python3 -m pytest -q -p no:cacheprovider "$ROOT/tests/python")
bash scripts/isa_levels.sh
bash scripts/tsan.sh
bash scripts/asan.sh
