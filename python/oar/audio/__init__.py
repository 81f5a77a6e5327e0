"""oar.audio: Paddle's paddle.audio (docs/fft.md).

`functional` (mel scales, filter banks, decibels, the DCT, windows), `features` (the
Spectrogram, MelSpectrogram, LogMelSpectrogram and MFCC layers, on oar.signal.stft),
`backends` with `load`, `save` and `info` for PCM WAV files through Python's `wave`
module, and `datasets` (ESC50, TESS) read from local copies of Paddle's archives: oar
downloads nothing.
"""

from . import backends, datasets, features, functional
from .backends import info, load, save

__all__ = ["functional", "features", "datasets", "backends", "load", "info", "save"]
