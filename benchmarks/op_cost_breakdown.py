"""Where the time of one small op goes: `a + b` on 1-element float32 tensors, the case
of benchmarks/python_overhead.py, split into its layers (not a test).

    python3 benchmarks/op_cost_breakdown.py [--number N] [--repeat R]
        [--cpp build/benchmarks/oar_bench_op_overhead] [--no-perf]

Two views, in one run:

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

PyTorch's `a + b` is timed in the same run for the ratio python_overhead.py reports.
"""

import argparse
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
        r"oar::add\b|NeedsPromotion|amp::|Tracer|"
        r"RecordEvent|EagerUtils|ComputeRequireGrad|HasGrad|nullable_autograd_meta|"
        r"CheckTensorHasNanOrInf|FLAGS_",
    ),
    (
        "kernel lookup and input checks",
        r"KernelTable|KernelKeyParser|CheckInput|PrepareData|"
        r"GetDeviceContext|KernelFactory|api::add\b",
    ),
    ("shape inference", r"InferMeta|BroadcastShape|CheckedProduct|DimsToString"),
    (
        "allocation and release",
        r"Allocat|Resize|mi_|mimalloc|operator new|operator delete|"
        r"_Sp_counted|~Tensor|~DenseTensor|unique_ptr|GetAllocator|MakeShared|free|malloc",
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--number", type=int, default=200000)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument(
        "--cpp", default=os.path.join(HERE, "..", "build", "benchmarks", "oar_bench_op_overhead")
    )
    p.add_argument("--no-perf", action="store_true")
    args = p.parse_args()
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
    print(_machine.describe())
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
        return
    print("inside the no-grad call, by perf samples (share x the no-grad time):")
    for name, _ in PARTS + [("other", "")]:
        if name in shares:
            print(f"  {name:52s} {shares[name] * py_nograd:7.1f}  ({shares[name]:5.1%})")


if __name__ == "__main__":
    main()
