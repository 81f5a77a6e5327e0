"""Where the time of one small op goes: `a + b` on 1-element float32 tensors, the case
of benchmarks/python_overhead.py, split into its layers (not a test).

    python3 benchmarks/op_cost_breakdown.py [--number N] [--repeat R]
        [--cpp build/benchmarks/oar_bench_op_overhead] [--no-perf]
        [--instructions [--loop N] [--baseline PYTHONPATH]]
        [--out benchmarks/results/<record>.md]

Two views, in one run, and a third on request:

1. Layers, by timing each entry point (best of R repeats of N calls, ns per op): the
   Python `a + b` (interpreter, binding, result object, eager function, C++ API), and,
   from benchmarks/op_overhead.cc (built as oar_bench_op_overhead with the C++
   benchmarks), `oar::add` under NoGradGuard (eager function and API) and
   `oar::api::add` (the C++ API alone: checks, kernel lookup, shape inference, output
   allocation, the kernel). Differences give the Python side (interpreter, binding,
   Tensor object), the eager function (trace/auto-cast/promotion/profiler/NaN checks,
   the grad decision) and, for the recording case, the autograd bookkeeping.
2. Inside them, by sampling (`perf record` of a loop of `a + b`; skipped where perf is
   missing or not allowed): each symbol's share of the loop's samples, grouped into
   the parts named below, times the measured ns per op. Import-time samples (the
   parser, the compiler) are left out of the shares.
3. With --instructions, by instructions (valgrind's callgrind: a loop of --loop `a + b`
   less a loop of none, without and with a gradient recorded, and --loop links of
   python_overhead.py's 100-op chain `y = y * b` forward and backward less none): each
   part's instructions per op (per link of the chain), how many of them are locked
   (atomic read-modify-writes, each a barrier that costs far more than one count; the
   loop runs with a second thread parked, as every oar process has one, so shared
   pointers count with them as they do for users), and the functions that execute
   most. A count, not a time: nearly the same in every run of one build whatever else
   the machine is doing (one run has read a few percent more, in allocation and
   release; later runs, beside busy processes too, agreed to within a few
   instructions), so it compares builds on a shared machine where times move by more
   than a change does; compare more than one run. --baseline adds the counts of
   another build (PYTHONPATH holding its `oar`). Build oar with
   -DOAR_NATIVE=OFF for it (valgrind does not know every AVX-512 instruction).

PyTorch's `a + b` is timed in the same run for the ratio python_overhead.py reports.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import timeit

import _machine

os.environ.pop("OPENBLAS_CORETYPE", None)  # benchmarks may unset these for themselves
os.environ.pop("OPENBLAS_L2_SIZE", None)

import oar  # noqa: E402
import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# perf "object symbol" patterns -> part; the first match wins (the interpreter last: the
# object allocator lives in libpython too).
PARTS = [
    (
        "result object (Python)",
        r"PyObject_Malloc|PyObject_Free|_PyObject_Malloc|_PyObject_Free|"
        r"ToPyObject|TensorDealloc|object_dealloc",
    ),
    ("binding", r"oar::py::"),
    (
        "eager function (checks, grad decision)",
        r"oar::(add|multiply)\(|NeedsPromotion|amp::|Tracer|"
        r"RecordEvent|EagerUtils|ComputeRequireGrad|HasGrad|nullable_autograd_meta|"
        r"CheckTensorHasNanOrInf|FLAGS_",
    ),
    (
        "kernel lookup and input checks",
        r"KernelTable|KernelKeyParser|CheckInput|PrepareData|"
        r"GetDeviceContext|KernelFactory|oar::api::",
    ),
    (
        "shape inference",
        r"InferMeta|BroadcastShape|CheckedProduct|DimsToString|set_meta|Strides",
    ),
    (
        "backward: engine and formulas",
        r"GraphTask|GradTensorHolder|GradNode::operator\(\)|grad_as|unbroadcast|"
        r"conj_if_complex|multiply_conj|AccumulateGrad|RunBackward|oar::Backward",
    ),
    (
        "autograd bookkeeping (grad node, slot metas, saved tensors)",
        r"GradNode|GradSlotMeta|SlotMeta|AutogradMeta|autograd_meta|TensorWrapper|"
        r"SetHistory|PutOutMeta|PutInMeta|PassStopGradient|"
        r"SetOutRank",
    ),
    (
        "allocation and release",
        r"Allocat|Resize|mi_|mimalloc|operator new|operator delete|"
        r"_Sp_counted|__shared_count|~Tensor|Tensor::Release|~DenseTensor|unique_ptr|GetAllocator|"
        r"MakeShared|FastAlloc|FastFree|free|malloc|SmallVector<",
    ),
    (
        "kernel",
        r"AddKernel|BinaryElementwise|ParallelFor|SameLayout|is_contiguous|"
        r"DenseTensor::data",
    ),
    ("libc copies and compares", r"__mem|memcpy|memmove|memcmp"),
    ("Python interpreter", r"^(libpython|python3)"),
]


def best_ns(fn, number, repeat):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e9


def cpp_rows(path):
    """{(mode, op): best ns} from oar_bench_op_overhead, or {} without it."""
    if not path or not os.path.exists(path):
        return {}
    out = subprocess.run([path, "9"], capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        m = re.match(r"(\w[\w+]*)\s+(\w+)\s+([\d.]+)\s+([\d.]+)", line)
        if m:
            rows[(m.group(1), m.group(2))] = float(m.group(3))
    return rows


LOOP = """
import oar
def main():
    a, b = oar.to_tensor([1.0]), oar.to_tensor([2.0])
    for _ in range({n}):
        a + b
