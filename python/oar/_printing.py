"""How a Tensor prints: Paddle's layout, and oar.set_printoptions (Paddle's names).

The text is Paddle's, so a Paddle program prints the same lines on oar:

    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
           [0.40000001, 1.        , 2.        ])

Rules (they are Paddle's, including its quirks; docs/printing.md):
- a float shows `precision` decimals of its value as a float64 (`0.40000001` for the
  float32 nearest 0.4), a whole number shows as `2.` (also `inf.`, `-0.`), and with
  sci_mode every float shows as `2.00000000e+00`;
- a complex number shows as `(re+imj)` with `precision` decimals, never shortened;
- integers and bools show as Python shows them (`3`, `True`);
- every element is left-aligned to the widest element; when some element is negative,
  the others get one leading space to line up with its sign (unless already widest);
- the widths come from the elements at the edges of each dimension (the first and
  last `edgeitems`), and a tensor with more than `threshold` elements shows only
  those, with `...` in between;
- a row wraps to lines of at most `linewidth` characters counting the indent.
"""
import math
import threading
from typing import NamedTuple

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


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None,
                     linewidth=None):
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
    changes = {}
    for name, value, least in (("precision", precision, 0), ("threshold", threshold, 0),
                               ("edgeitems", edgeitems, 0), ("linewidth", linewidth, 1)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"set_printoptions(): argument '{name}' must be an int, "
                            f"got {type(value).__name__}")
        if value < least:
            raise ValueError(f"set_printoptions(): argument '{name}' must be >= {least}, "
                             f"got {value}")
        changes[name] = int(value)
    if sci_mode is not None:
        if not isinstance(sci_mode, (bool, np.bool_)):
            raise TypeError(f"set_printoptions(): argument 'sci_mode' must be a bool, "
                            f"got {type(sci_mode).__name__}")
        changes["sci_mode"] = bool(sci_mode)
    with _lock:
        _current[0] = _current[0]._replace(**changes)


# ---- elements ------------------------------------------------------------------------
def _float_str(v, opt):
    if opt.sci_mode:
        return f"{v:.{opt.precision}e}"
    if math.isnan(v):
        return f"{v:.{opt.precision}f}"
    if math.isinf(v) or v == math.floor(v):
        return f"{v:.0f}."
    return f"{v:.{opt.precision}f}"


def _complex_str(v, opt):
    kind = "e" if opt.sci_mode else "f"
    re, im = f"{v.real:.{opt.precision}{kind}}", f"{v.imag:.{opt.precision}{kind}}"
    # the sign goes in front of a non-negative imaginary part only (so -0.0 shows `+-0.`)
    return f"({re}+{im}j)" if v.imag >= 0 else f"({re}{im}j)"


def _is_negative(v):
    # complex numbers order by real part, then imaginary part (as numpy compares them)
    if isinstance(v, complex):
        return v.real < 0 or (v.real == 0 and v.imag < 0)
    return v < 0


def _element_formatter(kind, opt):
    if kind == "f":
        return lambda v: _float_str(v, opt)
    if kind == "c":
        return lambda v: _complex_str(v, opt)
    return str


def _edges(a, edgeitems):
    """The elements at the edges of every dimension (all of a dimension that is short)."""
    if a.size == 0:
        return a.reshape(-1)
    for axis in range(a.ndim):
        n = a.shape[axis]
        if n > 2 * edgeitems:
            keep = np.r_[0:edgeitems, n - edgeitems:n]
            a = np.take(a, keep, axis=axis)
    return a


# ---- layout ----------------------------------------------------------------------------
class _Layout:
    def __init__(self, a, opt):
        self.opt = opt
        self.fmt = _element_formatter(a.dtype.kind, opt)
        edges = _edges(a, opt.edgeitems).reshape(-1).tolist()
        self.width = max((len(self.fmt(v)) for v in edges), default=0)
        self.signed = any(_is_negative(v) for v in edges)
        self.summary = a.size > opt.threshold

    def item(self, v):
        s = self.fmt(v)
        if len(s) >= self.width:
            return s
        if self.signed and not _is_negative(v):
            return " " + s.ljust(self.width - 1)
        return s.ljust(self.width)

    def shown(self, n):
        """Indices of one dimension to show, None standing for `...`."""
        e = self.opt.edgeitems
        if self.summary and n > 2 * e:
            return list(range(e)) + [None] + list(range(n - e, n))
        return list(range(n))

    def block(self, a, indent):
        if a.ndim == 0:
            return self.item(a.item())
        if a.ndim == 1:
            shown = self.shown(a.shape[0])
            if len(shown) == a.shape[0]:
                items = [self.item(v) for v in a.tolist()]
            else:
                items = ["..." if i is None else self.item(a[i].item()) for i in shown]
            per_line = max(1, (self.opt.linewidth - indent) // (self.width + 2))
            lines = [", ".join(items[k:k + per_line]) for k in range(0, len(items), per_line)]
            return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
        rows = ["..." if i is None else self.block(a[i], indent + 1)
                for i in self.shown(a.shape[0])]
        return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def format_data(a, indent):
    """The bracketed data of array `a` as Paddle prints it after an indent of `indent`."""
    return _Layout(a, _options()).block(a, indent)


def format_empty(shape, indent):
    """The brackets of an empty tensor of `shape`, from the shape alone: numpy cannot hold
    every empty shape (it refuses (2**31, 2**31, 0) of float16 as too big), and the rows before
    the 0 are summarised like elements, so [2**40, 0] does not print 2**40 lines."""
    e = _options().edgeitems
    blocks = 1
    for d in shape:
        if d == 0:
            break
        blocks *= d
    summary = blocks > _options().threshold

    def block(dims, indent):
        if len(dims) == 1 or dims[0] == 0:
            return "[]"
        n = dims[0]
        shown = (list(range(e)) + [None] + list(range(n - e, n))) if summary and n > 2 * e \
            else range(n)
        rows = ["..." if i is None else block(dims[1:], indent + 1) for i in shown]
        return "[" + ("," + "\n" * (len(dims) - 1) + " " * (indent + 1)).join(rows) + "]"

    return block(list(shape), indent)


def tensor_string(shape, dtype_name, place, stop_gradient, a, prefix="Tensor"):
    """`a` is the data as a numpy array, or None for an empty tensor (printed from `shape`)."""
    indent = len(prefix) + 1
    data = format_empty(shape, indent) if a is None else format_data(a, indent)
    return (f"{prefix}(shape={list(shape)}, dtype={dtype_name}, place={place}, "
            f"stop_gradient={stop_gradient},\n{' ' * indent}{data})")
