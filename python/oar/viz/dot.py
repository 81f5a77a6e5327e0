"""make_dot: the backward graph as Graphviz DOT text, rendered by the `dot` program.

All labels are HTML-like labels (`label=<...>`) built from html.escape()d text,
so names holding quotes, <, > or backslashes cannot break the DOT syntax.
"""

from __future__ import annotations

import html
import os
import shutil
import subprocess
import tempfile

from ._graph import _Outputs, _Params, collect

__all__ = ["make_dot", "Digraph", "GraphvizNotFoundError"]

_FORMATS = ("svg", "png", "pdf")

# kind -> node attributes; the legend is drawn from the same table so they cannot drift.
_STYLE = {
    "param": 'shape=box, style="filled", fillcolor="#cfe2f3"',
    "leaf": 'shape=box, style="filled,dashed", fillcolor="#d0e0e3"',
    "op": 'shape=box, style="filled,rounded", fillcolor="#eeeeee"',
    "hooked": 'shape=box, style="filled,rounded,bold", fillcolor="#fce5cd", color="#e69138"',
    "output": 'shape=box, style="filled,bold", fillcolor="#d9ead3", color="#38761d"',
    "cut": 'shape=box, style="filled,dashed", fillcolor="#f4cccc", color="#cc0000"',
    "hidden": 'shape=box, style="dashed", color="#666666"',
}
_LEGEND = (
    ("param", "parameter (leaf)"),
    ("leaf", "other leaf"),
    ("op", "grad node"),
    ("hooked", "hook / retained grad"),
    ("output", "output"),
    ("cut", "stop_gradient cut"),
    ("hidden", "hidden by max_nodes"),
)
_FILL = {
    "param": "#cfe2f3",
    "leaf": "#d0e0e3",
    "op": "#eeeeee",
    "hooked": "#fce5cd",
    "output": "#d9ead3",
    "cut": "#f4cccc",
    "hidden": "#ffffff",
}


class GraphvizNotFoundError(RuntimeError):
    """The Graphviz `dot` program is not on PATH."""


def _dot_program(who):
    exe = shutil.which("dot")
    if exe is None:
        raise GraphvizNotFoundError(
            f"{who}: the Graphviz 'dot' program was not found on PATH; install the "
            f"Debian package 'graphviz' (apt-get install graphviz), or use .source"
        )
    return exe


