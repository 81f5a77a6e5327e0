#!/usr/bin/env python3
"""Fuzzes every public op of oar against PyTorch, in child processes.

    python3 tests/fuzz/fuzz_ops.py --calls 3000 --seed 1 --jobs 2          # the smoke run
    python3 tests/fuzz/fuzz_ops.py --calls 1000000 --seed 7 --jobs 2 --log /tmp/fuzz.jsonl
    python3 tests/fuzz/fuzz_ops.py --calls 20000 --ops slice,strided_slice,getitem

Call number i of seed S is a pure function of (S, i) (gen.py): every op of
src/oar/ops/*.yaml (its public oar.<op>, its in-place oar.<op>_, the *_grad helpers
through oar._C) and the Python-level functions of pyapi.py, with random shapes
(0-d, empty, huge-but-empty), dtypes, views, attributes and special values, and
sometimes an argument of the wrong type.

The parent never imports torch and never runs a call: it hands batches of ids to
--jobs workers (worker.py), forked from a forkserver that has imported torch, oar
and the oracle once, so a restart after a crash costs milliseconds, not seconds.
A worker stores the id of the call it is about to run in shared memory; when the
worker dies (crash) or that id stops moving for --timeout seconds (stall), the
parent knows the call, re-creates it from (seed, id) for its reproducer, starts a
new worker and carries on after it.

Outcomes (worker.py): ok, both raise, oar raises (torch accepts), torch raises
(oar accepts), wrong type rejected / accepted, documented (allowlist/), and the
failures -- value mismatch, grad mismatch, untyped error, crash, stall -- which
make the exit status 1. Each failure is listed with a one-line reproducer.
"""
import argparse
import collections
import json
import multiprocessing as mp
import os
import re
import subprocess
import sys
import time
from multiprocessing.connection import wait

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

FAILURES = ["value mismatch", "grad mismatch", "untyped error", "crash", "stall",
            "fuzzer error"]
# A stall while torch computes the expected result is the oracle's: reported, not failed.
ORACLE_STALL = "oracle stall"
COLUMNS = ["ok", "not compared", "both raise", "oar raises", "torch raises", "wrong type rejected",
           "wrong type accepted", "documented", ORACLE_STALL] + FAILURES
SHORT = {"ok": "ok", "not compared": "n/c", "both raise": "both", "oar raises": "oar-r", "torch raises": "torch-r",
         "wrong type rejected": "wrong-r", "wrong type accepted": "wrong-a",
         "documented": "doc", ORACLE_STALL: "oracle", "value mismatch": "VALUE", "grad mismatch": "GRAD",
         "untyped error": "UNTYPED", "crash": "CRASH", "stall": "STALL",
         "fuzzer error": "FUZZER"}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=3000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--ops", default="", help="comma-separated op keys (default: all)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per call before a stall")
    p.add_argument("--batch", type=int, default=200, help="calls per batch handed to a worker")
    p.add_argument("--no-pyapi", action="store_true", help="only the ops of src/oar/ops/")
    p.add_argument("--list", type=int, default=3,
                   help="reproducers printed per group of similar failures (0: all)")
    p.add_argument("--log", default="", help="write every failure as a JSON line here")
    p.add_argument("--replay", type=int, default=None, metavar="ID",
                   help="run call ID of --seed in this process and print its outcome")
    p.add_argument("--self-test", action="store_true",
                   help="workers segfault at call 5, stall at call 9 and stall in torch at "
                        "call 13: checks the detection")
    p.add_argument("--no-confirm", action="store_true",
                   help="do not re-run crash/stall reproducers in a fresh interpreter")
    return p.parse_args(argv)


def _worker(*a):
    import worker  # preloaded by the forkserver; the parent itself never imports torch
    worker.main(*a)


class Slot:
    def __init__(self, ctx, index, args, current, phase):
        self.index = index
        self.conn, child = ctx.Pipe()
        phase[index] = 0
        self.proc = ctx.Process(target=_worker, daemon=True,
                                args=(child, current, phase, index, args.seed, args.ops_list,
                                      not args.no_pyapi, args.self_test))
        self.proc.start()
        child.close()
        self.ready, self.batch, self.last, self.since = False, None, -1, time.monotonic()


