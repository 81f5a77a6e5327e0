"""summary: the backward graph as an indented text tree plus counts and memory."""

from __future__ import annotations

import collections
import sys
from typing import IO, Literal

from ._graph import _Outputs, _Params, collect

__all__ = ["summary"]


def _shape(n):
    return f"{n['dtype']}[{', '.join(str(s) for s in n['shape'])}]"


def _line(n):
    k = n["kind"]
    if k == "op":
        s = n["name"]
        if n.get("layer"):
            s += f"  [{n['layer']}]"
        if n["saved"]:
            state = " released" if n["released"] else ""
            s += f"  saved {n['saved_bytes']} B{state}"
    elif k == "leaf":
        s = f"{n['name']}  {_shape(n)}  (leaf)"
    elif k == "cut":
        s = f"stop_gradient  {_shape(n)}"
    else:
        s = f"{n['name']}  {_shape(n)}  (output)"
    if n.get("hooks"):
        s += "  hooks: " + ", ".join(sorted({h.get("kind", "hook") for h in n["hooks"]}))
    return s


def summary(
    outputs: _Outputs, params: _Params | None = None, file: IO[str] | Literal[False] | None = None
) -> str:
    """Prints the backward graph of `outputs` as a tree from the outputs (a node
    reached again is printed as "-> (see above)"), then the number of nodes of each
    type, the saved-tensor bytes of each node type and the memory the graph holds
    (each storage counted once). Writes to `file` (default sys.stdout; pass
    False to print nothing) and returns the text."""
    if file is not None and file is not False and not hasattr(file, "write"):
        raise TypeError(
            f"summary: argument 'file' must have a write() method, got {type(file).__name__}"
        )
    try:
        g = collect(outputs, params=params)
    except (TypeError, ValueError) as err:
        raise type(err)(str(err).replace("collect:", "summary:", 1)) from None

    by_id = {n["id"]: n for n in g.nodes}
    inputs = collections.defaultdict(list)  # node id -> ids whose gradient it sends
    for e in g.edges:
        inputs[e["dst"]].append(e["src"])

    lines = []
    printed = set()

    def walk(nid, prefix, last, top):
        branch = "" if top else ("└─ " if last else "├─ ")
        n = by_id[nid]
        if nid in printed:
            lines.append(f"{prefix}{branch}{_line(n)} -> (see above)")
            return
        printed.add(nid)
        lines.append(f"{prefix}{branch}{_line(n)}")
        kids = inputs.get(nid, [])
        sub = prefix if top else prefix + ("   " if last else "│  ")
        for i, k in enumerate(kids):
            walk(k, sub, i == len(kids) - 1, False)

    for n in g.nodes:
        if n["kind"] == "output":
            walk(n["id"], "", True, True)

    counts = collections.Counter()
    saved_by_type = collections.Counter()
    storages = {}
    for n in g.nodes:
        if n["kind"] == "op":
            counts[n["name"]] += 1
            saved_by_type[n["name"]] += n["saved_bytes"]
            for s in n["saved"]:
                if s["storage"] and not s["released"]:
                    # views of one buffer report their own sizes: the largest is the buffer
                    storages[s["storage"]] = max(storages.get(s["storage"], 0), s["bytes"])
        elif n["kind"] == "leaf":
            counts["GradNodeAccumulation"] += 1
        elif n["kind"] == "cut":
            counts["stop_gradient cut"] += 1

    lines.append("")
    lines.append("nodes:")
    width = max((len(k) for k in counts), default=0)
    for k in sorted(counts):
        lines.append(f"  {k:<{width}}  {counts[k]}")
    lines.append(f"  {'total':<{width}}  {sum(counts.values())}")
    lines.append("saved tensors by node type:")
    for k in sorted(saved_by_type):
        lines.append(f"  {k:<{width}}  {saved_by_type[k]} B")
    total = sum(storages.values())
    lines.append(
        f"memory held by the graph: {total} B in {len(storages)} storages (each counted once)"
    )
    text = "\n".join(lines) + "\n"
    if file is not False:
        (file or sys.stdout).write(text)
    return text
