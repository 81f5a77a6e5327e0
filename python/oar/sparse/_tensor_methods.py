"""The sparse methods of oar.Tensor (Paddle's Tensor.to_sparse_coo, indices(), ...)
and the printing of sparse tensors."""

from .. import _C
from ..tensor.methods import bind_methods
from ._base import check_sparse
from ._shape import coalesce as _coalesce
from ._shape import is_same_shape as _same

Tensor = _C.Tensor


def to_sparse_coo(self: Tensor, sparse_dim: int) -> Tensor:
    """This tensor in COO format: its elements that are not zero (sparse_dim equal to
    ndim), or its sub-tensors over the first sparse_dim dimensions that are not all
    zero. A CSR tensor converts with sparse_dim equal to its ndim."""
    if self.is_sparse_coo():
        return self
    return _C.sparse_to_coo(self, sparse_dim)


def to_sparse_csr(self: Tensor) -> Tensor:
    """This 2-D or 3-D tensor in CSR format (dense: its non-zero elements)."""
    if self.is_sparse_csr():
        return self
    return _C.sparse_to_csr(self)


def to_dense(self: Tensor) -> Tensor:
    """The dense tensor of a sparse one (a dense tensor returns itself)."""
    return _C.sparse_to_dense(self) if self.is_sparse() else self


def indices(self: Tensor) -> Tensor:
    """The int64 indices [sparse_dim, nnz] of a COO tensor."""
    if not self.is_sparse_coo():
        raise TypeError("indices(): the tensor is not a sparse COO tensor")
    return _C.sparse_indices(self)


def values(self: Tensor) -> Tensor:
    """The stored values of a sparse tensor (differentiable; shares its memory)."""
    check_sparse("values", "self", self)
    return _C.sparse_values(self)


def crows(self: Tensor) -> Tensor:
    """The int64 row starts of a CSR tensor."""
    if not self.is_sparse_csr():
        raise TypeError("crows(): the tensor is not a sparse CSR tensor")
    return _C.sparse_crows(self)


def cols(self: Tensor) -> Tensor:
    """The int64 column indices of a CSR tensor."""
    if not self.is_sparse_csr():
        raise TypeError("cols(): the tensor is not a sparse CSR tensor")
    return _C.sparse_cols(self)


def coalesce(self: Tensor, name: str | None = None) -> Tensor:
    """This COO tensor with sorted, unique positions (repeated ones summed)."""
    return _coalesce(self)


def is_same_shape(self: Tensor, y: Tensor) -> bool:
    """Whether y (dense or sparse) has this tensor's shape."""
    return _same(self, y)


bind_methods(
    {
        _fn.__name__: _fn
        for _fn in (
            to_sparse_coo,
            to_sparse_csr,
            to_dense,
            indices,
            values,
            crows,
            cols,
            coalesce,
            is_same_shape,
        )
    }
)
