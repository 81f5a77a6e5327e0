"""Compiling C++ custom-operator sources into a shared library, with a cache.

The library is named by a hash of everything that goes into it (the sources' bytes, the
flags, the compiler, oar's headers and liboar, and the bytes of the user's own headers the
sources include), so an unchanged `load` finds it and runs no compiler, and a changed
source, header or flag makes a new file: a process that already loaded the old one can
load the new one beside it (dlopen would hand back the old library for a reused path). A
build writes to a temporary name and renames it into place only when the compiler
succeeded, so a failed build leaves nothing that a later `load` could pick up.

Which headers a source includes is known only once it was compiled, so the key has two
levels: the base key (sources, flags, toolchain) names a manifest, written after each
build from the compiler's dependency output (-MMD), listing the headers outside oar's
include directory; the library's name hashes the base key with those headers' bytes."""

from __future__ import annotations

import fcntl
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

from ... import sysconfig

CXX_FLAGS = ["-std=c++20", "-O2", "-fPIC", "-fvisibility-inlines-hidden"]
_GPU_SUFFIXES = (".cu", ".cuh")


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


def compiler() -> str:
    """The C++ compiler: $CXX, else g++."""
    return os.environ.get("CXX") or "g++"


def check_sources(sources, api: str = "load") -> list:
    """The sources as absolute paths; CUDA sources and missing files are errors."""
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    if not sources:
        raise ValueError(f"{api}(): argument 'sources' must name at least one source file")
    out = []
    for src in sources:
        src = os.path.abspath(os.fspath(src))
        if src.endswith(_GPU_SUFFIXES):
            raise NotImplementedError(
                f"{api}(): {src} is a CUDA source; oar has no GPU backend, so custom "
                f"operators are C++ CPU kernels only (docs/custom_ops.md)"
            )
        if not os.path.isfile(src):
            raise FileNotFoundError(f"{api}(): source file {src} does not exist")
        out.append(src)
    return out


def check_name(name, api: str = "load") -> None:
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"{api}(): argument 'name' must be a Python identifier, but got {name!r}")


