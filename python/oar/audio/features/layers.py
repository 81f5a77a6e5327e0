"""Feature-extraction layers (Paddle's paddle.audio.features): spectrograms, mel
spectrograms, log-mel spectrograms and MFCCs of [batch, time] or [time] waveforms,
built on oar.signal.stft and differentiable ops, so gradients reach the waveform."""

from ..functional import compute_fbank_matrix, create_dct, get_window, power_to_db
from ... import _C
from ... import nn as _nn
from ...tensor.math import pow
from ... import signal as _signal

__all__ = ["Spectrogram", "MelSpectrogram", "LogMelSpectrogram", "MFCC"]


class Spectrogram(_nn.Layer):
    """|stft(x)| ** power: [batch, n_fft // 2 + 1, frames].

    Args:
        n_fft (int, optional): the transform length. Default: 512.
        hop_length (int, optional): samples between frames. Default: 512.
        win_length (int, optional): the window's length. Default: n_fft.
        window (str, optional): a get_window name. Default: "hann".
        power (float, optional): the exponent of the magnitude (> 0). Default: 1.0.
        center (bool, optional): centre the frames (pad by n_fft // 2). Default: True.
        pad_mode (str, optional): "reflect" (default) or "constant".
        dtype (str, optional): the window's dtype. Default: "float32".

    Examples:
        >>> import oar
        >>> from oar.audio.features import Spectrogram
        >>> print(Spectrogram(n_fft=64, hop_length=16)(oar.ones([1, 256])).shape)
        oar.Size([1, 33, 17])
    """

    def __init__(
        self,
        n_fft=512,
        hop_length=512,
        win_length=None,
        window="hann",
        power=1.0,
        center=True,
        pad_mode="reflect",
        dtype="float32",
    ):
        super().__init__()
        if not power > 0:
            raise ValueError(f"Spectrogram(): argument 'power' must be > 0, but got {power}")
        self.power = power
        win_length = n_fft if win_length is None else win_length
        self.n_fft, self.hop_length, self.win_length = n_fft, hop_length, win_length
        self.center, self.pad_mode = center, pad_mode
        self.register_buffer(
            "fft_window", get_window(window, win_length, fftbins=True, dtype=dtype)
        )

    def forward(self, x):
        spec = _signal.stft(
            x,
            n_fft=self.n_fft,
            hop_length=self.hop_length,
            win_length=self.win_length,
            window=self.fft_window,
            center=self.center,
            pad_mode=self.pad_mode,
        )
        return pow(_C.abs(spec), self.power)


class MelSpectrogram(_nn.Layer):
    """The mel filter bank applied to a power spectrogram: [batch, n_mels, frames].

    Args:
        sr (int, optional): the sample rate. Default: 22050.
        n_fft (int, optional): the transform length. Default: 2048.
        hop_length (int, optional): samples between frames. Default: 512.
        win_length (int, optional): the window's length. Default: n_fft.
        window (str, optional): a get_window name. Default: "hann".
        power (float, optional): the exponent of the magnitude. Default: 2.0.
        center (bool, optional): centre the frames. Default: True.
        pad_mode (str, optional): "reflect" (default) or "constant".
        n_mels (int, optional): the number of mel bands. Default: 64.
        f_min (float, optional): the lowest frequency (Hz). Default: 50.0.
        f_max (float, optional): the highest frequency (Hz). Default: sr // 2.
        htk (bool, optional): HTK's mel scale. Default: False.
        norm (str|float, optional): the filter normalisation. Default: "slaney".
        dtype (str, optional): the dtype of the window and filters. Default: "float32".

    Examples:
        >>> import oar
        >>> from oar.audio.features import MelSpectrogram
        >>> m = MelSpectrogram(sr=16000, n_fft=256, hop_length=64, n_mels=20)
        >>> print(m(oar.ones([1, 1024])).shape)
        oar.Size([1, 20, 17])
    """

    def __init__(
        self,
        sr=22050,
        n_fft=2048,
        hop_length=512,
        win_length=None,
        window="hann",
        power=2.0,
        center=True,
        pad_mode="reflect",
        n_mels=64,
        f_min=50.0,
        f_max=None,
        htk=False,
        norm="slaney",
        dtype="float32",
    ):
        super().__init__()
        self._spectrogram = Spectrogram(
            n_fft=n_fft,
            hop_length=hop_length,
            win_length=win_length,
            window=window,
            power=power,
            center=center,
            pad_mode=pad_mode,
            dtype=dtype,
        )
        self.n_mels, self.f_min, self.f_max, self.htk, self.norm = n_mels, f_min, f_max, htk, norm
        if f_max is None:
            f_max = sr // 2
        self.register_buffer(
            "fbank_matrix",
            compute_fbank_matrix(
                sr=sr,
                n_fft=n_fft,
                n_mels=n_mels,
                f_min=f_min,
                f_max=f_max,
                htk=htk,
                norm=norm,
                dtype=dtype,
            ),
        )

    def forward(self, x):
        return _C.matmul(self.fbank_matrix, self._spectrogram(x))


