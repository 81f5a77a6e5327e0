"""Per-call overhead of binding candidates vs. torch, for a tiny `add` op.

Run via ./run.sh (builds the extension modules into ./build first).
"""
import argparse
import importlib
import platform
import sys
import timeit

import torch

CANDIDATES = [
    ("pybind11", "bind_pybind11"),
    ("nanobind", "bind_nanobind"),
    ("raw C API", "bind_raw"),
    ("raw, no freelist", "bind_raw_nofreelist"),
]
OPS = [  # (label, statement); `add`/`matmul` are pre-bound module functions
    ("add(a, b)", "add(a, b)"),
    ("a + b", "a + b"),
    ("a.add(b)", "a.add(b)"),
    ("add(x=a, y=b)", "add(x=a, y=b)"),
    ("matmul(a, b)", "matmul(a, b)"),
    ("matmul(a, b, transpose_x=True)", "matmul(a, b, transpose_x=True)"),
]


def check(name, m):
    a, b = m.Tensor(1.0, [1]), m.Tensor(2.0, [1])
    for r in (m.add(a, b), a + b, a.add(b), m.add(x=a, y=b), m.add(a, y=b)):
        assert r.value == 3.0 and list(r.shape) == [1], name
    assert m.matmul(a, b, transpose_x=True).value == 2.0
    assert a.__add__(None) is NotImplemented
    try:
        m.add(a, None)
    except TypeError as e:
        return str(e).replace("\n", " | ")
    raise AssertionError("no TypeError")


def check_raw_errors(m):
    a = m.Tensor(1.0, [1])
    cases = {
        "m.add(a, None)": "add(): argument 'y' (position 1) must be Tensor, but got NoneType",
        "m.add(None, a)": "add(): argument 'x' (position 0) must be Tensor, but got NoneType",
        "m.add(a, y=1.5)": "add(): argument 'y' (position 1) must be Tensor, but got float",
        "m.matmul(a, a, transpose_x=1)":
            "matmul(): argument 'transpose_x' (position 2) must be bool, but got int",
        "m.add(a)": "add() missing required argument 'y' (position 1)",
        "m.add(a, a, a)": "add() takes at most 2 argument(s) (3 given)",
        "m.add(a, x=a)": "add() got multiple values for argument 'x'",
        "m.add(a, z=a)": "add() got an unexpected keyword argument 'z'",
        "a.add(3)": "add(): argument 'y' (position 0) must be Tensor, but got int",
    }
    for expr, msg in cases.items():
        try:
            eval(expr)
        except TypeError as e:
            assert str(e) == msg, (expr, str(e))
        else:
            raise AssertionError(expr)
    # keyword names that are not interned (built at runtime) still match
    assert m.add(**{"".join(["x"]): a, "y": a}).value == 2.0
    # no reference leaks on success or error paths
    before = sys.getrefcount(a), sys.getrefcount(m.Tensor), sys.getrefcount(None)
    for _ in range(1000):
        m.add(a, a), a + a, a.add(y=a), m.matmul(a, a, transpose_x=True)
        for expr in cases:
            try:
                eval(expr)
            except TypeError:
                pass
    assert before == (sys.getrefcount(a), sys.getrefcount(m.Tensor), sys.getrefcount(None))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--number", type=int, default=300_000, help="calls per timing")
    ap.add_argument("--repeat", type=int, default=7, help="rounds; best round is kept")
    args = ap.parse_args()

    cases = {}  # key -> (stmt, globals)
    t_a, t_b = torch.tensor([1.0]), torch.tensor([2.0])
    g_a, g_b = torch.tensor([1.0], requires_grad=True), torch.tensor([2.0], requires_grad=True)
    cases["torch", "a + b"] = ("a + b", {"a": t_a, "b": t_b})
    cases["torch", "a + b (requires_grad)"] = ("a + b", {"a": g_a, "b": g_b})
    cases["torch", "torch.add(a, b)"] = ("torch.add(a, b)", {"a": t_a, "b": t_b, "torch": torch})
    cases["python", "empty loop (timeit floor)"] = ("pass", {})

    print("error message for add(a, None):")
    for name, modname in CANDIDATES:
        m = importlib.import_module(modname)
        print(f"  {name:17s} {check(name, m)[:150]}")
        g = {"a": m.Tensor(1.0, [1]), "b": m.Tensor(2.0, [1]), "add": m.add, "matmul": m.matmul}
        for label, stmt in OPS:
            cases[name, label] = (stmt, g)
    check_raw_errors(importlib.import_module("bind_raw"))
    print("raw C API error messages: OK\n")

    best = {k: float("inf") for k in cases}
    for _ in range(args.repeat):  # interleave rounds so drift hits every case alike
        for k, (stmt, g) in cases.items():
            t = timeit.timeit(stmt, globals=g, number=args.number)
            best[k] = min(best[k], t / args.number * 1e9)

    ref = best["torch", "a + b"]
    print(f"Python {platform.python_version()}, torch {torch.__version__}, "
          f"{args.number} calls x best of {args.repeat}; ns per call (ratio to torch `a + b`)\n")
    names = [n for n, _ in CANDIDATES]
    w = 31
    print(f"{'op':{w}s}" + "".join(f"{n:>19s}" for n in names))
    for label, _ in OPS:
        cells = (f"{best[n, label]:7.0f} ({best[n, label] / ref:.3f}x)" for n in names)
        print(f"{label:{w}s}" + "".join(f"{c:>19s}" for c in cells))
    print()
    for (who, label), v in best.items():
        if who in ("torch", "python"):
            print(f"{who + ' ' + label:{w + 19}s}{v:7.0f} ({v / ref:.3f}x)")
    raw = importlib.import_module("bind_raw")
    kernel = min(raw._kernel_ns(args.number) for _ in range(args.repeat))
    print(f"{'C++ add() kernel alone, no Python':{w + 19}s}{kernel:7.0f} ({kernel / ref:.3f}x)")
    print(f"\nbudget: 0.8 x torch `a + b` = {0.8 * ref:.0f} ns for the whole oar `a + b`")


if __name__ == "__main__":
    main()
