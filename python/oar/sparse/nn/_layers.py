"""Activation layers for sparse tensors: oar.sparse.nn.ReLU, ReLU6, LeakyReLU, Softmax."""

from ...nn import Layer
from . import functional as F

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax"]


class ReLU(Layer):
    """max(x, 0) of the stored values of a sparse tensor (oar.sparse.nn.functional.relu).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2., 0., 1.]).to_sparse_coo(1)
        >>> oar.sparse.nn.ReLU()(x).values().tolist()
        [0.0, 1.0]
    """

    def __init__(self, name=None):
        super().__init__()

    def forward(self, x):
        return F.relu(x)


class ReLU6(Layer):
    """min(max(x, 0), 6) of the stored values of a sparse tensor.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2., 0., 8.]).to_sparse_coo(1)
        >>> oar.sparse.nn.ReLU6()(x).values().tolist()
        [0.0, 6.0]
    """

    def __init__(self, name=None):
        super().__init__()

    def forward(self, x):
        return F.relu6(x)


class LeakyReLU(Layer):
    """Leaky ReLU of the stored values of a sparse tensor.

    Args:
        negative_slope (float, optional): the slope for negative values. Default: 0.01.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2., 0., 5.]).to_sparse_coo(1)
        >>> oar.sparse.nn.LeakyReLU(0.5)(x).values().tolist()
        [-1.0, 5.0]
    """

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope)

    def extra_repr(self):
        return f"negative_slope={self._negative_slope}"


class Softmax(Layer):
    """Softmax over the stored entries of each row of a sparse tensor.

    Args:
        axis (int, optional): the dimension normalised over. Default: -1.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0., 1.], [2., 2.]]).to_sparse_csr()
        >>> oar.sparse.nn.Softmax()(x).values().tolist()
        [1.0, 0.5, 0.5]
    """

    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis

    def forward(self, x):
        return F.softmax(x, self._axis)

    def extra_repr(self):
        return f"axis={self._axis}"
