# Sourced by the table scripts here: describe_machine prints the CPU (name, family,
# model, AVX-512 or AVX2), its core count and the load average, for a table's header.
describe_machine() {
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" \
    "(family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')," \
    "model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' ');" \
    "$(grep -qw avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2)),"
  echo "$(nproc) cores, load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)."
}
