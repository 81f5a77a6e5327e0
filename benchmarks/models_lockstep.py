"""benchmarks/models.py's rows with oar and PyTorch in lockstep: a ratio that a shared
machine's slow phases fall on both sides of. Not a test.

    python3 benchmarks/models_lockstep.py [--only ROW,ROW] [--blocks 15] [--timed 2]
                                          [--warmup 3] [--out benchmarks/results/<record>.md]

On a shared VM one process's median step moves by 10-40% from run to run (a
neighbour's load, the host's clocks), and models.py's rounds, one framework's process
after the other's, can each fall in a different phase. Here both frameworks' workers
(model_zoo/worker.py in its lockstep mode, 2 threads each) are alive at once and take
turns: a block is one untimed step (the other process has just run and evicted this
one's data from the caches) and then --timed timed steps (5x as many inference calls),
and the blocks alternate oar, PyTorch, PyTorch, oar, ... while the waiting process sleeps
on its input. Each pair of blocks gives a ratio (oar's median step in its block over
PyTorch's in the adjacent one); the table shows its median and quartiles over --blocks
pairs, each framework's median step over all its timed steps, in how many pairs oar was
the faster, and each process's peak RSS; under it, the geometric mean of the rows'
median ratios. Ratios below 1: oar is faster. The models, data and steps are models.py's
(model_zoo/); OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset (benchmarks/_env.py). The
output also goes to --out when given.
"""

import argparse
import math
import os
import statistics
import sys

import _env  # thread counts and OpenBLAS overrides, before the frameworks
import _lockstep
import _machine

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "model_zoo", "worker.py")
sys.path.insert(0, os.path.join(HERE, "model_zoo"))
import workloads  # noqa: E402

FWS = ("oar", "torch")


def measure(row, args):
    """(per-framework step times, per-pair ratios, final results) of one row."""
    timed = args.timed * (5 if workloads.ROWS[row].mode == "infer" else 1)
    argvs = {fw: [WORKER, fw, row, "lockstep", str(args.warmup)] for fw in FWS}
    pairs, final = _lockstep.run_pairs(argvs, args.blocks, timed, list)
    times = {fw: [t for pair in pairs for t in pair[fw]] for fw in FWS}
    ratios = [statistics.median(p["oar"]) / statistics.median(p["torch"]) for p in pairs]
    return times, ratios, final


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", help="comma list of rows: " + ",".join(workloads.ROWS))
    p.add_argument("--blocks", type=int, default=15, help="pairs of blocks (default 15)")
    p.add_argument("--timed", type=int, default=2, help="timed training steps a block (default 2)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps first (default 3)")
    p.add_argument("--out", help="also write the output here (a record in benchmarks/results/)")
    args = p.parse_args()
    if args.blocks < 1 or args.timed < 1:
        p.error("--blocks and --timed must be at least 1")
    rows = workloads.rows_named(args.only, p.error)
    if args.out:
        _machine.tee(args.out)
    _machine.header(
        "benchmarks/models_lockstep.py: oar and PyTorch in lockstep",
        "benchmarks/models_lockstep.py",
        _env.UNSET_NOTES,
    )
    print(
        f"# {args.blocks} pairs of blocks a row, a block: 1 untimed and {args.timed} timed "
        f"training steps ({5 * args.timed} inference calls); 2 threads each; times in ms\n"
    )
    print(
        "| workload | oar ms | torch ms | oar/torch (median of pairs) | quartiles "
        "| pairs oar faster | oar MiB | torch MiB |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    versions, failures, medians = {}, [], []
    for row in rows:
        try:
            times, ratios, final = measure(row, args)
        except RuntimeError as e:
            failures.append(f"# {row}: {e}")
            continue
        versions.update({fw: final[fw]["version"] for fw in FWS})
        medians.append(statistics.median(ratios))
        q = (
            statistics.quantiles(ratios, n=4, method="inclusive")
            if len(ratios) > 1
            else [ratios[0]] * 3
        )
        cells = [f"{statistics.median(times[fw]) * 1e3:.2f}" for fw in FWS]
        cells += [f"{statistics.median(ratios):.2f}", f"{q[0]:.2f}-{q[2]:.2f}"]
        cells += [f"{sum(r < 1 for r in ratios)}/{len(ratios)}"]
        cells += [f"{final[fw]['peak_mib']:.0f}" for fw in FWS]
        print(f"| {workloads.ROWS[row].label} | " + " | ".join(cells) + " |", flush=True)
    print()
    if medians:
        geomean = math.exp(sum(math.log(r) for r in medians) / len(medians))
        print(f"Geometric mean of the rows' oar/torch: {geomean:.2f} over {len(medians)} rows\n")
    for f in failures:
        print(f)
    print("# versions: " + ", ".join(f"{fw} {v}" for fw, v in sorted(versions.items())))


if __name__ == "__main__":
    main()
