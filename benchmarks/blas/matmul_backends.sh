#!/usr/bin/env bash
# Builds matmul_backends.cc against the OpenBLAS and oneDNN oar links and writes
# its table, with the machine and the command, to benchmarks/results/matmul_backends.md.
# OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, set on some machines, are unset for this
# process so OpenBLAS uses its own detection, repaired as liboar repairs it where it does
# not know the CPU (repair_openblas_core in machine.sh). Run nothing else meanwhile.
#
# --avx2 caps both libraries to their AVX2 kernels (ONEDNN_MAX_CPU_ISA=AVX2,
# OPENBLAS_CORETYPE=Haswell), to see an AVX2 machine's code paths on an AVX-512
# one (not its caches or clocks), and writes matmul_backends-avx2.md instead.
#
# --out FILE writes the table there instead (a run on another machine, kept beside
# the others).
#
# Usage: benchmarks/blas/matmul_backends.sh [--avx2] [--out FILE] [threads]   (default 2 threads)
set -euo pipefail
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
here=$(cd "$(dirname "$0")" && pwd)
. "$here/machine.sh"
out=$here/../results/matmul_backends.md
caps="none"
if [ "${1:-}" = "--avx2" ]; then
  shift
  export ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell
  out=$here/../results/matmul_backends-avx2.md
  caps="ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell"
fi
if [ "${1:-}" = "--out" ]; then
  out=$2
  shift 2
fi
threads=${1:-2}
repair_openblas_core
bin=$(mktemp -d)/matmul_backends
g++ -O2 -std=c++20 -fopenmp "$here/matmul_backends.cc" -o "$bin" -ldnnl -lopenblas
{
  echo "# float32 GEMM: OpenBLAS against oneDNN"
  echo
  echo "\`benchmarks/blas/matmul_backends.sh $*\`, $(date +%F); OMP_NUM_THREADS=$threads;"
  echo "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for the run; ISA caps: $caps;"
  echo "OpenBLAS's kernels: $(openblas_core)."
  describe_machine
  echo
  OMP_NUM_THREADS=$threads "$bin"
} | tee "$out"
