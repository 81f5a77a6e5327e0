"""The backward graph as plain data: what make_dot, to_html and summary draw.

collect() walks Tensor.grad_fn / GradNode.next_functions from the outputs and
returns a Graph of dict nodes and edges (JSON-ready). Node kinds:

- "op": a grad node (name, forward_op, attributes, saved tensors, hooks,
  sequence_nr, layer_path, forward_stack, released);
- "leaf": a leaf tensor that needs a gradient, through its accumulation node
  (one node per leaf however often it is used: shared weights are one node);
  its name comes from `params` (name -> tensor, or a Layer), else Tensor.name;
- "output": an output tensor passed to collect();
- "cut": where an edge is cut by stop_gradient (the input had no grad path).

Edges run in the forward direction (from the node that receives a gradient
from the consumer, to the consumer): src is closer to the leaves. Each edge
carries the shape and dtype of the gradient it carries.
"""

from __future__ import annotations

import numpy as np

import collections
import collections.abc
from typing import Any, Iterable, Iterator, Protocol, Union

from ..framework.typing import Tensor

__all__ = ["collect", "Graph", "watch"]

# What collect() and the drawings start from: a Tensor, or a list/tuple/dict of them.
_Outputs = Union[Tensor, list[Tensor], tuple[Tensor, ...], dict[Any, Tensor]]


class _NamedParameters(Protocol):
    """A Layer, as far as params uses it."""

    def named_parameters(self) -> Iterable[tuple[str, Tensor]]: ...


# What names the leaves: a Layer, a dict name -> Tensor, or (name, Tensor) pairs.
_Params = Union[
    _NamedParameters,
    dict[str, Tensor],
    list[tuple[str, Tensor]],
    tuple[tuple[str, Tensor], ...],
    Iterator[tuple[str, Tensor]],
]


def _dtype_name(d):
    return None if d is None else getattr(d, "name", str(d))


def _shape_str(shape, dtype):
    if shape is None:
        return ""
    return f"{_dtype_name(dtype)}[{', '.join(str(s) for s in shape)}]"


def _as_list(outputs):
    if isinstance(outputs, (list, tuple)):
        return list(outputs)
    if isinstance(outputs, dict):
        return list(outputs.values())
    return [outputs]


def _param_names(params):
    """{accumulation node: name} from a Layer, a dict name -> tensor, or pairs."""
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        params = list(params.named_parameters())
    if isinstance(params, collections.abc.Iterator):  # e.g. layer.named_parameters()
        params = list(params)
    if not isinstance(params, (dict, list, tuple)):
        raise TypeError(
            f"collect: argument 'params' must be a Layer, a dict name -> Tensor "
            f"or (name, Tensor) pairs, got {type(params).__name__}"
        )
    items = params.items() if isinstance(params, dict) else params
    names = {}
    for name, t in items:
        fn = getattr(t, "grad_fn", None)
        if fn is not None and fn not in names:
            names[fn] = name
    return names


def _norm_and_bad(t):
    """(L2 norm, has NaN or Inf) of a tensor's values, computed in float64."""
    a = np.asarray(t, dtype=np.float64)
    bad = bool(a.size and not np.isfinite(a).all())
    finite = a[np.isfinite(a)] if bad else a
    return float(np.sqrt(np.sum(finite * finite))) if finite.size else 0.0, bad


class _Watch:
    """Gradient norms seen on each op node's inputs during a backward (see watch())."""

    def __init__(self):
        self.norms = {}  # (node, slot, rank) -> (norm, bad)
        self.handles = []

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def watch(outputs: _Outputs) -> _Watch:
    """Registers hooks on every grad node reachable from outputs that record the
    norm of the gradient arriving at each input slot, for collect(..., grads=w)
    (and to_html(..., grads=True)) to draw on the edges. Returns a handle whose
    remove() (or leaving a `with` block) unregisters the hooks; the recorded
    norms stay. Call it before backward()."""
    w = _Watch()
    seen = set()
    stack = [t.grad_fn for t in _as_list(outputs) if getattr(t, "grad_fn", None) is not None]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        for m in n.input_meta():
            key = (n, m["slot"], m["rank"])

            def hook(g, key=key):
                w.norms[key] = _norm_and_bad(g)

            w.handles.append(n.register_hook(hook, m["slot"], m["rank"]))
        for nf in n.next_functions:
            if nf is not None:
                stack.append(nf[0])
    return w


class Graph:
    """nodes: list of dicts with 'id' and 'kind' (see the module docstring);
    edges: list of dicts with 'src', 'dst', 'shape', 'dtype', 'label' (and
    'grad_norm', 'grad_bad' when gradients were watched); hidden: how many grad
    nodes max_nodes left out; frontier: ids of kept nodes with an input among the
    hidden ones; layers: every layer path seen, outermost first."""

    def __init__(self):
        self.nodes = []
        self.edges = []
        self.hidden = 0
        self.frontier = []
        self.layers = []

    def to_dict(self):
        return {
            "nodes": self.nodes,
            "edges": self.edges,
            "hidden": self.hidden,
            "frontier": self.frontier,
            "layers": self.layers,
        }

    def node(self, node_id):
        for n in self.nodes:
            if n["id"] == node_id:
                return n
        raise KeyError(node_id)


