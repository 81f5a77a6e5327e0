"""Pictures and summaries of the backward graph (see docs/viz.md).

collect() / watch() give the graph as data; make_dot, to_html and summary
draw it.
"""
from ._graph import Graph, collect, watch
from .dot import GraphvizNotFoundError, make_dot
from .summary import summary

__all__ = ["Graph", "collect", "watch"]
__all__ += ["make_dot", "GraphvizNotFoundError", "summary"]
