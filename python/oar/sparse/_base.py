"""Shared checks and conversions of oar.sparse (docs/sparse.md)."""

import numbers

from .. import _C

Tensor = _C.Tensor


def check_sparse(api, name, x):
    """x, if it is a sparse tensor; a TypeError naming the argument otherwise."""
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{api}(): argument '{name}' must be a sparse Tensor, got {type(x).__name__}"
        )
    if not x.is_sparse():
        raise TypeError(
            f"{api}(): argument '{name}' must be a sparse tensor (COO or CSR), got "
            f"a dense one; convert it with to_sparse_coo() or to_sparse_csr()"
        )
    return x


def check_tensor(api, name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{api}(): argument '{name}' must be a Tensor, got {type(x).__name__}")
    return x


def check_number(api, name, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Number):
        raise TypeError(f"{api}(): argument '{name}' must be a number, got {type(v).__name__}")
    return v


def kind(x):
    return "coo" if x.is_sparse_coo() else "csr" if x.is_sparse_csr() else "dense"


def to_kind(x, like):
    """x (sparse or dense) converted to the format of `like` (any positions)."""
    if like.is_sparse_coo():
        if x.is_sparse_coo():
            return x
        return _C.sparse_to_coo(x, like.sparse_dim())
    if like.is_sparse_csr():
        return x if x.is_sparse_csr() else _C.sparse_to_csr(x)
    return _C.sparse_to_dense(x) if x.is_sparse() else x


def map_values(x, fn, linear=False):
    """A sparse tensor with x's positions and fn(values). An uncoalesced COO tensor
    holds several values per position that add up, so a non-linear fn is applied
    after coalescing."""
    if x.is_sparse_coo() and not linear and not x.is_coalesced():
        x = _C.sparse_coalesce(x)
    return _C.sparse_with_values(x, fn(_C.sparse_values(x)))


def normalize_axis(api, axis, ndim):
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{api}(): an axis must be an int, got {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise IndexError(f"{api}(): axis {axis} is out of range for a {ndim}-D tensor")
    return axis % ndim