class LogMelSpectrogram(_nn.Layer):
    """A mel spectrogram in decibels (power_to_db): [batch, n_mels, frames].

    Args:
        sr (int, optional): the sample rate. Default: 22050.
        n_fft (int, optional): the transform length. Default: 512.
        hop_length (int, optional): samples between frames. Default: n_fft // 4.
        win_length (int, optional): the window's length. Default: n_fft.
        window (str, optional): a get_window name. Default: "hann".
        power (float, optional): the exponent of the magnitude. Default: 2.0.
        center (bool, optional): centre the frames. Default: True.
        pad_mode (str, optional): "reflect" (default) or "constant".
        n_mels (int, optional): the number of mel bands. Default: 64.
        f_min (float, optional): the lowest frequency (Hz). Default: 50.0.
        f_max (float, optional): the highest frequency (Hz). Default: sr // 2.
        htk (bool, optional): HTK's mel scale. Default: False.
        norm (str|float, optional): the filter normalisation. Default: "slaney".
        ref_value (float, optional): the power of 0 dB. Default: 1.0.
        amin (float, optional): the smallest power. Default: 1e-10.
        top_db (float, optional): the dynamic range kept; None keeps all. Default: None.
        dtype (str, optional): the dtype of the window and filters. Default: "float32".

    Examples:
        >>> import oar
        >>> from oar.audio.features import LogMelSpectrogram
        >>> m = LogMelSpectrogram(sr=16000, n_fft=256, n_mels=20)
        >>> print(m(oar.ones([1, 1024])).shape)
        oar.Size([1, 20, 17])
    """

    def __init__(
        self,
        sr=22050,
        n_fft=512,
        hop_length=None,
        win_length=None,
        window="hann",
        power=2.0,
        center=True,
        pad_mode="reflect",
        n_mels=64,
        f_min=50.0,
        f_max=None,
        htk=False,
        norm="slaney",
        ref_value=1.0,
        amin=1e-10,
        top_db=None,
        dtype="float32",
    ):
        super().__init__()
        self._melspectrogram = MelSpectrogram(
            sr=sr,
            n_fft=n_fft,
            hop_length=hop_length,
            win_length=win_length,
            window=window,
            power=power,
            center=center,
            pad_mode=pad_mode,
            n_mels=n_mels,
            f_min=f_min,
            f_max=f_max,
            htk=htk,
            norm=norm,
            dtype=dtype,
        )
        self.ref_value, self.amin, self.top_db = ref_value, amin, top_db

    def forward(self, x):
        return power_to_db(
            self._melspectrogram(x), ref_value=self.ref_value, amin=self.amin, top_db=self.top_db
        )


class MFCC(_nn.Layer):
    """Mel-frequency cepstral coefficients: the DCT of a log-mel spectrogram, [batch, n_mfcc, frames].

    Args:
        sr (int, optional): the sample rate. Default: 22050.
        n_mfcc (int, optional): the number of coefficients (<= n_mels). Default: 40.
        n_fft (int, optional): the transform length. Default: 512.
        hop_length (int, optional): samples between frames. Default: n_fft // 4.
        win_length (int, optional): the window's length. Default: n_fft.
        window (str, optional): a get_window name. Default: "hann".
        power (float, optional): the exponent of the magnitude. Default: 2.0.
        center (bool, optional): centre the frames. Default: True.
        pad_mode (str, optional): "reflect" (default) or "constant".
        n_mels (int, optional): the number of mel bands. Default: 64.
        f_min (float, optional): the lowest frequency (Hz). Default: 50.0.
        f_max (float, optional): the highest frequency (Hz). Default: sr // 2.
        htk (bool, optional): HTK's mel scale. Default: False.
        norm (str|float, optional): the filter normalisation. Default: "slaney".
        ref_value (float, optional): the power of 0 dB. Default: 1.0.
        amin (float, optional): the smallest power. Default: 1e-10.
        top_db (float, optional): the dynamic range kept; None keeps all. Default: None.
        dtype (str, optional): the dtype of the window, filters and DCT. Default: "float32".

    Examples:
        >>> import oar
        >>> from oar.audio.features import MFCC
        >>> m = MFCC(sr=16000, n_mfcc=13, n_fft=256, n_mels=20)
        >>> print(m(oar.ones([1, 1024])).shape)
        oar.Size([1, 13, 17])
    """

    def __init__(
        self,
        sr=22050,
        n_mfcc=40,
        n_fft=512,
        hop_length=None,
        win_length=None,
        window="hann",
        power=2.0,
        center=True,
        pad_mode="reflect",
        n_mels=64,
        f_min=50.0,
        f_max=None,
        htk=False,
        norm="slaney",
        ref_value=1.0,
        amin=1e-10,
        top_db=None,
        dtype="float32",
    ):
        super().__init__()
        if n_mfcc > n_mels:
            raise ValueError(
                f"MFCC(): argument 'n_mfcc' ({n_mfcc}) must not exceed n_mels ({n_mels})"
            )
        self._log_melspectrogram = LogMelSpectrogram(
            sr=sr,
            n_fft=n_fft,
            hop_length=hop_length,
            win_length=win_length,
            window=window,
            power=power,
            center=center,
            pad_mode=pad_mode,
            n_mels=n_mels,
            f_min=f_min,
            f_max=f_max,
            htk=htk,
            norm=norm,
            ref_value=ref_value,
            amin=amin,
            top_db=top_db,
            dtype=dtype,
        )
        self.register_buffer("dct_matrix", create_dct(n_mfcc=n_mfcc, n_mels=n_mels, dtype=dtype))

    def forward(self, x):
        log_mel = self._log_melspectrogram(x)  # [batch, n_mels, frames]
        perm = [0, 2, 1] if log_mel.ndim == 3 else [1, 0]
        return _C.transpose(_C.matmul(_C.transpose(log_mel, perm), self.dct_matrix), perm)
