"""Pictures and summaries of the backward graph (docs/viz.md, docs/viz_viewer.md).

collect() / watch() give the graph as data; make_dot (Graphviz), to_html (a
self-contained interactive page) and summary (a text tree) draw it.
"""

from ._graph import Graph, collect, watch
from .dot import GraphvizNotFoundError, make_dot
from .html import to_html
from .summary import summary

__all__ = ["Graph", "collect", "watch", "make_dot", "GraphvizNotFoundError", "summary", "to_html"]
