"""oar.nn.functional: sequence_mask, gather_tree, temporal_shift (Paddle's
paddle.nn.functional.extension)."""

from __future__ import annotations

from ... import _C
from ...framework import check as C
from ...framework.dtype import convert_dtype
from ...framework.typing import DTypeLike, Tensor
from .vision import _back, _nchw

__all__ = ["sequence_mask", "gather_tree", "temporal_shift"]


def sequence_mask(
    x: Tensor, maxlen: int | None = None, dtype: DTypeLike = "int64", name: str | None = None
) -> Tensor:
    """mask[..., j] = j < x[...]: for lengths x, a mask of shape x.shape + [maxlen] (maxlen
    defaults to the largest length)."""
    api = "sequence_mask"
    C.tensor(api, "x", x)
    if x.dtype.is_floating_point or x.dtype.name == "bool":
        raise TypeError(
            f"{api}(): argument 'x' must be an integer tensor of lengths, but got {x.dtype.name}"
        )
    if maxlen is None:
        maxlen = int(_C.max(x).item()) if x.size else 0
    else:
        maxlen = C.integer(api, "maxlen", maxlen)
        if maxlen < 0:
            raise ValueError(f"{api}(): argument 'maxlen' must not be negative, but got {maxlen}")
    steps = _C.arange(0, maxlen, 1, x.dtype)
    mask = _C.less_than(_C.reshape(steps, [1] * x.ndim + [maxlen]), _C.unsqueeze(x, [-1]))
    return _C.cast(mask, convert_dtype(dtype))


def gather_tree(ids: Tensor, parents: Tensor) -> Tensor:
    """The full beams of a beam search: ids and parents [max_time, batch, beam] (the token
    and the parent beam chosen at each step); each beam traced back from the last step."""
    api = "gather_tree"
    C.tensor(api, "ids", ids)
    C.tensor(api, "parents", parents)
    for n, v in (("ids", ids), ("parents", parents)):
        if v.dtype.name not in ("int32", "int64"):
            raise TypeError(
                f"{api}(): argument '{n}' must be an int32 or int64 tensor, but got {v.dtype.name}"
            )
    if ids.ndim != 3 or list(ids.shape) != list(parents.shape):
        raise ValueError(
            f"{api}(): arguments 'ids' {ids.shape} and 'parents' {parents.shape} "
            f"must have the same 3-D shape [max_time, batch_size, beam_size]"
        )
    t_max, _, beam = ids.shape
    if ids.size == 0:  # no steps, batch or beams: nothing to trace (t_max may still be huge)
        return _C.assign(ids)
    if parents.size and (int(_C.min(parents).item()) < 0 or int(_C.max(parents).item()) >= beam):
        raise IndexError(f"{api}(): argument 'parents' holds beam indices outside [0, {beam})")
    parents = _C.cast(parents, convert_dtype("int64"))

    def step(t):
        return _C.squeeze(_C.slice(ids, [0], [t], [t + 1]), [0])

    def parent(t):
        return _C.squeeze(_C.slice(parents, [0], [t], [t + 1]), [0])

    out = [step(t_max - 1)]
    beams = parent(t_max - 1)
    for t in range(t_max - 2, -1, -1):
        out.append(_C.take_along_axis(step(t), beams, 1))
        beams = _C.take_along_axis(parent(t), beams, 1)
    return _C.concat([_C.unsqueeze(o, [0]) for o in reversed(out)], 0)


def temporal_shift(
    x: Tensor,
    seg_num: int,
    shift_ratio: float = 0.25,
    name: str | None = None,
    data_format: str = "NCHW",
) -> Tensor:
    """The temporal shift of TSM: x [N * seg_num, C, H, W] viewed as seg_num frames per
    clip; the first shift_ratio of the channels take the previous frame's values, the
    next shift_ratio the next frame's (zeros past the ends), the rest stay."""
    api = "temporal_shift"
    x = _nchw(api, x, data_format)
    t = C.integer(api, "seg_num", seg_num)
    ratio = float(C.number(api, "shift_ratio", shift_ratio))
    if t <= 0 or x.shape[0] % t:
        raise ValueError(
            f"{api}(): argument 'seg_num' ({t}) must be positive and divide the "
            f"batch size {x.shape[0]}"
        )
    if not 0.0 <= ratio <= 0.5:
        raise ValueError(f"{api}(): argument 'shift_ratio' must be in [0, 0.5], but got {ratio}")
    nt, c, h, w = x.shape
    v = C.reshape_exact(x, [nt // t, t, c, h, w])
    c1, c2 = int(c * ratio), int(c * 2 * ratio)
    zero = _C.full([nt // t, 1, c, h, w], 0.0, x.dtype)
    prev = _C.concat([zero, _C.slice(v, [1], [0], [t - 1])], 1)  # frame t reads t - 1
    nxt = _C.concat([_C.slice(v, [1], [1], [t]), zero], 1)  # frame t reads t + 1
    parts = [
        _C.slice(prev, [2], [0], [c1]),
        _C.slice(nxt, [2], [c1], [c2]),
        _C.slice(v, [2], [c2], [c]),
    ]
    return _back(C.reshape_exact(_C.concat(parts, 2), [nt, c, h, w]), data_format)
