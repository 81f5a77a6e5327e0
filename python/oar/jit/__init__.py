"""oar.jit: oar runs eagerly and has no graph compiler, so of Paddle's paddle.jit only
what makes sense without one is here: ignore_module (accepted: there is no translator to
keep away from the modules), not_to_static and to_static's refusal.

to_static, save and load (graph capture and inference export) raise
NotImplementedError saying so; run the model eagerly and use oar.save / oar.load for
its parameters."""

from __future__ import annotations

import types
from typing import Any, Callable, NoReturn, Sequence, TypeVar, overload

__all__ = [
    "ignore_module",
    "not_to_static",
    "to_static",
    "save",
    "load",
    "enable_to_static",
    "set_code_level",
    "set_verbosity",
]

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
    """Marks func as never translated to a static graph; oar never translates, so func is
    returned unchanged."""
    return func


def enable_to_static(enable_to_static_bool: bool) -> None:
    """Accepted: oar always runs eagerly, with or without it."""
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(
            f"enable_to_static(): argument must be bool, but got "
            f"{type(enable_to_static_bool).__name__}"
        )


def set_code_level(level: int = 100, also_to_stdout: bool = False) -> None:
    """Accepted: there is no translated code to log."""


def set_verbosity(level: int = 0, also_to_stdout: bool = False) -> None:
    """Accepted: there is no translator to log."""


def _no_graph(api):
    return NotImplementedError(
        f"{api}(): oar runs eagerly and has no static-graph compiler "
        f"or inference export; call the function or Layer directly "
        f"(and use oar.save/oar.load for parameters)"
    )


def to_static(
    function: Callable[..., Any] | None = None,
    input_spec: Sequence[Any] | None = None,
    build_strategy: Any = None,
    backend: str | None = None,
    **kwargs: Any,
) -> NoReturn:
    """Not available: oar runs eagerly (raises NotImplementedError)."""
    raise _no_graph("to_static")


def save(
    layer: Callable[..., Any],
    path: str,
    input_spec: Sequence[Any] | None = None,
    **configs: Any,
) -> NoReturn:
    """Not available: oar exports no inference programs (raises NotImplementedError)."""
    raise _no_graph("jit.save")


def load(path: str, **configs: Any) -> NoReturn:
    """Not available: oar loads no inference programs (raises NotImplementedError)."""
    raise _no_graph("jit.load")
