"""Paddle's mode switches. oar runs eagerly (dynamic graph) only: there is no static
graph to switch to, so enable_static raises instead of silently staying eager."""

from __future__ import annotations

from typing import NoReturn

from .place import _to_place
from .typing import PlaceLike


def in_dynamic_mode() -> bool:
    """True: oar always runs in dynamic (eager) mode."""
    return True


def disable_static(place: PlaceLike | None = None) -> None:
    """Switches to dynamic mode, which oar is always in; place, if given, must be the CPU."""
    if place is not None:
        _to_place(place, "disable_static")


def enable_static() -> NoReturn:
    """Raises RuntimeError: oar runs eagerly and has no static-graph mode."""
    raise RuntimeError(
        "enable_static: oar runs eagerly (dynamic mode) only and has no "
        "static-graph mode; remove the call and run the program eagerly"
    )
