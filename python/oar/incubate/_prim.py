"""The primitive-operator autodiff API of paddle.incubate.autograd (enable_prim,
disable_prim, prim_enabled, grad, forward_grad), in eager mode.

Paddle runs these only in a static graph lowered to primitive operators. oar has no
static graph, so grad and forward_grad differentiate the recorded eager graph
between already computed outputs and inputs: grad is reverse mode (vector-Jacobian
products), forward_grad forward mode (Jacobian-vector products, by differentiating
the vector-Jacobian product with respect to its cotangent). The prim flag is only
recorded: there is no lowering for it to switch."""

from __future__ import annotations

from typing import Sequence

from .. import _C
from ..tensor.creation import ones_like, zeros_like

Tensor = _C.Tensor

__all__ = ["enable_prim", "disable_prim", "prim_enabled", "grad", "forward_grad"]

_prim = False


def enable_prim() -> None:
    """Sets the flag prim_enabled() reports. Eager oar has no primitive-operator
    lowering, so nothing else changes."""
    global _prim
    _prim = True


def disable_prim() -> None:
    """Clears the flag prim_enabled() reports."""
    global _prim
    _prim = False


def prim_enabled() -> bool:
    """Whether enable_prim() was called last (False at start)."""
    return _prim


def _tensors(api, arg, v):
    """v as a list of Tensors, and whether v was a single Tensor."""
    if isinstance(v, Tensor):
        return [v], True
    if isinstance(v, (list, tuple)) and v and all(isinstance(t, Tensor) for t in v):
        return list(v), False
    raise TypeError(
        f"{api}(): argument '{arg}' must be a Tensor or a non-empty sequence of "
        f"Tensors, but got {type(v).__name__}"
    )


def _seeds(api, arg, v, refs, what):
    """One seed per ref (None: ones), each shaped like its ref."""
    if v is None:
        return [None] * len(refs)
    if isinstance(v, Tensor):
        v = [v]
    if not isinstance(v, (list, tuple)) or not all(t is None or isinstance(t, Tensor) for t in v):
        raise TypeError(
            f"{api}(): argument '{arg}' must be a Tensor, a sequence of Tensors "
            f"(or None entries) or None, but got {type(v).__name__}"
        )
    if len(v) != len(refs):
        raise ValueError(
            f"{api}(): argument '{arg}' has {len(v)} tensors, but there are {len(refs)} {what}"
        )
    for i, (s, r) in enumerate(zip(v, refs)):
        if s is not None and list(s.shape) != list(r.shape):
            raise ValueError(
                f"{api}(): {arg}[{i}] has shape {list(s.shape)}, but {what}[{i}] "
                f"has shape {list(r.shape)}"
            )
    return list(v)


def _vjp(ys, xs, vs, create_graph=True):
    """d(ys)/d(xs) contracted with vs; None for an input no output reaches. Outputs
    outside the graph (stop_gradient, no grad node) contribute nothing."""
    live = [(y, v) for y, v in zip(ys, vs) if not y.stop_gradient]
    if not live:
        return [None] * len(xs)
    return list(
        _C.grad(
            [y for y, _ in live],
            list(xs),
            [v for _, v in live],
            True,
            create_graph,
            True,
            True,
            None,
        )
    )


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
) -> Tensor | list[Tensor | None] | None:
    """Reverse mode: the gradients of outputs with respect to inputs, each output
    weighted by its grad_outputs entry (ones by default).

    Args:
        outputs (Tensor|Sequence[Tensor]): Computed from inputs (eagerly).
        inputs (Tensor|Sequence[Tensor]): Tensors with stop_gradient=False.
        grad_outputs (Tensor|Sequence[Tensor|None]|None, optional): Shaped like
            outputs; None (or a None entry) means ones. Default: None.

    Returns:
        Tensor|list[Tensor|None]: A Tensor when inputs is a Tensor, else a list with
        one entry per input; None for an input the outputs do not depend on (as
        Paddle's static gradients). The results are differentiable again.

    Raises:
        TypeError: outputs/inputs not Tensors, grad_outputs of the wrong kind.
        ValueError: grad_outputs of the wrong number or shapes.
    """
    ys, _ = _tensors("grad", "outputs", outputs)
    xs, single = _tensors("grad", "inputs", inputs)
    vs = _seeds("grad", "grad_outputs", grad_outputs, ys, "outputs")
    gs = _vjp(ys, xs, vs)
    return gs[0] if single else gs


def forward_grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_inputs: Tensor | Sequence[Tensor | None] | None = None,
) -> Tensor | list[Tensor | None] | None:
    """Forward mode: the Jacobian-vector products of outputs with respect to inputs
    along grad_inputs (ones by default), J v = d/du (u^T J v) at a zero cotangent u.

    Args:
        outputs (Tensor|Sequence[Tensor]): Computed from inputs (eagerly).
        inputs (Tensor|Sequence[Tensor]): Tensors with stop_gradient=False.
        grad_inputs (Tensor|Sequence[Tensor|None]|None, optional): The tangents,
            shaped like inputs; None (or a None entry) means ones. Default: None.

    Returns:
        Tensor|list[Tensor|None]: A Tensor when outputs is a Tensor, else a list with
        one entry per output, shaped like it; None for an output that depends on none
        of the inputs. The results are differentiable again.

    Raises:
        TypeError: outputs/inputs not Tensors, grad_inputs of the wrong kind.
        ValueError: grad_inputs of the wrong number or shapes.
    """
    ys, single = _tensors("forward_grad", "outputs", outputs)
    xs, _ = _tensors("forward_grad", "inputs", inputs)
    vs = _seeds("forward_grad", "grad_inputs", grad_inputs, xs, "inputs")
    vs = [ones_like(x) if v is None else v for v, x in zip(vs, xs)]
    us = []
    for y in ys:
        u = zeros_like(y)
        u.stop_gradient = False
        us.append(u)
    gx = _vjp(ys, xs, us)
    pairs = [(g, v) for g, v in zip(gx, vs) if g is not None and not g.stop_gradient]
    if not pairs:
        out = [None] * len(ys)
    else:
        out = list(
            _C.grad([g for g, _ in pairs], us, [v for _, v in pairs], True, True, True, True, None)
        )
    return out[0] if single else out
