"""Reductions (src/oar/ops/reduce.yaml; amax/amin of statistics.yaml with max/min)."""
import numpy as np
import torch

from .common import Difference, _low_precision_reduction, _x


def _nan_group_of_max(call, detail, last):
    """max/min of a group that holds NaN: the result is NaN and its gradient goes to
    the NaN elements (split among them), as torch.max(x) without dim does; the
    oracle torch.amax instead sets the whole group's gradient to NaN."""
    x = _x(call, last)
    return x is not None and bool(torch.isnan(x).any()) and detail.endswith("[all: torch nan]")


def _sum_to_keeps_dtype(call, detail, last):
    """sum_to is the internal op that undoes broadcasting in backward formulas: a
    gradient must keep its input's dtype, so int32 stays int32 where the oracle's
    torch sum widens it to int64. Only when that is the whole difference (oar int32,
    torch int64)."""
    return "dtype int32, want int64" in detail


def _low_precision_sum_order(call, detail, last):
    """sum into float16/bfloat16: the result is rounded once from a float32 accumulator
    whose summation order differs from torch's; accepted when oar's value is within the
    rounding bound n * eps * sum|x| of the exact float64 sum of the rounded inputs."""
    r = _low_precision_reduction(call, last)
    if r is None:
        return False
    x, out, tdt, dims, keep = r
    dims = tuple(dims)
    xr = x.to(tdt).double()
    exact = xr.sum(dims, keepdim=keep) if dims else xr
    bound = xr.abs().sum(dims, keepdim=keep) if dims else xr.abs()
    n = max(1, x.numel() // max(1, exact.numel()))
    eps = 2.0 ** -7 if tdt is torch.bfloat16 else 2.0 ** -10
    got = torch.tensor(np.asarray(out.cast("float64").numpy()))
    return bool(((got - exact).abs() <= n * eps * bound + 1e-6).all())


NAN_GROUP_OF_MAX = Difference(
    "max/min gradient of a NaN group goes to its NaNs", ["max", "min", "amax", "amin"],
    ["grad mismatch"], _nan_group_of_max, _nan_group_of_max.__doc__)
SUM_TO_KEEPS_DTYPE = Difference(
    "sum_to keeps its input dtype", ["sum_to"], ["value mismatch"], _sum_to_keeps_dtype,
    _sum_to_keeps_dtype.__doc__)
LOW_PRECISION_SUM_ORDER = Difference(
    "float16/bfloat16 sum: summation order", ["sum"], ["value mismatch"], _low_precision_sum_order,
    _low_precision_sum_order.__doc__)
