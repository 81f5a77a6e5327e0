"""oar.nn.functional.pad (Paddle keeps it in paddle.nn.functional.common)."""

from __future__ import annotations

from typing import Sequence

from ... import _C
from ...framework import check as C

Tensor = _C.Tensor

__all__: list[str] = ["pad", "zeropad2d"]

_PAD_MODES = {"constant": 0, "reflect": 1, "replicate": 2, "circular": 3}
# Paddle's layouts per rank; the first is the default.
_PAD_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _pad_list(p):
    if isinstance(p, Tensor):
        if p.dtype.is_floating_point or p.dtype.name == "bool" or p.ndim > 1:
            raise TypeError(
                f"pad(): argument 'pad' must be a 1-D integer Tensor, but got a "
                f"{p.dtype.name} Tensor of shape {p.shape}"
            )
        return [int(v) for v in p.numpy().reshape(-1)]
    if not isinstance(p, (list, tuple)):
        raise TypeError(
            f"pad(): argument 'pad' must be a list or tuple of int or a Tensor, but "
            f"got {C._kind(p)}"
        )
    return [C.integer("pad", f"pad[{i}]", v) for i, v in enumerate(p)]


def pad(
    x: Tensor,
    pad: Sequence[int] | Tensor,
    mode: str = "constant",
    value: float = 0.0,
    data_format: str | None = None,
    pad_from_left_axis: bool = True,
    name: str | None = None,
) -> Tensor:
    """Pads x: `pad` holds (before, after) amounts, in one of Paddle's orders.

    constant mode with len(pad) == 2 * x.ndim: pad[2i:2i+2] is axis i's (pad_from_left_axis,
    the default) or the order runs from the last axis (pad_from_left_axis=False).
    reflect/replicate/circular mode, a Tensor pad, or len(pad) == 2 * (x.ndim - 2): x is 3-D,
    4-D or 5-D in data_format and pad = [left, right, top, bottom, front, back] pads the
    spatial axes from the last. Any other even length (constant mode) pads from the last axis.
    """
    C.tensor("pad", "x", x)
    if not isinstance(mode, str) or mode not in _PAD_MODES:
        raise ValueError(
            f"pad(): argument 'mode' must be one of 'constant', 'reflect', "
            f"'replicate', 'circular', but got {mode!r}"
        )
    pads = _pad_list(pad)
    value = C.number("pad", "value", value)
    n = x.ndim
    constant = mode == "constant"
    if constant and len(pads) % 2:
        pads = pads + [0]  # Paddle: an odd length is completed with a 0
    if len(pads) % 2:
        raise ValueError(f"pad(): argument 'pad' must have an even length, but has {len(pads)}")
    spatial = (
        (not constant)
        or isinstance(pad, Tensor)
        or (n in _PAD_FORMATS and len(pads) == 2 * (n - 2))
    )
    per_axis = [[0, 0] for _ in range(n)]
    if spatial:
        if n not in _PAD_FORMATS:
            raise ValueError(
                f"pad(): in {mode} mode (or with a Tensor pad) x must be 3-D, 4-D or "
                f"5-D, but has shape {x.shape}"
            )
        fmt = _PAD_FORMATS[n][0] if data_format is None else data_format
        if fmt not in _PAD_FORMATS[n]:
            raise ValueError(
                f"pad(): argument 'data_format' must be one of "
                f"{list(_PAD_FORMATS[n])} for a {n}-D x, but got {data_format!r}"
            )
        if len(pads) != 2 * (n - 2):
            raise ValueError(
                f"pad(): argument 'pad' must have {2 * (n - 2)} entries (before and "
                f"after each spatial axis) for a {n}-D x in {mode} mode, but has "
                f"{len(pads)}"
            )
        axes = list(range(2, n)) if fmt[1] == "C" else list(range(1, n - 1))
        for k, a in enumerate(reversed(axes)):
            per_axis[a] = pads[2 * k : 2 * k + 2]
    elif len(pads) == 2 * n and pad_from_left_axis:
        for a in range(n):
            per_axis[a] = pads[2 * a : 2 * a + 2]
    else:
        if len(pads) > 2 * n:
            raise ValueError(
                f"pad(): argument 'pad' has {len(pads)} entries, more than 2 * "
                f"{n} for x of shape {x.shape}"
            )
        for k in range(len(pads) // 2):
            per_axis[n - 1 - k] = pads[2 * k : 2 * k + 2]
    flat = [v for p in per_axis for v in p]
    try:
        return _C.pad(x, flat, _PAD_MODES[mode], value)
    except (ValueError, IndexError) as e:
        msg = str(e).replace("argument 'paddings'", "argument 'pad' (per axis)", 1)
        raise type(e)(msg) from None


def zeropad2d(
    x: Tensor,
    padding: int | Sequence[int] | Tensor,
    data_format: str = "NCHW",
    name: str | None = None,
) -> Tensor:
    """Zero padding of the spatial axes of a 4-D x: padding [left, right, top, bottom] (an int
    pads every side)."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        padding = [padding] * 4
    if isinstance(padding, (list, tuple)) and len(padding) != 4:
        raise ValueError(
            f"zeropad2d(): argument 'padding' must be an int or 4 ints [left, "
            f"right, top, bottom], but got {padding!r}"
        )
    C.tensor("zeropad2d", "x", x)
    if x.ndim != 4:
        raise ValueError(f"zeropad2d(): argument 'x' must be 4-D, but has shape {x.shape}")
    # a bool padding: pad raises its TypeError
    return pad(
        x,
        padding,
        mode="constant",
        value=0.0,  # type: ignore[arg-type]
        data_format=data_format,
    )
