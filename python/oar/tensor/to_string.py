"""How a Tensor prints: Paddle's layout (the options are oar.framework.printing's,
oar.set_printoptions).

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

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _C
from ..framework.printing import _options
from ..framework.typing import PlaceLike, Tensor
from .conversion import _values


__all__ = ["format_data", "format_empty", "tensor_string"]


def __repr__(self: Tensor) -> str:
    if not self._is_initialized():
        return "Tensor(Not initialized)"
    if self.is_sparse():
        return sparse_repr(self)
    if 0 in self.shape:
        a = None
    else:
        a = _values(self)
    return tensor_string(self.shape, self.dtype.name, self.place, self.stop_gradient, a)


def __format__(self: Tensor, spec: str) -> str:
    # A 0-D tensor formats as its value ("{}".format(loss) gives 0.25), as in Paddle.
    if self.ndim == 0:
        return format(self.item(), spec)
    return object.__format__(self, spec) if spec else repr(self)


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
            keep = np.r_[0:edgeitems, n - edgeitems : n]
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
            lines = [", ".join(items[k : k + per_line]) for k in range(0, len(items), per_line)]
            return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
        rows = [
            "..." if i is None else self.block(a[i], indent + 1) for i in self.shown(a.shape[0])
        ]
        return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def format_data(a: Any, indent: Any) -> str:
    """The bracketed data of array `a` as Paddle prints it after an indent of `indent`."""
    return _Layout(a, _options()).block(a, indent)


def format_empty(shape: Any, indent: Any) -> str:
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
        shown = (
            (list(range(e)) + [None] + list(range(n - e, n))) if summary and n > 2 * e else range(n)
        )
        rows = ["..." if i is None else block(dims[1:], indent + 1) for i in shown]
        return "[" + ("," + "\n" * (len(dims) - 1) + " " * (indent + 1)).join(rows) + "]"

    return block(list(shape), indent)


def tensor_string(
    shape: Any,
    dtype_name: Any,
    place: PlaceLike | None,
    stop_gradient: bool,
    a: Any,
    prefix: Any = "Tensor",
) -> str:
    """`a` is the data as a numpy array, or None for an empty tensor (printed from `shape`)."""
    indent = len(prefix) + 1
    data = format_empty(shape, indent) if a is None else format_data(a, indent)
    return (
        f"{prefix}(shape={list(shape)}, dtype={dtype_name}, place={place}, "
        f"stop_gradient={stop_gradient},\n{' ' * indent}{data})"
    )


def sparse_repr(t: Tensor) -> str:
    """Paddle's layout: the header line, then indices and values (COO) or crows,
    cols and values (CSR)."""
    pad = " " * 7
    if t.is_sparse_coo():
        parts = [("indices", _C.sparse_indices(t))]
    else:
        parts = [("crows", _C.sparse_crows(t)), ("cols", _C.sparse_cols(t))]
    parts.append(("values", _C.sparse_values(t)))
    lines = [
        f"Tensor(shape={t.shape}, dtype={t.dtype}, place={t.place}, "
        f"stop_gradient={t.stop_gradient},"
    ]
    for i, (name, part) in enumerate(parts):
        a = np.asarray(part.detach())
        if t.dtype.name == "bfloat16" and name == "values":
            a = np.asarray(a.astype(np.uint32) << 16).view(np.float32)
        # the dense printout's element format (Paddle prints both alike)
        text = format_data(a, len(pad) + len(name) + 1)
        end = ")" if i == len(parts) - 1 else ","
        lines.append(f"{pad}{name}={text}{end}")
    return "\n".join(lines)
