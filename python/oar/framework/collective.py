"""oar.distributed as seen from below it: oar.nn's synchronized batch norm and its sharded
losses call the collectives (all_reduce, get_world_size, ...) through this hook, which
oar.distributed fills when it is imported (it is a higher layer: its DataParallel wraps
oar.nn layers, and `import oar` imports it)."""

from __future__ import annotations

from types import ModuleType


_distributed: list = []


def register(module: ModuleType) -> None:
    """Called by oar.distributed at its import, with itself."""
    _distributed[:] = [module]


def distributed() -> ModuleType:
    """The oar.distributed module."""
    if not _distributed:
        raise RuntimeError("oar.distributed is not imported (import oar imports it)")
    return _distributed[0]
