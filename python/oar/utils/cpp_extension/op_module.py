"""The Python face of a loaded custom-op library: a module with one function per op,
taking the op's inputs and then its attributes (Paddle's order), with a signature and a
docstring made from the op's meta info."""

from __future__ import annotations

import inspect
import types

from ... import _C


def _param_names(info):
    """Input names lowercased (Paddle's Python API spells X as x) unless that collides."""
    names = [n for n, _, _ in info["inputs"]] + [n for n, _ in info["attrs"]]
    lowered = [n.lower() for n in names]
    return lowered if len(set(lowered)) == len(lowered) else names


def _doc(info, so_path):
    def arg(n, is_list, optional):
        kind = "list of Tensor" if is_list else "Tensor"
        return f"    {n} ({kind}{', optional' if optional else ''})"

    lines = [f"C++ custom operator '{info['name']}' (from {so_path}).", "", "Args:"]
    params = _param_names(info)
    for p, (_, is_list, optional) in zip(params, info["inputs"]):
        lines.append(arg(p, is_list, optional))
    for p, (_, type_name) in zip(params[len(info["inputs"]) :], info["attrs"]):
        lines.append(f"    {p} ({type_name}): an attribute")
    outs = ", ".join(n + ("[]" if is_list else "") for n, is_list, _ in info["outputs"])
    lines += ["", "Returns:", f"    {outs}"]
    if info["inplace"]:
        pairs = ", ".join(f"{i} -> {o}" for i, o in info["inplace"].items())
        lines.append(f"    (written in place: {pairs})")
    return "\n".join(lines)


def _op_function(info, so_path):
    name = info["name"]
    n_in = len(info["inputs"])
    params = []
    for k, p in enumerate(_param_names(info)):
        optional = k < n_in and info["inputs"][k][2]
        params.append(
            inspect.Parameter(
                p,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=None if optional else inspect.Parameter.empty,
            )
        )
    # An optional input may precede required attributes (Paddle's order): the signature
    # shows its default anyway, and the call binds arguments itself.
    signature = inspect.Signature(params, __validate_parameters__=False)
    names = [p.name for p in params]

    def op(*args, **kwargs):
        if len(args) > len(names):
            raise TypeError(f"{name}() takes {len(names)} arguments but {len(args)} were given")
        values = list(args)
        for p in params[len(args) :]:
            if p.name in kwargs:
                values.append(kwargs.pop(p.name))
            elif p.default is None:
                values.append(None)
            else:
                raise TypeError(f"{name}() missing required argument '{p.name}'")
        if kwargs:
            bad = next(iter(kwargs))
            why = "multiple values for" if bad in names else "an unexpected keyword"
            raise TypeError(f"{name}() got {why} argument '{bad}'")
        return _C._custom_op_run(name, tuple(values[:n_in]), tuple(values[n_in:]))

    op.__name__ = op.__qualname__ = name
    op.__signature__ = signature
    op.__doc__ = _doc(info, so_path)
    return op


def load_module(name: str, so_path: str) -> types.ModuleType:
    """Loads the library at so_path and returns a module named `name` holding its ops."""
    module = types.ModuleType(name, f"C++ custom operators built from {so_path}")
    module.__file__ = so_path
    for info in _C._custom_op_load(so_path):
        fn = _op_function(info, so_path)
        fn.__module__ = name
        setattr(module, info["name"], fn)
    return module
