#!/usr/bin/env bash
# The demo: fits a small MLP to a synthetic regression problem with the C++ API.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
"${BUILD_DIR:-build}/examples/mlp_regression" "$@"
