#!/usr/bin/env bash
# Builds panel_gemm.cc against a built liboar (the build directory, default build/) and
# writes its table, with the machine and the command, to
# benchmarks/results/panel_gemm.md (--out FILE: there instead). Needs AVX2 at least: the
# kernel's AVX-512 tile runs where dispatch allows it, else its AVX2 one (OAR_MAX_CPU_ISA,
# passed through, caps it). Run nothing else meanwhile.
#
# Usage: benchmarks/blas/panel_gemm.sh [--out FILE] [--build DIR] [rounds]   (default 20 rounds)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/machine.sh"
out=$here/../results/panel_gemm.md
build=$root/build
args="$*"
if [ "${1:-}" = "--out" ]; then
  out=$2
  shift 2
fi
if [ "${1:-}" = "--build" ]; then
  build=$(cd "$2" && pwd)
  shift 2
fi
rounds=${1:-20}
bin=$(mktemp -d)/panel_gemm
g++ -O2 -std=c++20 -fopenmp -I"$root/src" "$here/panel_gemm.cc" -o "$bin" -L"$build" -loar \
  -ldnnl -Wl,-rpath,"$build"
{
  echo "# float32 products of few rows with one B: the panel kernel against oneDNN"
  echo
  echo "\`benchmarks/blas/panel_gemm.sh $args\`, $(date +%F); OMP_NUM_THREADS=2."
  describe_machine
  echo
  OMP_NUM_THREADS=2 "$bin" "$rounds"
} | tee "$out"
