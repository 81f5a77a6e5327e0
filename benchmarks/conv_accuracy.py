"""Float32 conv2d forward: error against float64 and time, oar vs PyTorch vs Paddle (not a test).

    python3 benchmarks/conv_accuracy.py [--paddle-python PATH] [--repeat R] [--rounds N]
                                        [--cpp-bench PATH] [--isa avx2] [--threads 2]

Shapes: a 3x3 layer of 64 channels at 56x56 (576 products per output), a 3 -> 64 first
layer (7x7, stride 2, at 224x224: 147), a 3x3 layer of 256 channels (2,304), a 1x1 of
1,024 channels (1,024), and at batch 1 a 3x3 layer of 512 channels at 7x7 (4,608; the
case where summing in blocks costs most) and the 1x1. Inputs and weights are standard
normal, batch 8 unless the name says otherwise.

The reference is the same float32 inputs convolved in float64 (numpy: im2col and a
float64 product). Two errors over all outputs y of a shape:
  norm: ||y - ref||_2 / ||ref||_2, the norm-wise relative error (the figure quoted in
        docs/benchmarks.md);
  max:  max |y - ref| / max |ref|.
(The element-wise |y - ref| / |ref| is not shown: outputs near zero decide its mean
and its maximum, which is 0.6-1.0 for every framework here.)

Rows, each in its own process (two OpenMP runtimes in one process steal each other's
cores), 2 threads each (--threads):
  oar             oar.nn.functional.conv2d: the engine and summation order the kernels
                  choose (Note [The forward convolution sums in blocks] in
                  src/oar/kernels/cpu/conv_impl.h);
  oar float64     the same convolution computed in float64, cast in and out (one
                  rounding at the end: the accurate end of the scale);
  torch           torch.nn.functional.conv2d (oneDNN);
  paddle          paddle.nn.functional.conv2d under --paddle-python, else
                  $OAR_PADDLE_PYTHON, else this interpreter if it has paddle; skipped
                  with a note otherwise (Paddle 3.3.1's CPU conv2d is im2col + MKL sgemm);
  engine rows     oar's engines called directly by build/benchmarks/oar_bench_conv_accuracy
                  (benchmarks/conv_accuracy.cc; --cpp-bench, skipped if not built):
                  oneDNN and GEMM with the sum in one piece ("whole", the libraries'
                  own order) and in the kernels' blocks ("blocked"), and the GEMM
                  path's 144-row blocks added in float64 (a variant oar does not have).
Time: the best of --repeat calls (after a warm-up) in each of --rounds rounds that
run the processes one after the other, then the best over rounds, in ms: on a shared
machine the least disturbed call ("ms"), and the least CPU time of the calling thread
in a call ("cpu ms", time.thread_time; CLOCK_THREAD_CPUTIME_ID for the engine rows,
whose variants also alternate call by call): it leaves out time the thread spent
preempted by other processes, and with --threads 1 it is the whole call's work, the
steadiest figure on a loaded machine (with more threads it misses the other threads'
share). "/ oar" is the row's time over the oar row's, for each.

--isa avx2 runs every process under OAR_MAX_CPU_ISA=avx2, ONEDNN_MAX_CPU_ISA=AVX2
(PyTorch's oneDNN), MKL_ENABLE_INSTRUCTIONS=AVX2 (Paddle's MKL) and
OPENBLAS_CORETYPE=Zen (OpenBLAS's kernels for Zen, which an AVX2 EPYC gets): an
AVX-512 machine then runs the code an AVX2 machine runs, at its own speed.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import _env  # noqa: F401  (threads; before numpy loads its BLAS)
import _machine

# --isa avx2, here and in every worker: _env has just unset OPENBLAS_CORETYPE.
ISA_ENV = {
    "OAR_MAX_CPU_ISA": "avx2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "MKL_ENABLE_INSTRUCTIONS": "AVX2",
    "OPENBLAS_CORETYPE": "Zen",
}
if "--isa=avx2" in sys.argv or any(
    a == "--isa" and b == "avx2" for a, b in zip(sys.argv, sys.argv[1:])
):
    os.environ.update(ISA_ENV)

import numpy as np  # noqa: E402

# name, x shape, w shape, stride, padding
SHAPES = [
    ("8x64x56x56 -> 64, 3x3 p1", (8, 64, 56, 56), (64, 64, 3, 3), 1, 1),
    ("8x3x224x224 -> 64, 7x7 s2 p3", (8, 3, 224, 224), (64, 3, 7, 7), 2, 3),
    ("8x256x14x14 -> 256, 3x3 p1", (8, 256, 14, 14), (256, 256, 3, 3), 1, 1),
    ("8x1024x14x14 -> 256, 1x1", (8, 1024, 14, 14), (256, 1024, 1, 1), 1, 0),
    ("1x512x7x7 -> 512, 3x3 p1", (1, 512, 7, 7), (512, 512, 3, 3), 1, 1),
    ("1x1024x14x14 -> 256, 1x1", (1, 1024, 14, 14), (256, 1024, 1, 1), 1, 0),
]
ENGINE_ROWS = {
    "onednn_whole": "oar oneDNN, whole",
    "onednn_blocked": "oar oneDNN, blocked",
    "gemm_whole": "oar GEMM, whole",
    "gemm_blocked": "oar GEMM, blocked",
    "gemm_blocked_f64sum": "oar GEMM, blocks + f64 sum",
}


def paddle_python(arg):
    if arg:
        return arg
    if os.environ.get("OAR_PADDLE_PYTHON"):
        return os.environ["OAR_PADDLE_PYTHON"]
    import importlib.util

    return sys.executable if importlib.util.find_spec("paddle") is not None else None


def reference(x, w, stride, pad):
    """float64 convolution of the float32 inputs: windows . weights in float64."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
    win = win[:, :, ::stride, ::stride]  # [N, C, OH, OW, KH, KW]
    y = np.tensordot(win, w.astype(np.float64), axes=([1, 4, 5], [1, 2, 3]))
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2))  # [N, C_out, OH, OW]


