"""oar.utils.cpp_extension: C++ custom operators compiled at run time (Paddle's
paddle.utils.cpp_extension; docs/custom_ops.md).

`load(name, sources)` compiles sources that declare ops with PD_BUILD_OP (including
"paddle/extension.h") against oar's headers and liboar, loads the library and returns a
module whose functions are the ops; `setup(name=..., ext_modules=CppExtension(sources))`
in a setup.py builds an installable package of them."""

from __future__ import annotations

import os
import types

from .build import build_library, get_build_directory
from .op_module import load_module
from .package import CppExtension, setup

__all__ = ["get_build_directory", "load", "CppExtension", "setup"]


def load(
    name: str,
    sources,
    extra_cxx_cflags=None,
    extra_cuda_cflags=None,
    extra_ldflags=None,
    extra_include_paths=None,
    build_directory: str | None = None,
    verbose: bool = False,
) -> types.ModuleType:
    """Compiles `sources` (C++ files) into <build_directory>/<name>/ (default
    get_build_directory()), loads the library and returns a module with one function per
    op it declares, taking the op's inputs and then its attributes. An unchanged set of
    sources and flags is not compiled again. CUDA sources and flags raise
    NotImplementedError (oar has no GPU backend); a compiler error raises RuntimeError
    with the compiler's message."""
    if extra_cuda_cflags:
        raise NotImplementedError(
            "load(): extra_cuda_cflags given, but oar has no GPU backend (docs/custom_ops.md)"
        )
    so_path = build_library(
        name,
        sources,
        extra_cxx_cflags=extra_cxx_cflags,
        extra_ldflags=extra_ldflags,
        extra_include_paths=extra_include_paths,
        build_directory=build_directory,
        verbose=verbose,
    )
    return load_module(name, os.path.abspath(so_path))
