"""oar.nn.functional: embedding and one_hot (Paddle's paddle.nn.functional.input)."""

from __future__ import annotations

import numpy as np

from ... import _C
from ...framework import check as C
from ...framework.typing import Tensor
from ...tensor.creation import to_tensor
from ...framework.grad_mode import no_grad
from ...autograd.py_layer import PyLayer

__all__ = ["embedding", "one_hot"]


def embedding(
    x: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    sparse: bool = False,
    scale_grad_by_freq: bool = False,
    name: str | None = None,
) -> Tensor:
    """weight[x]: the rows of weight picked by the ids x. padding_idx: that row gets no
    gradient. max_norm: the rows x picks are first renormalised in place to a norm_type
    norm of at most max_norm (as Paddle and PyTorch do). scale_grad_by_freq: each row's
    gradient is divided by how often x picks it. sparse=True: the gradient of weight
    is a sparse COO tensor holding the rows x picked."""
    api = "embedding"
    C.tensor(api, "x", x)
    C.tensor(api, "weight", weight)
    if weight.ndim != 2:
        raise ValueError(
            f"{api}(): argument 'weight' must be 2-D [num_embeddings, "
            f"embedding_dim], but has shape {weight.shape}"
        )
    pad = -1
    if padding_idx is not None:
        rows = weight.shape[0]
        pad = C.integer(api, "padding_idx", padding_idx)
        if not -rows <= pad < rows:
            raise ValueError(
                f"{api}(): argument 'padding_idx' ({pad}) must be in [{-rows}, {rows})"
            )
        pad = pad + rows if pad < 0 else pad
    if max_norm is not None:
        _renorm_rows(
            api,
            x,
            weight,
            float(C.number(api, "max_norm", max_norm)),
            float(C.number(api, "norm_type", norm_type)),
        )
    out = _SparseGradEmbedding.apply(x, weight, pad) if sparse else _C.embedding(x, weight, pad)
    if scale_grad_by_freq and x.size:
        ids = x.numpy().reshape(-1)
        _, inverse, counts = np.unique(ids, return_inverse=True, return_counts=True)
        scale = to_tensor((1.0 / counts[inverse]).reshape(list(x.shape) + [1]))
        scale = scale.astype(out.dtype)
        # the value of out, the gradient of out * scale
        out = out * scale + (out - out * scale).detach()
    return out


def _renorm_rows(api, x, weight, max_norm, p):
    ids = np.unique(x.numpy().reshape(-1))
    if ids.size == 0:
        return
    if ids.min() < 0 or ids.max() >= weight.shape[0]:
        raise IndexError(f"{api}(): argument 'x' holds ids outside [0, {weight.shape[0]})")
    idx = to_tensor(ids.astype(np.int64))
    with no_grad():
        rows = _C.index_select(weight, idx, 0)
        norms = _C.pow(_C.sum(_C.pow(_C.abs(rows), p), [1], keepdim=True), 1.0 / p)
        scale = _C.where(
            _C.greater_than(norms, _C.full_like(norms, max_norm)),
            _C.scale(_C.reciprocal(_C.scale(norms, 1.0, 1e-7)), max_norm),
            _C.full_like(norms, 1.0),
        )
        weight[idx] = rows * scale


class _SparseGradEmbedding(PyLayer):
    """embedding whose weight gradient is a sparse COO tensor holding one row per
    looked-up index (Paddle's sparse=True: only those rows are touched). The
    padding row's entries are zero."""

    @staticmethod
    def forward(ctx, x, weight, pad):
        ctx.save_for_backward(x)
        ctx.shape, ctx.pad = list(weight.shape), pad
        return _C.embedding(x, weight, pad)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensor()
        rows = _C.reshape(x, [1, -1])
        values = _C.reshape(g, [-1, ctx.shape[1]])
        if ctx.pad >= 0:
            keep = _C.cast(_C.not_equal(rows, _C.full_like(rows, ctx.pad)), values.dtype)
            values = values * _C.reshape(keep, [-1, 1])
        return None, _C.sparse_coo_tensor(rows, values, ctx.shape)


def one_hot(x: Tensor, num_classes: int, name: str | None = None) -> Tensor:
    api = "one_hot"
    C.tensor(api, "x", x)
    if x.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument 'x' must be an int32 or int64 tensor, but got {x.dtype.name}"
        )
    return _C.one_hot(x, C.integer(api, "num_classes", num_classes))
