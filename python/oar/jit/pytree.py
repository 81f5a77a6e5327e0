"""Nested Python values (tuples, lists, dicts of tensors and constants) as a flat list
of tensors plus a structure: what a captured function takes and returns."""

from __future__ import annotations

from typing import Any

from ..framework.dtype import convert_dtype, dtype
from .. import _C

__all__ = ["flatten", "unflatten", "structure_to_json", "structure_from_json"]

# A structure: ("T", None) a tensor, ("C", value) a constant, (kind, [children]) a
# tuple/list, ("D", [(key, child), ...]) a dict.


def flatten(value: Any, tensors: list) -> tuple:
    """Appends the tensors of value to tensors (in order); returns its structure."""
    if isinstance(value, _C.Tensor):
        tensors.append(value)
        return ("T", None)
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return ("tuple", [flatten(v, tensors) for v in value])
    if isinstance(value, list):
        return ("list", [flatten(v, tensors) for v in value])
    if isinstance(value, dict):
        return ("D", [(k, flatten(v, tensors)) for k, v in value.items()])
    return ("C", value)


def unflatten(structure: tuple, tensors: list, pos: list | None = None) -> Any:
    """The value of structure with its tensors taken from tensors in order."""
    pos = [0] if pos is None else pos
    kind, body = structure
    if kind == "T":
        pos[0] += 1
        return tensors[pos[0] - 1]
    if kind == "tuple":
        return tuple(unflatten(s, tensors, pos) for s in body)
    if kind == "list":
        return [unflatten(s, tensors, pos) for s in body]
    if kind == "D":
        return {k: unflatten(s, tensors, pos) for k, s in body}
    return body


def hashable(structure: tuple) -> Any:
    """A hashable form of structure (a cache key): constants by type and value."""
    kind, body = structure
    if kind == "T":
        return "T"
    if kind == "C":
        try:
            hash(body)
            return ("C", type(body).__name__, body)
        except TypeError:
            return ("C", type(body).__name__, repr(body))
    if kind == "D":
        return ("D", tuple((k, hashable(s)) for k, s in body))
    return (kind, tuple(hashable(s) for s in body))


def structure_to_json(structure: tuple) -> Any:
    """The structure of a saved model's outputs, as JSON (constants: None, bool, int,
    float, str, dtype; anything else cannot be saved)."""
    kind, body = structure
    if kind == "T":
        return {"kind": "tensor"}
    if kind == "C":
        if isinstance(body, dtype):
            return {"kind": "dtype", "value": body.name}
        if body is None or isinstance(body, (bool, int, float, str)):
            return {"kind": "const", "value": body}
        raise TypeError(
            f"jit.save(): the layer returns a {type(body).__name__}, which a saved model "
            f"cannot hold; return tensors, numbers, strings or None (in tuples, lists, dicts)"
        )
    if kind == "D":
        for k, _ in body:
            if not isinstance(k, str):
                raise TypeError("jit.save(): a returned dict must have str keys")
        return {"kind": "dict", "items": [[k, structure_to_json(s)] for k, s in body]}
    return {"kind": kind, "items": [structure_to_json(s) for s in body]}


def structure_from_json(j: Any, where: str) -> tuple:
    if not isinstance(j, dict) or "kind" not in j:
        raise ValueError(f"jit.load(): {where}: the output structure is corrupt")
    kind = j["kind"]
    if kind == "tensor":
        return ("T", None)
    if kind == "const":
        return ("C", j.get("value"))
    if kind == "dtype":
        return ("C", convert_dtype(j["value"]))
    if kind in ("tuple", "list"):
        return (kind, [structure_from_json(s, where) for s in j.get("items", [])])
    if kind == "dict":
        return ("D", [(k, structure_from_json(s, where)) for k, s in j.get("items", [])])
    raise ValueError(f"jit.load(): {where}: unknown output kind {kind!r}")