def run(args):
    ctx = mp.get_context("forkserver")
    # The forkserver imports torch, oar and the oracle once; each worker is a fork of it.
    ctx.set_forkserver_preload(["worker"])
    current = ctx.RawArray("q", args.jobs)
    phase = ctx.RawArray("b", args.jobs)  # 1 while a worker's oracle computes
    for k in range(args.jobs):
        current[k] = -1
    pending = collections.deque((lo, min(lo + args.batch, args.calls))
                                for lo in range(0, args.calls, args.batch))
    counts, findings, oracle_stalls = collections.Counter(), [], []
    slots = [Slot(ctx, k, args, current, phase) for k in range(args.jobs)]
    done_calls, startup_failures, t0 = 0, 0, time.monotonic()
    last_report = t0
    regen = None

    def call_of(i):
        nonlocal regen
        if regen is None:
            import oar
            import gen
            regen = gen.Generator(oar, args.ops_list, not args.no_pyapi, args.seed)
        return regen.make(i)

    def lost(s, outcome, detail):
        """The worker of slot s died or stalled at its current call: record, skip it, restart."""
        nonlocal done_calls, startup_failures
        i = current[s.index]
        if s.batch and i >= 0:
            call = call_of(i)
            counts[(call.key, outcome)] += 1
            (oracle_stalls if outcome == ORACLE_STALL else findings).append(
                (i, call.key, outcome, detail, call.repro()))
            done_calls += 1
            if i + 1 < s.batch[1]:
                pending.appendleft((i + 1, s.batch[1]))
            if i > s.batch[0]:  # their results died with the worker: run them again
                pending.appendleft((s.batch[0], i))
        else:  # died before taking a call, e.g. `import oar` while oar is being reinstalled
            startup_failures += 1
            if s.batch:
                pending.appendleft(s.batch)
            if startup_failures > 30:
                raise SystemExit(f"workers keep dying before running a call ({detail})")
            time.sleep(min(10, 2 * startup_failures))
        current[s.index] = -1
        slots[s.index] = Slot(ctx, s.index, args, current, phase)

    while pending or any(s.batch for s in slots):
        for conn in wait([s.conn for s in slots], timeout=0.2):
            s = next(s for s in slots if s.conn is conn)
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                continue  # the death is handled below
            if msg[0] == "ready":
                s.ready = True
            elif msg[0] == "done":
                _, lo, hi, c, f = msg
                counts.update(c)
                findings.extend(f)
                done_calls += hi - lo
                s.batch = None
        now = time.monotonic()
        for s in list(slots):
            if s.proc.exitcode is not None:
                code = s.proc.exitcode
                lost(s, "crash", f"signal {-code}" if code < 0 else f"exit status {code}")
                continue
            if s.batch:
                i = current[s.index]
                if i != s.last:
                    s.last, s.since = i, now
                elif now - s.since > args.timeout:
                    in_torch = phase[s.index] == 1  # read before the kill
                    s.proc.kill()
                    s.proc.join()
                    if in_torch:
                        lost(s, ORACLE_STALL, f"torch computed for over {args.timeout:g} s")
                    else:
                        lost(s, "stall", f"no progress in {args.timeout:g} s")
                    continue
            if s.ready and not s.batch and pending:
                s.batch = pending.popleft()
                s.last, s.since = -1, now
                s.conn.send(s.batch)
        if now - last_report > 30:
            last_report = now
            rate = done_calls / (now - t0)
            print(f"  ... {done_calls}/{args.calls} calls, {rate:.0f}/s, "
                  f"{sum(1 for f in findings)} failures", file=sys.stderr, flush=True)
    for s in slots:
        s.conn.send(None)
    for s in slots:
        s.proc.join(5)
    return counts, findings, oracle_stalls, time.monotonic() - t0


