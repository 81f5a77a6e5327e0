"""FFTs (src/oar/ops/fft.yaml)."""
import numpy as np
import torch

from .common import Difference, _differing, _x


def _fft_of_infinities(call, detail, last):
    """FFTs of input holding an infinity or a NaN: inf * 0 and inf - inf arise at
    different steps of different FFT algorithms, and a NaN reaches a part or not as the
    butterflies group it (times an exact 0 twiddle, or added), so which outputs get a
    NaN part (and the sign of an infinite part beside one) differs between oar's and
    torch's. Only when x holds inf or NaN and every differing element has a NaN part in
    oar's or torch's value."""
    x, d = _x(call, last), _differing(last)
    if x is None or d is None or bool(torch.isfinite(x).all()):
        return False
    g, w, bad = d
    nan_part = np.isnan(g.real) | np.isnan(g.imag) | np.isnan(w.real) | np.isnan(w.imag)
    return bool(bad.any() and nan_part[bad].all())


FFT_OF_INFINITIES = Difference(
    "FFT of infinities or NaN: where NaN parts arise", ["fft_c2c", "fft_r2c", "fft_c2r"],
    ["value mismatch"], _fft_of_infinities, _fft_of_infinities.__doc__)
