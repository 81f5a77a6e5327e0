#!/usr/bin/env bash
# The demo: builds and installs oar, trains a small CNN on the full Fashion-MNIST
# with oar.Model.fit (progress bar, per-epoch test accuracy, checkpoint save and
# reload, the training curve as oar_demo/training_curve.png), then trains an MLP
# on Fashion-MNIST for one epoch from C++ alone.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the checkout, so a fresh clone elsewhere (CI)
# reuses what an earlier build compiled.
export CCACHE_BASEDIR="$(pwd)" CCACHE_NOHASHDIR=1
bash scripts/setup.sh
bash scripts/install.sh
ROOT=$(pwd)
echo "== Python: a CNN on Fashion-MNIST with oar.Model.fit (examples/fashion_mnist_cnn.py) =="
(cd /tmp && python3 "$ROOT/examples/fashion_mnist_cnn.py" --out-dir "$ROOT/oar_demo" "$@")
echo "== C++: an MLP on Fashion-MNIST, one epoch (examples/fashion_mnist.cc) =="
build/examples/fashion_mnist mlp 468 "$ROOT/oar_demo/mlp.safetensors"
