#!/usr/bin/env bash
# Builds the C++ benchmarks (Release) and runs them: per-op overhead
# (oar_bench_op_overhead) and GEMM against direct CBLAS (oar_bench_gemm).
#
# Usage: benchmarks/run_cpp_benchmarks.sh [build-dir]   (default: <repo>/build-bench)
# Extra CMake options can be passed in CMAKE_ARGS, e.g. CMAKE_ARGS=-DOAR_BLAS=blis.
# Run nothing else meanwhile: the numbers are only meaningful on an idle machine.
set -euo pipefail

# OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE (set on some CI machines) override
# OpenBLAS's CPU detection and cache blocking, which can cost GEMM a large
# factor. Unset them so OpenBLAS uses its own detection, and say so.
for v in OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; do
  echo "# unsetting $v (was: ${!v-<unset>})"
done
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build-bench}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

echo "# building into $build (Release)"
# -U: find the BLAS again instead of trusting a cached path from an older
# configure, so the benchmark always uses the BLAS the top-level CMakeLists.txt
# selects now (a stale cache once kept a build dir on a different OpenBLAS).
cmake -S "$repo" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -UOAR_BLAS_INCLUDE -UOAR_BLAS_LIB ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" --target oar_bench_op_overhead oar_bench_gemm oar_bench_grad_pruning

echo
echo "# $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo
"$build/benchmarks/oar_bench_op_overhead"
echo
"$build/benchmarks/oar_bench_gemm"
echo
"$build/benchmarks/oar_bench_grad_pruning"
