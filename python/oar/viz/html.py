"""to_html: the backward graph as one self-contained, interactive HTML file.

The page carries the graph as JSON plus the viewer's JS and CSS inline (read
from _viewer.js / _viewer.css next to this file), so it opens from disk with no
network. Layout, grouping by layer, folding of repeated blocks, search and the
gradient overlay all run in the browser (see docs/viz_viewer.md).
"""

from __future__ import annotations

import html as _html
import json
import math
import os
from pathlib import Path

from ._graph import _Outputs, _Params, _Watch, collect

__all__ = ["to_html"]

_HERE = Path(__file__).resolve().parent


def _asset(name):
    return (_HERE / name).read_text(encoding="utf-8")


def _finite(obj):
    """JSON.parse rejects NaN/Infinity, so non-finite floats travel as strings."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else repr(obj)
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _json_for_script(data):
    # "<" only occurs inside JSON strings, where \u003c means the same; this
    # keeps "</script>" or "<!--" in a name from ending the script element.
    s = json.dumps(_finite(data), allow_nan=False, separators=(",", ":"), default=str)
    return s.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _strip_grads(d):
    for n in d["nodes"]:
        n.pop("grad_norm", None)
        n.pop("grad_bad", None)
    for e in d["edges"]:
        e.pop("grad_norm", None)
        e.pop("grad_bad", None)


def to_html(
    outputs: _Outputs,
    path: str | os.PathLike[str],
    params: _Params | None = None,
    grads: _Watch | bool = False,
    max_nodes: int | None = None,
    collapse_above: int = 50,
    title: str | None = None,
) -> Path:
    """Writes the backward graph reachable from `outputs` to `path` as one HTML
    file to open in a browser: pan (drag), zoom (wheel or buttons), search by
    tensor or op name, layers as collapsible groups, repeated identical blocks
    folded as "xN", a details panel for the clicked node.

    params: names leaves (a Layer, a dict name -> tensor, or pairs).
    grads: False (no gradient overlay); True (after backward(): the leaves'
        .grad norms); or a handle from oar.viz.watch(outputs) taken before
        backward() (the norm of the gradient on every edge as well). Norms are
        coloured on a log scale; NaN/Inf gradients are drawn red.
    max_nodes: keep at most that many grad nodes (nearest the outputs).
    collapse_above: a layer group that would show more than this many boxes
        starts collapsed.
    Returns the path written, as a pathlib.Path.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"to_html: argument 'path' must be a str or os.PathLike, got {type(path).__name__}"
        )
    if isinstance(grads, _Watch):
        watched = grads
    elif isinstance(grads, bool):
        watched = None
    else:
        raise TypeError(
            f"to_html: argument 'grads' must be a bool or a handle from "
            f"oar.viz.watch(), got {type(grads).__name__}"
        )
    if (
        isinstance(collapse_above, bool)
        or not isinstance(collapse_above, int)
        or collapse_above < 1
    ):
        raise ValueError(
            f"to_html: argument 'collapse_above' must be a positive int, got {collapse_above!r}"
        )
    if title is not None and not isinstance(title, str):
        raise TypeError(
            f"to_html: argument 'title' must be a str or None, got {type(title).__name__}"
        )
    try:
        g = collect(outputs, params=params, max_nodes=max_nodes, grads=watched)
    except (TypeError, ValueError) as e:
        raise type(e)(str(e).replace("collect:", "to_html:", 1)) from None
    d = g.to_dict()
    show_grads = grads is not False
    if not show_grads:
        _strip_grads(d)
    d["grads"] = show_grads
    d["collapse_above"] = collapse_above
    title = title or "oar backward graph"
    d["title"] = title
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        f"<title>{_html.escape(title)}</title>\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<style>\n{_asset('_viewer.css')}\n</style>\n</head>\n<body>\n"
        f"<script type=\"application/json\" id=\"oar-graph\">{_json_for_script(d)}</script>\n"
        f"<script>\n{_asset('_viewer.js')}\n</script>\n</body></html>\n"
    )
    out = Path(path)
    out.write_text(page, encoding="utf-8")
    return out
