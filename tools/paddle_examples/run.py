"""Run the extracted examples on one side: real Paddle or oar standing in for it.

The worker imports `paddle` once (or installs the paddle->oar alias of shim.py and
imports it), then forks one child per example. The child starts its own process
group, moves to a scratch directory, sends its stdout/stderr (C level included) to
a file, and runs the example's top-level statements one by one; a bare expression prints
its repr, as at the doctest prompt.
The parent keeps `-j` children going, kills a child's group when it overruns the
timeout, and writes one JSON record per example:

    {"id", "status": "ok"|"error"|"timeout"|"crash", "error_type", "message",
     "missing", "line", "where", "stdout", "stderr"}

`missing` is the absent name for AttributeError / ImportError / ModuleNotFoundError
("paddle.linalg", "paddle.Tensor.to_sparse_coo"), written in Paddle's names;
`where` is the innermost frame of the library that raised ("oar/tensor/creation.py:to_tensor").
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import re
import signal
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract  # noqa: E402


def _paddle_name(name: str, target: str) -> str:
    """oar.nn.Linear -> paddle.nn.Linear (names as a Paddle user wrote them)."""
    if name == target or name.startswith(target + "."):
        return "paddle" + name[len(target) :]
    return name


def missing_name(exc: BaseException, target: str) -> str:
    """The name whose absence raised `exc`, in Paddle's spelling; '' if not a missing name."""
    if isinstance(exc, ModuleNotFoundError):
        return _paddle_name(exc.name or "", target)
    if isinstance(exc, ImportError):
        m = re.search(r"cannot import name '([^']+)' from '([^']+)'", str(exc))
        if m:
            return _paddle_name(f"{m.group(2)}.{m.group(1)}", target)
        return _paddle_name(exc.name or "", target)
    if isinstance(exc, AttributeError):
        name = getattr(exc, "name", None)
        obj = getattr(exc, "obj", None)
        if name is None:
            m = re.search(r"has no attribute '([^']+)'", str(exc))
            if not m:
                return ""
            name = m.group(1)
        if obj is None:
            m = re.search(
                r"^(?:module|type object|'?)\s*'?([\w.]+)'? (?:object )?has no attribute", str(exc)
            )
            owner = m.group(1) if m else "?"
            if owner in dir(__import__("builtins")) or owner == "NoneType":
                return ""
        elif isinstance(obj, type(sys)):
            owner = obj.__name__
        else:
            cls = obj if isinstance(obj, type) else type(obj)
            if cls.__module__ == "builtins":
                return ""  # an int where Paddle gives a Tensor: a behaviour difference
            owner = PUBLIC_NAMES.get(id(cls)) or f"{cls.__module__}.{cls.__qualname__}"
        owner = _paddle_name(owner, target)
        # oar's Tensor lives in oar._C / oar.framework; name it the way Paddle users do
        owner = re.sub(
            r"^(paddle\.)?(_C|framework|base\.core|eager)?\.?(\w+\.)*Tensor$",
            "paddle.Tensor",
            owner,
        )
        return f"{owner}.{name}"
    return ""


PUBLIC_NAMES: dict = {}  # id(class) -> its shortest public dotted name; filled before forking


def public_class_names(root) -> dict:
    """id(class) -> shortest public dotted name, over the modules reachable from `root`
    (so a missing method is reported on `oar.nn.Embedding`, not `oar.nn.layer.common.Embedding`)."""
    out, seen = {}, set()
    queue = [(root.__name__, root)]
    while queue:
        name, mod = queue.pop(0)
        if id(mod) in seen:
            continue
        seen.add(id(mod))
        for k, v in extract.public_attrs(mod):
            if isinstance(v, type(sys)):
                if getattr(v, "__name__", "").startswith(root.__name__ + "."):
                    queue.append((f"{name}.{k}", v))
            elif isinstance(v, type) and id(v) not in out:
                out[id(v)] = f"{name}.{k}"
    return out


def _where(tb, roots) -> str:
    """Innermost traceback frame inside the library (file relative to its package root)."""
    best = ""
    for frame, lineno in traceback.walk_tb(tb):
        fn = frame.f_code.co_filename
        for root in roots:
            if fn.startswith(root):
                best = f"{os.path.relpath(fn, os.path.dirname(root))}:{frame.f_code.co_name}"
    return best


def _child(ex, target, roots, res_path):
    os.setsid()
    # The example's working directory, inside the run's own: files it writes, and the
    # directory itself if the example is killed at its timeout, go with the run's.
    scratch = tempfile.mkdtemp(prefix="pex_", dir=os.path.dirname(res_path))
    os.chdir(scratch)
    out = os.open(
        os.path.join(os.path.dirname(res_path), os.path.basename(res_path) + ".out"),
        os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    )
    err = os.open(
        os.path.join(os.path.dirname(res_path), os.path.basename(res_path) + ".err"),
        os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    )
    os.dup2(out, 1)
    os.dup2(err, 2)  # warnings and C++ logs apart, so that printouts compare
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    sys.stdin = open(os.devnull)
    import builtins

    g = {"__name__": "__main__", "__builtins__": builtins}
    rec = {"id": ex.id, "status": "ok"}
    node = None
    try:
        for node in ast.parse(ex.code(), f"<example {ex.id}>").body:
            if isinstance(node, ast.Expr):
                # a bare expression shows its repr, as at the doctest prompt
                value = eval(compile(ast.Expression(node.value), f"<example {ex.id}>", "eval"), g)
                if value is not None:
                    print(repr(value))
            else:
                exec(compile(ast.Module([node], []), f"<example {ex.id}>", "exec"), g)
    except BaseException as e:  # noqa: BLE001 - the example's own failure is the measurement
        msg = str(e).strip().splitlines()
        rec.update(
            status="error",
            error_type=type(e).__name__,
            message=(msg[0] if msg else "")[:300],
            missing=missing_name(e, target),
            line=getattr(node, "lineno", 0),
            where=_where(e.__traceback__, roots),
        )
    try:
        sys.stdout.flush()
    except Exception:
        pass
    with open(res_path, "w") as f:
        json.dump(rec, f)
    shutil.rmtree(scratch, ignore_errors=True)
    os._exit(0)


