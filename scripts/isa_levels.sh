#!/usr/bin/env bash
# The Python kernel suites again under each x86-64 level of dispatch below this
# CPU's (OAR_MAX_CPU_ISA; Note [One cap on the dispatched ISA] in
# src/oar/core/cpu_isa.h), against the installed package: an AVX-512 machine
# also proves the AVX2 and SSE2 paths, an AVX2 machine the SSE2 ones. (ctest runs
# the C++ suite under every level.) The files are those whose kernels dispatch by
# ISA: the bfloat16 GEMM and convolution, vec_math's functions and activations,
# pooling and convolution, the kernels' strided and threaded paths, AMP training.
#   bash scripts/isa_levels.sh            # every level below the CPU's
#   ISA_LEVELS="sse2" bash scripts/isa_levels.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PY=${PYTHON:-python3}
FILES=(test_bf16_kernels.py test_nn_functional_activation.py test_nn_functional_conv_pool.py
       test_kernel_paths.py test_amp_training.py test_device.py)
if [ -z "${ISA_LEVELS:-}" ]; then
  # The levels below what this CPU has (none off x86-64, where dispatch has one).
  ISA_LEVELS=$(cd /tmp && env -u OAR_MAX_CPU_ISA "$PY" -c '
import oar
levels = ["sse2", "avx2", "avx512", "avx512_bf16"]
detected = oar.device.cpu_isa().detected
print(" ".join(levels[:levels.index(detected)] if detected in levels else []))')
fi
# One shard per core at once (scripts/shards.sh): the files are mostly single-threaded.
source scripts/shards.sh
level_shard() {
  (cd /tmp && OAR_MAX_CPU_ISA=$level OAR_TEST_SHARD="$SHARD/$SHARDS" "$PY" -m pytest -q \
     -p no:cacheprovider "${FILES[@]/#/$ROOT/tests/python/}")
}
status=0
for level in $ISA_LEVELS; do
  echo "== Python kernel suites under OAR_MAX_CPU_ISA=$level =="
  run_shards "isa-$level" level_shard || status=1
done
exit $status
