"""Search and sort (src/oar/ops/search.yaml): ties, unsorted results and NaN in topk,
kthvalue, mode and unique."""
import math

import numpy as np
import torch

from .common import Difference, _x


def _positions_of_ties(call, detail, last):
    """topk/kthvalue positions among equal values (0.0 and -0.0 included): which of the
    tied positions comes first is unspecified (torch's depends on its selection
    algorithm; oar takes the smaller position), and with sorted=False so is the order of
    the k results. Only when the values at oar's positions equal the values at torch's
    (as multisets along the axis when unsorted)."""
    x, out, want = _x(call, last), last.get("out"), last.get("want")
    if x is None or out is None or want is None or x.dim() == 0:
        return False
    d = call.decl or {}
    axis = int(d.get("axis", -1)) % x.dim()
    got = torch.tensor(out.numpy()).long()
    want = want.long()
    if call.key == "kthvalue_index" and not d.get("keepdim", False):
        got, want = got.unsqueeze(axis), want.unsqueeze(axis)
    a, b = x.gather(axis, got), x.gather(axis, want)
    if call.key == "topk_index" and not d.get("sorted", True):
        # sorted=False: the k positions come in an unspecified order; compare the values
        a, b = a.sort(axis).values, b.sort(axis).values
    return bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all())


def _unsorted_topk_order(call, detail, last):
    """topk_index with sorted=False: the order of the k positions is unspecified (torch's
    follows its selection algorithm), so only the sets must agree. Only when oar's and
    torch's positions are the same set along the axis."""
    out, want = last.get("out"), last.get("want")
    d = call.decl or {}
    if d.get("sorted", True) or out is None or want is None:
        return False
    got = torch.tensor(out.numpy()).long()
    want = want.long()
    if got.shape != want.shape or got.dim() == 0:
        return False
    axis = int(d.get("axis", -1)) % got.dim()
    return bool((got.sort(axis).values == want.sort(axis).values).all())


def _mode_with_nan(call, detail, last):
    """mode with NaN in a line: oar follows Paddle -- each NaN is a value of its own
    (NaN != NaN), the most frequent value wins, ties go to the smallest value, and the
    index is that value's last position -- where torch's tie-break among NaNs is
    inconsistent ([nan, 2.67, 0., 1.6] gives NaN, [1., nan, 2.] gives 1.). Only when
    oar's index is Paddle's rule's for every line."""
    x, out = _x(call, last), last.get("out")
    if x is None or out is None or x.dim() == 0 or not bool(x.isnan().any()):
        return False
    d = call.decl or {}
    axis = int(d.get("axis", -1)) % x.dim()
    xv = np.moveaxis(x.detach().double().numpy(), axis, -1)
    lines = xv.reshape(-1, xv.shape[-1])
    got = np.asarray(out.numpy()).reshape(-1)
    if got.size != lines.shape[0]:
        return False
    for line, g in zip(lines, got):
        counts = {}
        for v in line:
            if not math.isnan(v):
                counts[v] = counts.get(v, 0) + 1
        if not counts:  # all NaN: every value is its own
            continue
        top = max(counts.values())
        best = min(v for v, c in counts.items() if c == top)
        last_pos = max(i for i, v in enumerate(line) if v == best)
        if int(g) != last_pos:
            return False
    return True


def _unique_with_nan(call, detail, last):
    """unique's inverse with NaN: each NaN is a value (or slice) of its own and sorts
    last, in order of position, as torch.unique without dim does for values; torch's
    order among the NaNs differs, and its unique along an axis (unique_dim) sorts with a
    comparison NaN breaks (it returns one slice twice). Only when oar's inverse is that
    rule's for every element."""
    x, out = _x(call, last), last.get("out")
    if x is None or out is None or not bool(x.isnan().any()):
        return False
    axis = (call.decl or {}).get("axis") or []
    xv = x.detach().double().numpy()
    if axis:
        a = axis[0] % max(xv.ndim, 1)
        slices = [tuple(np.take(xv, i, axis=a).reshape(-1)) for i in range(xv.shape[a])]
    else:
        slices = [(v,) for v in xv.reshape(-1)]
    key = lambda t: tuple((math.isnan(v), 0.0 if math.isnan(v) else v) for v in t)  # noqa: E731
    groups = {}
    for i, t in enumerate(slices):
        k = key(t) if not any(math.isnan(v) for v in t) else key(t) + ((True, float(i)),)
        groups.setdefault(k, len(groups))
    order = {k: r for r, k in enumerate(sorted(groups))}
    want = [order[key(t) if not any(math.isnan(v) for v in t) else key(t) + ((True, float(i)),)]
            for i, t in enumerate(slices)]
    return np.asarray(out.numpy()).reshape(-1).tolist() == want


POSITIONS_OF_TIES = Difference(
    "positions of tied values", ["topk_index", "kthvalue_index"], ["value mismatch"],
    _positions_of_ties, _positions_of_ties.__doc__)
UNSORTED_TOPK_ORDER = Difference(
    "unsorted topk order", ["topk_index"], ["value mismatch"], _unsorted_topk_order,
    _unsorted_topk_order.__doc__)
MODE_WITH_NAN = Difference(
    "mode with NaN (Paddle's rule)", ["mode_index", "mode"], ["value mismatch"], _mode_with_nan,
    _mode_with_nan.__doc__)
UNIQUE_WITH_NAN = Difference(
    "unique with NaN", ["unique_inverse", "unique"], ["value mismatch"], _unique_with_nan,
    _unique_with_nan.__doc__)
