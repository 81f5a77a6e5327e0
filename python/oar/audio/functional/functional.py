"""Mel scales, mel filter banks, decibels and the DCT (Paddle's paddle.audio.functional).

The formulas are librosa's (Slaney's mel scale by default, HTK's with htk=True), as
Paddle's are; the tensors are computed in the requested dtype with differentiable ops,
so hz_to_mel, mel_to_hz and power_to_db pass gradients.
"""

from __future__ import annotations

import math
import numbers
from typing import TypeVar

from ... import _C
from ...framework import check as C
from ... import nn as _nn
from ...tensor.creation import arange
from ...tensor.creation import full_like
from ...tensor.creation import linspace
from ...tensor.creation import to_tensor
from ...tensor.creation import zeros_like
from ...tensor.math import pow
from ...tensor.search import where
from ...framework.dtype import convert_dtype
from ...framework.typing import DTypeLike
from ...tensor.linalg import t

Tensor = _C.Tensor

# hz_to_mel and mel_to_hz give a Tensor for a Tensor, a float for a number
_FreqT = TypeVar("_FreqT", Tensor, float)

# Slaney's mel scale: linear below 1 kHz (200/3 Hz per mel), logarithmic above.
_F_SP = 200.0 / 3
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP
_LOGSTEP = math.log(6.4) / 27.0


def _freq_arg(api, name, v):
    if isinstance(v, Tensor):
        return v
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(
            f"{api}(): argument '{name}' must be a float or a Tensor, but got {type(v).__name__}"
        )
    return float(v)


def _float_dtype(api, dtype):
    d = convert_dtype(dtype)
    if d not in ("float32", "float64"):
        raise TypeError(f"{api}(): argument 'dtype' must be float32 or float64, but got {d}")
    return d


def _count(api, name, v, low=1):
    v = C.integer(api, name, v)
    if v < low:
        raise ValueError(f"{api}(): argument '{name}' must be >= {low}, but got {v}")
    return v


def hz_to_mel(freq: _FreqT, htk: bool = False) -> _FreqT:
    """Frequencies in Hz to mels (Slaney's scale, or HTK's with htk=True).

    Args:
        freq (Tensor|float): frequencies in Hz.
        htk (bool, optional): HTK's formula 2595 log10(1 + f / 700). Default: False.

    Returns:
        Tensor|float: the mels, of freq's kind.

    Examples:
        >>> import oar
        >>> print(round(oar.audio.functional.hz_to_mel(1000.0), 4))
        15.0
    """
    freq = _freq_arg("hz_to_mel", "freq", freq)
    if htk:
        if isinstance(freq, Tensor):
            return 2595.0 * _C.log10(1.0 + freq / 700.0)
        return 2595.0 * math.log10(1.0 + freq / 700.0)
    if isinstance(freq, Tensor):
        linear = freq / _F_SP
        log = _MIN_LOG_MEL + _C.log(freq / _MIN_LOG_HZ + 1e-10) / _LOGSTEP
        return where(freq > _MIN_LOG_HZ, log, linear)
    if freq >= _MIN_LOG_HZ:
        return _MIN_LOG_MEL + math.log(freq / _MIN_LOG_HZ + 1e-10) / _LOGSTEP
    return freq / _F_SP


def mel_to_hz(mel: _FreqT, htk: bool = False) -> _FreqT:
    """Mels to frequencies in Hz (the inverse of hz_to_mel).

    Args:
        mel (Tensor|float): mels.
        htk (bool, optional): HTK's formula 700 (10^(m / 2595) - 1). Default: False.

    Returns:
        Tensor|float: the frequencies, of mel's kind.

    Examples:
        >>> import oar
        >>> print(round(oar.audio.functional.mel_to_hz(15.0), 4))
        1000.0
    """
    mel = _freq_arg("mel_to_hz", "mel", mel)
    if htk:
        if isinstance(mel, Tensor):
            return 700.0 * (pow(full_like(mel, 10.0), mel / 2595.0) - 1.0)
        return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
    if isinstance(mel, Tensor):
        linear = mel * _F_SP
        log = _MIN_LOG_HZ * _C.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
        return where(mel > _MIN_LOG_MEL, log, linear)
    if mel >= _MIN_LOG_MEL:
        return _MIN_LOG_HZ * math.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
    return mel * _F_SP


