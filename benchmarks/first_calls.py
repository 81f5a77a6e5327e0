"""The first calls of ResNet-18 at batch 1 in a fresh process: oar against PyTorch
(eager) and against ONNX Runtime (serving). Not a test.

    python3 benchmarks/first_calls.py [--rounds 3] [--calls 3]
                                      [--jit-latency build/benchmarks/oar_bench_jit_latency]
                                      [--out benchmarks/results/first-calls.md]

A model's first calls pay for what a framework makes once: oar's folded convolutions
(under no_grad, from a weight's second call: Note [A convolution without a graph runs
folded]; in the C++ runtime, at the first call), oneDNN's kernels, PyTorch's and ONNX
Runtime's own set-up. Two tables, medians over --rounds rounds, each measurement a process
of its own with 2 threads, the frameworks in turn in every round:

- eager: model_zoo's ResNet-18 inference call (worker.py's: eval(), no_grad, the output
  read back as a numpy array) on the suite's fixed input, warmed by nothing, the time of
  each of the first --calls calls and the median of the next ten, in oar and PyTorch;
- serving: oar's C++ runtime on oar.jit.save's files (benchmarks/jit_latency.cc: the time
  of oar::jit::Load and of the first call, in _env.oar_environment(), as models.py runs it) against
  ONNX Runtime on oar.onnx.export's file (the time to make the session and of its first
  run), the model exported once by model_zoo/worker.py. Without the program the table is
  skipped.

Times in ms; ratios oar / peer (below 1: oar is faster). OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE are unset for every process (benchmarks/_env.py).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import _env
import _machine

HERE = os.path.dirname(os.path.abspath(__file__))
ZOO = os.path.join(HERE, "model_zoo")
ROW = "resnet18_infer_b1"
STEADY = 10  # calls whose median is the steady state


def first_times(step, calls):
    """The seconds of each of the first `calls` calls of step() and the median of the next
    STEADY."""
    times = []
    for _ in range(calls + STEADY):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return times[:calls], statistics.median(times[calls:])


def eager_worker(fw, calls):
    """model_zoo's ResNet-18 inference call (worker.py's) in a fresh process."""
    sys.path.insert(0, ZOO)
    import workloads

    if fw == "torch":
        import torch_models as zoo
    else:
        import paddle_api as zoo
    w = workloads.ROWS[ROW]
    x, _ = workloads.data(w.model, w.batch)
    zoo.use(fw)
    first, steady = first_times(zoo.infer_step(zoo.build(w.model), x), calls)
    print(json.dumps({"first": first, "steady": steady}))


def ort_worker(prefix):
    """The time worker.py takes to make ONNX Runtime's session for the model, of its first
    run and of the steady ones."""
    sys.path.insert(0, ZOO)
    import workloads
    from worker import onnxruntime_step

    w = workloads.ROWS[ROW]
    x, _ = workloads.data(w.model, w.batch)
    t0 = time.perf_counter()
    step, _ = onnxruntime_step(prefix, x)
    load = time.perf_counter() - t0
    first, steady = first_times(step, 1)
    print(json.dumps({"load": load, "first": first[0], "steady": steady}))


def run_json(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    if r.returncode != 0:
        err = r.stderr.strip().splitlines()
        raise RuntimeError(f"{' '.join(cmd[:3])}: {err[-1] if err else r.returncode}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def ms(v):
    return f"{v * 1e3:.1f}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    p.add_argument("--calls", type=int, default=3, help="first calls timed (default 3)")
    p.add_argument(
        "--jit-latency",
        default=os.path.join(HERE, "..", "build", "benchmarks", "oar_bench_jit_latency"),
        help="the built benchmarks/jit_latency.cc",
    )
    p.add_argument(
        "--out",
        default=os.path.join(HERE, "results", "first-calls.md"),
        help="also write the output here ('' for none)",
    )
    p.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        if args.worker[0] == "eager":
            eager_worker(args.worker[1], int(args.worker[2]))
        else:
            ort_worker(args.worker[1])
        return
    if args.rounds < 1 or args.calls < 1:
        p.error("--rounds and --calls must be at least 1")
    if args.out:
        _machine.tee(args.out)
    _machine.header(
        "benchmarks/first_calls.py: ResNet-18's first calls at batch 1 in a fresh process",
        "benchmarks/first_calls.py",
        _env.UNSET_NOTES,
    )
    print(f"# {args.rounds} rounds, a process per measurement, 2 threads; medians; times in ms\n")

    me = os.path.abspath(__file__)
    eager = {"oar": [], "torch": []}
    for _ in range(args.rounds):
        for fw in eager:
            eager[fw].append(
                run_json([sys.executable, me, "--worker", "eager", fw, str(args.calls)])
            )
    print("## Eager, eval() under no_grad\n")
    heads = [f"call {i + 1}" for i in range(args.calls)] + [f"steady (median of {STEADY})"]
    print("| | " + " | ".join(heads) + " |")
    print("| --- |" + " ---: |" * len(heads))
    med = {}
    for fw, runs in eager.items():
        cols = [statistics.median(r["first"][i] for r in runs) for i in range(args.calls)]
        cols.append(statistics.median(r["steady"] for r in runs))
        med[fw] = cols
        print(f"| {fw} | " + " | ".join(ms(v) for v in cols) + " |")
    print(
        "| oar / torch | "
        + " | ".join(f"{a / b:.2f}" for a, b in zip(med["oar"], med["torch"]))
        + " |\n"
    )

    cpp = os.path.abspath(args.jit_latency)
    if not os.path.exists(cpp):
        print(f"Serving: skipped ({args.jit_latency} is not built).")
        return
    with tempfile.TemporaryDirectory() as d:
        prefix = os.path.join(d, ROW)
        subprocess.run(
            [sys.executable, os.path.join(ZOO, "worker.py"), "export", ROW, "1", "0", prefix],
            check=True,
            capture_output=True,
            cwd=ZOO,
        )
        serve = {"oar C++": [], "onnxruntime": []}
        for _ in range(args.rounds):
            serve["oar C++"].append(
                run_json(
                    [cpp, prefix, prefix + ".inputs.safetensors", "1", str(STEADY)],
                    _env.oar_environment(),
                )
            )
            serve["onnxruntime"].append(run_json([sys.executable, me, "--worker", "ort", prefix]))
    print("## Serving: oar's C++ runtime and ONNX Runtime\n")
    print("| | load (session) | first call | load + first call | steady (median of 10) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    sm = {}
    for fw, runs in serve.items():
        load = statistics.median(r["load"] for r in runs)
        first = statistics.median(r["first"] for r in runs)
        both = statistics.median(r["load"] + r["first"] for r in runs)
        steady = statistics.median(r.get("steady", r.get("median")) for r in runs)
        sm[fw] = (load, first, both, steady)
        print(f"| {fw} | {ms(load)} | {ms(first)} | {ms(both)} | {ms(steady)} |")
    a, b = sm["oar C++"], sm["onnxruntime"]
    print("| oar C++ / onnxruntime | " + " | ".join(f"{x / y:.2f}" for x, y in zip(a, b)) + " |")


if __name__ == "__main__":
    main()
