#!/usr/bin/env bash
# Runs every test from a fresh clone: installs dependencies, builds, then runs
# the C++ suites (GoogleTest via ctest) and the example smoke test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