def _digest(sources, cflags, ldflags, includes) -> str:
    h = hashlib.sha256()
    lib = os.path.join(sysconfig.get_lib(), "liboar.so")
    st = os.stat(lib) if os.path.exists(lib) else None
    stamp = (
        compiler(),
        cflags,
        ldflags,
        includes,
        sysconfig.get_include(),
        st and (st.st_size, st.st_mtime_ns),
    )
    h.update(repr(stamp).encode())
    for src in sources:
        h.update(src.encode())
        with open(src, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def _with_headers(base, headers) -> str:
    """The library's key: the base key, and the bytes of each header (a header that is
    gone counts as changed)."""
    if not headers:
        return base
    h = hashlib.sha256(base.encode())
    for path in headers:
        h.update(path.encode() + b"\0")
        try:
            with open(path, "rb") as f:
                h.update(f.read())
        except OSError:
            h.update(b"\0missing")
    return h.hexdigest()[:16]


def _read_manifest(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _depfile_headers(depfiles, sources, cwd):
    """The files the compiler's dependency output lists, minus the sources and oar's own
    headers (those are covered by the installed-liboar part of the key). A relative path
    is relative to the directory the compiler ran in, `cwd`."""
    skip = {os.path.realpath(src) for src in sources}
    oar_include = os.path.join(os.path.realpath(sysconfig.get_include()), "")
    found = set()
    for depfile in depfiles:
        with open(depfile) as f:
            text = f.read().replace("\\\n", " ")
        _, _, deps = text.partition(": ")
        # Paths are separated by unescaped whitespace; make writes a space in a path as "\ ".
        for dep in re.split(r"(?<!\\)\s+", deps.strip()):
            if not dep:
                continue
            path = os.path.realpath(os.path.join(cwd, dep.replace("\\ ", " ")))
            if path not in skip and not path.startswith(oar_include):
                found.add(path)
    return sorted(found)


def _commands(sources, out, obj_dir, cflags, ldflags, includes):
    """One compile command per source (each writing its dependency list to <obj>.d) and
    the link command."""
    inc = [f"-I{sysconfig.get_include()}"] + [f"-I{os.path.abspath(p)}" for p in includes]
    compiles, objects = [], []
    for k, src in enumerate(sources):
        obj = os.path.join(obj_dir, f"{k}_{os.path.splitext(os.path.basename(src))[0]}.o")
        deps = ["-MMD", "-MF", obj + ".d"]
        compiles.append([compiler(), *CXX_FLAGS, *inc, *cflags, *deps, "-c", src, "-o", obj])
        objects.append(obj)
    lib = sysconfig.get_lib()
    link = [
        compiler(),
        "-shared",
        *objects,
        "-o",
        out,
        f"-L{lib}",
        "-l:liboar.so",
        f"-Wl,-rpath,{lib}",
        *ldflags,
    ]
    return compiles, link


def _write_ninja(path, compiles, link):
    lines = [
        "rule run",
        "  command = $cmd",
        "  description = $desc",
        "",
        # The command writes $out.d itself; without `deps = gcc` ninja leaves the file
        # in place, where the cache key reads the headers from it.
        "rule cxx",
        "  command = $cmd",
        "  depfile = $out.d",
        "  description = $desc",
        "",
    ]
    for cmd in compiles:
        lines += [
            f"build {cmd[-1]}: cxx {cmd[-3]}",
            f"  cmd = {shlex.join(cmd)}",
            f"  desc = compiling {os.path.basename(cmd[-3])}",
        ]
    objects = " ".join(cmd[-1] for cmd in compiles)
    out = link[link.index("-o") + 1]
    lines += [
        f"build {out}: run {objects}",
        f"  cmd = {shlex.join(link)}",
        f"  desc = linking {os.path.basename(out)}",
        "",
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def _run(cmds, cwd, log, verbose):
    """Runs commands in order; a failure raises with the compiler's own output."""
    for cmd in cmds:
        with open(log, "a") as f:
            f.write(shlex.join(cmd) + "\n")
        if verbose:
            print(shlex.join(cmd), file=sys.stderr)
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(
                f"building the custom op library failed:\n$ {shlex.join(cmd)}\n"
                f"{proc.stdout}{proc.stderr}"
            )


def build_library(
    name,
    sources,
    extra_cxx_cflags=None,
    extra_ldflags=None,
    extra_include_paths=None,
    build_directory=None,
    verbose=False,
) -> str:
    """Compiles `sources` into <build_directory>/<name>/<name>_<hash>.so unless that file
    exists; returns its path. The commands run are appended to build.log there."""
    check_name(name)
    sources = check_sources(sources)
    cflags = list(extra_cxx_cflags or [])
    ldflags = list(extra_ldflags or [])
    includes = [os.fspath(p) for p in (extra_include_paths or [])]
    root = os.path.abspath(build_directory) if build_directory else get_build_directory(verbose)
    out_dir = os.path.join(root, name)
    os.makedirs(out_dir, exist_ok=True)
    base = _digest(sources, cflags, ldflags, includes)
    manifest = os.path.join(out_dir, f"{name}_{base}.headers")
    with open(os.path.join(out_dir, ".lock"), "w") as lock:
        # One build of a name at a time (parallel test processes sharing a directory).
        fcntl.flock(lock, fcntl.LOCK_EX)
        headers = _read_manifest(manifest)
        if headers is not None:
            out = os.path.join(out_dir, f"{name}_{_with_headers(base, headers)}.so")
            if os.path.exists(out):
                if verbose:
                    print(f"Using the cached {out}", file=sys.stderr)
                return out
        tmp = os.path.join(out_dir, f"{name}_{base}.so.tmp")
        compiles, link = _commands(sources, tmp, out_dir, cflags, ldflags, includes)
        log = os.path.join(out_dir, "build.log")
        try:
            if shutil.which("ninja"):
                _write_ninja(os.path.join(out_dir, "build.ninja"), compiles, link)
                _run([["ninja", "-f", "build.ninja"]], out_dir, log, verbose)
            else:
                _run(compiles + [link], out_dir, log, verbose)
            depfiles = [cmd[-1] + ".d" for cmd in compiles]
            headers = _depfile_headers(depfiles, sources, out_dir)
            out = os.path.join(out_dir, f"{name}_{_with_headers(base, headers)}.so")
            with open(manifest, "w") as f:
                json.dump(headers, f)
            os.replace(tmp, out)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        for old in glob.glob(os.path.join(out_dir, f"{name}_*.so")):
            if old != out:
                os.remove(old)  # a process that loaded it keeps its mapping
        for old in glob.glob(os.path.join(out_dir, f"{name}_*.headers")):
            if old != manifest:
                os.remove(old)
        return out