main()
"""


def perf_shares(n):
    """{part: share of the loop's samples}, or None where perf cannot run."""
    if shutil.which("perf") is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        script, data = os.path.join(d, "loop.py"), os.path.join(d, "perf.data")
        with open(script, "w") as f:
            f.write(LOOP.format(n=n))
        rec = subprocess.run(
            ["perf", "record", "-q", "-o", data, sys.executable, script],
            capture_output=True,
            text=True,
        )
        if rec.returncode != 0:
            return None
        rep = subprocess.run(
            ["perf", "report", "-i", data, "--no-children", "--sort", "dso,symbol", "--stdio"],
            capture_output=True,
            text=True,
        ).stdout
    shares, total = {}, 0.0
    for line in rep.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[\.\]\s+(.*?)\s*(-\s+-)?\s*$", line)
        if not m:
            continue
        pct, dso, sym = float(m.group(1)), m.group(2), m.group(3)
        # import time: the parser, the compiler, unmarshalling
        if re.search(r"Pegen|_PyAST|assemble|compiler_|marshal|unicodekeys|dict", sym):
            continue
        # other threads of other libraries spinning (numpy's BLAS server)
        if "blas_thread_server" in sym or "openblas" in dso:
            continue
        name = next((p for p, rx in PARTS if re.search(rx, f"{dso} {sym}")), "other")
        shares[name] = shares.get(name, 0.0) + pct
        total += pct
    return {k: v / total for k, v in shares.items()} if total else None


CALLGRIND_LOOP = """
import sys
import threading
# A second thread, parked: every oar process has one (OpenBLAS's OpenMP team starts it
# at load; OPENBLAS_NUM_THREADS=1 below keeps that one away, its spinning would count),
# and from the first second thread on, libstdc++ updates shared_ptr counts with locked
# instructions instead of plain ones. The loop runs the path a real process runs.
threading.Thread(target=threading.Event().wait, daemon=True).start()
import oar
def run(a, b, n):
    for _ in range(n):
        a + b
def chain(a, b, links):
    for _ in range(links // 100):
        y = a
        for _ in range(100):
            y = y * b
        y.backward()
a, b = oar.to_tensor([1.0]), oar.to_tensor([2.0])
if sys.argv[2] != "plain":
    a.stop_gradient = False
if sys.argv[2] == "chain":  # as python_overhead.py's chain: both need a gradient
    b.stop_gradient = False
    chain(a, b, 2000)  # first calls fill caches and lazily made state
    chain(a, b, int(sys.argv[1]))
else:
    run(a, b, 2000)
    run(a, b, int(sys.argv[1]))
"""


def callgrind_counts(script, n, mode, pythonpath):
    """{"dso symbol": instructions} of a run of CALLGRIND_LOOP."""
    out = f"{script}.{n}.{mode}.out"  # one directory per instructions() call
    # One BLAS thread (numpy's spinning server would count), a fixed hash seed (the
    # interpreter's dict probes would move the count); the runs differ only in argv.
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1")
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--dump-instr=yes",  # per instruction, for the locked ones
        "--compress-pos=no",
        "--compress-strings=no",
        f"--callgrind-out-file={out}",
        sys.executable,
    ]
    subprocess.run(cmd + [script, str(n), mode], env=env, capture_output=True, check=True)
    # --auto=no: for a library with debug information callgrind_annotate would otherwise
    # print its annotated source, whose lines this parser would read as more functions.
    ann = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--auto=no", out],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    counts = {}
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(?:[^:\[]*):(.*?)(?:\s+\[(.*)\])?$", line)
        if m:
            key = f"{os.path.basename(m.group(3) or '?')} {m.group(2).strip()}"
            counts[key] = counts.get(key, 0) + int(m.group(1).replace(",", ""))
    return counts, instruction_counts(out)


def instruction_counts(out):
    """{(object, address): times executed} from a callgrind file of --dump-instr=yes."""
    counts = {}
    obj, after_call = None, False
    with open(out, errors="replace") as f:
        for line in f:
            if line.startswith("ob="):
                obj = line[3:].strip()
            elif line.startswith("calls="):
                after_call = True  # the next line is the call's inclusive cost
            elif line.startswith("0x"):
                if after_call:
                    after_call = False
                    continue
                parts = line.split()
                key = (obj, int(parts[0], 16))
                counts[key] = counts.get(key, 0) + int(parts[-1])
    return counts


# An objdump line of a locked instruction: a lock prefix, or xchg with a memory operand.
LOCKED = re.compile(r"^\s*([0-9a-f]+):\s+(?:lock\b|xchg\s.*\()")


def locked_per_op(empty, full, n):
    """Locked instructions (atomic read-modify-writes: lock-prefixed ones, and xchg with
    memory) executed per op, from two instruction_counts, by objdump of each object."""
    diff = {k: (v - empty.get(k, 0)) / n for k, v in full.items()}
    total = 0.0
    for obj in {o for (o, _), v in diff.items() if v >= 0.5 and o and os.path.exists(o)}:
        dis = subprocess.run(
            ["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True, text=True
        ).stdout
        for line in dis.splitlines():
            m = LOCKED.match(line)
            if m:
                total += diff.get((obj, int(m.group(1), 16)), 0.0)
    return total


# the callgrind loop's modes -> their columns
MODES = {"plain": "no grad", "record": "recording", "chain": "chain link"}


def instructions(n, pythonpath=None):
    """({column of MODES: {"dso symbol": instructions per op}}, {column of MODES: locked
    instructions per op}) of the oar on `pythonpath` (None: this process's), or None
    without valgrind."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        return None
    runs = [(mode, k) for mode in MODES for k in (0, n)]
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "loop.py")
        with open(script, "w") as f:
            f.write(CALLGRIND_LOOP)
        # valgrind runs a process on one core: the runs at once on the machine's cores
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
            counts = dict(
                zip(
                    runs, pool.map(lambda r: callgrind_counts(script, r[1], r[0], pythonpath), runs)
                )
            )
    per_op, locked = {}, {}
    for mode, name in MODES.items():
        (empty, empty_instr), (full, full_instr) = counts[(mode, 0)], counts[(mode, n)]
        per_op[name] = {k: (full.get(k, 0) - empty.get(k, 0)) / n for k in full}
        locked[name] = locked_per_op(empty_instr, full_instr, n)
    return per_op, locked


def part_of(key):
    return next((p for p, rx in PARTS if re.search(rx, key)), "other")


def print_instructions(counts, n, base=None):
    print(
        f"instructions per `a + b`, and per link of the chain (callgrind; a loop of {n} "
        "less a loop of none):"
    )
    runs = [counts] + ([base] if base else [])
    per_op = counts[0]
    columns = list(MODES.values()) + ([f"base {c}" for c in MODES.values()] if base else [])
    widths = [max(8, len(c)) for c in columns]
    print(f"  {'part':60s} " + " ".join(f"{c:>{w}s}" for c, w in zip(columns, widths)))

    def line(name, row):
        print(f"  {name:60s} " + " ".join(f"{v:{w}.0f}" for v, w in zip(row, widths)))

    for name, _ in PARTS + [("other", "")]:
        row = [
            sum(v for k, v in fns[m].items() if part_of(k) == name) for fns, _ in runs for m in fns
        ]
        if max(abs(v) for v in row) >= 0.5:
            line(name, row)
    line("total", [sum(fns[m].values()) for fns, _ in runs for m in fns])
    # Each an atomic read-modify-write: a barrier the core waits on, costing far more
    # than its one count above (shared_ptr counts, the allocator's bytes in use).
    line("of which locked instructions", [locked[m] for _, locked in runs for m in locked])
    print()
    for column, what in (("recording", "recorded `a + b`"), ("chain link", "link of the chain")):
        print()
        print(f"  the functions executing most instructions per {what}:")
        top = sorted(per_op[column].items(), key=lambda kv: -kv[1])[:25]
        for key, v in top:
            print(f"  {v:8.0f}  {key[:110]}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--number", type=int, default=200000)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument(
        "--cpp", default=os.path.join(HERE, "..", "build", "benchmarks", "oar_bench_op_overhead")
    )
    p.add_argument("--no-perf", action="store_true")
    p.add_argument("--instructions", action="store_true", help="add the callgrind view")
    p.add_argument("--loop", type=int, default=20000, help="calls in the callgrind loop")
    p.add_argument(
        "--baseline",
        help="PYTHONPATH of another oar build: its instruction counts in the same table",
    )
    p.add_argument(
        "--out", help="also write the output to this file (a record in benchmarks/results/)"
    )
    args = p.parse_args()
    if args.out:
        _machine.tee(args.out)
    torch.set_num_threads(1)
    n, r = args.number, args.repeat
    a, b = oar.to_tensor([1.0]), oar.to_tensor([2.0])
    ag = oar.to_tensor([1.0], stop_gradient=False)
    ta, tb = torch.tensor([1.0]), torch.tensor([2.0])
    tag = torch.tensor([1.0], requires_grad=True)
    py_nograd = best_ns(lambda: a + b, n, r)
    py_grad = best_ns(lambda: ag + b, n, r)
    t_nograd = best_ns(lambda: ta + tb, n, r)
    t_grad = best_ns(lambda: tag + tb, n, r)
    cpp = cpp_rows(args.cpp)
    notes = []
    if args.instructions:
        notes.append(
            "instruction counts of the oar `import oar` finds (--baseline: another "
            "build's); builds with -DOAR_NATIVE=OFF for valgrind"
        )
    _machine.header("Where the time of one small op goes", "benchmarks/op_cost_breakdown.py", notes)
    print(f"oar {oar.__version__} vs torch {torch.__version__}; best of {r} x {n} calls, ns")
    print()
    print(f"{'a + b, 1-element float32':44s} {'oar':>8s} {'torch':>8s} {'ratio':>6s}")
    print(f"{'no grad':44s} {py_nograd:8.1f} {t_nograd:8.1f} {py_nograd / t_nograd:6.2f}")
    print(f"{'recording a gradient':44s} {py_grad:8.1f} {t_grad:8.1f} {py_grad / t_grad:6.2f}")
    print()
    if cpp:
        api, eager = cpp[("api", "add")], cpp[("no_grad", "add")]
        rec = cpp[("record", "add")]
        print("layers of the no-grad call (ns; C++ rows: benchmarks/op_overhead.cc):")
        print(
            f"  {'Python side: interpreter, binding, Tensor object':52s} {py_nograd - eager:7.1f}"
        )
        print(f"  {'eager function: checks when off, grad decision':52s} {eager - api:7.1f}")
        print(f"  {'C++ API: checks, lookup, shapes, allocation, kernel':52s} {api:7.1f}")
        print(f"  {'autograd bookkeeping when recording (C++)':52s} {rec - eager:7.1f}")
        print()
    shares = None if args.no_perf else perf_shares(max(n * 10, 2000000))
    if shares is None:
        print("perf: not available here; no split inside the layers")
    else:
        print("inside the no-grad call, by perf samples (share x the no-grad time):")
        for name, _ in PARTS + [("other", "")]:
            if name in shares:
                print(f"  {name:52s} {shares[name] * py_nograd:7.1f}  ({shares[name]:5.1%})")
    if args.instructions:
        print()
        counts = instructions(args.loop)
        if counts is None:
            print("valgrind: not installed here; no instruction counts")
        else:
            base = instructions(args.loop, args.baseline) if args.baseline else None
            print_instructions(counts, args.loop, base)


if __name__ == "__main__":
    main()
