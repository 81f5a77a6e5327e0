"""Pictures and summaries of the backward graph (see docs/viz.md).

collect() / watch() give the graph as data; make_dot, to_html and summary
draw it.
"""
from ._graph import Graph, collect, watch

__all__ = ["Graph", "collect", "watch"]
from .html import to_html

__all__ += ["to_html"]
