"""The machine line every benchmark prints above its figures: the CPU, its cores, and
the ISA level oar's kernels dispatched to (oar.device.cpu_isa(): the level the CPU has
and the one OAR_MAX_CPU_ISA allows), since the same figure differs between an AVX2 and
an AVX-512 machine. The level is asked of a fresh interpreter, so that a benchmark
that runs each framework in a worker process need not import oar itself."""
import os
import platform
import subprocess
import sys


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def oar_isa():
    """'avx2' or, under a cap, 'avx2 (CPU: avx512_bf16)'."""
    r = subprocess.run([sys.executable, "-c", "import oar; print(*oar.device.cpu_isa())"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return "unknown (oar did not import)"
    dispatched, detected = r.stdout.split()
    return dispatched if dispatched == detected else f"{dispatched} (CPU: {detected})"


def describe():
    """One comment line: '# machine: <CPU>, <n> cores; oar dispatch ISA: <level>'."""
    caps = [f"{v}={os.environ[v]}" for v in ("OAR_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA")
            if v in os.environ]
    tail = f"; {', '.join(caps)}" if caps else ""
    return (f"# machine: {cpu_model()}, {os.cpu_count()} cores; "
            f"oar dispatch ISA: {oar_isa()}{tail}")


if __name__ == "__main__":  # the C++ benchmarks' scripts print the same line
    print(describe())
