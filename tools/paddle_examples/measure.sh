#!/usr/bin/env bash
# Measure how many of Paddle's documented examples run unchanged on oar.
# Usage (from the repository root):
#   tools/paddle_examples/measure.sh [--doc]
# Environment: PADDLE_PYTHON  interpreter with paddlepaddle (required)
#              OAR_PYTHON     interpreter that imports oar (default python3; set PYTHONPATH for a work tree)
#              JOBS, TIMEOUT  concurrent examples (2) and seconds per example (20)
set -euo pipefail
cd "$(dirname "$0")/../.."
PADDLE_PYTHON=${PADDLE_PYTHON:?set PADDLE_PYTHON to an interpreter with paddlepaddle}
OAR_PYTHON=${OAR_PYTHON:-python3}
JOBS=${JOBS:-2}
TIMEOUT=${TIMEOUT:-20}
OUT=build/paddle_examples
export OMP_NUM_THREADS=1 MPLBACKEND=Agg
mkdir -p "$OUT"
"$PADDLE_PYTHON" tools/paddle_examples/extract.py --out "$OUT/examples.json"
nice "$PADDLE_PYTHON" tools/paddle_examples/run.py --target paddle --examples "$OUT/examples.json" \
  -j "$JOBS" --timeout "$TIMEOUT"
"$OAR_PYTHON" -c "
import json
d = json.load(open('$OUT/results_paddle.json'))
open('$OUT/ran_on_paddle.txt', 'w').write('\n'.join(r['id'] for r in d['results'] if r['status'] == 'ok'))"
nice "$OAR_PYTHON" tools/paddle_examples/run.py --target oar --examples "$OUT/examples.json" \
  --only "$OUT/ran_on_paddle.txt" -j "$JOBS" --timeout "$TIMEOUT"
if [ "${1:-}" = "--doc" ]; then
  "$OAR_PYTHON" tools/paddle_examples/report.py --dir "$OUT" --doc docs/paddle_examples.md
else
  "$OAR_PYTHON" tools/paddle_examples/report.py --dir "$OUT"
fi