def _run_dot(source, fmt, who):
    exe = _dot_program(who)
    r = subprocess.run(
        [exe, f"-T{fmt}"],
        input=source.encode("utf-8"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    if r.returncode != 0:
        raise RuntimeError(
            f"{who}: dot failed ({r.returncode}): {r.stderr.decode('utf-8', 'replace').strip()}"
        )
    return r.stdout


class Digraph:
    """DOT text (`source`) that can be rendered with the `dot` program."""

    def __init__(self, source):
        self.source = source

    def __str__(self):
        return self.source

    def pipe(self, format="svg"):
        """The rendered picture as bytes."""
        if format not in _FORMATS:
            raise ValueError(
                f"Digraph.pipe: argument 'format' must be one of {_FORMATS}, got {format!r}"
            )
        return _run_dot(self.source, format, "Digraph.pipe")

    def render(self, path, format="svg"):
        """Writes the picture to `path` and returns the path."""
        if format not in _FORMATS:
            raise ValueError(
                f"Digraph.render: argument 'format' must be one of {_FORMATS}, got {format!r}"
            )
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(
                f"Digraph.render: argument 'path' must be a str or path, got {type(path).__name__}"
            )
        data = _run_dot(self.source, format, "Digraph.render")
        # Write next to the target and rename, so a failure never leaves half a file.
        path = os.fspath(path)
        d = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(dir=d, suffix="." + format)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        return path

    def _repr_svg_(self):
        return self.pipe("svg").decode("utf-8")


def _e(text):
    return html.escape(str(text), quote=True)


def _shape(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]" if shape is not None else "?"


def _bytes(n):
    return f"{n} B" if n < 1024 else f"{n} B ({n / 1024:.1f} KiB)"


def _hook_text(hooks):
    kinds = sorted({h.get("kind", "hook") for h in hooks})
    return "hooks: " + ", ".join(kinds)


def _label(rows):
    """An HTML-like table label; rows are (text, bold, small) with text unescaped."""
    cells = []
    for text, bold, small in rows:
        t = _e(text)
        if bold:
            t = f"<B>{t}</B>"
        if small:
            t = f'<FONT POINT-SIZE="9">{t}</FONT>'
        cells.append(f"<TR><TD>{t}</TD></TR>")
    return '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0">' + "".join(cells) + "</TABLE>>"


def _node_style(n):
    k = n["kind"]
    if k == "leaf":
        k = "param" if n.get("param") else "leaf"
    if n.get("hooks"):
        k = "hooked"
    return _STYLE[k]


def _node_label(n, show_attrs, show_saved, show_stack):
    k = n["kind"]
    if k in ("leaf", "output", "cut"):
        rows = [(n["name"], True, False), (f"{_shape(n['shape'])} {n['dtype']}", False, False)]
        if k == "output" and n.get("stop_gradient"):
            rows.append(("stop_gradient=True", False, True))
    else:
        rows = [(n["name"], True, False)]
        if n.get("layer"):
            rows.append((n["layer"], False, True))
        if show_attrs:
            for key in sorted(n["attributes"]):
                rows.append((f"{key}={n['attributes'][key]}", False, True))
        if show_saved:
            for s in n["saved"]:
                what = "released" if s["released"] else _bytes(s["bytes"])
                if s.get("meta_only") and not s["released"]:
                    what += " (shape only)"
                rows.append(
                    (f"saved {s['name']}: {_shape(s['shape'])} {s['dtype']}, {what}", False, True)
                )
        if show_stack and n.get("stack"):
            f, line, fn = n["stack"][0]  # innermost frame: the user's own call
            rows.append((f"{os.path.basename(f)}:{line} in {fn}", False, True))
    if n.get("hooks"):
        rows.append((_hook_text(n["hooks"]), False, True))
    return _label(rows)


def _layer_tree(paths):
    """{path: [child paths]} over every path and its dotted prefixes, plus the roots."""
    every = set()
    for p in paths:
        parts = p.split(".")
        for i in range(1, len(parts) + 1):
            every.add(".".join(parts[:i]))
    children = {p: [] for p in every}
    roots = []
    for p in sorted(every):
        parent = p.rsplit(".", 1)[0] if "." in p else None
        (children[parent] if parent in children else roots).append(p)
    return roots, children


def _legend():
    rows = "".join(
        f'<TR><TD BGCOLOR="{_FILL[k]}" BORDER="1">{_e(text)}</TD></TR>' for k, text in _LEGEND
    )
    return (
        '  subgraph cluster_legend {\n    label=<legend>; style="dashed"; color="#999999";\n'
        '    legend [shape=plaintext, label=<<TABLE BORDER="0" CELLSPACING="2">'
        + rows
        + "</TABLE>>];\n  }\n"
    )


def _check_flag(name, value):
    if not isinstance(value, bool):
        raise TypeError(f"make_dot: argument '{name}' must be a bool, got {type(value).__name__}")


def make_dot(
    outputs: _Outputs,
    params: _Params | None = None,
    show_attrs: bool = False,
    show_saved: bool = False,
    show_stack: bool = False,
    group_by_layer: bool = True,
    max_nodes: int | None = None,
) -> Digraph:
    """The backward graph of `outputs` (a Tensor or a list/tuple/dict of them) as a
    Digraph: `.source` is the DOT text, `.render(path, format)` writes svg/png/pdf.

    params names the leaves (a Layer, a dict name -> tensor, or pairs). show_attrs,
    show_saved and show_stack add each grad node's attributes, saved tensors (bytes,
    or "released" once backward freed them) and innermost forward call site
    (recorded with FLAGS_record_forward_stack). group_by_layer draws the nodes of
    each layer path in nested clusters. max_nodes keeps that many grad nodes nearest
    the outputs and draws one node saying how many were hidden."""
    for name, v in (
        ("show_attrs", show_attrs),
        ("show_saved", show_saved),
        ("show_stack", show_stack),
        ("group_by_layer", group_by_layer),
    ):
        _check_flag(name, v)
    if max_nodes is not None and (
        isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1
    ):
        raise ValueError(
            f"make_dot: argument 'max_nodes' must be a positive int or None, got {max_nodes!r}"
        )
    try:
        g = collect(outputs, params=params, max_nodes=max_nodes)
    except (TypeError, ValueError) as err:
        raise type(err)(str(err).replace("collect:", "make_dot:", 1)) from None

    by_id = {n["id"]: n for n in g.nodes}
    # A leaf goes into its consumers' layer when they all share one (a layer's own
    # weights sit with it); otherwise it stays at the top.
    consumers = {}
    for e in g.edges:
        consumers.setdefault(e["src"], set()).add(by_id[e["dst"]].get("layer"))
    place = {}
    for n in g.nodes:
        layer = n.get("layer") if n["kind"] == "op" else None
        if n["kind"] in ("leaf", "cut"):
            ls = consumers.get(n["id"], set())
            layer = next(iter(ls)) if len(ls) == 1 else None
        place[n["id"]] = layer if group_by_layer else None

    lines = [
        "digraph backward {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, newrank=true];',
        '  node [fontname="Helvetica", fontsize=10, margin="0.05,0.03"];',
        '  edge [fontname="Helvetica", fontsize=8, color="#555555"];',
    ]

    def node_line(n, indent):
        return (
            f"{indent}{n['id']} [{_node_style(n)}, "
            f"label={_node_label(n, show_attrs, show_saved, show_stack)}];"
        )

    members = {}
    for n in g.nodes:
        members.setdefault(place[n["id"]], []).append(n)
    for n in members.get(None, []):
        lines.append(node_line(n, "  "))

    roots, children = _layer_tree([p for p in members if p is not None])
    order = sorted(children)

    def cluster(path, depth):
        ind = "  " * depth
        lines.append(f"{ind}subgraph cluster_{order.index(path)} {{")
        lines.append(
            f'{ind}  label=<{_e(path)}>; style="rounded"; color="#7f9fbf"; fontcolor="#3d5a80";'
        )
        for n in members.get(path, []):
            lines.append(node_line(n, ind + "  "))
        for c in children[path]:
            cluster(c, depth + 1)
        lines.append(f"{ind}}}")

    for r in roots:
        cluster(r, 1)

    if g.hidden:
        lines.append(
            f'  hidden [{_STYLE["hidden"]}, label='
            f'{_label([(f"{g.hidden} more nodes hidden", True, False), (f"max_nodes={max_nodes}", False, True)])}];'
        )
        for dst in g.frontier:
            lines.append(f'  hidden -> {dst} [style="dashed", color="#999999"];')

    for e in g.edges:
        attrs = [f"label=<{_e(e['label'])}>"]
        if e.get("cut"):
            attrs.append('style="dashed", color="#cc0000", fontcolor="#cc0000"')
        elif by_id[e["dst"]]["kind"] == "output":
            attrs.append('color="#38761d", penwidth=1.5')
        lines.append(f"  {e['src']} -> {e['dst']} [{', '.join(attrs)}];")
    lines.append(_legend())
    lines.append("}")
    return Digraph("\n".join(lines) + "\n")
