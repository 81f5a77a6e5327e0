"""The sparse methods of oar.Tensor (Paddle's Tensor.to_sparse_coo, indices(), ...)
and the printing of sparse tensors."""
import numpy as np

from .. import _C, _printing
from ._base import check_sparse

Tensor = _C.Tensor


def to_sparse_coo(self, sparse_dim):
    """This tensor in COO format: its elements that are not zero (sparse_dim equal to
    ndim), or its sub-tensors over the first sparse_dim dimensions that are not all
    zero. A CSR tensor converts with sparse_dim equal to its ndim."""
    if self.is_sparse_coo():
        return self
    return _C.sparse_to_coo(self, sparse_dim)


def to_sparse_csr(self):
    """This 2-D or 3-D tensor in CSR format (dense: its non-zero elements)."""
    if self.is_sparse_csr():
        return self
    return _C.sparse_to_csr(self)


def to_dense(self):
    """The dense tensor of a sparse one (a dense tensor returns itself)."""
    return _C.sparse_to_dense(self) if self.is_sparse() else self


def indices(self):
    """The int64 indices [sparse_dim, nnz] of a COO tensor."""
    if not self.is_sparse_coo():
        raise TypeError("indices(): the tensor is not a sparse COO tensor")
    return _C.sparse_indices(self)


def values(self):
    """The stored values of a sparse tensor (differentiable; shares its memory)."""
    check_sparse("values", "self", self)
    return _C.sparse_values(self)


def crows(self):
    """The int64 row starts of a CSR tensor."""
    if not self.is_sparse_csr():
        raise TypeError("crows(): the tensor is not a sparse CSR tensor")
    return _C.sparse_crows(self)


def cols(self):
    """The int64 column indices of a CSR tensor."""
    if not self.is_sparse_csr():
        raise TypeError("cols(): the tensor is not a sparse CSR tensor")
    return _C.sparse_cols(self)


def coalesce(self, name=None):
    """This COO tensor with sorted, unique positions (repeated ones summed)."""
    from ._shape import coalesce as _coalesce
    return _coalesce(self)


def is_same_shape(self, y):
    """Whether y (dense or sparse) has this tensor's shape."""
    from ._shape import is_same_shape as _same
    return _same(self, y)


def sparse_repr(t):
    """Paddle's layout: the header line, then indices and values (COO) or crows,
    cols and values (CSR)."""
    pad = " " * 7
    if t.is_sparse_coo():
        parts = [("indices", _C.sparse_indices(t))]
    else:
        parts = [("crows", _C.sparse_crows(t)), ("cols", _C.sparse_cols(t))]
    parts.append(("values", _C.sparse_values(t)))
    lines = [f"Tensor(shape={t.shape}, dtype={t.dtype}, place={t.place}, "
             f"stop_gradient={t.stop_gradient},"]
    for i, (name, part) in enumerate(parts):
        a = np.asarray(part.detach())
        if t.dtype.name == "bfloat16" and name == "values":
            a = np.asarray(a.astype(np.uint32) << 16).view(np.float32)
        # the dense printout's element format (Paddle prints both alike)
        text = _printing.format_data(a, len(pad) + len(name) + 1)
        end = ")" if i == len(parts) - 1 else ","
        lines.append(f"{pad}{name}={text}{end}")
    return "\n".join(lines)


for _fn in (to_sparse_coo, to_sparse_csr, to_dense, indices, values, crows, cols, coalesce,
            is_same_shape):
    setattr(Tensor, _fn.__name__, _fn)
del _fn
