"""Building sparse tensors: oar.sparse.sparse_coo_tensor and sparse_csr_tensor."""

from __future__ import annotations

from collections.abc import Sequence

from ..framework.check import is_int
from .. import _C
from ..tensor.creation import to_tensor
from ..framework.dtype import convert_dtype
from ..framework.typing import DTypeLike, PlaceLike, TensorLike

Tensor = _C.Tensor

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor"]


def _as_tensor(api, name, data, dtype=None):
    if isinstance(data, Tensor):
        if data.is_sparse():
            raise TypeError(f"{api}(): argument '{name}' must be dense, got a sparse tensor")
        return data if dtype is None else _C.cast(data, convert_dtype(dtype))
    return to_tensor(data, dtype=dtype)


def _index_tensor(api, name, data):
    t = _as_tensor(api, name, data)
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"{api}(): argument '{name}' must hold int32 or int64 indices, got {t.dtype.name}"
        )
    return t


def _shape(api, shape):
    if shape is None:
        return []
    shape = list(shape.tolist() if isinstance(shape, Tensor) else shape)
    for s in shape:
        if not is_int(s) or s < 0:
            raise ValueError(f"{api}(): argument 'shape' must hold non-negative ints, got {shape}")
    return shape


def sparse_coo_tensor(
    indices: TensorLike,
    values: TensorLike,
    shape: Sequence[int] | Tensor | None = None,
    dtype: DTypeLike | None = None,
    place: PlaceLike | None = None,
    stop_gradient: bool = True,
) -> Tensor:
    """A sparse tensor in coordinate (COO) format.

    Args:
        indices (list|numpy.ndarray|Tensor): int32/int64 positions, [sparse_dim, nnz]:
            column j is the position of entry j in the first sparse_dim dimensions.
        values (list|numpy.ndarray|Tensor): the entries, [nnz, ...]: trailing
            dimensions beyond the first stay dense.
        shape (list|tuple, optional): the dense shape; default: each sparse
            dimension one past its largest index, then values' trailing dimensions.
        dtype (str|oar.dtype, optional): the dtype of the values (default: theirs).
        place (Place, optional): only the CPU exists.
        stop_gradient (bool, optional): whether no gradient is computed for the
            result. Default: True.

    Returns:
        Tensor: a sparse COO tensor; the indices are stored as int64.

    Examples:
        >>> import oar
        >>> coo = oar.sparse.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0], [3, 3])
        >>> coo.nnz()
        3
    """
    api = "sparse_coo_tensor"
    idx = _index_tensor(api, "indices", indices)
    vals = _as_tensor(api, "values", values, dtype)
    out = _C.sparse_coo_tensor(idx, vals, _shape(api, shape))
    out.stop_gradient = stop_gradient
    return out


def sparse_csr_tensor(
    crows: TensorLike,
    cols: TensorLike,
    values: TensorLike,
    shape: Sequence[int] | Tensor,
    dtype: DTypeLike | None = None,
    place: PlaceLike | None = None,
    stop_gradient: bool = True,
) -> Tensor:
    """A sparse tensor in compressed sparse row (CSR) format: a matrix [rows, cols]
    or a batch of them [batch, rows, cols].

    Args:
        crows (list|numpy.ndarray|Tensor): int32/int64 row starts, rows + 1 per
            matrix (each matrix's count from 0).
        cols (list|numpy.ndarray|Tensor): int32/int64 column of each entry.
        values (list|numpy.ndarray|Tensor): the entries (1-D).
        shape (list|tuple): the dense shape, 2-D or 3-D.
        dtype (str|oar.dtype, optional): the dtype of the values (default: theirs).
        place (Place, optional): only the CPU exists.
        stop_gradient (bool, optional): whether no gradient is computed for the
            result. Default: True.

    Returns:
        Tensor: a sparse CSR tensor; crows and cols are stored as int64.

    Examples:
        >>> import oar
        >>> csr = oar.sparse.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1, 2, 3, 4, 5], [3, 4])
        >>> csr.nnz()
        5
    """
    api = "sparse_csr_tensor"
    if shape is None:
        raise ValueError(f"{api}(): argument 'shape' is required")
    out = _C.sparse_csr_tensor(
        _index_tensor(api, "crows", crows),
        _index_tensor(api, "cols", cols),
        _as_tensor(api, "values", values, dtype),
        _shape(api, shape),
    )
    out.stop_gradient = stop_gradient
    return out
