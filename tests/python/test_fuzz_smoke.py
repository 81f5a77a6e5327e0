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
