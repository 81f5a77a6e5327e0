"""oar.sparse.nn.functional (Paddle's paddle.sparse.nn.functional): activations of
sparse tensors (the dense activation on the stored values, the softmax over the
stored entries of each row), convolution and max pooling of COO point clouds
(_conv.py), and the attention over a CSR layout (_attention.py)."""

from __future__ import annotations

from .... import _C
from ....framework.typing import Tensor
from ....nn import functional as F
from ..._base import check_number, check_sparse, map_values, normalize_axis

from ._attention import attention  # noqa: F401
from ._conv import conv2d, conv3d, max_pool3d, subm_conv2d, subm_conv3d  # noqa: F401

__all__ = [
    "relu",
    "relu6",
    "leaky_relu",
    "softmax",
    "conv2d",
    "conv3d",
    "subm_conv2d",
    "subm_conv3d",
    "max_pool3d",
    "attention",
]


def relu(x: Tensor, name: str | None = None) -> Tensor:
    """max(x, 0) of the stored values; the positions stay.

    Args:
        x (Tensor): a sparse COO or CSR tensor.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor of x's format and positions.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2., 0., 1.]).to_sparse_coo(1)
        >>> oar.sparse.nn.functional.relu(x).values().tolist()
        [0.0, 1.0]
    """
    return map_values(check_sparse("relu", "x", x), _C.relu)


def relu6(x: Tensor, name: str | None = None) -> Tensor:
    """min(max(x, 0), 6) of the stored values; the positions stay.

    Args:
        x (Tensor): a sparse COO or CSR tensor.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor of x's format and positions.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2., 0., 8.]).to_sparse_coo(1)
        >>> oar.sparse.nn.functional.relu6(x).values().tolist()
        [0.0, 6.0]
    """
    return map_values(check_sparse("relu6", "x", x), F.relu6)


def leaky_relu(x: Tensor, negative_slope: float = 0.01, name: str | None = None) -> Tensor:
    """x where x > 0, else negative_slope * x, of the stored values.

    Args:
        x (Tensor): a sparse COO or CSR tensor.
        negative_slope (float, optional): the slope for negative values. Default: 0.01.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor of x's format and positions.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2., 0., 5.]).to_sparse_coo(1)
        >>> oar.sparse.nn.functional.leaky_relu(x, 0.5).values().tolist()
        [-1.0, 5.0]
    """
    check_sparse("leaky_relu", "x", x)
    slope = float(check_number("leaky_relu", "negative_slope", negative_slope))
    return map_values(x, lambda v: _C.leaky_relu(v, slope))


def softmax(x: Tensor, axis: int = -1, name: str | None = None) -> Tensor:
    """Softmax over the stored entries of each row of a sparse tensor: the
    missing entries stay missing (they are not zeros taking part). Over a dense
    dimension of a COO tensor, the dense softmax of the values.

    Args:
        x (Tensor): a sparse COO or CSR tensor.
        axis (int, optional): the dimension normalised over; -1 (the last). Default: -1.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse tensor of x's format and positions.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0., 1.], [2., 2.]]).to_sparse_csr()
        >>> oar.sparse.nn.functional.softmax(x).values().tolist()
        [1.0, 0.5, 0.5]
    """
    check_sparse("softmax", "x", x)
    a = normalize_axis("softmax", axis, x.ndim)
    if x.is_sparse_coo() and a >= x.sparse_dim():  # a dense dimension: softmax of the values
        return map_values(x, lambda v: _C.softmax(v, a - x.sparse_dim() + 1))
    return _C.sparse_softmax(x, a)
