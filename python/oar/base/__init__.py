"""oar.base: the parts of Paddle's paddle.base (the former fluid) that mean something
in an eager CPU framework: set_flags/get_flags, dygraph.guard, core's build queries.

Static-graph machinery (Program, Executor, Scope, ...) is not here: oar has no static
graph (docs/compat.md).
"""

from __future__ import annotations

from .. import _C
from ..framework.dtype import CPUPlace  # noqa: F401
from ..framework.flags import get_flags, set_flags  # noqa: F401
from ..device import (
    is_compiled_with_cinn,
    is_compiled_with_cuda,  # noqa: F401
    is_compiled_with_rocm,
    is_compiled_with_xpu,
)
from ..framework import ParamAttr  # noqa: F401
from ..utils import require_version, unique_name  # noqa: F401
from . import core, dygraph  # noqa: F401
from .dygraph import disable_dygraph, enable_dygraph  # noqa: F401

Tensor = _C.Tensor


def in_dygraph_mode() -> bool:
    """True: oar always runs eagerly."""
    return True


def disable_signal_handler() -> None:
    """Paddle installs handlers for SIGSEGV and friends that print its C++ stack; this
    removes them so other libraries' handlers can work. oar installs no signal
    handlers, so there is nothing to remove."""


__all__ = [
    "core",
    "dygraph",
    "set_flags",
    "get_flags",
    "CPUPlace",
    "ParamAttr",
    "Tensor",
    "is_compiled_with_cuda",
    "is_compiled_with_rocm",
    "is_compiled_with_xpu",
    "is_compiled_with_cinn",
    "in_dygraph_mode",
    "enable_dygraph",
    "disable_dygraph",
    "require_version",
    "unique_name",
    "disable_signal_handler",
]
