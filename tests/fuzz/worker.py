"""Runs calls in a worker process: oar with the random dtypes (does it crash or
raise an unclear error?), then, with every floating input as float64, oar against
PyTorch: the value, and the first-order gradient of sum(out * w).

The oracle machinery is the test suite's (tests/op_registry.py): the torch
expressions of tests/op_cases/, evaluated by its call_torch; gradients through
its oar_grad / torch_grad.
"""
import os
import random
import sys
import traceback

import numpy as np
import torch

import oar
import allowlist
import gen as G
from fuzz_errors import limit_memory, unclear  # noqa: F401

torch.set_num_threads(1)  # tiny tensors, two workers on two cores
# The oracle's sparse constructors check their indices: unchecked, torch builds a sparse
# tensor from out-of-range or NaN-cast indices and corrupts the heap when it densifies
# it ("double free or corruption", seen as a crash of whichever oar call came next).
torch.sparse.check_sparse_tensor_invariants.enable()

sys.path.insert(0, os.path.join(G.ROOT, "tests"))
import op_registry  # noqa: E402  (tests/op_registry.py)

golden = op_registry  # DTYPE_NAMES, cpp_default_to_py (allowlist/ reads worker.golden)
# The random ops (random: true in tests/op_cases/): no oracle.
RANDOM_OPS = {n for n, e in op_registry.registry()["ops"].items() if e["random"]}

OK, BOTH, OAR_RAISES, TORCH_RAISES = "ok", "both raise", "oar raises", "torch raises"
MISMATCH, GRAD, UNTYPED, CRASH, STALL = ("value mismatch", "grad mismatch", "untyped error",
                                         "crash", "stall")
WRONG_REJECTED, WRONG_ACCEPTED, DOC = "wrong type rejected", "wrong type accepted", "documented"
NO_ORACLE = "not compared"
FUZZER = "fuzzer error"
FAILURES = {MISMATCH, GRAD, UNTYPED, CRASH, STALL, FUZZER}
OUTCOMES = [OK, NO_ORACLE, BOTH, OAR_RAISES, TORCH_RAISES, WRONG_REJECTED, WRONG_ACCEPTED, DOC,
            MISMATCH, GRAD, UNTYPED, CRASH, STALL, FUZZER]

RTOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6), "float16": (2e-3, 1e-5),
        "bfloat16": (1.6e-2, 1e-5), "complex128": (1e-10, 1e-12), "complex64": (1e-5, 1e-6)}
# torch's error may come from the expression itself for a value that the call allows;
# those are what torch "raises" on (e.g. an out-of-range index in Paddle's gather).


def err_str(e):
    return f"{type(e).__name__}: {str(e)[:300]}"


# ---- materializing a call --------------------------------------------------------------
def oar_tensor(t, f64, grad):
    dt = t.dtype
    if f64 and t.dtype in G.FLOATS:
        dt = "float64"
    elif f64 and t.dtype == "complex64":
        dt = "complex128"
    if 0 in t.base_shape:  # as gen.tensor_code: numpy cannot hold every empty shape
        base = oar.zeros(t.base_shape, dtype=dt)
    else:
        base = oar.to_tensor(np.array(t.data, t.np_dtype()).reshape(t.base_shape), dtype=dt)
    if grad:
        base.stop_gradient = False
    s, v = t.shape, t.view  # as gen.VIEW_CODE
    if v == "T":
        x = base.transpose(list(range(len(s) - 2)) + [len(s) - 1, len(s) - 2])
    elif v == "step":
        x = base.strided_slice([0], [0], [2 * s[0]], [2])
    elif v == "flip":
        x = base.strided_slice([0], [s[0] - 1], [-s[0] - 1], [-1])
    elif v == "bcast":
        x = base.expand(s)
    else:
        x = base
    return base, x


def torch_tensor(t, grad):
    if 0 in t.base_shape:
        base = torch.zeros(t.base_shape, dtype=torch.from_numpy(np.empty(0, t.np_dtype())).dtype)
    else:
        base = torch.from_numpy(np.array(t.data, t.np_dtype()).reshape(t.base_shape))
    if grad:
        base.requires_grad_(True)
    s, v = t.shape, t.view
    if v == "T":
        return base, base.transpose(-1, -2)
    if v == "step":
        return base, base[::2]
    if v == "flip":
        return base, base.flip(0)
    if v == "bcast":
        return base, base.expand(s)
    return base, base


