"""Arithmetic between sparse tensors, and with dense tensors and numbers
(docs/sparse.md): add, subtract, multiply, divide."""

from __future__ import annotations

import numbers

from .. import _C
from ._base import check_tensor, map_values

Tensor = _C.Tensor

__all__ = ["add", "subtract", "multiply", "divide"]


def _check_pair(api, x, y):
    check_tensor(api, "x", x)
    if isinstance(y, Tensor):
        if list(x.shape) != list(y.shape):
            raise ValueError(
                f"{api}(): x has shape {list(x.shape)} but y has shape "
                f"{list(y.shape)}; sparse arithmetic needs equal shapes"
            )
        if x.is_sparse() and y.is_sparse() and x.is_sparse_coo() != y.is_sparse_coo():
            raise TypeError(
                f"{api}(): x is {'COO' if x.is_sparse_coo() else 'CSR'} but y is "
                f"{'COO' if y.is_sparse_coo() else 'CSR'}; convert one of them"
            )
        if x.is_sparse_coo() and y.is_sparse_coo() and x.sparse_dim() != y.sparse_dim():
            raise ValueError(
                f"{api}(): x has {x.sparse_dim()} sparse dimensions but y has {y.sparse_dim()}"
            )
    elif isinstance(y, bool) or not isinstance(y, numbers.Number):
        raise TypeError(
            f"{api}(): argument 'y' must be a Tensor or a number, got {type(y).__name__}"
        )


def _pattern(x):
    """x's positions with zero values, outside the graph."""
    v = _C.sparse_values(x).detach()
    return _C.sparse_with_values(x.detach(), _C.full_like(v, 0.0, v.dtype))


def _union(x, y):
    """The positions of x and of y (coalesced), with zero values."""
    return _C.sparse_add(_pattern(x), _pattern(y))


def add(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x + y. Two sparse tensors of one format give a sparse tensor stored at the
    union of their positions; a sparse and a dense tensor give a dense tensor.

    Args:
        x (Tensor): a sparse (or dense) tensor.
        y (Tensor): a tensor of x's shape.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: the sum.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0., 1.], [2., 0.]]).to_sparse_csr()
        >>> y = oar.to_tensor([[0., 3.], [0., 4.]]).to_sparse_csr()
        >>> oar.sparse.add(x, y).to_dense().tolist()
        [[0.0, 4.0], [2.0, 4.0]]
    """
    _check_pair("add", x, y)
    if not isinstance(y, Tensor):
        raise TypeError(
            "add(): argument 'y' must be a Tensor (adding a number would fill every implicit zero)"
        )
    if x.is_sparse() and y.is_sparse():
        return _C.sparse_add(x, y)
    return _dense(x) + _dense(y)


def subtract(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x - y, with add's rules for the result's format.

    Args:
        x (Tensor): a sparse (or dense) tensor.
        y (Tensor): a tensor of x's shape.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: the difference.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0., 1.], [2., 0.]]).to_sparse_coo(2)
        >>> y = oar.to_tensor([[0., 3.], [0., 4.]]).to_sparse_coo(2)
        >>> oar.sparse.subtract(x, y).to_dense().tolist()
        [[0.0, -2.0], [2.0, -4.0]]
    """
    _check_pair("subtract", x, y)
    if not isinstance(y, Tensor):
        raise TypeError("subtract(): argument 'y' must be a Tensor")
    if x.is_sparse() and y.is_sparse():
        return _C.sparse_add(x, map_values(y, _C.neg, linear=True))
    return _dense(x) - _dense(y)


def multiply(x: Tensor, y: Tensor | float, name: str | None = None) -> Tensor:
    """x * y. Two sparse tensors give one stored at the union of their positions
    (Paddle's rule); a sparse x times a dense tensor or a number keeps x's positions.

    Args:
        x (Tensor): a sparse tensor.
        y (Tensor|float): a tensor of x's shape or a number.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: the product, sparse.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0., 1.], [2., 0.]]).to_sparse_coo(2)
        >>> oar.sparse.multiply(x, 3.0).values().tolist()
        [3.0, 6.0]
    """
    _check_pair("multiply", x, y)
    return _elementwise("multiply", x, y, lambda a, b: a * b)


def divide(x: Tensor, y: Tensor | float, name: str | None = None) -> Tensor:
    """x / y. Two sparse tensors divide at every position (an implicit zero of y
    gives inf or nan, so the result stores all positions, as Paddle's); a sparse x
    divided by a dense tensor or a number keeps x's positions.

    Args:
        x (Tensor): a sparse tensor.
        y (Tensor|float): a tensor of x's shape or a number.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: the quotient, sparse.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0., 1.], [2., 0.]]).to_sparse_coo(2)
        >>> oar.sparse.divide(x, 2.0).values().tolist()
        [0.5, 1.0]
    """
    _check_pair("divide", x, y)
    if isinstance(y, Tensor) and x.is_sparse() and y.is_sparse():
        full = _full_pattern(x)
        quotient = _C.sparse_to_dense(x) / _C.sparse_to_dense(y)
        return _C.sparse_with_values(full, _C.sparse_mask_values(quotient, full))
    return _elementwise("divide", x, y, lambda a, b: a / b)


def _dense(t):
    return _C.sparse_to_dense(t) if t.is_sparse() else t


def _full_pattern(x):
    """Every position of x's shape, stored, in x's format."""
    ones = _C.full(list(x.shape), 1.0, x.dtype)
    if x.is_sparse_coo():
        return _pattern(_C.sparse_to_coo(ones, x.sparse_dim()))
    return _pattern(_C.sparse_to_csr(ones))


def _elementwise(api, x, y, op):
    if not x.is_sparse():
        raise TypeError(f"{api}(): argument 'x' must be a sparse tensor")
    if not isinstance(y, Tensor):
        return map_values(x, lambda v: op(v, y), linear=True)
    if not y.is_sparse():  # x's positions, y's values there
        if x.is_sparse_coo() and not x.is_coalesced():
            x = _C.sparse_coalesce(x)
        return _C.sparse_with_values(x, op(_C.sparse_values(x), _C.sparse_mask_values(y, x)))
    u = _union(x, y)
    return _C.sparse_with_values(u, op(_C.sparse_mask_values(x, u), _C.sparse_mask_values(y, u)))
