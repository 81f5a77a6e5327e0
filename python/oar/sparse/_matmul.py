"""Products with sparse tensors (docs/sparse.md): matmul, masked_matmul, mv, addmm."""

from __future__ import annotations

from .. import _C
from ._base import check_number, check_sparse, check_tensor

Tensor = _C.Tensor

__all__ = ["matmul", "masked_matmul", "mv", "addmm"]


def _swap(t):
    perm = [0, 2, 1] if t.ndim == 3 else [1, 0]
    return _C.sparse_transpose(t, perm) if t.is_sparse() else _C.transpose(t, perm)


def matmul(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The matrix product x @ y with a sparse operand (2-D, or 3-D batches).

    sparse @ dense and dense @ sparse give a dense tensor; two sparse tensors of one
    format give a sparse tensor of that format. The gradient of a sparse operand
    has its positions.

    Args:
        x (Tensor): a sparse COO/CSR tensor (or dense, with a sparse y).
        y (Tensor): a dense tensor, or a sparse one of x's format.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: the product.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0., 1.], [2., 0.]]).to_sparse_csr()
        >>> oar.sparse.matmul(x, oar.ones([2, 3])).tolist()
        [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]
    """
    check_tensor("matmul", "x", x)
    check_tensor("matmul", "y", y)
    if x.is_sparse():
        return _C.sparse_matmul(x, y)
    if y.is_sparse():  # x @ y = (y^T @ x^T)^T
        return _swap(_C.sparse_matmul(_swap(y), _swap(x)))
    raise TypeError("matmul(): x or y must be a sparse tensor; use oar.matmul for dense ones")


def masked_matmul(x: Tensor, y: Tensor, mask: Tensor, name: str | None = None) -> Tensor:
    """The entries of x @ y at the stored positions of a sparse mask only.

    Args:
        x (Tensor): a dense [M, K] (or [B, M, K]) tensor.
        y (Tensor): a dense [K, N] (or [B, K, N]) tensor.
        mask (Tensor): a sparse COO/CSR tensor of the product's shape.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor with mask's format and positions.

    Examples:
        >>> import oar
        >>> mask = oar.to_tensor([[1., 0.], [0., 1.]]).to_sparse_csr()
        >>> oar.sparse.masked_matmul(oar.ones([2, 3]), oar.ones([3, 2]), mask).values().tolist()
        [3.0, 3.0]
    """
    check_tensor("masked_matmul", "x", x)
    check_tensor("masked_matmul", "y", y)
    check_sparse("masked_matmul", "mask", mask)
    return _C.sparse_masked_matmul(x, y, mask)


def mv(x: Tensor, vec: Tensor, name: str | None = None) -> Tensor:
    """The product of a sparse matrix and a dense vector.

    Args:
        x (Tensor): a 2-D sparse COO/CSR tensor [M, N].
        vec (Tensor): a dense 1-D tensor [N].
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a dense [M] tensor.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0., 1.], [2., 0.]]).to_sparse_coo(2)
        >>> oar.sparse.mv(x, oar.to_tensor([3., 4.])).tolist()
        [4.0, 6.0]
    """
    check_sparse("mv", "x", x)
    check_tensor("mv", "vec", vec)
    if x.ndim != 2 or vec.ndim != 1 or vec.is_sparse():
        raise ValueError(
            f"mv(): x must be a 2-D sparse matrix and vec a dense vector, got shapes "
            f"{list(x.shape)} and {list(vec.shape)}"
        )
    return _C.squeeze(_C.sparse_matmul(x, _C.unsqueeze(vec, [1])), [1])


def addmm(
    input: Tensor,  # noqa: A002 - Paddle's name
    x: Tensor,
    y: Tensor,
    beta: float = 1.0,
    alpha: float = 1.0,
    name: str | None = None,
) -> Tensor:
    """beta * input + alpha * (x @ y) with a sparse x (Paddle's combinations):
    dense input, sparse x, dense y give a dense tensor; sparse input, x and y of one
    format give a sparse tensor.

    Args:
        input (Tensor): the tensor added.
        x (Tensor): a sparse matrix (2-D, or 3-D batches).
        y (Tensor): a dense matrix, or a sparse one of x's format.
        beta (float, optional): the factor of input. Default: 1.0.
        alpha (float, optional): the factor of the product. Default: 1.0.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: the result.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0., 1.], [2., 0.]]).to_sparse_csr()
        >>> oar.sparse.addmm(oar.ones([2, 2]), x, oar.ones([2, 2]), 1.0, 2.0).tolist()
        [[3.0, 3.0], [5.0, 5.0]]
    """
    check_tensor("addmm", "input", input)
    check_sparse("addmm", "x", x)
    check_tensor("addmm", "y", y)
    beta = float(check_number("addmm", "beta", beta))
    alpha = float(check_number("addmm", "alpha", alpha))
    product = _C.sparse_matmul(x, y)
    if not input.is_sparse() and not y.is_sparse():
        return _C.scale(input, beta, 0.0, True) + _C.scale(product, alpha, 0.0, True)
    if input.is_sparse() and y.is_sparse() and input.is_sparse_coo() == x.is_sparse_coo():
        scaled = _C.sparse_with_values(input, _C.scale(_C.sparse_values(input), beta, 0.0, True))
        prod = _C.sparse_with_values(product, _C.scale(_C.sparse_values(product), alpha, 0.0, True))
        return _C.sparse_add(scaled, prod)
    raise TypeError(
        "addmm(): the combinations are (dense input, sparse x, dense y) and "
        "(sparse input, x and y of one format)"
    )
