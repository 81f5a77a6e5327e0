#!/usr/bin/env python3
"""Records what PaddlePaddle prints for the programs of tests/paddle_corpus/ (their
`<name>.out` files), which tests/python/test_paddle_corpus.py then requires oar to
print. Runs each program in a fresh Paddle interpreter from a scratch directory.

    python3 tools/paddle_examples/corpus_expected.py --paddle-python "$PADDLE_PYTHON" [name ...]
"""

import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "paddle_corpus")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--paddle-python",
        default=os.environ.get("PADDLE_PYTHON"),
        required="PADDLE_PYTHON" not in os.environ,
        help="interpreter with paddlepaddle installed (default: $PADDLE_PYTHON)",
    )
    ap.add_argument("names", nargs="*", help="programs to record (default: all)")
    args = ap.parse_args(argv)
    names = args.names or sorted(f[:-3] for f in os.listdir(CORPUS) if f.endswith(".py"))
    env = dict(os.environ, OMP_NUM_THREADS="1", GLOG_minloglevel="2")
    failed = []
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run(
                [args.paddle_python, os.path.join(CORPUS, name + ".py")],
                cwd=tmp,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
        if r.returncode != 0:
            failed.append(name)
            print(f"{name}: failed on Paddle\n{r.stderr[-2000:]}", file=sys.stderr)
            continue
        with open(os.path.join(CORPUS, name + ".out"), "w") as f:
            f.write(r.stdout)
        print(f"{name}: {len(r.stdout.splitlines())} lines")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
