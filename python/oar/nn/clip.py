"""Gradient clipping (Paddle's paddle.nn.ClipGrad*), given to an optimizer as
grad_clip=. Each acts on the stored gradients of the parameters being updated,
skipping those whose need_clip is False; global-norm clipping is one fused C++
pass to compute the norm and one to scale."""

from __future__ import annotations

import math

from .. import _C
from ..framework.grad_mode import no_grad

__all__ = ["ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue"]


def _clippable(params):
    return [p for p in params if p.grad is not None and getattr(p, "need_clip", True)]


def _positive(who, name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
        raise ValueError(f"{who}: argument '{name}' must be a number > 0, got {v!r}")
    return float(v)


class ClipGradByGlobalNorm:
    """Scale all gradients by clip_norm / max(global_norm, clip_norm), where global_norm
    is the L2 norm of all of them together."""

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        self.clip_norm = _positive("ClipGradByGlobalNorm", "clip_norm", clip_norm)
        self.group_name = group_name

    @no_grad()
    def _clip(self, params):
        ps = _clippable(params)
        if not ps:
            return
        norm = _C._grad_global_norm(ps)
        if not math.isfinite(norm) or norm > self.clip_norm:
            _C._scale_grads(
                ps,
                self.clip_norm / max(norm, self.clip_norm) if math.isfinite(norm) else float("nan"),
            )

    def __repr__(self):
        return f"ClipGradByGlobalNorm(global_clip_norm={self.clip_norm})"


class ClipGradByNorm:
    """Scale each gradient separately to an L2 norm of at most clip_norm."""

    def __init__(self, clip_norm):
        self.clip_norm = _positive("ClipGradByNorm", "clip_norm", clip_norm)

    @no_grad()
    def _clip(self, params):
        for p in _clippable(params):
            norm = _C._grad_global_norm([p])
            if norm > self.clip_norm:
                _C._scale_grads([p], self.clip_norm / norm)

    def __repr__(self):
        return f"ClipGradByNorm(clip_norm={self.clip_norm})"


class ClipGradByValue:
    """Clamp each gradient element to [min, max] (min defaults to -max)."""

    def __init__(self, max, min=None):
        if min is None:
            min = -max
        if not min <= max:
            raise ValueError(
                f"ClipGradByValue: argument 'min' ({min}) must not exceed 'max' ({max})"
            )
        self.max, self.min = float(max), float(min)

    @no_grad()
    def _clip(self, params):
        for p in _clippable(params):
            g = p.grad
            clipped = _C.maximum(
                _C.minimum(g, _C.full([], self.max, g.dtype)), _C.full([], self.min, g.dtype)
            )
            g[...] = clipped

    def __repr__(self):
        return f"ClipGradByValue(min={self.min}, max={self.max})"