def run(examples, target, jobs, timeout, workdir):
    if target == "oar":
        import shim

        shim.install("paddle", "oar")
    import numpy  # noqa: F401 - imported once, before the forks, like paddle
    import paddle

    try:
        import matplotlib

        matplotlib.use("Agg")
    except Exception:
        pass
    root_mod = sys.modules["oar" if target == "oar" else "paddle"]
    PUBLIC_NAMES.update(public_class_names(root_mod))
    roots = [os.path.dirname(os.path.abspath(root_mod.__file__))]
    version = getattr(paddle, "__version__", "?")
    pending = list(examples)
    running = {}
    results = {}
    workdir = os.path.abspath(workdir)
    os.makedirs(workdir, exist_ok=True)
    n = 0
    while pending or running:
        while pending and len(running) < jobs:
            ex = pending.pop(0)
            n += 1
            res = os.path.join(workdir, f"r{n}.json")
            sys.stdout.flush()
            pid = os.fork()
            if pid == 0:
                try:
                    _child(ex, target, roots, res)
                except BaseException:
                    with open(res + ".harness_error", "w") as f:
                        traceback.print_exc(file=f)
                finally:
                    os._exit(1)
            running[pid] = (ex, time.monotonic(), res)
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            now = time.monotonic()
            for p, (ex, t0, res) in list(running.items()):
                if now - t0 > timeout:
                    try:
                        os.killpg(p, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            time.sleep(0.005)
            continue
        if pid not in running:
            continue
        ex, t0, res = running.pop(pid)
        try:
            os.killpg(pid, signal.SIGKILL)  # leftovers (DataLoader workers, ...)
        except (ProcessLookupError, PermissionError):
            pass
        rec = None
        if os.path.exists(res):
            with open(res) as f:
                rec = json.load(f)
        if rec is None:
            if os.WIFSIGNALED(status) and time.monotonic() - t0 > timeout:
                rec = {
                    "id": ex.id,
                    "status": "timeout",
                    "error_type": "Timeout",
                    "message": f"over {timeout:g} s",
                }
            else:
                sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
                rec = {
                    "id": ex.id,
                    "status": "crash",
                    "error_type": "Crash",
                    "message": f"signal {sig}" if sig else f"exit {os.WEXITSTATUS(status)}",
                }
        rec["seconds"] = round(time.monotonic() - t0, 3)
        for stream, limit in (("stdout", 4000), ("stderr", 1000)):
            path = res + (".out" if stream == "stdout" else ".err")
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    rec[stream] = f.read()[:limit]
                os.remove(path)
        if os.path.exists(res):
            os.remove(res)
        results[ex.id] = rec
        if len(results) % 100 == 0:
            print(f"  {target}: {len(results)}/{len(examples)}", file=sys.stderr, flush=True)
    return version, [results[e.id] for e in examples]


def main(argv=None):
    ap = argparse.ArgumentParser(description="run extracted Paddle examples on paddle or oar")
    ap.add_argument("--target", choices=["paddle", "oar"], required=True)
    ap.add_argument("--examples", default="build/paddle_examples/examples.json")
    ap.add_argument(
        "--only", default="", help="file of ids to run (one a line); default: all candidates"
    )
    ap.add_argument("--out", default=None)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--match", default="", help="regex over ids (debugging)")
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    examples = [e for e in extract.load(args.examples) if not e.set_aside]
    if args.only:
        with open(args.only) as f:
            keep = {ln.strip() for ln in f if ln.strip()}
        examples = [e for e in examples if e.id in keep]
    if args.match:
        examples = [e for e in examples if re.search(args.match, e.id)]
    out = args.out or os.path.join(os.path.dirname(args.examples), f"results_{args.target}.json")
    t0 = time.time()
    version, recs = run(
        examples,
        args.target,
        args.jobs,
        args.timeout,
        os.path.join(os.path.dirname(out), f"tmp_{args.target}"),
    )
    with open(out, "w") as f:
        json.dump(
            {
                "target": args.target,
                "version": version,
                "python": sys.version.split()[0],
                "seconds": round(time.time() - t0, 1),
                "results": recs,
            },
            f,
            indent=1,
        )
    ok = sum(r["status"] == "ok" for r in recs)
    print(f"{args.target} {version}: {ok}/{len(recs)} ran in {time.time() - t0:.0f} s -> {out}")


if __name__ == "__main__":
    sys.exit(main())
