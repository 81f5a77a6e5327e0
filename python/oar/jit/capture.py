"""Capture: run a function eagerly while the C++ tracer records its ops
(src/oar/eager/trace.h), then turn the record into a program (docs/jit.md).

A dimension InputSpec leaves open (None or -1) stays symbolic: the function is traced
again with that dimension one and two larger, and every int attribute that changes
with it (a reshape to [batch, -1], a full of [batch, hidden]) is written as
scale * size + offset. When the traces differ in any other way the dimension is
specialised instead (the program then holds for the captured size only, and a call
with another size captures again): never a wrong result."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from ..framework.grad_mode import no_grad
from .pytree import flatten, unflatten
from .. import _C

__all__ = ["GraphBreakError", "Capture", "StateSnapshot", "capture", "capturing"]


class GraphBreakError(RuntimeError):
    """to_static(full_graph=True) met Python that needs a tensor's value (bool(t),
    t.item(), t.numpy(), ...): the message names the file and line."""


_state = threading.local()


def capturing() -> bool:
    """Whether a capture runs on this thread (a to_static function called inside
    another runs inline, its ops recorded by the outer capture)."""
    return getattr(_state, "depth", 0) > 0


@dataclass
class Capture:
    """What one capture produced: the eager result, and the program (None after a
    graph break, with the reason)."""

    result: Any
    program: dict | None = None
    consts: list = field(default_factory=list)
    out_structure: tuple | None = None
    break_reason: str | None = None
    specialized: bool = False  # open dimensions could not stay symbolic


def _trace(fn: Callable, args: tuple, kwargs: dict, params, full_graph: bool) -> Capture:
    inputs: list = []
    flatten((args, kwargs), inputs)
    tracer = _C._jit_tracer_new(full_graph)
    for t in inputs:
        _C._jit_tracer_add_input(tracer, t)
    for name, p in params:
        _C._jit_tracer_add_param(tracer, name, p)
    _state.depth = getattr(_state, "depth", 0) + 1
    _C._jit_tracer_swap(tracer)
    try:
        result = fn(*args, **kwargs)
    except RuntimeError as e:
        reason = _C._jit_tracer_break_reason(tracer)
        if full_graph and reason is not None and str(e).startswith("to_static(full_graph=True)"):
            raise GraphBreakError(str(e)) from None
        raise
    finally:
        _C._jit_tracer_swap(None)
        _state.depth -= 1
    reason = _C._jit_tracer_break_reason(tracer)
    if reason is not None:
        return Capture(result, break_reason=reason)
    outs: list = []
    structure = flatten(result, outs)
    text, consts = _C._jit_tracer_finish(tracer, outs)
    return Capture(result, json.loads(text), consts, structure)


def _grown(t, dim: int, extra: int):
    """t with its first slice along dim repeated extra more times (valid values for
    any input: token ids stay in range, masks stay masks)."""
    first = _C.slice(t, [dim], [0], [1])
    out = _C.concat([t] + [first] * extra, dim)
    out.stop_gradient = t.stop_gradient
    return out


class StateSnapshot:
    """The generator state and the buffers a forward may write (batch norm's running
    statistics), restored after the extra traces of a symbolic fit."""

    def __init__(self, buffers):
        self.rng = _C._get_rng_state()
        with no_grad():
            self.buffers = [(b, _C.assign(b)) for b in buffers]

    def restore(self):
        with no_grad():
            for b, saved in self.buffers:
                b.set_value(saved)
        _C._set_rng_state(*self.rng)


def capture(
    fn: Callable,
    args: tuple,
    kwargs: dict,
    params: list,
    full_graph: bool,
    symbols: list[list[tuple[int, int]]],
    buffers: list,
) -> Capture:
    """Runs fn(*args, **kwargs) eagerly, recording it. params: (name, tensor) of the
    layer's parameters and buffers. symbols: groups of (flat input index, dim) that are
    one symbolic size each. buffers: tensors an extra trace may write."""
    main = _trace(fn, args, kwargs, params, full_graph)
    if main.program is None or not symbols:
        return main
    fitted = _fit(fn, args, kwargs, params, symbols, buffers, main)
    if fitted is None:
        # specialised: the program holds for the captured sizes only
        main.specialized = True
        return main
    main.program["symbols"], main.program["symbolic_attrs"], main.program["symbolic_shapes"] = (
        fitted
    )
    for group in symbols:
        for i, d in group:
            main.program["inputs"][i]["shape"][d] = -1
    return main


def _fit(fn, args, kwargs, params, symbols, buffers, main: Capture):
    inputs: list = []
    structure = flatten((args, kwargs), inputs)
    snapshot = StateSnapshot(buffers)
    variants = []
    try:
        with no_grad():
            for group in symbols:
                per_group = []
                for extra in (1, 2):
                    grown = list(inputs)
                    for i, d in group:
                        if grown[i].shape[d] < 1:
                            return None
                        grown[i] = _grown(inputs[i], d, extra)
                    a, k = unflatten(structure, grown)
                    try:
                        c = _trace(fn, a, k, params, False)
                    except Exception:  # noqa: BLE001 — any failure: specialise instead
                        return None
                    if c.program is None:
                        return None
                    per_group.append(c.program)
                variants.append(per_group)
    finally:
        snapshot.restore()
    return _solve(main.program, variants, symbols, inputs)


def _same_except_attrs(a: dict, b: dict) -> bool:
    if len(a["ops"]) != len(b["ops"]) or a["outputs"] != b["outputs"]:
        return False
    for key in ("params", "consts"):
        if [(v["dtype"], v["shape"]) for v in a[key]] != [(v["dtype"], v["shape"]) for v in b[key]]:
            return False
    return all(
        x["type"] == y["type"]
        and x["inputs"] == y["inputs"]
        and x["attrs"].keys() == y["attrs"].keys()
        for x, y in zip(a["ops"], b["ops"])
    )


def _solve(base: dict, variants: list, symbols: list, inputs: list):
    """The symbolic attributes and output dimensions: each int attribute element and
    each op output dimension that changes with exactly one symbol, by the same step for
    +1 and +2. None when the traces differ otherwise."""
    for per_group in variants:
        for v in per_group:
            if not _same_except_attrs(base, v):
                return None
    attrs: dict = {}
    shapes: dict = {}
    for g, (plus1, plus2) in enumerate(variants):
        size = inputs[symbols[g][0][0]].shape[symbols[g][0][1]]
        for k, op in enumerate(base["ops"]):
            places = [
                (attrs, name, v0, plus1["ops"][k]["attrs"][name], plus2["ops"][k]["attrs"][name])
                for name, v0 in op["attrs"].items()
            ]
            if "shape" in op:
                places.append(
                    (shapes, None, op["shape"], plus1["ops"][k]["shape"], plus2["ops"][k]["shape"])
                )
            for table, name, v0, v1, v2 in places:
                if v0 == v1 == v2:
                    continue
                elems = _int_elements(v0, v1, v2)
                if elems is None:
                    return None
                for index, (e0, e1, e2) in elems:
                    if e0 == e1 == e2:
                        continue
                    step = e1 - e0
                    if e2 - e1 != step or (k, name, index) in table:
                        return None
                    fit = {"op": k, "symbol": g, "scale": step, "offset": e0 - step * size}
                    if table is shapes:
                        fit["dim"] = index
                    else:
                        fit.update(attr=name, index=index)
                    table[(k, name, index)] = fit
    syms = [
        {"name": f"s{g}", "input": grp[0][0], "dim": grp[0][1]} for g, grp in enumerate(symbols)
    ]
    return syms, list(attrs.values()), list(shapes.values())


def _int_elements(v0, v1, v2):
    """[(index, (e0, e1, e2))] for int (index -1) or equal-length int-list attributes."""
    if all(isinstance(v, int) and not isinstance(v, bool) for v in (v0, v1, v2)):
        return [(-1, (v0, v1, v2))]
    if all(isinstance(v, list) for v in (v0, v1, v2)) and len(v0) == len(v1) == len(v2):
        if all(isinstance(e, int) and not isinstance(e, bool) for v in (v0, v1, v2) for e in v):
            return [(i, (v0[i], v1[i], v2[i])) for i in range(len(v0))]
    return None
