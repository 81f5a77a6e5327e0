#!/usr/bin/env bash
# Runs every test from a fresh clone (CI: .ci/run), in this order:
#   scripts/setup.sh       the apt and pip packages, only what is missing
#   lint-imports, ruff     the Python package's import layers (no upward import, no
#                          cycle: pyproject.toml [tool.importlinter]); the format and
#                          lint of python/ and tools/ (pyproject.toml [tool.ruff])
#   scripts/install.sh     build/ (library, oar._C, oar_tests, examples, benchmarks)
#                          and pip install of the package
#   ctest                  oar_tests, again under each ISA level of dispatch below
#                          this CPU's, and the C++ examples
#   pytest                 all of tests/python against the installed package, one
#                          shard per core (scripts/shards.sh)
#   scripts/isa_levels.sh  the Python kernel suites under each ISA level below this CPU's
#   scripts/tsan.sh        the thread, engine, hook and profiler suites under TSan
#   scripts/asan.sh        all of oar_tests, and the Python files that drive the
#                          extension's own code, under ASan + UBSan
# Run by hand, not here: the whole Python suite under ASan + UBSan
# (ASAN_PYTHON=all bash scripts/asan.sh) and the long fuzz runs (tests/fuzz/README.md).
# Every build (build/, build-tsan/, build-asan/) compiles through ccache when it
# is installed (CMakeLists.txt), which is what makes a second run quick.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the checkout, so a fresh clone elsewhere (CI)
# reuses what an earlier build compiled.
export CCACHE_BASEDIR="$(pwd)" CCACHE_NOHASHDIR=1
ROOT=$(pwd)
bash scripts/setup.sh
PYTHONPATH="$ROOT/python" lint-imports
ruff format --check python tools
ruff check python tools
bash scripts/install.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
# The Python suites as one shard per core at once (scripts/shards.sh: a pytest
# process keeps about one core busy), from outside the tree, so that `import oar`
# is the installed package.
source scripts/shards.sh
python_shard() {
  (cd /tmp && OAR_TEST_SHARD="$SHARD/$SHARDS" python3 -m pytest -q -p no:cacheprovider \
     "$ROOT/tests/python")
}
run_shards python python_shard
bash scripts/isa_levels.sh
bash scripts/tsan.sh
bash scripts/asan.sh
