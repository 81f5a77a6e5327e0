"""oar.jit: graph capture and deployment (docs/jit.md). to_static records a function's
or Layer's ops as a program and replays it in C++; save writes a Layer's programs and
weights (path.oarmodel + path.safetensors) that load, and oar::jit::Load in C++, run
without the Python code that made them."""

from __future__ import annotations

import os
import types
from typing import Any, Callable, Sequence, TypeVar, overload

from ..nn.layer.layers import Layer
from .capture import GraphBreakError
from .serialization import export_program, load, save
from .static_function import StaticFunction, set_enabled
from .translated_layer import TranslatedLayer
from .. import _C

__all__ = [
    "ignore_module",
    "not_to_static",
    "to_static",
    "save",
    "load",
    "export_program",
    "enable_to_static",
    "set_code_level",
    "set_verbosity",
    "StaticFunction",
    "TranslatedLayer",
    "GraphBreakError",
]

# graph breaks name the first frame outside this package
_C._jit_set_package_dir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep)

_ignored: list = []

_F = TypeVar("_F", bound=Callable[..., Any])


def ignore_module(modules: list[types.ModuleType] | tuple[types.ModuleType, ...]) -> None:
    """Paddle's dynamic-to-static translator skips the functions of these modules; oar has
    no translator, so they are only recorded. modules: a list of module objects."""
    if not isinstance(modules, (list, tuple)):
        raise TypeError(
            f"ignore_module(): argument 'modules' must be a list of modules, but "
            f"got {type(modules).__name__}"
        )
    for i, m in enumerate(modules):
        if not isinstance(m, types.ModuleType):
            raise TypeError(
                f"ignore_module(): modules[{i}] must be a module, but got {type(m).__name__}"
            )
    _ignored.extend(m for m in modules if m not in _ignored)


@overload
def not_to_static(func: None = None) -> None: ...


@overload
def not_to_static(func: _F) -> _F: ...


def not_to_static(func: _F | None = None) -> _F | None:
    """Marks func to run eagerly: to_static of it runs it as written. Called inside a
    captured function, its ops are recorded like any other (capture runs eagerly)."""
    if func is not None:
        try:
            func._oar_not_to_static = True  # type: ignore[attr-defined]
        except AttributeError:
            pass
    return func


def enable_to_static(enable_to_static_bool: bool) -> None:
    """Turns to_static on or off globally: off, to_static functions run eagerly."""
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(
            f"enable_to_static(): argument must be bool, but got "
            f"{type(enable_to_static_bool).__name__}"
        )
    set_enabled(enable_to_static_bool)


def set_code_level(level: int = 100, also_to_stdout: bool = False) -> None:
    """Accepted: there is no translated code to log."""


def set_verbosity(level: int = 0, also_to_stdout: bool = False) -> None:
    """Accepted: there is no translator to log."""


def to_static(
    function: Callable[..., Any] | None = None,
    input_spec: Sequence[Any] | None = None,
    build_strategy: Any = None,
    backend: str | None = None,
    full_graph: bool = False,
    **kwargs: Any,
) -> Any:
    """Captures function (or a Layer's forward) as a program on its first call with
    each new signature, and runs later calls as that program in C++ (docs/jit.md).

    Args:
        function: a function or Layer; omitted, to_static returns a decorator.
        input_spec: InputSpec per positional tensor argument; None/-1 dimensions stay
            open (one program for every size), the others are fixed by the first call.
        build_strategy, backend: accepted for Paddle's signature (oar has one backend).
        full_graph: True: Python that needs a tensor's value while capturing (bool(t),
            t.item(), t.numpy()) is a GraphBreakError naming the file and line; False
            (default): such a call signature runs eagerly, and the break is reported
            (StaticFunction.graph_breaks and a warning).

    Returns:
        the Layer (its forward replaced) or a StaticFunction."""
    if not isinstance(full_graph, bool):
        raise TypeError(f"to_static(): argument 'full_graph' must be bool, but got {full_graph!r}")
    if input_spec is not None and not isinstance(input_spec, (list, tuple)):
        raise TypeError(
            f"to_static(): argument 'input_spec' must be a list of InputSpec, but got "
            f"{type(input_spec).__name__}"
        )

    def decorate(fn):
        if isinstance(fn, Layer):
            fwd = fn.forward
            if isinstance(fwd, StaticFunction):
                fwd = fwd.dygraph_function
            fn.forward = StaticFunction(fwd, input_spec, full_graph, layer=fn)
            return fn
        if isinstance(fn, StaticFunction):
            fn = fn.dygraph_function
        if not callable(fn):
            raise TypeError(
                f"to_static(): argument 'function' must be a function or Layer, but got "
                f"{type(fn).__name__}"
            )
        return StaticFunction(fn, input_spec, full_graph)

    return decorate if function is None else decorate(function)
