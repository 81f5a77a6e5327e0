"""Building an installable package of custom operators (Paddle's setup and
CppExtension): a setup.py holding

    from oar.utils.cpp_extension import CppExtension, setup
    setup(name="my_ops", ext_modules=CppExtension(sources=["relu_op.cc"]))

builds, on `pip install .`, a package `my_ops` whose import loads the compiled library
and exposes its ops as functions, as `load` returns them."""

from __future__ import annotations

import os

from ... import sysconfig
from .build import CXX_FLAGS, check_name, check_sources

# The package's __init__.py: finds the library setuptools built beside it.
_INIT = '''"""C++ custom operators built by oar.utils.cpp_extension.setup."""
import glob as _glob
import os as _os

from oar.utils.cpp_extension.op_module import load_module as _load_module

_here = _os.path.dirname(_os.path.abspath(__file__))
_lib = _glob.glob(_os.path.join(_here, "{lib}*.so"))[0]
_ops = _load_module(__name__, _lib)
globals().update({{k: v for k, v in vars(_ops).items() if not k.startswith("_")}})
'''


def CppExtension(sources, *args, **kwargs):
    """A setuptools Extension compiling C++ custom-op sources against oar's headers and
    liboar (rpath); pass it to setup(ext_modules=...)."""
    from setuptools import Extension  # optional: only a setup.py builds packages

    sources = check_sources(sources, "CppExtension")
    for key, extra in [
        ("include_dirs", [sysconfig.get_include()]),
        ("library_dirs", [sysconfig.get_lib()]),
        ("runtime_library_dirs", [sysconfig.get_lib()]),
        ("libraries", [":liboar.so", "stdc++"]),
        ("extra_compile_args", CXX_FLAGS),
    ]:
        kwargs[key] = list(kwargs.get(key) or []) + extra
    kwargs.setdefault("language", "c++")
    return Extension("oar_custom_ops", sources, *args, **kwargs)


def setup(**attrs):
    """setuptools.setup for a package of custom ops: `name` is the package to import,
    `ext_modules` one CppExtension. Other arguments go to setuptools."""
    import setuptools  # optional: only a setup.py builds packages

    name = attrs.get("name")
    check_name(name, "setup")
    ext = attrs.pop("ext_modules", None)
    exts = ext if isinstance(ext, (list, tuple)) else [ext]
    if len(exts) != 1 or not isinstance(exts[0], setuptools.Extension):
        raise ValueError("setup(): ext_modules must be one CppExtension")
    lib = f"_{name}_ops"
    exts[0].name = f"{name}.{lib}"
    # The package directory is written next to setup.py (setuptools wants it relative).
    pkg_dir = os.path.join("build", "oar_custom_ops", name)
    os.makedirs(pkg_dir, exist_ok=True)
    with open(os.path.join(pkg_dir, "__init__.py"), "w") as f:
        f.write(_INIT.format(lib=lib))
    attrs.setdefault("packages", []).append(name)
    attrs.setdefault("package_dir", {})[name] = pkg_dir
    return setuptools.setup(ext_modules=exts, **attrs)
