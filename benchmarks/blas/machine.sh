# Sourced by the table scripts here: describe_machine prints the CPU (name, family,
# model, AVX-512 or AVX2), its core count and the load average, for a table's header.
describe_machine() {
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" \
    "(family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')," \
    "model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' ');" \
    "$(grep -qw avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2)),"
  echo "$(nproc) cores, load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)."
}

# openblas_core prints the core (kernel set) OpenBLAS picks in this environment.
openblas_core() {
  local dir
  dir=$(mktemp -d)
  printf '%s\n' '#include <stdio.h>' 'char* openblas_get_corename(void);' \
    'int main(void) { puts(openblas_get_corename()); return 0; }' > "$dir/core.c"
  gcc "$dir/core.c" -o "$dir/core" -lopenblas && "$dir/core"
  rm -rf "$dir"
}

# repair_openblas_core gives a harness that links OpenBLAS itself the kernels liboar runs
# (Note [OpenBLAS's core on a CPU it does not know] in src/oar/kernels/cpu/openblas_core.cc):
# where OPENBLAS_CORETYPE is unset and OpenBLAS falls back to Prescott (SSE3) on a CPU it
# does not know, SkylakeX on an AVX-512 CPU, Haswell on an AVX2 one. Without it, such a
# harness's OpenBLAS column (Debian 12's 0.3.21 on a Xeon of family 6, model 207) timed
# kernels oar never runs.
repair_openblas_core() {
  [ -z "${OPENBLAS_CORETYPE:-}" ] || return 0
  [ "$(openblas_core)" = Prescott ] || return 0
  if grep -qw avx512bw /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=Haswell
  fi
}
