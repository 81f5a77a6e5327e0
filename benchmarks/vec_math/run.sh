#!/usr/bin/env bash
# Builds and runs compare.cc (SLEEF vs Highway contrib/math, AVX2+FMA).
# Needs libsleef-dev and libhwy-dev (scripts/setup.sh installs them). The
# -mavx2 -mfma flags are for this measurement only: oar's library picks its
# SIMD width at run time (src/oar/kernels/funcs/vec_math.cc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${TMPDIR:-/tmp}/oar_vec_math_compare
g++ -std=c++20 -O3 -mavx2 -mfma -o "$out" "$here/compare.cc" -lsleef -lhwy
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); both libraries at AVX2+FMA (the flags above)"
"$out"
