"""A bounded, seeded run of the op fuzzer (tests/fuzz/fuzz_ops.py): 3000 random calls
of every public op against PyTorch, in child processes. Fails on any crash, stall,
value or gradient mismatch or unclear error; the failure message holds the summary
with a one-line reproducer per finding. The long run is documented in
tests/fuzz/README.md."""
import os
import subprocess
import sys

FUZZ = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fuzz",
                    "fuzz_ops.py")


def test_fuzz_smoke():
    # Run from /tmp so that the workers import the installed oar, as the suite does.
    p = subprocess.run([sys.executable, FUZZ, "--calls", "3000", "--seed", "1", "--jobs", "2",
                        "--timeout", "10", "--list", "0"],
                       cwd="/tmp", capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, f"fuzzer found failures:\n{p.stdout}\n{p.stderr[-3000:]}"


ALLOWLIST_CHECK = """
import allowlist, gen, oar, worker
keys = set(gen.Generator(oar).keys)
matched = {worker.MISMATCH, worker.GRAD, worker.OAR_RAISES, worker.TORCH_RAISES}
for d in allowlist.DIFFERENCES:
    assert len(d.why.split()) >= 15, f"{d.name!r}: its reason is too short: {d.why!r}"
    assert d.outcomes and d.outcomes <= matched, f"{d.name!r}: outcomes {d.outcomes}"
    assert d.keys is None or d.keys & keys, f"{d.name!r}: no fuzzed op among {d.keys}"
print(len(allowlist.DIFFERENCES))
"""


def test_allowlist_rules():
    # tests/fuzz/allowlist/ checks on import that every rule of its modules is in
    # DIFFERENCES once, under a name of its own; here each must also give a reason, and
    # reach a fuzzed op with an outcome that worker.classify looks up.
    p = subprocess.run([sys.executable, "-c", ALLOWLIST_CHECK], cwd="/tmp",
                       env=dict(os.environ, PYTHONPATH=os.path.dirname(FUZZ)),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert int(p.stdout.split()[-1]) > 0