def mel_frequencies(
    n_mels: int = 64,
    f_min: float = 0.0,
    f_max: float = 11025.0,
    htk: bool = False,
    dtype: DTypeLike = "float32",
) -> Tensor:
    """n_mels frequencies (Hz) evenly spaced on the mel scale from f_min to f_max.

    Args:
        n_mels (int, optional): how many. Default: 64.
        f_min (float, optional): the lowest, in Hz. Default: 0.0.
        f_max (float, optional): the highest, in Hz. Default: 11025.0.
        htk (bool, optional): HTK's mel scale instead of Slaney's. Default: False.
        dtype (str, optional): float32 (default) or float64.

    Returns:
        Tensor: [n_mels].

    Examples:
        >>> import oar
        >>> print(oar.audio.functional.mel_frequencies(3, 0.0, 2000.0, htk=True).shape)
        oar.Size([3])
    """
    api = "mel_frequencies"
    n_mels = _count(api, "n_mels", n_mels)
    dt = _float_dtype(api, dtype)
    lo = hz_to_mel(C.number(api, "f_min", f_min), htk=htk)
    hi = hz_to_mel(C.number(api, "f_max", f_max), htk=htk)
    return mel_to_hz(linspace(lo, hi, n_mels, dtype=dt), htk=htk)


