"""to_static: a function or Layer whose calls run as captured programs (docs/jit.md).

The first call with a new signature runs eagerly while it is captured; later calls
with the same signature run the program in one C++ call (src/oar/jit/replay.h),
through the same eager ops, so gradients, hooks on parameters, auto-cast and random
numbers are those of eager mode. The signature (the guard) is: the structure of the
arguments and their non-tensor values; each tensor's dtype, shape (with the dimensions
InputSpec leaves open as -1) and stop_gradient; the training flag of every sub-layer;
grad mode; the auto-cast level and dtype."""

from __future__ import annotations

import functools
import json
import warnings
from typing import Any, Callable

from ..nn.layer.layers import Layer
from ..static import InputSpec
from .capture import Capture, capture, capturing
from .pytree import flatten, hashable, unflatten
from .. import _C

__all__ = ["StaticFunction", "ConcreteProgram", "named_state", "written_state"]

_enabled = [True]
_ONE_TENSOR = ("T", None)

SHAPE_DEPENDS_ON_VALUES = "a shape that depends on tensor values"
# Ops whose replay draws random numbers (a second run would draw others).
RANDOM_OPS = frozenset(
    [
        "uniform",
        "normal",
        "bernoulli",
        "poisson",
        "multinomial",
        "randperm",
        "randint_like",
        "binomial",
    ]
)
# The type prefix of a custom operator in a program (src/oar/jit/external_op.h).
CUSTOM_OP_PREFIX = "custom."


def set_enabled(flag: bool) -> None:
    _enabled[0] = flag


def named_state(
    layer: Layer | None, aliases: list | None = None
) -> list[tuple[str, Any, Layer, str, bool]]:
    """(name, tensor, owner, key, is_buffer) of every parameter and buffer of layer,
    each once (shared weights under their first name; aliases, when given, gets
    (other name, first name) for each further name)."""
    out: list = []
    if layer is None:
        return out
    seen: dict = {}

    def walk(lay, prefix):
        for reg, is_buffer in ((lay._parameters, False), (lay._buffers, True)):
            for k, t in reg.items():
                if t is None:
                    continue
                if id(t) in seen:
                    if aliases is not None:
                        aliases.append((prefix + k, seen[id(t)]))
                    continue
                seen[id(t)] = prefix + k
                out.append((prefix + k, t, lay, k, is_buffer))
        for name, sub in lay._sub_layers.items():
            if sub is not None:
                walk(sub, prefix + name + ".")

    walk(layer, "")
    return out


def written_state(state: list) -> list:
    """The tensors of named_state a forward pass may write: buffers, and parameters that
    take no gradient (batch norm's running statistics are such parameters)."""
    return [t for _, t, _, _, buf in state if buf or t.stop_gradient]


class ConcreteProgram:
    """One program with what it runs on: the slots of its parameters (a layer's registry
    and key, read at each call, so optimizer updates, set_state_dict and an assignment
    are seen), its constants and the structure of its outputs. What to_static captures
    and what a TranslatedLayer loads."""

    def __init__(self, program: dict, consts: list, out_structure: tuple, slots: list, what: str):
        self.program = program
        self.handle = _C._jit_program(json.dumps(program), what)
        self.consts = consts
        self.out_structure = out_structure
        self._dicts = [(o._buffers if buf else o._parameters, k) for o, k, buf in slots]
        self.rerunnable = _without_side_effects(program)

    @classmethod
    def captured(cls, cap: Capture, layer: Layer | None, what: str) -> "ConcreteProgram":
        by_name = {name: (owner, key, buf) for name, _, owner, key, buf in named_state(layer)}
        slots = [by_name[p["name"]] for p in cap.program["params"]]
        return cls(cap.program, cap.consts, cap.out_structure, slots, what)

    def params(self) -> list:
        return [d[k] for d, k in self._dicts]

    def __call__(self, tensors: list) -> Any:
        outs = _C._jit_run(self.handle, tensors, [d[k] for d, k in self._dicts], self.consts)
        if self.out_structure == _ONE_TENSOR:
            return outs[0]
        return unflatten(self.out_structure, outs)


def _without_side_effects(program: dict) -> bool:
    """Whether running program part way and then the function eagerly does what one
    eager run does: no random draws and no in-place writes into an input, parameter or
    constant."""
    first_op_value = len(program["inputs"]) + len(program["params"]) + len(program["consts"])
    for op in program["ops"]:
        if op["type"] in RANDOM_OPS or op["type"].startswith(CUSTOM_OP_PREFIX):
            return False  # a custom op may draw numbers or write its inputs
        if op["type"].endswith("_") and op["inputs"] and op["inputs"][0]:
            if op["inputs"][0][0] < first_op_value:
                return False
    return True


