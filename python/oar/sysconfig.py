"""oar.sysconfig: where oar's C++ headers and library are, for building C++ code against
the installed package (Paddle's paddle.sysconfig)."""

from __future__ import annotations

import os

__all__ = ["get_include", "get_lib"]

_PKG = os.path.dirname(os.path.abspath(__file__))


def get_include() -> str:
    """The directory holding oar's C++ headers (`#include "oar/oar.h"`): include/ inside
    the installed package."""
    return os.path.join(_PKG, "include")


def get_lib() -> str:
    """The directory holding liboar.so (the package directory itself)."""
    return _PKG
