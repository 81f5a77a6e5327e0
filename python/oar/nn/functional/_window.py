"""Argument parsing shared by conv.py and pooling.py: Paddle's forms of stride,
dilation, kernel size and padding (int, list, 'SAME'/'VALID', per-side pairs),
data_format, and the channels-last transposes. The C++ ops take channels-first
tensors and a (before, after) padding pair per spatial dim."""

import numbers

from ... import _C
from ...framework import check as _check

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def channel_last(api, data_format, nd):
    """True for the channels-last format of an nd-D op; ValueError for an unknown one."""
    first, last = _FORMATS[nd]
    if data_format not in (first, last):
        raise ValueError(
            f"{api}(): argument 'data_format' must be '{first}' or '{last}', "
            f"but got {data_format!r}"
        )
    return data_format == last


def int_list(api, name, v, nd, minimum=1):
    """An int or a list/tuple of nd ints, each >= minimum, as a list of nd ints."""
    if _is_int(v):
        v = [v] * nd
    elif isinstance(v, (list, tuple)) and len(v) == nd and all(_is_int(e) for e in v):
        v = [int(e) for e in v]
    else:
        raise (TypeError if not isinstance(v, (list, tuple)) else ValueError)(
            f"{api}(): argument '{name}' must be an int or a list of {nd} ints, but got {v!r}"
        )
    if any(e < minimum for e in v):
        raise ValueError(f"{api}(): argument '{name}' must hold values >= {minimum}, but got {v!r}")
    return v


def padding(api, pad, nd, channel_last_=False):
    """Paddle's padding forms as ('SAME' | 'VALID' | None, [before0, after0, ...])."""
    if isinstance(pad, str):
        algo = pad.upper()
        if algo not in ("SAME", "VALID"):
            raise ValueError(
                f"{api}(): argument 'padding' must be 'SAME', 'VALID', an int or a "
                f"list, but got the string {pad!r}"
            )
        return algo, [0] * (2 * nd)
    if _is_int(pad):
        out = [int(pad)] * (2 * nd)
    elif isinstance(pad, (list, tuple)):
        items = list(pad)
        if len(items) == nd + 2 and all(isinstance(p, (list, tuple)) for p in items):
            # one pair per dim of x, the batch and channel pairs zero
            c = nd + 1 if channel_last_ else 1
            for i in (0, c):
                if list(items[i]) != [0, 0]:
                    raise ValueError(
                        f"{api}(): argument 'padding' {pad!r} pads the batch or "
                        f"channel dim; only spatial dims can be padded"
                    )
            spatial = [p for i, p in enumerate(items) if i not in (0, c)]
            items = [e for p in spatial for e in p]
        if all(_is_int(e) for e in items) and len(items) == nd:
            out = [int(e) for e in items for _ in range(2)]
        elif all(_is_int(e) for e in items) and len(items) == 2 * nd:
            out = [int(e) for e in items]
        else:
            raise ValueError(
                f"{api}(): argument 'padding' must be an int, {nd} ints, {2 * nd} "
                f"ints (before and after per dim) or {nd + 2} pairs, but got {pad!r}"
            )
    else:
        raise TypeError(
            f"{api}(): argument 'padding' must be a str, an int or a list, but got "
            f"{type(pad).__name__}"
        )
    if any(p < 0 for p in out):
        raise ValueError(f"{api}(): argument 'padding' must not be negative, but got {pad!r}")
    return None, out


def same_padding(in_sizes, kernel, stride):
    """The (before, after) pairs of 'SAME': out = ceil(in / stride), the extra on the after side."""
    out = []
    for n, k, s in zip(in_sizes, kernel, stride):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        out += [total // 2, total - total // 2]
    return out


def to_channels_first(x, nd):
    return _C.transpose(x, [0, nd + 1] + list(range(1, nd + 1)))


def to_channels_last(x, nd):
    return _C.transpose(x, [0] + list(range(2, nd + 2)) + [1])


def spatial(x, nd, channel_last_):
    """The spatial sizes of x."""
    return list(x.shape[1 : nd + 1]) if channel_last_ else list(x.shape[2:])


def check_input(api, x, nd, data_format):
    """x as a Tensor of rank nd + 2 (TypeError / ValueError naming the argument)."""
    _check.tensor(api, "x", x)
    if x.ndim != nd + 2:
        raise ValueError(
            f"{api}(): argument 'x' must be {nd + 2}-D ({data_format}), but has "
            f"shape {list(x.shape)}"
        )
    return x


def call(api, internal, fn, *args):
    """fn(*args), with the internal op's name in an error message replaced by the API's."""
    try:
        return fn(*args)
    except (ValueError, TypeError, IndexError) as e:
        msg = str(e)
        if msg.startswith(internal + "(): "):
            raise type(e)(api + "(): " + msg[len(internal) + 4 :]) from None
        raise
