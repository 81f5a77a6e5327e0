#!/usr/bin/env bash
# The demo: builds and installs oar, then fits a small MLP to a synthetic
# regression problem twice — with the Python API and with the C++ API.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the checkout, so a fresh clone elsewhere (CI)
# reuses what an earlier build compiled.
export CCACHE_BASEDIR="$(pwd)" CCACHE_NOHASHDIR=1
bash scripts/setup.sh
bash scripts/install.sh
echo "== Python API (examples/mlp_regression.py) =="
(cd /tmp && python3 "$OLDPWD/examples/mlp_regression.py" "$@")
echo "== C++ API (examples/mlp_regression.cc) =="
build/examples/mlp_regression "$@"
