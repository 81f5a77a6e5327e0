"""oar.special: Paddle 3.3's paddle.special, the PyTorch-style names of three existing
functions (torch.special.expm1 / logsumexp / softmax).

In Paddle, special.expm1 and special.logsumexp are the C++ operator entry points, which
take both Paddle's argument names (x, axis) and PyTorch's (input, dim) and an out=
tensor; special.softmax is paddle.compat.nn.functional.softmax (PyTorch's implicit dim).
"""

from __future__ import annotations

import functools
from typing import Sequence

from .framework.out import write_out
from .framework.typing import Tensor
from .compat.nn.functional import softmax
from ._C import expm1 as _expm1
from ._C import logsumexp as _logsumexp

__all__ = ["logsumexp", "softmax", "expm1"]


def _accept_torch_names(api, renames):
    """Lets fn be called with PyTorch's argument names too (input= for x, dim= for axis),
    as Paddle's operator entry points are; giving both spellings is an error."""

    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            for torch_name, paddle_name in renames.items():
                if torch_name in kwargs:
                    if paddle_name in kwargs:
                        raise TypeError(
                            f"{api}(): got both '{paddle_name}' and its alias '{torch_name}'"
                        )
                    kwargs[paddle_name] = kwargs.pop(torch_name)
            return fn(*args, **kwargs)

        return call

    return wrap


@_accept_torch_names("expm1", {"input": "x"})
def expm1(x: Tensor, name: str | None = None, *, out: Tensor | None = None) -> Tensor:
    """exp(x) - 1 elementwise, accurate for x near 0 (oar.expm1; input= is accepted for x).

    Args:
        x (Tensor): the input; an integer tensor gives float32.
        name (str, optional): unused, Paddle's.
        out (Tensor, optional): a tensor the result is written into (and returned).

    Returns:
        Tensor: exp(x) - 1, x's shape.

    Examples:
        >>> import oar
        >>> print(oar.special.expm1(oar.to_tensor([0.0, 1.0])).tolist())
        [0.0, 1.718281865119934]
    """
    return write_out(out, _expm1(x), "expm1")


@_accept_torch_names("logsumexp", {"input": "x", "dim": "axis"})
def logsumexp(
    x: Tensor,
    axis: int | Sequence[int] | None = None,
    keepdim: bool = False,
    name: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """log(sum(exp(x))) over axis, computed without overflow (oar.logsumexp; input= and
    dim= are accepted for x and axis).

    Args:
        x (Tensor): the input; an integer tensor gives float32.
        axis (int | list[int] | None, optional): the axes reduced; None reduces all.
        keepdim (bool, optional): keep the reduced axes with size 1. Default False.
        name (str, optional): unused, Paddle's.
        out (Tensor, optional): a tensor the result is written into (and returned).

    Returns:
        Tensor: the reduction.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0.0, 0.0], [1.0, 1.0]])
        >>> print([round(v, 4) for v in oar.special.logsumexp(x, dim=1).tolist()])
        [0.6931, 1.6931]
    """
    return write_out(out, _logsumexp(x, axis, keepdim), "logsumexp")
