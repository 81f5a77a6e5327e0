"""oar.set_printoptions: the process-wide options of how tensors print (Paddle's names)."""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

import numpy as np


class _Options(NamedTuple):
    precision: int = 8
    threshold: int = 1000
    edgeitems: int = 3
    sci_mode: bool = False
    linewidth: int = 80


# The options are process-wide (as Paddle's); set_printoptions swaps in a new immutable
# tuple under the lock, and a printout reads one snapshot.
_lock = threading.Lock()


_current = [_Options()]


def _options():
    return _current[0]


def set_printoptions(
    precision: int | None = None,
    threshold: int | None = None,
    edgeitems: int | None = None,
    sci_mode: bool | None = None,
    linewidth: int | None = None,
) -> None:
    """Sets how tensors print, for the whole process.

    Args:
        precision (int|None, optional): Decimals of a floating-point element. Default: 8.
        threshold (int|None, optional): A tensor with more elements than this prints only
            the first and last ``edgeitems`` of each dimension. Default: 1000.
        edgeitems (int|None, optional): Elements kept at each end of a dimension when a
            tensor is summarised. Default: 3.
        sci_mode (bool|None, optional): Print floats in scientific notation. Default: False.
        linewidth (int|None, optional): Characters per line before a row wraps. Default: 80.

    An argument left None keeps its current value.

    Returns:
        None.

    Examples:
        >>> import oar
        >>> oar.set_printoptions(precision=2, sci_mode=True)
        >>> print(oar.to_tensor([1.5, 0.001]))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.50e+00, 1.00e-03])
        >>> oar.set_printoptions(precision=8, sci_mode=False)
    """
    changes: dict[str, Any] = {}
    for name, value, least in (
        ("precision", precision, 0),
        ("threshold", threshold, 0),
        ("edgeitems", edgeitems, 0),
        ("linewidth", linewidth, 1),
    ):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(
                f"set_printoptions(): argument '{name}' must be an int, got {type(value).__name__}"
            )
        if value < least:
            raise ValueError(
                f"set_printoptions(): argument '{name}' must be >= {least}, got {value}"
            )
        changes[name] = int(value)
    if sci_mode is not None:
        if not isinstance(sci_mode, (bool, np.bool_)):
            raise TypeError(
                f"set_printoptions(): argument 'sci_mode' must be a bool, "
                f"got {type(sci_mode).__name__}"
            )
        changes["sci_mode"] = bool(sci_mode)
    with _lock:
        _current[0] = _current[0]._replace(**changes)