class StaticFunction:
    """What to_static returns for a function (and puts in a Layer's forward)."""

    def __init__(
        self,
        fn: Callable,
        input_spec: list | None = None,
        full_graph: bool = False,
        layer: Layer | None = None,
    ):
        self._fn = fn
        self._input_spec = list(input_spec) if input_spec is not None else None
        self._full_graph = full_graph
        self._layer = layer
        self._cache: dict = {}
        self.graph_breaks: list[str] = []
        self.captures = 0
        self._sublayers: list | None = None
        self._open_by_ranks: dict = {}
        functools.update_wrapper(self, fn)

    # A decorated method: one StaticFunction per instance, bound to it.
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        name = "_oar_static_" + self._fn.__name__
        bound = instance.__dict__.get(name)
        if bound is None:
            layer = instance if isinstance(instance, Layer) else None
            bound = StaticFunction(
                self._fn.__get__(instance, owner), self._input_spec, self._full_graph, layer
            )
            instance.__dict__[name] = bound
        return bound

    @property
    def dygraph_function(self) -> Callable:
        """The function as written (Paddle's StaticFunction.dygraph_function)."""
        return self._fn

    @property
    def input_spec(self) -> list | None:
        return self._input_spec

    def concrete_programs(self) -> list[ConcreteProgram]:
        """The programs captured so far (one per signature seen)."""
        return [p for p in self._cache.values() if isinstance(p, ConcreteProgram)]

    def _signature(self, args, kwargs):
        if not kwargs and all(isinstance(a, _C.Tensor) for a in args):
            # the common call, tensors only: the key without walking a structure
            tensors = list(args)
            structure: Any = len(args)
        else:
            tensors = []
            structure = hashable(flatten((args, kwargs), tensors))
        open_dims = self._open_dims(args, tensors)
        shapes = []
        groups: dict = {}
        for i, t in enumerate(tensors):
            dims = open_dims.get(i)
            if dims:
                shape = list(t.shape)
                for d in dims:
                    groups.setdefault(shape[d], []).append((i, d))
                    shape[d] = -1
                shapes.append((t.dtype, tuple(shape), t.stop_gradient))
            else:
                shapes.append((t.dtype, tuple(t.shape), t.stop_gradient))
        symbols = list(groups.values())
        if self._layer is not None:
            if self._sublayers is None:
                # the layer's structure is read once (docs/jit.md, "Guards")
                self._sublayers = self._layer.sublayers(include_self=True)
            modes: tuple = tuple([s.training for s in self._sublayers])
        else:
            modes = ()
        key = (
            structure,
            tuple(shapes),
            tuple(tuple(g) for g in symbols),
            modes,
            _C.is_grad_enabled(),
            _C._amp_state()[:2],
        )
        return key, tensors, symbols

    def _open_dims(self, args, tensors) -> dict:
        """{flat tensor index: dims InputSpec leaves open} for the positional tensors."""
        if not self._input_spec:
            return {}
        positional = len(tensors) == len(args)
        if positional:
            ranks = tuple([t.ndim for t in tensors])
            cached = self._open_by_ranks.get(ranks)
            if cached is not None:
                return cached
        out = {}
        flat = 0
        for a, spec in zip(args, self._input_spec):
            if isinstance(a, _C.Tensor):
                if isinstance(spec, InputSpec) and len(spec.shape) == a.ndim:
                    out[flat] = [d for d, s in enumerate(spec.shape) if s == -1]
                flat += 1
            else:
                flat += _count(a)
        if positional:
            self._open_by_ranks[ranks] = out
        return out

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not _enabled[0] or capturing() or getattr(self._fn, "_oar_not_to_static", False):
            return self._fn(*args, **kwargs)
        key, tensors, symbols = self._signature(args, kwargs)
        entry = self._cache.get(key)
        if isinstance(entry, ConcreteProgram):
            try:
                return entry(tensors)
            except RuntimeError as e:
                # Note [Shapes that depend on values] (src/oar/jit/program.h): a program
                # without side effects gives way to an eager run; one that wrote state
                # or drew random numbers before stopping cannot run again
                if SHAPE_DEPENDS_ON_VALUES not in str(e) or not entry.rerunnable:
                    raise
                self.graph_breaks.append(str(e))
                self._cache[key] = str(e)
                return self._fn(*args, **kwargs)
        if entry is not None:  # a graph break: this signature runs eagerly
            return self._fn(*args, **kwargs)
        state = named_state(self._layer)
        buffers = written_state(state)
        cap = capture(
            self._fn,
            args,
            kwargs,
            [(n, t) for n, t, *_ in state],
            self._full_graph,
            symbols,
            buffers,
        )
        self.captures += 1
        if cap.program is None:
            self.graph_breaks.append(cap.break_reason or "")
            self._cache[key] = cap.break_reason
            warnings.warn(
                f"to_static({getattr(self._fn, '__qualname__', 'function')}): graph break: "
                f"{cap.break_reason}; calls with this signature run eagerly",
                stacklevel=2,
            )
            return cap.result
        self._cache[key] = ConcreteProgram.captured(
            cap, self._layer, getattr(self._fn, "__qualname__", "fn")
        )
        return cap.result


def _count(value) -> int:
    tensors: list = []
    flatten(value, tensors)
    return len(tensors)
