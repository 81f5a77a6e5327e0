#!/usr/bin/env bash
# Installs what oar needs to build and test on a fresh Debian/Ubuntu machine.
# Safe to re-run: it only installs what is missing.
set -euo pipefail

APT_PACKAGES=(g++ make ccache libgtest-dev libgmock-dev libopenblas-openmp-dev nlohmann-json3-dev libmimalloc-dev
              zlib1g-dev libdnnl-dev dataset-fashion-mnist
              libsleef-dev libhwy-dev  # SIMD math (vec_math) and its benchmark
              graphviz chromium chromium-driver  # oar.viz pictures; the HTML viewer's browser test
              libgloo-dev)  # oar.distributed's collective engine (docs/distributed.md)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
# torch 2.13.0 is the CPU wheel on these machines' disk (the test oracle).
# safetensors: the checkpoint tests read oar files with it; tqdm: the progress bar;
# matplotlib (with pillow): the demo's training curve and the PIL image backend;
# selenium drives headless Chromium in the oar.viz HTML viewer's test.
# import-linter and ruff: the Python package's import layers, its format and lint.
# onnx and onnxruntime: oar.onnx's export and the runtime its tests run the models in.
PIP_PACKAGES=(cmake ninja pyyaml numpy pytest scikit-build-core mypy "torch==2.13.0"
              safetensors tqdm matplotlib pillow selenium import-linter ruff onnx onnxruntime)
need_pip=0
"$PY" - <<'PYEOF' || need_pip=1
import importlib.util, sys
mods = ["cmake", "ninja", "yaml", "numpy", "pytest", "scikit_build_core", "mypy", "torch",
        "safetensors", "tqdm", "matplotlib", "PIL", "selenium", "importlinter", "ruff",
        "onnx", "onnxruntime"]
sys.exit(0 if all(importlib.util.find_spec(m) for m in mods) else 1)
PYEOF
if [ "$need_pip" = 1 ]; then
  echo "setup: pip install ${PIP_PACKAGES[*]}"
  "$PY" -m pip install -q "${PIP_PACKAGES[@]}"
fi
