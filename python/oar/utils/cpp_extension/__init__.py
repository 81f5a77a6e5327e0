"""oar.utils.cpp_extension: where C++ extensions would be built.

Only get_build_directory is here: oar does not compile or load C++ custom operators at
run time (Paddle's load/setup/CppExtension). A C++ program uses oar through its CMake
package (find_package(oar), docs/python.md)."""

from __future__ import annotations

import os

__all__ = ["get_build_directory"]


def get_build_directory(verbose: bool = False) -> str:
    """The directory for building extensions: $OAR_EXTENSION_DIR, else
    ~/.cache/oar_extensions (created if missing)."""
    root = os.environ.get("OAR_EXTENSION_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "oar_extensions"
    )
    root = os.path.abspath(os.path.expanduser(root))
    if not os.path.isdir(root):
        if verbose:
            print(f"Creating the build directory {root}")
        os.makedirs(root, exist_ok=True)
    return root