def substitute(v, table):
    if isinstance(v, G.T):
        return table[id(v)]
    if isinstance(v, list):
        return [substitute(e, table) for e in v]
    if isinstance(v, tuple):
        return tuple(substitute(e, table) for e in v)
    if isinstance(v, G.DType):
        return getattr(oar, v.name)
    return v


def diff_tensors(call):
    """The tensors whose gradient is compared: floating, at a differentiable input."""
    if call.kind != "op" or not call.op.backward:
        return set()
    out = set()
    for name in call.op.backward:
        v = call.decl.get(name)
        for t in (v if isinstance(v, list) else [v]):
            if isinstance(t, G.T) and (t.dtype in G.FLOATS or t.dtype in G.COMPLEX):
                out.add(id(t))
    return out


def resolve(target):
    obj = oar
    for part in target.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def run_oar(call, f64, grad_ids):
    """(result or None, exception or None, {id: oar base}, {id: oar view})."""
    bases, views = {}, {}
    for t in call.tensors():
        bases[id(t)], views[id(t)] = oar_tensor(t, f64, id(t) in grad_ids)
    args = substitute(call.args, views)
    kwargs = {k: substitute(v, views) for k, v in call.kwargs.items()}
    try:
        if call.target == "getitem":
            out = args[0][args[1]]
        elif call.target == "setitem":
            args[0][args[1]] = args[2]
            out = args[0]
        elif call.kind == "inplace":
            with oar.no_grad():
                out = resolve(call.target)(*args, **kwargs)
        else:
            out = resolve(call.target)(*args, **kwargs)
        return out, None, bases, views
    except Exception as e:  # noqa: BLE001 - classified by the caller
        return None, e, bases, views


# ---- comparing -------------------------------------------------------------------------
def as_numpy(x):
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x.dtype in (torch.bfloat16, torch.float16):
            return x.float().numpy(), golden.DTYPE_NAMES[x.dtype]
        return x.numpy(force=True), golden.DTYPE_NAMES[x.dtype]
    if isinstance(x, (np.ndarray, np.generic)):  # the numpy oracle (x[i] can be a scalar)
        x = np.asarray(x)
        return x, x.dtype.name
    if x.is_sparse():  # oar's sparse results are compared densely, as call_torch's
        x = x.to_dense()
    a = x.numpy()  # oar; bfloat16 comes as raw uint16 (flattened: np.asarray(0-d bf16) fails)
    if x.dtype.name == "bfloat16":
        a = (a.reshape(-1).astype(np.uint32) << 16).view(np.float32).reshape(a.shape)
    return a, x.dtype.name


