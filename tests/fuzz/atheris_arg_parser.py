#!/usr/bin/env python3
"""An atheris (libFuzzer) target for the Python argument parsing of the op bindings.

    pip install atheris
    cd /tmp && python3 "$REPO"/tests/fuzz/atheris_arg_parser.py --iterations 20000
    cd /tmp && python3 "$REPO"/tests/fuzz/atheris_arg_parser.py -max_total_time=600 corpus_dir/

Each input picks a function (every oar._C op, its public oar.<op>, oar.to_tensor and
the creation functions) and fuzzed Python values -- ints of every size, floats incl.
nan/inf, strings, bytes, None, bools, nested lists and tuples, dicts, numpy arrays,
dtypes and small tensors -- as positional and keyword arguments. A result or a clean
typed exception (fuzz_errors.py) is fine; anything else (SystemError, a leaked C++
message, an empty message, a crash, a hang > 10 s) is a finding, which libFuzzer
reports with the input that triggered it (replay: run this script with that file).
Other arguments are passed to libFuzzer (-max_len, -timeout, corpus directories).
"""
import atexit
import os
import re
import sys

import atheris

with atheris.instrument_imports():  # coverage of oar's Python layer (wrappers, to_tensor)
    import numpy as np
    import oar

from fuzz_errors import libfuzzer_argv, unclear  # noqa: E402

OPS = sorted(n for n in dir(oar._C) if not n.startswith("_") and callable(getattr(oar._C, n))
             and n not in ("Tensor", "HookHandle", "seed", "set_flags", "backward", "grad",
                           "jacobian", "hessian"))
FUNCS = ([getattr(oar._C, n) for n in OPS] + [getattr(oar, n) for n in OPS if hasattr(oar, n)] +
         [oar.to_tensor, oar.zeros, oar.ones, oar.full, oar.arange, oar.linspace, oar.eye,
          oar.split, oar.stack, oar.gather, oar.flatten, oar.where, oar.nonzero, oar.cast])
KEYWORDS = ["x", "y", "axis", "axes", "shape", "dtype", "value", "keepdim", "starts", "ends",
            "strides", "perm", "index", "condition", "scale", "bias", "data", "place",
            "stop_gradient", "start", "end", "step", "fill_value", "num_or_sections", "name",
            "transpose_x", "min", "max", "seed", "mean", "std", "as_tuple", "zz"]
TENSORS = [oar.to_tensor(v, dtype=d) for v, d in [
    (1.5, "float32"), ([1.0, -2.0], "float64"), ([[1, 2], [3, 4]], "int64"), ([True], "bool"),
    ([], "float32"), (np.zeros((2, 0)), "float16"), ([[0.5]], "bfloat16"), (3, "int32")]]
DTYPES = [oar.float32, oar.float64, oar.int64, oar.bool, oar.bfloat16, "float16", "int32"]


def value(fdp, depth=0):
    kind = fdp.ConsumeIntInRange(0, 15 if depth < 3 else 9)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return fdp.ConsumeIntInRange(-8, 8)
    if kind == 3:
        return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 10))  # up to 2**80: overflow paths
    if kind == 4:
        return fdp.ConsumeFloat()  # nan, inf, denormals, huge
    if kind == 5:
        return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 8))
    if kind == 6:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 4))
    if kind == 7:
        return fdp.PickValueInList(TENSORS)
    if kind == 8:
        return fdp.PickValueInList(DTYPES)
    if kind == 9:
        return fdp.ConsumeRegularFloat()
    n = fdp.ConsumeIntInRange(0, 4)
    items = [value(fdp, depth + 1) for _ in range(n)]
    if kind in (10, 11, 12):
        return items
    if kind == 13:
        return tuple(items)
    if kind == 14:
        return {str(i): v for i, v in enumerate(items)}
    try:
        return np.asarray(items)
    except Exception:  # noqa: BLE001 - ragged: numpy refuses, use the list
        return items


def test_one_input(data):
    fdp = atheris.FuzzedDataProvider(data)
    f = fdp.PickValueInList(FUNCS)
    args = [value(fdp) for _ in range(fdp.ConsumeIntInRange(0, 6))]
    kwargs = {fdp.PickValueInList(KEYWORDS): value(fdp) for _ in range(fdp.ConsumeIntInRange(0, 3))}
    try:
        f(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - classified below
        why = unclear(e)
        if why:
            # One report per (function, exception type, message shape); by default the run
            # goes on, so that one wrapper's bug does not hide the others.
            sig = (f.__qualname__, type(e).__name__, re.sub(r"'[^']*'|\d+", "_", str(e))[:60])
            if sig not in FINDINGS:
                FINDINGS[sig] = 1
                print(f"\nFINDING #{len(FINDINGS)}: {getattr(f, '__module__', '')}.{f.__name__}"
                      f"(*{args!r}, **{kwargs!r}) -> {why}", file=sys.stderr, flush=True)
            if STOP_ON_FINDING:
                raise


FINDINGS = {}
STOP_ON_FINDING = False


def _summary():
    print(f"\natheris_arg_parser: {len(FINDINGS)} distinct finding(s)", file=sys.stderr, flush=True)
    if FINDINGS:
        os._exit(1)


def main():
    global STOP_ON_FINDING
    argv = list(sys.argv)
    if "--stop-on-finding" in argv:  # libFuzzer's usual mode: stop, write the crash input
        argv.remove("--stop-on-finding")
        STOP_ON_FINDING = True
    atexit.register(_summary)
    # A huge shape must fail with MemoryError, not swap: cap the address space, and
    # let libFuzzer's own RSS limit sit above it.
    argv = libfuzzer_argv(argv, 16384)
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