def collect(
    outputs: _Outputs,
    params: _Params | None = None,
    max_nodes: int | None = None,
    grads: _Watch | bool | None = None,
) -> Graph:
    """The backward graph reachable from `outputs` (a Tensor or a list/tuple/dict
    of them) as a Graph. `params` names leaves (a Layer, a dict name -> tensor or
    (name, tensor) pairs). With `max_nodes`, at most that many grad nodes are
    kept (breadth-first from the outputs) and Graph.hidden counts the rest.
    `grads`: a watch() handle (edge gradient norms), or True to add only the
    leaves' .grad norms (always added when a leaf has a .grad)."""
    if max_nodes is not None and (not isinstance(max_nodes, int) or max_nodes < 1):
        raise ValueError(
            f"collect: argument 'max_nodes' must be a positive int or None, got {max_nodes!r}"
        )
    outs = _as_list(outputs)
    for i, t in enumerate(outs):
        if not hasattr(t, "grad_fn"):
            raise TypeError(
                f"collect: argument 'outputs' must hold Tensors, got "
                f"{type(t).__name__} at position {i}"
            )
    names = _param_names(params)
    g = Graph()
    ids = {}  # GradNode -> node id

    def nid(n):
        if n not in ids:
            ids[n] = f"n{len(ids)}"
        return ids[n]

    # Breadth-first from the outputs, so max_nodes keeps the part nearest the loss.
    order, seen = [], set()
    queue = collections.deque(t.grad_fn for t in outs if t.grad_fn is not None)
    while queue:
        n = queue.popleft()
        if n in seen:
            continue
        seen.add(n)
        order.append(n)
        for nf in n.next_functions:
            if nf is not None and nf[0] not in seen:
                queue.append(nf[0])
    kept = order if max_nodes is None else order[:max_nodes]
    kept_set = set(kept)
    g.hidden = len(order) - len(kept)
    layers = []
    watched = grads.norms if isinstance(grads, _Watch) else {}

    for n in kept:
        i = nid(n)
        if n.name() == "GradNodeAccumulation":
            v = n.variable
            name = names.get(n) or (v.name if v is not None else None) or "leaf"
            node = {
                "id": i,
                "kind": "leaf",
                "name": name,
                "op": "GradNodeAccumulation",
                "shape": None if v is None else list(v.shape),
                "dtype": None if v is None else _dtype_name(v.dtype),
                "param": n in names,
                "hooks": n.hooks(),
                "sequence_nr": n.sequence_nr,
            }
            node["label"] = _shape_str(node["shape"], node["dtype"])
            if v is not None and v.grad is not None:
                node["grad_norm"], node["grad_bad"] = _norm_and_bad(v.grad)
            g.nodes.append(node)
            continue
        saved = n.saved_tensors()
        for s in saved:
            s["dtype"] = _dtype_name(s["dtype"])
        stack = n.forward_stack
        node = {
            "id": i,
            "kind": "op",
            "name": n.name(),
            "op": n.forward_op,
            "sequence_nr": n.sequence_nr,
            "layer": n.layer_path,
            "attributes": n.attributes(),
            "saved": saved,
            "saved_bytes": sum(s["bytes"] for s in saved),
            "hooks": n.hooks(),
            "released": n.released,
            "stack": [list(f) for f in stack] if stack else None,
        }
        if n.layer_path is not None and n.layer_path not in layers:
            layers.append(n.layer_path)
        g.nodes.append(node)

    for n in kept:
        if n.name() == "GradNodeAccumulation":
            continue
        metas = n.output_meta()
        for k, nf in enumerate(n.next_functions):
            m = metas[k] if k < len(metas) else {"shape": None, "dtype": None}
            shape, dtype = m.get("shape"), _dtype_name(m.get("dtype"))
            if nf is None:
                if shape is None:  # an optional input that was not given
                    continue
                cut = f"{nid(n)}_cut{k}"
                g.nodes.append(
                    {
                        "id": cut,
                        "kind": "cut",
                        "name": "stop_gradient",
                        "shape": shape,
                        "dtype": dtype,
                        "label": _shape_str(shape, dtype),
                    }
                )
                g.edges.append(
                    {
                        "src": cut,
                        "dst": nid(n),
                        "shape": shape,
                        "dtype": dtype,
                        "label": _shape_str(shape, dtype),
                        "cut": True,
                    }
                )
                continue
            nxt, slot = nf
            if nxt not in kept_set:
                if nid(n) not in g.frontier:
                    g.frontier.append(nid(n))
                continue
            e = {
                "src": nid(nxt),
                "dst": nid(n),
                "shape": shape,
                "dtype": dtype,
                "label": _shape_str(shape, dtype),
                "cut": False,
            }
            # The gradient of the tensor this edge stands for: what arrived at
            # input `slot` of nxt (summed over all the tensor's consumers).
            got = watched.get((nxt, slot, 0))
            if got is not None:
                e["grad_norm"], e["grad_bad"] = got
            g.edges.append(e)

    # Outputs, each one node, fed by its grad node.
    for k, t in enumerate(outs):
        oid = f"out{k}"
        node = {
            "id": oid,
            "kind": "output",
            "name": t.name or f"output {k}",
            "shape": list(t.shape),
            "dtype": _dtype_name(t.dtype),
            "label": _shape_str(list(t.shape), _dtype_name(t.dtype)),
            "stop_gradient": t.stop_gradient,
        }
        g.nodes.append(node)
        if t.grad_fn is not None and t.grad_fn in kept_set:
            g.edges.append(
                {
                    "src": ids[t.grad_fn],
                    "dst": oid,
                    "shape": list(t.shape),
                    "dtype": _dtype_name(t.dtype),
                    "label": node["label"],
                    "cut": False,
                }
            )
    g.layers = layers
    return g
