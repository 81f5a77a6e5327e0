"""oar.base.dygraph: Paddle's dygraph (eager mode) switches. oar is always in eager
mode, so guard() only checks its place and enable/disable have nothing to switch."""

from __future__ import annotations

import contextlib
from typing import Iterator, NoReturn

from ..framework.grad_mode import no_grad  # noqa: F401
from ..framework.mode import enable_static
from ..device import _to_place
from ..framework.typing import PlaceLike


def enabled() -> bool:
    """True: eager (dygraph) mode is the only mode oar has."""
    return True


def enable_dygraph(place: PlaceLike | None = None) -> None:
    """Eager mode is always on; place must be the CPU (or None)."""
    _check_place(place, "enable_dygraph")


def disable_dygraph() -> NoReturn:
    """Refused: switching to static-graph mode is not possible in oar."""
    enable_static()


def _check_place(place, api):
    if place is not None:
        _to_place(place, api)


@contextlib.contextmanager
def guard(place: PlaceLike | None = None) -> Iterator[None]:
    """Runs the with-block in eager (dygraph) mode on place (the CPU; None means the
    current device). oar is always eager, so this only checks the place."""
    _check_place(place, "dygraph.guard")
    yield


__all__ = ["guard", "enabled", "enable_dygraph", "disable_dygraph", "no_grad"]
