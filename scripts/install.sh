#!/usr/bin/env bash
# Builds everything into build/ (the C++ library, the GoogleTest suites, the
# examples and the extension oar._C) and installs the Python package `oar`.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --no-build-isolation -q --disable-pip-version-check \
  -Cbuild-dir=build -Ccmake.define.OAR_BUILD_TESTS=ON .
