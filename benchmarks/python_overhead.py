"""Python per-op overhead, oar vs PyTorch, in one process (not a test).

    python benchmarks/python_overhead.py [--number N] [--repeat R]
        [--baseline PYTHONPATH [--rounds K]] [--out benchmarks/results/<record>.md]

With --baseline, the oar cases also run from another oar package (e.g. a build
of an earlier commit: PYTHONPATH holding its `oar`), in a subprocess started
before this process's own runs, which a column compares with, and again after
them (printed under the table): "within noise" is judged in the same run. On a
shared machine whose speed changes from minute to minute, --rounds K adds K rounds of
the two builds' oar cases in processes taken in turn, this build's first, and each
case's ratio in every round and their median: a slow phase then falls on both.
The "stack on" row runs oar with FLAGS_record_forward_stack (every grad node
records its Python call site) and PyTorch in anomaly mode (every node records
its forward traceback), the nearest PyTorch feature.

Cases: `a + b` on 1-element float32 tensors without and with grad recording;
a 100-op chain (y = y * b) forward + backward, per op; `oar.grad` on 2x2
tensors end to end. Each number is the best of R repeats of N calls (timeit), after one
untimed call, oar's and PyTorch's repeats taken in turn, in ns; the ratio is oar /
PyTorch (below 1 means oar is faster). The defaults take many short repeats (50 of
20,000 calls of `a + b`, a few milliseconds each): a shared machine's speed can change
between two states within seconds (`a + b` read about 260 ns, then 130, in one process
seconds apart), and a few long repeats could miss the fast state on one side of a
ratio. --out also writes the output, as printed, to a record in benchmarks/results/.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import timeit

import _machine

# Benchmarks may unset these for their own process (they pin OpenBLAS's kernel choice).
os.environ.pop("OPENBLAS_CORETYPE", None)
os.environ.pop("OPENBLAS_L2_SIZE", None)

import oar  # noqa: E402
import torch  # noqa: E402


def best_ns(fn, number, repeat, per=1):
    fn()  # warm: the first call of a case fills caches and the allocators' free lists
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number / per * 1e9


def best_ns_pair(fo, ft, number, repeat, per=1):
    """best_ns of oar's and PyTorch's case, their repeats taken in turn: a slow phase of
    a shared machine (another process, a clock ramping up) then falls on both sides
    instead of on all of one side's repeats."""
    fo(), ft()
    to, tt = [], []
    for _ in range(repeat):
        to.append(timeit.timeit(fo, number=number))
        tt.append(timeit.timeit(ft, number=number))
    return min(to) / number / per * 1e9, min(tt) / number / per * 1e9


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--number", type=int, default=20000)
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--baseline", help="PYTHONPATH of another oar build to compare with")
    p.add_argument("--rounds", type=int, default=0,
                   help="with --baseline: rounds of the two builds' processes in turn")
    p.add_argument("--oar-only", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--out", help="also write the output to this file (a record in "
                                 "benchmarks/results/)")
    args = p.parse_args()
    n, r = args.number, args.repeat
    torch.set_num_threads(1)

    a, b = oar.to_tensor([1.0]), oar.to_tensor([2.0])
    ta, tb = torch.tensor([1.0]), torch.tensor([2.0])
    ag = oar.to_tensor([1.0], stop_gradient=False)
    bg = oar.to_tensor([2.0], stop_gradient=False)
    tag = torch.tensor([1.0], requires_grad=True)
    tbg = torch.tensor([2.0], requires_grad=True)

    def oar_chain():
        y = ag
        for _ in range(100):
            y = y * bg
        y.backward()

    def torch_chain():
        y = tag
        for _ in range(100):
            y = y * tbg
        y.backward()

    x2 = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    w2 = oar.to_tensor([[0.5, -1.0], [2.0, 0.25]])
    tx2 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    tw2 = torch.tensor([[0.5, -1.0], [2.0, 0.25]])

    def oar_grad():
        y = (x2 @ w2).tanh().sum()
        return oar.grad([y], [x2])

    def torch_grad():
        y = (tx2 @ tw2).tanh().sum()
        return torch.autograd.grad([y], [tx2])

    has_stack_flag = "FLAGS_record_forward_stack" in _flag_names()

    def stack_on(fn):
        def run():
            oar.set_flags({"FLAGS_record_forward_stack": True})
            try:
                fn()
            finally:
                oar.set_flags({"FLAGS_record_forward_stack": False})
        return run

    def chain_stack_on():
        stack_on(oar_chain)()

    def torch_chain_anomaly():  # PyTorch's nearest feature: anomaly mode records each node's stack
        with torch.autograd.detect_anomaly(check_nan=False):
            torch_chain()

    cases = [
        ("a + b (no grad)", lambda: a + b, lambda: ta + tb, n, 1),
        ("a + b (with grad)", lambda: ag + bg, lambda: tag + tbg, n, 1),
        ("100-op chain fwd+bwd, per op", oar_chain, torch_chain, max(1, n // 200), 100),
        ("grad() on 2x2, end to end", oar_grad, torch_grad, max(1, n // 20), 1),
    ]
    if has_stack_flag:
        cases.append(("100-op chain, stack on, per op", chain_stack_on, torch_chain_anomaly,
                      max(1, n // 200), 100))
    if args.oar_only:  # the --baseline subprocess: oar's numbers as JSON
        print(json.dumps({name: best_ns(fo, number, r, per) for name, fo, _, number, per in cases}))
        return
    base = {}
    if args.baseline:
        base = _oar_only(args, args.baseline)
    if args.out:
        _machine.tee(args.out)
        print(f"# {time.strftime('%Y-%m-%d')}: {_machine.command('benchmarks/python_overhead.py')}")
    print(_machine.describe())
    print(f"oar {oar.__version__} vs torch {torch.__version__}, Python {sys.version.split()[0]}; "
          f"best of {r} repeats")
    head = f"{'case':34s} {'oar ns':>10s} {'torch ns':>10s} {'oar/torch':>10s}"
    print(head + (f" {'base ns':>10s} {'oar/base':>9s}" if base else ""))
    for name, fo, ft, number, per in cases:
        to, tt = best_ns_pair(fo, ft, number, r, per)
        line = f"{name:34s} {to:10.1f} {tt:10.1f} {to / tt:10.2f}"
        if name in base:
            line += f" {base[name]:10.1f} {to / base[name]:9.2f}"
        print(line)
    if args.baseline:  # the baseline again, after: both sides see the same machine
        again = _oar_only(args, args.baseline)
        print("baseline after:", ", ".join(f"{k} {v:.1f}" for k, v in again.items()))
    if args.baseline and args.rounds:
        here = os.path.dirname(os.path.dirname(os.path.abspath(oar.__file__)))
        ratios = {}
        for _ in range(args.rounds):
            mine, theirs = _oar_only(args, here), _oar_only(args, args.baseline)
            for k in mine:
                ratios.setdefault(k, []).append(mine[k] / theirs[k])
        print(f"in turn, {args.rounds} rounds (a process of this build, then one of the "
              "baseline): oar/base")
        for k, v in ratios.items():
            print(f"{k:34s} median {statistics.median(v):5.2f}   by round "
                  + " ".join(f"{x:.2f}" for x in v))


def _flag_names():
    try:
        oar.get_flags("FLAGS_record_forward_stack")
        return ["FLAGS_record_forward_stack"]
    except Exception:
        return []


def _oar_only(args, pythonpath):
    """The oar cases' best ns, {case: ns}, of the oar on `pythonpath`, in a process."""
    env = dict(os.environ, PYTHONPATH=pythonpath)
    out = subprocess.run([sys.executable, __file__, "--oar-only", "--number", str(args.number),
                          "--repeat", str(args.repeat)], env=env, capture_output=True, text=True,
                         check=True, cwd="/tmp")
    return json.loads(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
