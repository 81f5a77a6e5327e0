#!/usr/bin/env bash
# Builds column_blocks.cc against the oneDNN oar links and writes its table, with the
# machine and the command, to benchmarks/results/column_blocks.md (--out FILE: there
# instead). --avx2 caps oneDNN to its AVX2 kernels (ONEDNN_MAX_CPU_ISA=AVX2), to see an
# AVX2 machine's code path on an AVX-512 one. Run nothing else meanwhile.
#
# Usage: benchmarks/blas/column_blocks.sh [--avx2] [--out FILE] [threads]   (default 2 threads)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/machine.sh"
out=$here/../results/column_blocks.md
caps="none"
if [ "${1:-}" = "--avx2" ]; then
  shift
  export ONEDNN_MAX_CPU_ISA=AVX2
  caps="ONEDNN_MAX_CPU_ISA=AVX2"
fi
if [ "${1:-}" = "--out" ]; then
  out=$2
  shift 2
fi
threads=${1:-2}
bin=$(mktemp -d)/column_blocks
g++ -O2 -std=c++20 -fopenmp "$here/column_blocks.cc" -o "$bin" -ldnnl
{
  echo "# float32 products past 2048 columns on oneDNN: whole or in column blocks"
  echo
  echo "\`benchmarks/blas/column_blocks.sh $*\`, $(date +%F); OMP_NUM_THREADS=$threads; ISA caps: $caps."
  describe_machine
  echo
  OMP_NUM_THREADS=$threads "$bin"
} | tee "$out"