def compare(got, want, what):
    """None if got (oar) equals want (torch / numpy) in dtype, shape and value."""
    if isinstance(want, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            n = len(got) if isinstance(got, (list, tuple)) else "-"
            return f"{what}: oar gives {type(got).__name__} of {n}, want {len(want)} tensors"
        for k, (g, w) in enumerate(zip(got, want)):
            m = compare(g, w, f"{what}[{k}]")
            if m:
                return m
        return None
    if not isinstance(got, oar.Tensor):
        return f"{what}: oar returned {type(got).__name__}, not a Tensor"
    gd = got.dtype.name
    if isinstance(want, torch.Tensor) and want.numel() == 0:
        # an empty result can have a dim numpy cannot hold ([0, 2**63 - 1] from one_hot):
        # dtype and shape are all there is to compare
        wd = golden.DTYPE_NAMES[want.dtype]
        if gd != wd:
            return f"{what}: dtype {gd}, want {wd}"
        if list(got.shape) != list(want.shape):
            return f"{what}: shape {got.shape}, want {list(want.shape)}"
        return None
    w, wd = as_numpy(want)
    if gd != wd:
        return f"{what}: dtype {gd}, want {wd}"
    if list(got.shape) != list(w.shape):
        return f"{what}: shape {got.shape}, want {list(w.shape)}"
    g, _ = as_numpy(got)
    if w.dtype.kind in "biu":
        bad = g != w
    elif w.dtype.kind == "c":
        # Part by part, each against the larger part: np.isclose takes |g - w|, NaN when
        # both hold the same infinity (inf - 0.6j against inf - 0.6000000000000001j), and
        # the modulus is NaN beside a NaN part.
        rtol, atol = RTOL.get(wd, RTOL["float64"])
        with np.errstate(invalid="ignore", over="ignore"):
            tol = atol + rtol * np.fmax(np.abs(w.real), np.abs(w.imag))

            def part_bad(a, b):
                return ~((a == b) | (np.isnan(a) & np.isnan(b)) | (np.abs(a - b) <= tol))

            bad = part_bad(g.real, w.real) | part_bad(g.imag, w.imag)
    else:
        rtol, atol = RTOL.get(wd, RTOL["float64"])
        with np.errstate(invalid="ignore", over="ignore"):
            bad = ~np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    if bad.any():
        k = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
        tag = ""
        if w.dtype.kind == "f" and (np.isnan(w[bad]) & np.isinf(g[bad])).all():
            tag = " [all: oar inf where torch nan]"
        elif w.dtype.kind == "f" and np.isnan(w[bad]).all():
            tag = " [all: torch nan]"
        return (f"{what}: {int(bad.sum())}/{bad.size} elements differ, at {list(k)}: "
                f"oar {g[k]!r}, want {w[k]!r}{tag}")
    return None


def torch_attrs(call):
    attrs = {a.name: golden.cpp_default_to_py(a.default) for a in call.op.attrs}
    for a in call.op.attrs:
        if a.name in call.decl:
            v = call.decl[a.name]
            attrs[a.name] = v.name if isinstance(v, G.DType) else v
    return attrs


def torch_inputs(call, grad_ids):
    """torch views by tensor id, and the bases to differentiate."""
    views, bases = {}, {}
    for t in call.tensors():
        bases[id(t)], views[id(t)] = torch_tensor(t, id(t) in grad_ids)
    return bases, views


def run_torch(call, tviews):
    if call.kind == "py":
        args = substitute(call.args, tviews)
        kwargs = {k: substitute(v, tviews) for k, v in call.kwargs.items()}
        return G_PY[call.key].oracle(*args, **kwargs)
    tensors = []
    for a in call.op.inputs:
        tensors.append(substitute(call.decl[a.name], tviews))
    flat = tensors[0] if len(call.op.inputs) == 1 and call.op.inputs[0].is_tensor_list else tensors
    out = op_registry.call_torch(call.op, flat, torch_attrs(call))
    if call.kind == "inplace":  # torch's in-place rules: same shape, castable, no overlap
        x = tensors[0]
        if not torch.can_cast(out.dtype, x.dtype):
            raise TypeError(f"result type {out.dtype} can't be cast to {x.dtype}")
        x = x.detach()
        x = x if 0 in x.stride() else x.clone()
        x.copy_(out)  # raises for a broadcast shape or an expanded x
        return x
    return out


G_PY = {}


def check_grad(call, out, want, obases, tbases, grad_ids):
    if not isinstance(out, oar.Tensor) or want.dtype not in GRAD_DTYPES or \
            not grad_ids or not want.requires_grad:
        return None
    if want.numel() == 0:  # nothing flows back (and numpy refuses a shape like [2**62, 0])
        return None
    r = random.Random(call.id)
    # The cotangent w: complex for a complex result, whose gradients then follow PyTorch's
    # convention (the conjugate Wirtinger derivative of Re(sum(out * conj(w)))), as oar's.
    cplx = want.dtype.is_complex
    vals = [complex(round(r.uniform(-2, 2), 2), round(r.uniform(-2, 2), 2)) if cplx
            else round(r.uniform(-2, 2), 2) for _ in range(want.numel())]
    w = np.array(vals, GRAD_DTYPES[want.dtype]).reshape(list(want.shape))
    ids = [i for i in grad_ids]
    try:
        tg = oracle(op_registry.torch_grad, [want], [tbases[i] for i in ids],
                    [torch.from_numpy(w)])
    except Exception:  # noqa: BLE001 - torch cannot differentiate it: nothing to compare
        return None
    try:
        og = op_registry.oar_grad([out], [obases[i] for i in ids], [oar.to_tensor(w)])
    except Exception as e:  # noqa: BLE001
        u = unclear(e)
        return (UNTYPED, "backward: " + u) if u else (GRAD, "oar backward raised " + err_str(e))
    for k, (o, t) in enumerate(zip(og, tg)):
        if o is None:
            o = oar.to_tensor(np.zeros(list(t.shape), t.detach().numpy().dtype))
        m = compare(o, t, f"grad of input {k}")
        if m:
            LAST.update(grad_oar=o, grad_torch=t, grad_of=ids[k])  # for allowlist/
            return GRAD, m
    return None


# The result dtypes whose gradients are compared, and the numpy dtype of their cotangent.
GRAD_DTYPES = {torch.float64: "float64", torch.float32: "float32",
               torch.complex128: "complex128", torch.complex64: "complex64"}
LAST = {}  # the last call's oar and torch results, for the predicates of allowlist/
# (shared flags, slot): this worker's flag is 1 while the oracle (torch) computes, so that
# the parent can tell a stall of torch's from one of oar's (torch takes seconds on some
# degenerate shapes oar refuses or handles at once, e.g. adaptive_max_pool2d to
# [2**31, 0]).
PHASE = None


def oracle(fn, *args):
    """fn(*args) with this worker's oracle flag raised."""
    if PHASE is None:
        return fn(*args)
    flags, slot = PHASE
    flags[slot] = 1
    try:
        return fn(*args)
    finally:
        flags[slot] = 0


def run(call):
    """(outcome, detail) of one call."""
    LAST.clear()
    grad_ids = diff_tensors(call)
    low = any(t.dtype in G.FLOATS and t.dtype != "float64" or t.dtype == "complex64"
              for t in call.tensors())
    out, err, obases, _ = run_oar(call, False, set() if low else grad_ids)
    if err is not None and unclear(err):
        return UNTYPED, unclear(err)
    if call.wrong:
        return (WRONG_REJECTED, None) if err is not None else (WRONG_ACCEPTED, None)
    if low:  # the float64 run, the one compared with torch
        out, err, obases, _ = run_oar(call, True, grad_ids)
        if err is not None and unclear(err):
            return UNTYPED, "(float64) " + unclear(err)
    if call.key in RANDOM_OPS or max(
            (d for t in call.tensors() for d in t.shape), default=0) > 10 ** 5:
        # no oracle: random ops; huge-but-empty inputs, which the torch helpers of
        # tests/op_registry.py (flip_slice: a Python list per index) cannot take
        return (NO_ORACLE, None) if err is None else (OAR_RAISES, err_str(err))
    tbases, tviews = torch_inputs(call, grad_ids)
    try:
        want = oracle(run_torch, call, tviews)
        terr = None
    except Exception as e:  # noqa: BLE001 - any torch error counts as "torch raises"
        want, terr = None, e
    if err is not None:
        return (BOTH, None) if terr is not None else (OAR_RAISES, err_str(err))
    if terr is not None:
        return TORCH_RAISES, err_str(terr)
    LAST.update(out=out, want=want, tviews=tviews, obases=obases, tbases=tbases,
                grad_ids=grad_ids)
    m = compare(out, want, "value")
    if m:
        return MISMATCH, m
    if call.kind == "op":
        return check_grad(call, out, want, obases, tbases, grad_ids) or (OK, None)
    return OK, None


def classify(call):
    outcome, detail = run(call)
    if outcome in (MISMATCH, GRAD, OAR_RAISES, TORCH_RAISES) and detail:
        name = allowlist.match(call, outcome, detail, LAST)
        if name:
            return DOC, name
    return outcome, detail


# ---- the worker process ------------------------------------------------------------------
def main(conn, current, phase, slot, seed, ops, pyapi, self_test=False):
    global PHASE
    import pyapi as P
    PHASE = (phase, slot)
    limit_memory()
    G_PY.update(P.TABLE)
    gen = G.Generator(oar, ops, pyapi, seed)
    conn.send(("ready",))
    while True:
        msg = conn.recv()
        if msg is None:
            return
        lo, hi = msg
        counts, findings = {}, []
        for i in range(lo, hi):
            current[slot] = i  # before the call: if we die now, the parent knows which one
            if self_test and i in (5, 9, 13):  # --self-test: a segfault and two stalls
                import ctypes
                import time
                if i == 5:
                    ctypes.string_at(0)
                elif i == 9:
                    time.sleep(1e9)
                else:  # as if torch hung
                    oracle(time.sleep, 1e9)
            call = None
            try:
                call = gen.make(i)
                outcome, detail = classify(call)
            except Exception as e:  # noqa: BLE001 - a bug of the fuzzer itself, never of oar
                outcome, detail = FUZZER, f"{err_str(e)}\n{traceback.format_exc(limit=-3)}"
                if call is None:
                    counts[("?", FUZZER)] = counts.get(("?", FUZZER), 0) + 1
                    findings.append((i, "?", FUZZER, detail, f"--seed {seed} --replay {i}"))
                    continue
            key = (call.key, outcome if outcome != DOC else f"{DOC}: {detail}")
            counts[key] = counts.get(key, 0) + 1
            if outcome in FAILURES:
                findings.append((i, call.key, outcome, detail, call.repro()))
        current[slot] = -1
        conn.send(("done", lo, hi, counts, findings))


def _warm_up():
    """torch imports sympy & co. on its first autograd.grad: do it once, in the forkserver
    (which imports this module), not in every worker."""
    a = torch.ones(2, dtype=torch.float64, requires_grad=True)
    torch.autograd.grad([(a * a).sum()], [a])


_warm_up()
