"""Parameters as one vector, and in-place clipping of their gradients (the functional
forms of ClipGradByGlobalNorm / ClipGradByValue, as PyTorch's torch.nn.utils)."""

from __future__ import annotations

import math
from typing import Iterable

from ... import _C
from ...framework import check as C
from ...framework.dtype import float32
from ...framework.grad_mode import no_grad

__all__ = ["parameters_to_vector", "vector_to_parameters", "clip_grad_norm_", "clip_grad_value_"]

Tensor = _C.Tensor


def _tensors(api, parameters):
    if isinstance(parameters, Tensor):
        return [parameters]
    try:
        params = list(parameters)
    except TypeError:
        raise TypeError(
            f"{api}(): argument 'parameters' must be a Tensor or an iterable of "
            f"Tensors, but got {type(parameters).__name__}"
        ) from None
    for i, p in enumerate(params):
        C.tensor(api, f"parameters[{i}]", p)
    return params


def parameters_to_vector(parameters: Tensor | Iterable[Tensor], name: str | None = None) -> Tensor:
    """The parameters flattened and concatenated into one 1-D tensor (differentiable)."""
    params = _tensors("parameters_to_vector", parameters)
    if not params:
        raise ValueError("parameters_to_vector(): argument 'parameters' is empty")
    return _C.concat([_C.reshape(p, [-1]) for p in params], 0)


def vector_to_parameters(
    vec: Tensor, parameters: Tensor | Iterable[Tensor], name: str | None = None
) -> None:
    """Copies consecutive slices of the 1-D vec into the parameters, in place (no gradient
    is recorded)."""
    api = "vector_to_parameters"
    C.tensor(api, "vec", vec)
    params = _tensors(api, parameters)
    total = sum(p.size for p in params)
    if vec.ndim != 1 or vec.shape[0] != total:
        raise ValueError(
            f"{api}(): argument 'vec' has shape {vec.shape} but the parameters "
            f"hold {total} values (a 1-D vec of that length is expected)"
        )
    start = 0
    with no_grad():
        for p in params:
            part = _C.reshape(_C.slice(vec, [0], [start], [start + p.size]), list(p.shape))
            _C.set_value_with_tensor_(p, _C.cast(part, p.dtype), [], [], [], [])
            start += p.size


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
) -> Tensor:
    """Scales the gradients of parameters in place so that their joint norm (of norm_type,
    inf for the largest magnitude) is at most max_norm; returns that norm before clipping."""
    api = "clip_grad_norm_"
    params = [p for p in _tensors(api, parameters) if p.grad is not None]
    max_norm = float(C.number(api, "max_norm", max_norm))
    norm_type = float(C.number(api, "norm_type", norm_type))
    if not params:
        return _C.full([], 0.0, float32)
    with no_grad():
        grads = [p.grad for p in params]
        dt = grads[0].dtype  # one dtype for the joint norm
        if norm_type == math.inf:
            norms = [_C.reshape(_C.cast(_C.max(_C.abs(g), [], False), dt), [1]) for g in grads]
            total = _C.max(_C.concat(norms, 0), [], False)
        else:
            norms = [
                _C.reshape(_C.cast(_C.sum(_C.pow(_C.abs(g), norm_type)), dt), [1]) for g in grads
            ]
            total = _C.pow(_C.sum(_C.concat(norms, 0)), 1.0 / norm_type)
        value = float(total.item())
        if error_if_nonfinite and not math.isfinite(value):
            raise RuntimeError(
                f"{api}(): the total norm of order {norm_type} of the gradients "
                f"is non-finite ({value}), so it cannot be clipped; set "
                f"error_if_nonfinite=False to clip anyway"
            )
        coef = max_norm / (value + 1e-6)
        if coef < 1.0 or not math.isfinite(value):
            for g in grads:
                _C.scale_(g, coef if math.isfinite(value) else float("nan"), 0.0, True)
    return total


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float) -> None:
    """Clamps every gradient element of parameters to [-clip_value, clip_value], in place."""
    api = "clip_grad_value_"
    params = [p for p in _tensors(api, parameters) if p.grad is not None]
    v = float(C.number(api, "clip_value", clip_value))
    if v < 0:
        raise ValueError(f"{api}(): argument 'clip_value' must be non-negative, but got {v}")
    with no_grad():
        for p in params:
            _C.clip_(p.grad, -v, v)