def confirm(repro, timeout):
    """Re-runs a reproducer in a fresh interpreter (from /tmp: the installed oar)."""
    code = repro[len('python3 -c "'):-1].replace('\\"', '"')
    try:
        p = subprocess.run([sys.executable, "-c", code], cwd="/tmp", capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "reproduced: stalls"
    if p.returncode < 0:
        return f"reproduced: signal {-p.returncode}"
    return f"NOT reproduced standalone (exit {p.returncode})"


def report(args, counts, findings, oracle_stalls, secs):
    total = sum(counts.values())
    by_outcome = collections.Counter()
    by_key = collections.defaultdict(collections.Counter)
    docs = collections.Counter()
    for (key, outcome), n in counts.items():
        if outcome.startswith("documented"):
            docs[outcome[len("documented: "):]] += n
            outcome = "documented"
        by_outcome[outcome] += n
        by_key[key][outcome] += n
    print(f"\n{total} calls, seed {args.seed}, {args.jobs} jobs, {secs:.1f} s "
          f"({total / max(secs, 1e-9):.0f} calls/s)\n")
    print("by outcome:")
    for o in COLUMNS:
        if by_outcome[o]:
            print(f"  {o:22s} {by_outcome[o]:9d}")
    if docs:
        print("documented differences (tests/fuzz/allowlist/):")
        for name, n in docs.most_common():
            print(f"  {name:40s} {n:9d}")
    cols = [o for o in COLUMNS if by_outcome[o]]
    print("\nby op:")
    print(f"  {'op':24s}" + "".join(f"{SHORT[o]:>9s}" for o in cols))
    for key in sorted(by_key):
        print(f"  {key:24s}" + "".join(f"{by_key[key][o] or '.':>9}" for o in cols))
    if args.log:
        with open(args.log, "w") as f:
            for i, key, outcome, detail, repro in findings:
                f.write(json.dumps({"id": i, "op": key, "outcome": outcome, "detail": detail,
                                    "repro": repro}) + "\n")
    if oracle_stalls:
        print(f"\n{len(oracle_stalls)} call(s) where torch, the oracle, stalled (not failures; "
              f"oar's own part of each call had finished):")
        for i, key, _, detail, repro in oracle_stalls[:max(args.list, 1) * 3]:
            print(f"  #{i} {key}: {detail}\n    {repro}")
    if not findings:
        print("\nno failures")
        return
    groups = collections.defaultdict(list)
    for fnd in sorted(findings):
        i, key, outcome, detail, repro = fnd
        sig = re.sub(r"-?\d+(\.\d+)?(e-?\d+)?|nan|inf", "N", detail or "")
        sig = re.sub(r"'\w+' object", "'T' object", sig)[:90]  # one group per message shape
        groups[(outcome, key, sig)].append(fnd)
    print(f"\n{len(findings)} failures in {len(groups)} groups "
          f"(outcome / op / message with numbers blanked):")
    confirmed = 0
    for (outcome, key, sig), items in sorted(groups.items(), key=lambda g: FAILURES.index(g[0][0])):
        print(f"\n[{outcome}] {key}: {len(items)} call(s); e.g. {items[0][3]}")
        shown = items if args.list == 0 else items[:args.list]
        for i, _, _, detail, repro in shown:
            note = ""
            if outcome in ("crash", "stall") and not args.no_confirm and confirmed < 10:
                confirmed += 1
                note = "  # " + confirm(repro, args.timeout * 2)
            print(f"  #{i}: {detail}{note}\n    {repro}")
        if len(items) > len(shown):
            print(f"  ... and {len(items) - len(shown)} more" +
                  (f" (all in {args.log})" if args.log else " (--list 0 or --log FILE)"))


def main(argv=None):
    args = parse_args(argv)
    args.ops_list = [o for o in args.ops.split(",") if o] or None
    if args.replay is not None:  # debugging one call, with tracebacks
        import oar
        import gen
        import pyapi
        import worker
        worker.G_PY.update(pyapi.TABLE)
        call = gen.Generator(oar, args.ops_list, not args.no_pyapi, args.seed).make(args.replay)
        print(call.repro())
        print(worker.classify(call))
        return 0
    counts, findings, oracle_stalls, secs = run(args)
    report(args, counts, findings, oracle_stalls, secs)
    return 1 if findings else 0


if __name__ == "__main__":
    # Run as `import fuzz_ops`, not __main__, so the forkserver and the workers refer to
    # the same module names as the parent.
    import fuzz_ops
    sys.exit(fuzz_ops.main())