def fft_frequencies(sr: float, n_fft: int, dtype: DTypeLike = "float32") -> Tensor:
    """The centre frequencies (Hz) of the 1 + n_fft // 2 bins of an rfft at sample rate sr.

    Args:
        sr (int): the sample rate.
        n_fft (int): the transform length.
        dtype (str, optional): float32 (default) or float64.

    Returns:
        Tensor: [1 + n_fft // 2], from 0 to sr / 2.

    Examples:
        >>> import oar
        >>> print(oar.audio.functional.fft_frequencies(8, 4))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 2., 4.])
    """
    api = "fft_frequencies"
    sr = C.number(api, "sr", sr)
    n_fft = _count(api, "n_fft", n_fft)
    return linspace(0, float(sr) / 2, 1 + n_fft // 2, dtype=_float_dtype(api, dtype))


def compute_fbank_matrix(
    sr: float,
    n_fft: int,
    n_mels: int = 64,
    f_min: float = 0.0,
    f_max: float | None = None,
    htk: bool = False,
    norm: str | float | None = "slaney",
    dtype: DTypeLike = "float32",
) -> Tensor:
    """The mel filter bank: n_mels triangular filters over the 1 + n_fft // 2 rfft bins.

    Args:
        sr (int): the sample rate.
        n_fft (int): the transform length.
        n_mels (int, optional): the number of filters. Default: 64.
        f_min (float, optional): the lowest frequency (Hz). Default: 0.0.
        f_max (float, optional): the highest frequency (Hz). Default: sr / 2.
        htk (bool, optional): HTK's mel scale instead of Slaney's. Default: False.
        norm (str|float, optional): "slaney" (each filter divided by its width in Hz / 2,
            constant energy per channel) or a p for p-norm normalised rows. Default: "slaney".
        dtype (str, optional): float32 (default) or float64.

    Returns:
        Tensor: [n_mels, 1 + n_fft // 2].

    Examples:
        >>> import oar
        >>> print(oar.audio.functional.compute_fbank_matrix(16000, 512, n_mels=40).shape)
        oar.Size([40, 257])
    """
    api = "compute_fbank_matrix"
    sr = C.number(api, "sr", sr)
    n_fft = _count(api, "n_fft", n_fft)
    n_mels = _count(api, "n_mels", n_mels)
    dt = _float_dtype(api, dtype)
    if f_max is None:
        f_max = float(sr) / 2
    fftfreqs = fft_frequencies(sr, n_fft, dtype=dt)
    mel_f = mel_frequencies(n_mels + 2, f_min=f_min, f_max=f_max, htk=htk, dtype=dt)
    fdiff = mel_f[1:] - mel_f[:-1]
    ramps = _C.unsqueeze(mel_f, 1) - _C.unsqueeze(fftfreqs, 0)
    lower = -ramps[:n_mels] / _C.unsqueeze(fdiff[:n_mels], 1)
    upper = ramps[2:] / _C.unsqueeze(fdiff[1:], 1)
    weights = _C.maximum(zeros_like(lower), _C.minimum(lower, upper))
    if norm == "slaney":
        enorm = 2.0 / (mel_f[2 : n_mels + 2] - mel_f[:n_mels])
        weights = weights * _C.unsqueeze(enorm, 1)
    elif isinstance(norm, numbers.Real) and not isinstance(norm, bool):
        weights = _nn.functional.normalize(weights, p=norm, axis=-1)
    elif norm is not None:
        raise ValueError(
            f"{api}(): argument 'norm' must be 'slaney', a number or None, but got {norm!r}"
        )
    return weights


def power_to_db(
    spect: Tensor, ref_value: float = 1.0, amin: float = 1e-10, top_db: float | None = 80.0
) -> Tensor:
    """A power spectrogram in decibels: 10 log10(max(spect, amin) / ref_value), floored at top_db below the peak.

    Args:
        spect (Tensor): powers (|stft|^2).
        ref_value (float, optional): the power of 0 dB. Default: 1.0.
        amin (float, optional): the smallest power (avoids log(0)). Default: 1e-10.
        top_db (float, optional): the dynamic range kept below the maximum; None keeps
            everything. Default: 80.0.

    Returns:
        Tensor: spect's shape and dtype.

    Examples:
        >>> import oar
        >>> print(oar.audio.functional.power_to_db(oar.to_tensor([1.0, 10.0, 100.0])))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0. , 10., 20.])
    """
    api = "power_to_db"
    C.tensor(api, "spect", spect)
    amin = C.number(api, "amin", amin)
    ref_value = C.number(api, "ref_value", ref_value)
    if amin <= 0:
        raise ValueError(f"{api}(): argument 'amin' must be > 0, but got {amin}")
    if ref_value <= 0:
        raise ValueError(f"{api}(): argument 'ref_value' must be > 0, but got {ref_value}")
    log_spec = 10.0 * _C.log10(_C.maximum(spect, full_like(spect, amin)))
    log_spec = log_spec - 10.0 * math.log10(max(ref_value, amin))
    if top_db is not None:
        top_db = C.number(api, "top_db", top_db)
        if top_db < 0:
            raise ValueError(f"{api}(): argument 'top_db' must be >= 0, but got {top_db}")
        floor = full_like(log_spec, 1.0) * (log_spec.max() - top_db)
        log_spec = _C.maximum(log_spec, floor)
    return log_spec


def create_dct(
    n_mfcc: int, n_mels: int, norm: str | None = "ortho", dtype: DTypeLike = "float32"
) -> Tensor:
    """The DCT-II matrix that turns n_mels log-mel bands into n_mfcc cepstral coefficients.

    Args:
        n_mfcc (int): the number of coefficients.
        n_mels (int): the number of mel bands.
        norm (str, optional): "ortho" (orthonormal rows) or None (unscaled, times 2).
            Default: "ortho".
        dtype (str, optional): float32 (default) or float64.

    Returns:
        Tensor: [n_mels, n_mfcc] (log_mel @ dct gives the MFCCs).

    Examples:
        >>> import oar
        >>> print(oar.audio.functional.create_dct(13, 40).shape)
        oar.Size([40, 13])
    """
    api = "create_dct"
    n_mfcc = _count(api, "n_mfcc", n_mfcc)
    n_mels = _count(api, "n_mels", n_mels)
    dt = _float_dtype(api, dtype)
    n = arange(n_mels, dtype=dt)
    k = _C.unsqueeze(arange(n_mfcc, dtype=dt), 1)
    dct = _C.cos(math.pi / float(n_mels) * (n + 0.5) * k)  # [n_mfcc, n_mels]
    if norm is None:
        dct = dct * 2.0
    elif norm == "ortho":
        scale = [1.0 / math.sqrt(2.0)] + [1.0] * (n_mfcc - 1)
        dct = dct * _C.unsqueeze(to_tensor(scale, dtype=dt), 1) * math.sqrt(2.0 / n_mels)
    else:
        raise ValueError(f"{api}(): argument 'norm' must be 'ortho' or None, but got {norm!r}")
    return t(dct)
