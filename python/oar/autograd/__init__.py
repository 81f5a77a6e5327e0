"""oar.autograd: backward, grad, PyLayer (alias Function), saved-tensor hooks, jacobian, hessian."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from .. import _C
from ..framework.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .py_layer import PyLayer, PyLayerContext  # noqa: F401
from ..tensor.creation import zeros

if TYPE_CHECKING:  # typing.TypeGuard is Python 3.10's
    from typing_extensions import TypeGuard

# Paddle 3.3's PyTorch-style name for PyLayer: the same class (forward(ctx, ...) and
# backward(ctx, ...) static methods, called through .apply), not a subclass.
Function = PyLayer

Tensor = _C.Tensor


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool = False,
) -> None:
    """Accumulates d(tensors)/d(leaf) into every reached leaf's .grad."""
    _C.backward(tensors, grad_tensors, retain_graph)


# The C function itself, signature and docstring included: a Python function that only
# passed its arguments on cost a call frame per grad(), about 0.1 us of the 4 us of a
# grad() through three small ops.
grad = _C.grad


class saved_tensors_hooks:
    """Within the block, every tensor saved for backward goes through
    pack_hook(tensor) -> anything, and comes back through unpack_hook(anything) -> Tensor."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _C._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)
        return self

    def __exit__(self, *exc):
        _C._pop_saved_tensors_hooks()
        return False


def _one(v: object) -> TypeGuard[Tensor]:
    return isinstance(v, Tensor)


def _check_tensors(api, arg, v):
    if _one(v):
        return
    if isinstance(v, (list, tuple)) and v and all(_one(t) for t in v):
        return
    raise TypeError(
        f"{api}(): argument '{arg}' must be a Tensor or a non-empty sequence of "
        f"Tensors, but got {type(v).__name__}"
    )


def jacobian(
    ys: Tensor | Sequence[Tensor], xs: Tensor | Sequence[Tensor], batch_axis: int | None = None
) -> Tensor | tuple[Tensor, ...] | tuple[tuple[Tensor, ...], ...]:
    """The Jacobian of ys w.r.t. xs: [M, N] (or [B, M, N] with batch_axis=0).
    Tuples of tensors give nested tuples, as Paddle."""
    _check_tensors("jacobian", "ys", ys)
    _check_tensors("jacobian", "xs", xs)
    if _one(ys) and _one(xs):
        return _C.jacobian(ys, xs, batch_axis)
    ys_t = (ys,) if _one(ys) else tuple(ys)
    xs_t = (xs,) if _one(xs) else tuple(xs)
    rows = tuple(tuple(_C.jacobian(y, x, batch_axis) for x in xs_t) for y in ys_t)
    if _one(ys):
        return rows[0]
    if _one(xs):
        return tuple(r[0] for r in rows)
    return rows


def hessian(
    ys: Tensor, xs: Tensor | Sequence[Tensor], batch_axis: int | None = None
) -> Tensor | tuple[tuple[Tensor, ...], ...]:
    """The Hessian of a scalar ys (one per sample with batch_axis=0) w.r.t. xs."""
    _check_tensors("hessian", "ys", ys)
    _check_tensors("hessian", "xs", xs)
    if _one(xs):
        return _C.hessian(ys, xs, batch_axis)
    xs_t = tuple(xs)
    gs = _C.grad([ys], list(xs_t), None, True, True, True, True, None)
    out = []
    for g, xi in zip(gs, xs_t):
        row = []
        for xj in xs_t:
            if g is None:
                n, m = xi.size, xj.size
                row.append(zeros([n, m], dtype=xi.dtype))
            else:
                row.append(_C.jacobian(g, xj, batch_axis))
        out.append(tuple(row))
    return tuple(out)


def register_backward_final_hook(fn: Callable[[], Any]) -> None:
    """fn() runs once when the current (or next) backward pass on this thread ends."""
    _C._register_backward_final_hook(fn)


def register_grad_accumulated_hook(tensor: Tensor, fn: Callable[[], Any]) -> Any:
    """fn() runs after backward has updated the leaf tensor's .grad (a reduce hook)."""
    return _C._register_grad_accumulated_hook(tensor, fn)
