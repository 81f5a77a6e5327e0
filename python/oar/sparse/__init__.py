"""oar.sparse: sparse COO and CSR tensors with Paddle's paddle.sparse API
(docs/sparse.md). A sparse tensor is an oar.Tensor whose impl holds indices and
values; its elementwise math is the dense ops on the values, its gradient (for a
sparse input) has the input's positions."""

from . import _tensor_methods  # noqa: F401  (Tensor.to_sparse_coo, values(), ...)
from . import nn  # noqa: F401
from ._binary import add, divide, multiply, subtract  # noqa: F401
from ._creation import sparse_coo_tensor, sparse_csr_tensor  # noqa: F401
from ._linalg import pca_lowrank  # noqa: F401
from ._matmul import addmm, masked_matmul, matmul, mv  # noqa: F401
from ._shape import coalesce, is_same_shape, mask_as, reshape, slice, sum, transpose  # noqa: F401
from ._unary import (
    abs,
    asin,
    asinh,
    atan,
    atanh,
    cast,
    deg2rad,
    expm1,
    isnan,  # noqa: F401
    log1p,
    neg,
    pow,
    rad2deg,
    sin,
    sinh,
    sqrt,
    square,
    tan,
    tanh,
)

__all__ = [
    "sparse_coo_tensor",
    "sparse_csr_tensor",
    "abs",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "sin",
    "sinh",
    "tan",
    "tanh",
    "sqrt",
    "square",
    "log1p",
    "expm1",
    "neg",
    "pow",
    "rad2deg",
    "deg2rad",
    "cast",
    "isnan",
    "add",
    "subtract",
    "multiply",
    "divide",
    "matmul",
    "masked_matmul",
    "mv",
    "addmm",
    "sum",
    "reshape",
    "transpose",
    "slice",
    "coalesce",
    "is_same_shape",
    "mask_as",
    "pca_lowrank",
    "nn",
]
