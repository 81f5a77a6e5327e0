"""Graph message passing and segment reductions (src/oar/ops/geometric.yaml)."""
import numpy as np

from .common import Difference, _differing, _x


def _integer_segment_mean_truncates(call, detail, last):
    """segment_pool / send_u_recv / send_ue_recv with reduce 'mean' on integers: Paddle's
    kernels divide the integer sum by the count in C++, truncating toward zero (Paddle
    3.3.1: segment_mean([0, -5]) = -2), as oar does; torch's scatter_reduce floors (-3).
    Only for an integer x and reduce 1 (mean), when every differing element of oar's is
    torch's moved one step toward zero."""
    d = call.decl or {}
    x = _x(call, last)
    r = _differing(last)
    if x is None or r is None or x.dtype.is_floating_point or x.is_complex() or \
            int(d.get("reduce", 0)) != 1:
        return False
    got, want, bad = r
    g, w = got[bad], want[bad]
    return bool(bad.any() and np.all(np.abs(g - w) == 1) and np.all(np.abs(g) < np.abs(w)))


INTEGER_SEGMENT_MEAN_TRUNCATES = Difference(
    "an integer segment mean truncates toward zero (Paddle's kernels)",
    ["segment_pool", "send_u_recv", "send_ue_recv"], ["value mismatch"],
    _integer_segment_mean_truncates, _integer_segment_mean_truncates.__doc__)
