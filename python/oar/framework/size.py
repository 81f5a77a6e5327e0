"""oar.Size: what Tensor.shape returns (Paddle's paddle.Size)."""

import math
import operator

from .. import _C
from .dtype import api_name


class Size(list):
    """The sizes of a tensor's dimensions: a list of ints that prints as ``oar.Size([2, 3])``.

    As a list it indexes, slices, concatenates and compares as one (a slice, ``+`` and
    ``*`` give a Size again), and it also equals a tuple of the same ints.

    Args:
        sizes (Iterable[int], optional): The sizes; ints, numpy integers or integer
            tensors. Default: empty (the shape of a 0-D tensor).

    Examples:
        >>> import oar
        >>> s = oar.ones([2, 3]).shape
        >>> print(s)
        oar.Size([2, 3])
        >>> s == [2, 3], s == (2, 3), s.numel()
        (True, True, 6)
    """

    __slots__ = ()

    def __init__(self, sizes=()):
        items = []
        for i, v in enumerate(sizes):
            try:
                items.append(operator.index(v))
            except TypeError:
                raise TypeError(
                    f"Size() takes an iterable of 'int' (item {i} is '{type(v).__name__}')"
                ) from None
        super().__init__(items)

    def __repr__(self):
        return f"{api_name()}.Size({list.__repr__(self)})"

    __str__ = __repr__

    def __format__(self, spec):
        # In f-strings and str.format (oar's error messages among them) a shape reads
        # as the plain list, "[2, 3]"; str(), repr() and print() give "oar.Size([2, 3])".
        return format(list.__repr__(self), spec)

    def __getitem__(self, index):
        r = list.__getitem__(self, index)
        return Size(r) if isinstance(index, slice) else r

    def __add__(self, other):
        return _size_or_list(list.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, list):
            return NotImplemented
        return _size_or_list(list.__add__(other, self))

    def __mul__(self, n):
        return Size(list.__mul__(self, n))

    __rmul__ = __mul__

    def __eq__(self, other):
        if isinstance(other, tuple):
            return list.__eq__(self, list(other))
        return list.__eq__(self, other)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # a list: mutable, so unhashable

    def __reduce__(self):
        return (Size, (list(self),))

    def numel(self):
        """The number of elements of a tensor of this shape (1 for the empty shape)."""
        return math.prod(self)


def _size_or_list(items):
    """A Size when every item is an int; a plain list otherwise (x.shape[:-2] + ['k'] in
    a message)."""
    if all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        return Size(items)
    return items


_C._set_shape_type(Size)
