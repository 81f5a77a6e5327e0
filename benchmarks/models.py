"""Real models side by side: training steps and inference latency of the same
architectures in oar (eager), PyTorch 2.13 (eager) and PaddlePaddle 3.3.1, and for
inference also ONNX Runtime on oar's ONNX export and oar's own C++ runtime on
oar.jit.save's files. Not a test.

    python3 benchmarks/models.py [--only ROW,ROW] [--steps 10] [--infer-steps 50]
                                 [--rounds 1] [--paddle-python $OAR_PADDLE_PYTHON] [--load]
                                 [--jit-latency build/benchmarks/oar_bench_jit_latency]
                                 [--out benchmarks/results/models.md]

Rows (--only takes their names; model_zoo/workloads.py defines them):
  training steps (forward, cross-entropy loss, backward, optimizer step, clearing the
  gradients): resnet18_train (224x224, batch 8, momentum SGD), gpt_train (a GPT-style
  decoder: 4 pre-norm blocks, d_model 256, 4 heads, seq 128, vocab 1000, causal mask,
  batch 8, AdamW), lstm_train (2-layer LSTM language model: embedding 256, hidden 512,
  vocab 10000, seq 35, batch 20, SGD), cnn_train (examples/fashion_mnist_cnn.py's CNN,
  batch 64, Adam), mobilenetv2_train (224x224, batch 8, momentum SGD);
  inference latency (eval(), no_grad, the output read back as a numpy array):
  resnet18_infer_b1, resnet18_infer_b16, gpt_infer_b1.

The models are written once in Paddle's API for oar and Paddle (model_zoo/paddle_api.py;
ResNet-18 and MobileNetV2 are each one's vision.models) and once in PyTorch
(model_zoo/torch_models.py, ResNet-18 and MobileNetV2 by hand as oar builds them); the
trainable parameter counts are compared and a difference is reported under the table.
The data is fixed random numpy data (seed 0): nothing is loaded or downloaded.

Method: every framework x row runs in a process of its own (model_zoo/worker.py; Paddle
in its own interpreter, --paddle-python, else $OAR_PADDLE_PYTHON, else this one if it
has paddle, else its column is n/a) with 2 threads (OMP_NUM_THREADS=2,
torch.set_num_threads(2), Paddle's set_num_threads(2), ONNX Runtime's
intra_op_num_threads=2). The figure is the median time of --steps training steps
(--infer-steps inference calls, default 5x --steps) after --warmup untimed ones, in ms,
and the peak resident set size of that process (getrusage ru_maxrss: the import, the
model, the optimizer state and the peak of the steps), in MiB. For inference rows a
separate oar process first exports the model (oar.onnx.export and oar.jit.save, open
batch dimension); ONNX Runtime runs the .onnx file and benchmarks/jit_latency.cc (built
as oar_bench_jit_latency with the other C++ benchmarks) times oar::jit::Load's
Module::Forward (in the environment `import oar` sets for itself: libgomp's spin count
and mimalloc's settings, see _env.oar_environment); without that program its column is n/a. Ratios below 1: oar is faster.
The last line is the geometric mean of oar/torch over the rows.

--rounds N measures each row N times, the frameworks in turn in each round (on a shared
machine one process's median moves by several percent from run to run); a row then shows
each framework's run with the median time of its rounds, and a column with oar/torch in
every round.

--load runs every measurement a second time beside one CPU-bound busy process (a Python
`while True` loop, started before and killed after each measurement) and writes those
figures, and each one's slowdown against the quiet run, in a section of their own.

The output also goes to --out (default benchmarks/results/models.md; --out '' for none).
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for every process (benchmarks/_env.py).
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import _env  # thread counts and OpenBLAS overrides, before the frameworks
import _machine

HERE = os.path.dirname(os.path.abspath(__file__))
ZOO = os.path.join(HERE, "model_zoo")
WORKER = os.path.join(ZOO, "worker.py")
sys.path.insert(0, ZOO)
import workloads  # noqa: E402

PYTHON_FWS = ("oar", "torch", "paddle")
INFER_FWS = ("onnxruntime", "oar C++")
TIMEOUT = 1800  # seconds, one measurement


def paddle_python(arg):
    if arg:
        return arg if os.path.exists(arg) else None
    if os.environ.get("OAR_PADDLE_PYTHON"):
        return os.environ["OAR_PADDLE_PYTHON"]
    import importlib.util

    return sys.executable if importlib.util.find_spec("paddle") is not None else None


def run(cmd, load, env=None):
    """Runs one measurement; returns (the worker's JSON result, None) or (None, error)."""
    hog = None
    if load:
        hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        r = subprocess.run(
            cmd, capture_output=True, text=True, cwd=tempfile.gettempdir(), env=env, timeout=TIMEOUT
        )
    except subprocess.TimeoutExpired:
        return None, f"timed out after {TIMEOUT} s"
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()
    lines = r.stdout.strip().splitlines()
    if r.returncode != 0 or not lines:
        err = r.stderr.strip().splitlines()
        return None, err[-1] if err else f"exit status {r.returncode}"
    return json.loads(lines[-1]), None


class Suite:
    def __init__(self, args):
        self.args = args
        self.paddle = paddle_python(args.paddle_python)
        self.cpp = os.path.abspath(args.jit_latency) if os.path.exists(args.jit_latency) else None
        self.tmp = tempfile.mkdtemp(prefix="oar-models-")
        self.exported = {}  # row -> (prefix or None, error)
        self.versions = {}

    def steps(self, row):
        a = self.args
        return a.steps if workloads.ROWS[row].mode == "train" else a.infer_steps

    def export(self, row):
        if row not in self.exported:
            prefix = os.path.join(self.tmp, row)
            _, err = run([sys.executable, WORKER, "export", row, "1", "0", prefix], False)
            self.exported[row] = (None if err else prefix, err)
        return self.exported[row]

    def measure(self, row, load):
        """{framework: (result or None, error or None)} for one row."""
        n, warm = str(self.steps(row)), str(self.args.warmup)
        out = {}
        for fw in PYTHON_FWS:
            python = self.paddle if fw == "paddle" else sys.executable
            if python is None:
                out[fw] = (None, None)  # skipped, said once in the header
                continue
            out[fw] = run([python, WORKER, fw, row, n, warm], load)
        if workloads.ROWS[row].mode == "infer":
            prefix, err = self.export(row)
            if prefix is None:
                out["onnxruntime"] = out["oar C++"] = (None, f"export failed: {err}")
            else:
                out["onnxruntime"] = run(
                    [sys.executable, WORKER, "onnxruntime", row, n, warm, prefix], load
                )
                out["oar C++"] = (
                    (None, None)
                    if self.cpp is None
                    else run(
                        [self.cpp, prefix, prefix + ".inputs.safetensors", warm, n],
                        load,
                        _env.oar_environment(),
                    )
                )
        for fw, (res, _) in out.items():
            if res and "version" in res:
                self.versions[fw] = res["version"]
        return out


def ms(res):
    if not res:
        return "n/a"
    v = res["median"] * 1e3
    return f"{v:.1f}" if v >= 100 else f"{v:.2f}"


def mib(res):
    return f"{res['peak_mib']:.0f}" if res else "n/a"


def ratio(a, b):
    return f"{a['median'] / b['median']:.2f}" if a and b else "n/a"


def median_round(rounds, fws):
    """One result per framework from several rounds of one row: the round with the
    (lower) median time, else the first error."""
    out = {}
    for fw in fws:
        ok = sorted((r[fw][0] for r in rounds if r[fw][0]), key=lambda res: res["median"])
        errs = [r[fw][1] for r in rounds if r[fw][1]]
        out[fw] = (ok[(len(ok) - 1) // 2], None) if ok else (None, errs[0] if errs else None)
    return out


def table(suite, rows, load):
    """Measures rows (all of one mode), printing the table row by row and under it the
    failures and any difference in the parameter counts; returns {row: results}."""
    infer = workloads.ROWS[rows[0]].mode == "infer"
    fws = PYTHON_FWS + (INFER_FWS if infer else ())
    rounds = suite.args.rounds
    cols = [f"{fw} ms" for fw in fws] + ["oar/torch", "oar/paddle"]
    cols += ["oar C++/onnxruntime"] if infer else []
    cols += [f"{fw} MiB" for fw in fws]
    cols += ["oar/torch by round"] if rounds > 1 else []
    print("| workload | " + " | ".join(cols) + " |")
    print("| --- |" + " ---: |" * len(cols))
    results, notes = {}, []
    for row in rows:
        each = [suite.measure(row, load) for _ in range(rounds)]
        r = median_round(each, fws)
        results[row] = r
        res = {fw: r[fw][0] for fw in fws}
        cells = [ms(res[fw]) for fw in fws]
        cells += [ratio(res["oar"], res["torch"]), ratio(res["oar"], res["paddle"])]
        cells += [ratio(res["oar C++"], res["onnxruntime"])] if infer else []
        cells += [mib(res[fw]) for fw in fws]
        if rounds > 1:
            cells += [" ".join(ratio(e["oar"][0], e["torch"][0]) for e in each)]
        print(f"| {workloads.ROWS[row].label} | " + " | ".join(cells) + " |")
        sys.stdout.flush()
        for fw in fws:
            if r[fw][1]:
                notes.append(f"# {fw} failed on {row}: {r[fw][1]}")
        counts = {fw: res[fw]["params"] for fw in PYTHON_FWS if res[fw] and "params" in res[fw]}
        if len(set(counts.values())) > 1:
            notes.append(f"# {row}: the trainable parameter counts differ: {counts}")
    print()
    for note in notes:
        print(note)
    if notes:
        print()
    return results


def geomean_line(all_results):
    logs = [
        math.log(r["oar"][0]["median"] / r["torch"][0]["median"])
        for r in all_results.values()
        if r["oar"][0] and r["torch"][0]
    ]
    if not logs:
        return "Geometric mean of oar/torch: n/a"
    rows = f"{len(logs)} row" + ("s" if len(logs) > 1 else "")
    return f"Geometric mean of oar/torch over {rows}: {math.exp(sum(logs) / len(logs)):.2f}"


def run_tables(suite, rows, load, level):
    results = {}
    for mode, title in (("train", "Training steps"), ("infer", "Inference latency")):
        sel = [r for r in rows if workloads.ROWS[r].mode == mode]
        if sel:
            print(f"{level} {title}\n")
            results.update(table(suite, sel, load))
    print(geomean_line(results) + "\n")
    return results


def slowdown_table(quiet, loaded):
    fws = PYTHON_FWS
    if any(workloads.ROWS[row].mode == "infer" for row in quiet):
        fws += INFER_FWS
    print("Slowdown under load (loaded time / quiet time):\n")
    print("| workload | " + " | ".join(fws) + " |")
    print("| --- |" + " ---: |" * len(fws))
    for row in quiet:
        cells = [
            ratio(loaded[row].get(fw, (None,))[0], quiet[row].get(fw, (None,))[0]) for fw in fws
        ]
        print(f"| {workloads.ROWS[row].label} | " + " | ".join(cells) + " |")
    print()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", help="comma list of rows: " + ",".join(workloads.ROWS))
    p.add_argument("--steps", type=int, default=10, help="timed training steps (default 10)")
    p.add_argument("--infer-steps", type=int, help="timed inference calls (default 5x --steps)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps first (default 3)")
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure each row this many times, the frameworks in turn (default 1)",
    )
    p.add_argument(
        "--paddle-python",
        help="interpreter with paddlepaddle (default: $OAR_PADDLE_PYTHON, else "
        "this one if it has paddle, else the column is skipped)",
    )
    p.add_argument(
        "--jit-latency",
        default=os.path.join(HERE, "..", "build", "benchmarks", "oar_bench_jit_latency"),
        help="the built benchmarks/jit_latency.cc (default: "
        "build/benchmarks/oar_bench_jit_latency)",
    )
    p.add_argument(
        "--load", action="store_true", help="also measure beside one CPU-bound busy process"
    )
    p.add_argument(
        "--out",
        default=os.path.join(HERE, "results", "models.md"),
        help="also write the output here (default benchmarks/results/models.md; '' for none)",
    )
    args = p.parse_args()
    if args.infer_steps is None:
        args.infer_steps = 5 * args.steps
    if args.rounds < 1:
        p.error(f"--rounds must be at least 1, got {args.rounds}")
    rows = workloads.rows_named(args.only, p.error)
    if args.out:
        _machine.tee(args.out)
    suite = Suite(args)

    print(
        "# benchmarks/models.py: real models in oar, PyTorch, Paddle, ONNX Runtime and "
        "oar's C++ runtime\n"
    )
    print(f"`{_machine.command('benchmarks/models.py')}`, {time.strftime('%Y-%m-%d')}\n")
    print(_machine.describe())
    for note in _env.UNSET_NOTES:
        print(f"# {note}")
    print(
        "# load average before the run: %.1f %.1f %.1f (a load above the CPU count makes "
        "every number suspect)" % os.getloadavg()
    )
    print(
        f"# one process per framework and row, 2 threads each; median of {args.steps} "
        f"training steps / {args.infer_steps} inference calls after {args.warmup} "
        f"warm-up; times in ms; MiB: the process's peak RSS"
        + (
            f"; {args.rounds} rounds, each framework's round with the median time shown"
            if args.rounds > 1
            else ""
        )
    )
    if suite.paddle is None:
        print("# Paddle skipped: no interpreter with paddle (--paddle-python or OAR_PADDLE_PYTHON)")
    if suite.cpp is None and any(workloads.ROWS[r].mode == "infer" for r in rows):
        print(
            f"# oar C++ skipped: {args.jit_latency} is not built "
            "(cmake --build build --target oar_bench_jit_latency)"
        )
    print()

    quiet = run_tables(suite, rows, False, "##")
    if args.load:
        print("## Under load: beside one CPU-bound busy process\n")
        print(
            "Each measurement again, with a Python `while True` loop running in another "
            "process from its start to its end.\n"
        )
        loaded = run_tables(suite, rows, True, "###")
        slowdown_table(quiet, loaded)
    print("# versions: " + ", ".join(f"{fw} {v}" for fw, v in sorted(suite.versions.items())))
    shutil.rmtree(suite.tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
