"""Process set-up shared by the kernel benchmarks (kernels.py, amp.py); import it
before any framework: OpenMP sizes its pool, and OpenBLAS reads its overrides,
when they are loaded.

THREADS: the --threads value on the command line (default 2), exported as
OMP/MKL/OPENBLAS_NUM_THREADS. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, set on some
machines, override OpenBLAS's CPU detection and cache blocking (a large factor
for GEMM); they are unset for this process and its subprocesses, and
UNSET_NOTES says what they were, for the output.
"""

import os
import sys


def _threads_from_argv():
    for i, a in enumerate(sys.argv):
        if a == "--threads" and i + 1 < len(sys.argv):
            return int(sys.argv[i + 1])
        if a.startswith("--threads="):
            return int(a.split("=", 1)[1])
    return 2


THREADS = _threads_from_argv()
UNSET_NOTES = []
for _v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    UNSET_NOTES.append(f"unsetting {_v} (was: {os.environ.get(_v, '<unset>')})")
    os.environ.pop(_v, None)
for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_v] = str(THREADS)


def oar_environment():
    """The environment `import oar` gives its own process (python/oar/__init__.py), for
    the C++ program, which links liboar without that import: libgomp's spin count
    (GOMP_SPINCOUNT=1000, unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set; with
    libgomp's default, idle OpenMP threads spin and a loaded machine makes a forward
    pass many times slower). libgomp reads it when it is loaded, before liboar; mimalloc's
    settings liboar makes itself (Note [mimalloc keeps a running loop's memory])."""
    env = dict(os.environ)
    if "OMP_WAIT_POLICY" not in env and "GOMP_SPINCOUNT" not in env:
        env["GOMP_SPINCOUNT"] = "1000"
    return env
