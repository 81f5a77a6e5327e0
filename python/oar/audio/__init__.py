"""oar.audio: Paddle's paddle.audio (docs/audio.md).

`functional` (mel scales, filter banks, decibels, the DCT, windows), `features` (the
Spectrogram, MelSpectrogram, LogMelSpectrogram and MFCC layers, on oar.signal.stft), and
`backends` with `load`, `save` and `info` for PCM WAV files through Python's `wave` module.
Paddle's `datasets` (ESC50, TESS) download their archives and are not provided.
"""
from . import backends, features, functional
from .backends import info, load, save

__all__ = ["functional", "features", "backends", "load", "info", "save"]
