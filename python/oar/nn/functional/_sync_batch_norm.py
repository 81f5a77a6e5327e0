"""Batch normalisation with the batch statistics of every process of a group
(SyncBatchNorm's training forward across processes).

Each rank sums its part of the batch per channel and one all_reduce adds the sums:
first the element sums (the mean), then the squared deviations about that mean
(the variance, two passes as in the single-process kernel). The backward pass
all-reduces sum(dy) and sum(dy * xhat) the same way, so each rank's x gradient is
the gradient of the sum of all ranks' losses, and the weight and bias gradients
stay local sums for DataParallel to reduce, as for any parameter: with equal
batches, DataParallel over half batches then equals one process on the whole
batch (tests/python/test_distributed.py). The statistics are float32 (float64 for
double), as in the fused kernel. It is a PyLayer, so it has first-order gradients
only.
"""

from __future__ import annotations

from ... import _C
from ...autograd import PyLayer
from ...framework import collective


def _reduce_axes(x, axis):
    return [d for d in range(x.ndim) if d != axis]


def _along(v, ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def _stat_dtype(x):
    return "float64" if x.dtype.name == "float64" else "float32"


class _SyncBatchNorm(PyLayer):
    @staticmethod
    def forward(ctx, x, weight, bias, axis, epsilon, group):
        dist = collective.distributed()

        sdt = _stat_dtype(x)
        xs = x.astype(sdt)
        dims = _reduce_axes(x, axis)
        channels = x.shape[axis]
        local = x.numel().item() // max(channels, 1)
        packed = _C.concat([xs.sum(axis=dims), _C.full([1], float(local), sdt)], 0)
        dist.all_reduce(packed, group=group)
        count = packed[channels:].item()
        if count == 0:
            raise ValueError("SyncBatchNorm: the batches of all processes are empty")
        mean = packed[:channels] / count
        centred = xs - _along(mean, x.ndim, axis)
        sq = (centred * centred).sum(axis=dims)
        dist.all_reduce(sq, group=group)
        var = sq / count
        rstd = _C.pow(var + float(epsilon), -0.5)
        xhat = centred * _along(rstd, x.ndim, axis)
        w = weight.astype(sdt)
        y = xhat * _along(w, x.ndim, axis) + _along(bias.astype(sdt), x.ndim, axis)
        ctx.save_for_backward(xhat, rstd, w)
        ctx.axis, ctx.count, ctx.group = axis, count, group
        ctx.dtypes = (x.dtype, weight.dtype, bias.dtype)
        ctx.mark_non_differentiable(mean, var)
        return y.astype(x.dtype), mean, var

    @staticmethod
    def backward(ctx, dy, _dmean=None, _dvar=None):
        dist = collective.distributed()

        xhat, rstd, w = ctx.saved_tensor()
        axis, count = ctx.axis, ctx.count
        dims = _reduce_axes(xhat, axis)
        channels = xhat.shape[axis]
        g = dy.astype(xhat.dtype)
        sum_dy = g.sum(axis=dims)
        sum_dy_xhat = (g * xhat).sum(axis=dims)
        packed = _C.concat([sum_dy, sum_dy_xhat], 0)
        dist.all_reduce(packed, group=ctx.group)
        mean_dy = packed[:channels] / count
        mean_dy_xhat = packed[channels:] / count
        nd = xhat.ndim
        dx = _along(w * rstd, nd, axis) * (
            g - _along(mean_dy, nd, axis) - xhat * _along(mean_dy_xhat, nd, axis)
        )
        x_dtype, w_dtype, b_dtype = ctx.dtypes
        return dx.astype(x_dtype), sum_dy_xhat.astype(w_dtype), sum_dy.astype(b_dtype)


def sync_batch_norm(x, weight, bias, axis, epsilon, group=None):
    """y, batch mean, batch (biased) variance, the statistics over the whole group."""
    return _SyncBatchNorm.apply(x, weight, bias, axis, epsilon, group)