def errors(y, ref):
    e = y.astype(np.float64) - ref
    return (
        float(np.linalg.norm(e) / np.linalg.norm(ref)),
        float(np.abs(e).max() / np.abs(ref).max()),
    )


def worker(framework, root, repeat):
    """Runs in a subprocess: times the framework's conv2d on every shape, saves each
    output as <root>/<shape>/<framework>.npy and prints {"version", "times"} as JSON."""
    if framework == "torch":
        import torch

        torch.set_num_threads(_env.THREADS)
        version = torch.__version__

        def conv(x, w, stride, pad):
            xt, wt = torch.from_numpy(x), torch.from_numpy(w)

            def run():
                with torch.no_grad():
                    return torch.nn.functional.conv2d(xt, wt, stride=stride, padding=pad)

            return run, lambda y: y.numpy()
    else:
        if framework == "paddle":
            import paddle as fw

            fw.set_device("cpu")
        else:
            import oar as fw
        version = fw.__version__
        F = fw.nn.functional

        def conv(x, w, stride, pad):
            xt, wt = fw.to_tensor(x), fw.to_tensor(w)

            def run():
                with fw.no_grad():
                    if framework == "oar64":
                        return F.conv2d(
                            xt.astype("float64"), wt.astype("float64"), stride=stride, padding=pad
                        ).astype("float32")
                    return F.conv2d(xt, wt, stride=stride, padding=pad)

            return run, lambda y: y.numpy()

    times = {}
    for i, (name, _, _, stride, pad) in enumerate(SHAPES):
        d = os.path.join(root, str(i))
        x, w = np.load(os.path.join(d, "x.npy")), np.load(os.path.join(d, "w.npy"))
        run, to_numpy = conv(x, w, stride, pad)
        np.save(os.path.join(d, framework + ".npy"), to_numpy(run()))
        best = best_cpu = float("inf")
        for _ in range(repeat):
            c0, t0 = time.thread_time(), time.perf_counter()
            run()
            best = min(best, time.perf_counter() - t0)
            best_cpu = min(best_cpu, time.thread_time() - c0)
        times[name] = (best * 1e3, best_cpu * 1e3)
    print(json.dumps({"version": version, "times": times}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paddle-python", help="interpreter with paddle installed")
    ap.add_argument("--repeat", type=int, default=10, help="calls per round (best taken)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds over the processes")
    ap.add_argument("--threads", type=int, default=2, help="threads per framework (default 2)")
    ap.add_argument("--cpp-bench", help="oar_bench_conv_accuracy (default: build/benchmarks/)")
    ap.add_argument("--isa", choices=["avx2"], help="run the AVX2 code paths (see above)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--root", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker, args.root, args.repeat)

    here = os.path.dirname(os.path.abspath(__file__))
    cpp = args.cpp_bench or os.path.join(
        here, "..", "build", "benchmarks", "oar_bench_conv_accuracy"
    )
    print(_machine.describe())
    print(f"# {time.strftime('%Y-%m-%d')}: {_machine.command('benchmarks/conv_accuracy.py')}")
    for note in _env.UNSET_NOTES:
        print(f"# {note}")
    if args.isa == "avx2":
        print(
            "# --isa avx2: OAR_MAX_CPU_ISA=avx2 ONEDNN_MAX_CPU_ISA=AVX2 "
            "MKL_ENABLE_INSTRUCTIONS=AVX2 OPENBLAS_CORETYPE=Zen"
        )
    print(f"# {_env.THREADS} threads each; best of {args.repeat} calls x {args.rounds} rounds (ms)")
    print("# load average before the run: %.1f %.1f %.1f" % os.getloadavg())
    print(
        "# error: norm = ||y - ref|| / ||ref||, max = max|y - ref| / max|ref|, "
        "ref = the float32 inputs in float64"
    )

    paddle_py = paddle_python(args.paddle_python)
    workers = [
        ("oar", sys.executable),
        ("oar64", sys.executable),
        ("torch", sys.executable),
        ("paddle", paddle_py),
    ]
    with tempfile.TemporaryDirectory() as root:
        refs = []
        for i, (_, xs, ws, stride, pad) in enumerate(SHAPES):
            rng = np.random.default_rng(i)
            x = rng.standard_normal(xs, dtype=np.float32)
            w = rng.standard_normal(ws, dtype=np.float32)
            d = os.path.join(root, str(i))
            os.makedirs(d)
            np.save(os.path.join(d, "x.npy"), x)
            np.save(os.path.join(d, "w.npy"), w)
            x.tofile(os.path.join(d, "x.bin"))
            w.tofile(os.path.join(d, "w.bin"))
            refs.append(reference(x, w, stride, pad))

        times, notes = {}, {}  # times[(shape, row)] = (ms, cpu ms)

        def record(key, ms, cpu):
            old = times.get(key, (float("inf"), float("inf")))
            times[key] = (min(old[0], ms), min(old[1], cpu))

        for _ in range(max(args.rounds, 1)):
            for framework, py in workers:
                if py is None:
                    notes[framework] = (
                        "paddle skipped: no interpreter with paddle "
                        "(--paddle-python or OAR_PADDLE_PYTHON)"
                    )
                    continue
                r = subprocess.run(
                    [
                        py,
                        os.path.abspath(__file__),
                        "--worker",
                        framework,
                        "--root",
                        root,
                        "--repeat",
                        str(args.repeat),
                        "--threads",
                        str(_env.THREADS),
                        *(["--isa", args.isa] if args.isa else []),
                    ],
                    capture_output=True,
                    text=True,
                )
                if r.returncode != 0:
                    notes[framework] = (
                        f"{framework} failed: {(r.stderr.strip().splitlines() or ['?'])[-1]}"
                    )
                    continue
                res = json.loads(r.stdout.strip().splitlines()[-1])
                notes[framework] = f"{framework} {res['version']} ({py})"
                for name, (ms, cpu) in res["times"].items():
                    record((name, framework), ms, cpu)
            if not os.path.exists(cpp):
                notes["engines"] = f"engine rows skipped: {cpp} not built"
                continue
            for i, (name, xs, ws, stride, pad) in enumerate(SHAPES):
                dims = [*xs, ws[0], ws[2], ws[3], stride, pad, args.repeat]
                r = subprocess.run(
                    [cpp, os.path.join(root, str(i)), *map(str, dims)],
                    capture_output=True,
                    text=True,
                )
                if r.returncode != 0:
                    notes["engines"] = f"{cpp} failed: {r.stderr.strip()[-200:]}"
                    continue
                notes["engines"] = f"engine rows: {os.path.relpath(cpp)}"
                for line in r.stdout.split("\n"):
                    if line.strip():
                        row, ms, cpu = line.split()
                        record((name, row), float(ms), float(cpu))

        for note in notes.values():
            print(f"# {note}")
        print()
        print(
            "| shape (products per output) | row | norm error | max error | ms | / oar "
            "| cpu ms | / oar |"
        )
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        labels = {
            "oar": "oar",
            "oar64": "oar float64",
            "torch": "torch",
            "paddle": "paddle",
            **ENGINE_ROWS,
        }
        for i, (name, xs, ws, _, _) in enumerate(SHAPES):
            k = ws[1] * ws[2] * ws[3]
            base = times.get((name, "oar"))
            for row, label in labels.items():
                if (name, row) not in times:
                    continue
                ext = ".npy" if row in ("oar", "oar64", "torch", "paddle") else ".bin"
                path = os.path.join(root, str(i), row + ext)
                y = np.load(path) if ext == ".npy" else np.fromfile(path, np.float32)
                norm, mx = errors(y.reshape(refs[i].shape), refs[i])
                ms, cpu = times[(name, row)]
                r = f"{ms / base[0]:.2f}" if base else "n/a"
                rc = f"{cpu / base[1]:.2f}" if base else "n/a"
                print(
                    f"| {name} ({k}) | {label} | {norm:.2e} | {mx:.2e} | {ms:.3f} | {r} "
                    f"| {cpu:.3f} | {rc} |"
                )


if __name__ == "__main__":
    main()
