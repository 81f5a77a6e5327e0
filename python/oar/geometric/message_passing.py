"""Message passing: each edge e sends node src_index[e]'s features (combined with the
edge's or the destination's features) to node dst_index[e] (Paddle's
paddle.geometric.send_u_recv, send_ue_recv, send_uv)."""

from __future__ import annotations

from .. import _C
from ..framework import check as C
from ..framework.typing import Tensor
from ._common import index, message, reduce_code

__all__ = ["send_u_recv", "send_ue_recv", "send_uv"]


def _edges(api, src_index, dst_index):
    index(api, "src_index", src_index)
    index(api, "dst_index", dst_index)
    if src_index.shape != dst_index.shape:
        raise ValueError(
            f"{api}(): 'src_index' {src_index.shape} and 'dst_index' "
            f"{dst_index.shape} must have the same length"
        )


def _out_rows(api, x, out_size):
    """Paddle's out_size: None or <= 0 keeps x's row count."""
    if out_size is None:
        return x.shape[0]
    n = C.integer(api, "out_size", out_size)
    return n if n > 0 else x.shape[0]


def _pair(x, y):
    """Paddle's rule: a 1-D x or y becomes [n, 1]; the lower rank gets size-1 dims right
    after the first, so the feature dims broadcast from the left."""
    if x.ndim == 1:
        x = _C.unsqueeze(x, [1])
    if y.ndim == 1:
        y = _C.unsqueeze(y, [1])
    if x.ndim < y.ndim:
        x = _C.reshape(x, [x.shape[0]] + [1] * (y.ndim - x.ndim) + x.shape[1:])
    elif y.ndim < x.ndim:
        y = _C.reshape(y, [y.shape[0]] + [1] * (x.ndim - y.ndim) + y.shape[1:])
    return x, y


def _as_add_or_mul(x, y, op):
    """sub and div become add and mul of y's negation and reciprocal (differentiable)."""
    if y.dtype != x.dtype:
        y = _C.cast(y, x.dtype)
    if op == "sub":
        return _C.scale(y, -1.0), 0
    if op == "div":
        return _C.reciprocal(y), 1
    return y, 0 if op == "add" else 1


def _nodes(api, name, t):
    C.tensor(api, name, t)
    if t.ndim == 0:
        raise ValueError(
            f"{api}(): argument '{name}' must have at least 1 dim (its rows), but is 0-D"
        )
    return t


def _messages(api, x, y, src_index, dst_index, message_op):
    """The checked arguments of a message op: x and y shaped to broadcast, y turned into
    the add/mul operand, and the op's message code."""
    _nodes(api, "x", x)
    _nodes(api, "y", y)
    _edges(api, src_index, dst_index)
    op = message(api, message_op)
    x, y = _pair(x, y)
    y, code = _as_add_or_mul(x, y, op)
    return x, y, code


def send_u_recv(
    x: Tensor,
    src_index: Tensor,
    dst_index: Tensor,
    reduce_op: str = "sum",
    out_size: int | Tensor | None = None,
    name: str | None = None,
) -> Tensor:
    """Gathers x's rows along the edges and reduces them at the destinations:
    out[d] = reduce_op over the edges e with dst_index[e] == d of x[src_index[e]].

    Args:
        x: node features [num_nodes, ...].
        src_index, dst_index: 1-D int32/int64 tensors of the same length, the edges.
        reduce_op: 'sum', 'mean', 'max' or 'min'; a node that receives nothing gets 0.
        out_size: the number of output rows (an int or a one-element tensor); None or
            <= 0 keeps x's; it must exceed every dst_index.

    Returns:
        A tensor [out_size, ...] in x's dtype (differentiable w.r.t. x).
    """
    api = "send_u_recv"
    _nodes(api, "x", x)
    _edges(api, src_index, dst_index)
    r = reduce_code(api, reduce_op)
    return _C.send_u_recv(x, src_index, dst_index, r, _out_rows(api, x, out_size))


def send_ue_recv(
    x: Tensor,
    y: Tensor,
    src_index: Tensor,
    dst_index: Tensor,
    message_op: str = "add",
    reduce_op: str = "sum",
    out_size: int | Tensor | None = None,
    name: str | None = None,
) -> Tensor:
    """send_u_recv of the messages x[src_index[e]] (message_op) y[e]: node features
    combined with each edge's features y, which broadcast against x's.

    Args:
        x: node features [num_nodes, ...]; y: edge features [num_edges, ...].
        message_op: 'add', 'sub', 'mul' or 'div'; reduce_op, out_size: as send_u_recv.

    Returns:
        A tensor [out_size, broadcast feature dims...] (differentiable w.r.t. x and y).
    """
    api = "send_ue_recv"
    r = reduce_code(api, reduce_op)
    x, y, code = _messages(api, x, y, src_index, dst_index, message_op)
    return _C.send_ue_recv(x, y, src_index, dst_index, code, r, _out_rows(api, x, out_size))


def send_uv(
    x: Tensor,
    y: Tensor,
    src_index: Tensor,
    dst_index: Tensor,
    message_op: str = "add",
    name: str | None = None,
) -> Tensor:
    """One message per edge: out[e] = x[src_index[e]] (message_op) y[dst_index[e]], with
    the feature dims broadcast.

    Args:
        x, y: node features [num_nodes, ...] (y may have other feature dims that broadcast).
        message_op: 'add', 'sub', 'mul' or 'div'.

    Returns:
        A tensor [num_edges, broadcast feature dims...] (differentiable w.r.t. x and y).
    """
    x, y, code = _messages("send_uv", x, y, src_index, dst_index, message_op)
    return _C.send_uv(x, y, src_index, dst_index, code)
