"""Paddle's out=/output= arguments: a function's result written into a given tensor."""

from __future__ import annotations

from .. import _C
from .grad_mode import is_grad_enabled, no_grad
from .place import _to_place
from .typing import PlaceLike

Tensor = _C.Tensor


def write_out(out: Tensor | None, result: Tensor, api: str, arg: str = "out") -> Tensor:
    """Makes `out` hold `result` (a fresh tensor nothing else writes to) and returns `out`.

    As in Paddle, `out` takes the result's shape and dtype. When a gradient could flow
    (grad mode on and either tensor requires one), the write is the differentiable
    in-place copy `out[...] = result`, which needs equal shapes and dtypes and follows
    the in-place rules (a leaf that requires grad refuses it)."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(
            f"{api}(): argument '{arg}' must be a Tensor or None, got {type(out).__name__}"
        )
    if is_grad_enabled() and not (out.stop_gradient and result.stop_gradient):
        if list(out.shape) != list(result.shape) or out.dtype != result.dtype:
            raise ValueError(
                f"{api}(): argument '{arg}' has shape {list(out.shape)} and dtype "
                f"{out.dtype.name}, the result {list(result.shape)} and {result.dtype.name}; "
                f"with gradients recorded the result is copied in place, which needs equal "
                f"shapes and dtypes (or run under oar.no_grad())"
            )
        out[...] = result
        return out
    with no_grad():
        _C._replace_data(out, result)
    return out


def finish(
    t: Tensor,
    api: str,
    out: Tensor | None = None,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Applies the keyword-only arguments of Paddle 3.3's creation functions to the fresh
    tensor `t`: device (the CPU only), pin_memory (False only: pinned memory is for
    copies to a GPU, as on Paddle's CPU build), out and requires_grad."""
    if device is not None:
        _to_place(device, f"{api}()")
    for name, v in (("requires_grad", requires_grad), ("pin_memory", pin_memory)):
        if not isinstance(v, bool):
            raise TypeError(f"{api}(): argument '{name}' must be a bool, got {type(v).__name__}")
    if pin_memory:
        raise ValueError(
            f"{api}(): pin_memory=True: pinned memory is for copies to a GPU, and "
            f"oar is built for the CPU only"
        )
    t = write_out(out, t, api)
    if requires_grad:
        t.stop_gradient = False
    return t


def api_write_out(api: str, out: Tensor | None, result: Tensor) -> Tensor:
    """Paddle's out=: `out` is made to hold result (its shape and dtype become result's;
    with gradients recorded, a differentiable in-place copy; see _out.write_out)."""
    return write_out(out, result, api)
