"""The machine line every benchmark prints above its figures: the CPU, its cores, and
the ISA level oar's kernels dispatched to (oar.device.cpu_isa(): the level the CPU has
and the one OAR_MAX_CPU_ISA allows), since the same figure differs between an AVX2 and
an AVX-512 machine. The level is asked of a fresh interpreter, so that a benchmark
that runs each framework in a worker process need not import oar itself."""
import os
import platform
import shlex
import subprocess
import sys
import time


def cpu_model():
    """'AMD EPYC (family 25, model 1)': the name alone does not tell Zen 3 from Zen 5."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, sep, value = line.partition(":")
                if not sep:
                    break  # the first processor's block is enough
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or "unknown"
    if "cpu family" in fields and "model" in fields:
        name += f" (family {fields['cpu family']}, model {fields['model']})"
    return name


def oar_isa():
    """'avx2' or, under a cap, 'avx2 (CPU: avx512_bf16)'."""
    r = subprocess.run([sys.executable, "-c", "import oar; print(*oar.device.cpu_isa())"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return "unknown (oar did not import)"
    dispatched, detected = r.stdout.split()
    return dispatched if dispatched == detected else f"{dispatched} (CPU: {detected})"


class _Tee:
    def __init__(self, stream, path):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self._stream, self._file = stream, open(path, "w", encoding="utf-8")

    def write(self, text):
        self._file.write(text)
        return self._stream.write(text)

    def flush(self):
        self._file.flush()
        self._stream.flush()


def tee(path):
    """From now on the benchmark's output also goes to `path` (its record in
    benchmarks/results/), as printed."""
    sys.stdout = _Tee(sys.stdout, path)


def command(script):
    """The command line that made this output, without --out (the record's path), with
    --paddle-python's interpreter (a path of this machine) as $OAR_PADDLE_PYTHON and
    --baseline's package path as $OAR_BASELINE."""
    args, skip = [], False
    for a in sys.argv[1:]:
        if skip or a.startswith("--out="):
            skip = False
            continue
        if a == "--out":
            skip = True
            continue
        if args and args[-1] == "--paddle-python":
            a = "$OAR_PADDLE_PYTHON"
        elif a.startswith("--paddle-python="):
            a = "--paddle-python=$OAR_PADDLE_PYTHON"
        elif args and args[-1] == "--baseline":  # another build's package: a path here
            a = "$OAR_BASELINE"
        args.append(a)

    # Quoted where the shell needs it ('--only "full sum"'), so the line can be run as is;
    # the $OAR_ variables are left for the shell to expand.
    def quote(a):
        return a if a.startswith("$OAR_") or "=$OAR_" in a else shlex.quote(a)

    return " ".join(["python3", script] + [quote(a) for a in args])


def describe():
    """One comment line: '# machine: <CPU>, <n> cores; oar dispatch ISA: <level>'."""
    caps = [f"{v}={os.environ[v]}" for v in ("OAR_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA")
            if v in os.environ]
    tail = f"; {', '.join(caps)}" if caps else ""
    return (f"# machine: {cpu_model()}, {os.cpu_count()} cores; "
            f"oar dispatch ISA: {oar_isa()}{tail}")


def header(title, script, notes=()):
    """A record's first lines: `title`, the command (command(script)) and the date, the
    machine line, one comment line per note, and the load average."""
    print(f"# {title}\n")
    print(f"`{command(script)}`, {time.strftime('%Y-%m-%d')}\n")
    print(describe())
    for note in notes:
        print(f"# {note}")
    print("# load average before the run: %.1f %.1f %.1f" % os.getloadavg())


if __name__ == "__main__":  # the C++ benchmarks' scripts print the same line
    print(describe())
